#include "sync.h"

#include <errno.h>
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
	ssize_t n;

	/* The message's length first (MSG_TRUNC): the buffer is made its
	 * size, not SYNC_MAX's, which grew and trimmed the heap each time. */
	do
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n > SYNC_MAX)
		n = SYNC_MAX;
	if (n > 0) {
		/* the payload, n - 1 bytes, and its NUL */
		data = malloc((size_t)n);
		if (!data)
			return error_set(err, ENOMEM, "sync: out of memory");
		iov[1] = (struct iovec){data, (size_t)n - 1};
		do
			n = recvmsg(fd, &mh, 0);
		while (n < 0 && errno == EINTR);
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
