/* Unit tests of spec/egress/dns.c: the query's bytes; answers written out by
 * hand (A, AAAA, CNAME chains, compression and its loops, the header's
 * verdicts) and cut at every length; /etc/hosts and resolv.conf. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dns.h"
#include "unit.h"

/* clang-format off */
/* The header of an answer to query 0x1234 (QR RD RA, rcode rc), with one
 * question and `an` answers. */
#define HDR(rc, an) 0x12, 0x34, 0x81, 0x80 | (rc), 0, 1, 0, (an), 0, 0, 0, 0
/* example.com, at offset 12 of every message: its question ends at 29 */
#define EXAMPLE_COM 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0
#define Q_A 0, 1, 0, 1     /* type A, class IN */
#define Q_AAAA 0, 28, 0, 1 /* type AAAA, class IN */
#define AT_QNAME 0xc0, 12  /* a pointer to the question's name */
/* type, class IN, TTL 60, rdlength */
#define RR(type, rdlen) 0, (type), 0, 1, 0, 0, 0, 60, 0, (rdlen)

static const unsigned char two_a[] = {
	HDR(0, 2), EXAMPLE_COM, Q_A,
	AT_QNAME, RR(1, 4), 93, 184, 216, 34,
	AT_QNAME, RR(1, 4), 10, 0, 0, 1,
};

static const unsigned char one_aaaa[] = {
	HDR(0, 1), EXAMPLE_COM, Q_AAAA,
	AT_QNAME, RR(28, 16), 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0x01,
};

/* example.com -> a.example.net -> b.example.net -> 10.0.0.7, in order,
 * a.example.net written out at 41, b.example.net as "b" and a pointer
 * to "example.net" (43), at 68. */
static const unsigned char chain[] = {
	HDR(0, 3), EXAMPLE_COM, Q_A,
	/* 29 */ AT_QNAME, RR(5, 15),
	/* 41 */ 1, 'a', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'n', 'e', 't', 0,
	/* 56 */ 0xc0, 41, RR(5, 4),
	/* 68 */ 1, 'b', 0xc0, 43,
	/* 72 */ 0xc0, 68, RR(1, 4), 10, 0, 0, 7,
};

/* The same chain backwards: the address first, then b's alias, then the
 * question's ("example.net" at 31). */
static const unsigned char chain_backwards[] = {
	HDR(0, 3), EXAMPLE_COM, Q_A,
	/* 29 */ 1, 'b', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'n', 'e', 't', 0,
		 RR(1, 4), 10, 0, 0, 7,
	/* 58 */ 1, 'a', 0xc0, 31, RR(5, 4), 1, 'b', 0xc0, 31,
	/* 76 */ AT_QNAME, RR(5, 4), 1, 'a', 0xc0, 31,
};

/* An address for another name first, an AAAA, an A of the wrong size
 * and one of class CH, then the one that counts. */
static const unsigned char others[] = {
	HDR(0, 5), EXAMPLE_COM, Q_A,
	5, 'o', 't', 'h', 'e', 'r', 0xc0, 20, RR(1, 4), 1, 1, 1, 1,
	AT_QNAME, RR(28, 16), 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0x02,
	AT_QNAME, RR(1, 5), 9, 9, 9, 9, 9,
	AT_QNAME, 0, 1, 0, 3, 0, 0, 0, 60, 0, 4, 8, 8, 8, 8,
	AT_QNAME, RR(1, 4), 10, 0, 0, 2,
};

/* An owner name that is a pointer to itself. */
static const unsigned char self_pointer[] = {
	HDR(0, 1), EXAMPLE_COM, Q_A,
	/* 29 */ 0xc0, 29, RR(1, 4), 10, 0, 0, 1,
};

/* Two pointers to each other. */
static const unsigned char pointer_pair[] = {
	HDR(0, 1), EXAMPLE_COM, Q_A,
	/* 29 */ 0xc0, 31, /* 31 */ 0xc0, 29, RR(1, 4), 10, 0, 0, 1,
};

