#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "units.h"
#include "util.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

#define READ_MAX (64u << 20)

int read_file_at(int dirfd, const char *path, char **out, size_t *len,
		 struct error **err)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_errno(err, "open %s", path);
	return read_fd(fd, path, out, len, err);
}

int read_fd(int fd, const char *path, char **out, size_t *len,
	    struct error **err)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (size + 4096 + 1 > cap) {
			char *nb;

			cap = cap ? cap * 2 : 16384;
			if (cap > READ_MAX + 1)
				return error_set(err, EFBIG,
						 "read %s: too large", path);
			nb = realloc(buf, cap);
			if (!nb)
				return error_set(err, ENOMEM,
						 "read %s: out of memory",
						 path);
			buf = nb;
		}
		n = read(fd, buf + size, cap - size - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_errno(err, "read %s", path);
		if (n == 0)
			break;
		size += (size_t)n;
	}
	buf[size] = '\0';
	*out = steal_pointer(&buf);
	if (len)
		*len = size;
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_file_atomic_at(int dirfd, const char *name, const char *data,
			 size_t len, mode_t mode, struct error **err)
{
	char tmp[4096];
	int fd;

	if (snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, getpid()) >=
	    (int)sizeof(tmp))
		return error_set(err, ENAMETOOLONG, "write %s: name too long",
				 name);
	/* A new file, never one that is there already: in a directory
	 * another user may write (a pid file's), that could be a hard link
	 * to a file of theirs choosing, which O_TRUNC would empty.  A name
	 * left by a write of an earlier process of this pid is removed. */
	fd = openat(dirfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0 && errno == EEXIST && unlinkat(dirfd, tmp, 0) == 0)
		fd = openat(
		    dirfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return error_errno(err, "write %s", name);
	if (write_all(fd, data, len) < 0) {
		error_errno(err, "write %s", name);
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	close(fd);
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		error_errno(err, "rename %s", name);
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	return 0;
}

/* Fields 3 (state), 4 (ppid) and 22 (start time) of /proc/PID/stat;
 * each pointer may be NULL. */
static int stat_fields(pid_t pid, uint64_t *start_time, char *state,
		       pid_t *ppid)
{
	char path[64], buf[1024];
	_cleanup_close_ int fd = -1;
	char *p, *save = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields start after the last ')'
	 */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	for (int field = 3; (p = strtok_r(p, " ", &save)); p = NULL, field++) {
		if (field == 3 && state)
			*state = p[0];
		if (field == 4 && ppid)
			*ppid = (pid_t)strtol(p, NULL, 10);
		if (field == 22) {
			if (start_time)
				*start_time = strtoull(p, NULL, 10);
			return 0;
		}
	}
	return -1;
}

int proc_stat(pid_t pid, uint64_t *start_time, char *state)
{
	return stat_fields(pid, start_time, state, NULL);
}

int proc_parent(pid_t pid, pid_t *ppid, uint64_t *start_time)
{
	return stat_fields(pid, start_time, NULL, ppid);
}

int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int pidfd_send_signal_(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

union fd_cmsg {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

int send_with_fd(int sock, const void *buf, size_t len, int fd)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	union fd_cmsg u;
	struct msghdr msg = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

ssize_t recv_with_fd(int sock, void *buf, size_t len, int *fd)
{
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	union fd_cmsg u;
	struct msghdr msg = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n;
}

bool colon_file_lookup(const char *file, int key, const char *value, int want,
		       char *buf, size_t len)
{
	_cleanup_fclose_ FILE *f = fopen(file, "re");

	return colon_stream_lookup(f, key, value, want, buf, len);
}

bool colon_stream_lookup(FILE *f, int key, const char *value, int want,
			 char *buf, size_t len)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return false;
	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		char *rest = line, *field[8] = {0};

		line[strcspn(line, "\n")] = '\0';
		for (int i = 0; i < 8 && rest; i++)
			field[i] = strsep(&rest, ":");
		if (key < 0 || key >= 8 || want < 0 || want >= 8 ||
		    !field[key] || !field[want] ||
		    strcmp(field[key], value) != 0)
			continue;
		if (strlen(field[want]) >= len)
			return false;
		strcpy(buf, field[want]);
		return true;
	}
	return false;
}

void now_rfc3339(char *buf, size_t len)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	units_utc_time(ts.tv_sec, ts.tv_nsec, buf, len);
}

