/* update: new resource limits for a live container.  The request is a
 * LinuxResources document (`--resources FILE|-`, as podman passes it)
 * with runc's single-value flags on top.  It may narrow freely; it may
 * widen memory, pids and cpu only up to the policy the container was
 * created under (policy.json in its state directory, or the built-in
 * defaults when there is none), unless that policy is permissive: only
 * the policy widens (DESIGN.md).  The cgroup is written first
 * (cgroup_update), then the stored effective config.json, so later
 * commands (explain, exec) see the limits in force. */
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"
#include "policy.h"
#include "state.h"
#include "units.h"
#include "util.h"

#define CPU_PERIOD_DEFAULT 100000

/* ---- the request --------------------------------------------------------- */

#define RESOURCES_MAX (1 << 20)

/* stdin as it is: a pipe or a socket cannot always be opened again. */
static int read_stdin(char **out, size_t *len, struct error **err)
{
	_cleanup_free_ char *buf = malloc(RESOURCES_MAX + 1);
	size_t n = 0;

	if (!buf)
		return error_set(err, ENOMEM, "out of memory");
	for (;;) {
		ssize_t r = read(STDIN_FILENO, buf + n, RESOURCES_MAX - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return error_errno(err, "read stdin");
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == RESOURCES_MAX)
			return error_set(err, EFBIG, "stdin: too large");
	}
	buf[n] = '\0';
	*out = steal_pointer(&buf);
	*len = n;
	return 0;
}

static int read_resources(const char *file, struct spec_resources **out,
			  struct error **err)
{
	_cleanup_free_ char *json = NULL;
	size_t len = 0;

	if ((strcmp(file, "-") == 0
		 ? read_stdin(&json, &len, err)
		 : read_file_at(AT_FDCWD, file, &json, &len, err)) < 0)
		return error_wrap(err, "--resources");
	if (spec_parse_resources(json, len, out, err) < 0)
		return error_wrap(err, "--resources %s", file);
	return 0;
}

static int parse_int(const char *flag, const char *s, int64_t min, int64_t *out,
		     struct error **err)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return error_set(err, EINVAL, "--%s: invalid number \"%s\"",
				 flag, s);
	*out = v;
	return 0;
}

/* Bytes: -1 (no limit), "268435456", "256MiB", or docker's "256m". */
static int parse_bytes(const char *flag, const char *s, int64_t *out,
		       struct error **err)
{
	static const char units[] = "kmgt";
	unsigned long long v;
	uint64_t u;
	const char *unit;
	char *end;

