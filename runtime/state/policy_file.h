/* Loading the host's policy file, and what of it depends on the host: the
 * ids of the privileged groups it names. */
#ifndef CORRAL_POLICY_FILE_H
#define CORRAL_POLICY_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "policy.h"

/* The name whose /etc/subuid and /etc/subgid lines reserve corral's
 * pool of user-namespace ids when the policy names none (user.pool). */
#define SUBID_USER "corral"

/* Read `path`, or /etc/corral/policy.json when path is NULL; a missing
 * default file means the built-in defaults, a missing named file is an
 * error.  Errors name the file and the JSON path.  The privileged groups
 * are resolved through the host's /etc/group; without user.pool, the
 * pool is SUBID_USER's subordinate ids, on a kernel that idmaps layers. */
int policy_load(const char *path, struct policy **out, struct error **err);

/* The policy a container was created under (its state directory's copy),
 * resolved the same way. */
int policy_load_text(const char *json, size_t len, struct policy **out,
		     struct error **err);

/* Add a bind-mount source to the policy's allowlist. */
int policy_allow_mount(struct policy *p, const char *source, bool rw,
		       struct error **err);

/* A bind source the caller's own config names only to show what the
 * sandbox cuts: dropped, recorded, never refused (policy.h
 * drop_sources). */
int policy_drop_source(struct policy *p, const char *source,
		       struct error **err);

/* Allow DIR itself as root.path: `corral sandbox --rootfs DIR`, the
 * caller's own choice.  DIR must not be a system directory. */
int policy_allow_root(struct policy *p, const char *dir, struct error **err);

#endif