/* With `missing` given, ENOENT sets it and returns -1 with no error. */
static int open_rooted(int rootfd, const char *path, int flags,
		       uint64_t resolve, bool *missing, struct error **err)
{
	struct open_how how = {
	    .flags = (uint64_t)(flags | O_CLOEXEC),
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | resolve,
	};
	int fd;

	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOENT && missing) {
		*missing = true;
		return -1;
	}
	if (fd < 0 && errno == ELOOP && (resolve & RESOLVE_NO_SYMLINKS))
		return error_set(err, ELOOP,
				 "/%s in the rootfs: a symbolic link is on the "
				 "way",
				 path);
	if (fd < 0)
		return error_errno(err, "open %s in rootfs", path);
	return fd;
}

int open_in_root(int rootfd, const char *path, int flags, struct error **err)
{
	return open_rooted(rootfd, path, flags, 0, NULL, err);
}

int open_in_root_nolinks(int rootfd, const char *path, int flags,
			 struct error **err)
{
	return open_rooted(rootfd, path, flags, RESOLVE_NO_SYMLINKS, NULL, err);
}

void fd_path(int fd, char buf[FD_PATH_MAX])
{
	snprintf(buf, FD_PATH_MAX, "/proc/self/fd/%d", fd);
}

#define DELETED " (deleted)"

char *fd_real_path(int fd)
{
	char p[FD_PATH_MAX], real[PATH_MAX];
	ssize_t len;

	fd_path(fd, p);
	len = readlink(p, real, sizeof(real));
	if (len < 0)
		return NULL;
	if ((size_t)len == sizeof(real)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	/* not a file's path ("pipe:[N]"), or one removed since it was opened,
	 * which realpath(3) would not resolve either */
	if (real[0] != '/' || (len >= (ssize_t)sizeof(DELETED) - 1 &&
			       memcmp(real + len - (sizeof(DELETED) - 1),
				      DELETED, sizeof(DELETED) - 1) == 0)) {
		errno = ENOENT;
		return NULL;
	}
	return strndup(real, (size_t)len);
}

static int create_entry(int rootfd, const char *parent_path, const char *name,
			bool file, struct error **err)
{
	_cleanup_close_ int parent = -1;

	parent = open_in_root(rootfd, parent_path, O_PATH | O_DIRECTORY, err);
	if (parent < 0)
		return -1;
	if (file) {
		int f = openat(
		    parent, name,
		    O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);

		if (f < 0 && errno != EEXIST)
			return error_errno(err, "create %s/%s", parent_path,
					   name);
		if (f >= 0)
			close(f);
		return 0;
	}
	if (mkdirat(parent, name, 0755) < 0 && errno != EEXIST)
		return error_errno(err, "mkdir %s/%s", parent_path, name);
	return 0;
}

/* Create PATH one component at a time.  Each prefix is resolved from the
 * container root with RESOLVE_IN_ROOT, so symlinks in the image resolve as
 * they would inside the container and never lead outside the rootfs, and
 * each missing entry is made relative to its resolved parent's fd. */
int mkdir_in_root(int rootfd, const char *path, bool file, struct error **err)
{
	size_t len = strlen(path), start = 0;

	for (size_t end = 0; end <= len; end++) {
		_cleanup_free_ char *prefix = NULL, *parent = NULL,
				    *name = NULL;
		_cleanup_close_ int fd = -1;
		bool last = end == len;

		if (!last && path[end] != '/')
			continue;
		name = strndup(path + start, end - start);
		prefix = strndup(path, end);
		parent = strndup(path, start);
		start = end + 1;
		if (!name || !prefix || !parent)
			return error_set(err, ENOMEM, "out of memory");
		if (!*name || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0)
			return error_set(err, EINVAL, "%s: \"..\" not allowed",
					 path);
		fd = open_in_root(rootfd, prefix, O_PATH, NULL);
		if (fd >= 0)
			continue;
		if (errno != ENOENT)
			return error_errno(err, "open %s", prefix);
		if (create_entry(rootfd, parent, name, last && file, err) < 0)
			return -1;
	}
	return 0;
}

/* The usual missing entry: its parent exists, and only the entry is made
 * (as mkdir_in_root would make it: from its resolved parent's fd).  1,
 * with nothing made and no error kept, when that is not so (the parent
 * missing too, a ".." in the path): mkdir_in_root then walks it all. */
static int make_last(int rootfd, const char *path, bool file)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	_cleanup_free_ char *parent = NULL;

	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (!p[2] || p[2] == '/'))
			return 1;
	if (!*name || strcmp(name, ".") == 0)
		return 1;
	parent = strndup(path, slash ? (size_t)(slash - path) : 0);
	if (!parent || create_entry(rootfd, parent, name, file, NULL) < 0)
		return 1;
	return 0;
}

