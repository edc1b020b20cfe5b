#include "egress.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util.h"

#define LABEL_MAX 63

/* ---- punycode (RFC 3492), for labels with non-ASCII characters ---------- */

enum {
	PY_BASE = 36,
	PY_TMIN = 1,
	PY_TMAX = 26,
	PY_SKEW = 38,
	PY_DAMP = 700,
	PY_BIAS = 72,
	PY_N = 128,
};

static uint32_t py_adapt(uint32_t delta, uint32_t points, bool first)
{
	uint32_t k = 0;

	delta = first ? delta / PY_DAMP : delta / 2;
	delta += delta / points;
	while (delta > ((PY_BASE - PY_TMIN) * PY_TMAX) / 2) {
		delta /= PY_BASE - PY_TMIN;
		k += PY_BASE;
	}
	return k + (PY_BASE - PY_TMIN + 1) * delta / (delta + PY_SKEW);
}

static char py_digit(uint32_t d)
{
	return (char)(d < 26 ? 'a' + d : '0' + (d - 26));
}

/* Append to out (capacity cap, NUL-terminated) the punycode of the n code
 * points; false when it does not fit or would overflow. */
static bool py_encode(const uint32_t *cp, size_t n, char *out, size_t cap)
{
	uint32_t code = PY_N, delta = 0, bias = PY_BIAS, h, b = 0;
	size_t len = strlen(out);

#define PUT(c)                                                                 \
	do {                                                                   \
		if (len + 1 >= cap)                                            \
			return false;                                          \
		out[len++] = (c);                                              \
		out[len] = '\0';                                               \
	} while (0)

	for (size_t i = 0; i < n; i++)
		if (cp[i] < 0x80) {
			PUT((char)cp[i]);
			b++;
		}
	h = b;
	if (b > 0)
		PUT('-');
	while (h < n) {
		uint32_t m = UINT32_MAX;

		for (size_t i = 0; i < n; i++)
			if (cp[i] >= code && cp[i] < m)
				m = cp[i];
		if ((uint64_t)(m - code) * (h + 1) > UINT32_MAX - delta)
			return false;
		delta += (m - code) * (h + 1);
		code = m;
		for (size_t i = 0; i < n; i++) {
			if (cp[i] < code && ++delta == 0)
				return false;
			if (cp[i] != code)
				continue;
			uint32_t q = delta;

			for (uint32_t k = PY_BASE;; k += PY_BASE) {
				uint32_t t = k <= bias		   ? PY_TMIN
					     : k >= bias + PY_TMAX ? PY_TMAX
								   : k - bias;

				if (q < t)
					break;
				PUT(py_digit(t + (q - t) % (PY_BASE - t)));
				q = (q - t) / (PY_BASE - t);
			}
			PUT(py_digit(q));
			bias = py_adapt(delta, h + 1, h == b);
			delta = 0;
			h++;
		}
		delta++;
		code++;
	}
#undef PUT
	return true;
}

/* ---- names ------------------------------------------------------------ */

/* One UTF-8 sequence at s (strictly: no overlong forms, surrogates or
 * values past U+10FFFF); its length, or 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	size_t n;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Characters that IDNA would map to something else or that hide in a
 * name: C1 controls and spaces, soft hyphen, the general punctuation
 * block (zero-width and direction marks), ideographic and fullwidth dots
 * and the fullwidth forms (`ｐｙｐｉ.org`), variation selectors, BOM,
 * tags.  Refused rather than mapped: the rule's author writes the name. */
static bool hidden_char(uint32_t c)
{
	return c <= 0xa0 || c == 0xad || c == 0x1680 || c == 0x180e ||
	       (c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x3002) ||
	       (c >= 0xfe00 && c <= 0xfe0f) || c == 0xfeff ||
	       (c >= 0xff00 && c <= 0xff65) || (c >= 0xe0000 && c <= 0xe007f);
}

