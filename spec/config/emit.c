/* struct spec back to config.json text, with the runtime-spec names and in
 * the runtime-spec field order.  Absent optional fields are left out, so
 * spec_parse(spec_emit(x)) gives back x; the field tables are the ones the
 * parser uses (parse_internal.h), so the two cannot drift apart.
 */
#include "spec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "parse_internal.h"
#include "util.h"

/* The generator and the first failure; once failed, every call is a
 * no-op, so the emitters below need no error checks of their own. */
struct emitter {
	yajl_gen g;
	yajl_gen_status st;
	const char *key; /* the last key written, for the error message */
};

typedef void (*emit_fn)(struct emitter *e, const void *item);

#define GEN(e, call)                                                           \
	do {                                                                   \
		if ((e)->st == yajl_gen_status_ok)                             \
			(e)->st = (call);                                      \
	} while (0)

static void str(struct emitter *e, const char *s)
{
	if (!s)
		GEN(e, yajl_gen_null(e->g));
	else
		GEN(e,
		    yajl_gen_string(e->g, (const unsigned char *)s, strlen(s)));
}

static void key(struct emitter *e, const char *k)
{
	if (e->st == yajl_gen_status_ok)
		e->key = k;
	str(e, k);
}

static void open_map(struct emitter *e)
{
	GEN(e, yajl_gen_map_open(e->g));
}

static void close_map(struct emitter *e)
{
	GEN(e, yajl_gen_map_close(e->g));
}

static void open_array(struct emitter *e)
{
	GEN(e, yajl_gen_array_open(e->g));
}

static void close_array(struct emitter *e)
{
	GEN(e, yajl_gen_array_close(e->g));
}

static void kstr(struct emitter *e, const char *k, const char *s)
{
	if (!s)
		return;
	key(e, k);
	str(e, s);
}

static void kchar(struct emitter *e, const char *k, char c)
{
	char s[2] = {c, '\0'};

	kstr(e, k, s);
}

static void kbool(struct emitter *e, const char *k, bool b)
{
	key(e, k);
	GEN(e, yajl_gen_bool(e->g, b));
}

static void kint(struct emitter *e, const char *k, int64_t v)
{
	key(e, k);
	GEN(e, yajl_gen_integer(e->g, (long long)v));
}

/* uint64 values above INT64_MAX do not fit yajl_gen_integer(). */
static void ku64(struct emitter *e, const char *k, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);

	key(e, k);
	GEN(e, yajl_gen_number(e->g, buf, (size_t)n));
}

static void kopt(struct emitter *e, const char *k, struct spec_opt o)
{
	if (o.set)
		kint(e, k, o.v);
}

static void kstrv(struct emitter *e, const char *k, char *const *v, size_t n)
{
	if (!v || n == 0)
		return;
	key(e, k);
	open_array(e);
	for (size_t i = 0; i < n && v[i]; i++)
		str(e, v[i]);
	close_array(e);
}

static void kmap(struct emitter *e, const char *k, const struct spec_kv *kv,
		 size_t n)
{
	if (!kv || n == 0)
		return;
	key(e, k);
	open_map(e);
	for (size_t i = 0; i < n; i++) {
		key(e, kv[i].key);
		str(e, kv[i].value);
	}
	close_map(e);
}

/* An array of n structs of `size` bytes, each written by fn. */
static void karray(struct emitter *e, const char *k, const void *items,
		   size_t n, size_t size, emit_fn fn)
{
	if (!items || n == 0)
		return;
	key(e, k);
	open_array(e);
	for (size_t i = 0; i < n; i++)
		fn(e, (const char *)items + i * size);
	close_array(e);
}

static void opt_fields(struct emitter *e, const struct json_opt_field *f,
		       size_t n, const void *base)
{
	for (size_t i = 0; i < n; i++)
		kopt(e, f[i].key,
		     *(const struct spec_opt *)((const char *)base +
						f[i].offset));
}

/* ---- process --------------------------------------------------------- */

static void emit_user(struct emitter *e, const struct spec_user *u)
{
	key(e, "user");
	open_map(e);
	kint(e, "uid", u->uid);
	kint(e, "gid", u->gid);
	kopt(e, "umask", u->umask);
	if (u->additional_gids && u->n_additional_gids) {
		key(e, "additionalGids");
		open_array(e);
		for (size_t i = 0; i < u->n_additional_gids; i++)
			GEN(e, yajl_gen_integer(e->g, u->additional_gids[i]));
		close_array(e);
	}
	close_map(e);
}

static void emit_caps(struct emitter *e, const struct spec_caps *caps)
{
	key(e, "capabilities");
	open_map(e);
	for (size_t i = 0; i < ARRAY_SIZE(spec_caps_fields); i++) {
		const struct json_strv_field *f = &spec_caps_fields[i];

		kstrv(e, f->key,
		      *(char **const *)((const char *)caps + f->list),
		      *(const size_t *)((const char *)caps + f->count));
	}
	close_map(e);
}

