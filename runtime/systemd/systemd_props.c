/* Unit properties (systemd.h): the a(sv) list StartTransientUnit and
 * SetUnitProperties take, and the limits of config.json's
 * linux.resources that systemd has a property for.  Pure: unit-tested
 * (tests/unit/systemd/test_systemd_props.c).
 *
 * Each limit systemd knows goes on the unit, because systemd writes its
 * own value of it (its default when the unit has none: "max") into the
 * scope's cgroup whenever it realizes the unit again (a daemon-reload, a
 * change of the slice): a limit written only to the cgroup file would be
 * undone.  The cgroup driver writes every limit to the scope's cgroup
 * as well (the same values), so a property this systemd lacks still
 * holds; those are named in not_on_unit for the log and explain. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "systemd.h"
#include "util.h"

#define CPU_PERIOD_DEFAULT 100000 /* the kernel's, in microseconds */
#define USEC_PER_SEC 1000000ULL
#define MASK_CPUS_MAX 8192

void sd_props_begin(struct sd_props *p)
{
	*p = (struct sd_props){0};
	p->at = dbus_array_begin(&p->b, 8);
}

void sd_props_end(struct sd_props *p)
{
	dbus_array_end(&p->b, p->at, 8);
}

/* (s v) with the variant's signature; the value follows */
static void prop(struct sd_props *p, const char *name, const char *sig)
{
	dbus_put_align(&p->b, 8);
	dbus_put_str(&p->b, name);
	dbus_put_sig(&p->b, sig);
	p->n++;
}

void sd_prop_str(struct sd_props *p, const char *name, const char *v)
{
	prop(p, name, "s");
	dbus_put_str(&p->b, v);
}

void sd_prop_bool(struct sd_props *p, const char *name, bool v)
{
	prop(p, name, "b");
	dbus_put_bool(&p->b, v);
}

void sd_prop_u64(struct sd_props *p, const char *name, uint64_t v)
{
	prop(p, name, "t");
	dbus_put_u64(&p->b, v);
}

void sd_prop_pids(struct sd_props *p, const char *name, pid_t pid)
{
	size_t at;

	prop(p, name, "au");
	at = dbus_array_begin(&p->b, 4);
	dbus_put_u32(&p->b, (uint32_t)pid);
	dbus_array_end(&p->b, at, 4);
}

void sd_prop_bytes(struct sd_props *p, const char *name, const uint8_t *v,
		   size_t n)
{
	size_t at;

	prop(p, name, "ay");
	at = dbus_array_begin(&p->b, 1);
	for (size_t i = 0; i < n; i++)
		dbus_put_u8(&p->b, v[i]);
	dbus_array_end(&p->b, at, 1);
}

unsigned sd_parse_version(const char *s)
{
	unsigned long v;
	char *end;

	if (*s == 'v')
		s++;
	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || v > 100000 ? 0 : (unsigned)v;
}

/* One number of a CPU list, below MASK_CPUS_MAX. */
static const char *cpu_number(const char *s, unsigned *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || v >= MASK_CPUS_MAX)
		return NULL;
	*out = (unsigned)v;
	return end;
}

int sd_cpu_mask(const char *list, uint8_t **out, size_t *n, struct error **err)
{
	uint8_t *mask = calloc(MASK_CPUS_MAX / 8, 1);
	const char *s = list;
	size_t used = 0;

	*out = NULL;
	*n = 0;
	if (!mask)
		return error_set(err, ENOMEM, "out of memory");
	while (*s) {
		unsigned lo, hi;

		s = cpu_number(s, &lo);
		hi = lo;
		if (s && *s == '-')
			s = cpu_number(s + 1, &hi);
		if (!s || hi < lo || (*s && *s != ',') ||
		    (*s == ',' && !s[1])) {
			free(mask);
			return error_set(err, EINVAL,
					 "\"%.64s\" is not a CPU list", list);
		}
		for (unsigned c = lo; c <= hi; c++)
			mask[c / 8] |= (uint8_t)(1u << (c % 8));
		used = used > hi / 8 + 1 ? used : hi / 8 + 1;
		s += *s == ',';
	}
	*out = mask;
	*n = used;
	return 0;
}

/* cpu.shares onto CPUWeight, as the v2 table maps it onto cpu.weight */
static uint64_t cpu_weight(int64_t shares)
{
	shares = shares < 2 ? 2 : shares > 262144 ? 262144 : shares;
	return (uint64_t)(1 + ((shares - 2) * 9999) / 262142);
}

/* A name onto one of the two lists. */
static void name_to(FILE *f, const char *name)
{
	if (f && ftell(f) > 0)
		fputc(',', f);
	if (f)
		fputs(name, f);
}

struct acc {
	const struct spec_resources *r;
	unsigned version;
	struct sd_props *p;
	FILE *on, *off;
};

