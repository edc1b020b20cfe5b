/* A D-Bus connection to systemd (dbus_conn.h).  The socket is systemd's
 * own (its private socket, or the bus it is on), reached by a path that
 * is the host's (root's, or the calling user's runtime directory), never
 * one config.json names. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dbus_conn.h"
#include "fsutil.h"
#include "util.h"

#define LINE_MAX_ 512 /* an authentication line; the server's are short */
#define SIGNALS_MAX 64

void dbus_in_clear(struct dbus_in *in)
{
	free(in->data);
	*in = (struct dbus_in){0};
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait until fd is readable by `deadline` (now_ms's clock). */
static int wait_in(int fd, long deadline, const char *what, struct error **err)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long left = deadline - now_ms();
		int r;

		if (left <= 0)
			return error_set(err, ETIMEDOUT,
					 "%s: systemd did not answer in time",
					 what);
		r = poll(&p, 1, (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return error_errno(err, "%s: poll", what);
	}
}

/* Exactly n bytes by deadline. */
static int read_n(int fd, void *buf, size_t n, long deadline, const char *what,
		  struct error **err)
{
	for (size_t got = 0; got < n;) {
		ssize_t r;

		if (wait_in(fd, deadline, what, err) < 0)
			return -1;
		r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return error_errno(err, "%s: read", what);
		if (r == 0)
			return error_set(err, ECONNRESET,
					 "%s: systemd closed the connection",
					 what);
		got += (size_t)r;
	}
	return 0;
}

/* One "\r\n"-ended line of the authentication, read a byte at a time so
 * that nothing of the first message is taken with it. */
static int read_line(int fd, char *buf, size_t size, long deadline,
		     struct error **err)
{
	for (size_t n = 0; n + 1 < size; n++) {
		if (read_n(fd, buf + n, 1, deadline, "D-Bus auth", err) < 0)
			return -1;
		if (n > 0 && buf[n - 1] == '\r' && buf[n] == '\n') {
			buf[n - 1] = '\0';
			return 0;
		}
	}
	return error_set(err, EPROTO, "D-Bus auth: a line too long");
}

/* EXTERNAL with no initial response: the server answers DATA and, on our
 * empty DATA, takes our uid from the socket's credentials, which is
 * right in a user namespace too (what getuid() says there is not what
 * the server sees).
 *
 * The whole exchange is written at once, BEGIN included, before any
 * answer is read, as sd-bus's own clients write it.  systemd's private
 * socket (sd-bus in PID 1's event loop) reads what follows BEGIN in the
 * same read into its buffer and then waits for the socket to be readable
 * again before it parses it: a first call written right after the OK
 * often arrived with the BEGIN and was never answered (the systemd
 * guest's "Get: systemd did not answer in time", gone under strace).
 * Written first, BEGIN is read with the rest of the exchange, and the
 * first call arrives alone. */
static int authenticate(int fd, struct error **err)
{
	static const char auth[] = "\0AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n";
	long deadline = now_ms() + DBUS_TIMEOUT_MS;
	char line[LINE_MAX_];
	bool challenged = false;

	if (write_all(fd, auth, sizeof(auth) - 1) < 0)
		return error_errno(err, "D-Bus auth: write");
	for (;;) {
		if (read_line(fd, line, sizeof(line), deadline, err) < 0)
			return -1;
		if (!challenged && strcmp(line, "DATA") == 0) {
			challenged = true;
			continue;
		}
		break;
	}
	if (strncmp(line, "OK ", 3) != 0)
		return error_set(err, EACCES, "D-Bus auth: refused (%.40s)",
				 line);
	/* a server that said OK without asking for DATA answers our DATA
	 * with an ERROR line, before the first message */
	if (!challenged && read_line(fd, line, sizeof(line), deadline, err) < 0)
		return -1;
	return 0;
}

static int send_msg(struct dbus_conn *c, const struct dbus_buf *msg,
		    const char *what, struct error **err)
{
	if (write_all(c->fd, msg->data, msg->len) < 0)
		return error_errno(err, "%s: write", what);
	return 0;
}

static int read_msg(struct dbus_conn *c, long deadline, struct dbus_in *out,
		    const char *what, struct error **err)
{
	uint8_t fixed[DBUS_FIXED_HEADER];
	size_t size;

	*out = (struct dbus_in){0};
	if (read_n(c->fd, fixed, sizeof(fixed), deadline, what, err) < 0 ||
	    dbus_msg_size(fixed, &size, err) < 0)
		return -1;
	out->data = malloc(size);
	if (!out->data)
		return error_set(err, ENOMEM, "%s: out of memory", what);
	memcpy(out->data, fixed, sizeof(fixed));
	if (read_n(c->fd, out->data + sizeof(fixed), size - sizeof(fixed),
		   deadline, what, err) < 0 ||
	    dbus_msg_parse(out->data, size, &out->m, err) < 0) {
		dbus_in_clear(out);
		return -1;
	}
	return 0;
}

/* A signal read while waiting for a reply: kept for dbus_next_signal,
 * the oldest dropped past SIGNALS_MAX (systemd's other units' jobs). */
static void keep_signal(struct dbus_conn *c, struct dbus_in *in)
{
	struct dbus_in *v;

	if (c->n_signals == SIGNALS_MAX) {
		dbus_in_clear(&c->signals[0]);
		memmove(c->signals, c->signals + 1,
			--c->n_signals * sizeof(*c->signals));
	}
	v = realloc(c->signals, (c->n_signals + 1) * sizeof(*v));
	if (!v) {
		dbus_in_clear(in);
		return;
	}
	c->signals = v;
	v[c->n_signals++] = *in;
	*in = (struct dbus_in){0};
}

int dbus_call(struct dbus_conn *c, const char *dest, const char *path,
	      const char *iface, const char *member, const char *sig,
	      const struct dbus_buf *body, struct dbus_in *reply,
	      char **error_name, struct error **err)
{
	struct dbus_buf msg = {0};
	uint32_t serial = ++c->serial;
	long deadline = now_ms() + DBUS_TIMEOUT_MS;
	int rc = -1;

	*reply = (struct dbus_in){0};
	if (error_name)
		*error_name = NULL;
	if (dbus_method_call(serial, c->bus ? dest : NULL, path, iface, member,
			     sig, body, &msg, err) < 0 ||
	    send_msg(c, &msg, member, err) < 0)
		goto out;
	for (;;) {
		struct dbus_in in;

		if (read_msg(c, deadline, &in, member, err) < 0)
			goto out;
		if (in.m.type == DBUS_SIGNAL) {
			keep_signal(c, &in);
			continue;
		}
		if ((in.m.type != DBUS_METHOD_RETURN &&
		     in.m.type != DBUS_ERROR) ||
		    in.m.reply_serial != serial) {
			dbus_in_clear(&in);
			continue;
		}
		if (in.m.type == DBUS_ERROR) {
			struct dbus_reader r;
			const char *text = "";

			dbus_reader_init(&r, &in.m);
			if (strncmp(in.m.sig, "s", 1) == 0)
				dbus_read_str(&r, &text);
			error_set(err, EREMOTEIO, "%s: %s: %.200s", member,
				  in.m.error_name, text);
			if (error_name)
				*error_name = strdup(in.m.error_name);
			dbus_in_clear(&in);
			goto out;
		}
		*reply = in;
		rc = 0;
		goto out;
	}
out:
	dbus_buf_clear(&msg);
	return rc;
}

int dbus_next_signal(struct dbus_conn *c, int timeout_ms, struct dbus_in *out,
		     struct error **err)
{
	long deadline = now_ms() + timeout_ms;

	*out = (struct dbus_in){0};
	if (c->n_signals) {
		*out = c->signals[0];
		memmove(c->signals, c->signals + 1,
			--c->n_signals * sizeof(*c->signals));
		return 1;
	}
	for (;;) {
		struct dbus_in in;
		_cleanup_error_ struct error *late = NULL;

		if (read_msg(c, deadline, &in, "D-Bus signal", &late) < 0) {
			if (late->code == ETIMEDOUT)
				return 0;
			*err = steal_pointer(&late);
			return -1;
		}
		if (in.m.type == DBUS_SIGNAL) {
			*out = in;
			return 1;
		}
		dbus_in_clear(&in);
	}
}

int dbus_open(const char *path, bool bus, struct dbus_conn *out,
	      struct error **err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -1;

	*out = (struct dbus_conn){.fd = -1, .bus = bus};
	if (strlen(path) >= sizeof(a.sun_path))
		return error_set(err, ENAMETOOLONG, "%s: too long", path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_errno(err, "%s: socket", path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return error_errno(err, "%s: connect", path);
	if (authenticate(fd, err) < 0)
		return error_wrap(err, "%s", path);
	out->fd = take_fd(&fd);
	if (bus) {
		struct dbus_in reply;

		if (dbus_call(out, "org.freedesktop.DBus",
			      "/org/freedesktop/DBus", "org.freedesktop.DBus",
			      "Hello", "", NULL, &reply, NULL, err) < 0) {
			dbus_close(out);
			return error_wrap(err, "%s", path);
		}
		dbus_in_clear(&reply);
	}
	return 0;
}

void dbus_close(struct dbus_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	for (size_t i = 0; i < c->n_signals; i++)
		dbus_in_clear(&c->signals[i]);
	free(c->signals);
	*c = (struct dbus_conn){.fd = -1};
}
