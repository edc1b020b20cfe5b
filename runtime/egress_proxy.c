/* The egress proxy's accepting loop, its resolver files, its log and its
 * seccomp filter.  Connections are handled in egress_conn.c. */
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
#include "seccomp_filter.h"
#include "util.h"

#define RESOLVER_FILE_MAX (1 << 20)
#define LOG_LINE_MAX 4096

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

/* A JSON string: every byte outside printable ASCII, and the quote and
 * backslash, escaped (a name is the workload's text). */
static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c;
	     c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void put_addr(FILE *f, const struct egress_addr *a)
{
	char text[64];

	egress_addr_text(a, text, sizeof(text));
	put_json_str(f, text);
}

static const char *const kind_names[EGRESS_KINDS] = {
    [EGRESS_KIND_PROXY] = "proxy",
    [EGRESS_KIND_TRANSPARENT] = "transparent",
    [EGRESS_KIND_DNS] = "dns",
};

/* Each kind's and verdict's share of the log, in bytes: 7.25 MiB in all,
 * the rest of log_max (8 MiB) left for the lines that say a share is
 * spent.  The file is in the state directory, on the host's tmpfs: a
 * workload must not fill it, nor crowd out one kind of line with another
 * (20,000 refused names must not hide the request that was let through). */
static const uint64_t log_budget[EGRESS_KINDS][EGRESS_VERDICTS] = {
    [EGRESS_KIND_PROXY] = {2 << 20, 1 << 20},
    [EGRESS_KIND_TRANSPARENT] = {2 << 20, 1 << 20},
    [EGRESS_KIND_DNS] = {256 << 10, 1 << 20},
};

static enum egress_log_kind kind_of(const char *kind)
{
	for (int k = 0; k < EGRESS_KINDS; k++)
		if (kind && strcmp(kind, kind_names[k]) == 0)
			return (enum egress_log_kind)k;
	return EGRESS_KIND_PROXY;
}

