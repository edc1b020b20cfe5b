/* Whether a wildcard egress rule may stand on a name: not when anyone can
 * get a name under it.  The table (build/gen/public_suffixes.inc) is the
 * whole Public Suffix List, ICANN and PRIVATE sections, as Debian's
 * publicsuffix package ships it, and corral's own list of IP-echo and
 * wildcard-DNS services and other services that hand out names
 * (tools/egress_suffixes.txt), compiled in at build time by
 * tools/psl_gen.c.  Pure: a search of constant data.
 *
 * A wildcard over x is refused when x is a public suffix by the PSL's
 * own algorithm (its longest matching rule, a `*.` rule matching one
 * more label, a `!` exception taking one off), when a rule lies under x
 * (`*.amazonaws.com` would reach every bucket under s3.amazonaws.com),
 * and when x is, or lies under, an entry of corral's own list. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "egress.h"
#include "egress_suffix.h"
#include "util.h"

#include "public_suffixes.inc"

#define NAME_MAX_LEN EGRESS_HOST_MAX

static const char *name_at(size_t i)
{
	return suffix_names + suffix_table[i].name;
}

/* The first entry not below key. */
static size_t lower_bound(const char *key)
{
	size_t lo = 0, hi = ARRAY_SIZE(suffix_table);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(name_at(mid), key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The kinds listed for exactly key (reversed labels), 0 for none. */
static unsigned kinds_of(const char *key)
{
	size_t i = lower_bound(key);

	return i < ARRAY_SIZE(suffix_table) && strcmp(name_at(i), key) == 0
		   ? suffix_table[i].kinds
		   : 0;
}

/* Whether an entry lies strictly under key. */
static bool any_under(const char *key, size_t len)
{
	char prefix[NAME_MAX_LEN + 2];
	size_t i;

	memcpy(prefix, key, len);
	prefix[len] = '.';
	prefix[len + 1] = '\0';
	i = lower_bound(prefix);
	return i < ARRAY_SIZE(suffix_table) &&
	       strncmp(name_at(i), prefix, len + 1) == 0;
}

/* name's labels reversed into key; its number of labels, 0 when too
 * long. */
static size_t reverse(const char *name, char *key)
{
	size_t len = strlen(name), at = 0, labels = 0;
	const char *end = name + len;

	if (len == 0 || len > NAME_MAX_LEN)
		return 0;
	while (end > name) {
		const char *dot = end;

		while (dot > name && dot[-1] != '.')
			dot--;
		memcpy(key + at, dot, (size_t)(end - dot));
		at += (size_t)(end - dot);
		labels++;
		if (dot > name)
			key[at++] = '.';
		end = dot > name ? dot - 1 : name;
	}
	key[at] = '\0';
	return labels;
}

/* The length in labels of name's public suffix, by the PSL's algorithm
 * over the reversed key ("uk.co.example"); the default rule "*" makes
 * it at least 1.  *own: a suffix of name (or name) is on corral's list. */
static size_t suffix_labels(const char *key, size_t labels, unsigned *own)
{
	size_t best = 1;

	*own = 0;
	for (size_t k = 1; k <= labels; k++) {
		/* the first k labels of the reversed key: the k-label suffix */
		size_t len = 0;
		unsigned kinds;
		char sub[NAME_MAX_LEN + 1];

		for (size_t l = 0; l < k; l++) {
			len += strcspn(key + len, ".");
			if (l + 1 < k)
				len++;
		}
		memcpy(sub, key, len);
		sub[len] = '\0';
		kinds = kinds_of(sub);
		*own |= kinds & (SUFFIX_ECHO | SUFFIX_HOSTING);
		if (kinds & SUFFIX_EXCEPTION)
			return k - 1; /* an exception prevails */
		if ((kinds & SUFFIX_RULE) && k > best)
			best = k;
		if ((kinds & SUFFIX_WILDCARD) && k + 1 <= labels &&
		    k + 1 > best)
			best = k + 1;
	}
	return best;
}

int egress_public_suffix(const char *name)
{
	char key[NAME_MAX_LEN + 1];
	size_t labels = reverse(name, key);
	unsigned own, here;

	if (labels == 0)
		return EGRESS_SUFFIX_PUBLIC;
	if (suffix_labels(key, labels, &own) == labels)
		return EGRESS_SUFFIX_PUBLIC;
	if (own & SUFFIX_ECHO)
		return EGRESS_SUFFIX_ECHO;
	if (own & SUFFIX_HOSTING)
		return EGRESS_SUFFIX_HOSTING;
	here = kinds_of(key);
	if ((here & SUFFIX_WILDCARD) || any_under(key, strlen(key)))
		return EGRESS_SUFFIX_ABOVE;
	return EGRESS_SUFFIX_NONE;
}

bool egress_public_suffix_sorted(void)
{
	for (size_t i = 1; i < ARRAY_SIZE(suffix_table); i++)
		if (strcmp(name_at(i - 1), name_at(i)) >= 0)
			return false;
	return ARRAY_SIZE(suffix_table) > 1000;
}
