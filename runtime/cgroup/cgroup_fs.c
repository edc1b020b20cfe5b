/* The file system side of the cgroup module: reading and writing one
 * cgroup's files, listing the hierarchies, making and removing the
 * container's directories.  Everything here works on a real cgroupfs and
 * on the fake trees of the unit tests alike (see cg_kernel_made in
 * cgroup_fs.h).
 *
 * Privileged: this runs as root on the host's cgroupfs.  It stays inside
 * the container's cgroup because every path is normalized first (no
 * "..", never a hierarchy's root), each directory is opened from its
 * parent with O_NOFOLLOW (or, when the parents exist, the leaf's parent
 * by its path: cgroupfs holds no link), and a leaf that already exists
 * is refused, so the limits written are only ever those of a cgroup this
 * call made. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "fsutil.h"
#include "util.h"

/* ---- small lists ------------------------------------------------------ */

int cg_names_add(struct cg_names *l, const char *s)
{
	char **v = realloc(l->v, (l->n + 2) * sizeof(*v));

	if (!v)
		return -1;
	l->v = v;
	v[l->n] = strdup(s);
	if (!v[l->n])
		return -1;
	v[++l->n] = NULL;
	return 0;
}

bool cg_names_has(const struct cg_names *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

void cg_names_clear(struct cg_names *l)
{
	strv_free(l->v);
	*l = (struct cg_names){0};
}

bool cg_word_in(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p;) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n == len && strncmp(p, word, len) == 0)
			return true;
		p += n;
	}
	return false;
}

/* ---- files of one cgroup directory ------------------------------------ */

/* One write(2) per value: the kernel parses each write on its own, so a
 * value split over two writes would be two (wrong) values. */
static int write_value(int fd, const char *dir, const char *file,
		       const char *value, struct error **err)
{
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return error_errno(err, "cgroup %s: write %s", dir, file);
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return error_errno(err, "cgroup %s: write %s", dir, file);
	if ((size_t)n != len)
		return error_set(err, EIO, "cgroup %s: write %s: short write",
				 dir, file);
	cg_kernel_wrote(dir, file, value);
	return 0;
}

int cg_write(int dirfd, const char *dir, const char *file, const char *value,
	     struct error **err)
{
	_cleanup_close_ int fd =
	    openat(dirfd, file, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);

	return write_value(fd, dir, file, value, err);
}

int cg_write_in(const char *dir, const char *file, const char *value,
		struct error **err)
{
	_cleanup_free_ char *path = cg_join(dir, file);
	_cleanup_close_ int fd = -1;

	if (!path)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	return write_value(fd, dir, file, value, err);
}

int cg_read(int dirfd, const char *dir, const char *file, char **out,
	    struct error **err)
{
	if (read_file_at(dirfd, file, out, NULL, err) < 0)
		return error_wrap(err, "cgroup %s", dir);
	return 0;
}

bool cg_exists(int dirfd, const char *file)
{
	struct stat st;

	return fstatat(dirfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* ---- hierarchies -------------------------------------------------------- */

void cg_hiers_clear(struct cg_hiers *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].root);
		free(h->v[i].dir);
		if (h->v[i].fd >= 0)
			close(h->v[i].fd);
	}
	free(h->v);
	*h = (struct cg_hiers){0};
}

int cg_hierarchies(const struct cgroup *cg, bool with_path,
		   struct cg_hiers *out, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers all = {0};

	*out = (struct cg_hiers){0};
	if (!cg->bases.n)
		return cg->layout->hierarchies(
		    cg->mount_root, with_path ? cg->path : NULL, out, err);
	if (cg->layout->hierarchies(cg->mount_root, NULL, &all, err) < 0)
		return -1;
	out->v = calloc(all.n ? all.n : 1, sizeof(*out->v));
	for (size_t i = 0; out->v && i < all.n; i++) {
		const char *base = cg_bases_find(&cg->bases, all.v[i].name);
		struct cg_hier *h;

		if (!base)
			continue;
		h = &out->v[out->n++];
		*h = (struct cg_hier){all.v[i].name, all.v[i].cgroup2,
				      cg_join(all.v[i].root, base), NULL, -1};
		if (!h->root ||
		    (with_path && !(h->dir = cg_join(h->root, cg->path)))) {
			cg_hiers_clear(out);
			break;
		}
	}
	if (!out->v)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	return 0;
}

char *cg_hier_root(const struct cgroup *cg, const char *name)
{
	_cleanup_free_ char *root = cg_join(cg->mount_root, name);
	const char *base;

	if (!cg->bases.n || !root)
		return steal_pointer(&root);
	base = cg_bases_find(&cg->bases, name);
	return base ? cg_join(root, base) : NULL;
}

int cg_hiers_open(const struct cgroup *cg, struct cg_hiers *out,
		  struct error **err)
{
	if (cg_hierarchies(cg, true, out, err) < 0)
		return -1;
	for (size_t i = 0; i < out->n; i++)
		out->v[i].fd = open(out->v[i].dir, O_RDONLY | O_DIRECTORY |
						       O_NOFOLLOW | O_CLOEXEC);
	return 0;
}