static bool ldh(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Normalize one label [s, s+len) onto out (cap bytes, NUL-terminated). */
static int put_label(const char *s, size_t len, char *out, size_t cap,
		     const char *name, struct error **err)
{
	uint32_t cp[LABEL_MAX * 4];
	size_t n = 0, start = strlen(out);
	bool ascii = true;

	if (len == 0)
		return error_set(err, EINVAL, "host %s: an empty label", name);
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t k = utf8_decode((const unsigned char *)s + i, &c);

		if (k == 0 || i + k > len)
			return error_set(err, EINVAL, "host %s: invalid UTF-8",
					 name);
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c >= 0x80 && hidden_char(c))
			return error_set(
			    err, EINVAL,
			    "host %s: character U+%04X is not allowed", name,
			    (unsigned)c);
		if (c < 0x80 && !ldh((char)c))
			return error_set(err, EINVAL,
					 "host %s: character '%c' is not "
					 "allowed in a name",
					 name,
					 c > 0x20 && c < 0x7f ? (char)c : '?');
		if (n == ARRAY_SIZE(cp))
			return error_set(err, EINVAL, "host %s: label too long",
					 name);
		ascii = ascii && c < 0x80;
		cp[n++] = c;
		i += k;
	}
	if (ascii) {
		if (n > LABEL_MAX || start + n + 1 > cap)
			return error_set(err, EINVAL, "host %s: label too long",
					 name);
		for (size_t i = 0; i < n; i++)
			out[start + i] = (char)cp[i];
		out[start + n] = '\0';
	} else {
		if (start + 5 > cap)
			return error_set(err, EINVAL, "host %s: too long",
					 name);
		strcat(out, "xn--");
		if (!py_encode(cp, n, out, cap) ||
		    strlen(out) - start > LABEL_MAX)
			return error_set(err, EINVAL, "host %s: label too long",
					 name);
	}
	if (out[start] == '-' || out[strlen(out) - 1] == '-')
		return error_set(err, EINVAL,
				 "host %s: a label starts or ends with '-'",
				 name);
	return 0;
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int egress_normalize_host(const char *in, char **out, struct error **err)
{
	char buf[EGRESS_HOST_MAX + 2] = "";
	size_t len = strlen(in);
	const char *s = in, *last;

	if (len == 0)
		return error_set(err, EINVAL, "an empty host");
	if (len > 4 * EGRESS_HOST_MAX)
		return error_set(err, EINVAL, "host too long");
	if (in[len - 1] == '.')
		len--; /* the root's dot: PYPI.ORG. is pypi.org */
	if (len == 0)
		return error_set(err, EINVAL, "host %s: no name", in);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '@' || c == '%' || c <= 0x20 || c == 0x7f)
			return error_set(err, EINVAL,
					 "host: userinfo, percent-encoding, "
					 "whitespace and control characters "
					 "are not allowed");
	}
	while (s < in + len) {
		const char *dot = memchr(s, '.', (size_t)(in + len - s));
		size_t n = dot ? (size_t)(dot - s) : (size_t)(in + len - s);

		if (buf[0] && strlen(buf) + 2 > sizeof(buf))
			return error_set(err, EINVAL, "host %s: too long", in);
		if (buf[0])
			strcat(buf, ".");
		if (put_label(s, n, buf, sizeof(buf), in, err) < 0)
			return -1;
		s += n + (dot ? 1 : 0);
		if (dot && s == in + len)
			return error_set(err, EINVAL, "host %s: an empty label",
					 in);
	}
	if (strlen(buf) > EGRESS_HOST_MAX)
		return error_set(err, EINVAL, "host %s: too long", in);
	/* A top-level label is never all digits: such a "name" is an
	 * address in a form resolvers accept (2130706433, 0x7f.1, 127.1),
	 * which must be written as one, dotted quad or bracketed. */
	last = strrchr(buf, '.');
	last = last ? last + 1 : buf;
	if (all_digits(last, strlen(last)) ||
	    (last[0] == '0' && last[1] == 'x'))
		return error_set(err, EINVAL,
				 "host %s: a numeric name; write an address "
				 "as a dotted quad or [IPv6]",
				 in);
	if (!(*out = strdup(buf)))
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* ---- addresses -------------------------------------------------------- */

