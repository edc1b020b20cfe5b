/* The commands that work through a container's cgroup: pause, resume
 * (pause.c), update (update.c), ps (ps.c) and events (events.c).  Like
 * the lifecycle's (container.h), each takes the state root and the
 * container ID and reports failure through *err. */
#ifndef CORRAL_CGROUP_COMMANDS_H
#define CORRAL_CGROUP_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

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

#endif
