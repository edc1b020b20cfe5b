#include "mount.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bind_late.h"
#include "cgroup.h"
#include "devices.h"
#include "fsutil.h"
#include "log.h"
#include "mount_options.h"
#include "stub_resolv.h"
#include "util.h"

static void flags_free(struct spec_mount_flags *f)
{
	free(f->data);
	f->data = NULL;
}

static unsigned long locked_flags(int fd)
{
	struct statvfs st;
	unsigned long flags = 0;

	if (fstatvfs(fd, &st) < 0)
		return 0;
	if (st.f_flag & ST_NOSUID)
		flags |= MS_NOSUID;
	if (st.f_flag & ST_NODEV)
		flags |= MS_NODEV;
	if (st.f_flag & ST_NOEXEC)
		flags |= MS_NOEXEC;
	if (st.f_flag & ST_RDONLY)
		flags |= MS_RDONLY;
	return flags;
}

/* Remount a bind mount with per-mount flags.  The nosuid, nodev and noexec
 * the mount already has are kept: config.json may add restrictions to a
 * host mount, never lift them.  When the kernel refuses to drop a locked
 * read-only flag, keep that too: it can only narrow. */
static int bind_remount(int fd, unsigned long flags, const char *dst,
			struct error **err)
{
	char p[FD_PATH_MAX];

	fd_path(fd, p);
	flags |= locked_flags(fd) & (MS_NOSUID | MS_NODEV | MS_NOEXEC);
	if (mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | flags, NULL) == 0)
		return 0;
	if (errno == EPERM &&
	    mount(NULL, p, NULL,
		  MS_REMOUNT | MS_BIND | flags | locked_flags(fd), NULL) == 0)
		return 0;
	return error_errno(err, "remount %s", dst);
}

static int set_propagation_and_attrs(int fd, const struct spec_mount_flags *f,
				     const char *dst, struct error **err)
{
	char p[FD_PATH_MAX];

	fd_path(fd, p);
	if (f->propagation && mount(NULL, p, NULL, f->propagation, NULL) < 0)
		return error_errno(err, "set propagation of %s", dst);
	if (f->attr_set || f->attr_clr) {
		struct mount_attr attr = {.attr_set = f->attr_set,
					  .attr_clr = f->attr_clr};

		if (syscall(SYS_mount_setattr, fd, "",
			    AT_EMPTY_PATH | AT_RECURSIVE, &attr,
			    sizeof(attr)) < 0)
			return error_errno(err, "set attributes of %s", dst);
	}
	return 0;
}

/* The kernel lists a namespace's mounts by mount id, and the parent made
 * the bind's clone before this process mounted anything: under a
 * permissive policy, where config.json's mounts must show in its order as
 * runc's do, the attached bind is replaced by a clone of itself made now
 * (same mount, same flags, a newer id).  Not under the sandbox: the
 * clone resolves the destination in the rootfs again, which the bundle's
 * writer can race; there the bind stays the descriptor the parent
 * opened.  If the clone cannot be made, the first attach stays. */
