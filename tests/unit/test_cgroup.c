/* Unit tests of the cgroup module: cgroup_path_for(), and the v2 and v1
 * backends run whole (prepare, enter, kill, destroy) on fake trees in a
 * temporary directory.  No root needed.
 *
 * The fake kernel (cg_fake_kernel) creates in each new directory the
 * files the kernel would (per controller, so a missing controller means
 * missing files), merges writes to cgroup.subtree_control as the kernel
 * does (and gives children those controllers in their
 * cgroup.controllers), empties a directory before its rmdir, and logs
 * every write as "DIR FILE=VALUE" with DIR relative to the tree: the
 * tests check file names, value formats and their order from that log. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgroup_internal.h"
#include "unit.h"
#include "util.h"

/* ---- the fake kernel ------------------------------------------------- */

static char tree[256];	   /* the fake mount root */
static char wlog[1 << 16]; /* every write, in order */
static bool fake_v2;
static bool no_swap_files;	/* swap accounting off */
static bool no_kill_file;	/* a kernel before cgroup.kill */
static const char *broken_file; /* made a directory: writes fail */

static void put_file(int dirfd, const char *name, const char *content)
{
	int fd;

	if (broken_file && strcmp(name, broken_file) == 0) {
		mkdirat(dirfd, name, 0755);
		return;
	}
	fd =
	    openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, content, strlen(content)) < 0)
		printf("# write %s failed\n", name);
	close(fd);
}

static char *get_file(const char *dir, const char *name)
{
	static char buf[4096];
	char path[1024];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", tree, dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static bool exists(const char *rel)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	return stat(path, &st) == 0;
}

struct fake_files {
	const char *controller; /* v2 controller or v1 hierarchy */
	const char *files[10];
};

static const struct fake_files v2_files[] = {
    {"memory", {"memory.max", "memory.swap.max", "memory.low", "memory.high"}},
    {"pids", {"pids.max"}},
    {"cpu", {"cpu.max", "cpu.weight", "cpu.max.burst", "cpu.idle"}},
    {"cpuset", {"cpuset.cpus", "cpuset.mems"}},
    {"io", {"io.weight", "io.max"}},
    {"hugetlb", {"hugetlb.2MB.max", "hugetlb.1GB.max"}},
};

static const struct fake_files v1_files[] = {
    {"memory",
     {"memory.limit_in_bytes", "memory.memsw.limit_in_bytes",
      "memory.soft_limit_in_bytes", "memory.swappiness", "memory.oom_control"}},
    {"pids", {"pids.max"}},
    {"cpu",
     {"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.cfs_burst_us",
      "cpu.idle", "cpu.rt_period_us", "cpu.rt_runtime_us"}},
    {"cpuset", {"cpuset.cpus", "cpuset.mems"}},
    {"blkio",
     {"blkio.bfq.weight", "blkio.bfq.weight_device",
      "blkio.throttle.read_bps_device", "blkio.throttle.write_iops_device"}},
    {"devices", {"devices.allow", "devices.deny", "devices.list"}},
    {"freezer", {"freezer.state"}},
    {"hugetlb", {"hugetlb.2MB.limit_in_bytes"}},
    {"cpuacct", {"cpuacct.usage"}},
    {"systemd", {"notify_on_release"}},
};

static bool skip_file(const char *f)
{
	return (no_swap_files &&
		(strstr(f, "swap.max") || strstr(f, "memsw"))) ||
	       (no_kill_file && strcmp(f, "cgroup.kill") == 0);
}

static void populate_controller(int fd, const struct fake_files *t, size_t n,
				const char *controller)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(t[i].controller, controller) != 0)
			continue;
		for (const char *const *f = t[i].files; *f; f++)
			if (!skip_file(*f))
				put_file(fd, *f, "");
	}
}