/* Whether systemd has the property: its version is at least `since`. */
static bool has(struct acc *a, const char *name, unsigned since)
{
	bool yes = a->version >= since;

	name_to(yes ? a->on : a->off, name);
	return yes;
}

static void memory_props(struct acc *a)
{
	const struct spec_memory *m = a->r->memory;

	if (!m)
		return;
	if (m->limit.set && m->limit.v > 0 && has(a, "MemoryMax", 231))
		sd_prop_u64(a->p, "MemoryMax", (uint64_t)m->limit.v);
	if (m->reservation.set && m->reservation.v > 0 &&
	    has(a, "MemoryLow", 231))
		sd_prop_u64(a->p, "MemoryLow", (uint64_t)m->reservation.v);
	/* memory+swap in the spec, swap alone for systemd (v2's meaning) */
	if (m->swap.set && m->swap.v == -1 && has(a, "MemorySwapMax", 232))
		sd_prop_u64(a->p, "MemorySwapMax", UINT64_MAX);
	else if (m->swap.set && m->swap.v > 0 && m->limit.set &&
		 m->limit.v > 0 && m->swap.v >= m->limit.v &&
		 has(a, "MemorySwapMax", 232))
		sd_prop_u64(a->p, "MemorySwapMax",
			    (uint64_t)(m->swap.v - m->limit.v));
}

static void cpu_props(struct acc *a)
{
	const struct spec_cpu *c = a->r->cpu;
	uint64_t period = CPU_PERIOD_DEFAULT;

	if (!c)
		return;
	if (c->period.set && c->period.v > 0) {
		period = (uint64_t)c->period.v;
		if (has(a, "CPUQuotaPeriodUSec", 242))
			sd_prop_u64(a->p, "CPUQuotaPeriodUSec", period);
	}
	/* the quota per second of wall time; systemd writes cpu.max as
	 * this times its period */
	if (c->quota.set && c->quota.v > 0 && has(a, "CPUQuotaPerSecUSec", 213))
		sd_prop_u64(a->p, "CPUQuotaPerSecUSec",
			    (uint64_t)c->quota.v * USEC_PER_SEC / period);
	if (c->shares.set && c->shares.v > 0 && has(a, "CPUWeight", 231))
		sd_prop_u64(a->p, "CPUWeight", cpu_weight(c->shares.v));
}

static void cpuset_prop(struct acc *a, const char *list, const char *name)
{
	_cleanup_free_ uint8_t *mask = NULL;
	size_t n;

	if (!list || !*list || sd_cpu_mask(list, &mask, &n, NULL) < 0)
		return; /* the cgroup's own writer refuses a bad list */
	if (has(a, name, 244))
		sd_prop_bytes(a->p, name, mask, n);
}

int sd_resource_props(const struct spec_resources *r, unsigned version,
		      bool create, struct sd_props *p, char **on_unit,
		      char **not_on_unit, struct error **err)
{
	size_t on_n = 0, off_n = 0;
	struct acc a = {.r = r, .version = version, .p = p};

	*on_unit = *not_on_unit = NULL;
	a.on = open_memstream(on_unit, &on_n);
	a.off = open_memstream(not_on_unit, &off_n);
	/* at create, no limit is "infinity", not systemd's DefaultTasksMax
	 * for every scope */
	if (create && (!r || !r->pids_limit.set) && a.on && a.off &&
	    version >= 228)
		sd_prop_u64(p, "TasksMax", UINT64_MAX);
	if (r && a.on && a.off) {
		memory_props(&a);
		if (r->pids_limit.set && r->pids_limit.v > 0 &&
		    has(&a, "TasksMax", 228))
			sd_prop_u64(p, "TasksMax", (uint64_t)r->pids_limit.v);
		else if (r->pids_limit.set && has(&a, "TasksMax", 228))
			sd_prop_u64(p, "TasksMax", UINT64_MAX);
		cpu_props(&a);
		if (r->cpu) {
			cpuset_prop(&a, r->cpu->cpus, "AllowedCPUs");
			cpuset_prop(&a, r->cpu->mems, "AllowedMemoryNodes");
		}
		if (r->block_io && r->block_io->weight.set &&
		    r->block_io->weight.v >= 10 &&
		    r->block_io->weight.v <= 1000 && has(&a, "IOWeight", 231))
			sd_prop_u64(
			    p, "IOWeight",
			    (uint64_t)(1 + (r->block_io->weight.v - 10) * 9999 /
					       990));
	}
	if ((a.on ? fclose(a.on) : -1) != 0 ||
	    (a.off ? fclose(a.off) : -1) != 0 || p->b.oom) {
		free(*on_unit);
		free(*not_on_unit);
		*on_unit = *not_on_unit = NULL;
		return error_set(err, ENOMEM,
				 "systemd properties: out of "
				 "memory");
	}
	return 0;
}
