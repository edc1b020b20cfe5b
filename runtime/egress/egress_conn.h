/* One connection of the egress proxy, shared by its two processes
 * (runtime/egress/egress_child.h): the connection's own program, egress/conn.c
 * (the client's side: the request, the TLS ClientHello, the proxy's and
 * the transparent listeners' ways in, the relay) and egress/main.c (its
 * questions to the broker), and the broker, runtime/egress/egress_broker.c and
 * runtime/egress/egress_upstream.c (the resolution, the decision, the connect,
 * the log); runtime/egress/egress_relay.c is both's.  Internal to the helper.
 */
#ifndef CORRAL_EGRESS_CONN_H
#define CORRAL_EGRESS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "egress_proxy.h"

#define CANDIDATES (2 * DNS_ADDRS_MAX)
/* A relay reads and writes up to this much at a time.  On loopback the
 * relay is the slowest of a download's three processes and the upstream
 * queues megabytes while it writes: a bigger read takes more of that per
 * wakeup, in fewer rounds (a plain relay between two loopback sockets on
 * 2 vCPUs moved 0.35x of a direct download with 64 KiB, 0.70x with 1 MiB,
 * 0.82x with 4 MiB).  The pages are touched only as far as one read fills
 * them.  splice(2) through a pipe (1 MiB at most, unprivileged) moved
 * less than copying: it spares the relay its copies, but the client then
 * copies from cold pages and becomes the slower stage. */
#define RELAY_BUF (4 << 20)

struct conn {
	const struct egress_proxy *p;
	int client, up;
	char *head;
	size_t len, end; /* bytes read; the head's end (after CRLFCRLF) */
	char *method, *target;
	char *headers;	   /* the first header line (the request line is cut) */
	char *host_header; /* its value, trimmed */
	long long content_length; /* -1: none */
	bool plain;		  /* plain HTTP, not CONNECT */
	char *name;		  /* normalized host, or address text */
	uint16_t port;
	struct egress_addr addr; /* family 0: a name */
	const struct egress_rule *rule;
	char *rule_text;
	struct egress_addr resolved[CANDIDATES];
	size_t n_resolved;
	struct egress_addr chosen;
	bool connected;
	struct egress_decision d;
};

/* Every byte of buf to fd, or until the peer fails. */
void conn_send_all(int fd, const char *buf, size_t n);

/* At most n bytes of fd by the deadline (CLOCK_MONOTONIC ms): the count,
 * 0 at its end, -1 on an error, -2 at the deadline or when the
 * container's init is gone. */
ssize_t conn_read_some(const struct conn *c, int fd, char *buf, size_t n,
		       long long deadline);

/* The broker's side: the rule for c's name or address and port
 * (c->plain: as plain HTTP), the resolution and the connect: 0 with c->up
 * connected, or an HTTP status with *why. */
int conn_decide(struct conn *c, const char **why);

/* The connection's side (egress/main.c): the same, asked of the broker,
 * which hands over the connected socket. */
int conn_dial(struct conn *c, const char **why);

/* The connection's side: its verdict (c->d) to the broker, which logs
 * it. */
void conn_done(struct conn *c);

/* Bytes both ways (both) or only upstream to client, until upstream's
 * end, an error or idle_ms of nothing. */
void conn_relay(struct conn *c, bool both);

#endif
