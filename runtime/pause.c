/* pause and resume: every process of the container stops, or runs again,
 * through its cgroup's freezer (cgroup_freeze: v1's freezer.state, or
 * cgroup2's cgroup.freeze).  `state` then says "paused" (state_status).
 *
 * Also the opening the cgroup commands share, and the kill of a paused
 * container, whose processes a v1 freezer holds until thawed. */
#include "container.h"

#include <errno.h>
#include <string.h>

#include "log.h"
#include "state.h"
#include "util.h"

int container_open_cgroup(const char *root, const char *id,
			  struct cgroup_container *c, struct error **err)
{
	*c = (struct cgroup_container){.dir = {-1, -1}};
	if (state_dir_open(root, id, &c->dir, err) < 0)
		return -1;
	if (state_load(&c->dir, &c->state, err) < 0 ||
	    (c->state->cgroup &&
	     cgroup_new(CGROUP_MOUNT, c->state->cgroup, &c->cgroup, err) < 0)) {
		container_close_cgroup(c);
		return -1;
	}
	c->status = state_status(&c->dir, c->state);
	return 0;
}

void container_close_cgroup(struct cgroup_container *c)
{
	cgroup_free(c->cgroup);
	c->cgroup = NULL;
	spec_state_free(c->state);
	c->state = NULL;
	state_dir_close(&c->dir);
}

/* Pause needs a running container, resume a paused one: pausing a
 * created container would hold its init before the exec fifo, and a
 * stopped one has nothing to freeze. */
static int set_frozen(const char *root, const char *id, bool frozen,
		      struct error **err)
{
	const char *verb = frozen ? "pause" : "resume";
	const char *want = frozen ? "running" : "paused";
	struct cgroup_container c;
	int r = -1;

	if (container_open_cgroup(root, id, &c, err) < 0)
		return error_wrap(err, "%s", verb);
	if (strcmp(c.status, want) != 0)
		error_set(err, EINVAL, "%s %s: the container is %s, not %s",
			  verb, id, c.status, want);
	else if (!c.cgroup)
		error_set(err, EOPNOTSUPP, "%s %s: the container has no cgroup",
			  verb, id);
	else if (cgroup_freeze(c.cgroup, frozen, err) < 0)
		error_wrap(err, "%s %s", verb, id);
	else
		r = 0;
	if (r == 0)
		log_debug("%s %s", frozen ? "paused" : "resumed", id);
	container_close_cgroup(&c);
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

/* cgroup_kill() kills everything listed, thaws a frozen v1 freezer so
 * the SIGKILLs land, and waits until the cgroup is empty; the init is in
 * it, so afterwards the container is stopped. */
int container_kill_paused(const struct spec_state *st, struct error **err)
{
	struct cgroup *cg = NULL;
	int r;

	if (!st->cgroup)
		return 0;
	if (cgroup_new(CGROUP_MOUNT, st->cgroup, &cg, err) < 0)
		return error_wrap(err, "kill %s", st->id);
	r = cgroup_kill(cg, err);
	cgroup_free(cg);
	return r < 0 ? error_wrap(err, "kill %s", st->id) : 0;
}
