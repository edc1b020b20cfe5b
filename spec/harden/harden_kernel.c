/* The rules of harden() for the kernel surface: masked and read-only
 * paths, device nodes and the device cgroup, rlimits and the
 * personality.  Lists from config.json are only ever narrowed or, for
 * the masks, extended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harden_internal.h"
#include "strfmt.h"
#include "util.h"

/* runc's, containerd's and podman's lists together. */
static const char *const masked_baseline[] = {
    "/proc/acpi",	"/proc/asound",	     "/proc/interrupts",
    "/proc/kcore",	"/proc/keys",	     "/proc/latency_stats",
    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
    "/proc/scsi",	"/sys/firmware",     "/sys/devices/virtual/powercap",
    "/sys/dev/block",
};
static const char *const readonly_baseline[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

/* The runtime makes the nodes; the cgroup allows them and the ptys. */
const struct harden_std_device harden_std_devices[] = {
    {"/dev/null", 1, 3, true},	    {"/dev/zero", 1, 5, true},
    {"/dev/full", 1, 7, true},	    {"/dev/random", 1, 8, true},
    {"/dev/urandom", 1, 9, true},   {"/dev/tty", 5, 0, true},
    {"/dev/console", 5, 1, false},  {"/dev/ptmx", 5, 2, true},
    {"/dev/pts/*", 136, -1, false},
};
const size_t harden_n_std_devices = ARRAY_SIZE(harden_std_devices);

/* ---- masked and read-only paths -------------------------------------- */

/* A path of config.json's list and its place there. */
struct ranked_path {
	const char *path;
	size_t index;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked_path *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	if (r)
		return r;
	return (x->index > y->index) - (x->index < y->index);
}

static int cmp_ranked_path(const void *key, const void *elem)
{
	return strcmp(key, ((const struct ranked_path *)elem)->path);
}

/* Sorted by path, then by place: a path's first occurrence leads its run,
 * and *repeat marks the others.  O(n log n), so a hostile config.json
 * with a million paths costs a second, not hours. */
static struct ranked_path *rank_paths(char *const *list, size_t n,
				      bool **repeat)
{
	struct ranked_path *r = calloc(n ? n : 1, sizeof(*r));

	*repeat = calloc(n ? n : 1, sizeof(**repeat));
	if (!r || !*repeat) {
		free(r);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked_path){list[i], i};
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 1; i < n; i++)
		if (strcmp(r[i].path, r[i - 1].path) == 0)
			(*repeat)[r[i].index] = true;
	return r;
}

/* config.json's paths (without repeats, in its order), then the baseline's
 * that are missing. */
static void union_paths(struct harden_ctx *c, const char *field, char ***list,
			size_t *n, const char *const *base, size_t n_base)
{
	_cleanup_strv_ char **out = NULL, **added = NULL;
	_cleanup_free_ char *asked = NULL, *joined = NULL, *applied = NULL;
	_cleanup_free_ struct ranked_path *ranked = NULL;
	_cleanup_free_ bool *repeat = NULL;
	size_t n_out = 0, n_added = 0;

	ranked = rank_paths(*list, *n, &repeat);
	if (!ranked) {
		c->oom = true;
		return;
	}
	for (size_t i = 0; i < *n; i++)
		if (!repeat[i] && !harden_strv_push(&out, &n_out, (*list)[i]))
			c->oom = true;
	for (size_t i = 0; i < n_base; i++) {
		if (bsearch(base[i], ranked, *n, sizeof(*ranked),
			    cmp_ranked_path) ||
		    harden_strv_has(added, n_added, base[i]))
			continue;
		if (!harden_strv_push(&out, &n_out, base[i]) ||
		    !harden_strv_push(&added, &n_added, base[i]))
			c->oom = true;
	}
	if (c->oom || (n_added == 0 && n_out == *n))
		return;
	asked = harden_fmt(c, "%zu paths", *n);
	joined = harden_join(c, added, n_added, ", ");
	applied = n_added ? harden_fmt(c, "%zu paths (added %s)", n_out,
				       joined ? joined : "")
			  : harden_fmt(c, "%zu paths (repeats removed)", n_out);
	harden_record(c, field, asked, applied, "default");
	strv_free(*list);
	*list = steal_pointer(&out);
	*n = n_out;
}

