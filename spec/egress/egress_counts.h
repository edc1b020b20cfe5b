/* The egress helper's counters: a small fixed record in the state
 * directory (EGRESS_COUNTS_FILE) that the helper's processes update in
 * place (a shared mapping) and `corral report` and delete's summary read.
 * They are kept apart from the log, whose lines are bounded per kind and
 * verdict: a flood of one kind of line cannot hide another, and the
 * counts do not depend on what the log kept (docs/threat-model.md, "The
 * egress proxy"). */
#ifndef CORRAL_EGRESS_COUNTS_H
#define CORRAL_EGRESS_COUNTS_H

#include <stdint.h>

#define EGRESS_COUNTS_FILE "egress.counts"
#define EGRESS_COUNTS_MAGIC 0x31435245u /* "ERC1" */

enum egress_log_kind {
	EGRESS_KIND_PROXY,	 /* "proxy" */
	EGRESS_KIND_TRANSPARENT, /* "transparent" */
	EGRESS_KIND_DNS,	 /* "dns": the stub's refusals */
	EGRESS_KINDS,
};

enum egress_verdict {
	EGRESS_ALLOW,
	EGRESS_DENY,
	EGRESS_VERDICTS,
};

struct egress_counts {
	uint32_t magic; /* EGRESS_COUNTS_MAGIC */
	uint32_t size;	/* sizeof(struct egress_counts) */
	/* every decision, whether the log kept its line or not */
	uint64_t decisions[EGRESS_KINDS][EGRESS_VERDICTS];
	/* bytes of the log each kind and verdict used, of its budget */
	uint64_t logged[EGRESS_KINDS][EGRESS_VERDICTS];
	/* lines not written: that budget was spent */
	uint64_t dropped[EGRESS_KINDS][EGRESS_VERDICTS];
	/* the resolver: names asked of the host's nameservers, answers
	 * taken from the cache, lookups refused by the rate limit */
	uint64_t lookups, cache_hits, rate_refused;
};

#endif
