/* The rule of harden() for mounts.  A bind mount brings a piece of the
 * host into the container, so one from config.json is dropped unless its
 * source is on the policy's allowlist or it is one of the small files an
 * engine makes for the container itself; a kept one is read-only (unless
 * the policy says rw), nosuid and nodev.  Other mounts are kept only for
 * the kernel filesystems a container is made of.
 *
 * The runtime resolves sources on the host and must re-check them there:
 * these rules see only the text, so a symlink under an allowed source is
 * the runtime's to refuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden_internal.h"
#include "units.h"
#include "util.h"

/* Never mounted, whatever the policy says: the Kubernetes service-account
 * token (by source or by destination), and the engines' sockets and state
 * directories, from which a container would control its host. */
static const char *const secret_dirs[] = {
    "/var/run/secrets/kubernetes.io",
    "/run/secrets/kubernetes.io",
};
static const char *const engine_dirs[] = {
    "/run/containerd", "/var/run/containerd", "/run/docker", "/var/run/docker",
    "/run/podman",     "/var/run/podman",     "/run/crio",   "/var/run/crio",
};
static const char *const engine_sockets[] = {
    "docker.sock",
    "containerd.sock",
    "podman.sock",
    "crio.sock",
};

/* The files an engine makes for the container itself, by destination.
 * The source must also look like the engine's file (its name), so that a
 * volume of some other host file aimed at one of these destinations is
 * not let through.  kubelet names the termination log by a random hash
 * under .../pods/UID/containers/NAME/. */
static const struct {
	const char *destination;
	const char *names[2];
} engine_files[] = {
    {"/etc/hosts", {"hosts", "etc-hosts"}},
    {"/etc/hostname", {"hostname"}},
    {"/etc/resolv.conf", {"resolv.conf"}},
    {"/run/.containerenv", {".containerenv"}},
    {"/dev/termination-log", {NULL}},
};

/* The filesystems a container is made of; anything else (overlay, nfs,
 * a block device) reaches beyond the container. */
static const char *const kept_types[] = {
    "proc", "sysfs", "tmpfs", "devpts", "mqueue", "cgroup", "cgroup2",
};

/* Options to remove and to add so a mount is what the rule wants. */
struct option_rule {
	const char *remove[7];
	const char *add[4];
};

static const struct option_rule bind_ro = {
    {"rw", "rrw", "suid", "rsuid", "dev", "rdev"}, {"ro", "nosuid", "nodev"}};
/* A policy entry with rw allows writing; config.json's own "ro" stays. */
static const struct option_rule bind_rw = {{"suid", "rsuid", "dev", "rdev"},
					   {"nosuid", "nodev"}};
static const struct option_rule read_only = {{"rw", "rrw"}, {"ro"}};
static const struct option_rule tmpfs = {{"suid", "rsuid", "dev", "rdev"},
					 {"nosuid", "nodev"}};
/* The runtime makes the device nodes in the /dev tmpfs: nodev there would
 * break /dev/null. */
static const struct option_rule dev_tmpfs = {{"suid", "rsuid"}, {"nosuid"}};
static const struct option_rule none = {{NULL}, {NULL}};

/* ---- judging a mount ------------------------------------------------- */

static bool is_bind(const struct spec_mount *m)
{
	return (m->type && strcmp(m->type, "bind") == 0) ||
	       harden_strv_has(m->options, m->n_options, "bind") ||
	       harden_strv_has(m->options, m->n_options, "rbind");
}

/* Absolute, no "." or ".." or empty component, no trailing slash: prefix
 * matching on components is only sound on such paths. */
static bool clean_path(const char *p)
{
	if (!p || p[0] != '/')
		return false;
	if (p[1] == '\0')
		return true;
	for (const char *c = p + 1;;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (c[n] == '\0')
			return true;
		c += n + 1;
	}
}

static bool under_any(const char *path, const char *const *dirs, size_t n)
{
	for (size_t i = 0; path && i < n; i++)
		if (harden_path_under(path, dirs[i]))
			return true;
	return false;
}

/* The reason a bind is never mounted, or NULL. */
static const char *never_mounted(const struct spec_mount *m)
{
	const char *base = strrchr(m->source, '/') + 1;

	if (under_any(m->source, secret_dirs, ARRAY_SIZE(secret_dirs)) ||
	    under_any(m->destination, secret_dirs, ARRAY_SIZE(secret_dirs)))
		return "default: the service-account token is never mounted";
	if (under_any(m->source, engine_dirs, ARRAY_SIZE(engine_dirs)))
		return "default: engine state is never mounted";
	for (size_t i = 0; i < ARRAY_SIZE(engine_sockets); i++)
		if (strcmp(base, engine_sockets[i]) == 0)
			return "default: engine sockets are never mounted";
	return NULL;
}

