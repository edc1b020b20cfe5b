/* Internal to harden(): the state one run carries, the change recorder and
 * the small list helpers the rule modules share.
 *
 * Each rule is one function `int harden_X(struct harden_ctx *, struct
 * error **)` for one row of the sandbox table (README.md).  It edits c->spec
 * (the effective spec, a private copy of config.json) in place and
 * records every difference it makes.  Recording never fails the rule:
 * out of memory sets c->oom, and harden() fails once the rule returns, so
 * the rules read as a list of decisions rather than of error checks.
 */
#ifndef CORRAL_HARDEN_INTERNAL_H
#define CORRAL_HARDEN_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <yajl/yajl_gen.h>

#include "harden.h"

struct harden_ctx {
	struct hardened *h;
	struct spec *spec; /* h->spec, the effective spec being built */
	const struct policy *policy;
	const struct policy
	    *defaults;	    /* the built-ins: "default" or "policy: KEY" */
	const char *bundle; /* absolute, or NULL */
	size_t cap_changes;
	bool oom;
	/* each kind of request refused at create (harden_refuse.c): the
	 * policy's "refuse", or the annotation run.corral.refuse's */
	bool refuse[POLICY_REFUSALS];
	bool refuse_annotated[POLICY_REFUSALS];
};

/* "default" when the policy's value is the built-in one, else
 * "policy: KEY".  KEY must be a string literal. */
#define HARDEN_WHY(is_default, key) ((is_default) ? "default" : "policy: " key)

#define ROLE_REASON "role: pod sandbox"

/* Append a change.  NULL arguments (a formatter that ran out of memory)
 * set c->oom instead. */
void harden_record(struct harden_ctx *c, const char *field, const char *asked,
		   const char *applied, const char *reason);

/* Mark the change recorded last as one the container runs without
 * (struct harden_change dropped); a change whose applied value starts
 * with "dropped" is marked so by harden_record itself. */
void harden_mark_dropped(struct harden_ctx *c);

/* harden_refuse.c: what config.json asked for that the policy does not
 * allow, of a kind a user relies on (policy.h enum policy_refusal).
 * harden_refusals, the first rule, reads the policy's switches and the
 * annotation run.corral.refuse (which may only add kinds).
 * harden_refuse: refused, -1 and the one line "WHAT: WHY (policy: KEY)"
 * (KEY NULL: no key allows it, and the line names the switch instead);
 * or, where the kind's refusal is off, 0 and the drop recorded as FIELD:
 * ASKED -> dropped, for the caller to drop it.  WHAT and WHY must be safe
 * to print (harden_safe). */
int harden_refusals(struct harden_ctx *c, struct error **err);
int harden_refuse(struct harden_ctx *c, enum policy_refusal kind,
		  const char *field, const char *asked, const char *what,
		  const char *why, const char *key, struct error **err);

