/* The scratch overlay: the container's root is an overlay whose lower
 * layer is the bundle rootfs (never written) and whose upper and work dirs
 * live in a size-capped tmpfs, made with fsopen/fsmount.  It is gone when
 * the last mount of it (the container's root) is, unless create keeps it
 * attached in the container's state directory for `corral report`: then
 * delete unmounts it. */
#ifndef CORRAL_SCRATCH_H
#define CORRAL_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container_dir.h"
#include "error.h"

/* The overlay's lower layers, the top first: the rootfs's descriptor, or
 * idmapped clones of it or of an engine overlay's layers (detached:
 * open_tree's clones, attached only while the overlay is made);
 * userxattr: they keep overlayfs's xattrs as user.*.  overlayfs reads
 * them through private read-only clones of its own. */
struct scratch_layers {
	const int *fd;
	size_t n;
	bool detached;
	bool userxattr;
};

/* An overlay on the layers l, its upper layer in a new tmpfs of `size`
 * bytes, attached as dirfd/SCRATCH_DIR (dirfd: the container's state
 * directory) when the kernel needs it or keep says so.  keep: the tmpfs
 * stays there, restricted (read-only, noexec, nosuid, nodev,
 * nosymfollow); otherwise only the overlay holds it.  Returns the
 * overlay's mount fd, not yet attached anywhere, or -1 with nothing left
 * in dirfd.  The parent makes it (create.c); the child attaches it in its
 * own mount namespace. */
int scratch_mount_root(const struct scratch_layers *l, uint64_t size, int dirfd,
		       bool keep, struct error **err);

#endif