/* example.com's alias is example.com. */
static const unsigned char cname_loop[] = {
	HDR(0, 1), EXAMPLE_COM, Q_A,
	AT_QNAME, RR(5, 2), AT_QNAME,
};

/* Owners that only read as example.com: one label "example.com", and
 * "example" then "com\0evil"; then the real one. */
static const unsigned char lookalikes[] = {
	HDR(0, 3), EXAMPLE_COM, Q_A,
	11, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm', 0,
		RR(1, 4), 6, 6, 6, 6,
	7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 8, 'c', 'o', 'm', 0, 'e', 'v', 'i', 'l', 0,
		RR(1, 4), 6, 6, 6, 7,
	AT_QNAME, RR(1, 4), 10, 0, 0, 3,
};

/* NXDOMAIN for example.org: a stray answer to another question. */
static const unsigned char nxdomain_other[] = {
	HDR(3, 0), 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0, Q_A,
};
/* clang-format on */

static enum dns_result answer(const unsigned char *msg, size_t len,
			      uint16_t type, struct egress_addr *addrs,
			      size_t max, size_t *n)
{
	unsigned char *copy = malloc(len ? len : 1); /* exact, for ASan */
	enum dns_result r;

	memcpy(copy, msg, len);
	r = dns_answer(copy, len, 0x1234, "example.com", type, addrs, max, n);
	free(copy);
	return r;
}

static const char *text(const struct egress_addr *a, char *buf)
{
	egress_addr_text(a, buf, 64);
	return buf;
}

TEST(query_bytes)
{
	static const unsigned char want[] = {
	    0x12, 0x34, 0x01, 0,   0,	1, 0,	0,   0,	  0, 0, 0, 7, 'e', 'x',
	    'a',  'm',	'p',  'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1,
	};
	unsigned char out[DNS_MSG_MAX];

	CHECK(dns_query(0x1234, "example.com", DNS_TYPE_A, out, sizeof(out)) ==
	      sizeof(want));
	CHECK(memcmp(out, want, sizeof(want)) == 0);
	CHECK(dns_query(0xabcd, "example.com", DNS_TYPE_AAAA, out,
			sizeof(out)) == sizeof(want));
	CHECK(out[0] == 0xab && out[1] == 0xcd && out[26] == 28);
	/* exactly the room it needs, and one byte less */
	CHECK(dns_query(0x1234, "example.com", DNS_TYPE_A, out, 29) == 29);
	CHECK(dns_query(0x1234, "example.com", DNS_TYPE_A, out, 28) == 0);
}

TEST(query_refuses_what_does_not_encode)
{
	unsigned char out[DNS_MSG_MAX];
	char name[300];

	memset(name, 'a', 63);
	strcpy(name + 63, ".test");
	CHECK(dns_query(1, name, DNS_TYPE_A, out, sizeof(out)) ==
	      12 + 1 + 63 + 1 + 4 + 1 + 4);
	memset(name, 'a', 64);
	strcpy(name + 64, ".test");
	CHECK(dns_query(1, name, DNS_TYPE_A, out, sizeof(out)) == 0);
	CHECK(dns_query(1, "a..test", DNS_TYPE_A, out, sizeof(out)) == 0);
	CHECK(dns_query(1, ".test", DNS_TYPE_A, out, sizeof(out)) == 0);
	/* 253 bytes (63.63.63.61) encode; 254 do not */
	memset(name, 'a', 253);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	CHECK(dns_query(1, name, DNS_TYPE_A, out, sizeof(out)) == 12 + 255 + 4);
	name[253] = 'a';
	name[254] = '\0';
	CHECK(dns_query(1, name, DNS_TYPE_A, out, sizeof(out)) == 0);
}

