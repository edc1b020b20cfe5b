/* The cgroup v1 backend (cgroup_backend.h): one mount per controller (or per
 * group of co-mounted ones, reached through their symlinks), plus name=systemd
 * and, on hybrid hosts, a cgroup2 at "unified".  The container's directory is
 * made in each of them, so that every process of the container can be found,
 * frozen and killed through any of them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "util.h"

/* Every v1 controller, name=systemd and a hybrid host's cgroup2: the
 * container has a cgroup of its own in each that is mounted, so that
 * none of its cgroup namespace's roots is the host's (runtime/fs/mount.c
 * mounts no other in the container's /sys/fs/cgroup).  cpuset first: a
 * task cannot join a cpuset without cpus and mems. */
static const char *const hierarchies[] = {
    "cpuset",  "cpu",	  "cpuacct", "memory",	"pids",	    "blkio",
    "devices", "freezer", "hugetlb", "net_cls", "net_prio", "perf_event",
    "rdma",    "misc",	  "systemd", "unified",
};
_Static_assert(ARRAY_SIZE(hierarchies) <= CGROUP_V1_MAX,
	       "struct cgroup_v1_roots holds every hierarchy");

/* Which of `hierarchies` are mounted below mount_root, co-mounted ones
 * once: scanned once per process and mount root (create lists them three
 * times, delete four), as mounts do not change under a running corral. */
struct v1_scan {
	char *mount_root;
	size_t n;
	unsigned char index[ARRAY_SIZE(hierarchies)];
	bool cgroup2[ARRAY_SIZE(hierarchies)];
	struct stat root[ARRAY_SIZE(hierarchies)]; /* each one's root */
	/* per entry of `hierarchies`: 1 + the one listed that it is (itself,
	 * or the one it is co-mounted with), 0 when not mounted */
	unsigned char listed[ARRAY_SIZE(hierarchies)];
};

