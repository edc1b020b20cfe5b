/* How a table of limits is run (see struct cg_limit in cgroup_limits.h),
 * and what both layouts check and write the same way. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_limits.h"
#include "util.h"

const char *const cg_controller_names[CG_N_CONTROLLERS] = {
    [CG_CPUSET] = "cpuset",   [CG_CPU] = "cpu",
    [CG_IO] = "io",	      [CG_MEMORY] = "memory",
    [CG_HUGETLB] = "hugetlb", [CG_PIDS] = "pids",
    [CG_RDMA] = "rdma",	      [CG_MISC] = "misc",
    [CG_BLKIO] = "blkio",     [CG_DEVICES] = "devices",
    [CG_NET_CLS] = "net_cls", [CG_NET_PRIO] = "net_prio",
};

/* The controller a file belongs to: its name up to the first dot. */
static int controller_of(const char *file, enum cg_controller *out)
{
	size_t n = strcspn(file, ".");

	if (file[n] != '.')
		return -1;
	for (int c = 0; c < CG_N_CONTROLLERS; c++) {
		if (strlen(cg_controller_names[c]) == n &&
		    strncmp(file, cg_controller_names[c], n) == 0) {
			*out = (enum cg_controller)c;
			return 0;
		}
	}
	return -1;
}

static int put_value(struct cg_writer *w, const char *file, const char *value,
		     struct error **err)
{
	enum cg_controller c;
	const char *dir = NULL;
	int fd;

	if (controller_of(file, &c) < 0)
		return cg_invalid(w, err, "%s: no controller of corral's",
				  file);
	if (!cg_names_has(&w->written, file) &&
	    cg_names_add(&w->written, file) < 0)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	if (w->mode == CG_COLLECT) {
		w->wanted |= 1u << c;
		return 0;
	}
	fd = w->target(w, c, &dir, err);
	if (fd < 0)
		return -1;
	return cg_write(fd, dir, file, value, err);
}

int cg_put(struct cg_writer *w, const char *file, struct error **err,
	   const char *fmt, ...)
{
	_cleanup_free_ char *value = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&value, fmt, ap);
	va_end(ap);
	if (n < 0) {
		value = NULL;
		return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	return put_value(w, file, value, err);
}

int cg_put_num(struct cg_writer *w, const char *file, int64_t v,
	       const char *unlimited, struct error **err)
{
	if (v < 0)
		return put_value(w, file, unlimited, err);
	return cg_put(w, file, err, "%lld", (long long)v);
}

bool cg_has(struct cg_writer *w, const char *file)
{
	_cleanup_error_ struct error *e = NULL;
	enum cg_controller c;
	const char *dir = NULL;
	int fd;

	if (controller_of(file, &c) < 0)
		return false;
	if (w->mode == CG_COLLECT) {
		w->wanted |= 1u << c;
		return true;
	}
	/* A missing controller is reported by the cg_put() that follows. */
	fd = w->target(w, c, &dir, &e);
	return fd < 0 || cg_exists(fd, file);
}

static int set_va(struct error **err, int code, const char *fmt, va_list ap)
{
	_cleanup_free_ char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0) {
		msg = NULL;
		return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	return error_set(err, code, "cgroup: %s", msg);
}

int cg_invalid(struct cg_writer *w, struct error **err, const char *fmt, ...)
{
	va_list ap;

	w->invalid = true;
	va_start(ap, fmt);
	set_va(err, EINVAL, fmt, ap);
	va_end(ap);
	return -1;
}

int cg_cannot(struct cg_writer *w, struct error **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_va(err, EOPNOTSUPP, fmt, ap);
	va_end(ap);
	return -1;
}

/* In CG_COLLECT mode a host failure (only cg_cannot() can fail there) is
 * left for CG_WRITE to report or skip; an invalid request always fails. */
int cg_write_limits(struct cg_writer *w, const struct cg_limit *rows, size_t n,
		    const struct spec_resources *r, bool best_effort,
		    struct cg_names *skipped, struct error **err)
{
	static const struct spec_resources none;

