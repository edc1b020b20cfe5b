/* The egress helper's seccomp filters (runtime/egress/egress_seccomp.c). */
#ifndef CORRAL_EGRESS_SECCOMP_H
#define CORRAL_EGRESS_SECCOMP_H

#include "seccomp_filter.h"

/* The egress helper's filter (runtime/egress/egress_helper.c): socket calls
 * for IPv4 and IPv6, fork, the clock and memory; EPERM for the rest.
 * Built and prebuilt as the baseline is. */
int seccomp_egress_build(struct seccomp_program *out, struct error **err);

/* The filter of an egress connection's own program (egress/main.c, which
 * loads the prebuilt copy itself): no socket calls but on its own
 * descriptors, no exec, open or fork. */
int seccomp_egress_conn_build(struct seccomp_program *out, struct error **err);

#endif
