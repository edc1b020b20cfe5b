/* Requests refused at create (harden_internal.h, harden_refuse).  A bind
 * from `podman -v`, a Kubernetes hostPath, a secret volume, a `--device`,
 * a namespace to join: what a user asked for and the workload will rely
 * on.  Dropping it in silence loses the user's data (results written to a
 * bind that is not there land in the scratch, which delete discards), so
 * by default create fails with one line that names the request, why, and
 * the policy key that would allow it, before anything exists on the host.
 * A cluster that prefers its pods to start sets the kind's switch off
 * ("refuse": {"mounts": false}): the container then runs without it, and
 * the drop is recorded where explain, the runtime log and the report show
 * it.  The annotation run.corral.refuse may only turn a drop into a
 * refusal: refusing is the narrower of the two. */
#include <errno.h>
#include <string.h>

#include "harden_internal.h"
#include "util.h"

/* The annotation's kinds ("mounts,devices", "all"), each added to what
 * the policy refuses; an unknown word is an error, as a typo must not
 * pass for a refusal. */
static int annotated(struct harden_ctx *c, const char *value,
		     struct error **err)
{
	for (const char *p = value; *p;) {
		size_t n, k;

		p += strspn(p, ", \t");
		n = strcspn(p, ", \t");
		if (n == 0)
			break;
		for (k = 0; k < POLICY_REFUSALS; k++)
			if (strlen(policy_refusal_names[k]) == n &&
			    strncmp(policy_refusal_names[k], p, n) == 0)
				break;
		if (n == 3 && strncmp(p, "all", 3) == 0) {
			for (size_t i = 0; i < POLICY_REFUSALS; i++)
				c->refuse_annotated[i] = true;
		} else if (k < POLICY_REFUSALS) {
			c->refuse_annotated[k] = true;
		} else {
			_cleanup_free_ char *safe = harden_safe(value, 200);

			return error_set(err, EINVAL,
					 "annotation " ANNOTATION_REFUSE
					 "=%s: unknown kind (mounts, volumes, "
					 "devices, namespaces or all)",
					 safe ? safe : "?");
		}
		p += n;
	}
	return 0;
}

int harden_refusals(struct harden_ctx *c, struct error **err)
{
	const char *value = harden_annotation(c->spec, ANNOTATION_REFUSE);

	for (size_t i = 0; i < POLICY_REFUSALS; i++)
		c->refuse[i] = c->policy->refuse[i];
	if (!value)
		return 0;
	if (annotated(c, value, err) < 0)
		return -1;
	for (size_t i = 0; i < POLICY_REFUSALS; i++) {
		_cleanup_free_ char *field = NULL;

		if (!c->refuse_annotated[i] || c->refuse[i])
			continue;
		c->refuse[i] = true;
		field =
		    harden_fmt(c, "sandbox.refuse.%s", policy_refusal_names[i]);
		harden_record(c, field, "dropped, recorded",
			      "refused at create",
			      "annotation: " ANNOTATION_REFUSE);
	}
	return 0;
}

int harden_refuse(struct harden_ctx *c, enum policy_refusal kind,
		  const char *field, const char *asked, const char *what,
		  const char *why, const char *key, struct error **err)
{
	const char *name = policy_refusal_names[kind];
	/* refused only because the annotation asked */
	const char *by_note =
	    c->policy->refuse[kind]
		? ""
		: "; refused by the annotation " ANNOTATION_REFUSE;
	_cleanup_free_ char *reason = NULL;

	if (c->refuse[kind] && key)
		return error_set(err, HARDEN_REFUSED, "%s: %s (policy: %s%s)",
				 what, why, key, by_note);
	if (c->refuse[kind] && *by_note)
		return error_set(err, HARDEN_REFUSED,
				 "%s: %s (no policy allows it%s)", what, why,
				 by_note);
	if (c->refuse[kind])
		return error_set(err, HARDEN_REFUSED,
				 "%s: %s (no policy allows it; the policy's "
				 "refuse.%s false runs the container without "
				 "it)",
				 what, why, name);
	reason =
	    harden_fmt(c, "policy: refuse.%s false: %s%s%s%s", name, why,
		       key ? " (policy: " : "", key ? key : "", key ? ")" : "");
	harden_record(c, field, asked, "dropped", reason);
	return 0;
}