/* v2: a child gets the controllers its parent enabled for children. */
static int populate_v2(int parent_fd, int fd)
{
	char have[256] = "", *save = NULL;
	int pfd = openat(parent_fd, "cgroup.subtree_control", O_RDONLY);
	ssize_t n = pfd < 0 ? -1 : read(pfd, have, sizeof(have) - 1);

	if (pfd >= 0)
		close(pfd);
	have[n < 0 ? 0 : n] = '\0';
	have[strcspn(have, "\n")] = '\0';
	put_file(fd, "cgroup.controllers", have);
	put_file(fd, "cgroup.subtree_control", "");
	put_file(fd, "cgroup.procs", "");
	put_file(fd, "cgroup.freeze", "0");
	put_file(fd, "cgroup.events", "populated 0\nfrozen 0\n");
	if (!skip_file("cgroup.kill"))
		put_file(fd, "cgroup.kill", "");
	for (char *c = strtok_r(have, " ", &save); c;
	     c = strtok_r(NULL, " ", &save))
		populate_controller(fd, v2_files, ARRAY_SIZE(v2_files), c);
	return 0;
}

/* v1: the files of the hierarchy the directory is in. */
static void populate_v1_hier(int fd, const char *hier)
{
	put_file(fd, "cgroup.procs", "");
	if (strcmp(hier, "unified") == 0) {
		put_file(fd, "cgroup.controllers", "");
		put_file(fd, "cgroup.subtree_control", "");
		put_file(fd, "cgroup.freeze", "0");
		put_file(fd, "cgroup.events", "populated 0\nfrozen 0\n");
		if (!skip_file("cgroup.kill"))
			put_file(fd, "cgroup.kill", "");
		return;
	}
	populate_controller(fd, v1_files, ARRAY_SIZE(v1_files), hier);
	if (strcmp(hier, "freezer") == 0)
		put_file(fd, "freezer.state", "THAWED\n");
}

static int populate(int parent_fd, int fd, const char *dir)
{
	char hier[64];

	if (fake_v2)
		return populate_v2(parent_fd, fd);
	snprintf(hier, sizeof(hier), "%s", dir + strlen(tree) + 1);
	hier[strcspn(hier, "/")] = '\0';
	populate_v1_hier(fd, hier);
	return 0;
}

