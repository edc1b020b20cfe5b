/* The rule of harden() for mounts.  A bind mount brings a piece of the
 * host into the container, so one from config.json is dropped unless its
 * source is on the policy's allowlist or it is one of the small files an
 * engine makes for the container itself; a kept one is read-only (unless
 * the policy says rw), nosuid and nodev.  Other mounts are kept only for
 * the kernel filesystems a container is made of, each once and at its
 * own place, so that the masked and read-only paths cover every copy.
 * Options are kept only from a list per filesystem type: anything else
 * (remount, shared propagation, data the kernel would read) is removed.
 *
 * These rules see only the text.  What the runtime must check on the
 * host is in hardened->binds: it opens every source without following a
 * symbolic link and checks what it opened against the same entry.
 */
#include <errno.h>
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
 * The source must also look like the engine's file (its name) and lie in
 * the bundle or an engine directory (policy engineDirs), so that a volume
 * of some other host file aimed at one of these destinations is not let
 * through.  kubelet names the termination log by a random hash under
 * .../pods/UID/containers/NAME/. */
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

/* The kernel filesystems a container is made of, each kept once and only
 * at its own destination, where the masked and read-only paths apply; a
 * second proc or sysfs elsewhere would show what the masks hide.  tmpfs
 * may go anywhere but "/", /proc and /sys.  Anything else (overlay, nfs,
 * a block device) reaches beyond the container. */
static const struct {
	const char *type;
	const char *destination;
} kernel_fs[] = {
    {"proc", "/proc"},
    {"sysfs", "/sys"},
    {"devpts", "/dev/pts"},
    {"mqueue", "/dev/mqueue"},
    {"cgroup", "/sys/fs/cgroup"},
    {"cgroup2", "/sys/fs/cgroup"},
};
#define N_KERNEL_FS ARRAY_SIZE(kernel_fs)

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

bool harden_is_bind(const struct spec_mount *m)
{
	return (m->type && strcmp(m->type, "bind") == 0) ||
	       harden_strv_has(m->options, m->n_options, "bind") ||
	       harden_strv_has(m->options, m->n_options, "rbind");
}

static bool under_any(const char *path, const char *const *dirs, size_t n)
{
	for (size_t i = 0; path && i < n; i++)
		if (harden_path_under(path, dirs[i]))
			return true;
	return false;
}

/* The service-account token, by source or by destination: the container
 * runs without it by design (the kubelet hands it to every pod), so it
 * is dropped, recorded, never refused. */
static bool service_account_token(const struct spec_mount *m)
{
	return under_any(m->source, secret_dirs, ARRAY_SIZE(secret_dirs)) ||
	       under_any(m->destination, secret_dirs, ARRAY_SIZE(secret_dirs));
}

/* Why a bind is never mounted, whatever the policy says, or NULL. */
static const char *never_mounted(const struct spec_mount *m)
{
	const char *base = strrchr(m->source, '/') + 1;

	if (under_any(m->source, engine_dirs, ARRAY_SIZE(engine_dirs)))
		return "engine state is never mounted";
	for (size_t i = 0; i < ARRAY_SIZE(engine_sockets); i++)
		if (strcmp(base, engine_sockets[i]) == 0)
			return "engine sockets are never mounted";
	return NULL;
}

/* Whether the component `back` places from the end of a clean path is
 * name: back 0 is the basename. */
bool harden_component_is(const char *path, int back, const char *name)
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

/* A destination where an engine puts a file of its own, or (podman's
 * mounts.conf: RHEL's subscription secrets) a directory of its
 * configuration: what it brings from elsewhere is dropped, recorded, as
 * the container runs without it by design; no user asked for it. */
static bool engine_file_place(const struct spec_mount *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(engine_files); i++)
		if (strcmp(m->destination, engine_files[i].destination) == 0)
			return true;
	return strcmp(m->destination, "/run/secrets") == 0;
}

static bool engine_file_name(const struct spec_mount *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(engine_files); i++) {
		const char *const *names = engine_files[i].names;

		if (strcmp(m->destination, engine_files[i].destination) != 0)
			continue;
		if (!names[0])
			return harden_component_is(m->source, 2,
						   "containers") &&
			       harden_component_is(m->source, 4, "pods");
		for (size_t j = 0; j < 2 && names[j]; j++)
			if (harden_component_is(m->source, 0, names[j]))
				return true;
	}
	return false;
}