int harden_kernel_paths(struct harden_ctx *c, struct error **err)
{
	struct spec_linux *lx = harden_linux(c);

	if (!lx)
		return 0;
	union_paths(c, ".linux.maskedPaths", &lx->masked_paths,
		    &lx->n_masked_paths, masked_baseline,
		    ARRAY_SIZE(masked_baseline));
	union_paths(c, ".linux.readonlyPaths", &lx->readonly_paths,
		    &lx->n_readonly_paths, readonly_baseline,
		    ARRAY_SIZE(readonly_baseline));
	return 0;
}

/* ---- devices --------------------------------------------------------- */

/* A node of config.json stays when the policy allows exactly it (path,
 * type and numbers: a policy path with other numbers would name another
 * device), or when it is a standard node the runtime makes anyway. */
static bool device_allowed(const struct policy *p, const struct spec_device *d)
{
	for (size_t i = 0; i < p->n_devices; i++) {
		const struct policy_device *a = &p->devices[i];

		if (strcmp(a->path, d->path) == 0 && a->type == d->type &&
		    a->major == d->major && a->minor == d->minor)
			return true;
	}
	for (size_t i = 0; i < harden_n_std_devices; i++) {
		const struct harden_std_device *s = &harden_std_devices[i];

		if (s->node && strcmp(s->path, d->path) == 0 &&
		    d->type == 'c' && s->major == d->major &&
		    s->minor == d->minor)
			return true;
	}
	return false;
}

/* A node the policy does not list is a device someone asked for (podman
 * --device, a device plugin): refused, naming it (harden_refuse), or
 * dropped and recorded where the policy's refuse.devices is off. */
static int harden_nodes(struct harden_ctx *c, struct spec_linux *lx,
			struct error **err)
{
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; lx && i < lx->n_devices; i++) {
		struct spec_device *d = &lx->devices[i];
		_cleanup_free_ char *path = NULL, *field = NULL, *asked = NULL;
		_cleanup_free_ char *what = NULL;

		if (r < 0 || device_allowed(c->policy, d)) {
			lx->devices[n++] = *d;
			continue;
		}
		path = harden_safe(d->path, 512);
		field = path ? harden_fmt(c, ".linux.devices[%s]", path) : NULL;
		asked = harden_fmt(c, "%c %lld:%lld", d->type,
				   (long long)d->major, (long long)d->minor);
		what = path && asked
			   ? harden_fmt(c, "device %s (%s)", path, asked)
			   : NULL;
		if (!field || !asked || !what) {
			c->oom = true;
			lx->devices[n++] = *d;
			continue;
		}
		r = harden_refuse(c, POLICY_REFUSE_DEVICES, field, asked, what,
				  "not a standard device nor one the policy's "
				  "devices lists",
				  "devices", err);
		if (r < 0)
			lx->devices[n++] = *d; /* freed with the spec */
		else
			free(d->path);
	}
	if (!lx)
		return 0;
	lx->n_devices = n;
	if (n == 0) {
		free(lx->devices);
		lx->devices = NULL;
	}
	return r;
}

static void rule_string(FILE *f, const struct spec_device_rule *r)
{
	fprintf(f, "%s %c ", r->allow ? "allow" : "deny", r->type);
	if (r->major.set)
		fprintf(f, "%lld:", (long long)r->major.v);
	else
		fputs("*:", f);
	if (r->minor.set)
		fprintf(f, "%lld", (long long)r->minor.v);
	else
		fputc('*', f);
	fprintf(f, " %s", r->access ? r->access : "rwm");
}

static char *rules_string(struct harden_ctx *c,
			  const struct spec_device_rule *r, size_t n)
{
	char *buf;
	size_t size;
	FILE *f = strfmt_stream(&c->oom, &buf, &size);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		rule_string(f, &r[i]);
	}
	if (n == 0)
		fputs("absent", f);
	return strfmt_close(&c->oom, f, &buf);
}

static void free_rules(struct spec_device_rule *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i].access);
	free(r);
}

/* Deny everything, then allow the standard devices and the policy's. */
static struct spec_device_rule *device_rules(struct harden_ctx *c, size_t *n)
{
	const struct policy *p = c->policy;
	size_t len = 1 + harden_n_std_devices + p->n_devices, k = 0;
	struct spec_device_rule *r = calloc(len, sizeof(*r));

