/* The view `corral explain` renders (explain_view.h), built from the
 * effective spec, the sandbox settings and the change list, nothing
 * else. */
#include "explain_view.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden_internal.h"
#include "parse_internal.h"
#include "strfmt.h"
#include "units.h"
#include "util.h"

static void push(struct view *v, char ***list, size_t *n, char *s)
{
	if (!s || !harden_strv_push(list, n, s))
		v->oom = true;
	free(s);
}

static char *printf_str(struct view *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static char *printf_str(struct view *v, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strfmt_va(&v->oom, fmt, ap);
	va_end(ap);
	return s;
}

static bool has_option(const struct spec_mount *m, const char *o)
{
	return harden_strv_has(m->options, m->n_options, o);
}

static bool is_bind(const struct spec_mount *m)
{
	return (m->type && strcmp(m->type, "bind") == 0) ||
	       has_option(m, "bind") || has_option(m, "rbind");
}

/* A tmpfs size= as "64 MiB" (tmpfs takes k, m and g suffixes), or as
 * written when it is something else ("50%"). */
static char *size_option(struct view *v, const struct spec_mount *m)
{
	static const char suffixes[] = "kmg";
	const char *s = NULL;
	char *end = NULL;
	unsigned long long n;

	for (size_t i = 0; !s && i < m->n_options; i++)
		if (strncmp(m->options[i], "size=", 5) == 0)
			s = m->options[i] + 5;
	if (!s)
		return printf_str(v, "no size cap");
	n = strtoull(s, &end, 10);
	if (end != s && s[0] != '-') {
		const char *k = end[0] ? strchr(suffixes, end[0] | 0x20) : NULL;
		unsigned shift = k ? 10 * (unsigned)(k - suffixes + 1) : 0;

		if ((!end[0] || (k && !end[1])) && n <= (UINT64_MAX >> shift))
			return units_size_string((uint64_t)n << shift, true);
	}
	return printf_str(v, "size=%s", s);
}

/* ---- building the view ----------------------------------------------- */

static void view_root(struct view *v)
{
	const struct sandbox *sb = &v->h->sandbox;
	const struct spec_root *root = v->h->spec->root;
	_cleanup_free_ char *scratch =
	    units_size_string(sb->scratch_size, true);

	v->root_readonly = (root && root->readonly) ||
			   (sb->enforced && sb->rootfs == POLICY_ROOTFS_STRICT);
	if (!sb->enforced)
		v->root = strdup(v->root_readonly
				     ? "the bundle rootfs, read-only"
				     : "the bundle rootfs, writable in place "
				       "(writes reach the host)");
	else if (sb->rootfs == POLICY_ROOTFS_STRICT)
		v->root = printf_str(v,
				     "read-only image; scratch only at "
				     "/tmp (%s)",
				     scratch ? scratch : "?");
	else if (v->root_readonly)
		v->root = strdup("read-only image (\"/\" read-only)");
	else
		v->root = printf_str(v, "read-only image + %s scratch overlay",
				     scratch ? scratch : "?");
	if (!v->root || !scratch)
		v->oom = true;
	if (sb->enforced && sb->rootfs == POLICY_ROOTFS_STRICT)
		push(v, &v->writable, &v->n_writable,
		     printf_str(v, "/tmp (scratch, %s)",
				scratch ? scratch : "?"));
	else if (sb->enforced && !v->root_readonly)
		push(v, &v->writable, &v->n_writable,
		     printf_str(v, "/ (scratch, %s, discarded at delete)",
				scratch ? scratch : "?"));
	else if (!v->root_readonly)
		push(v, &v->writable, &v->n_writable,
		     strdup("/ (the bundle rootfs itself)"));
}

/* Whether mount i is `corral sandbox --workspace`, the caller's own. */
static bool workspace(const struct hardened *h, size_t i)
{
	for (size_t b = 0; b < h->n_binds; b++)
		if (h->binds[b].mount == i)
			return h->binds[b].workspace;
	return false;
}

static void view_mounts(struct view *v)
{
	const struct spec *s = v->h->spec;

	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct spec_mount *m = &s->mounts[i];
		bool ro = has_option(m, "ro");
		_cleanup_free_ char *size = NULL;

		if (is_bind(m))
			push(v, &v->host_paths, &v->n_host_paths,
			     printf_str(v, "%s <- %s (%s%s)", m->destination,
					m->source ? m->source : "-",
					ro ? "ro" : "rw",
					workspace(v->h, i)
					    ? ", the caller's own workspace"
					    : ""));
		if (ro)
			continue;
		if (is_bind(m))
			push(v, &v->writable, &v->n_writable,
			     printf_str(v, "%s (host %s)", m->destination,
					m->source ? m->source : "-"));
		else if (m->type && strcmp(m->type, "tmpfs") == 0 &&
			 (size = size_option(v, m)))
			push(v, &v->writable, &v->n_writable,
			     printf_str(v, "%s (tmpfs, %s)", m->destination,
					size));
	}
}

