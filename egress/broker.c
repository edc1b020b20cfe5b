/* The connection program's two messages to its broker (runtime/
 * egress_child.h): "connect me" (conn_dial, which gets the connected
 * socket back) and the verdict at the end (conn_done); egress_conn.h
 * declares them for egress/conn.c. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "egress_child.h"
#include "egress_conn.h"

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
