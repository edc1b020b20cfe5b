/* Fuzz target: the config.json parser and emitter.
 *
 * The input is a config.json document.  When spec_parse() accepts it,
 * spec_emit() must succeed, its text must parse again, and emitting that
 * must give the same text (harden() copies a spec through exactly this
 * round trip, and the runtime reads its saved config.json back).  The same
 * bytes also go to the parsers of `exec --process` and `update
 * --resources`, whose results are round-tripped inside a minimal spec.
 * A rejected document must come with a one-line message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "spec.h"

/* emit -> parse -> emit gives the first text again. */
static void round_trip(const struct spec *s)
{
	char *t1 = fuzz_spec_text(s);
	struct spec *s2 = fuzz_spec_reparse(t1);
	char *t2 = fuzz_spec_text(s2);

	FUZZ_CHECK(strcmp(t1, t2) == 0, "round trip not stable:\n%s\n%s", t1,
		   t2);
	free(t1);
	free(t2);
	spec_free(s2);
}

static void fuzz_config(const char *data, size_t size)
{
	struct error *err = NULL;
	struct spec *s = NULL;

	if (spec_parse(data, size, &s, &err) < 0) {
		fuzz_rejected(err, "spec_parse");
		return;
	}
	round_trip(s);
	spec_free(s);
}

static void fuzz_process(const char *data, size_t size)
{
	struct error *err = NULL;
	struct spec_process *p = NULL;
	struct spec s = {.oci_version = (char *)SPEC_OCI_VERSION};

	if (spec_parse_process(data, size, &p, &err) < 0) {
		fuzz_rejected(err, "spec_parse_process");
		return;
	}
	s.process = p;
	round_trip(&s);
	spec_process_free(p);
}

static void fuzz_resources(const char *data, size_t size)
{
	struct error *err = NULL;
	struct spec_resources *r = NULL;
	struct spec_linux lx = {0};
	struct spec s = {.oci_version = (char *)SPEC_OCI_VERSION,
			 .linux_ = &lx};

	if (spec_parse_resources(data, size, &r, &err) < 0) {
		fuzz_rejected(err, "spec_parse_resources");
		return;
	}
	lx.resources = r;
	round_trip(&s);
	spec_resources_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_config((const char *)data, size);
	fuzz_process((const char *)data, size);
	fuzz_resources((const char *)data, size);
	return 0;
}
