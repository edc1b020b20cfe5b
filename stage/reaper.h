/* Killing the rest of the container's cgroup from inside it, for a
 * supervisor that is not PID 1 (the container joined a pod's pid
 * namespace, so the kernel kills nothing when it exits).  corral opens
 * the cgroup's files while still root, before pivot_root
 * (cgroup_open_reaper); the supervisor keeps the fds and needs no
 * privilege or path afterwards. */
#ifndef CORRAL_REAPER_H
#define CORRAL_REAPER_H

#include <stdbool.h>

struct reaper {
	int procs_fd; /* the cgroup's cgroup.procs, read-only */
	int kill_fd;  /* its cgroup.kill (cgroup2, 5.14+), or -1 */
	/* cgroup v1 keeps the pid list of an open file until it is closed:
	 * each listing reopens procs_fd through /proc/self/fd. */
	bool reopen;
};

/* SIGKILL every process of the cgroup but the caller, until none is left
 * (at most a few seconds; a process of another user, which the caller
 * may not signal, outlives it).  Each pid is pinned with a pidfd and
 * signalled only if the cgroup still lists it, so a pid reused by a
 * process outside the cgroup (another container of the pod) is never
 * hit. */
void reaper_kill_others(const struct reaper *r);

/* Every process of the cgroup, the caller included, at once: cgroup.kill
 * when there is one; otherwise reaper_kill_others(). */
void reaper_kill_all(const struct reaper *r);

#endif
