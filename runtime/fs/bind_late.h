/* A bind's restrictions set after it is attached, for kernels without
 * mount_setattr(2) (before Linux 5.12: Debian 11's 5.10).
 *
 * Elsewhere the parent restricts a bind's detached clone before anything
 * can see it (mount_sources.c).  Without mount_setattr a detached mount
 * cannot be changed at all (a bind remount needs the mount attached in
 * the caller's namespace), so the parent records what it would have set
 * (bind_late_from_attr) and the child, once it has attached the clone in
 * its own mount namespace and before pivot_root, while no code of the
 * container's exists yet, remounts it with those flags
 * (bind_late_apply): the same mount flags, on the same mounts, before the
 * same point.  A recursive bind's submounts are each found in
 * /proc/self/mountinfo by their parent chain, opened beneath the bind
 * without following a link, checked to be that mount (its id), and
 * remounted; one that cannot be reached so (a mount hidden under another
 * at the same place) fails the create. */
#ifndef CORRAL_BIND_LATE_H
#define CORRAL_BIND_LATE_H

#include <linux/mount.h>
#include <stdbool.h>

#include "error.h"

struct bind_late {
	bool needed;
	bool recursive;		   /* the submounts too */
	unsigned long set, clr;	   /* MS_RDONLY, MS_NOSUID, ... */
	unsigned long propagation; /* MS_SHARED ... | MS_REC, or 0 */
};

/* Parent: what mount_setattr would have set (attr, recursive) and the
 * propagation. */
void bind_late_from_attr(const struct mount_attr *attr, bool recursive,
			 unsigned long propagation, struct bind_late *out);

/* Child: apply l to the bind attached at mnt (an O_PATH descriptor of its
 * root); dst names it in errors. */
int bind_late_apply(int mnt, const struct bind_late *l, const char *dst,
		    struct error **err);

#endif
