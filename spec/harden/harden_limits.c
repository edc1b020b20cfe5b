/* The rules of harden() for time, memory, pids and cpu.  The stricter of
 * config.json, the policy and the run.corral.* annotations wins; an
 * annotation may only narrow the policy, and one that would widen it (or
 * that does not parse) fails harden(): asking for more than the host
 * allows is an error the caller must see, not a silent no-op.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harden_internal.h"
#include "units.h"
#include "util.h"

/* One run.corral.* annotation: a positive amount, or "none". */
struct annotation {
	const char *name;
	const char *value; /* as written; NULL when absent */
	bool none;
	uint64_t amount;
};

struct annotation_kind {
	const char *name;
	bool (*parse)(const char *s, uint64_t max, uint64_t *out);
	const char *expected;
	char *(*render)(uint64_t v); /* for "wider than the policy's ..." */
};

static char *render_seconds(uint64_t v)
{
	char *s = NULL;

	return asprintf(&s, "%llus", (unsigned long long)v) < 0 ? NULL : s;
}

static char *render_bytes(uint64_t v)
{
	return units_size_string(v, true);
}

static char *render_count(uint64_t v)
{
	char *s = NULL;

	return asprintf(&s, "%llu", (unsigned long long)v) < 0 ? NULL : s;
}

static const struct annotation_kind timeout_kind = {
    ANNOTATION_TIMEOUT, units_parse_count,
    "a positive number of seconds or \"none\"", render_seconds};
static const struct annotation_kind memory_kind = {
    ANNOTATION_MEMORY, units_parse_size,
    "a size in bytes or like \"256MiB\", or \"none\"", render_bytes};
static const struct annotation_kind pids_kind = {
    ANNOTATION_PIDS, units_parse_count, "a positive integer or \"none\"",
    render_count};

/* *o becomes v, recorded as a change when it was anything else. */
static void set_opt(struct harden_ctx *c, const char *field, struct spec_opt *o,
		    int64_t v, const char *reason)
{
	_cleanup_free_ char *asked = NULL, *applied = NULL;

	if (o->set && o->v == v)
		return;
	asked = harden_opt(c, *o);
	applied = harden_fmt(c, "%lld", (long long)v);
	harden_record(c, field, asked, applied, reason);
	*o = (struct spec_opt){true, v};
}

/* Read the annotation and check that it narrows policy_value (0: the
 * policy sets no limit, so any amount narrows). */
static int read_annotation(const struct spec *s,
			   const struct annotation_kind *k,
			   uint64_t policy_value, struct annotation *a,
			   struct error **err)
{
	_cleanup_free_ char *safe = NULL, *limit = NULL;

	*a = (struct annotation){.name = k->name,
				 .value = harden_annotation(s, k->name)};
	if (!a->value)
		return 0;
	safe = harden_safe(a->value, 64);
	if (!safe)
		return error_set(err, ENOMEM, "out of memory");
	a->none = strcmp(a->value, "none") == 0;
	if (!a->none &&
	    (!k->parse(a->value, INT64_MAX, &a->amount) || a->amount == 0))
		return error_set(err, EINVAL, "annotation %s=%s: expected %s",
				 k->name, safe, k->expected);
	if (policy_value == 0 || (!a->none && a->amount <= policy_value))
		return 0;
	limit = k->render(policy_value);
	if (!limit)
		return error_set(err, ENOMEM, "out of memory");
	return error_set(err, EINVAL,
			 "annotation %s=%s: wider than the policy's %s",
			 k->name, safe, limit);
}

/* ---- the wall clock -------------------------------------------------- */

/* A pod's infrastructure container holds the pod's namespaces: killing
 * it at a deadline would kill the pod (and the kubelet could not restart
 * its containers), so it has none, even when a pod annotation (which
 * reaches it as it reaches every container of the pod) asks for one.
 * Being marked as one buys nothing else: its limits leave a pause
 * process room to pause and no more (unless it carries the pod's egress
 * proxy: see role_cap). */
