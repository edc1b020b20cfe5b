/* One client connection of the egress proxy, in its own process: read the
 * request head, decide, resolve, connect, check the TLS server name (for
 * CONNECT) or rewrite the request (plain HTTP), relay, log.  Every read
 * has a deadline and every buffer a bound; the head is parsed strictly
 * (CRLF line ends only, token header names, no folding, one Host and one
 * Content-Length), because the upstream server must not read a request
 * other than the one checked here. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress_proxy.h"
#include "tls_hello.h"
#include "util.h"

/* A relay reads and writes up to this much at a time: on loopback, fewer
 * and bigger writes are most of the throughput (1 MiB moves about a fifth
 * more than 64 KiB; splice(2) through a pipe moved less than either) */
#define RELAY_BUF (1 << 20)
#define HELLO_BUF (TLS_HELLO_MAX + 4 * 5 + 64)
#define CANDIDATES (2 * DNS_ADDRS_MAX)

struct conn {
	const struct egress_proxy *p;
	int client, up;
	char *head;
	size_t len, end; /* bytes read; the head's end (after CRLFCRLF) */
	char *method, *target;
	char *headers;	   /* the first header line (the request line is cut) */
	char *host_header; /* its value, trimmed */
	long long content_length; /* -1: none */
	bool plain;		  /* plain HTTP, not CONNECT */
	char *name;		  /* normalized host, or address text */
	uint16_t port;
	struct egress_addr addr; /* family 0: a name */
	const struct egress_rule *rule;
	char *rule_text;
	struct egress_addr resolved[CANDIDATES];
	size_t n_resolved;
	struct egress_addr chosen;
	bool connected;
	struct egress_decision d;
};

/* ---- answers and the log --------------------------------------------- */

static void send_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (size_t)w;
	}
}

static void finish(struct conn *c, const char *verdict, const char *reason)
{
	c->d.method = c->method ? c->method : "?";
	c->d.name = c->name ? c->name : c->target;
	c->d.port = c->port;
	c->d.resolved = c->resolved;
	c->d.n_resolved = c->n_resolved;
	c->d.chosen = c->connected ? &c->chosen : NULL;
	c->d.rule = c->rule_text;
	c->d.verdict = verdict;
	c->d.reason = reason;
	egress_log(c->p, &c->d);
}

/* An error answer: the status, a header saying it was corral, and one
 * line naming the host and what would allow it. */
static void refuse(struct conn *c, int status, const char *title,
		   const char *reason)
{
	char body[512], msg[1024];
	int nb, nm;

	if (c->name)
		nb = snprintf(body, sizeof(body),
			      "corral: egress to %s:%u refused: %s\n", c->name,
			      c->port, reason);
	else
		nb = snprintf(body, sizeof(body),
			      "corral: egress refused: %s\n", reason);
	nb = nb < 0 ? 0 : nb >= (int)sizeof(body) ? (int)sizeof(body) - 1 : nb;
	nm = snprintf(msg, sizeof(msg),
		      "HTTP/1.1 %d %s\r\nX-Corral-Egress: denied\r\n"
		      "Content-Type: text/plain\r\nContent-Length: %d\r\n"
		      "Connection: close\r\n\r\n%.*s",
		      status, title, nb, nb, body);
	if (nm > 0 && nm < (int)sizeof(msg))
		send_all(c->client, msg, (size_t)nm);
	finish(c, "deny", reason);
}

/* ---- reading with deadlines ------------------------------------------ */

/* Wait until fd is readable or the deadline passes (or the container's
 * init is gone); 1 readable, 0 timeout or stop. */
static int wait_readable(const struct conn *c, int fd, long long deadline)
{
	for (;;) {
		struct pollfd f[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = c->p->stop_fd, .events = POLLIN}};
		long long left = deadline - egress_now_ms();
		int r;

		if (left <= 0)
			return 0;
		r = poll(f, 2, left > 60000 ? 60000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (c->p->stop_fd >= 0 && f[1].revents))
			return 0;
		if (f[0].revents)
			return 1;
	}
}