/* A query made into its answer reads back. */
TEST(query_answered)
{
	unsigned char m[DNS_MSG_MAX];
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t len = dns_query(0x1234, "example.com", DNS_TYPE_A, m, sizeof(m));
	static const unsigned char rr[] = {0xc0, 12, 0, 1, 0,	1, 0, 0,
					   0,	 9,  0, 4, 192, 0, 2, 1};
	size_t n = 9;
	char buf[64];

	m[2] |= 0x80;
	m[7] = 1;
	memcpy(m + len, rr, sizeof(rr));
	CHECK(answer(m, len + sizeof(rr), DNS_TYPE_A, a, DNS_ADDRS_MAX, &n) ==
	      DNS_OK);
	CHECK(n == 1);
	CHECK_STR(text(&a[0], buf), "192.0.2.1");
}

TEST(a_records)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 0;
	char buf[64];

	CHECK(answer(two_a, sizeof(two_a), DNS_TYPE_A, a, DNS_ADDRS_MAX, &n) ==
	      DNS_OK);
	CHECK(n == 2);
	CHECK(a[0].family == AF_INET && a[1].family == AF_INET);
	CHECK_STR(text(&a[0], buf), "93.184.216.34");
	CHECK_STR(text(&a[1], buf), "10.0.0.1");
	/* at most max */
	CHECK(answer(two_a, sizeof(two_a), DNS_TYPE_A, a, 1, &n) == DNS_OK);
	CHECK(n == 1);
	CHECK_STR(text(&a[0], buf), "93.184.216.34");
}

/* The least TTL of the answers: what the egress helper's cache keeps an
 * answer for (issue 39, item 9); 0 for none or a message that does not
 * parse. */
TEST(answer_ttl_is_the_least)
{
	/* clang-format off */
	static const unsigned char ttls[] = {
		HDR(0, 2), EXAMPLE_COM, Q_A,
		AT_QNAME, 0, 1, 0, 1, 0, 0, 0x01, 0x2c, 0, 4, 93, 184, 216, 34,
		AT_QNAME, 0, 1, 0, 1, 0, 0, 0, 7, 0, 4, 10, 0, 0, 1,
	};
	static const unsigned char none[] = {HDR(0, 0), EXAMPLE_COM, Q_A};
	/* clang-format on */

	CHECK(dns_answer_ttl(two_a, sizeof(two_a)) == 60);
	CHECK(dns_answer_ttl(ttls, sizeof(ttls)) == 7);
	CHECK(dns_answer_ttl(none, sizeof(none)) == 0);
	for (size_t len = 0; len < sizeof(ttls); len++)
		CHECK(dns_answer_ttl(ttls, len) == 0);
	CHECK(dns_answer_ttl(self_pointer, sizeof(self_pointer)) == 0);
}

TEST(aaaa_record)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 0;
	char buf[64];

	CHECK(answer(one_aaaa, sizeof(one_aaaa), DNS_TYPE_AAAA, a,
		     DNS_ADDRS_MAX, &n) == DNS_OK);
	CHECK(n == 1);
	CHECK(a[0].family == AF_INET6);
	CHECK_STR(text(&a[0], buf), "2001:db8::1");
}

TEST(cname_chain)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 0;
	char buf[64];

	CHECK(answer(chain, sizeof(chain), DNS_TYPE_A, a, DNS_ADDRS_MAX, &n) ==
	      DNS_OK);
	CHECK(n == 1);
	CHECK_STR(text(&a[0], buf), "10.0.0.7");
	n = 0;
	CHECK(answer(chain_backwards, sizeof(chain_backwards), DNS_TYPE_A, a,
		     DNS_ADDRS_MAX, &n) == DNS_OK);
	CHECK(n == 1);
	CHECK_STR(text(&a[0], buf), "10.0.0.7");
}

/* A chain that ends in no address, or goes round, is an empty answer. */
TEST(cname_without_address)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 9;

	/* the chain cut before its address */
	CHECK(answer(chain, 72, DNS_TYPE_A, a, DNS_ADDRS_MAX, &n) == DNS_BAD);
	CHECK(answer(cname_loop, sizeof(cname_loop), DNS_TYPE_A, a,
		     DNS_ADDRS_MAX, &n) == DNS_OK);
	CHECK(n == 0);
}

