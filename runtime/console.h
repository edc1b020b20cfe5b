/* --console-socket: the pty is allocated inside the container (from its
 * own devpts) and its master is sent to the engine as exactly one
 * SCM_RIGHTS fd, as conmon and the containerd shim expect. */
#ifndef CORRAL_CONSOLE_H
#define CORRAL_CONSOLE_H

#include "error.h"
#include "spec.h"

/* Parent: connect to the engine's console socket. */
int console_connect(const char *path, struct error **err);

/* Child, after pivot_root: open a pty, send its master over `sock`, make
 * the slave the controlling terminal and stdin/stdout/stderr. */
int console_setup(int sock, const struct spec_process *process,
		  struct error **err);

#endif
