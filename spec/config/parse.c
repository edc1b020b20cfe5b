/* config.json and process.json into struct spec: the top level, process,
 * root, mounts, hooks and annotations, and freeing the tree.  The linux
 * object is in parse_linux.c, the JSON readers in parse_json.c.
 *
 * The parser checks types, ranges and required fields only; what a value
 * means for the sandbox is decided later by harden().
 */
#include "spec.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "parse_internal.h"
#include "util.h"

/* Every resource limit of Linux, by the name runtime-spec uses. */
static const struct {
	const char *name;
	int resource;
} rlimit_names[] = {
    {"RLIMIT_AS", RLIMIT_AS},
    {"RLIMIT_CORE", RLIMIT_CORE},
    {"RLIMIT_CPU", RLIMIT_CPU},
    {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"RLIMIT_LOCKS", RLIMIT_LOCKS},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
    {"RLIMIT_NICE", RLIMIT_NICE},
    {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_NPROC", RLIMIT_NPROC},
    {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
    {"RLIMIT_RTTIME", RLIMIT_RTTIME},
    {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_STACK", RLIMIT_STACK},
};

int spec_rlimit_from_name(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(rlimit_names); i++) {
		if (strcmp(rlimit_names[i].name, name) == 0)
			return rlimit_names[i].resource;
	}
	return -1;
}

#define CAPS_FIELD(k, f)                                                       \
	{                                                                      \
		k, offsetof(struct spec_caps, f),                              \
		    offsetof(struct spec_caps, n_##f)                          \
	}

const struct json_strv_field spec_caps_fields[5] = {
    CAPS_FIELD("bounding", bounding),	    CAPS_FIELD("effective", effective),
    CAPS_FIELD("inheritable", inheritable), CAPS_FIELD("permitted", permitted),
    CAPS_FIELD("ambient", ambient),
};

/* ---- process --------------------------------------------------------- */

static int parse_console_size(yajl_val proc, const struct jpath *p,
			      struct spec_process *pr, struct error **err)
{
	struct jpath cp = JKEY(p, "consoleSize");
	yajl_val o;

	if (json_field_object(proc, p, "consoleSize", &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	if (json_field_u32(o, &cp, "height", &pr->console_height, err) < 0 ||
	    json_field_u32(o, &cp, "width", &pr->console_width, err) < 0)
		return -1;
	pr->has_console_size = true;
	return 0;
}

/* 4294967295 is (uid_t)-1, which setresuid() and setresgid() read as
 * "leave unchanged": a workload given it would keep the runtime's root. */
static int check_id(const struct jpath *p, const char *key, uint32_t id,
		    struct error **err)
{
	struct jpath kp = JKEY(p, key);

	if (id == UINT32_MAX)
		return json_fail(&kp, err,
				 "4294967295 is not a valid id (-1 means "
				 "\"unchanged\" to setresuid)");
	return 0;
}

/* An absent user is root (uid 0, gid 0); a present one names both. */
static int parse_user(yajl_val proc, const struct jpath *p, struct spec_user *u,
		      struct error **err)
{
	struct jpath up = JKEY(p, "user");
	yajl_val o;

	if (json_field_object(proc, p, "user", &o, err) < 0)
		return -1;
	if (!o)
		return 0;
	if (json_field_u32(o, &up, "uid", &u->uid, err) < 0 ||
	    json_field_u32(o, &up, "gid", &u->gid, err) < 0 ||
	    json_field_opt(o, &up, "umask", JSON_U32, &u->umask, err) < 0 ||
	    check_id(&up, "uid", u->uid, err) < 0 ||
	    check_id(&up, "gid", u->gid, err) < 0)
		return -1;
	return json_field_u32v(o, &up, "additionalGids", &u->additional_gids,
			       &u->n_additional_gids, err);
}

static int parse_caps(yajl_val o, const struct jpath *p, void *elem,
		      struct error **err)
{
	for (size_t i = 0; i < ARRAY_SIZE(spec_caps_fields); i++) {
		const struct json_strv_field *f = &spec_caps_fields[i];
		char ***list = (char ***)((char *)elem + f->list);
		size_t *n = (size_t *)((char *)elem + f->count);

		if (json_field_strv(o, p, f->key, false, list, n, err) < 0)
			return -1;
	}
	return 0;
}

static int parse_rlimit(yajl_val o, const struct jpath *p, void *elem,
			struct error **err)
{
	struct spec_rlimit *rl = elem;
	struct jpath tp = JKEY(p, "type");

	if (json_field_string(o, p, "type", true, &rl->type, err) < 0)
		return -1;
	rl->resource = spec_rlimit_from_name(rl->type);
	if (rl->resource < 0)
		return json_fail_value(&tp, err, "unknown rlimit", rl->type);
	if (json_field_u64(o, p, "hard", true, &rl->hard, err) < 0 ||
	    json_field_u64(o, p, "soft", true, &rl->soft, err) < 0)
		return -1;
	return 0;
}

/* args (required, so non-empty) and cwd: what a process runs, and where. */
static int parse_command(yajl_val o, const struct jpath *p,
			 struct spec_process *pr, struct error **err)
{
	struct jpath cp = JKEY(p, "cwd");

	if (json_field_strv(o, p, "args", true, &pr->args, &pr->n_args, err) <
		0 ||
	    json_field_strv(o, p, "env", false, &pr->env, &pr->n_env, err) <
		0 ||
	    json_field_string(o, p, "cwd", true, &pr->cwd, err) < 0)
		return -1;
	if (pr->cwd[0] != '/')
		return json_fail(&cp, err, "must be an absolute path");
	return 0;
}

/* The runtime spec: "If rlimits contains duplicated entries with same
 * type, the runtime MUST generate an error". */
static int check_rlimits(const struct jpath *p, const struct spec_process *pr,
			 struct error **err)
{
	struct jpath rp = JKEY(p, "rlimits");

	for (size_t i = 0; i < pr->n_rlimits; i++)
		for (size_t j = 0; j < i; j++)
			if (pr->rlimits[i].resource == pr->rlimits[j].resource)
				return json_fail(&rp, err, "%s listed twice",
						 pr->rlimits[i].type);
	return 0;
}

static int parse_process(yajl_val o, const struct jpath *p, void *elem,
			 struct error **err)
{
	struct spec_process *pr = elem;

	if (json_field_bool(o, p, "terminal", &pr->terminal, NULL, err) < 0 ||
	    parse_console_size(o, p, pr, err) < 0 ||
	    parse_user(o, p, &pr->user, err) < 0 ||
	    parse_command(o, p, pr, err) < 0 ||
	    json_field_struct(o, p, "capabilities", sizeof(*pr->caps),
			      parse_caps, &pr->caps, err) < 0 ||
	    json_field_objects(o, p, "rlimits", sizeof(*pr->rlimits),
			       parse_rlimit, &pr->rlimits, &pr->n_rlimits,
			       err) < 0 ||
	    check_rlimits(p, pr, err) < 0 ||
	    json_field_bool(o, p, "noNewPrivileges", &pr->no_new_privileges,
			    NULL, err) < 0 ||
	    json_field_opt(o, p, "oomScoreAdj", JSON_I32, &pr->oom_score_adj,
			   err) < 0 ||
	    json_field_string(o, p, "apparmorProfile", false,
			      &pr->apparmor_profile, err) < 0 ||
	    json_field_string(o, p, "selinuxLabel", false, &pr->selinux_label,
			      err) < 0)
		return -1;
	return 0;
}

/* ---- root, mounts, hooks --------------------------------------------- */

static int parse_root(yajl_val o, const struct jpath *p, void *elem,
		      struct error **err)
{
	struct spec_root *root = elem;

	if (json_field_string(o, p, "path", true, &root->path, err) < 0 ||
	    json_field_bool(o, p, "readonly", &root->readonly, NULL, err) < 0)
		return -1;
	return 0;
}

static int parse_mount(yajl_val o, const struct jpath *p, void *elem,
		       struct error **err)
{
	struct spec_mount *m = elem;

	if (json_field_string(o, p, "destination", true, &m->destination, err) <
		0 ||
	    json_field_string(o, p, "type", false, &m->type, err) < 0 ||
	    json_field_string(o, p, "source", false, &m->source, err) < 0 ||
	    json_field_strv(o, p, "options", false, &m->options, &m->n_options,
			    err) < 0)
		return -1;
	return 0;
}

static int parse_hook(yajl_val o, const struct jpath *p, void *elem,
		      struct error **err)
{
	struct spec_hook *h = elem;
	struct jpath pp = JKEY(p, "path"), tp = JKEY(p, "timeout");

	if (json_field_string(o, p, "path", true, &h->path, err) < 0)
		return -1;
	if (h->path[0] != '/')
		return json_fail(&pp, err, "must be an absolute path");
	if (json_field_strv(o, p, "args", false, &h->args, &h->n_args, err) <
		0 ||
	    json_field_strv(o, p, "env", false, &h->env, &h->n_env, err) < 0 ||
	    json_field_opt(o, p, "timeout", JSON_I32, &h->timeout, err) < 0)
		return -1;
	if (h->timeout.set && h->timeout.v <= 0)
		return json_fail(&tp, err, "must be positive");
	return 0;
}

static int parse_hooks(yajl_val doc, struct spec *s, struct error **err)
{
	struct jpath hp = JKEY(NULL, "hooks");
	yajl_val o;

	if (json_field_object(doc, NULL, "hooks", &o, err) < 0)
		return -1;
	for (int k = 0; o && k < HOOK_KIND_COUNT; k++) {
		struct spec_hook_list *l = &s->hooks[k];

		if (json_field_objects(o, &hp, spec_hook_kind_names[k],
				       sizeof(*l->hooks), parse_hook, &l->hooks,
				       &l->n, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- the document ---------------------------------------------------- */

/* n numeric identifiers "1.2.3", none with a leading zero; advances *p. */
static bool semver_numbers(const char **p, int n)
{
	for (int i = 0; i < n; i++) {
		const char *start = *p;

		if (i > 0 && *(*p)++ != '.')
			return false;
		start = *p;
		while (**p >= '0' && **p <= '9')
			(*p)++;
		if (*p == start || (start[0] == '0' && *p - start > 1))
			return false;
	}
	return true;
}

/* Dot-separated non-empty identifiers of [0-9A-Za-z-]. */
static bool semver_identifiers(const char **p)
{
	bool empty = true;

	for (;; (*p)++) {
		char ch = **p;

		if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= 'A' && ch <= 'Z') || ch == '-')
			empty = false;
		else if (ch == '.' && !empty)
			empty = true;
		else
			return !empty;
	}
}

/* SemVer 2.0.0, as the runtime-spec asks of ociVersion:
 * MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]. */
static bool semver(const char *v)
{
	if (!semver_numbers(&v, 3))
		return false;
	if (*v == '-' && (v++, !semver_identifiers(&v)))
		return false;
	if (*v == '+' && (v++, !semver_identifiers(&v)))
		return false;
	return *v == '\0';
}

static int parse_spec(yajl_val doc, struct spec *s, struct error **err)
{
	if (json_field_string(doc, NULL, "ociVersion", true, &s->oci_version,
			      err) < 0)
		return -1;
	if (!semver(s->oci_version))
		return error_set(err, EINVAL,
				 ".ociVersion: expected a SemVer version like "
				 "\"1.2.0\"");
	if (json_field_struct(doc, NULL, "process", sizeof(*s->process),
			      parse_process, &s->process, err) < 0 ||
	    json_field_struct(doc, NULL, "root", sizeof(*s->root), parse_root,
			      &s->root, err) < 0 ||
	    json_field_string(doc, NULL, "hostname", false, &s->hostname, err) <
		0 ||
	    json_field_string(doc, NULL, "domainname", false, &s->domainname,
			      err) < 0 ||
	    json_field_objects(doc, NULL, "mounts", sizeof(*s->mounts),
			       parse_mount, &s->mounts, &s->n_mounts,
			       err) < 0 ||
	    parse_hooks(doc, s, err) < 0 ||
	    json_field_map(doc, NULL, "annotations", &s->annotations,
			   &s->n_annotations, err) < 0 ||
	    json_field_struct(doc, NULL, "linux", sizeof(*s->linux_),
			      spec_parse_linux, &s->linux_, err) < 0)
		return -1;
	return 0;
}

/* Load a document whose top level must be an object. */
static int load_object(const char *json, size_t len, yajl_val *out,
		       struct error **err)
{
	if (json_load(json, len, out, err) < 0)
		return -1;
	if (!YAJL_IS_OBJECT(*out))
		return error_set(err, EINVAL, "expected a JSON object");
	return 0;
}

int spec_parse(const char *json, size_t len, struct spec **out,
	       struct error **err)
{
	_cleanup_json_ yajl_val doc = NULL;
	struct spec *s;

	if (load_object(json, len, &doc, err) < 0)
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s)
		return error_set(err, ENOMEM, "out of memory");
	if (parse_spec(doc, s, err) < 0) {
		spec_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

int spec_parse_process(const char *json, size_t len, struct spec_process **out,
		       struct error **err)
{
	_cleanup_json_ yajl_val doc = NULL;
	struct spec_process *pr;

	if (load_object(json, len, &doc, err) < 0)
		return -1;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return error_set(err, ENOMEM, "out of memory");
	if (parse_process(doc, NULL, pr, err) < 0) {
		spec_process_free(pr);
		return -1;
	}
	*out = pr;
	return 0;
}

/* ---- freeing --------------------------------------------------------- */

static void caps_free(struct spec_caps *caps)
{
	if (!caps)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(spec_caps_fields); i++)
		strv_free(*(char ***)((char *)caps + spec_caps_fields[i].list));
	free(caps);
}

void spec_process_free(struct spec_process *pr)
{
	if (!pr)
		return;
	free(pr->user.additional_gids);
	strv_free(pr->args);
	strv_free(pr->env);
	free(pr->cwd);
	caps_free(pr->caps);
	for (size_t i = 0; pr->rlimits && i < pr->n_rlimits; i++)
		free(pr->rlimits[i].type);
	free(pr->rlimits);
	free(pr->apparmor_profile);
	free(pr->selinux_label);
	free(pr);
}

static void hook_list_free(struct spec_hook_list *l)
{
	for (size_t i = 0; l->hooks && i < l->n; i++) {
		free(l->hooks[i].path);
		strv_free(l->hooks[i].args);
		strv_free(l->hooks[i].env);
	}
	free(l->hooks);
}

void spec_free(struct spec *s)
{
	if (!s)
		return;
	free(s->oci_version);
	spec_process_free(s->process);
	if (s->root)
		free(s->root->path);
	free(s->root);
	free(s->hostname);
	free(s->domainname);
	for (size_t i = 0; s->mounts && i < s->n_mounts; i++) {
		free(s->mounts[i].destination);
		free(s->mounts[i].type);
		free(s->mounts[i].source);
		strv_free(s->mounts[i].options);
	}
	free(s->mounts);
	for (int k = 0; k < HOOK_KIND_COUNT; k++)
		hook_list_free(&s->hooks[k]);
	spec_kv_free(s->annotations, s->n_annotations);
	spec_linux_free(s->linux_);
	free(s);
}
