/* Two properties of harden(), checked over thousands of generated configs
 * and policies (a fixed-seed xorshift generator, so a failure replays):
 *
 * (a) idempotence: hardening the effective spec again with the same
 *     policy gives the same text and records no change to a config.json
 *     field (the sandbox.* settings an annotation or role decides are
 *     reported again, identically: they are not in config.json);
 * (b) never wider: capabilities, env names, mounts, devices and sysctls
 *     of the effective spec are subsets of config.json's and allowed by
 *     the policy; memory, pids, cpu and the wall clock are at most
 *     either's and any narrowing annotation's.
 * (c) refused exactly when something of a refused kind would be dropped:
 *     the properties above run with every refusal off ("refuse" false:
 *     such requests dropped and recorded); with them on, harden() fails
 *     with one line when that run recorded a drop of a refused kind, and
 *     otherwise gives the very same spec.
 *
 * The fixtures are checked for (a) and (b) too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "parse_internal.h"

#define ROUNDS 2500
#define MiB (INT64_C(1) << 20)

/* ---- a deterministic generator --------------------------------------- */

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(next() % n);
}

static bool chance(unsigned percent)
{
	return pick(100) < percent;
}

static const char *const caps_pool[] = {
    "CAP_CHOWN",   "CAP_KILL",	 "CAP_NET_BIND_SERVICE", "CAP_SYS_ADMIN",
    "CAP_NET_RAW", "CAP_SETUID", "CAP_SETGID",		 "CAP_AUDIT_WRITE",
};
static const char *const env_pool[] = {
    "PATH", "HOME", "TERM", "LANG", "SECRET", "AWS_KEY", "HOSTNAME", "LC_ALL"};
static const char *const sysctl_pool[] = {
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_forward",
    "kernel.shm_rmid_forced",
    "net.core.somaxconn",
    "net.ipv4.ip_unprivileged_port_start",
};
static const char *const source_pool[] = {
    "/data",
    "/data/sub",
    "/database",
    "/etc/shadow",
    "/run/docker.sock",
    "/var/run/secrets/kubernetes.io/serviceaccount",
    "/data/../etc",
    "/home/user",
    "/srv/x",
    "/run/containerd/s/abc",
    "data",
    "/var/lib/containers/c1/userdata/hosts",
    "/var/lib/containers/c1/userdata/shm",
    "/var/lib/kubelet/pods/u/containers/c/abc",
};
static const char *const dest_pool[] = {
    "/etc/hosts",
    "/mnt/a",
    "/dev/shm",
    "/run/secrets",
    "/mnt/b",
    "/etc/hostname",
    "/dev/termination-log",
    "/var/run/secrets/kubernetes.io/serviceaccount",
};
static const char *const option_pool[] = {
    "rbind",	"bind",	  "rw",	    "ro",    "suid",	"dev",
    "rprivate", "noexec", "nosuid", "rsuid", "size=1m",
};
static const char *const fs_pool[] = {"proc",	 "tmpfs",   "sysfs",
				      "cgroup2", "overlay", "nfs",
				      "mqueue",	 "devpts",  "cgroup"};
static const char *const ns_pool[] = {"pid", "network", "mount",  "ipc",
				      "uts", "user",	"cgroup", "time"};

