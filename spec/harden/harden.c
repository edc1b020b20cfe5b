/* harden(): config.json + the host's policy -> the effective spec, the
 * sandbox settings and the list of changes.  This file is the driver (one
 * rule per row of the sandbox table in README.md, in the table's order)
 * and the sandbox settings as JSON.  The rules themselves are in
 * harden_rules.c, harden_host.c, harden_limits.c, harden_mounts.c and
 * harden_kernel.c; the helpers they share in harden_ctx.c.
 *
 * Pure: no system calls.  What needs the host (is this namespace path the
 * host's? what are the caller's rlimits?) is checked by the runtime on the
 * effective spec.
 */
#include "harden.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harden_internal.h"
#include "json.h"
#include "json_tidy.h"
#include "parse_internal.h"
#include "util.h"

static const struct {
	const char *concern;
	int (*apply)(struct harden_ctx *c, struct error **err);
} rules[] = {
    {"refusals", harden_refusals},
    {"network", harden_egress},
    {"namespaces", harden_namespaces},
    {"filesystem", harden_rootfs},
    {"filesystem", harden_root_path},
    {"host mounts", harden_mounts},
    {"secrets", harden_env},
    {"network", harden_egress_environment},
    {"privileges", harden_user},
    {"privileges", harden_id_maps},
    {"privileges", harden_capabilities},
    {"syscalls", harden_syscalls},
    {"time", harden_time},
    {"memory", harden_memory},
    {"memory", harden_kernel_memory},
    {"network", harden_net_classes},
    {"pids", harden_pids},
    {"cpu", harden_cpu},
    {"kernel surface", harden_kernel_paths},
    {"kernel surface", harden_devices},
    {"kernel surface", harden_sysctls},
    {"kernel surface", harden_rlimits},
    {"time", harden_pause},
    {"kernel surface", harden_personality},
    {"hooks", harden_hooks},
};

/* Pod infrastructure containers run no untrusted code and must outlive
 * the pod's workloads: containerd's CRI sandbox, CRI-O's, and a podman
 * infra container marked by the annotation below (podman itself writes no
 * infra marker into config.json; containers.conf can add one). */
static const struct {
	const char *key;
	const char *value; /* compared case-insensitively: podman says TRUE */
} pod_sandbox_markers[] = {
    {"io.kubernetes.cri.container-type", "sandbox"},
    {"io.kubernetes.cri-o.ContainerType", "sandbox"},
    {"io.podman.annotations.infra", "true"},
};

static const char *const role_names[] = {
    [ROLE_WORKLOAD] = "workload",
    [ROLE_POD_SANDBOX] = "pod-sandbox",
};

static const char *const rootfs_names[] = {
    [POLICY_ROOTFS_OVERLAY] = "overlay",
    [POLICY_ROOTFS_STRICT] = "strict",
};

enum sandbox_role harden_role(const struct spec *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(pod_sandbox_markers); i++) {
		const char *v =
		    harden_annotation(s, pod_sandbox_markers[i].key);

		if (v && strcasecmp(v, pod_sandbox_markers[i].value) == 0)
			return ROLE_POD_SANDBOX;
	}
	return ROLE_WORKLOAD;
}

/* ---- the driver ------------------------------------------------------ */

/* A private deep copy.  Through the serialiser on purpose: the effective
 * spec is then exactly what spec_parse() gives for its own text, which is
 * what the runtime saves in the state directory and reads back (a spec
 * spec_parse() gave is that already: harden_take() uses it as it is). */
static int copy_spec(const struct spec *config, struct spec **out,
		     struct error **err)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	if (spec_emit(config, &text, &len, err) < 0 ||
	    spec_parse(text, len, out, err) < 0)
		return error_wrap(err, "harden: copy config");
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

/* mode "permissive": config.json as written, and one loud change; as a
 * plain OCI runtime does, the deprecated kernel memory limits are dropped
 * and the standard devices stay allowed. */