/* Whether the component `back` places from the end of a clean path is
 * name: back 0 is the basename. */
static bool component_is(const char *path, int back, const char *name)
{
	const char *end = path + strlen(path);

	for (;;) {
		const char *start = end;

		while (start > path && start[-1] != '/')
			start--;
		if (back == 0)
			return (size_t)(end - start) == strlen(name) &&
			       strncmp(start, name, (size_t)(end - start)) == 0;
		if (start <= path + 1)
			return false;
		end = start - 1;
		back--;
	}
}

static bool engine_file(const struct spec_mount *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(engine_files); i++) {
		const char *const *names = engine_files[i].names;

		if (strcmp(m->destination, engine_files[i].destination) != 0)
			continue;
		if (!names[0])
			return component_is(m->source, 2, "containers") &&
			       component_is(m->source, 4, "pods");
		for (size_t j = 0; j < 2 && names[j]; j++)
			if (component_is(m->source, 0, names[j]))
				return true;
	}
	return false;
}

/* The policy entry with the longest source that holds this one: a
 * narrower entry (ro /data/keys under rw /data) decides for its part. */
static const struct policy_mount *policy_entry(const struct policy *p,
					       const char *source)
{
	const struct policy_mount *best = NULL;

	for (size_t i = 0; i < p->n_mounts; i++)
		if (harden_path_under(source, p->mounts[i].source) &&
		    (!best ||
		     strlen(p->mounts[i].source) > strlen(best->source)))
			best = &p->mounts[i];
	return best;
}

struct verdict {
	bool keep;
	const struct option_rule *options;
	const char *reason;
};

static struct verdict judge_bind(const struct harden_ctx *c,
				 const struct spec_mount *m)
{
	const char *why_not = HARDEN_WHY(
	    c->policy->n_mounts == 0 && c->defaults->n_mounts == 0, "mounts");
	const struct policy_mount *entry;
	const char *never;

	if (!clean_path(m->source))
		return (struct verdict){false, NULL,
					"default: source is not a clean "
					"absolute path"};
	never = never_mounted(m);
	if (never)
		return (struct verdict){false, NULL, never};
	entry = policy_entry(c->policy, m->source);
	if (entry)
		return (struct verdict){true, entry->rw ? &bind_rw : &bind_ro,
					"policy: mounts"};
	if (engine_file(m))
		return (struct verdict){true, &bind_ro, "default"};
	return (struct verdict){false, NULL, why_not};
}

static struct verdict judge(const struct harden_ctx *c,
			    const struct spec_mount *m)
{
	const char *t = m->type;

	if (is_bind(m))
		return judge_bind(c, m);
	if (!t || !harden_strv_has((char *const *)kept_types,
				   ARRAY_SIZE(kept_types), t))
		return (struct verdict){false, NULL, "default"};
	if (strcmp(t, "sysfs") == 0 || strcmp(t, "cgroup") == 0 ||
	    strcmp(t, "cgroup2") == 0)
		return (struct verdict){true, &read_only, "default"};
	if (strcmp(t, "tmpfs") == 0)
		return (struct verdict){
		    true, strcmp(m->destination, "/dev") ? &tmpfs : &dev_tmpfs,
		    "default"};
	return (struct verdict){true, &none, "default"};
}

/* ---- rewriting options ----------------------------------------------- */

