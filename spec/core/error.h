/* One error type for all of corral.
 *
 * A function that can fail takes `struct error **err` as its last argument,
 * returns 0 on success, and on failure returns -1 with *err set.  The first
 * error set wins: later error_set() calls on an already-set error are
 * ignored, so cleanup paths cannot overwrite the cause.  Callers add context
 * on the way up with error_wrap(), which prefixes "CONTEXT: ".  Only main()
 * prints an error.
 */
#ifndef CORRAL_ERROR_H
#define CORRAL_ERROR_H

struct error {
	int code; /* errno value of the cause, or 0 */
	char *msg;
};

/* Set *err to a formatted message; returns -1. */
int error_set(struct error **err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like error_set(), with ": strerror(errno)" appended and code = errno. */
int error_errno(struct error **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefix the message of *err with "CONTEXT: "; returns -1. */
int error_wrap(struct error **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void error_free(struct error *err);

#endif