TEST(compression_loops)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 9;

	CHECK(answer(self_pointer, sizeof(self_pointer), DNS_TYPE_A, a,
		     DNS_ADDRS_MAX, &n) == DNS_BAD);
	CHECK(n == 0);
	CHECK(answer(pointer_pair, sizeof(pointer_pair), DNS_TYPE_A, a,
		     DNS_ADDRS_MAX, &n) == DNS_BAD);
}

TEST(records_of_other_names_and_types_ignored)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 0;
	char buf[64];

	CHECK(answer(others, sizeof(others), DNS_TYPE_A, a, DNS_ADDRS_MAX,
		     &n) == DNS_OK);
	CHECK(n == 1);
	CHECK_STR(text(&a[0], buf), "10.0.0.2");
	/* an AAAA question is not answered by A records */
	{
		unsigned char m[sizeof(two_a)];

		memcpy(m, two_a, sizeof(m));
		m[26] = 28;
		CHECK(answer(m, sizeof(m), DNS_TYPE_AAAA, a, DNS_ADDRS_MAX,
			     &n) == DNS_OK);
		CHECK(n == 0);
	}
}

TEST(lookalike_owners_ignored)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 0;
	char buf[64];

	CHECK(answer(lookalikes, sizeof(lookalikes), DNS_TYPE_A, a,
		     DNS_ADDRS_MAX, &n) == DNS_OK);
	CHECK(n == 1);
	CHECK_STR(text(&a[0], buf), "10.0.0.3");
}

/* A message's addresses are none when it does not parse to its end. */
TEST(no_addresses_from_a_bad_message)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = 9;

	/* two_a cut after its first record */
	CHECK(answer(two_a, sizeof(two_a) - 16, DNS_TYPE_A, a, DNS_ADDRS_MAX,
		     &n) == DNS_BAD);
	CHECK(n == 0);
}

/* The header's verdicts, on two_a with one field changed. */
static enum dns_result with(size_t off, unsigned char v)
{
	unsigned char m[sizeof(two_a)];
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n;

	memcpy(m, two_a, sizeof(m));
	m[off] = v;
	return answer(m, sizeof(m), DNS_TYPE_A, a, DNS_ADDRS_MAX, &n);
}

TEST(header_verdicts)
{
	CHECK(with(1, 0x35) == DNS_BAD);	  /* another id */
	CHECK(with(2, 0x01) == DNS_BAD);	  /* a query, not a response */
	CHECK(with(2, 0x81 | 0x08) == DNS_BAD);	  /* opcode IQUERY */
	CHECK(with(5, 0) == DNS_BAD);		  /* no question */
	CHECK(with(5, 2) == DNS_BAD);		  /* two questions */
	CHECK(with(2, 0x81 | 0x02) == DNS_TRUNC); /* TC: ask over TCP */
	CHECK(with(3, 0x80 | 2) == DNS_FAIL);	  /* SERVFAIL */
	CHECK(with(3, 0x80 | 5) == DNS_FAIL);	  /* REFUSED */
	CHECK(with(3, 0x80 | 3) == DNS_NXDOMAIN);
	CHECK(with(3, 0x00) == DNS_OK); /* RA clear is no matter */
}

TEST(question_must_match)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n;

	CHECK(dns_answer(two_a, sizeof(two_a), 0x1234, "example.org",
			 DNS_TYPE_A, a, DNS_ADDRS_MAX, &n) == DNS_BAD);
	CHECK(dns_answer(two_a, sizeof(two_a), 0x1234, "www.example.com",
			 DNS_TYPE_A, a, DNS_ADDRS_MAX, &n) == DNS_BAD);
	CHECK(answer(two_a, sizeof(two_a), DNS_TYPE_AAAA, a, DNS_ADDRS_MAX,
		     &n) == DNS_BAD);
	CHECK(with(28, 3) == DNS_BAD);	  /* class CH */
	CHECK(with(13, 'E') == DNS_OK);	  /* 0x20 case changes match */
	CHECK(with(13, 'x') == DNS_BAD);  /* another name */
	CHECK(with(12, 0x47) == DNS_BAD); /* a label type 01 */
}