	if (!r) {
		c->oom = true;
		return NULL;
	}
	r[k++] = (struct spec_device_rule){
	    .allow = false, .type = 'a', .access = strdup("rwm")};
	for (size_t i = 0; i < harden_n_std_devices; i++) {
		const struct harden_std_device *s = &harden_std_devices[i];

		r[k++] = (struct spec_device_rule){true,
						   'c',
						   {true, s->major},
						   {s->minor >= 0, s->minor},
						   strdup("rwm")};
	}
	for (size_t i = 0; i < p->n_devices; i++) {
		const struct policy_device *d = &p->devices[i];

		r[k++] = (struct spec_device_rule){
		    true,
		    d->type,
		    {true, d->major},
		    {true, d->minor},
		    strdup(d->access ? d->access : "rw")};
	}
	for (size_t i = 0; i < k; i++)
		if (!r[i].access)
			c->oom = true;
	*n = k;
	return r;
}

/* An ordinary user's corral (policy.h: rootless) can write no device
 * rules: the kernel takes them from the host's root alone (v1's
 * devices.allow, v2's device programs).  None is needed: outside the
 * host's user namespace no device node is made (mknod needs the host's
 * CAP_MKNOD) and none opens on a filesystem mounted there (the kernel
 * makes each nodev), binds of host paths are forced nodev, and the nodes
 * bound from the host are the standard ones and the policy's (linux.devices,
 * above).  The rules stay in the effective spec as what /dev allows. */
static void rootless_device_rules(struct harden_ctx *c)
{
	if (!c->policy->rootless)
		return;
	c->h->sandbox.no_device_cgroup = true;
	harden_record(c, "device rules", "written to the device cgroup",
		      "not written: no device node opens but those bound "
		      "from the host",
		      "default: rootless, the kernel takes no device rule "
		      "from an ordinary user");
}

int harden_devices(struct harden_ctx *c, struct error **err)
{
	const char *reason =
	    HARDEN_WHY(c->policy->n_devices == 0 && c->defaults->n_devices == 0,
		       "devices");
	struct spec_resources *res = harden_resources(c);
	_cleanup_free_ char *asked = NULL, *applied = NULL;
	struct spec_device_rule *rules;
	size_t n = 0;

	if (!res)
		return 0;
	rootless_device_rules(c);
	if (harden_nodes(c, c->spec->linux_, err) < 0)
		return -1;
	rules = device_rules(c, &n);
	if (!rules)
		return 0;
	asked = rules_string(c, res->devices, res->n_devices);
	applied = rules_string(c, rules, n);
	if (asked && applied && strcmp(asked, applied) == 0) {
		free_rules(rules, n);
		return 0;
	}
	harden_record(c, ".linux.resources.devices", asked, applied, reason);
	free_rules(res->devices, res->n_devices);
	res->devices = rules;
	res->n_devices = n;
	return 0;
}

/* Whether an allow rule for exactly this is already past the last deny
 * (so a second harden() adds nothing: harden() is idempotent). */
static bool already_allowed(const struct spec_resources *res, char type,
			    int64_t major, int64_t minor, const char *access)
{
	for (size_t i = res->n_devices; i-- > 0;) {
		const struct spec_device_rule *d = &res->devices[i];

		if (!d->allow)
			return false;
		if (d->type == type && d->major.set && d->major.v == major &&
		    d->minor.set == (minor >= 0) &&
		    (minor < 0 || d->minor.v == minor) && d->access &&
		    strcmp(d->access, access) == 0)
			return true;
	}
	return false;
}

/* Appends an allow rule unless it is there already; counts what it adds
 * in *added; false when out of memory. */
static bool add_rule(struct spec_resources *res, char type, int64_t major,
		     int64_t minor, const char *access, size_t *added)
{
	char *a;

	if (already_allowed(res, type, major, minor, access))
		return true;
	a = strdup(access);
	if (!a)
		return false;
	res->devices[res->n_devices++] = (struct spec_device_rule){
	    true, type, {true, major}, {minor >= 0, minor}, a};
	(*added)++;
	return true;
}

/* Under a permissive policy config.json's device rules are kept as
 * written, then, as runc does, the standard devices are allowed (the
 * runtime-spec has the runtime supply /dev/null and the others, so a
 * config that denies everything, as runtime-tools' does, still has
 * them), and so is making config.json's own nodes ("m": runc makes them
 * before it writes the rules; what may open them stays config.json's
 * say).  Nothing is added when config.json sets no rule, as nothing is
 * denied then, nor what is allowed already. */
