/* `update`: new limits on a live container's cgroup, written by the same
 * tables as at create (cg_v1_limits, cg_v2_limits), so a field means the
 * same file and the same format whenever it is written.  Whether a value
 * is allowed (the policy) is the caller's question; this module only
 * writes what it is given.
 *
 * Privileged: this runs as root on the host's cgroupfs, in the cgroup
 * named by state.json, which cg_path_normalize() checked again (no "..",
 * never a hierarchy's root).  Only the files of the rows are written:
 * `unified` keys are limited to a controller's own files by its row. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "util.h"

struct update_ctx {
	const struct cgroup *cg;
	struct cg_hiers h; /* open where the directory exists */
	char *controllers; /* v2: the leaf's cgroup.controllers */
};

static void update_ctx_clear(struct update_ctx *x)
{
	cg_hiers_clear(&x->h);
	free(x->controllers);
	x->controllers = NULL;
}

/* Where a controller's files are: the one v2 directory when the
 * controller is enabled there, else the v1 hierarchy of that name. */
static int update_target(struct cg_writer *w, enum cg_controller c,
			 const char **dir, struct error **err)
{
	struct update_ctx *x = w->ctx;
	const char *name = cg_controller_names[c];

	*dir = NULL;
	if (x->cg->layout == CGROUP_V2) {
		*dir = x->h.v[0].dir;
		if (c < CG_BLKIO && x->h.v[0].fd >= 0 &&
		    cg_word_in(x->controllers, name))
			return x->h.v[0].fd;
		return error_set(err, EOPNOTSUPP,
				 "cgroup %s: the %s controller is not "
				 "enabled for this cgroup",
				 x->h.v[0].dir, name);
	}
	for (size_t i = 0; i < x->h.n; i++) {
		if (strcmp(x->h.v[i].name, name) != 0)
			continue;
		*dir = x->h.v[i].dir;
		if (x->h.v[i].fd >= 0)
			return x->h.v[i].fd;
		return error_errno(err, "cgroup %s: open", x->h.v[i].dir);
	}
	return error_set(err, EOPNOTSUPP,
			 "cgroup: no %s hierarchy is mounted at %s/%s", name,
			 x->cg->mount_root, name);
}

static int update_open(const struct cgroup *cg, struct update_ctx *x,
		       struct error **err)
{
	*x = (struct update_ctx){.cg = cg};
	if (cg_hiers_list(cg->layout, cg->mount_root, cg->path, &x->h, err) < 0)
		return -1;
	for (size_t i = 0; i < x->h.n; i++)
		x->h.v[i].fd = open(x->h.v[i].dir, O_RDONLY | O_DIRECTORY |
						       O_NOFOLLOW | O_CLOEXEC);
	if (cg->layout != CGROUP_V2)
		return 0;
	if (x->h.v[0].fd < 0)
		return error_errno(err, "cgroup %s: open", x->h.v[0].dir);
	if (cg_read(x->h.v[0].fd, x->h.v[0].dir, "cgroup.controllers",
		    &x->controllers, err) < 0)
		return -1;
	x->controllers[strcspn(x->controllers, "\n")] = '\0';
	return 0;
}

/* v2: a controller create did not need (no cpu limit then) is not
 * enabled for the leaf; enable it in each parent's subtree_control, from
 * the root down, as cgroup_prepare() does.  The parents hold no
 * processes, so this is allowed; the leaf stays a leaf.  One a parent
 * lacks is left for update_target() to report. */
static int enable_wanted(struct update_ctx *x, unsigned wanted,
			 struct error **err)
{
	_cleanup_free_ char *copy = strdup(x->cg->path);
	_cleanup_free_ char *dir = strdup(x->cg->mount_root);
	_cleanup_close_ int fd = -1;
	char *save = NULL, *comp, *next;

