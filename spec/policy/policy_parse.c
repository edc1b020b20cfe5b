/* The policy file's strict reader (config-examples/policy/README.md
 * documents the schema key by key): an unknown key, a wrong type or a
 * malformed name is an error naming its JSON path, because a typo in a
 * security policy must never silently widen the sandbox or be ignored.  A
 * JSON null is the same as an absent key (the default stays), as
 * everywhere in spec/. */
#include "policy.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "json.h"
#include "parse_internal.h"
#include "policy_internal.h"
#include "units.h"
#include "util.h"

#define CPU_PERIOD POLICY_CPU_PERIOD
#define CPU_QUOTA_MIN 1000 /* the kernel refuses a smaller CFS quota */
#define CPUS_MAX 65536

/* ---- typed readers over the shared JSON toolkit ---------------------- */

/* Fail on any member of obj not in keys: a typo must not be ignored. */
static int check_keys(yajl_val obj, const struct jpath *p,
		      const char *const *keys, size_t n, struct error **err)
{
	for (size_t i = 0; i < obj->u.object.len; i++) {
		const char *k = obj->u.object.keys[i];
		struct jpath kp = JKEY(p, k);
		size_t j = 0;

		while (j < n && strcmp(keys[j], k) != 0)
			j++;
		if (j == n)
			return json_fail(&kp, err, "unknown key");
	}
	return 0;
}

static int read_enum(yajl_val obj, const struct jpath *p, const char *key,
		     const char *const *names, size_t n, int *out,
		     struct error **err)
{
	struct jpath kp = JKEY(p, key);
	_cleanup_free_ char *expected = NULL;
	yajl_val v;

