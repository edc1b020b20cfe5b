/* harden(): config.json + the host's policy -> the effective spec that the
 * runtime applies, the sandbox settings config.json cannot express, and the
 * list of every change with its reason.  Pure: no system calls.
 *
 * Guarantees (checked by the unit tests over generated inputs):
 * - harden is idempotent: hardening an effective spec again with the same
 *   policy changes nothing.
 * - The effective spec is never wider than config.json nor than the policy:
 *   capabilities, env names, mounts, devices and sysctls are subsets of
 *   both; memory, pids, cpu and the wall clock are at most either.
 * - Annotations (run.corral.timeout, run.corral.memory, run.corral.pids)
 *   only narrow; one that would widen is an error, not a no-op.
 * - Every field of config.json the parser knows has a rule
 *   (harden_fields[], checked against the parser by a unit test).
 * - What the runtime must still check on the host is returned as data:
 *   each kept bind mount with the rule that kept it (binds[]), and where
 *   the root filesystem must be found (root_beneath, root_path).
 */
#ifndef CORRAL_HARDEN_H
#define CORRAL_HARDEN_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "policy.h"
#include "spec.h"

#define ANNOTATION_TIMEOUT "run.corral.timeout"
#define ANNOTATION_MEMORY "run.corral.memory"
#define ANNOTATION_PIDS "run.corral.pids"
#define ANNOTATION_EGRESS "run.corral.egress"
/* "mounts,devices": kinds of request (policy.h enum policy_refusal) that
 * fail create although the policy would drop them; never the reverse */
#define ANNOTATION_REFUSE "run.corral.refuse"

/* The code of a refusal's error (harden_refuse.c): its one line names the
 * request, why and the policy key that would allow it, whole as it is
 * ("bind /srv/data on /data: ..."), so callers print it as it is. */
#define HARDEN_REFUSED EACCES

/* Where corral's egress proxy listens inside the container's network
 * namespace (the workload's HTTP(S)_PROXY). */
#define EGRESS_PROXY_ADDR "127.0.0.1"
#define EGRESS_PROXY_PORT 3128
#define EGRESS_PROXY_AUTHORITY "127.0.0.1:3128"

enum sandbox_role {
	ROLE_WORKLOAD,	  /* runs the untrusted code */
	ROLE_POD_SANDBOX, /* Kubernetes pause / podman infra: no wall clock */
};

/* What the runtime applies beyond the effective spec. */
struct sandbox {
	bool enforced; /* false under a permissive policy */
	enum sandbox_role role;
	bool loopback_only; /* new netns with lo up and nothing else */
	enum policy_rootfs rootfs;
	uint64_t scratch_size; /* bytes */
	uint64_t wall_clock;   /* seconds; 0 = none */
	char **syscalls_allow; /* extra calls on top of the seccomp baseline */
	size_t n_syscalls_allow;
	bool limits_best_effort;
	/* corral's egress proxy (spec/harden/harden_egress.c): on, and the
	 * rules it applies (egress_rule_text form; none: it refuses every
	 * host) */
	bool egress_on;
	char **egress;
	size_t n_egress;
	/* config.json's network namespace path, which the container does
	 * not join: where the proxy dials from (NULL: corral's own), and for
	 * a pod sandbox, where its members' proxies dial from */
	char *engine_netns;
	/* a pod member in its pod sandbox's network namespace, which the
	 * runtime found to be corral's (runtime/ns/pod.c): the pod's
	 * proxy serves it */
	bool pod_network;
	/* corral's own user namespace (policy: user.pool): the container's
	 * ids 0-65535 are the host ids from userns_uid and userns_gid (the
	 * slice the runtime reserved, the pool's start when only explained),
	 * and the root filesystem's layers are idmapped onto them, so that
	 * the image's root owns its files inside and nothing outside */
	bool userns_auto;
	uint32_t userns_uid, userns_gid;
	/* an ordinary user's corral without a cgroup of its own: memory,
	 * pids and cpu are not limited (policy: limits.bestEffort) and the
	 * runtime makes no cgroup */
	bool no_cgroup;
	/* an ordinary user's corral with a delegated cgroup of its own: the
	 * container's cgroup is made there (runtime/cgroup/cgroup.h) */
	bool cgroup_delegated;
	/* the cgroup is a transient scope systemd makes (policy.h) */
	bool cgroup_systemd;
	/* the limits not enforced (POLICY_LIMIT_*): all without a cgroup,
	 * those whose controller the delegated cgroup lacks, each only under
	 * limits.bestEffort */
	unsigned limits_off;
	/* an ordinary user's corral writes no device rules: the kernel
	 * takes none from it, and outside the host's user namespace no
	 * device node opens but those bound from the host (the standard
	 * ones and the policy's devices; every other mount made there is
	 * nodev, and binds of host paths are forced nodev) */
	bool no_device_cgroup;
	/* an ordinary user's corral (runtime/ids/rootless.h): the container is
	 * in the caller's own user namespace, which maps the caller's ids
	 * alone (single) or its subordinate ids too; or (nested) in the user
	 * namespace the caller is root of already, an engine's (rootless
	 * podman's) */
	bool rootless, rootless_single, rootless_nested;
	/* the kernel the runtime found and what corral does about each of
	 * its differences (host_kernel.h), for explain */
	struct host_kernel kernel;
};

