/* The sandbox of a process that runs the container's code, applied by the
 * process itself right before it execs: the container's workload (forked
 * by the supervisor) and every `exec`'d process go through this one
 * function, so the two cannot drift apart. */
#ifndef CORRAL_WORKLOAD_H
#define CORRAL_WORKLOAD_H

#include <stdbool.h>

#include "caps.h"
#include "error.h"
#include "seccomp.h"
#include "spec.h"

struct workload {
	const struct spec_process *process; /* the effective process */
	char **env;			    /* the process environment */
	struct caps_masks caps; /* process->caps, resolved in the parent */
	bool enforced; /* the sandbox is on (not a permissive policy) */
	int keep_fds;  /* fds 3 .. 3+keep_fds-1 are passed on */
	const struct seccomp_program *seccomp;	/* config.json's, or NULL */
	const struct seccomp_program *baseline; /* corral's, or NULL */
};

/* In order: SIGPIPE back to its default, chdir to the process's cwd
 * (inside the container), drop the bounding set, load the filters (before
 * the user switch without no_new_privs), lock the securebits, switch
 * user, set capabilities, no_new_privs, umask, pass the kept fds and
 * close the rest on exec, load the filters (with no_new_privs), exec.
 * Returns only on failure. */
int workload_exec(const struct workload *w, struct error **err);

#endif
