/* The guarantees of harden() (spec/harden/harden.h) as checks over one case:
 * a config, a policy and what harden() made of them.  Each check returns
 * NULL when it holds, or a sentence saying what broke, so a fuzz target
 * can abort on it and a unit test can count it.
 *
 * The rules are restated here from the sandbox table (README.md,
 * docs/threat-model.md), not called
 * from spec/: an oracle that shares the code under test shares its bugs.
 * The exceptions are the parsers of annotation values (units.h), which
 * decide what an annotation asked, not what harden() gave.
 */
#ifndef CORRAL_HARDEN_INVARIANTS_H
#define CORRAL_HARDEN_INVARIANTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harden.h"
#include "parse_internal.h"
#include "policy.h"
#include "spec.h"
#include "units.h"
#include "util.h"

struct hinv_case {
	const struct spec *config;
	const struct policy *policy;
	const struct hardened *h;
};

/* ---- small helpers --------------------------------------------------- */

static inline bool hinv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static inline const char *hinv_annotation(const struct spec *s, const char *key)
{
	for (size_t i = 0; i < s->n_annotations; i++)
		if (strcmp(s->annotations[i].key, key) == 0)
			return s->annotations[i].value;
	return NULL;
}

/* An annotation's amount; 0 when absent or "none". */
static inline uint64_t hinv_amount(const struct spec *s, const char *key,
				   bool size)
{
	const char *v = hinv_annotation(s, key);
	uint64_t out = 0;

	if (!v || strcmp(v, "none") == 0)
		return 0;
	if (size ? !units_parse_size(v, INT64_MAX, &out)
		 : !units_parse_count(v, INT64_MAX, &out))
		return 0;
	return out;
}

/* path is prefix or below it, on whole components; "/" holds all. */
static inline bool hinv_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0)
		return path[0] == '/';
	return strncmp(path, prefix, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

static inline bool hinv_clean(const char *p)
{
	size_t n = strlen(p);

	return p[0] == '/' && !strstr(p, "//") && !strstr(p, "/./") &&
	       !strstr(p, "/../") &&
	       !(n >= 2 && strcmp(p + n - 2, "/.") == 0) &&
	       !(n >= 3 && strcmp(p + n - 3, "/..") == 0) &&
	       (n == 1 || p[n - 1] != '/');
}

static inline char **hinv_caps(const struct spec_caps *caps, size_t i,
			       size_t *n)
{
	const struct json_strv_field *f = &spec_caps_fields[i];

	*n = caps ? *(const size_t *)((const char *)caps + f->count) : 0;
	return caps ? *(char **const *)((const char *)caps + f->list) : NULL;
}

/* ---- privileges ------------------------------------------------------ */

static inline const char *hinv_process(const struct hinv_case *k)
{
	const struct spec_process *c = k->config->process;
	const struct spec_process *e = k->h->spec->process;
	const struct policy *p = k->policy;
	bool core = false;

	if (!c || !e)
		return c || e ? "a process appeared or vanished" : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(spec_caps_fields); i++) {
		size_t en, cn;
		char **ev = hinv_caps(e->caps, i, &en);
		char **cv = hinv_caps(c->caps, i, &cn);

		for (size_t j = 0; j < en; j++)
			if (!hinv_has(cv, cn, ev[j]) ||
			    !hinv_has(p->caps_keep, p->n_caps_keep, ev[j]))
				return "a capability not in config and policy";
	}
	for (size_t i = 0; i < e->n_env; i++) {
		size_t len = strcspn(e->env[i], "=");
		bool allowed = false;

		for (size_t j = 0; j < p->n_env_allow; j++)
			allowed |=
			    strlen(p->env_allow[j]) == len &&
			    strncmp(p->env_allow[j], e->env[i], len) == 0;
		if (!allowed || !hinv_has(c->env, c->n_env, e->env[i]))
			return "an env entry not in config and allowlist";
	}
	/* corral's own user namespace: the ids are the container's own, in
	 * its slice (hinv_host checks the mapping), root of it included */
	if (k->h->sandbox.userns_auto &&
	    (e->user.uid >= POLICY_SLICE || e->user.gid >= POLICY_SLICE))
		return "an id beyond the container's user namespace";
	if (!k->h->sandbox.userns_auto && !p->allow_root &&
	    (e->user.uid == 0 || e->user.gid == 0))
		return "uid or gid 0 without allowRoot";
	if ((c->user.uid != 0 && e->user.uid != c->user.uid) ||
	    (c->user.gid != 0 && e->user.gid != c->user.gid))
		return "a non-root uid or gid of config.json changed";
	if (!k->h->sandbox.userns_auto && !p->keep_groups &&
	    e->user.n_additional_gids)
		return "supplementary groups without keepGroups";
	for (size_t i = 0; i < e->user.n_additional_gids; i++) {
		bool in_config = false;
		uint32_t g = e->user.additional_gids[i];

		for (size_t j = 0; j < c->user.n_additional_gids; j++)
			in_config |= c->user.additional_gids[j] == g;
		if (!in_config ||
		    (k->h->sandbox.userns_auto ? g >= POLICY_SLICE
					       : !p->allow_root && g == 0))
			return "a supplementary group not allowed";
	}
	if (!e->no_new_privileges)
		return "no_new_privs off";
	for (size_t i = 0; i < e->n_rlimits; i++)
		core |= strcmp(e->rlimits[i].type, "RLIMIT_CORE") == 0;
	return core ? NULL : "no RLIMIT_CORE";
}