/* Whether DIR/FILE exists; a path too long for the buffer does not. */
static bool has_file(const char *dir, const char *file)
{
	char path[PATH_MAX];
	struct stat st;

	return snprintf(path, sizeof(path), "%s/%s", dir, file) <
		   (int)sizeof(path) &&
	       fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int v1_scan(const char *mount_root, struct v1_scan *out,
		   struct error **err)
{
	struct stat *seen = out->root;

	free(out->mount_root);
	*out = (struct v1_scan){0};
	for (size_t i = 0; i < ARRAY_SIZE(hierarchies); i++) {
		_cleanup_free_ char *root = cg_join(mount_root, hierarchies[i]);
		size_t dup = out->n;

		if (!root)
			return error_set(err, ENOMEM, "cgroup: out of memory");
		/* a link is followed: "cpu" and "cpuacct" are often links to
		 * "cpu,cpuacct" */
		if (stat(root, &seen[out->n]) < 0 ||
		    !S_ISDIR(seen[out->n].st_mode) ||
		    !has_file(root, "cgroup.procs"))
			continue;
		for (size_t j = 0; j < out->n && dup == out->n; j++)
			if (seen[j].st_dev == seen[out->n].st_dev &&
			    seen[j].st_ino == seen[out->n].st_ino)
				dup = j;
		out->listed[i] = (unsigned char)(dup + 1);
		if (dup < out->n)
			continue;
		out->index[out->n] = (unsigned char)i;
		out->cgroup2[out->n] = has_file(root, "cgroup.controllers");
		out->n++;
	}
	out->mount_root = strdup(mount_root);
	if (!out->mount_root)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	return 0;
}

static struct v1_scan scan;

/* The scan of mount_root, made once per process and mount root. */
static const struct v1_scan *v1_scanned(const char *mount_root,
					struct error **err)
{
	if ((!scan.mount_root || strcmp(scan.mount_root, mount_root) != 0) &&
	    v1_scan(mount_root, &scan, err) < 0)
		return NULL;
	return &scan;
}

/* The name the scan lists controller NAME's hierarchy under ("net_cls"
 * for "net_prio" when the two are co-mounted), or NULL. */
static const char *v1_listed_as(const char *mount_root, const char *name)
{
	_cleanup_error_ struct error *e = NULL;
	const struct v1_scan *sc = v1_scanned(mount_root, &e);

	for (size_t i = 0; sc && i < ARRAY_SIZE(hierarchies); i++)
		if (strcmp(hierarchies[i], name) == 0 && sc->listed[i])
			return hierarchies[sc->index[sc->listed[i] - 1]];
	return NULL;
}

int cgroup_v1_joined(const struct cgroup *cg, struct cgroup_v1_roots *out,
		     struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct v1_scan *sc;

	out->n = 0;
	if (cg_hierarchies(cg, false, &h, err) < 0 ||
	    !(sc = v1_scanned(cg->mount_root, err)))
		return -1;
	for (size_t i = 0; i < h.n; i++)
		for (size_t j = 0; j < sc->n; j++)
			if (strcmp(hierarchies[sc->index[j]], h.v[i].name) ==
			    0) {
				out->dev[out->n] = sc->root[j].st_dev;
				out->ino[out->n++] = sc->root[j].st_ino;
			}
	return 0;
}

bool cgroup_v1_joins(const struct cgroup_v1_roots *roots, int dirfd,
		     const char *dir)
{
	struct stat st;

	if (strchr(dir, '/') ||
	    fstatat(dirfd, dir, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode))
		return false;
	for (size_t i = 0; i < roots->n; i++)
		if (roots->dev[i] == st.st_dev && roots->ino[i] == st.st_ino)
			return true;
	return false;
}

static int v1_hierarchies(const char *mount_root, const char *path,
			  struct cg_hiers *out, struct error **err)
{
	*out = (struct cg_hiers){0};
	if (!v1_scanned(mount_root, err))
		return -1;
	out->v = calloc(ARRAY_SIZE(hierarchies), sizeof(*out->v));
	if (!out->v)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	for (size_t i = 0; i < scan.n; i++) {
		const char *name = hierarchies[scan.index[i]];
		struct cg_hier *h = &out->v[out->n++];

		*h = (struct cg_hier){name, scan.cgroup2[i],
				      cg_join(mount_root, name), NULL, -1};
		if (!h->root || (path && !(h->dir = cg_join(h->root, path)))) {
			cg_hiers_clear(out);
			return error_set(err, ENOMEM, "cgroup: out of memory");
		}
	}
	return 0;
}

/* ---- the rows -------------------------------------------------------- */

static int memory_limit(struct cg_writer *w, const struct spec_resources *r,
			struct error **err)
{
	struct cg_memory m;

	if (cg_memory_values(r, &m, w, err) < 0)
		return -1;
	return m.limit
		   ? cg_put_num(w, "memory.limit_in_bytes", m.limit, "-1", err)
		   : 0;
}

/* After memory_limit: memsw may not be below the memory limit. */
static int memory_swap(struct cg_writer *w, const struct spec_resources *r,
		       struct error **err)
{
	static const char memsw[] = "memory.memsw.limit_in_bytes";
	struct cg_memory m;

	if (cg_memory_values(r, &m, w, err) < 0)
		return -1;
	if (!m.swap)
		return 0;
	if (!cg_has(w, memsw))
		return cg_cannot(w, err,
				 "%s: %s is absent (swap accounting is off): "
				 "cannot enforce %s",
				 w->row->name, memsw,
				 m.swap == m.limit ? "no-swap"
						   : "the swap limit");
	return cg_put_num(w, memsw, m.swap, "-1", err);
}

static int memory_soft(struct cg_writer *w, const struct spec_resources *r,
		       struct error **err)
{
	struct cg_memory m;

	if (cg_memory_values(r, &m, w, err) < 0)
		return -1;
	return m.reservation ? cg_put_num(w, "memory.soft_limit_in_bytes",
					  m.reservation, "-1", err)
			     : 0;
}

/* -1 is what engines send for "not set". */
static int memory_swappiness(struct cg_writer *w,
			     const struct spec_resources *r, struct error **err)
{
	const struct spec_memory *m = r->memory;

	if (!m || !m->swappiness.set || m->swappiness.v == -1)
		return 0;
	if (m->swappiness.v < 0 || m->swappiness.v > 100)
		return cg_invalid(w, err, "%s: %lld is outside 0..100",
				  w->row->name, (long long)m->swappiness.v);
	return cg_put(w, "memory.swappiness", err, "%lld",
		      (long long)m->swappiness.v);
}

static int memory_oom_killer(struct cg_writer *w,
			     const struct spec_resources *r, struct error **err)
{
	if (!r->memory || !r->memory->disable_oom_killer)
		return 0;
	return cg_put(w, "memory.oom_control", err, "1");
}

static int cpu_shares(struct cg_writer *w, const struct spec_resources *r,
		      struct error **err)
{
	if (!r->cpu || !r->cpu->shares.set || r->cpu->shares.v == 0)
		return 0;
	if (r->cpu->shares.v < 0)
		return cg_invalid(w, err, "%s: negative", w->row->name);
	return cg_put(w, "cpu.shares", err, "%lld",
		      (long long)r->cpu->shares.v);
}

/* The period first: the kernel checks the quota against it. */
static int cpu_quota(struct cg_writer *w, const struct spec_resources *r,
		     struct error **err)
{
	const struct spec_cpu *c = r->cpu;

	if (!c)
		return 0;
	if (c->period.set && c->period.v < 0)
		return cg_invalid(w, err,
				  ".linux.resources.cpu.period: %lld "
				  "is negative",
				  (long long)c->period.v);
	if (c->period.set && c->period.v > 0 &&
	    cg_put(w, "cpu.cfs_period_us", err, "%lld",
		   (long long)c->period.v) < 0)
		return -1;
	if (!c->quota.set || c->quota.v == 0)
		return 0;
	return cg_put_num(w, "cpu.cfs_quota_us", c->quota.v, "-1", err);
}

static int cpu_burst(struct cg_writer *w, const struct spec_resources *r,
		     struct error **err)
{
	if (!r->cpu || !r->cpu->burst.set)
		return 0;
	if (r->cpu->burst.v < 0)
		return cg_invalid(w, err, "%s: negative", w->row->name);
	return cg_put(w, "cpu.cfs_burst_us", err, "%lld",
		      (long long)r->cpu->burst.v);
}

static int cpu_realtime(struct cg_writer *w, const struct spec_resources *r,
			struct error **err)
{
	const struct spec_cpu *c = r->cpu;

	if (c && c->realtime_period.set && c->realtime_period.v &&
	    cg_put(w, "cpu.rt_period_us", err, "%lld",
		   (long long)c->realtime_period.v) < 0)
		return -1;
	if (c && c->realtime_runtime.set && c->realtime_runtime.v)
		return cg_put(w, "cpu.rt_runtime_us", err, "%lld",
			      (long long)c->realtime_runtime.v);
	return 0;
}

/* blkio.weight with CFQ, blkio.bfq.weight with BFQ (the same range). */
static int put_weight(struct cg_writer *w, const char *file, const char *bfq,
		      const char *key, int64_t weight, struct error **err)
{
	const char *sep = key ? " " : "";

	if (weight < 10 || weight > 1000)
		return cg_invalid(w, err, "%s: weight %lld is outside 10..1000",
				  w->row->name, (long long)weight);
	if (!key)
		key = "";
	if (cg_has(w, file))
		return cg_put(w, file, err, "%s%s%lld", key, sep,
			      (long long)weight);
	if (cg_has(w, bfq))
		return cg_put(w, bfq, err, "%s%s%lld", key, sep,
			      (long long)weight);
	return cg_cannot(w, err,
			 "%s: neither %s nor %s exists (no I/O scheduler with "
			 "weights)",
			 w->row->name, file, bfq);
}

static int blkio_weight(struct cg_writer *w, const struct spec_resources *r,
			struct error **err)
{
	const struct spec_block_io *b = r->block_io;

	if (!b || !b->weight.set || b->weight.v == 0)
		return 0;
	return put_weight(w, "blkio.weight", "blkio.bfq.weight", NULL,
			  b->weight.v, err);
}

static int blkio_weight_devices(struct cg_writer *w,
				const struct spec_resources *r,
				struct error **err)
{
	const struct spec_block_io *b = r->block_io;

	for (size_t i = 0; b && i < b->n_weight_devices; i++) {
		const struct spec_weight_device *d = &b->weight_devices[i];
		char key[48];

		if (!d->weight.set)
			continue;
		snprintf(key, sizeof(key), "%lld:%lld", (long long)d->major,
			 (long long)d->minor);
		if (put_weight(w, "blkio.weight_device",
			       "blkio.bfq.weight_device", key, d->weight.v,
			       err) < 0)
			return -1;
	}
	return 0;
}

static int blkio_throttle(struct cg_writer *w, const struct spec_resources *r,
			  struct error **err)
{
	static const char *const files[4] = {
	    [THROTTLE_READ_BPS] = "blkio.throttle.read_bps_device",
	    [THROTTLE_WRITE_BPS] = "blkio.throttle.write_bps_device",
	    [THROTTLE_READ_IOPS] = "blkio.throttle.read_iops_device",
	    [THROTTLE_WRITE_IOPS] = "blkio.throttle.write_iops_device",
	};
	const struct spec_block_io *b = r->block_io;

	for (int k = 0; b && k < 4; k++) {
		for (size_t i = 0; i < b->n_throttle[k]; i++) {
			const struct spec_throttle_device *t =
			    &b->throttle[k][i];

			if (cg_put(w, files[k], err, "%lld:%lld %llu",
				   (long long)t->major, (long long)t->minor,
				   (unsigned long long)t->rate) < 0)
				return -1;
		}
	}
	return 0;
}

static int hugetlb_limit(struct cg_writer *w, const struct spec_resources *r,
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
		snprintf(file, sizeof(file), "hugetlb.%s.limit_in_bytes",
			 h->page_size);
		if (cg_put(w, file, err, "%llu", (unsigned long long)h->limit) <
		    0)
			return -1;
	}
	return 0;
}

