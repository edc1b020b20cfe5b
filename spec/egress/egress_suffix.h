/* The table of domains a wildcard egress rule may not stand on, shared by
 * its generator (tools/psl_gen.c, at build time) and its search
 * (spec/egress/egress_suffix.c).  Each name is stored with its labels reversed
 * ("co.uk" as "uk.co"), so that the names under one follow it in a
 * single sorted run. */
#ifndef CORRAL_EGRESS_SUFFIX_H
#define CORRAL_EGRESS_SUFFIX_H

#include <stdint.h>

enum suffix_kind {
	SUFFIX_RULE = 1 << 0,	   /* PSL "x": x is a public suffix */
	SUFFIX_WILDCARD = 1 << 1,  /* PSL "*.x": every label.x is one */
	SUFFIX_EXCEPTION = 1 << 2, /* PSL "!x": x is not one after all */
	SUFFIX_ECHO = 1 << 3,	   /* ours: an IP-echo / wildcard-DNS zone */
	SUFFIX_HOSTING = 1 << 4,   /* ours: anyone gets a name under it */
};

struct suffix_entry {
	uint32_t name; /* offset in the names' string */
	uint32_t kinds;
};

#endif