#include "harden_invariants_mounts.h"

/* ---- limits ---------------------------------------------------------- */

/* v is set, positive and at most every positive bound. */
static inline bool hinv_within(struct spec_opt v, int64_t a, int64_t b,
			       uint64_t c)
{
	if (a <= 0 && b <= 0 && c == 0)
		return true;
	return v.set && v.v > 0 && (a <= 0 || v.v <= a) &&
	       (b <= 0 || v.v <= b) && (c == 0 || (uint64_t)v.v <= c);
}

static inline const char *hinv_limits(const struct hinv_case *k)
{
	const struct spec_linux *clx = k->config->linux_;
	const struct spec_resources *c = clx ? clx->resources : NULL;
	const struct spec_resources *e =
	    k->h->spec->linux_ ? k->h->spec->linux_->resources : NULL;
	const struct policy *p = k->policy;
	const struct spec_memory none = {0};
	const struct spec_memory *cm = c && c->memory ? c->memory : &none;
	const struct spec_memory *em = e && e->memory ? e->memory : &none;
	uint64_t wall = k->h->sandbox.wall_clock;
	uint64_t timeout = hinv_amount(k->config, ANNOTATION_TIMEOUT, false);
	int64_t pp = p->cpu_period ? (int64_t)p->cpu_period : 100000;
	unsigned lacking;

	/* an ordinary user's corral with no cgroup of its own limits nothing
	 * but the wall clock, and only where the policy allows that */
	if (k->h->sandbox.no_cgroup) {
		if (!p->rootless || p->cgroup_delegated ||
		    !p->limits_best_effort ||
		    k->h->sandbox.limits_off != POLICY_LIMITS_ALL)
			return "limits off without rootless best effort";
		if (e && (e->memory || e->pids_limit.set || e->cpu))
			return "limits off, limits kept";
		if (k->h->sandbox.role == ROLE_POD_SANDBOX)
			return wall ? "a wall clock on a pod sandbox" : NULL;
		if ((p->wall_clock && (!wall || wall > p->wall_clock)) ||
		    (timeout && (!wall || wall > timeout)))
			return "wall clock wider than policy or annotation";
		return NULL;
	}
	if (!e)
		return "no resources in the effective spec";
	/* a limit whose controller an ordinary user's delegated cgroup
	 * lacks: refused, or off under best effort with nothing of it left
	 * in the effective spec; any other is enforced */
	lacking = p->rootless && p->cgroup_delegated
		      ? POLICY_LIMITS_ALL & ~p->cgroup_controllers
		      : 0;
	if (k->h->sandbox.limits_off & ~lacking ||
	    (k->h->sandbox.limits_off && !p->limits_best_effort))
		return "a limit off that the cgroup can enforce";
	if ((lacking & POLICY_LIMIT_MEMORY && e->memory) ||
	    (lacking & POLICY_LIMIT_PIDS && e->pids_limit.set) ||
	    (lacking & POLICY_LIMIT_CPU && e->cpu &&
	     (e->cpu->quota.set || e->cpu->shares.set || e->cpu->period.set)))
		return "a limit kept without its controller";
	if (!(lacking & POLICY_LIMIT_MEMORY) &&
	    !hinv_within(em->limit, cm->limit.set ? cm->limit.v : 0, p->memory,
			 hinv_amount(k->config, ANNOTATION_MEMORY, true)))
		return "memory wider than config, policy or annotation";
	if (em->limit.set && em->limit.v > 0 &&
	    (!em->swap.set || em->swap.v != em->limit.v))
		return "swap allowed beside the memory limit";
	if (!(lacking & POLICY_LIMIT_PIDS) &&
	    !hinv_within(e->pids_limit,
			 c && c->pids_limit.set ? c->pids_limit.v : 0, p->pids,
			 hinv_amount(k->config, ANNOTATION_PIDS, false)))
		return "pids wider than config, policy or annotation";
	if (p->cpu_quota > 0 && !(lacking & POLICY_LIMIT_CPU)) {
		const struct spec_cpu *cpu = e->cpu;
		int64_t period = cpu && cpu->period.set && cpu->period.v > 0
				     ? cpu->period.v
				     : 100000;

		if (!cpu || !cpu->quota.set || cpu->quota.v <= 0 ||
		    (__int128)cpu->quota.v * pp >
			(__int128)p->cpu_quota * period)
			return "cpu wider than the policy";
	}
	/* A pod sandbox: no wall clock, and limits that leave a pause
	 * process nothing else to do (those its cgroup can enforce). */
	if (k->h->sandbox.role == ROLE_POD_SANDBOX) {
		const struct spec_cpu *cpu = e->cpu;

		if (!(lacking & POLICY_LIMIT_MEMORY) &&
		    (!em->limit.set || em->limit.v <= 0 ||
		     em->limit.v > (INT64_C(16) << 20)))
			return "a pod sandbox with more than 16 MiB";
		if (!(lacking & POLICY_LIMIT_PIDS) &&
		    (!e->pids_limit.set || e->pids_limit.v <= 0 ||
		     e->pids_limit.v > 2))
			return "a pod sandbox with more than 2 pids";
		if (!(lacking & POLICY_LIMIT_CPU) &&
		    (!cpu || !cpu->quota.set || cpu->quota.v <= 0 ||
		     !cpu->period.set || cpu->period.v <= 0 ||
		     (__int128)cpu->quota.v * 100000 >
			 (__int128)5000 * cpu->period.v))
			return "a pod sandbox with more than 0.05 CPU";
		return wall ? "a wall clock on a pod sandbox" : NULL;
	}
	if ((p->wall_clock && (!wall || wall > p->wall_clock)) ||
	    (timeout && (!wall || wall > timeout)))
		return "wall clock wider than policy or annotation";
	return NULL;
}