	cg_names_clear(&w->written);
	for (size_t i = 0; i < n; i++) {
		_cleanup_error_ struct error *e = NULL;

		w->row = &rows[i];
		w->invalid = false;
		if (rows[i].write(w, r ? r : &none, &e) == 0)
			continue;
		if (!e)
			error_set(&e, EIO, "cgroup: %s: failed", rows[i].name);
		if (w->invalid || !best_effort) {
			if (!*err)
				*err = steal_pointer(&e);
			return -1;
		}
		if (w->mode == CG_WRITE && skipped &&
		    !cg_names_has(skipped, rows[i].name) &&
		    cg_names_add(skipped, rows[i].name) < 0)
			return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	w->row = NULL;
	return 0;
}

/* ---- values both layouts check the same way -------------------------- */

/* A memory amount: 0 (absent) asks nothing, -1 is unlimited. */
static int memory_amount(struct cg_writer *w, struct spec_opt o,
			 const char *field, int64_t *out, struct error **err)
{
	*out = 0;
	if (!o.set || o.v == 0)
		return 0;
	if (o.v < -1)
		return cg_invalid(w, err,
				  ".linux.resources.memory.%s: %lld is not a "
				  "size",
				  field, (long long)o.v);
	*out = o.v;
	return 0;
}

/* runtime-spec's swap is memory+swap, so it needs a memory limit and is
 * at least that limit (equal: no swap at all). */
int cg_memory_values(const struct spec_resources *r, struct cg_memory *out,
		     struct cg_writer *w, struct error **err)
{
	*out = (struct cg_memory){0};
	if (!r->memory)
		return 0;
	if (memory_amount(w, r->memory->limit, "limit", &out->limit, err) < 0 ||
	    memory_amount(w, r->memory->reservation, "reservation",
			  &out->reservation, err) < 0 ||
	    memory_amount(w, r->memory->swap, "swap", &out->swap, err) < 0)
		return -1;
	if (out->swap <= 0)
		return 0;
	if (out->limit <= 0)
		return cg_invalid(w, err,
				  ".linux.resources.memory.swap: needs a "
				  "memory limit");
	if (out->swap < out->limit)
		return cg_invalid(w, err,
				  ".linux.resources.memory.swap: %lld is "
				  "below the memory limit %lld (swap is "
				  "memory+swap)",
				  (long long)out->swap, (long long)out->limit);
	return 0;
}

bool cg_page_size_ok(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	if (digits == 0 || digits > 10 || !strchr("KMGT", s[digits]) ||
	    !s[digits])
		return false;
	return strcmp(s + digits + 1, "B") == 0;
}

static bool cpu_list_ok(const char *s)
{
	return *s && strlen(s) < 4096 && strspn(s, "0123456789,-") == strlen(s);
}

/* ---- rows both layouts share ------------------------------------------- */

/* pids.limit: -1 and 0 are both "no limit". */
int cg_row_pids(struct cg_writer *w, const struct spec_resources *r,
		struct error **err)
{
	if (!r->pids_limit.set)
		return 0;
	return cg_put_num(w, "pids.max",
			  r->pids_limit.v > 0 ? r->pids_limit.v : -1, "max",
			  err);
}

static int cpuset_list(struct cg_writer *w, const char *value,
		       const char *field, const char *file, struct error **err)
{
	if (!value || !*value)
		return 0;
	if (!cpu_list_ok(value))
		return cg_invalid(w, err,
				  ".linux.resources.cpu.%s: expected a list "
				  "like \"0-3,7\"",
				  field);
	return cg_put(w, file, err, "%s", value);
}

int cg_row_cpus(struct cg_writer *w, const struct spec_resources *r,
		struct error **err)
{
	return cpuset_list(w, r->cpu ? r->cpu->cpus : NULL, "cpus",
			   "cpuset.cpus", err);
}

int cg_row_mems(struct cg_writer *w, const struct spec_resources *r,
		struct error **err)
{
	return cpuset_list(w, r->cpu ? r->cpu->mems : NULL, "mems",
			   "cpuset.mems", err);
}

int cg_row_cpu_idle(struct cg_writer *w, const struct spec_resources *r,
		    struct error **err)
{
	if (!r->cpu || !r->cpu->idle.set)
		return 0;
	if (r->cpu->idle.v != 0 && r->cpu->idle.v != 1)
		return cg_invalid(w, err,
				  ".linux.resources.cpu.idle: expected 0 or 1");
	return cg_put(w, "cpu.idle", err, "%lld", (long long)r->cpu->idle.v);
}

/* Kernel memory limits are gone from cgroup v2 and deprecated (and
 * ignored by recent kernels) on v1: asking for one cannot be honoured. */
int cg_row_kernel_memory(struct cg_writer *w, const struct spec_resources *r,
			 struct error **err)
{
	const struct spec_memory *m = r->memory;

	if (!m || ((!m->kernel.set || m->kernel.v == 0) &&
		   (!m->kernel_tcp.set || m->kernel_tcp.v == 0)))
		return 0;
	return cg_cannot(w, err,
			 ".linux.resources.memory.kernel/kernelTCP: kernel "
			 "memory limits are not supported");
}

/* Leaf weights went with the CFQ scheduler. */
int cg_row_leaf_weight(struct cg_writer *w, const struct spec_resources *r,
		       struct error **err)
{
	const struct spec_block_io *b = r->block_io;
	bool asked = b && b->leaf_weight.set && b->leaf_weight.v != 0;

	for (size_t i = 0; b && i < b->n_weight_devices; i++)
		asked |= b->weight_devices[i].leaf_weight.set;
	if (!asked)
		return 0;
	return cg_cannot(w, err,
			 ".linux.resources.blockIO.leafWeight: leaf weights "
			 "are not supported");
}
