/* The egress helper's connections, split in two (docs/threat-model.md,
 * "The egress proxy"): for each accepted connection the helper forks a
 * broker, and the broker starts the connection's own program
 * (egress/main.c, corral-egress-conn: a small static image carried in
 * corral as the stage is, executed from a sealed memfd, so each
 * connection gets a fresh address layout and stack canary).  That
 * program reads the workload's bytes (the request head, the ClientHello,
 * the Host header) under a seccomp filter with no socket, connect, bind,
 * exec or open: it can only talk on the descriptors it was given.  What
 * it wants upstream it asks of the broker, which decides on its own (the
 * rules, the resolution, the refused ranges), connects and hands the
 * connected socket over (SCM_RIGHTS); at its end it tells the broker the
 * verdict, and the broker writes the log.
 *
 * The program's descriptors and arguments, and the messages on the
 * broker's socket (SOCK_SEQPACKET: one message a record). */
#ifndef CORRAL_EGRESS_CHILD_H
#define CORRAL_EGRESS_CHILD_H

#include <stdint.h>

#include "egress.h"

/* The helper keeps the program's memfd at this descriptor: its seccomp
 * filter lets execveat run this descriptor alone (AT_EMPTY_PATH). */
#define EGRESS_CONN_IMAGE_FD 200
#define EGRESS_CONN_NAME "corral-egress-conn"

/* The program's descriptors. */
#define EGRESS_CHILD_CLIENT_FD 3 /* the workload's connection */
#define EGRESS_CHILD_BROKER_FD 4 /* to its broker */
#define EGRESS_CHILD_STOP_FD 5	 /* the init's pidfd: readable at its end */

/* argv: EGRESS_CONN_NAME PORT HEAD_MAX HEAD_MS HELLO_MS IDLE_MS, PORT the
 * transparent listener's (0: the proxy's). */
#define EGRESS_CHILD_ARGC 6

enum egress_msg_type {
	EGRESS_MSG_DIAL = 1, /* child -> broker: connect me */
	EGRESS_MSG_DONE = 2, /* child -> broker: the verdict, last */
};

struct egress_msg_dial {
	uint32_t type; /* EGRESS_MSG_DIAL */
	uint16_t port;
	uint8_t plain;	 /* plain HTTP (a rule without a port allows 80) */
	uint8_t is_addr; /* addr, not a name */
	struct egress_addr addr;
	char name[EGRESS_HOST_MAX + 1]; /* normalized, or the address */
};

/* broker -> child, with the connected socket when status is 0 */
struct egress_msg_answer {
	int32_t status; /* 0, or the HTTP status of the refusal */
	char why[256];
};

struct egress_msg_done {
	uint32_t type; /* EGRESS_MSG_DONE */
	uint8_t allow;
	uint16_t port;
	char method[32];
	char name[EGRESS_HOST_MAX + 1]; /* as asked */
	char reason[256];
	uint64_t up, down;
};

#endif
