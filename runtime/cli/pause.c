/* pause and resume: every process of the container stops, or runs again,
 * through its cgroup's freezer (cgroup_freeze: v1's freezer.state, or
 * cgroup2's cgroup.freeze).  `state` then says "paused" (container_dir_status).
 *
 * Also the kill of a paused container, whose processes a v1 freezer
 * holds until thawed. */
#include "cgroup_commands.h"
#include "container.h"

#include <errno.h>
#include <string.h>

#include "log.h"
#include "state.h"
#include "util.h"

/* Pause needs a running container, resume a paused one: pausing a
 * created container would hold its init before the exec fifo, and a
 * stopped one has nothing to freeze. */
static int set_frozen(const char *root, const char *id, bool frozen,
		      struct error **err)
{
	const char *verb = frozen ? "pause" : "resume";
	enum container_status want =
	    frozen ? CONTAINER_RUNNING : CONTAINER_PAUSED;
	struct cgroup *cg;
	struct container c;
	int r = -1;

	if (container_open(root, id, &c, err) < 0)
		return error_wrap(err, "%s", verb);
	if (c.status != want) {
		error_set(err, EINVAL, "%s %s: the container is %s, not %s",
			  verb, id, container_status_name(c.status),
			  container_status_name(want));
		goto out;
	}
	if (!(cg = container_cgroup(&c, verb, err)))
		goto out;
	if (cgroup_freeze(cg, frozen, err) < 0) {
		error_wrap(err, "%s %s", verb, id);
		goto out;
	}
	log_debug("%s %s", frozen ? "paused" : "resumed", id);
	r = 0;
out:
	container_close(&c);
	return r;
}

int container_pause(const char *root, const char *id, struct error **err)
{
	return set_frozen(root, id, true, err);
}

int container_resume(const char *root, const char *id, struct error **err)
{
	return set_frozen(root, id, false, err);
}
