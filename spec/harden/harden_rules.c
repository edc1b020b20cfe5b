/* The rules of harden() for namespaces and the network, the root
 * filesystem, secrets in the environment, the user, capabilities and
 * syscalls: one function per row of the sandbox table (README.md).  See
 * harden_internal.h for the conventions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden_internal.h"
#include "parse_internal.h"
#include "strfmt.h"
#include "util.h"

/* ---- namespaces ------------------------------------------------------ */

/* What config.json may say about each namespace.  A path is kept only
 * where joining can be legitimate (a Kubernetes app container joins its
 * pod's pid, ipc and uts namespaces); the runtime joins it only when it
 * is the namespace of the container's own pod sandbox.  A mount or cgroup
 * namespace path would bypass the rootfs overlay or the cgroup limits,
 * and the network path is the policy's to allow.  A user namespace is
 * made new, and only when the policy gives host ids to map it to
 * (user.idMap, see harden_id_maps).  No engine asks for a time
 * namespace, so it is surface the sandbox drops. */
static const struct {
	bool required; /* always present, created new when absent */
	bool keep_path;
	bool dropped;
} ns_rules[NS_TYPE_COUNT] = {
    [NS_PID] = {true, true, false},	[NS_NETWORK] = {true, false, false},
    [NS_MOUNT] = {true, false, false},	[NS_IPC] = {true, true, false},
    [NS_UTS] = {true, true, false},	[NS_USER] = {false, false, false},
    [NS_CGROUP] = {true, false, false}, [NS_TIME] = {false, false, true},
};

/* The network is config.json's only under "config" without an egress
 * list; under the proxy the container's namespace is a new one as under
 * "loopback", and config.json's path is where the proxy dials from. */
static bool config_network(const struct harden_ctx *c)
{
	return c->policy->network == POLICY_NET_CONFIG &&
	       !c->h->sandbox.egress_on;
}

static const char *new_ns(const struct harden_ctx *c, enum spec_ns_type t)
{
	if (t == NS_NETWORK && c->h->sandbox.egress_on)
		return "new (loopback only; corral's proxy dials from the "
		       "namespace asked)";
	if (t == NS_NETWORK && c->policy->network == POLICY_NET_LOOPBACK)
		return "new (loopback only)";
	return "new";
}

static const char *ns_reason(const struct harden_ctx *c, enum spec_ns_type t)
{
	if (t != NS_NETWORK)
		return "default";
	return HARDEN_WHY(c->policy->network == c->defaults->network,
			  "network");
}

/* corral's own user namespace applies when the policy has a pool of ids
 * (user.pool, or /etc/subuid's corral range) and config.json did not ask
 * for one the policy's user.idMap lends ids to (harden_id_maps keeps
 * that one as asked). */
static bool wants_own_userns(const struct harden_ctx *c,
			     const struct spec_linux *lx)
{
	const struct policy *p = c->policy;

	/* an ordinary user's corral is in a user namespace of its own
	 * already (runtime/ids/rootless.h) */
	if (p->rootless || (!p->pool.set && !p->slice.pod))
		return false;
	return !(p->id_map.set && harden_has_namespace(lx, NS_USER));
}

const char *harden_pool_reason(const struct harden_ctx *c)
{
	if (c->policy->slice.pod)
		return "default: its pod sandbox's user namespace";
	return c->policy->pool.from_subid
		   ? "default: the host's subordinate ids for corral "
		     "(/etc/subuid, /etc/subgid)"
		   : "policy: user.pool";
}

/* The user namespace's entry: "new" and what its ids are. */
static char *own_userns_text(struct harden_ctx *c)
{
	const struct sandbox *sb = &c->h->sandbox;

	return harden_fmt(
	    c, "new (ids 0-65535 are host uids %u-%u, gids %u-%u%s)",
	    sb->userns_uid, sb->userns_uid + POLICY_SLICE - 1, sb->userns_gid,
	    sb->userns_gid + POLICY_SLICE - 1,
	    c->policy->slice.set ? "" : ", a free slice at create");
}