static int net_class(struct cg_writer *w, const struct spec_resources *r,
		     struct error **err)
{
	if (!r->network || !r->network->class_id.set)
		return 0;
	return cg_put(w, "net_cls.classid", err, "%lld",
		      (long long)r->network->class_id.v);
}

/* One write per interface: the kernel takes one "NAME PRIO" a write.  The
 * parser checked each name as the kernel does (no space, no newline). */
static int net_priorities(struct cg_writer *w, const struct spec_resources *r,
			  struct error **err)
{
	const struct spec_network *n = r->network;

	for (size_t i = 0; n && i < n->n_priorities; i++)
		if (cg_put(w, "net_prio.ifpriomap", err, "%s %u",
			   n->priorities[i].name,
			   n->priorities[i].priority) < 0)
			return -1;
	return 0;
}

static int unified(struct cg_writer *w, const struct spec_resources *r,
		   struct error **err)
{
	if (r->n_unified == 0)
		return 0;
	return cg_cannot(w, err,
			 "%s: needs cgroup v2 (the controllers here "
			 "are on cgroup v1)",
			 w->row->name);
}

/* One rule as devices.allow/deny takes it: "c 1:3 rwm", '*' for an
 * absent number.  The kernel reads any line starting with 'a' as "every
 * device, rwm", so a type 'a' rule that is narrower than that is written
 * as the same rule for 'c' and for 'b' instead of being widened. */
