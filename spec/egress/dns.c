/* DNS messages (RFC 1035 4) and the host's resolver files, with every
 * length checked against the message and compression pointers followed
 * at most DNS_JUMPS times (a loop of pointers ends there). */
#include "dns.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define HEADER 12
#define DNS_JUMPS 16
#define CNAME_HOPS 8
#define TYPE_CNAME 5
#define CLASS_IN 1
#define NAME_MAX_TEXT 254

size_t dns_query(uint16_t id, const char *name, uint16_t type,
		 unsigned char *out, size_t size)
{
	size_t n = HEADER;

	if (size < HEADER + strlen(name) + 2 + 4 || strlen(name) > 253)
		return 0;
	memset(out, 0, HEADER);
	out[0] = id >> 8;
	out[1] = id & 0xff;
	out[2] = 0x01; /* RD */
	out[5] = 1;    /* one question */
	for (const char *l = name; *l;) {
		size_t len = strcspn(l, ".");

		if (len == 0 || len > 63)
			return 0;
		out[n++] = (unsigned char)len;
		memcpy(out + n, l, len);
		n += len;
		l += len;
		if (*l == '.')
			l++;
	}
	out[n++] = 0;
	out[n++] = type >> 8;
	out[n++] = type & 0xff;
	out[n++] = 0;
	out[n++] = CLASS_IN;
	return n;
}

/* The name at *off as dotted text (lowercase); *off moves past it.  A
 * dot or a NUL inside a label becomes a backslash, which no normalized
 * name has: the one label "example.com" is not the name example.com. */
static bool read_name(const unsigned char *m, size_t len, size_t *off,
		      char *out)
{
	size_t p = *off, n = 0, end = 0;
	int jumps = 0;

	for (;;) {
		size_t l;

		if (p >= len)
			return false;
		l = m[p];
		if ((l & 0xc0) == 0xc0) {
			if (p + 1 >= len || ++jumps > DNS_JUMPS)
				return false;
			if (!end)
				end = p + 2;
			p = (l & 0x3f) << 8 | m[p + 1];
			continue;
		}
		if (l & 0xc0)
			return false;
		if (l == 0)
			break;
		if (p + 1 + l > len || n + l + 1 > NAME_MAX_TEXT)
			return false;
		if (n)
			out[n++] = '.';
		for (size_t i = 0; i < l; i++) {
			char c = (char)m[p + 1 + i];

			if (c == '.' || c == '\0')
				c = '\\';
			out[n++] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
		}
		p += 1 + l;
	}
	out[n] = '\0';
	*off = end ? end : p + 1;
	return true;
}

static uint16_t be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t dns_answer_ttl(const unsigned char *m, size_t len)
{
	char skip[NAME_MAX_TEXT + 1];
	size_t off = HEADER, count;
	uint32_t least = UINT32_MAX;

	if (len < HEADER || be16(m + 4) != 1 ||
	    !read_name(m, len, &off, skip) || off + 4 > len)
		return 0;
	off += 4;
	count = be16(m + 6);
	for (size_t i = 0; i < count; i++) {
		uint32_t ttl;

		if (!read_name(m, len, &off, skip) || off + 10 > len)
			return 0;
		ttl = (uint32_t)be16(m + off + 4) << 16 | be16(m + off + 6);
		if (ttl < least)
			least = ttl;
		off += 10 + be16(m + off + 8);
		if (off > len)
			return 0;
	}
	return least == UINT32_MAX ? 0 : least;
}

/* One pass over the answers: the addresses of *target, or the CNAME it
 * points to (then *target is replaced and the caller passes again). */
static bool scan(const unsigned char *m, size_t len, size_t off, size_t count,
		 char *target, uint16_t type, struct egress_addr *addrs,
		 size_t max, size_t *n, bool *moved)
{
	for (size_t i = 0; i < count; i++) {
		char owner[NAME_MAX_TEXT + 1], alias[NAME_MAX_TEXT + 1];
		uint16_t t, cls, rdlen;

		if (!read_name(m, len, &off, owner) || off + 10 > len)
			return false;
		t = be16(m + off);
		cls = be16(m + off + 2);
		rdlen = be16(m + off + 8);
		off += 10;
		if (off + rdlen > len)
			return false;
		if (cls == CLASS_IN && strcmp(owner, target) == 0) {
			size_t want = type == DNS_TYPE_A ? 4 : 16;

			if (t == type && rdlen == want && *n < max) {
				addrs[*n].family =
				    type == DNS_TYPE_A ? AF_INET : AF_INET6;
				memset(addrs[*n].bytes, 0, 16);
				memcpy(addrs[*n].bytes, m + off, want);
				(*n)++;
			} else if (t == TYPE_CNAME && !*moved) {
				size_t p = off;

				if (!read_name(m, len, &p, alias) ||
				    p != off + rdlen)
					return false;
				memcpy(target, alias, strlen(alias) + 1);
				*moved = true;
			}
		}
		off += rdlen;
	}
	return true;
}