/* ---- kernel surface -------------------------------------------------- */

static inline bool hinv_sysctl_allowed(const struct policy *p, const char *key)
{
	for (size_t i = 0; i < p->n_sysctl_allow; i++) {
		const char *a = p->sysctl_allow[i];
		size_t n = strlen(a);

		if (strcmp(a, key) == 0 ||
		    (n >= 2 && strcmp(a + n - 2, ".*") == 0 &&
		     strncmp(a, key, n - 1) == 0 && key[n - 1]))
			return true;
	}
	return false;
}

/* The nodes the runtime makes anyway (type c). */
static const struct {
	const char *path;
	int64_t major, minor;
} hinv_std_nodes[] = {
    {"/dev/null", 1, 3},   {"/dev/zero", 1, 5},	   {"/dev/full", 1, 7},
    {"/dev/random", 1, 8}, {"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0},
    {"/dev/ptmx", 5, 2},
};

static inline const char *hinv_devices(const struct hinv_case *k)
{
	const struct spec_linux *c = k->config->linux_, *e = k->h->spec->linux_;
	const struct policy *p = k->policy;
	const struct spec_resources *r = e->resources;

	for (size_t i = 0; i < e->n_devices; i++) {
		const struct spec_device *d = &e->devices[i];
		bool in_config = false, allowed = false;

		for (size_t j = 0; c && j < c->n_devices; j++)
			in_config |= strcmp(c->devices[j].path, d->path) == 0 &&
				     c->devices[j].type == d->type &&
				     c->devices[j].major == d->major &&
				     c->devices[j].minor == d->minor;
		for (size_t j = 0; j < p->n_devices; j++)
			allowed |= strcmp(p->devices[j].path, d->path) == 0 &&
				   p->devices[j].type == d->type &&
				   p->devices[j].major == d->major &&
				   p->devices[j].minor == d->minor;
		for (size_t j = 0; j < ARRAY_SIZE(hinv_std_nodes); j++)
			allowed |=
			    strcmp(hinv_std_nodes[j].path, d->path) == 0 &&
			    d->type == 'c' &&
			    hinv_std_nodes[j].major == d->major &&
			    hinv_std_nodes[j].minor == d->minor;
		if (!in_config || !allowed)
			return "a device node not in config and allowed";
	}
	if (!r || r->n_devices == 0 || r->devices[0].allow ||
	    r->devices[0].type != 'a' || r->devices[0].major.set ||
	    r->devices[0].minor.set)
		return "the device cgroup does not start by denying all";
	for (size_t i = 1; i < r->n_devices; i++) {
		const struct spec_device_rule *d = &r->devices[i];
		bool allowed;

		if (!d->allow)
			continue;
		if (d->type == 'a' || !d->major.set)
			return "a device cgroup rule allows a wildcard";
		/* the ptys, every minor, and the console */
		allowed =
		    d->type == 'c' &&
		    ((d->major.v == 136 && !d->minor.set) ||
		     (d->major.v == 5 && d->minor.set && d->minor.v == 1));
		for (size_t j = 0; !allowed && j < ARRAY_SIZE(hinv_std_nodes);
		     j++)
			allowed = d->type == 'c' && d->minor.set &&
				  hinv_std_nodes[j].major == d->major.v &&
				  hinv_std_nodes[j].minor == d->minor.v;
		for (size_t j = 0; !allowed && j < p->n_devices; j++)
			allowed = d->minor.set &&
				  p->devices[j].type == d->type &&
				  p->devices[j].major == d->major.v &&
				  p->devices[j].minor == d->minor.v;
		if (!allowed)
			return "a device cgroup rule allows more";
	}
	return NULL;
}

static inline const char *hinv_namespaces(const struct hinv_case *k)
{
	static const enum spec_ns_type required[] = {
	    NS_PID, NS_NETWORK, NS_MOUNT, NS_IPC, NS_UTS, NS_CGROUP};
	const struct spec_linux *e = k->h->spec->linux_;
	unsigned count[NS_TYPE_COUNT] = {0};

	for (size_t i = 0; i < e->n_namespaces; i++) {
		const struct spec_namespace *ns = &e->namespaces[i];

		count[ns->type]++;
		if (ns->type == NS_TIME)
			return "a time namespace";
		if (ns->path &&
		    (ns->type == NS_MOUNT || ns->type == NS_CGROUP ||
		     (ns->type == NS_NETWORK &&
		      k->policy->network == POLICY_NET_LOOPBACK)))
			return "a namespace path joined that must be new";
	}
	for (size_t t = 0; t < NS_TYPE_COUNT; t++)
		if (count[t] > 1)
			return "a namespace listed twice";
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		if (count[required[i]] != 1)
			return "a required namespace missing";
	return NULL;
}

static inline const char *hinv_kernel(const struct hinv_case *k)
{
	const struct spec_linux *c = k->config->linux_, *e = k->h->spec->linux_;
	const char *why;

	if (!e)
		return "no linux object in the effective spec";
	for (size_t i = 0; i < e->n_sysctl; i++) {
		/* the one sysctl harden adds: low ports in the loopback-only
		 * namespace corral makes */
		bool in_config =
		    k->h->sandbox.loopback_only &&
		    strcmp(e->sysctl[i].key,
			   "net.ipv4.ip_unprivileged_port_start") == 0 &&
		    strcmp(e->sysctl[i].value, "0") == 0;

		for (size_t j = 0; c && j < c->n_sysctl; j++)
			in_config |=
			    strcmp(c->sysctl[j].key, e->sysctl[i].key) == 0 &&
			    strcmp(c->sysctl[j].value, e->sysctl[i].value) == 0;
		if (!in_config ||
		    !hinv_sysctl_allowed(k->policy, e->sysctl[i].key))
			return "a sysctl not in config and allowlist";
	}
	for (size_t i = 0; c && i < c->n_masked_paths; i++)
		if (!hinv_has(e->masked_paths, e->n_masked_paths,
			      c->masked_paths[i]))
			return "a masked path of config.json unmasked";
	for (size_t i = 0; c && i < c->n_readonly_paths; i++)
		if (!hinv_has(e->readonly_paths, e->n_readonly_paths,
			      c->readonly_paths[i]))
			return "a read-only path of config.json writable";
	if (!hinv_has(e->masked_paths, e->n_masked_paths, "/proc/kcore") ||
	    !hinv_has(e->readonly_paths, e->n_readonly_paths, "/proc/sys"))
		return "the baseline masks missing";
	if (e->personality && (!e->personality->domain ||
			       strcmp(e->personality->domain, "LINUX") != 0))
		return "another personality";
	why = hinv_devices(k);
	return why ? why : hinv_namespaces(k);
}

/* ---- the sandbox settings -------------------------------------------- */

static inline const char *hinv_settings(const struct hinv_case *k)
{
	const struct sandbox *s = &k->h->sandbox;
	const struct policy *p = k->policy;

	if (!s->enforced)
		return "the sandbox is off under a sandbox policy";
	if (s->loopback_only != (p->network == POLICY_NET_LOOPBACK) ||
	    s->rootfs != p->rootfs || s->scratch_size != p->scratch_size ||
	    s->limits_best_effort != p->limits_best_effort)
		return "sandbox settings other than the policy's";
	if (s->n_syscalls_allow != p->n_syscalls_allow)
		return "other extra syscalls than the policy's";
	for (size_t i = 0; i < s->n_syscalls_allow; i++)
		if (strcmp(s->syscalls_allow[i], p->syscalls_allow[i]) != 0)
			return "other extra syscalls than the policy's";
	if (p->rootfs == POLICY_ROOTFS_STRICT && k->h->spec->root &&
	    !k->h->spec->root->readonly)
		return "a writable root in strict mode";
	return NULL;
}

/* (b) The effective spec is never wider than config.json nor the policy
 * nor a narrowing annotation.  Under a permissive policy: config.json as
 * written, the sandbox off. */
static inline const char *hinv_never_wider(const struct hinv_case *k)
{
	const char *(*const checks[])(const struct hinv_case *) = {
	    hinv_settings, hinv_process, hinv_mounts,
	    hinv_kernel,   hinv_limits,	 hinv_host};

	if (k->policy->mode == POLICY_PERMISSIVE)
		return k->h->sandbox.enforced ? "enforced under permissive"
					      : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
		const char *why = checks[i](k);

		if (why)
			return why;
	}
	return NULL;
}

