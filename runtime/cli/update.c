/* update: new resource limits for a live container.  The request is a
 * LinuxResources document (`--resources FILE|-`, as podman passes it)
 * with runc's single-value flags on top.  What it may change is decided
 * in spec/ (harden_update: narrow freely, widen only up to the policy the
 * container was created under, policy.json in its state directory, or
 * the built-in defaults when there is none).  The cgroup is written first
 * (cgroup_update), then the stored effective config.json, so later
 * commands (explain, exec) see the limits in force. */
#include "cgroup_commands.h"
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "harden.h"
#include "log.h"
#include "policy.h"
#include "state.h"
#include "units.h"
#include "util.h"

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

/* ---- the stored config.json ---------------------------------------------- */

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

/* The request, checked: its own values, then against the policy. */
static int build_request(const char *id, const struct update_opts *o,
			 const struct spec_resources *cur,
			 const struct policy *p, struct spec_resources **out,
			 struct error **err)
{
	struct spec_resources *r = NULL;
	struct harden_update_notes notes;

	*out = NULL;
	if (o->resources ? read_resources(o->resources, &r, err) < 0
			 : !(r = calloc(1, sizeof(*r))))
		return o->resources ? error_wrap(err, "update %s", id)
				    : error_set(err, ENOMEM, "out of memory");
	if (apply_flags(o, r, err) < 0) {
		spec_resources_free(r);
		return error_wrap(err, "update %s", id);
	}
	if (harden_update(r, cur, p, &notes, err) < 0) {
		spec_resources_free(r);
		return error_wrap(err, "update %s", id);
	}
	if (notes.devices_dropped)
		log_warn("update %s: device rules are not changed by update",
			 id);
	if (notes.swap_set_to_limit)
		log_warn("update %s: memory+swap set to the memory limit: the "
			 "sandbox allows no swap",
			 id);
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
	struct container c;
	struct spec *config = NULL;
	struct policy *policy = NULL;
	struct spec_resources *r = NULL, *cur = NULL;
	int rc = -1;

	if (container_open(root, id, &c, err) < 0)
		return error_wrap(err, "update");
	if (c.status == CONTAINER_STOPPED) {
		error_set(err, EINVAL, "update %s: the container is stopped",
			  id);
		goto out;
	}
	if (!container_cgroup(&c, "update", err))
		goto out;
	if (container_dir_load_config(&c.dir, &config, err) < 0 ||
	    load_policy(&c.dir, &policy, err) < 0 ||
	    stored_resources(config, &cur, err) < 0) {
		error_wrap(err, "update %s", id);
		goto out;
	}
	if (build_request(id, o, cur, policy, &r, err) < 0)
		goto out;
	if (cgroup_update(c.cgroup, r, err) < 0 ||
	    harden_update_merge(cur, r, err) < 0 ||
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
	container_close(&c);
	return rc;
}