/* Why config.json's path of a namespace of type t is not joined, for a
 * type whose path harden() removes (the network's is the policy's: the
 * container gets its loopback-only namespace, or the pod's). */
static const char *not_joined[NS_TYPE_COUNT] = {
    [NS_MOUNT] = "the container's mount namespace is always its own",
    [NS_CGROUP] = "the container's cgroup namespace is always its own",
    [NS_USER] = "the container's user namespace is corral's own or none",
    [NS_TIME] = "corral makes no time namespace",
};

/* A path to join that corral does not join: refused, naming it
 * (harden_refuse), or dropped and recorded where the policy's
 * refuse.namespaces is off; the entry goes either way (0), or -1. */
static int refuse_path(struct harden_ctx *c, struct spec_namespace *ns,
		       const char *field, const char *asked, struct error **err)
{
	_cleanup_free_ char *what = harden_fmt(
	    c, "namespace %s %s", spec_ns_type_names[ns->type], asked);

	if (!what || !field)
		return error_set(err, ENOMEM, "harden: out of memory");
	return harden_refuse(c, POLICY_REFUSE_NAMESPACES, field, asked, what,
			     not_joined[ns->type], NULL, err);
}

/* Decide one entry of config.json: 1 to keep it (possibly without its
 * path), 0 to drop it, -1 when the container is refused. */
static int judge_namespace(struct harden_ctx *c, struct spec_namespace *ns,
			   bool *seen, struct error **err)
{
	enum spec_ns_type t = ns->type;
	bool keep_path =
	    ns_rules[t].keep_path || (t == NS_NETWORK && config_network(c));
	_cleanup_free_ char *field =
	    harden_fmt(c, ".linux.namespaces[%s]", spec_ns_type_names[t]);
	_cleanup_free_ char *asked =
	    ns->path ? harden_safe(ns->path, 512) : strdup("new");
	bool own_user = t == NS_USER && c->h->sandbox.userns_auto;

	/* a path corral will not join, where the container would run in a
	 * namespace other than the one asked for */
	if (ns->path && !keep_path && t != NS_NETWORK && !own_user && !seen[t])
		return refuse_path(c, ns, field, asked, err);
	if (ns_rules[t].dropped || seen[t]) {
		harden_record(c, field, asked,
			      seen[t] ? "dropped (duplicate)" : "dropped",
			      "default");
		return 0;
	}
	if (own_user) {
		_cleanup_free_ char *applied = NULL;

		seen[t] = true;
		if (!ns->path)
			return 1; /* as corral's own would be */
		applied = own_userns_text(c);
		free(ns->path);
		ns->path = NULL;
		harden_record(c, field, asked, applied ? applied : "new",
			      harden_pool_reason(c));
		return 1;
	}
	if (t == NS_USER && c->policy->rootless) {
		harden_record(c, field, asked, "dropped",
			      "default: rootless, the container is in the "
			      "caller's own user namespace");
		return 0;
	}
	if (t == NS_USER && !c->policy->id_map.set) {
		harden_record(c, field, asked, "dropped",
			      "default: no host ids to map it to (policy: "
			      "user.idMap)");
		return 0;
	}
	seen[t] = true;
	if (ns->path && !keep_path) {
		if (t == NS_NETWORK)
			c->h->sandbox.engine_netns = steal_pointer(&ns->path);
		free(ns->path);
		ns->path = NULL;
		harden_record(c, field, asked, new_ns(c, t), ns_reason(c, t));
	}
	return 1;
}

