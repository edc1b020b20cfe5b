#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Out-of-memory while building a message must still yield an error. */
static struct error oom_error = {ENOMEM, (char *)"out of memory"};

static int set_va(struct error **err, int code, const char *suffix,
		  const char *fmt, va_list ap)
{
	struct error *e;
	char *msg = NULL;

	if (!err || *err)
		return -1;
	if (vasprintf(&msg, fmt, ap) < 0) {
		*err = &oom_error;
		return -1;
	}
	if (suffix) {
		char *full = NULL;

		if (asprintf(&full, "%s: %s", msg, suffix) < 0) {
			free(msg);
			*err = &oom_error;
			return -1;
		}
		free(msg);
		msg = full;
	}
	e = malloc(sizeof(*e));
	if (!e) {
		free(msg);
		*err = &oom_error;
		return -1;
	}
	e->code = code;
	e->msg = msg;
	*err = e;
	return -1;
}

int error_set(struct error **err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_va(err, code, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int error_errno(struct error **err, const char *fmt, ...)
{
	int code = errno;
	va_list ap;

	/* nothing would be kept: strerror's lookup is not made */
	if (!err || *err)
		return -1;
	va_start(ap, fmt);
	set_va(err, code, strerror(code), fmt, ap);
	va_end(ap);
	return -1;
}

int error_wrap(struct error **err, const char *fmt, ...)
{
	char *prefix = NULL, *full = NULL;
	va_list ap;
	int r;

	if (!err || !*err || *err == &oom_error)
		return -1;
	va_start(ap, fmt);
	r = vasprintf(&prefix, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	if (asprintf(&full, "%s: %s", prefix, (*err)->msg) >= 0) {
		free((*err)->msg);
		(*err)->msg = full;
	}
	free(prefix);
	return -1;
}

void error_free(struct error *err)
{
	if (!err || err == &oom_error)
		return;
	free(err->msg);
	free(err);
}
