/* What corral's egress proxy needs of name resolution, pure: an A or
 * AAAA query, the addresses of the asked name in a response (through
 * CNAMEs of the same answer), and the host's /etc/hosts and
 * /etc/resolv.conf read from text.  The proxy keeps both files in memory
 * from its setup on, so it resolves with no file access at all.
 *
 * And the other side, the container's stub resolver: a query read, and
 * the answer to it built, which for a name a rule could allow is the one
 * reserved address of the transparent listeners (DNS_STUB_ADDR), and
 * for any other name NXDOMAIN.  The stub never asks anyone: no query of
 * the container's leaves it. */
#ifndef CORRAL_DNS_H
#define CORRAL_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "egress.h"

#define DNS_TYPE_A 1
#define DNS_TYPE_AAAA 28
#define DNS_MSG_MAX 1232 /* what a UDP answer is read into */
#define DNS_TCP_MAX 8192 /* what a TCP answer may be (DNS_ADDRS_MAX fit) */
#define DNS_ADDRS_MAX 8
#define DNS_SERVERS_MAX 3
#define DNS_NAME_TEXT 254 /* a name as dotted text, without its NUL */

/* The address every allowed name resolves to in the container: one of
 * 198.18.0.0/15, the benchmarking range (RFC 2544), which no network
 * routes, put on the container's lo (runtime/ns/netns.c). */
#define DNS_STUB_ADDR "198.18.0.1"
#define DNS_STUB_TTL 30
/* Where the stub listens in the container (UDP), as resolv.conf names it */
#define DNS_STUB_SERVER_ADDR "127.0.0.1"
#define DNS_STUB_SERVER_PORT 53
#define DNS_STUB_SERVER "127.0.0.1:53"

enum dns_result {
	DNS_OK,	      /* *n addresses (maybe none: no record of the type) */
	DNS_NXDOMAIN, /* the name does not exist */
	DNS_FAIL,     /* a server failure or refusal: try the next server */
	DNS_BAD,      /* not an answer to this query */
	DNS_TRUNC,    /* the answer did not fit: ask the server over TCP */
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

/* The least TTL of the answer section's records of a response that
 * dns_answer took (seconds), or 0 when it has none or does not parse: an
 * answer to keep no longer than that. */
uint32_t dns_answer_ttl(const unsigned char *msg, size_t len);

/* The addresses /etc/hosts (its text) gives `name`, at most max. */
size_t dns_hosts_lookup(const char *text, size_t len, const char *name,
			struct egress_addr *addrs, size_t max);

/* The nameserver lines of /etc/resolv.conf (its text), at most max. */
size_t dns_nameservers(const char *text, size_t len, struct egress_addr *out,
		       size_t max);

/* ---- the stub resolver -------------------------------------------- */

#define DNS_OPCODE_QUERY 0
#define DNS_RCODE_NOERROR 0
#define DNS_RCODE_NXDOMAIN 3
#define DNS_RCODE_NOTIMP 4

/* A query's header and its one question.  name is the question's name as
 * dotted text, lowercase, without the root's dot ("" for the root); a
 * dot or NUL inside a label is a backslash there, which no normalized
 * name has.  Only with opcode QUERY is there a question: qlen is 0
 * otherwise. */
struct dns_question {
	uint16_t id;
	uint8_t opcode;
	bool rd; /* recursion desired, echoed */
	char name[DNS_NAME_TEXT + 1];
	uint16_t type, cls;
	size_t qlen; /* the question's bytes, from offset 12 */
};

/* Read msg as a query: 0, or -1 when it is to be dropped (shorter than a
 * header, a response (QR), or a QUERY without exactly one whole
 * question or with answer or authority records).  The question's name
 * may not use compression (nothing precedes it to point to). */
int dns_parse_query(const unsigned char *msg, size_t len,
		    struct dns_question *q);

/* The answer to q (msg is the query it was read from: its question is
 * echoed byte for byte, case and all), with rcode and, when addr is not
 * NULL, one A record of addr (4 bytes) with ttl.  Its length, or 0 when
 * it does not fit in size.  Without a question (another opcode) the
 * answer has none. */
size_t dns_build_answer(const unsigned char *msg, const struct dns_question *q,
			uint8_t rcode, const unsigned char *addr, uint32_t ttl,
			unsigned char *out, size_t size);

/* What the stub did with one packet. */
enum dns_stub_verdict {
	DNS_STUB_DROP,	   /* no answer: malformed, or a response */
	DNS_STUB_ADDRESS,  /* an allowed name, type A: DNS_STUB_ADDR */
	DNS_STUB_NODATA,   /* an allowed name, another type (AAAA ...) */
	DNS_STUB_NXDOMAIN, /* a name no rule allows, or no name at all */
	DNS_STUB_NOTIMP,   /* an opcode other than QUERY */
};

struct dns_stub_result {
	enum dns_stub_verdict verdict;
	struct dns_question q;
	size_t len; /* of the answer in out; 0 with DNS_STUB_DROP */
};

/* The stub's whole decision on the packet msg: the question's name is
 * normalized as a rule's (egress_normalize_host) and allowed when its
 * host pattern matches some name rule's, on whichever port; the answer
 * in out (DNS_MSG_MAX bytes is always enough). */
void dns_stub_answer(const unsigned char *msg, size_t len,
		     const struct egress_rule *rules, size_t n_rules,
		     unsigned char *out, size_t size,
		     struct dns_stub_result *res);

#endif