int harden_namespaces(struct harden_ctx *c, struct error **err)
{
	struct spec_linux *lx = harden_linux(c);
	bool seen[NS_TYPE_COUNT] = {false};
	struct spec_namespace *out;
	size_t n = 0;

	if (!lx)
		return 0;
	out = calloc(lx->n_namespaces + NS_TYPE_COUNT, sizeof(*out));
	if (!out) {
		c->oom = true;
		return 0;
	}
	c->h->sandbox.rootless = c->policy->rootless;
	c->h->sandbox.rootless_single = c->policy->rootless_single;
	c->h->sandbox.rootless_nested =
	    c->policy->rootless && c->policy->rootless_nested;
	if (wants_own_userns(c, lx)) {
		const struct policy *p = c->policy;

		c->h->sandbox.userns_auto = true;
		c->h->sandbox.userns_uid =
		    p->slice.set ? p->slice.uid : p->pool.uid;
		c->h->sandbox.userns_gid =
		    p->slice.set ? p->slice.gid : p->pool.gid;
	}
	for (size_t i = 0; i < lx->n_namespaces; i++) {
		int keep = judge_namespace(c, &lx->namespaces[i], seen, err);

		if (keep < 0) {
			/* the spec keeps the rest, which it frees */
			memmove(lx->namespaces, lx->namespaces + i,
				(lx->n_namespaces - i) *
				    sizeof(*lx->namespaces));
			lx->n_namespaces -= i;
			for (size_t k = 0; k < n; k++)
				free(out[k].path);
			free(out);
			return -1;
		}
		if (keep)
			out[n++] = lx->namespaces[i];
		else
			free(lx->namespaces[i].path);
	}
	for (int t = 0; t < NS_TYPE_COUNT; t++) {
		_cleanup_free_ char *field = NULL, *own = NULL;
		bool own_user = t == NS_USER && c->h->sandbox.userns_auto;

		if ((!ns_rules[t].required && !own_user) || seen[t])
			continue;
		out[n++] = (struct spec_namespace){.type = t};
		field = harden_fmt(c, ".linux.namespaces[%s]",
				   spec_ns_type_names[t]);
		if (own_user)
			own = own_userns_text(c);
		harden_record(c, field, "absent",
			      own_user ? (own ? own : "new") : new_ns(c, t),
			      own_user ? harden_pool_reason(c)
				       : ns_reason(c, t));
	}
	free(lx->namespaces);
	lx->namespaces = out;
	lx->n_namespaces = n;
	c->h->sandbox.loopback_only =
	    c->policy->network == POLICY_NET_LOOPBACK ||
	    c->h->sandbox.egress_on;
	return 0;
}

/* ---- the root filesystem --------------------------------------------- */

/* The overlay and its scratch are made by the runtime from the sandbox
 * settings; config.json only learns that "/" is read-only in strict
 * mode. */
int harden_rootfs(struct harden_ctx *c, struct error **err)
{
	struct spec_root *root = c->spec->root;

	c->h->sandbox.rootfs = c->policy->rootfs;
	c->h->sandbox.scratch_size = c->policy->scratch_size;
	if (c->policy->rootfs == POLICY_ROOTFS_STRICT && root &&
	    !root->readonly) {
		root->readonly = true;
		harden_record(
		    c, ".root.readonly", "false", "true",
		    HARDEN_WHY(c->policy->rootfs == c->defaults->rootfs,
			       "rootfs.mode"));
	}
	return 0;
}

/* ---- secrets in the environment -------------------------------------- */

static bool env_allowed(const struct policy *p, const char *entry, size_t len)
{
	for (size_t i = 0; i < p->n_env_allow; i++)
		if (strlen(p->env_allow[i]) == len &&
		    strncmp(p->env_allow[i], entry, len) == 0)
			return true;
	return false;
}

/* Only allowlisted names survive.  The change lists the dropped names and
 * never their values: values are where secrets live. */
