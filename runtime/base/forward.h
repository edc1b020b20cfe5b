/* Waiting for a child while forwarding the signals a terminal or an engine
 * sends us to it: what `run`, `exec` and the supervisor all do. */
#ifndef CORRAL_FORWARD_H
#define CORRAL_FORWARD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/* Block the forwarded signals (and SIGCHLD) before the child exists, so
 * none is lost; *set is what forward_until_exit() waits on. */
void forward_block(sigset_t *set, sigset_t *old);

/* Forward every signal of `set` but SIGCHLD to pid until it exits;
 * returns its exit status. */
int forward_until_exit(pid_t pid, const sigset_t *set);

/* The same until `deadline` (CLOCK_MONOTONIC; NULL: none) at most: -1
 * when it passed with pid still there. */
int forward_until_exit_by(pid_t pid, const sigset_t *set,
			  const struct timespec *deadline);

/* Reap pid, a child that is about to exit by itself, waiting at most
 * timeout_ms; the signals of `set` that come meanwhile are dropped (the
 * process they were for is gone).  false if it was still there. */
bool forward_reap(pid_t pid, const sigset_t *set, int timeout_ms);

/* A wait status as a shell reports it: the exit code, 128+N for signal N. */
int exit_status(int wstatus);

#endif