static void emit_rlimit(struct emitter *e, const void *item)
{
	const struct spec_rlimit *rl = item;

	open_map(e);
	kstr(e, "type", rl->type);
	ku64(e, "hard", rl->hard);
	ku64(e, "soft", rl->soft);
	close_map(e);
}

static void emit_process(struct emitter *e, const struct spec_process *pr)
{
	open_map(e);
	if (pr->terminal)
		kbool(e, "terminal", true);
	if (pr->has_console_size) {
		key(e, "consoleSize");
		open_map(e);
		kint(e, "height", pr->console_height);
		kint(e, "width", pr->console_width);
		close_map(e);
	}
	emit_user(e, &pr->user);
	kstrv(e, "args", pr->args, pr->n_args);
	kstrv(e, "env", pr->env, pr->n_env);
	kstr(e, "cwd", pr->cwd);
	if (pr->caps)
		emit_caps(e, pr->caps);
	karray(e, "rlimits", pr->rlimits, pr->n_rlimits, sizeof(*pr->rlimits),
	       emit_rlimit);
	if (pr->no_new_privileges)
		kbool(e, "noNewPrivileges", true);
	kstr(e, "apparmorProfile", pr->apparmor_profile);
	kopt(e, "oomScoreAdj", pr->oom_score_adj);
	kstr(e, "selinuxLabel", pr->selinux_label);
	close_map(e);
}

/* ---- root, mounts, hooks --------------------------------------------- */

static void emit_mount(struct emitter *e, const void *item)
{
	const struct spec_mount *m = item;

	open_map(e);
	kstr(e, "destination", m->destination);
	kstr(e, "type", m->type);
	kstr(e, "source", m->source);
	kstrv(e, "options", m->options, m->n_options);
	close_map(e);
}

static void emit_hook(struct emitter *e, const void *item)
{
	const struct spec_hook *h = item;

	open_map(e);
	kstr(e, "path", h->path);
	kstrv(e, "args", h->args, h->n_args);
	kstrv(e, "env", h->env, h->n_env);
	kopt(e, "timeout", h->timeout);
	close_map(e);
}

static void emit_hooks(struct emitter *e, const struct spec *s)
{
	bool any = false;

	for (int k = 0; k < HOOK_KIND_COUNT; k++)
		any = any || (s->hooks[k].hooks && s->hooks[k].n);
	if (!any)
		return;
	key(e, "hooks");
	open_map(e);
	for (int k = 0; k < HOOK_KIND_COUNT; k++)
		karray(e, spec_hook_kind_names[k], s->hooks[k].hooks,
		       s->hooks[k].n, sizeof(*s->hooks[k].hooks), emit_hook);
	close_map(e);
}

/* ---- linux ----------------------------------------------------------- */

static void emit_id_mapping(struct emitter *e, const void *item)
{
	const struct spec_id_mapping *m = item;

	open_map(e);
	kint(e, "containerID", m->container_id);
	kint(e, "hostID", m->host_id);
	kint(e, "size", m->size);
	close_map(e);
}

static void emit_device_rule(struct emitter *e, const void *item)
{
	const struct spec_device_rule *r = item;

	open_map(e);
	kbool(e, "allow", r->allow);
	if (r->type && r->type != 'a') /* absent means 'a' */
		kchar(e, "type", r->type);
	kopt(e, "major", r->major);
	kopt(e, "minor", r->minor);
	kstr(e, "access", r->access);
	close_map(e);
}

static void emit_memory(struct emitter *e, const struct spec_memory *m)
{
	key(e, "memory");
	open_map(e);
	opt_fields(e, spec_memory_fields, ARRAY_SIZE(spec_memory_fields), m);
	for (size_t i = 0; i < ARRAY_SIZE(spec_memory_flags); i++) {
		const struct json_flag_field *f = &spec_memory_flags[i];

		if (*(const bool *)((const char *)m + f->has))
			kbool(e, f->key,
			      *(const bool *)((const char *)m + f->value));
	}
	close_map(e);
}

static void emit_cpu(struct emitter *e, const struct spec_cpu *cpu)
{
	key(e, "cpu");
	open_map(e);
	opt_fields(e, spec_cpu_fields, ARRAY_SIZE(spec_cpu_fields), cpu);
	kstr(e, "cpus", cpu->cpus);
	kstr(e, "mems", cpu->mems);
	close_map(e);
}

static void emit_weight_device(struct emitter *e, const void *item)
{
	const struct spec_weight_device *w = item;

	open_map(e);
	kint(e, "major", w->major);
	kint(e, "minor", w->minor);
	kopt(e, "weight", w->weight);
	kopt(e, "leafWeight", w->leaf_weight);
	close_map(e);
}