static bool listed(const char *const *v, size_t max, const char *s)
{
	for (size_t i = 0; i < max && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static bool has_size(const struct spec_mount *m)
{
	for (size_t i = 0; i < m->n_options; i++)
		if (strncmp(m->options[i], "size=", 5) == 0)
			return true;
	return false;
}

/* Apply an option rule (and a tmpfs size) to m; true when it changed. */
static bool rewrite_options(struct harden_ctx *c, struct spec_mount *m,
			    const struct option_rule *r, const char *size)
{
	size_t n = 0, before = m->n_options;
	bool changed = false;

	for (size_t i = 0; i < m->n_options; i++) {
		if (listed(r->remove, ARRAY_SIZE(r->remove), m->options[i])) {
			free(m->options[i]);
			changed = true;
		} else {
			m->options[n++] = m->options[i];
		}
	}
	if (m->options)
		m->options[n] = NULL;
	m->n_options = n;
	for (size_t i = 0; i < ARRAY_SIZE(r->add) && r->add[i]; i++) {
		if (harden_strv_has(m->options, m->n_options, r->add[i]))
			continue;
		if (!harden_strv_push(&m->options, &m->n_options, r->add[i]))
			c->oom = true;
	}
	if (size && !harden_strv_push(&m->options, &m->n_options, size))
		c->oom = true;
	return changed || m->n_options != before;
}

/* "bind /src [rbind,ro]": what a mount is, on one line. */
static char *describe(struct harden_ctx *c, const struct spec_mount *m)
{
	_cleanup_free_ char *opts =
	    harden_join(c, m->options, m->n_options, ",");
	_cleanup_free_ char *text =
	    opts ? harden_fmt(c, "%s %s [%s]", m->type ? m->type : "none",
			      m->source ? m->source : "-", opts)
		 : NULL;

	return text ? harden_safe(text, SIZE_MAX) : NULL;
}

/* "options rbind,ro,nosuid": what a kept mount became (type and source
 * stay as they were). */
static char *options_string(struct harden_ctx *c, const struct spec_mount *m)
{
	_cleanup_free_ char *opts =
	    harden_join(c, m->options, m->n_options, ",");
	_cleanup_free_ char *text =
	    opts ? harden_fmt(c, "options %s", opts) : NULL;

	return text ? harden_safe(text, SIZE_MAX) : NULL;
}

/* A /dev/shm bound from the engine (podman's per-container shm, the CRI
 * pod's) would be shared with other containers; a private tmpfs there,
 * capped like the scratch, keeps POSIX shared memory working and shares
 * nothing.  The mount then goes through the tmpfs rule. */
static void private_shm(struct harden_ctx *c, struct spec_mount *m)
{
	static const char *const opts[] = {"nosuid", "nodev", "noexec",
					   "mode=1777"};
	_cleanup_free_ char *asked = NULL, *applied = NULL, *size = NULL;

	if (!is_bind(m) || strcmp(m->destination, "/dev/shm") != 0 ||
	    (m->source && policy_entry(c->policy, m->source)))
		return;
	asked = describe(c, m);
	free(m->type);
	free(m->source);
	strv_free(m->options);
	m->options = NULL;
	m->n_options = 0;
	m->type = strdup("tmpfs");
	m->source = strdup("shm");
	size = harden_fmt(c, "size=%llu",
			  (unsigned long long)c->policy->scratch_size);
	if (!m->type || !m->source || !size)
		c->oom = true;
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (!harden_strv_push(&m->options, &m->n_options, opts[i]))
			c->oom = true;
	if (size && !harden_strv_push(&m->options, &m->n_options, size))
		c->oom = true;
	applied = describe(c, m);
	harden_record(c, ".mounts[/dev/shm]", asked, applied,
		      "default: /dev/shm is never shared");
}

/* Keep (and rewrite) or drop one mount; true to keep it. */
static bool keep_mount(struct harden_ctx *c, struct spec_mount *m)
{
	struct verdict v = judge(c, m);
	_cleanup_free_ char *dest = harden_safe(m->destination, SIZE_MAX);
	_cleanup_free_ char *field =
	    dest ? harden_fmt(c, ".mounts[%s]", dest) : NULL;
	_cleanup_free_ char *asked = describe(c, m), *applied = NULL;
	_cleanup_free_ char *size = NULL;
	const char *reason = v.reason;
	bool is_tmpfs = !is_bind(m) && m->type && !strcmp(m->type, "tmpfs");

	if (!v.keep) {
		harden_record(c, field, asked, "dropped", reason);
		return false;
	}
	if (is_tmpfs && !has_size(m)) {
		size = harden_fmt(c, "size=%llu",
				  (unsigned long long)c->policy->scratch_size);
		if (c->policy->scratch_size != c->defaults->scratch_size)
			reason = "policy: rootfs.scratchSize";
	}
	if (!rewrite_options(c, m, v.options, size))
		return true;
	applied = options_string(c, m);
	harden_record(c, field, asked, applied, reason);
	return true;
}

static bool harden_mount(struct harden_ctx *c, struct spec_mount *m)
{
	private_shm(c, m);
	return keep_mount(c, m);
}

static void free_mount(struct spec_mount *m)
{
	free(m->destination);
	free(m->type);
	free(m->source);
	strv_free(m->options);
}

int harden_mounts(struct harden_ctx *c, struct error **err)
{
	struct spec *s = c->spec;
	size_t n = 0;

	for (size_t i = 0; i < s->n_mounts; i++) {
		if (harden_mount(c, &s->mounts[i]))
			s->mounts[n++] = s->mounts[i];
		else
			free_mount(&s->mounts[i]);
	}
	s->n_mounts = n;
	if (n == 0) {
		free(s->mounts);
		s->mounts = NULL;
	}
	return 0;
}
