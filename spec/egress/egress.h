/* Egress rules: which named hosts (or written-out addresses) a container
 * may reach, and the checks on every name and address a request carries.
 * Pure: no lookups, no system calls; the per-container proxy that applies
 * them resolves names itself and asks here about each answer.
 *
 * A rule is `host[:port]`:
 *   pypi.org          exactly that name
 *   *.github.com      its subdomains only (api.github.com, not github.com)
 *   **.github.com     the name and its subdomains
 *   127.0.0.1:8080    exactly that address; [::1]:8080 for IPv6
 * Without a port a rule allows 443, and 80 for plain-HTTP requests.  `*`,
 * `**` and a wildcard over a public suffix (`*.com`, `**.co.uk`), over a
 * name with public suffixes under it (`*.amazonaws.com`) or over an
 * IP-echo service (`*.nip.io`) are refused: they would open the network
 * instead of naming hosts.
 *
 * Names are compared in one form (egress_normalize_host): ASCII lowercase,
 * no trailing dot, each non-ASCII label in punycode (xn--); a name with
 * userinfo, whitespace, control characters, percent-encoding, an empty
 * label, or a numeric last label that is not a dotted-quad address (the
 * 0x7f.1 and 2130706433 forms resolvers accept) is refused, never guessed
 * at. */
#ifndef CORRAL_EGRESS_H
#define CORRAL_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define EGRESS_HOST_MAX 253
#define EGRESS_PORT_HTTPS 443
#define EGRESS_PORT_HTTP 80

enum egress_kind {
	EGRESS_EXACT,	   /* x */
	EGRESS_SUBDOMAINS, /* *.x */
	EGRESS_BOTH,	   /* **.x */
};

/* An IPv4 or IPv6 address, IPv4 in the first 4 bytes. */
struct egress_addr {
	int family; /* AF_INET or AF_INET6 */
	unsigned char bytes[16];
};

struct egress_rule {
	char *host; /* the normalized name, or the address as written back */
	enum egress_kind kind;
	uint16_t port;		 /* 0: the default ports */
	bool is_addr;		 /* the rule names one address */
	struct egress_addr addr; /* when is_addr */
};

/* Why a wildcard may not stand on a name (a public suffix list's
 * answer): */
enum egress_suffix {
	EGRESS_SUFFIX_NONE,    /* it may */
	EGRESS_SUFFIX_PUBLIC,  /* a public suffix ("com", "co.uk", "x.ck") */
	EGRESS_SUFFIX_ABOVE,   /* public suffixes lie under it */
	EGRESS_SUFFIX_ECHO,    /* an IP-echo or wildcard-DNS service's */
	EGRESS_SUFFIX_HOSTING, /* a service that hands out names under it */
};

/* A public suffix list, when the caller has one: an enum egress_suffix
 * for a normalized name; NULL: only single-label names are suffixes. */
typedef int (*egress_suffix_fn)(const char *name);

/* The built-in list (spec/egress/egress_suffix.c: the whole Public Suffix List
 * and corral's own, compiled in at build time), an egress_suffix_fn; and
 * whether its table is sorted (for the unit test). */
int egress_public_suffix(const char *name);
bool egress_public_suffix_sorted(void);

/* The normalized form of a host name (malloc'ed).  EINVAL with a one-line
 * reason when it is not a name a rule can match. */
int egress_normalize_host(const char *in, char **out, struct error **err);

/* Whether `host` is an address literal: a strict dotted quad
 * (no leading zeros, four parts) or an IPv6 address, bracketed or not.
 * Fills *out when it is. */
bool egress_parse_addr(const char *host, struct egress_addr *out);

/* The address as text ("10.0.0.1", "::1"), in buf of at least 46 bytes. */
void egress_addr_text(const struct egress_addr *a, char *buf, size_t size);

/* A rule of the policy or an annotation. */
int egress_rule_parse(const char *text, egress_suffix_fn is_public_suffix,
		      struct egress_rule *out, struct error **err);
void egress_rule_release(struct egress_rule *r);

/* n rule texts parsed into a new array (*out, freed with
 * egress_rules_free(*out, n)); the first bad one fails it all. */
int egress_rules_parse(char *const *texts, size_t n,
		       egress_suffix_fn is_public_suffix,
		       struct egress_rule **out, struct error **err);
void egress_rules_free(struct egress_rule *r, size_t n);

/* The rule's text as a policy writes it: "**.github.com", "[::1]:8080". */
char *egress_rule_text(const struct egress_rule *r);

/* "host:port" or "[v6]:port" of a CONNECT line or a Host header (port
 * `default_port` when absent) split and checked: *host is normalized, or
 * an address's text when *addr->family is set (0 otherwise). */
int egress_parse_authority(const char *authority, uint16_t default_port,
			   char **host, uint16_t *port,
			   struct egress_addr *addr, struct error **err);

/* The first rule that allows the normalized name `host` on `port`, or
 * NULL.  plain_http: the request is plain HTTP, for which a rule without
 * a port also allows 80. */
const struct egress_rule *egress_match_name(const struct egress_rule *rules,
					    size_t n, const char *host,
					    uint16_t port, bool plain_http);

/* The first address rule naming exactly `a` on `port`, or NULL. */
const struct egress_rule *egress_match_addr(const struct egress_rule *rules,
					    size_t n,
					    const struct egress_addr *a,
					    uint16_t port, bool plain_http);

/* The refused range `a` lies in ("loopback", "private", "link-local",
 * "metadata", ...), or NULL for a public address.  A name's resolved
 * address in such a range is refused unless a rule names it. */
const char *egress_addr_range(const struct egress_addr *a);

/* Whether every rule of `narrow` is allowed by a rule of `wide` (an
 * annotation may only narrow the policy's list): exact names and
 * addresses must be matched, a wildcard by a wildcard at least as wide.
 * *offending is the first rule that is not. */
bool egress_rules_within(const struct egress_rule *narrow, size_t n_narrow,
			 const struct egress_rule *wide, size_t n_wide,
			 const struct egress_rule **offending);

#endif
