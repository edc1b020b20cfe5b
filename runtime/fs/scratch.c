#include "scratch.h"

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

#include "fsutil.h"
#include "kernel_probe.h"
#include "util.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

static int fsconfig_str(int fs, const char *key, const char *value)
{
	return (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, key, value,
			    0);
}

/* Create the configured filesystem context `fs` and return a detached
 * mount of it. */
static int make_mount(int fs, unsigned int attrs, const char *what,
		      struct error **err)
{
	int mnt;

	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return error_errno(err, "create %s", what);
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, attrs);
	if (mnt < 0)
		return error_errno(err, "mount %s", what);
	return mnt;
}

/* A tmpfs of `size` bytes holding "upper" (owned and moded like the
 * rootfs, as it becomes the root directory) and "work". */
static int scratch_tmpfs(const struct stat *root, uint64_t size,
			 struct error **err)
{
	_cleanup_close_ int fs = -1, mnt = -1;
	char bytes[32];

	fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return error_errno(err, "scratch tmpfs");
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)size);
	if (fsconfig_str(fs, "size", bytes) < 0 ||
	    fsconfig_str(fs, "mode", "0700") < 0)
		return error_errno(err, "scratch tmpfs: size %s", bytes);
	mnt = make_mount(fs, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
			 "scratch tmpfs", err);
	if (mnt < 0)
		return -1;
	if (mkdirat(mnt, "upper", root->st_mode & 07777) < 0 ||
	    fchmodat(mnt, "upper", root->st_mode & 07777, 0) < 0 ||
	    fchownat(mnt, "upper", root->st_uid, root->st_gid,
		     AT_SYMLINK_NOFOLLOW) < 0 ||
	    mkdirat(mnt, "work", 0700) < 0)
		return error_errno(err, "scratch tmpfs: make upper and work");
	return take_fd(&mnt);
}

/* The lower layers by descriptor, the top first, as one "lowerdir" of
 * absolute /proc/self/fd/N names when they fit in the 255 bytes fsconfig
 * takes of a value: a kernel whose overlayfs predates the new mount API
 * (6.5) resolves them only at FSCONFIG_CMD_CREATE, in this same process,
 * where a relative name would be resolved against whatever the cwd is
 * then.  More layers need one "lowerdir+" each (Linux 6.8); an older
 * kernel refuses it here or at the create. */
static int set_lowers(int fs, const int *lowers, size_t n, struct error **err)
{
	char joined[256], name[FD_PATH_MAX];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		int k = snprintf(joined + len, sizeof(joined) - len,
				 "%s/proc/self/fd/%d", i ? ":" : "", lowers[i]);

		if (k < 0 || (size_t)k >= sizeof(joined) - len) {
			len = 0;
			break;
		}
		len += (size_t)k;
	}
	if (len > 0)
		return fsconfig_str(fs, "lowerdir", joined) < 0
			   ? error_errno(err, "scratch overlay: lowerdir")
			   : 0;
	for (size_t i = 0; i < n; i++) {
		fd_path(lowers[i], name);
		if (fsconfig_str(fs, "lowerdir+", name) < 0)
			return error_errno(err,
					   "scratch overlay: %zu layers need "
					   "Linux 6.8 (lowerdir+)",
					   n);
	}
	return 0;
}

/* overlayfs takes a private clone of each layer's mount.  Before Linux
 * 6.15 it clones only a mount attached in the caller's mount namespace:
 * a detached one (fsmount's, open_tree's clone) is refused with EINVAL
 * ("overlayfs: failed to clone upperpath"; seen on Debian's 5.10, 6.1 and
 * 6.12, tests/vm).  There the layers are attached in the container's
 * state directory while the overlay is made.  That costs a directory, a
 * mount and an unmount, about 0.5 ms of a `run`, so a kernel that takes
 * detached layers is spared it (tests/vm/README.md); the same predicate
 * tells `corral features` and `explain` (host_kernel.h). */
static bool overlay_takes_detached(void)
{
	return host_kernel_overlay_takes_detached(kernel_probe());
}

