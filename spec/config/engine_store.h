/* What an engine's own storage says of a container: containers-storage
 * (podman's and CRI-O's, /var/lib/containers/storage; a rootless
 * podman's in the user's home) lists every container with the layer that
 * is its root filesystem, per storage driver: overlay's in
 * overlay-containers/containers.json, mounted at overlay/LAYER/merged;
 * vfs's in vfs-containers/containers.json, at vfs/dir/LAYER.  corral takes
 * a root.path below an engine directory only when that list ties it to
 * the container being created (runtime/fs/mount_sources.c), so that no
 * config.json can make another container's root, a pod's volumes or any
 * other directory of the store its own.  Pure: parses text it is given. */
#ifndef CORRAL_ENGINE_STORE_H
#define CORRAL_ENGINE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* The list below the store that the driver whose root `rel` is shaped
 * as keeps ("overlay-containers/containers.json" for "overlay/..."), or
 * NULL when no driver corral knows puts a root there. */
const char *engine_store_list(const char *rel);

/* The layer the list gives container `id`: *layer (malloc'ed), or NULL
 * when the list has no such container.  An error for a list that does
 * not parse as an array of objects. */
int engine_store_layer(const char *json, size_t len, const char *id,
		       char **layer, struct error **err);

/* Whether `rel`, a clean path relative to the store, is the root of
 * `layer`: "overlay/LAYER/merged" or "vfs/dir/LAYER". */
bool engine_store_is_root(const char *rel, const char *layer);

#endif
