/* Fuzz target: the policy parser and emitter.
 *
 * The input is a policy document.  When policy_parse() accepts it,
 * policy_emit() must succeed and read back (policy.h: "which
 * policy_parse() reads back to an equal policy"): parsing the emitted
 * text and emitting again gives the same text.  A rejected document must
 * come with a one-line message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "policy.h"

static char *policy_text(const struct policy *p)
{
	struct error *err = NULL;
	char *text = NULL;

	FUZZ_CHECK(policy_emit(p, &text, &err) == 0, "policy_emit: %s",
		   err ? err->msg : "?");
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct error *err = NULL;
	struct policy *p = NULL, *p2 = NULL;
	char *t1, *t2;

	if (policy_parse((const char *)data, size, &p, &err) < 0) {
		fuzz_rejected(err, "policy_parse");
		return 0;
	}
	t1 = policy_text(p);
	FUZZ_CHECK(policy_parse(t1, strlen(t1), &p2, &err) == 0,
		   "emitted policy does not parse: %s\n%s",
		   err ? err->msg : "?", t1);
	t2 = policy_text(p2);
	FUZZ_CHECK(strcmp(t1, t2) == 0, "round trip not stable:\n%s\n%s", t1,
		   t2);
	free(t1);
	free(t2);
	policy_free(p);
	policy_free(p2);
	return 0;
}