#define POD_SANDBOX_PIDS 2
#define POD_SANDBOX_MEMORY (INT64_C(16) << 20)
#define POD_SANDBOX_CPU_QUOTA 5000 /* per SPEC_CPU_PERIOD: 0.05 CPU */

static bool pod_sandbox(const struct harden_ctx *c)
{
	return c->h->sandbox.role == ROLE_POD_SANDBOX;
}

/* The smaller of the policy's limit (<= 0: none) and the pod sandbox's
 * cap, and the reason for it.  A pod sandbox with corral's egress proxy
 * keeps the policy's limits: its proxy serves every container of the
 * pod (runtime/ns/pod.c pod_join_network), in its cgroup. */
static int64_t role_cap(const struct harden_ctx *c, int64_t policy, int64_t cap,
			const char **reason)
{
	if (!pod_sandbox(c) || c->h->sandbox.egress_on ||
	    (policy > 0 && policy <= cap))
		return policy;
	*reason = ROLE_REASON;
	return cap;
}

/* A pod sandbox's own process is a pause, whatever its cgroup (which
 * holds the pod's egress proxy too, under the policy's limits, when the
 * pod has one): at most this much CPU time and address space, as
 * rlimits, and no fork (the runtime loads corral's no-fork filter, by the
 * role): so code marked as a pod sandbox can pause and no more, under
 * every policy. */
#define POD_SANDBOX_CPU_SECONDS 10
#define POD_SANDBOX_ADDRESS_SPACE (UINT64_C(64) << 20)

/* RLIMIT `type` of the process at most `cap`, narrowed or added. */
static void cap_rlimit(struct harden_ctx *c, int resource, const char *type,
		       uint64_t cap)
{
	struct spec_process *pr = c->spec->process;
	_cleanup_free_ char *field =
	    harden_fmt(c, ".process.rlimits[%s]", type);
	_cleanup_free_ char *asked = NULL, *applied = NULL;
	struct spec_rlimit *r = NULL, *grown;

	for (size_t i = 0; i < pr->n_rlimits; i++)
		if (pr->rlimits[i].resource == resource)
			r = &pr->rlimits[i];
	if (r && r->hard <= cap)
		return;
	if (!r) {
		grown =
		    realloc(pr->rlimits, (pr->n_rlimits + 1) * sizeof(*grown));
		if (!grown) {
			c->oom = true;
			return;
		}
		pr->rlimits = grown;
		r = &grown[pr->n_rlimits];
		*r = (struct spec_rlimit){.type = strdup(type),
					  .resource = resource,
					  .hard = UINT64_MAX,
					  .soft = UINT64_MAX};
		if (!r->type) {
			c->oom = true;
			return;
		}
		pr->n_rlimits++;
		asked = strdup("absent");
	} else {
		asked = harden_fmt(c, "%" PRIu64 "/%" PRIu64, r->soft, r->hard);
	}
	r->hard = cap;
	if (r->soft > cap)
		r->soft = cap;
	applied = harden_fmt(c, "%" PRIu64 "/%" PRIu64, r->soft, r->hard);
	harden_record(c, field, asked, applied, ROLE_REASON);
}

int harden_pause(struct harden_ctx *c, struct error **err)
{
	if (!pod_sandbox(c) || !c->h->sandbox.enforced || !c->spec->process)
		return 0;
	cap_rlimit(c, RLIMIT_CPU, "RLIMIT_CPU", POD_SANDBOX_CPU_SECONDS);
	cap_rlimit(c, RLIMIT_AS, "RLIMIT_AS", POD_SANDBOX_ADDRESS_SPACE);
	return 0;
}

int harden_time(struct harden_ctx *c, struct error **err)
{
	struct annotation a;
	uint64_t wall = c->policy->wall_clock;

	if (read_annotation(c->spec, &timeout_kind, wall, &a, err) < 0)
		return -1;
	if (a.value && !a.none && (wall == 0 || a.amount < wall))
		wall = a.amount;
	if (pod_sandbox(c) && wall) {
		_cleanup_free_ char *asked =
		    a.value ? harden_safe(a.value, 64) : strdup("absent");

		harden_record(c, "sandbox.wallClock", asked, "none",
			      ROLE_REASON);
		wall = 0;
	}
	c->h->sandbox.wall_clock = wall;
	return 0;
}