/* A NXDOMAIN is an answer to its question only. */
TEST(nxdomain_for_another_question)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n;

	CHECK(answer(nxdomain_other, sizeof(nxdomain_other), DNS_TYPE_A, a,
		     DNS_ADDRS_MAX, &n) == DNS_BAD);
	CHECK(dns_answer(nxdomain_other, sizeof(nxdomain_other), 0x1234,
			 "example.org", DNS_TYPE_A, a, DNS_ADDRS_MAX,
			 &n) == DNS_NXDOMAIN);
}

/* A message cut anywhere is never an answer, and is read in bounds. */
TEST(truncated_at_every_length)
{
	const struct {
		const unsigned char *m;
		size_t len;
		uint16_t type;
	} msgs[] = {
	    {two_a, sizeof(two_a), DNS_TYPE_A},
	    {one_aaaa, sizeof(one_aaaa), DNS_TYPE_AAAA},
	    {chain, sizeof(chain), DNS_TYPE_A},
	    {chain_backwards, sizeof(chain_backwards), DNS_TYPE_A},
	    {others, sizeof(others), DNS_TYPE_A},
	    {cname_loop, sizeof(cname_loop), DNS_TYPE_A},
	    {lookalikes, sizeof(lookalikes), DNS_TYPE_A},
	};
	struct egress_addr a[DNS_ADDRS_MAX];

	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		for (size_t len = 0; len < msgs[i].len; len++) {
			size_t n = 9;

			if (answer(msgs[i].m, len, msgs[i].type, a,
				   DNS_ADDRS_MAX, &n) != DNS_BAD ||
			    n != 0) {
				printf("# message %zu cut at %zu\n", i, len);
				unit_failed_checks++;
			}
		}
	}
	/* and the verdicts of the other messages at every length: no crash */
	for (size_t len = 0; len <= sizeof(nxdomain_other); len++) {
		size_t n;

		(void)answer(nxdomain_other, len, DNS_TYPE_A, a, DNS_ADDRS_MAX,
			     &n);
		(void)answer(self_pointer, len < sizeof(self_pointer) ? len : 0,
			     DNS_TYPE_A, a, DNS_ADDRS_MAX, &n);
	}
}

static const char hosts[] = "# /etc/hosts\n"
			    "127.0.0.1\tlocalhost\n"
			    "::1     localhost ip6-localhost ip6-loopback\n"
			    "\n"
			    "   # indented comment 10.0.0.9 build.example\n"
			    "10.0.0.5 Build.Example\tbuild # build.other\n"
			    "[10.0.0.7] build.example\n"
			    "#10.0.0.8 build.example\n"
			    "2001:db8::5 build.example\r\n"
			    "build.example 10.0.0.10\n"
			    "10.0.0.6\t\tbuild.example";

static size_t lookup(const char *name, size_t max, char out[][64])
{
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t n = dns_hosts_lookup(hosts, sizeof(hosts) - 1, name, a, max);

	for (size_t i = 0; i < n; i++)
		egress_addr_text(&a[i], out[i], 64);
	return n;
}

TEST(hosts_lookup)
{
	char got[DNS_ADDRS_MAX][64];

	CHECK(lookup("localhost", DNS_ADDRS_MAX, got) == 2);
	CHECK_STR(got[0], "127.0.0.1");
	CHECK_STR(got[1], "::1");
	CHECK(lookup("ip6-loopback", DNS_ADDRS_MAX, got) == 1);
	CHECK_STR(got[0], "::1");
	/* names in any case, tabs, CRLF, the last line without a newline;
	 * not the bracketed, commented or name-first lines */
	CHECK(lookup("build.example", DNS_ADDRS_MAX, got) == 3);
	CHECK_STR(got[0], "10.0.0.5");
	CHECK_STR(got[1], "2001:db8::5");
	CHECK_STR(got[2], "10.0.0.6");
	CHECK(lookup("build.example", 2, got) == 2);
	CHECK(lookup("build", DNS_ADDRS_MAX, got) == 1);
	CHECK_STR(got[0], "10.0.0.5");
	/* what follows a # is no name */
	CHECK(lookup("build.other", DNS_ADDRS_MAX, got) == 0);
	CHECK(lookup("comment", DNS_ADDRS_MAX, got) == 0);
	CHECK(lookup("local", DNS_ADDRS_MAX, got) == 0);
	CHECK(lookup("localhost.", DNS_ADDRS_MAX, got) == 0);
}

