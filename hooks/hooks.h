/* OCI lifecycle hooks: run one hook list with the container state on
 * stdin, each hook's own args and env, and its timeout. */
#ifndef CORRAL_HOOKS_H
#define CORRAL_HOOKS_H

#include <stdbool.h>

#include "error.h"
#include "spec.h"

/* Run the hooks of `list` in order; stop at the first that fails (non-zero
 * exit, killed, or past its timeout) and report which one.  A hook's
 * program runs as root: it is opened once, never through a symbolic link
 * unless follow_links (a permissive policy, which runs config.json as
 * written), must be a regular file, and is executed by that descriptor. */
int hooks_run(const struct spec_hook_list *list, enum spec_hook_kind kind,
	      const char *state_json, bool follow_links, struct error **err);

#endif
