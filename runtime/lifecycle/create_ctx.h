/* create's two halves and what they share: create.c prepares a container
 * (config.json, harden(), the host paths, the state directory, the
 * cgroup) and releases what it built; spawn.c starts its first process
 * and walks it through setup over the sync socket.  Internal to them. */
#ifndef CORRAL_CREATE_CTX_H
#define CORRAL_CREATE_CTX_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "container.h"
#include "container_dir.h"
#include "cgroup.h"
#include "egress_helper.h"
#include "harden.h"
#include "mount_sources.h"
#include "namespace.h"
#include "policy_file.h"
#include "proc_plan.h"
#include "spec.h"
#include "util.h"

/* What create builds before the clone and releases after. */
struct create_ctx {
	const struct create_opts *o;
	char *bundle;  /* the caller's, made absolute */
	int bundle_fd; /* O_PATH */
	/* The root and the bind sources, opened as harden() said and cloned
	 * for the child to attach; sources.rootfs is the root's path. */
	struct mount_sources sources;
	struct spec *config; /* config.json as parsed, until harden takes it */
	struct policy *policy; /* kept in the state dir for exec */
	struct hardened *hardened;
	const struct spec *spec; /* the effective spec: hardened->spec */
	struct ns_plan ns;
	struct proc_plan proc; /* the workload's; the sync socket */
	struct container_dir dir;
	/* an ordinary user's delegated cgroup (rootless_cgroup), which the
	 * container's is made in */
	struct cgroup_bases cgroup_bases;
	/* named in prepare, made by create_make_cgroup */
	struct cgroup *cgroup;
	bool cgroup_made;
	bool in_cgroup; /* made there by clone3 */
	bool shared;	/* the child shares this memory (share_memory) */
	int fifo_fd;
	int outcome_fd; /* runtime/report/report_gather.h */
	pid_t pid;
	struct egress_helper egress; /* when the sandbox has the proxy */
	bool slice_taken; /* policy->slice is this container's to give back */
	int pod_userns;	  /* its pod sandbox's user namespace, or -1 */
	/* [egress] the child says "lo is up" to the helper through it */
	int lo_up[2];
	struct start_fds start; /* run's, opened before COMMIT */
	char created[64];
	uint64_t start_time;	 /* the init's, read once its pid is final */
	struct spec_state state; /* as saved once created */
};

/* The container's first process is in a user namespace: one made for it
 * or, for a pod member, its pod sandbox's (ns_plan.hop). */
static inline bool create_in_userns(const struct create_ctx *c)
{
	return (c->ns.clone_flags & CLONE_NEWUSER) || c->ns.hop;
}

/* create_ctx.c */
/* The container's cgroup, every limit written; a limit that cannot be
 * enforced fails unless the policy makes limits best-effort. */
int create_make_cgroup(struct create_ctx *c, struct error **err);
/* Whether the host's view of the scratch is attached (a report will be
 * written). */
bool create_report_wanted(const struct create_ctx *c);
/* Whether the container has an egress helper of its own (a pod member
 * in its pod's network has the pod sandbox's). */
bool create_egress_wanted(const struct create_ctx *c);

/* spawn.c: clone the first process, walk it to "created" (state.json
 * saved, COMMITTED received); c->pid is then the container's init. */
int create_spawn(struct create_ctx *c, struct error **err);

#endif
