/* The pool's slices (userns_pool.h). */
#include "userns_pool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container_dir.h"
#include "fsutil.h"
#include "harden.h"
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

/* A slice's two records: its uids' ("65536", the name it always had)
 * and its gids' ("g65536"): two pools whose uid and gid ranges are
 * offset differently would otherwise hand out the same gids under two
 * uid names. */
static void record_names(char u[32], char g[32], uint64_t uid, uint64_t gid)
{
	snprintf(u, 32, "%llu", (unsigned long long)uid);
	snprintf(g, 32, "g%llu", (unsigned long long)gid);
}

/* Whether a container of state root `root` but `except` runs in the
 * slice whose record is `record` ("65536": by its first host uid,
 * "g65536": by its first gid): a pod member in its pod sandbox's user
 * namespace (its sandbox.json says so), which may outlive the pod
 * sandbox's delete.  Read only where a pod's slice may be given back. */
static bool slice_members(const char *root, const char *except,
			  const char *record)
{
	bool gid = record[0] == 'g';
	uint64_t first = strtoull(gid ? record + 1 : record, NULL, 10);
	_cleanup_close_ int rootfd =
	    open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool found = false;
	struct dirent *e;
	DIR *d;

	if (rootfd < 0)
		return errno != ENOENT; /* unsure: keep the slice */
	d = fdopendir(rootfd);
	if (!d)
		return true;
	rootfd = -1;
	while (!found && (e = readdir(d))) {
		_cleanup_close_ int cd = -1;
		_cleanup_free_ char *json = NULL;
		struct sandbox sb = {0};
		size_t len;

		if (e->d_name[0] == '.' ||
		    (except && strcmp(e->d_name, except) == 0))
			continue;
		cd = openat(dirfd(d), e->d_name,
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cd < 0 ||
		    read_file_at(cd, SANDBOX_FILE, &json, &len, NULL) < 0)
			continue;
		if (hardened_parse_sandbox(json, len, &sb, NULL) == 0 &&
		    sb.userns_auto &&
		    (gid ? sb.userns_gid : sb.userns_uid) == first)
			found = true;
		sandbox_release(&sb);
	}
	closedir(d);
	return found;
}

/* Whether the record `name` was left behind: its container's directory
 * is gone and the create that took it has ended, or it holds no whole
 * holder (a create killed between making it and writing it: records are
 * written under the registry's lock, which the caller holds, so no
 * other is being written now). */
static bool stale(int dir, const char *name, const char *except)
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

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > HOLDER_MAX || read_fd(fd, name, &text, &len, NULL) < 0)
		return false;
	if (strlen(text) != len)
		return true;
	id = strchr(text, '\n');
	pidline = id ? strchr(id + 1, '\n') : NULL;
	if (!pidline)
		return true;
	*id++ = '\0';
	*pidline++ = '\0';
	errno = 0;
	pid = strtol(pidline, &end, 10);
	if (errno || end == pidline || pid <= 0 || pid > INT_MAX ||
	    sscanf(end, " %llu", &start) != 1)
		return true;
	if (snprintf(path, sizeof(path), "%s/%s", text, id) >=
		(int)sizeof(path) ||
	    text[0] != '/' || lstat(path, &st) == 0 || errno != ENOENT)
		return false;
	/* the create that took it may still be making that directory */
	if (proc_stat((pid_t)pid, &now, NULL) == 0 && now == start)
		return false;
	/* a pod sandbox's members may be in its slice still */
	return !slice_members(text, except, name);
}

/* 1: no record `name`; 2: one left behind, to be taken again (reclaim
 * only); 0: held; -1: errno. */
static int record_free(int dir, const char *name, bool reclaim)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 1 : -1;
	return reclaim && stale(dir, name, NULL) ? 2 : 0;
}

