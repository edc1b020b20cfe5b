/* The host's sandbox policy: /etc/corral/policy.json, or --policy FILE,
 * or the built-in defaults.  Only the policy widens the sandbox (README's
 * sandbox table, docs/threat-model.md); harden() reads it, the runtime
 * never does.
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
#include "host_kernel.h"

#define POLICY_PATH "/etc/corral/policy.json"
#define POLICY_EGRESS_MAX 256 /* rules in network.allow */

enum policy_mode {
	POLICY_SANDBOX,	   /* "sandbox": the hardened sandbox (default) */
	POLICY_PERMISSIVE, /* "permissive": config.json as written; loud */
};

enum policy_network {
	POLICY_NET_LOOPBACK, /* "loopback": a new netns with only lo (default)
			      */
	POLICY_NET_CONFIG, /* "config": as config.json says (CNI, pod netns) */
	/* {"allow": [RULE...]}: a new netns with only lo, and corral's proxy
	 * on its 127.0.0.1 reaching exactly the hosts the rules name
	 * (spec/egress/egress.h), from the namespace config.json names or
	 * corral's own */
	POLICY_NET_EGRESS,
};

enum policy_rootfs {
	POLICY_ROOTFS_OVERLAY, /* "overlay": rootfs read-only lower + scratch */
	POLICY_ROOTFS_STRICT,  /* "strict": "/" read-only, scratch only at /tmp
				*/
};

/* A host path that bind mounts may come from: the path itself and
 * everything below it.  Mounted ro unless rw; always nosuid,nodev.  The
 * runtime opens a source without following symbolic links; with
 * follow_links, links below `source` are followed as long as they stay
 * below it. */
struct policy_mount {
	char *source;
	bool rw;
	bool follow_links;
};

/* A lifecycle hook of config.json that may run (as root, on the host):
 * the path, and the exact argument list (has_args false: no arguments
 * but the path itself). */
struct policy_hook {
	char *path;
	char **args;
	size_t n_args;
	bool has_args;
};

/* The host ids a user namespace of config.json may map to: container ids
 * map only into [host_id, host_id + size).  Never holds host id 0. */
struct policy_id_map {
	bool set;
	uint32_t host_id;
	uint32_t size;
};

/* The host ids corral's own user namespaces come from (user.pool, or the
 * host's /etc/subuid and /etc/subgid lines of the user "corral"): each
 * container gets a slice of POLICY_SLICE ids of it, its own, for the
 * container's ids 0-65535.  Both ranges start at or above POLICY_SLICE
 * (never host root nor a system id) and hold at least one slice. */
#define POLICY_SLICE 65536u

struct policy_pool {
	bool set;
	bool from_subid; /* read from /etc/subuid and /etc/subgid */
	uint32_t uid, gid;
	uint32_t size; /* ids in each range */
};

/* The slice of the pool the runtime reserved for one container (or its
 * pod sandbox's, for a member of the pod), which harden() maps the
 * container's ids to; unset when only explaining (explain then shows the
 * pool). */
struct policy_slice {
	bool set;
	bool pod; /* the pod sandbox's, whose user namespace it joins */
	uint32_t uid, gid;
};

/* A device node the container may have, with its cgroup access. */
struct policy_device {
	char *path; /* "/dev/nvidia0" */
	char type;  /* 'c' or 'b' */
	int64_t major;
	int64_t minor;
	char *access; /* "rwm" subset; NULL: "rw" */
};

/* What create does with a request of config.json's that the policy does
 * not allow, by kind ("refuse": {"mounts": true, ...}): refuse the
 * container with one line naming the request and the key that would
 * allow it (true, the default), or run it without, recorded in explain,
 * the runtime log and the report (false).  Each kind is what a user or a
 * workload asked for and relies on: */
enum policy_refusal {
	/* a bind (podman -v and --mount, a Kubernetes hostPath, a named
	 * volume) or a filesystem of another kind that no mounts entry
	 * allows, or that is never mounted (an engine's socket) */
	POLICY_REFUSE_MOUNTS,
	/* a kubelet volume of a kind volumes.kinds leaves out, or a secret
	 * volumes.secrets does not name */
	POLICY_REFUSE_VOLUMES,
	/* a device node devices does not list (podman --device) */
	POLICY_REFUSE_DEVICES,
	/* a namespace path corral does not join: a mount or cgroup
	 * namespace, or a user namespace without user.idMap */
	POLICY_REFUSE_NAMESPACES,
	POLICY_REFUSALS,
};