/* A JSON array of a random subset of pool (repeats possible). */
static void subset(FILE *f, const char *const *pool, size_t n, unsigned max)
{
	unsigned count = pick(max + 1);

	fputc('[', f);
	for (unsigned i = 0; i < count; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", pool[pick((unsigned)n)]);
	fputc(']', f);
}

#define SUBSET(f, pool, max) subset(f, pool, ARRAY_SIZE(pool), max)

/* ---- random policies ------------------------------------------------- */

static void gen_policy_lists(FILE *f)
{
	static const char *const syscalls[] = {"mbind", "io_setup"};
	static const char *const sysctls[] = {"net.ipv4.*",
					      "net.ipv4.ping_group_range",
					      "kernel.shm_rmid_forced"};
	static const char *const mounts[] = {
	    "{\"source\": \"/data\", \"rw\": true}", "{\"source\": \"/srv\"}",
	    "{\"source\": \"/run\"}", "{\"source\": \"/\"}",
	    "{\"source\": \"/var/lib\", \"rw\": true}"};
	static const char *const devices[] = {
	    "{\"path\": \"/dev/nvidia0\", \"type\": \"c\", \"major\": 195,"
	    " \"minor\": 0}",
	    "{\"path\": \"/dev/fuse\", \"type\": \"c\", \"major\": 10,"
	    " \"minor\": 229, \"access\": \"rwm\"}"};
	unsigned n;

	fputs(", \"env\": {\"allow\": ", f);
	SUBSET(f, env_pool, 5);
	fputs("}, \"capabilities\": {\"keep\": ", f);
	SUBSET(f, caps_pool, 3);
	fputs("}, \"syscalls\": {\"allow\": ", f);
	SUBSET(f, syscalls, 2);
	fputs("}, \"sysctls\": {\"allow\": ", f);
	SUBSET(f, sysctls, 2);
	fputs("}, \"mounts\": [", f);
	n = pick(3);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", mounts[pick(5)]);
	fputs("], \"devices\": [", f);
	n = pick(2);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", devices[i]);
	fputc(']', f);
}

static struct policy *gen_policy(void)
{
	static const unsigned uids[] = {1000, 65534, 4242};
	static const char *const memory[] = {"0", "\"128MiB\"", "\"512MiB\""};
	static const char *const cpus[] = {"0", "0.5", "2"};
	static const unsigned walls[] = {0, 60, 600}, pids[] = {0, 100, 256};
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct policy *p;

	fprintf(f,
		"{\"network\": \"%s\", \"rootfs\": {\"mode\": \"%s\","
		" \"scratchSize\": \"%uMiB\"},"
		" \"user\": {\"uid\": %u, \"gid\": %u, \"allowRoot\": %s,"
		" \"keepGroups\": %s},"
		" \"limits\": {\"wallClock\": %u, \"memory\": %s, \"pids\": %u,"
		" \"cpus\": %s}",
		chance(70) ? "loopback" : "config",
		chance(70) ? "overlay" : "strict", 1 + pick(256), uids[pick(3)],
		uids[pick(3)], chance(20) ? "true" : "false",
		chance(30) ? "true" : "false", walls[pick(3)], memory[pick(3)],
		pids[pick(3)], cpus[pick(3)]);
	gen_policy_lists(f);
	fputc('}', f);
	fclose(f);
	p = policy_of(buf);
	free(buf);
	return p;
}

/* ---- random configs -------------------------------------------------- */

static void gen_process(FILE *f)
{
	static const unsigned ids[] = {0, 0, 1, 1000, 65534};
	static const char *const sets[] = {
	    "bounding", "effective", "inheritable", "permitted", "ambient"};
	static const char *const groups[] = {"0", "10", "100"};

	fprintf(f,
		"\"process\": {\"user\": {\"uid\": %u, \"gid\": %u,"
		" \"additionalGids\": [",
		ids[pick(5)], ids[pick(5)]);
	for (unsigned i = 0, n = pick(3); i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", groups[pick(3)]);
	fputs("]}, \"args\": [\"sh\"], \"cwd\": \"/\", \"env\": [", f);
	for (unsigned i = 0, n = pick(6); i < n; i++)
		fprintf(f, "%s\"%s=v%u\"", i ? ", " : "", env_pool[pick(8)], i);
	fputc(']', f);
	if (chance(85)) {
		fputs(", \"capabilities\": {", f);
		for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
			fprintf(f, "%s\"%s\": ", i ? ", " : "", sets[i]);
			SUBSET(f, caps_pool, 6);
		}
		fputc('}', f);
	}
	if (chance(50))
		fputs(", \"noNewPrivileges\": true", f);
	if (chance(30))
		fputs(", \"rlimits\": [{\"type\": \"RLIMIT_CORE\", \"hard\": 9,"
		      " \"soft\": 9}]",
		      f);
	fputc('}', f);
}

static void gen_mounts(FILE *f)
{
	unsigned n = pick(8);

	fputs(", \"mounts\": [", f);
	for (unsigned i = 0; i < n; i++) {
		bool bind = chance(50);

		fprintf(f,
			"%s{\"destination\": \"%s%s\", \"type\": \"%s\","
			" \"source\": \"%s\", \"options\": ",
			i ? ", " : "",
			bind ? dest_pool[pick(ARRAY_SIZE(dest_pool))] : "/fs",
			bind ? "" : fs_pool[pick(ARRAY_SIZE(fs_pool))],
			bind ? (chance(80) ? "bind" : "none")
			     : fs_pool[pick(ARRAY_SIZE(fs_pool))],
			bind ? source_pool[pick(ARRAY_SIZE(source_pool))]
			     : "x");
		if (bind && chance(50))
			fputs("[\"rbind\", \"rw\"]", f);
		else
			SUBSET(f, option_pool, 4);
		fputc('}', f);
	}
	fputc(']', f);
}

/* Annotations that only narrow this policy, or a pod sandbox marker. */
static void gen_annotations(FILE *f, const struct policy *p)
{
	const char *sep = "";

	fputs(", \"annotations\": {", f);
	if (chance(30)) {
		fprintf(
		    f, "\"run.corral.timeout\": \"%llu\"",
		    1 + (unsigned long long)pick(
			    p->wall_clock ? (unsigned)p->wall_clock : 5000));
		sep = ", ";
	}
	if (chance(30)) {
		unsigned max = p->memory ? (unsigned)(p->memory / MiB) : 4096;

		fprintf(f, "%s\"run.corral.memory\": \"%uMiB\"", sep,
			1 + pick(max));
		sep = ", ";
	}
	if (chance(30)) {
		fprintf(f, "%s\"run.corral.pids\": \"%u\"", sep,
			1 + pick(p->pids ? (unsigned)p->pids : 9000));
		sep = ", ";
	}
	if (chance(10))
		fprintf(f,
			"%s\"io.kubernetes.cri.container-type\": \"sandbox\"",
			sep);
	fputc('}', f);
}

static void gen_resources(FILE *f)
{
	static const char *const memory[] = {"-1", "67108864", "268435456",
					     "2147483648"};
	static const char *const cpu[] = {
	    "{\"quota\": 25000, \"period\": 100000}",
	    "{\"quota\": 300000, \"period\": 100000}",
	    "{\"quota\": 30000, \"period\": 50000}", "{\"shares\": 2}"};

	fputs("\"resources\": {\"devices\": [{\"allow\": true}]", f);
	if (chance(60))
		fprintf(f, ", \"memory\": {\"limit\": %s%s}", memory[pick(4)],
			chance(50) ? ", \"swap\": -1" : "");
	if (chance(60))
		fprintf(f, ", \"pids\": {\"limit\": %d}",
			chance(20) ? -1 : 1 + (int)pick(4000));
	if (chance(60))
		fprintf(f, ", \"cpu\": %s", cpu[pick(4)]);
	fputc('}', f);
}

static void gen_linux(FILE *f)
{
	static const char *const devices[] = {
	    "{\"path\": \"/dev/fuse\", \"type\": \"c\", \"major\": 10,"
	    " \"minor\": 229}",
	    "{\"path\": \"/dev/nvidia0\", \"type\": \"c\", \"major\": 195,"
	    " \"minor\": 0}",
	    "{\"path\": \"/dev/nvidia0\", \"type\": \"c\", \"major\": 8,"
	    " \"minor\": 0}",
	    "{\"path\": \"/dev/null\", \"type\": \"c\", \"major\": 1,"
	    " \"minor\": 3}"};

	fputs(", \"linux\": {\"namespaces\": [", f);
	for (unsigned i = 0, n = pick(7); i < n; i++)
		fprintf(f, "%s{\"type\": \"%s\"%s}", i ? ", " : "",
			ns_pool[pick(8)],
			chance(40) ? ", \"path\": \"/proc/7/ns/x\"" : "");
	fputs("], ", f);
	gen_resources(f);
	fputs(", \"sysctl\": {", f);
	for (unsigned i = 0, n = pick(4), first = pick(5); i < n; i++)
		fprintf(f, "%s\"%s\": \"1\"", i ? ", " : "",
			sysctl_pool[(first + i) % ARRAY_SIZE(sysctl_pool)]);
	fputs("}, \"devices\": [", f);
	for (unsigned i = 0, n = pick(3); i < n; i++)
		fprintf(f, "%s%s", i ? ", " : "", devices[(i + pick(4)) % 4]);
	fputs("], \"maskedPaths\": [\"/proc/kcore\", \"/x\", \"/x\"]", f);
	if (chance(20))
		fprintf(f, ", \"personality\": {\"domain\": \"%s\"}",
			chance(50) ? "LINUX" : "LINUX32");
	fputc('}', f);
}

static struct spec *gen_config(const struct policy *p)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct spec *s;

	fputs("{\"ociVersion\": \"1.2.0\", ", f);
	gen_process(f);
	fprintf(f, ", \"root\": {\"path\": \"rootfs\", \"readonly\": %s}",
		chance(50) ? "true" : "false");
	gen_mounts(f);
	gen_annotations(f, p);
	gen_linux(f);
	fputc('}', f);
	fclose(f);
	s = spec_of(buf);
	if (!s)
		printf("# generated: %s\n", buf);
	free(buf);
	return s;
}

