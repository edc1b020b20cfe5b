/* The rules of harden() for what config.json points at on the host
 * itself: where the root filesystem is, which host ids a user namespace
 * maps to, and which lifecycle hooks run (as root, outside every
 * namespace).  Each of these reaches the host directly, so each is
 * refused or dropped unless the policy names it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden_internal.h"
#include "util.h"

/* ---- the root filesystem's place ------------------------------------- */

/* A relative path with no ".", ".." or empty component. */
static bool clean_relative(const char *p)
{
	_cleanup_free_ char *abs = NULL;

	if (!p[0] || p[0] == '/' || asprintf(&abs, "/%s", p) < 0)
		return false;
	return harden_clean_path(abs) && strcmp(abs, "/") != 0;
}

/* The longest engine directory that holds path strictly below it. */
static const char *engine_dir_of(const struct policy *p, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; i < p->n_engine_dirs; i++) {
		const char *d = p->engine_dirs[i];

		if (strcmp(path, d) != 0 && harden_path_under(path, d) &&
		    (!best || strlen(d) > strlen(best)))
			best = d;
	}
	return best;
}

/* The image is the bundle's own (a relative root.path, or an absolute one
 * inside the bundle), the caller's own (corral sandbox --rootfs), a
 * directory the policy's mounts name (the volume rules apply to what is
 * reachable through the root as to a bind), or an engine's (below
 * engineDirs, and then only one the engine's own records tie to this
 * container: the runtime checks); any other host directory would be the
 * container's root and read-only lower layer, so /etc or "/" itself
 * would be in reach.  Never below the kubelet's pod directories: they
 * hold the pods' volumes, secrets among them. */
int harden_root_path(struct harden_ctx *c, struct error **err)
{
	const struct spec_root *root = c->spec->root;
	const char *path = root ? root->path : NULL, *dir;
	const struct policy_mount *m;
	_cleanup_free_ char *safe = NULL;
	struct hardened *h = c->h;

	if (!path)
		return 0;
	safe = harden_safe(path, 200);
	if (!safe) {
		c->oom = true;
		return 0;
	}
	if (path[0] != '/') {
		if (!clean_relative(path))
			return error_set(err, EINVAL,
					 ".root.path: \"%s\" must be a clean "
					 "relative path (no \".\", \"..\" or "
					 "\"//\")",
					 safe);
		h->root_path = strdup(path);
	} else if (!harden_clean_path(path) || policy_system_dir(path)) {
		return error_set(err, EPERM,
				 ".root.path: %s: must be a clean path and "
				 "not a system directory",
				 safe);
	} else if (c->bundle && strcmp(path, c->bundle) != 0 &&
		   harden_path_under(path, c->bundle)) {
		h->root_path = strdup(path + strlen(c->bundle) + 1);
	} else if (harden_strv_has(c->policy->root_dirs, c->policy->n_root_dirs,
				   path)) {
		h->root_beneath = strdup(path);
		h->root_path = strdup(".");
		if (!h->root_beneath)
			c->oom = true;
	} else if ((m = harden_policy_mount(c->policy, path))) {
		h->root_beneath = strdup(m->source);
		h->root_path = strdup(strcmp(path, m->source) == 0
					  ? "."
					  : path + strlen(m->source) + 1);
		if (!h->root_beneath)
			c->oom = true;
	} else if ((dir = engine_dir_of(c->policy, path)) &&
		   harden_component_is(dir, 0, "pods")) {
		return error_set(err, EPERM,
				 ".root.path: %s is below %s, the kubelet's "
				 "pods with their volumes: never a root "
				 "filesystem",
				 safe, dir);
	} else if (dir) {
		h->root_beneath = strdup(dir);
		h->root_path = strdup(path + strlen(dir) + 1);
		h->root_engine = true;
		if (!h->root_beneath)
			c->oom = true;
	} else {
		return error_set(
		    err, EPERM,
		    ".root.path: %s is neither in the bundle, below a "
		    "directory the policy mounts, nor below an engine "
		    "directory (policy: mounts, engineDirs)",
		    safe);
	}
	if (!h->root_path)
		c->oom = true;
	return 0;
}

/* ---- user-namespace id maps ------------------------------------------ */

static const char *const map_fields[2] = {".linux.uidMappings",
					  ".linux.gidMappings"};

