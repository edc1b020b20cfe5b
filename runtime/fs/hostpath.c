#include "hostpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

static int openat2_(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
			       .resolve = resolve};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* The first component of rel below dirfd that is a symbolic link, as
 * "SHOWN/prefix", for the message only (it is looked up again). */
static bool first_link(int dirfd, const char *shown, const char *rel, char *out,
		       size_t size)
{
	char prefix[PATH_MAX];
	size_t len = strlen(rel);

	if (len >= sizeof(prefix))
		return false;
	for (size_t i = 0; i <= len; i++) {
		struct stat st;

		if (rel[i] != '/' && rel[i] != '\0')
			continue;
		if (i == 0)
			continue;
		memcpy(prefix, rel, i);
		prefix[i] = '\0';
		if (fstatat(dirfd, prefix, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return false;
		if (S_ISLNK(st.st_mode)) {
			snprintf(out, size, "%s%s%s", shown,
				 strcmp(shown, "/") == 0 ? "" : "/", prefix);
			return true;
		}
	}
	return false;
}

static int open_failed(int dirfd, const char *shown, const char *rel,
		       const char *what, const char *path, struct error **err)
{
	char link[PATH_MAX + 64];

	if (errno == ELOOP && first_link(dirfd, shown, rel, link, sizeof(link)))
		return error_set(err, ELOOP,
				 "%s %s: %s is a symbolic link (not followed)",
				 what, path, link);
	if (errno == ELOOP)
		return error_set(err, ELOOP,
				 "%s %s: a symbolic link is on the way (not "
				 "followed)",
				 what, path);
	if (errno == EXDEV)
		return error_set(err, EXDEV, "%s %s: leaves %s", what, path,
				 shown);
	return error_errno(err, "%s %s", what, path);
}

int hostpath_open(const char *path, int flags, const char *what,
		  struct error **err)
{
	int fd;

	if (path[0] != '/')
		return error_set(err, EINVAL, "%s %s: not an absolute path",
				 what, path);
	fd = openat2_(AT_FDCWD, path, flags,
		      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0) {
		_cleanup_close_ int root = open("/", O_PATH | O_CLOEXEC);

		return open_failed(root, "/", path + 1, what, path, err);
	}
	return fd;
}

int hostpath_open_at(int dirfd, const char *shown, const char *rel,
		     bool follow_links, int flags, const char *what,
		     struct error **err)
{
	uint64_t resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
			   (follow_links ? 0 : RESOLVE_NO_SYMLINKS);
	_cleanup_free_ char *full = NULL;
	int fd;

	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	fd = openat2_(dirfd, rel, flags, resolve);
	if (fd >= 0)
		return fd;
	if (asprintf(&full, "%s/%s", shown, rel) < 0)
		return error_set(err, ENOMEM, "out of memory");
	return open_failed(dirfd, shown, rel, what, full, err);
}

int hostpath_open_beneath(const char *dir, const char *path, bool follow_links,
			  int flags, const char *what, struct error **err)
{
	size_t n = strlen(dir);
	_cleanup_close_ int dirfd = -1;

	if (strncmp(path, dir, n) != 0 ||
	    (path[n] != '\0' && path[n] != '/' && strcmp(dir, "/") != 0))
		return error_set(err, EINVAL, "%s %s: not below %s", what, path,
				 dir);
	dirfd = hostpath_open(dir, O_PATH | O_DIRECTORY, what, err);
	if (dirfd < 0)
		return -1;
	return hostpath_open_at(dirfd, dir, path + n, follow_links, flags, what,
				err);
}

int hostpath_check_under(int fd, const char *dir, const char *what,
			 struct error **err)
{
	char p[FD_PATH_MAX], real[PATH_MAX];
	ssize_t len;
	size_t n = strlen(dir);

	fd_path(fd, p);
	len = readlink(p, real, sizeof(real) - 1);
	if (len < 0)
		return error_errno(err, "%s: read its path", what);
	real[len] = '\0';
	if (strcmp(dir, "/") == 0 ||
	    (strncmp(real, dir, n) == 0 && (real[n] == '\0' || real[n] == '/')))
		return 0;
	return error_set(err, EPERM, "%s: opened %s, which is not below %s",
			 what, real, dir);
}