/* A NUL byte in the file is a separator, not the end of the search:
 * it used to make a word of no length that never moved on. */
TEST(hosts_with_nul)
{
	static const char file[] = "10.0.0.9 a\0b\0 build.example\n"
				   "\0\n"
				   "10.0.0.10 x\0";
	struct egress_addr a[DNS_ADDRS_MAX];
	char buf[64];

	alarm(10); /* a hang is a failure */
	CHECK(dns_hosts_lookup(file, sizeof(file) - 1, "build.example", a,
			       DNS_ADDRS_MAX) == 1);
	CHECK_STR(text(&a[0], buf), "10.0.0.9");
	CHECK(dns_hosts_lookup(file, sizeof(file) - 1, "x", a, DNS_ADDRS_MAX) ==
	      1);
	CHECK(dns_hosts_lookup(file, sizeof(file) - 1, "nothere", a,
			       DNS_ADDRS_MAX) == 0);
	alarm(0);
}

static const char resolv[] = "# resolv.conf\n"
			     "search corp.example\n"
			     "nameserver 10.0.0.53\n"
			     "nameserver junk\n"
			     "nameserver\n"
			     "nameservers 10.9.9.9\n"
			     "#nameserver 10.8.8.8\n"
			     "nameserver [2001:db8::1]\n"
			     "options ndots:2 nameserver 10.7.7.7\n"
			     "  nameserver\t2001:db8::53 # the v6 one\n"
			     "nameserver 10.0.0.54\r\n"
			     "nameserver 10.0.0.55\n"
			     "nameserver 10.0.0.56";

TEST(nameservers)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	char buf[64];
	size_t n =
	    dns_nameservers(resolv, sizeof(resolv) - 1, a, DNS_SERVERS_MAX);

	CHECK(n == 3);
	CHECK_STR(text(&a[0], buf), "10.0.0.53");
	CHECK(a[1].family == AF_INET6);
	CHECK_STR(text(&a[1], buf), "2001:db8::53");
	CHECK_STR(text(&a[2], buf), "10.0.0.54");
	n = dns_nameservers(resolv, sizeof(resolv) - 1, a, DNS_ADDRS_MAX);
	CHECK(n == 5);
	CHECK_STR(text(&a[4], buf), "10.0.0.56");
	CHECK(dns_nameservers(resolv, sizeof(resolv) - 1, a, 1) == 1);
	CHECK(dns_nameservers("", 0, a, DNS_SERVERS_MAX) == 0);
	CHECK(dns_nameservers("nameserver 10.0.0.1", 10, a, 3) == 0);
}

/* ---- the stub resolver ---------------------------------------------- */

/* The rules of a policy: a name on its own port, a wildcard, an address
 * (whose text is no name the stub answers). */
static struct egress_rule *stub_rules(size_t *n)
{
	static char *texts[] = {"up.test:8443", "**.github.com", "pypi.org",
				"127.0.0.1:8080"};
	struct egress_rule *r = NULL;
	struct error *err = NULL;

	*n = sizeof(texts) / sizeof(texts[0]);
	CHECK(egress_rules_parse(texts, *n, NULL, &r, &err) == 0);
	error_free(err);
	return r;
}