/* ---- memory and pids ------------------------------------------------- */

/* One limit that config.json, the policy and an annotation may each set;
 * a value <= 0 sets nothing. */
struct narrowing {
	const char *field;
	struct spec_opt *slot; /* config.json's value, replaced in place */
	int64_t policy;
	const char *policy_reason;
	const struct annotation *annotation;
	const char *annotation_reason;
	char *(*render)(struct harden_ctx *c, struct spec_opt o);
};

/* The smallest limit set anywhere, written to the slot when it is not
 * config.json's own; 0 when nothing sets one. */
static int64_t narrow(struct harden_ctx *c, const struct narrowing *n)
{
	int64_t config = n->slot->set && n->slot->v > 0 ? n->slot->v : 0;
	const struct annotation *a = n->annotation;
	int64_t ann = a->value && !a->none ? (int64_t)a->amount : 0;
	int64_t target = n->policy > 0 ? n->policy : 0;
	const char *reason = n->policy_reason;
	_cleanup_free_ char *asked = NULL, *applied = NULL;

	if (ann > 0 && (target == 0 || ann < target)) {
		target = ann;
		reason = n->annotation_reason;
	}
	if (config > 0 && (target == 0 || config <= target))
		return config;
	if (target == 0)
		return 0;
	asked = n->render(c, *n->slot);
	*n->slot = (struct spec_opt){true, target};
	applied = n->render(c, *n->slot);
	harden_record(c, n->field, asked, applied, reason);
	return target;
}

static char *render_memory(struct harden_ctx *c, struct spec_opt o)
{
	char *s;

	if (!o.set || o.v <= 0)
		return harden_opt(c, o);
	s = units_size_string((uint64_t)o.v, false);
	if (!s)
		c->oom = true;
	return s;
}

/* An ordinary user's corral with no cgroup of its own (a delegated
 * subtree) cannot limit memory, pids or cpu: refused, unless the policy
 * says limits are best-effort; then config.json's resources go, and
 * explain says each limit is off.  The wall clock does not need one. */
static int no_cgroup(struct harden_ctx *c, struct error **err)
{
	struct spec_linux *lx = c->spec->linux_;

	if (!c->policy->limits_best_effort)
		return error_set(err, EPERM,
				 "rootless: no cgroup of the caller's own to "
				 "limit memory, pids and cpu in (a delegated "
				 "cgroup); the policy's limits.bestEffort "
				 "runs without them");
	c->h->sandbox.no_cgroup = true;
	c->h->sandbox.limits_off = POLICY_LIMITS_ALL;
	harden_record(c, "limits", "memory, pids, cpu",
		      "off: no cgroup of the caller's own",
		      "policy: limits.bestEffort");
	if (c->h->n_changes && !c->oom)
		c->h->changes[c->h->n_changes - 1].warn = true;
	/* every limit goes; the device rules stay (harden_devices keeps
	 * them as the list of what the container's /dev holds) */
	if (lx && lx->resources) {
		struct spec_resources *r = lx->resources;
		struct spec_resources *kept = calloc(1, sizeof(*kept));

		if (!kept) {
			c->oom = true;
			return 0;
		}
		kept->devices = steal_pointer(&r->devices);
		kept->n_devices = r->n_devices;
		r->n_devices = 0;
		spec_resources_free(r);
		lx->resources = kept;
	}
	if (lx && lx->cgroups_path) {
		free(lx->cgroups_path);
		lx->cgroups_path = NULL;
	}
	return 0;
}

/* An ordinary user's corral with a delegated cgroup makes the
 * container's in it, under a name of its own (runtime/cgroup/cgroup_path.h):
 * config.json's place, which would be the host's, goes. */