static void emit_throttle_device(struct emitter *e, const void *item)
{
	const struct spec_throttle_device *t = item;

	open_map(e);
	kint(e, "major", t->major);
	kint(e, "minor", t->minor);
	ku64(e, "rate", t->rate);
	close_map(e);
}

static void emit_block_io(struct emitter *e, const struct spec_block_io *b)
{
	key(e, "blockIO");
	open_map(e);
	opt_fields(e, spec_block_io_fields, ARRAY_SIZE(spec_block_io_fields),
		   b);
	karray(e, "weightDevice", b->weight_devices, b->n_weight_devices,
	       sizeof(*b->weight_devices), emit_weight_device);
	for (size_t k = 0; k < ARRAY_SIZE(spec_throttle_names); k++)
		karray(e, spec_throttle_names[k], b->throttle[k],
		       b->n_throttle[k], sizeof(*b->throttle[k]),
		       emit_throttle_device);
	close_map(e);
}

static void emit_hugepage_limit(struct emitter *e, const void *item)
{
	const struct spec_hugepage_limit *h = item;

	open_map(e);
	kstr(e, "pageSize", h->page_size);
	ku64(e, "limit", h->limit);
	close_map(e);
}

static void emit_net_priority(struct emitter *e, const void *item)
{
	const struct spec_net_priority *np = item;

	open_map(e);
	kstr(e, "name", np->name);
	ku64(e, "priority", np->priority);
	close_map(e);
}

static void emit_network(struct emitter *e, const struct spec_network *n)
{
	key(e, "network");
	open_map(e);
	kopt(e, "classID", n->class_id);
	karray(e, "priorities", n->priorities, n->n_priorities,
	       sizeof(*n->priorities), emit_net_priority);
	close_map(e);
}

static void emit_resources(struct emitter *e, const struct spec_resources *r)
{
	key(e, "resources");
	open_map(e);
	karray(e, "devices", r->devices, r->n_devices, sizeof(*r->devices),
	       emit_device_rule);
	if (r->memory)
		emit_memory(e, r->memory);
	if (r->cpu)
		emit_cpu(e, r->cpu);
	if (r->pids_limit.set) {
		key(e, "pids");
		open_map(e);
		kopt(e, "limit", r->pids_limit);
		close_map(e);
	}
	if (r->block_io)
		emit_block_io(e, r->block_io);
	karray(e, "hugepageLimits", r->hugepage_limits, r->n_hugepage_limits,
	       sizeof(*r->hugepage_limits), emit_hugepage_limit);
	if (r->network)
		emit_network(e, r->network);
	kmap(e, "unified", r->unified, r->n_unified);
	close_map(e);
}

static void emit_namespace(struct emitter *e, const void *item)
{
	const struct spec_namespace *ns = item;

	open_map(e);
	if ((unsigned)ns->type < NS_TYPE_COUNT)
		kstr(e, "type", spec_ns_type_names[ns->type]);
	kstr(e, "path", ns->path);
	close_map(e);
}

/* A fifo ('p') has no device numbers; 0 is what parsing gives it. */
static void emit_device(struct emitter *e, const void *item)
{
	const struct spec_device *d = item;

	open_map(e);
	kstr(e, "path", d->path);
	kchar(e, "type", d->type);
	if (d->type != 'p' || d->major)
		kint(e, "major", d->major);
	if (d->type != 'p' || d->minor)
		kint(e, "minor", d->minor);
	kopt(e, "fileMode", d->file_mode);
	kopt(e, "uid", d->uid);
	kopt(e, "gid", d->gid);
	close_map(e);
}

static void emit_syscall_arg(struct emitter *e, const void *item)
{
	const struct spec_syscall_arg *a = item;

	open_map(e);
	kint(e, "index", a->index);
	ku64(e, "value", a->value);
	if (a->value_two)
		ku64(e, "valueTwo", a->value_two);
	kstr(e, "op", a->op);
	close_map(e);
}

static void emit_syscall(struct emitter *e, const void *item)
{
	const struct spec_syscall *sc = item;

	open_map(e);
	kstrv(e, "names", sc->names, sc->n_names);
	kstr(e, "action", sc->action);
	kopt(e, "errnoRet", sc->errno_ret);
	karray(e, "args", sc->args, sc->n_args, sizeof(*sc->args),
	       emit_syscall_arg);
	close_map(e);
}

