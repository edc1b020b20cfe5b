#include "stub_resolv.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"
#include "util.h"

/* The state directory is corral's own (root's, 0700, on the host): no
 * one else names what is opened there. */
int stub_resolv_prepare(int dirfd, int rootfd, int *out, struct error **err)
{
	struct mount_attr attr = {.attr_set =
				      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
				      MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC};
	_cleanup_close_ int fd = -1, tree = -1;
	struct stat st;

	/* /etc may be a link within the rootfs: RESOLVE_IN_ROOT keeps it
	 * there */
	fd = open_in_root(rootfd, "/etc", O_PATH | O_DIRECTORY, NULL);
	if (fd < 0) {
		log_info("the rootfs has no /etc: no resolv.conf for the stub "
			 "resolver");
		return 0;
	}
	closep(&fd);
	if (write_file_atomic_at(dirfd, STUB_RESOLV_FILE, STUB_RESOLV_TEXT,
				 strlen(STUB_RESOLV_TEXT), 0644, err) < 0)
		return error_wrap(err, "stub resolv.conf");
	fd = openat(dirfd, STUB_RESOLV_FILE, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return error_errno(err, "stub resolv.conf");
	if (!S_ISREG(st.st_mode))
		return error_set(err, EINVAL,
				 "stub resolv.conf: not a regular file");
	tree =
	    (int)syscall(SYS_open_tree, fd, "",
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return error_errno(err, "stub resolv.conf: clone");
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr)) < 0)
		return error_errno(err, "stub resolv.conf: make it read-only");
	*out = take_fd(&tree);
	return 0;
}

/* The mount point: the entry itself (a file, a link, whatever mount is
 * on it), or a new empty file when there is none. */
static int open_target(int etc, struct error **err)
{
	int fd = openat(etc, "resolv.conf", O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd
			       : error_errno(err, "/etc/resolv.conf of the "
						  "rootfs");
	fd = openat(etc, "resolv.conf",
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EROFS)
		return -2;
	if (fd < 0)
		return error_errno(err,
				   "create /etc/resolv.conf in the rootfs");
	close(fd);
	fd = openat(etc, "resolv.conf", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "/etc/resolv.conf of the rootfs");
	return fd;
}

int stub_resolv_attach(int rootfd, int clone, struct error **err)
{
	_cleanup_close_ int etc = -1, target = -1;
	struct stat st;

	etc = open_in_root(rootfd, "/etc", O_PATH | O_DIRECTORY, NULL);
	if (etc < 0)
		return 0;
	target = open_target(etc, err);
	if (target == -2)
		return 0;
	if (target < 0)
		return -1;
	if (fstat(target, &st) < 0)
		return error_errno(err, "/etc/resolv.conf of the rootfs");
	if (S_ISDIR(st.st_mode))
		return error_set(err, EISDIR,
				 "/etc/resolv.conf of the rootfs is a "
				 "directory");
	if (syscall(SYS_move_mount, clone, "", target, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return error_errno(err, "mount the stub's resolv.conf on "
					"/etc/resolv.conf");
	return 0;
}