/* The stub's answer to a query for name of type. */
static enum dns_stub_verdict stub(const char *name, uint16_t type,
				  unsigned char *out, size_t *len)
{
	unsigned char q[DNS_MSG_MAX];
	struct dns_stub_result res;
	size_t n, qlen = dns_query(0x5150, name, type, q, sizeof(q));
	struct egress_rule *r = stub_rules(&n);

	CHECK(qlen > 0);
	dns_stub_answer(q, qlen, r, n, out, DNS_MSG_MAX, &res);
	egress_rules_free(r, n);
	*len = res.len;
	return res.verdict;
}

TEST(stub_answers_a_named_host)
{
	unsigned char out[DNS_MSG_MAX];
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t len, n = 9;
	char buf[64];

	CHECK(stub("up.test", DNS_TYPE_A, out, &len) == DNS_STUB_ADDRESS);
	/* the header: the id, QR AA RD, NOERROR, one question, one answer */
	CHECK(out[0] == 0x51 && out[1] == 0x50);
	CHECK(out[2] == 0x85 && out[3] == 0);
	CHECK(out[5] == 1 && out[7] == 1 && out[9] == 0 && out[11] == 0);
	/* the TTL */
	CHECK(out[len - 10] == 0 && out[len - 9] == 0 && out[len - 8] == 0 &&
	      out[len - 7] == DNS_STUB_TTL);
	/* and the proxy's own reader takes it */
	CHECK(dns_answer(out, len, 0x5150, "up.test", DNS_TYPE_A, a,
			 DNS_ADDRS_MAX, &n) == DNS_OK);
	CHECK(n == 1);
	CHECK_STR(text(&a[0], buf), DNS_STUB_ADDR);
	/* on whichever port its rule names; a wildcard's name and its
	 * subdomains */
	CHECK(stub("github.com", DNS_TYPE_A, out, &len) == DNS_STUB_ADDRESS);
	CHECK(stub("api.github.com", DNS_TYPE_A, out, &len) ==
	      DNS_STUB_ADDRESS);
	CHECK(stub("pypi.org", DNS_TYPE_A, out, &len) == DNS_STUB_ADDRESS);
}

TEST(stub_no_aaaa_and_no_other_type)
{
	unsigned char out[DNS_MSG_MAX];
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t len, n = 9;

	/* NOERROR and no answer: a client falls back to IPv4 */
	CHECK(stub("up.test", DNS_TYPE_AAAA, out, &len) == DNS_STUB_NODATA);
	CHECK(out[3] == 0 && out[7] == 0);
	CHECK(dns_answer(out, len, 0x5150, "up.test", DNS_TYPE_AAAA, a,
			 DNS_ADDRS_MAX, &n) == DNS_OK);
	CHECK(n == 0);
	CHECK(stub("up.test", 16 /* TXT */, out, &len) == DNS_STUB_NODATA);
	CHECK(out[7] == 0);
	CHECK(stub("up.test", 255 /* ANY */, out, &len) == DNS_STUB_NODATA);
}

TEST(stub_nxdomain_for_other_names)
{
	static const char *const names[] = {
	    "other.test", "test", "xup.test", "a.up.test", "pypi.org.evil",
	    "github.com.evil", "githubxcom", "127.0.0.1", "localhost",
	    /* a TXT query's name carrying data out: answered here, sent
	     * nowhere */
	    "c2VjcmV0.exfil.example"};
	unsigned char out[DNS_MSG_MAX];
	struct egress_addr a[DNS_ADDRS_MAX];
	size_t len, n = 9;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK(stub(names[i], DNS_TYPE_A, out, &len) ==
		      DNS_STUB_NXDOMAIN);
		CHECK(out[3] == DNS_RCODE_NXDOMAIN && out[7] == 0);
		CHECK(stub(names[i], 16, out, &len) == DNS_STUB_NXDOMAIN);
	}
	CHECK(stub("other.test", DNS_TYPE_A, out, &len) == DNS_STUB_NXDOMAIN);
	CHECK(dns_answer(out, len, 0x5150, "other.test", DNS_TYPE_A, a,
			 DNS_ADDRS_MAX, &n) == DNS_NXDOMAIN);
}

