/* The policy as a complete JSON document: every key, the defaults
 * included, in the order config-examples/policy/README.md lists them.
 * policy_parse() reads it back to an equal policy (a unit test checks
 * it), which is how the state directory keeps the policy a container was
 * created under. */
#include "policy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_tidy.h"
#include "policy_internal.h"
#include "units.h"
#include "util.h"

static void emit_size(yajl_gen g, const char *key, uint64_t bytes)
{
	_cleanup_free_ char *s = units_size_string(bytes, false);

	json_str(g, key);
	if (s && bytes && strspn(s, "0123456789") != strlen(s))
		json_str(g, s);
	else
		yajl_gen_integer(g, (long long)bytes);
}

/* quota/period as a decimal with at most five places, computed in
 * integers so that parsing it back gives the same quota. */
static void emit_cpus(yajl_gen g, const struct policy *p)
{
	char buf[48];
	uint64_t quota = p->cpu_quota > 0 ? (uint64_t)p->cpu_quota : 0;
	uint64_t period = p->cpu_period ? p->cpu_period : POLICY_CPU_PERIOD;
	uint64_t scaled = quota * 100000 / period; /* five decimal places */
	int n = snprintf(buf, sizeof(buf), "%" PRIu64 ".%05" PRIu64,
			 scaled / 100000, scaled % 100000);

	while (n > 0 && buf[n - 1] == '0')
		n--;
	if (n > 0 && buf[n - 1] == '.')
		n--;
	json_str(g, "cpus");
	yajl_gen_number(g, buf, (size_t)n);
}

static void emit_list(yajl_gen g, const char *section, const char *key,
		      char *const *v, size_t n)
{
	json_str(g, section);
	yajl_gen_map_open(g);
	json_key_strv(g, key, (const char *const *)v, n);
	yajl_gen_map_close(g);
}

static void emit_mounts_devices(yajl_gen g, const struct policy *p)
{
	json_str(g, "mounts");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < p->n_mounts; i++) {
		yajl_gen_map_open(g);
		json_key_str(g, "source", p->mounts[i].source);
		json_key_bool(g, "rw", p->mounts[i].rw);
		json_key_bool(g, "followLinks", p->mounts[i].follow_links);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	json_str(g, "devices");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < p->n_devices; i++) {
		const struct policy_device *d = &p->devices[i];
		char type[2] = {d->type, '\0'};

		yajl_gen_map_open(g);
		json_key_str(g, "path", d->path);
		json_key_str(g, "type", type);
		json_key_int(g, "major", d->major);
		json_key_int(g, "minor", d->minor);
		json_key_str(g, "access", d->access ? d->access : "rw");
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

static void emit_hooks(yajl_gen g, const struct policy *p)
{
	json_str(g, "hooks");
	yajl_gen_map_open(g);
	json_str(g, "allow");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < p->n_hooks; i++) {
		yajl_gen_map_open(g);
		json_key_str(g, "path", p->hooks[i].path);
		if (p->hooks[i].has_args)
			json_key_strv(g, "args",
				      (const char *const *)p->hooks[i].args,
				      p->hooks[i].n_args);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

static void emit_policy(yajl_gen g, const struct policy *p)
{
	yajl_gen_map_open(g);
	json_key_str(g, "mode", policy_mode_names[p->mode]);
	if (p->network == POLICY_NET_EGRESS) {
		json_str(g, "network");
		yajl_gen_map_open(g);
		json_key_strv(g, "allow", (const char *const *)p->egress_allow,
			      p->n_egress_allow);
		yajl_gen_map_close(g);
	} else {
		json_key_str(g, "network", policy_network_names[p->network]);
	}
	json_str(g, "rootfs");
	yajl_gen_map_open(g);
	json_key_str(g, "mode", policy_rootfs_names[p->rootfs]);
	emit_size(g, "scratchSize", p->scratch_size);
	yajl_gen_map_close(g);
	emit_list(g, "env", "allow", p->env_allow, p->n_env_allow);
	json_str(g, "user");
	yajl_gen_map_open(g);
	json_key_int(g, "uid", p->uid);
	json_key_int(g, "gid", p->gid);
	json_key_bool(g, "allowRoot", p->allow_root);
	json_key_bool(g, "keepGroups", p->keep_groups);
	json_str(g, "idMap");
	if (p->id_map.set) {
		yajl_gen_map_open(g);
		json_key_int(g, "hostID", p->id_map.host_id);
		json_key_int(g, "size", p->id_map.size);
		yajl_gen_map_close(g);
	} else {
		yajl_gen_null(g);
	}
	json_str(g, "pool");
	if (p->pool.set) {
		yajl_gen_map_open(g);
		json_key_int(g, "hostUID", p->pool.uid);
		json_key_int(g, "hostGID", p->pool.gid);
		json_key_int(g, "size", p->pool.size);
		yajl_gen_map_close(g);
	} else {
		yajl_gen_null(g);
	}
	json_key_strv(g, "privilegedGroups",
		      (const char *const *)p->privileged_groups,
		      p->n_privileged_groups);
	yajl_gen_map_close(g);
	emit_list(g, "capabilities", "keep", p->caps_keep, p->n_caps_keep);
	emit_list(g, "syscalls", "allow", p->syscalls_allow,
		  p->n_syscalls_allow);
	json_str(g, "limits");
	yajl_gen_map_open(g);
	json_key_int(g, "wallClock", (long long)p->wall_clock);
	emit_size(g, "memory", p->memory > 0 ? (uint64_t)p->memory : 0);
	json_key_int(g, "pids", p->pids > 0 ? p->pids : 0);
	emit_cpus(g, p);
	json_key_bool(g, "bestEffort", p->limits_best_effort);
	yajl_gen_map_close(g);
	emit_mounts_devices(g, p);
	emit_list(g, "sysctls", "allow", p->sysctl_allow, p->n_sysctl_allow);
	emit_hooks(g, p);
	json_key_strv(g, "engineDirs", (const char *const *)p->engine_dirs,
		      p->n_engine_dirs);
	if (p->report_dir) {
		json_str(g, "report");
		yajl_gen_map_open(g);
		json_key_str(g, "dir", p->report_dir);
		yajl_gen_map_close(g);
	}
	json_str(g, "volumes");
	yajl_gen_map_open(g);
	json_key_strv(g, "kinds", (const char *const *)p->volume_kinds,
		      p->n_volume_kinds);
	json_key_strv(g, "secrets", (const char *const *)p->volume_secrets,
		      p->n_volume_secrets);
	yajl_gen_map_close(g);
	json_str(g, "refuse");
	yajl_gen_map_open(g);
	for (size_t i = 0; i < POLICY_REFUSALS; i++)
		json_key_bool(g, policy_refusal_names[i], p->refuse[i]);
	yajl_gen_map_close(g);
	json_str(g, "workspace");
	yajl_gen_map_open(g);
	json_key_bool(g, "allowOwn", p->workspace_own);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

int policy_emit(const struct policy *policy, char **out, struct error **err)
{
	yajl_gen g = json_gen_new(1);

	if (!g)
		return error_set(err, ENOMEM, "out of memory");
	if ((unsigned)policy->mode >= ARRAY_SIZE(policy_mode_names) ||
	    ((unsigned)policy->network >= ARRAY_SIZE(policy_network_names) &&
	     policy->network != POLICY_NET_EGRESS) ||
	    (unsigned)policy->rootfs >= ARRAY_SIZE(policy_rootfs_names)) {
		yajl_gen_free(g);
		return error_set(err, EINVAL, "emit policy: invalid mode");
	}
	emit_policy(g, policy);
	return json_tidy_finish(g, out, err);
}
