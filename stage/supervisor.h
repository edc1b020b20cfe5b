/* The container's PID 1: corral's own small init, run by the stage.  On
 * `start` it forks the workload, then reaps, forwards signals, and
 * enforces the wall clock.  As PID 1 of the pid namespace, when it exits
 * the kernel kills every process left inside, so exiting is how it kills
 * the container.  In a pid namespace it joined (a pod's), it is not PID 1
 * and kills the rest of the container's cgroup itself (reaper.h). */
#ifndef CORRAL_SUPERVISOR_H
#define CORRAL_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "reaper.h"

struct supervisor_config {
	uint64_t wall_clock; /* seconds; 0 = none */
	bool terminal;	     /* the workload gets the terminal's foreground */
	/* The ids the supervisor drops to (params.h: root of the container's
	 * namespace when that is not the workload's uid, else the
	 * workload's), and the workload's uid: when the two differ, the
	 * supervisor keeps CAP_KILL alone, to signal the workload, which can
	 * then neither signal, limit, reschedule nor renice it. */
	uid_t uid;
	gid_t gid;
	uid_t workload_uid;
	const struct reaper *reaper; /* NULL when PID 1 */
	/* Where the workload finds the write end of a close-on-exec pipe:
	 * the supervisor forwards nothing until it closes (the workload's
	 * execve, or its death), so a signal sent right after `start` meets
	 * the program, not the stage.  NULL: no wait. */
	int *exec_fd;
	/* Append-only record (ROOT/ID/outcome on the host): "start" when the
	 * workload is forked, "end" with how it ended; -1: none. */
	int outcome_fd;
	/* The seccomp listener of the baseline loaded before the fork
	 * (workload_preload_baseline), served from the fork on; the
	 * workload closes its copy first; -1: none. */
	int listener;
};

/* Block the signals the supervisor forwards (all but the synchronous
 * ones), keeping the mask before for the workload; supervisor_run() does
 * it too, and a second call does nothing.  Called before the container is
 * started, so none sent right after `start` is lost. */
void supervisor_block_signals(void);

/* Fork the workload, which runs `workload(arg)` (expected to exec; if it
 * returns, the workload exits 127), and supervise it.  Never returns: exits
 * with the workload's status (128+N when killed by signal N), or 137 at the
 * wall-clock deadline: every other process of the container is killed
 * first, then the record is written and a line goes to stderr without
 * waiting (a terminal the workload stopped with XOFF loses the line, not
 * the deadline).  Once the workload runs, the supervisor's oom_score_adj
 * is -1000 where the kernel lets it set that (CAP_SYS_RESOURCE), else
 * what it was before the workload raised it. */
__attribute__((noreturn)) void supervisor_run(const struct supervisor_config *c,
					      int (*workload)(void *),
					      void *arg);

#endif
