/* `corral update`'s decision: a new set of resource limits for a live
 * container, checked against the policy it was created under, and merged
 * into its stored effective spec.  It may narrow freely; it may widen
 * memory, pids and cpu only up to the policy, unless that policy is
 * permissive.  Pure, like the rest of harden(): runtime/cli/update.c reads
 * the request and writes the cgroup. */
#include "harden.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "util.h"

static bool asked(struct spec_opt o)
{
	return o.set && o.v != 0;
}

/* What the cgroup needs beside the request to keep the rest as it is: a
 * quota keeps the stored period (cpu.max writes both), swap needs the
 * memory limit, and under the sandbox swap follows the memory limit (no
 * swap, as harden() sets it at create). */
static void complete(struct spec_resources *r, const struct spec_resources *cur,
		     bool sandbox, struct harden_update_notes *notes)
{
	const struct spec_cpu *cc = cur ? cur->cpu : NULL;
	const struct spec_memory *cm = cur ? cur->memory : NULL;
	struct spec_memory *m = r->memory;

	if (r->cpu && asked(r->cpu->quota) && !asked(r->cpu->period) && cc &&
	    asked(cc->period))
		r->cpu->period = cc->period;
	if (r->cpu && asked(r->cpu->period) && !asked(r->cpu->quota) && cc &&
	    asked(cc->quota))
		r->cpu->quota = cc->quota;
	if (!m)
		return;
	if (asked(m->swap) && !asked(m->limit) && cm && asked(cm->limit))
		m->limit = cm->limit;
	if (!sandbox || !asked(m->limit) || m->limit.v < 0)
		return;
	if (asked(m->swap) && m->swap.v != m->limit.v)
		notes->swap_set_to_limit = true;
	m->swap = m->limit;
}

/* Device rules are fixed at create, as with runc: podman sends the
 * container's whole resources, rules included, and a rule change could
 * only widen what the sandbox let through. */
static void drop_devices(struct spec_resources *r,
			 struct harden_update_notes *notes)
{
	if (r->n_devices == 0)
		return;
	notes->devices_dropped = true;
	for (size_t i = 0; i < r->n_devices; i++)
		free(r->devices[i].access);
	free(r->devices);
	r->devices = NULL;
	r->n_devices = 0;
}

static int wider(struct error **err, const char *what, char *asked_s,
		 char *policy_s)
{
	int r;

	if (!asked_s || !policy_s)
		r = error_set(err, ENOMEM, "out of memory");
	else
		r = error_set(err, EPERM, "%s %s is wider than the policy's %s",
			      what, asked_s, policy_s);
	free(asked_s);
	free(policy_s);
	return r;
}

static char *fmt_count(long long v)
{
	char *s = NULL;

	return asprintf(&s, "%lld", v) < 0 ? NULL : s;
}

static char *fmt_cpu(int64_t quota, int64_t period)
{
	char *s = NULL;

	if (quota < 0)
		return strdup("unlimited");
	return asprintf(&s, "%lld/%lld", (long long)quota, (long long)period) <
		       0
		   ? NULL
		   : s;
}

/* The files unified could reach around the checks below. */
static const char *const policy_files[] = {
    "memory.max", "memory.swap.max", "pids.max", "cpu.max", "cpu.max.burst"};

static int check_cpu(const struct policy *p, const struct spec_resources *r,
		     const struct spec_resources *cur, struct error **err)
{
	const struct spec_cpu *c = r->cpu, *cc = cur ? cur->cpu : NULL;
	int64_t pq = p->cpu_quota,
		pp = p->cpu_period ? (int64_t)p->cpu_period : SPEC_CPU_PERIOD;
	int64_t q, per;

	if (pq <= 0 || !c || (!asked(c->quota) && !asked(c->period)))
		return 0;
	q = asked(c->quota) ? c->quota.v
			    : (cc && asked(cc->quota) ? cc->quota.v : -1);
	per = asked(c->period)
		  ? c->period.v
		  : (cc && asked(cc->period) ? cc->period.v : SPEC_CPU_PERIOD);
	if (q > 0 && (__int128)q * pp <= (__int128)pq * per)
		return 0;
	return wider(err, "cpu quota", fmt_cpu(q, per), fmt_cpu(pq, pp));
}

static int check_policy(const struct policy *p, const struct spec_resources *r,
			const struct spec_resources *cur, struct error **err)
{
	const struct spec_memory *m = r->memory;

	if (p->memory > 0 && m && asked(m->limit) &&
	    (m->limit.v < 0 || m->limit.v > p->memory))
		return wider(err, "memory",
			     m->limit.v < 0 ? strdup("unlimited")
					    : units_size_string(
						  (uint64_t)m->limit.v, false),
			     units_size_string((uint64_t)p->memory, false));
	if (p->pids > 0 && r->pids_limit.set &&
	    (r->pids_limit.v <= 0 || r->pids_limit.v > p->pids))
		return wider(err, "pids",
			     r->pids_limit.v <= 0
				 ? strdup("unlimited")
				 : fmt_count((long long)r->pids_limit.v),
			     fmt_count((long long)p->pids));
	if (check_cpu(p, r, cur, err) < 0)
		return -1;
	if (r->network &&
	    (r->network->class_id.set || r->network->n_priorities))
		return error_set(err, EPERM,
				 "network: classID and priorities are the "
				 "host's to choose under the sandbox");
	for (size_t i = 0; i < r->n_unified; i++)
		for (size_t j = 0; j < ARRAY_SIZE(policy_files); j++)
			if (strcmp(r->unified[i].key, policy_files[j]) == 0)
				return error_set(
				    err, EPERM,
				    "unified %s: bounded by the policy; set "
				    "it through its resources field",
				    policy_files[j]);
	return 0;
}

