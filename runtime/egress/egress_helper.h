/* The per-container egress helper: the process that runs corral's proxy
 * (runtime/egress/egress_proxy.h) for one container, started by create once the
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
	int lo_up; /* the helper's end of the socket the init writes to once
		    * lo is up, with its network namespace */
	const struct cgroup *cgroup; /* the container's; NULL: none */
	int dirfd;		     /* the state directory */
	const char *root;	     /* the state root, for the pod sandbox */
	const struct spec *spec;     /* the effective spec */
};

/* A forked helper, until it is ready. */
struct egress_helper {
	pid_t pid; /* -1: none */
	int ready; /* the helper's answer: one NUL byte, or its error */
};

/* Fork the helper once s->init exists and its cgroup is made: it
 * prepares what it can while the init sets the container up.  Its pid
 * goes to EGRESS_PID_FILE in the state directory. */
int egress_helper_fork(const struct egress_start *s, struct egress_helper *h,
		       struct error **err);

/* Once the init is READY: wait until the helper listens on
 * EGRESS_PROXY_AUTHORITY, the stub resolver's port and DNS_STUB_ADDR's
 * in the init's network namespace and has dropped every privilege (or
 * has failed, with its message).  The caller stops it if create fails
 * after. */
int egress_helper_ready(struct egress_helper *h, struct error **err);

/* Kill and reap the helper, if there is one. */
void egress_helper_stop(struct egress_helper *h);

#endif