static void emit_seccomp(struct emitter *e, const struct spec_seccomp *s)
{
	key(e, "seccomp");
	open_map(e);
	kstr(e, "defaultAction", s->default_action);
	kopt(e, "defaultErrnoRet", s->default_errno_ret);
	kstrv(e, "architectures", s->architectures, s->n_architectures);
	kstrv(e, "flags", s->flags, s->n_flags);
	kstr(e, "listenerPath", s->listener_path);
	karray(e, "syscalls", s->syscalls, s->n_syscalls, sizeof(*s->syscalls),
	       emit_syscall);
	close_map(e);
}

static void emit_linux(struct emitter *e, const struct spec_linux *lx)
{
	key(e, "linux");
	open_map(e);
	karray(e, "uidMappings", lx->uid_mappings, lx->n_uid_mappings,
	       sizeof(*lx->uid_mappings), emit_id_mapping);
	karray(e, "gidMappings", lx->gid_mappings, lx->n_gid_mappings,
	       sizeof(*lx->gid_mappings), emit_id_mapping);
	kmap(e, "sysctl", lx->sysctl, lx->n_sysctl);
	if (lx->resources)
		emit_resources(e, lx->resources);
	kstr(e, "cgroupsPath", lx->cgroups_path);
	karray(e, "namespaces", lx->namespaces, lx->n_namespaces,
	       sizeof(*lx->namespaces), emit_namespace);
	karray(e, "devices", lx->devices, lx->n_devices, sizeof(*lx->devices),
	       emit_device);
	if (lx->seccomp)
		emit_seccomp(e, lx->seccomp);
	kstr(e, "rootfsPropagation", lx->rootfs_propagation);
	kstrv(e, "maskedPaths", lx->masked_paths, lx->n_masked_paths);
	kstrv(e, "readonlyPaths", lx->readonly_paths, lx->n_readonly_paths);
	kstr(e, "mountLabel", lx->mount_label);
	if (lx->personality) {
		key(e, "personality");
		open_map(e);
		kstr(e, "domain", lx->personality->domain);
		kstrv(e, "flags", lx->personality->flags,
		      lx->personality->n_flags);
		close_map(e);
	}
	close_map(e);
}

/* ---- the document ---------------------------------------------------- */

static void emit_spec(struct emitter *e, const struct spec *s)
{
	open_map(e);
	kstr(e, "ociVersion", s->oci_version);
	if (s->process) {
		key(e, "process");
		emit_process(e, s->process);
	}
	if (s->root) {
		key(e, "root");
		open_map(e);
		kstr(e, "path", s->root->path);
		if (s->root->readonly)
			kbool(e, "readonly", true);
		close_map(e);
	}
	kstr(e, "hostname", s->hostname);
	kstr(e, "domainname", s->domainname);
	karray(e, "mounts", s->mounts, s->n_mounts, sizeof(*s->mounts),
	       emit_mount);
	emit_hooks(e, s);
	kmap(e, "annotations", s->annotations, s->n_annotations);
	if (s->linux_)
		emit_linux(e, s->linux_);
	close_map(e);
}

static const char *gen_status_message(yajl_gen_status st)
{
	switch (st) {
	case yajl_gen_invalid_string:
		return "a string is not valid UTF-8";
	case yajl_gen_invalid_number:
		return "a number is not valid";
	case yajl_max_depth_exceeded:
		return "nested too deep";
	case yajl_gen_keys_must_be_strings:
		return "a key is not a string";
	default:
		return "the JSON generator failed";
	}
}

/* Copy the generated text out, ending it with exactly one newline. */
static int take_text(yajl_gen g, char **out, size_t *len, struct error **err)
{
	const unsigned char *buf;
	size_t n;
	char *text;

	if (yajl_gen_get_buf(g, &buf, &n) != yajl_gen_status_ok)
		return error_set(err, EINVAL, "emit: no output");
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	text = malloc(n + 2);
	if (!text)
		return error_set(err, ENOMEM, "emit: out of memory");
	memcpy(text, buf, n);
	text[n] = '\n';
	text[n + 1] = '\0';
	*out = text;
	if (len)
		*len = n + 1;
	return 0;
}

int spec_emit(const struct spec *spec, char **out, size_t *len,
	      struct error **err)
{
	struct emitter e = {.g = yajl_gen_alloc(NULL)};
	int r;

	if (!e.g)
		return error_set(err, ENOMEM, "emit: out of memory");
	yajl_gen_config(e.g, yajl_gen_beautify, 1);
	yajl_gen_config(e.g, yajl_gen_indent_string, "\t");
	yajl_gen_config(e.g, yajl_gen_validate_utf8, 1);
	emit_spec(&e, spec);
	if (e.st != yajl_gen_status_ok)
		r = error_set(err, EINVAL, "emit: at \"%s\": %s",
			      e.key ? e.key : "", gen_status_message(e.st));
	else
		r = take_text(e.g, out, len, err);
	yajl_gen_free(e.g);
	return r;
}