int harden_update(struct spec_resources *request,
		  const struct spec_resources *current,
		  const struct policy *policy,
		  struct harden_update_notes *notes, struct error **err)
{
	bool sandbox = policy->mode != POLICY_PERMISSIVE;

	*notes = (struct harden_update_notes){0};
	drop_devices(request, notes);
	complete(request, current, sandbox, notes);
	return sandbox ? check_policy(policy, request, current, err) : 0;
}

/* ---- merging into the stored resources ------------------------------- */

#define TAKE(dst, src, f)                                                      \
	do {                                                                   \
		if ((src)->f.set)                                              \
			(dst)->f = (src)->f;                                   \
	} while (0)

static void take_string(char **dst, char **src)
{
	if (!*src)
		return;
	free(*dst);
	*dst = steal_pointer(src);
}

static int merge_memory(struct spec_resources *cur, struct spec_memory *m,
			struct error **err)
{
	if (!m)
		return 0;
	if (!cur->memory && !(cur->memory = calloc(1, sizeof(*cur->memory))))
		return error_set(err, ENOMEM, "out of memory");
	TAKE(cur->memory, m, limit);
	TAKE(cur->memory, m, reservation);
	TAKE(cur->memory, m, swap);
	TAKE(cur->memory, m, kernel);
	TAKE(cur->memory, m, kernel_tcp);
	TAKE(cur->memory, m, swappiness);
	if (m->has_disable_oom_killer) {
		cur->memory->has_disable_oom_killer = true;
		cur->memory->disable_oom_killer = m->disable_oom_killer;
	}
	return 0;
}

static int merge_cpu(struct spec_resources *cur, struct spec_cpu *c,
		     struct error **err)
{
	if (!c)
		return 0;
	if (!cur->cpu && !(cur->cpu = calloc(1, sizeof(*cur->cpu))))
		return error_set(err, ENOMEM, "out of memory");
	TAKE(cur->cpu, c, shares);
	TAKE(cur->cpu, c, quota);
	TAKE(cur->cpu, c, burst);
	TAKE(cur->cpu, c, period);
	TAKE(cur->cpu, c, realtime_runtime);
	TAKE(cur->cpu, c, realtime_period);
	TAKE(cur->cpu, c, idle);
	take_string(&cur->cpu->cpus, &c->cpus);
	take_string(&cur->cpu->mems, &c->mems);
	return 0;
}

/* Lists replace the stored ones whole; the old ones go with `r`. */
#define SWAP_LIST(a, na, b, nb)                                                \
	do {                                                                   \
		if ((nb) > 0) {                                                \
			void *t_ = (a);                                        \
			size_t n_ = (na);                                      \
			(a) = (b);                                             \
			(na) = (nb);                                           \
			(b) = t_;                                              \
			(nb) = n_;                                             \
		}                                                              \
	} while (0)

static int merge_block_io(struct spec_resources *cur, struct spec_block_io *b,
			  struct error **err)
{
	struct spec_block_io *d;

	if (!b)
		return 0;
	if (!cur->block_io &&
	    !(cur->block_io = calloc(1, sizeof(*cur->block_io))))
		return error_set(err, ENOMEM, "out of memory");
	d = cur->block_io;
	TAKE(d, b, weight);
	TAKE(d, b, leaf_weight);
	SWAP_LIST(d->weight_devices, d->n_weight_devices, b->weight_devices,
		  b->n_weight_devices);
	for (size_t k = 0; k < ARRAY_SIZE(d->throttle); k++)
		SWAP_LIST(d->throttle[k], d->n_throttle[k], b->throttle[k],
			  b->n_throttle[k]);
	return 0;
}

static int merge_unified(struct spec_resources *cur, struct spec_resources *r,
			 struct error **err)
{
	for (size_t i = 0; i < r->n_unified; i++) {
		struct spec_kv *kv = &r->unified[i], *grown;
		size_t j = 0;

		while (j < cur->n_unified &&
		       strcmp(cur->unified[j].key, kv->key) != 0)
			j++;
		if (j == cur->n_unified) {
			grown = realloc(cur->unified,
					(j + 1) * sizeof(*cur->unified));
			if (!grown)
				return error_set(err, ENOMEM, "out of memory");
			cur->unified = grown;
			grown[j] = (struct spec_kv){NULL, NULL};
			cur->n_unified++;
		}
		take_string(&cur->unified[j].key, &kv->key);
		take_string(&cur->unified[j].value, &kv->value);
	}
	return 0;
}

static int merge_network(struct spec_resources *cur, struct spec_network *n,
			 struct error **err)
{
	if (!n)
		return 0;
	if (!cur->network && !(cur->network = calloc(1, sizeof(*cur->network))))
		return error_set(err, ENOMEM, "out of memory");
	TAKE(cur->network, n, class_id);
	SWAP_LIST(cur->network->priorities, cur->network->n_priorities,
		  n->priorities, n->n_priorities);
	return 0;
}

int harden_update_merge(struct spec_resources *stored,
			struct spec_resources *request, struct error **err)
{
	if (merge_memory(stored, request->memory, err) < 0 ||
	    merge_cpu(stored, request->cpu, err) < 0 ||
	    merge_block_io(stored, request->block_io, err) < 0 ||
	    merge_unified(stored, request, err) < 0)
		return -1;
	TAKE(stored, request, pids_limit);
	SWAP_LIST(stored->hugepage_limits, stored->n_hugepage_limits,
		  request->hugepage_limits, request->n_hugepage_limits);
	return merge_network(stored, request->network, err);
}
