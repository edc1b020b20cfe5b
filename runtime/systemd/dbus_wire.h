/* D-Bus messages on the wire, as pure functions: no system call, so the
 * unit tests (tests/unit/systemd/) and a fuzzer
 * (tests/fuzz/systemd/fuzz_dbus_reply.c) can feed them anything.
 *
 * Only what corral says to systemd and reads back: method calls it
 * writes (the D-Bus specification's marshalling, little- or big-endian
 * as the host is), and replies, errors and signals it parses.  The peer
 * is systemd (trusted), but every length, offset, alignment, signature
 * and string of a message is checked against the bytes received before
 * it is read: a reply is never trusted to be well formed.
 *
 * A message is a 16-byte fixed header, an array of header fields a(yv),
 * padding to 8, and the body, whose layout its SIGNATURE field gives. */
#ifndef CORRAL_DBUS_WIRE_H
#define CORRAL_DBUS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* corral's bound on a whole message: systemd's replies to what corral
 * asks are a few hundred bytes (the specification's bound, 128 MiB, is
 * no reason to buffer that much) */
#define DBUS_MSG_MAX (1u << 20)
#define DBUS_FIXED_HEADER 16

enum dbus_msg_type {
	DBUS_METHOD_CALL = 1,
	DBUS_METHOD_RETURN = 2,
	DBUS_ERROR = 3,
	DBUS_SIGNAL = 4,
};

/* ---- writing --------------------------------------------------------- */

/* A growing buffer; any failure to grow sets oom and later writes do
 * nothing, so a builder checks once at the end. */
struct dbus_buf {
	uint8_t *data;
	size_t len, cap;
	bool oom;
};

void dbus_buf_clear(struct dbus_buf *b);
void dbus_put_align(struct dbus_buf *b, size_t n);
void dbus_put_raw(struct dbus_buf *b, const void *p, size_t n);
void dbus_put_u8(struct dbus_buf *b, uint8_t v);
void dbus_put_bool(struct dbus_buf *b, bool v);
void dbus_put_u32(struct dbus_buf *b, uint32_t v);
void dbus_put_u64(struct dbus_buf *b, uint64_t v);
/* 's' and 'o' */
void dbus_put_str(struct dbus_buf *b, const char *s);
/* 'g' */
void dbus_put_sig(struct dbus_buf *b, const char *sig);
/* An array: begin returns the length's offset (elements aligned to
 * elem_align follow); end writes the length. */
size_t dbus_array_begin(struct dbus_buf *b, size_t elem_align);
void dbus_array_end(struct dbus_buf *b, size_t at, size_t elem_align);

/* A method call: DESTINATION (NULL: none, on systemd's private socket),
 * PATH, INTERFACE, MEMBER, the body's signature ("" : none) and body.
 * The body was written from offset 0 of its own buffer: the header is
 * padded to 8, so its alignment holds in the message.  *out is malloc'd. */
int dbus_method_call(uint32_t serial, const char *dest, const char *path,
		     const char *iface, const char *member, const char *sig,
		     const struct dbus_buf *body, struct dbus_buf *out,
		     struct error **err);

/* ---- reading --------------------------------------------------------- */

/* How long the message whose first DBUS_FIXED_HEADER bytes are `fixed`
 * is, whole; an error when it is not a D-Bus message or is longer than
 * DBUS_MSG_MAX. */
int dbus_msg_size(const uint8_t *fixed, size_t *out, struct error **err);

/* A parsed message: pointers into the caller's bytes, which must outlive
 * it.  Strings are NUL-terminated where they lie (checked). */
struct dbus_msg {
	enum dbus_msg_type type;
	bool big_endian;
	uint32_t serial, reply_serial;
	const char *path, *iface, *member, *error_name, *sender, *sig;
	const uint8_t *body;
	size_t body_len;
};

/* Parse a whole message of len bytes (dbus_msg_size's). */
int dbus_msg_parse(const uint8_t *data, size_t len, struct dbus_msg *out,
		   struct error **err);

/* A reader over a body: each read checks the bytes are there and the
 * padding is zero; the first failure sets bad and every later read
 * fails.  Reads follow the signature, which dbus_read_expect checks
 * first. */
struct dbus_reader {
	const uint8_t *p;
	size_t len, pos;
	bool big_endian, bad;
};

void dbus_reader_init(struct dbus_reader *r, const struct dbus_msg *m);
int dbus_read_u8(struct dbus_reader *r, uint8_t *out);
int dbus_read_u32(struct dbus_reader *r, uint32_t *out);
int dbus_read_u64(struct dbus_reader *r, uint64_t *out);
/* 's' and 'o': *out points into the body */
int dbus_read_str(struct dbus_reader *r, const char **out);
int dbus_read_sig(struct dbus_reader *r, const char **out);
/* An array: *end is where its elements end (dbus_read_more says whether
 * another follows). */
int dbus_read_array(struct dbus_reader *r, size_t elem_align, size_t *end);
bool dbus_read_more(struct dbus_reader *r, size_t end);
/* Skip one value of the single complete type at *sig (advanced past
 * it). */
int dbus_read_skip(struct dbus_reader *r, const char **sig);

/* Whether sig is a valid signature (single complete types, nesting and
 * length within the specification's bounds). */
bool dbus_sig_valid(const char *sig);

/* The reply's body is of signature `want` (an error otherwise, naming
 * the method). */
int dbus_expect(const struct dbus_msg *m, const char *want, const char *what,
		struct error **err);

#endif