static void view_network(struct view *v)
{
	const struct spec_linux *lx = v->h->spec->linux_;
	const struct spec_namespace *net = NULL;

	for (size_t i = 0; lx && i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == NS_NETWORK)
			net = &lx->namespaces[i];
	v->netns = !net ? "host" : net->path ? net->path : "new";
	if (v->h->sandbox.enforced && v->h->sandbox.pod_network)
		v->network = printf_str(
		    v,
		    "its pod's: the pod sandbox's namespace (%s), loopback "
		    "only%s%s, shared with the pod's containers",
		    v->h->sandbox.engine_netns ? v->h->sandbox.engine_netns
					       : "?",
		    v->h->sandbox.egress_on ? ", and the pod's proxy at " : "",
		    v->h->sandbox.egress_on ? EGRESS_PROXY_AUTHORITY : "");
	else if (v->h->sandbox.enforced && v->h->sandbox.egress_on)
		v->network = printf_str(
		    v,
		    "loopback only, and corral's proxy at %s (HTTP and "
		    "HTTPS) to %s, dialing from %s",
		    EGRESS_PROXY_AUTHORITY,
		    v->h->sandbox.n_egress ? "the hosts below" : "no host",
		    v->h->sandbox.engine_netns ? v->h->sandbox.engine_netns
					       : "corral's own network");
	else if (v->h->sandbox.enforced && v->h->sandbox.loopback_only)
		v->network = strdup("loopback only: a new network namespace "
				    "with lo up and no other interface");
	else if (!net)
		v->network = strdup("the host's network (no network "
				    "namespace)");
	else if (net->path)
		v->network =
		    printf_str(v, "joins %s, as config.json says", net->path);
	else
		v->network = strdup("a new network namespace, as config.json "
				    "and the engine's hooks make it");
	if (!v->network)
		v->oom = true;
}

/* Kept names from the effective env; dropped ones from the change (the
 * effective spec no longer has them). */
static void view_env(struct view *v)
{
	const struct spec_process *pr = v->h->spec->process;

	for (size_t i = 0; pr && i < pr->n_env; i++)
		push(v, &v->env_kept, &v->n_env_kept,
		     strndup(pr->env[i], strcspn(pr->env[i], "=")));
	for (size_t i = 0; i < v->h->n_changes; i++) {
		const struct harden_change *ch = &v->h->changes[i];
		const char *p = ch->asked;

		if (strcmp(ch->field, ".process.env") != 0)
			continue;
		while (*p) {
			size_t n = strstr(p, ", ")
				       ? (size_t)(strstr(p, ", ") - p)
				       : strlen(p);

			push(v, &v->env_dropped, &v->n_env_dropped,
			     strndup(p, n));
			p += n + (p[n] ? 2 : 0);
		}
	}
}

static const char *wall_source(const struct hardened *h)
{
	const char *a = harden_annotation(h->spec, ANNOTATION_TIMEOUT);
	uint64_t n;

	if (!h->sandbox.enforced)
		return "policy: mode permissive";
	if (h->sandbox.role == ROLE_POD_SANDBOX)
		return ROLE_REASON;
	if (a && units_parse_count(a, INT64_MAX, &n) &&
	    n == h->sandbox.wall_clock)
		return "annotation: " ANNOTATION_TIMEOUT;
	return "policy";
}

static void view_limits(struct view *v)
{
	const struct spec_linux *lx = v->h->spec->linux_;
	const struct spec_resources *r = lx ? lx->resources : NULL;
	const struct spec_memory *m = r ? r->memory : NULL;
	const struct spec_cpu *cpu = r ? r->cpu : NULL;

	v->wall_source = wall_source(v->h);
	if (m && m->limit.set && m->limit.v > 0) {
		v->memory = m->limit.v;
		v->swap = m->swap.set && m->swap.v > m->limit.v
			      ? m->swap.v - m->limit.v
			      : 0;
		if (!m->swap.set || m->swap.v < 0)
			v->swap = -1; /* as much as the host gives */
	}
	if (r && r->pids_limit.set && r->pids_limit.v > 0)
		v->pids = r->pids_limit.v;
	if (cpu && cpu->quota.set && cpu->quota.v > 0) {
		v->cpu_quota = cpu->quota.v;
		v->cpu_period = cpu->period.set && cpu->period.v > 0
				    ? cpu->period.v
				    : SPEC_CPU_PERIOD;
	}
}