int open_made_in_root(int rootfd, const char *path, bool file, int flags,
		      bool nolinks, struct error **err)
{
	uint64_t resolve = nolinks ? RESOLVE_NO_SYMLINKS : 0;
	bool missing = false;
	int fd = open_rooted(rootfd, path, flags, resolve, &missing, err);

	if (!missing)
		return fd;
	if (make_last(rootfd, path, file) != 0 &&
	    mkdir_in_root(rootfd, path, file, err) < 0)
		return -1;
	return open_rooted(rootfd, path, flags, resolve, NULL, err);
}

/* The fds handed to the container must be exactly 3..3+N-1: fill any gap
 * with /dev/null so no fd of corral's lands in that range. */
int reserve_fds(int keep, struct error **err)
{
	for (int fd = 3; fd < 3 + keep; fd++) {
		int null;

		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		null = open("/dev/null", O_RDWR);
		if (null < 0)
			return error_errno(err, "open /dev/null");
		if (null != fd) {
			if (dup2(null, fd) < 0)
				return error_errno(err, "reserve fd %d", fd);
			close(null);
		}
	}
	return 0;
}

int write_pid_file(const char *path, pid_t pid, struct error **err)
{
	_cleanup_free_ char *dir = strdup(path);
	_cleanup_close_ int dfd = -1;
	char buf[32], *slash;
	const char *name = path;
	int n = snprintf(buf, sizeof(buf), "%d", (int)pid);

	if (!dir)
		return error_set(err, ENOMEM, "out of memory");
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		name = slash + 1;
	}
	dfd = open(slash ? (*dir ? dir : "/") : ".",
		   O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return error_errno(err, "pid file %s", path);
	if (write_file_atomic_at(dfd, name, buf, (size_t)n, 0644, err) < 0)
		return error_wrap(err, "pid file");
	return 0;
}

/* A memfd holding `data`, sealed against every change.  MFD_EXEC says
 * that it is to be executed (6.3+ warns without it, and a
 * vm.memfd_noexec of 1 would make it noexec); older kernels refuse the
 * flag, and then it is made without. */
int sealed_memfd(const char *name, const void *data, size_t len, bool exec,
		 struct error **err)
{
	unsigned int flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	_cleanup_close_ int fd =
	    memfd_create(name, flags | (exec ? MFD_EXEC : 0));

	if (fd < 0 && exec && errno == EINVAL)
		fd = memfd_create(name, flags);
	if (fd < 0)
		return error_errno(err, "memfd %s", name);
	if (write_all(fd, data, len) < 0)
		return error_errno(err, "write %s", name);
	if (fcntl(fd, F_ADD_SEALS,
		  F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
		return error_errno(err, "seal %s", name);
	return take_fd(&fd);
}
