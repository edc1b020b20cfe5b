/* The broker of one connection of the egress proxy
 * (runtime/egress/egress_child.h): a fork of the helper, which starts the
 * connection's own program, answers its one question (the upstream: the rule,
 * the resolution, the refused ranges and the connect are decided here, from
 * what it asked, never taken from it) and logs the verdict it reports.  The
 * broker reads nothing of the workload's but these fixed records, each checked:
 * a name must be one in normalized form, an address one of a family it knows.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "egress_child.h"
#include "egress_conn.h"
#include "util.h"

/* In the child, before the exec: the client, the broker's socket and the
 * init's pidfd at 3, 4 and 5, every other descriptor but the image
 * closed, and the connection's program started. */
static _Noreturn void start_child(int client, int broker, uint16_t port,
				  const struct egress_proxy *p)
{
	static char *const envp[] = {NULL};
	const int want[3] = {client, broker, p->stop_fd};
	char args[EGRESS_CHILD_ARGC - 1][24];
	char *argv[EGRESS_CHILD_ARGC + 1] = {EGRESS_CONN_NAME};
	int high[3];

	/* out of the way first: any of them may be 3, 4 or 5 already */
	for (int i = 0; i < 3; i++)
		if ((high[i] = fcntl(want[i], F_DUPFD_CLOEXEC, 300)) < 0)
			_exit(127);
	for (int i = 0; i < 3; i++)
		if (dup2(high[i], EGRESS_CHILD_CLIENT_FD + i) < 0)
			_exit(127);
	if (syscall(SYS_close_range, EGRESS_CHILD_STOP_FD + 1,
		    EGRESS_CONN_IMAGE_FD - 1, 0) < 0 ||
	    syscall(SYS_close_range, EGRESS_CONN_IMAGE_FD + 1, ~0U, 0) < 0)
		_exit(127);
	snprintf(args[0], sizeof(args[0]), "%u", port);
	snprintf(args[1], sizeof(args[1]), "%zu", p->head_max);
	snprintf(args[2], sizeof(args[2]), "%d", p->head_ms);
	snprintf(args[3], sizeof(args[3]), "%d", p->hello_ms);
	snprintf(args[4], sizeof(args[4]), "%d", p->idle_ms);
	for (int i = 0; i < EGRESS_CHILD_ARGC - 1; i++)
		argv[i + 1] = args[i];
	syscall(SYS_execveat, EGRESS_CONN_IMAGE_FD, "", argv, envp,
		AT_EMPTY_PATH);
	_exit(127);
}

/* The dial record checked into c: a name in normalized form, or an
 * address of IPv4 or IPv6, and a port. */
static bool dial_request(struct egress_msg_dial *q, struct conn *c)
{
	struct error *err = NULL;
	char *norm = NULL;
	bool ok;

	q->name[sizeof(q->name) - 1] = '\0';
	if (q->port == 0)
		return false;
	c->port = q->port;
	c->plain = q->plain != 0;
	if (q->is_addr) {
		char text[64];

		if (q->addr.family != AF_INET && q->addr.family != AF_INET6)
			return false;
		c->addr = q->addr;
		egress_addr_text(&c->addr, text, sizeof(text));
		c->name = strdup(text);
		return c->name != NULL;
	}
	ok = egress_normalize_host(q->name, &norm, &err) == 0 &&
	     strcmp(norm, q->name) == 0;
	error_free(err);
	if (ok)
		c->name = norm;
	else
		free(norm);
	return ok;
}

/* Answer the dial: the connected socket, or the refusal. */
static void answer(int sock, struct conn *c, struct egress_msg_dial *q)
{
	struct egress_msg_answer a = {0};
	char control[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&a, sizeof(a)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	const char *why = "";

	if (!dial_request(q, c)) {
		a.status = 400;
		why = "the connection asked for no host a rule can match";
	} else {
		a.status = conn_decide(c, &why);
	}
	snprintf(a.why, sizeof(a.why), "%s", why ? why : "");
	if (a.status == 0) {
		struct cmsghdr *cm;

		m.msg_control = control;
		m.msg_controllen = sizeof(control);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &c->up, sizeof(int));
	}
	if (sendmsg(sock, &m, MSG_NOSIGNAL) < 0)
		a.status = 502;
	if (c->up >= 0)
		closep(&c->up);
}

