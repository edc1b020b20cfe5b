/* The running kernel, probed once per process: its release and the
 * system calls whose presence changes what corral does (host_kernel.h
 * says what). */
#ifndef CORRAL_KERNEL_PROBE_H
#define CORRAL_KERNEL_PROBE_H

#include "host_kernel.h"

/* The probe, made at the first call and kept; known is false when uname
 * failed or gave a release that is not MAJOR.MINOR... */
const struct host_kernel *kernel_probe(void);

#endif