/* rmdir(2) on cgroupfs takes the files with the directory. */
static void depopulate(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0 &&
		    !(broken_file && strcmp(e->d_name, broken_file) == 0)) {
			closedir(d);
			return; /* not empty: rmdir must fail */
		}
	rewinddir(d);
	while ((e = readdir(d))) {
		if (e->d_type == DT_REG)
			unlinkat(dirfd(d), e->d_name, 0);
		else if (e->d_type == DT_DIR && broken_file &&
			 strcmp(e->d_name, broken_file) == 0)
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* cgroup.subtree_control as the kernel shows it: the enabled
 * controllers, kept across writes in a side file (".enabled"). */
static void enable(int fd, const char *value)
{
	char on[256] = "", copy[256], *save = NULL;
	int e = openat(fd, ".enabled", O_RDONLY);
	ssize_t n = e < 0 ? -1 : read(e, on, sizeof(on) - 1);

	if (e >= 0)
		close(e);
	on[n < 0 ? 0 : n] = '\0';
	snprintf(copy, sizeof(copy), "%s", value);
	for (char *w = strtok_r(copy, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		if (w[0] == '+')
			w++;
		if (!cg_word_in(on, w))
			snprintf(on + strlen(on), sizeof(on) - strlen(on),
				 "%s%s", *on ? " " : "", w);
	}
	put_file(fd, ".enabled", on);
	put_file(fd, "cgroup.subtree_control", on);
}

/* Log the write, and act on the few the fake kernel knows. */
static void wrote(const char *dir, const char *file, const char *value)
{
	const char *rel = strcmp(dir, tree) == 0 ? "." : dir + strlen(tree) + 1;
	size_t len = strlen(wlog);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	snprintf(wlog + len, sizeof(wlog) - len, "%s %s=%s\n", rel, file,
		 value);
	if (strcmp(file, "cgroup.subtree_control") == 0)
		enable(fd, value);
	if (strcmp(file, "cgroup.freeze") == 0)
		put_file(fd, "cgroup.events",
			 strcmp(value, "1") == 0 ? "populated 0\nfrozen 1\n"
						 : "populated 0\nfrozen 0\n");
	close(fd);
}

/* Set a file of the fake tree, as the kernel or an admin had it. */
static void preset(const char *rel, const char *name, const char *content)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (strcmp(name, "cgroup.subtree_control") == 0)
		enable(fd, content);
	else
		put_file(fd, name, content);
	close(fd);
}

static const struct cg_fake_kernel fake = {populate, depopulate, wrote};

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

static void tree_free(void)
{
	if (tree[0])
		nftw(tree, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	tree[0] = '\0';
	cg_fake_kernel = NULL;
	no_swap_files = no_kill_file = false;
	broken_file = NULL;
}

static void tree_new(bool v2, const char *controllers)
{
	int fd;

	tree_free();
	snprintf(tree, sizeof(tree), "/tmp/corral-cgtest-XXXXXX");
	if (!mkdtemp(tree)) {
		tree[0] = '\0';
		return;
	}
	wlog[0] = '\0';
	fake_v2 = v2;
	cg_fake_kernel = &fake;
	fd = open(tree, O_RDONLY | O_DIRECTORY);
	if (v2) {
		put_file(fd, "cgroup.controllers", controllers);
		put_file(fd, "cgroup.subtree_control", "");
		put_file(fd, "cgroup.procs", "");
	} else {
		static const char *const hiers[] = {
		    "cpuset",  "cpu",	  "cpuacct", "memory",
		    "pids",    "blkio",	  "devices", "freezer",
		    "hugetlb", "systemd", "unified",
		};

		for (size_t i = 0; i < ARRAY_SIZE(hiers); i++) {
			int h;

			if (controllers && !cg_word_in(controllers, hiers[i]))
				continue;
			mkdirat(fd, hiers[i], 0755);
			h = openat(fd, hiers[i], O_RDONLY | O_DIRECTORY);
			populate_v1_hier(h, hiers[i]);
			if (strcmp(hiers[i], "cpuset") == 0) {
				put_file(h, "cpuset.cpus", "0-3\n");
				put_file(h, "cpuset.mems", "0\n");
			}
			close(h);
		}
	}
	close(fd);
}

/* The log after the line `s` at or after `from`; NULL when absent. */
static const char *find_line(const char *from, const char *s)
{
	size_t len = strlen(s);

	for (const char *p = from; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n == len && strncmp(p, s, len) == 0)
			return p + n + (nl != NULL);
		p += n + (nl != NULL);
	}
	return NULL;
}

/* Whether the log has these lines, in this order (others between). */
static bool logged(const char *first, ...)
{
	const char *at = wlog;
	va_list ap;
	bool ok = true;

	va_start(ap, first);
	for (const char *s = first; s && ok; s = va_arg(ap, const char *)) {
		at = find_line(at, s);
		if (!at) {
			printf("# not in the log (in order): %s\n", s);
			ok = false;
		}
	}
	va_end(ap);
	if (!ok)
		printf("# log:\n%s", wlog);
	return ok;
}

static bool no_cgroup_left(const char *name)
{
	static const char *const hiers[] = {
	    "",	     "cpuset",	"cpu",	   "cpuacct", "memory",	 "pids",
	    "blkio", "devices", "freezer", "hugetlb", "systemd", "unified"};
	char rel[256];
	bool ok = true;

	for (size_t i = 0; i < ARRAY_SIZE(hiers); i++) {
		snprintf(rel, sizeof(rel), "%s%s%s", hiers[i],
			 *hiers[i] ? "/" : "", name);
		if (exists(rel)) {
			printf("# left behind: %s\n", rel);
			ok = false;
		}
	}
	return ok;
}

static bool has(char **list, const char *s)
{
	for (; list && *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

static bool msg_has(struct error *e, const char *s)
{
	if (e && strstr(e->msg, s))
		return true;
	printf("# error \"%s\" lacks \"%s\"\n", e ? e->msg : "(none)", s);
	return false;
}

/* ---- cgroup_path_for ------------------------------------------------- */

static void check_path(const char *cgroups_path, const char *id,
		       const char *want)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *out = NULL;
	int r = cgroup_path_for(cgroups_path, id, &out, &e);

	if (want) {
		CHECK(r == 0);
		CHECK_STR(out, want);
	} else {
		CHECK(r < 0 && e && e->code == EINVAL && !out);
		if (r == 0)
			printf("# \"%s\" gave \"%s\"\n", cgroups_path, out);
	}
}

TEST(path_for_default_and_relative)
{
	check_path(NULL, "ct1", "corral/ct1");
	check_path("", "ct1", "corral/ct1");
	check_path("a/b", "x", "corral/a/b");
	check_path("a//b/", "x", "corral/a/b");
	check_path("a/../b", "x", NULL);
	check_path("..", "x", NULL);
	check_path("./a", "x", NULL);
	check_path(NULL, "..", NULL);
	check_path(NULL, "a/b", NULL);
	check_path(NULL, "", NULL);
}

TEST(path_for_absolute)
{
	check_path("/a/b", "x", "/a/b");
	check_path("//a///b//", "x", "/a/b");
	check_path("/kubepods/pod1/ctr", "x", "/kubepods/pod1/ctr");
	check_path("/", "x", NULL);
	check_path("///", "x", NULL);
	check_path("/a/../../etc", "x", NULL);
	check_path("/a/.", "x", NULL);
}

TEST(path_for_systemd)
{
	check_path("machine.slice:libpod:ID", "x",
		   "machine.slice/libpod-ID.scope");
	check_path("a-b.slice:x:y", "z", "a.slice/a-b.slice/x-y.scope");
	check_path("kubepods-besteffort-pod1.slice:cri-containerd:abc", "z",
		   "kubepods.slice/kubepods-besteffort.slice/"
		   "kubepods-besteffort-pod1.slice/cri-containerd-abc.scope");
	check_path(":p:n", "z", "system.slice/p-n.scope");
	check_path("-.slice:p:n", "z", "p-n.scope");
	check_path("user.slice::n", "z", "user.slice/n.scope");
	check_path("machine.slice:p", "z", NULL);
	check_path("machine.slice:p:n:m", "z", NULL);
	check_path("machine.slice:p:../n", "z", NULL);
	check_path("machine.slice:p:..", "z", NULL);
	check_path("machine.slice:p:", "z", NULL);
	check_path("machine.slice:a/b:n", "z", NULL);
	check_path("machine:p:n", "z", NULL);
	check_path("a--b.slice:p:n", "z", NULL);
	check_path("-a.slice:p:n", "z", NULL);
	check_path("a-.slice:p:n", "z", NULL);
	check_path("../a.slice:p:n", "z", NULL);
	check_path(".slice:p:n", "z", NULL);
}

/* ---- detection ------------------------------------------------------- */

TEST(detect_layouts)
{
	_cleanup_error_ struct error *e = NULL;
	enum cgroup_layout l = CGROUP_V1;
	struct stat st;

	tree_new(true, "memory pids");
	CHECK(cgroup_detect(tree, &l, &e) == 0 && l == CGROUP_V2);
	tree_new(false, NULL);
	CHECK(cgroup_detect(tree, &l, &e) == 0 && l == CGROUP_V1);
	tree_new(false, "nothing");
	CHECK(cgroup_detect(tree, &l, &e) < 0 && msg_has(e, "no cgroup"));
	error_free(e);
	e = NULL;
	CHECK(cgroup_detect("/nonexistent", &l, &e) < 0 && e->code == ENOENT);
	tree_free();
	if (stat("/sys/fs/cgroup/cgroup.procs", &st) == 0 ||
	    stat("/sys/fs/cgroup/memory/cgroup.procs", &st) == 0) {
		error_free(e);
		e = NULL;
		CHECK(cgroup_detect("/sys/fs/cgroup", &l, &e) == 0);
	}
}

/* ---- v2 -------------------------------------------------------------- */

#define ALL_V2 "cpuset cpu io memory hugetlb pids"

struct res_bufs {
	struct spec_resources r;
	struct spec_memory m;
	struct spec_cpu c;
	struct spec_block_io b;
	struct spec_hugepage_limit h[2];
	struct spec_kv u[2];
	struct spec_device_rule d[4];
};

#define SET(x) ((struct spec_opt){true, (x)})

/* Every kind of limit, with values whose formats differ per layout. */
static void full_resources(struct res_bufs *x)
{
	*x = (struct res_bufs){0};
	x->m.limit = SET(256 << 20);
	x->m.swap = SET(256 << 20);
	x->m.reservation = SET(64 << 20);
	x->c.quota = SET(50000);
	x->c.period = SET(100000);
	x->c.shares = SET(1024);
	x->c.cpus = (char *)"0-1";
	x->c.mems = (char *)"0";
	x->b.weight = SET(500);
	x->h[0] = (struct spec_hugepage_limit){(char *)"2MB", 4 << 20};
	x->r.memory = &x->m;
	x->r.cpu = &x->c;
	x->r.block_io = &x->b;
	x->r.pids_limit = SET(100);
	x->r.hugepage_limits = x->h;
	x->r.n_hugepage_limits = 1;
}

static int prepare(const char *path, const struct spec_resources *r,
		   bool best_effort, struct cgroup **cg, char ***skipped,
		   struct error **err)
{
	return cgroup_prepare(tree, path, r, best_effort, cg, skipped, err);
}

TEST(v2_writes_every_limit)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(true, ALL_V2);
	full_resources(&x);
	x.u[0] = (struct spec_kv){(char *)"memory.high", (char *)"200M"};
	x.r.unified = x.u;
	x.r.n_unified = 1;
	CHECK(prepare("corral/ct1", &x.r, false, &cg, &skipped, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(cg && cg->layout == CGROUP_V2);
	CHECK(skipped && !skipped[0]);
	CHECK(logged(
	    ". cgroup.subtree_control=+cpuset +cpu +io +memory "
	    "+hugetlb +pids",
	    "corral cgroup.subtree_control=+cpuset +cpu +io +memory "
	    "+hugetlb +pids",
	    "corral/ct1 memory.max=268435456", "corral/ct1 memory.swap.max=0",
	    "corral/ct1 memory.low=67108864", "corral/ct1 pids.max=100",
	    "corral/ct1 cpu.max=50000 100000", "corral/ct1 cpu.weight=39",
	    "corral/ct1 cpuset.cpus=0-1", "corral/ct1 cpuset.mems=0",
	    "corral/ct1 io.weight=default 4950",
	    "corral/ct1 hugetlb.2MB.max=4194304", "corral/ct1 memory.high=200M",
	    NULL));
	/* the container's cgroup stays a leaf */
	CHECK(!strstr(wlog, "corral/ct1 cgroup.subtree_control"));
	CHECK_STR(get_file("corral/ct1", "memory.max"), "268435456");
	CHECK_STR(get_file("corral", "cgroup.subtree_control"),
		  "cpuset cpu io memory hugetlb pids");

	CHECK(cg && cgroup_enter(cg, 4242, &e) == 0);
	CHECK_STR(get_file("corral/ct1", "cgroup.procs"), "4242");
	preset("corral/ct1", "cgroup.procs", ""); /* never kill a real 4242 */
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("corral/ct1 cgroup.kill=1", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	CHECK(exists("cgroup.procs"));
	cgroup_free(cg);
	tree_free();
}

TEST(v2_unlimited_and_defaults)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};

	tree_new(true, ALL_V2);
	x.m.limit = SET(-1);
	x.m.swap = SET(-1);
	x.m.reservation = SET(-1);
	x.c.quota = SET(-1);
	x.c.shares = SET(2);
	x.r.memory = &x.m;
	x.r.cpu = &x.c;
	x.r.pids_limit = SET(-1);
	CHECK(prepare("/a", &x.r, false, &cg, NULL, &e) == 0);
	CHECK(logged("a memory.max=max", "a memory.swap.max=max",
		     "a memory.low=max", "a pids.max=max",
		     "a cpu.max=max 100000", "a cpu.weight=1", NULL));
	CHECK(!strstr(wlog, "cpuset"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	cg = NULL;

	/* pids 0 is no limit too; a quota alone gets the default period;
	 * the largest shares map to the largest weight */
	wlog[0] = '\0';
	x = (struct res_bufs){0};
	x.c.quota = SET(20000);
	x.c.shares = SET(262144);
	x.r.cpu = &x.c;
	x.r.pids_limit = SET(0);
	CHECK(prepare("/b", &x.r, false, &cg, NULL, &e) == 0);
	CHECK(logged("b pids.max=max", "b cpu.max=20000 100000",
		     "b cpu.weight=10000", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

TEST(v2_enables_only_what_is_missing)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};

	tree_new(true, ALL_V2);
	preset(".", "cgroup.subtree_control", "memory");
	x.r.pids_limit = SET(10);
	x.m.limit = SET(1 << 20);
	x.r.memory = &x.m;
	CHECK(prepare("/pod/ct", &x.r, false, &cg, NULL, &e) == 0);
	CHECK(logged(". cgroup.subtree_control=+pids",
		     "pod cgroup.subtree_control=+memory +pids",
		     "pod/ct memory.max=1048576", "pod/ct pids.max=10", NULL));
	/* "pod" is not corral's to remove */
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(!exists("pod/ct") && exists("pod"));
	cgroup_free(cg);
	tree_free();
}

TEST(v2_missing_controller_fails_closed)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(true, "cpuset cpu io memory pids");
	full_resources(&x);
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(!cg && !skipped);
	CHECK(msg_has(e, "the hugetlb controller is not available"));
	CHECK(no_cgroup_left("corral"));

	error_free(e);
	e = NULL;
	wlog[0] = '\0';
	CHECK(prepare("corral/ct", &x.r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.hugepageLimits"));
	CHECK(skipped && skipped[0] && !skipped[1]);
	CHECK(logged("corral/ct memory.max=268435456",
		     "corral/ct io.weight=default 4950", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	tree_free();
}

TEST(v2_device_rules_are_not_implemented)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};

	tree_new(true, ALL_V2);
	x.d[0] = (struct spec_device_rule){.allow = false, .type = 'a'};
	x.r.devices = x.d;
	x.r.n_devices = 1;
	x.r.pids_limit = SET(5);
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "device rules need a cgroup BPF program on cgroup "
			 "v2: not implemented"));
	CHECK(no_cgroup_left("corral"));
	CHECK(!strstr(wlog, "pids.max")); /* refused before any mkdir */
	error_free(e);
	e = NULL;
	CHECK(prepare("corral/ct", &x.r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.devices"));
	CHECK(logged("corral/ct pids.max=5", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

TEST(v2_swap_without_accounting)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(true, ALL_V2);
	no_swap_files = true;
	full_resources(&x);
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "memory.swap.max is absent"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;
	CHECK(prepare("corral/ct", &x.r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.memory.swap"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

/* Wrong requests fail whatever best_effort says, before any mkdir. */
static void check_invalid(struct res_bufs *x, const char *why)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;

	CHECK(prepare("corral/ct", &x->r, true, &cg, NULL, &e) < 0);
	CHECK(!cg && e && e->code == EINVAL && msg_has(e, why));
	CHECK(no_cgroup_left("corral"));
}

TEST(v2_invalid_requests)
{
	struct res_bufs x;

	tree_new(true, ALL_V2);
	full_resources(&x);
	x.m.swap = SET(1 << 20);
	check_invalid(&x, "below the memory limit");
	full_resources(&x);
	x.m.limit = SET(0);
	check_invalid(&x, "needs a memory limit");
	full_resources(&x);
	x.m.limit = SET(-5);
	check_invalid(&x, "memory.limit: -5 is not a size");
	full_resources(&x);
	x.c.cpus = (char *)"0-1\n2";
	check_invalid(&x, "cpu.cpus");
	full_resources(&x);
	x.h[0].page_size = (char *)"../2MB";
	check_invalid(&x, "page size");
	full_resources(&x);
	x.b.weight = SET(5000);
	check_invalid(&x, "outside 10..1000");
	full_resources(&x);
	x.u[0] = (struct spec_kv){(char *)"cgroup.procs", (char *)"1"};
	x.r.unified = x.u;
	x.r.n_unified = 1;
	check_invalid(&x, "only a controller's own files");
	x.u[0] = (struct spec_kv){(char *)"memory.max", (char *)"max"};
	check_invalid(&x, "memory.max is already written");
	x.u[0] = (struct spec_kv){(char *)"pids.max", (char *)"max"};
	check_invalid(&x, "pids.max is already written");
	x.u[0] = (struct spec_kv){(char *)"memory/../x", (char *)"1"};
	check_invalid(&x, "only a controller's own files");
	x.u[0] = (struct spec_kv){(char *)"memory.", (char *)"1"};
	check_invalid(&x, "only a controller's own files");
	tree_free();
}

TEST(v2_existing_leaf_and_bad_paths)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	char dir[512];

	tree_new(true, ALL_V2);
	snprintf(dir, sizeof(dir), "%s/taken", tree);
	mkdir(dir, 0755);
	CHECK(prepare("/taken", NULL, false, &cg, NULL, &e) < 0);
	CHECK(e && e->code == EEXIST && exists("taken"));
	error_free(e);
	e = NULL;
	CHECK(prepare("/", NULL, false, &cg, NULL, &e) < 0 && !cg);
	error_free(e);
	e = NULL;
	CHECK(prepare("a/../../b", NULL, false, &cg, NULL, &e) < 0 && !cg);
	error_free(e);
	e = NULL;
	CHECK(cgroup_open(tree, "", &cg, &e) < 0 && !cg);
	tree_free();
}

TEST(v2_kill_without_cgroup_kill_freezes)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;

	tree_new(true, ALL_V2);
	no_kill_file = true;
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("corral/ct cgroup.freeze=1", "corral/ct cgroup.freeze=0",
		     NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

TEST(open_kill_destroy_of_a_gone_cgroup)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;

	tree_new(true, ALL_V2);
	CHECK(cgroup_open(tree, "corral/gone", &cg, &e) == 0);
	CHECK(cg && cg->layout == CGROUP_V2);
	CHECK_STR(cg ? cg->path : NULL, "corral/gone");
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(cg && cgroup_enter(cg, 1, &e) < 0 && e->code == ENOENT);
	cgroup_free(cg);
	tree_free();
}

/* ---- v1 -------------------------------------------------------------- */

TEST(v1_writes_every_limit_in_order)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(false, NULL);
	full_resources(&x);
	x.m.swappiness = SET(10);
	x.c.cpus = (char *)"1";
	x.d[0] = (struct spec_device_rule){.allow = false, .type = 'a'};
	x.d[1] = (struct spec_device_rule){.allow = true,
					   .type = 'c',
					   .major = SET(1),
					   .minor = SET(3),
					   .access = (char *)"rwm"};
	x.d[2] = (struct spec_device_rule){
	    .allow = true, .type = 'b', .access = (char *)"m"};
	x.d[3] = (struct spec_device_rule){.allow = true,
					   .type = 'a',
					   .major = SET(136),
					   .access = (char *)"rw"};
	x.r.devices = x.d;
	x.r.n_devices = 4;
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(cg && cg->layout == CGROUP_V1);
	CHECK(skipped && !skipped[0]);
	/* a new cpuset gets its parent's cpus and mems, level by level */
	CHECK(logged("cpuset/corral cpuset.cpus=0-3",
		     "cpuset/corral cpuset.mems=0",
		     "cpuset/corral/ct cpuset.cpus=0-3",
		     "cpuset/corral/ct cpuset.mems=0", NULL));
	CHECK(logged("memory/corral/ct memory.limit_in_bytes=268435456",
		     "memory/corral/ct memory.memsw.limit_in_bytes=268435456",
		     "memory/corral/ct memory.soft_limit_in_bytes=67108864",
		     "memory/corral/ct memory.swappiness=10",
		     "pids/corral/ct pids.max=100",
		     "cpu/corral/ct cpu.cfs_period_us=100000",
		     "cpu/corral/ct cpu.cfs_quota_us=50000",
		     "cpu/corral/ct cpu.shares=1024",
		     "cpuset/corral/ct cpuset.cpus=1",
		     "cpuset/corral/ct cpuset.mems=0",
		     "blkio/corral/ct blkio.bfq.weight=500",
		     "hugetlb/corral/ct hugetlb.2MB.limit_in_bytes=4194304",
		     "devices/corral/ct devices.deny=a",
		     "devices/corral/ct devices.deny=a",
		     "devices/corral/ct devices.allow=c 1:3 rwm",
		     "devices/corral/ct devices.allow=b *:* m",
		     "devices/corral/ct devices.allow=c 136:* rw",
		     "devices/corral/ct devices.allow=b 136:* rw", NULL));
	for (const char *h = "cpuset cpu cpuacct memory pids blkio devices "
			     "freezer hugetlb systemd unified";
	     *h;) {
		char rel[64];
		size_t n = strcspn(h, " ");

		snprintf(rel, sizeof(rel), "%.*s/corral/ct", (int)n, h);
		CHECK(exists(rel));
		h += n + (h[n] == ' ');
	}

	CHECK(cg && cgroup_enter(cg, 77, &e) == 0);
	CHECK_STR(get_file("freezer/corral/ct", "cgroup.procs"), "77");
	CHECK_STR(get_file("unified/corral/ct", "cgroup.procs"), "77");
	CHECK_STR(get_file("systemd/corral/ct", "cgroup.procs"), "77");
	/* nothing listed: never kill a real pid 77 */
	for (const char *h = "cpuset cpu cpuacct memory pids blkio devices "
			     "freezer hugetlb systemd unified";
	     *h;) {
		char rel[64];
		size_t n = strcspn(h, " ");

		snprintf(rel, sizeof(rel), "%.*s/corral/ct", (int)n, h);
		preset(rel, "cgroup.procs", "");
		h += n + (h[n] == ' ');
	}
	wlog[0] = '\0';
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("unified/corral/ct cgroup.kill=1", NULL));
	CHECK(!strstr(wlog, "freezer.state"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	tree_free();
}

TEST(v1_unlimited_values)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};

	tree_new(false, NULL);
	x.m.limit = SET(-1);
	x.m.swap = SET(-1);
	x.c.quota = SET(-1);
	x.r.memory = &x.m;
	x.r.cpu = &x.c;
	x.r.pids_limit = SET(-1);
	CHECK(prepare("/ct", &x.r, false, &cg, NULL, &e) == 0);
	CHECK(logged("memory/ct memory.limit_in_bytes=-1",
		     "memory/ct memory.memsw.limit_in_bytes=-1",
		     "pids/ct pids.max=max", "cpu/ct cpu.cfs_quota_us=-1",
		     NULL));
	CHECK(!strstr(wlog, "cfs_period_us"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("ct"));
	cgroup_free(cg);
	tree_free();
}

/* Without cgroup.kill, v1 freezes, kills what is listed and thaws. */
TEST(v1_kill_freezes_then_thaws)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;

	tree_new(false, NULL);
	no_kill_file = true;
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("freezer/corral/ct freezer.state=FROZEN",
		     "freezer/corral/ct freezer.state=THAWED", NULL));
	CHECK(!strstr(wlog, "cgroup.kill"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	tree_free();
}

TEST(v1_cannot_enforce_no_swap)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(false, NULL);
	no_swap_files = true;
	full_resources(&x);
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "memory.memsw.limit_in_bytes is absent"));
	CHECK(msg_has(e, "cannot enforce no-swap"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;
	CHECK(prepare("corral/ct", &x.r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.memory.swap"));
	CHECK(skipped && skipped[0] && !skipped[1]);
	CHECK(logged("memory/corral/ct memory.limit_in_bytes=268435456", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

TEST(v1_missing_hierarchy_and_unified)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(false, "cpuset cpu memory pids devices freezer systemd");
	full_resources(&x);
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "no blkio hierarchy is mounted"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;
	x.u[0] = (struct spec_kv){(char *)"memory.high", (char *)"1M"};
	x.r.unified = x.u;
	x.r.n_unified = 1;
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "unified: needs cgroup v2"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;
	CHECK(prepare("corral/ct", &x.r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.blockIO.weight"));
	CHECK(has(skipped, ".linux.resources.hugepageLimits"));
	CHECK(has(skipped, ".linux.resources.unified"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	tree_free();
}

TEST(v1_failed_write_leaves_nothing)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(false, NULL);
	broken_file = "pids.max";
	full_resources(&x);
	CHECK(prepare("corral/a/ct", &x.r, false, &cg, NULL, &e) < 0);
	CHECK(msg_has(e, "/pids/corral/a/ct: write pids.max: Is a "
			 "directory"));
	CHECK(no_cgroup_left("corral"));
	tree_free();
}

TEST(v1_parents_of_other_containers_stay)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *a = NULL, *b = NULL;

	tree_new(false, NULL);
	CHECK(prepare("corral/a", NULL, false, &a, NULL, &e) == 0);
	CHECK(prepare("corral/b", NULL, false, &b, NULL, &e) == 0);
	CHECK(a && cgroup_destroy(a, &e) == 0);
	CHECK(!exists("memory/corral/a") && exists("memory/corral/b"));
	CHECK(b && cgroup_destroy(b, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(a);
	cgroup_free(b);
	tree_free();
}

int main(void)
{
	return unit_run();
}
