/* D-Bus messages on the wire (dbus_wire.h): written from the D-Bus
 * specification's "Message Protocol" section.  Pure. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dbus_wire.h"

#define ARRAY_MAX (1u << 26) /* the specification's 64 MiB */
#define SIG_MAX 255
#define DEPTH_MAX 32 /* of arrays, and of structs, each */

/* header field codes */
enum {
	F_PATH = 1,
	F_INTERFACE,
	F_MEMBER,
	F_ERROR_NAME,
	F_REPLY_SERIAL,
	F_DESTINATION,
	F_SENDER,
	F_SIGNATURE,
	F_UNIX_FDS,
};

/* ---- writing --------------------------------------------------------- */

void dbus_buf_clear(struct dbus_buf *b)
{
	free(b->data);
	*b = (struct dbus_buf){0};
}

static void put(struct dbus_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->len + n)
			cap *= 2;
		if (cap > DBUS_MSG_MAX || !(d = realloc(b->data, cap))) {
			b->oom = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void dbus_put_raw(struct dbus_buf *b, const void *p, size_t n)
{
	put(b, p, n);
}

void dbus_put_align(struct dbus_buf *b, size_t n)
{
	static const uint8_t zero[8];

	if (b->len % n)
		put(b, zero, n - b->len % n);
}

void dbus_put_u8(struct dbus_buf *b, uint8_t v)
{
	put(b, &v, 1);
}

void dbus_put_u32(struct dbus_buf *b, uint32_t v)
{
	dbus_put_align(b, 4);
	put(b, &v, 4); /* host order: the message says which it is */
}

void dbus_put_bool(struct dbus_buf *b, bool v)
{
	dbus_put_u32(b, v ? 1 : 0);
}

void dbus_put_u64(struct dbus_buf *b, uint64_t v)
{
	dbus_put_align(b, 8);
	put(b, &v, 8);
}

void dbus_put_str(struct dbus_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (n >= ARRAY_MAX) {
		b->oom = true;
		return;
	}
	dbus_put_u32(b, (uint32_t)n);
	put(b, s, n + 1);
}

void dbus_put_sig(struct dbus_buf *b, const char *sig)
{
	size_t n = strlen(sig);

	if (n > SIG_MAX) {
		b->oom = true;
		return;
	}
	dbus_put_u8(b, (uint8_t)n);
	put(b, sig, n + 1);
}

size_t dbus_array_begin(struct dbus_buf *b, size_t elem_align)
{
	size_t at;

	dbus_put_u32(b, 0);
	at = b->len - 4;
	dbus_put_align(b, elem_align);
	return at;
}

void dbus_array_end(struct dbus_buf *b, size_t at, size_t elem_align)
{
	/* the length counts the elements, not the padding before them */
	size_t first = (at + 4 + elem_align - 1) / elem_align * elem_align;
	uint32_t n;

	if (b->oom)
		return;
	n = (uint32_t)(b->len - first);
	memcpy(b->data + at, &n, 4);
}

static void put_field(struct dbus_buf *b, uint8_t code, char type,
		      const char *value)
{
	char sig[2] = {type, '\0'};

	dbus_put_align(b, 8);
	dbus_put_u8(b, code);
	dbus_put_sig(b, sig);
	if (type == 'g')
		dbus_put_sig(b, value);
	else
		dbus_put_str(b, value);
}

int dbus_method_call(uint32_t serial, const char *dest, const char *path,
		     const char *iface, const char *member, const char *sig,
		     const struct dbus_buf *body, struct dbus_buf *out,
		     struct error **err)
{
	struct dbus_buf b = {0};
	size_t fields;
	uint8_t fixed[4] = {BYTE_ORDER == LITTLE_ENDIAN ? 'l' : 'B',
			    DBUS_METHOD_CALL, 0, 1};

	*out = (struct dbus_buf){0};
	put(&b, fixed, 4);
	dbus_put_u32(&b, (uint32_t)(body ? body->len : 0));
	dbus_put_u32(&b, serial);
	fields = dbus_array_begin(&b, 8);
	put_field(&b, F_PATH, 'o', path);
	if (iface)
		put_field(&b, F_INTERFACE, 's', iface);
	put_field(&b, F_MEMBER, 's', member);
	if (dest)
		put_field(&b, F_DESTINATION, 's', dest);
	if (sig && *sig)
		put_field(&b, F_SIGNATURE, 'g', sig);
	dbus_array_end(&b, fields, 8);
	dbus_put_align(&b, 8);
	if (body && body->len)
		put(&b, body->data, body->len);
	if (b.oom || (body && body->oom)) {
		dbus_buf_clear(&b);
		return error_set(err, ENOMEM, "D-Bus %s: out of memory",
				 member);
	}
	*out = b;
	return 0;
}

/* ---- signatures -------------------------------------------------------- */

static bool basic(char c)
{
	return c && strchr("ybnqiuxtdhsog", c);
}

/* Past one single complete type at s, NULL when there is none. */
static const char *sig_one(const char *s, int arrays, int structs)
{
	if (basic(*s) || *s == 'v')
		return s + 1;
	if (*s == 'a') {
		if (++arrays > DEPTH_MAX)
			return NULL;
		if (s[1] == '{') {
			const char *v;

			if (!basic(s[2]) || ++structs > DEPTH_MAX)
				return NULL;
			v = sig_one(s + 3, arrays, structs);
			return v && *v == '}' ? v + 1 : NULL;
		}
		return sig_one(s + 1, arrays, structs);
	}
	if (*s == '(') {
		if (++structs > DEPTH_MAX || s[1] == ')')
			return NULL;
		for (s++; s && *s != ')';)
			s = sig_one(s, arrays, structs);
		return s && *s == ')' ? s + 1 : NULL;
	}
	return NULL;
}

bool dbus_sig_valid(const char *sig)
{
	if (strlen(sig) > SIG_MAX)
		return false;
	while (sig && *sig)
		sig = sig_one(sig, 0, 0);
	return sig != NULL;
}

/* ---- reading --------------------------------------------------------- */

static int bad(struct dbus_reader *r)
{
	r->bad = true;
	return -1;
}

static int align(struct dbus_reader *r, size_t n)
{
	size_t to = (r->pos + n - 1) / n * n;

	if (r->bad || to > r->len)
		return bad(r);
	for (; r->pos < to; r->pos++)
		if (r->p[r->pos])
			return bad(r);
	return 0;
}

static int take(struct dbus_reader *r, size_t n, const uint8_t **out)
{
	if (r->bad || n > r->len - r->pos)
		return bad(r);
	*out = r->p + r->pos;
	r->pos += n;
	return 0;
}

int dbus_read_u8(struct dbus_reader *r, uint8_t *out)
{
	const uint8_t *p;

	if (take(r, 1, &p) < 0)
		return -1;
	*out = *p;
	return 0;
}

int dbus_read_u32(struct dbus_reader *r, uint32_t *out)
{
	const uint8_t *p;
	uint32_t v;

	if (align(r, 4) < 0 || take(r, 4, &p) < 0)
		return -1;
	memcpy(&v, p, 4);
	*out = r->big_endian ? be32toh(v) : le32toh(v);
	return 0;
}

int dbus_read_u64(struct dbus_reader *r, uint64_t *out)
{
	const uint8_t *p;
	uint64_t v;

	if (align(r, 8) < 0 || take(r, 8, &p) < 0)
		return -1;
	memcpy(&v, p, 8);
	*out = r->big_endian ? be64toh(v) : le64toh(v);
	return 0;
}

/* n bytes, then a NUL, with no NUL among them */
static int read_chars(struct dbus_reader *r, size_t n, const char **out)
{
	const uint8_t *p;

	if (n >= ARRAY_MAX || take(r, n + 1, &p) < 0)
		return bad(r);
	if (p[n] != '\0' || memchr(p, '\0', n))
		return bad(r);
	*out = (const char *)p;
	return 0;
}

int dbus_read_str(struct dbus_reader *r, const char **out)
{
	uint32_t n;

	return dbus_read_u32(r, &n) < 0 ? -1 : read_chars(r, n, out);
}

int dbus_read_sig(struct dbus_reader *r, const char **out)
{
	uint8_t n;

	if (dbus_read_u8(r, &n) < 0 || read_chars(r, n, out) < 0)
		return -1;
	return dbus_sig_valid(*out) ? 0 : bad(r);
}

int dbus_read_array(struct dbus_reader *r, size_t elem_align, size_t *end)
{
	uint32_t n;

	if (dbus_read_u32(r, &n) < 0 || n > ARRAY_MAX ||
	    align(r, elem_align) < 0 || n > r->len - r->pos)
		return bad(r);
	*end = r->pos + n;
	return 0;
}

bool dbus_read_more(struct dbus_reader *r, size_t end)
{
	if (r->pos > end)
		bad(r); /* an element ran past its array */
	return !r->bad && r->pos < end;
}

static size_t sig_align(char c)
{
	switch (c) {
	case 'n':
	case 'q':
		return 2;
	case 'b':
	case 'i':
	case 'u':
	case 'h':
	case 's':
	case 'o':
	case 'a':
		return 4;
	case 'x':
	case 't':
	case 'd':
	case '(':
	case '{':
		return 8;
	default:
		return 1;
	}
}

/* depth bounds the recursion of variants in variants, which the
 * signature does not show */
static int skip(struct dbus_reader *r, const char **sig, int depth)
{
	const char *s = *sig, *str;
	const uint8_t *two;
	uint32_t u32;
	uint64_t u64;
	uint8_t u8;
	size_t end;

	if (depth > 2 * DEPTH_MAX)
		return bad(r);
	*sig = s + 1;
	switch (*s) {
	case 'y':
		return dbus_read_u8(r, &u8);
	case 'n':
	case 'q':
		return align(r, 2) < 0 ? -1 : take(r, 2, &two);
	case 'b':
		if (dbus_read_u32(r, &u32) < 0)
			return -1;
		return u32 > 1 ? bad(r) : 0;
	case 'i':
	case 'u':
	case 'h':
		return dbus_read_u32(r, &u32);
	case 'x':
	case 't':
	case 'd':
		return dbus_read_u64(r, &u64);
	case 's':
	case 'o':
		return dbus_read_str(r, &str);
	case 'g':
		return dbus_read_sig(r, &str);
	case 'v': {
		const char *inner;

		if (dbus_read_sig(r, &inner) < 0)
			return -1;
		/* a variant holds one single complete type */
		if (!*inner || *sig_one(inner, 0, 0) != '\0')
			return bad(r);
		return skip(r, &inner, depth + 1);
	}
	case 'a': {
		/* the whole array type: an element "{..}" is one only after
		 * its "a" */
		const char *elem = s + 1, *after = sig_one(s, 0, 0);

		if (!after ||
		    dbus_read_array(r, sig_align(elem[0] == '{' ? '{' : *elem),
				    &end) < 0)
			return bad(r);
		while (dbus_read_more(r, end)) {
			const char *e = elem;

			if (skip(r, &e, depth + 1) < 0)
				return -1;
		}
		if (r->bad || r->pos != end)
			return bad(r);
		*sig = after;
		return 0;
	}
	case '(':
	case '{': {
		char close = *s == '(' ? ')' : '}';

		if (align(r, 8) < 0)
			return -1;
		s++;
		while (*s && *s != close)
			if (skip(r, &s, depth + 1) < 0)
				return -1;
		if (*s != close)
			return bad(r);
		*sig = s + 1;
		return 0;
	}
	default:
		return bad(r);
	}
}

int dbus_read_skip(struct dbus_reader *r, const char **sig)
{
	return skip(r, sig, 0);
}

void dbus_reader_init(struct dbus_reader *r, const struct dbus_msg *m)
{
	*r = (struct dbus_reader){
	    .p = m->body, .len = m->body_len, .big_endian = m->big_endian};
}

/* ---- the header -------------------------------------------------------- */

int dbus_msg_size(const uint8_t *fixed, size_t *out, struct error **err)
{
	struct dbus_reader r = {.p = fixed, .len = DBUS_FIXED_HEADER};
	uint32_t body, serial, fields;

	*out = 0;
	if ((fixed[0] != 'l' && fixed[0] != 'B') || fixed[3] != 1)
		return error_set(err, EPROTO, "D-Bus: not a message");
	r.big_endian = fixed[0] == 'B';
	r.pos = 4;
	if (dbus_read_u32(&r, &body) < 0 || dbus_read_u32(&r, &serial) < 0 ||
	    dbus_read_u32(&r, &fields) < 0 || body > DBUS_MSG_MAX ||
	    fields > DBUS_MSG_MAX)
		return error_set(err, EPROTO, "D-Bus: a message too long");
	*out = ((size_t)DBUS_FIXED_HEADER + fields + 7) / 8 * 8 + body;
	if (*out > DBUS_MSG_MAX)
		return error_set(err, EPROTO, "D-Bus: a message too long");
	return 0;
}

/* One header field (yv) into m. */
static int read_field(struct dbus_reader *r, struct dbus_msg *m)
{
	const char *sig, *s;
	uint8_t code;

	if (align(r, 8) < 0 || dbus_read_u8(r, &code) < 0 ||
	    dbus_read_sig(r, &sig) < 0)
		return -1;
	switch (code) {
	case F_PATH:
	case F_INTERFACE:
	case F_MEMBER:
	case F_ERROR_NAME:
	case F_DESTINATION:
	case F_SENDER:
		if (strcmp(sig, code == F_PATH ? "o" : "s") != 0 ||
		    dbus_read_str(r, &s) < 0)
			return bad(r);
		*(code == F_PATH	 ? &m->path
		  : code == F_INTERFACE	 ? &m->iface
		  : code == F_MEMBER	 ? &m->member
		  : code == F_ERROR_NAME ? &m->error_name
		  : code == F_SENDER	 ? &m->sender
					 : &s) = s;
		return 0;
	case F_REPLY_SERIAL:
		if (strcmp(sig, "u") != 0)
			return bad(r);
		return dbus_read_u32(r, &m->reply_serial);
	case F_SIGNATURE:
		if (strcmp(sig, "g") != 0)
			return bad(r);
		return dbus_read_sig(r, &m->sig);
	case F_UNIX_FDS:
		return bad(r); /* corral takes no descriptors from systemd */
	default:	       /* unknown fields are to be ignored */
		if (!*sig || *sig_one(sig, 0, 0) != '\0')
			return bad(r);
		return dbus_read_skip(r, &sig);
	}
}

/* The whole body is values of its signature, nothing after them. */
static int validate_body(const struct dbus_msg *m)
{
	struct dbus_reader r;
	const char *sig = m->sig;

	dbus_reader_init(&r, m);
	while (*sig)
		if (dbus_read_skip(&r, &sig) < 0)
			return -1;
	return r.pos == r.len ? 0 : -1;
}

int dbus_msg_parse(const uint8_t *data, size_t len, struct dbus_msg *out,
		   struct error **err)
{
	struct dbus_reader r = {.p = data, .len = len};
	uint32_t body_len, fields_end;
	size_t size, end;

	*out = (struct dbus_msg){.sig = ""};
	if (len < DBUS_FIXED_HEADER || dbus_msg_size(data, &size, err) < 0)
		return len < DBUS_FIXED_HEADER
			   ? error_set(err, EPROTO, "D-Bus: a short message")
			   : -1;
	if (size != len)
		return error_set(err, EPROTO,
				 "D-Bus: a message of %zu bytes "
				 "said %zu",
				 len, size);
	r.big_endian = out->big_endian = data[0] == 'B';
	out->type = data[1];
	r.pos = 4;
	if (dbus_read_u32(&r, &body_len) < 0 ||
	    dbus_read_u32(&r, &out->serial) < 0 ||
	    dbus_read_array(&r, 8, &end) < 0)
		return error_set(err, EPROTO, "D-Bus: a bad header");
	while (dbus_read_more(&r, end))
		if (read_field(&r, out) < 0)
			break;
	fields_end = (uint32_t)r.pos;
	if (r.bad || r.pos != end || align(&r, 8) < 0 ||
	    len - r.pos != body_len || fields_end > len)
		return error_set(err, EPROTO, "D-Bus: bad header fields");
	out->body = data + r.pos;
	out->body_len = body_len;
	if (validate_body(out) < 0)
		return error_set(err, EPROTO,
				 "D-Bus: a body that is not "
				 "its signature's");
	if (out->serial == 0 || out->type < DBUS_METHOD_CALL ||
	    out->type > DBUS_SIGNAL ||
	    ((out->type == DBUS_METHOD_RETURN || out->type == DBUS_ERROR) &&
	     !out->reply_serial) ||
	    (out->type == DBUS_ERROR && !out->error_name) ||
	    (out->type == DBUS_SIGNAL &&
	     (!out->path || !out->iface || !out->member)) ||
	    (out->type == DBUS_METHOD_CALL && (!out->path || !out->member)))
		return error_set(err, EPROTO,
				 "D-Bus: a header without the "
				 "fields its type needs");
	return 0;
}

int dbus_expect(const struct dbus_msg *m, const char *want, const char *what,
		struct error **err)
{
	if (strcmp(m->sig, want) != 0)
		return error_set(err, EPROTO,
				 "%s: a reply of signature \"%s\", expected "
				 "\"%s\"",
				 what, m->sig, want);
	return 0;
}
