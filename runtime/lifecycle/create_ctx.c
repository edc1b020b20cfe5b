/* What create.c and spawn.c both ask of the container being created
 * (create_ctx.h): its cgroup made, and whether it gets a report's view of
 * the scratch and an egress helper of its own. */
#include "create_ctx.h"

#include "log.h"
#include "util.h"

/* The container's cgroup, with every limit written, before the container
 * runs any code.  A limit that cannot be enforced fails create unless
 * the policy says limits are best-effort; then it is named in the log. */
int create_make_cgroup(struct create_ctx *c, struct error **err)
{
	const struct spec_linux *l = c->spec->linux_;
	struct spec_resources r = {0};
	char **skipped = NULL;

	if (l && l->resources)
		r = *l->resources;
	/* the systemd driver starts its scope with the first process in it */
	c->cgroup->pid = c->pid;
	/* an ordinary user's corral writes no device rules (harden_kernel.c
	 * rootless_device_rules says why none is needed); config.json keeps
	 * them as what /dev allows */
	if (c->hardened->sandbox.no_device_cgroup) {
		r.devices = NULL;
		r.n_devices = 0;
	}
	if (cgroup_make(c->cgroup, l && l->resources ? &r : NULL,
			c->hardened->sandbox.limits_best_effort, &skipped,
			err) < 0)
		return -1; /* it removed what it made */
	c->cgroup_made = true;
	for (char **s = skipped; s && *s; s++)
		log_warn("%s: %s is not enforced (limits are best-effort)",
			 c->o->id, *s);
	strv_free(skipped);
	return 0;
}

/* The host's view of the scratch (the report's files changed) is
 * attached only when a report will be written: a mount under the state
 * root is one more thing delete must find, and an administrator who
 * mounts over the root hides it (tests/security/faults.bats). */
bool create_report_wanted(const struct create_ctx *c)
{
	/* An ordinary user's corral makes its mounts in a namespace of its
	 * own, which ends with the command: the view lasts for a --report,
	 * which the same command writes at its delete, not for the policy's
	 * report.dir, which a later delete writes.  Root of rootless
	 * podman's user namespace enters none: podman runs every command
	 * in the same one. */
	bool own_mntns = c->policy->rootless && !c->policy->rootless_nested;

	return c->o->report || (c->policy->report_dir && !own_mntns);
}

/* In its pod's network, the pod sandbox's proxy serves a container. */
bool create_egress_wanted(const struct create_ctx *c)
{
	return c->hardened->sandbox.enforced &&
	       c->hardened->sandbox.egress_on &&
	       !c->hardened->sandbox.pod_network;
}
