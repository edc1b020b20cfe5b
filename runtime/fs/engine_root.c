/* The engine's own records of a root below an engine directory
 * (engine_root.h). */
#include "engine_root.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_store.h"
#include "fsutil.h"
#include "hostpath.h"
#include "util.h"

/* containers.json of a store with many thousand containers is a few
 * megabytes; anything larger is not one. */
#define LIST_MAX (64 << 20)

int engine_root_check(int store_fd, const char *store, const char *rel,
		      const char *id, struct error **err)
{
	_cleanup_free_ char *json = NULL, *layer = NULL;
	_cleanup_close_ int fd = -1;
	const char *list = engine_store_list(rel);
	struct stat st;
	size_t len = 0;

	if (!list)
		return error_set(err, EPERM,
				 "rootfs %s/%s: not a root of a storage driver "
				 "corral knows (overlay, vfs)",
				 store, rel);
	/* the list is opened as every host path is: beneath the store, no
	 * link on the way, a regular file */
	fd = hostpath_open_at(store_fd, store, list, false, O_RDONLY, "rootfs",
			      err);
	if (fd < 0)
		return error_wrap(err,
				  "rootfs %s/%s: not a root the engine "
				  "gave this container",
				  store, rel);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > LIST_MAX)
		return error_set(err, EINVAL, "rootfs %s/%s: %s is not a list",
				 store, rel, list);
	if (read_fd(fd, list, &json, &len, err) < 0 ||
	    engine_store_layer(json, len, id, &layer, err) < 0)
		return error_wrap(err, "rootfs %s/%s", store, rel);
	if (!layer || !engine_store_is_root(rel, layer))
		return error_set(err, EPERM,
				 "rootfs %s/%s: the engine's records (%s) do "
				 "not give it to container %s",
				 store, rel, list, id);
	return 0;
}
