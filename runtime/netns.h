/* The container's network: a fresh network namespace holds only lo, which
 * is brought up here so loopback servers inside work; no other interface
 * exists, so nothing can leave. */
#ifndef CORRAL_NETNS_H
#define CORRAL_NETNS_H

#include "error.h"

/* Child, in its new network namespace. */
int netns_loopback_up(struct error **err);

#endif