static int device_rule(struct cg_writer *w, const struct spec_device_rule *d,
		       struct error **err)
{
	const char *file = d->allow ? "devices.allow" : "devices.deny";
	const char *access = d->access ? d->access : "rwm";
	char type = d->type ? d->type : 'a';
	char major[24] = "*", minor[24] = "*";
	bool all_access;

	if (!*access || strspn(access, "rwm") != strlen(access) ||
	    !strchr("acb", type) || (d->major.set && d->major.v < 0) ||
	    (d->minor.set && d->minor.v < 0))
		return cg_invalid(w, err,
				  "%s: rule \"%c %s\": expected type "
				  "a, b or c and access in \"rwm\"",
				  w->row->name, type, access);
	all_access =
	    strchr(access, 'r') && strchr(access, 'w') && strchr(access, 'm');
	if (type == 'a' && all_access && !d->major.set && !d->minor.set)
		return cg_put(w, file, err, "a");
	if (d->major.set)
		snprintf(major, sizeof(major), "%lld", (long long)d->major.v);
	if (d->minor.set)
		snprintf(minor, sizeof(minor), "%lld", (long long)d->minor.v);
	for (const char *t = type == 'a'   ? "cb"
			     : type == 'b' ? "b"
					   : "c";
	     *t; t++)
		if (cg_put(w, file, err, "%c %s:%s %s", *t, major, minor,
			   access) < 0)
			return -1;
	return 0;
}

