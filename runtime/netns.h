/* The container's network: a fresh network namespace holds only lo, which
 * is brought up here so loopback servers inside work; no other interface
 * exists, so nothing can leave. */
#ifndef CORRAL_NETNS_H
#define CORRAL_NETNS_H

#include "error.h"

/* Child, in its new network namespace. */
int netns_loopback_up(struct error **err);

/* Child, once lo is up: addr (IPv4 text) as a /32 of lo, host scope.
 * With an egress policy, the stub resolver's reserved address
 * (DNS_STUB_ADDR), on which the helper's transparent listeners bind. */
int netns_add_loopback_addr(const char *addr, struct error **err);

#endif
