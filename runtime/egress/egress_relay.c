/* A connection's reads and writes with deadlines, and the relay: shared
 * by the connection's own program (egress/, which relays) and its broker
 * (runtime/egress/egress_upstream.c, which reads the nameservers' answers). */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "egress_conn.h"

long long egress_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void conn_send_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (size_t)w;
	}
}

/* Wait until fd is readable or the deadline passes (or the container's
 * init is gone); 1 readable, 0 timeout or stop. */
static int wait_readable(const struct conn *c, int fd, long long deadline)
{
	for (;;) {
		struct pollfd f[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = c->p->stop_fd, .events = POLLIN}};
		long long left = deadline - egress_now_ms();
		int r;

		if (left <= 0)
			return 0;
		r = poll(f, 2, left > 60000 ? 60000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (c->p->stop_fd >= 0 && f[1].revents))
			return 0;
		if (f[0].revents)
			return 1;
	}
}

ssize_t conn_read_some(const struct conn *c, int fd, char *buf, size_t n,
		       long long deadline)
{
	ssize_t r;

	if (!wait_readable(c, fd, deadline))
		return -2;
	do
		r = recv(fd, buf, n, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Bytes both ways (both) or only upstream to client, until upstream's
 * end, an error or idle_ms of nothing. */
void conn_relay(struct conn *c, bool both)
{
	static char buf[RELAY_BUF];
	bool client_open = both, up_open = true;

	while (client_open || up_open) {
		struct pollfd f[3] = {
		    {.fd = client_open ? c->client : -1, .events = POLLIN},
		    {.fd = up_open ? c->up : -1, .events = POLLIN},
		    {.fd = c->p->stop_fd, .events = POLLIN}};
		int r = poll(f, 3, c->p->idle_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (c->p->stop_fd >= 0 && f[2].revents))
			return;
		for (int i = 0; i < 2; i++) {
			int from = i == 0 ? c->client : c->up;
			int to = i == 0 ? c->up : c->client;
			ssize_t n;

			if (!f[i].revents)
				continue;
			n = recv(from, buf, sizeof(buf), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				shutdown(to, SHUT_WR);
				/* upstream's end is the tunnel's end */
				if (i == 1)
					return;
				client_open = false;
				continue;
			}
			conn_send_all(to, buf, (size_t)n);
			if (i == 0)
				c->d.up += (unsigned long long)n;
			else
				c->d.down += (unsigned long long)n;
		}
	}
}
