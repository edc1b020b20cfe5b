/* An engine's overlay root, taken apart into its layers.
 *
 * containerd, CRI-O and podman's overlay driver hand the runtime a root
 * filesystem that is an overlayfs mount, and an overlayfs mount cannot be
 * idmapped: its layers can.  For corral's own user namespace, the layers
 * of the engine's overlay (its upper directory on top, then each lower)
 * are opened one by one and stacked again, idmapped, under the scratch
 * (mount_sources.c).  Nothing of the engine's mount changes.
 *
 * The layers are read from the mount's options in /proc/self/mountinfo,
 * the kernel's record of what the engine mounted; each path must be
 * absolute and lie below one of the policy's engine directories, and is
 * opened beneath it (a link there is followed only while it stays
 * below).  An overlay with
 * metadata-only copy-up or data-only layers, whose layers do not stand
 * alone, is refused. */
#ifndef CORRAL_OVERLAY_LAYERS_H
#define CORRAL_OVERLAY_LAYERS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* At most this many layers (overlayfs's own limit is 500). */
#define OVERLAY_LAYERS_MAX 128

struct overlay_layers {
	int fd[OVERLAY_LAYERS_MAX]; /* O_PATH directories, the top first */
	size_t n;
	bool userxattr; /* the layers keep overlayfs's xattrs as user.* */
};

/* Whether fd (a directory) is the root of an overlayfs mount. */
bool overlay_is_root(int fd);

/* The layers of the overlay whose root is fd, each below one of dirs. */
int overlay_layers_open(int fd, char *const *dirs, size_t n_dirs,
			struct overlay_layers *out, struct error **err);

void overlay_layers_close(struct overlay_layers *l);

#endif
