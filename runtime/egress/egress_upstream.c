/* What the broker of a connection of the egress proxy does for it
 * (runtime/egress/egress_broker.c): the resolution (the host's files in memory,
 * the helper's cache, then each nameserver over UDP, and over TCP when an
 * answer was truncated, at a bounded rate), the decision on the rule and
 * the address, and the connect. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress_cache.h"
#include "egress_conn.h"
#include "util.h"

/* ---- the resolution -------------------------------------------------- */

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

/* A blocking TCP socket connected to a at port within ms, or -1. */
static int connect_within(const struct egress_addr *a, uint16_t port, int ms)
{
	struct sockaddr_storage sa;
	socklen_t len = sockaddr_of(a, port, &sa);
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
	if (poll(&pf, 1, ms) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err ||
	    fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read exactly n bytes before the deadline; false on an end, an error or
 * the deadline. */
static bool read_full(const struct conn *c, int fd, unsigned char *buf,
		      size_t n, long long deadline)
{
	while (n > 0) {
		ssize_t got = conn_read_some(c, fd, (char *)buf, n, deadline);

		if (got <= 0)
			return false;
		buf += got;
		n -= (size_t)got;
	}
	return true;
}

/* The query q again over TCP (RFC 7766), after a truncated answer over
 * UDP: a two-byte length before the message each way. */
static enum dns_result ask_tcp(const struct conn *c,
			       const struct egress_addr *srv,
			       const unsigned char *q, size_t qlen, uint16_t id,
			       uint16_t type, struct egress_addr *out,
			       size_t max, size_t *n, uint32_t *ttl,
			       long long deadline)
{
	static unsigned char a[DNS_TCP_MAX];
	unsigned char msg[2 + 300], len[2];
	enum dns_result r = DNS_FAIL;
	long long left = deadline - egress_now_ms();
	size_t alen;
	int fd;

	if (left <= 0 || qlen > sizeof(msg) - 2)
		return DNS_FAIL;
	fd = connect_within(srv, 53, (int)left);
	if (fd < 0)
		return DNS_FAIL;
	msg[0] = (unsigned char)(qlen >> 8);
	msg[1] = (unsigned char)qlen;
	memcpy(msg + 2, q, qlen);
	if (send(fd, msg, qlen + 2, MSG_NOSIGNAL) == (ssize_t)(qlen + 2) &&
	    read_full(c, fd, len, 2, deadline)) {
		alen = (size_t)len[0] << 8 | len[1];
		if (alen <= sizeof(a) && read_full(c, fd, a, alen, deadline)) {
			r = dns_answer(a, alen, id, c->name, type, out, max, n);
			*ttl = dns_answer_ttl(a, alen);
		}
	}
	close(fd);
	/* a second truncation, or another answer, is no answer */
	return r == DNS_OK || r == DNS_NXDOMAIN ? r : DNS_FAIL;
}

/* One query to one server over UDP, answers of another id ignored; over
 * TCP when the answer was truncated. */
static enum dns_result ask(const struct conn *c, const struct egress_addr *srv,
			   uint16_t type, struct egress_addr *out, size_t max,
			   size_t *n, uint32_t *ttl)
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

		while ((got = conn_read_some(c, fd, (char *)a, sizeof(a),
					     deadline)) > 0) {
			r = dns_answer(a, (size_t)got, id, c->name, type, out,
				       max, n);
			*ttl = dns_answer_ttl(a, (size_t)got);
			if (r != DNS_BAD)
				break;
			r = DNS_FAIL;
		}
	}
	close(fd);
	if (r == DNS_TRUNC)
		r = ask_tcp(c, srv, q, qlen, id, type, out, max, n, ttl,
			    deadline);
	return r;
}

static const char NXDOMAIN[] = "the name does not exist (NXDOMAIN)";
static const char NO_ADDRESS[] = "the name has no address";
static const char NO_SERVER[] = "no nameserver answered";
#define RATED                                                                  \
	"not looked up: more than 10 new names a second (a burst of 20) "      \
	"went to the resolver, the helper's limit"

/* Each nameserver in turn until one answers; *ttl the least of its
 * answers' TTLs. */
static const char *lookup(struct conn *c, uint32_t *ttl)
{
	const struct egress_resolver *r = c->p->resolver;
	static const uint16_t types[] = {DNS_TYPE_A, DNS_TYPE_AAAA};

	*ttl = UINT32_MAX;
	for (size_t s = 0; s < r->n_servers; s++) {
		bool answered = false;

		for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
			size_t got = 0;
			uint32_t one = 0;
			enum dns_result d =
			    ask(c, &r->servers[s], types[t],
				c->resolved + c->n_resolved,
				CANDIDATES - c->n_resolved, &got, &one);

			if (d == DNS_NXDOMAIN)
				return NXDOMAIN;
			if (d == DNS_OK) {
				answered = true;
				c->n_resolved += got;
				if (got && one < *ttl)
					*ttl = one;
			}
		}
		if (answered)
			return c->n_resolved ? NULL : NO_ADDRESS;
	}
	return NO_SERVER;
}

/* The name's addresses: /etc/hosts first, then the helper's cache, then
 * the nameservers, at most EGRESS_LOOKUP_RATE new names a second
 * (egress_cache.h); an answer is kept for its TTL (at most
 * EGRESS_CACHE_TTL_MAX), a name that does not exist or has no address
 * for EGRESS_CACHE_NEG_TTL. */
static const char *resolve(struct conn *c)
{
	const struct egress_resolver *r = c->p->resolver;
	const char *failure = NULL;
	uint32_t ttl = 0;

	if (r->hosts)
		c->n_resolved = dns_hosts_lookup(
		    r->hosts, r->hosts_len, c->name, c->resolved, CANDIDATES);
	if (c->n_resolved)
		return NULL;
	if (c->p->cache) {
		switch (egress_cache_get(c->p->cache, c->p->counts, c->name,
					 c->resolved, CANDIDATES,
					 &c->n_resolved, &failure)) {
		case EGRESS_CACHE_HIT:
			return failure	       ? failure
			       : c->n_resolved ? NULL
					       : NO_ADDRESS;
		case EGRESS_CACHE_RATED:
			return RATED;
		default:
			break;
		}
	}
	failure = lookup(c, &ttl);
	if (c->p->cache && failure != NO_SERVER)
		egress_cache_put(c->p->cache, c->name, c->resolved,
				 c->n_resolved, failure,
				 failure	     ? EGRESS_CACHE_NEG_TTL
				 : ttl == UINT32_MAX ? 0
						     : ttl);
	return failure;
}

/* ---- connecting ----------------------------------------- */

/* The rule that allows the request, then the address to connect to: an
 * address literal only by an address rule; a name's resolved addresses
 * each refused in a refused range unless an address rule names it, and
 * the first that connects is the one (no second lookup). */
int conn_decide(struct conn *c, const char **why)
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
		c->up = connect_within(a, c->port, c->p->connect_ms);
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
