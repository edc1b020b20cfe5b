/* The cgroup v2 backend (cgroup_backend.h): one tree.  The container's cgroup
 * is a leaf (a v2 cgroup holding processes cannot give controllers to children:
 * "no internal processes"); each directory above it enables, in its
 * cgroup.subtree_control, the controllers the limits need.  Device rules
 * are a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the leaf
 * (cgroup_devices.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "cgroup_devices.h"
#include "util.h"

#define CPU_PERIOD_DEFAULT 100000

struct v2_ctx {
	unsigned needed; /* controllers the limits write */
	bool best_effort;
	int leaf_fd;
	const char *leaf;
	char *controllers; /* the leaf's cgroup.controllers */
};

/* ---- the rows -------------------------------------------------------- */

static int memory_max(struct cg_writer *w, const struct spec_resources *r,
		      struct error **err)
{
	struct cg_memory m;

	if (cg_memory_values(r, &m, w, err) < 0)
		return -1;
	return m.limit ? cg_put_num(w, "memory.max", m.limit, "max", err) : 0;
}

/* memory.swap.max is swap alone: the spec's memory+swap minus memory. */
static int memory_swap(struct cg_writer *w, const struct spec_resources *r,
		       struct error **err)
{
	struct cg_memory m;

	if (cg_memory_values(r, &m, w, err) < 0)
		return -1;
	if (!m.swap)
		return 0;
	if (!cg_has(w, "memory.swap.max"))
		return cg_cannot(w, err,
				 "%s: memory.swap.max is absent (no swap "
				 "accounting): cannot enforce the swap limit",
				 w->row->name);
	return cg_put_num(w, "memory.swap.max",
			  m.swap < 0 ? -1 : m.swap - m.limit, "max", err);
}

static int memory_low(struct cg_writer *w, const struct spec_resources *r,
		      struct error **err)
{
	struct cg_memory m;

	if (cg_memory_values(r, &m, w, err) < 0)
		return -1;
	return m.reservation
		   ? cg_put_num(w, "memory.low", m.reservation, "max", err)
		   : 0;
}

static int memory_swappiness(struct cg_writer *w,
			     const struct spec_resources *r, struct error **err)
{
	if (!r->memory || !r->memory->swappiness.set)
		return 0;
	return cg_cannot(w, err, "%s: not supported on cgroup v2",
			 w->row->name);
}

static int memory_oom_killer(struct cg_writer *w,
			     const struct spec_resources *r, struct error **err)
{
	if (!r->memory || !r->memory->disable_oom_killer)
		return 0;
	return cg_cannot(w, err, "%s: not supported on cgroup v2",
			 w->row->name);
}

/* cpu.max is "QUOTA PERIOD" or "max PERIOD"; as with runc, a quota or
 * period of 0 asks nothing. */
static int cpu_max(struct cg_writer *w, const struct spec_resources *r,
		   struct error **err)
{
	const struct spec_cpu *c = r->cpu;
	int64_t period = CPU_PERIOD_DEFAULT;

	if (!c || ((!c->quota.set || c->quota.v == 0) &&
		   (!c->period.set || c->period.v == 0)))
		return 0;
	if (c->period.set && c->period.v < 0)
		return cg_invalid(w, err,
				  ".linux.resources.cpu.period: %lld is "
				  "negative",
				  (long long)c->period.v);
	if (c->period.set && c->period.v > 0)
		period = c->period.v;
	if (c->quota.set && c->quota.v > 0)
		return cg_put(w, "cpu.max", err, "%lld %lld",
			      (long long)c->quota.v, (long long)period);
	return cg_put(w, "cpu.max", err, "max %lld", (long long)period);
}

static int cpu_burst(struct cg_writer *w, const struct spec_resources *r,
		     struct error **err)
{
	if (!r->cpu || !r->cpu->burst.set)
		return 0;
	if (r->cpu->burst.v < 0)
		return cg_invalid(w, err,
				  ".linux.resources.cpu.burst: "
				  "negative");
	return cg_put(w, "cpu.max.burst", err, "%lld",
		      (long long)r->cpu->burst.v);
}

/* cpu.shares (2..262144, default 1024) mapped onto cpu.weight
 * (1..10000, default 100) as runc and crun map it. */