/* The names of the kinds, in the policy file and in the annotation
 * run.corral.refuse. */
extern const char *const policy_refusal_names[POLICY_REFUSALS];

/* process.rlimits the ceiling is known for: RLIMIT_CPU .. RLIMIT_RTTIME */
#define POLICY_RLIMITS 16

/* The limits one cgroup controller each enforces: memory, pids, cpu
 * (quota, period, shares, burst, idle, realtime). */
enum policy_limit {
	POLICY_LIMIT_MEMORY = 1,
	POLICY_LIMIT_PIDS = 2,
	POLICY_LIMIT_CPU = 4,
	POLICY_LIMITS_ALL = 7,
};

struct policy {
	enum policy_mode mode;
	enum policy_network network;
	/* POLICY_NET_EGRESS: the rules, each as egress_rule_text() writes it
	 * (checked and normalized when the policy is read) */
	char **egress_allow;
	size_t n_egress_allow;
	enum policy_rootfs rootfs;
	uint64_t scratch_size; /* bytes; default 64 MiB */
	char **env_allow;      /* names; default PATH, HOME, TERM, LANG */
	size_t n_env_allow;
	uint32_t uid;		     /* replaces uid 0; default 65534 */
	uint32_t gid;		     /* replaces gid 0; default 65534 */
	bool allow_root;	     /* keep uid/gid 0; default false */
	bool keep_groups;	     /* keep additionalGids; default false */
	struct policy_id_map id_map; /* default none: no user namespace */
	struct policy_pool pool;     /* default: /etc/subuid's "corral" */
	struct policy_slice slice;   /* the runtime's, per container */
	/* What the runtime found, for harden(), never read from a file: an
	 * ordinary user's corral (runtime/ids/rootless.h), whether its user
	 * namespace maps the caller's ids only, and whether the caller has a
	 * cgroup of its own to put limits in. */
	bool rootless;
	bool rootless_single;
	/* root of a user namespace of an ordinary user's already (rootless
	 * podman calls corral so): none is entered, the ids are that one's */
	bool rootless_nested;
	bool rootless_groups; /* single, and the caller has groups it keeps */
	/* a delegated cgroup of the caller's own (runtime/cgroup/cgroup.h), and
	 * which of the limits its controllers can enforce (POLICY_LIMIT_*) */
	bool cgroup_delegated;
	/* a fact the runtime sets: the container's cgroup is a scope made
	 * through systemd (runtime/cgroup/cgroup_systemd.c), for explain */
	bool cgroup_systemd;
	unsigned cgroup_controllers;
	/* the running kernel, for explain (unknown: nothing said) */
	struct host_kernel kernel;
	/* Host groups a container never runs in (names or decimal ids);
	 * privileged_gids is what the runtime resolved them to on this host
	 * (policy_resolve_groups), which harden() reads.  Group 0 is always
	 * privileged. */
	char **privileged_groups;
	size_t n_privileged_groups;
	uint32_t *privileged_gids;
	size_t n_privileged_gids;
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
	struct policy_hook *hooks; /* hooks that may run; default none */
	size_t n_hooks;
	/* Where the engines keep images and per-container files: root.path
	 * outside the bundle, and the engine files (/etc/hosts ...), must be
	 * below one of these. */
	char **engine_dirs;
	size_t n_engine_dirs;
	/* "volumes": {"kinds": [...], "secrets": [NAME...]}: the kubelet's
	 * volume kinds a pod's container keeps (emptyDir rw, configMap and
	 * downwardAPI ro; default all three), and its secret volumes, by
	 * volume name (default none) (harden_mounts.c) */
	char **volume_kinds;
	size_t n_volume_kinds;
	char **volume_secrets;
	size_t n_volume_secrets;
	/* "refuse": what is refused at create, by kind (enum
	 * policy_refusal; default: every kind) */
	bool refuse[POLICY_REFUSALS];
	/* "workspace": {"allowOwn": B}: `corral sandbox --workspace DIR`
	 * mounts a directory of the caller's own read-write without a
	 * mounts entry (default true; never a system directory,
	 * policy_workspace_check) */
	bool workspace_own;
	/* "report": {"dir": D}: delete writes each container's JSON report
	 * as D/ID.json; NULL: none (a clean absolute path) */
	char *report_dir;
	/* Not in the file: root filesystems the caller named itself on the
	 * command line (`corral sandbox --rootfs DIR`), each allowed as a
	 * root.path exactly. */
	char **root_dirs;
	size_t n_root_dirs;
	/* Not in the file: the uid of the Kubernetes pod this container
	 * proved it belongs to (runtime/ns/pod.c pod_claim: its pod
	 * sandbox is one corral made for the same engine process), whose
	 * kubelet volumes it may mount; NULL: none.  Never config.json's
	 * word alone. */
	char *pod_uid;
	/* Not in the file: the workspace `corral sandbox` mounts at
	 * /workspace, which the runtime found to be a directory of the
	 * caller's own (policy_workspace_check): a bind of exactly this
	 * source is kept read-write.  NULL: none. */
	char *workspace;
	/* Not in the file: bind sources the caller's own config names only
	 * to show what the sandbox cuts (`corral sandbox`'s host /etc):
	 * without an entry allowing them they are dropped, recorded, never
	 * refused, since no user asked for them. */
	char **drop_sources;
	size_t n_drop_sources;
	/* Not in the file: the runtime's own hard rlimits (getrlimit), the
	 * ceiling of config.json's (index: RLIMIT_*); unknown when not
	 * rlimits_known (harden() then leaves the clamp to the stage). */
	bool rlimits_known;
	uint64_t rlimit_max[POLICY_RLIMITS];
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

/* Whether a path is "/" or one of the host's system directories (/etc,
 * /usr, /proc, ...) itself, which no root filesystem or store may be. */
bool policy_system_dir(const char *path);

/* Whether DIR may be a workspace of the caller's own (`corral sandbox
 * --workspace`): never "/", a system tree (/etc, /usr, /boot, /proc,
 * /sys, /dev, /run, /var but for below /var/tmp, /bin, /sbin, /lib*),
 * nor a directory that holds the users' files (/home, /root, /tmp,
 * /var/tmp, /srv, /opt, /mnt, /media) or a user's home itself (a
 * directory right below /home, or `home`, the caller's $HOME; NULL:
 * none).  NULL when it may; else why not. */
const char *policy_workspace_forbidden(const char *dir, const char *home);

/* `corral sandbox --workspace DIR` under this policy: 0 when a mounts
 * entry allows DIR (harden() then judges the bind as any other) and
 * *own false, or when it is the caller's own (owner == caller, the
 * caller's real uid, as the runtime read them on the opened descriptor),
 * workspace.allowOwn is on and policy_workspace_forbidden allows it, and
 * *own true; else -1 and one line naming DIR, why and the key that would
 * allow it. */
int policy_workspace_check(const struct policy *p, const char *dir,
			   const char *home, uint32_t owner, uint32_t caller,
			   bool *own, struct error **err);

/* Set privileged_gids from privileged_groups: decimal ids as they are,
 * names through `lookup` with `ctx` (the runtime's reader of the host's
 * group database; a name it does not know is skipped, as the host has no
 * such group).  Group 0 is always added. */
/* Narrow `system` (the administrator's policy) by `user` (an ordinary
 * user's own, runtime/ids/rootless.h), in place: every key becomes the
 * narrower of the two (lists their common entries, limits the smaller,
 * a mounts or engineDirs entry the deeper directory where one holds the
 * other, booleans that allow only if both do), so the result is never
 * wider than either.  The privileged groups are both's: resolve them
 * again afterwards. */
int policy_narrow(struct policy *system, const struct policy *user,
		  struct error **err);

/* 0 when a pool of these host ids is valid (struct policy_pool), -1
 * when not. */
int policy_pool_check(int64_t uid, int64_t gid, int64_t size);

int policy_resolve_groups(struct policy *policy,
			  bool (*lookup)(void *ctx, const char *name,
					 uint32_t *gid),
			  void *ctx, struct error **err);

#endif
