/* A root filesystem below an engine directory (harden.h root_engine) is
 * taken only when the engine's own records give it to the container
 * being created: containers-storage lists each container with its root
 * layer (spec/config/engine_store.h).  Another container's snapshot or merged
 * directory, a pod's volumes, any other directory of the store is
 * refused, whatever config.json says. */
#ifndef CORRAL_ENGINE_ROOT_H
#define CORRAL_ENGINE_ROOT_H

#include "error.h"

/* store_fd: the engine directory, opened without links (`store` names it
 * in errors); rel: root.path below it; id: the container's. */
int engine_root_check(int store_fd, const char *store, const char *rel,
		      const char *id, struct error **err);

#endif