/* The question goes back as it came (a resolver may check its 0x20
 * case), the name is compared in the rules' form. */
TEST(stub_normalizes_and_echoes)
{
	unsigned char q[DNS_MSG_MAX], out[DNS_MSG_MAX];
	struct dns_stub_result res;
	size_t n, qlen = dns_query(7, "Up.TeSt", DNS_TYPE_A, q, sizeof(q));
	struct egress_rule *r = stub_rules(&n);

	dns_stub_answer(q, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_ADDRESS);
	CHECK_STR(res.q.name, "up.test");
	CHECK(memcmp(out + 12, q + 12, qlen - 12) == 0);
	/* a label holding a dot is not two labels */
	qlen = dns_query(7, "up.test", DNS_TYPE_A, q, sizeof(q));
	q[12] = 7; /* "up.test" as one label */
	q[15] = '.';
	CHECK(dns_parse_query(q, qlen, &res.q) == 0);
	CHECK_STR(res.q.name, "up\\test");
	dns_stub_answer(q, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_NXDOMAIN);
	/* a NUL and a space in a label */
	qlen = dns_query(7, "u-p.test", DNS_TYPE_A, q, sizeof(q));
	q[14] = '\0';
	dns_stub_answer(q, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_NXDOMAIN);
	q[14] = ' ';
	dns_stub_answer(q, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_NXDOMAIN);
	egress_rules_free(r, n);
}

TEST(stub_drops_and_notimp)
{
	unsigned char q[DNS_MSG_MAX], out[DNS_MSG_MAX];
	struct dns_stub_result res;
	size_t n, qlen = dns_query(9, "up.test", DNS_TYPE_A, q, sizeof(q));
	struct egress_rule *r = stub_rules(&n);
	unsigned char m[DNS_MSG_MAX];

	/* a response is never answered (no loops between two stubs) */
	memcpy(m, q, qlen);
	m[2] |= 0x80;
	dns_stub_answer(m, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_DROP && res.len == 0);
	/* two questions, none, an answer record, an authority record */
	static const size_t count_at[] = {4, 4, 6, 8};
	static const unsigned char count[] = {2, 0, 1, 1};
	for (size_t i = 0; i < sizeof(count); i++) {
		memcpy(m, q, qlen);
		m[count_at[i] + 1] = count[i];
		dns_stub_answer(m, qlen, r, n, out, sizeof(out), &res);
		CHECK(res.verdict == DNS_STUB_DROP);
	}
	/* a compression pointer in the question */
	memcpy(m, q, qlen);
	m[12] = 0xc0;
	m[13] = 12;
	dns_stub_answer(m, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_DROP);
	/* an additional record (EDNS) is no reason to drop */
	memcpy(m, q, qlen);
	m[11] = 1;
	dns_stub_answer(m, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_ADDRESS);
	CHECK(out[11] == 0);
	/* every cut of the query is dropped, or answered whole */
	for (size_t len = 0; len < qlen; len++) {
		dns_stub_answer(q, len, r, n, out, sizeof(out), &res);
		CHECK(res.verdict == DNS_STUB_DROP);
	}
	/* another opcode: NOTIMP, without a question */
	memcpy(m, q, qlen);
	m[2] = 2 << 3; /* STATUS */
	dns_stub_answer(m, qlen, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_NOTIMP && res.len == 12);
	CHECK(out[0] == 0 && out[1] == 9 && out[2] == (0x80 | 2 << 3 | 0x04));
	CHECK(out[3] == DNS_RCODE_NOTIMP && out[5] == 0);
	dns_stub_answer(m, 12, r, n, out, sizeof(out), &res);
	CHECK(res.verdict == DNS_STUB_NOTIMP);
	/* and no room: nothing */
	dns_stub_answer(q, qlen, r, n, out, 20, &res);
	CHECK(res.verdict == DNS_STUB_DROP && res.len == 0);
	egress_rules_free(r, n);
}

int main(void)
{
	return unit_run();
}
