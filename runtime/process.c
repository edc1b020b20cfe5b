#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/securebits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"
#include "util.h"

#define DEFAULT_PATH                                                           \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

int process_set_rlimits(const struct spec_process *p, struct error **err)
{
	for (size_t i = 0; i < p->n_rlimits; i++) {
		const struct spec_rlimit *r = &p->rlimits[i];
		struct rlimit cur,
		    want = {.rlim_cur = r->soft, .rlim_max = r->hard};

		if (getrlimit(r->resource, &cur) < 0)
			return error_errno(err, "get %s", r->type);
		if (want.rlim_max > cur.rlim_max)
			want.rlim_max = cur.rlim_max;
		if (want.rlim_cur > want.rlim_max)
			want.rlim_cur = want.rlim_max;
		if (setrlimit(r->resource, &want) < 0)
			return error_errno(err, "set %s", r->type);
	}
	return 0;
}

int process_set_oom_score_adj(const struct spec_process *p, struct error **err)
{
	_cleanup_close_ int fd = -1;
	char buf[32];
	ssize_t n;
	long cur;
	int len;

	if (!p->oom_score_adj.set)
		return 0;
	fd = open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "open oom_score_adj");
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return error_errno(err, "read oom_score_adj");
	buf[n] = '\0';
	cur = strtol(buf, NULL, 10);
	if (p->oom_score_adj.v <= cur)
		return 0;
	len = snprintf(buf, sizeof(buf), "%lld", (long long)p->oom_score_adj.v);
	if (pwrite(fd, buf, (size_t)len, 0) != len)
		return error_errno(err, "write oom_score_adj");
	return 0;
}

int process_set_personality(const struct spec_linux *l, struct error **err)
{
	unsigned long persona;

	if (!l || !l->personality || !l->personality->domain)
		return 0;
	if (strcmp(l->personality->domain, "LINUX") == 0)
		persona = PER_LINUX;
	else if (strcmp(l->personality->domain, "LINUX32") == 0)
		persona = PER_LINUX32;
	else
		return error_set(
		    err, EINVAL,
		    "config.json: .linux.personality.domain: unknown \"%s\"",
		    l->personality->domain);
	if (personality(persona) < 0)
		return error_errno(err, "personality %s",
				   l->personality->domain);
	return 0;
}

int process_switch_user(const struct spec_user *u, struct error **err)
{
	/* With locked securebits the switch keeps capabilities already. */
	bool keep =
	    !(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) & SECBIT_NO_SETUID_FIXUP);

	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return error_errno(err, "keep capabilities");
	if (setgroups(u->n_additional_gids, u->additional_gids) < 0)
		return error_errno(err, "setgroups");
	if (setresgid(u->gid, u->gid, u->gid) < 0)
		return error_errno(err, "setgid %u", u->gid);
	if (setresuid(u->uid, u->uid, u->uid) < 0)
		return error_errno(err, "setuid %u", u->uid);
	if (keep && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return error_errno(err, "keep capabilities");
	return 0;
}

static const char *env_path(char *const *env)
{
	for (; env && *env; env++)
		if (strncmp(*env, "PATH=", 5) == 0)
			return *env + 5;
	return DEFAULT_PATH;
}

int process_exec(const struct spec_process *p, char *const *env,
		 struct error **err)
{
	static char *const empty[] = {NULL};
	char *const *envp = env ? env : empty;
	const char *path;
	int saved = ENOENT;

	if (strchr(p->args[0], '/')) {
		execve(p->args[0], p->args, envp);
		return error_errno(err, "exec %s", p->args[0]);
	}
	path = env_path(envp);
	while (*path) {
		const char *end = strchrnul(path, ':');
		char full[PATH_MAX];
		int n = snprintf(full, sizeof(full), "%.*s/%s",
				 (int)(end - path), path, p->args[0]);

		if (end > path && n > 0 && (size_t)n < sizeof(full)) {
			execve(full, p->args, envp);
			if (errno != ENOENT && errno != ENOTDIR)
				saved = errno;
		}
		path = *end ? end + 1 : end;
	}
	errno = saved;
	return error_errno(err, "exec %s", p->args[0]);
}

