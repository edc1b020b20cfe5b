/* The egress proxy's accepting loop, its resolver files and its seccomp
 * filter.  Connections are handled by their brokers (egress_broker.c),
 * and every decision is logged by egress_log.c. */
#include "egress_proxy.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "egress_seccomp.h"
#include "util.h"

#define RESOLVER_FILE_MAX (1 << 20)

void egress_proxy_defaults(struct egress_proxy *p)
{
	*p = (struct egress_proxy){
	    .log_fd = -1,
	    .stop_fd = -1,
	    .max_conns = 64,
	    .head_max = 16384,
	    .log_max = 8 << 20,
	    .head_ms = 10000,
	    .connect_ms = 10000,
	    .hello_ms = 10000,
	    .dns_ms = 3000,
	    .idle_ms = 300000,
	};
}

/* ---- the resolver's files -------------------------------------------- */

int egress_resolver_load(int hosts_fd, int resolv_fd,
			 struct egress_resolver **out, struct error **err)
{
	struct egress_resolver *r = calloc(1, sizeof(*r));
	_cleanup_free_ char *resolv = NULL;
	size_t len = 0;

	if (!r)
		return error_set(err, ENOMEM, "out of memory");
	if (hosts_fd >= 0 &&
	    read_fd(hosts_fd, "/etc/hosts", &r->hosts, &r->hosts_len, err) < 0)
		goto fail;
	if (resolv_fd >= 0 &&
	    read_fd(resolv_fd, "/etc/resolv.conf", &resolv, &len, err) < 0)
		goto fail;
	if (r->hosts_len > RESOLVER_FILE_MAX || len > RESOLVER_FILE_MAX) {
		error_set(err, EFBIG, "resolver files larger than %d bytes",
			  RESOLVER_FILE_MAX);
		goto fail;
	}
	if (resolv)
		r->n_servers =
		    dns_nameservers(resolv, len, r->servers, DNS_SERVERS_MAX);
	*out = r;
	return 0;
fail:
	free(r->hosts);
	free(r);
	return -1;
}

/* ---- the log --------------------------------------------------------- */

/* Built with the others at build time (seccomp_egress_build in
 * egress_seccomp.c) and copied here: the helper spends no time in
 * libseccomp, but on another architecture than the build's. */
int egress_proxy_seccomp(struct error **err)
{
	struct seccomp_program prog;
	int copied =
	    seccomp_prebuilt_copy(&seccomp_prebuilt_egress, &prog, err);
	int r;

	if (copied < 0 || (copied == 0 && seccomp_egress_build(&prog, err) < 0))
		return -1;
	r = seccomp_program_load(&prog, err);
	seccomp_program_free(&prog);
	return r;
}

/* ---- the accepting loop ---------------------------------------------- */

static unsigned reap(void)
{
	unsigned n = 0;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		n++;
	return n;
}

/* Past max_conns a client gets 503 at once: the workload can hold the
 * proxy's connections, never make it grow without bound. */
static void refuse_busy(int fd)
{
	static const char busy[] =
	    "HTTP/1.1 503 Service Unavailable\r\nX-Corral-Egress: busy\r\n"
	    "Content-Length: 0\r\nConnection: close\r\n\r\n";

	if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return;
}

/* The type of a DNS question as the log writes it. */
static const char *dns_type_name(uint16_t type, char *buf, size_t size)
{
	switch (type) {
	case DNS_TYPE_A:
		return "A";
	case DNS_TYPE_AAAA:
		return "AAAA";
	case 16:
		return "TXT";
	default:
		snprintf(buf, size, "TYPE%u", type);
		return buf;
	}
}

/* Queries waiting on the stub's socket, each answered at once; at most
 * DNS_BATCH per turn of the loop, so that a flood of them never keeps a
 * connection from being accepted.  A name no rule allows is one line of
 * the log (which stops at log_max, whatever the rate). */
#define DNS_BATCH 32

static void serve_dns(int fd, const struct egress_proxy *p)
{
	for (int i = 0; i < DNS_BATCH; i++) {
		unsigned char q[DNS_MSG_MAX], a[DNS_MSG_MAX];
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		struct dns_stub_result res;
		ssize_t n = recvfrom(fd, q, sizeof(q), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);
		char type[16];

		/* EAGAIN: none left; another error: the next turn */
		if (n < 0)
			return;
		dns_stub_answer(q, (size_t)n, p->rules, p->n_rules, a,
				sizeof(a), &res);
		if (res.verdict == DNS_STUB_DROP)
			continue;
		if (sendto(fd, a, res.len, MSG_DONTWAIT,
			   (struct sockaddr *)&from, flen) < 0)
			continue;
		if (res.verdict == DNS_STUB_NXDOMAIN) {
			struct egress_decision d = {
			    .kind = "dns",
			    .method =
				dns_type_name(res.q.type, type, sizeof(type)),
			    .name = res.q.name,
			    .port = EGRESS_DNS_PORT,
			    .verdict = "deny",
			    .reason =
				"no rule of the host policy's "
				"network.allow names this host (NXDOMAIN)",
			    .start_ms = egress_now_ms(),
			};

			egress_log(p, &d);
		}
	}
}

/* The connection on fd, in a process of its own. */
static void accept_one(int fd, uint16_t port, const struct egress_listeners *l,
		       const struct egress_proxy *p, unsigned *active)
{
	pid_t child;
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return;
	if (*active >= p->max_conns) {
		if (!port)
			refuse_busy(c);
		close(c);
		return;
	}
	child = fork();
	if (child == 0) {
		close(l->proxy);
		if (l->dns >= 0)
			close(l->dns);
		for (size_t i = 0; i < l->n_transparent; i++)
			close(l->transparent[i].fd);
		egress_broker_run(c, port, p);
		_exit(0);
	}
	if (child > 0)
		(*active)++;
	close(c);
}

int egress_proxy_serve(const struct egress_listeners *l,
		       const struct egress_proxy *p, struct error **err)
{
	const size_t nfds = 3 + l->n_transparent;
	_cleanup_free_ struct pollfd *fds = calloc(nfds, sizeof(*fds));
	unsigned active = 0;

	if (!fds)
		return error_set(err, ENOMEM, "out of memory");
	fds[0] = (struct pollfd){.fd = p->stop_fd, .events = POLLIN};
	fds[1] = (struct pollfd){.fd = l->proxy, .events = POLLIN};
	fds[2] = (struct pollfd){.fd = l->dns, .events = POLLIN};
	for (size_t i = 0; i < l->n_transparent; i++)
		fds[3 + i] = (struct pollfd){.fd = l->transparent[i].fd,
					     .events = POLLIN};
	for (;;) {
		unsigned done = reap();

		active = done > active ? 0 : active - done;
		if (poll(fds, nfds, 1000) < 0 && errno != EINTR)
			return error_errno(err, "egress: poll");
		if (p->stop_fd >= 0 && fds[0].revents) {
			egress_log_dropped(p);
			return 0;
		}
		if (fds[2].revents & POLLIN)
			serve_dns(l->dns, p);
		if (fds[1].revents & POLLIN)
			accept_one(l->proxy, 0, l, p, &active);
		for (size_t i = 0; i < l->n_transparent; i++)
			if (fds[3 + i].revents & POLLIN)
				accept_one(l->transparent[i].fd,
					   l->transparent[i].port, l, p,
					   &active);
	}
}
