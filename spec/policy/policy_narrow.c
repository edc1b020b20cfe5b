/* policy_narrow(): an ordinary user's policy under the system's
 * (policy.h).  The system file is the administrator's ceiling: each key
 * of the result is the narrower of the two, so a user's file can take
 * away, never add.  Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "util.h"

static bool has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* path is dir itself or below it */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* Keep the entries of *v that the user's list holds too. */
static void intersect(char ***v, size_t *n, char *const *u, size_t nu)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		if (has(u, nu, (*v)[i]))
			(*v)[k++] = (*v)[i];
		else
			free((*v)[i]);
	}
	*n = k;
	if (*v)
		(*v)[k] = NULL;
}

/* The smaller limit, where 0 means none (the widest). */
static int64_t min_limit(int64_t a, int64_t b)
{
	if (a <= 0)
		return b;
	if (b <= 0)
		return a;
	return a < b ? a : b;
}

/* Network: loopback only, then named hosts, then the engine's. */
static int net_rank(const struct policy *p)
{
	return p->network == POLICY_NET_LOOPBACK ? 0
	       : p->network == POLICY_NET_EGRESS ? 1
						 : 2;
}

static bool narrow_network(struct policy *s, const struct policy *u)
{
	char **copy;

	if (net_rank(u) > net_rank(s))
		return true;
	if (net_rank(u) == 1 && net_rank(s) == 1) {
		intersect(&s->egress_allow, &s->n_egress_allow, u->egress_allow,
			  u->n_egress_allow);
		return true;
	}
	if (net_rank(u) == net_rank(s))
		return true;
	/* the user's is narrower: take it whole */
	copy = calloc(u->n_egress_allow + 1, sizeof(*copy));
	if (!copy)
		return false;
	for (size_t i = 0; i < u->n_egress_allow; i++)
		if (!(copy[i] = strdup(u->egress_allow[i]))) {
			for (size_t j = 0; j < i; j++)
				free(copy[j]);
			free(copy);
			return false;
		}
	for (size_t i = 0; i < s->n_egress_allow; i++)
		free(s->egress_allow[i]);
	free(s->egress_allow);
	s->egress_allow = copy;
	s->n_egress_allow = u->n_egress_allow;
	s->network = u->network;
	return true;
}

/* A system mounts entry stays where a user's entry covers it: the
 * narrower of the two directories, rw and followLinks only if both. */
static bool narrow_mounts(struct policy *s, const struct policy *u)
{
	struct policy_mount *out =
	    calloc(s->n_mounts * (u->n_mounts + 1) + 1, sizeof(*out));
	size_t k = 0;

	if (!out)
		return false;
	for (size_t i = 0; i < s->n_mounts; i++)
		for (size_t j = 0; j < u->n_mounts; j++) {
			const struct policy_mount *a = &s->mounts[i],
						  *b = &u->mounts[j];
			const char *src =
			    below(b->source, a->source)	  ? b->source
			    : below(a->source, b->source) ? a->source
							  : NULL;

			if (!src)
				continue;
			out[k] = (struct policy_mount){
			    .source = strdup(src),
			    .rw = a->rw && b->rw,
			    .follow_links = a->follow_links && b->follow_links};
			if (!out[k++].source)
				goto oom;
		}
	for (size_t i = 0; i < s->n_mounts; i++)
		free(s->mounts[i].source);
	free(s->mounts);
	s->mounts = out;
	s->n_mounts = k;
	return true;
oom:
	for (size_t i = 0; i < k; i++)
		free(out[i].source);
	free(out);
	return false;
}

static bool same_device(const struct policy_device *a,
			const struct policy_device *b)
{
	return strcmp(a->path, b->path) == 0 && a->type == b->type &&
	       a->major == b->major && a->minor == b->minor;
}

/* Devices both name, with the access both give. */
static bool narrow_devices(struct policy *s, const struct policy *u)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_devices; i++) {
		struct policy_device *d = &s->devices[i];
		const struct policy_device *m = NULL;

		for (size_t j = 0; j < u->n_devices && !m; j++)
			if (same_device(d, &u->devices[j]))
				m = &u->devices[j];
		if (!m) {
			free(d->path);
			free(d->access);
			continue;
		}
		if (d->access || m->access) {
			const char *x = d->access ? d->access : "rw";
			const char *y = m->access ? m->access : "rw";
			char both[4] = {0};
			size_t n = 0;

			for (const char *c = "rwm"; *c; c++)
				if (strchr(x, *c) && strchr(y, *c))
					both[n++] = *c;
			free(d->access);
			if (!(d->access = strdup(both)))
				return false;
		}
		s->devices[k++] = *d;
	}
	s->n_devices = k;
	return true;
}

static bool same_hook(const struct policy_hook *a, const struct policy_hook *b)
{
	if (strcmp(a->path, b->path) != 0 || a->has_args != b->has_args ||
	    a->n_args != b->n_args)
		return false;
	for (size_t i = 0; i < a->n_args; i++)
		if (strcmp(a->args[i], b->args[i]) != 0)
			return false;
	return true;
}

