/* Shared by the policy's reader (policy.c) and writer (policy_emit.c):
 * the names of its enums, indexed by their values. */
#ifndef CORRAL_POLICY_INTERNAL_H
#define CORRAL_POLICY_INTERNAL_H

#include "policy.h"
#include "spec.h"

#define POLICY_CPU_PERIOD SPEC_CPU_PERIOD

extern const char *const policy_mode_names[2];
extern const char *const policy_network_names[2];
extern const char *const policy_rootfs_names[2];

#endif