/* Every capability in any set: with no_new_privs none can be gained
 * later, so the union is what the workload can ever hold. */
static void view_privileges(struct view *v)
{
	const struct spec_process *pr = v->h->spec->process;
	const struct spec_linux *lx = v->h->spec->linux_;

	for (size_t i = 0; pr && pr->caps && i < ARRAY_SIZE(spec_caps_fields);
	     i++) {
		const struct json_strv_field *f = &spec_caps_fields[i];
		char **list =
		    *(char **const *)((const char *)pr->caps + f->list);
		size_t n = *(const size_t *)((const char *)pr->caps + f->count);

		for (size_t j = 0; j < n; j++)
			if (!harden_strv_has(v->caps, v->n_caps, list[j]))
				push(v, &v->caps, &v->n_caps, strdup(list[j]));
	}
	for (size_t i = 0; i < harden_n_std_devices; i++)
		if (harden_std_devices[i].node)
			push(v, &v->devices, &v->n_devices,
			     strdup(harden_std_devices[i].path));
	push(v, &v->devices, &v->n_devices, strdup("/dev/pts/* (ptys)"));
	for (size_t i = 0; lx && i < lx->n_devices; i++)
		if (!harden_strv_has(v->devices, v->n_devices,
				     lx->devices[i].path))
			push(v, &v->devices, &v->n_devices,
			     strdup(lx->devices[i].path));
}

static void view_hooks(struct view *v)
{
	const struct spec *s = v->h->spec;

	for (int k = 0; k < HOOK_KIND_COUNT; k++)
		for (size_t i = 0; i < s->hooks[k].n; i++)
			push(v, &v->hooks, &v->n_hooks,
			     printf_str(v, "%s %s", spec_hook_kind_names[k],
					s->hooks[k].hooks[i].path));
}

static void view_id_maps(struct view *v)
{
	const struct spec_linux *lx = v->h->spec->linux_;
	const struct {
		const char *name;
		const struct spec_id_mapping *m;
		size_t n;
	} maps[] = {
	    {"uid", lx ? lx->uid_mappings : NULL, lx ? lx->n_uid_mappings : 0},
	    {"gid", lx ? lx->gid_mappings : NULL, lx ? lx->n_gid_mappings : 0},
	};

	if (v->h->sandbox.rootless_nested)
		push(v, &v->id_maps, &v->n_id_maps,
		     printf_str(v, "the caller's: it is root of a user "
				   "namespace of an ordinary user's (an "
				   "engine's, as rootless podman's), whose ids "
				   "the container's are"));
	else if (v->h->sandbox.rootless)
		push(v, &v->id_maps, &v->n_id_maps,
		     printf_str(v,
				"the caller's own: its uid and gid are the "
				"sandbox user's%s",
				v->h->sandbox.rootless_single
				    ? "; no other id is mapped, and its "
				      "supplementary groups stay"
				    : ", its subordinate ids the others"));
	for (size_t k = 0; k < ARRAY_SIZE(maps); k++)
		for (size_t i = 0; i < maps[k].n; i++) {
			const struct spec_id_mapping *m = &maps[k].m[i];
			uint64_t last = (uint64_t)m->size - (m->size > 0);

			push(v, &v->id_maps, &v->n_id_maps,
			     printf_str(
				 v, "%s %u-%llu -> host %u-%llu", maps[k].name,
				 m->container_id,
				 (unsigned long long)(m->container_id + last),
				 m->host_id,
				 (unsigned long long)(m->host_id + last)));
		}
}

/* The host id that container id `id` maps to, or -1 (no user namespace,
 * or not mapped). */
long long explain_host_id(const struct spec_id_mapping *m, size_t n,
			  uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (id >= m[i].container_id &&
		    (uint64_t)id - m[i].container_id < m[i].size)
			return (long long)m[i].host_id +
			       (long long)(id - m[i].container_id);
	return -1;
}

void explain_view_release(struct view *v)
{
	free(v->root);
	free(v->network);
	strv_free(v->writable);
	strv_free(v->host_paths);
	strv_free(v->env_kept);
	strv_free(v->env_dropped);
	strv_free(v->caps);
	strv_free(v->devices);
	strv_free(v->hooks);
	strv_free(v->id_maps);
}

int explain_view_build(const struct hardened *h, struct view *v,
		       struct error **err)
{
	*v = (struct view){.h = h};
	view_root(v);
	view_mounts(v);
	view_network(v);
	view_env(v);
	view_limits(v);
	view_privileges(v);
	view_hooks(v);
	view_id_maps(v);
	if (v->oom) {
		explain_view_release(v);
		return error_set(err, ENOMEM, "explain: out of memory");
	}
	return 0;
}
