/* One client connection of the egress proxy, in its own program
 * (egress/main.c, runtime/egress/egress_child.h): read the request head, ask
 * the broker for the upstream (which decides, resolves and connects), check the
 * TLS server name (for CONNECT) or rewrite the request (plain HTTP), relay,
 * tell the broker the verdict.  Every read has a deadline and every buffer a
 * bound; the head is parsed strictly (CRLF line ends only, token header names,
 * no folding, one Host and one Content-Length), because the upstream server
 * must not read a request other than the one checked here. */
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

#include "egress_conn.h"
#include "tls_hello.h"
#include "util.h"

#define HELLO_BUF (TLS_HELLO_MAX + 4 * 5 + 64)

/* ---- answers and the log --------------------------------------------- */

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
	conn_done(c);
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
		conn_send_all(c->client, msg, (size_t)nm);
	finish(c, "deny", reason);
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
		r = conn_read_some(c, c->client, c->head + c->len, max - c->len,
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

/* The TLS ClientHello, its first n bytes already in hello, read whole
 * by the deadline (hello_ms from now) into hello (HELLO_BUF bytes); its
 * server name in sni.  TLS_HELLO_OK or TLS_HELLO_NO_SNI; otherwise the
 * connection is denied in the log and it returns TLS_HELLO_BAD. */
static enum tls_hello read_hello(struct conn *c, char *hello, size_t *n,
				 char *sni)
{
	long long deadline = egress_now_ms() + c->p->hello_ms;
	const char *why;
	enum tls_hello h;

	while ((h = tls_hello_sni((unsigned char *)hello, *n, sni, &why)) ==
	       TLS_HELLO_MORE) {
		ssize_t r = *n < HELLO_BUF
				? conn_read_some(c, c->client, hello + *n,
						 HELLO_BUF - *n, deadline)
				: 0;

		if (r <= 0) {
			finish(c, "deny",
			       r == -2 ? "no TLS ClientHello in time"
				       : "the client sent no whole TLS "
					 "ClientHello");
			return TLS_HELLO_BAD;
		}
		*n += (size_t)r;
	}
	if (h == TLS_HELLO_BAD)
		finish(c, "deny", "not a TLS ClientHello");
	return h;
}

/* The hello goes upstream as it came, then both ways. */
static void relay_tls(struct conn *c, const char *hello, size_t n)
{
	conn_send_all(c->up, hello, n);
	c->d.up += n;
	conn_relay(c, true);
	finish(c, "allow", "tunnel closed");
}

/* CONNECT: the tunnel opens only for a ClientHello whose server name is
 * the host asked for (an address rule needs none). */
static void tunnel(struct conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	static char hello[HELLO_BUF];
	size_t n = c->len - c->end;
	char sni[TLS_NAME_MAX + 1];
	enum tls_hello h;

	if (n > sizeof(hello))
		n = sizeof(hello);
	memcpy(hello, c->head + c->end, n);
	conn_send_all(c->client, ok, sizeof(ok) - 1);
	h = read_hello(c, hello, &n, sni);
	if (h == TLS_HELLO_BAD)
		return;
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
	relay_tls(c, hello, n);
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
	conn_send_all(c->up, req, req_len);
	c->d.up += req_len;
	free(req);
	if ((long long)have > left)
		have = (size_t)left; /* a pipelined request: dropped */
	conn_send_all(c->up, c->head + c->end, have);
	left -= (long long)have;
	c->d.up += have;
	while (left > 0) {
		ssize_t r = conn_read_some(
		    c, c->client, buf,
		    left < (long long)sizeof(buf) ? (size_t)left : sizeof(buf),
		    egress_now_ms() + c->p->idle_ms);

		if (r <= 0)
			break;
		conn_send_all(c->up, buf, (size_t)r);
		left -= r;
		c->d.up += (unsigned long long)r;
	}
	conn_relay(c, false);
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

/* ---- the transparent listeners ---------------------------------------- */

/* TLS to DNS_STUB_ADDR:port: the server name of the ClientHello is the
 * host (an address literal only as an address rule names it), checked
 * as CONNECT's is, not as plain HTTP.  A refusal only closes: there is
 * no one to tell in TLS. */
static void transparent_tls(struct conn *c, char *hello, size_t n)
{
	char sni[TLS_NAME_MAX + 1];
	struct error *err = NULL;
	const char *why;
	enum tls_hello h = read_hello(c, hello, &n, sni);

	if (h == TLS_HELLO_BAD)
		return;
	if (h == TLS_HELLO_NO_SNI) {
		finish(c, "deny",
		       "the TLS ClientHello names no server: without a proxy "
		       "the server name is the host");
		return;
	}
	if (egress_parse_addr(sni, &c->addr)) {
		char text[64];

		egress_addr_text(&c->addr, text, sizeof(text));
		c->name = strdup(text);
	} else if (egress_normalize_host(sni, &c->name, &err) < 0) {
		error_free(err);
		c->name = strdup(sni);
		finish(c, "deny",
		       "the TLS server name is not a name a rule can match");
		return;
	}
	if (!c->name) {
		finish(c, "deny", "out of memory");
		return;
	}
	if (conn_dial(c, &why) > 0) {
		finish(c, "deny", why);
		return;
	}
	relay_tls(c, hello, n);
}

/* Plain HTTP in origin form to DNS_STUB_ADDR:port: the head as the
 * proxy reads it, the Host header the host (its port, when it has one,
 * the listener's), checked as plain HTTP, and forwarded as the
 * absolute form is. */
static int transparent_http(struct conn *c, const char **why)
{
	struct error *err = NULL;
	uint16_t port = c->port;
	int status = read_head(c, why);

	if (status == 0)
		status = parse_head(c, why);
	if (status)
		return status;
	if (c->target[0] != '/') {
		*why = "without a proxy a request is in origin form (a path)";
		return 400;
	}
	if (!c->host_header) {
		*why = "no Host header: without a proxy the Host header is the "
		       "host";
		return 403;
	}
	if (egress_parse_authority(c->host_header, port, &c->name, &c->port,
				   &c->addr, &err) < 0) {
		error_free(err);
		c->port = port;
		*why = "the host is not a name or address a rule can match";
		return 400;
	}
	if (c->port != port) {
		c->port = port;
		*why = "the Host header names another port than the one "
		       "connected to";
		return 400;
	}
	return conn_dial(c, why);
}

/* A connection to a transparent listener: its first bytes say which
 * (a TLS record starts with 0x16, a request line with a letter). */
static void transparent(struct conn *c, uint16_t port)
{
	static char hello[HELLO_BUF];
	size_t max =
	    c->p->head_max < sizeof(hello) ? c->p->head_max : sizeof(hello);
	const char *why = "";
	ssize_t r;
	int status;

	c->d.kind = "transparent";
	c->port = port;
	r = conn_read_some(c, c->client, hello, max,
			   egress_now_ms() + c->p->hello_ms);
	if (r <= 0) {
		c->method = "?";
		finish(c, "deny",
		       r == -2 ? "nothing sent in time"
			       : "the client closed before sending");
		return;
	}
	if (hello[0] == 0x16) {
		c->method = "TLS";
		transparent_tls(c, hello, (size_t)r);
		return;
	}
	c->plain = true;
	memcpy(c->head, hello, (size_t)r);
	c->len = (size_t)r;
	status = transparent_http(c, &why);
	if (status > 0)
		refuse(c, status, status_title(status), why);
	else if (status == 0)
		forward(c, c->target);
}

/* ---- one connection ---------------------------------------------------- */

static void proxied(struct conn *c)
{
	const char *why = "";
	char *path = NULL;
	int status;

	c->d.kind = "proxy";
	status = read_head(c, &why);
	if (status == 0)
		status = parse_head(c, &why);
	if (status == 0)
		status = authority(c, &path, &why);
	if (status == 0)
		status = conn_dial(c, &why);
	if (status > 0)
		refuse(c, status, status_title(status), why);
	else if (status == 0 && c->plain)
		forward(c, path);
	else if (status == 0)
		tunnel(c);
}

void egress_conn_handle(int client, uint16_t transparent_port,
			const struct egress_proxy *p)
{
	struct conn c = {.p = p, .client = client, .up = -1};

	c.d.start_ms = egress_now_ms();
	c.head = malloc(p->head_max + 1);
	if (!c.head)
		return;
	if (transparent_port)
		transparent(&c, transparent_port);
	else
		proxied(&c);
	if (c.up >= 0)
		close(c.up);
	free(c.name);
	free(c.host_header);
	free(c.rule_text);
	free(c.head);
}
