#include "sync.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "util.h"

int sync_socketpair(int fds[2], struct error **err)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0)
		return error_errno(err, "sync socket");
	return 0;
}

int sync_send(int fd, enum sync_msg type, const char *payload, size_t len,
	      struct error **err)
{
	_cleanup_free_ char *buf = NULL;
	ssize_t n;

	if (len > SYNC_MAX - 1)
		len = SYNC_MAX - 1;
	buf = malloc(len + 1);
	if (!buf)
		return error_set(err, ENOMEM, "sync: out of memory");
	buf[0] = (char)type;
	if (len)
		memcpy(buf + 1, payload, len);
	do
		n = send(fd, buf, len + 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return error_errno(err, "sync: send");
	return 0;
}

int sync_recv(int fd, enum sync_msg *type, char **payload, struct error **err)
{
	_cleanup_free_ char *data = NULL;
	unsigned char t;
	struct iovec iov[2] = {{&t, 1}, {NULL, 0}};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
	bool reset = false;
	ssize_t n;

	/* The message's length first (MSG_TRUNC): the buffer is made its
	 * size, not SYNC_MAX's, which grew and trimmed the heap each time.
	 * A peer that closed with a message of ours unread (a child that
	 * failed and exited before reading GO) makes the next call, the
	 * peek or the read, fail with ECONNRESET ahead of the ERROR it
	 * sent: the kernel says that once, and a new try reads what is
	 * queued. */
	for (;;) {
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
		if (n > SYNC_MAX)
			n = SYNC_MAX;
		if (n > 0) {
			/* the payload, n - 1 bytes, and its NUL */
			free(data);
			data = malloc((size_t)n);
			if (!data)
				return error_set(err, ENOMEM,
						 "sync: out of memory");
			iov[1] = (struct iovec){data, (size_t)n - 1};
			n = recvmsg(fd, &mh, 0);
		}
		if (n >= 0 ||
		    (errno != EINTR && (errno != ECONNRESET || reset)))
			break;
		reset |= errno == ECONNRESET;
	}
	if (n < 0)
		return error_errno(err, "sync: receive");
	if (n == 0)
		return error_set(
		    err, EPIPE,
		    "the container's init process exited during setup");
	data[n - 1] = '\0';
	*type = (enum sync_msg)t;
	if (payload)
		*payload = steal_pointer(&data);
	return 0;
}

int sync_expect(int fd, enum sync_msg want, char **payload, struct error **err)
{
	_cleanup_free_ char *data = NULL;
	enum sync_msg type;

	if (sync_recv(fd, &type, &data, err) < 0)
		return -1;
	if (type == SYNC_ERROR)
		return error_set(err, EIO, "%s", data);
	if (type != want)
		return error_set(err, EPROTO, "sync: unexpected message %d",
				 (int)type);
	if (payload)
		*payload = steal_pointer(&data);
	return 0;
}