enum dns_result dns_answer(const unsigned char *m, size_t len, uint16_t id,
			   const char *name, uint16_t type,
			   struct egress_addr *addrs, size_t max, size_t *n)
{
	char q[NAME_MAX_TEXT + 1], target[NAME_MAX_TEXT + 1];
	size_t off = HEADER, ancount;

	*n = 0;
	if (len < HEADER || be16(m) != id || !(m[2] & 0x80) ||
	    (m[2] & 0x78) != 0 || be16(m + 4) != 1)
		return DNS_BAD;
	/* the question first: a verdict on another question is none */
	if (!read_name(m, len, &off, q) || off + 4 > len ||
	    strcmp(q, name) != 0 || be16(m + off) != type ||
	    be16(m + off + 2) != CLASS_IN)
		return DNS_BAD;
	off += 4;
	if (m[2] & 0x02)
		return DNS_TRUNC; /* records may be missing: none is taken */
	if ((m[3] & 0x0f) == 3)
		return DNS_NXDOMAIN;
	if ((m[3] & 0x0f) != 0)
		return DNS_FAIL;
	ancount = be16(m + 6);
	if (strlen(name) > NAME_MAX_TEXT)
		return DNS_BAD;
	memcpy(target, name, strlen(name) + 1);
	for (int hop = 0; hop <= CNAME_HOPS; hop++) {
		bool moved = false;

		if (!scan(m, len, off, ancount, target, type, addrs, max, n,
			  &moved)) {
			*n = 0; /* none of a message that does not parse */
			return DNS_BAD;
		}
		if (*n > 0 || !moved)
			return DNS_OK;
	}
	return DNS_OK;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\0';
}

/* The next whitespace-separated word of a line, or NULL at its end.  A
 * NUL byte separates words too: a word is never empty, so the caller's
 * loop over the words of a line always moves on. */
static const char *word(const char **p, const char *end, size_t *wlen)
{
	const char *s = *p;

	while (s < end && blank(*s))
		s++;
	if (s >= end || *s == '#')
		return NULL;
	*wlen = 0;
	while (s + *wlen < end && !blank(s[*wlen]) && s[*wlen] != '#')
		(*wlen)++;
	*p = s + *wlen;
	return s;
}

/* An address word as text, parsed. */
static bool addr_word(const char *w, size_t wlen, struct egress_addr *a)
{
	char buf[64];

	if (wlen >= sizeof(buf))
		return false;
	memcpy(buf, w, wlen);
	buf[wlen] = '\0';
	return egress_parse_addr(buf, a) && buf[0] != '[';
}

size_t dns_hosts_lookup(const char *text, size_t len, const char *name,
			struct egress_addr *addrs, size_t max)
{
	const char *end = text + len;
	size_t n = 0;

	for (const char *line = text; line < end && n < max;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *p = line, *w;
		struct egress_addr a;
		size_t wlen;

		if (!eol)
			eol = end;
		w = word(&p, eol, &wlen);
		if (w && addr_word(w, wlen, &a)) {
			while ((w = word(&p, eol, &wlen))) {
				if (wlen == strlen(name) &&
				    strncasecmp(w, name, wlen) == 0) {
					addrs[n++] = a;
					break;
				}
			}
		}
		line = eol + 1;
	}
	return n;
}

size_t dns_nameservers(const char *text, size_t len, struct egress_addr *out,
		       size_t max)
{
	const char *end = text + len;
	size_t n = 0;

	for (const char *line = text; line < end && n < max;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *p = line, *w;
		size_t wlen;

		if (!eol)
			eol = end;
		w = word(&p, eol, &wlen);
		if (w && wlen == 10 && strncmp(w, "nameserver", 10) == 0 &&
		    (w = word(&p, eol, &wlen)) && addr_word(w, wlen, &out[n]))
			n++;
		line = eol + 1;
	}
	return n;
}

/* ---- the stub resolver ------------------------------------------------ */

