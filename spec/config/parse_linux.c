/* The linux object of config.json: namespaces, id mappings, devices,
 * cgroup resources, seccomp, masked and read-only paths, personality.
 */
#include "spec.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"
#include "util.h"

const char *const spec_ns_type_names[NS_TYPE_COUNT] = {
    [NS_PID] = "pid",	    [NS_NETWORK] = "network", [NS_MOUNT] = "mount",
    [NS_IPC] = "ipc",	    [NS_UTS] = "uts",	      [NS_USER] = "user",
    [NS_CGROUP] = "cgroup", [NS_TIME] = "time",
};

int spec_ns_type_from_name(const char *name)
{
	for (int i = 0; name && i < NS_TYPE_COUNT; i++) {
		if (strcmp(spec_ns_type_names[i], name) == 0)
			return i;
	}
	return -1;
}

#define MEMORY_OPT(k, f, kind)                                                 \
	{                                                                      \
		k, offsetof(struct spec_memory, f), kind                       \
	}
#define CPU_OPT(k, f, kind)                                                    \
	{                                                                      \
		k, offsetof(struct spec_cpu, f), kind                          \
	}
#define MEMORY_FLAG(k, f)                                                      \
	{                                                                      \
		k, offsetof(struct spec_memory, has_##f),                      \
		    offsetof(struct spec_memory, f)                            \
	}

/* Memory values are int64 in runtime-spec: -1 means unlimited. */
const struct json_opt_field spec_memory_fields[6] = {
    MEMORY_OPT("limit", limit, JSON_I64),
    MEMORY_OPT("reservation", reservation, JSON_I64),
    MEMORY_OPT("swap", swap, JSON_I64),
    MEMORY_OPT("kernel", kernel, JSON_I64),
    MEMORY_OPT("kernelTCP", kernel_tcp, JSON_I64),
    MEMORY_OPT("swappiness", swappiness, JSON_U63),
};

const struct json_flag_field spec_memory_flags[3] = {
    MEMORY_FLAG("disableOOMKiller", disable_oom_killer),
    MEMORY_FLAG("useHierarchy", use_hierarchy),
    MEMORY_FLAG("checkBeforeUpdate", check_before_update),
};

const struct json_opt_field spec_cpu_fields[7] = {
    CPU_OPT("shares", shares, JSON_U63),
    CPU_OPT("quota", quota, JSON_I64),
    CPU_OPT("burst", burst, JSON_U63),
    CPU_OPT("period", period, JSON_U63),
    CPU_OPT("realtimeRuntime", realtime_runtime, JSON_I64),
    CPU_OPT("realtimePeriod", realtime_period, JSON_U63),
    CPU_OPT("idle", idle, JSON_I64),
};

const struct json_opt_field spec_block_io_fields[2] = {
    {"weight", offsetof(struct spec_block_io, weight), JSON_U16},
    {"leafWeight", offsetof(struct spec_block_io, leaf_weight), JSON_U16},
};

/* Indexed by enum spec_throttle_kind. */
const char *const spec_throttle_names[4] = {
    [THROTTLE_READ_BPS] = "throttleReadBpsDevice",
    [THROTTLE_WRITE_BPS] = "throttleWriteBpsDevice",
    [THROTTLE_READ_IOPS] = "throttleReadIOPSDevice",
    [THROTTLE_WRITE_IOPS] = "throttleWriteIOPSDevice",
};

/* A one-letter type from `allowed`; fails naming the value otherwise. */
static int device_type(const char *type, const char *allowed,
		       const struct jpath *p, char *out, struct error **err)
{
	if (strlen(type) != 1 || !strchr(allowed, type[0]))
		return json_fail_value(p, err, "unknown device type", type);
	*out = type[0];
	return 0;
}

/* ---- namespaces, id mappings, devices -------------------------------- */

static int parse_namespace(yajl_val o, const struct jpath *p, void *elem,
			   struct error **err)
{
	struct spec_namespace *ns = elem;
	struct jpath tp = JKEY(p, "type");
	_cleanup_free_ char *type = NULL;
	int t;

	if (json_field_string(o, p, "type", true, &type, err) < 0)
		return -1;
	t = spec_ns_type_from_name(type);
	if (t < 0)
		return json_fail_value(&tp, err, "unknown namespace type",
				       type);
	ns->type = t;
	return json_field_string(o, p, "path", false, &ns->path, err);
}

static int parse_id_mapping(yajl_val o, const struct jpath *p, void *elem,
			    struct error **err)
{
	struct spec_id_mapping *m = elem;

	if (json_field_u32(o, p, "containerID", &m->container_id, err) < 0 ||
	    json_field_u32(o, p, "hostID", &m->host_id, err) < 0 ||
	    json_field_u32(o, p, "size", &m->size, err) < 0)
		return -1;
	return 0;
}

/* major and minor name the device for c, b and u; a fifo has none. */
static int parse_device_numbers(yajl_val o, const struct jpath *p,
				struct spec_device *d, struct error **err)
{
	struct spec_opt major = {0}, minor = {0};

	if (d->type != 'p') {
		if (json_field_int(o, p, "major", JSON_I64, &d->major, err) <
			0 ||
		    json_field_int(o, p, "minor", JSON_I64, &d->minor, err) < 0)
			return -1;
		return 0;
	}
	if (json_field_opt(o, p, "major", JSON_I64, &major, err) < 0 ||
	    json_field_opt(o, p, "minor", JSON_I64, &minor, err) < 0)
		return -1;
	d->major = major.v;
	d->minor = minor.v;
	return 0;
}

static int parse_device(yajl_val o, const struct jpath *p, void *elem,
			struct error **err)
{
	struct spec_device *d = elem;
	struct jpath pp = JKEY(p, "path"), tp = JKEY(p, "type");
	_cleanup_free_ char *type = NULL;

	if (json_field_string(o, p, "path", true, &d->path, err) < 0)
		return -1;
	if (d->path[0] != '/')
		return json_fail(&pp, err, "must be an absolute path");
	if (json_field_string(o, p, "type", true, &type, err) < 0 ||
	    device_type(type, "cbup", &tp, &d->type, err) < 0 ||
	    parse_device_numbers(o, p, d, err) < 0 ||
	    json_field_opt(o, p, "fileMode", JSON_U32, &d->file_mode, err) <
		0 ||
	    json_field_opt(o, p, "uid", JSON_U32, &d->uid, err) < 0 ||
	    json_field_opt(o, p, "gid", JSON_U32, &d->gid, err) < 0)
		return -1;
	return 0;
}

/* ---- resources ------------------------------------------------------- */

static int parse_device_rule(yajl_val o, const struct jpath *p, void *elem,
			     struct error **err)
{
	struct spec_device_rule *r = elem;
	struct jpath tp = JKEY(p, "type"), ap = JKEY(p, "access");
	_cleanup_free_ char *type = NULL;

	r->type = 'a';
	if (json_field_bool(o, p, "allow", &r->allow, NULL, err) < 0 ||
	    json_field_string(o, p, "type", false, &type, err) < 0 ||
	    (type && device_type(type, "acb", &tp, &r->type, err) < 0) ||
	    json_field_opt(o, p, "major", JSON_I64, &r->major, err) < 0 ||
	    json_field_opt(o, p, "minor", JSON_I64, &r->minor, err) < 0 ||
	    json_field_string(o, p, "access", false, &r->access, err) < 0)
		return -1;
	if (r->access && r->access[strspn(r->access, "rwm")] != '\0')
		return json_fail_value(&ap, err, "unknown device access",
				       r->access);
	return 0;
}

static int parse_memory(yajl_val o, const struct jpath *p, void *elem,
			struct error **err)
{
	if (json_fields_opt(o, p, spec_memory_fields,
			    ARRAY_SIZE(spec_memory_fields), elem, err) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(spec_memory_flags); i++) {
		const struct json_flag_field *f = &spec_memory_flags[i];

		if (json_field_bool(o, p, f->key,
				    (bool *)((char *)elem + f->value),
				    (bool *)((char *)elem + f->has), err) < 0)
			return -1;
	}
	return 0;
}

static int parse_cpu(yajl_val o, const struct jpath *p, void *elem,
		     struct error **err)
{
	struct spec_cpu *cpu = elem;

	if (json_fields_opt(o, p, spec_cpu_fields, ARRAY_SIZE(spec_cpu_fields),
			    cpu, err) < 0 ||
	    json_field_string(o, p, "cpus", false, &cpu->cpus, err) < 0 ||
	    json_field_string(o, p, "mems", false, &cpu->mems, err) < 0)
		return -1;
	return 0;
}

static int parse_weight_device(yajl_val o, const struct jpath *p, void *elem,
			       struct error **err)
{
	struct spec_weight_device *w = elem;

	if (json_field_int(o, p, "major", JSON_I64, &w->major, err) < 0 ||
	    json_field_int(o, p, "minor", JSON_I64, &w->minor, err) < 0 ||
	    json_field_opt(o, p, "weight", JSON_U16, &w->weight, err) < 0 ||
	    json_field_opt(o, p, "leafWeight", JSON_U16, &w->leaf_weight, err) <
		0)
		return -1;
	return 0;
}

static int parse_throttle_device(yajl_val o, const struct jpath *p, void *elem,
				 struct error **err)
{
	struct spec_throttle_device *t = elem;

	if (json_field_int(o, p, "major", JSON_I64, &t->major, err) < 0 ||
	    json_field_int(o, p, "minor", JSON_I64, &t->minor, err) < 0 ||
	    json_field_u64(o, p, "rate", true, &t->rate, err) < 0)
		return -1;
	return 0;
}

static int parse_block_io(yajl_val o, const struct jpath *p, void *elem,
			  struct error **err)
{
	struct spec_block_io *b = elem;

	if (json_fields_opt(o, p, spec_block_io_fields,
			    ARRAY_SIZE(spec_block_io_fields), b, err) < 0 ||
	    json_field_objects(o, p, "weightDevice", sizeof(*b->weight_devices),
			       parse_weight_device, &b->weight_devices,
			       &b->n_weight_devices, err) < 0)
		return -1;
	for (size_t k = 0; k < ARRAY_SIZE(spec_throttle_names); k++) {
		if (json_field_objects(o, p, spec_throttle_names[k],
				       sizeof(*b->throttle[k]),
				       parse_throttle_device, &b->throttle[k],
				       &b->n_throttle[k], err) < 0)
			return -1;
	}
	return 0;
}

static int parse_hugepage_limit(yajl_val o, const struct jpath *p, void *elem,
				struct error **err)
{
	struct spec_hugepage_limit *h = elem;

	if (json_field_string(o, p, "pageSize", true, &h->page_size, err) < 0 ||
	    json_field_u64(o, p, "limit", true, &h->limit, err) < 0)
		return -1;
	return 0;
}

/* An interface name as the kernel takes one (dev_valid_name): 1 to 15
 * bytes, not "." or "..", no '/', ':', space or control byte.  It goes
 * into net_prio.ifpriomap as "NAME PRIORITY", so nothing may split it. */
static bool ifname_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 15 || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return false;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c <= ' ' || *c == 0x7f || *c == '/' || *c == ':')
			return false;
	return true;
}