static void delegated_place(struct harden_ctx *c)
{
	struct spec_linux *lx = c->spec->linux_;

	if (!lx || !lx->cgroups_path)
		return;
	harden_record(c, ".linux.cgroupsPath", lx->cgroups_path, "dropped",
		      "default: rootless, the container's cgroup is made in "
		      "the caller's delegated cgroup");
	free(lx->cgroups_path);
	lx->cgroups_path = NULL;
}

/* An ordinary user's delegated cgroup (policy.h: cgroup_delegated) that
 * lacks the controller of `limit`: its memory hierarchy, say, is not the
 * caller's. */
static bool lacks(const struct harden_ctx *c, unsigned limit)
{
	const struct policy *p = c->policy;

	return p->rootless && p->cgroup_delegated &&
	       !(p->cgroup_controllers & limit);
}

/* config.json's fields that a missing controller cannot enforce go:
 * memory's, pids', cpu's (cpus and mems, which are cpuset's, stay). */
static void drop_controller(struct spec_resources *r, unsigned limit)
{
	struct spec_cpu *cpu = r ? r->cpu : NULL;

	if (!r)
		return;
	if (limit == POLICY_LIMIT_MEMORY) {
		free(r->memory);
		r->memory = NULL;
	} else if (limit == POLICY_LIMIT_PIDS) {
		r->pids_limit = (struct spec_opt){0};
	} else if (cpu && !cpu->cpus && !cpu->mems) {
		free(cpu);
		r->cpu = NULL;
	} else if (cpu) {
		*cpu = (struct spec_cpu){.cpus = cpu->cpus, .mems = cpu->mems};
	}
}

/* A limit asked for (`asked`: by the policy, a pod sandbox's cap,
 * config.json or an annotation) whose controller the delegated cgroup
 * lacks: refused, unless the policy says limits are best-effort; then
 * config.json's fields of it go, and explain says it is off (asked or
 * not, so that hardening the result again says the same).  Nothing
 * asked and no best effort: nothing to enforce, nothing off. */
static int controller_missing(struct harden_ctx *c, unsigned limit, bool asked,
			      struct error **err)
{
	const char *name = limit == POLICY_LIMIT_MEMORY ? "memory"
			   : limit == POLICY_LIMIT_PIDS ? "pids"
							: "cpu";
	_cleanup_free_ char *off = NULL;

	if (!asked && !c->policy->limits_best_effort)
		return 0;
	if (!c->policy->limits_best_effort)
		return error_set(err, EPERM,
				 "rootless: the caller's delegated cgroup has "
				 "no %s controller to limit %s in; the "
				 "policy's limits.bestEffort runs without it",
				 name, name);
	c->h->sandbox.limits_off |= limit;
	off = harden_fmt(c,
			 "off: the caller's delegated cgroup has no %s "
			 "controller",
			 name);
	harden_record(c, "limits", name, off, "policy: limits.bestEffort");
	if (c->h->n_changes && !c->oom)
		c->h->changes[c->h->n_changes - 1].warn = true;
	drop_controller(c->spec->linux_ ? c->spec->linux_->resources : NULL,
			limit);
	return 0;
}

static const struct spec_resources *config_resources(const struct harden_ctx *c)
{
	return c->spec->linux_ ? c->spec->linux_->resources : NULL;
}

/* The memory limit, and swap set to the same value: runtime-spec's swap
 * is memory+swap, so equal means no swap at all. */