static int cpu_weight(struct cg_writer *w, const struct spec_resources *r,
		      struct error **err)
{
	int64_t shares;

	if (!r->cpu || !r->cpu->shares.set || r->cpu->shares.v == 0)
		return 0;
	shares = r->cpu->shares.v;
	if (shares < 0)
		return cg_invalid(w, err,
				  ".linux.resources.cpu.shares: negative");
	shares = shares < 2 ? 2 : shares > 262144 ? 262144 : shares;
	return cg_put(w, "cpu.weight", err, "%lld",
		      (long long)(1 + ((shares - 2) * 9999) / 262142));
}

static int cpu_realtime(struct cg_writer *w, const struct spec_resources *r,
			struct error **err)
{
	const struct spec_cpu *c = r->cpu;

	if (!c || ((!c->realtime_runtime.set || !c->realtime_runtime.v) &&
		   (!c->realtime_period.set || !c->realtime_period.v)))
		return 0;
	return cg_cannot(w, err,
			 ".linux.resources.cpu.realtimeRuntime/Period: not "
			 "supported on cgroup v2");
}

/* blkio weights (10..1000) mapped onto io.weight (1..10000); with BFQ
 * the weight is io.bfq.weight, in blkio's own range. */
static int64_t io_weight(int64_t blkio)
{
	return 1 + (blkio - 10) * 9999 / 990;
}

static int put_weight(struct cg_writer *w, const char *key, int64_t weight,
		      struct error **err)
{
	if (weight < 10 || weight > 1000)
		return cg_invalid(w, err, "%s: weight %lld is outside 10..1000",
				  w->row->name, (long long)weight);
	if (cg_has(w, "io.weight"))
		return cg_put(w, "io.weight", err, "%s %lld", key,
			      (long long)io_weight(weight));
	if (cg_has(w, "io.bfq.weight"))
		return cg_put(w, "io.bfq.weight", err, "%s %lld", key,
			      (long long)weight);
	return cg_cannot(w, err,
			 "%s: neither io.weight nor io.bfq.weight exists (no "
			 "I/O scheduler with weights)",
			 w->row->name);
}

static int io_weight_default(struct cg_writer *w,
			     const struct spec_resources *r, struct error **err)
{
	const struct spec_block_io *b = r->block_io;

	if (!b || !b->weight.set || b->weight.v == 0)
		return 0;
	return put_weight(w, "default", b->weight.v, err);
}

static int io_weight_devices(struct cg_writer *w,
			     const struct spec_resources *r, struct error **err)
{
	const struct spec_block_io *b = r->block_io;

	for (size_t i = 0; b && i < b->n_weight_devices; i++) {
		const struct spec_weight_device *d = &b->weight_devices[i];
		char key[48];

		if (!d->weight.set)
			continue;
		snprintf(key, sizeof(key), "%lld:%lld", (long long)d->major,
			 (long long)d->minor);
		if (put_weight(w, key, d->weight.v, err) < 0)
			return -1;
	}
	return 0;
}

static int io_max(struct cg_writer *w, const struct spec_resources *r,
		  struct error **err)
{
	static const char *const keys[4] = {
	    [THROTTLE_READ_BPS] = "rbps",
	    [THROTTLE_WRITE_BPS] = "wbps",
	    [THROTTLE_READ_IOPS] = "riops",
	    [THROTTLE_WRITE_IOPS] = "wiops",
	};
	const struct spec_block_io *b = r->block_io;

	for (int k = 0; b && k < 4; k++) {
		for (size_t i = 0; i < b->n_throttle[k]; i++) {
			const struct spec_throttle_device *t =
			    &b->throttle[k][i];

			if (cg_put(w, "io.max", err, "%lld:%lld %s=%llu",
				   (long long)t->major, (long long)t->minor,
				   keys[k], (unsigned long long)t->rate) < 0)
				return -1;
		}
	}
	return 0;
}

static int hugetlb_max(struct cg_writer *w, const struct spec_resources *r,
		       struct error **err)
{
	for (size_t i = 0; i < r->n_hugepage_limits; i++) {
		const struct spec_hugepage_limit *h = &r->hugepage_limits[i];
		char file[64];

		if (!h->page_size || !cg_page_size_ok(h->page_size))
			return cg_invalid(w, err,
					  "%s: page size \"%s\": expected "
					  "like \"2MB\"",
					  w->row->name,
					  h->page_size ? h->page_size : "");
		snprintf(file, sizeof(file), "hugetlb.%s.max", h->page_size);
		if (cg_put(w, file, err, "%llu", (unsigned long long)h->limit) <
		    0)
			return -1;
	}
	return 0;
}

