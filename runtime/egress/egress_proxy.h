/* corral's egress proxy: the engine the egress helper runs
 * (runtime/egress/egress_helper.c).  It accepts on a listening socket in the
 * container's network namespace and, for each HTTP CONNECT or
 * absolute-form plain-HTTP request whose host a rule allows
 * (spec/egress/egress.h), resolves the name itself, refuses every address in a
 * refused range unless a rule names it, connects to exactly an address it
 * checked, and relays.  Each decision is one JSON line on the log.
 *
 * One process per connection (forked from the accepting loop, after the
 * seccomp filter), so that one client's slow name or peer never holds
 * another's, and a fault in one connection's handling ends only it.  A
 * connection's whole life is bounded: the request head by head_max
 * bytes and head_ms, the connect by connect_ms, the TLS ClientHello by
 * hello_ms, a relay idle for idle_ms ends. */
#ifndef CORRAL_EGRESS_PROXY_H
#define CORRAL_EGRESS_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "dns.h"
#include "egress.h"
#include "egress_counts.h"
#include "error.h"

/* /etc/hosts and the nameservers, read once before the sandboxing. */
struct egress_resolver {
	char *hosts; /* the text of /etc/hosts, or NULL */
	size_t hosts_len;
	struct egress_addr servers[DNS_SERVERS_MAX];
	size_t n_servers;
};

struct egress_cache;

struct egress_proxy {
	const struct egress_rule *rules;
	size_t n_rules;
	const char *container_id;
	int log_fd; /* JSON lines, O_APPEND; -1: none */
	/* shared by the helper's processes (MAP_SHARED): the counters, in
	 * the state directory, and the resolver's cache and rate (NULL:
	 * none, as in the connections' own program) */
	struct egress_counts *counts;
	struct egress_cache *cache;
	const struct egress_resolver *resolver;
	int stop_fd; /* readable (the init's pidfd): serve returns */
	unsigned max_conns;
	size_t head_max, log_max;
	int head_ms, connect_ms, hello_ms, dns_ms, idle_ms;
};

/* The limits' defaults; the caller fills in the rest. */
void egress_proxy_defaults(struct egress_proxy *p);

/* Read both files (fd -1: the host has none) into *out; closes nothing. */
int egress_resolver_load(int hosts_fd, int resolv_fd,
			 struct egress_resolver **out, struct error **err);

/* The filter of the proxy's process, loaded after its setup: the calls
 * serve() and its connections make, and nothing that opens a file,
 * executes, mounts or changes ids; socket() only for IPv4 and IPv6. */
int egress_proxy_seccomp(struct error **err);

/* The sockets the helper made in the container's network namespace.
 * Transparent listeners are on DNS_STUB_ADDR, one per port: 443, 80 and
 * each other port a rule names, so at most n_rules + 2. */
struct egress_listener {
	int fd;
	uint16_t port;
};

struct egress_listeners {
	int proxy; /* EGRESS_PROXY_AUTHORITY */
	int dns;   /* UDP, EGRESS_DNS_ADDR:53 */
	struct egress_listener *transparent;
	size_t n_transparent;
};

#define EGRESS_DNS_ADDR DNS_STUB_SERVER_ADDR
#define EGRESS_DNS_PORT DNS_STUB_SERVER_PORT

/* Serve until stop_fd is readable; 0 then.  Proxy and transparent
 * connections each in a forked process; DNS queries answered in the
 * loop itself (dns_stub_answer: no lookup, nothing to wait for). */
int egress_proxy_serve(const struct egress_listeners *l,
		       const struct egress_proxy *p, struct error **err);

/* ---- one connection (runtime/egress/egress_child.h) ---------------------- */
/* transparent_port: the port of the transparent listener it came to,
 * or 0 for the proxy's.  egress/conn.c, in the connection's own program:
 * the client's side. */
void egress_conn_handle(int client, uint16_t transparent_port,
			const struct egress_proxy *p);
/* runtime/egress/egress_broker.c, in a fork of the helper: start that program
 * on the client (the memfd at EGRESS_CONN_IMAGE_FD), answer its one
 * question (the upstream) and write its verdict to the log; returns when
 * it has ended. */
void egress_broker_run(int client, uint16_t transparent_port,
		       const struct egress_proxy *p);

/* The JSON line of one decision (egress_proxy.c) */
struct egress_decision {
	const char *kind;   /* "proxy", "transparent", "dns" */
	const char *method; /* "CONNECT", "GET" ..., a DNS type ("A") */
	const char *name;   /* as asked (escaped when written) */
	unsigned port;
	const struct egress_addr *resolved;
	size_t n_resolved;
	const struct egress_addr *chosen; /* NULL: none */
	const char *rule;    /* text of the rule matched, or NULL */
	const char *verdict; /* "allow" or "deny" */
	const char *reason;
	unsigned long long up, down; /* bytes client->upstream, back */
	long long start_ms;	     /* CLOCK_MONOTONIC */
};
/* One decision: counted, and one line of the log while its kind's and
 * verdict's share of the log (EGRESS_LOG_BUDGET) lasts; after that only
 * counted, with one line saying so when it first happens. */
void egress_log(const struct egress_proxy *p, const struct egress_decision *d);
/* At the helper's end: one "N lines dropped" line per kind and verdict
 * that dropped any. */
void egress_log_dropped(const struct egress_proxy *p);
long long egress_now_ms(void);

#endif
