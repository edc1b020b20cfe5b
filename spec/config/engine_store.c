/* containers-storage's list of containers (engine_store.h). */
#include "engine_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parse_internal.h"
#include "util.h"

/* The drivers of containers-storage whose roots corral takes: a root's
 * path is head LAYER tail, and the driver lists its containers in list. */
static const struct {
	const char *head, *tail, *list;
} drivers[] = {
    {"overlay/", "/merged", "overlay-containers/containers.json"},
    {"vfs/dir/", "", "vfs-containers/containers.json"},
};

const char *engine_store_list(const char *rel)
{
	for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
		if (strncmp(rel, drivers[i].head, strlen(drivers[i].head)) == 0)
			return drivers[i].list;
	return NULL;
}

int engine_store_layer(const char *json, size_t len, const char *id,
		       char **layer, struct error **err)
{
	_cleanup_json_ yajl_val root = NULL;

	*layer = NULL;
	if (json_load(json, len, &root, err) < 0)
		return error_wrap(err, "containers.json");
	if (!YAJL_IS_ARRAY(root))
		return error_set(err, EINVAL,
				 "containers.json: expected an array");
	for (size_t i = 0; i < root->u.array.len; i++) {
		yajl_val c = root->u.array.values[i];
		yajl_val cid = json_get(c, "id"), l = json_get(c, "layer");

		if (!YAJL_IS_OBJECT(c))
			return error_set(
			    err, EINVAL,
			    "containers.json: expected an array of "
			    "objects");
		if (!YAJL_IS_STRING(cid) || strcmp(cid->u.string, id) != 0)
			continue;
		if (!YAJL_IS_STRING(l) || !l->u.string[0] ||
		    strchr(l->u.string, '/'))
			return 0; /* no layer of its own: nothing ties */
		*layer = strdup(l->u.string);
		return *layer ? 0 : error_set(err, ENOMEM, "out of memory");
	}
	return 0;
}

bool engine_store_is_root(const char *rel, const char *layer)
{
	size_t n = strlen(layer);

	for (size_t i = 0; i < ARRAY_SIZE(drivers); i++) {
		size_t h = strlen(drivers[i].head);

		if (strncmp(rel, drivers[i].head, h) == 0)
			return n && strncmp(rel + h, layer, n) == 0 &&
			       strcmp(rel + h + n, drivers[i].tail) == 0;
	}
	return false;
}