static void narrow_hooks(struct policy *s, const struct policy *u)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_hooks; i++) {
		bool kept = false;

		for (size_t j = 0; j < u->n_hooks && !kept; j++)
			kept = same_hook(&s->hooks[i], &u->hooks[j]);
		if (kept) {
			s->hooks[k++] = s->hooks[i];
			continue;
		}
		free(s->hooks[i].path);
		for (size_t a = 0; a < s->hooks[i].n_args; a++)
			free(s->hooks[i].args[a]);
		free(s->hooks[i].args);
	}
	s->n_hooks = k;
}

/* Engine directories: a system one stays only where a user's covers it,
 * and then the narrower path. */
static bool narrow_dirs(char ***v, size_t *n, char *const *u, size_t nu)
{
	char **out = calloc(*n * (nu + 1) + 1, sizeof(*out));
	size_t k = 0;

	if (!out)
		return false;
	for (size_t i = 0; i < *n; i++)
		for (size_t j = 0; j < nu; j++) {
			const char *d = below(u[j], (*v)[i])   ? u[j]
					: below((*v)[i], u[j]) ? (*v)[i]
							       : NULL;

			if (d && !has(out, k, d) && !(out[k++] = strdup(d))) {
				for (size_t x = 0; x + 1 < k; x++)
					free(out[x]);
				free(out);
				return false;
			}
		}
	for (size_t i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = out;
	*n = k;
	return true;
}

/* The privileged groups of either. */
static bool union_groups(struct policy *s, const struct policy *u)
{
	for (size_t i = 0; i < u->n_privileged_groups; i++) {
		char **grown;

		if (has(s->privileged_groups, s->n_privileged_groups,
			u->privileged_groups[i]))
			continue;
		grown = realloc(s->privileged_groups,
				(s->n_privileged_groups + 2) * sizeof(*grown));
		if (!grown)
			return false;
		s->privileged_groups = grown;
		grown[s->n_privileged_groups] = strdup(u->privileged_groups[i]);
		if (!grown[s->n_privileged_groups])
			return false;
		grown[++s->n_privileged_groups] = NULL;
	}
	return true;
}

int policy_narrow(struct policy *s, const struct policy *u, struct error **err)
{
	int64_t su, uu;

	if (u->mode == POLICY_SANDBOX)
		s->mode = POLICY_SANDBOX;
	if (u->rootfs == POLICY_ROOTFS_STRICT)
		s->rootfs = POLICY_ROOTFS_STRICT;
	if (u->scratch_size < s->scratch_size)
		s->scratch_size = u->scratch_size;
	intersect(&s->env_allow, &s->n_env_allow, u->env_allow, u->n_env_allow);
	s->allow_root = s->allow_root && u->allow_root;
	s->keep_groups = s->keep_groups && u->keep_groups;
	intersect(&s->caps_keep, &s->n_caps_keep, u->caps_keep, u->n_caps_keep);
	intersect(&s->syscalls_allow, &s->n_syscalls_allow, u->syscalls_allow,
		  u->n_syscalls_allow);
	intersect(&s->sysctl_allow, &s->n_sysctl_allow, u->sysctl_allow,
		  u->n_sysctl_allow);
	intersect(&s->volume_kinds, &s->n_volume_kinds, u->volume_kinds,
		  u->n_volume_kinds);
	intersect(&s->volume_secrets, &s->n_volume_secrets, u->volume_secrets,
		  u->n_volume_secrets);
	s->wall_clock =
	    (uint64_t)min_limit((int64_t)s->wall_clock, (int64_t)u->wall_clock);
	s->memory = min_limit(s->memory, u->memory);
	s->pids = min_limit(s->pids, u->pids);
	/* the smaller share of a CPU, compared per microsecond of period */
	su = s->cpu_quota > 0 ? s->cpu_quota * (int64_t)u->cpu_period : 0;
	uu = u->cpu_quota > 0 ? u->cpu_quota * (int64_t)s->cpu_period : 0;
	if (uu > 0 && (su == 0 || uu < su)) {
		s->cpu_quota = u->cpu_quota;
		s->cpu_period = u->cpu_period;
	}
	s->limits_best_effort = s->limits_best_effort && u->limits_best_effort;
	/* a refusal is the narrower: either file's refusal stands */
	for (size_t i = 0; i < POLICY_REFUSALS; i++)
		s->refuse[i] = s->refuse[i] || u->refuse[i];
	s->workspace_own = s->workspace_own && u->workspace_own;
	narrow_hooks(s, u);
	if (!narrow_network(s, u) || !narrow_mounts(s, u) ||
	    !narrow_devices(s, u) ||
	    !narrow_dirs(&s->engine_dirs, &s->n_engine_dirs, u->engine_dirs,
			 u->n_engine_dirs) ||
	    !union_groups(s, u))
		return error_set(err, ENOMEM, "policy: out of memory");
	/* the administrator's report directory stays where it is set */
	if (!s->report_dir && u->report_dir &&
	    !(s->report_dir = strdup(u->report_dir)))
		return error_set(err, ENOMEM, "policy: out of memory");
	return 0;
}
