/* corral-egress-conn: the program one connection of the egress proxy runs
 * (runtime/egress_child.h).  Its broker executes it from the memfd the
 * helper made, with the workload's connection, the broker's socket and
 * the init's pidfd as descriptors 3, 4 and 5 and its limits as arguments;
 * the environment is empty.  It loads its own seccomp filter (no socket,
 * connect, bind, exec, open ...: egress_conn in runtime/seccomp_baseline.c)
 * before it reads a byte of the workload's, then handles the connection
 * (egress/conn.c), asking the broker for the upstream.  Started any other
 * way it finds no broker and exits 127 having done nothing.
 *
 * It is not dumpable from its start: the memfd is execute-only (0111), and
 * the kernel marks a process that runs an image it may not read
 * non-dumpable at the exec. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "egress_child.h"
#include "egress_conn.h"
#include "seccomp_prebuilt.h"

static long number(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || end == s || v < 0 || v > max ? -1 : v;
}

static int load_filter(void)
{
	struct sock_fprog prog = {
	    .len = seccomp_prebuilt_egress_conn.len,
	    .filter = (struct sock_filter *)seccomp_prebuilt_egress_conn.filter,
	};

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* Copy s into a field of n bytes, cut and NUL-ended. */
static void field(char *dst, size_t n, const char *s)
{
	size_t len = s ? strnlen(s, n - 1) : 0;

	memcpy(dst, s ? s : "", len);
	dst[len] = '\0';
}

int conn_dial(struct conn *c, const char **why)
{
	static struct egress_msg_answer a;
	struct egress_msg_dial q = {.type = EGRESS_MSG_DIAL,
				    .port = c->port,
				    .plain = c->plain,
				    .is_addr = c->addr.family != 0,
				    .addr = c->addr};
	char control[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&a, sizeof(a)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = control,
			   .msg_controllen = sizeof(control)};
	struct cmsghdr *cm;
	ssize_t n;

	field(q.name, sizeof(q.name), c->name);
	if (send(EGRESS_CHILD_BROKER_FD, &q, sizeof(q), MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(q)) {
		*why = "the broker is gone";
		return 502;
	}
	do
		n = recvmsg(EGRESS_CHILD_BROKER_FD, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(a)) {
		*why = "the broker is gone";
		return 502;
	}
	a.why[sizeof(a.why) - 1] = '\0';
	cm = CMSG_FIRSTHDR(&m);
	if (a.status == 0 && cm && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int))) {
		memcpy(&c->up, CMSG_DATA(cm), sizeof(int));
		c->connected = true;
		return 0;
	}
	*why = a.why;
	return a.status > 0 ? a.status : 502;
}

void conn_done(struct conn *c)
{
	struct egress_msg_done d = {.type = EGRESS_MSG_DONE,
				    .allow = c->d.verdict &&
					     strcmp(c->d.verdict, "allow") == 0,
				    .port = (uint16_t)c->d.port,
				    .up = c->d.up,
				    .down = c->d.down};

	field(d.method, sizeof(d.method), c->d.method);
	field(d.name, sizeof(d.name), c->d.name);
	field(d.reason, sizeof(d.reason), c->d.reason);
	if (send(EGRESS_CHILD_BROKER_FD, &d, sizeof(d), MSG_NOSIGNAL) < 0)
		return;
}

int main(int argc, char **argv)
{
	struct egress_proxy p = {.log_fd = -1, .stop_fd = EGRESS_CHILD_STOP_FD};
	long v[EGRESS_CHILD_ARGC];
	int type = 0;
	socklen_t len = sizeof(type);

	if (argc != EGRESS_CHILD_ARGC)
		return 127;
	for (int i = 1; i < EGRESS_CHILD_ARGC; i++)
		if ((v[i] = number(argv[i], INT_MAX)) < 0)
			return 127;
	/* a broker's socket, or nothing to do */
	if (getsockopt(EGRESS_CHILD_BROKER_FD, SOL_SOCKET, SO_TYPE, &type,
		       &len) < 0 ||
	    type != SOCK_SEQPACKET || v[1] > 65535)
		return 127;
	if (load_filter() < 0)
		return 1;
	p.head_max = (size_t)v[2];
	p.head_ms = (int)v[3];
	p.hello_ms = (int)v[4];
	p.idle_ms = (int)v[5];
	egress_conn_handle(EGRESS_CHILD_CLIENT_FD, (uint16_t)v[1], &p);
	return 0;
}
