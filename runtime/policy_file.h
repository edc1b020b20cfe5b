/* Loading the host's policy file. */
#ifndef CORRAL_POLICY_FILE_H
#define CORRAL_POLICY_FILE_H

#include <stdbool.h>

#include "error.h"
#include "policy.h"

/* Read `path`, or /etc/corral/policy.json when path is NULL; a missing
 * default file means the built-in defaults, a missing named file is an
 * error.  Errors name the file and the JSON path. */
int policy_load(const char *path, struct policy **out, struct error **err);

/* Add a bind-mount source to the policy's allowlist. */
int policy_allow_mount(struct policy *p, const char *source, bool rw,
		       struct error **err);

#endif
