/* Fuzz target: DNS messages and the resolver files (spec/dns.h).
 *
 * The input is a response to query id (its first two bytes) for
 * example.com, A and AAAA; the same bytes are an /etc/hosts, a
 * resolv.conf, and (up to a NUL) a name to query.  Invariants: a verdict
 * is one of the four; addresses only with DNS_OK, at most max, of the
 * type's family, each one's bytes in the message; with room for one
 * address the verdict is the same and the address the first; the files
 * give at most max addresses; a query for a name in the one form,
 * answered with no records, reads back as an empty DNS_OK.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dns.h"
#include "fuzz.h"

static void check_answer(const unsigned char *m, size_t len, uint16_t type)
{
	struct egress_addr a[DNS_ADDRS_MAX], first;
	uint16_t id = len >= 2 ? (uint16_t)(m[0] << 8 | m[1]) : 0;
	size_t n = 99, n1 = 99;
	enum dns_result r, r1;
	size_t want = type == DNS_TYPE_A ? 4 : 16;

	r = dns_answer(m, len, id, "example.com", type, a, DNS_ADDRS_MAX, &n);
	FUZZ_CHECK(r == DNS_OK || r == DNS_NXDOMAIN || r == DNS_FAIL ||
		       r == DNS_BAD,
		   "verdict %d", (int)r);
	FUZZ_CHECK(n <= DNS_ADDRS_MAX, "%zu addresses", n);
	FUZZ_CHECK(r == DNS_OK || n == 0, "%zu addresses with verdict %d", n,
		   (int)r);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(a[i].family ==
			       (type == DNS_TYPE_A ? AF_INET : AF_INET6),
			   "family %d for type %u", a[i].family, type);
		FUZZ_CHECK(memmem(m, len, a[i].bytes, want),
			   "an address not in the message");
	}
	r1 = dns_answer(m, len, id, "example.com", type, &first, 1, &n1);
	FUZZ_CHECK(r1 == r && n1 == (n > 0 ? 1 : 0),
		   "max 1: verdict %d, %zu; max %d: %d, %zu", (int)r1, n1,
		   DNS_ADDRS_MAX, (int)r, n);
	if (n1)
		FUZZ_CHECK(memcmp(&first, &a[0], sizeof(first)) == 0,
			   "max 1: another first address");
}

static void check_files(const char *text, size_t len)
{
	struct egress_addr a[DNS_ADDRS_MAX];
	const char *names[] = {"example.com", "localhost", "x"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = dns_hosts_lookup(text, len, names[i], a, 2);

		FUZZ_CHECK(n <= 2, "hosts: %zu addresses", n);
		for (size_t j = 0; j < n; j++)
			FUZZ_CHECK(a[j].family == AF_INET ||
				       a[j].family == AF_INET6,
				   "hosts: family %d", a[j].family);
	}
	FUZZ_CHECK(dns_nameservers(text, len, a, DNS_SERVERS_MAX) <=
		       DNS_SERVERS_MAX,
		   "too many nameservers");
}

static void check_query(const char *data, size_t size)
{
	unsigned char m[DNS_MSG_MAX];
	struct egress_addr a[DNS_ADDRS_MAX];
	char name[300];
	size_t len = strnlen(data, size), qlen, n = 99;
	bool one_form;

	if (len >= sizeof(name))
		return;
	memcpy(name, data, len);
	name[len] = '\0';
	qlen = dns_query(0x4242, name, DNS_TYPE_AAAA, m, sizeof(m));
	if (qlen == 0)
		return;
	FUZZ_CHECK(qlen <= 12 + len + 2 + 4, "query of %zu bytes for %zu", qlen,
		   len);
	one_form =
	    len > 0 && name[len - 1] != '.' &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-.") == len;
	if (!one_form)
		return;
	FUZZ_CHECK(qlen == 12 + len + 2 + 4, "query of %zu bytes for %s", qlen,
		   name);
	m[2] |= 0x80; /* the response: no records */
	FUZZ_CHECK(dns_answer(m, qlen, 0x4242, name, DNS_TYPE_AAAA, a,
			      DNS_ADDRS_MAX, &n) == DNS_OK &&
		       n == 0,
		   "the answer to a query for %s", name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_answer(data, size, DNS_TYPE_A);
	check_answer(data, size, DNS_TYPE_AAAA);
	check_files((const char *)data, size);
	check_query((const char *)data, size);
	return 0;
}