/* Where an engine file must come from: the bundle, or the longest engine
 * directory that holds it; NULL when neither does. */
static const char *engine_file_dir(const struct harden_ctx *c,
				   const struct spec_mount *m)
{
	const struct policy *p = c->policy;
	const char *best = NULL;

	if (!engine_file_name(m))
		return NULL;
	if (c->bundle && harden_path_under(m->source, c->bundle) &&
	    strcmp(m->source, c->bundle) != 0)
		return c->bundle;
	for (size_t i = 0; i < p->n_engine_dirs; i++)
		if (harden_path_under(m->source, p->engine_dirs[i]) &&
		    (!best || strlen(p->engine_dirs[i]) > strlen(best)))
			best = p->engine_dirs[i];
	return best;
}

/* The policy entry with the longest source that holds this one: a
 * narrower entry (ro /data/keys under rw /data) decides for its part. */
const struct policy_mount *harden_policy_mount(const struct policy *p,
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

/* What becomes of a mount: kept (with these options), dropped and
 * recorded (what the container runs without by design: the token, an
 * engine's file from elsewhere, a second /proc), or refused at create (a
 * mount a user asked for: policy.h enum policy_refusal).  reason is the
 * recorded reason of a kept or dropped mount, the why of a refused one;
 * key the policy key that would allow a refused one (NULL: none). */
enum fate { KEEP, DROP, REFUSE };

struct verdict {
	enum fate fate;
	const struct option_rule *options;
	const char *reason;
	enum policy_refusal kind;
	const char *key;
};

#define KEPT(opts, why) ((struct verdict){KEEP, (opts), (why), 0, NULL})
#define DROPPED(why) ((struct verdict){DROP, NULL, (why), 0, NULL})
#define REFUSED(k, why, key) ((struct verdict){REFUSE, NULL, (why), (k), (key)})

/* `corral sandbox --workspace DIR`, found the caller's own by the
 * runtime (policy.h workspace). */
static bool is_workspace(const struct harden_ctx *c, const char *source)
{
	return c->policy->workspace &&
	       strcmp(c->policy->workspace, source) == 0;
}

static struct verdict judge_volume(const struct harden_ctx *c,
				   const struct harden_volume *v)
{
	if (v->keep)
		return KEPT(v->rw ? &bind_rw : &bind_ro, v->reason);
	return REFUSED(POLICY_REFUSE_VOLUMES, v->reason, v->key);
}

static struct verdict judge_bind(const struct harden_ctx *c,
				 const struct spec_mount *m)
{
	const struct policy_mount *entry;
	struct harden_volume v;
	const char *never;

	if (!harden_clean_path(m->source))
		return REFUSED(POLICY_REFUSE_MOUNTS,
			       "the source is not a clean absolute path", NULL);
	if (service_account_token(m))
		return DROPPED("default: the service-account token is never "
			       "mounted");
	never = never_mounted(m);
	if (never)
		return REFUSED(POLICY_REFUSE_MOUNTS, never, NULL);
	entry = harden_policy_mount(c->policy, m->source);
	if (entry)
		return KEPT(entry->rw ? &bind_rw : &bind_ro, "policy: mounts");
	if (is_workspace(c, m->source))
		return KEPT(&bind_rw, "policy: workspace.allowOwn: the "
				      "caller's own directory");
	if (harden_kubelet_volume(c, m->source, &v))
		return judge_volume(c, &v);
	if (engine_file_dir(c, m))
		return KEPT(&bind_ro, "default");
	if (engine_file_place(m))
		return DROPPED("default: an engine's file only from the bundle "
			       "or an engine directory (policy: engineDirs)");
	if (harden_strv_has(c->policy->drop_sources, c->policy->n_drop_sources,
			    m->source))
		return DROPPED("default: the sandbox's own config asks for it "
			       "only to show what the sandbox cuts (policy: "
			       "mounts)");
	/* keep_mount words it, naming the source */
	return REFUSED(POLICY_REFUSE_MOUNTS, NULL, "mounts");
}

/* The kernel filesystem a type names, or -1. */
static int kernel_fs_of(const char *type)
{
	for (size_t i = 0; type && i < N_KERNEL_FS; i++)
		if (strcmp(kernel_fs[i].type, type) == 0)
			return (int)i;
	return -1;
}

/* Destinations the container's own kernel filesystems own: nothing but
 * them is mounted at or under /proc and /sys (but /sys/fs/cgroup's), and
 * nothing replaces "/". */
static const char *bad_destination(const struct spec_mount *m, int kfs)
{
	const char *d = m->destination;

	if (strcmp(d, "/") == 0)
		return "default: nothing is mounted over the root";
	if (kfs >= 0 && strcmp(d, kernel_fs[kfs].destination) != 0)
		return "default: a kernel filesystem only at its own place";
	if (kfs < 0 &&
	    (harden_path_under(d, "/proc") || harden_path_under(d, "/sys")))
		return "default: /proc and /sys hold only their own "
		       "filesystems";
	return NULL;
}

static struct verdict judge(const struct harden_ctx *c,
			    const struct spec_mount *m, bool *seen)
{
	const char *t = m->type;
	bool bind = harden_is_bind(m);
	int kfs = bind ? -1 : kernel_fs_of(t);
	const char *bad = bad_destination(m, kfs);

	/* a bind is storage someone asked for: at a place the sandbox does
	 * not mount it, it is refused; a kernel filesystem there is not */
	if (bad)
		return bind ? REFUSED(POLICY_REFUSE_MOUNTS,
				      bad + sizeof("default: ") - 1, NULL)
			    : DROPPED(bad);
	if (harden_strv_has(m->options, m->n_options, "remount"))
		return DROPPED("default: remount would change a mount made "
			       "before it");
	/* the runtime puts corral's own file there (runtime/fs/stub_resolv.c),
	 * never the engine's or the image's */
	if (c->h->sandbox.egress_on &&
	    strcmp(m->destination, "/etc/resolv.conf") == 0)
		return DROPPED("policy: network.allow: /etc/resolv.conf names "
			       "corral's stub resolver");
	if (bind)
		return judge_bind(c, m);
	if (kfs >= 0) {
		/* cgroup and cgroup2 are one place */
		size_t slot =
		    strcmp(kernel_fs[kfs].destination, "/sys/fs/cgroup") == 0
			? N_KERNEL_FS - 2
			: (size_t)kfs;

		if (seen[slot])
			return DROPPED("default: a second copy of a kernel "
				       "filesystem");
		seen[slot] = true;
	}
	/* overlay, nfs, a block device: beyond the container, and what the
	 * user asked to see there is not */
	if (kfs < 0 && (!t || strcmp(t, "tmpfs") != 0))
		return REFUSED(POLICY_REFUSE_MOUNTS,
			       "only binds the policy allows, tmpfs and the "
			       "kernel's own filesystems are mounted",
			       NULL);
	/* a user namespace of an ordinary user's may mount no cgroup
	 * hierarchy of the host's */
	if (c->policy->rootless && t &&
	    (strcmp(t, "cgroup") == 0 || strcmp(t, "cgroup2") == 0))
		return DROPPED("default: rootless, no cgroup filesystem of the "
			       "host's");
	if (t && (strcmp(t, "sysfs") == 0 || strcmp(t, "cgroup") == 0 ||
		  strcmp(t, "cgroup2") == 0))
		return KEPT(&read_only, "default");
	if (strcmp(t, "tmpfs") == 0)
		return KEPT(strcmp(m->destination, "/dev") ? &tmpfs
							   : &dev_tmpfs,
			    "default");
	return KEPT(&none, "default");
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

	if (!harden_is_bind(m) || strcmp(m->destination, "/dev/shm") != 0 ||
	    (m->source && harden_policy_mount(c->policy, m->source)))
		return;
	asked = harden_describe_mount(c, m);
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
	applied = harden_describe_mount(c, m);
	harden_record(c, ".mounts[/dev/shm]", asked, applied,
		      "default: /dev/shm is never shared");
}

/* "bind /srv/data on /data", "mount nfs on /data": the request, as the
 * one line of a refusal names it. */
static char *request(struct harden_ctx *c, const struct spec_mount *m,
		     bool volume)
{
	_cleanup_free_ char *src =
	    harden_safe(m->source ? m->source : "-", 512);
	_cleanup_free_ char *dst = harden_safe(m->destination, 512);
	_cleanup_free_ char *type = harden_safe(m->type ? m->type : "none", 64);

	if (!src || !dst || !type) {
		c->oom = true;
		return NULL;
	}
	if (harden_is_bind(m))
		return harden_fmt(c, "%s %s on %s", volume ? "volume" : "bind",
				  src, dst);
	return harden_fmt(c, "mount %s on %s", type, dst);
}

/* A mount the policy does not allow: refused (-1), or dropped and
 * recorded where the policy turns that kind's refusal off (0). */
static int refuse_mount(struct harden_ctx *c, const struct spec_mount *m,
			const struct verdict *v, const char *field,
			const char *asked, struct error **err)
{
	_cleanup_free_ char *what =
	    request(c, m, v->kind == POLICY_REFUSE_VOLUMES);
	_cleanup_free_ char *src =
	    v->reason ? NULL : harden_safe(m->source ? m->source : "-", 512);
	_cleanup_free_ char *why =
	    v->reason ? strdup(v->reason)
		      : harden_fmt(c,
				   "no entry of the policy's mounts allows "
				   "%s",
				   src ? src : "?");

	if (!what || !why || !field || !asked)
		return error_set(err, ENOMEM, "harden: out of memory");
	return harden_refuse(c, v->kind, field, asked, what, why, v->key, err);
}

/* Keep (and rewrite) or drop one mount: 1 to keep it, 0 to drop it, -1
 * when the container is refused. */
static int keep_mount(struct harden_ctx *c, struct spec_mount *m, bool *seen,
		      struct error **err)
{
	struct verdict v = judge(c, m, seen);
	_cleanup_free_ char *dest = harden_safe(m->destination, SIZE_MAX);
	_cleanup_free_ char *field =
	    dest ? harden_fmt(c, ".mounts[%s]", dest) : NULL;
	_cleanup_free_ char *asked = harden_describe_mount(c, m),
			    *applied = NULL;
	_cleanup_free_ char *size = NULL;
	const char *reason = v.reason;
	bool is_tmpfs =
	    !harden_is_bind(m) && m->type && !strcmp(m->type, "tmpfs");

	if (v.fate == REFUSE)
		return refuse_mount(c, m, &v, field, asked, err) < 0 ? -1 : 0;
	if (v.fate == DROP) {
		harden_record(c, field, asked, "dropped", reason);
		return 0;
	}
	/* said whether or not its options change: explain and the log name
	 * the directory the caller lends */
	if (harden_is_bind(m) && is_workspace(c, m->source)) {
		_cleanup_free_ char *ws =
		    harden_fmt(c, "%s, %s", dest,
			       harden_strv_has(m->options, m->n_options, "ro")
				   ? "read-only"
				   : "read-write");

		harden_record(c, "sandbox.workspace", m->source, ws ? ws : "?",
			      reason);
	}
	if (is_tmpfs && !harden_size_fits(m, c->policy->scratch_size)) {
		size = harden_fmt(c, "size=%llu",
				  (unsigned long long)c->policy->scratch_size);
		if (c->policy->scratch_size != c->defaults->scratch_size)
			reason = "policy: rootfs.scratchSize";
	}
	if (!harden_rewrite_options(c, m, v.options, size))
		return 1;
	applied = harden_options_string(c, m);
	harden_record(c, field, asked, applied, reason);
	return 1;
}

static int harden_mount(struct harden_ctx *c, struct spec_mount *m, bool *seen,
			struct error **err)
{
	private_shm(c, m);
	return keep_mount(c, m, seen, err);
}

static void free_mount(struct spec_mount *m)
{
	free(m->destination);
	free(m->type);
	free(m->source);
	strv_free(m->options);
}

/* Propagation of the root out to the host is never wanted: a shared
 * root becomes a slave, which still receives the host's mounts. */
static void harden_propagation(struct harden_ctx *c)
{
	struct spec_linux *lx = c->spec->linux_;
	char *p = lx ? lx->rootfs_propagation : NULL;

	if (!p || (strcmp(p, "shared") != 0 && strcmp(p, "rshared") != 0))
		return;
	harden_record(c, ".linux.rootfsPropagation", p, "rslave",
		      "default: the container's mounts never reach the host");
	free(p);
	lx->rootfs_propagation = strdup("rslave");
	if (!lx->rootfs_propagation)
		c->oom = true;
}

/* A destination must say plainly where it is: ".." or a relative path
 * leaves the reader (and every prefix check) guessing, so it is refused;
 * "//", "/./" and a trailing "/" are only spelling, and are tidied. */
static int check_destination(struct harden_ctx *c, struct spec_mount *m,
			     size_t i, struct error **err)
{
	const char *d = m->destination;
	_cleanup_free_ char *safe = NULL, *field = NULL, *clean = NULL;
	size_t n = 0;

	if (harden_clean_path(d))
		return 0;
	safe = harden_safe(d, 200);
	clean = malloc(strlen(d) + 2);
	if (!safe || !clean)
		return error_set(err, ENOMEM, "out of memory");
	for (const char *p = d; *p;) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return error_set(err, EINVAL,
					 ".mounts[%zu].destination: %s: \"..\" "
					 "not allowed",
					 i, safe);
		if (len > 0 && !(len == 1 && p[0] == '.')) {
			clean[n++] = '/';
			memcpy(clean + n, p, len);
			n += len;
		}
		p += len;
	}
	if (d[0] != '/')
		return error_set(err, EINVAL,
				 ".mounts[%zu].destination: %s: not an "
				 "absolute path",
				 i, safe);
	if (n == 0)
		clean[n++] = '/';
	clean[n] = '\0';
	field = harden_fmt(c, ".mounts[%zu].destination", i);
	harden_record(c, field, safe, clean, "default: the same path, tidied");
	free(m->destination);
	m->destination = steal_pointer(&clean);
	return 0;
}

