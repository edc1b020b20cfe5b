/* Shared by the libFuzzer targets over spec/: a failed invariant aborts,
 * which libFuzzer reports as a crash and saves the input.  Abort is right
 * here and nowhere else: a fuzz target is its own main.
 */
#ifndef CORRAL_FUZZ_H
#define CORRAL_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "spec.h"

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "fuzz invariant failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* A failed parse: there is a message, and it is one line (README.md:
 * every error is one line).  Frees err. */
static inline void fuzz_rejected(struct error *err, const char *what)
{
	FUZZ_CHECK(err && err->msg, "%s failed without a message", what);
	FUZZ_CHECK(!strpbrk(err->msg, "\r\n"), "%s: message not one line: %s",
		   what, err->msg);
	error_free(err);
}

/* spec_emit() that must succeed. */
static inline char *fuzz_spec_text(const struct spec *s)
{
	struct error *err = NULL;
	char *text = NULL;

	FUZZ_CHECK(spec_emit(s, &text, NULL, &err) == 0, "spec_emit: %s",
		   err ? err->msg : "?");
	return text;
}

/* text -> spec, which must parse. */
static inline struct spec *fuzz_spec_reparse(const char *text)
{
	struct error *err = NULL;
	struct spec *s = NULL;

	FUZZ_CHECK(spec_parse(text, strlen(text), &s, &err) == 0,
		   "emitted config.json does not parse: %s\n%s",
		   err ? err->msg : "?", text);
	return s;
}

/* The input as a NUL-separated list of parts: part i of n, or NULL when
 * the input has fewer NUL bytes.  *len is the part's length. */
static inline const char *fuzz_part(const char *data, size_t size, int i,
				    size_t *len)
{
	const char *start = data, *end = data + size;

	for (; i > 0; i--) {
		const char *nul = memchr(start, '\0', (size_t)(end - start));

		if (!nul)
			return NULL;
		start = nul + 1;
	}
	{
		const char *nul = memchr(start, '\0', (size_t)(end - start));

		*len = (size_t)((nul ? nul : end) - start);
	}
	return start;
}

#endif
