#include "log.h"

#include "fsutil.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *log_path;
static enum log_format log_fmt = LOG_TEXT;
static bool log_dbg;
static FILE *log_held;

void log_init(const char *path, enum log_format format, bool debug)
{
	log_path = path;
	log_fmt = format;
	log_dbg = debug;
}

bool log_debug_enabled(void)
{
	return log_dbg;
}

/* JSON string escaping for the message; the rest of the line is ours. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

static void write_line(FILE *f, const char *level, const char *msg)
{
	char ts[64];

	now_rfc3339(ts, sizeof(ts));
	if (log_fmt == LOG_JSON) {
		fprintf(f, "{\"level\":\"%s\",\"msg\":\"", level);
		put_escaped(f, msg);
		fprintf(f, "\",\"time\":\"%s\"}\n", ts);
	} else {
		fprintf(f, "time=\"%s\" level=%s msg=\"", ts, level);
		put_escaped(f, msg);
		fputs("\"\n", f);
	}
}

static FILE *open_log(void)
{
	struct stat st;
	int fd;
	FILE *f;

	if (!log_path)
		return NULL;
	/* Never through a link at its end, never a FIFO (which would block
	 * the open) or a hard link to another file: engines put logs in
	 * directories others may write (the caller's own path up to it is
	 * trusted).  A log that is none of these is not written. */
	fd = open(log_path,
		  O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY |
		      O_NONBLOCK | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "a");
	if (!f)
		close(fd);
	return f;
}

static void append(const char *level, const char *msg)
{
	FILE *f = log_held ? log_held : open_log();

	if (!f)
		return;
	write_line(f, level, msg);
	if (f != log_held)
		fclose(f);
}

void log_hold(void)
{
	if (!log_held)
		log_held = open_log();
}

void log_release(void)
{
	if (log_held)
		fclose(log_held);
	log_held = NULL;
}

void log_error(const char *msg)
{
	append("error", msg);
}

static void vlog(const char *level, bool to_stderr, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	if (to_stderr)
		fprintf(stderr, "corral: %s: %s\n", level, msg);
	if (log_dbg)
		append(level, msg);
	free(msg);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_dbg)
		return;
	va_start(ap, fmt);
	vlog("debug", log_path == NULL, fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) >= 0)
		append("info", msg);
	va_end(ap);
	free(msg);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning", true, fmt, ap);
	va_end(ap);
}
