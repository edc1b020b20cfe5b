/* The container's PID 1: corral's own small init.  On `start` it forks the
 * workload, then reaps, forwards signals, and enforces the wall clock.
 * Because it is PID 1 of the pid namespace, when it exits the kernel kills
 * every process left inside, so exiting is how it kills the container. */
#ifndef CORRAL_SUPERVISOR_H
#define CORRAL_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "seccomp.h"

struct supervisor_config {
	uint64_t wall_clock; /* seconds; 0 = none */
	bool terminal;	     /* the workload gets the terminal's foreground */
	uid_t uid;	     /* the supervisor drops to the workload's ids */
	gid_t gid;
	const struct seccomp_program *filter; /* its own filter, or NULL */
};

/* Fork the workload, which runs `workload(arg)` (expected to exec; if it
 * returns, the workload exits 127), and supervise it.  Never returns: exits
 * with the workload's status (128+N when killed by signal N), or 137 at the
 * wall-clock deadline after saying so on stderr. */
__attribute__((noreturn)) void supervisor_run(const struct supervisor_config *c,
					      int (*workload)(void *),
					      void *arg);

#endif
