/* Unit tests of the egress rules (spec/egress/egress.c): the one form of a host
 * name, address literals and the refused ranges, rule syntax, matching,
 * and the narrowing check of annotations. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress.h"
#include "unit.h"
#include "util.h"

/* The normalized name, or "ERR: message". */
static char *norm(const char *in)
{
	struct error *err = NULL;
	char *out = NULL, *msg;

	if (egress_normalize_host(in, &out, &err) == 0)
		return out;
	if (asprintf(&msg, "ERR: %s", err->msg) < 0)
		msg = NULL;
	error_free(err);
	return msg;
}

#define CHECK_NORM(in, want)                                                   \
	do {                                                                   \
		char *got_ = norm(in);                                         \
		CHECK_STR(got_, want);                                         \
		free(got_);                                                    \
	} while (0)

#define CHECK_REFUSED(in)                                                      \
	do {                                                                   \
		char *got_ = norm(in);                                         \
		if (!got_ || strncmp(got_, "ERR: ", 5) != 0) {                 \
			printf("# %s: accepted as \"%s\"\n", in,               \
			       got_ ? got_ : "(null)");                        \
			unit_failed_checks++;                                  \
		}                                                              \
		free(got_);                                                    \
	} while (0)

TEST(names_have_one_form)
{
	CHECK_NORM("pypi.org", "pypi.org");
	CHECK_NORM("PYPI.ORG.", "pypi.org");
	CHECK_NORM("Files.PythonHosted.org", "files.pythonhosted.org");
	CHECK_NORM("a-b.c0.example", "a-b.c0.example");
	CHECK_NORM("xn--bcher-kva.de", "xn--bcher-kva.de");
	/* RFC 3492's and the usual IDNA examples */
	CHECK_NORM("bücher.de", "xn--bcher-kva.de");
	CHECK_NORM("BüCHER.de", "xn--bcher-kva.de");
	CHECK_NORM("münchen.de", "xn--mnchen-3ya.de");
	CHECK_NORM("пример.испытание", "xn--e1afmkfd.xn--80akhbyknj4f");
	CHECK_NORM("例え.テスト", "xn--r8jz45g.xn--zckzah");
}