int harden_mounts(struct harden_ctx *c, struct error **err)
{
	struct spec *s = c->spec;
	bool seen[N_KERNEL_FS] = {false};
	size_t n = 0;

	for (size_t i = 0; i < s->n_mounts; i++)
		if (check_destination(c, &s->mounts[i], i, err) < 0)
			return -1;
	harden_propagation(c);
	for (size_t i = 0; i < s->n_mounts; i++) {
		int keep = harden_mount(c, &s->mounts[i], seen, err);

		if (keep < 0) {
			/* the rest, not looked at, are freed with the spec */
			memmove(&s->mounts[n], &s->mounts[i],
				(s->n_mounts - i) * sizeof(*s->mounts));
			s->n_mounts = n + (s->n_mounts - i);
			return -1;
		}
		if (keep)
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

/* ---- what the runtime checks ----------------------------------------- */

static void add_bind(struct harden_ctx *c, size_t i, enum harden_bind_kind kind,
		     const char *entry, bool follow_links)
{
	struct hardened *h = c->h;
	struct harden_bind *grown =
	    realloc(h->binds, (h->n_binds + 1) * sizeof(*grown));

	if (!grown) {
		c->oom = true;
		return;
	}
	h->binds = grown;
	grown[h->n_binds] =
	    (struct harden_bind){.mount = i,
				 .kind = kind,
				 .entry = entry ? strdup(entry) : NULL,
				 .follow_links = follow_links};
	if (entry && !grown[h->n_binds].entry)
		c->oom = true;
	h->n_binds++;
}

/* Each bind of the effective spec with what kept it, judged as
 * judge_bind() did: the runtime opens the source below exactly that. */
void harden_list_binds(struct harden_ctx *c, bool permissive)
{
	const struct spec *s = c->spec;

	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct spec_mount *m = &s->mounts[i];
		const struct policy_mount *e;
		struct harden_volume v = {0};

		if (!harden_is_bind(m))
			continue;
		if (permissive || !m->source) {
			add_bind(c, i, BIND_AS_WRITTEN, NULL, false);
			continue;
		}
		e = harden_policy_mount(c->policy, m->source);
		if (e)
			add_bind(c, i, BIND_POLICY, e->source, e->follow_links);
		else if (is_workspace(c, m->source)) {
			add_bind(c, i, BIND_POLICY, m->source, false);
			if (!c->oom)
				c->h->binds[c->h->n_binds - 1].workspace = true;
		} else if (harden_kubelet_volume(c, m->source, &v))
			add_bind(c, i, BIND_VOLUME, v.dir, false);
		else
			add_bind(c, i, BIND_ENGINE_FILE, engine_file_dir(c, m),
				 false);
	}
}