int harden_env(struct harden_ctx *c, struct error **err)
{
	struct spec_process *pr = c->spec->process;
	_cleanup_strv_ char **dropped = NULL;
	_cleanup_free_ char *names = NULL, *safe = NULL;
	size_t n = 0, n_dropped = 0;

	if (!pr || !pr->env)
		return 0;
	for (size_t i = 0; i < pr->n_env; i++) {
		char *e = pr->env[i];
		size_t len = strcspn(e, "=");
		_cleanup_free_ char *name = NULL;

		if (env_allowed(c->policy, e, len)) {
			pr->env[n++] = e;
			continue;
		}
		name = strndup(e, len);
		if (!name || !harden_strv_push(&dropped, &n_dropped, name))
			c->oom = true;
		free(e);
	}
	pr->env[n] = NULL;
	pr->n_env = n;
	if (n_dropped == 0)
		return 0;
	names = harden_join(c, dropped, n_dropped, ", ");
	safe = names ? harden_safe(names, SIZE_MAX) : NULL;
	harden_record(c, ".process.env", safe, "dropped",
		      HARDEN_WHY(harden_strv_equal(c->policy->env_allow,
						   c->policy->n_env_allow,
						   c->defaults->env_allow,
						   c->defaults->n_env_allow),
				 "env.allow"));
	return 0;
}

/* ---- the user -------------------------------------------------------- */

static char *gids_string(struct harden_ctx *c, const uint32_t *g, size_t n)
{
	char *buf;
	size_t size;
	FILE *f = strfmt_stream(&c->oom, &buf, &size);

	if (!f)
		return NULL;
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? ", " : "", g[i]);
	fputc(']', f);
	return strfmt_close(&c->oom, f, &buf);
}

/* A host group a container never runs in: 0 (unless root is allowed)
 * and the policy's privileged groups.  Inside a user namespace the ids
 * are the namespace's, mapped to the policy's unprivileged host range,
 * so only 0 is special there. */
static bool privileged_gid(const struct harden_ctx *c, uint32_t gid)
{
	const struct policy *p = c->policy;

	if (c->h->sandbox.userns_auto)
		return false; /* the container's own ids, none the host's */
	if (gid == 0)
		return !p->allow_root;
	if (harden_has_namespace(c->spec->linux_, NS_USER))
		return false;
	for (size_t i = 0; i < p->n_privileged_gids; i++)
		if (p->privileged_gids[i] == gid)
			return true;
	return false;
}

static bool in_slice(const struct harden_ctx *c, uint32_t gid)
{
	return gid < POLICY_SLICE;
}

static bool unprivileged(const struct harden_ctx *c, uint32_t gid)
{
	return !privileged_gid(c, gid);
}

/* Keep the supplementary gids `keep` allows; a change is recorded with
 * `reason` (asked: the list as config.json had it). */
static void filter_gids(struct harden_ctx *c, struct spec_user *u,
			const char *asked,
			bool (*keep)(const struct harden_ctx *, uint32_t),
			const char *reason)
{
	_cleanup_free_ char *applied = NULL;
	size_t n = 0;

	for (size_t i = 0; i < u->n_additional_gids; i++)
		if (keep(c, u->additional_gids[i]))
			u->additional_gids[n++] = u->additional_gids[i];
	if (n == u->n_additional_gids)
		return;
	u->n_additional_gids = n;
	applied = gids_string(c, u->additional_gids, n);
	harden_record(c, ".process.user.additionalGids", asked, applied,
		      reason);
	harden_mark_dropped(c);
}

/* Supplementary groups go, unless the policy keeps them; even then the
 * privileged ones go.  In corral's own user namespace they are the
 * container's ids, mapped into its slice: kept (a pod's supplemental
 * groups and fsGroup reach its volumes), but for one beyond the slice,
 * which no id maps. */
static void harden_groups(struct harden_ctx *c, struct spec_user *u)
{
	const struct policy *p = c->policy;
	_cleanup_free_ char *asked = NULL;

	if (u->n_additional_gids == 0)
		return;
	asked = gids_string(c, u->additional_gids, u->n_additional_gids);
	if (c->h->sandbox.userns_auto) {
		filter_gids(c, u, asked, in_slice,
			    "default: ids beyond 65535 are not mapped in the "
			    "container's user namespace");
		return;
	}
	if (!p->keep_groups) {
		free(u->additional_gids);
		u->additional_gids = NULL;
		u->n_additional_gids = 0;
		harden_record(
		    c, ".process.user.additionalGids", asked, "dropped",
		    HARDEN_WHY(p->keep_groups == c->defaults->keep_groups,
			       "user.keepGroups"));
		return;
	}
	filter_gids(c, u, asked, unprivileged,
		    "default: privileged host groups "
		    "(policy: user.privilegedGroups)");
}

