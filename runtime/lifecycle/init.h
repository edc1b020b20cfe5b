/* The container's first process: everything the child does between
 * clone(2) and its exec of the stage, in order. */
#ifndef CORRAL_INIT_H
#define CORRAL_INIT_H

#include <sched.h>
#include <stdbool.h>

#include "cgroup.h"
#include "harden.h"
#include "mount_sources.h"
#include "namespace.h"
#include "proc_plan.h"
#include "spec.h"

struct init_config {
	const struct spec *spec;
	/* The root and the bind sources, cloned by the parent. */
	const struct mount_sources *sources;
	const struct ns_plan *ns;
	struct proc_plan *proc; /* the workload's process, the sync socket */
	int fifo_fd;		/* O_PATH fd of ROOT/ID/exec.fifo */
	int outcome_fd;		/* ROOT/ID/outcome, for the supervisor */
	bool no_pivot;
	bool no_new_keyring;
	const struct sandbox *sandbox; /* what harden() decided */
	/* The child joins its cgroup itself (cgroup_enter_self) unless in a
	 * user namespace, where the parent moves it. */
	const struct cgroup *cgroup;
	bool in_cgroup2; /* clone3 made it in its cgroup2 directory */
	/* The second child of a hop (ns_plan.hop): its first child joined
	 * every namespace, the pod's user namespace among them */
	bool hopped;
	int lo_up; /* [egress] the helper's socket: one byte and the network
		    * namespace once lo is up */
	/* The CPUs create had, which the child takes back after GO and once
	 * it is in its cgroup, create having moved it off its own, or the
	 * cgroup's cpuset having widened them (cpus.h). */
	bool cpus_saved;
	cpu_set_t cpus;
	/* The child shares create's memory, create suspended until its exec
	 * (create.c share_memory): there is no GO to wait for, and create's
	 * memory is not this process's to write (its argument area among
	 * it). */
	bool shared;
};

/* Runs in the cloned child, which becomes the container's PID 1: sets the
 * container up and execs the stage, which reports "ready", waits for
 * `start`, then supervises the workload it forks.  Does not return on
 * success; otherwise reports the error over the sync socket and returns
 * an exit status. */
int init_run(const struct init_config *cfg);

/* The first child of a hop (ns_plan.hop): joins every namespace of the
 * plan, the user namespace last, becomes its root, and clones the
 * container's first process into the new namespaces, that user
 * namespace's, as its own sibling (CLONE_PARENT: create waits for it),
 * which runs init_run; tells create that process's pid (SYNC_PID) and
 * returns an exit status. */
int init_hop(const struct init_config *cfg);

#endif