/* "net.ipv4.ip_forward" -> /proc/sys/net/ipv4/ip_forward, resolved beneath
 * /proc/sys only, so a key cannot name a path outside it. */
static int write_sysctl(int sysfd, const char *key, const char *value,
			struct error **err)
{
	_cleanup_free_ char *rel = strdup(key);
	_cleanup_close_ int fd = -1;

	if (!rel)
		return error_set(err, ENOMEM, "out of memory");
	if (!*key || strstr(key, "..") || key[0] == '/' || key[0] == '.')
		return error_set(err, EINVAL, "sysctl %s: invalid name", key);
	for (char *c = rel; *c; c++)
		if (*c == '.')
			*c = '/';
	fd = openat(sysfd, rel, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return error_errno(err, "sysctl %s", key);
	if (write_all(fd, value, strlen(value)) < 0)
		return error_errno(err, "sysctl %s", key);
	return 0;
}

int process_set_sysctls(const struct spec_linux *l, struct error **err)
{
	_cleanup_close_ int sysfd = -1;

	if (!l || l->n_sysctl == 0)
		return 0;
	sysfd = open("/proc/sys", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sysfd < 0)
		return error_errno(err, "open /proc/sys");
	for (size_t i = 0; i < l->n_sysctl; i++)
		if (write_sysctl(sysfd, l->sysctl[i].key, l->sysctl[i].value,
				 err) < 0)
			return -1;
	return 0;
}

/* The LSM label the next exec takes.  corral does not load profiles; it
 * asks the kernel for the one config.json names, and a host that cannot
 * apply it (no AppArmor, no SELinux) fails the container rather than run
 * it unconfined. */
static int set_exec_label(const char *path, const char *fmt, const char *label,
			  const char *what, struct error **err)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), fmt, label);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return error_set(err, EINVAL, "%s %s: too long", what, label);
	if (fd < 0 || write_all(fd, buf, (size_t)n) < 0)
		return error_errno(err, "%s %s: cannot be applied", what,
				   label);
	return 0;
}

int process_set_lsm_labels(const struct spec_process *p, struct error **err)
{
	if (p->apparmor_profile && *p->apparmor_profile &&
	    set_exec_label("/proc/self/attr/apparmor/exec", "exec %s",
			   p->apparmor_profile, "AppArmor profile", err) < 0)
		return -1;
	if (p->selinux_label && *p->selinux_label &&
	    set_exec_label("/proc/self/attr/exec", "%s", p->selinux_label,
			   "SELinux label", err) < 0)
		return -1;
	return 0;
}

/* The argument area's bounds are fields 48 and 49 of /proc/self/stat
 * (counted from 1; the fields after comm's closing parenthesis start at
 * 3).  The area is this process's own stack memory, so writing it is a
 * plain memset: no privilege involved. */
int process_set_title(const char *title, struct error **err)
{
	char buf[2048], *p, *save = NULL;
	unsigned long start = 0, end = 0;
	_cleanup_close_ int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		return error_errno(err, "read /proc/self/stat");
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return error_set(err, EINVAL, "/proc/self/stat: unexpected");
	p += 2;
	for (int field = 3; (p = strtok_r(p, " ", &save)); p = NULL, field++) {
		if (field == 48)
			start = strtoul(p, NULL, 10);
		if (field == 49) {
			end = strtoul(p, NULL, 10);
			break;
		}
	}
	if (!start || end <= start)
		return error_set(err, EINVAL,
				 "/proc/self/stat: no argument area");
	n = (ssize_t)strlen(title);
	if ((size_t)n > end - start - 1)
		n = (ssize_t)(end - start - 1);
	memset((void *)start, 0, end - start);
	memcpy((void *)start, title, (size_t)n);
	return 0;
}