int harden_memory(struct harden_ctx *c, struct error **err)
{
	const struct policy *p = c->policy;
	struct spec_resources *r;
	struct annotation a;
	struct narrowing n;
	int64_t limit;
	bool created;

	/* Whether an unenforceable limit fails create is the policy's. */
	c->h->sandbox.limits_best_effort = p->limits_best_effort;
	c->h->sandbox.cgroup_delegated = p->rootless && p->cgroup_delegated;
	c->h->sandbox.cgroup_systemd = p->cgroup_systemd;
	if (c->h->sandbox.cgroup_delegated)
		delegated_place(c);
	if (p->rootless && !p->cgroup_delegated)
		return no_cgroup(c, err);
	if (read_annotation(c->spec, &memory_kind,
			    p->memory > 0 ? (uint64_t)p->memory : 0, &a,
			    err) < 0)
		return -1;
	if (lacks(c, POLICY_LIMIT_MEMORY))
		return controller_missing(
		    c, POLICY_LIMIT_MEMORY,
		    p->memory > 0 || pod_sandbox(c) ||
			(config_resources(c) && config_resources(c)->memory) ||
			(a.value && !a.none),
		    err);
	r = harden_resources(c);
	created = r && !r->memory;
	if (created && !(r->memory = calloc(1, sizeof(*r->memory))))
		c->oom = true;
	if (!r || !r->memory)
		return 0;
	n = (struct narrowing){
	    ".linux.resources.memory.limit",
	    &r->memory->limit,
	    p->memory,
	    HARDEN_WHY(p->memory == c->defaults->memory, "limits.memory"),
	    &a,
	    "annotation: " ANNOTATION_MEMORY,
	    render_memory};
	n.policy = role_cap(c, p->memory, POD_SANDBOX_MEMORY, &n.policy_reason);
	limit = narrow(c, &n);
	if (limit == 0 && created) {
		free(r->memory); /* nothing limits memory: leave it absent */
		r->memory = NULL;
		return 0;
	}
	if (limit > 0 && (!r->memory->swap.set || r->memory->swap.v != limit)) {
		_cleanup_free_ char *asked = render_memory(c, r->memory->swap);
		_cleanup_free_ char *applied = NULL;

		r->memory->swap = (struct spec_opt){true, limit};
		applied = render_memory(c, r->memory->swap);
		harden_record(c, ".linux.resources.memory.swap", asked, applied,
			      "default");
	}
	return 0;
}

int harden_pids(struct harden_ctx *c, struct error **err)
{
	const struct policy *p = c->policy;
	struct spec_resources *r;
	struct annotation a;
	struct narrowing n;

	if (read_annotation(c->spec, &pids_kind,
			    p->pids > 0 ? (uint64_t)p->pids : 0, &a, err) < 0)
		return -1;
	if (c->h->sandbox.no_cgroup)
		return 0;
	if (lacks(c, POLICY_LIMIT_PIDS))
		return controller_missing(
		    c, POLICY_LIMIT_PIDS,
		    p->pids > 0 || pod_sandbox(c) ||
			(config_resources(c) &&
			 config_resources(c)->pids_limit.set) ||
			(a.value && !a.none),
		    err);
	r = harden_resources(c);
	if (!r)
		return 0;
	n = (struct narrowing){
	    ".linux.resources.pids.limit",
	    &r->pids_limit,
	    p->pids,
	    HARDEN_WHY(p->pids == c->defaults->pids, "limits.pids"),
	    &a,
	    "annotation: " ANNOTATION_PIDS,
	    harden_opt};
	n.policy = role_cap(c, p->pids, POD_SANDBOX_PIDS, &n.policy_reason);
	narrow(c, &n);
	return 0;
}

/* ---- deprecated limits ----------------------------------------------- */

/* memory.kernel and memory.kernelTCP are deprecated by the runtime-spec;
 * cgroup v2 has no such limit and recent kernels ignore v1's.  runc
 * ignores them with a warning, and so does corral, whatever the policy:
 * they are dropped here, with a warning, so the runtime never sees them.
 * Dropping them loosens nothing: they could never be enforced. */
int harden_kernel_memory(struct harden_ctx *c, struct error **err)
{
	static const char *const fields[] = {
	    ".linux.resources.memory.kernel",
	    ".linux.resources.memory.kernelTCP"};
	struct spec_linux *lx = c->spec->linux_;
	struct spec_memory *m =
	    lx && lx->resources ? lx->resources->memory : NULL;

	if (!m)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		struct spec_opt *o = i == 0 ? &m->kernel : &m->kernel_tcp;
		_cleanup_free_ char *asked = NULL;

		if (!o->set)
			continue;
		asked = harden_opt(c, *o);
		harden_record(c, fields[i], asked, "dropped",
			      "deprecated by the runtime-spec: kernel memory "
			      "cannot be limited apart");
		if (c->h->n_changes && !c->oom)
			c->h->changes[c->h->n_changes - 1].warn = true;
		*o = (struct spec_opt){0};
	}
	return 0;
}

