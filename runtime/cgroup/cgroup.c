/* The cgroup interface (cgroup.h): which backend, and the parts of a
 * container's life every backend shares: entering and removing.  Making
 * the cgroup and writing its limits is each backend's own (cgroup_v1.c,
 * cgroup_v2.c, through cgroup_backend.h); killing and freezing are in
 * cgroup_kill.c, the paths in cgroup_path.c, the file system helpers in
 * cgroup_fs.c.
 *
 * Everything here runs in the parent, as root, on the host's cgroupfs.
 * The paths come from cgroup_path_for() or state.json, and are checked
 * again: no "..", never the root cgroup (killing "every process of the
 * cgroup" there would kill the host). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "fsutil.h"
#include "util.h"

static void cgroup_freep(struct cgroup **cg)
{
	cgroup_free(*cg);
}

/* The one place a backend is picked. */
int cgroup_detect(const char *mount_root, const struct cgroup_backend **out,
		  struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	_cleanup_close_ int fd = -1;
	struct statfs sfs;

	fd = open(mount_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "cgroup %s: open", mount_root);
	if (fstatfs(fd, &sfs) < 0)
		return error_errno(err, "cgroup %s: statfs", mount_root);
	/* A cgroup2 mount; or, in the unit tests, a directory laid out
	 * like one (a hybrid host's tmpfs never holds cgroup.controllers). */
	if (sfs.f_type == CGROUP2_SUPER_MAGIC ||
	    (sfs.f_type != CGROUP_SUPER_MAGIC &&
	     cg_exists(fd, "cgroup.controllers"))) {
		*out = &cgroup_v2_backend;
		return 0;
	}
	if (cgroup_v1_backend.hierarchies(mount_root, NULL, &h, err) < 0)
		return -1;
	if (h.n == 0)
		return error_set(err, ENOENT,
				 "cgroup %s: no cgroup hierarchy is mounted "
				 "there",
				 mount_root);
	*out = &cgroup_v1_backend;
	return 0;
}

/* ---- naming and making ----------------------------------------------------
 */

/* The struct only: a cgroup that is gone already is nothing to kill or
 * remove, so delete can run again after an interrupted delete. */
int cgroup_new(const char *mount_root, const char *path, struct cgroup **out,
	       struct error **err)
{
	_cleanup_(cgroup_freep) struct cgroup *cg = calloc(1, sizeof(*cg));

	*out = NULL;
	if (!cg || !(cg->mount_root = strdup(mount_root)))
		return error_set(err, ENOMEM, "cgroup: out of memory");
	if (cg_path_normalize(path, &cg->path, err) < 0 ||
	    cgroup_detect(mount_root, &cg->backend, err) < 0)
		return -1;
	cg->layout = cg->backend;
	*out = steal_pointer(&cg);
	return 0;
}

int cgroup_new_delegated(const char *mount_root,
			 const struct cgroup_bases *bases, const char *path,
			 struct cgroup **out, struct error **err)
{
	_cleanup_(cgroup_freep) struct cgroup *cg = NULL;

	*out = NULL;
	if (cgroup_new(mount_root, path, &cg, err) < 0)
		return -1;
	for (size_t i = 0; i < bases->n; i++) {
		_cleanup_free_ char *dir = NULL;

		if (cg_path_normalize(bases->v[i].dir, &dir, err) < 0)
			return error_wrap(err, "cgroup");
		if (cg_bases_add(&cg->bases, bases->v[i].hier, dir) < 0)
			return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	if (!cg->bases.n)
		return error_set(err, EINVAL, "cgroup: no delegated hierarchy");
	*out = steal_pointer(&cg);
	return 0;
}

/* Every cgroup corral makes for a container carries this mark in the
 * hierarchy its place is checked in: another container's cgroup is never
 * a place to make one in (root may set trusted.* attributes; cgroupfs
 * keeps them). */
#define CG_MARK "trusted.corral.container"

/* The hierarchy a container's cgroup is marked in: the cgroup2 one when
 * there is one (a v2 host, a hybrid's "unified"), else the first v1
 * hierarchy; every hierarchy has the same path, and the place is checked
 * in each. */
static const struct cg_hier *checked_hier(const struct cg_hiers *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].cgroup2)
			return &h->v[i];
	return h->n ? &h->v[0] : NULL;
}

/* Whether the cgroup open at fd holds a process (its cgroup.procs is not
 * empty): someone's leaf, a service's or a container's. */
static bool has_processes(int fd)
{
	_cleanup_close_ int procs =
	    openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	char c;

	return procs >= 0 && read(procs, &c, 1) == 1;
}