/* The verdict the connection reported, with what the broker knows itself
 * (what it resolved, chose and matched); an "allow" without an upstream
 * handed over is a deny. */
static void log_done(const struct egress_proxy *p, struct conn *c,
		     struct egress_msg_done *d, uint16_t port)
{
	d->method[sizeof(d->method) - 1] = '\0';
	d->name[sizeof(d->name) - 1] = '\0';
	d->reason[sizeof(d->reason) - 1] = '\0';
	c->d.kind = port ? "transparent" : "proxy";
	c->d.method = d->method;
	c->d.name = c->name ? c->name : d->name;
	c->d.port = c->port ? c->port : d->port;
	c->d.resolved = c->resolved;
	c->d.n_resolved = c->n_resolved;
	c->d.chosen = c->connected ? &c->chosen : NULL;
	c->d.rule = c->rule_text;
	c->d.verdict = d->allow && c->connected ? "allow" : "deny";
	c->d.reason = d->reason;
	c->d.up = d->up;
	c->d.down = d->down;
	egress_log(p, &c->d);
}

/* The connection's messages until it ends: one dial, then its verdict. */
static bool serve_child(int sock, const struct egress_proxy *p, struct conn *c,
			uint16_t port)
{
	bool dialed = false;

	for (;;) {
		union {
			uint32_t type;
			struct egress_msg_dial dial;
			struct egress_msg_done done;
		} msg;
		struct pollfd f[2] = {{.fd = sock, .events = POLLIN},
				      {.fd = p->stop_fd, .events = POLLIN}};
		ssize_t n;

		if (poll(f, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (p->stop_fd >= 0 && f[1].revents)
			return false;
		/* no descriptor is taken from it: none is asked for */
		n = recv(sock, &msg, sizeof(msg), 0);
		if (n <= 0)
			return false;
		if (msg.type == EGRESS_MSG_DIAL && !dialed &&
		    n == (ssize_t)sizeof(msg.dial)) {
			dialed = true;
			answer(sock, c, &msg.dial);
		} else if (msg.type == EGRESS_MSG_DONE &&
			   n == (ssize_t)sizeof(msg.done)) {
			log_done(p, c, &msg.done, port);
			return true;
		} else {
			return false; /* a second dial, or not a record */
		}
	}
}

/* A deny line for a connection that ended without its program's verdict
 * (not started, crashed, or the container's end). */
static void log_lost(const struct egress_proxy *p, struct conn *c,
		     uint16_t port, const char *why)
{
	struct egress_msg_done d = {0};

	snprintf(d.reason, sizeof(d.reason), "%s", why);
	snprintf(d.method, sizeof(d.method), "?");
	log_done(p, c, &d, port);
}

void egress_broker_run(int client, uint16_t port, const struct egress_proxy *p)
{
	struct conn c = {.p = p, .client = -1, .up = -1};
	int sv[2] = {-1, -1};
	pid_t child = -1;

	c.d.start_ms = egress_now_ms();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0 &&
	    (child = fork()) == 0)
		start_child(client, sv[1], port, p);
	if (sv[1] >= 0)
		close(sv[1]);
	close(client);
	if (child < 0)
		log_lost(p, &c, port,
			 "the connection's process could not be started");
	else if (!serve_child(sv[0], p, &c, port))
		log_lost(p, &c, port,
			 "the connection's process ended without a verdict");
	if (sv[0] >= 0)
		close(sv[0]);
	if (child > 0)
		waitpid(child, NULL, 0);
	free(c.name);
	free(c.rule_text);
}
