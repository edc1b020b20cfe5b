/* The scratch overlay: the container's root is an overlay whose lower
 * layer is the bundle rootfs (never written) and whose upper and work dirs
 * live in a size-capped tmpfs.  That tmpfs is a detached mount, created
 * with fsopen/fsmount and never attached to any path: nothing on the host
 * can see it, and it is gone when the last mount of it (the container's
 * root) is, unless create attaches it in the container's state directory
 * (scratch_attach) for `corral report`: then delete unmounts it. */
#ifndef CORRAL_SCRATCH_H
#define CORRAL_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container_dir.h"
#include "error.h"

/* An overlay whose lower layers are lowers[] (the rootfs's descriptor,
 * or idmapped clones of it or of an engine overlay's layers, the top
 * first; userxattr: they keep overlayfs's xattrs as user.*); overlayfs
 * reads them through private read-only clones of its own.  Returns its
 * mount fd, not yet attached anywhere, or -1.  The parent makes it
 * (mount_sources.c); the child attaches it in its own mount namespace. */
int scratch_mount_root(const int *lowers, size_t n_lowers, bool userxattr,
		       uint64_t size, int *tmpfs_out, struct error **err);

/* Attach the tmpfs (tmpfs_out of scratch_mount_root; -1: none) as
 * DIR/SCRATCH_DIR, restricted (read-only, noexec, nosuid, nodev,
 * nosymfollow). */
int scratch_attach(int tmpfs_fd, int dirfd, struct error **err);

#endif
