/* Fuzz target: the egress rules (spec/egress/egress.h).
 *
 * The input is a rule and a host (or a request's authority), NUL
 * separated.  Invariants: a normalized name has one form (only a-z, 0-9,
 * '-' and '.', no empty label, at most 253 bytes, normalizing it again
 * changes nothing, it is never an address); a rule's text parses back to
 * the same rule, which is within itself; a name a rule matches is the
 * rule's name or under it, never merely ending with its letters; every
 * refusal is one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "fuzz.h"

static void check_name(const char *name)
{
	struct error *err = NULL;
	struct egress_addr a;
	char *again = NULL;
	size_t len = strlen(name);

	FUZZ_CHECK(len > 0 && len <= EGRESS_HOST_MAX, "length %zu: %s", len,
		   name);
	FUZZ_CHECK(strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-.") ==
		       len,
		   "a character outside the one form: %s", name);
	FUZZ_CHECK(name[0] != '.' && name[len - 1] != '.' &&
		       !strstr(name, ".."),
		   "an empty label: %s", name);
	FUZZ_CHECK(!egress_parse_addr(name, &a), "a name is an address: %s",
		   name);
	FUZZ_CHECK(egress_normalize_host(name, &again, &err) == 0,
		   "normal form refused: %s: %s", name, err ? err->msg : "?");
	FUZZ_CHECK(strcmp(again, name) == 0, "not idempotent: %s -> %s", name,
		   again);
	free(again);
}

static void check_rule(const struct egress_rule *r)
{
	struct error *err = NULL;
	struct egress_rule back;
	char *text = egress_rule_text(r), *text2;

	FUZZ_CHECK(text, "egress_rule_text");
	FUZZ_CHECK(egress_rule_parse(text, NULL, &back, &err) == 0,
		   "the rule's text does not parse: %s: %s", text,
		   err ? err->msg : "?");
	text2 = egress_rule_text(&back);
	FUZZ_CHECK(text2 && strcmp(text, text2) == 0, "round trip: %s -> %s",
		   text, text2 ? text2 : "?");
	FUZZ_CHECK(egress_rules_within(r, 1, &back, 1, NULL),
		   "a rule is not within itself: %s", text);
	if (!r->is_addr)
		check_name(r->host);
	egress_rule_release(&back);
	free(text);
	free(text2);
}

static void check_match(const struct egress_rule *r, const char *host)
{
	size_t h = strlen(host), n = strlen(r->host);
	bool same = strcmp(host, r->host) == 0;
	bool under = h > n + 1 && host[h - n - 1] == '.' &&
		     strcmp(host + h - n, r->host) == 0;

	for (int plain = 0; plain < 2; plain++) {
		const struct egress_rule *m =
		    egress_match_name(r, 1, host, 443, plain);

		if (!m)
			continue;
		FUZZ_CHECK(!r->is_addr, "an address rule matched a name");
		FUZZ_CHECK(r->kind == EGRESS_EXACT	  ? same
			   : r->kind == EGRESS_SUBDOMAINS ? under
							  : same || under,
			   "%s matched %s", r->host, host);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct error *err = NULL;
	struct egress_rule rule;
	struct egress_addr a;
	char *text, *host = NULL, *name = NULL;
	size_t rlen = 0, hlen = 0;
	const char *rpart = fuzz_part((const char *)data, size, 0, &rlen);
	const char *hpart = fuzz_part((const char *)data, size, 1, &hlen);
	bool have_rule = false;
	uint16_t port;

	text = strndup(rpart, rlen);
	FUZZ_CHECK(text, "strndup");
	if (egress_rule_parse(text, NULL, &rule, &err) == 0) {
		have_rule = true;
		check_rule(&rule);
	} else {
		fuzz_rejected(err, "egress_rule_parse");
		err = NULL;
	}
	free(text);
	if (hpart) {
		text = strndup(hpart, hlen);
		FUZZ_CHECK(text, "strndup");
		if (egress_normalize_host(text, &name, &err) == 0) {
			check_name(name);
			if (have_rule)
				check_match(&rule, name);
		} else {
			fuzz_rejected(err, "egress_normalize_host");
			err = NULL;
		}
		if (egress_parse_authority(text, 443, &host, &port, &a, &err) ==
		    0) {
			FUZZ_CHECK(port > 0, "port 0 from %s", text);
			if (!a.family)
				check_name(host);
			else
				(void)egress_addr_range(&a);
		} else {
			fuzz_rejected(err, "egress_parse_authority");
		}
		free(text);
		free(host);
		free(name);
	}
	if (have_rule)
		egress_rule_release(&rule);
	return 0;
}
