/* The kubelet's volumes by kind (harden_internal.h
 * harden_kubelet_volume): which of a pod's volumes a container keeps,
 * read-only or writable, by the kind its path names, for the pod the
 * runtime proved it belongs to. */
#include <string.h>

#include "harden_internal.h"
#include "util.h"

/* The kubelet's volumes, ENGINEDIR/UID/volumes/kubernetes.io~KIND/NAME
 * bound whole, where ENGINEDIR is an engineDirs entry named "pods"
 * (/var/lib/kubelet/pods) and UID the container's own pod's, as the
 * runtime proved it (policy->pod_uid: the pod sandbox corral made for the
 * same engine process, and that sandbox's uid as it was recorded; no
 * annotation of the container's own): the pod's scratch is writable,
 * what the cluster hands the pod to read is read-only, and a secret only
 * when the policy names it.
 * Any other kind (a cloud disk, nfs ...) and a subPath (volume-subpaths/,
 * whose kind its path does not tell) need a policy mounts entry. */
enum volume_rule { VOLUME_RW, VOLUME_RO, VOLUME_BY_NAME };
static const struct {
	const char *kind;   /* in the kubelet's path */
	const char *policy; /* in volumes.kinds */
	enum volume_rule rule;
	const char *reason;
} volume_kinds[] = {
    {"empty-dir", "emptyDir", VOLUME_RW,
     "default: an emptyDir volume, the pod's own"},
    {"configmap", "configMap", VOLUME_RO,
     "default: a configMap volume, read-only"},
    {"downward-api", "downwardAPI", VOLUME_RO,
     "default: a downwardAPI volume, read-only"},
    {"secret", NULL, VOLUME_BY_NAME,
     "a secret volume is mounted only when the policy's volumes.secrets "
     "names it"},
    {"projected", NULL, VOLUME_BY_NAME,
     "a projected volume (tokens, secrets) is mounted only when the "
     "policy's volumes.secrets names it"},
};

/* The kubelet volume a clean source is, as volume_kinds[*kind] named
 * *name, and the engine directory it lies in; NULL when it is none. */
static const char *volume_of(const struct harden_ctx *c, const char *source,
			     size_t *kind, const char **name)
{
	static const char prefix[] = "kubernetes.io~";
	const struct policy *p = c->policy;
	/* the pod the runtime proved from its own records, never an
	 * annotation's word */
	const char *uid = p->pod_uid;

	for (size_t i = 0; uid && i < p->n_engine_dirs; i++) {
		const char *dir = p->engine_dirs[i], *rest, *k, *n;
		size_t len = strlen(dir), ulen = strlen(uid);

		if (!harden_component_is(dir, 0, "pods") ||
		    !harden_path_under(source, dir) || !source[len])
			continue;
		rest = source + len + 1;
		/* UID/volumes/kubernetes.io~KIND/NAME, NAME the last */
		if (strncmp(rest, uid, ulen) != 0 ||
		    strncmp(rest + ulen, "/volumes/", 9) != 0)
			continue;
		k = rest + ulen + 9;
		if (strncmp(k, prefix, sizeof(prefix) - 1) != 0)
			continue;
		k += sizeof(prefix) - 1;
		n = strchr(k, '/');
		if (!n || !n[1] || strchr(n + 1, '/'))
			continue;
		for (size_t j = 0; j < ARRAY_SIZE(volume_kinds); j++)
			if (strlen(volume_kinds[j].kind) == (size_t)(n - k) &&
			    !strncmp(k, volume_kinds[j].kind,
				     (size_t)(n - k))) {
				*kind = j;
				*name = n + 1;
				return dir;
			}
	}
	return NULL;
}

static void judge(const struct harden_ctx *c, size_t kind, const char *name,
		  struct harden_volume *v)
{
	const struct policy *p = c->policy;

	if (volume_kinds[kind].rule != VOLUME_BY_NAME) {
		const char *k = volume_kinds[kind].policy;
		bool is_default = harden_strv_has(
		    c->defaults->volume_kinds, c->defaults->n_volume_kinds, k);

		if (!harden_strv_has(p->volume_kinds, p->n_volume_kinds, k)) {
			v->reason = "the policy's volumes.kinds leaves this "
				    "kind out";
			v->key = "volumes.kinds";
			return;
		}
		v->keep = true;
		v->rw = volume_kinds[kind].rule == VOLUME_RW;
		v->reason = is_default ? volume_kinds[kind].reason
				       : "policy: volumes.kinds";
		return;
	}
	v->keep = harden_strv_has(p->volume_secrets, p->n_volume_secrets, name);
	v->reason =
	    v->keep ? "policy: volumes.secrets" : volume_kinds[kind].reason;
	v->key = v->keep ? NULL : "volumes.secrets";
}

bool harden_kubelet_volume(const struct harden_ctx *c, const char *source,
			   struct harden_volume *v)
{
	const char *name;
	size_t kind;

	*v = (struct harden_volume){0};
	v->dir = volume_of(c, source, &kind, &name);
	if (v->dir)
		judge(c, kind, name, v);
	return v->dir != NULL;
}
