/* The caller's delegated cgroup (cgroup.h: cgroup_find_delegated): where
 * an ordinary user's corral may put a container's cgroup, as bases the
 * backends take (struct cgroup's `bases`), not as a layout of its own.
 *
 * What the kernel lets an ordinary user do in a cgroup tree is what the
 * files' owners and modes allow, plus two rules: to move a process, it
 * must be able to write the cgroup.procs of the source's and the
 * destination's common ancestor (cgroup2), or own the process (v1); and
 * a cgroup2 cgroup that holds processes gives its children no
 * controller.  So on cgroup2 the container's cgroup goes beside the
 * caller's own cgroup, in its parent, which must be the caller's with
 * its cgroup.procs and cgroup.subtree_control (as systemd delegates
 * user@UID.service); on v1 it goes below the caller's own cgroup, which
 * must be a directory of the caller's.  The root cgroup is never one.
 *
 * Nothing is made or written here: the directories are opened and
 * stat'ed, /proc/self/cgroup and the parent's cgroup.controllers read. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "fsutil.h"
#include "util.h"

/* DIR is the caller's: it may make directories in it and, on cgroup2,
 * write the files that move processes and give controllers.  Asked of
 * the kernel (access(2) with the effective ids and capabilities), not
 * read from the owner: in the caller's own user namespace a directory of
 * the host's root shows as the overflow uid, which may well be the
 * caller's own uid there (65534), and no capability of that namespace
 * reaches an inode whose owner it does not map. */
static bool owned(const char *root, const char *dir, bool cgroup2)
{
	static const char *const files[] = {"cgroup.procs",
					    "cgroup.subtree_control"};
	_cleanup_free_ char *path = cg_join(root, dir);
	_cleanup_close_ int fd = -1;

	if (!path)
		return false;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || faccessat(fd, ".", W_OK, AT_EACCESS) < 0)
		return false;
	for (size_t i = 0; cgroup2 && i < ARRAY_SIZE(files); i++)
		if (faccessat(fd, files[i], W_OK,
			      AT_EACCESS | AT_SYMLINK_NOFOLLOW) < 0)
			return false;
	return true;
}

/* The directory of the caller's cgroup `self` that the container's is
 * made in: itself on v1, its parent on cgroup2; NULL when that is the
 * root. */
static char *base_of(const char *self, bool cgroup2)
{
	_cleanup_free_ char *dir = strdup(self);
	char *slash;

	if (!dir)
		return NULL;
	if (cgroup2 && (slash = strrchr(dir, '/')))
		*slash = '\0';
	if (!dir[strspn(dir, "/")])
		return NULL;
	return steal_pointer(&dir);
}

/* The controllers the container's cgroup can have below BASE: on v1 the
 * hierarchies delegated; on cgroup2 those BASE can give its children. */
static unsigned controllers_of(const struct cg_hiers *h,
			       const struct cgroup_bases *b)
{
	static const enum cg_controller wanted[] = {CG_MEMORY, CG_PIDS, CG_CPU};
	unsigned have = 0;

	for (size_t i = 0; i < h->n; i++) {
		_cleanup_free_ char *dir = NULL, *list = NULL;
		_cleanup_error_ struct error *e = NULL;
		const char *base = cg_bases_find(b, h->v[i].name);
		_cleanup_close_ int fd = -1;

		if (!base)
			continue;
		for (size_t k = 0; !h->v[i].cgroup2 && k < ARRAY_SIZE(wanted);
		     k++)
			if (strcmp(h->v[i].name,
				   cg_controller_names[wanted[k]]) == 0)
				have |= 1u << wanted[k];
		if (!h->v[i].cgroup2 || !(dir = cg_join(h->v[i].root, base)))
			continue;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 ||
		    cg_read(fd, dir, "cgroup.controllers", &list, &e) < 0)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(wanted); k++)
			if (cg_word_in(list, cg_controller_names[wanted[k]]))
				have |= 1u << wanted[k];
	}
	return have;
}

/* Add the base of hierarchy `name` (and of the controllers co-mounted
 * with it, which /proc/self/cgroup lists on the same line: the stats
 * read "cpuacct" through its own link) when the caller owns it. */
static int add_base(const struct cg_self *self, const struct cg_hier *h,
		    struct cgroup_bases *out)
{
	const char *want = h->cgroup2 ? "" : h->name;
	_cleanup_free_ char *base = NULL;
	size_t i;

	for (i = 0; i < self->paths.n; i++)
		if (strcmp(self->paths.v[i].hier, want) == 0)
			break;
	if (i == self->paths.n ||
	    !(base = base_of(self->paths.v[i].dir, h->cgroup2)) ||
	    !owned(h->root, base, h->cgroup2))
		return 0;
	if (cg_bases_add(out, h->name, base) < 0)
		return -1;
	for (size_t j = 0; j < self->paths.n; j++)
		if (j != i && self->line[j] == self->line[i] &&
		    *self->paths.v[j].hier &&
		    !cg_bases_find(out, self->paths.v[j].hier) &&
		    cg_bases_add(out, self->paths.v[j].hier, base) < 0)
			return -1;
	return 0;
}

int cg_find_delegated(const char *mount_root, const char *proc_self_cgroup,
		      struct cgroup_bases *out, unsigned *controllers,
		      struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct cgroup_backend *backend;
	struct cg_self self = {0};
	int rc = 0;

	*out = (struct cgroup_bases){0};
	*controllers = 0;
	if (cgroup_detect(mount_root, &backend, err) < 0 ||
	    backend->hierarchies(mount_root, NULL, &h, err) < 0 ||
	    cg_self_parse(proc_self_cgroup, &self, err) < 0)
		return error_wrap(err, "cgroup");
	for (size_t i = 0; rc == 0 && i < h.n; i++)
		rc = add_base(&self, &h.v[i], out);
	cg_self_clear(&self);
	if (rc < 0) {
		cg_bases_clear(out);
		return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	*controllers = controllers_of(&h, out);
	return 0;
}

int cgroup_find_delegated(const char *mount_root, struct cgroup_bases *out,
			  unsigned *controllers, struct error **err)
{
	_cleanup_free_ char *text = NULL;

	*out = (struct cgroup_bases){0};
	*controllers = 0;
	if (read_file_at(AT_FDCWD, "/proc/self/cgroup", &text, NULL, err) < 0)
		return error_wrap(err, "cgroup");
	return cg_find_delegated(mount_root, text, out, controllers, err);
}
