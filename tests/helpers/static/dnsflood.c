/* dnsflood: many DNS queries, one at a time, to a resolver, for the egress
 * tests (tests/security/hostile_egress.bats), run inside a container
 * (static, so it needs nothing from the image).
 *
 *   dnsflood ADDR COUNT LEN   COUNT A queries to ADDR:53 (IPv4), each for
 *                             a name of about LEN bytes that no other
 *                             query asks (q<N>.xxx...); each waits for
 *                             its answer (1 s at most)
 *
 * Prints "sent N answered M" and exits 0. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* The query for name (dotted), id; its length. */
static size_t query(unsigned char *q, size_t size, unsigned id,
		    const char *name)
{
	size_t n = 12;
	const char *p = name;

	memset(q, 0, 12);
	q[0] = (unsigned char)(id >> 8);
	q[1] = (unsigned char)id;
	q[2] = 0x01; /* RD */
	q[5] = 1;    /* one question */
	while (*p) {
		size_t l = strcspn(p, ".");

		if (n + l + 6 > size)
			return 0;
		q[n++] = (unsigned char)l;
		memcpy(q + n, p, l);
		n += l;
		p += l;
		if (*p == '.')
			p++;
	}
	q[n++] = 0;
	q[n++] = 0;
	q[n++] = 1; /* A */
	q[n++] = 0;
	q[n++] = 1; /* IN */
	return n;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(53)};
	struct timeval tv = {1, 0};
	unsigned long count, len, answered = 0;
	unsigned char q[600], a[1500];
	char name[300];
	int fd;

	if (argc != 4 || inet_pton(AF_INET, argv[1], &to.sin_addr) != 1)
		return 2;
	count = strtoul(argv[2], NULL, 10);
	len = strtoul(argv[3], NULL, 10);
	if (len < 16 || len > 250)
		return 2;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		perror("dnsflood: socket");
		return 1;
	}
	for (unsigned long i = 0; i < count; i++) {
		size_t n, at;

		at = (size_t)snprintf(name, sizeof(name), "q%lu.", i);
		/* labels of 60 x's up to about len bytes, then .flood.test */
		while (at + 62 + 11 < len) {
			memset(name + at, 'x', 60);
			at += 60;
			name[at++] = '.';
		}
		snprintf(name + at, sizeof(name) - at, "flood.test");
		n = query(q, sizeof(q), (unsigned)i, name);
		if (n == 0 || send(fd, q, n, 0) != (ssize_t)n)
			continue;
		if (recv(fd, a, sizeof(a), 0) > 0)
			answered++;
	}
	printf("sent %lu answered %lu\n", count, answered);
	return 0;
}
