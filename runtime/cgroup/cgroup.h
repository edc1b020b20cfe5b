/* Resource limits through cgroups, v2 (unified) and v1 (legacy, and hybrid
 * hosts whose controllers are on v1 with a cgroup2 at
 * /sys/fs/cgroup/unified).  The layout is detected at run time, and each
 * has its backend (cgroup_backend.h).
 *
 * create names the cgroup (cgroup_path_for, cgroup_new), then makes it
 * and writes every limit before the container runs any code
 * (cgroup_make); the child starts in it through clone3 (cgroup_clone_fd)
 * or is moved there before it runs a step of its own (cgroup_enter in the
 * parent, cgroup_enter_self in the child); exec moves its process the
 * same way.  pause, resume, ps, kill --all, update and events work on a
 * live cgroup; delete removes it, killing what is left first
 * (cgroup_remove: cgroup_kill, cgroup_destroy).  Fail closed: a limit
 * that cannot be written fails cgroup_make unless best_effort, in which
 * case it is reported in *skipped. */
#ifndef CORRAL_CGROUP_H
#define CORRAL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup_path.h"
#include "error.h"
#include "spec.h"

#define CGROUP_MOUNT "/sys/fs/cgroup"

struct cgroup_backend;

struct cgroup {
	const struct cgroup_backend *backend; /* the driver's operations */
	/* the layout's (v1 or v2), whose files every driver writes: the
	 * backend itself but for the systemd driver's */
	const struct cgroup_backend *layout;
	char *mount_root; /* "/sys/fs/cgroup" (a temp dir in unit tests) */
	char *path;	  /* below each hierarchy root: "corral/ID", "/a/b" */
	/* None: the host's layout, every hierarchy, the cgroup at
	 * ROOT/PATH.  Else a delegated one (cgroup_find_delegated): only the
	 * hierarchies named here, the cgroup at ROOT/BASE/PATH, BASE being
	 * the caller's own; the backends take the bases through
	 * cg_hierarchies(), and no caller asks which layout it is. */
	struct cgroup_bases bases;
	/* cgroup_make_cgroup2 made the cgroup2 directory: cgroup_make opens
	 * it instead of making it */
	bool cgroup2_made;
	/* The systemd driver's (cgroup_systemd.c): the scope and its slice,
	 * whether the calling user's manager has them, and the first
	 * process the scope is started with (the leaf exists then, made by
	 * systemd: the layout's prepare writes the limits in it). */
	char *unit, *slice;
	bool user_manager;
	pid_t pid;
};

/* The v1 hierarchies cg has its cgroup in, as the roots of their mounts
 * below cg->mount_root: every controller's that is mounted, name=systemd's
 * and a hybrid host's cgroup2; in a delegated layout those with a base. */
#define CGROUP_V1_MAX 16
struct cgroup_v1_roots {
	size_t n;
	dev_t dev[CGROUP_V1_MAX];
	ino_t ino[CGROUP_V1_MAX];
};
int cgroup_v1_joined(const struct cgroup *cg, struct cgroup_v1_roots *out,
		     struct error **err);

/* Whether DIR, a mount below dirfd ("memory", "cpu,cpuacct", "systemd"),
 * is one of them (reached through the link named after a controller when
 * co-mounted).  In one that is not, a named one say, the container stays
 * in its creator's cgroup, whose tree its cgroup namespace would show. */
bool cgroup_v1_joins(const struct cgroup_v1_roots *roots, int dirfd,
		     const char *dir);

/* The backend of the layout mounted at mount_root: cgroup_v2_backend for
 * one cgroup2 mount, cgroup_v1_backend for controllers on v1 mounts (a
 * cgroup2 may be beside them). */
int cgroup_detect(const char *mount_root, const struct cgroup_backend **out,
		  struct error **err);

/* Make the cgroup (in every v1 hierarchy that has a controller corral
 * writes, plus name=systemd/unified ones when present, or in the one v2
 * tree, enabling the controllers it needs in each parent's
 * cgroup.subtree_control) and write the limits of `r` (may be NULL). */
int cgroup_prepare(const char *mount_root, const char *path,
		   const struct spec_resources *r, bool best_effort,
		   struct cgroup **out, char ***skipped, struct error **err);

/* The cgroup `path` below mount_root, its backend detected: nothing is
 * opened, made or checked to exist (an existing container's cgroup, for
 * delete, pause, ...; or one to make with cgroup_make). */
int cgroup_new(const char *mount_root, const char *path, struct cgroup **out,
	       struct error **err);

