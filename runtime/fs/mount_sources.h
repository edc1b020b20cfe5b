/* The parent's half of the container's mounts: every host path they come
 * from (the root filesystem, each bind's source) is opened once, as
 * harden() said, checked on what was opened, and cloned into a detached
 * mount (open_tree(OPEN_TREE_CLONE)) restricted before anything can see
 * it (mount_setattr).  The child, in its new mount namespace, only
 * attaches these clones (move_mount): it walks no host path.
 *
 * This is where corral touches host paths chosen by a bundle's author,
 * as root.  What makes each step safe:
 * - a path is walked once, with openat2(RESOLVE_NO_SYMLINKS |
 *   RESOLVE_NO_MAGICLINKS) from "/" or RESOLVE_BENEATH from the
 *   directory the rule names, so neither a link nor a rename race can
 *   lead it elsewhere, and what was opened is checked again by its path;
 * - a clone is of exactly the opened descriptor, and attaching it is the
 *   only thing done with it;
 * - restrictions (ro, nosuid, nodev, noexec) are only ever set on a
 *   clone under the sandbox, never cleared, so a bind keeps every
 *   restriction its host mount has.
 */
#ifndef CORRAL_MOUNT_SOURCES_H
#define CORRAL_MOUNT_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "bind_late.h"
#include "error.h"
#include "harden.h"
#include "hostpath.h"

struct mount_sources {
	int root; /* detached clone of the root filesystem */
	/* Under the sandbox, until mount_sources_make_root: the overlay's
	 * lower layers, the top first (struct scratch_layers). */
	int *lowers;
	size_t n_lowers;
	bool lowers_detached;
	bool userxattr;
	int resolv;   /* the stub's resolv.conf (stub_resolv.h), or -1 */
	char *rootfs; /* its path, for state.json */
	int *binds;   /* per mount of the effective spec: a clone, or -1 */
	bool *is_dir; /* per mount: the bind's source is a directory */
	/* per mount: restrictions the child sets once the bind is attached,
	 * on a kernel without mount_setattr (bind_late.h) */
	struct bind_late *late;
	size_t n;
	/* A permissive policy: the child re-clones each bind where it is
	 * attached, so the container's mountinfo lists config.json's mounts
	 * in config.json's order (runtime/fs/mount.c). */
	bool reclone_binds;
};

/* Open and clone every host source of h's effective spec, for container
 * `id`.  bundle_fd and bundle are the bundle directory (a relative
 * root.path is in it); preopened are sources the caller opened itself. */
int mount_sources_open(const struct hardened *h, const char *id,
		       const char *bundle, int bundle_fd,
		       const struct preopened_source *preopened,
		       size_t n_preopened, struct mount_sources *out,
		       struct error **err);
void mount_sources_release(struct mount_sources *s);

/* Under the sandbox: the scratch overlay on the opened layers, with its
 * tmpfs in the container's state directory dirfd (scratch.h), kept there
 * when keep_scratch (for `corral report`); sets s->root. */
int mount_sources_make_root(const struct hardened *h, struct mount_sources *s,
			    int dirfd, bool keep_scratch, struct error **err);

/* Child: close the clones once they are attached, so that no process of
 * the container holds a descriptor of a host mount. */
void mount_sources_close(const struct mount_sources *s);

#endif