static void drop_maps(struct harden_ctx *c, struct spec_id_mapping **m,
		      size_t *n, const char *field)
{
	_cleanup_free_ char *asked = NULL;

	if (*n == 0)
		return;
	asked = harden_fmt(c, "%zu mapping%s", *n, *n == 1 ? "" : "s");
	harden_record(c, field, asked, "dropped",
		      "default: no user namespace (policy: user.idMap)");
	free(*m);
	*m = NULL;
	*n = 0;
}

static int check_maps(struct harden_ctx *c, const struct spec_id_mapping *m,
		      size_t n, const char *field, struct error **err)
{
	const struct policy_id_map *r = &c->policy->id_map;
	uint64_t lo = r->host_id, hi = (uint64_t)r->host_id + r->size;

	if (n == 0)
		return error_set(err, EINVAL,
				 "%s: a user namespace needs mappings", field);
	for (size_t i = 0; i < n; i++) {
		uint64_t start = m[i].host_id, end = start + m[i].size;

		if (m[i].size == 0 || start < lo || end > hi)
			return error_set(err, EPERM,
					 "%s[%zu]: host ids %llu-%llu are "
					 "outside the policy's user.idMap "
					 "(%llu-%llu)",
					 field, i, (unsigned long long)start,
					 (unsigned long long)end - 1,
					 (unsigned long long)lo,
					 (unsigned long long)hi - 1);
	}
	return 0;
}

static bool mapped(const struct spec_id_mapping *m, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (id >= m[i].container_id &&
		    (uint64_t)id < (uint64_t)m[i].container_id + m[i].size)
			return true;
	return false;
}

static int check_user_mapped(const struct spec_linux *lx,
			     const struct spec_user *u, struct error **err)
{
	if (!mapped(lx->uid_mappings, lx->n_uid_mappings, u->uid))
		return error_set(err, EINVAL,
				 ".process.user.uid: %u is not mapped by "
				 ".linux.uidMappings",
				 u->uid);
	if (!mapped(lx->gid_mappings, lx->n_gid_mappings, u->gid))
		return error_set(err, EINVAL,
				 ".process.user.gid: %u is not mapped by "
				 ".linux.gidMappings",
				 u->gid);
	for (size_t i = 0; i < u->n_additional_gids; i++)
		if (!mapped(lx->gid_mappings, lx->n_gid_mappings,
			    u->additional_gids[i]))
			return error_set(err, EINVAL,
					 ".process.user.additionalGids[%zu]: "
					 "%u is not mapped by "
					 ".linux.gidMappings",
					 i, u->additional_gids[i]);
	return 0;
}

/* corral's own user namespace: one mapping of the container's ids
 * 0-65535 onto the slice, whatever config.json asked. */
static void own_maps(struct harden_ctx *c, struct spec_id_mapping **m,
		     size_t *n, uint32_t host, const char *field)
{
	_cleanup_free_ char *asked = NULL, *applied = NULL;
	struct spec_id_mapping *one = calloc(1, sizeof(*one));

	if (!one) {
		c->oom = true;
		return;
	}
	*one = (struct spec_id_mapping){
	    .container_id = 0, .host_id = host, .size = POLICY_SLICE};
	if (*n == 1 && (*m)[0].container_id == 0 && (*m)[0].host_id == host &&
	    (*m)[0].size == POLICY_SLICE) {
		free(one);
		return; /* already so: hardened again */
	}
	asked = *n ? harden_fmt(c, "%zu mapping%s", *n, *n == 1 ? "" : "s")
		   : strdup("absent");
	applied = harden_fmt(c, "0-65535 -> host %u-%u", host,
			     host + POLICY_SLICE - 1);
	harden_record(c, field, asked ? asked : "?", applied ? applied : "?",
		      harden_pool_reason(c));
	free(*m);
	*m = one;
	*n = 1;
}

/* The host ids are what a container's ids are on the host: written as
 * given, a map to host 0 makes the workload host root.  They must lie in
 * the policy's range, and without one there is no user namespace
 * (harden_namespaces dropped it) and the maps go too; corral's own user
 * namespace maps its slice of the pool. */