/* The caller's delegated cgroup, for an ordinary user's corral (and root's
 * of a user namespace not the host's): on a v2 tree, the directory
 * holding the caller's own cgroup when the caller owns it and its
 * cgroup.procs and cgroup.subtree_control (the container's cgroup is
 * then a leaf beside the caller's process, never above it: a cgroup with
 * processes gives its children no controller); on v1, each hierarchy
 * where the caller's own cgroup is a directory it owns (the container's
 * cgroup is made below it), a cgroup2 beside them ("unified") as on v2.
 * The root cgroup is never the caller's.  *controllers: which of memory,
 * pids and cpu the container's cgroup can have (bits 1 << CG_MEMORY,
 * CG_PIDS, CG_CPU of cgroup_limits.h).  Nothing delegated: out->n == 0. */
int cgroup_find_delegated(const char *mount_root, struct cgroup_bases *out,
			  unsigned *controllers, struct error **err);

/* The systemd driver's cgroup (cgroup_systemd.c): the transient scope
 * that cgroupsPath "slice:prefix:name" names (none: "SLICE:corral:ID",
 * SLICE system.slice, or user.slice for the calling user's manager
 * (user)), at the path systemd will give it below its manager's cgroup,
 * which it asks systemd for; nothing is made.  Any other cgroupsPath, or
 * a name systemd would refuse, is an error.  cgroup_make then starts the
 * scope with cg->pid, the container's first process, in it. */
int cgroup_new_systemd(const char *mount_root, const char *cgroups_path,
		       const char *id, bool user, struct cgroup **out,
		       struct error **err);
/* The systemd driver's cgroup of an existing container, from its record:
 * no call to systemd until one is needed. */
int cgroup_open_systemd(const char *mount_root, const char *path,
			const char *unit, bool user, struct cgroup **out,
			struct error **err);

/* A cgroup `path` below the bases (copied) of a delegated layout; like
 * cgroup_new, nothing is made. */
int cgroup_new_delegated(const char *mount_root,
			 const struct cgroup_bases *bases, const char *path,
			 struct cgroup **out, struct error **err);

/* Whether cg (named by cgroup_new from config.json's cgroupsPath) may be
 * made where it is named: no existing cgroup on the way to it may be
 * another container's (corral marks each it makes) or hold processes
 * (someone's leaf: a service's, a container's of another runtime), so
 * that a container never lives inside another's limits.  A delegated
 * cgroup's place is corral's own choice and is not checked. */
int cgroup_check_place(const struct cgroup *cg, struct error **err);

/* cgroup_prepare for a cgroup named by cgroup_new. */
int cgroup_make(const struct cgroup *cg, const struct spec_resources *r,
		bool best_effort, char ***skipped, struct error **err);

/* Whether cgroup_make needs cg->pid, the container's first process: the
 * systemd driver's scope is started with it in it, so the cgroup is made
 * after the clone, before the child's GO. */
bool cgroup_needs_pid(const struct cgroup *cg);

/* Whether systemd is this host's init, whose driver cgroup_new_systemd
 * is. */
bool cgroup_systemd_host(void);

/* The driver that makes cg: "cgroupfs" or "systemd". */
const char *cgroup_driver(const struct cgroup *cg);

/* Beside v1 hierarchies (a hybrid host), make the cgroup2 directory
 * alone, for clone3 to start the child in: 1.  cgroup_make then makes the
 * rest and writes the limits while the child makes its namespaces (the
 * child moves itself into the v1 hierarchies once they are made, as on a
 * v1-only host).  0, having made nothing, when the cgroup2 hierarchy is
 * the whole cgroup (a v2 host), which cgroup_make makes, limits and all,
 * before the clone.  On -1 nothing it made is left. */
int cgroup_make_cgroup2(struct cgroup *cg, struct error **err);

/* Whether the host has a cgroup2 hierarchy for this cgroup (the v2 tree,
 * or a hybrid host's "unified"), which clone3 can start a process in. */
bool cgroup_has_cgroup2(const struct cgroup *cg);

/* An fd of the container's directory in its cgroup2 hierarchy (the v2
 * tree, or a hybrid host's "unified") for clone3's CLONE_INTO_CGROUP;
 * the caller closes it.  -1 when there is no cgroup2 hierarchy. */
int cgroup_clone_fd(const struct cgroup *cg);

/* Move pid into the cgroup (every hierarchy). */
int cgroup_enter(const struct cgroup *cg, pid_t pid, struct error **err);

/* Move the calling process, which must be single-threaded, into the
 * cgroup: "0" into each v1 hierarchy's `tasks` file, which moves the
 * caller alone and so skips the global lock a cgroup.procs write takes
 * (and its wait for an RCU grace period).  cgroup2 hierarchies are
 * skipped when in_cgroup2 (clone3 made the process there), else joined
 * through cgroup.procs. */
int cgroup_enter_self(const struct cgroup *cg, bool in_cgroup2,
		      struct error **err);

