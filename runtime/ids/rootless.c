/* corral run by an ordinary user (rootless.h). */
#include "rootless.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgroup_limits.h"
#include "fsutil.h"
#include "log.h"
#include "util.h"

#define NEWUIDMAP "/usr/bin/newuidmap"
#define NEWGIDMAP "/usr/bin/newgidmap"
/* subordinate ids needed: every id 0-65535 but the caller's own */
#define SUBIDS_NEEDED 65535u

bool rootless(void)
{
	return geteuid() != 0;
}

bool rootless_outside_host(void)
{
	_cleanup_free_ char *map = NULL;
	unsigned long in, out, count;
	size_t len;

	/* unreadable, or not the one line mapping every id to itself */
	return !(read_file_at(AT_FDCWD, "/proc/self/uid_map", &map, &len,
			      NULL) == 0 &&
		 sscanf(map, " %lu %lu %lu", &in, &out, &count) == 3 &&
		 in == 0 && out == 0 && count == 4294967295UL &&
		 strchr(map, '\n') == map + len - 1);
}

/* DIR, which must be a directory of the caller's that no one else can
 * enter, made so when missing. */
static int own_dir(const char *dir, struct error **err)
{
	struct stat st;
	_cleanup_close_ int fd = -1;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return error_errno(err, "state root %s", dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return error_errno(err, "state root %s", dir);
	if (st.st_uid != geteuid() || (st.st_mode & 0077))
		return error_set(err, EPERM,
				 "state root %s: not a directory of the "
				 "caller's alone (mode 0700)",
				 dir);
	return 0;
}

/* The caller's effective uid on the host: itself in the host's user
 * namespace, else what /proc/self/uid_map maps it to (root of rootless
 * podman's namespace is the user who runs podman). */
static uid_t host_uid(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long in, out, count;
	uid_t me = geteuid();

	while (f && fscanf(f, " %lu %lu %lu", &in, &out, &count) == 3)
		if (me >= in && me - in < count)
			return (uid_t)(out + (me - in));
	return me;
}

int rootless_state_root(char **out, struct error **err)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char *dir = NULL;

	if (xdg && xdg[0] == '/') {
		if (asprintf(&dir, "%s/corral", xdg) < 0)
			return error_set(err, ENOMEM, "out of memory");
	} else {
		if (asprintf(&dir, "/tmp/corral-%u", (unsigned)host_uid()) < 0)
			return error_set(err, ENOMEM, "out of memory");
		if (access(dir, F_OK) < 0)
			fprintf(stderr,
				"corral: XDG_RUNTIME_DIR is not set: state "
				"goes to %s\n",
				dir);
	}
	if (own_dir(dir, err) < 0) {
		free(dir);
		return -1;
	}
	*out = dir;
	return 0;
}

