/* The resolver cache and the lookup rate of one egress helper
 * (egress_cache.h).  The helper's connections are separate processes, so
 * the state is in an anonymous shared mapping under a process-shared,
 * robust mutex: a connection killed while it holds it leaves the next
 * one the lock (EOWNERDEAD), never a helper that hangs. */
#include "egress_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "dns.h"
#include "egress_proxy.h"

struct cache_entry {
	char name[DNS_NAME_TEXT + 1]; /* "": free */
	long long expires_ms;	      /* CLOCK_MONOTONIC */
	const char *failure;	      /* static; NULL: the addresses */
	size_t n;
	struct egress_addr addrs[EGRESS_CACHE_ADDRS];
};

struct egress_cache {
	pthread_mutex_t lock;
	double tokens;
	long long refilled_ms;
	struct cache_entry entries[EGRESS_CACHE_ENTRIES];
};

int egress_cache_make(struct egress_cache **out, struct error **err)
{
	pthread_mutexattr_t a;
	struct egress_cache *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (c == MAP_FAILED)
		return error_errno(err, "the resolver's cache");
	memset(c, 0, sizeof(*c));
	if (pthread_mutexattr_init(&a) != 0 ||
	    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) != 0 ||
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) != 0 ||
	    pthread_mutex_init(&c->lock, &a) != 0) {
		munmap(c, sizeof(*c));
		return error_set(err, EINVAL, "the resolver's cache: its lock");
	}
	pthread_mutexattr_destroy(&a);
	c->tokens = EGRESS_LOOKUP_BURST;
	c->refilled_ms = egress_now_ms();
	*out = c;
	return 0;
}

static void lock(struct egress_cache *c)
{
	if (pthread_mutex_lock(&c->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&c->lock);
}

static struct cache_entry *find(struct egress_cache *c, const char *name,
				long long now)
{
	for (size_t i = 0; i < EGRESS_CACHE_ENTRIES; i++) {
		struct cache_entry *e = &c->entries[i];

		if (e->name[0] && e->expires_ms > now &&
		    strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

/* One token of the bucket, refilled at EGRESS_LOOKUP_RATE a second up
 * to EGRESS_LOOKUP_BURST. */
static bool take_token(struct egress_cache *c, long long now)
{
	c->tokens += (double)(now - c->refilled_ms) * EGRESS_LOOKUP_RATE / 1000;
	if (c->tokens > EGRESS_LOOKUP_BURST)
		c->tokens = EGRESS_LOOKUP_BURST;
	c->refilled_ms = now;
	if (c->tokens < 1)
		return false;
	c->tokens -= 1;
	return true;
}

static void count(struct egress_counts *counts, uint64_t *field)
{
	if (counts)
		__atomic_add_fetch(field, 1, __ATOMIC_RELAXED);
}

enum egress_cached egress_cache_get(struct egress_cache *c,
				    struct egress_counts *counts,
				    const char *name, struct egress_addr *addrs,
				    size_t max, size_t *n, const char **failure)
{
	long long now = egress_now_ms();
	enum egress_cached r;
	struct cache_entry *e;

	*n = 0;
	*failure = NULL;
	lock(c);
	if ((e = find(c, name, now))) {
		*failure = e->failure;
		*n = e->n < max ? e->n : max;
		memcpy(addrs, e->addrs, *n * sizeof(*addrs));
		r = EGRESS_CACHE_HIT;
	} else {
		r = take_token(c, now) ? EGRESS_CACHE_MISS : EGRESS_CACHE_RATED;
	}
	pthread_mutex_unlock(&c->lock);
	if (counts)
		count(counts, r == EGRESS_CACHE_HIT    ? &counts->cache_hits
			      : r == EGRESS_CACHE_MISS ? &counts->lookups
						       : &counts->rate_refused);
	return r;
}

void egress_cache_put(struct egress_cache *c, const char *name,
		      const struct egress_addr *addrs, size_t n,
		      const char *failure, uint32_t ttl)
{
	long long now = egress_now_ms();
	struct cache_entry *slot = NULL, *free_slot = NULL, *oldest = NULL;

	if (ttl == 0 || strlen(name) > DNS_NAME_TEXT)
		return;
	if (ttl > EGRESS_CACHE_TTL_MAX)
		ttl = EGRESS_CACHE_TTL_MAX;
	lock(c);
	/* the name's own entry, a free or expired one, else the one that
	 * expires first */
	for (size_t i = 0; i < EGRESS_CACHE_ENTRIES && !slot; i++) {
		struct cache_entry *e = &c->entries[i];

		if (e->name[0] && strcmp(e->name, name) == 0)
			slot = e;
		else if (!e->name[0] || e->expires_ms <= now)
			free_slot = free_slot ? free_slot : e;
		else if (!oldest || e->expires_ms < oldest->expires_ms)
			oldest = e;
	}
	slot = slot ? slot : free_slot ? free_slot : oldest;
	memcpy(slot->name, name, strlen(name) + 1);
	slot->expires_ms = now + (long long)ttl * 1000;
	slot->failure = failure;
	slot->n = n < EGRESS_CACHE_ADDRS ? n : EGRESS_CACHE_ADDRS;
	memcpy(slot->addrs, addrs, slot->n * sizeof(*addrs));
	pthread_mutex_unlock(&c->lock);
}