/* Four decimal parts 0-255, no leading zeros (010 is octal to some). */
static bool dotted_quad(const char *s, unsigned char out[4])
{
	for (int part = 0; part < 4; part++) {
		size_t n = strspn(s, "0123456789");
		unsigned v = 0;

		if (n == 0 || n > 3 || (n > 1 && s[0] == '0'))
			return false;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (unsigned)(s[i] - '0');
		if (v > 255)
			return false;
		out[part] = (unsigned char)v;
		s += n;
		if (part < 3 && *s++ != '.')
			return false;
	}
	return *s == '\0';
}

bool egress_parse_addr(const char *host, struct egress_addr *out)
{
	char buf[64];
	size_t len = strlen(host);

	memset(out, 0, sizeof(*out));
	if (dotted_quad(host, out->bytes)) {
		out->family = AF_INET;
		return true;
	}
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		host++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof(buf) || memchr(host, '%', len))
		return false; /* no zone ids: fe80::1%eth0 */
	memcpy(buf, host, len);
	buf[len] = '\0';
	if (!strchr(buf, ':') || inet_pton(AF_INET6, buf, out->bytes) != 1)
		return false;
	out->family = AF_INET6;
	return true;
}

void egress_addr_text(const struct egress_addr *a, char *buf, size_t size)
{
	if (!inet_ntop(a->family, a->bytes, buf, (socklen_t)size))
		snprintf(buf, size, "?");
}

static bool addr_equal(const struct egress_addr *a, const struct egress_addr *b)
{
	return a->family == b->family &&
	       memcmp(a->bytes, b->bytes, a->family == AF_INET ? 4 : 16) == 0;
}

/* The ranges a resolved name may not lead to: this host and its networks,
 * the cloud's metadata service, and forms that carry an IPv4 address in
 * an IPv6 one (which would reach the same IPv4 ranges). */
struct range {
	unsigned char prefix[16];
	unsigned bits;
	const char *name;
};

static const struct range v4_ranges[] = {
    {{169, 254, 169, 254}, 32, "metadata"},
    {{0}, 8, "this network"},
    {{10}, 8, "private"},
    {{100, 64}, 10, "shared (CGNAT)"},
    {{127}, 8, "loopback"},
    {{169, 254}, 16, "link-local"},
    {{172, 16}, 12, "private"},
    {{192, 0, 0}, 24, "reserved"},
    {{192, 0, 2}, 24, "documentation"},
    {{192, 88, 99}, 24, "6to4 relay"},
    {{192, 168}, 16, "private"},
    {{198, 18}, 15, "benchmarking"},
    {{198, 51, 100}, 24, "documentation"},
    {{203, 0, 113}, 24, "documentation"},
    {{224}, 4, "multicast"},
    {{240}, 4, "reserved"},
};