static int parse_net_priority(yajl_val o, const struct jpath *p, void *elem,
			      struct error **err)
{
	struct spec_net_priority *np = elem;
	struct jpath name = JKEY(p, "name");

	if (json_field_string(o, p, "name", true, &np->name, err) < 0)
		return -1;
	if (!ifname_ok(np->name))
		return json_fail_value(
		    &name, err, "not a network interface name", np->name);
	return json_field_u32(o, p, "priority", &np->priority, err);
}

static int parse_network(yajl_val o, const struct jpath *p, void *elem,
			 struct error **err)
{
	struct spec_network *n = elem;

	if (json_field_opt(o, p, "classID", JSON_U32, &n->class_id, err) < 0 ||
	    json_field_objects(o, p, "priorities", sizeof(*n->priorities),
			       parse_net_priority, &n->priorities,
			       &n->n_priorities, err) < 0)
		return -1;
	return 0;
}

static int parse_pids(yajl_val res, const struct jpath *p,
		      struct spec_resources *r, struct error **err)
{
	struct jpath pp = JKEY(p, "pids");
	yajl_val o;

	if (json_field_object(res, p, "pids", &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	return json_field_opt(o, &pp, "limit", JSON_I64, &r->pids_limit, err);
}

static int parse_resources(yajl_val o, const struct jpath *p, void *elem,
			   struct error **err)
{
	struct spec_resources *r = elem;

	if (json_field_objects(o, p, "devices", sizeof(*r->devices),
			       parse_device_rule, &r->devices, &r->n_devices,
			       err) < 0 ||
	    json_field_struct(o, p, "memory", sizeof(*r->memory), parse_memory,
			      &r->memory, err) < 0 ||
	    json_field_struct(o, p, "cpu", sizeof(*r->cpu), parse_cpu, &r->cpu,
			      err) < 0 ||
	    parse_pids(o, p, r, err) < 0 ||
	    json_field_struct(o, p, "blockIO", sizeof(*r->block_io),
			      parse_block_io, &r->block_io, err) < 0 ||
	    json_field_objects(o, p, "hugepageLimits",
			       sizeof(*r->hugepage_limits),
			       parse_hugepage_limit, &r->hugepage_limits,
			       &r->n_hugepage_limits, err) < 0 ||
	    json_field_struct(o, p, "network", sizeof(*r->network),
			      parse_network, &r->network, err) < 0 ||
	    json_field_map(o, p, "unified", &r->unified, &r->n_unified, err) <
		0)
		return -1;
	return 0;
}

/* `update --resources FILE`: a LinuxResources object alone, its errors
 * named from the object (".memory.limit: ..."). */
int spec_parse_resources(const char *json, size_t len,
			 struct spec_resources **out, struct error **err)
{
	_cleanup_json_ yajl_val doc = NULL;
	struct spec_resources *r;

	*out = NULL;
	if (json_load(json, len, &doc, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(doc))
		return error_set(err, EINVAL, "expected a JSON object");
	r = calloc(1, sizeof(*r));
	if (!r)
		return error_set(err, ENOMEM, "out of memory");
	if (parse_resources(doc, NULL, r, err) < 0) {
		spec_resources_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

/* ---- seccomp, personality -------------------------------------------- */

static int parse_syscall_arg(yajl_val o, const struct jpath *p, void *elem,
			     struct error **err)
{
	struct spec_syscall_arg *a = elem;

	if (json_field_u32(o, p, "index", &a->index, err) < 0 ||
	    json_field_u64(o, p, "value", true, &a->value, err) < 0 ||
	    json_field_u64(o, p, "valueTwo", false, &a->value_two, err) < 0 ||
	    json_field_string(o, p, "op", true, &a->op, err) < 0)
		return -1;
	return 0;
}

static int parse_syscall(yajl_val o, const struct jpath *p, void *elem,
			 struct error **err)
{
	struct spec_syscall *sc = elem;

	if (json_field_strv(o, p, "names", true, &sc->names, &sc->n_names,
			    err) < 0 ||
	    json_field_string(o, p, "action", true, &sc->action, err) < 0 ||
	    json_field_opt(o, p, "errnoRet", JSON_U32, &sc->errno_ret, err) <
		0 ||
	    json_field_objects(o, p, "args", sizeof(*sc->args),
			       parse_syscall_arg, &sc->args, &sc->n_args,
			       err) < 0)
		return -1;
	return 0;
}

static int parse_seccomp(yajl_val o, const struct jpath *p, void *elem,
			 struct error **err)
{
	struct spec_seccomp *s = elem;

	if (json_field_string(o, p, "defaultAction", true, &s->default_action,
			      err) < 0 ||
	    json_field_opt(o, p, "defaultErrnoRet", JSON_U32,
			   &s->default_errno_ret, err) < 0 ||
	    json_field_strv(o, p, "architectures", false, &s->architectures,
			    &s->n_architectures, err) < 0 ||
	    json_field_strv(o, p, "flags", false, &s->flags, &s->n_flags, err) <
		0 ||
	    json_field_string(o, p, "listenerPath", false, &s->listener_path,
			      err) < 0 ||
	    json_field_objects(o, p, "syscalls", sizeof(*s->syscalls),
			       parse_syscall, &s->syscalls, &s->n_syscalls,
			       err) < 0)
		return -1;
	return 0;
}

static int parse_personality(yajl_val o, const struct jpath *p, void *elem,
			     struct error **err)
{
	struct spec_personality *pe = elem;

	if (json_field_string(o, p, "domain", false, &pe->domain, err) < 0 ||
	    json_field_strv(o, p, "flags", false, &pe->flags, &pe->n_flags,
			    err) < 0)
		return -1;
	return 0;
}

/* ---- linux ----------------------------------------------------------- */

static int parse_isolation(yajl_val o, const struct jpath *p,
			   struct spec_linux *lx, struct error **err)
{
	if (json_field_objects(o, p, "namespaces", sizeof(*lx->namespaces),
			       parse_namespace, &lx->namespaces,
			       &lx->n_namespaces, err) < 0 ||
	    json_field_objects(o, p, "uidMappings", sizeof(*lx->uid_mappings),
			       parse_id_mapping, &lx->uid_mappings,
			       &lx->n_uid_mappings, err) < 0 ||
	    json_field_objects(o, p, "gidMappings", sizeof(*lx->gid_mappings),
			       parse_id_mapping, &lx->gid_mappings,
			       &lx->n_gid_mappings, err) < 0 ||
	    json_field_objects(o, p, "devices", sizeof(*lx->devices),
			       parse_device, &lx->devices, &lx->n_devices,
			       err) < 0 ||
	    json_field_string(o, p, "cgroupsPath", false, &lx->cgroups_path,
			      err) < 0 ||
	    json_field_struct(o, p, "resources", sizeof(*lx->resources),
			      parse_resources, &lx->resources, err) < 0)
		return -1;
	return 0;
}

int spec_parse_linux(yajl_val o, const struct jpath *p, void *elem,
		     struct error **err)
{
	struct spec_linux *lx = elem;

	if (parse_isolation(o, p, lx, err) < 0 ||
	    json_field_map(o, p, "sysctl", &lx->sysctl, &lx->n_sysctl, err) <
		0 ||
	    json_field_struct(o, p, "seccomp", sizeof(*lx->seccomp),
			      parse_seccomp, &lx->seccomp, err) < 0 ||
	    json_field_strv(o, p, "maskedPaths", false, &lx->masked_paths,
			    &lx->n_masked_paths, err) < 0 ||
	    json_field_strv(o, p, "readonlyPaths", false, &lx->readonly_paths,
			    &lx->n_readonly_paths, err) < 0 ||
	    json_field_string(o, p, "rootfsPropagation", false,
			      &lx->rootfs_propagation, err) < 0 ||
	    json_field_string(o, p, "mountLabel", false, &lx->mount_label,
			      err) < 0 ||
	    json_field_struct(o, p, "personality", sizeof(*lx->personality),
			      parse_personality, &lx->personality, err) < 0)
		return -1;
	return 0;
}

/* ---- freeing --------------------------------------------------------- */

void spec_network_free(struct spec_network *n)
{
	if (!n)
		return;
	for (size_t i = 0; n->priorities && i < n->n_priorities; i++)
		free(n->priorities[i].name);
	free(n->priorities);
	free(n);
}

void spec_resources_free(struct spec_resources *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->devices && i < r->n_devices; i++)
		free(r->devices[i].access);
	free(r->devices);
	free(r->memory);
	if (r->cpu) {
		free(r->cpu->cpus);
		free(r->cpu->mems);
	}
	free(r->cpu);
	if (r->block_io) {
		free(r->block_io->weight_devices);
		for (size_t k = 0; k < ARRAY_SIZE(r->block_io->throttle); k++)
			free(r->block_io->throttle[k]);
	}
	free(r->block_io);
	for (size_t i = 0; r->hugepage_limits && i < r->n_hugepage_limits; i++)
		free(r->hugepage_limits[i].page_size);
	free(r->hugepage_limits);
	spec_network_free(r->network);
	spec_kv_free(r->unified, r->n_unified);
	free(r);
}

static void seccomp_free(struct spec_seccomp *s)
{
	if (!s)
		return;
	free(s->default_action);
	strv_free(s->architectures);
	strv_free(s->flags);
	free(s->listener_path);
	for (size_t i = 0; s->syscalls && i < s->n_syscalls; i++) {
		struct spec_syscall *sc = &s->syscalls[i];

		strv_free(sc->names);
		free(sc->action);
		for (size_t j = 0; sc->args && j < sc->n_args; j++)
			free(sc->args[j].op);
		free(sc->args);
	}
	free(s->syscalls);
	free(s);
}

void spec_linux_free(struct spec_linux *lx)
{
	if (!lx)
		return;
	for (size_t i = 0; lx->namespaces && i < lx->n_namespaces; i++)
		free(lx->namespaces[i].path);
	free(lx->namespaces);
	free(lx->uid_mappings);
	free(lx->gid_mappings);
	for (size_t i = 0; lx->devices && i < lx->n_devices; i++)
		free(lx->devices[i].path);
	free(lx->devices);
	free(lx->cgroups_path);
	spec_resources_free(lx->resources);
	spec_kv_free(lx->sysctl, lx->n_sysctl);
	seccomp_free(lx->seccomp);
	strv_free(lx->masked_paths);
	strv_free(lx->readonly_paths);
	free(lx->rootfs_propagation);
	free(lx->mount_label);
	if (lx->personality) {
		free(lx->personality->domain);
		strv_free(lx->personality->flags);
	}
	free(lx->personality);
	free(lx);
}