/* ---- (b) never wider ------------------------------------------------- */

struct origin {
	const struct spec *config;
	const struct policy *policy;
	const struct hardened *h;
	unsigned round;
};

static void fail(const struct origin *o, const char *what)
{
	printf("# round %u: %s\n", o->round, what);
	unit_failed_checks++;
}

static bool env_has(const struct spec_process *pr, const char *entry)
{
	size_t n = strcspn(entry, "=");

	for (size_t i = 0; pr && i < pr->n_env; i++)
		if (strncmp(pr->env[i], entry, n) == 0 && pr->env[i][n] == '=')
			return true;
	return false;
}

static bool allowlisted(const struct policy *p, const char *key)
{
	for (size_t i = 0; i < p->n_sysctl_allow; i++) {
		const char *a = p->sysctl_allow[i];
		size_t n = strlen(a);

		if (strcmp(a, key) == 0 ||
		    (n > 1 && a[n - 1] == '*' && strncmp(a, key, n - 1) == 0 &&
		     key[n - 1]))
			return true;
	}
	return false;
}

static const char *annotation(const struct spec *s, const char *key)
{
	for (size_t i = 0; i < s->n_annotations; i++)
		if (strcmp(s->annotations[i].key, key) == 0)
			return s->annotations[i].value;
	return NULL;
}