/* Deny everything, then the rules in order: the last matching rule
 * wins, as runtime-spec says. */
static int devices(struct cg_writer *w, const struct spec_resources *r,
		   struct error **err)
{
	if (r->n_devices == 0)
		return 0;
	if (cg_put(w, "devices.deny", err, "a") < 0)
		return -1;
	for (size_t i = 0; i < r->n_devices; i++)
		if (device_rule(w, &r->devices[i], err) < 0)
			return -1;
	return 0;
}

/* The memory limit and memsw rows come first: update swaps them. */
enum { V1_ROW_MEMORY_LIMIT, V1_ROW_MEMORY_SWAP };
static const struct cg_limit v1_limits[] = {
    [V1_ROW_MEMORY_LIMIT] = {".linux.resources.memory.limit", memory_limit},
    [V1_ROW_MEMORY_SWAP] = {".linux.resources.memory.swap", memory_swap},
    {".linux.resources.memory.reservation", memory_soft},
    {".linux.resources.memory.swappiness", memory_swappiness},
    {".linux.resources.memory.disableOOMKiller", memory_oom_killer},
    {".linux.resources.memory.kernel", cg_row_kernel_memory},
    {".linux.resources.pids.limit", cg_row_pids},
    {".linux.resources.cpu.quota", cpu_quota},
    {".linux.resources.cpu.burst", cpu_burst},
    {".linux.resources.cpu.shares", cpu_shares},
    {".linux.resources.cpu.idle", cg_row_cpu_idle},
    {".linux.resources.cpu.realtimeRuntime", cpu_realtime},
    {".linux.resources.cpu.cpus", cg_row_cpus},
    {".linux.resources.cpu.mems", cg_row_mems},
    {".linux.resources.blockIO.weight", blkio_weight},
    {".linux.resources.blockIO.leafWeight", cg_row_leaf_weight},
    {".linux.resources.blockIO.weightDevice", blkio_weight_devices},
    {".linux.resources.blockIO.throttle", blkio_throttle},
    {".linux.resources.hugepageLimits", hugetlb_limit},
    {".linux.resources.devices", devices},
    {".linux.resources.network.classID", net_class},
    {".linux.resources.network.priorities", net_priorities},
    {".linux.resources.unified", unified},
};

/* ---- making the directories ------------------------------------------ */

/* A controller's files are in the hierarchy of its name, or the one it is
 * mounted with (at create every one listed is made and open; at update
 * one may be gone). */
static int v1_target(struct cg_writer *w, enum cg_controller c,
		     const char **dir, struct error **err)
{
	const struct cg_update *x = w->ctx;
	const char *name = cg_controller_names[c];
	const char *as = v1_listed_as(x->cg->mount_root, name);
	const struct cg_hier *h = NULL;

	*dir = NULL;
	for (size_t i = 0; i < x->h.n && as && !h; i++)
		if (strcmp(x->h.v[i].name, as) == 0)
			h = &x->h.v[i];
	if (h) {
		*dir = h->dir;
		if (h->fd >= 0)
			return h->fd;
		return error_errno(err, "cgroup %s: open", h->dir);
	}
	if (x->cg->bases.n)
		return error_set(err, EOPNOTSUPP,
				 "cgroup: the %s hierarchy is not delegated "
				 "(the caller's cgroup there is not its own)",
				 name);
	return error_set(err, EOPNOTSUPP,
			 "cgroup: no %s hierarchy is mounted at %s/%s", name,
			 x->cg->mount_root, name);
}

/* A new cpuset cgroup has no cpus and no mems, and no task can join it
 * until it has: give it its parent's (which the kernel copied already
 * when the parent has cgroup.clone_children: the same values). */
static int cpuset_inherit(void *ctx, int parent_fd, const char *parent, int fd,
			  const char *dir, struct error **err)
{
	static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *theirs = NULL;

		if (cg_read(parent_fd, parent, files[i], &theirs, err) < 0)
			return -1;
		theirs[strcspn(theirs, "\n")] = '\0';
		if (cg_write(fd, dir, files[i], theirs, err) < 0)
			return -1;
	}
	return 0;
}

