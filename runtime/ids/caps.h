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

/* A process that is not root in its user namespace (an ordinary user's,
 * runtime/ids/rootless.h) loses every capability at its next exec.  The ones
 * the stage's last steps use (CAP_SETPCAP for the bounding set and the
 * securebits, CAP_SETUID and CAP_SETGID for the user switch, CAP_KILL for
 * the supervisor, which keeps it alone) are kept across the stage's exec
 * as ambient capabilities; the workload's steps end with none.  Root
 * needs nothing: this does nothing then. */
int caps_keep_for_stage(struct error **err);

#endif
