/* Fuzz target: the D-Bus reply parser (runtime/systemd/dbus_wire.h), the
 * part of the systemd client that reads what comes back over the socket.
 *
 * The input is one message.  dbus_msg_size must agree with the parse on
 * how long it is; a message that parses has its body inside the input,
 * its strings NUL-terminated within it, a valid signature, and a body
 * that its signature reads to the end; reading it again as the replies
 * corral reads (JobRemoved's "uoss", an object path, a variant string)
 * never reads past it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dbus_wire.h"
#include "fuzz.h"

static void inside(const uint8_t *data, size_t size, const char *s,
		   const char *what)
{
	if (!s)
		return;
	FUZZ_CHECK((const uint8_t *)s >= data &&
		       (const uint8_t *)s + strlen(s) < data + size,
		   "%s outside the message", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct error *err = NULL;
	struct dbus_msg m;
	struct dbus_reader r;
	const char *sig, *s;
	size_t whole;
	uint32_t u;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (dbus_msg_parse(copy, size, &m, &err) < 0) {
		fuzz_rejected(err, "dbus_msg_parse");
		free(copy);
		return 0;
	}
	FUZZ_CHECK(dbus_msg_size(copy, &whole, &err) == 0 && whole == size,
		   "a parsed message of %zu bytes sized %zu", size, whole);
	FUZZ_CHECK(m.body >= copy && m.body + m.body_len == copy + size,
		   "the body is not the message's end");
	FUZZ_CHECK(dbus_sig_valid(m.sig), "an invalid signature parsed");
	inside(copy, size, m.path, "path");
	inside(copy, size, m.member, "member");
	inside(copy, size, m.iface, "interface");
	inside(copy, size, m.error_name, "error name");
	inside(copy, size, m.sender, "sender");
	dbus_reader_init(&r, &m);
	sig = m.sig;
	while (*sig)
		FUZZ_CHECK(dbus_read_skip(&r, &sig) == 0,
			   "the body does not read as its signature");
	FUZZ_CHECK(r.pos == r.len, "bytes after the body's values");
	/* as the replies corral reads, whatever the signature says */
	dbus_reader_init(&r, &m);
	if (dbus_read_u32(&r, &u) == 0 && dbus_read_str(&r, &s) == 0)
		inside(copy, size, s, "a job path");
	dbus_reader_init(&r, &m);
	if (dbus_read_sig(&r, &sig) == 0 && dbus_read_str(&r, &s) == 0)
		inside(copy, size, s, "a variant's string");
	FUZZ_CHECK(r.pos <= r.len, "read past the body");
	free(copy);
	return 0;
}