/* One hierarchy's part of cgroup_check_place: each existing cgroup on
 * the way to the leaf must carry no mark (marks) or hold no process. */
static int check_place_in(const struct cgroup *cg, const char *root, bool marks,
			  struct error **err)
{
	_cleanup_free_ char *copy = strdup(cg->path);
	_cleanup_close_ int fd = -1;
	char *save = NULL, *comp, *next;

	if (!copy)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "cgroup %s: open", root);
	for (comp = strtok_r(copy, "/", &save); comp; comp = next) {
		/* the path up to here, as cg->path spells it */
		int at = (int)(comp - copy + (ptrdiff_t)strlen(comp));
		int child;

		next = strtok_r(NULL, "/", &save);
		if (!next)
			return 0; /* the leaf, made new (it may not exist) */
		child = openat(fd, comp,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child < 0 && errno == ENOENT)
			return 0; /* made by corral from here on */
		if (child < 0)
			return error_errno(err, "cgroup %s: open", comp);
		close(fd);
		fd = child;
		if (marks && fgetxattr(fd, CG_MARK, NULL, 0) >= 0)
			return error_set(err, EPERM,
					 "cgroup %s: inside %.*s, another "
					 "container's cgroup",
					 cg->path, at, cg->path);
		if (!marks && has_processes(fd))
			return error_set(err, EPERM,
					 "cgroup %s: inside %.*s, a cgroup "
					 "with processes of its own",
					 cg->path, at, cg->path);
	}
	return 0;
}

int cgroup_check_place(const struct cgroup *cg, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};

	if (cg->bases.n || cg->unit)
		return 0; /* the user's place, or systemd's */
	if (cg_hierarchies(cg, false, &h, err) < 0)
		return -1;
	for (int marks = 1; marks >= 0; marks--)
		for (size_t i = 0; i < h.n; i++)
			if (check_place_in(cg, h.v[i].root, marks, err) < 0)
				return -1;
	return 0;
}

/* Mark the container's own cgroup (CG_MARK), where it may be: root's
 * corral; a delegated cgroup is the user's, and its place is not
 * config.json's to choose. */
static void mark(const struct cgroup *cg)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct cg_hier *hier;
	_cleanup_close_ int fd = -1;

	if (cg->bases.n || cg_hierarchies(cg, true, &h, NULL) < 0 ||
	    !(hier = checked_hier(&h)))
		return;
	fd = open(hier->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fsetxattr(fd, CG_MARK, "1", 1, 0) < 0) {
		/* not marked (no trusted.* here): the process check still
		 * keeps a running container's cgroup */
	}
}

int cgroup_make(const struct cgroup *cg, const struct spec_resources *r,
		bool best_effort, char ***skipped, struct error **err)
{
	_cleanup_(cg_names_clear) struct cg_names skip = {0};
	_cleanup_free_ char **none = calloc(1, sizeof(char *));

	if (skipped)
		*skipped = NULL;
	if (!none)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	if (cg->backend->prepare(cg, r, best_effort, &skip, err) < 0)
		return -1;
	mark(cg);
	if (skipped)
		*skipped =
		    skip.v ? steal_pointer(&skip.v) : steal_pointer(&none);
	return 0;
}

int cgroup_prepare(const char *mount_root, const char *path,
		   const struct spec_resources *r, bool best_effort,
		   struct cgroup **out, char ***skipped, struct error **err)
{
	_cleanup_(cgroup_freep) struct cgroup *cg = NULL;

	*out = NULL;
	if (skipped)
		*skipped = NULL;
	if (cgroup_new(mount_root, path, &cg, err) < 0 ||
	    cgroup_make(cg, r, best_effort, skipped, err) < 0)
		return -1;
	*out = steal_pointer(&cg);
	return 0;
}

bool cgroup_needs_pid(const struct cgroup *cg)
{
	return cg->unit != NULL;
}

const char *cgroup_driver(const struct cgroup *cg)
{
	return cg->unit ? "systemd" : "cgroupfs";
}

/* The cgroup2 hierarchy among h (the v2 tree, or a hybrid's "unified"). */
static const struct cg_hier *cgroup2_of(const struct cg_hiers *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].cgroup2)
			return &h->v[i];
	return NULL;
}

bool cgroup_has_cgroup2(const struct cgroup *cg)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};

	return cg_hierarchies(cg, false, &h, NULL) == 0 && cgroup2_of(&h);
}