/* One capability set of caps by its field (NULL caps: empty). */
static char **caps_set(const struct spec_caps *caps,
		       const struct json_strv_field *f, size_t *n)
{
	*n = caps ? *(const size_t *)((const char *)caps + f->count) : 0;
	return caps ? *(char **const *)((const char *)caps + f->list) : NULL;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_privileges(const struct origin *o)
{
	const struct spec_process *c = o->config->process,
				  *e = o->h->spec->process;

	for (size_t i = 0; i < ARRAY_SIZE(spec_caps_fields); i++) {
		size_t en, cn;
		char **ev = caps_set(e->caps, &spec_caps_fields[i], &en);
		char **cv = caps_set(c->caps, &spec_caps_fields[i], &cn);

		for (size_t j = 0; j < en; j++)
			if (!has_str(cv, cn, ev[j]) ||
			    !has_str(o->policy->caps_keep,
				     o->policy->n_caps_keep, ev[j]))
				fail(o, "a capability not in both");
	}
	for (size_t i = 0; i < e->n_env; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s",
			 (int)strcspn(e->env[i], "="), e->env[i]);
		if (!env_has(c, e->env[i]) ||
		    !has_str(o->policy->env_allow, o->policy->n_env_allow,
			     name))
			fail(o, "an env name not in both");
	}
	if (!o->policy->allow_root && (e->user.uid == 0 || e->user.gid == 0))
		fail(o, "root without allowRoot");
	if (!o->policy->keep_groups && e->user.n_additional_gids)
		fail(o, "groups without keepGroups");
	if (!e->no_new_privileges)
		fail(o, "no_new_privs off");
}

