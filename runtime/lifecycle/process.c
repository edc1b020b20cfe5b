#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"
#include "util.h"

int process_set_oom_score_adj(const struct spec_process *p, struct error **err)
{
	_cleanup_close_ int fd = -1;
	char buf[32];
	ssize_t n;
	long cur;
	int len;

	if (!p->oom_score_adj.set)
		return 0;
	/* Read first, and open for writing only to raise it: an ordinary
	 * user's non-dumpable process may read the file (0644) but not
	 * write it, its owner being the host's root. */
	fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "open oom_score_adj");
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return error_errno(err, "read oom_score_adj");
	buf[n] = '\0';
	cur = strtol(buf, NULL, 10);
	if (p->oom_score_adj.v <= cur)
		return 0;
	closep(&fd);
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "open oom_score_adj");
	len = snprintf(buf, sizeof(buf), "%lld", (long long)p->oom_score_adj.v);
	if (write(fd, buf, (size_t)len) != len)
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

int process_open_sysctls(const struct spec_linux *l, struct error **err)
{
	int sysfd;

	if (!l || l->n_sysctl == 0)
		return -2;
	sysfd = open("/proc/sys", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sysfd < 0)
		return error_errno(err, "open /proc/sys");
	return sysfd;
}

int process_set_sysctls(int sysfd, const struct spec_linux *l,
			struct error **err)
{
	for (size_t i = 0; sysfd >= 0 && i < l->n_sysctl; i++)
		if (write_sysctl(sysfd, l->sysctl[i].key, l->sysctl[i].value,
				 err) < 0)
			return -1;
	return 0;
}

/* The argument area: the bytes from argv[0] to the end of the last
 * argument, which the kernel lays out one after another on the stack
 * (what /proc/PID/cmdline reads).  main() records them before getopt
 * moves any pointer, so no /proc read is needed later.  The area is this
 * process's own memory, so writing it is a plain memset: no privilege
 * involved. */
static char *title_start, *title_end;

void process_title_init(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *end = argv[i] + strlen(argv[i]) + 1;

		if (!title_start || argv[i] < title_start)
			title_start = argv[i];
		if (end > title_end)
			title_end = end;
	}
}

int process_set_title(const char *title, struct error **err)
{
	size_t n = strlen(title);

	if (!title_start || title_end - title_start < 2)
		return error_set(err, EINVAL, "no argument area to overwrite");
	if (n > (size_t)(title_end - title_start) - 1)
		n = (size_t)(title_end - title_start) - 1;
	memset(title_start, 0, (size_t)(title_end - title_start));
	memcpy(title_start, title, n);
	return 0;
}