/* What the container's supervisor keeps to kill its own cgroup when it is
 * not PID 1 (stage/reaper.h): the cgroup2 hierarchy's cgroup.procs
 * (read-only) and cgroup.kill (write-only, -1 where the kernel has none
 * or it cannot be opened), or on a v1-only host a v1 cgroup.procs, which
 * keeps its listing while open (`reopen`: the reader reopens it through
 * /proc/self/fd for each one).  Called inside the cgroup, before
 * pivot_root; the fds are O_CLOEXEC.  Fails when no cgroup.procs opens:
 * the container could not be killed at its end. */
struct cgroup_reaper_fds {
	int procs, kill;
	bool reopen;
};
int cgroup_open_reaper(const struct cgroup *cg, struct cgroup_reaper_fds *out,
		       struct error **err);

/* Kill every process in the cgroup: cgroup.kill on v2 (when the kernel has
 * it), otherwise freeze, SIGKILL every pid in cgroup.procs, thaw; then wait
 * (bounded) until cgroup.procs is empty. */
int cgroup_kill(const struct cgroup *cg, struct error **err);

/* Pause (frozen) or resume every process of the cgroup, and wait until
 * the kernel reports it done: v1's freezer.state, or cgroup2's
 * cgroup.freeze and cgroup.events; the v1 freezer on a hybrid host (see
 * pick_freezer in cgroup_kill.c).  A freeze that does not complete in
 * time is undone and fails. */
int cgroup_freeze(const struct cgroup *cg, bool frozen, struct error **err);

/* Whether the cgroup is frozen or freezing (the container is paused);
 * false when it has no freezer or is gone. */
int cgroup_is_frozen(const struct cgroup *cg, bool *out, struct error **err);

/* The pids in the cgroup.procs of every hierarchy, sorted, each once;
 * none when the cgroup is gone.  *out is malloc'd (NULL when none). */
int cgroup_pids(const struct cgroup *cg, pid_t **out, size_t *n,
		struct error **err);

/* Send sig to every process of the cgroup but `except` (and the caller).
 * Each pid is pinned with a pidfd and signalled only if it is still
 * listed afterwards, so a recycled pid is never signalled. */
int cgroup_signal(const struct cgroup *cg, int sig, pid_t except,
		  struct error **err);

/* Write the limits `r` asks for on a live cgroup, through the tables
 * cgroup_prepare() uses (cgroup_update.c).  Fields `r` leaves unset are
 * not touched; device rules are refused (they are fixed at create).  No
 * best effort: a limit that cannot be written fails the update.  On v1
 * the memory limit and memsw are written in the order the kernel
 * accepts (memsw first when it grows). */
int cgroup_update(const struct cgroup *cg, const struct spec_resources *r,
		  struct error **err);

/* Statistics in runc's `events --stats` shape (cgroup_stats.c): cpu in
 * nanoseconds, memory in bytes; a file the host lacks reads as 0, and
 * "max" as UINT64_MAX (memory) or 0 (pids: no limit). */
struct cgroup_stat {
	char *key;
	uint64_t value;
};

struct cgroup_stats {
	uint64_t cpu_total, cpu_kernel, cpu_user;
	uint64_t *cpu_percpu; /* v1 only */
	size_t n_cpu_percpu;
	uint64_t cpu_periods, cpu_throttled_periods, cpu_throttled_time;
	uint64_t memory_cache;
	/* usage, swap: limit, usage, max (peak), failcnt.  swap is memory
	 * plus swap, as v1's memsw (v2's files are added up the same way) */
	uint64_t memory[4], swap[4];
	struct cgroup_stat *memory_raw; /* memory.stat */
	size_t n_memory_raw;
	uint64_t pids_current, pids_limit;
};

/* The indexes of memory[] and swap[]. */
enum {
	CGROUP_STAT_LIMIT,
	CGROUP_STAT_USAGE,
	CGROUP_STAT_MAX,
	CGROUP_STAT_FAILCNT,
};

int cgroup_stats_read(const struct cgroup *cg, struct cgroup_stats *out,
		      struct error **err);
void cgroup_stats_clear(struct cgroup_stats *s);

/* {"type":"stats","id":ID,"data":{...}} on one line, newline-ended.
 * Pure. */
int cgroup_stats_emit(const char *id, const struct cgroup_stats *s, char **out,
		      struct error **err);

/* How many processes the kernel's OOM killer killed in the cgroup so far
 * (v2 memory.events, v1 memory.oom_control: oom_kill); 0 without the
 * counter. */
int cgroup_oom_kills(const struct cgroup *cg, uint64_t *out,
		     struct error **err);

/* Remove the cgroup directories (retrying while they are busy, bounded). */
int cgroup_destroy(const struct cgroup *cg, struct error **err);
/* What delete does: the cgroup of a stopped container is empty as a rule,
 * and then one rmdir of each directory removes it (the kernel refuses,
 * EBUSY, one that holds a process); only a cgroup that refuses goes
 * through cgroup_kill and cgroup_destroy. */
int cgroup_remove(const struct cgroup *cg, struct error **err);

void cgroup_free(struct cgroup *cg);

#endif
