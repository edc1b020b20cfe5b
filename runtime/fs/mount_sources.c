#include "mount_sources.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bind_late.h"
#include "fsutil.h"
#include "engine_root.h"
#include "mount_options.h"
#include "overlay_layers.h"
#include "scratch.h"
#include "userns_pool.h"
#include "util.h"

/* ---- the root filesystem --------------------------------------------- */

/* The overlay's lower layers, once it is made (or never will be). */
static void close_lowers(struct mount_sources *s)
{
	for (size_t i = 0; i < s->n_lowers; i++)
		if (s->lowers[i] >= 0)
			close(s->lowers[i]);
	free(s->lowers);
	s->lowers = NULL;
	s->n_lowers = 0;
}

/* Where harden() placed the root (in the bundle, below a directory the
 * policy mounts, the caller's own, or below an engine directory when the
 * engine's records give it to container `id`: engine_root.h), with no
 * link on the way; under a permissive policy wherever root.path leads,
 * as runc does. */
static int open_root(const struct hardened *h, const char *bundle,
		     int bundle_fd, const char *id, struct error **err)
{
	const char *path = h->spec->root->path;
	_cleanup_close_ int dir = -1;
	int fd;

	if (!h->sandbox.enforced) {
		fd = openat(bundle_fd, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return error_errno(err, "rootfs %s", path);
		return fd;
	}
	if (!h->root_beneath)
		return hostpath_open_at(bundle_fd, bundle, h->root_path, false,
					O_PATH | O_DIRECTORY, "rootfs", err);
	dir =
	    hostpath_open(h->root_beneath, O_PATH | O_DIRECTORY, "rootfs", err);
	if (dir < 0 ||
	    (h->root_engine && engine_root_check(dir, h->root_beneath,
						 h->root_path, id, err) < 0))
		return -1;
	return hostpath_open_at(dir, h->root_beneath, h->root_path, false,
				O_PATH | O_DIRECTORY, "rootfs", err);
}

/* A detached clone of the mounts at and below fd. */
static int clone_tree(int fd, bool recursive, const char *what,
		      struct error **err)
{
	int tree =
	    (int)syscall(SYS_open_tree, fd, "",
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
			     (recursive ? AT_RECURSIVE : 0));

	if (tree < 0)
		return error_errno(err, "%s: clone", what);
	return tree;
}

/* A detached clone made read-only and idmapped onto corral's own user
 * namespace (ns: a namespace of its slice, userns_slice_open): the layer
 * shows its files as the container's, host uid 0 as the namespace's root
 * (the slice's first id), so the image's root owns its files inside,
 * while on the host nothing changes owner. */
static int idmap_layer(int tree, int ns, bool recursive, struct error **err)
{
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
	struct mount_attr idmap = {.attr_set = MOUNT_ATTR_IDMAP,
				   .userns_fd = (uint64_t)ns};
	unsigned int at = AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0);

	if (syscall(SYS_mount_setattr, tree, "", at, &ro, sizeof(ro)) < 0)
		return errno == ENOSYS
			   ? error_set(err, ENOSYS,
				       "rootfs: the user-namespace pool needs "
				       "idmapped mounts: mount_setattr, "
				       "Linux 5.12")
			   : error_errno(err, "rootfs: make it read-only");
	if (syscall(SYS_mount_setattr, tree, "", at, &idmap, sizeof(idmap)) < 0)
		return error_errno(err, "rootfs: idmap it onto the container's "
					"user namespace");
	return 0;
}

/* An engine's overlay root under corral's own user namespace: its
 * layers, each cloned, read-only and idmapped, to be stacked again under
 * the scratch (overlay_layers.h). */
static int idmapped_layers(const struct hardened *h, int root, int ns,
			   struct mount_sources *s, struct error **err)
{
	struct overlay_layers l;
	int r = 0;