static int record_put(int dir, const char *name, const char *holder)
{
	int fd =
	    openat(dir, name,
		   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (write_all(fd, holder, strlen(holder)) < 0) {
		int e = errno;

		close(fd);
		unlinkat(dir, name, 0);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

/* The slice at uid/gid for holder, under the registry's lock: 1 taken, 0
 * held by another, -1 errno. */
static int try_take(int dir, uint64_t uid, uint64_t gid, const char *holder,
		    bool reclaim)
{
	char u[32], g[32];
	int fu, fg;

	record_names(u, g, uid, gid);
	fu = record_free(dir, u, reclaim);
	if (fu <= 0)
		return fu;
	fg = record_free(dir, g, reclaim);
	if (fg <= 0)
		return fg;
	if ((fu == 2 && unlinkat(dir, u, 0) < 0) ||
	    (fg == 2 && unlinkat(dir, g, 0) < 0) ||
	    record_put(dir, u, holder) < 0)
		return -1;
	if (record_put(dir, g, holder) < 0) {
		int e = errno;

		unlinkat(dir, u, 0);
		errno = e;
		return -1;
	}
	return 1;
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
	/* one taker at a time: a left-behind record is then taken again
	 * by one of them, and a record is never seen half-written */
	if (flock(dir, LOCK_EX) < 0)
		return error_errno(err, "%s: lock", USERNS_POOL_DIR);
	start = first_slice(abs, id, s.n);
	/* free slices first; only a full pool looks for left-behind ones */
	for (int reclaim = 0; reclaim < 2; reclaim++) {
		for (uint64_t i = 0; i < s.n; i++) {
			uint64_t k = (start + i) % s.n;
			uint64_t uid = s.uid0 + k * POLICY_SLICE;
			uint64_t gid = s.gid0 + k * POLICY_SLICE;
			int r = try_take(dir, uid, gid, holder, reclaim);

			if (r < 0)
				return error_errno(err, "%s: take a slice",
						   USERNS_POOL_DIR);
			if (r > 0) {
				*out =
				    (struct policy_slice){.set = true,
							  .uid = (uint32_t)uid,
							  .gid = (uint32_t)gid};
				return 0;
			}
		}
	}
	return error_set(err, EAGAIN,
			 "user.pool: all %llu slices of 65536 ids are in "
			 "use",
			 (unsigned long long)s.n);
}

/* Remove record `name` when ROOT\nID\n... (abs, id) holds it, unless it
 * is a pod sandbox whose members are still in its slice; or when its
 * holder was left behind (a pod sandbox deleted first) and this was the
 * last member. */
static void record_drop(int dir, const char *name, const char *abs,
			const char *id, bool pod_sandbox)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	size_t len, n = strlen(abs), m = strlen(id);

	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || read_fd(fd, name, &text, &len, NULL) < 0)
		return;
	if (len > n + m + 1 && memcmp(text, abs, n) == 0 && text[n] == '\n' &&
	    strncmp(text + n + 1, id, m) == 0 && text[n + 1 + m] == '\n') {
		if (!pod_sandbox || !slice_members(abs, id, name))
			unlinkat(dir, name, 0);
	} else if (stale(dir, name, id)) {
		unlinkat(dir, name, 0);
	}
}

void userns_slice_release(uint32_t uid, uint32_t gid, const char *root,
			  const char *id, bool pod_sandbox)
{
	_cleanup_close_ int dir = -1;
	_cleanup_free_ char *abs = absolute(root);
	char u[32], g[32];

	dir = open(USERNS_POOL_DIR,
		   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0 || !abs || flock(dir, LOCK_EX) < 0)
		return;
	record_names(u, g, uid, gid);
	record_drop(dir, u, abs, id, pod_sandbox);
	record_drop(dir, g, abs, id, pod_sandbox);
}

/* A process that only makes its user namespace and waits to be killed:
 * the namespace lives as long as a descriptor of it is open. */
static int write_map(pid_t pid, const char *file, uint32_t inside,
		     uint32_t host, uint32_t count, struct error **err)
{
	char path[64], line[64];
	_cleanup_close_ int fd = -1;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	n = snprintf(line, sizeof(line), "%u %u %u\n", inside, host, count);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		return error_errno(err, "idmap: write %s", file);
	return 0;
}

int userns_slice_open(uint32_t uid, uint32_t gid, struct error **err)
{
	return userns_map_open(0, uid, 0, gid, POLICY_SLICE, err);
}

int userns_map_open(uint32_t in_uid, uint32_t uid, uint32_t in_gid,
		    uint32_t gid, uint32_t count, struct error **err)
{
	int ready[2], fd = -1;
	char path[64], c;
	pid_t pid, parent = getpid();

	if (pipe2(ready, O_CLOEXEC) < 0)
		return error_errno(err, "idmap: pipe");
	pid = fork();
	if (pid < 0) {
		close(ready[0]);
		close(ready[1]);
		return error_errno(err, "idmap: fork");
	}
	if (pid == 0) {
		/* nothing of create's: no descriptor but the pipe (an engine's
		 * rootfs held open would pin its mount), and gone with create
		 * even when create is killed before its kill below */
		if (dup2(ready[1], 3) < 0 ||
		    syscall(SYS_close_range, 4U, ~0U, 0) < 0 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
		    getppid() != parent)
			_exit(1);
		c = unshare(CLONE_NEWUSER) == 0 ? '1' : '0';
		if (write(3, &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1 || c != '1')
		error_set(err, EPERM, "idmap: make a user namespace");
	else if (write_map(pid, "uid_map", in_uid, uid, count, err) == 0 &&
		 write_map(pid, "gid_map", in_gid, gid, count, err) == 0) {
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