int dns_parse_query(const unsigned char *m, size_t len, struct dns_question *q)
{
	size_t off = HEADER, n = 0;

	memset(q, 0, sizeof(*q));
	if (len < HEADER || (m[2] & 0x80))
		return -1; /* too short, or a response: never answered */
	q->id = be16(m);
	q->opcode = (m[2] >> 3) & 0x0f;
	q->rd = m[2] & 0x01;
	if (q->opcode != DNS_OPCODE_QUERY)
		return 0;
	if (be16(m + 4) != 1 || be16(m + 6) != 0 || be16(m + 8) != 0)
		return -1;
	for (;;) {
		size_t l;

		if (off >= len)
			return -1;
		l = m[off];
		if (l == 0)
			break;
		if (l > 63 || off + 1 + l > len || n + l + 1 > DNS_NAME_TEXT)
			return -1; /* a pointer, a reserved label type */
		if (n)
			q->name[n++] = '.';
		for (size_t i = 0; i < l; i++) {
			char c = (char)m[off + 1 + i];

			if (c == '.' || c == '\0')
				c = '\\';
			q->name[n++] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
		}
		off += 1 + l;
	}
	off++;
	if (off + 4 > len)
		return -1;
	q->name[n] = '\0';
	q->type = be16(m + off);
	q->cls = be16(m + off + 2);
	q->qlen = off + 4 - HEADER;
	return 0;
}

size_t dns_build_answer(const unsigned char *msg, const struct dns_question *q,
			uint8_t rcode, const unsigned char *addr, uint32_t ttl,
			unsigned char *out, size_t size)
{
	size_t n = HEADER + q->qlen;
	bool answer = addr && q->qlen;

	if (size < n + (answer ? 16 : 0))
		return 0;
	memset(out, 0, HEADER);
	out[0] = q->id >> 8;
	out[1] = q->id & 0xff;
	/* QR, the opcode, AA (the stub is the authority on its names), RD
	 * as asked; RA clear: it recurses for no one */
	out[2] = 0x80 | (uint8_t)(q->opcode << 3) | 0x04 | (q->rd ? 1 : 0);
	out[3] = rcode & 0x0f;
	if (!q->qlen)
		return HEADER;
	out[5] = 1;
	memcpy(out + HEADER, msg + HEADER, q->qlen);
	if (!answer)
		return n;
	out[7] = 1;
	out[n++] = 0xc0; /* the question's name */
	out[n++] = HEADER;
	out[n++] = 0;
	out[n++] = DNS_TYPE_A;
	out[n++] = 0;
	out[n++] = CLASS_IN;
	out[n++] = ttl >> 24;
	out[n++] = (ttl >> 16) & 0xff;
	out[n++] = (ttl >> 8) & 0xff;
	out[n++] = ttl & 0xff;
	out[n++] = 0;
	out[n++] = 4;
	memcpy(out + n, addr, 4);
	return n + 4;
}

/* Whether some name rule's pattern matches host, on any port: the port
 * is the transparent listener's business, not the name's. */
static bool name_named(const struct egress_rule *rules, size_t n,
		       const char *host)
{
	for (size_t i = 0; i < n; i++)
		if (!rules[i].is_addr &&
		    egress_match_name(&rules[i], 1, host,
				      rules[i].port ? rules[i].port
						    : EGRESS_PORT_HTTPS,
				      false))
			return true;
	return false;
}

void dns_stub_answer(const unsigned char *msg, size_t len,
		     const struct egress_rule *rules, size_t n_rules,
		     unsigned char *out, size_t size,
		     struct dns_stub_result *res)
{
	static const unsigned char stub[4] = {198, 18, 0, 1};
	struct dns_question *q = &res->q;
	struct error *err = NULL;
	char *norm = NULL;
	bool named;

	res->verdict = DNS_STUB_DROP;
	res->len = 0;
	if (dns_parse_query(msg, len, q) < 0)
		return;
	if (q->opcode != DNS_OPCODE_QUERY) {
		res->verdict = DNS_STUB_NOTIMP;
		res->len = dns_build_answer(msg, q, DNS_RCODE_NOTIMP, NULL, 0,
					    out, size);
		return;
	}
	if (egress_normalize_host(q->name, &norm, &err) < 0) {
		error_free(err);
		named = false;
	} else {
		named = name_named(rules, n_rules, norm);
		/* the log names the name as a rule would */
		memcpy(q->name, norm, strlen(norm) + 1);
		free(norm);
	}
	if (!named) {
		res->verdict = DNS_STUB_NXDOMAIN;
		res->len = dns_build_answer(msg, q, DNS_RCODE_NXDOMAIN, NULL, 0,
					    out, size);
	} else if (q->type == DNS_TYPE_A && q->cls == CLASS_IN) {
		res->verdict = DNS_STUB_ADDRESS;
		res->len = dns_build_answer(msg, q, DNS_RCODE_NOERROR, stub,
					    DNS_STUB_TTL, out, size);
	} else {
		res->verdict = DNS_STUB_NODATA;
		res->len = dns_build_answer(msg, q, DNS_RCODE_NOERROR, NULL, 0,
					    out, size);
	}
	if (res->len == 0)
		res->verdict = DNS_STUB_DROP;
}
