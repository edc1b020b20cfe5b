/* The running kernel as the runtime found it, and what corral does about
 * each facility that differs between the kernels it supports (Debian's
 * 5.10, 6.1 and 6.12, and newer: tests/vm/README.md lists each
 * difference).  Pure: the runtime probes (runtime/base/kernel_probe.c),
 * this decides and says so, and the code that acts on a difference asks
 * the same predicate, so what `corral features` and `corral explain` say
 * is what create does.
 */
#ifndef CORRAL_HOST_KERNEL_H
#define CORRAL_HOST_KERNEL_H

#include <stdbool.h>

struct host_kernel {
	bool known; /* probed; false: nothing is said, the oldest path taken */
	char release[65]; /* uname's, as it says it */
	unsigned major, minor;
	bool mount_setattr; /* the system call exists (Linux 5.12) */
};

/* release is at least major.minor; false when unknown. */
bool host_kernel_at_least(const struct host_kernel *k, unsigned major,
			  unsigned minor);

/* overlayfs clones a detached layer (fsmount's, open_tree's clone):
 * Linux 6.15.  Before it, the scratch and idmapped layers are attached in
 * the state directory while the overlay is made (runtime/fs/scratch.c). */
bool host_kernel_overlay_takes_detached(const struct host_kernel *k);

/* Idmapped layers under an overlay, which the user-namespace pool needs:
 * mount_setattr (5.12) and overlayfs taking idmapped layers (5.19).
 * Before it /etc/subuid's range is not taken as the pool
 * (runtime/state/policy_file.c); a pool the policy names is refused at
 * create when mount_setattr is missing. */
bool host_kernel_idmaps_layers(const struct host_kernel *k);

/* One facility and what corral does with it on this kernel: name is one
 * word, what a short phrase naming the version that decides it. */
struct host_kernel_fact {
	const char *name;
	const char *what;
};

#define HOST_KERNEL_N_FACTS 4

/* The facts, in a fixed order (scratch, binds, cpus, pool); 0 when the
 * kernel is unknown, else HOST_KERNEL_N_FACTS. */
unsigned host_kernel_facts(const struct host_kernel *k,
			   struct host_kernel_fact out[HOST_KERNEL_N_FACTS]);

#endif