static int permissive(struct hardened *h, struct error **err)
{
	struct harden_ctx c = {.h = h, .spec = h->spec};

	h->sandbox.enforced = false;
	harden_record(&c, "sandbox", "-", "off", "policy: mode permissive");
	if (harden_kernel_memory(&c, err) < 0 ||
	    harden_devices_permissive(&c, err) < 0)
		return -1;
	harden_list_binds(&c, true);
	if (c.oom)
		return error_set(err, ENOMEM, "harden: out of memory");
	return 0;
}

static int apply_rules(struct harden_ctx *c, struct error **err)
{
	c->h->sandbox.enforced = true;
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		if (rules[i].apply(c, err) < 0)
			return -1;
		if (c->oom)
			return error_set(err, ENOMEM,
					 "harden: %s: out of memory",
					 rules[i].concern);
	}
	harden_list_binds(c, false);
	if (c->oom)
		return error_set(err, ENOMEM, "harden: out of memory");
	return 0;
}

int harden(const struct spec *config, const struct policy *policy,
	   const char *bundle, struct hardened **out, struct error **err)
{
	struct spec *copy = NULL;

	if (copy_spec(config, &copy, err) < 0)
		return -1;
	return harden_take(&copy, policy, bundle, out, err);
}

int harden_take(struct spec **config, const struct policy *policy,
		const char *bundle, struct hardened **out, struct error **err)
{
	_cleanup_(hardened_freep) struct hardened *h = calloc(1, sizeof(*h));
	_cleanup_(policy_freep) struct policy *defaults = NULL;
	struct harden_ctx c;

	if (!h) {
		spec_free(steal_pointer(config));
		return error_set(err, ENOMEM, "out of memory");
	}
	h->spec = steal_pointer(config);
	h->sandbox.role = harden_role(h->spec);
	h->sandbox.kernel = policy->kernel;
	if (policy->mode == POLICY_PERMISSIVE) {
		if (permissive(h, err) < 0)
			return -1;
		*out = steal_pointer(&h);
		return 0;
	}
	if (policy_default(&defaults, err) < 0)
		return -1;
	c = (struct harden_ctx){.h = h,
				.spec = h->spec,
				.policy = policy,
				.defaults = defaults,
				.bundle = bundle};
	if (apply_rules(&c, err) < 0)
		return -1;
	*out = steal_pointer(&h);
	return 0;
}

void sandbox_release(struct sandbox *s)
{
	if (!s)
		return;
	strv_free(s->syscalls_allow);
	strv_free(s->egress);
	free(s->engine_netns);
	*s = (struct sandbox){0};
}

void hardened_free(struct hardened *h)
{
	if (!h)
		return;
	spec_free(h->spec);
	sandbox_release(&h->sandbox);
	for (size_t i = 0; h->changes && i < h->n_changes; i++) {
		free(h->changes[i].field);
		free(h->changes[i].asked);
		free(h->changes[i].applied);
		free(h->changes[i].reason);
	}
	free(h->changes);
	for (size_t i = 0; h->binds && i < h->n_binds; i++)
		free(h->binds[i].entry);
	free(h->binds);
	free(h->root_beneath);
	free(h->root_path);
	strv_free(h->layer_dirs);
	free(h);
}

/* ---- the sandbox settings as JSON ------------------------------------ */

const char *harden_role_name(enum sandbox_role role)
{
	return (unsigned)role < ARRAY_SIZE(role_names) ? role_names[role]
						       : "workload";
}

const char *harden_rootfs_name(enum policy_rootfs rootfs)
{
	return (unsigned)rootfs < ARRAY_SIZE(rootfs_names)
		   ? rootfs_names[rootfs]
		   : "overlay";
}

/* sandbox.limitsOff's names, bit i of POLICY_LIMIT_* each. */
static const char *const limit_names[] = {"memory", "pids", "cpu"};

