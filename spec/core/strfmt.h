/* Formatting into malloc'ed strings for code that collects an
 * out-of-memory flag instead of failing at each call (harden(), explain):
 * on failure the flag is set and NULL returned. */
#ifndef CORRAL_STRFMT_H
#define CORRAL_STRFMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static inline char *strfmt_va(bool *oom, const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0) {
		*oom = true;
		return NULL;
	}
	return s;
}

/* A memory stream into *buf (malloc'ed once the stream is closed). */
static inline FILE *strfmt_stream(bool *oom, char **buf, size_t *size)
{
	FILE *f;

	*buf = NULL;
	*size = 0;
	if (!(f = open_memstream(buf, size)))
		*oom = true;
	return f;
}

/* Close a stream of strfmt_stream(): its text, or NULL. */
static inline char *strfmt_close(bool *oom, FILE *f, char **buf)
{
	if (fclose(f) != 0) {
		free(*buf);
		*oom = true;
		return NULL;
	}
	return *buf;
}

#endif