int cgroup_make_cgroup2(struct cgroup *cg, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	_cleanup_(cg_names_clear) struct cg_names made = {0};
	const struct cg_walk walk = {0};
	const struct cg_hier *v2;
	int fd = -1;

	if (cg_hierarchies(cg, true, &h, err) < 0)
		return -1;
	if (h.n < 2 || !(v2 = cgroup2_of(&h)))
		return 0;
	if (cg_make_path(v2->root, cg->path, &walk, &made, &fd, err) < 0) {
		cg_rmdir_all(&made);
		return -1;
	}
	close(fd);
	cg->cgroup2_made = true;
	mark(cg);
	return 1;
}

int cgroup_clone_fd(const struct cgroup *cg)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct cg_hier *v2;

	if (cg_hierarchies(cg, true, &h, NULL) < 0 || !(v2 = cgroup2_of(&h)))
		return -1;
	return open(v2->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int cgroup_enter_self(const struct cgroup *cg, bool in_cgroup2,
		      struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (cg_hierarchies(cg, true, &h, err) < 0)
		return -1;
	for (size_t i = 0; i < h.n; i++) {
		struct cg_hier *x = &h.v[i];

		if (x->cgroup2 && in_cgroup2)
			continue;
		if (cg_write_in(x->dir, x->cgroup2 ? "cgroup.procs" : "tasks",
				x->cgroup2 ? pid : "0", err) < 0)
			return -1;
	}
	return 0;
}

/* cgroup.procs moves the whole thread group.  A hierarchy without the
 * directory is an error: the process would escape what it limits. */
int cgroup_enter(const struct cgroup *cg, pid_t pid, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	char buf[24];

	if (pid <= 0)
		return error_set(err, EINVAL, "cgroup: enter pid %d", (int)pid);
	if (cg_hierarchies(cg, true, &h, err) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	for (size_t i = 0; i < h.n; i++) {
		h.v[i].fd =
		    open(h.v[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (h.v[i].fd < 0)
			return error_errno(err, "cgroup %s: open", h.v[i].dir);
		if (cg_write(h.v[i].fd, h.v[i].dir, "cgroup.procs", buf, err) <
		    0)
			return -1;
	}
	return 0;
}

/* ---- removing ------------------------------------------------------------ */

/* "corral/a/ID": "corral/a" goes when empty, being corral's; "corral"
 * itself stays, as runc's and crun's parents do (making it again, with
 * its cpuset, in every hierarchy cost each create ~20 cgroupfs calls);
 * other parents (a slice, a pod's cgroup) are not corral's to remove. */
static void remove_parents(const struct cg_hier *h, const char *path)
{
	_cleanup_free_ char *dir = strdup(h->dir);
	size_t stop = strlen(h->root) + 1 + strlen(CG_PARENT);
	char *slash;

	while (*path == '/')
		path++;
	if (!dir || strncmp(path, CG_PARENT "/", strlen(CG_PARENT) + 1) != 0)
		return;
	while ((slash = strrchr(dir, '/')) && (size_t)(slash - dir) > stop) {
		*slash = '\0';
		if (cg_rmdir(dir, 0) < 0)
			break; /* not empty: another container's */
	}
}

/* Milliseconds from `since` to now. */
static long ms_since(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 +
	       (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* rmdir in every hierarchy.  The retries on a busy cgroup share one
 * deadline over all hierarchies: a cgroup still in use is busy in each of
 * them. */
static int destroy(const struct cgroup *cg, int timeout_ms, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	struct timespec start;
	int rc = 0;

	if (cg_hierarchies(cg, true, &h, err) < 0)
		return -1;
	/* a backend's own end first: systemd's driver stops its scope */
	if (cg->backend->release && cg->backend->release(cg, err) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (size_t i = 0; i < h.n; i++) {
		long left = timeout_ms - ms_since(&start);

		if (cg_rmdir(h.v[i].dir, left > 0 ? (int)left : 0) < 0) {
			rc = error_errno(err, "cgroup %s: rmdir", h.v[i].dir);
			continue;
		}
		remove_parents(&h.v[i], cg->path);
	}
	return rc;
}

int cgroup_destroy(const struct cgroup *cg, struct error **err)
{
	return destroy(cg, CG_RMDIR_TIMEOUT_MS, err);
}

int cgroup_remove(const struct cgroup *cg, struct error **err)
{
	_cleanup_error_ struct error *busy = NULL;

	if (destroy(cg, 0, &busy) == 0)
		return 0;
	if (busy->code != EBUSY) {
		*err = steal_pointer(&busy);
		return -1;
	}
	return cgroup_kill(cg, err) < 0 ? -1 : cgroup_destroy(cg, err);
}

void cgroup_free(struct cgroup *cg)
{
	if (!cg)
		return;
	cg_bases_clear(&cg->bases);
	free(cg->unit);
	free(cg->slice);
	free(cg->mount_root);
	free(cg->path);
	free(cg);
}