static const struct range v6_ranges[] = {
    {{0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02}, 128, "metadata"},
    {{0}, 128, "unspecified"},
    {{[15] = 1}, 128, "loopback"},
    {{[10] = 0xff, [11] = 0xff}, 96, "IPv4-mapped"},
    {{0}, 96, "IPv4-compatible"},
    {{0x00, 0x64, 0xff, 0x9b}, 96, "NAT64"},
    {{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48, "NAT64"},
    {{0x01, 0x00}, 64, "discard"},
    {{0x20, 0x01, 0x00, 0x00}, 32, "Teredo"},
    {{0x20, 0x01, 0x0d, 0xb8}, 32, "documentation"},
    {{0x20, 0x01}, 23, "reserved"},
    {{0x20, 0x02}, 16, "6to4"},
    {{0x3f, 0xff}, 20, "documentation"},
    {{0xfc}, 7, "private (ULA)"},
    {{0xfe, 0x80}, 10, "link-local"},
    {{0xfe, 0xc0}, 10, "site-local"},
    {{0xff}, 8, "multicast"},
};

static bool in_range(const unsigned char *a, const struct range *r)
{
	unsigned full = r->bits / 8, rest = r->bits % 8;

	if (memcmp(a, r->prefix, full) != 0)
		return false;
	return rest == 0 ||
	       ((a[full] ^ r->prefix[full]) & (0xff << (8 - rest))) == 0;
}

const char *egress_addr_range(const struct egress_addr *a)
{
	const struct range *r = a->family == AF_INET ? v4_ranges : v6_ranges;
	size_t n = a->family == AF_INET ? ARRAY_SIZE(v4_ranges)
					: ARRAY_SIZE(v6_ranges);

	if (a->family != AF_INET && a->family != AF_INET6)
		return "not an address";
	for (size_t i = 0; i < n; i++)
		if (in_range(a->bytes, &r[i]))
			return r[i].name;
	return NULL;
}

/* ---- rules ------------------------------------------------------------- */

/* Checked first, so that every message below may quote the text and
 * still be one line. */
static int check_printable(const char *text, struct error **err)
{
	for (const char *c = text; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return error_set(err, EINVAL,
					 "a host with a control character");
	return 0;
}

/* ":PORT" at s: 1-65535, decimal, no sign or leading zero. */
static int parse_port(const char *s, uint16_t *port, const char *what,
		      struct error **err)
{
	size_t n = strspn(s, "0123456789");
	unsigned long v = 0;

	if (n == 0 || n > 5 || s[n] != '\0' || s[0] == '0')
		return error_set(err, EINVAL, "%s: port \"%s\" is not 1-65535",
				 what, s);
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (v > 65535)
		return error_set(err, EINVAL, "%s: port \"%s\" is not 1-65535",
				 what, s);
	*port = (uint16_t)v;
	return 0;
}

/* Split "host[:port]" / "[v6][:port]" into a host copy and the port
 * text (NULL when absent).  A bare IPv6 address has no port. */
static int split_port(const char *text, char **host, const char **port,
		      struct error **err)
{
	const char *colon = NULL;
	size_t hlen;

	if (text[0] == '[') {
		const char *end = strchr(text, ']');

		if (!end || (end[1] && end[1] != ':'))
			return error_set(err, EINVAL,
					 "%s: expected [IPv6] or [IPv6]:port",
					 text);
		hlen = (size_t)(end - text) + 1;
		colon = end[1] ? end + 1 : NULL;
	} else {
		colon = strchr(text, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL; /* an IPv6 address without brackets */
		hlen = colon ? (size_t)(colon - text) : strlen(text);
	}
	*port = colon ? colon + 1 : NULL;
	if (!(*host = strndup(text, hlen)))
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* Why a wildcard may not stand on the name (an enum egress_suffix): one
 * label, or what the caller's public suffix list says. */
static int public_suffix(const char *name, egress_suffix_fn fn)
{
	if (!strchr(name, '.'))
		return EGRESS_SUFFIX_PUBLIC;
	return fn ? fn(name) : EGRESS_SUFFIX_NONE;
}

static const char *const suffix_why[] = {
    [EGRESS_SUFFIX_PUBLIC] = "the public suffix \"%s\" would allow every "
			     "site under it",
    [EGRESS_SUFFIX_ABOVE] = "\"%s\" would allow every site under the "
			    "public suffixes below it (the Public Suffix "
			    "List)",
    [EGRESS_SUFFIX_ECHO] = "\"%s\", an IP-echo or wildcard DNS service, "
			   "would allow every address",
    [EGRESS_SUFFIX_HOSTING] = "\"%s\" would allow every name its service "
			      "hands out to anyone",
};

int egress_rule_parse(const char *text, egress_suffix_fn is_public_suffix,
		      struct egress_rule *out, struct error **err)
{
	_cleanup_free_ char *host = NULL;
	const char *port = NULL, *name;
	char addr[64];

	memset(out, 0, sizeof(*out));
	if (check_printable(text, err) < 0 ||
	    split_port(text, &host, &port, err) < 0)
		return -1;
	if (port && parse_port(port, &out->port, text, err) < 0)
		return -1;
	name = host;
	if (strncmp(name, "**.", 3) == 0) {
		out->kind = EGRESS_BOTH;
		name += 3;
	} else if (strncmp(name, "*.", 2) == 0) {
		out->kind = EGRESS_SUBDOMAINS;
		name += 2;
	}
	if (strcmp(host, "*") == 0 || strcmp(host, "**") == 0 ||
	    strchr(name, '*'))
		return error_set(err, EINVAL,
				 "%s: a wildcard is only `*.name` or "
				 "`**.name`, never all hosts",
				 text);
	if (egress_parse_addr(name, &out->addr)) {
		if (out->kind != EGRESS_EXACT)
			return error_set(err, EINVAL,
					 "%s: a wildcard over an address",
					 text);
		if (out->addr.family == AF_INET6 && host[0] != '[' && port)
			return error_set(err, EINVAL,
					 "%s: write an IPv6 address with a "
					 "port as [address]:port",
					 text);
		out->is_addr = true;
		egress_addr_text(&out->addr, addr, sizeof(addr));
		if (!(out->host = strdup(addr)))
			return error_set(err, ENOMEM, "out of memory");
		return 0;
	}
	if (egress_normalize_host(name, &out->host, err) < 0)
		return error_wrap(err, "%s", text);
	if (out->kind != EGRESS_EXACT) {
		int why = public_suffix(out->host, is_public_suffix);
		char msg[512];

		if (why <= EGRESS_SUFFIX_NONE || why > EGRESS_SUFFIX_HOSTING)
			return 0;
		snprintf(msg, sizeof(msg), suffix_why[why], out->host);
		egress_rule_release(out);
		return error_set(err, EINVAL, "%s: a wildcard over %s", text,
				 msg);
	}
	return 0;
}

void egress_rule_release(struct egress_rule *r)
{
	free(r->host);
	r->host = NULL;
}

void egress_rules_free(struct egress_rule *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		egress_rule_release(&r[i]);
	free(r);
}

int egress_rules_parse(char *const *texts, size_t n,
		       egress_suffix_fn is_public_suffix,
		       struct egress_rule **out, struct error **err)
{
	struct egress_rule *r = calloc(n + 1, sizeof(*r));

	if (!r)
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (egress_rule_parse(texts[i], is_public_suffix, &r[i], err) <
		    0) {
			egress_rules_free(r, i);
			return -1;
		}
	}
	*out = r;
	return 0;
}

char *egress_rule_text(const struct egress_rule *r)
{
	static const char *const prefix[] = {[EGRESS_EXACT] = "",
					     [EGRESS_SUBDOMAINS] = "*.",
					     [EGRESS_BOTH] = "**."};
	bool v6 = r->is_addr && r->addr.family == AF_INET6;
	char port[8] = "";
	char *s = NULL;

	if (r->port)
		snprintf(port, sizeof(port), ":%u", (unsigned)r->port);
	if (asprintf(&s, "%s%s%s%s%s", prefix[r->kind], v6 ? "[" : "", r->host,
		     v6 ? "]" : "", port) < 0)
		return NULL;
	return s;
}

int egress_parse_authority(const char *authority, uint16_t default_port,
			   char **host, uint16_t *port,
			   struct egress_addr *addr, struct error **err)
{
	_cleanup_free_ char *h = NULL;
	const char *p = NULL;
	char text[64];

	*host = NULL;
	memset(addr, 0, sizeof(*addr));
	*port = default_port;
	if (check_printable(authority, err) < 0 ||
	    split_port(authority, &h, &p, err) < 0)
		return -1;
	if (p && parse_port(p, port, authority, err) < 0)
		return -1;
	if (egress_parse_addr(h, addr)) {
		if (addr->family == AF_INET6 && h[0] != '[')
			return error_set(err, EINVAL,
					 "%s: an IPv6 address needs brackets",
					 authority);
		egress_addr_text(addr, text, sizeof(text));
		if (!(*host = strdup(text)))
			return error_set(err, ENOMEM, "out of memory");
		return 0;
	}
	return egress_normalize_host(h, host, err);
}

static bool port_ok(const struct egress_rule *r, uint16_t port, bool plain_http)
{
	if (r->port)
		return r->port == port;
	return port == EGRESS_PORT_HTTPS ||
	       (plain_http && port == EGRESS_PORT_HTTP);
}

/* Whether `host` ends with "." + `suffix`. */
static bool under(const char *host, const char *suffix)
{
	size_t h = strlen(host), s = strlen(suffix);

	return h > s + 1 && host[h - s - 1] == '.' &&
	       strcmp(host + h - s, suffix) == 0;
}

static bool name_matches(const struct egress_rule *r, const char *host)
{
	switch (r->kind) {
	case EGRESS_EXACT:
		return strcmp(host, r->host) == 0;
	case EGRESS_SUBDOMAINS:
		return under(host, r->host);
	case EGRESS_BOTH:
		return strcmp(host, r->host) == 0 || under(host, r->host);
	default:
		return false;
	}
}

const struct egress_rule *egress_match_name(const struct egress_rule *rules,
					    size_t n, const char *host,
					    uint16_t port, bool plain_http)
{
	for (size_t i = 0; i < n; i++)
		if (!rules[i].is_addr && name_matches(&rules[i], host) &&
		    port_ok(&rules[i], port, plain_http))
			return &rules[i];
	return NULL;
}

const struct egress_rule *egress_match_addr(const struct egress_rule *rules,
					    size_t n,
					    const struct egress_addr *a,
					    uint16_t port, bool plain_http)
{
	for (size_t i = 0; i < n; i++)
		if (rules[i].is_addr && addr_equal(&rules[i].addr, a) &&
		    port_ok(&rules[i], port, plain_http))
			return &rules[i];
	return NULL;
}

/* Whether wide allows everything narrow does: the same address, or a
 * name set that contains narrow's, on the same ports. */
static bool rule_within(const struct egress_rule *narrow,
			const struct egress_rule *wide)
{
	/* a port 443 is within the default ports (443, and 80 for HTTP) */
	if ((narrow->port != wide->port &&
	     !(wide->port == 0 && narrow->port == EGRESS_PORT_HTTPS)) ||
	    narrow->is_addr != wide->is_addr)
		return false;
	if (narrow->is_addr)
		return addr_equal(&narrow->addr, &wide->addr);
	switch (narrow->kind) {
	case EGRESS_EXACT:
		return name_matches(wide, narrow->host);
	case EGRESS_SUBDOMAINS:
		/* every strict subdomain of narrow's name */
		return wide->kind != EGRESS_EXACT &&
		       (strcmp(narrow->host, wide->host) == 0 ||
			under(narrow->host, wide->host));
	case EGRESS_BOTH:
		return (wide->kind == EGRESS_BOTH &&
			strcmp(narrow->host, wide->host) == 0) ||
		       (wide->kind != EGRESS_EXACT &&
			under(narrow->host, wide->host));
	default:
		return false;
	}
}

bool egress_rules_within(const struct egress_rule *narrow, size_t n_narrow,
			 const struct egress_rule *wide, size_t n_wide,
			 const struct egress_rule **offending)
{
	for (size_t i = 0; i < n_narrow; i++) {
		bool ok = false;

		for (size_t j = 0; j < n_wide && !ok; j++)
			ok = rule_within(&narrow[i], &wide[j]);
		if (!ok) {
			if (offending)
				*offending = &narrow[i];
			return false;
		}
	}
	return true;
}
