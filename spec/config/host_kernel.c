/* What corral does about each kernel difference (host_kernel.h). */
#include "host_kernel.h"

bool host_kernel_at_least(const struct host_kernel *k, unsigned major,
			  unsigned minor)
{
	if (!k->known)
		return false;
	return k->major > major || (k->major == major && k->minor >= minor);
}

bool host_kernel_overlay_takes_detached(const struct host_kernel *k)
{
	return host_kernel_at_least(k, 6, 15);
}

bool host_kernel_idmaps_layers(const struct host_kernel *k)
{
	return k->mount_setattr && host_kernel_at_least(k, 5, 19);
}

/* The words each fact takes; every phrase names the kernel facility and
 * the version that decides it, so a reader of `corral explain` on an old
 * host knows what a newer one would do. */
static const char *pool_what(const struct host_kernel *k)
{
	if (!k->mount_setattr)
		return "refused (no mount_setattr: idmapped mounts, Linux "
		       "5.12); /etc/subuid's range not taken";
	if (!host_kernel_idmaps_layers(k))
		return "/etc/subuid's range not taken (idmapped layers under "
		       "overlayfs: Linux 5.19)";
	return "idmapped layers (mount_setattr)";
}

unsigned host_kernel_facts(const struct host_kernel *k,
			   struct host_kernel_fact out[HOST_KERNEL_N_FACTS])
{
	if (!k->known)
		return 0;
	out[0] = (struct host_kernel_fact){
	    "scratch", host_kernel_overlay_takes_detached(k)
			   ? "made detached (6.15+)"
			   : "attached while made (before 6.15)"};
	out[1] = (struct host_kernel_fact){
	    "binds", k->mount_setattr
			 ? "restricted before attach (mount_setattr)"
			 : "restricted after attach (no mount_setattr)"};
	/* run and exec take the caller's CPUs back on every kernel
	 * (runtime/cgroup/cpus.h); before 6.2 that is what keeps them */
	out[2] = (struct host_kernel_fact){
	    "cpus", host_kernel_at_least(k, 6, 2)
			? "kept through the cgroup join (6.2+)"
			: "taken back after the cgroup join (before 6.2)"};
	out[3] = (struct host_kernel_fact){"pool", pool_what(k)};
	return HOST_KERNEL_N_FACTS;
}
