/* What corral's egress proxy needs of name resolution, pure: an A or
 * AAAA query, the addresses of the asked name in a response (through
 * CNAMEs of the same answer), and the host's /etc/hosts and
 * /etc/resolv.conf read from text.  The proxy keeps both files in memory
 * from its setup on, so it resolves with no file access at all. */
#ifndef CORRAL_DNS_H
#define CORRAL_DNS_H

#include <stddef.h>
#include <stdint.h>

#include "egress.h"

#define DNS_TYPE_A 1
#define DNS_TYPE_AAAA 28
#define DNS_MSG_MAX 1232 /* what a UDP answer is read into */
#define DNS_ADDRS_MAX 8
#define DNS_SERVERS_MAX 3

enum dns_result {
	DNS_OK,	      /* *n addresses (maybe none: no record of the type) */
	DNS_NXDOMAIN, /* the name does not exist */
	DNS_FAIL,     /* a server failure or refusal: try the next server */
	DNS_BAD,      /* not an answer to this query */
};

/* The query for `name` (normalized) in out; its length, or 0 when the
 * name does not fit. */
size_t dns_query(uint16_t id, const char *name, uint16_t type,
		 unsigned char *out, size_t size);

/* The addresses of `name` of `type` in the response msg to query `id`;
 * *n is 0 but for DNS_OK.  Every verdict is on this question: a response
 * to another is DNS_BAD, whatever its rcode. */
enum dns_result dns_answer(const unsigned char *msg, size_t len, uint16_t id,
			   const char *name, uint16_t type,
			   struct egress_addr *addrs, size_t max, size_t *n);

/* The addresses /etc/hosts (its text) gives `name`, at most max. */
size_t dns_hosts_lookup(const char *text, size_t len, const char *name,
			struct egress_addr *addrs, size_t max);

/* The nameserver lines of /etc/resolv.conf (its text), at most max. */
size_t dns_nameservers(const char *text, size_t len, struct egress_addr *out,
		       size_t max);

#endif