/* ---- (a) idempotence ------------------------------------------------- */

static inline bool hinv_same_sandbox(const struct sandbox *a,
				     const struct sandbox *b)
{
	if (a->enforced != b->enforced || a->role != b->role ||
	    a->loopback_only != b->loopback_only || a->rootfs != b->rootfs ||
	    a->scratch_size != b->scratch_size ||
	    a->wall_clock != b->wall_clock ||
	    a->limits_best_effort != b->limits_best_effort ||
	    a->n_syscalls_allow != b->n_syscalls_allow ||
	    a->userns_auto != b->userns_auto ||
	    a->userns_uid != b->userns_uid || a->userns_gid != b->userns_gid ||
	    a->no_cgroup != b->no_cgroup || a->rootless != b->rootless ||
	    a->rootless_single != b->rootless_single ||
	    a->rootless_nested != b->rootless_nested ||
	    a->cgroup_delegated != b->cgroup_delegated ||
	    a->limits_off != b->limits_off ||
	    a->no_device_cgroup != b->no_device_cgroup)
		return false;
	for (size_t i = 0; i < a->n_syscalls_allow; i++)
		if (strcmp(a->syscalls_allow[i], b->syscalls_allow[i]) != 0)
			return false;
	return true;
}

/* Hardening the effective spec again with the same policy succeeds,
 * gives the same text, records no change to a config.json field ("."
 * paths; sandbox.* settings are reported again) and the same sandbox.
 * *detail (heap, caller frees) names the offending change or texts. */
