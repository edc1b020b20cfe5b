/* Fuzz target: an engine overlay's mount options, as /proc/self/mountinfo
 * shows them, into its layers (spec/config/overlay_opts.h).
 *
 * The input is the options text (a NUL ends it, as the kernel's line has
 * none).  Accepted, it gives at least one layer and at most the bound,
 * each an absolute path without a NUL; refused, a one-line message and
 * nothing kept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "overlay_opts.h"

#define MAX 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	struct overlay_opts o;
	struct error *err = NULL;

	if (!text)
		return 0;
	if (overlay_opts_parse(text, MAX, &o, &err) < 0) {
		FUZZ_CHECK(o.n == 0 && !o.layers, "refused but layers kept");
		fuzz_rejected(err, "overlay_opts_parse");
		free(text);
		return 0;
	}
	FUZZ_CHECK(o.n >= 1 && o.n <= MAX, "%zu layers", o.n);
	for (size_t i = 0; i < o.n; i++)
		FUZZ_CHECK(o.layers[i][0] == '/', "a relative layer %s",
			   o.layers[i]);
	overlay_opts_release(&o);
	free(text);
	return 0;
}