void harden_emit_sandbox_object(yajl_gen g, const struct sandbox *s)
{
	yajl_gen_map_open(g);
	json_key_bool(g, "enforced", s->enforced);
	json_key_str(g, "role", harden_role_name(s->role));
	json_key_bool(g, "loopbackOnly", s->loopback_only);
	json_key_str(g, "rootfs", harden_rootfs_name(s->rootfs));
	json_key_int(g, "scratchSize", (long long)s->scratch_size);
	json_key_int(g, "wallClock", (long long)s->wall_clock);
	json_key_strv(g, "syscallsAllow",
		      (const char *const *)s->syscalls_allow,
		      s->n_syscalls_allow);
	json_key_bool(g, "limitsBestEffort", s->limits_best_effort);
	if (s->egress_on) {
		json_str(g, "egress");
		yajl_gen_map_open(g);
		json_key_strv(g, "allow", (const char *const *)s->egress,
			      s->n_egress);
		yajl_gen_map_close(g);
	}
	if (s->engine_netns)
		json_key_str(g, "engineNetns", s->engine_netns);
	if (s->pod_network)
		json_key_bool(g, "podNetwork", true);
	if (s->no_cgroup)
		json_key_bool(g, "noCgroup", true);
	if (s->cgroup_delegated)
		json_key_bool(g, "cgroupDelegated", true);
	if (s->limits_off) {
		json_str(g, "limitsOff");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < ARRAY_SIZE(limit_names); i++)
			if (s->limits_off & (1u << i))
				json_str(g, limit_names[i]);
		yajl_gen_array_close(g);
	}
	if (s->no_device_cgroup)
		json_key_bool(g, "noDeviceCgroup", true);
	if (s->rootless)
		json_key_str(g, "rootless",
			     s->rootless_single ? "single" : "subids");
	if (s->rootless_nested)
		json_key_bool(g, "rootlessNested", true);
	if (s->userns_auto) {
		json_str(g, "userNamespace");
		yajl_gen_map_open(g);
		json_key_int(g, "hostUID", s->userns_uid);
		json_key_int(g, "hostGID", s->userns_gid);
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
}

