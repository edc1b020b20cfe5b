/* Namespaces: new ones by clone flags, existing ones (a path in
 * config.json) by setns in the child. */
#ifndef CORRAL_NAMESPACE_H
#define CORRAL_NAMESPACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "error.h"
#include "policy.h"
#include "spec.h"

struct sandbox;

struct ns_plan {
	unsigned long clone_flags;   /* CLONE_NEW* for the new ones */
	int join_fds[NS_TYPE_COUNT]; /* open fds of paths to join, or -1 */
	/* A pod member in its pod sandbox's user namespace: the new
	 * namespaces must be that one's, so they are made after joining it,
	 * by a second clone (ns_hop) */
	bool hop;
};

/* Work out the clone flags and open the namespace paths to join.  Checks
 * that a mount namespace is new (the rootfs is set up inside it) and,
 * under the sandbox, that no path names one of the host's namespaces and
 * that a pid, ipc or uts path is the namespace of the container's own pod
 * sandbox: the container the pod annotation names in the same state root
 * (`root`), which must be running, and whose init holds exactly that
 * namespace. */
int ns_plan_make(const struct spec *spec, bool sandboxed, const char *root,
		 struct ns_plan *plan, struct error **err);

void ns_plan_release(struct ns_plan *plan);

/* A pod member whose running pod sandbox (as ns_plan_make finds it) has
 * corral's own user namespace: 1, with the slice of the pool that
 * namespace maps (*slice) and a descriptor of it (*fd, pinned to the
 * pod sandbox's running init); 0 when there is none. */
/* Parent, before clone: join the pid namespace by path, which only moves
 * the children made afterwards. */
int ns_join_pid(const struct ns_plan *plan, struct error **err);

/* Parent, after clone: write the child's uid and gid maps. */
int ns_write_id_maps(pid_t pid, const struct spec *spec, struct error **err);

/* exec: the namespaces of the running process `pid` that are not this
 * process's own, as paths to join (no new ones).  A type missing under
 * /proc/PID/ns is skipped: the caller checks afterwards that pid is still
 * the process it pinned, so the fds are that process's. */
int ns_plan_of_process(pid_t pid, struct ns_plan *plan, struct error **err);

/* Child: join the remaining namespaces by path, all but pid and user. */
int ns_join_rest(const struct ns_plan *plan, struct error **err);

/* Child, after ns_join_rest: join the user namespace by path, if the plan
 * has one (*joined); the caller then becomes root in it. */
int ns_join_user(const struct ns_plan *plan, bool *joined, struct error **err);

/* Like fork, but into new namespaces.  With cgroup_fd >= 0 (a cgroup2
 * directory) the child is made inside that cgroup (clone3's
 * CLONE_INTO_CGROUP, Linux 5.7) and *in_cgroup is set; otherwise, or on
 * a kernel without clone3, it is a plain clone(2) and the caller moves
 * the child. */
pid_t ns_clone(unsigned long flags, int cgroup_fd, bool *in_cgroup);

/* Like vfork, but into new namespaces: the child shares this process's
 * memory, runs fn(arg) on a stack of its own (exiting with what fn
 * returns), and this process is suspended until the child execs or
 * exits.  cgroup_fd and *in_cgroup as for ns_clone.  -1 with errno
 * ENOSYS where it is not built (x86_64 only) or the kernel has no
 * clone3: the caller uses ns_clone. */
pid_t ns_clone_shared(unsigned long flags, int cgroup_fd, bool *in_cgroup,
		      int (*fn)(void *), void *arg);

#endif
