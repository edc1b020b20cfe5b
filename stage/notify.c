/* The supervisor's seccomp listener (notify.h).  It runs unprivileged
 * (the workload's ids, no capabilities) under the supervisor's filter,
 * which allows ioctl only for the three requests used here. */
#include "notify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fsutil.h"

void notify_init(struct notify_state *s, int listener, int outcome_fd)
{
	memset(s, 0, sizeof(*s));
	s->listener = listener;
	s->outcome_fd = outcome_fd;
	s->proc_fd =
	    openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	clock_gettime(CLOCK_MONOTONIC, &s->last_flush);
}

void notify_close(struct notify_state *s)
{
	if (s->listener >= 0)
		close(s->listener);
	s->listener = -1;
}

static struct notify_entry *entry_of(struct notify_state *s, uint32_t arch,
				     int32_t nr)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].nr == nr && s->e[i].arch == arch)
			return &s->e[i];
	if (s->n == NOTIFY_TABLE)
		return NULL;
	s->e[s->n] = (struct notify_entry){.arch = arch, .nr = nr};
	return &s->e[s->n++];
}

static bool plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* PID/comm under /proc, escaped; "?" when it cannot be read.  The pid is
 * the notifying task's in the supervisor's pid namespace, which is the
 * container's; the caller checks the notification is still alive after,
 * so that the name is not a reused pid's.  /proc was opened before the
 * workload ran; should it be no procfs (config.json mounts none, and the
 * workload may write the directory), a FIFO or device planted there must
 * not hold the supervisor: O_NONBLOCK, O_NOCTTY, no link followed last. */
static void read_comm(int proc_fd, int32_t pid, char out[16 * 4 + 1])
{
	char path[32], raw[17], *p = out;
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%d/comm", (int)pid);
	fd = proc_fd < 0 ? -1
			 : openat(proc_fd, path,
				  O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
				      O_NONBLOCK | O_NOCTTY);
	if (fd >= 0) {
		n = read(fd, raw, sizeof(raw) - 1);
		close(fd);
	}
	if (n > 0 && raw[n - 1] == '\n')
		n--;
	if (n <= 0) {
		memcpy(out, "?", 2);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (plain(c)) {
			*p++ = (char)c;
		} else {
			snprintf(p, 5, "\\x%02x", c);
			p += 4;
		}
	}
	*p = '\0';
}

static size_t write_entry(const struct notify_state *s,
			  const struct notify_entry *e)
{
	char line[160];
	int n;

	if (s->outcome_fd < 0)
		return 0;
	n = snprintf(line, sizeof(line), "syscall %x %d %llu %lld %ld %d %s\n",
		     e->arch, (int)e->nr, (unsigned long long)e->count,
		     (long long)e->first.tv_sec, e->first.tv_nsec, (int)e->pid,
		     e->comm);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return 0;
	write_all(s->outcome_fd, line, (size_t)n);
	return (size_t)n;
}

int notify_serve(struct notify_state *s)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct notify_entry *e;
	bool first;

	memset(&req, 0, sizeof(req));
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
		if (errno == EINTR || errno == ENOENT)
			return 0; /* the caller was killed meanwhile */
		notify_close(s);
		return -1;
	}
	e = entry_of(s, req.data.arch, req.data.nr);
	first = e && e->count == 0;
	if (first) {
		clock_gettime(CLOCK_REALTIME, &e->first);
		e->pid = (int32_t)req.pid;
		read_comm(s->proc_fd, e->pid, e->comm);
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) <
		    0)
			memcpy(e->comm, "?", 2);
	}
	/* What the baseline answered before it notified: EPERM, always. */
	resp = (struct seccomp_notif_resp){
	    .id = req.id, .val = 0, .error = -EPERM, .flags = 0};
	ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	if (!e) {
		s->untracked++;
		return 0;
	}
	e->count++;
	if (first) {
		write_entry(s, e);
		e->written = e->count;
	} else {
		s->dirty = true;
	}
	notify_flush(s, false);
	return 0;
}

static int64_t since_flush_ms(const struct notify_state *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - s->last_flush.tv_sec) * 1000 +
	       (now.tv_nsec - s->last_flush.tv_nsec) / 1000000;
}

int notify_due_ms(const struct notify_state *s)
{
	int64_t left;

	if (!s->dirty || s->update_bytes >= NOTIFY_UPDATE_BUDGET)
		return -1;
	left = 1000 - since_flush_ms(s);
	return left < 0 ? 0 : (int)left;
}

void notify_flush(struct notify_state *s, bool final)
{
	if (!s->dirty)
		return;
	if (!final && (s->update_bytes >= NOTIFY_UPDATE_BUDGET ||
		       since_flush_ms(s) < 1000))
		return;
	for (size_t i = 0; i < s->n; i++) {
		struct notify_entry *e = &s->e[i];

		if (e->count == e->written)
			continue;
		s->update_bytes += write_entry(s, e);
		e->written = e->count;
	}
	s->dirty = false;
	clock_gettime(CLOCK_MONOTONIC, &s->last_flush);
}
