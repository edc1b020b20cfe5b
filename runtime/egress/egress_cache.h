/* The egress helper's resolver cache and lookup rate, shared by its
 * per-connection processes (one anonymous shared mapping, made before
 * they are forked).  A name under a wildcard rule is the workload's to
 * choose, and looking it up sends it to the host's resolver and the
 * zone's servers: the cache answers a name again without asking, and the
 * token bucket lets at most EGRESS_LOOKUP_RATE new names a second (a
 * burst of EGRESS_LOOKUP_BURST) reach them, whatever the workload does
 * (docs/threat-model.md, "The egress proxy"). */
#ifndef CORRAL_EGRESS_CACHE_H
#define CORRAL_EGRESS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "egress.h"
#include "egress_counts.h"
#include "error.h"

#define EGRESS_LOOKUP_RATE 10	 /* names a second to the resolver */
#define EGRESS_LOOKUP_BURST 20	 /* at once, after a quiet while */
#define EGRESS_CACHE_TTL_MAX 300 /* s: an answer is kept at most this */
#define EGRESS_CACHE_NEG_TTL 30	 /* s: a name that does not exist */
#define EGRESS_CACHE_ENTRIES 256 /* names kept; the oldest goes first */
#define EGRESS_CACHE_ADDRS 16	 /* addresses kept per name */

struct egress_cache;

enum egress_cached {
	EGRESS_CACHE_MISS,  /* not known: a lookup may go out (a token) */
	EGRESS_CACHE_HIT,   /* *n addresses, or *failure */
	EGRESS_CACHE_RATED, /* not known, and no token left: no lookup */
};

/* The shared mapping, made once by the helper before it forks. */
int egress_cache_make(struct egress_cache **out, struct error **err);

/* What is known of name (at most max addresses), else whether a lookup
 * may go out now; counted in counts (cache_hits, lookups,
 * rate_refused) when it is not NULL. */
enum egress_cached egress_cache_get(struct egress_cache *c,
				    struct egress_counts *counts,
				    const char *name, struct egress_addr *addrs,
				    size_t max, size_t *n,
				    const char **failure);

/* Keep the answer to name for ttl seconds (bounded by
 * EGRESS_CACHE_TTL_MAX; 0 keeps nothing): its addresses, or failure (a
 * static string: the name does not exist or has no address). */
void egress_cache_put(struct egress_cache *c, const char *name,
		      const struct egress_addr *addrs, size_t n,
		      const char *failure, uint32_t ttl);

#endif
