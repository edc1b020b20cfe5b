/* The OCI lifecycle: one function per command.  Each takes the state root
 * and the container ID, does its work under the container's lock, and
 * reports failure through *err; printing is left to main. */
#ifndef CORRAL_CONTAINER_H
#define CORRAL_CONTAINER_H

#include <stdbool.h>
#include <sys/types.h>

#include "cgroup.h"
#include "container_dir.h"
#include "error.h"
#include "hostpath.h"

struct create_opts {
	const char *root;
	const char *id;
	const char *bundle; /* NULL: the current directory */
	const char *pid_file;
	const char *console_socket;
	const char *policy; /* NULL: /etc/corral/policy.json or built-ins */
	/* Read-only bind sources allowed on top of the policy: the host
	 * directories `corral sandbox` lends its default root. */
	const char *const *extra_ro_sources;
	size_t n_extra_ro_sources;
	/* `corral sandbox --rootfs DIR`: the caller's own root filesystem,
	 * allowed as root.path exactly. */
	const char *own_rootfs;
	/* Bind sources the caller opened itself (the workspace): a bind of
	 * exactly that source is made from the descriptor, not the path. */
	const struct preopened_source *preopened;
	size_t n_preopened;
	bool no_pivot;
	bool no_new_keyring;
	int preserve_fds;
};

int container_create(const struct create_opts *o, pid_t *pid,
		     struct error **err);
int container_start(const char *root, const char *id, struct error **err);
int container_state(const char *root, const char *id, char **json,
		    struct error **err);
int container_kill(const char *root, const char *id, int sig, bool all,
		   struct error **err);
int container_delete(const char *root, const char *id, bool force,
		     struct error **err);

/* create + start; unless detached, wait for the workload, forwarding
 * signals, delete the container and set *status to the workload's exit
 * status (128+N when killed by signal N). */
int container_run(const struct create_opts *o, bool detach, int *status,
		  struct error **err);

/* With a bundle: harden its config.json under the policy and explain the
 * result; with an ID: what was applied to that container at create. */
int container_explain(const char *root, const char *id, const char *bundle,
		      const char *policy, bool json, char **out,
		      struct error **err);

enum list_format { LIST_TABLE, LIST_JSON, LIST_QUIET };
int container_list(const char *root, enum list_format format, char **out,
		   struct error **err);

/* ---- through the container's cgroup (pause.c, update.c, ps.c, events.c) */

/* Freeze every process of a running container (it becomes "paused"), or
 * thaw a paused one. */
int container_pause(const char *root, const char *id, struct error **err);
int container_resume(const char *root, const char *id, struct error **err);

/* `update`: a LinuxResources document (FILE, or "-" for stdin) and
 * runc's single-value flags on top of it, as given on the command line.
 * Narrowing is free; widening only up to the policy the container was
 * created under (policy.json in its state directory). */
struct update_opts {
	const char *resources;
	const char *memory, *memory_swap, *pids_limit;
	const char *cpu_quota, *cpu_period, *cpu_shares;
	const char *cpuset_cpus, *cpuset_mems;
};
int container_update(const char *root, const char *id,
		     const struct update_opts *o, struct error **err);

/* The host pids of the container's processes: a JSON array, or the
 * lines of `ps ARGS` (default -ef) for those pids, with its header. */
enum ps_format { PS_TABLE, PS_JSON };
int container_ps(const char *root, const char *id, enum ps_format format,
		 char *const *ps_args, size_t n_ps_args, char **out,
		 struct error **err);

/* runc's `events`: with stats_only one stats object; else a stats object
 * every interval_ms and an oom object whenever the OOM killer strikes,
 * until the container stops.  Each object (one line of JSON) goes to
 * sink, which returns -1 to stop. */
typedef int (*event_sink)(const char *json, void *ctx);
int container_events(const char *root, const char *id, bool stats_only,
		     unsigned interval_ms, event_sink sink, void *ctx,
		     struct error **err);

/* A container opened for those commands: its directory (locked), its
 * state and live status, and its cgroup (NULL when it has none). */
struct cgroup_container {
	struct container_dir dir;
	struct spec_state *state;
	const char *status;
	struct cgroup *cgroup;
};
int container_open_cgroup(const char *root, const char *id,
			  struct cgroup_container *c, struct error **err);
void container_close_cgroup(struct cgroup_container *c);

/* A paused container's processes die of SIGKILL only once thawed (v1's
 * freezer): kill everything in its cgroup, thaw it and wait until it is
 * empty.  For kill and delete. */
int container_kill_paused(const struct spec_state *st, struct error **err);

#endif