/* One change to config.json: the field (a JSON path in config.json, or a
 * sandbox setting such as "sandbox.wallClock"), what config.json asked
 * ("absent" when it said nothing), what will run, and why: "default" or
 * "policy: KEY" or "annotation: NAME". */
struct harden_change {
	char *field;
	char *asked;
	char *applied;
	char *reason;
	bool warn; /* the runtime also prints it as a warning */
	/* the container runs without something config.json asked for (a
	 * mount, a device, capabilities, variables, a hook ...): `corral
	 * report` lists it under "changed by the sandbox" */
	bool dropped;
};

/* Why a bind mount of the effective spec was kept, which tells the
 * runtime how to open its source on the host: never through a symbolic
 * link, and checked again on what it opened. */
enum harden_bind_kind {
	BIND_POLICY,	  /* below a policy mounts entry */
	BIND_ENGINE_FILE, /* an engine's file (/etc/hosts ...): a regular file
			   */
	BIND_AS_WRITTEN,  /* permissive policy: config.json's own */
	BIND_VOLUME,	  /* a kubelet volume of the pod's own: a directory
			     below the engine directory that holds it */
};

struct harden_bind {
	size_t mount; /* index in spec->mounts */
	enum harden_bind_kind kind;
	char *entry;	   /* the directory the source must stay below */
	bool follow_links; /* links below entry are followed (policy) */
	bool workspace;	   /* `corral sandbox --workspace`, the caller's own */
};

struct hardened {
	struct spec *spec; /* the effective spec */
	struct sandbox sandbox;
	struct harden_change *changes;
	size_t n_changes;
	struct harden_bind *binds; /* one per bind mount of spec->mounts */
	size_t n_binds;
	/* The root filesystem is root_path (relative and clean, or "." for
	 * root_beneath itself) below the directory root_beneath: an engine
	 * directory, or the caller's own root; root_beneath NULL: the
	 * bundle.  Both NULL under a permissive policy (root.path as
	 * written). */
	char *root_beneath;
	char *root_path;
	/* root_beneath is an engine directory (engineDirs): the runtime
	 * takes the root only when the engine's own records tie it to this
	 * container (runtime/fs/engine_root.c), never another container's
	 * snapshot or merged directory. */
	bool root_engine;
	/* corral's own user namespace over an engine's overlay root: where
	 * each of its layers must be (the policy's engineDirs), as they are
	 * opened and idmapped one by one (runtime/fs/overlay_layers.h) */
	char **layer_dirs;
	size_t n_layer_dirs;
};

/* The role config.json's markers give a container (a pod sandbox by the
 * engines' annotations, else a workload). */
enum sandbox_role harden_role(const struct spec *s);

