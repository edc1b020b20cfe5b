/* The caller's terminal is never the container's (docs/threat-model.md,
 * "The caller's terminal").  A person who runs `corral run`, `corral
 * sandbox` or `corral exec` at a shell has a terminal on stdio; handed on
 * as it is, the workload could change its modes and size (TCSETS,
 * TIOCSWINSZ), stop its output (TCXONC) or read what is typed into it
 * after corral has returned.  So the workload gets a pty of its own
 * instead, made inside the container from its own devpts as for
 * --console-socket (console.h), with the caller's modes and size; its
 * master comes back to this process over a socket pair of its own, and
 * this process stays in the foreground and copies both ways until the
 * container's process exits.  Only the fds that are terminals get the
 * pty (a pipe or a file stays as it is), all three when process.terminal
 * (or exec -t) asks for one.
 *
 * The caller's terminal is touched only to relay typed bytes: raw mode
 * while relaying (the pty's own line discipline does the echo, the line
 * editing and ^C), when stdin is a terminal whose foreground is this
 * process's group, restored to the exact settings read before, whatever
 * ended the container.
 *
 * Where there is no one left to relay (create, run -d, exec -d), a
 * terminal on any fd passed on is refused instead (proc_plan.h). */
#ifndef CORRAL_TTY_RELAY_H
#define CORRAL_TTY_RELAY_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "console.h"
#include "error.h"

struct tty_relay {
	struct console_shape shape; /* how the container's pty meets it */
	int term;    /* the caller's terminal the pty copies: fd 0, 1 or 2 */
	int sock[2]; /* [0]: the master arrives; [1]: the child's socket */
	int master;
	bool raw; /* the caller's terminal is raw now: `saved` restores it */
	struct termios saved;
};

#define TTY_RELAY_INIT                                                         \
	((struct tty_relay){.term = -1, .sock = {-1, -1}, .master = -1})

/* Before create or exec: 1 when a terminal is on stdin, stdout or
 * stderr (t ready: its socket pair made, the caller's modes and size
 * read), 0 when none is (nothing to relay or release), -1 on error. */
int tty_relay_prepare(struct tty_relay *t, struct error **err);

/* process.terminal (exec -t) asks for a terminal: the pty takes all
 * three fds and is the controlling terminal, as with a console socket. */
void tty_relay_take_all(struct tty_relay *t);

/* After create or exec succeeded: the master the container's process
 * sent, relayed until `pid` (a child of this process) exits; the signals
 * of `set` (forward.h, blocked by the caller) go to pid, but SIGWINCH,
 * which resizes the pty from the caller's terminal.  At `deadline`
 * (CLOCK_MONOTONIC; NULL: none) overdue(ctx) is called, once, and the
 * relay goes on (run's backstop to the wall clock).  Returns pid's exit
 * status (forward.h exit_status), the caller's terminal as it was.  A
 * master that never came (impossible once create or exec succeeded) is
 * only waited for. */
int tty_relay_until_exit(struct tty_relay *t, pid_t pid, const sigset_t *set,
			 const struct timespec *deadline,
			 void (*overdue)(void *), void *ctx);

void tty_relay_release(struct tty_relay *t);

#endif