/* Take n bytes of the share, if they fit. */
static bool take_budget(struct egress_counts *c, int k, int v, size_t n)
{
	uint64_t used = __atomic_load_n(&c->logged[k][v], __ATOMIC_RELAXED);

	do {
		if (used + n > log_budget[k][v])
			return false;
	} while (!__atomic_compare_exchange_n(&c->logged[k][v], &used, used + n,
					      true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

/* One line, one write(): O_APPEND keeps concurrent processes' lines
 * whole.  Past log_max bytes nothing more is written at all. */
static void write_line(const struct egress_proxy *p, char *line, long n)
{
	off_t size = lseek(p->log_fd, 0, SEEK_END);

	if (size < 0 || (size_t)size >= p->log_max)
		return;
	line[n] = '\n';
	if (write(p->log_fd, line, (size_t)n + 1) < 0)
		return;
}

/* The line about kind k's and verdict v's share: spent (dropped 0, when
 * the first line is dropped) or, at the end, how many were. */
static void log_share(const struct egress_proxy *p, int k, int v,
		      uint64_t dropped)
{
	char line[LOG_LINE_MAX], now[64];
	int n;

	now_rfc3339(now, sizeof(now));
	if (dropped)
		n = snprintf(
		    line, sizeof(line) - 1,
		    "{\"time\":\"%s\",\"kind\":\"%s\",\"verdict\":"
		    "\"%s\",\"dropped\":%llu,\"reason\":\"%llu lines "
		    "dropped: their share of the log (%llu bytes) was "
		    "spent; corral report counts them\"}",
		    now, kind_names[k], v == EGRESS_ALLOW ? "allow" : "deny",
		    (unsigned long long)dropped, (unsigned long long)dropped,
		    (unsigned long long)log_budget[k][v]);
	else
		n = snprintf(line, sizeof(line) - 1,
			     "{\"time\":\"%s\",\"kind\":\"%s\",\"verdict\":"
			     "\"%s\",\"dropped\":0,\"reason\":\"the share of "
			     "the log for these lines (%llu bytes) is spent: "
			     "the next ones are counted, not written\"}",
			     now, kind_names[k],
			     v == EGRESS_ALLOW ? "allow" : "deny",
			     (unsigned long long)log_budget[k][v]);
	if (n > 0 && n < (int)sizeof(line) - 1)
		write_line(p, line, n);
}

/* The line of d in line (LOG_LINE_MAX bytes, without its newline): its
 * length, or -1 when it did not fit (a line is never written half). */
static long format_line(const struct egress_proxy *p,
			const struct egress_decision *d, char *line)
{
	char now[64];
	FILE *f = fmemopen(line, LOG_LINE_MAX, "w");
	long n;

	if (!f)
		return -1;
	now_rfc3339(now, sizeof(now));
	fprintf(f, "{\"time\":\"%s\",\"container\":", now);
	put_json_str(f, p->container_id);
	fprintf(f, ",\"kind\":");
	put_json_str(f, d->kind ? d->kind : "proxy");
	fprintf(f, ",\"method\":");
	put_json_str(f, d->method);
	fprintf(f, ",\"name\":");
	put_json_str(f, d->name);
	fprintf(f, ",\"port\":%u,\"resolved\":[", d->port);
	for (size_t i = 0; i < d->n_resolved; i++) {
		if (i)
			fputc(',', f);
		put_addr(f, &d->resolved[i]);
	}
	fprintf(f, "],\"address\":");
	if (d->chosen)
		put_addr(f, d->chosen);
	else
		fputs("null", f);
	fprintf(f, ",\"rule\":");
	if (d->rule)
		put_json_str(f, d->rule);
	else
		fputs("null", f);
	fprintf(f, ",\"verdict\":\"%s\",\"reason\":", d->verdict);
	put_json_str(f, d->reason);
	fprintf(f,
		",\"bytes_up\":%llu,\"bytes_down\":%llu,\"duration_ms\":%lld}",
		d->up, d->down, egress_now_ms() - d->start_ms);
	n = ftell(f);
	fclose(f);
	return n <= 0 || n >= LOG_LINE_MAX - 1 ? -1 : n;
}

void egress_log(const struct egress_proxy *p, const struct egress_decision *d)
{
	char line[LOG_LINE_MAX];
	int k = kind_of(d->kind);
	int v = d->verdict && strcmp(d->verdict, "allow") == 0 ? EGRESS_ALLOW
							       : EGRESS_DENY;
	long n;

	if (p->counts)
		__atomic_add_fetch(&p->counts->decisions[k][v], 1,
				   __ATOMIC_RELAXED);
	if (p->log_fd < 0 || (n = format_line(p, d, line)) < 0)
		return;
	if (p->counts && !take_budget(p->counts, k, v, (size_t)n + 1)) {
		if (__atomic_fetch_add(&p->counts->dropped[k][v], 1,
				       __ATOMIC_RELAXED) == 0)
			log_share(p, k, v, 0);
		return;
	}
	write_line(p, line, n);
}

void egress_log_dropped(const struct egress_proxy *p)
{
	if (!p->counts || p->log_fd < 0)
		return;
	for (int k = 0; k < EGRESS_KINDS; k++)
		for (int v = 0; v < EGRESS_VERDICTS; v++) {
			uint64_t n = __atomic_load_n(&p->counts->dropped[k][v],
						     __ATOMIC_RELAXED);

			if (n)
				log_share(p, k, v, n);
		}
}

/* ---- the filter ------------------------------------------------------ */

/* Built with the others at build time (seccomp_egress_build in
 * seccomp_baseline.c, copied by seccomp_egress_compile): the helper spends
 * no time in libseccomp. */
int egress_proxy_seccomp(struct error **err)
{
	struct seccomp_program prog;
	int r;

	if (seccomp_egress_compile(&prog, err) < 0)
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
