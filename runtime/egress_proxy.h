/* corral's egress proxy: the engine the egress helper runs
 * (runtime/egress_helper.c).  It accepts on a listening socket in the
 * container's network namespace and, for each HTTP CONNECT or
 * absolute-form plain-HTTP request whose host a rule allows
 * (spec/egress.h), resolves the name itself, refuses every address in a
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

#include "dns.h"
#include "egress.h"
#include "error.h"

/* /etc/hosts and the nameservers, read once before the sandboxing. */
struct egress_resolver {
	char *hosts; /* the text of /etc/hosts, or NULL */
	size_t hosts_len;
	struct egress_addr servers[DNS_SERVERS_MAX];
	size_t n_servers;
};

struct egress_proxy {
	const struct egress_rule *rules;
	size_t n_rules;
	const char *container_id;
	int log_fd; /* JSON lines, O_APPEND; -1: none */
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

/* Serve until stop_fd is readable; 0 then. */
int egress_proxy_serve(int listen_fd, const struct egress_proxy *p,
		       struct error **err);

/* ---- egress_conn.c: one connection, in its own process -------------- */
void egress_conn_handle(int client, const struct egress_proxy *p);

/* The JSON line of one decision (egress_proxy.c) */
struct egress_decision {
	const char *method; /* "CONNECT", "GET" ... */
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
void egress_log(const struct egress_proxy *p, const struct egress_decision *d);
long long egress_now_ms(void);

#endif