/* Only a controller's own files, and none that a field above wrote:
 * "unified" must not undo a limit (say pids.max=max) the sandbox set,
 * nor reach the core files (cgroup.procs would move any process of the
 * host into the container's cgroup, where cgroup.kill would kill it). */
static int unified(struct cg_writer *w, const struct spec_resources *r,
		   struct error **err)
{
	for (size_t i = 0; i < r->n_unified; i++) {
		const char *key = r->unified[i].key,
			   *value = r->unified[i].value;
		size_t n = key ? strcspn(key, ".") : 0;
		bool known = false;

		for (int c = 0; key && c < CG_BLKIO; c++)
			known |= strlen(cg_controller_names[c]) == n &&
				 strncmp(key, cg_controller_names[c], n) == 0;
		if (!key || !value || !known || key[n] != '.' || !key[n + 1] ||
		    strchr(key, '/') || strlen(key) > 255)
			return cg_invalid(w, err,
					  "%s: \"%s\": only a controller's "
					  "own files may be written",
					  w->row->name, key ? key : "");
		if (cg_names_has(&w->written, key))
			return cg_invalid(w, err,
					  "%s: %s is already written from "
					  "another field of linux.resources",
					  w->row->name, key);
		if (cg_put(w, key, err, "%s", value) < 0)
			return -1;
	}
	return 0;
}

/* net_cls and net_prio are v1 controllers; cgroup v2 has neither (a BPF
 * program or nftables' "socket cgroupv2" match takes their place). */
static int network(struct cg_writer *w, const struct spec_resources *r,
		   struct error **err)
{
	const struct spec_network *n = r->network;

	if (!n || (!n->class_id.set && n->n_priorities == 0))
		return 0;
	return cg_cannot(w, err,
			 "%s: needs cgroup v1 (cgroup v2 has no net_cls or "
			 "net_prio controller)",
			 w->row->name);
}

/* The rules become one BPF program, built in both modes: while
 * collecting, so that a wrong rule fails before any directory is made;
 * when writing, to be attached to the leaf before any process is in it. */
static int devices(struct cg_writer *w, const struct spec_resources *r,
		   struct error **err)
{
	struct v2_ctx *x = w->ctx;
	_cleanup_free_ struct bpf_insn *prog = NULL;
	size_t len = 0;

	if (r->n_devices == 0)
		return 0;
	if (cg_devices_program(r->devices, r->n_devices, &prog, &len, err) <
	    0) {
		w->invalid = *err && (*err)->code == EINVAL;
		return -1;
	}
	if (w->mode == CG_COLLECT)
		return 0;
	return cg_devices_attach(x->leaf_fd, x->leaf, prog, len, err);
}

/* In order; "unified" last, so it can see what the others wrote. */
static const struct cg_limit v2_limits[] = {
    {".linux.resources.memory.limit", memory_max},
    {".linux.resources.memory.swap", memory_swap},
    {".linux.resources.memory.reservation", memory_low},
    {".linux.resources.memory.swappiness", memory_swappiness},
    {".linux.resources.memory.disableOOMKiller", memory_oom_killer},
    {".linux.resources.memory.kernel", cg_row_kernel_memory},
    {".linux.resources.pids.limit", cg_row_pids},
    {".linux.resources.cpu.quota", cpu_max},
    {".linux.resources.cpu.burst", cpu_burst},
    {".linux.resources.cpu.shares", cpu_weight},
    {".linux.resources.cpu.idle", cg_row_cpu_idle},
    {".linux.resources.cpu.realtimeRuntime", cpu_realtime},
    {".linux.resources.cpu.cpus", cg_row_cpus},
    {".linux.resources.cpu.mems", cg_row_mems},
    {".linux.resources.blockIO.weight", io_weight_default},
    {".linux.resources.blockIO.leafWeight", cg_row_leaf_weight},
    {".linux.resources.blockIO.weightDevice", io_weight_devices},
    {".linux.resources.blockIO.throttle", io_max},
    {".linux.resources.hugepageLimits", hugetlb_max},
    {".linux.resources.devices", devices},
    {".linux.resources.network", network},
    {".linux.resources.unified", unified},
};

