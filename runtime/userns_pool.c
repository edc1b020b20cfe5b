/* The pool's slices (userns_pool.h). */
#include "userns_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

#define HOLDER_MAX 8192

/* The slices of a pool: k-th at host uid `uid0 + k * POLICY_SLICE`. */
struct slices {
	uint64_t uid0, gid0;
	uint64_t n;
};

static struct slices slices_of(const struct policy_pool *p)
{
	uint64_t u =
	    ((uint64_t)p->uid + POLICY_SLICE - 1) / POLICY_SLICE * POLICY_SLICE;
	uint64_t g =
	    ((uint64_t)p->gid + POLICY_SLICE - 1) / POLICY_SLICE * POLICY_SLICE;
	uint64_t uend = (uint64_t)p->uid + p->size;
	uint64_t gend = (uint64_t)p->gid + p->size;
	uint64_t nu = uend > u ? (uend - u) / POLICY_SLICE : 0;
	uint64_t ng = gend > g ? (gend - g) / POLICY_SLICE : 0;

	return (struct slices){u, g, nu < ng ? nu : ng};
}

/* The registry directory, made once (root's, 0700) and opened without
 * following a link; anything else at its path is refused. */
static int open_registry(struct error **err)
{
	struct stat st;
	int fd;

	if (mkdir(USERNS_POOL_DIR, 0700) < 0 && errno != EEXIST)
		return error_errno(err, "%s", USERNS_POOL_DIR);
	fd = open(USERNS_POOL_DIR,
		  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "%s", USERNS_POOL_DIR);
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 0077)) {
		close(fd);
		return error_set(err, EPERM,
				 "%s: not a directory of root's alone",
				 USERNS_POOL_DIR);
	}
	return fd;
}

static void slice_name(char name[32], uint64_t uid)
{
	snprintf(name, 32, "%llu", (unsigned long long)uid);
}

/* Whether the holder file `name` was left behind: its container's
 * directory is gone and the create that took it has ended. */
static bool stale(int dir, const char *name)
{
	_cleanup_free_ char *text = NULL;
	char *id, *pidline, *end, path[PATH_MAX + 8];
	unsigned long long start = 0;
	uint64_t now = 0;
	long pid;
	size_t len;
	struct stat st;
	_cleanup_close_ int fd =
	    openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size > HOLDER_MAX ||
	    read_fd(fd, name, &text, &len, NULL) < 0 || strlen(text) != len)
		return false;
	id = strchr(text, '\n');
	pidline = id ? strchr(id + 1, '\n') : NULL;
	if (!pidline)
		return false;
	*id++ = '\0';
	*pidline++ = '\0';
	errno = 0;
	pid = strtol(pidline, &end, 10);
	if (errno || end == pidline || pid <= 0 || pid > INT_MAX ||
	    sscanf(end, " %llu", &start) != 1)
		return false;
	if (snprintf(path, sizeof(path), "%s/%s", text, id) >=
		(int)sizeof(path) ||
	    text[0] != '/' || lstat(path, &st) == 0 || errno != ENOENT)
		return false;
	/* the create that took it may still be making that directory */
	return proc_stat((pid_t)pid, &now, NULL) < 0 || now != start;
}

static int try_take(int dir, uint64_t uid, const char *holder, bool reclaim)
{
	char name[32];
	int fd;

	slice_name(name, uid);
	fd = openat(dir, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && reclaim && stale(dir, name) &&
	    unlinkat(dir, name, 0) == 0)
		fd = openat(
		    dir, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, holder, strlen(holder)) < 0) {
		close(fd);
		unlinkat(dir, name, 0);
		return -1;
	}
	close(fd);
	return 0;
}

/* The state root as written on the holder file: absolute (it need not
 * exist yet; create makes it). */
static char *absolute(const char *root)
{
	char cwd[PATH_MAX], *abs = NULL;

	if (root[0] == '/')
		return strdup(root);
	if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, root) < 0)
		return NULL;
	return abs;
}

