/* The names of the hook kinds, apart from the parser: the stage, which
 * runs the startContainer hooks, links hooks/ and this, not yajl. */
#include "spec.h"

const char *const spec_hook_kind_names[HOOK_KIND_COUNT] = {
    [HOOK_PRESTART] = "prestart",
    [HOOK_CREATE_RUNTIME] = "createRuntime",
    [HOOK_CREATE_CONTAINER] = "createContainer",
    [HOOK_START_CONTAINER] = "startContainer",
    [HOOK_POSTSTART] = "poststart",
    [HOOK_POSTSTOP] = "poststop",
};