int harden_devices_permissive(struct harden_ctx *c, struct error **err)
{
	const struct spec_linux *lx = c->spec->linux_;
	struct spec_resources *res = lx ? lx->resources : NULL;
	struct spec_device_rule *r;
	size_t added = 0;
	bool ok = true;

	if (!res || res->n_devices == 0)
		return 0;
	r = realloc(res->devices,
		    (res->n_devices + harden_n_std_devices + lx->n_devices) *
			sizeof(*r));
	if (!r) {
		c->oom = true;
		return 0;
	}
	res->devices = r;
	for (size_t i = 0; ok && i < harden_n_std_devices; i++)
		ok = add_rule(res, 'c', harden_std_devices[i].major,
			      harden_std_devices[i].minor, "rwm", &added);
	for (size_t i = 0; ok && i < lx->n_devices; i++) {
		const struct spec_device *d = &lx->devices[i];

		if (d->type != 'p') /* a FIFO is no device to the cgroup */
			ok = add_rule(res, d->type == 'b' ? 'b' : 'c', d->major,
				      d->minor, "m", &added);
	}
	if (!ok)
		c->oom = true;
	if (added)
		harden_record(c, ".linux.resources.devices", "as written",
			      "as written, then the standard devices and "
			      "making .linux.devices allowed",
			      "runtime-spec: the runtime supplies the default "
			      "devices");
	return 0;
}

/* ---- rlimits, personality (sysctls: harden_sysctl.c) ---------------- */

/* A limit above the runtime's own hard limit (policy.h rlimit_max) is
 * one no unprivileged process could set: it is lowered to that ceiling,
 * and the soft limit with it, recorded as what the container runs
 * without.  Where the ceiling is not known (explain without a host) the
 * stage clamps it all the same, to what it has. */
static void clamp_rlimit(struct harden_ctx *c, struct spec_rlimit *l)
{
	const struct policy *p = c->policy;
	_cleanup_free_ char *field = NULL, *asked = NULL, *applied = NULL;
	uint64_t max;

	if (!p->rlimits_known || l->resource < 0 ||
	    l->resource >= POLICY_RLIMITS)
		return;
	max = p->rlimit_max[l->resource];
	if (l->hard <= max)
		return;
	field = harden_fmt(c, ".process.rlimits[%s]", l->type);
	asked = harden_fmt(c, "%llu/%llu", (unsigned long long)l->soft,
			   (unsigned long long)l->hard);
	l->hard = max;
	if (l->soft > max)
		l->soft = max;
	applied = harden_fmt(c, "%llu/%llu", (unsigned long long)l->soft,
			     (unsigned long long)l->hard);
	harden_record(c, field, asked, applied,
		      "default: above the runtime's own hard limit");
	harden_mark_dropped(c);
}

/* No core dumps unless config.json sets RLIMIT_CORE itself: a core file
 * is a copy of the process's memory, secrets included.  Explicit values
 * stay, at most the runtime's own hard limits. */
int harden_rlimits(struct harden_ctx *c, struct error **err)
{
	struct spec_process *pr = c->spec->process;
	struct spec_rlimit *grown;

	if (!pr)
		return 0;
	for (size_t i = 0; i < pr->n_rlimits; i++)
		clamp_rlimit(c, &pr->rlimits[i]);
	for (size_t i = 0; i < pr->n_rlimits; i++)
		if (pr->rlimits[i].resource == RLIMIT_CORE)
			return 0;
	grown = realloc(pr->rlimits, (pr->n_rlimits + 1) * sizeof(*grown));
	if (!grown) {
		c->oom = true;
		return 0;
	}
	pr->rlimits = grown;
	grown[pr->n_rlimits] = (struct spec_rlimit){
	    .type = strdup("RLIMIT_CORE"), .resource = RLIMIT_CORE};
	if (!grown[pr->n_rlimits].type) {
		c->oom = true;
		return 0;
	}
	pr->n_rlimits++;
	harden_record(c, ".process.rlimits[RLIMIT_CORE]", "absent", "0/0",
		      "default");
	return 0;
}

/* Another execution domain (LINUX32, a foreign ABI) is kernel code most
 * containers never reach. */
int harden_personality(struct harden_ctx *c, struct error **err)
{
	struct spec_linux *lx = c->spec->linux_;
	struct spec_personality *pe = lx ? lx->personality : NULL;
	_cleanup_free_ char *asked = NULL;

	if (!pe || (pe->domain && strcmp(pe->domain, "LINUX") == 0))
		return 0;
	asked = pe->domain ? harden_safe(pe->domain, 64) : strdup("absent");
	harden_record(c, ".linux.personality", asked, "dropped", "default");
	free(pe->domain);
	strv_free(pe->flags);
	free(pe);
	lx->personality = NULL;
	return 0;
}
