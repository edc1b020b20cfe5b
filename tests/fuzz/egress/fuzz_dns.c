/* Fuzz target: DNS messages and the resolver files (spec/egress/dns.h).
 *
 * The input is a response to query id (its first two bytes) for
 * example.com, A and AAAA; the same bytes are an /etc/hosts, a
 * resolv.conf, and (up to a NUL) a name to query.  Invariants: a verdict
 * is one of the five; addresses only with DNS_OK, at most max, of the
 * type's family, each one's bytes in the message; with room for one
 * address the verdict is the same and the address the first; the files
 * give at most max addresses; a query for a name in the one form,
 * answered with no records, reads back as an empty DNS_OK.  The same
 * bytes are a query to the container's stub: its verdict is one of five,
 * an answer only without DROP, never longer than the question and one
 * record, with the query's id and question byte for byte, a response
 * (QR); an address or NODATA only for a name a rule names, and the
 * address one record of DNS_STUB_ADDR.
 */
#include <stdbool.h>
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
	(void)dns_answer_ttl(m, len); /* reads within len, whatever m holds */
	FUZZ_CHECK(r == DNS_OK || r == DNS_NXDOMAIN || r == DNS_FAIL ||
		       r == DNS_BAD || r == DNS_TRUNC,
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

static void check_stub(const unsigned char *m, size_t len)
{
	static char *texts[] = {"example.com", "**.github.com:8443",
				"127.0.0.1:8080"};
	static struct egress_rule *rules;
	static const unsigned char stub[4] = {198, 18, 0, 1};
	unsigned char out[DNS_MSG_MAX];
	struct dns_stub_result res;
	struct error *err = NULL;
	char *norm = NULL;
	const size_t n = sizeof(texts) / sizeof(texts[0]);
	bool named;

	if (!rules)
		FUZZ_CHECK(egress_rules_parse(texts, n, NULL, &rules, &err) ==
			       0,
			   "the rules");
	dns_stub_answer(m, len, rules, n, out, sizeof(out), &res);
	FUZZ_CHECK(res.verdict <= DNS_STUB_NOTIMP, "verdict %d",
		   (int)res.verdict);
	FUZZ_CHECK((res.verdict == DNS_STUB_DROP) == (res.len == 0),
		   "verdict %d with %zu bytes", (int)res.verdict, res.len);
	if (res.verdict == DNS_STUB_DROP)
		return;
	FUZZ_CHECK(len >= 12 && !(m[2] & 0x80), "an answer to a response");
	FUZZ_CHECK(res.len <= 12 + res.q.qlen + 16 && 12 + res.q.qlen <= len,
		   "%zu bytes for a question of %zu", res.len, res.q.qlen);
	FUZZ_CHECK(out[0] == m[0] && out[1] == m[1] && (out[2] & 0x80),
		   "the header");
	FUZZ_CHECK(memcmp(out + 12, m + 12, res.q.qlen) == 0,
		   "another question");
	if (res.verdict == DNS_STUB_NOTIMP) {
		FUZZ_CHECK(res.len == 12 && (out[3] & 0x0f) == 4, "NOTIMP");
		return;
	}
	/* a name that does not normalize is named by no rule */
	named = egress_normalize_host(res.q.name, &norm, &err) == 0;
	error_free(err);
	for (size_t i = 0; named && i < n; i++)
		if (!rules[i].is_addr &&
		    egress_match_name(&rules[i], 1, norm,
				      rules[i].port ? rules[i].port : 443,
				      false))
			break;
		else if (i == n - 1)
			named = false;
	free(norm);
	FUZZ_CHECK((res.verdict != DNS_STUB_NXDOMAIN) == named,
		   "verdict %d for %s", (int)res.verdict, res.q.name);
	FUZZ_CHECK((res.verdict == DNS_STUB_ADDRESS) ==
		       (res.len == 12 + res.q.qlen + 16),
		   "an address record with verdict %d", (int)res.verdict);
	if (res.verdict == DNS_STUB_ADDRESS)
		FUZZ_CHECK(memcmp(out + res.len - 4, stub, 4) == 0 &&
			       out[7] == 1,
			   "another address");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_answer(data, size, DNS_TYPE_A);
	check_answer(data, size, DNS_TYPE_AAAA);
	check_files((const char *)data, size);
	check_query((const char *)data, size);
	check_stub(data, size);
	return 0;
}