static inline const char *hinv_idempotent(const struct hinv_case *k,
					  char **detail)
{
	struct error *err = NULL;
	struct hardened *h2 = NULL;
	char *t1 = NULL, *t2 = NULL;
	const char *why = NULL;

	*detail = NULL;
	if (harden(k->h->spec, k->policy, NULL, &h2, &err) < 0) {
		*detail = err && err->msg ? strdup(err->msg) : NULL;
		error_free(err);
		return "the effective spec does not harden again";
	}
	if (spec_emit(k->h->spec, &t1, NULL, &err) < 0 ||
	    spec_emit(h2->spec, &t2, NULL, &err) < 0) {
		why = "spec_emit failed";
	} else if (strcmp(t1, t2) != 0) {
		why = "the second run changed the spec";
		if (asprintf(detail, "%s\n---\n%s", t1, t2) < 0)
			*detail = NULL;
	} else if (!hinv_same_sandbox(&k->h->sandbox, &h2->sandbox)) {
		why = "the second run gave other sandbox settings";
	}
	for (size_t i = 0; !why && i < h2->n_changes; i++) {
		if (h2->changes[i].field[0] != '.')
			continue;
		why = "the second run recorded a change";
		if (asprintf(detail, "%s: %s -> %s", h2->changes[i].field,
			     h2->changes[i].asked, h2->changes[i].applied) < 0)
			*detail = NULL;
	}
	error_free(err);
	free(t1);
	free(t2);
	hardened_free(h2);
	return why;
}

#endif