	if (!copy || !dir)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "cgroup %s: open", dir);
	for (comp = strtok_r(copy, "/", &save); comp; comp = next) {
		_cleanup_free_ char *have = NULL, *on = NULL;
		_cleanup_free_ char *child = cg_join(dir, comp);
		int child_fd;

		next = strtok_r(NULL, "/", &save);
		if (!child)
			return error_set(err, ENOMEM, "cgroup: out of memory");
		if (cg_read(fd, dir, "cgroup.controllers", &have, err) < 0 ||
		    cg_read(fd, dir, "cgroup.subtree_control", &on, err) < 0)
			return -1;
		for (int c = 0; c < CG_BLKIO; c++) {
			const char *name = cg_controller_names[c];
			char one[32];

			if (!(wanted & (1u << c)) || !cg_word_in(have, name) ||
			    cg_word_in(on, name))
				continue;
			snprintf(one, sizeof(one), "+%s", name);
			if (cg_write(fd, dir, "cgroup.subtree_control", one,
				     err) < 0)
				return -1;
		}
		child_fd = openat(
		    fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child_fd < 0)
			return error_errno(err, "cgroup %s: open", child);
		close(fd);
		fd = child_fd;
		free(dir);
		dir = steal_pointer(&child);
		if (!next)
			break;
	}
	free(x->controllers);
	x->controllers = NULL;
	if (cg_read(fd, dir, "cgroup.controllers", &x->controllers, err) < 0)
		return -1;
	x->controllers[strcspn(x->controllers, "\n")] = '\0';
	return 0;
}

/* v1 refuses a memory limit above memsw and a memsw below the memory
 * limit: when memsw grows it goes first, as runc orders it. */
static bool memsw_grows(struct update_ctx *x, const struct spec_resources *r)
{
	struct cg_writer w = {
	    .mode = CG_WRITE, .target = update_target, .ctx = x};
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *now = NULL;
	const char *dir;
	long long cur;
	char *end;
	int fd;

	if (!r->memory || !r->memory->swap.set || r->memory->swap.v == 0)
		return false;
	if (r->memory->swap.v < 0)
		return true;
	fd = update_target(&w, CG_MEMORY, &dir, &e);
	if (fd < 0 ||
	    cg_read(fd, dir, "memory.memsw.limit_in_bytes", &now, &e) < 0)
		return false;
	errno = 0;
	cur = strtoll(now, &end, 10);
	return errno == 0 && end != now && r->memory->swap.v > cur;
}

/* The layout's table, in the order this update writes it. */
static int update_rows(struct update_ctx *x, const struct spec_resources *r,
		       struct cg_limit **out, size_t *n, struct error **err)
{
	bool v2 = x->cg->layout == CGROUP_V2;
	const struct cg_limit *rows = v2 ? cg_v2_limits : cg_v1_limits;
	size_t len = v2 ? cg_v2_n_limits : cg_v1_n_limits, lim = len, swp = len;
	struct cg_limit *v = malloc(len * sizeof(*v));

	if (!v)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	memcpy(v, rows, len * sizeof(*v));
	for (size_t i = 0; i < len; i++) {
		if (strcmp(v[i].name, ".linux.resources.memory.limit") == 0)
			lim = i;
		else if (strcmp(v[i].name, ".linux.resources.memory.swap") == 0)
			swp = i;
	}
	if (!v2 && lim < len && swp < len && memsw_grows(x, r)) {
		struct cg_limit t = v[lim];

		v[lim] = v[swp];
		v[swp] = t;
	}
	*out = v;
	*n = len;
	return 0;
}

/* Validate everything and check that every controller is there before
 * writing anything, so that a wrong request changes nothing. */
int cgroup_update(const struct cgroup *cg, const struct spec_resources *r,
		  struct error **err)
{
	struct update_ctx x;
	struct cg_writer w = {.mode = CG_COLLECT};
	_cleanup_free_ struct cg_limit *rows = NULL;
	size_t n = 0;
	int rc = -1;

	if (r->n_devices)
		return error_set(err, EINVAL,
				 "cgroup %s: device rules cannot be updated",
				 cg->path);
	if (update_open(cg, &x, err) < 0 ||
	    update_rows(&x, r, &rows, &n, err) < 0 ||
	    cg_write_limits(&w, rows, n, r, false, NULL, err) < 0)
		goto out;
	if (cg->layout == CGROUP_V2 && w.wanted &&
	    enable_wanted(&x, w.wanted, err) < 0)
		goto out;
	for (int c = 0; c < CG_N_CONTROLLERS; c++) {
		struct cg_writer probe = {.mode = CG_WRITE, .ctx = &x};
		const char *dir;

		if ((w.wanted & (1u << c)) &&
		    update_target(&probe, (enum cg_controller)c, &dir, err) < 0)
			goto out;
	}
	cg_names_clear(&w.written);
	w = (struct cg_writer){
	    .mode = CG_WRITE, .target = update_target, .ctx = &x};
	rc = cg_write_limits(&w, rows, n, r, false, NULL, err);
out:
	cg_names_clear(&w.written);
	update_ctx_clear(&x);
	return rc;
}
