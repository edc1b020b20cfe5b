/* `update`: new limits on a live container's cgroup, written by the same
 * tables as at create (each backend's), so a field means the same file
 * and the same format whenever it is written.  Whether a value is allowed
 * (the policy) is the caller's question; this module only writes what it
 * is given.  Each backend's update (cgroup_v1.c, cgroup_v2.c) says where
 * a controller's files are and in which order its rows go; the run is
 * here.
 *
 * Privileged: this runs as root on the host's cgroupfs, in the cgroup
 * named by state.json, which cg_path_normalize() checked again (no "..",
 * never a hierarchy's root).  Only the files of the rows are written:
 * `unified` keys are limited to a controller's own files by its row. */
#include <errno.h>
#include <stdlib.h>

#include "cgroup_backend.h"
#include "util.h"

void cg_update_clear(struct cg_update *u)
{
	cg_hiers_clear(&u->h);
	free(u->controllers);
	u->controllers = NULL;
}

/* Validate everything and check that every controller is there before
 * writing anything, so that a wrong request changes nothing. */
int cg_update_write(struct cg_update *u, const struct cg_limit *rows, size_t n,
		    cg_target_fn *target,
		    int (*enable)(struct cg_update *u, unsigned wanted,
				  struct error **err),
		    const struct spec_resources *r, struct error **err)
{
	struct cg_writer w = {.mode = CG_COLLECT};
	int rc = -1;

	if (cg_write_limits(&w, rows, n, r, false, NULL, err) < 0)
		goto out;
	if (enable && w.wanted && enable(u, w.wanted, err) < 0)
		goto out;
	for (int c = 0; c < CG_N_CONTROLLERS; c++) {
		struct cg_writer probe = {.mode = CG_WRITE, .ctx = u};
		const char *dir;

		if ((w.wanted & (1u << c)) &&
		    target(&probe, (enum cg_controller)c, &dir, err) < 0)
			goto out;
	}
	cg_names_clear(&w.written);
	w = (struct cg_writer){.mode = CG_WRITE, .target = target, .ctx = u};
	rc = cg_write_limits(&w, rows, n, r, false, NULL, err);
out:
	cg_names_clear(&w.written);
	return rc;
}

int cgroup_update(const struct cgroup *cg, const struct spec_resources *r,
		  struct error **err)
{
	if (r->n_devices)
		return error_set(err, EINVAL,
				 "cgroup %s: device rules cannot be updated",
				 cg->path);
	return cg->backend->update(cg, r, err);
}
