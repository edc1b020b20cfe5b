/* --console-socket: the pty is allocated inside the container (from its
 * own devpts) and its master is sent to the engine as exactly one
 * SCM_RIGHTS fd, as conmon and the containerd shim expect.  corral's own
 * relay of a caller's terminal (runtime/lifecycle/tty_relay.h) takes the same
 * path, its socket a pair of its own. */
#ifndef CORRAL_CONSOLE_H
#define CORRAL_CONSOLE_H

#include <stdbool.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "error.h"
#include "spec.h"

/* How a relayed pty meets its process (NULL: as process.terminal asks,
 * the slave on all of stdin, stdout and stderr, the controlling terminal,
 * config.json's consoleSize). */
struct console_shape {
	unsigned fds;	      /* bit N: the slave replaces fd N (0, 1, 2) */
	bool ctty;	      /* the slave becomes the controlling terminal */
	struct termios modes; /* the caller's terminal's, at start */
	struct winsize size;
};

/* Parent: connect to the engine's console socket. */
int console_connect(const char *path, struct error **err);

/* Child, after pivot_root: open a pty, send its master over `sock`, make
 * the slave the controlling terminal and stdin/stdout/stderr, or as
 * `shape` says (then with its modes and size, set before the master
 * leaves, so the workload never sees the pty without them). */
int console_setup(int sock, const struct spec_process *process,
		  const struct console_shape *shape, struct error **err);

#endif
