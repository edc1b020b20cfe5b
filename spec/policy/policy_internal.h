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

/* policy_names.c: what a policy may name (each check fails with the
 * JSON path p where it takes one). */
struct jpath;
bool policy_valid_env_name(const char *s);
bool policy_valid_syscall_name(const char *s);
bool policy_valid_sysctl_name(const char *s);
bool policy_valid_group(const char *s);
int policy_check_capability(const char *s, const struct jpath *p,
			    struct error **err);
int policy_check_clean_path(const char *s, const char *under,
			    const struct jpath *p, struct error **err);

#endif
