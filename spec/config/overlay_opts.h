/* An overlayfs mount's options as /proc/self/mountinfo shows them (its
 * super options), read into the paths of its layers: pure, for
 * runtime/fs/overlay_layers.c, the unit tests and the fuzzer. */
#ifndef CORRAL_OVERLAY_OPTS_H
#define CORRAL_OVERLAY_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct overlay_opts {
	char **layers; /* absolute paths, the upper directory first */
	size_t n;
	bool userxattr; /* overlayfs's xattrs are user.overlay.* */
};

/* opts: "rw,lowerdir=/a:/b,upperdir=/u,workdir=/w,..." with the kernel's
 * octal escapes (\040 ...).  Fails, naming why, for what cannot be
 * stacked again layer by layer: no lower layer, a relative path, a ':'
 * escaped inside a path, data-only layers ("::"), metacopy=on, more than
 * `max` layers. */
int overlay_opts_parse(const char *opts, size_t max, struct overlay_opts *out,
		       struct error **err);

void overlay_opts_release(struct overlay_opts *o);

#endif