/* A bind source under a policy entry, or an engine file by destination. */
static bool bind_allowed(const struct policy *p, const struct spec_mount *m)
{
	static const char *const engine[] = {
	    "/etc/hosts",	  "/etc/hostname", "/etc/resolv.conf",
	    "/run/.containerenv", "/dev/shm",	   "/dev/termination-log"};

	for (size_t i = 0; i < p->n_mounts; i++) {
		size_t n = strlen(p->mounts[i].source);

		if (strcmp(p->mounts[i].source, "/") == 0 ||
		    (strncmp(m->source, p->mounts[i].source, n) == 0 &&
		     (m->source[n] == '\0' || m->source[n] == '/')))
			return true;
	}
	return has_str((char *const *)engine, ARRAY_SIZE(engine),
		       m->destination);
}

static void check_mounts(const struct origin *o)
{
	const struct spec *c = o->config, *e = o->h->spec;

	for (size_t i = 0; i < e->n_mounts; i++) {
		const struct spec_mount *m = &e->mounts[i];
		bool found = false;

		for (size_t j = 0; j < c->n_mounts && !found; j++)
			found =
			    same(m->destination, c->mounts[j].destination) &&
			    ((same(m->type, c->mounts[j].type) &&
			      same(m->source, c->mounts[j].source)) ||
			     /* an engine's /dev/shm becomes private */
			     (same(m->destination, "/dev/shm") &&
			      same(m->type, "tmpfs")));
		if (!found)
			fail(o, "a mount not in config.json");
		if (m->source && (strstr(m->source, "docker.sock") ||
				  strstr(m->source, "/run/containerd") ||
				  strstr(m->source, "..") ||
				  strstr(m->destination, "kubernetes.io")))
			fail(o, "a forbidden bind kept");
		if (m->source && m->source[0] == '/' &&
		    !bind_allowed(o->policy, m))
			fail(o, "a bind neither allowed nor an engine file");
		if (strcmp(m->type, "tmpfs") == 0 ||
		    strcmp(m->type, "bind") == 0 ||
		    strcmp(m->type, "none") == 0)
			if (!has_str(m->options, m->n_options, "nosuid"))
				fail(o, "a kept mount without nosuid");
	}
}

/* v <= every limit set (> 0) among the others; unset when none is set. */
static void check_limit(const struct origin *o, const char *what,
			struct spec_opt v, int64_t config, int64_t policy,
			const char *annotation)
{
	int64_t ann = annotation ? strtoll(annotation, NULL, 10) : 0;

	if (annotation && strstr(annotation, "MiB"))
		ann *= MiB;
	if ((config > 0 || policy > 0 || ann > 0) && (!v.set || v.v <= 0)) {
		fail(o, what);
		return;
	}
	if ((config > 0 && v.v > config) || (policy > 0 && v.v > policy) ||
	    (ann > 0 && v.v > ann))
		fail(o, what);
}

