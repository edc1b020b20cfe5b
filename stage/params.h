/* What corral hands to the stage (stage/main.c), the static program the
 * container's processes become before they run any code of the
 * container's: everything the last steps need, serialized by corral into
 * a memfd whose number is the stage's argv[1].
 *
 * The format, all integers little-endian:
 *
 *     magic     8 bytes "CRLSTG01"
 *     u32       mode
 *     strv      args (at least one), env
 *     str       cwd
 *     u32 u32   uid gid
 *     u32 n, n * u32   additional gids
 *     u8 u32    umask set, umask
 *     5 * u64   capability masks (bounding, effective, inheritable,
 *               permitted, ambient)
 *     u8 * 6    enforced, no_new_privs, terminal, dumpable, self_only,
 *               no_fork
 *     u32 n, n * (u32 u64 u64)   rlimits (resource, soft, hard)
 *     u8 i32    oom_score_adj set, oom_score_adj
 *     i32       keep_fds
 *     ostr ostr apparmor profile, selinux label
 *     filter    corral's baseline, config.json's
 *     u64       wall clock (seconds)
 *     u32 u32   the supervisor's uid and gid
 *     i32 * 4   sync, fifo, cgroup.procs and cgroup.kill fds (-1: none)
 *     u8        cgroup.procs must be reopened for each read (cgroup v1)
 *     i32       the outcome record's fd (-1: none)
 *     u32 n, n * hook   the startContainer hooks
 *
 * with str = u32 length + bytes (no NUL), ostr = u8 present + str, strv =
 * u32 count + count * str, filter = u32 flags + u32 count + count *
 * (u16 code, u8 jt, u8 jf, u32 k) (count 0: none), hook = str path + strv
 * args + strv env + u8 timeout set + i64 timeout.
 *
 * The stage is always the build of the corral that embeds it, so the
 * format has one version.  The decoder trusts nothing: the stage can be
 * started from inside a container (/proc/self/exe) with any argv and fds,
 * so every length is checked against the bytes left and a short, long or
 * malformed input is an error, never a crash.  Pure: no system calls. */
#ifndef CORRAL_STAGE_PARAMS_H
#define CORRAL_STAGE_PARAMS_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "spec.h"

#define STAGE_PARAMS_MAGIC "CRLSTG01"
#define STAGE_PARAMS_MAX (64u << 20) /* bytes the stage reads at most */
#define STAGE_RLIMITS_MAX 32	     /* the kernel has 16 */
/* The supervisor's own id: 65535, beside 65534 (nobody, the sandbox's
 * user); never a system's user (they end below 60000), never host root,
 * never an id of the workload's: in a user namespace of 65536 ids (a
 * pool's slice, subordinate ids) the last of them. */
#define SUPERVISOR_ID 65535u

enum stage_mode {
	STAGE_INIT = 1, /* the container's first process: start, supervise */
	STAGE_EXEC = 2, /* a process of `corral exec`: sandbox and exec */
};

enum stage_cap_set {
	STAGE_CAP_BOUNDING,
	STAGE_CAP_EFFECTIVE,
	STAGE_CAP_INHERITABLE,
	STAGE_CAP_PERMITTED,
	STAGE_CAP_AMBIENT,
	STAGE_CAP_SETS
};

/* A resource limit of the process to exec (process.rlimits): applied by
 * the workload's last steps, so that the supervisor, which forks it, keeps
 * the runtime's own limits and no config.json can make its record writes
 * fail (RLIMIT_FSIZE) or stop it (RLIMIT_CPU). */
struct stage_rlimit {
	uint32_t resource; /* RLIMIT_* */
	uint64_t soft, hard;
};

struct stage_filter {
	uint32_t flags; /* SECCOMP_FILTER_FLAG_* */
	uint16_t len;	/* instructions; 0: no filter */
	struct sock_filter *insns;
};

struct stage_params {
	enum stage_mode mode;
	/* the process to exec */
	char **args; /* NULL-terminated, n_args >= 1 */
	size_t n_args;
	char **env; /* NULL-terminated */
	size_t n_env;
	char *cwd;
	uint32_t uid, gid;
	uint32_t *gids; /* additional gids */
	size_t n_gids;
	bool has_umask;
	uint32_t umask;
	uint64_t caps[STAGE_CAP_SETS];
	bool enforced;	   /* the sandbox is on: lock the securebits */
	bool no_new_privs; /* process.noNewPrivileges */
	bool terminal;	   /* the workload gets the terminal's foreground */
	bool dumpable;	   /* init in a user namespace: stay dumpable */
	/* The process shares its uid with the supervisor (a user namespace
	 * of one id, or a workload that is root): it loads corral's
	 * self-only filter, so that it may change scheduling, priority and
	 * limits of no process but its own
	 * (runtime/seccomp/seccomp_own.c). */
	bool self_only;
	/* A pod sandbox's process (a pause), or one exec'd into it: it
	 * loads corral's no-fork filter (runtime/seccomp/seccomp_own.c) */
	bool no_fork;
	struct stage_rlimit rlimits[STAGE_RLIMITS_MAX];
	size_t n_rlimits;
	bool has_oom_score_adj; /* raised, never lowered */
	int32_t oom_score_adj;
	int32_t keep_fds;	      /* fds 3 .. 3+keep_fds-1 are passed on */
	char *apparmor_profile;	      /* NULL: none */
	char *selinux_label;	      /* NULL: none */
	struct stage_filter baseline; /* loaded first */
	struct stage_filter seccomp;  /* config.json's, loaded last */
	/* the supervisor (STAGE_INIT) */
	uint64_t wall_clock; /* seconds; 0: none */
	/* Whom the supervisor runs as once the workload runs: a uid and gid
	 * of its own, SUPERVISOR_ID (SUPERVISOR_ID - 2 for a workload that
	 * is SUPERVISOR_ID), keeping CAP_KILL alone, so that the workload
	 * cannot signal, limit, reschedule or renice it (supervisor.h);
	 * the workload's own where the namespace maps no such id. */
	uint32_t supervisor_uid, supervisor_gid;
	int32_t sync_fd; /* errors go there until "created"; -1: none */
	int32_t fifo_fd; /* O_PATH exec fifo */
	/* Set when the container joined a pid namespace, where the
	 * supervisor is not PID 1 and kills its cgroup itself. */
	int32_t cgroup_procs_fd; /* read-only */
	int32_t cgroup_kill_fd;	 /* write-only; -1 without cgroup.kill */
	bool cgroup_procs_reopen;
	/* ROOT/ID/outcome, append-only (runtime/report/report_gather.h):
	 * the supervisor writes when the workload started and how it ended */
	int32_t outcome_fd;
	struct spec_hook *start_hooks; /* startContainer */
	size_t n_start_hooks;
};

/* Serialize p into a malloc'ed buffer *out of *len bytes. */
int stage_params_encode(const struct stage_params *p, char **out, size_t *len,
			struct error **err);

/* Parse buf into *out, which owns every pointer in it afterwards (release
 * it with stage_params_release(), also after a failure). */
int stage_params_decode(const void *buf, size_t len, struct stage_params *out,
			struct error **err);

void stage_params_release(struct stage_params *p);

#endif
