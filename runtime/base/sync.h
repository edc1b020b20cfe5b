/* The sync socket between `create` (parent) and the container's first
 * process (child): a SOCK_SEQPACKET pair, one message per packet, a type
 * byte followed by an optional payload.  The child reports errors over it,
 * so the parent can print them and clean up; the parent gives up by
 * killing the child (it dies with the parent until COMMIT), so no message
 * says "abort".  docs/architecture.md draws the exchange in order. */
#ifndef CORRAL_SYNC_H
#define CORRAL_SYNC_H

#include <stddef.h>

#include "error.h"

enum sync_msg {
	SYNC_GO = 1,	 /* P->C: ids mapped; payload: state JSON for hooks */
	SYNC_HOOKS,	 /* C->P: namespaces made: run prestart/createRuntime */
	SYNC_HOOKS_DONE, /* P->C */
	SYNC_READY,	 /* C->P: set up, about to wait for start */
	SYNC_COMMIT,	 /* P->C: state saved; stop dying with the parent */
	SYNC_COMMITTED,	 /* C->P: done; the parent may exit now */
	SYNC_ERROR,	 /* C->P: payload: the error message */
	SYNC_PID,	 /* C->P: [hop] payload: the container's first pid */
};

#define SYNC_MAX 65536

int sync_socketpair(int fds[2], struct error **err);
int sync_send(int fd, enum sync_msg type, const char *payload, size_t len,
	      struct error **err);

/* Receive one message; *payload (NUL-terminated, may be NULL) is malloc'ed.
 * EOF (the peer died) is an error. */
int sync_recv(int fd, enum sync_msg *type, char **payload, struct error **err);

/* Wait for `want`; a SYNC_ERROR from the child becomes *err. */
int sync_expect(int fd, enum sync_msg want, char **payload, struct error **err);

#endif
