/* The container's filesystem, set up by the child inside its new mount
 * namespace: the rootfs bind, config.json's mounts, then pivot_root, then
 * the masked and read-only paths. */
#ifndef CORRAL_MOUNT_H
#define CORRAL_MOUNT_H

#include <stdbool.h>

#include "cgroup.h"
#include "error.h"
#include "harden.h"
#include "mount_sources.h"
#include "spec.h"

/* Before pivot_root, in three steps.  mount_prepare_root: make the
 * host's mounts slaves so nothing propagates back, make the root from
 * the parent's root (under the sandbox the scratch overlay, otherwise the
 * rootfs clone) attached on top of "/", with corral's own /tmp and /dev;
 * returns an fd of the new root mount, or -1.
 * mount_prepare_before_cgroup: config.json's mounts in its order up to
 * its first cgroup mount, which need no cgroup (the child makes them
 * while create makes the cgroup), 16 at most; *next is the index of the
 * first mount not made (spec->n_mounts when all were).
 * mount_prepare_rest: the mounts from index `from` on (cgroup mounts
 * among them: the process must be in its cgroup `cg`, NULL for none of
 * its own, and its cgroup namespace by then) and the devices.  Binds
 * attach the parent's clones. */
int mount_prepare_root(const struct spec *spec,
		       const struct mount_sources *sources,
		       const struct sandbox *sandbox, struct error **err);
int mount_prepare_before_cgroup(int rootfd, const struct spec *spec,
				const struct mount_sources *sources,
				size_t *next, struct error **err);
int mount_prepare_rest(int rootfd, const struct spec *spec,
		       const struct mount_sources *sources,
		       const struct cgroup *cg, size_t from,
		       struct error **err);

/* Switch root to the new root mount (pivot_root, or MS_MOVE + chroot with
 * no_pivot) and detach the host's tree. */
int mount_pivot_root(int rootfd, bool no_pivot, struct error **err);

/* After pivot_root: mask paths, make paths and, if asked, "/" read-only,
 * and apply rootfsPropagation. */
int mount_finish(const struct spec *spec, struct error **err);

#endif
