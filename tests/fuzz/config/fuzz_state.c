/* Fuzz target: the state.json parser (spec/config/state.h).
 *
 * The input is a state.json.  When spec_state_parse() accepts it, the
 * private view (what corral writes to state.json) must parse back to a
 * state that emits the same text; the public view and the `list` array
 * must emit.  A rejected document must come with a one-line message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "state.h"

static char *state_text(const struct spec_state *s, enum spec_state_view v)
{
	struct error *err = NULL;
	char *text = NULL;

	FUZZ_CHECK(spec_state_emit(s, v, &text, &err) == 0,
		   "spec_state_emit: %s", err ? err->msg : "?");
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct error *err = NULL;
	struct spec_state *s = NULL, *s2 = NULL;
	char *t1, *t2, *pub, *list = NULL;

	if (spec_state_parse((const char *)data, size, &s, &err) < 0) {
		fuzz_rejected(err, "spec_state_parse");
		return 0;
	}
	s->status = "running";
	t1 = state_text(s, STATE_PRIVATE);
	FUZZ_CHECK(spec_state_parse(t1, strlen(t1), &s2, &err) == 0,
		   "emitted state does not parse: %s\n%s", err ? err->msg : "?",
		   t1);
	s2->status = "running";
	t2 = state_text(s2, STATE_PRIVATE);
	FUZZ_CHECK(strcmp(t1, t2) == 0, "round trip not stable:\n%s\n%s", t1,
		   t2);
	pub = state_text(s, STATE_PUBLIC);
	FUZZ_CHECK(spec_state_emit_list(&s, 1, &list, &err) == 0,
		   "spec_state_emit_list: %s", err ? err->msg : "?");
	free(t1);
	free(t2);
	free(pub);
	free(list);
	spec_state_free(s);
	spec_state_free(s2);
	return 0;
}
