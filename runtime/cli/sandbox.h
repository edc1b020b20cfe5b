/* `corral sandbox`: corral's main job without an engine.  Builds a bundle
 * in the state directory and runs CMD through the ordinary create, start,
 * wait and delete path under the full sandbox. */
#ifndef CORRAL_SANDBOX_H
#define CORRAL_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* --workspace DIR as the caller opened it, before any user namespace was
 * entered (an ordinary user's corral enters one of its own, where the
 * host's owners no longer show): the path made absolute once (links in
 * what the caller typed are followed, but a link followed keeps the
 * directory from counting as the caller's own: through_link), opened
 * once without following links, and what that descriptor is: its owner,
 * the caller's real uid, and its identity, against which a reopening in
 * the user namespace's own mount namespace is checked. */
struct sandbox_workspace {
	char *path;
	/* DIR as typed, made absolute by its text ("." and ".." taken
	 * away); through_link: path (its real path) differs, so a link was
	 * followed, which whoever can write a directory on the way may
	 * have swapped in */
	char *typed;
	bool through_link;
	int fd; /* O_PATH | O_DIRECTORY */
	uint32_t owner, caller, caller_gid;
	const char *home; /* the caller's $HOME, or NULL */
	dev_t dev;
	ino_t ino;
};

int sandbox_workspace_open(const char *dir, struct sandbox_workspace *ws,
			   struct error **err);
void sandbox_workspace_close(struct sandbox_workspace *ws);

struct sandbox_opts {
	const char *root; /* the state root; the bundle lives under it */
	const char *policy;
	const char *rootfs;  /* NULL: the host's /usr under a synthetic / */
	const char *timeout; /* annotation run.corral.timeout, or NULL */
	const char *memory;  /* annotation run.corral.memory, or NULL */
	/* a host dir asked for at /workspace, rw; NULL: none */
	struct sandbox_workspace *workspace;
	/* the caller entered a user namespace (and mount namespace) of its
	 * own after opening the workspace: it is opened again there */
	bool workspace_reopen;
	const char *report; /* the JSON report, written at delete */
	char **argv;	    /* the command */
	int argc;
};

/* Runs the command; *status is its exit status (137 at the wall clock). */
int sandbox_run(const struct sandbox_opts *o, int *status, struct error **err);

#endif
