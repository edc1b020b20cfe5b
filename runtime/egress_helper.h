/* The per-container egress helper: the process that runs corral's proxy
 * (runtime/egress_proxy.h) for one container, started by create once the
 * container's network namespace exists and living exactly as long as the
 * container's init.  docs/architecture.md ("The egress helper") draws its
 * setup. */
#ifndef CORRAL_EGRESS_HELPER_H
#define CORRAL_EGRESS_HELPER_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"

struct cgroup;
struct sandbox;
struct spec;

#define EGRESS_LOG_FILE "egress.log" /* JSON lines, in the state dir */
#define EGRESS_PID_FILE "egress.pid" /* the helper's pid, for ps/tests */
#define EGRESS_HELPER_UID 65534	     /* it runs as nobody */

struct egress_start {
	const char *id;
	const struct sandbox *sandbox; /* egress_on, rules, the dial netns */
	pid_t init;		       /* the container's first process */
	const struct cgroup *cgroup;   /* the container's; NULL: none */
	int dirfd;		       /* the state directory */
	const char *root;	       /* the state root, for the pod sandbox */
	const struct spec *spec;       /* the effective spec */
};

/* Fork the helper and wait until it listens on EGRESS_PROXY_AUTHORITY
 * inside the init's network namespace and has dropped every privilege
 * (or has failed, with its message).  *pid is the helper's; the caller
 * kills it if create fails after this. */
int egress_helper_start(const struct egress_start *s, pid_t *pid,
			struct error **err);

#endif