	if (json_member(obj, p, key, &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	for (size_t i = 0; YAJL_IS_STRING(v) && i < n; i++) {
		if (strcmp(names[i], v->u.string) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	if (asprintf(&expected, "expected \"%s\" or \"%s\"%s", names[0],
		     names[1], YAJL_IS_STRING(v) ? ", got" : "") < 0)
		return error_set(err, ENOMEM, "out of memory");
	if (!YAJL_IS_STRING(v))
		return json_fail(&kp, err, "%s", expected);
	return json_fail_value(&kp, err, expected, v->u.string);
}

static int read_bool(yajl_val obj, const struct jpath *p, const char *key,
		     bool *out, struct error **err)
{
	return json_field_bool(obj, p, key, out, NULL, err);
}

static int read_int(yajl_val obj, const struct jpath *p, const char *key,
		    enum json_int_kind kind, int64_t *out, struct error **err)
{
	struct spec_opt o = {0};

	if (json_field_opt(obj, p, key, kind, &o, err) < 0)
		return -1;
	if (o.set)
		*out = o.v;
	return 0;
}

/* A byte count: an integer, or a string such as "512MiB". */
static int read_size(yajl_val obj, const struct jpath *p, const char *key,
		     bool zero_ok, uint64_t *out, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	uint64_t v = 0;
	bool ok;
	yajl_val j;

	if (json_member(obj, p, key, &j, err) < 0)
		return -1;
	if (!j)
		return 0;
	if (YAJL_IS_STRING(j)) {
		ok = units_parse_size(j->u.string, INT64_MAX, &v);
	} else {
		int64_t i;
		struct error *ignored = NULL;

		ok = json_int(j, &kp, JSON_U63, &i, &ignored) == 0;
		error_free(ignored);
		v = (uint64_t)i;
	}
	if (!ok)
		return json_fail(&kp, err,
				 "expected a size in bytes or a string like "
				 "\"512MiB\"");
	if (v == 0 && !zero_ok)
		return json_fail(&kp, err, "must be greater than 0");
	*out = v;
	return 0;
}

typedef bool (*name_check)(const char *);

/* A list of names that replaces the default list when present (even when
 * empty: "allow": [] means none).  Each name is checked by `valid` or, for
 * capabilities, by policy_check_capability(). */
static int read_names(yajl_val obj, const struct jpath *p, const char *key,
		      name_check valid, const char *what, char ***list,
		      size_t *n, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val v;

	if (json_member(obj, p, key, &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	strv_free(*list);
	*list = NULL;
	*n = 0;
	if (json_field_strv(obj, p, key, false, list, n, err) < 0)
		return -1;
	for (size_t i = 0; i < *n; i++) {
		struct jpath ip = JINDEX(&kp, i);

		if (!valid && policy_check_capability((*list)[i], &ip, err) < 0)
			return -1;
		if (valid && !valid((*list)[i]))
			return json_fail_value(&ip, err, what, (*list)[i]);
	}
	return 0;
}

/* An object member that must hold only the given keys; NULL when absent. */
static int read_section(yajl_val doc, const struct jpath *p, const char *key,
			const char *const *keys, size_t n, yajl_val *out,
			struct error **err)
{
	struct jpath kp = JKEY(p, key);

	if (json_field_object(doc, p, key, out, err) < 0)
		return -1;
	if (!*out)
		return 0;
	return check_keys(*out, &kp, keys, n, err);
}

#define SECTION(doc, p, key, keys, out, err)                                   \
	read_section(doc, p, key, keys, ARRAY_SIZE(keys), out, err)

/* ---- the sections ---------------------------------------------------- */

/* "network": {"allow": [RULE...]}: every rule checked as the proxy will
 * read it (a wildcard over a public suffix, `*` and malformed names
 * refused) and kept in its normalized text. */
static int parse_egress(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {"allow"};
	struct jpath p = JKEY(NULL, "network"), ap = JKEY(&p, "allow");
	char **rules = NULL;
	size_t n = 0;
	yajl_val o;

	if (SECTION(doc, NULL, "network", keys, &o, err) < 0)
		return -1;
	if (json_field_strv(o, &p, "allow", true, &rules, &n, err) < 0) {
		strv_free(rules); /* what it read before the bad element */
		return -1;
	}
	if (n > POLICY_EGRESS_MAX) {
		strv_free(rules);
		return json_fail(&ap, err, "more than %d rules",
				 POLICY_EGRESS_MAX);
	}
	for (size_t i = 0; i < n; i++) {
		struct jpath ip = JINDEX(&ap, i);
		struct egress_rule r;
		struct error *why = NULL;
		char *text;

		if (egress_rule_parse(rules[i], egress_public_suffix, &r,
				      &why) < 0) {
			json_fail(&ip, err, "%s", why->msg);
			error_free(why);
			strv_free(rules);
			return -1;
		}
		text = egress_rule_text(&r);
		egress_rule_release(&r);
		if (!text) {
			strv_free(rules);
			return error_set(err, ENOMEM, "out of memory");
		}
		free(rules[i]);
		rules[i] = text;
	}
	strv_free(pol->egress_allow);
	pol->egress_allow = rules;
	pol->n_egress_allow = n;
	pol->network = POLICY_NET_EGRESS;
	return 0;
}

static int parse_top(yajl_val doc, struct policy *pol, struct error **err)
{
	int mode = pol->mode, net = pol->network;
	yajl_val v;

	if (read_enum(doc, NULL, "mode", policy_mode_names,
		      ARRAY_SIZE(policy_mode_names), &mode, err) < 0 ||
	    json_member(doc, NULL, "network", &v, err) < 0)
		return -1;
	pol->mode = mode;
	if (v && YAJL_IS_OBJECT(v))
		return parse_egress(doc, pol, err);
	if (read_enum(doc, NULL, "network", policy_network_names,
		      ARRAY_SIZE(policy_network_names), &net, err) < 0)
		return -1;
	pol->network = net;
	return 0;
}

static int parse_rootfs(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {"mode", "scratchSize"};
	struct jpath p = JKEY(NULL, "rootfs");
	int mode = pol->rootfs;
	yajl_val o;

	if (SECTION(doc, NULL, "rootfs", keys, &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	if (read_enum(o, &p, "mode", policy_rootfs_names,
		      ARRAY_SIZE(policy_rootfs_names), &mode, err) < 0 ||
	    read_size(o, &p, "scratchSize", false, &pol->scratch_size, err) < 0)
		return -1;
	pol->rootfs = mode;
	return 0;
}

/* The sections that are one list of names under "allow" or "keep". */
static int parse_lists(yajl_val doc, struct policy *pol, struct error **err)
{
	const struct {
		const char *section, *key;
		name_check valid;
		const char *what;
		char ***list;
		size_t *n;
	} lists[] = {
	    {"env", "allow", policy_valid_env_name, "invalid variable name",
	     &pol->env_allow, &pol->n_env_allow},
	    {"capabilities", "keep", NULL, NULL, &pol->caps_keep,
	     &pol->n_caps_keep},
	    {"syscalls", "allow", policy_valid_syscall_name,
	     "invalid syscall name", &pol->syscalls_allow,
	     &pol->n_syscalls_allow},
	    {"sysctls", "allow", policy_valid_sysctl_name,
	     "invalid sysctl name", &pol->sysctl_allow, &pol->n_sysctl_allow},
	};

	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		struct jpath p = JKEY(NULL, lists[i].section);
		yajl_val o;

		if (read_section(doc, NULL, lists[i].section, &lists[i].key, 1,
				 &o, err) < 0)
			return -1;
		if (o && read_names(o, &p, lists[i].key, lists[i].valid,
				    lists[i].what, lists[i].list, lists[i].n,
				    err) < 0)
			return -1;
	}
	return 0;
}

/* {"hostID": N, "size": M}: both required, the range inside the valid
 * ids and never holding host id 0. */
static int read_id_map(yajl_val o, const struct jpath *p,
		       struct policy_id_map *m, struct error **err)
{
	static const char *const keys[] = {"hostID", "size"};
	struct jpath mp = JKEY(p, "idMap");
	int64_t host = 0, size = 0;
	yajl_val v;

	if (read_section(o, p, "idMap", keys, ARRAY_SIZE(keys), &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	if (json_field_int(v, &mp, "hostID", JSON_U32, &host, err) < 0 ||
	    json_field_int(v, &mp, "size", JSON_U32, &size, err) < 0)
		return -1;
	if (host == 0)
		return json_fail(&mp, err,
				 "hostID must not be 0: host root is never "
				 "mapped");
	if (size == 0 || host + size > UINT32_MAX)
		return json_fail(&mp, err,
				 "size must be at least 1 and the range end "
				 "below 4294967295");
	*m = (struct policy_id_map){true, (uint32_t)host, (uint32_t)size};
	return 0;
}

/* {"hostUID": N, "hostGID": M, "size": S}: every id of the two ranges
 * is corral's to give, one slice of POLICY_SLICE per container. */
static int read_pool(yajl_val o, const struct jpath *p, struct policy_pool *m,
		     struct error **err)
{
	static const char *const keys[] = {"hostUID", "hostGID", "size"};
	struct jpath mp = JKEY(p, "pool");
	int64_t uid = 0, gid = 0, size = 0;
	yajl_val v;

	if (read_section(o, p, "pool", keys, ARRAY_SIZE(keys), &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	if (json_field_int(v, &mp, "hostUID", JSON_U32, &uid, err) < 0 ||
	    json_field_int(v, &mp, "hostGID", JSON_U32, &gid, err) < 0 ||
	    json_field_int(v, &mp, "size", JSON_U32, &size, err) < 0)
		return -1;
	if (policy_pool_check(uid, gid, size) < 0)
		return json_fail(&mp, err,
				 "hostUID and hostGID must be at least 65536 "
				 "(no host system id), size at least 65536 "
				 "(one container's), each range ending below "
				 "4294967295");
	*m = (struct policy_pool){.set = true,
				  .uid = (uint32_t)uid,
				  .gid = (uint32_t)gid,
				  .size = (uint32_t)size};
	return 0;
}

static int parse_user(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {
	    "uid",   "gid",  "allowRoot",	"keepGroups",
	    "idMap", "pool", "privilegedGroups"};
	struct jpath p = JKEY(NULL, "user");
	int64_t uid = pol->uid, gid = pol->gid;
	yajl_val o;

	if (SECTION(doc, NULL, "user", keys, &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	if (read_int(o, &p, "uid", JSON_U32, &uid, err) < 0 ||
	    read_int(o, &p, "gid", JSON_U32, &gid, err) < 0 ||
	    read_bool(o, &p, "allowRoot", &pol->allow_root, err) < 0 ||
	    read_bool(o, &p, "keepGroups", &pol->keep_groups, err) < 0 ||
	    read_id_map(o, &p, &pol->id_map, err) < 0 ||
	    read_pool(o, &p, &pol->pool, err) < 0 ||
	    read_names(o, &p, "privilegedGroups", policy_valid_group,
		       "expected a group name or id, got",
		       &pol->privileged_groups, &pol->n_privileged_groups,
		       err) < 0)
		return -1;
	pol->uid = (uint32_t)uid;
	pol->gid = (uint32_t)gid;
	return 0;
}

/* cpus as a JSON number (1.5) -> a CFS quota per 100 ms period. */
static int read_cpus(yajl_val o, const struct jpath *p, struct policy *pol,
		     struct error **err)
{
	struct jpath kp = JKEY(p, "cpus");
	double cpus = 0;
	int64_t quota = -1;
	char *end = NULL;
	yajl_val v;

	if (json_member(o, p, "cpus", &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	if (YAJL_IS_NUMBER(v) && v->u.number.r)
		cpus = strtod(v->u.number.r, &end);
	/* Rounded by hand: libm is not linked, and cpus >= 0 here. */
	if (YAJL_IS_NUMBER(v) && end && *end == '\0' && isfinite(cpus) &&
	    cpus >= 0 && cpus <= CPUS_MAX)
		quota = (int64_t)(cpus * CPU_PERIOD + 0.5);
	if (quota < 0 || (cpus > 0 && quota < CPU_QUOTA_MIN))
		return json_fail(&kp, err,
				 "expected a number of CPUs from 0.01 to %d "
				 "(0: no limit)",
				 CPUS_MAX);
	pol->cpu_quota = quota;
	pol->cpu_period = CPU_PERIOD;
	return 0;
}

static int parse_limits(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {"wallClock", "memory", "pids",
					   "cpus", "bestEffort"};
	struct jpath p = JKEY(NULL, "limits");
	int64_t wall = (int64_t)pol->wall_clock;
	uint64_t memory = (uint64_t)pol->memory;
	yajl_val o;

	if (SECTION(doc, NULL, "limits", keys, &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	if (read_int(o, &p, "wallClock", JSON_U63, &wall, err) < 0 ||
	    read_size(o, &p, "memory", true, &memory, err) < 0 ||
	    read_int(o, &p, "pids", JSON_U63, &pol->pids, err) < 0 ||
	    read_cpus(o, &p, pol, err) < 0 ||
	    read_bool(o, &p, "bestEffort", &pol->limits_best_effort, err) < 0)
		return -1;
	pol->wall_clock = (uint64_t)wall;
	pol->memory = (int64_t)memory;
	return 0;
}

static int parse_mount(yajl_val o, const struct jpath *p, void *elem,
		       struct error **err)
{
	static const char *const keys[] = {"source", "rw", "followLinks"};
	struct policy_mount *m = elem;
	struct jpath sp = JKEY(p, "source");

	if (check_keys(o, p, keys, ARRAY_SIZE(keys), err) < 0 ||
	    json_field_string(o, p, "source", true, &m->source, err) < 0 ||
	    policy_check_clean_path(m->source, NULL, &sp, err) < 0 ||
	    read_bool(o, p, "rw", &m->rw, err) < 0 ||
	    read_bool(o, p, "followLinks", &m->follow_links, err) < 0)
		return -1;
	return 0;
}

static int parse_hook(yajl_val o, const struct jpath *p, void *elem,
		      struct error **err)
{
	static const char *const keys[] = {"path", "args"};
	struct policy_hook *h = elem;
	struct jpath pp = JKEY(p, "path");
	yajl_val v;

	if (check_keys(o, p, keys, ARRAY_SIZE(keys), err) < 0 ||
	    json_field_string(o, p, "path", true, &h->path, err) < 0 ||
	    policy_check_clean_path(h->path, NULL, &pp, err) < 0 ||
	    json_member(o, p, "args", &v, err) < 0 ||
	    json_field_strv(o, p, "args", false, &h->args, &h->n_args, err) < 0)
		return -1;
	if (strcmp(h->path, "/") == 0)
		return json_fail(&pp, err, "must name a file");
	h->has_args = v != NULL;
	return 0;
}

/* "hooks": {"allow": [...]}: the default list is empty. */
static int parse_hooks(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {"allow"};
	struct jpath p = JKEY(NULL, "hooks");
	yajl_val o;

	if (SECTION(doc, NULL, "hooks", keys, &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	return json_field_objects(o, &p, "allow", sizeof(*pol->hooks),
				  parse_hook, &pol->hooks, &pol->n_hooks, err);
}

/* "engineDirs": clean absolute paths, none a system directory itself. */
static int parse_engine_dirs(yajl_val doc, struct policy *pol,
			     struct error **err)
{
	struct jpath kp = JKEY(NULL, "engineDirs");
	yajl_val v;

	if (json_member(doc, NULL, "engineDirs", &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	strv_free(pol->engine_dirs);
	pol->engine_dirs = NULL;
	pol->n_engine_dirs = 0;
	if (json_field_strv(doc, NULL, "engineDirs", false, &pol->engine_dirs,
			    &pol->n_engine_dirs, err) < 0)
		return -1;
	for (size_t i = 0; i < pol->n_engine_dirs; i++) {
		struct jpath ip = JINDEX(&kp, i);

		if (policy_check_clean_path(pol->engine_dirs[i], NULL, &ip,
					    err) < 0)
			return -1;
		if (policy_system_dir(pol->engine_dirs[i]))
			return json_fail_value(&ip, err,
					       "must not be a system directory",
					       pol->engine_dirs[i]);
	}
	return 0;
}

static int parse_device(yajl_val o, const struct jpath *p, void *elem,
			struct error **err)
{
	static const char *const keys[] = {"path", "type", "major", "minor",
					   "access"};
	struct policy_device *d = elem;
	struct jpath pp = JKEY(p, "path"), tp = JKEY(p, "type"),
		     ap = JKEY(p, "access");
	_cleanup_free_ char *type = NULL;

	if (check_keys(o, p, keys, ARRAY_SIZE(keys), err) < 0 ||
	    json_field_string(o, p, "path", true, &d->path, err) < 0 ||
	    policy_check_clean_path(d->path, "/dev/", &pp, err) < 0 ||
	    json_field_string(o, p, "type", true, &type, err) < 0)
		return -1;
	if (strcmp(type, "c") != 0 && strcmp(type, "b") != 0)
		return json_fail_value(&tp, err, "expected \"c\" or \"b\", got",
				       type);
	d->type = type[0];
	if (json_field_int(o, p, "major", JSON_U32, &d->major, err) < 0 ||
	    json_field_int(o, p, "minor", JSON_U32, &d->minor, err) < 0 ||
	    json_field_string(o, p, "access", false, &d->access, err) < 0)
		return -1;
	if (!d->access && !(d->access = strdup("rw")))
		return error_set(err, ENOMEM, "out of memory");
	if (d->access[0] == '\0' || d->access[strspn(d->access, "rwm")])
		return json_fail_value(
		    &ap, err, "expected a subset of \"rwm\", got", d->access);
	return 0;
}

static int parse_arrays(yajl_val doc, struct policy *pol, struct error **err)
{
	yajl_val v;

	if (json_member(doc, NULL, "mounts", &v, err) < 0)
		return -1;
	if (v) {
		pol->n_mounts = 0; /* the default list is empty */
		if (json_field_objects(doc, NULL, "mounts",
				       sizeof(*pol->mounts), parse_mount,
				       &pol->mounts, &pol->n_mounts, err) < 0)
			return -1;
	}
	if (json_member(doc, NULL, "devices", &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	return json_field_objects(doc, NULL, "devices", sizeof(*pol->devices),
				  parse_device, &pol->devices, &pol->n_devices,
				  err);
}

/* A uid or gid 0 that replaces 0 would be root under another name, and
 * so would 4294967295: setresuid() reads (uid_t)-1 as "unchanged". */
static int check_user(const struct policy *pol, struct error **err)
{
	if (pol->allow_root)
		return 0;
	if (pol->uid == UINT32_MAX)
		return error_set(err, EINVAL,
				 ".user.uid: 4294967295 is not a valid id");
	if (pol->gid == UINT32_MAX)
		return error_set(err, EINVAL,
				 ".user.gid: 4294967295 is not a valid id");
	if (pol->uid == 0)
		return error_set(err, EINVAL,
				 ".user.uid: must not be 0 unless allowRoot "
				 "is true");
	if (pol->gid == 0)
		return error_set(err, EINVAL,
				 ".user.gid: must not be 0 unless allowRoot "
				 "is true");
	return 0;
}

/* "report": {"dir": D}, where delete keeps each container's report. */
static int parse_report(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {"dir"};
	struct jpath p = JKEY(NULL, "report"), dp = JKEY(&p, "dir");
	yajl_val o;

	if (SECTION(doc, NULL, "report", keys, &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	free(pol->report_dir);
	pol->report_dir = NULL;
	if (json_field_string(o, &p, "dir", true, &pol->report_dir, err) < 0)
		return -1;
	return policy_check_clean_path(pol->report_dir, NULL, &dp, err);
}

/* A Kubernetes volume name: a DNS-1123 label. */
static bool volume_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* "volumes": {"kinds": [...], "secrets": [NAME...]}. */
static int parse_volumes(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {"kinds", "secrets"};
	static const char *const kinds[] = {"emptyDir", "configMap",
					    "downwardAPI"};
	struct jpath p = JKEY(NULL, "volumes"), sp = JKEY(&p, "secrets"),
		     kp = JKEY(&p, "kinds");
	yajl_val o, k;

	if (SECTION(doc, NULL, "volumes", keys, &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	if (json_member(o, &p, "kinds", &k, err) < 0)
		return -1;
	if (k) {
		strv_free(pol->volume_kinds);
		pol->volume_kinds = NULL;
		pol->n_volume_kinds = 0;
		if (json_field_strv(o, &p, "kinds", false, &pol->volume_kinds,
				    &pol->n_volume_kinds, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < pol->n_volume_kinds; i++) {
		struct jpath ip = JINDEX(&kp, i);
		bool known = false;

		for (size_t j = 0; j < ARRAY_SIZE(kinds); j++)
			known |= !strcmp(pol->volume_kinds[i], kinds[j]);
		if (!known)
			return json_fail_value(&ip, err,
					       "expected emptyDir, configMap "
					       "or downwardAPI, got",
					       pol->volume_kinds[i]);
	}
	if (json_field_strv(o, &p, "secrets", false, &pol->volume_secrets,
			    &pol->n_volume_secrets, err) < 0)
		return -1;
	for (size_t i = 0; i < pol->n_volume_secrets; i++) {
		struct jpath ip = JINDEX(&sp, i);

		if (!volume_name(pol->volume_secrets[i]))
			return json_fail_value(&ip, err,
					       "expected a volume name "
					       "(a DNS-1123 label), got",
					       pol->volume_secrets[i]);
	}
	return 0;
}

/* "refuse": {"mounts": B, ...}, a switch per kind (policy.h), and
 * "workspace": {"allowOwn": B}. */
static int parse_switches(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const ws_keys[] = {"allowOwn"};
	struct jpath rp = JKEY(NULL, "refuse"), wp = JKEY(NULL, "workspace");
	yajl_val r, w;

	if (read_section(doc, NULL, "refuse", policy_refusal_names,
			 POLICY_REFUSALS, &r, err) < 0 ||
	    SECTION(doc, NULL, "workspace", ws_keys, &w, err) < 0)
		return -1;
	for (size_t i = 0; r && i < POLICY_REFUSALS; i++)
		if (read_bool(r, &rp, policy_refusal_names[i], &pol->refuse[i],
			      err) < 0)
			return -1;
	if (w && read_bool(w, &wp, "allowOwn", &pol->workspace_own, err) < 0)
		return -1;
	return 0;
}

static int parse_policy(yajl_val doc, struct policy *pol, struct error **err)
{
	static const char *const keys[] = {
	    "mode",	    "network",	 "rootfs",     "env",	 "user",
	    "capabilities", "syscalls",	 "limits",     "mounts", "devices",
	    "sysctls",	    "hooks",	 "engineDirs", "report", "volumes",
	    "refuse",	    "workspace",
	};

	if (check_keys(doc, NULL, keys, ARRAY_SIZE(keys), err) < 0 ||
	    parse_top(doc, pol, err) < 0 || parse_rootfs(doc, pol, err) < 0 ||
	    parse_lists(doc, pol, err) < 0 || parse_user(doc, pol, err) < 0 ||
	    parse_limits(doc, pol, err) < 0 ||
	    parse_arrays(doc, pol, err) < 0 || parse_hooks(doc, pol, err) < 0 ||
	    parse_engine_dirs(doc, pol, err) < 0 ||
	    parse_report(doc, pol, err) < 0 ||
	    parse_volumes(doc, pol, err) < 0 ||
	    parse_switches(doc, pol, err) < 0)
		return -1;
	return check_user(pol, err);
}

int policy_parse(const char *json, size_t len, struct policy **out,
		 struct error **err)
{
	_cleanup_json_ yajl_val doc = NULL;
	struct policy *pol = NULL;

	if (json_load(json, len, &doc, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(doc))
		return error_set(err, EINVAL, "expected a JSON object");
	if (policy_default(&pol, err) < 0)
		return -1;
	if (parse_policy(doc, pol, err) < 0) {
		policy_free(pol);
		return -1;
	}
	*out = pol;
	return 0;
}
