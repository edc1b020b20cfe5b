/* Capabilities: config.json's five sets resolved to bit masks in the
 * parent, which the stage applies around the user switch
 * (stage/workload.c). */
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

#endif