/* ---- making the tree ------------------------------------------------- */

static int v2_target(struct cg_writer *w, enum cg_controller c,
		     const char **dir, struct error **err)
{
	struct v2_ctx *x = w->ctx;

	*dir = x->leaf;
	if (c < CG_BLKIO && cg_word_in(x->controllers, cg_controller_names[c]))
		return x->leaf_fd;
	return error_set(err, EOPNOTSUPP,
			 "cgroup %s: the %s controller is not available "
			 "(cgroup.controllers: \"%s\")",
			 x->leaf, cg_controller_names[c], x->controllers);
}

/* How enable_in() writes: the controllers together in one write (create),
 * each alone with failures left for v2_target to report (create with
 * best_effort: one refused does not take the others with it), or each
 * alone, failing on the first refused (update). */
enum enable_how { ENABLE_TOGETHER, ENABLE_EACH_TRY, ENABLE_EACH };

/* Give the children of DIR the `needed` controllers DIR has.  One not
 * available here is left for the target to report at the leaf. */
static int enable_in(int fd, const char *dir, unsigned needed,
		     enum enable_how how, struct error **err)
{
	_cleanup_free_ char *have = NULL, *on = NULL;
	char buf[128] = "";
	size_t len = 0;

	if (cg_read(fd, dir, "cgroup.controllers", &have, err) < 0 ||
	    cg_read(fd, dir, "cgroup.subtree_control", &on, err) < 0)
		return -1;
	for (int c = 0; c < CG_BLKIO; c++) {
		const char *name = cg_controller_names[c];
		_cleanup_error_ struct error *e = NULL;
		char one[32];

		if (!(needed & (1u << c)) || !cg_word_in(have, name) ||
		    cg_word_in(on, name))
			continue;
		if (how == ENABLE_TOGETHER) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"%s+%s", len ? " " : "", name);
			continue;
		}
		snprintf(one, sizeof(one), "+%s", name);
		if (cg_write(fd, dir, "cgroup.subtree_control", one,
			     how == ENABLE_EACH ? err : &e) < 0 &&
		    how == ENABLE_EACH)
			return -1;
	}
	if (len == 0)
		return 0;
	return cg_write(fd, dir, "cgroup.subtree_control", buf, err);
}

static int enable_controllers(void *ctx, int fd, const char *dir,
			      struct error **err)
{
	struct v2_ctx *x = ctx;

	return enable_in(fd, dir, x->needed,
			 x->best_effort ? ENABLE_EACH_TRY : ENABLE_TOGETHER,
			 err);
}

static int v2_prepare(const struct cgroup *cg, const struct spec_resources *r,
		      bool best_effort, struct cg_names *skipped,
		      struct error **err)
{
	struct v2_ctx x = {.best_effort = best_effort, .leaf_fd = -1};
	struct cg_writer w = {.mode = CG_COLLECT, .ctx = &x};
	struct cg_walk walk = {.descend = enable_controllers,
			       .ctx = &x,
			       .leaf_exists = cg->unit != NULL};
	_cleanup_free_ char *root = cg_hier_root(cg, "");
	_cleanup_free_ char *leaf = root ? cg_join(root, cg->path) : NULL;
	struct cg_names made = {0};
	int rc = -1;

	if (!leaf)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	if (cg_write_limits(&w, v2_limits, ARRAY_SIZE(v2_limits), r,
			    best_effort, NULL, err) < 0)
		goto out;
	x.needed = w.wanted;
	x.leaf = leaf;
	if (cg_make_path(root, cg->path, &walk, &made, &x.leaf_fd, err) < 0 ||
	    cg_read(x.leaf_fd, leaf, "cgroup.controllers", &x.controllers,
		    err) < 0)
		goto out;
	x.controllers[strcspn(x.controllers, "\n")] = '\0';
	cg_names_clear(&w.written);
	w = (struct cg_writer){
	    .mode = CG_WRITE, .target = v2_target, .ctx = &x};
	rc = cg_write_limits(&w, v2_limits, ARRAY_SIZE(v2_limits), r,
			     best_effort, skipped, err);
out:
	if (x.leaf_fd >= 0)
		close(x.leaf_fd);
	if (rc < 0)
		cg_rmdir_all(&made);
	cg_names_clear(&made);
	cg_names_clear(&w.written);
	free(x.controllers);
	return rc;
}