char *rootless_policy_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *path = NULL;
	int n;

	if (xdg && xdg[0] == '/')
		n = asprintf(&path, "%s/corral/policy.json", xdg);
	else if (home && home[0] == '/')
		n = asprintf(&path, "%s/.config/corral/policy.json", home);
	else
		return NULL;
	if (n < 0)
		return NULL;
	if (access(path, F_OK) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

static bool subids(const char *file, uint32_t id, const char *name,
		   uint32_t *start);

/* Whether the caller can map subordinate ids: the setuid helpers and a
 * range of each kind for it. */
static bool have_subids(uint32_t *subu, uint32_t *subg)
{
	/* the name /etc/passwd gives the caller, if any: a user known only
	 * to a directory service is found in /etc/subuid by number alone */
	char num[16], buf[256];
	const char *name;

	snprintf(num, sizeof(num), "%u", (unsigned)getuid());
	name = colon_file_lookup("/etc/passwd", 2, num, 0, buf, sizeof(buf))
		   ? buf
		   : NULL;

	return access(NEWUIDMAP, X_OK) == 0 && access(NEWGIDMAP, X_OK) == 0 &&
	       subids("/etc/subuid", getuid(), name, subu) &&
	       subids("/etc/subgid", getgid(), name, subg);
}

/* In the host's own user namespace (not entered yet: explain), what
 * rootless_enter would choose; in the entered one, what it chose. */
bool rootless_setgroups_denied(void)
{
	_cleanup_free_ char *groups = NULL;
	size_t len;

	return read_file_at(AT_FDCWD, "/proc/self/setgroups", &groups, &len,
			    NULL) == 0 &&
	       strncmp(groups, "deny", 4) == 0;
}

const char *rootless_mapping(void)
{
	_cleanup_free_ char *map = NULL;
	uint32_t u, g;
	size_t len;

	if (read_file_at(AT_FDCWD, "/proc/self/uid_map", &map, &len, NULL) ==
		0 &&
	    strstr(map, "4294967295"))
		return have_subids(&u, &g) ? "subids" : "single";
	return rootless_setgroups_denied() ? "single" : "subids";
}

bool rootless_has_groups(void)
{
	gid_t g[2];
	int n = getgroups(2, g);

	return n < 0 || n > 1 || (n == 1 && g[0] != getgid());
}

/* The first range of at least SUBIDS_NEEDED ids that a subordinate-id
 * file gives the caller (by name or by number). */
static bool subids(const char *file, uint32_t id, const char *name,
		   uint32_t *start)
{
	_cleanup_fclose_ FILE *f = fopen(file, "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	char num[16];

	snprintf(num, sizeof(num), "%u", id);
	while (f && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *end;
		unsigned long s, n;

		if (!colon)
			continue;
		*colon = '\0';
		if (strcmp(line, num) != 0 &&
		    (!name || strcmp(line, name) != 0))
			continue;
		errno = 0;
		s = strtoul(colon + 1, &end, 10);
		if (errno || *end != ':')
			continue;
		n = strtoul(end + 1, &end, 10);
		if (errno || s == 0 || n < SUBIDS_NEEDED || s + n > UINT32_MAX)
			continue;
		*start = (uint32_t)s;
		return true;
	}
	return false;
}

/* newuidmap PID 0 SUB IN  IN CALLER 1  IN+1 SUB+IN 65535-IN, started;
 * its pid, or -1. */
static pid_t spawn_idmap(const char *tool, pid_t pid, uint32_t in,
			 uint32_t caller, uint32_t sub, struct error **err)
{
	char a[12][16];
	char *argv[14];
	int n = 0, k = 0;
	pid_t child;

	argv[n++] = (char *)tool;
	snprintf(a[k], sizeof(a[k]), "%d", (int)pid);
	argv[n++] = a[k++];
#define ADD(v)                                                                 \
	do {                                                                   \
		snprintf(a[k], sizeof(a[k]), "%u", (unsigned)(v));             \
		argv[n++] = a[k++];                                            \
	} while (0)
	if (in > 0) {
		ADD(0);
		ADD(sub);
		ADD(in);
	}
	ADD(in);
	ADD(caller);
	ADD(1);
	if (in < 65535) {
		ADD(in + 1);
		ADD(sub + in);
		ADD(65535 - in);
	}
#undef ADD
	argv[n] = NULL;
	errno = posix_spawn(&child, tool, NULL, NULL, argv, (char *[]){NULL});
	if (errno != 0)
		return error_errno(err, "%s", tool);
	return child;
}

static int wait_idmap(const char *tool, pid_t child, struct error **err)
{
	int status;

	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return error_set(err, EPERM, "%s failed", tool);
	return 0;
}

static int write_proc(pid_t pid, const char *file, const char *text,
		      struct error **err)
{
	char path[64];
	_cleanup_close_ int fd = -1;
	size_t len = strlen(text);

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return error_errno(err, "user namespace: write %s", file);
	return 0;
}

/* The caller's own ids only (UID and GID), which an ordinary process
 * may map for itself once setgroups is denied. */
static int map_own_ids(pid_t pid, uint32_t in_uid, uint32_t in_gid, uid_t uid,
		       gid_t gid, struct error **err)
{
	char line[64];

	snprintf(line, sizeof(line), "%u %u 1\n", in_uid, (unsigned)uid);
	if (write_proc(pid, "uid_map", line, err) < 0 ||
	    write_proc(pid, "setgroups", "deny", err) < 0)
		return -1;
	snprintf(line, sizeof(line), "%u %u 1\n", in_gid, (unsigned)gid);
	return write_proc(pid, "gid_map", line, err);
}

static pid_t entered = -1;

static void forward(int sig)
{
	if (entered > 0)
		kill(entered, sig);
}

/* The child's maps, through the setuid helpers (the two at once), from
 * the caller's subordinate uids and gids (sub[0], sub[1]). */
static int map_subids(pid_t pid, uint32_t in_uid, uint32_t in_gid,
		      const uint32_t sub[2], struct error **err)
{
	pid_t u, g;
	int r;

	u = spawn_idmap(NEWUIDMAP, pid, in_uid, getuid(), sub[0], err);
	if (u < 0)
		return error_wrap(err, "user namespace");
	g = spawn_idmap(NEWGIDMAP, pid, in_gid, getgid(), sub[1], err);
	if (g < 0) {
		waitpid(u, NULL, 0);
		return error_wrap(err, "user namespace");
	}
	r = wait_idmap(NEWUIDMAP, u, err);
	if (wait_idmap(NEWGIDMAP, g, r < 0 ? NULL : err) < 0 || r < 0)
		return error_wrap(err, "user namespace");
	return 0;
}

/* Why unshare(CLONE_NEWUSER) failed with E, in the terms of the host's
 * setting that decides it. */
static int unshare_refused(int e, struct error **err)
{
	if (e == EPERM || e == EACCES)
		return error_set(err, EPERM,
				 "user namespace: unprivileged user namespaces "
				 "are off on this host "
				 "(kernel.unprivileged_userns_clone, or a "
				 "seccomp or LSM rule over the caller)");
	if (e == ENOSPC || e == EUSERS)
		return error_set(err, e,
				 "user namespace: no more user namespaces "
				 "allowed (user.max_user_namespaces, or 32 "
				 "nested)");
	errno = e;
	return error_errno(err, "user namespace: unshare");
}

/* With the caller's own ids alone no setuid helper maps them from
 * outside, so no process of the caller's stays there: this one enters
 * the namespaces and maps itself (its ids read before the unshare, after
 * which they are unmapped). */
static int enter_self(uint32_t inside_uid, uint32_t inside_gid,
		      struct error **err)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return unshare_refused(errno, err);
	return map_own_ids(getpid(), inside_uid, inside_gid, uid, gid, err);
}

int rootless_enter(uint32_t inside_uid, uint32_t inside_gid, int *status,
		   struct error **err)
{
	int up[2], go[2], ws;
	uint32_t sub[2];
	unsigned char c; /* the child's: 0, or unshare's errno; then '1' */
	bool mapped = false;
	pid_t pid;

	if (!have_subids(&sub[0], &sub[1]))
		return enter_self(inside_uid, inside_gid, err);
	if (pipe2(up, O_CLOEXEC) < 0)
		return error_errno(err, "user namespace: pipe");
	if (pipe2(go, O_CLOEXEC) < 0) {
		close(up[0]);
		close(up[1]);
		return error_errno(err, "user namespace: pipe");
	}
	pid = fork();
	if (pid < 0) {
		error_errno(err, "user namespace: fork");
		goto out;
	}
	if (pid == 0) {
		close(up[0]);
		close(go[1]);
		/* every errno fits a byte */
		c = unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0
			? 0
			: (unsigned char)errno;
		if (write(up[1], &c, 1) != 1 || c != 0 ||
		    read(go[0], &c, 1) != 1 || c != '1')
			_exit(125);
		close(up[1]);
		close(go[0]);
		return 0;
	}
	close(up[1]);
	close(go[0]);
	up[1] = go[0] = -1;
	if (read(up[0], &c, 1) != 1)
		error_set(err, EPROTO, "user namespace: the child ended");
	else if (c != 0)
		unshare_refused(c, err);
	else
		mapped =
		    map_subids(pid, inside_uid, inside_gid, sub, err) == 0 &&
		    write(go[1], "1", 1) == 1;
	closep(&go[1]);
	/* the terminal's signals reach the child itself; others are passed
	 * on, so that stopping this process stops the container */
	entered = pid;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (!mapped)
		goto out;
	*status = WIFEXITED(ws)	    ? WEXITSTATUS(ws)
		  : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws)
				    : 1;
	closep(&up[0]);
	return 1;
out:
	for (int i = 0; i < 2; i++) {
		if (up[i] >= 0)
			close(up[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	return -1;
}

void rootless_cgroup(struct policy *p, struct cgroup_bases *bases)
{
	static const struct {
		enum cg_controller controller;
		unsigned limit;
	} limits[] = {
	    {CG_MEMORY, POLICY_LIMIT_MEMORY},
	    {CG_PIDS, POLICY_LIMIT_PIDS},
	    {CG_CPU, POLICY_LIMIT_CPU},
	};
	_cleanup_error_ struct error *err = NULL;
	unsigned have = 0;

	*bases = (struct cgroup_bases){0};
	p->cgroup_delegated = false;
	p->cgroup_controllers = 0;
	if (!p->rootless)
		return;
	if (cgroup_find_delegated(CGROUP_MOUNT, bases, &have, &err) < 0) {
		log_debug("no delegated cgroup: %s", err->msg);
		return;
	}
	p->cgroup_delegated = bases->n > 0;
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++)
		if (have & (1u << limits[i].controller))
			p->cgroup_controllers |= limits[i].limit;
}