/* bundle is the bundle's absolute path (NULL when there is none, as for a
 * config that is only explained): a root.path or an engine file inside it
 * is the bundle's own. */
int harden(const struct spec *config, const struct policy *policy,
	   const char *bundle, struct hardened **out, struct error **err);
/* The same on *config itself, which becomes (*out)->spec: *config is
 * NULL afterwards, on failure too (freed).  For a config the caller has
 * just parsed and needs no more: harden()'s copy would give the same. */
int harden_take(struct spec **config, const struct policy *policy,
		const char *bundle, struct hardened **out, struct error **err);
void hardened_free(struct hardened *h);

/* The process of `exec` under the same policy: harden()'s process rules
 * (env allowlist, uid/gid 0 replaced, groups, capabilities narrowed to the
 * policy's keep list, no_new_privs, RLIMIT_CORE) on a copy of `in`, in
 * the container's sandbox `sb` (its own user namespace, the egress
 * proxy's variables; NULL: neither).  A permissive policy returns an
 * unchanged copy.  Pure, idempotent. */
int harden_process(const struct spec_process *in, const struct policy *policy,
		   const struct sandbox *sb, struct spec_process **out,
		   struct error **err);

/* The proxy's variables (HTTP_PROXY ...) set in `p`'s environment when
 * the sandbox has corral's egress proxy, replacing any of the same name:
 * for the workload (harden) and every exec'd process. */
int harden_egress_env(struct spec_process *p, const struct sandbox *s,
		      struct error **err);

/* The sandbox settings and the change list as JSON (kept in the state dir
 * as sandbox.json; `explain --format json` prints it with the blast
 * radius), and back. */
int hardened_emit_sandbox(const struct hardened *h, char **out,
			  struct error **err);
int hardened_parse_sandbox(const char *json, size_t len, struct sandbox *out,
			   struct error **err);
void sandbox_release(struct sandbox *s);

/* The rule harden() applies to each field of config.json, in the order
 * of the document; the threat model (docs/threat-model.md) prints the
 * same table.  decision is one of "kept", "narrowed", "replaced",
 * "dropped", "refused" or several of them joined by " or ".  kind says
 * what becomes of a request the rule does not apply as asked: "refused"
 * (create fails with one line), "refused (refuse.KIND)" (fails unless the
 * policy's switch of that kind is off, and then dropped, recorded),
 * "recorded" (dropped or narrowed, and the change is in explain, the
 * runtime log and the report's "changed by the sandbox"), "not read" (a
 * field the parser does not know), or several joined by " or "; NULL for
 * a field always applied as asked or only ever lowered to a limit. */
struct harden_field {
	const char *path; /* ".process.user.uid", ".mounts[].options" */
	const char *decision;
	const char *rule;
	const char *kind;
};
extern const struct harden_field harden_fields[];
extern const size_t harden_n_fields;

/* `corral update`: check a request of new limits (`request`, edited in
 * place) against the container's stored resources and the policy it was
 * created under: device rules are dropped (fixed at create), a quota
 * keeps the stored period, swap follows memory under the sandbox, and a
 * limit wider than the policy's is an error ("memory 1GiB is wider than
 * the policy's 512MiB").  notes says what was changed for the caller to
 * warn about.  Then harden_update_merge() takes the request into the
 * stored resources (what it takes leaves the request). */
struct harden_update_notes {
	bool devices_dropped;
	bool swap_set_to_limit;
};
int harden_update(struct spec_resources *request,
		  const struct spec_resources *current,
		  const struct policy *policy,
		  struct harden_update_notes *notes, struct error **err);
int harden_update_merge(struct spec_resources *stored,
			struct spec_resources *request, struct error **err);

/* The table for `corral explain --fields`, as text or JSON. */
int explain_fields(bool json, char **out, struct error **err);

/* `corral explain`: what the container can reach and every change, for a
 * person (text) or a program (JSON). */
int explain_text(const struct hardened *h, char **out, struct error **err);
int explain_json(const struct hardened *h, char **out, struct error **err);

#endif