static void check_limits(const struct origin *o)
{
	const struct spec_resources *c =
	    o->config->linux_ ? o->config->linux_->resources : NULL;
	const struct spec_resources *e = o->h->spec->linux_->resources;
	const struct spec_memory none = {0};
	const struct spec_memory *cm = c && c->memory ? c->memory : &none;
	const struct spec_memory *em = e->memory ? e->memory : &none;
	const char *timeout = annotation(o->config, "run.corral.timeout");
	uint64_t wall = o->h->sandbox.wall_clock;

	check_limit(o, "memory wider", em->limit,
		    cm->limit.set ? cm->limit.v : 0, o->policy->memory,
		    annotation(o->config, "run.corral.memory"));
	check_limit(o, "pids wider", e->pids_limit,
		    c && c->pids_limit.set ? c->pids_limit.v : 0,
		    o->policy->pids, annotation(o->config, "run.corral.pids"));
	if (o->policy->cpu_quota > 0 &&
	    (!e->cpu || !e->cpu->quota.set ||
	     (__int128)e->cpu->quota.v * o->policy->cpu_period >
		 (__int128)o->policy->cpu_quota * e->cpu->period.v))
		fail(o, "cpu wider than the policy");
	if (o->h->sandbox.role == ROLE_POD_SANDBOX
		? wall != 0
		: (o->policy->wall_clock &&
		   (!wall || wall > o->policy->wall_clock)) ||
		      (timeout && wall > (uint64_t)strtoll(timeout, NULL, 10)))
		fail(o, "wall clock wider");
}

/* Whether the effective spec makes its own network namespace. */
static bool new_netns(const struct spec_linux *lx)
{
	for (size_t i = 0; i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == NS_NETWORK)
			return !lx->namespaces[i].path;
	return false;
}

static void check_kernel(const struct origin *o)
{
	const struct spec_linux *c = o->config->linux_, *e = o->h->spec->linux_;

	for (size_t i = 0; i < e->n_sysctl; i++) {
		bool in_config = false;

		bool low_ports =
		    o->h->sandbox.loopback_only &&
		    strcmp(e->sysctl[i].key, "net.ipv4.ip_"
					     "unprivileged_port_start") == 0 &&
		    strcmp(e->sysctl[i].value, "0") == 0;

		for (size_t j = 0; c && j < c->n_sysctl; j++)
			in_config |=
			    strcmp(c->sysctl[j].key, e->sysctl[i].key) == 0;
		if ((!in_config && !low_ports) ||
		    !allowlisted(o->policy, e->sysctl[i].key))
			fail(o, "a sysctl not in both");
		if (strncmp(e->sysctl[i].key, "net.", 4) == 0 && !new_netns(e))
			fail(o, "a net sysctl in a shared network namespace");
	}
	for (size_t i = 0; i < e->n_devices; i++) {
		const struct spec_device *d = &e->devices[i];
		bool in_config = false,
		     allowed = strcmp(d->path, "/dev/null") == 0;

		for (size_t j = 0; c && j < c->n_devices; j++)
			in_config |= strcmp(c->devices[j].path, d->path) == 0 &&
				     c->devices[j].major == d->major;
		for (size_t j = 0; j < o->policy->n_devices; j++)
			allowed |=
			    strcmp(o->policy->devices[j].path, d->path) == 0 &&
			    o->policy->devices[j].major == d->major &&
			    o->policy->devices[j].minor == d->minor;
		if (!in_config || !allowed)
			fail(o, "a device not in both");
	}
	for (size_t i = 0; i < e->n_namespaces; i++) {
		const struct spec_namespace *ns = &e->namespaces[i];

		if (ns->type == NS_TIME ||
		    (ns->type == NS_NETWORK && ns->path &&
		     o->policy->network == POLICY_NET_LOOPBACK) ||
		    ((ns->type == NS_MOUNT || ns->type == NS_CGROUP) &&
		     ns->path))
			fail(o, "a namespace wider");
	}
}

/* ---- (a) idempotence ------------------------------------------------- */

