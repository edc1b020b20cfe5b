/* recvtty: the receiving end of --console-socket, for the integration
 * tests.
 *
 *   recvtty SOCKET INPUT
 *
 * Listens on the unix socket SOCKET, accepts one connection and receives
 * exactly one fd over SCM_RIGHTS (the pty master).  It writes INPUT to the
 * master ("\n" in INPUT is a newline), then copies everything it reads from
 * the master to stdout until the pty is closed (EOF or EIO), and exits 0.
 * Nothing else goes to stdout; diagnostics go to stderr with a non-zero
 * exit.  An alarm bounds the whole run so a test can never hang on it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define TIMEOUT_S 20

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("recvtty: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void on_alarm(int sig)
{
	static const char msg[] = "recvtty: timed out\n";

	(void)sig;
	/* async-signal-safe: write and _exit only */
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(2);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* "\n" -> newline, "\\" -> backslash, so a shell test can pass a line
 * without $'...' quoting. */
static size_t unescape(const char *in, char *out, size_t cap)
{
	size_t n = 0;

	for (; *in; in++) {
		char c = *in;

		if (c == '\\' && in[1] == 'n') {
			c = '\n';
			in++;
		} else if (c == '\\' && in[1] == '\\') {
			in++;
		}
		if (n + 1 >= cap)
			die("input too long");
		out[n++] = c;
	}
	out[n] = '\0';
	return n;
}

static int listen_on(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(path);
	int fd;

	if (len == 0 || len >= sizeof(addr.sun_path))
		die("socket path \"%s\": empty or too long", path);
	memcpy(addr.sun_path, path, len + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("bind %s: %s", path, strerror(errno));
	if (listen(fd, 1) < 0)
		die("listen %s: %s", path, strerror(errno));
	return fd;
}

/* Exactly one SCM_RIGHTS message carrying exactly one fd, and nothing
 * else: anything more would be an fd leaked by the runtime. */
static int recv_one_fd(int conn)
{
	char data[256];
	struct iovec iov = {.iov_base = data, .iov_len = sizeof(data)};
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = u.buf,
	    .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	int fd = -1, nfds = 0;
	ssize_t n;

	memset(&u, 0, sizeof(u));
	do
		n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die("recvmsg: %s", strerror(errno));
	if (n == 0)
		die("the runtime closed the socket without sending an fd");
	if (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC))
		die("message truncated (flags 0x%x)", (unsigned)msg.msg_flags);
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t len;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			die("unexpected control message %d/%d", c->cmsg_level,
			    c->cmsg_type);
		len = c->cmsg_len - CMSG_LEN(0);
		if (len % sizeof(int) != 0)
			die("SCM_RIGHTS payload of %zu bytes", len);
		for (size_t i = 0; i < len / sizeof(int); i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int),
			       sizeof(int));
			if (nfds++ == 0)
				fd = got;
			else if (close(got) < 0)
				die("close extra fd: %s", strerror(errno));
		}
	}
	if (nfds != 1)
		die("expected exactly one fd, got %d", nfds);
	return fd;
}

static void check_is_pty_master(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		die("fstat the received fd: %s", strerror(errno));
	if (!S_ISCHR(st.st_mode))
		die("the received fd is not a character device");
}

/* Until the last holder of the pty's peer closes it: Linux then reports
 * EIO on the master. */
static void copy_out(int master)
{
	char buf[4096];

	for (;;) {
		ssize_t n = read(master, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (n < 0 && errno == EIO))
			return;
		if (n < 0)
			die("read the pty master: %s", strerror(errno));
		if (write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
			die("write stdout: %s", strerror(errno));
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	char input[4096];
	size_t input_len;
	int lfd, conn, master;

	if (argc != 3) {
		fprintf(stderr, "usage: recvtty SOCKET INPUT\n");
		return 1;
	}
	if (sigemptyset(&sa.sa_mask) < 0 || sigaction(SIGALRM, &sa, NULL) < 0)
		die("sigaction: %s", strerror(errno));
	alarm(TIMEOUT_S);
	input_len = unescape(argv[2], input, sizeof(input));
	lfd = listen_on(argv[1]);
	do
		conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (conn < 0 && errno == EINTR);
	if (conn < 0)
		die("accept: %s", strerror(errno));
	master = recv_one_fd(conn);
	check_is_pty_master(master);
	if (close(conn) < 0 || close(lfd) < 0)
		die("close: %s", strerror(errno));
	if (unlink(argv[1]) < 0)
		die("unlink %s: %s", argv[1], strerror(errno));
	if (write_all(master, input, input_len) < 0)
		die("write the pty master: %s", strerror(errno));
	copy_out(master);
	if (close(master) < 0)
		die("close the pty master: %s", strerror(errno));
	return 0;
}