/* Where the search starts: spread by the ID, so that containers made at
 * once do not all try the same slices first. */
static uint64_t first_slice(const char *root, const char *id, uint64_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = root; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h % n;
}

int userns_slice_take(const struct policy_pool *pool, const char *root,
		      const char *id, struct policy_slice *out,
		      struct error **err)
{
	struct slices s = slices_of(pool);
	_cleanup_close_ int dir = -1;
	_cleanup_free_ char *holder = NULL, *abs = NULL;
	uint64_t start, self_start = 0;

	if (s.n == 0)
		return error_set(err, EINVAL,
				 "user.pool: no whole slice of 65536 ids");
	abs = absolute(root);
	if (!abs)
		return error_errno(err, "state root %s", root);
	if (proc_stat(getpid(), &self_start, NULL) < 0 ||
	    asprintf(&holder, "%s\n%s\n%d %llu\n", abs, id, (int)getpid(),
		     (unsigned long long)self_start) < 0) {
		holder = NULL;
		return error_set(err, ENOMEM, "out of memory");
	}
	dir = open_registry(err);
	if (dir < 0)
		return -1;
	start = first_slice(abs, id, s.n);
	/* free slices first; only a full pool looks for left-behind ones */
	for (int reclaim = 0; reclaim < 2; reclaim++) {
		for (uint64_t i = 0; i < s.n; i++) {
			uint64_t k = (start + i) % s.n;

			if (try_take(dir, s.uid0 + k * POLICY_SLICE, holder,
				     reclaim) == 0) {
				*out = (struct policy_slice){
				    .set = true,
				    .uid =
					(uint32_t)(s.uid0 + k * POLICY_SLICE),
				    .gid =
					(uint32_t)(s.gid0 + k * POLICY_SLICE)};
				return 0;
			}
		}
	}
	return error_set(err, EAGAIN,
			 "user.pool: all %llu slices of 65536 ids are in "
			 "use",
			 (unsigned long long)s.n);
}

void userns_slice_release(uint32_t uid, const char *root, const char *id)
{
	_cleanup_close_ int dir = -1, fd = -1;
	_cleanup_free_ char *text = NULL, *abs = absolute(root);
	char name[32];
	size_t len, n;

	dir = open(USERNS_POOL_DIR,
		   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0 || !abs)
		return;
	slice_name(name, uid);
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || read_fd(fd, name, &text, &len, NULL) < 0)
		return;
	n = strlen(abs);
	/* "ROOT\nID\n...": only the holder gives it back */
	if (len > n + strlen(id) + 1 && memcmp(text, abs, n) == 0 &&
	    text[n] == '\n' && strncmp(text + n + 1, id, strlen(id)) == 0 &&
	    text[n + 1 + strlen(id)] == '\n')
		unlinkat(dir, name, 0);
}

/* A process that only makes its user namespace and waits to be killed:
 * the namespace lives as long as a descriptor of it is open. */
static int write_map(pid_t pid, const char *file, uint32_t host,
		     struct error **err)
{
	char path[64], line[64];
	_cleanup_close_ int fd = -1;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	n = snprintf(line, sizeof(line), "0 %u %u\n", host, POLICY_SLICE);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		return error_errno(err, "idmap: write %s", file);
	return 0;
}

int userns_slice_open(uint32_t uid, uint32_t gid, struct error **err)
{
	int ready[2], fd = -1;
	char path[64], c;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return error_errno(err, "idmap: pipe");
	pid = fork();
	if (pid < 0) {
		close(ready[0]);
		close(ready[1]);
		return error_errno(err, "idmap: fork");
	}
	if (pid == 0) {
		close(ready[0]);
		c = unshare(CLONE_NEWUSER) == 0 ? '1' : '0';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1 || c != '1')
		error_set(err, EPERM, "idmap: make a user namespace");
	else if (write_map(pid, "uid_map", uid, err) == 0 &&
		 write_map(pid, "gid_map", gid, err) == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			error_errno(err, "idmap: open %s", path);
	}
	close(ready[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return fd;
}