TEST(names_that_are_not_names_are_refused)
{
	static const char *const bad[] = {
	    "",
	    ".",
	    "..",
	    "pypi..org",
	    ".pypi.org",
	    "pypi.org..",
	    "user@pypi.org",
	    "pypi.org%2e",
	    "pyp%69.org",
	    "pypi .org",
	    "pypi.org\t",
	    "pypi.org\r\nHost: evil",
	    "pypi.org/x",
	    "pypi.org\\x",
	    "pypi_org.com",
	    "-pypi.org",
	    "pypi-.org",
	    "pypi.org:443",
	    "pypi\x7f.org",
	    "pypi\xff.org",	    /* not UTF-8 */
	    "pypi\xc0\xae.org",	    /* an overlong '.' */
	    "pypi\xed\xa0\x80.org", /* a surrogate */
	    "pypi\xe3\x80\x82org",  /* U+3002 ideographic full stop */
	    "pypi\xef\xbc\x8eorg",  /* U+FF0E fullwidth full stop */
	    "\xef\xbd\x90ypi.org",  /* fullwidth p */
	    "py\xe2\x80\x8bpi.org", /* zero-width space */
	    "py\xc2\xadpi.org",	    /* soft hyphen */
	    "pypi.org\xc2\xa0",	    /* no-break space */
	    "2130706433",	    /* 127.0.0.1 as one number */
	    "127.1",		    /* inet_aton's short form */
	    "0x7f.0.0.1",
	    "1.2.3.4.5",
	    "example.0x10",
	    "127.0.0.1", /* an address, not a name */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK_REFUSED(bad[i]);
	/* 64-character label and a 254-character name */
	char label[70], name[300];

	memset(label, 'a', 64);
	strcpy(label + 64, ".org");
	CHECK_REFUSED(label);
	memset(label, 'a', 63);
	strcpy(label + 63, ".org");
	CHECK_NORM(label, label);
	name[0] = '\0';
	for (int i = 0; i < 50; i++)
		strcat(name, "abcd.");
	strcat(name, "org"); /* 253 characters: the most a name has */
	CHECK_NORM(name, name);
	strcat(name, "x");
	CHECK_REFUSED(name);
}

static struct egress_addr addr_of(const char *s)
{
	struct egress_addr a;

	if (!egress_parse_addr(s, &a)) {
		printf("# %s: not an address\n", s);
		unit_failed_checks++;
	}
	return a;
}

TEST(address_literals_are_strict)
{
	struct egress_addr a;
	char text[64];

	CHECK(egress_parse_addr("10.0.0.1", &a) && a.family == AF_INET);
	CHECK(egress_parse_addr("[::1]", &a) && a.family == AF_INET6);
	CHECK(egress_parse_addr("::1", &a) && a.family == AF_INET6);
	CHECK(egress_parse_addr("[2001:db8::1]", &a));
	egress_addr_text(&a, text, sizeof(text));
	CHECK_STR(text, "2001:db8::1");
	CHECK(!egress_parse_addr("010.0.0.1", &a)); /* octal to some */
	CHECK(!egress_parse_addr("10.0.0", &a));
	CHECK(!egress_parse_addr("10.0.0.256", &a));
	CHECK(!egress_parse_addr("10.0.0.1.", &a));
	CHECK(!egress_parse_addr(" 10.0.0.1", &a));
	CHECK(!egress_parse_addr("[fe80::1%eth0]", &a));
	CHECK(!egress_parse_addr("[10.0.0.1]", &a));
	CHECK(!egress_parse_addr("pypi.org", &a));
}

TEST(refused_ranges_are_named)
{
	static const struct {
		const char *addr, *range;
	} cases[] = {
	    {"127.0.0.1", "loopback"},
	    {"127.255.255.254", "loopback"},
	    {"10.1.2.3", "private"},
	    {"172.16.0.1", "private"},
	    {"172.31.255.255", "private"},
	    {"192.168.1.1", "private"},
	    {"169.254.169.254", "metadata"},
	    {"169.254.1.1", "link-local"},
	    {"100.64.0.1", "shared (CGNAT)"},
	    {"100.127.255.255", "shared (CGNAT)"},
	    {"0.0.0.0", "this network"},
	    {"224.0.0.1", "multicast"},
	    {"255.255.255.255", "reserved"},
	    {"198.18.0.1", "benchmarking"},
	    {"198.19.255.255", "benchmarking"},
	    {"192.0.2.1", "documentation"},
	    {"::", "unspecified"},
	    {"::1", "loopback"},
	    {"::ffff:8.8.8.8", "IPv4-mapped"},
	    {"::ffff:127.0.0.1", "IPv4-mapped"},
	    {"::127.0.0.1", "IPv4-compatible"},
	    {"64:ff9b::7f00:1", "NAT64"},
	    {"2002:7f00:1::", "6to4"},
	    {"2001:0:4136:e378::", "Teredo"},
	    {"fd00:ec2::254", "metadata"},
	    {"fd12::1", "private (ULA)"},
	    {"fe80::1", "link-local"},
	    {"ff02::1", "multicast"},
	    {"2001:db8::1", "documentation"},
	    /* public */
	    {"8.8.8.8", NULL},
	    {"172.32.0.1", NULL},
	    {"100.128.0.1", NULL},
	    {"198.20.0.1", NULL},
	    {"2606:4700::1111", NULL},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct egress_addr a = addr_of(cases[i].addr);
		const char *got = egress_addr_range(&a);

		if (!cases[i].range != !got ||
		    (got && strcmp(got, cases[i].range) != 0)) {
			printf("# %s: range %s, expected %s\n", cases[i].addr,
			       got ? got : "(public)",
			       cases[i].range ? cases[i].range : "(public)");
			unit_failed_checks++;
		}
	}
}

static int is_psl(const char *name)
{
	return strcmp(name, "co.uk") == 0 || strcmp(name, "github.io") == 0
		   ? EGRESS_SUFFIX_PUBLIC
		   : EGRESS_SUFFIX_NONE;
}

/* The rule's text after a round trip, or "ERR: message". */
static char *rule(const char *text)
{
	struct error *err = NULL;
	struct egress_rule r;
	char *out;

	if (egress_rule_parse(text, is_psl, &r, &err) == 0) {
		out = egress_rule_text(&r);
		egress_rule_release(&r);
		return out;
	}
	if (asprintf(&out, "ERR: %s", err->msg) < 0)
		out = NULL;
	error_free(err);
	return out;
}

#define CHECK_RULE(text, want)                                                 \
	do {                                                                   \
		char *got_ = rule(text);                                       \
		if (!got_ || strncmp(got_, want, strlen(want)) != 0) {         \
			printf("# %s: \"%s\", expected \"%s...\"\n", text,     \
			       got_ ? got_ : "(null)", want);                  \
			unit_failed_checks++;                                  \
		}                                                              \
		free(got_);                                                    \
	} while (0)

TEST(rule_syntax)
{
	CHECK_RULE("pypi.org", "pypi.org");
	CHECK_RULE("PyPI.org.", "pypi.org");
	CHECK_RULE("*.github.com", "*.github.com");
	CHECK_RULE("**.GitHub.com", "**.github.com");
	CHECK_RULE("api.example.com:8443", "api.example.com:8443");
	CHECK_RULE("127.0.0.1:8080", "127.0.0.1:8080");
	CHECK_RULE("[::1]:8080", "[::1]:8080");
	CHECK_RULE("::1", "[::1]");
	CHECK_RULE("*.bücher.de", "*.xn--bcher-kva.de");
	CHECK_RULE("*", "ERR: *: a wildcard is only");
	CHECK_RULE("**", "ERR: **: a wildcard is only");
	CHECK_RULE("*.com", "ERR: *.com: a wildcard over the public suffix");
	CHECK_RULE("**.org", "ERR: **.org: a wildcard over the public suffix");
	CHECK_RULE("*.co.uk", "ERR: *.co.uk: a wildcard over the public");
	CHECK_RULE("*.example.co.uk", "*.example.co.uk");
	CHECK_RULE("a.*.example.com", "ERR: a.*.example.com: a wildcard");
	CHECK_RULE("*example.com", "ERR: *example.com: a wildcard");
	CHECK_RULE("***.example.com", "ERR: ***.example.com: a wildcard");
	CHECK_RULE("*.10.0.0.1", "ERR: *.10.0.0.1: a wildcard over an address");
	CHECK_RULE("pypi.org:0", "ERR: pypi.org:0: port \"0\"");
	CHECK_RULE("pypi.org:65536", "ERR: pypi.org:65536: port");
	CHECK_RULE("pypi.org:08", "ERR: pypi.org:08: port");
	CHECK_RULE("pypi.org:", "ERR: pypi.org:: port");
	CHECK_RULE("pypi.org:+1", "ERR: pypi.org:+1: port");
	CHECK_RULE("[::1]x", "ERR: [::1]x: expected [IPv6]");
	CHECK_RULE("user@pypi.org", "ERR: user@pypi.org: host: userinfo");
	CHECK_RULE("", "ERR: : an empty host");
}

static struct egress_rule *rules_of(const char *const *texts, size_t n)
{
	struct egress_rule *r = calloc(n, sizeof(*r));

	for (size_t i = 0; r && i < n; i++) {
		struct error *err = NULL;

		if (egress_rule_parse(texts[i], NULL, &r[i], &err) < 0) {
			printf("# %s: %s\n", texts[i], err->msg);
			unit_failed_checks++;
			error_free(err);
		}
	}
	return r;
}

static void rules_free(struct egress_rule *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		egress_rule_release(&r[i]);
	free(r);
}

static const char *const policy_rules[] = {
    "pypi.org",	      "*.pythonhosted.org",
    "**.github.com",  "api.example.com:8443",
    "127.0.0.1:8080", "[::1]:9000",
};

/* The rule that allows host:port, as text, or "-" */
static char *match(const struct egress_rule *r, size_t n, const char *host,
		   uint16_t port, bool plain)
{
	const struct egress_rule *m;
	struct egress_addr a;

	if (egress_parse_addr(host, &a))
		m = egress_match_addr(r, n, &a, port, plain);
	else
		m = egress_match_name(r, n, host, port, plain);
	return m ? egress_rule_text(m) : strdup("-");
}

#define CHECK_MATCH(host, port, plain, want)                                   \
	do {                                                                   \
		char *got_ = match(r, n, host, port, plain);                   \
		CHECK_STR(got_, want);                                         \
		free(got_);                                                    \
	} while (0)

TEST(matching)
{
	size_t n = ARRAY_SIZE(policy_rules);
	struct egress_rule *r = rules_of(policy_rules, n);

	CHECK_MATCH("pypi.org", 443, false, "pypi.org");
	CHECK_MATCH("pypi.org", 80, true, "pypi.org");
	CHECK_MATCH("pypi.org", 80, false, "-"); /* CONNECT to 80 */
	CHECK_MATCH("pypi.org", 8443, false, "-");
	CHECK_MATCH("www.pypi.org", 443, false, "-");
	CHECK_MATCH("evil.com.pypi.org.attacker", 443, false, "-");
	CHECK_MATCH("pypi.org.attacker", 443, false, "-");
	CHECK_MATCH("evilpypi.org", 443, false, "-");
	CHECK_MATCH("files.pythonhosted.org", 443, false, "*.pythonhosted.org");
	CHECK_MATCH("a.b.pythonhosted.org", 443, false, "*.pythonhosted.org");
	CHECK_MATCH("pythonhosted.org", 443, false, "-");
	CHECK_MATCH("github.com", 443, false, "**.github.com");
	CHECK_MATCH("api.github.com", 443, false, "**.github.com");
	CHECK_MATCH("notgithub.com", 443, false, "-");
	CHECK_MATCH("api.example.com", 8443, false, "api.example.com:8443");
	CHECK_MATCH("api.example.com", 443, false, "-");
	CHECK_MATCH("127.0.0.1", 8080, false, "127.0.0.1:8080");
	CHECK_MATCH("127.0.0.1", 8080, true, "127.0.0.1:8080");
	CHECK_MATCH("127.0.0.1", 443, false, "-");
	CHECK_MATCH("127.0.0.2", 8080, false, "-");
	CHECK_MATCH("::1", 9000, false, "[::1]:9000");
	CHECK_MATCH("::ffff:127.0.0.1", 8080, false, "-");
	rules_free(r, n);
}

static void check_authority(const char *in, uint16_t dflt, const char *host,
			    uint16_t port, int family)
{
	struct error *err = NULL;
	struct egress_addr a;
	char *h = NULL;
	uint16_t p = 0;

	if (egress_parse_authority(in, dflt, &h, &p, &a, &err) < 0) {
		if (host) {
			printf("# %s: %s\n", in, err->msg);
			unit_failed_checks++;
		}
		error_free(err);
		return;
	}
	if (!host) {
		printf("# %s: accepted as %s:%u\n", in, h, (unsigned)p);
		unit_failed_checks++;
	} else {
		CHECK_STR(h, host);
		CHECK(p == port);
		CHECK(a.family == family);
	}
	free(h);
}

TEST(authorities_of_requests)
{
	check_authority("pypi.org:443", 443, "pypi.org", 443, 0);
	check_authority("PyPI.org", 80, "pypi.org", 80, 0);
	check_authority("pypi.org.:8443", 443, "pypi.org", 8443, 0);
	check_authority("10.0.0.1:80", 443, "10.0.0.1", 80, AF_INET);
	check_authority("[::1]:443", 80, "::1", 443, AF_INET6);
	check_authority("[::1]", 80, "::1", 80, AF_INET6);
	check_authority("::1:443", 80, NULL, 0, 0); /* ambiguous? an address */
	check_authority("user:pw@pypi.org:443", 443, NULL, 0, 0);
	check_authority("pypi.org:443:443", 443, NULL, 0, 0);
	check_authority("pypi.org:99999", 443, NULL, 0, 0);
	check_authority("2130706433:443", 443, NULL, 0, 0);
	check_authority("", 443, NULL, 0, 0);
}

TEST(annotations_only_narrow)
{
	static const char *const wide_t[] = {"**.github.com", "pypi.org",
					     "*.pythonhosted.org",
					     "127.0.0.1:8080"};
	static const struct {
		const char *rule;
		bool within;
	} cases[] = {
	    {"github.com", true},
	    {"api.github.com", true},
	    {"*.github.com", true},
	    {"**.github.com", true},
	    {"**.api.github.com", true},
	    {"pypi.org", true},
	    {"pypi.org:443", true},
	    {"pypi.org:8443", false},
	    {"**.pypi.org", false},
	    {"www.pypi.org", false},
	    {"files.pythonhosted.org", true},
	    {"pythonhosted.org", false},
	    {"**.pythonhosted.org", false},
	    {"*.pythonhosted.org", true},
	    {"*.x.pythonhosted.org", true},
	    {"127.0.0.1:8080", true},
	    {"127.0.0.1", false},
	    {"127.0.0.2:8080", false},
	    {"example.com", false},
	};
	size_t nw = ARRAY_SIZE(wide_t);
	struct egress_rule *wide = rules_of(wide_t, nw);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct egress_rule *one = rules_of(&cases[i].rule, 1);
		const struct egress_rule *bad = NULL;
		bool got = egress_rules_within(one, 1, wide, nw, &bad);

		if (got != cases[i].within) {
			printf("# %s: within %d, expected %d\n", cases[i].rule,
			       got, cases[i].within);
			unit_failed_checks++;
		}
		CHECK(got || bad == one);
		rules_free(one, 1);
	}
	rules_free(wide, nw);
}

int main(void)
{
	return unit_run();
}