/* A formatted heap string; NULL (and c->oom) when out of memory. */
char *harden_fmt(struct harden_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* v[0..n) joined with sep; "" for an empty list. */
char *harden_join(struct harden_ctx *c, char *const *v, size_t n,
		  const char *sep);

/* "[a, b]", "[]" */
char *harden_list(struct harden_ctx *c, char *const *v, size_t n);

/* An optional number as "absent" or its decimal value. */
char *harden_opt(struct harden_ctx *c, struct spec_opt o);

/* A config.json string made safe for a one-line message: control
 * characters become '?', and it is cut after max bytes.  NULL when out of
 * memory. */
char *harden_safe(const char *s, size_t max);

bool harden_strv_has(char *const *v, size_t n, const char *s);
bool harden_strv_equal(char *const *a, size_t na, char *const *b, size_t nb);
/* Append a copy of s to a NULL-terminated list; false when out of memory. */
bool harden_strv_push(char ***v, size_t *n, const char *s);

/* Whether path is prefix or below it, on whole components:
 * "/data/x" is under "/data", "/database" is not.  "/" holds everything. */
bool harden_path_under(const char *path, const char *prefix);

/* Whether the namespaces of lx (NULL: none) hold one of type t. */
bool harden_has_namespace(const struct spec_linux *lx, enum spec_ns_type t);

/* The value of an annotation of the config, or NULL. */
const char *harden_annotation(const struct spec *s, const char *key);

/* The linux object and its resources, created when config.json has none;
 * NULL (and c->oom) when out of memory. */
struct spec_linux *harden_linux(struct harden_ctx *c);
struct spec_resources *harden_resources(struct harden_ctx *c);

/* harden_egress.c: the hosts corral's proxy lets the container reach */
int harden_egress(struct harden_ctx *c, struct error **err);
int harden_egress_environment(struct harden_ctx *c, struct error **err);

/* harden_rules.c: namespaces, rootfs, env, user, capabilities, syscalls */
int harden_namespaces(struct harden_ctx *c, struct error **err);
int harden_rootfs(struct harden_ctx *c, struct error **err);
int harden_env(struct harden_ctx *c, struct error **err);
int harden_user(struct harden_ctx *c, struct error **err);

/* harden_host.c: what touches the host itself: the root filesystem's
 * place, user-namespace id maps, lifecycle hooks */
int harden_root_path(struct harden_ctx *c, struct error **err);
int harden_id_maps(struct harden_ctx *c, struct error **err);
int harden_hooks(struct harden_ctx *c, struct error **err);
int harden_capabilities(struct harden_ctx *c, struct error **err);
int harden_syscalls(struct harden_ctx *c, struct error **err);

/* harden_limits.c: the wall clock, memory, pids, cpu */
int harden_time(struct harden_ctx *c, struct error **err);
int harden_pause(struct harden_ctx *c, struct error **err);

/* Whether the component `back` places from the end of path (0: the
 * last) is `name`. */
bool harden_component_is(const char *path, int back, const char *name);
/* A bind source that is one of the kubelet's volumes of the container's
 * own pod (harden_volumes.c): the engine directory it lies in, whether
 * the container keeps it, writable or read-only, and why. */
struct harden_volume {
	const char *dir;
	bool keep;
	bool rw;
	const char *reason; /* kept: the reason recorded; else why not */
	const char *key;    /* not kept: the policy key that would keep it */
};
bool harden_kubelet_volume(const struct harden_ctx *c, const char *source,
			   struct harden_volume *v);

/* The policy's mounts entry with the longest source holding `source`
 * (clean, absolute), or NULL. */
const struct policy_mount *harden_policy_mount(const struct policy *p,
					       const char *source);
int harden_memory(struct harden_ctx *c, struct error **err);
int harden_pids(struct harden_ctx *c, struct error **err);
int harden_cpu(struct harden_ctx *c, struct error **err);
int harden_kernel_memory(struct harden_ctx *c, struct error **err);
int harden_net_classes(struct harden_ctx *c, struct error **err);

/* harden_mount_options.c: options to remove and to add so a mount is
 * what its rule wants */
struct option_rule {
	const char *remove[7];
	const char *add[4];
};
/* Apply a rule (and a tmpfs size= to add) to m's options, leaving only
 * those on the list for its kind; true when they changed. */
bool harden_rewrite_options(struct harden_ctx *c, struct spec_mount *m,
			    const struct option_rule *r, const char *size);
/* A tmpfs may be as large as the scratch, no larger: a size= that is
 * absent, larger, or a share of memory is removed; true when it fits. */
bool harden_size_fits(struct spec_mount *m, uint64_t max);
/* "bind /src [rbind,ro]" and "options rbind,ro,nosuid", safe to print */
char *harden_describe_mount(struct harden_ctx *c, const struct spec_mount *m);
char *harden_options_string(struct harden_ctx *c, const struct spec_mount *m);

/* harden_mounts.c */
bool harden_is_bind(const struct spec_mount *m);
int harden_mounts(struct harden_ctx *c, struct error **err);
/* The kept binds as data for the runtime (BIND_AS_WRITTEN for every bind
 * under a permissive policy). */
void harden_list_binds(struct harden_ctx *c, bool permissive);

/* Why the container has corral's own user namespace: the policy's pool
 * or the host's subordinate ids (harden_rules.c). */
const char *harden_pool_reason(const struct harden_ctx *c);

/* A path that is absolute and has no ".", ".." or empty component and no
 * trailing slash; "/" is clean. */
bool harden_clean_path(const char *p);

/* harden_kernel.c: masked and read-only paths, devices, rlimits,
 * personality */
int harden_kernel_paths(struct harden_ctx *c, struct error **err);
int harden_devices(struct harden_ctx *c, struct error **err);
int harden_devices_permissive(struct harden_ctx *c, struct error **err);
int harden_rlimits(struct harden_ctx *c, struct error **err);
int harden_personality(struct harden_ctx *c, struct error **err);

/* harden_sysctl.c: sysctls by allowlist, by namespace and by value, and
 * low ports in the loopback-only namespace corral makes */
int harden_sysctls(struct harden_ctx *c, struct error **err);

/* harden.c: the role of a container from its annotations, the names of
 * the enums, and the pieces of the JSON documents explain.c shares. */
const char *harden_role_name(enum sandbox_role role);
const char *harden_rootfs_name(enum policy_rootfs rootfs);
void harden_emit_sandbox_object(yajl_gen g, const struct sandbox *s);
void harden_emit_changes(yajl_gen g, const struct hardened *h);

/* The device nodes every container gets from the runtime, and their
 * cgroup rules (harden_kernel.c; explain lists them too). */
struct harden_std_device {
	const char *path;
	int64_t major;
	int64_t minor; /* -1: every minor */
	bool node;     /* the runtime makes the node (else only the rule) */
};
extern const struct harden_std_device harden_std_devices[];
extern const size_t harden_n_std_devices;

#endif