static int v1_prepare(const struct cgroup *cg, const struct spec_resources *r,
		      bool best_effort, struct cg_names *skipped,
		      struct error **err)
{
	struct cg_update x = {.cg = cg};
	struct cg_writer w = {.mode = CG_COLLECT, .ctx = &x};
	struct cg_names made = {0};
	int rc = -1;

	if (cg_write_limits(&w, v1_limits, ARRAY_SIZE(v1_limits), r,
			    best_effort, NULL, err) < 0 ||
	    cg_hierarchies(cg, true, &x.h, err) < 0)
		goto out;
	for (size_t i = 0; i < x.h.n; i++) {
		struct cg_walk walk = {.leaf_exists = cg->unit != NULL};

		if (x.h.v[i].cgroup2 && cg->cgroup2_made) {
			x.h.v[i].fd =
			    open(x.h.v[i].dir, O_RDONLY | O_DIRECTORY |
						   O_NOFOLLOW | O_CLOEXEC);
			if (x.h.v[i].fd < 0) {
				error_errno(err, "cgroup %s: open",
					    x.h.v[i].dir);
				goto out;
			}
			continue;
		}
		if (strcmp(x.h.v[i].name, "cpuset") == 0)
			walk.made = cpuset_inherit;
		if (cg_make_path(x.h.v[i].root, cg->path, &walk, &made,
				 &x.h.v[i].fd, err) < 0)
			goto out;
	}
	cg_names_clear(&w.written);
	w = (struct cg_writer){
	    .mode = CG_WRITE, .target = v1_target, .ctx = &x};
	rc = cg_write_limits(&w, v1_limits, ARRAY_SIZE(v1_limits), r,
			     best_effort, skipped, err);
out:
	cg_update_clear(&x);
	if (rc < 0)
		cg_rmdir_all(&made);
	cg_names_clear(&made);
	cg_names_clear(&w.written);
	return rc;
}

/* ---- update ---------------------------------------------------------- */

/* v1 refuses a memory limit above memsw and a memsw below the memory
 * limit: when memsw grows it goes first, as runc orders it. */
static bool memsw_grows(struct cg_update *x, const struct spec_resources *r)
{
	struct cg_writer w = {.mode = CG_WRITE, .target = v1_target, .ctx = x};
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *now = NULL;
	const char *dir;
	long long cur;
	char *end;
	int fd;

	if (!r->memory || !r->memory->swap.set || r->memory->swap.v == 0)
		return false;
	if (r->memory->swap.v < 0)
		return true;
	fd = v1_target(&w, CG_MEMORY, &dir, &e);
	if (fd < 0 ||
	    cg_read(fd, dir, "memory.memsw.limit_in_bytes", &now, &e) < 0)
		return false;
	errno = 0;
	cur = strtoll(now, &end, 10);
	return errno == 0 && end != now && r->memory->swap.v > cur;
}

/* The rows at create, memory limit and memsw swapped when memsw grows. */
static int v1_update(const struct cgroup *cg, const struct spec_resources *r,
		     struct error **err)
{
	struct cg_update x = {.cg = cg};
	struct cg_limit rows[ARRAY_SIZE(v1_limits)];
	int rc = -1;

	memcpy(rows, v1_limits, sizeof(rows));
	if (cg_hiers_open(cg, &x.h, err) == 0) {
		if (memsw_grows(&x, r)) {
			rows[V1_ROW_MEMORY_LIMIT] =
			    v1_limits[V1_ROW_MEMORY_SWAP];
			rows[V1_ROW_MEMORY_SWAP] =
			    v1_limits[V1_ROW_MEMORY_LIMIT];
		}
		rc = cg_update_write(&x, rows, ARRAY_SIZE(rows), v1_target,
				     NULL, r, err);
	}
	cg_update_clear(&x);
	return rc;
}

const struct cgroup_backend cgroup_v1_backend = {
    .name = "v1",
    .hierarchies = v1_hierarchies,
    .prepare = v1_prepare,
    .update = v1_update,
    .stats = cg_v1_stats,
    .oom_kills = cg_v1_oom_kills,
};
