/* The runtime log (--log FILE --log-format text|json).
 *
 * Engines read this file: containerd takes the last error line, podman
 * parses the whole file as one JSON object when a command fails.  So a
 * failing command writes only its error; a successful create adds its
 * change list (info lines); debug and warning lines need --debug.
 * Without --log, debug lines go to stderr when --debug is given. */
#ifndef CORRAL_LOG_H
#define CORRAL_LOG_H

#include <stdbool.h>

enum log_format { LOG_TEXT, LOG_JSON };

void log_init(const char *path, enum log_format format, bool debug);
bool log_debug_enabled(void);

/* Between log_hold() and log_release() the lines go through one open of
 * the file and reach it at the release (or when stdio's buffer fills):
 * a create's change list is one open and one write, not one per line. */
void log_hold(void);
void log_release(void);

/* Append the final error message (already "WHAT: WHY"). */
void log_error(const char *msg);

void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An info line goes to the log file only (the create-time change list). */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A warning goes to stderr, and to the log file with --debug. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
