/* `corral sandbox`: corral's main job without an engine.  Builds a bundle
 * in the state directory and runs CMD through the ordinary create, start,
 * wait and delete path under the full sandbox. */
#ifndef CORRAL_SANDBOX_H
#define CORRAL_SANDBOX_H

#include <stdint.h>

#include "error.h"

struct sandbox_opts {
	const char *root; /* the state root; the bundle lives under it */
	const char *policy;
	const char *rootfs;    /* NULL: the host's /usr under a synthetic / */
	const char *timeout;   /* annotation run.corral.timeout, or NULL */
	const char *memory;    /* annotation run.corral.memory, or NULL */
	const char *workspace; /* a host dir asked for at /workspace, rw */
	const char *report;    /* the JSON report, written at delete */
	char **argv;	       /* the command */
	int argc;
};

/* Runs the command; *status is its exit status (137 at the wall clock). */
int sandbox_run(const struct sandbox_opts *o, int *status, struct error **err);

#endif
