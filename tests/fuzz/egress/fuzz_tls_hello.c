/* Fuzz target: the server name of a ClientHello (spec/egress/tls_hello.h).
 *
 * An input starting with 0x16 is what a client sent; any other input is
 * the handshake itself, which the target puts in one record and again
 * in records of 1 to 97 bytes.  Invariants: a verdict is one of the
 * four; BAD says why, on one line; a name is 1 to 255 bytes without a
 * NUL, as the handshake has it; a prefix of the input gets MORE or the
 * same verdict as all of it, with the same name; the handshake gets the
 * same verdict however it is cut into records.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tls_hello.h"

#define RECORD_MAX 16384

struct verdict {
	enum tls_hello r;
	char name[TLS_NAME_MAX + 1];
};

static struct verdict verdict(const unsigned char *buf, size_t len)
{
	struct verdict v;
	const char *why = NULL;
	unsigned char *copy = malloc(len ? len : 1); /* exact, for ASan */

	FUZZ_CHECK(copy, "malloc");
	memcpy(copy, buf, len);
	memset(v.name, 0, sizeof(v.name));
	v.r = tls_hello_sni(copy, len, v.name, &why);
	free(copy);
	FUZZ_CHECK(v.r == TLS_HELLO_SNI || v.r == TLS_HELLO_NO_SNI ||
		       v.r == TLS_HELLO_MORE || v.r == TLS_HELLO_BAD,
		   "verdict %d", (int)v.r);
	FUZZ_CHECK(why, "no why");
	if (v.r == TLS_HELLO_BAD)
		FUZZ_CHECK(*why && !strpbrk(why, "\r\n"), "why: \"%s\"", why);
	if (v.r == TLS_HELLO_SNI)
		FUZZ_CHECK(v.name[0] && strlen(v.name) <= TLS_NAME_MAX,
			   "name of %zu bytes", strlen(v.name));
	else
		v.name[0] = '\0';
	return v;
}

static bool same(const struct verdict *a, const struct verdict *b)
{
	return a->r == b->r && strcmp(a->name, b->name) == 0;
}

/* Up to 64 prefixes and the one a byte short. */
static void check_prefixes(const unsigned char *buf, size_t len,
			   const struct verdict *whole)
{
	size_t step = len / 64 + 1;

	for (size_t cut = 0; cut < len; cut += step) {
		struct verdict v = verdict(buf, cut);

		FUZZ_CHECK(v.r == TLS_HELLO_MORE || same(&v, whole),
			   "prefix %zu of %zu: %d (%s), whole %d (%s)", cut,
			   len, (int)v.r, v.name, (int)whole->r, whole->name);
	}
	if (len > 0) {
		struct verdict v = verdict(buf, len - 1);

		FUZZ_CHECK(v.r == TLS_HELLO_MORE || same(&v, whole),
			   "a byte short: %d, whole %d", (int)v.r,
			   (int)whole->r);
	}
}

/* The handshake hs in records of at most `chunk` bytes. */
static size_t records(const unsigned char *hs, size_t len, size_t chunk,
		      unsigned char *out)
{
	size_t n = 0;

	for (size_t off = 0; off < len; off += chunk) {
		size_t k = len - off < chunk ? len - off : chunk;

		out[n++] = 0x16;
		out[n++] = 0x03;
		out[n++] = 0x01;
		out[n++] = (unsigned char)(k >> 8);
		out[n++] = (unsigned char)k;
		memcpy(out + n, hs + off, k);
		n += k;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict whole, one, cut;
	unsigned char *buf;
	size_t len, chunk;

	if (size > 0 && data[0] == 0x16) {
		whole = verdict(data, size);
		check_prefixes(data, size, &whole);
		return 0;
	}
	if (size == 0 || size > RECORD_MAX)
		return 0;
	chunk = 1 + size % 97;
	buf = malloc(size + 5 * (size / chunk + 1));
	FUZZ_CHECK(buf, "malloc");
	len = records(data, size, RECORD_MAX, buf);
	one = verdict(buf, len);
	if (one.r == TLS_HELLO_SNI)
		FUZZ_CHECK(memmem(data, size, one.name, strlen(one.name)),
			   "a name not in the handshake: %s", one.name);
	check_prefixes(buf, len, &one);
	len = records(data, size, chunk, buf);
	cut = verdict(buf, len);
	FUZZ_CHECK(same(&one, &cut),
		   "one record: %d (%s), records of %zu: %d (%s)", (int)one.r,
		   one.name, chunk, (int)cut.r, cut.name);
	free(buf);
	return 0;
}