	if (overlay_layers_open(root, h->layer_dirs, h->n_layer_dirs, &l, err) <
	    0)
		return error_wrap(err, "rootfs");
	s->lowers = malloc(l.n * sizeof(*s->lowers));
	if (!s->lowers)
		r = error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; r == 0 && i < l.n; i++) {
		s->lowers[s->n_lowers] =
		    clone_tree(l.fd[i], false, "rootfs layer", err);
		if (s->lowers[s->n_lowers] < 0)
			r = -1;
		else if (idmap_layer(s->lowers[s->n_lowers++], ns, false, err) <
			 0)
			r = -1;
	}
	s->lowers_detached = true;
	s->userxattr = l.userxattr;
	overlay_layers_close(&l);
	return r;
}

/* The container's root: under the sandbox the scratch overlay over the
 * rootfs (its layers opened here, the overlay made by
 * mount_sources_make_root), otherwise a clone of the rootfs.  Made in
 * the parent because a child in a user namespace may attach a mount but
 * could not build an overlay on a layer its namespace does not own.
 *
 * The overlay's lower layer is the opened descriptor itself: overlayfs
 * takes a private clone of each lower layer's mount and makes that clone
 * read-only (and noatime), so nothing that reaches the lower layer can
 * write the image, and no process can see the clone.  A clone of ours
 * would only add work: made, made read-only, and at its close unmounted,
 * which waits for an RCU grace period.  Only an idmap needs one (the
 * kernel cannot idmap the overlay's own clone). */
static int clone_root(const struct hardened *h, const char *bundle,
		      int bundle_fd, const char *id, struct mount_sources *s,
		      struct error **err)
{
	_cleanup_close_ int fd = open_root(h, bundle, bundle_fd, id, err);
	_cleanup_close_ int tree = -1, ns = -1;

	if (fd < 0)
		return -1;
	s->rootfs = fd_real_path(fd);
	if (!s->rootfs)
		return error_errno(err, "rootfs %s", h->spec->root->path);
	if (!h->sandbox.enforced) {
		s->root = clone_tree(fd, true, "rootfs", err);
		return s->root < 0 ? -1 : 0;
	}
	if (h->sandbox.userns_auto) {
		ns = userns_slice_open(h->sandbox.userns_uid,
				       h->sandbox.userns_gid, err);
		if (ns < 0)
			return -1;
		if (overlay_is_root(fd))
			return idmapped_layers(h, fd, ns, s, err);
		tree = clone_tree(fd, true, "rootfs", err);
		if (tree < 0 || idmap_layer(tree, ns, true, err) < 0)
			return -1;
	}
	s->lowers = malloc(sizeof(*s->lowers));
	if (!s->lowers)
		return error_set(err, ENOMEM, "out of memory");
	s->lowers_detached = tree >= 0;
	s->lowers[s->n_lowers++] = tree >= 0 ? take_fd(&tree) : take_fd(&fd);
	return 0;
}

int mount_sources_make_root(const struct hardened *h, struct mount_sources *s,
			    int dirfd, bool keep_scratch, struct error **err)
{
	struct scratch_layers l = {.fd = s->lowers,
				   .n = s->n_lowers,
				   .detached = s->lowers_detached,
				   .userxattr = s->userxattr};

	if (s->n_lowers == 0)
		return 0; /* not under the sandbox: clone_root's clone */
	s->root = scratch_mount_root(&l, h->sandbox.scratch_size, dirfd,
				     keep_scratch, err);
	close_lowers(s);
	return s->root < 0 ? -1 : 0;
}

/* ---- bind sources ---------------------------------------------------- */

static int preopened_fd(const struct spec_mount *m,
			const struct preopened_source *pre, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(pre[i].source, m->source) == 0)
			return fcntl(pre[i].fd, F_DUPFD_CLOEXEC, 3);
	return -1;
}

/* The source of a bind, opened once and checked on what was opened:
 * below the entry that allowed it, without a link on the way (unless
 * the entry follows links, and then only below itself), a regular file
 * when it is an engine's file and a directory when it is a kubelet
 * volume.  Under a permissive policy it is
 * config.json's path as written, links and all (relative to the
 * bundle). */