int harden_id_maps(struct harden_ctx *c, struct error **err)
{
	struct spec_linux *lx = c->spec->linux_;
	const struct sandbox *sb = &c->h->sandbox;

	if (!lx)
		return 0;
	if (sb->userns_auto) {
		const struct policy *p = c->policy;

		own_maps(c, &lx->uid_mappings, &lx->n_uid_mappings,
			 sb->userns_uid, map_fields[0]);
		own_maps(c, &lx->gid_mappings, &lx->n_gid_mappings,
			 sb->userns_gid, map_fields[1]);
		for (size_t i = 0; i < p->n_engine_dirs; i++)
			if (!harden_strv_push(&c->h->layer_dirs,
					      &c->h->n_layer_dirs,
					      p->engine_dirs[i]))
				c->oom = true;
		return 0;
	}
	if (!harden_has_namespace(lx, NS_USER)) {
		drop_maps(c, &lx->uid_mappings, &lx->n_uid_mappings,
			  map_fields[0]);
		drop_maps(c, &lx->gid_mappings, &lx->n_gid_mappings,
			  map_fields[1]);
		return 0;
	}
	if (check_maps(c, lx->uid_mappings, lx->n_uid_mappings, map_fields[0],
		       err) < 0 ||
	    check_maps(c, lx->gid_mappings, lx->n_gid_mappings, map_fields[1],
		       err) < 0)
		return -1;
	if (c->spec->process &&
	    check_user_mapped(lx, &c->spec->process->user, err) < 0)
		return -1;
	return 0;
}

/* ---- lifecycle hooks ------------------------------------------------- */

/* What a kept hook's environment becomes: config.json's would let the
 * bundle's author set LD_PRELOAD or PATH for a program run as root. */
static const char hook_path_env[] =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

static bool args_match(const struct policy_hook *e, const struct spec_hook *h)
{
	if (e->has_args)
		return harden_strv_equal(e->args, e->n_args, h->args,
					 h->n_args);
	return h->n_args == 0 ||
	       (h->n_args == 1 && strcmp(h->args[0], h->path) == 0);
}

static bool hook_allowed(const struct policy *p, const struct spec_hook *h)
{
	for (size_t i = 0; i < p->n_hooks; i++)
		if (strcmp(p->hooks[i].path, h->path) == 0 &&
		    args_match(&p->hooks[i], h))
			return true;
	return false;
}

static void free_hook(struct spec_hook *h)
{
	free(h->path);
	strv_free(h->args);
	strv_free(h->env);
}

static void fix_env(struct harden_ctx *c, struct spec_hook *h,
		    const char *field)
{
	_cleanup_free_ char *asked = NULL, *names = NULL, *env_field = NULL;

	if (h->n_env == 1 && strcmp(h->env[0], hook_path_env) == 0)
		return;
	names = h->n_env ? harden_join(c, h->env, h->n_env, ", ")
			 : strdup("absent");
	asked = names ? harden_safe(names, 200) : NULL;
	env_field = harden_fmt(c, "%s.env", field);
	strv_free(h->env);
	h->env = NULL;
	h->n_env = 0;
	if (!harden_strv_push(&h->env, &h->n_env, hook_path_env))
		c->oom = true;
	harden_record(c, env_field, asked ? asked : "?", hook_path_env,
		      "default: a hook runs as root with corral's environment");
}

/* A hook runs as root on the host, outside every namespace (but
 * createContainer's, which runs in the container's mount namespace
 * before pivot_root): only the programs the policy names, with the
 * arguments it names, may run.  A startContainer hook is found in the
 * container's own filesystem, which the bundle's author wrote. */
int harden_hooks(struct harden_ctx *c, struct error **err)
{
	const char *why =
	    HARDEN_WHY(c->policy->n_hooks == 0 && c->defaults->n_hooks == 0,
		       "hooks.allow");

	for (int k = 0; k < HOOK_KIND_COUNT; k++) {
		struct spec_hook_list *l = &c->spec->hooks[k];
		size_t n = 0;

		for (size_t i = 0; i < l->n; i++) {
			struct spec_hook *h = &l->hooks[i];
			_cleanup_free_ char *field = harden_fmt(
			    c, ".hooks.%s[%zu]", spec_hook_kind_names[k], i);
			_cleanup_free_ char *asked = harden_safe(h->path, 200);
			bool keep = k != HOOK_START_CONTAINER &&
				    hook_allowed(c->policy, h);

			if (!field || !asked) {
				c->oom = true;
				continue;
			}
			if (!keep) {
				harden_record(
				    c, field, asked, "dropped",
				    k == HOOK_START_CONTAINER
					? "default: a startContainer hook "
					  "is the container's own program, "
					  "run with the runtime's privileges"
					: why);
				free_hook(h);
				continue;
			}
			fix_env(c, h, field);
			l->hooks[n++] = *h;
		}
		l->n = n;
		if (n == 0) {
			free(l->hooks);
			l->hooks = NULL;
		}
	}
	return 0;
}