static int reclone(int rootfd, int target, const char *dst,
		   unsigned long propagation, struct error **err)
{
	_cleanup_close_ int attached = -1, fresh = -1;
	char p[FD_PATH_MAX];

	attached = open_in_root(rootfd, dst, O_PATH | O_NOFOLLOW, NULL);
	if (attached < 0)
		return 0;
	fd_path(attached, p);
	/* an unbindable mount cannot be cloned: private for the clone, and
	 * config.json's propagation again on the new one */
	if (propagation & MS_UNBINDABLE)
		mount(NULL, p, NULL, MS_PRIVATE | (propagation & MS_REC), NULL);
	fresh = (int)syscall(SYS_open_tree, attached, "",
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
				 AT_EMPTY_PATH | AT_RECURSIVE);
	if (fresh < 0 || umount2(p, MNT_DETACH) < 0)
		return 0;
	if (syscall(SYS_move_mount, fresh, "", target, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return error_errno(err, "bind on %s", dst);
	fd_path(fresh, p);
	if (propagation && mount(NULL, p, NULL, propagation, NULL) < 0)
		return error_errno(err, "set propagation of %s", dst);
	return 0;
}

/* A bind is the detached clone the parent made of its source, already
 * restricted (mount_sources.c): here it is only attached on its target
 * in the rootfs. */
static int mount_bind(int rootfd, size_t index, const struct spec_mount *m,
		      unsigned long propagation,
		      const struct mount_sources *sources, struct error **err)
{
	_cleanup_close_ int target = -1;

	if (index >= sources->n || sources->binds[index] < 0)
		return error_set(err, EINVAL, "bind mount %s: no source opened",
				 m->destination);
	target = open_made_in_root(rootfd, m->destination,
				   !sources->is_dir[index], O_PATH, false, err);
	if (target < 0)
		return -1;
	if (syscall(SYS_move_mount, sources->binds[index], "", target, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return error_errno(err, "bind %s on %s", m->source,
				   m->destination);
	/* the clone's descriptor is the attached mount now: restricted
	 * through it, by no path anyone could change */
	if (bind_late_apply(sources->binds[index], &sources->late[index],
			    m->destination, err) < 0)
		return -1;
	if (sources->reclone_binds)
		return reclone(rootfd, target, m->destination, propagation,
			       err);
	return 0;
}

/* The kernel's own filesystems are only mounted where nothing in the
 * image redirects them: a /proc that is a link elsewhere would take the
 * masks' paths with it. */
static bool kernel_fs(const char *type)
{
	static const char *const types[] = {"proc",   "sysfs",	"devpts",
					    "mqueue", "cgroup", "cgroup2"};

	for (size_t i = 0; type && i < ARRAY_SIZE(types); i++)
		if (strcmp(types[i], type) == 0)
			return true;
	return false;
}

static int mount_fs(int rootfd, const char *dst, const char *source,
		    const char *type, unsigned long flags, const char *data,
		    struct error **err)
{
	_cleanup_close_ int target = -1;
	char tp[FD_PATH_MAX];

	target = open_made_in_root(rootfd, dst, false, O_PATH | O_DIRECTORY,
				   kernel_fs(type), err);
	if (target < 0)
		return error_wrap(err, "mount %s", type);
	fd_path(target, tp);
	if (mount(source ? source : type, tp, type, flags, data) < 0)
		return error_errno(err, "mount %s on %s", type, dst);
	return 0;
}

/* The new mount is reached by a walk of its own: the target's descriptor
 * is of the directory beneath it.  Only when there is something to set. */
static int reopen_and_finish(int rootfd, const char *dst,
			     const struct spec_mount_flags *f,
			     struct error **err)
{
	_cleanup_close_ int fd = -1;

	if (!f->propagation && !f->attr_set && !f->attr_clr)
		return 0;
	fd = open_in_root(rootfd, dst, O_PATH, err);
	if (fd < 0)
		return -1;
	return set_propagation_and_attrs(fd, f, dst, err);
}

/* The next space-separated field of a mountinfo line, NUL-terminated;
 * NULL at the end of the line. */
static char *next_field(char **p)
{
	char *f = *p + strspn(*p, " "), *end;

	if (!*f)
		return NULL;
	end = f + strcspn(f, " ");
	*p = *end ? end + 1 : end;
	*end = '\0';
	return f;
}

/* A v1 hierarchy's super options, from the host's mountinfo line for
 * /sys/fs/cgroup/NAME: "cpu", "name=systemd", ... */
static int v1_hierarchies(char ***names, char ***opts, size_t *n,
			  struct error **err)
{
	_cleanup_free_ char *text = NULL;
	char *next;

	*n = 0;
	*names = *opts = NULL;
	if (read_file_at(AT_FDCWD, "/proc/self/mountinfo", &text, NULL, err) <
	    0)
		return -1;
	for (char *line = text; *line; line = next) {
		char *sep, *p = line, *mnt = NULL, *fstype, *super, *name;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNT-POINT ... - TYPE SOURCE SUPER */
		for (int i = 0; i < 5 && p; i++)
			mnt = next_field(&p);
		p = sep + 3;
		fstype = next_field(&p);
		(void)next_field(&p); /* SOURCE */
		super = next_field(&p);
		if (!mnt || !fstype || !super ||
		    strncmp(mnt, "/sys/fs/cgroup/", 15) != 0 ||
		    strchr(mnt + 15, '/'))
			continue;
		if (strcmp(fstype, "cgroup") != 0 &&
		    strcmp(fstype, "cgroup2") != 0)
			continue;
		name = mnt + 15;
		*names = realloc(*names, (*n + 2) * sizeof(char *));
		*opts = realloc(*opts, (*n + 2) * sizeof(char *));
		if (!*names || !*opts)
			break;
		(*names)[*n] = strdup(name);
		/* drop "rw," / "ro,": the flags come from config.json */
		(*opts)[*n] = strcmp(fstype, "cgroup2") == 0
				  ? NULL
				  : strdup(strncmp(super, "rw,", 3) == 0 ||
						   strncmp(super, "ro,", 3) == 0
					       ? super + 3
					       : super);
		(*n)++;
		(*names)[*n] = (*opts)[*n] = NULL;
	}
	if (!*names || !*opts)
		return error_set(err, ENOMEM, "cgroup mounts: out of memory");
	return 0;
}

/* One hierarchy on its directory NAME in the tmpfs BASE. */
static int mount_hierarchy(int base, const char *dst, const char *name,
			   const char *opts, unsigned long flags,
			   struct error **err)
{
	_cleanup_close_ int dir = -1;
	char p[FD_PATH_MAX];

	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return error_set(err, EINVAL,
				 "cgroup mounts: a hierarchy "
				 "named \"%s\"",
				 name);
	if (mkdirat(base, name, 0755) < 0 && errno != EEXIST)
		return error_errno(err, "mkdir %s/%s", dst, name);
	dir = openat(base, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return error_errno(err, "open %s/%s", dst, name);
	fd_path(dir, p);
	if (mount("cgroup", p, opts ? "cgroup" : "cgroup2", flags, opts) < 0)
		return error_errno(err, "mount %s on %s/%s",
				   opts ? "cgroup" : "cgroup2", dst, name);
	return 0;
}

/* type "cgroup": on a cgroup2 host a cgroup2 mount; on v1 and hybrid hosts
 * a tmpfs holding one mount per hierarchy the container has a cgroup of
 * its own in (cg's; none when cg is NULL).  The child is in a new cgroup
 * namespace, so each shows only the container's own subtree; one it has
 * no cgroup in (a named one, one not delegated to an ordinary user)
 * would show its creator's tree, the host's, and is left out.  The tmpfs
 * is this process's, mounted just now in a mount namespace no other
 * process is in yet: the hierarchies' directories are made and opened
 * from its descriptor, not resolved from the root again one by one. */
static int mount_cgroup(int rootfd, const struct spec_mount *m,
			const struct spec_mount_flags *f,
			const struct cgroup *cg, struct error **err)
{
	_cleanup_strv_ char **names = NULL, **opts = NULL;
	unsigned long flags = f->flags & ~(MS_BIND | MS_REC | MS_REMOUNT);
	_cleanup_close_ int base = -1, host = -1;
	struct cgroup_v1_roots joined;
	char p[FD_PATH_MAX];
	struct statfs sfs;
	size_t n = 0;

	if (statfs(CGROUP_MOUNT, &sfs) == 0 &&
	    sfs.f_type == CGROUP2_SUPER_MAGIC)
		return mount_fs(rootfd, m->destination, "cgroup2", "cgroup2",
				flags, NULL, err);
	if (mount_fs(rootfd, m->destination, "tmpfs", "tmpfs",
		     flags & ~MS_RDONLY, "mode=755", err) < 0)
		return -1;
	base = open_in_root_nolinks(rootfd, m->destination,
				    O_PATH | O_DIRECTORY, err);
	if (base < 0)
		return error_wrap(err, "mount cgroup");
	if (fstatfs(base, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC)
		return error_set(err, EINVAL,
				 "mount cgroup: %s is not the tmpfs just "
				 "mounted",
				 m->destination);
	if (v1_hierarchies(&names, &opts, &n, err) < 0) {
		strv_free(opts);
		opts = NULL;
		return -1;
	}
	host = open(CGROUP_MOUNT, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (host < 0)
		return error_errno(err, "open %s", CGROUP_MOUNT);
	joined.n = 0;
	if (cg && cgroup_v1_joined(cg, &joined, err) < 0)
		return error_wrap(err, "mount cgroup");
	for (size_t i = 0; i < n; i++)
		if (cgroup_v1_joins(&joined, host, names[i]) &&
		    mount_hierarchy(base, m->destination, names[i], opts[i],
				    flags, err) < 0)
			return -1;
	fd_path(base, p);
	if ((flags & MS_RDONLY) &&
	    mount(NULL, p, NULL, MS_REMOUNT | flags, "mode=755") < 0)
		return error_errno(err, "remount %s read-only", m->destination);
	return 0;
}

static int mount_one(int rootfd, size_t index, const struct spec_mount *m,
		     const struct mount_sources *sources,
		     const struct cgroup *cg, struct error **err)
{
	struct spec_mount_flags f;
	const char *type = m->type ? m->type : "none";
	int r;

	if (spec_mount_options_parse(m->options, m->n_options, &f, err) < 0)
		return error_wrap(err, "mount %s", m->destination);
	if (f.bind || strcmp(type, "bind") == 0) {
		r = mount_bind(rootfd, index, m, f.propagation, sources, err);
	} else if (strcmp(type, "cgroup") == 0 ||
		   strcmp(type, "cgroup2") == 0) {
		r = mount_cgroup(rootfd, m, &f, cg, err);
	} else {
		r = mount_fs(rootfd, m->destination, m->source, type,
			     f.flags & ~MS_REC, f.data, err);
		if (r == 0)
			r = reopen_and_finish(rootfd, m->destination, &f, err);
	}
	flags_free(&f);
	return r;
}

static unsigned long propagation_flag(const char *name)
{
	static const struct {
		const char *name;
		unsigned long flag;
	} table[] = {
	    {"shared", MS_SHARED},
	    {"rshared", MS_SHARED | MS_REC},
	    {"slave", MS_SLAVE},
	    {"rslave", MS_SLAVE | MS_REC},
	    {"private", MS_PRIVATE},
	    {"rprivate", MS_PRIVATE | MS_REC},
	    {"unbindable", MS_UNBINDABLE},
	    {"runbindable", MS_UNBINDABLE | MS_REC},
	};

	for (size_t i = 0; name && i < ARRAY_SIZE(table); i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].flag;
	return 0;
}

/* The root is nodev under the sandbox, so the device nodes must live in a
 * tmpfs at /dev; config.json nearly always asks for one. */
static bool has_mount_at(const struct spec *spec, const char *dst)
{
	for (size_t i = 0; i < spec->n_mounts; i++)
		if (strcmp(spec->mounts[i].destination, dst) == 0)
			return true;
	return false;
}

/* The new root (the overlay, or the rootfs clone) must be attached in
 * this mount namespace for pivot_root.  It goes on top of "/" itself:
 * that needs no path anyone could have changed, nor a directory a child
 * in a user namespace could not reach, and lookups keep starting from the
 * old root (this process's root is not moved) until pivot_root swaps the
 * two. */
static int attach_root(int rootfd, struct error **err)
{
	_cleanup_close_ int top = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (top < 0)
		return error_errno(err, "open /");
	if (syscall(SYS_move_mount, rootfd, "", top, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return error_errno(err, "attach the root");
	return 0;
}

/* Strict mode: "/" stays read-only and the scratch is a tmpfs on /tmp. */
static int mount_strict_tmp(int rootfd, uint64_t size, struct error **err)
{
	char data[64];

	snprintf(data, sizeof(data), "mode=1777,size=%llu",
		 (unsigned long long)size);
	return mount_fs(rootfd, "/tmp", "tmpfs", "tmpfs", MS_NOSUID | MS_NODEV,
			data, err);
}

int mount_prepare_root(const struct spec *spec,
		       const struct mount_sources *sources,
		       const struct sandbox *sandbox, struct error **err)
{
	const char *prop_name =
	    spec->linux_ ? spec->linux_->rootfs_propagation : NULL;
	unsigned long prop = propagation_flag(prop_name);
	_cleanup_close_ int rootfd = -1;

	if (prop_name && !prop)
		return error_set(err, EINVAL,
				 "config.json: .linux.rootfsPropagation: "
				 "unknown value \"%s\"",
				 prop_name);
	/* Nothing mounted from here on may propagate back to the host: start
	 * from slaves (shared is applied after pivot_root). */
	if (!prop || (prop & MS_SHARED))
		prop = MS_SLAVE | MS_REC;
	if (mount(NULL, "/", NULL, prop, NULL) < 0)
		return error_errno(err, "make / %s",
				   prop_name ? prop_name : "rslave");
	rootfd = fcntl(sources->root, F_DUPFD_CLOEXEC, 3);
	if (rootfd < 0)
		return error_errno(err, "rootfs");
	if (attach_root(rootfd, err) < 0) {
		close(rootfd);
		return -1;
	}
	if (sandbox->enforced && sandbox->rootfs == POLICY_ROOTFS_STRICT &&
	    !has_mount_at(spec, "/tmp") &&
	    mount_strict_tmp(rootfd, sandbox->scratch_size, err) < 0)
		return -1;
	if (sandbox->enforced && !has_mount_at(spec, "/dev") &&
	    mount_fs(rootfd, "/dev", "tmpfs", "tmpfs", MS_NOSUID | MS_NOEXEC,
		     "mode=755,size=65536k", err) < 0)
		return -1;
	return take_fd(&rootfd);
}

static bool is_cgroup_mount(const struct spec_mount *m)
{
	return m->type && (strcmp(m->type, "cgroup") == 0 ||
			   strcmp(m->type, "cgroup2") == 0);
}

/* The kernel memory of a mount made before the child joins its cgroup is
 * charged to the caller's (v1: the child is born there), not the
 * container's: at most this many, so that config.json cannot make that
 * much.  runc's spec has six before /sys/fs/cgroup. */
#define MOUNTS_BEFORE_CGROUP 16

int mount_prepare_before_cgroup(int rootfd, const struct spec *spec,
				const struct mount_sources *sources,
				size_t *next, struct error **err)
{
	size_t i;

	for (i = 0; i < spec->n_mounts && i < MOUNTS_BEFORE_CGROUP &&
		    !is_cgroup_mount(&spec->mounts[i]);
	     i++)
		if (mount_one(rootfd, i, &spec->mounts[i], sources, NULL, err) <
		    0)
			return -1;
	*next = i;
	return 0;
}

int mount_prepare_rest(int rootfd, const struct spec *spec,
		       const struct mount_sources *sources,
		       const struct cgroup *cg, size_t from, struct error **err)
{
	for (size_t i = from; i < spec->n_mounts; i++)
		if (mount_one(rootfd, i, &spec->mounts[i], sources, cg, err) <
		    0)
			return -1;
	if (sources->resolv >= 0 &&
	    stub_resolv_attach(rootfd, sources->resolv, err) < 0)
		return -1;
	return devices_setup(rootfd, spec, err);
}

int mount_pivot_root(int rootfd, bool no_pivot, struct error **err)
{
	_cleanup_close_ int oldroot = -1;
	char p[FD_PATH_MAX];

	fd_path(rootfd, p);
	if (no_pivot) {
		if (fchdir(rootfd) < 0 ||
		    mount(p, "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 ||
		    chdir("/") < 0)
			return error_errno(err, "move rootfs to /");
		return 0;
	}
	oldroot = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (oldroot < 0)
		return error_errno(err, "pivot_root: open");
	if (fchdir(rootfd) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
		return error_errno(err, "pivot_root");
	/* The old root now sits on top of the new one: detach it, first
	 * making it a slave so the unmount cannot propagate to the host. */
	if (fchdir(oldroot) < 0 ||
	    mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return error_errno(err, "pivot_root: detach the host root");
	return 0;
}

/* After pivot_root the working directory is the container's "/", so paths
 * are resolved from it with RESOLVE_IN_ROOT.
 * A masked directory gets an empty read-only tmpfs, a masked file
 * /dev/null; a path that does not exist needs no mask. */
static int mask_path(const char *path, struct error **err)
{
	_cleanup_close_ int fd = open_in_root(AT_FDCWD, path, O_PATH, NULL);
	char p[FD_PATH_MAX];
	struct stat st;

	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		return error_errno(err, "mask %s", path);
	fd_path(fd, p);
	if (S_ISDIR(st.st_mode)) {
		if (mount("tmpfs", p, "tmpfs",
			  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "size=0,mode=000") < 0)
			return error_errno(err, "mask %s", path);
	} else if (mount("/dev/null", p, NULL, MS_BIND, NULL) < 0) {
		return error_errno(err, "mask %s", path);
	}
	return 0;
}

static int readonly_path(const char *path, struct error **err)
{
	_cleanup_close_ int fd = open_in_root(AT_FDCWD, path, O_PATH, NULL);
	_cleanup_close_ int mounted = -1;
	char p[FD_PATH_MAX];

	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0)
		return error_errno(err, "read-only %s", path);
	fd_path(fd, p);
	if (mount(p, p, NULL, MS_BIND | MS_REC, NULL) < 0)
		return error_errno(err, "read-only %s", path);
	mounted = open_in_root(AT_FDCWD, path, O_PATH, err);
	if (mounted < 0)
		return -1;
	return bind_remount(mounted, MS_RDONLY, path, err);
}

int mount_finish(const struct spec *spec, struct error **err)
{
	const struct spec_linux *l = spec->linux_;
	unsigned long prop = propagation_flag(l ? l->rootfs_propagation : NULL);

	for (size_t i = 0; l && i < l->n_masked_paths; i++)
		if (mask_path(l->masked_paths[i], err) < 0)
			return -1;
	for (size_t i = 0; l && i < l->n_readonly_paths; i++)
		if (readonly_path(l->readonly_paths[i], err) < 0)
			return -1;
	if (spec->root && spec->root->readonly) {
		_cleanup_close_ int fd = open("/", O_PATH | O_CLOEXEC);

		if (fd < 0 || bind_remount(fd, MS_RDONLY, "/", err) < 0)
			return error_wrap(err, "read-only rootfs");
	}
	if (prop && mount(NULL, "/", NULL, prop, NULL) < 0)
		return error_errno(err, "set rootfs propagation");
	return 0;
}