/* net_cls.classid and net_prio.ifpriomap tag the container's packets for
 * the host's traffic control and firewall rules (a classid is what
 * `-m cgroup --cgroup` and tc's cgroup classifier match): how the host
 * treats traffic is not the container's to choose.  Its own packets stay
 * in its own network namespace, where the tags do nothing, so dropping
 * them loosens nothing; the egress helper's are the host's to tag. */
int harden_net_classes(struct harden_ctx *c, struct error **err)
{
	struct spec_linux *lx = c->spec->linux_;
	struct spec_resources *r = lx ? lx->resources : NULL;
	struct spec_network *n = r ? r->network : NULL;
	static const char rule[] =
	    "default: how the host classifies traffic is not the "
	    "container's to choose";

	(void)err;
	if (!n)
		return 0;
	if (n->class_id.set) {
		_cleanup_free_ char *asked = harden_opt(c, n->class_id);

		harden_record(c, ".linux.resources.network.classID", asked,
			      "dropped", rule);
	}
	if (n->n_priorities) {
		_cleanup_free_ char *asked =
		    harden_fmt(c, "%zu interface(s)", n->n_priorities);

		harden_record(c, ".linux.resources.network.priorities",
			      asked ? asked : "?", "dropped", rule);
	}
	spec_network_free(n);
	r->network = NULL;
	return 0;
}

/* ---- cpu ------------------------------------------------------------- */

/* config.json sets something of the cpu controller's. */
static bool config_cpu(const struct harden_ctx *c)
{
	const struct spec_resources *r = config_resources(c);
	const struct spec_cpu *cpu = r ? r->cpu : NULL;

	return cpu && (cpu->shares.set || cpu->quota.set || cpu->burst.set ||
		       cpu->period.set || cpu->realtime_runtime.set ||
		       cpu->realtime_period.set || cpu->idle.set);
}

/* The policy's share of a CPU (quota/period) caps config.json's; config's
 * own quota stays when it is already the smaller share. */
int harden_cpu(struct harden_ctx *c, struct error **err)
{
	const struct policy *p = c->policy;
	int64_t pq = p->cpu_quota;
	int64_t pp = p->cpu_period ? (int64_t)p->cpu_period : SPEC_CPU_PERIOD;
	const char *reason =
	    HARDEN_WHY(p->cpu_quota == c->defaults->cpu_quota, "limits.cpus");
	struct spec_resources *r;
	struct spec_cpu *cpu;
	int64_t cq, cp;

	if (pod_sandbox(c) && !c->h->sandbox.egress_on &&
	    (pq <= 0 || (__int128)pq * SPEC_CPU_PERIOD >
			    (__int128)POD_SANDBOX_CPU_QUOTA * pp)) {
		pq = POD_SANDBOX_CPU_QUOTA;
		pp = SPEC_CPU_PERIOD;
		reason = ROLE_REASON;
	}
	if (c->h->sandbox.no_cgroup)
		return 0;
	if (lacks(c, POLICY_LIMIT_CPU))
		return controller_missing(c, POLICY_LIMIT_CPU,
					  pq > 0 || config_cpu(c), err);
	if (pq <= 0)
		return 0;
	r = harden_resources(c);
	if (r && !r->cpu && !(r->cpu = calloc(1, sizeof(*r->cpu))))
		c->oom = true;
	if (!r || !r->cpu)
		return 0;
	cpu = r->cpu;
	cq = cpu->quota.set && cpu->quota.v > 0 ? cpu->quota.v : 0;
	cp = cpu->period.set && cpu->period.v > 0 ? cpu->period.v
						  : SPEC_CPU_PERIOD;
	if (cq > 0 && (__int128)cq * pp <= (__int128)pq * cp)
		return 0;
	set_opt(c, ".linux.resources.cpu.quota", &cpu->quota, pq, reason);
	set_opt(c, ".linux.resources.cpu.period", &cpu->period, pp, reason);
	return 0;
}
