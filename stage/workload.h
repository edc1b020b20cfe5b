/* The sandbox of a process that runs the container's code, applied by the
 * process itself right before it execs: the container's workload (forked
 * by the supervisor) and every `exec`'d process go through this one
 * function, in the stage, so the two cannot drift apart. */
#ifndef CORRAL_WORKLOAD_H
#define CORRAL_WORKLOAD_H

#include <stdbool.h>
#include "error.h"
#include "params.h"

/* In order: SIGPIPE back to its default, pass the kept fds and close the
 * rest (on exec), process.rlimits and (the container's workload) its
 * oomScoreAdj, chdir to the process's cwd (inside the container), umask,
 * drop the bounding set, the LSM labels, lock the securebits, switch
 * user, set capabilities, no_new_privs, find args[0] on PATH (as the
 * user); then corral's baseline filter (unless the supervisor loaded it
 * already: workload_preload_baseline), corral's self-only filter when
 * the process's uid is the supervisor's (params.h), and config.json's,
 * the last thing
 * before the execve, so that no call of the stage's own needs config.json
 * to allow it.  Without no_new_privs the filters can only be loaded while
 * still privileged: then both go before the securebits, after every step
 * that does not depend on the user, and must allow the user switch, the
 * capabilities and the PATH lookup (stat, access), as runc documents.
 * Returns only on failure. */
int workload_exec(const struct stage_params *p, struct error **err);

/* The container's workload (STAGE_INIT): its supervisor loads corral's
 * baseline before it forks it, after the startContainer hooks (no_new_privs
 * set first when the workload gets it, which the kernel wants of a process
 * without CAP_SYS_ADMIN), and the workload inherits the filter at the
 * fork; p->baseline is emptied so that workload_exec() loads only
 * config.json's.  *listener gets the filter's seccomp listener, or -1:
 * close-on-exec, above the fds the workload keeps, the supervisor's to
 * serve; the workload closes its copy as its first step, so it never
 * holds it when its program runs. */
int workload_preload_baseline(struct stage_params *p, int *listener,
			      struct error **err);

/* This process's oom_score_adj, 0 when it cannot be read. */
int stage_oom_score_adj(void);

/* In a user namespace that maps its creator's ids alone (an ordinary
 * user's corral without subordinate ids), setgroups is denied to every
 * process: the creator's supplementary groups stay (harden() says so),
 * and asking for none cannot be done; the callers let that pass. */
bool stage_setgroups_denied(void);

#endif