	if (strcmp(s, "-1") == 0) {
		*out = -1;
		return 0;
	}
	if (units_parse_size(s, INT64_MAX, &u) && u > 0) {
		*out = (int64_t)u;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	unit = *end ? strchr(units, end[0] | 0x20) : NULL;
	if (!errno && end != s && s[0] != '-' && unit &&
	    (!end[1] || ((end[1] | 0x20) == 'b' && !end[2]))) {
		int shift = 10 * (int)(unit - units + 1);

		if (v > 0 && v <= (unsigned long long)INT64_MAX >> shift) {
			*out = (int64_t)(v << shift);
			return 0;
		}
	}
	return error_set(err, EINVAL,
			 "--%s: invalid size \"%s\" (bytes, -1, or like "
			 "\"256MiB\" or \"256m\")",
			 flag, s);
}

static int want_memory(struct spec_resources *r, struct error **err)
{
	if (!r->memory && !(r->memory = calloc(1, sizeof(*r->memory))))
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

static int want_cpu(struct spec_resources *r, struct error **err)
{
	if (!r->cpu && !(r->cpu = calloc(1, sizeof(*r->cpu))))
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

static int set_string(char **slot, const char *s, struct error **err)
{
	free(*slot);
	*slot = strdup(s);
	return *slot ? 0 : error_set(err, ENOMEM, "out of memory");
}

/* The flags override the document, as with runc. */
static int apply_flags(const struct update_opts *o, struct spec_resources *r,
		       struct error **err)
{
	int64_t v;

	if (o->memory || o->memory_swap) {
		if (want_memory(r, err) < 0)
			return -1;
		if (o->memory) {
			if (parse_bytes("memory", o->memory, &v, err) < 0)
				return -1;
			r->memory->limit = (struct spec_opt){true, v};
		}
		if (o->memory_swap) {
			if (parse_bytes("memory-swap", o->memory_swap, &v,
					err) < 0)
				return -1;
			r->memory->swap = (struct spec_opt){true, v};
		}
	}
	if (o->pids_limit) {
		if (parse_int("pids-limit", o->pids_limit, -1, &v, err) < 0)
			return -1;
		r->pids_limit = (struct spec_opt){true, v};
	}
	if (o->cpu_quota || o->cpu_period || o->cpu_shares || o->cpuset_cpus ||
	    o->cpuset_mems) {
		if (want_cpu(r, err) < 0)
			return -1;
		if (o->cpu_quota) {
			if (parse_int("cpu-quota", o->cpu_quota, -1, &v, err) <
			    0)
				return -1;
			r->cpu->quota = (struct spec_opt){true, v};
		}
		if (o->cpu_period) {
			if (parse_int("cpu-period", o->cpu_period, 1, &v, err) <
			    0)
				return -1;
			r->cpu->period = (struct spec_opt){true, v};
		}
		if (o->cpu_shares) {
			if (parse_int("cpu-shares", o->cpu_shares, 1, &v, err) <
			    0)
				return -1;
			r->cpu->shares = (struct spec_opt){true, v};
		}
		if (o->cpuset_cpus &&
		    set_string(&r->cpu->cpus, o->cpuset_cpus, err) < 0)
			return -1;
		if (o->cpuset_mems &&
		    set_string(&r->cpu->mems, o->cpuset_mems, err) < 0)
			return -1;
	}
	return 0;
}

static bool asked(struct spec_opt o)
{
	return o.set && o.v != 0;
}

/* What the cgroup needs beside the request to keep the rest as it is:
 * a quota keeps the stored period (cpu.max writes both), swap needs the
 * memory limit, and under the sandbox swap follows the memory limit (no
 * swap, as harden() sets it at create). */
static void complete(const char *id, struct spec_resources *r,
		     const struct spec_resources *cur, bool sandbox)
{
	const struct spec_cpu *cc = cur ? cur->cpu : NULL;
	const struct spec_memory *cm = cur ? cur->memory : NULL;
	struct spec_memory *m = r->memory;

	if (r->cpu && asked(r->cpu->quota) && !asked(r->cpu->period) && cc &&
	    asked(cc->period))
		r->cpu->period = cc->period;
	if (r->cpu && asked(r->cpu->period) && !asked(r->cpu->quota) && cc &&
	    asked(cc->quota))
		r->cpu->quota = cc->quota;
	if (!m)
		return;
	if (asked(m->swap) && !asked(m->limit) && cm && asked(cm->limit))
		m->limit = cm->limit;
	if (!sandbox || !asked(m->limit) || m->limit.v < 0)
		return;
	if (asked(m->swap) && m->swap.v != m->limit.v)
		log_warn("update %s: memory+swap set to the memory limit: the "
			 "sandbox allows no swap",
			 id);
	m->swap = m->limit;
}

/* ---- the policy ---------------------------------------------------------- */

static int load_policy(const struct container_dir *dir, struct policy **out,
		       struct error **err)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *json = NULL;
	size_t len = 0;

	if (read_file_at(dir->dirfd, POLICY_FILE, &json, &len, &e) < 0) {
		if (e->code == ENOENT)
			return policy_default(out, err);
		*err = steal_pointer(&e);
		return error_wrap(err, "stored " POLICY_FILE);
	}
	if (policy_parse(json, len, out, err) < 0)
		return error_wrap(err, "stored " POLICY_FILE);
	return 0;
}

static int wider(struct error **err, const char *id, const char *what,
		 char *asked_s, char *policy_s)
{
	int r;

	if (!asked_s || !policy_s)
		r = error_set(err, ENOMEM, "out of memory");
	else
		r = error_set(err, EPERM,
			      "update %s: %s %s is wider than the policy's %s",
			      id, what, asked_s, policy_s);
	free(asked_s);
	free(policy_s);
	return r;
}

static char *fmt_count(long long v)
{
	char *s = NULL;

	return asprintf(&s, "%lld", v) < 0 ? NULL : s;
}

static char *fmt_cpu(int64_t quota, int64_t period)
{
	char *s = NULL;

	if (quota < 0)
		return strdup("unlimited");
	return asprintf(&s, "%lld/%lld", (long long)quota, (long long)period) <
		       0
		   ? NULL
		   : s;
}

/* The files unified could reach around the checks below. */
static const char *const policy_files[] = {
    "memory.max", "memory.swap.max", "pids.max", "cpu.max", "cpu.max.burst"};

static int check_cpu(const char *id, const struct policy *p,
		     const struct spec_resources *r,
		     const struct spec_resources *cur, struct error **err)
{
	const struct spec_cpu *c = r->cpu, *cc = cur ? cur->cpu : NULL;
	int64_t pq = p->cpu_quota, pp = p->cpu_period ? (int64_t)p->cpu_period
						      : CPU_PERIOD_DEFAULT;
	int64_t q, per;

	if (pq <= 0 || !c || (!asked(c->quota) && !asked(c->period)))
		return 0;
	q = asked(c->quota) ? c->quota.v
			    : (cc && asked(cc->quota) ? cc->quota.v : -1);
	per = asked(c->period) ? c->period.v
			       : (cc && asked(cc->period) ? cc->period.v
							  : CPU_PERIOD_DEFAULT);
	if (q > 0 && (__int128)q * pp <= (__int128)pq * per)
		return 0;
	return wider(err, id, "cpu quota", fmt_cpu(q, per), fmt_cpu(pq, pp));
}

static int check_policy(const char *id, const struct policy *p,
			const struct spec_resources *r,
			const struct spec_resources *cur, struct error **err)
{
	const struct spec_memory *m = r->memory;

	if (p->memory > 0 && m && asked(m->limit) &&
	    (m->limit.v < 0 || m->limit.v > p->memory))
		return wider(err, id, "memory",
			     m->limit.v < 0 ? strdup("unlimited")
					    : units_size_string(
						  (uint64_t)m->limit.v, false),
			     units_size_string((uint64_t)p->memory, false));
	if (p->pids > 0 && r->pids_limit.set &&
	    (r->pids_limit.v <= 0 || r->pids_limit.v > p->pids))
		return wider(err, id, "pids",
			     r->pids_limit.v <= 0
				 ? strdup("unlimited")
				 : fmt_count((long long)r->pids_limit.v),
			     fmt_count((long long)p->pids));
	if (check_cpu(id, p, r, cur, err) < 0)
		return -1;
	for (size_t i = 0; i < r->n_unified; i++)
		for (size_t j = 0; j < ARRAY_SIZE(policy_files); j++)
			if (strcmp(r->unified[i].key, policy_files[j]) == 0)
				return error_set(
				    err, EPERM,
				    "update %s: unified %s: bounded by the "
				    "policy; set it through its resources "
				    "field",
				    id, policy_files[j]);
	return 0;
}

/* ---- the stored config.json ---------------------------------------------- */

#define TAKE(dst, src, f)                                                      \
	do {                                                                   \
		if ((src)->f.set)                                              \
			(dst)->f = (src)->f;                                   \
	} while (0)

static void take_string(char **dst, char **src)
{
	if (!*src)
		return;
	free(*dst);
	*dst = steal_pointer(src);
}

static int merge_memory(struct spec_resources *cur, struct spec_memory *m,
			struct error **err)
{
	if (!m)
		return 0;
	if (want_memory(cur, err) < 0)
		return -1;
	TAKE(cur->memory, m, limit);
	TAKE(cur->memory, m, reservation);
	TAKE(cur->memory, m, swap);
	TAKE(cur->memory, m, kernel);
	TAKE(cur->memory, m, kernel_tcp);
	TAKE(cur->memory, m, swappiness);
	if (m->has_disable_oom_killer) {
		cur->memory->has_disable_oom_killer = true;
		cur->memory->disable_oom_killer = m->disable_oom_killer;
	}
	return 0;
}

static int merge_cpu(struct spec_resources *cur, struct spec_cpu *c,
		     struct error **err)
{
	if (!c)
		return 0;
	if (want_cpu(cur, err) < 0)
		return -1;
	TAKE(cur->cpu, c, shares);
	TAKE(cur->cpu, c, quota);
	TAKE(cur->cpu, c, burst);
	TAKE(cur->cpu, c, period);
	TAKE(cur->cpu, c, realtime_runtime);
	TAKE(cur->cpu, c, realtime_period);
	TAKE(cur->cpu, c, idle);
	take_string(&cur->cpu->cpus, &c->cpus);
	take_string(&cur->cpu->mems, &c->mems);
	return 0;
}

/* Lists replace the stored ones whole; the old ones go with `r`. */
#define SWAP_LIST(a, na, b, nb)                                                \
	do {                                                                   \
		if ((nb) > 0) {                                                \
			void *t_ = (a);                                        \
			size_t n_ = (na);                                      \
			(a) = (b);                                             \
			(na) = (nb);                                           \
			(b) = t_;                                              \
			(nb) = n_;                                             \
		}                                                              \
	} while (0)

static int merge_block_io(struct spec_resources *cur, struct spec_block_io *b,
			  struct error **err)
{
	struct spec_block_io *d;

	if (!b)
		return 0;
	if (!cur->block_io &&
	    !(cur->block_io = calloc(1, sizeof(*cur->block_io))))
		return error_set(err, ENOMEM, "out of memory");
	d = cur->block_io;
	TAKE(d, b, weight);
	TAKE(d, b, leaf_weight);
	SWAP_LIST(d->weight_devices, d->n_weight_devices, b->weight_devices,
		  b->n_weight_devices);
	for (size_t k = 0; k < ARRAY_SIZE(d->throttle); k++)
		SWAP_LIST(d->throttle[k], d->n_throttle[k], b->throttle[k],
			  b->n_throttle[k]);
	return 0;
}

static int merge_unified(struct spec_resources *cur, struct spec_resources *r,
			 struct error **err)
{
	for (size_t i = 0; i < r->n_unified; i++) {
		struct spec_kv *kv = &r->unified[i], *grown;
		size_t j = 0;

		while (j < cur->n_unified &&
		       strcmp(cur->unified[j].key, kv->key) != 0)
			j++;
		if (j == cur->n_unified) {
			grown = realloc(cur->unified,
					(j + 1) * sizeof(*cur->unified));
			if (!grown)
				return error_set(err, ENOMEM, "out of memory");
			cur->unified = grown;
			grown[j] = (struct spec_kv){NULL, NULL};
			cur->n_unified++;
		}
		take_string(&cur->unified[j].key, &kv->key);
		take_string(&cur->unified[j].value, &kv->value);
	}
	return 0;
}

/* The request into the stored resources; what is taken leaves `r`. */
static int merge(struct spec_resources *cur, struct spec_resources *r,
		 struct error **err)
{
	if (merge_memory(cur, r->memory, err) < 0 ||
	    merge_cpu(cur, r->cpu, err) < 0 ||
	    merge_block_io(cur, r->block_io, err) < 0 ||
	    merge_unified(cur, r, err) < 0)
		return -1;
	TAKE(cur, r, pids_limit);
	SWAP_LIST(cur->hugepage_limits, cur->n_hugepage_limits,
		  r->hugepage_limits, r->n_hugepage_limits);
	return 0;
}

static int save_config(const struct container_dir *dir, const struct spec *s,
		       struct error **err)
{
	_cleanup_free_ char *json = NULL;

	if (spec_emit(s, &json, NULL, err) < 0 ||
	    write_file_atomic_at(dir->dirfd, CONFIG_FILE, json, strlen(json),
				 0600, err) < 0)
		return error_wrap(err, "stored " CONFIG_FILE);
	return 0;
}

/* ---- update -------------------------------------------------------------- */

/* Device rules are fixed at create, as with runc: podman sends the
 * container's whole resources, rules included, and a rule change could
 * only widen what the sandbox let through. */
static void drop_devices(const char *id, struct spec_resources *r)
{
	if (r->n_devices == 0)
		return;
	log_warn("update %s: device rules are not changed by update", id);
	for (size_t i = 0; i < r->n_devices; i++)
		free(r->devices[i].access);
	free(r->devices);
	r->devices = NULL;
	r->n_devices = 0;
}

/* The request, checked: its own values, then against the policy. */
static int build_request(const char *id, const struct update_opts *o,
			 const struct spec_resources *cur,
			 const struct policy *p, struct spec_resources **out,
			 struct error **err)
{
	struct spec_resources *r = NULL;
	bool sandbox = p->mode != POLICY_PERMISSIVE;

	*out = NULL;
	if (o->resources ? read_resources(o->resources, &r, err) < 0
			 : !(r = calloc(1, sizeof(*r))))
		return o->resources ? error_wrap(err, "update %s", id)
				    : error_set(err, ENOMEM, "out of memory");
	if (apply_flags(o, r, err) < 0) {
		spec_resources_free(r);
		return error_wrap(err, "update %s", id);
	}
	drop_devices(id, r);
	complete(id, r, cur, sandbox);
	if (sandbox && check_policy(id, p, r, cur, err) < 0) {
		spec_resources_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

static int stored_resources(struct spec *s, struct spec_resources **out,
			    struct error **err)
{
	if (!s->linux_ && !(s->linux_ = calloc(1, sizeof(*s->linux_))))
		return error_set(err, ENOMEM, "out of memory");
	if (!s->linux_->resources &&
	    !(s->linux_->resources = calloc(1, sizeof(*s->linux_->resources))))
		return error_set(err, ENOMEM, "out of memory");
	*out = s->linux_->resources;
	return 0;
}

int container_update(const char *root, const char *id,
		     const struct update_opts *o, struct error **err)
{
	struct cgroup_container c;
	struct spec *config = NULL;
	struct policy *policy = NULL;
	struct spec_resources *r = NULL, *cur = NULL;
	int rc = -1;

	if (container_open_cgroup(root, id, &c, err) < 0)
		return error_wrap(err, "update");
	if (strcmp(c.status, "stopped") == 0) {
		error_set(err, EINVAL, "update %s: the container is stopped",
			  id);
		goto out;
	}
	if (!c.cgroup) {
		error_set(err, EOPNOTSUPP,
			  "update %s: the container has no cgroup", id);
		goto out;
	}
	if (state_load_config(&c.dir, &config, err) < 0 ||
	    load_policy(&c.dir, &policy, err) < 0 ||
	    stored_resources(config, &cur, err) < 0) {
		error_wrap(err, "update %s", id);
		goto out;
	}
	if (build_request(id, o, cur, policy, &r, err) < 0)
		goto out;
	if (cgroup_update(c.cgroup, r, err) < 0 || merge(cur, r, err) < 0 ||
	    save_config(&c.dir, config, err) < 0) {
		error_wrap(err, "update %s", id);
		goto out;
	}
	log_debug("updated %s", id);
	rc = 0;
out:
	spec_resources_free(r);
	policy_free(policy);
	spec_free(config);
	container_close_cgroup(&c);
	return rc;
}
