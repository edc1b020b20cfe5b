/* The server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3), read
 * by corral's egress proxy from the first bytes a client sends through a
 * CONNECT tunnel, to check that the name the TLS session is for is the
 * name the policy allowed.  Pure: bytes in, a verdict out.
 *
 * The hello may span several handshake records; at most TLS_HELLO_MAX
 * bytes of handshake are read.  A server_name extension is one list with
 * exactly one host_name; two extensions or two names are refused, since a
 * server might read another one than this parser does. */
#ifndef CORRAL_TLS_HELLO_H
#define CORRAL_TLS_HELLO_H

#include <stddef.h>

#define TLS_HELLO_MAX 16384 /* handshake bytes */
#define TLS_NAME_MAX 255

enum tls_hello {
	TLS_HELLO_SNI,	  /* *name holds the server name */
	TLS_HELLO_NO_SNI, /* a whole ClientHello without one */
	TLS_HELLO_MORE,	  /* a valid prefix: read more */
	TLS_HELLO_BAD,	  /* not a ClientHello; *why says what */
};

/* name must hold TLS_NAME_MAX + 1 bytes. */
enum tls_hello tls_hello_sni(const unsigned char *buf, size_t len, char *name,
			     const char **why);

#endif
