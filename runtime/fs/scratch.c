#include "scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

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

int scratch_mount_root(const int *lowers, size_t n_lowers, bool userxattr,
		       uint64_t size, int *tmpfs_out, struct error **err)
{
	_cleanup_close_ int tmp = -1, fs = -1, ovl = -1;
	char upper[FD_PATH_MAX + 8], work[FD_PATH_MAX + 8], p[FD_PATH_MAX];
	struct stat st;

	/* The layers are named by fd: the container's mountinfo then shows
	 * /proc/self/fd/N rather than host paths, and a rootfs path holding
	 * overlayfs's separators (":" or ",") needs no escaping.  The root
	 * directory takes the top layer's owner and mode. */
	if (fstat(lowers[0], &st) < 0)
		return error_errno(err, "rootfs");
	tmp = scratch_tmpfs(&st, size, err);
	if (tmp < 0)
		return -1;
	fd_path(tmp, p);
	snprintf(upper, sizeof(upper), "%s/upper", p);
	snprintf(work, sizeof(work), "%s/work", p);
	fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
	if (fs < 0)
		return error_errno(err, "scratch overlay");
	if (set_lowers(fs, lowers, n_lowers, err) < 0)
		return -1;
	if (fsconfig_str(fs, "upperdir", upper) < 0 ||
	    fsconfig_str(fs, "workdir", work) < 0 ||
	    (userxattr && syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG,
				  "userxattr", NULL, 0) < 0))
		return error_errno(err, "scratch overlay: configure");
	/* nodev: a device node shipped in the image (a 0666 block device,
	 * say) stays inert; the container's own nodes live in its /dev tmpfs.
	 */
	ovl = make_mount(fs, MOUNT_ATTR_NODEV, "scratch overlay", err);
	if (ovl < 0)
		return -1;
	*tmpfs_out = take_fd(&tmp);
	return take_fd(&ovl);
}

/* The overlay took its own private clone of the upper layer's mount when
 * it was made, so the restrictions set here bind only the host's view:
 * read-only, and nothing in it is executed, a device, set-id or a link
 * followed.  The target is a directory made here, in the container's own
 * state directory (root's, 0700), so nothing else can be under it. */
int scratch_attach(int tmpfs_fd, int dirfd, struct error **err)
{
	struct mount_attr attr = {
	    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC |
			MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			MOUNT_ATTR_NOSYMFOLLOW,
	};

	if (tmpfs_fd < 0)
		return 0;
	if (syscall(SYS_mount_setattr, tmpfs_fd, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr)) < 0)
		return error_errno(err, "scratch: restrict the host's view");
	if (mkdirat(dirfd, SCRATCH_DIR, 0700) < 0)
		return error_errno(err, "scratch: make %s", SCRATCH_DIR);
	if (syscall(SYS_move_mount, tmpfs_fd, "", dirfd, SCRATCH_DIR,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return error_errno(err, "scratch: attach it in the state dir");
	return 0;
}