static int open_bind_source(const struct spec_mount *m,
			    const struct harden_bind *b, int bundle_fd,
			    const struct preopened_source *pre, size_t n_pre,
			    struct error **err)
{
	_cleanup_close_ int fd = preopened_fd(m, pre, n_pre);
	struct stat st;

	if (b->kind == BIND_AS_WRITTEN) {
		if (fd < 0)
			fd = openat(bundle_fd, m->source, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return error_errno(err, "bind mount source %s",
					   m->source);
		return take_fd(&fd);
	}
	if (!b->entry)
		return error_set(err, EPERM,
				 "bind mount source %s: not in the bundle or "
				 "an engine directory",
				 m->source);
	if (fd < 0)
		fd = hostpath_open_beneath(b->entry, m->source, b->follow_links,
					   O_PATH, "bind mount source", err);
	if (fd < 0 || hostpath_check_under(fd, b->entry, m->source, err) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return error_errno(err, "bind mount source %s", m->source);
	if (b->kind == BIND_ENGINE_FILE && !S_ISREG(st.st_mode))
		return error_set(err, EPERM,
				 "bind mount source %s: the engine's file for "
				 "%s must be a regular file",
				 m->source, m->destination);
	if (b->kind == BIND_VOLUME && !S_ISDIR(st.st_mode))
		return error_set(err, EPERM,
				 "bind mount source %s: a kubelet volume must "
				 "be a directory",
				 m->source);
	return take_fd(&fd);
}

/* MS_* flags as mount_setattr(2) attributes.  Under the sandbox they are
 * only ever set, so a bind keeps every restriction its host mount has. */
static void bind_attrs(const struct spec_mount_flags *f, bool enforced,
		       struct mount_attr *attr)
{
	static const struct {
		unsigned long ms;
		uint64_t attr;
	} map[] = {
	    {MS_RDONLY, MOUNT_ATTR_RDONLY},
	    {MS_NOSUID, MOUNT_ATTR_NOSUID},
	    {MS_NODEV, MOUNT_ATTR_NODEV},
	    {MS_NOEXEC, MOUNT_ATTR_NOEXEC},
	    {MS_NODIRATIME, MOUNT_ATTR_NODIRATIME},
	};

	*attr = (struct mount_attr){.attr_set = f->attr_set,
				    .attr_clr = enforced ? 0 : f->attr_clr};
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (f->flags & map[i].ms)
			attr->attr_set |= map[i].attr;
	attr->attr_clr &= ~attr->attr_set;
	/* one atime mode: clear the field, set the mode */
	if (f->flags & (MS_NOATIME | MS_STRICTATIME | MS_RELATIME)) {
		attr->attr_clr |= MOUNT_ATTR__ATIME;
		attr->attr_set &= ~(uint64_t)MOUNT_ATTR__ATIME;
		attr->attr_set |= (f->flags & MS_NOATIME) ? MOUNT_ATTR_NOATIME
				  : (f->flags & MS_STRICTATIME)
				      ? MOUNT_ATTR_STRICTATIME
				      : MOUNT_ATTR_RELATIME;
	}
}

/* Restrict a detached clone as config.json's options (as hardened) say,
 * before it is attached anywhere.  A kernel without mount_setattr (before
 * 5.12) cannot: the child does, once it is attached (bind_late.h). */
static int restrict_clone(int tree, const struct spec_mount_flags *f,
			  bool enforced, const char *dst,
			  struct bind_late *late, struct error **err)
{
	unsigned int at =
	    AT_EMPTY_PATH | ((f->flags & MS_REC) ? AT_RECURSIVE : 0);
	struct mount_attr attr;

	bind_attrs(f, enforced, &attr);
	if ((attr.attr_set || attr.attr_clr) &&
	    syscall(SYS_mount_setattr, tree, "", at, &attr, sizeof(attr)) < 0) {
		if (errno != ENOSYS)
			return error_errno(err, "bind mount %s: set its flags",
					   dst);
		bind_late_from_attr(&attr, f->flags & MS_REC, f->propagation,
				    late);
		return 0;
	}
	if (f->propagation) {
		struct mount_attr prop = {.propagation =
					      f->propagation & ~MS_REC};

		at = AT_EMPTY_PATH |
		     ((f->propagation & MS_REC) ? AT_RECURSIVE : 0);
		if (syscall(SYS_mount_setattr, tree, "", at, &prop,
			    sizeof(prop)) == 0)
			return 0;
		if (errno != ENOSYS)
			return error_errno(
			    err, "bind mount %s: set its propagation", dst);
		bind_late_from_attr(&attr, f->flags & MS_REC, f->propagation,
				    late);
	}
	return 0;
}

static int clone_bind(const struct hardened *h, const struct harden_bind *b,
		      int bundle_fd, const struct preopened_source *pre,
		      size_t n_pre, struct mount_sources *s, struct error **err)
{
	const struct spec_mount *m = &h->spec->mounts[b->mount];
	_cleanup_close_ int src = -1, tree = -1;
	struct spec_mount_flags f;
	struct stat st;
	int r = -1;

	if (!m->source)
		return error_set(err, EINVAL, "bind mount %s: no source",
				 m->destination);
	if (spec_mount_options_parse(m->options, m->n_options, &f, err) < 0)
		return error_wrap(err, "mount %s", m->destination);
	src = open_bind_source(m, b, bundle_fd, pre, n_pre, err);
	if (src < 0)
		goto out;
	if (fstat(src, &st) < 0) {
		error_errno(err, "bind mount source %s", m->source);
		goto out;
	}
	tree = clone_tree(src, f.flags & MS_REC, m->source, err);
	if (tree < 0 ||
	    restrict_clone(tree, &f, h->sandbox.enforced, m->destination,
			   &s->late[b->mount], err) < 0)
		goto out;
	s->is_dir[b->mount] = S_ISDIR(st.st_mode);
	s->binds[b->mount] = take_fd(&tree);
	r = 0;
out:
	free(f.data);
	return r;
}

/* ---- the whole set --------------------------------------------------- */

int mount_sources_open(const struct hardened *h, const char *id,
		       const char *bundle, int bundle_fd,
		       const struct preopened_source *preopened,
		       size_t n_preopened, struct mount_sources *out,
		       struct error **err)
{
	size_t n = h->spec->n_mounts;

	*out = (struct mount_sources){.root = -1,
				      .resolv = -1,
				      .n = n,
				      .reclone_binds = !h->sandbox.enforced};
	out->binds = malloc((n ? n : 1) * sizeof(*out->binds));
	out->is_dir = calloc(n ? n : 1, sizeof(*out->is_dir));
	out->late = calloc(n ? n : 1, sizeof(*out->late));
	if (!out->binds || !out->is_dir || !out->late) {
		mount_sources_release(out);
		return error_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		out->binds[i] = -1;
	if (clone_root(h, bundle, bundle_fd, id, out, err) < 0)
		goto fail;
	for (size_t i = 0; i < h->n_binds; i++)
		if (h->binds[i].mount < n &&
		    clone_bind(h, &h->binds[i], bundle_fd, preopened,
			       n_preopened, out, err) < 0)
			goto fail;
	return 0;
fail:
	mount_sources_release(out);
	return -1;
}

void mount_sources_close(const struct mount_sources *s)
{
	if (s->root >= 0)
		close(s->root);
	if (s->resolv >= 0)
		close(s->resolv);
	for (size_t i = 0; i < s->n; i++)
		if (s->binds[i] >= 0)
			close(s->binds[i]);
}

void mount_sources_release(struct mount_sources *s)
{
	if (s->root >= 0)
		close(s->root);
	if (s->resolv >= 0)
		close(s->resolv);
	close_lowers(s);
	for (size_t i = 0; s->binds && i < s->n; i++)
		if (s->binds[i] >= 0)
			close(s->binds[i]);
	free(s->binds);
	free(s->is_dir);
	free(s->late);
	free(s->rootfs);
	*s = (struct mount_sources){.root = -1, .resolv = -1};
}
