/* The host's sandbox policy: /etc/corral/policy.json, or --policy FILE,
 * or the built-in defaults.  Only the policy widens the sandbox (DESIGN.md,
 * "The sandbox"); harden() reads it, the runtime never does.
 *
 * Invariants: a parsed policy starts from the built-in defaults and each key
 * present replaces one default.  Unknown keys and wrong types are errors
 * naming the JSON path: a typo in a security policy must never widen or be
 * ignored.  Strings and lists are owned as in spec.h.
 */
#ifndef CORRAL_POLICY_H
#define CORRAL_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define POLICY_PATH "/etc/corral/policy.json"

enum policy_mode {
	POLICY_SANDBOX,	   /* "sandbox": the hardened sandbox (default) */
	POLICY_PERMISSIVE, /* "permissive": config.json as written; loud */
};

enum policy_network {
	POLICY_NET_LOOPBACK, /* "loopback": a new netns with only lo (default)
			      */
	POLICY_NET_CONFIG, /* "config": as config.json says (CNI, pod netns) */
};

enum policy_rootfs {
	POLICY_ROOTFS_OVERLAY, /* "overlay": rootfs read-only lower + scratch */
	POLICY_ROOTFS_STRICT,  /* "strict": "/" read-only, scratch only at /tmp
				*/
};

/* A host path that bind mounts may come from: the path itself and
 * everything below it.  Mounted ro unless rw; always nosuid,nodev. */
struct policy_mount {
	char *source;
	bool rw;
};

/* A device node the container may have, with its cgroup access. */
struct policy_device {
	char *path; /* "/dev/nvidia0" */
	char type;  /* 'c' or 'b' */
	int64_t major;
	int64_t minor;
	char *access; /* "rwm" subset; NULL: "rw" */
};

struct policy {
	enum policy_mode mode;
	enum policy_network network;
	enum policy_rootfs rootfs;
	uint64_t scratch_size; /* bytes; default 64 MiB */
	char **env_allow;      /* names; default PATH, HOME, TERM, LANG */
	size_t n_env_allow;
	uint32_t uid;	  /* replaces uid 0; default 65534 */
	uint32_t gid;	  /* replaces gid 0; default 65534 */
	bool allow_root;  /* keep uid/gid 0; default false */
	bool keep_groups; /* keep additionalGids; default false */
	char **caps_keep; /* capability names; default none */
	size_t n_caps_keep;
	char **syscalls_allow; /* added to the seccomp baseline; default none */
	size_t n_syscalls_allow;
	uint64_t wall_clock; /* seconds; 0 = none; default 600 */
	int64_t memory;	     /* bytes; 0 = none; default 512 MiB */
	int64_t pids;	     /* 0 = none; default 256 */
	int64_t cpu_quota;   /* microseconds per cpu_period; 0 = none */
	uint64_t cpu_period; /* default 100000 */
	bool
	    limits_best_effort; /* a limit that cannot be enforced is skipped */
	struct policy_mount *mounts;
	size_t n_mounts;
	struct policy_device *devices;
	size_t n_devices;
	char **sysctl_allow; /* exact names, or a prefix ending in ".*" */
	size_t n_sysctl_allow;
};

/* The built-in defaults. */
int policy_default(struct policy **out, struct error **err);

/* Parse a policy document over the defaults.  Errors name the JSON path:
 * ".limits.memroy: unknown key", ".user.uid: expected an unsigned 32-bit
 * integer". */
int policy_parse(const char *json, size_t len, struct policy **out,
		 struct error **err);

/* The policy as a complete JSON document (every key), which policy_parse()
 * reads back to an equal policy. */
int policy_emit(const struct policy *policy, char **out, struct error **err);

void policy_free(struct policy *policy);

#endif
