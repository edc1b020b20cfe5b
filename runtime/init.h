/* The container's first process: everything the child does between
 * clone(2) and its exec of the stage, in order. */
#ifndef CORRAL_INIT_H
#define CORRAL_INIT_H

#include <stdbool.h>

#include "caps.h"
#include "cgroup.h"
#include "harden.h"
#include "mount_sources.h"
#include "namespace.h"
#include "seccomp.h"
#include "spec.h"

struct init_config {
	const struct spec *spec;
	/* The root and the bind sources, cloned by the parent. */
	const struct mount_sources *sources;
	const struct ns_plan *ns;
	int sync_fd;
	int fifo_fd;	/* O_PATH fd of ROOT/ID/exec.fifo */
	int console_fd; /* connected console socket, or -1 */
	int keep_fds;	/* fds 3 .. 3+keep_fds-1 are passed to the process */
	bool no_pivot;
	bool no_new_keyring;
	char **env; /* the process environment */
	struct caps_masks caps;
	const struct sandbox *sandbox;		/* what harden() decided */
	const struct seccomp_program *seccomp;	/* config.json's, or NULL */
	const struct seccomp_program *baseline; /* corral's, or NULL */
	/* The child joins its cgroup itself (cgroup_enter_self) unless in a
	 * user namespace, where the parent moves it. */
	const struct cgroup *cgroup;
	bool in_cgroup2; /* clone3 made it in its cgroup2 directory */
};

/* Runs in the cloned child, which becomes the container's PID 1: sets the
 * container up and execs the stage, which reports "ready", waits for
 * `start`, then supervises the workload it forks.  Does not return on
 * success; otherwise reports the error over the sync socket and returns
 * an exit status. */
int init_run(const struct init_config *cfg);

#endif