void harden_emit_changes(yajl_gen g, const struct hardened *h)
{
	yajl_gen_array_open(g);
	for (size_t i = 0; i < h->n_changes; i++) {
		const struct harden_change *ch = &h->changes[i];

		yajl_gen_map_open(g);
		json_key_str(g, "field", ch->field);
		json_key_str(g, "asked", ch->asked);
		json_key_str(g, "applied", ch->applied);
		json_key_str(g, "reason", ch->reason);
		if (ch->dropped)
			json_key_bool(g, "dropped", true);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

int hardened_emit_sandbox(const struct hardened *h, char **out,
			  struct error **err)
{
	yajl_gen g = json_gen_new(1);

	if (!g)
		return error_set(err, ENOMEM, "out of memory");
	yajl_gen_map_open(g);
	json_str(g, "sandbox");
	harden_emit_sandbox_object(g, &h->sandbox);
	json_str(g, "changes");
	harden_emit_changes(g, h);
	yajl_gen_map_close(g);
	return json_tidy_finish(g, out, err);
}

/* A name from a table, or an error naming the field. */
static int read_name(yajl_val o, const struct jpath *p, const char *key,
		     const char *const *names, size_t n, int *out,
		     struct error **err)
{
	struct jpath kp = JKEY(p, key);
	_cleanup_free_ char *s = NULL;

	if (json_field_string(o, p, key, true, &s, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], s) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	return json_fail_value(&kp, err, "unknown value", s);
}

static int parse_sandbox_object(yajl_val o, const struct jpath *p,
				struct sandbox *s, struct error **err)
{
	int role = 0, rootfs = 0;
	int64_t wall = 0, scratch = 0, uid = 0, gid = 0;
	_cleanup_free_ char *rootless = NULL;
	_cleanup_strv_ char **off = NULL;
	size_t n_off = 0;
	yajl_val eg, un;

	if (json_field_bool(o, p, "enforced", &s->enforced, NULL, err) < 0 ||
	    read_name(o, p, "role", role_names, ARRAY_SIZE(role_names), &role,
		      err) < 0 ||
	    json_field_bool(o, p, "loopbackOnly", &s->loopback_only, NULL,
			    err) < 0 ||
	    read_name(o, p, "rootfs", rootfs_names, ARRAY_SIZE(rootfs_names),
		      &rootfs, err) < 0 ||
	    json_field_int(o, p, "scratchSize", JSON_U63, &scratch, err) < 0 ||
	    json_field_int(o, p, "wallClock", JSON_U63, &wall, err) < 0 ||
	    json_field_strv(o, p, "syscallsAllow", false, &s->syscalls_allow,
			    &s->n_syscalls_allow, err) < 0 ||
	    json_field_bool(o, p, "limitsBestEffort", &s->limits_best_effort,
			    NULL, err) < 0 ||
	    json_field_object(o, p, "egress", &eg, err) < 0)
		return -1;
	if (eg) {
		struct jpath ep = JKEY(p, "egress");

		s->egress_on = true;
		if (json_field_strv(eg, &ep, "allow", true, &s->egress,
				    &s->n_egress, err) < 0)
			return -1;
	}
	if (json_field_string(o, p, "engineNetns", false, &s->engine_netns,
			      err) < 0 ||
	    json_field_bool(o, p, "podNetwork", &s->pod_network, NULL, err) <
		0 ||
	    json_field_object(o, p, "userNamespace", &un, err) < 0 ||
	    json_field_bool(o, p, "noCgroup", &s->no_cgroup, NULL, err) < 0 ||
	    json_field_bool(o, p, "cgroupDelegated", &s->cgroup_delegated, NULL,
			    err) < 0 ||
	    json_field_strv(o, p, "limitsOff", false, &off, &n_off, err) < 0 ||
	    json_field_bool(o, p, "noDeviceCgroup", &s->no_device_cgroup, NULL,
			    err) < 0 ||
	    json_field_string(o, p, "rootless", false, &rootless, err) < 0 ||
	    json_field_bool(o, p, "rootlessNested", &s->rootless_nested, NULL,
			    err) < 0)
		return -1;
	for (size_t i = 0; i < n_off; i++) {
		size_t k = 0;

		while (k < ARRAY_SIZE(limit_names) &&
		       strcmp(off[i], limit_names[k]) != 0)
			k++;
		if (k == ARRAY_SIZE(limit_names)) {
			struct jpath lp = JKEY(p, "limitsOff");

			return json_fail(&lp, err, "unknown limit");
		}
		s->limits_off |= 1u << k;
	}
	if (rootless) {
		s->rootless = true;
		s->rootless_single = strcmp(rootless, "single") == 0;
	}
	if (un) {
		struct jpath up = JKEY(p, "userNamespace");

		if (json_field_int(un, &up, "hostUID", JSON_U32, &uid, err) <
			0 ||
		    json_field_int(un, &up, "hostGID", JSON_U32, &gid, err) < 0)
			return -1;
		s->userns_auto = true;
		s->userns_uid = (uint32_t)uid;
		s->userns_gid = (uint32_t)gid;
	}
	s->role = role;
	s->rootfs = rootfs;
	s->scratch_size = (uint64_t)scratch;
	s->wall_clock = (uint64_t)wall;
	return 0;
}

int hardened_parse_sandbox(const char *json, size_t len, struct sandbox *out,
			   struct error **err)
{
	_cleanup_json_ yajl_val doc = NULL;
	struct jpath sp = JKEY(NULL, "sandbox");
	struct sandbox s = {0};
	yajl_val o;

	if (json_load(json, len, &doc, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(doc))
		return error_set(err, EINVAL, "expected a JSON object");
	if (json_field_object(doc, NULL, "sandbox", &o, err) < 0)
		return -1;
	if (!o)
		return json_fail(&sp, err, "missing");
	if (parse_sandbox_object(o, &sp, &s, err) < 0) {
		sandbox_release(&s);
		return -1;
	}
	*out = s;
	return 0;
}