static void check_idempotent(const struct origin *o)
{
	const struct hardened *h1 = o->h;
	struct hardened *h2 = harden_ok(h1->spec, o->policy);
	_cleanup_free_ char *t1 = spec_text(h1->spec);
	_cleanup_free_ char *t2 = h2 ? spec_text(h2->spec) : NULL;
	size_t settings1 = 0, settings2 = 0;

	if (!t1 || !t2 || strcmp(t1, t2) != 0)
		fail(o, "the second run changed the spec");
	for (size_t i = 0; h2 && i < h2->n_changes; i++) {
		if (h2->changes[i].field[0] != '.') {
			settings2++;
			continue;
		}
		fail(o, "the second run recorded a change");
		printf("#   %s: %s -> %s\n", h2->changes[i].field,
		       h2->changes[i].asked, h2->changes[i].applied);
	}
	for (size_t i = 0; i < h1->n_changes; i++)
		settings1 += h1->changes[i].field[0] != '.';
	if (h2 && (settings1 != settings2 ||
		   h2->sandbox.wall_clock != h1->sandbox.wall_clock ||
		   h2->sandbox.role != h1->sandbox.role))
		fail(o, "the second run reported other sandbox settings");
	hardened_free(h2);
}

static void check_explain(const struct origin *o)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *text = NULL, *json = NULL;

	if (explain_text(o->h, &text, &err) < 0 ||
	    explain_json(o->h, &json, &err) < 0)
		fail(o, "explain failed");
}

/* (c): p with every refusal on, against h, hardened with them off. */
static void check_refusals(const struct origin *o)
{
	_cleanup_error_ struct error *err = NULL;
	struct policy *strict = (struct policy *)o->policy;
	struct hardened *h = NULL;
	bool dropped = false, saved[POLICY_REFUSALS];

	for (size_t i = 0; i < o->h->n_changes; i++)
		dropped |= strncmp(o->h->changes[i].reason, "policy: refuse.",
				   15) == 0;
	memcpy(saved, strict->refuse, sizeof(saved));
	for (size_t i = 0; i < POLICY_REFUSALS; i++)
		strict->refuse[i] = true;
	if (harden(o->config, strict, NULL, &h, &err) < 0) {
		if (!dropped || strchr(err->msg, '\n'))
			fail(o,
			     "refused, though nothing refusable was dropped");
		if (!dropped)
			printf("#   %s\n", err->msg);
	} else {
		_cleanup_free_ char *t1 = spec_text(o->h->spec);
		_cleanup_free_ char *t2 = spec_text(h->spec);

		if (dropped)
			fail(o, "not refused, though a refusable request was "
				"dropped");
		if (!t1 || !t2 || strcmp(t1, t2) != 0)
			fail(o, "with refusals on, another spec");
	}
	memcpy(strict->refuse, saved, sizeof(saved));
	hardened_free(h);
}

static void check_all(const struct spec *config, struct policy *p,
		      unsigned round)
{
	struct hardened *h;
	struct origin o;

	for (size_t i = 0; i < POLICY_REFUSALS; i++)
		p->refuse[i] = false;
	h = harden_ok(config, p);
	o = (struct origin){config, p, h, round};
	if (!h)
		return;
	check_refusals(&o);
	check_privileges(&o);
	check_mounts(&o);
	check_limits(&o);
	check_kernel(&o);
	check_idempotent(&o);
	if (round % 16 == 0)
		check_explain(&o);
	hardened_free(h);
}

TEST(fixtures_are_idempotent_and_never_wider)
{
	static const char *const names[] = {
	    "podman_busybox.json", "containerd_ctr.json", "cri_sandbox.json",
	    "cri_container.json",  "runc_spec.json",	  "all_fields.json"};
	struct policy *def = policy_of(NULL);

	for (size_t i = 0; def && i < ARRAY_SIZE(names); i++) {
		struct spec *s = fixture(names[i]);

		printf("# %s\n", names[i]);
		if (s)
			check_all(s, def, (unsigned)i);
		spec_free(s);
	}
	policy_free(def);
}

TEST(generated_configs_are_idempotent_and_never_wider)
{
	unsigned done = 0;

	for (unsigned round = 0; round < ROUNDS; round++) {
		struct policy *p = gen_policy();
		struct spec *s = p ? gen_config(p) : NULL;

		if (s) {
			check_all(s, p, round);
			done++;
		}
		spec_free(s);
		policy_free(p);
	}
	printf("# %u generated configs\n", done);
	CHECK(done == ROUNDS);
}

int main(void)
{
	return unit_run();
}