/* ---- making and removing directories ------------------------------------ */

void cg_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int cg_wait_more(int waited)
{
	int step = waited < 15 ? waited + 1 : 10; /* 1, 2, 4, 8, 10, 10 ... */

	cg_sleep_ms(step);
	return waited + step;
}

int cg_rmdir(const char *dir, int timeout_ms)
{
	cg_kernel_removing(dir);
	for (int waited = 0;; waited = cg_wait_more(waited)) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || waited >= timeout_ms)
			return -1;
	}
}

void cg_rmdir_all(struct cg_names *made)
{
	int saved = errno;

	for (size_t i = made->n; i-- > 0;)
		cg_rmdir(made->v[i], CG_RMDIR_TIMEOUT_MS);
	errno = saved;
}

/* Make one component below parent_fd and open it; 1 when parent_fd was
 * removed meanwhile. */
static int make_one(int parent_fd, const char *parent, const char *name,
		    const char *dir, bool leaf, const struct cg_walk *walk,
		    struct cg_names *made, int *fd, struct error **err)
{
	bool created = mkdirat(parent_fd, name, 0755) == 0;

	if (!created && errno == ENOENT)
		return 1;
	if (!created && errno != EEXIST)
		return error_errno(err, "cgroup %s: mkdir", dir);
	if (!created && leaf && !walk->leaf_exists)
		return error_set(err, EEXIST, "cgroup %s: already exists", dir);
	if (created && cg_names_add(made, dir) < 0) {
		unlinkat(parent_fd, name, AT_REMOVEDIR);
		return error_set(err, ENOMEM, "cgroup %s: out of memory", dir);
	}
	*fd = openat(parent_fd, name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return error_errno(err, "cgroup %s: open", dir);
	if (!created)
		return 0;
	if (cg_kernel_made(parent_fd, *fd, dir) < 0)
		return error_errno(err, "cgroup %s: fake kernel", dir);
	if (walk->made &&
	    walk->made(walk->ctx, parent_fd, parent, *fd, dir, err) < 0)
		return -1;
	return 0;
}

/* One walk from the root; 1 when a parent vanished under it (another
 * container's delete removed an empty "corral"), so the caller retries. */
static int walk_once(const char *hier_root, const char *path,
		     const struct cg_walk *walk, struct cg_names *made,
		     int *leaf_fd, struct error **err)
{
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_free_ char *dir = strdup(hier_root);
	_cleanup_close_ int fd = -1;
	char *save = NULL, *comp, *next;
	int r;

	if (!copy || !dir)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	fd = open(hier_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "cgroup %s: open", hier_root);
	for (comp = strtok_r(copy, "/", &save); comp; comp = next) {
		_cleanup_free_ char *child = cg_join(dir, comp);
		_cleanup_close_ int child_fd = -1;

		next = strtok_r(NULL, "/", &save);
		if (!child)
			return error_set(err, ENOMEM, "cgroup: out of memory");
		if (walk->descend && walk->descend(walk->ctx, fd, dir, err) < 0)
			return -1;
		r = make_one(fd, dir, comp, child, !next, walk, made, &child_fd,
			     err);
		if (r != 0)
			return r;
		close(fd);
		fd = take_fd(&child_fd);
		free(dir);
		dir = steal_pointer(&child);
	}
	*leaf_fd = take_fd(&fd);
	return 0;
}

/* The usual case, with no descend hook: the leaf's parents exist
 * (corral's "corral" stays), so only the leaf is made, from its parent
 * opened by its whole path: below a hierarchy's root the path holds no
 * link, which cgroupfs cannot hold, and it is normalized (no "..").
 * Three system calls fewer per level than the walk.  1 when a parent is
 * missing: the walk makes it. */
static int make_leaf(const char *hier_root, const char *path,
		     const struct cg_walk *walk, struct cg_names *made,
		     int *leaf_fd, struct error **err)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *within =
	    slash ? strndup(path, (size_t)(slash - path)) : NULL;
	_cleanup_free_ char *parent = cg_join(hier_root, within);
	_cleanup_free_ char *leaf = cg_join(hier_root, path);
	_cleanup_close_ int fd = -1;

	if ((slash && !within) || !parent || !leaf)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0)
		return error_errno(err, "cgroup %s: open", parent);
	return make_one(fd, parent, slash ? slash + 1 : path, leaf, true, walk,
			made, leaf_fd, err);
}

int cg_make_path(const char *hier_root, const char *path,
		 const struct cg_walk *walk, struct cg_names *made,
		 int *leaf_fd, struct error **err)
{
	if (!walk->descend) {
		int r = make_leaf(hier_root, path, walk, made, leaf_fd, err);

		if (r <= 0)
			return r;
	}
	for (int attempt = 0; attempt < 3; attempt++) {
		int r = walk_once(hier_root, path, walk, made, leaf_fd, err);

		if (r <= 0)
			return r;
	}
	return error_set(err, ENOENT,
			 "cgroup %s: parent removed while "
			 "making %s",
			 hier_root, path);
}