/* Attach the detached mount `mnt` at dirfd/name, a directory made here. */
static int attach_at(int mnt, int dirfd, const char *name, struct error **err)
{
	if (mkdirat(dirfd, name, 0700) < 0)
		return error_errno(err, "scratch: make %s", name);
	if (syscall(SYS_move_mount, mnt, "", dirfd, name,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		error_errno(err, "scratch: attach %s in the state dir", name);
		unlinkat(dirfd, name, AT_REMOVEDIR);
		return -1;
	}
	return 0;
}

/* Detach what attach_at attached, by the state directory's descriptor and
 * never through a link at its end, and remove its directory. */
static int detach_at(int dirfd, const char *name, struct error **err)
{
	char base[FD_PATH_MAX], path[FD_PATH_MAX + 32];

	fd_path(dirfd, base);
	snprintf(path, sizeof(path), "%s/%s", base, name);
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
		return error_errno(err, "scratch: detach %s", name);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		return error_errno(err, "scratch: remove %s", name);
	return 0;
}

/* The host's view of the scratch, once the overlay holds its own private
 * clone of it: read-only, and nothing in it is executed, a device,
 * set-id or a link followed.  mount_setattr (Linux 5.12) on the mount's
 * descriptor; before it, a bind remount of the same mount through the
 * descriptor's /proc name, which sets the same flags (MS_NOSYMFOLLOW:
 * Linux 5.10). */
static int restrict_view(int mnt, struct error **err)
{
	struct mount_attr attr = {
	    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC |
			MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			MOUNT_ATTR_NOSYMFOLLOW,
	};
	char p[FD_PATH_MAX];

	if (syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		return error_errno(err, "scratch: restrict the host's view");
	fd_path(mnt, p);
	if (mount(NULL, p, NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOEXEC | MS_NOSUID |
		      MS_NODEV | MS_NOSYMFOLLOW,
		  NULL) < 0)
		return error_errno(err, "scratch: restrict the host's view");
	return 0;
}

/* The overlay itself, its layers named by descriptor: the container's
 * mountinfo then shows /proc/self/fd/N rather than host paths, and a
 * rootfs path holding overlayfs's separators (":" or ",") needs no
 * escaping. */
static int make_overlay(const struct scratch_layers *l, int tmp,
			struct error **err)
{
	_cleanup_close_ int fs = -1;
	char upper[FD_PATH_MAX + 8], work[FD_PATH_MAX + 8], p[FD_PATH_MAX];

	fd_path(tmp, p);
	snprintf(upper, sizeof(upper), "%s/upper", p);
	snprintf(work, sizeof(work), "%s/work", p);
	fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
	if (fs < 0)
		return error_errno(err, "scratch overlay");
	if (set_lowers(fs, l->fd, l->n, err) < 0)
		return -1;
	if (fsconfig_str(fs, "upperdir", upper) < 0 ||
	    fsconfig_str(fs, "workdir", work) < 0 ||
	    (l->userxattr && syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG,
				     "userxattr", NULL, 0) < 0))
		return error_errno(err, "scratch overlay: configure");
	/* nodev: a device node shipped in the image (a 0666 block device,
	 * say) stays inert; the container's own nodes live in its /dev tmpfs.
	 */
	return make_mount(fs, MOUNT_ATTR_NODEV, "scratch overlay", err);
}

/* Each detached lower layer attached as dirfd/.lowerN while the overlay
 * is made; returns how many were, or -1. */
static int attach_lowers(const struct scratch_layers *l, int dirfd,
			 size_t *attached, struct error **err)
{
	char name[32];

	for (*attached = 0; *attached < l->n; (*attached)++) {
		snprintf(name, sizeof(name), ".lower%zu", *attached);
		if (attach_at(l->fd[*attached], dirfd, name, err) < 0)
			return -1;
	}
	return 0;
}

static int detach_lowers(int dirfd, size_t n, struct error **err)
{
	char name[32];
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), ".lower%zu", i);
		if (detach_at(dirfd, name, r < 0 ? NULL : err) < 0)
			r = -1;
	}
	return r;
}

/* The overlay, its detached lower layers attached for the moment when
 * the kernel needs it (overlay_takes_detached). */
static int overlay_on(const struct scratch_layers *l, int tmp, int dirfd,
		      bool attach, struct error **err)
{
	_cleanup_close_ int ovl = -1;
	size_t n_attached = 0;

	if (!attach || !l->detached ||
	    attach_lowers(l, dirfd, &n_attached, err) == 0)
		ovl = make_overlay(l, tmp, err);
	if (detach_lowers(dirfd, n_attached, ovl < 0 ? NULL : err) < 0)
		return -1;
	return take_fd(&ovl);
}

int scratch_mount_root(const struct scratch_layers *l, uint64_t size, int dirfd,
		       bool keep, struct error **err)
{
	_cleanup_close_ int tmp = -1, ovl = -1;
	bool attach = !overlay_takes_detached();
	struct stat st;

	/* The root directory takes the top layer's owner and mode. */
	if (fstat(l->fd[0], &st) < 0)
		return error_errno(err, "rootfs");
	tmp = scratch_tmpfs(&st, size, err);
	if (tmp < 0)
		return -1;
	/* Kept for a report, it is attached where the report reads it;
	 * restricted only once the overlay has its clone, which must stay
	 * writable. */
	if ((keep || attach) && attach_at(tmp, dirfd, SCRATCH_DIR, err) < 0)
		return -1;
	ovl = overlay_on(l, tmp, dirfd, attach, err);
	if (ovl < 0 || (keep && restrict_view(tmp, err) < 0) ||
	    (!keep && attach && detach_at(dirfd, SCRATCH_DIR, err) < 0)) {
		if (keep || attach)
			detach_at(dirfd, SCRATCH_DIR, NULL);
		return -1;
	}
	return take_fd(&ovl);
}
