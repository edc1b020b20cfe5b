/* `exec`: run another process in a running container, inside its
 * namespaces and cgroup and under the same sandbox as its workload. */
#ifndef CORRAL_EXEC_H
#define CORRAL_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct exec_opts {
	const char *root;
	const char *id;
	const char *process_file; /* --process: a runtime-spec process */
	char *const *args; /* or the command line, over the stored process */
	size_t n_args;
	bool detach;
	const char *pid_file;
	const char *console_socket;
	bool tty; /* -t: process.terminal = true */
	const char *cwd;
	char *const *env; /* -e K=V, replacing a variable of the same name */
	size_t n_env;
	const char *user; /* -u UID[:GID] */
	int preserve_fds;
	char *const *caps; /* --cap: refused unless the policy keeps it */
	size_t n_caps;
};

/* Start the process in container o->id, which must be running.  Detached:
 * return once it runs (it stays a child of this process until this one
 * exits, so the caller's subreaper inherits it), *status 0.  Otherwise
 * wait for it, forwarding signals, and set *status to its exit status
 * (128+N when killed by signal N).  A failure of the process before it
 * execs is reported here, as the cause of the error. */
int container_exec(const struct exec_opts *o, int *status, struct error **err);

#endif