/* uid 0 becomes the policy's, and so does a privileged primary gid; a
 * non-zero uid from config.json is kept, since the image chose it and it
 * is not root: with every host path opened without links and checked,
 * nothing of the host's is in reach through it. */
int harden_user(struct harden_ctx *c, struct error **err)
{
	const struct policy *p = c->policy;
	struct spec_process *pr = c->spec->process;
	_cleanup_free_ char *uid = NULL, *gid = NULL, *asked = NULL;

	if (!pr)
		return 0;
	/* an ordinary user's namespace that maps the caller's ids alone:
	 * setgroups is denied there, so no process can set or drop groups */
	if (p->rootless && p->rootless_single &&
	    (p->rootless_groups || pr->user.n_additional_gids)) {
		_cleanup_free_ char *gids = gids_string(
		    c, pr->user.additional_gids, pr->user.n_additional_gids);

		/* config.json's field when it asked for groups; else a note
		 * of the sandbox's, which hardening again says again */
		harden_record(c,
			      pr->user.n_additional_gids
				  ? ".process.user.additionalGids"
				  : "sandbox.groups",
			      gids ? gids : "?",
			      "none set; the caller's own groups stay "
			      "(nobody inside)",
			      "default: rootless without subordinate ids "
			      "(newgidmap), the kernel lets no process "
			      "change its groups");
		free(pr->user.additional_gids);
		pr->user.additional_gids = NULL;
		pr->user.n_additional_gids = 0;
		if (c->h->n_changes && !c->oom)
			c->h->changes[c->h->n_changes - 1].warn = true;
	}
	/* corral's own user namespace: uid 0 is the namespace's root, host
	 * id userns_uid, with no capability (harden_capabilities) */
	if (c->h->sandbox.userns_auto) {
		if (pr->user.uid >= POLICY_SLICE ||
		    pr->user.gid >= POLICY_SLICE)
			return error_set(err, EINVAL,
					 ".process.user: %u:%u is beyond the "
					 "ids 0-65535 of the container's user "
					 "namespace",
					 pr->user.uid, pr->user.gid);
		harden_groups(c, &pr->user);
		return 0;
	}
	if (!p->allow_root && pr->user.uid == 0) {
		pr->user.uid = p->uid;
		uid = harden_fmt(c, "%u", p->uid);
		harden_record(
		    c, ".process.user.uid", "0", uid,
		    HARDEN_WHY(p->uid == c->defaults->uid, "user.uid"));
	}
	if (privileged_gid(c, pr->user.gid) && pr->user.gid != p->gid) {
		asked = harden_fmt(c, "%u", pr->user.gid);
		pr->user.gid = p->gid;
		gid = harden_fmt(c, "%u", p->gid);
		harden_record(
		    c, ".process.user.gid", asked, gid,
		    strcmp(asked ? asked : "", "0") == 0
			? HARDEN_WHY(p->gid == c->defaults->gid, "user.gid")
			: "default: a privileged host group "
			  "(policy: user.privilegedGroups)");
	}
	harden_groups(c, &pr->user);
	return 0;
}

/* ---- capabilities ---------------------------------------------------- */

/* Keep the names of one set that the policy keeps; record the change. */
static void narrow_caps(struct harden_ctx *c, const struct json_strv_field *f,
			struct spec_caps *caps, const char *reason)
{
	char **list = *(char ***)((char *)caps + f->list);
	size_t *count = (size_t *)((char *)caps + f->count);
	_cleanup_free_ char *asked = NULL, *applied = NULL, *field = NULL;
	size_t n = 0;

