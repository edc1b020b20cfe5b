/* harden_process(): the sandbox of an `exec`'d process.  The same rules
 * harden() applies to config.json's process (harden_rules.c and
 * harden_kernel.c), run on a lone process, so a process joining a
 * container can never get more than the container's own workload: the
 * env allowlist, uid/gid 0 replaced, supplementary groups, capabilities
 * narrowed to the policy's keep list, no_new_privs, RLIMIT_CORE.
 *
 * Pure: no system calls.  The change list is built and dropped: exec has
 * no explain of its own; what it applies is what the container's explain
 * says for the workload.
 */
#include <errno.h>
#include <stdlib.h>

#include "harden.h"
#include "harden_internal.h"
#include "util.h"

/* The rules of harden() that concern the process, in the same order. */
static int (*const process_rules[])(struct harden_ctx *, struct error **) = {
    harden_env, harden_user, harden_capabilities, harden_rlimits, harden_pause,
};

/* A private deep copy, through the serialiser as harden() copies its
 * config: a spec holding only the process. */
static int copy_process(const struct spec_process *in, struct spec **out,
			struct error **err)
{
	struct spec tmp = {.oci_version = (char *)SPEC_OCI_VERSION,
			   .process = (struct spec_process *)in};
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	if (spec_emit(&tmp, &text, &len, err) < 0 ||
	    spec_parse(text, len, out, err) < 0)
		return error_wrap(err, "harden: copy process");
	return 0;
}

static void hardened_freep(struct hardened **h)
{
	hardened_free(*h);
}

static void policy_freep(struct policy **p)
{
	policy_free(*p);
}

int harden_process(const struct spec_process *in, const struct policy *policy,
		   const struct sandbox *sb, struct spec_process **out,
		   struct error **err)
{
	_cleanup_(hardened_freep) struct hardened *h = calloc(1, sizeof(*h));
	_cleanup_(policy_freep) struct policy *defaults = NULL;
	struct harden_ctx c;

	if (!h)
		return error_set(err, ENOMEM, "out of memory");
	if (copy_process(in, &h->spec, err) < 0)
		return -1;
	if (policy->mode != POLICY_PERMISSIVE) {
		if (policy_default(&defaults, err) < 0)
			return -1;
		/* in corral's own user namespace, the ids are the
		 * container's own (harden_user) */
		h->sandbox.userns_auto = sb && sb->userns_auto;
		h->sandbox.userns_uid = sb ? sb->userns_uid : 0;
		h->sandbox.userns_gid = sb ? sb->userns_gid : 0;
		/* a process joining a pod sandbox is held to a pause's
		 * share too (harden_pause) */
		h->sandbox.role = sb ? sb->role : ROLE_WORKLOAD;
		h->sandbox.enforced = true;
		c = (struct harden_ctx){.h = h,
					.spec = h->spec,
					.policy = policy,
					.defaults = defaults};
		for (size_t i = 0; i < ARRAY_SIZE(process_rules); i++) {
			if (process_rules[i](&c, err) < 0)
				return -1;
			if (c.oom)
				return error_set(
				    err, ENOMEM,
				    "harden: process: out of memory");
		}
	}
	if (sb && harden_egress_env(h->spec->process, sb, err) < 0)
		return -1;
	*out = steal_pointer(&h->spec->process);
	return 0;
}
