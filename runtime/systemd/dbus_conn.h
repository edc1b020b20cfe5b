/* A D-Bus connection to systemd (dbus_conn.c): a Unix socket, the
 * EXTERNAL authentication (the server reads who we are from the socket:
 * SO_PEERCRED), Hello on a bus, and method calls that wait for their
 * reply while keeping the signals that arrive meanwhile (systemd's
 * JobRemoved).  Every wait has a deadline.  The socket is O_CLOEXEC and
 * closed by dbus_close; nothing of it may reach a container's process
 * (a descriptor of systemd's socket is root on the host). */
#ifndef CORRAL_DBUS_CONN_H
#define CORRAL_DBUS_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "dbus_wire.h"
#include "error.h"

#define DBUS_TIMEOUT_MS 25000 /* D-Bus's own default for a call */

/* A received message: its bytes and their parse. */
struct dbus_in {
	uint8_t *data;
	struct dbus_msg m;
};
void dbus_in_clear(struct dbus_in *in);

struct dbus_conn {
	int fd;
	uint32_t serial;
	bool bus; /* a bus (Hello said, destinations named): not the private
		     socket */
	/* signals received while waiting for a reply, oldest first */
	struct dbus_in *signals;
	size_t n_signals;
};

/* Connect to the socket at path and authenticate; bus: say Hello. */
int dbus_open(const char *path, bool bus, struct dbus_conn *out,
	      struct error **err);
void dbus_close(struct dbus_conn *c);

/* Call DEST PATH IFACE.MEMBER(body of signature sig) and wait for its
 * reply: *reply is the method return; an error reply is an error
 * "WHAT: NAME: MESSAGE" (its name kept as the error's code EREMOTEIO,
 * and in *error_name when not NULL, until dbus_in_clear). */
int dbus_call(struct dbus_conn *c, const char *dest, const char *path,
	      const char *iface, const char *member, const char *sig,
	      const struct dbus_buf *body, struct dbus_in *reply,
	      char **error_name, struct error **err);

/* The next signal (a kept one first, else one read within timeout_ms):
 * 1 and *out, or 0 when none came in time. */
int dbus_next_signal(struct dbus_conn *c, int timeout_ms, struct dbus_in *out,
		     struct error **err);

#endif