	if (!list)
		return;
	asked = harden_list(c, list, *count);
	for (size_t i = 0; i < *count; i++) {
		if (harden_strv_has(c->policy->caps_keep,
				    c->policy->n_caps_keep, list[i]))
			list[n++] = list[i];
		else
			free(list[i]);
	}
	list[n] = NULL;
	if (n == *count)
		return;
	*count = n;
	applied = harden_list(c, list, n);
	field = harden_fmt(c, ".process.capabilities.%s", f->key);
	harden_record(c, field, asked, applied, reason);
	harden_mark_dropped(c);
}

int harden_capabilities(struct harden_ctx *c, struct error **err)
{
	struct spec_process *pr = c->spec->process;
	const char *reason = HARDEN_WHY(
	    harden_strv_equal(c->policy->caps_keep, c->policy->n_caps_keep,
			      c->defaults->caps_keep, c->defaults->n_caps_keep),
	    "capabilities.keep");

	if (!pr)
		return 0;
	for (size_t i = 0; pr->caps && i < ARRAY_SIZE(spec_caps_fields); i++)
		narrow_caps(c, &spec_caps_fields[i], pr->caps, reason);
	if (!pr->no_new_privileges) {
		pr->no_new_privileges = true;
		harden_record(c, ".process.noNewPrivileges", "false", "true",
			      "default");
	}
	return 0;
}

/* ---- syscalls -------------------------------------------------------- */

/* An SCMP_ACT_NOTIFY of config.json's filter would wait for a listener
 * that is not there (listenerPath goes, and the kernel allows one
 * listener per process, which the baseline's is): it becomes ERRNO with
 * ENOSYS, what the kernel answers a notified call whose listener is
 * gone, so the call is refused rather than create failing. */
static void notify_refused(struct harden_ctx *c, char **action,
			   struct spec_opt *errno_ret, const char *field)
{
	char *errno_action;

	if (!*action || strcmp(*action, "SCMP_ACT_NOTIFY") != 0)
		return;
	errno_action = strdup("SCMP_ACT_ERRNO");
	if (!errno_action) {
		c->oom = true;
		return;
	}
	free(*action);
	*action = errno_action;
	*errno_ret = (struct spec_opt){true, ENOSYS};
	harden_record(c, field, "SCMP_ACT_NOTIFY", "SCMP_ACT_ERRNO (ENOSYS)",
		      "default: no listener outside the container answers "
		      "it; refused as with a listener gone");
}

/* config.json's filter stays as written: the runtime loads the baseline
 * on top of it, so a call must pass both.  Its listenerPath (a unix
 * socket on the host that would receive the filter's notifications) goes:
 * corral answers no SCMP_ACT_NOTIFY for a program outside the container. */
int harden_syscalls(struct harden_ctx *c, struct error **err)
{
	const struct policy *p = c->policy;
	struct sandbox *sb = &c->h->sandbox;
	struct spec_linux *lx = c->spec->linux_;
	struct spec_seccomp *sc = lx ? lx->seccomp : NULL;

	if (sc) {
		notify_refused(c, &sc->default_action, &sc->default_errno_ret,
			       ".linux.seccomp.defaultAction");
		for (size_t i = 0; i < sc->n_syscalls; i++)
			notify_refused(c, &sc->syscalls[i].action,
				       &sc->syscalls[i].errno_ret,
				       ".linux.seccomp.syscalls[].action");
	}

	if (sc && sc->listener_path) {
		_cleanup_free_ char *asked =
		    harden_safe(sc->listener_path, 200);

		harden_record(c, ".linux.seccomp.listenerPath",
			      asked ? asked : "?", "dropped",
			      "default: no notification leaves the "
			      "container");
		free(sc->listener_path);
		sc->listener_path = NULL;
	}
	for (size_t i = 0; i < p->n_syscalls_allow; i++)
		if (!harden_strv_push(&sb->syscalls_allow,
				      &sb->n_syscalls_allow,
				      p->syscalls_allow[i]))
			c->oom = true;
	return 0;
}
