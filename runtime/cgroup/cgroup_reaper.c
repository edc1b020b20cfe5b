/* The files of the container's cgroup that its supervisor keeps when it
 * is not PID 1 (cgroup.h, cgroup_open_reaper).  They are files, not
 * directories: the supervisor can read the list and kill, and nothing
 * it holds leads anywhere else on the host's cgroupfs. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "util.h"

static int open_in(const struct cg_hier *h, const char *file, int flags,
		   struct error **err)
{
	_cleanup_close_ int dir =
	    open(h->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = dir < 0 ? -1 : openat(dir, file, flags | O_CLOEXEC);

	if (fd < 0)
		return error_errno(err, "cgroup %s: open %s", h->dir, file);
	return fd;
}

/* cgroup2 lists afresh on each read from the start, and its cgroup.kill
 * kills forks and all at once, so it is the one used where the host has
 * it (a hybrid host's "unified" holds every process of the container
 * too). */
int cgroup_open_reaper(const struct cgroup *cg, struct cgroup_reaper_fds *out,
		       struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct cg_hier *use = NULL;

	*out = (struct cgroup_reaper_fds){-1, -1, false};
	if (cg_hierarchies(cg, true, &h, err) < 0)
		return -1;
	for (size_t i = 0; i < h.n && !use; i++)
		if (h.v[i].cgroup2)
			use = &h.v[i];
	if (!use && h.n == 0)
		return error_set(err, ENOENT, "cgroup %s: no hierarchy",
				 cg->path);
	if (!use) {
		use = &h.v[0];
		out->reopen = true;
	}
	out->procs = open_in(use, "cgroup.procs", O_RDONLY, err);
	if (out->procs < 0)
		return -1;
	/* No cgroup.kill (before 5.14), or not ours to write (a user
	 * namespace): the supervisor kills one pid at a time. */
	if (use->cgroup2)
		out->kill = open_in(use, "cgroup.kill", O_WRONLY, NULL);
	return 0;
}
