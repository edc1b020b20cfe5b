/* tls_hello_sni(): the record layer is undone first (handshake records
 * only, each at most 2^14 bytes of payload), then the one ClientHello is
 * walked field by field with every length checked against what holds
 * it. */
#include "tls_hello.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define RECORD_HANDSHAKE 22
#define RECORD_MAX 16384
#define HANDSHAKE_CLIENT_HELLO 1
#define EXT_SERVER_NAME 0
#define NAME_HOST 0

/* A bounded reader over a byte range. */
struct rd {
	const unsigned char *p;
	size_t left;
};

static bool take(struct rd *r, size_t n, struct rd *out)
{
	if (r->left < n)
		return false;
	if (out)
		*out = (struct rd){r->p, n};
	r->p += n;
	r->left -= n;
	return true;
}

static bool u8(struct rd *r, size_t *v)
{
	if (r->left < 1)
		return false;
	*v = r->p[0];
	return take(r, 1, NULL);
}

static bool u16(struct rd *r, size_t *v)
{
	if (r->left < 2)
		return false;
	*v = (size_t)r->p[0] << 8 | r->p[1];
	return take(r, 2, NULL);
}

/* A vector with a 1- or 2-byte length. */
static bool vec(struct rd *r, int width, struct rd *out)
{
	size_t n;

	return (width == 1 ? u8(r, &n) : u16(r, &n)) && take(r, n, out);
}

/* The server_name extension's body: exactly one host_name. */
static enum tls_hello server_name(struct rd ext, char *name, const char **why)
{
	struct rd list, host;
	size_t type;

	if (!vec(&ext, 2, &list) || ext.left != 0 || !u8(&list, &type) ||
	    !vec(&list, 2, &host) || list.left != 0) {
		*why = "malformed server_name extension";
		return TLS_HELLO_BAD;
	}
	if (type != NAME_HOST || host.left == 0 || host.left > TLS_NAME_MAX ||
	    memchr(host.p, '\0', host.left)) {
		*why = "server_name is not one host name";
		return TLS_HELLO_BAD;
	}
	memcpy(name, host.p, host.left);
	name[host.left] = '\0';
	return TLS_HELLO_SNI;
}

static enum tls_hello client_hello(struct rd h, char *name, const char **why)
{
	struct rd exts, body;
	enum tls_hello r = TLS_HELLO_NO_SNI;
	size_t type;

	/* legacy_version, random, session id, cipher suites, compression */
	if (!take(&h, 2 + 32, NULL) || !vec(&h, 1, NULL) || !vec(&h, 2, NULL) ||
	    !vec(&h, 1, NULL)) {
		*why = "malformed ClientHello";
		return TLS_HELLO_BAD;
	}
	if (h.left == 0)
		return TLS_HELLO_NO_SNI; /* no extensions at all */
	if (!vec(&h, 2, &exts) || h.left != 0) {
		*why = "malformed ClientHello extensions";
		return TLS_HELLO_BAD;
	}
	while (exts.left > 0) {
		if (!u16(&exts, &type) || !vec(&exts, 2, &body)) {
			*why = "malformed ClientHello extension";
			return TLS_HELLO_BAD;
		}
		if (type != EXT_SERVER_NAME)
			continue;
		if (r == TLS_HELLO_SNI) {
			*why = "two server_name extensions";
			return TLS_HELLO_BAD;
		}
		r = server_name(body, name, why);
		if (r == TLS_HELLO_BAD)
			return r;
	}
	return r;
}

enum tls_hello tls_hello_sni(const unsigned char *buf, size_t len, char *name,
			     const char **why)
{
	unsigned char hs[TLS_HELLO_MAX + 4];
	size_t n = 0, need = 0;
	struct rd in = {buf, len};

	*why = "";
	while (in.left > 0) {
		struct rd rec;
		size_t type, major, minor, rlen;

		if (in.left < 5)
			return TLS_HELLO_MORE;
		u8(&in, &type);
		u8(&in, &major);
		u8(&in, &minor);
		u16(&in, &rlen);
		(void)minor;
		if (type != RECORD_HANDSHAKE || major != 3) {
			*why = "not a TLS handshake";
			return TLS_HELLO_BAD;
		}
		if (rlen == 0 || rlen > RECORD_MAX) {
			*why = "bad TLS record length";
			return TLS_HELLO_BAD;
		}
		if (!take(&in, rlen, &rec))
			return TLS_HELLO_MORE;
		if (n + rec.left > sizeof(hs)) {
			*why = "ClientHello too large";
			return TLS_HELLO_BAD;
		}
		memcpy(hs + n, rec.p, rec.left);
		n += rec.left;
		if (n >= 4 && need == 0) {
			if (hs[0] != HANDSHAKE_CLIENT_HELLO) {
				*why = "not a ClientHello";
				return TLS_HELLO_BAD;
			}
			need = 4 + ((size_t)hs[1] << 16 | (size_t)hs[2] << 8 |
				    hs[3]);
			if (need > sizeof(hs)) {
				*why = "ClientHello too large";
				return TLS_HELLO_BAD;
			}
		}
		if (need && n >= need)
			return client_hello((struct rd){hs + 4, need - 4}, name,
					    why);
	}
	return TLS_HELLO_MORE;
}