static ssize_t read_some(const struct conn *c, int fd, char *buf, size_t n,
			 long long deadline)
{
	ssize_t r;

	if (!wait_readable(c, fd, deadline))
		return -2;
	do
		r = recv(fd, buf, n, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

/* The request head, up to and including its empty line. */
static int read_head(struct conn *c, const char **why)
{
	long long deadline = egress_now_ms() + c->p->head_ms;
	size_t max = c->p->head_max;

	for (;;) {
		char *e;
		ssize_t r;

		c->head[c->len] = '\0';
		if (memchr(c->head, '\0', c->len)) {
			*why = "a NUL byte in the request head";
			return 400;
		}
		if ((e = strstr(c->head, "\r\n\r\n"))) {
			c->end = (size_t)(e - c->head) + 4;
			return 0;
		}
		if (c->len >= max) {
			*why = "request head too large";
			return 431;
		}
		r = read_some(c, c->client, c->head + c->len, max - c->len,
			      deadline);
		if (r == -2) {
			*why = "no complete request head in time";
			return 408;
		}
		if (r <= 0) {
			*why = "the client closed before a request";
			return -1;
		}
		c->len += (size_t)r;
	}
}

/* ---- the request ----------------------------------------------------- */

static bool tchar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* Hop-by-hop headers, and those of the proxy: not sent upstream. */
static bool dropped_header(const char *line, size_t name_len)
{
	static const char *const names[] = {
	    "connection",
	    "proxy-connection",
	    "keep-alive",
	    "te",
	    "trailer",
	    "upgrade",
	    "proxy-authorization",
	    "proxy-authenticate",
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == name_len &&
		    strncasecmp(line, names[i], name_len) == 0)
			return true;
	return false;
}

/* Split the head into lines in place, checking each. */
static int parse_head(struct conn *c, const char **why)
{
	char *line = c->head, *stop = c->head + c->end - 2;
	char *sp1, *sp2;

	for (char *q = c->head; q < stop; q++) {
		if ((*q == '\r') != (q[1] == '\n') &&
		    (*q == '\r' || q[1] == '\n')) {
			*why = "a line not ended by CRLF";
			return 400;
		}
	}
	/* the request line */
	sp1 = strchr(line, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || sp1 == line || sp2 == sp1 + 1 ||
	    (strncmp(sp2 + 1, "HTTP/1.1\r\n", 10) != 0 &&
	     strncmp(sp2 + 1, "HTTP/1.0\r\n", 10) != 0)) {
		*why = "malformed request line";
		return 400;
	}
	*sp1 = *sp2 = '\0';
	c->method = line;
	c->target = sp1 + 1;
	for (char *m = c->method; *m; m++)
		if (!tchar(*m)) {
			*why = "malformed method";
			return 400;
		}
	for (char *t = c->target; *t; t++)
		if ((unsigned char)*t <= ' ' || (unsigned char)*t >= 0x7f) {
			*why = "malformed request target";
			return 400;
		}
	line = strstr(sp2 + 1, "\r\n") + 2;
	c->headers = line;
	c->content_length = -1;
	while (line < stop) {
		char *eol = strstr(line, "\r\n"), *colon = line, *v;

		while (tchar(*colon))
			colon++;
		if (colon == line || *colon != ':') {
			*why = "malformed header line";
			return 400;
		}
		*eol = '\0';
		for (v = colon + 1; *v; v++)
			if ((unsigned char)*v < ' ' && *v != '\t') {
				*why = "a control character in a header";
				return 400;
			}
		v = colon + 1 + strspn(colon + 1, " \t");
		if (colon - line == 4 && strncasecmp(line, "host", 4) == 0) {
			if (c->host_header) {
				*why = "two Host headers";
				return 400;
			}
			size_t n = strlen(v);

			while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
				n--;
			c->host_header = strndup(v, n);
			if (!c->host_header) {
				*why = "out of memory";
				return 500;
			}
		} else if (colon - line == 14 &&
			   strncasecmp(line, "content-length", 14) == 0) {
			char *end;

			if (c->content_length >= 0 || !*v ||
			    v[strspn(v, "0123456789")] != '\0' ||
			    strlen(v) > 15) {
				*why = "a bad or repeated Content-Length";
				return 400;
			}
			c->content_length = strtoll(v, &end, 10);
		} else if (colon - line == 17 &&
			   strncasecmp(line, "transfer-encoding", 17) == 0) {
			*why = "a chunked request body (send Content-Length)";
			return 411;
		}
		*eol = '\r';
		line = eol + 2;
	}
	return 0;
}

/* ---- the decision ---------------------------------------------------- */

/* The authority of the request: CONNECT's target, or an absolute http://
 * URL's; for plain HTTP the Host header must name the same. */
static int authority(struct conn *c, char **path, const char **why)
{
	_cleanup_free_ char *auth = NULL, *hh = NULL;
	struct error *err = NULL;
	struct egress_addr ha;
	uint16_t hport;
	char *t = c->target;

	c->plain = strcmp(c->method, "CONNECT") != 0;
	if (c->plain) {
		size_t n;

		if (strncasecmp(t, "http://", 7) != 0) {
			*why = "only CONNECT and absolute http:// requests go "
			       "through the proxy";
			return 400;
		}
		t += 7;
		n = strcspn(t, "/?#");
		auth = strndup(t, n);
		*path = t[n] == '/' ? t + n : NULL;
		if (t[n] == '?' || t[n] == '#') {
			*why = "a request target without a path";
			return 400;
		}
	} else {
		auth = strdup(t);
	}
	if (!auth) {
		*why = "out of memory";
		return 500;
	}
	if (egress_parse_authority(
		auth, c->plain ? EGRESS_PORT_HTTP : EGRESS_PORT_HTTPS, &c->name,
		&c->port, &c->addr, &err) < 0) {
		error_free(err);
		*why = "the host is not a name or address a rule can match";
		return 400;
	}
	if (!c->plain)
		return 0;
	if (!c->host_header) {
		*why = "no Host header";
		return 400;
	}
	if (egress_parse_authority(c->host_header, EGRESS_PORT_HTTP, &hh,
				   &hport, &ha, &err) < 0 ||
	    strcmp(hh, c->name) != 0 || hport != c->port) {
		error_free(err);
		*why = "the Host header names another host than the request";
		return 400;
	}
	return 0;
}

/* The socket address of a at port. */
static socklen_t sockaddr_of(const struct egress_addr *a, uint16_t port,
			     struct sockaddr_storage *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (a->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->bytes, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	memcpy(&s6->sin6_addr, a->bytes, 16);
	return sizeof(*s6);
}

/* One query to one server over UDP, answers of another id ignored. */
static enum dns_result ask(const struct conn *c, const struct egress_addr *srv,
			   uint16_t type, struct egress_addr *out, size_t max,
			   size_t *n)
{
	unsigned char q[300], a[DNS_MSG_MAX];
	struct sockaddr_storage sa;
	long long deadline = egress_now_ms() + c->p->dns_ms;
	enum dns_result r = DNS_FAIL;
	uint16_t id;
	size_t qlen;
	int fd;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		return DNS_FAIL;
	qlen = dns_query(id, c->name, type, q, sizeof(q));
	if (qlen == 0)
		return DNS_BAD;
	fd = socket(srv->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return DNS_FAIL;
	if (connect(fd, (struct sockaddr *)&sa, sockaddr_of(srv, 53, &sa)) ==
		0 &&
	    send(fd, q, qlen, 0) == (ssize_t)qlen) {
		ssize_t got;

		while ((got = read_some(c, fd, (char *)a, sizeof(a),
					deadline)) > 0) {
			r = dns_answer(a, (size_t)got, id, c->name, type, out,
				       max, n);
			if (r != DNS_BAD)
				break;
			r = DNS_FAIL;
		}
	}
	close(fd);
	return r;
}

/* The name's addresses: /etc/hosts first, then each nameserver in turn
 * until one answers. */
static const char *resolve(struct conn *c)
{
	const struct egress_resolver *r = c->p->resolver;
	static const uint16_t types[] = {DNS_TYPE_A, DNS_TYPE_AAAA};

	if (r->hosts)
		c->n_resolved = dns_hosts_lookup(
		    r->hosts, r->hosts_len, c->name, c->resolved, CANDIDATES);
	if (c->n_resolved)
		return NULL;
	for (size_t s = 0; s < r->n_servers; s++) {
		bool answered = false;

		for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
			size_t got = 0;
			enum dns_result d =
			    ask(c, &r->servers[s], types[t],
				c->resolved + c->n_resolved,
				CANDIDATES - c->n_resolved, &got);

			if (d == DNS_NXDOMAIN)
				return "the name does not exist (NXDOMAIN)";
			if (d == DNS_OK) {
				answered = true;
				c->n_resolved += got;
			}
		}
		if (answered)
			return c->n_resolved ? NULL : "the name has no address";
	}
	return "no nameserver answered";
}

/* ---- connecting and relaying ----------------------------------------- */

static int dial(struct conn *c, const struct egress_addr *a)
{
	struct sockaddr_storage sa;
	socklen_t len = sockaddr_of(a, c->port, &sa);
	int fd, err = 0;
	socklen_t elen = sizeof(err);
	struct pollfd pf;

	fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	pf = (struct pollfd){.fd = fd, .events = POLLOUT};
	if (poll(&pf, 1, c->p->connect_ms) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err ||
	    fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Bytes both ways (both) or only upstream to client, until upstream's
 * end, an error or idle_ms of nothing. */
static void relay(struct conn *c, bool both)
{
	static char buf[RELAY_BUF];
	bool client_open = both, up_open = true;

	while (client_open || up_open) {
		struct pollfd f[3] = {
		    {.fd = client_open ? c->client : -1, .events = POLLIN},
		    {.fd = up_open ? c->up : -1, .events = POLLIN},
		    {.fd = c->p->stop_fd, .events = POLLIN}};
		int r = poll(f, 3, c->p->idle_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (c->p->stop_fd >= 0 && f[2].revents))
			return;
		for (int i = 0; i < 2; i++) {
			int from = i == 0 ? c->client : c->up;
			int to = i == 0 ? c->up : c->client;
			ssize_t n;

			if (!f[i].revents)
				continue;
			n = recv(from, buf, sizeof(buf), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				shutdown(to, SHUT_WR);
				/* upstream's end is the tunnel's end */
				if (i == 1)
					return;
				client_open = false;
				continue;
			}
			send_all(to, buf, (size_t)n);
			if (i == 0)
				c->d.up += (unsigned long long)n;
			else
				c->d.down += (unsigned long long)n;
		}
	}
}

/* The rule that allows the request, then the address to connect to: an
 * address literal only by an address rule; a name's resolved addresses
 * each refused in a refused range unless an address rule names it, and
 * the first that connects is the one (no second lookup). */
static int decide(struct conn *c, const char **why)
{
	const char *range = NULL, *failed;
	size_t i;

	if (c->addr.family) {
		c->rule = egress_match_addr(c->p->rules, c->p->n_rules,
					    &c->addr, c->port, c->plain);
		if (!c->rule) {
			*why = "an address is reached only when a rule of the "
			       "host policy's network.allow names it";
			return 403;
		}
		c->resolved[0] = c->addr;
		c->n_resolved = 1;
	} else {
		c->rule = egress_match_name(c->p->rules, c->p->n_rules, c->name,
					    c->port, c->plain);
		if (!c->rule) {
			*why = "no rule of the host policy's network.allow "
			       "names this host and port";
			return 403;
		}
	}
	c->rule_text = egress_rule_text(c->rule);
	if (!c->addr.family && (failed = resolve(c))) {
		*why = failed;
		return 502;
	}
	for (i = 0; i < c->n_resolved; i++) {
		const struct egress_addr *a = &c->resolved[i];
		const char *r = egress_addr_range(a);

		if (r && !c->addr.family &&
		    !egress_match_addr(c->p->rules, c->p->n_rules, a, c->port,
				       c->plain)) {
			range = range ? range : r;
			continue;
		}
		c->up = dial(c, a);
		if (c->up >= 0) {
			c->chosen = *a;
			c->connected = true;
			return 0;
		}
	}
	if (range) {
		static char msg[160];

		snprintf(msg, sizeof(msg),
			 "the name resolves only to refused addresses (%s); a "
			 "rule naming the address would allow it",
			 range);
		*why = msg;
		return 403;
	}
	*why = "could not connect to any address of the host";
	return 502;
}

/* CONNECT: the tunnel opens only for a ClientHello whose server name is
 * the host asked for (an address rule needs none). */
static void tunnel(struct conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	static char hello[HELLO_BUF];
	long long deadline = egress_now_ms() + c->p->hello_ms;
	size_t n = c->len - c->end;
	char sni[TLS_NAME_MAX + 1];
	const char *why;
	enum tls_hello h;

	if (n > sizeof(hello))
		n = sizeof(hello);
	memcpy(hello, c->head + c->end, n);
	send_all(c->client, ok, sizeof(ok) - 1);
	while ((h = tls_hello_sni((unsigned char *)hello, n, sni, &why)) ==
	       TLS_HELLO_MORE) {
		ssize_t r = n < sizeof(hello)
				? read_some(c, c->client, hello + n,
					    sizeof(hello) - n, deadline)
				: 0;

		if (r <= 0) {
			finish(c, "deny",
			       r == -2 ? "no TLS ClientHello in time"
				       : "the client sent no whole TLS "
					 "ClientHello");
			return;
		}
		n += (size_t)r;
	}
	if (h == TLS_HELLO_BAD) {
		finish(c, "deny", "not a TLS ClientHello");
		return;
	}
	if (!c->addr.family) {
		_cleanup_free_ char *norm = NULL;
		struct error *err = NULL;

		if (h == TLS_HELLO_NO_SNI) {
			finish(c, "deny",
			       "the TLS ClientHello names no server");
			return;
		}
		if (egress_normalize_host(sni, &norm, &err) < 0 ||
		    strcmp(norm, c->name) != 0) {
			error_free(err);
			finish(c, "deny",
			       "the TLS server name is not the host of the "
			       "CONNECT");
			return;
		}
	}
	send_all(c->up, hello, n);
	c->d.up += n;
	relay(c, true);
	finish(c, "allow", "tunnel closed");
}

/* Plain HTTP: the request goes upstream in origin form with the same
 * headers but the hop-by-hop ones and Connection: close, then exactly
 * Content-Length bytes of body; nothing more of the client is read, so
 * a second request on the connection never reaches the upstream
 * unchecked. */
static void forward(struct conn *c, const char *path)
{
	static char buf[RELAY_BUF];
	long long left = c->content_length > 0 ? c->content_length : 0;
	char *line = c->headers, *stop = c->head + c->end - 2;
	size_t have = c->len - c->end;
	FILE *f;
	char *req = NULL;
	size_t req_len = 0;

	f = open_memstream(&req, &req_len);
	if (!f) {
		finish(c, "deny", "out of memory");
		return;
	}
	fprintf(f, "%s %s HTTP/1.1\r\n", c->method, path ? path : "/");
	while (line < stop) {
		char *eol = strstr(line, "\r\n");
		size_t name = strcspn(line, ":");

		if (!dropped_header(line, name))
			fprintf(f, "%.*s\r\n", (int)(eol - line), line);
		line = eol + 2;
	}
	fputs("Connection: close\r\n\r\n", f);
	if (fclose(f) != 0) {
		free(req);
		finish(c, "deny", "out of memory");
		return;
	}
	send_all(c->up, req, req_len);
	c->d.up += req_len;
	free(req);
	if ((long long)have > left)
		have = (size_t)left; /* a pipelined request: dropped */
	send_all(c->up, c->head + c->end, have);
	left -= (long long)have;
	c->d.up += have;
	while (left > 0) {
		ssize_t r = read_some(
		    c, c->client, buf,
		    left < (long long)sizeof(buf) ? (size_t)left : sizeof(buf),
		    egress_now_ms() + c->p->idle_ms);

		if (r <= 0)
			break;
		send_all(c->up, buf, (size_t)r);
		left -= r;
		c->d.up += (unsigned long long)r;
	}
	relay(c, false);
	finish(c, "allow", "response relayed");
}

static const char *status_title(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 408:
		return "Request Timeout";
	case 411:
		return "Length Required";
	case 431:
		return "Request Header Fields Too Large";
	case 502:
		return "Bad Gateway";
	default:
		return "Internal Server Error";
	}
}

void egress_conn_handle(int client, const struct egress_proxy *p)
{
	struct conn c = {.p = p, .client = client, .up = -1};
	const char *why = "";
	char *path = NULL;
	int status;

	c.d.start_ms = egress_now_ms();
	c.head = malloc(p->head_max + 1);
	if (!c.head)
		return;
	status = read_head(&c, &why);
	if (status == 0)
		status = parse_head(&c, &why);
	if (status == 0)
		status = authority(&c, &path, &why);
	if (status == 0)
		status = decide(&c, &why);
	if (status > 0)
		refuse(&c, status, status_title(status), why);
	else if (status == 0 && c.plain)
		forward(&c, path);
	else if (status == 0)
		tunnel(&c);
	if (c.up >= 0)
		close(c.up);
	free(c.name);
	free(c.host_header);
	free(c.rule_text);
	free(c.head);
}