/* ---- update ---------------------------------------------------------- */

/* The leaf, when the controller is enabled for it. */
static int v2_update_target(struct cg_writer *w, enum cg_controller c,
			    const char **dir, struct error **err)
{
	struct cg_update *x = w->ctx;
	const char *name = cg_controller_names[c];

	*dir = x->h.v[0].dir;
	if (c < CG_BLKIO && x->h.v[0].fd >= 0 &&
	    cg_word_in(x->controllers, name))
		return x->h.v[0].fd;
	return error_set(err, EOPNOTSUPP,
			 "cgroup %s: the %s controller is not "
			 "enabled for this cgroup",
			 x->h.v[0].dir, name);
}

static int read_controllers(int fd, const char *dir, char **out,
			    struct error **err)
{
	free(*out);
	*out = NULL;
	if (cg_read(fd, dir, "cgroup.controllers", out, err) < 0)
		return -1;
	(*out)[strcspn(*out, "\n")] = '\0';
	return 0;
}

/* A controller create did not need (no cpu limit then) is not enabled
 * for the leaf; enable it in each parent's subtree_control, from the root
 * down, as create does.  The parents hold no processes, so this is
 * allowed; the leaf stays a leaf.  One a parent lacks is left for
 * v2_update_target() to report. */
static int enable_wanted(struct cg_update *x, unsigned wanted,
			 struct error **err)
{
	_cleanup_free_ char *copy = strdup(x->cg->path);
	_cleanup_free_ char *dir = strdup(x->h.v[0].root);
	_cleanup_close_ int fd = -1;
	char *save = NULL, *comp, *next;

	if (!copy || !dir)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "cgroup %s: open", dir);
	for (comp = strtok_r(copy, "/", &save); comp; comp = next) {
		_cleanup_free_ char *child = cg_join(dir, comp);
		int child_fd;

		next = strtok_r(NULL, "/", &save);
		if (!child)
			return error_set(err, ENOMEM, "cgroup: out of memory");
		if (enable_in(fd, dir, wanted, ENABLE_EACH, err) < 0)
			return -1;
		child_fd = openat(
		    fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child_fd < 0)
			return error_errno(err, "cgroup %s: open", child);
		close(fd);
		fd = child_fd;
		free(dir);
		dir = steal_pointer(&child);
	}
	return read_controllers(fd, dir, &x->controllers, err);
}

static int v2_update(const struct cgroup *cg, const struct spec_resources *r,
		     struct error **err)
{
	struct cg_update x = {.cg = cg};
	int rc = -1;

	if (cg_hiers_open(cg, &x.h, err) < 0)
		goto out;
	if (x.h.v[0].fd < 0) {
		error_errno(err, "cgroup %s: open", x.h.v[0].dir);
		goto out;
	}
	if (read_controllers(x.h.v[0].fd, x.h.v[0].dir, &x.controllers, err) <
	    0)
		goto out;
	rc = cg_update_write(&x, v2_limits, ARRAY_SIZE(v2_limits),
			     v2_update_target, enable_wanted, r, err);
out:
	cg_update_clear(&x);
	return rc;
}

/* ---- the tree -------------------------------------------------------- */

static int v2_hierarchies(const char *mount_root, const char *path,
			  struct cg_hiers *out, struct error **err)
{
	*out = (struct cg_hiers){0};
	out->v = calloc(1, sizeof(*out->v));
	if (!out->v)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	out->n = 1;
	out->v[0] =
	    (struct cg_hier){"", true, cg_join(mount_root, NULL),
			     path ? cg_join(mount_root, path) : NULL, -1};
	if (!out->v[0].root || (path && !out->v[0].dir)) {
		cg_hiers_clear(out);
		return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	return 0;
}

const struct cgroup_backend cgroup_v2_backend = {
    .name = "v2",
    .hierarchies = v2_hierarchies,
    .prepare = v2_prepare,
    .update = v2_update,
    .stats = cg_v2_stats,
    .oom_kills = cg_v2_oom_kills,
};
