/* Capabilities: config.json's five sets resolved to bit masks in the
 * parent, applied by the child with libcap around the user switch. */
#ifndef CORRAL_CAPS_H
#define CORRAL_CAPS_H

#include <stdint.h>

#include "error.h"
#include "spec.h"

struct caps_masks {
	uint64_t bounding, effective, inheritable, permitted, ambient;
};

/* Unknown names are skipped with a warning (as runc does): leaving out a
 * capability never widens. */
void caps_resolve(const struct spec_caps *caps, struct caps_masks *out);

/* Child, as root: drop every capability not in the bounding set. */
int caps_drop_bounding(const struct caps_masks *m, struct error **err);

/* Child, after the user switch: set effective, permitted, inheritable and
 * ambient to exactly the masks. */
int caps_apply(const struct caps_masks *m, struct error **err);

#endif
