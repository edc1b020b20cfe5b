/* Unit tests of the cgroup module: cgroup_path_for(), and the v2 and v1
 * backends run whole (prepare, enter, kill, destroy) on fake trees in a
 * temporary directory.  No root needed.
 *
 * The fake kernel (cg_fake_kernel) creates in each new directory the
 * files the kernel would (per controller, so a missing controller means
 * missing files), merges writes to cgroup.subtree_control as the kernel
 * does (and gives children those controllers in their
 * cgroup.controllers), empties a directory before its rmdir, empties
 * cgroup.procs once the cgroup is killed or thawed, and logs
 * every write as "DIR FILE=VALUE" with DIR relative to the tree: the
 * tests check file names, value formats and their order from that log. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

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

/* Controllers enabled in a parent that already has children appear in
 * each child's cgroup.controllers, with their files (v2 only: `update`
 * enables what create did not need). */
static void give_children(int fd, const char *on)
{
	int dfd = fake_v2 ? openat(fd, ".", O_RDONLY | O_DIRECTORY) : -1;
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char have[256] = "", copy[256], *save = NULL;
		int c = e->d_type == DT_DIR && e->d_name[0] != '.'
			    ? openat(fd, e->d_name, O_RDONLY | O_DIRECTORY)
			    : -1;
		int f = c < 0 ? -1 : openat(c, "cgroup.controllers", O_RDONLY);
		ssize_t n = f < 0 ? -1 : read(f, have, sizeof(have) - 1);

		if (f >= 0)
			close(f);
		if (n < 0) {
			if (c >= 0)
				close(c);
			continue;
		}
		have[n] = '\0';
		have[strcspn(have, "\n")] = '\0';
		snprintf(copy, sizeof(copy), "%s", on);
		for (char *w = strtok_r(copy, " ", &save); w;
		     w = strtok_r(NULL, " ", &save)) {
			if (cg_word_in(have, w))
				continue;
			snprintf(have + strlen(have),
				 sizeof(have) - strlen(have), "%s%s",
				 *have ? " " : "", w);
			populate_controller(c, v2_files, ARRAY_SIZE(v2_files),
					    w);
		}
		put_file(c, "cgroup.controllers", have);
		close(c);
	}
	if (d)
		closedir(d);
	else if (dfd >= 0)
		close(dfd);
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
	give_children(fd, on);
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
	/* the killed are gone: at once, or once thawed */
	if (strcmp(file, "cgroup.kill") == 0 ||
	    (strcmp(file, "cgroup.freeze") == 0 && strcmp(value, "0") == 0) ||
	    (strcmp(file, "freezer.state") == 0 &&
	     strcmp(value, "THAWED") == 0))
		put_file(fd, "cgroup.procs", "");
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

static const struct cg_fake_kernel fake = {populate, depopulate, wrote, NULL};

/* A sleeping child of the test's, listed in the cgroup.procs of `rel`:
 * a cgroup in use, which cgroup_kill goes all the way for (an empty one
 * it leaves at once). */
static pid_t listed_sleeper(const char *rel)
{
	char pid[24];
	pid_t p = fork();

	if (p == 0) {
		/* gone with the test, should it crash before reaping it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d\n", (int)p);
	preset(rel, "cgroup.procs", pid);
	return p;
}

/* Reap the sleeper, which a SIGKILL of cgroup_kill's ends within a
 * second; true when one did.  Else it is killed here. */
static bool sleeper_killed(pid_t p)
{
	int status = 0;
	pid_t r = 0;

	for (int i = 0; i < 200; i++) {
		r = waitpid(p, &status, WNOHANG);
		if (r != 0)
			break;
		usleep(5000);
	}
	if (r != p) {
		kill(p, SIGKILL);
		waitpid(p, &status, 0);
		return false;
	}
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/* Stop a sleeper that the fake kernel's cgroup.kill left alive. */
static void sleeper_stop(pid_t p)
{
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

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

/* Whether the fake tree's directory REL holds a subdirectory. */
static bool has_subdir(const char *rel)
{
	char path[1024];
	struct stat st;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	d = opendir(path);
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		char sub[2048];

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		found = stat(sub, &st) == 0 && S_ISDIR(st.st_mode);
	}
	if (d)
		closedir(d);
	return found;
}

/* Nothing of a container is left: NAME is gone in every hierarchy, but
 * "corral" itself (the parent corral keeps, as runc does) may stay as
 * long as it holds no container. */
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
		if (exists(rel) &&
		    (strcmp(name, "corral") != 0 || has_subdir(rel))) {
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
	pid_t sleeper;

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
	sleeper = listed_sleeper("corral/ct1"); /* never kill a real 4242 */
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("corral/ct1 cgroup.kill=1", NULL));
	sleeper_stop(sleeper); /* the fake cgroup.kill kills nothing */
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

/* ---- device rules on v2: the BPF program ----------------------------- */

/* The programs are run here by a small interpreter of the opcodes
 * cgroup_devices.c emits, which also refuses what the kernel's verifier
 * would: an unknown opcode, a register read before it is written, a
 * context read other than a u32 field, a jump backwards or out of the
 * program, falling off its end, and an instruction no path reaches. */

struct program {
	struct bpf_insn *v;
	size_t n;
};

static void program_free(struct program *pg)
{
	free(pg->v);
	*pg = (struct program){0};
}

static bool all_reachable(const struct bpf_insn *p, size_t n)
{
	bool seen[BPF_MAXINSNS] = {true};

	if (n == 0 || n > BPF_MAXINSNS)
		return false;
	for (size_t pc = 0; pc < n; pc++) {
		if (!seen[pc]) {
			printf("# instruction %zu is unreachable\n", pc);
			return false;
		}
		if (p[pc].code == (BPF_JMP | BPF_EXIT))
			continue;
		if (BPF_CLASS(p[pc].code) == BPF_JMP) {
			if (p[pc].off < 0 || pc + 1 + (size_t)p[pc].off >= n)
				return false;
			seen[pc + 1 + (size_t)p[pc].off] = true;
		}
		if (pc + 1 >= n)
			return false; /* falls off the end */
		seen[pc + 1] = true;
	}
	return true;
}

/* 1 allow, 0 deny, -1: a program the kernel would refuse. */
static int interpret(const struct bpf_insn *p, size_t n,
		     const struct bpf_cgroup_dev_ctx *ctx)
{
	uint64_t r[MAX_BPF_REG] = {0};
	bool set[MAX_BPF_REG] = {[BPF_REG_1] = true};
	bool ctx_in_r1 = true;

	for (size_t pc = 0; pc < n; pc++) {
		const struct bpf_insn *i = &p[pc];
		uint8_t d = i->dst_reg, s = i->src_reg;
		uint64_t k = (uint64_t)(int64_t)i->imm;
		bool jump = false;
		uint32_t v;

		if (d >= BPF_REG_10 || s >= BPF_REG_10)
			return -1;
		if (BPF_SRC(i->code) == BPF_X &&
		    BPF_CLASS(i->code) != BPF_LDX && !set[s])
			return -1;
		switch (i->code) {
		case BPF_LDX | BPF_MEM | BPF_W:
			if (s != BPF_REG_1 || !ctx_in_r1 || i->off < 0 ||
			    i->off > 8 || i->off % 4)
				return -1;
			memcpy(&v, (const char *)ctx + i->off, sizeof(v));
			r[d] = v;
			break;
		case BPF_ALU64 | BPF_MOV | BPF_X:
			r[d] = r[s];
			break;
		case BPF_ALU64 | BPF_MOV | BPF_K:
			r[d] = k;
			break;
		case BPF_ALU | BPF_MOV | BPF_K:
			r[d] = (uint32_t)i->imm;
			break;
		case BPF_ALU64 | BPF_AND | BPF_K:
		case BPF_ALU64 | BPF_RSH | BPF_K:
			if (!set[d] || (BPF_OP(i->code) == BPF_RSH && k > 63))
				return -1;
			r[d] =
			    BPF_OP(i->code) == BPF_AND ? r[d] & k : r[d] >> k;
			break;
		case BPF_JMP | BPF_JNE | BPF_K:
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JNE | BPF_X:
			if (!set[d] || i->off < 0 ||
			    pc + 1 + (size_t)i->off >= n)
				return -1;
			if (BPF_SRC(i->code) == BPF_X)
				k = r[s];
			jump =
			    BPF_OP(i->code) == BPF_JEQ ? r[d] == k : r[d] != k;
			pc += jump ? (size_t)i->off : 0;
			continue;
		case BPF_JMP | BPF_EXIT:
			return set[0] && r[0] <= 1 ? (int)r[0] : -1;
		default:
			return -1;
		}
		set[d] = true;
		ctx_in_r1 &= d != BPF_REG_1;
	}
	return -1; /* fell off the end */
}

#define ANY (-1)

static struct spec_device_rule rule(bool allow, char type, int64_t major,
				    int64_t minor, const char *access)
{
	struct spec_device_rule d = {
	    .allow = allow, .type = type, .access = (char *)access};

	if (major != ANY)
		d.major = SET(major);
	if (minor != ANY)
		d.minor = SET(minor);
	return d;
}

/* Build the program for rules; false (and a diagnostic) when it fails or
 * has an unreachable instruction. */
static bool build(struct program *pg, const struct spec_device_rule *rules,
		  size_t n)
{
	_cleanup_error_ struct error *e = NULL;

	program_free(pg);
	if (cg_devices_program(rules, n, &pg->v, &pg->n, &e) < 0) {
		printf("# %s\n", e ? e->msg : "failed");
		return false;
	}
	return all_reachable(pg->v, pg->n);
}

/* The verdict on a request written "c 1:3 rw". */
static int verdict(const struct program *pg, const char *request)
{
	static const char acc[] = {
	    ['r'] = BPF_DEVCG_ACC_READ,
	    ['w'] = BPF_DEVCG_ACC_WRITE,
	    ['m'] = BPF_DEVCG_ACC_MKNOD,
	};
	struct bpf_cgroup_dev_ctx ctx = {0};
	unsigned major, minor, type;
	char t, access[4];

	if (sscanf(request, "%c %u:%u %3s", &t, &major, &minor, access) != 4)
		return -2;
	type = t == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
	for (const char *a = access; *a; a++)
		ctx.access_type |= (uint32_t)acc[(unsigned char)*a] << 16;
	ctx.access_type |= type;
	ctx.major = major;
	ctx.minor = minor;
	return interpret(pg->v, pg->n, &ctx);
}

#define ALLOWS(pg, req) CHECK(verdict(pg, req) == 1)
#define DENIES(pg, req) CHECK(verdict(pg, req) == 0)

/* corral's default: deny everything, then the usual character devices. */
static size_t default_rules(struct spec_device_rule *d)
{
	static const int64_t nodes[][2] = {{1, 3}, {1, 5}, {1, 7}, {1, 8},
					   {1, 9}, {5, 0}, {5, 1}, {5, 2}};
	size_t n = 0;

	d[n++] = rule(false, 'a', ANY, ANY, "rwm");
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++)
		d[n++] = rule(true, 'c', nodes[i][0], nodes[i][1], "rwm");
	d[n++] = rule(true, 'c', 136, ANY, "rwm");
	return n;
}

TEST(devices_program_default_corral_set)
{
	struct spec_device_rule d[16];
	struct program pg = {0};
	size_t n = default_rules(d);

	CHECK(build(&pg, d, n));
	for (const char *const *q =
		 (const char *const[]){
		     "c 1:3 rwm", "c 1:3 r", "c 1:3 w", "c 1:3 m", "c 1:5 rw",
		     "c 1:7 rw", "c 1:8 r", "c 1:9 r", "c 5:0 rw", "c 5:1 rw",
		     "c 5:2 rw", "c 136:0 rw", "c 136:1048575 rwm", NULL};
	     *q; q++)
		ALLOWS(&pg, *q);
	for (const char *const *q =
		 (const char *const[]){
		     "c 1:1 r", "c 1:4 r", "c 1:11 w", "c 5:3 rw", "c 4:0 rw",
		     "c 10:200 rw", "c 135:0 r", "c 137:0 r", "b 1:3 r",
		     "b 7:0 rw", "b 136:0 r", "c 0:0 m", NULL};
	     *q; q++)
		DENIES(&pg, *q);
	/* the first rule, "deny a", matches everything: it ends the
	 * program (a "return 0" after it could never run) */
	CHECK(pg.n >= 2 &&
	      pg.v[pg.n - 2].code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
	      pg.v[pg.n - 2].imm == 0);
	program_free(&pg);
}

TEST(devices_program_wildcards)
{
	struct spec_device_rule d[2] = {rule(true, 'c', ANY, 3, "rw"),
					rule(true, 'b', ANY, ANY, "m")};
	struct program pg = {0};

	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "c 1:3 r");
	ALLOWS(&pg, "c 99:3 rw");
	ALLOWS(&pg, "c 4095:3 w");
	DENIES(&pg, "c 99:4 r");
	DENIES(&pg, "b 99:3 r");
	DENIES(&pg, "c 1:3 m");
	ALLOWS(&pg, "b 8:0 m");
	ALLOWS(&pg, "b 259:17 m");
	DENIES(&pg, "b 8:0 r");
	DENIES(&pg, "c 8:0 m");

	/* numbers are u32: above INT32_MAX too, with no sign extension */
	d[0] = rule(true, 'c', 4294967295LL, 2147483648LL, "r");
	CHECK(build(&pg, d, 1));
	ALLOWS(&pg, "c 4294967295:2147483648 r");
	DENIES(&pg, "c 2147483647:2147483648 r");
	DENIES(&pg, "c 4294967295:0 r");

	/* an empty list denies everything */
	CHECK(build(&pg, d, 0));
	DENIES(&pg, "c 1:3 r");
	program_free(&pg);
}

TEST(devices_program_block_and_char)
{
	struct spec_device_rule d[2] = {rule(true, 'b', 8, 0, "rwm")};
	struct program pg = {0};

	CHECK(build(&pg, d, 1));
	ALLOWS(&pg, "b 8:0 rw");
	DENIES(&pg, "c 8:0 rw");
	DENIES(&pg, "b 8:1 rw");
	/* 'a' (and an absent type) is both kinds */
	d[0] = rule(true, 'a', 8, 0, "rwm");
	d[1] = rule(true, 0, 1, 3, NULL);
	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "b 8:0 rw");
	ALLOWS(&pg, "c 8:0 rw");
	DENIES(&pg, "b 8:1 r");
	ALLOWS(&pg, "b 1:3 rwm");
	ALLOWS(&pg, "c 1:3 rwm");
	program_free(&pg);
}

TEST(devices_program_partial_access)
{
	struct spec_device_rule d[2] = {rule(true, 'c', 1, 3, "r")};
	struct program pg = {0};

	CHECK(build(&pg, d, 1));
	ALLOWS(&pg, "c 1:3 r");
	DENIES(&pg, "c 1:3 rw");
	DENIES(&pg, "c 1:3 w");
	DENIES(&pg, "c 1:3 m");
	/* access granted by two rules is not merged: each request must
	 * fit in one (stricter than v1, never looser) */
	d[0] = rule(true, 'c', 1, 3, "rm");
	d[1] = rule(true, 'c', 1, 3, "w");
	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "c 1:3 r");
	ALLOWS(&pg, "c 1:3 rm");
	ALLOWS(&pg, "c 1:3 w");
	DENIES(&pg, "c 1:3 rw");
	program_free(&pg);
}

TEST(devices_program_last_match_wins)
{
	struct spec_device_rule d[4] = {
	    rule(true, 'c', 1, ANY, "rwm"),
	    rule(false, 'c', 1, 5, "rwm"),
	    rule(true, 'c', 1, 5, "r"),
	};
	struct program pg = {0};

	CHECK(build(&pg, d, 3));
	ALLOWS(&pg, "c 1:3 rw");
	ALLOWS(&pg, "c 1:5 r");	 /* the last rule */
	DENIES(&pg, "c 1:5 rw"); /* not within the last: the deny */
	DENIES(&pg, "c 1:5 m");
	/* the same rules the other way round */
	d[0] = rule(true, 'c', 1, 5, "r");
	d[1] = rule(false, 'c', 1, 5, "rwm");
	d[2] = rule(true, 'c', 1, ANY, "rwm");
	CHECK(build(&pg, d, 3));
	ALLOWS(&pg, "c 1:5 rw");
	ALLOWS(&pg, "c 1:5 m");
	/* a catch-all ends the program: nothing before it counts */
	d[0] = rule(false, 'c', 1, 3, "rwm");
	d[1] = rule(true, 'a', ANY, ANY, "rwm");
	CHECK(build(&pg, d, 2));
	CHECK(pg.n == 6 + 2);
	ALLOWS(&pg, "c 1:3 rw");
	ALLOWS(&pg, "b 7:0 m");
	d[2] = rule(false, 'a', ANY, ANY, "rwm");
	CHECK(build(&pg, d, 3));
	DENIES(&pg, "c 1:3 r");
	program_free(&pg);
}

/* A deny rule matches when any access it names is asked, so an open for
 * rw is refused by "deny w", as v1 takes w out of the allowed entry. */
TEST(devices_program_deny_refuses_any_named_access)
{
	struct spec_device_rule d[2] = {rule(true, 'c', 1, ANY, "rwm"),
					rule(false, 'c', 1, 7, "w")};
	struct program pg = {0};

	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "c 1:7 r");
	ALLOWS(&pg, "c 1:7 m");
	DENIES(&pg, "c 1:7 w");
	DENIES(&pg, "c 1:7 rw");
	DENIES(&pg, "c 1:7 rwm");
	ALLOWS(&pg, "c 1:8 rw");
	program_free(&pg);
}

TEST(devices_program_refuses_bad_rules)
{
	static const struct {
		struct spec_device_rule d;
		const char *msg;
	} bad[] = {
	    {{.allow = true, .type = 'x'}, "devices[1]: rule \"x rwm\": "},
	    {{.allow = true, .type = 'c', .access = (char *)""}, "rule"},
	    {{.allow = true, .type = 'c', .access = (char *)"rwx"}, "rule"},
	    {{.allow = true, .type = 'u'}, "expected type a, b or c"},
	    {{.allow = true, .type = 'c', .major = {true, -1}},
	     "0..4294967295"},
	    {{.allow = false, .minor = {true, 4294967296LL}},
	     "major and minor"},
	};
	struct spec_device_rule d[2] = {rule(true, 'c', 1, 3, "rwm")};
	struct spec_device_rule *many;
	struct bpf_insn *prog = (struct bpf_insn *)&d; /* must be reset */
	size_t len = 99;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_error_ struct error *e = NULL;

		d[1] = bad[i].d;
		CHECK(cg_devices_program(d, 2, &prog, &len, &e) < 0);
		CHECK(e && e->code == EINVAL && msg_has(e, bad[i].msg));
		CHECK(!prog && len == 0);
	}
	/* a list too long for one program is refused, one that fits not */
	many = calloc(409, sizeof(*many));
	for (size_t i = 0; many && i < 409; i++)
		many[i] = rule(true, 'c', (int64_t)i, 1, "r");
	if (many) {
		_cleanup_error_ struct error *e = NULL;

		CHECK(cg_devices_program(many, 409, &prog, &len, &e) < 0);
		CHECK(msg_has(e, "409 rules, at most 408"));
		CHECK(cg_devices_program(many, 408, &prog, &len, &e) == 0);
		CHECK(len <= BPF_MAXINSNS && all_reachable(prog, len));
		free(prog);
	}
	free(many);
}

/* ---- device rules on v2: loading and attaching ------------------------ */

/* bpf(2) as the fake kernel sees it. */
static struct {
	int loads, attaches;
	int load_errno, attach_errno; /* fail with these */
	const char *log;	      /* the verifier's, on a failed load */
	struct program prog;	      /* what was loaded */
	uint32_t prog_type, attach_type, attach_flags;
	char license[16];
	int prog_fd;
	ino_t target; /* the directory attached to */
} fbpf;

static long fake_bpf(int cmd, void *attr_, unsigned size)
{
	union bpf_attr *a = attr_;
	struct stat st;

	if (size != sizeof(*a))
		return errno = E2BIG, -1;
	if (cmd == BPF_PROG_LOAD) {
		fbpf.loads++;
		if (fbpf.load_errno) {
			if (a->log_level && a->log_buf && fbpf.log)
				snprintf((char *)(uintptr_t)a->log_buf,
					 a->log_size, "%s", fbpf.log);
			return errno = fbpf.load_errno, -1;
		}
		program_free(&fbpf.prog);
		fbpf.prog.v = calloc(a->insn_cnt, sizeof(struct bpf_insn));
		if (!fbpf.prog.v)
			return errno = ENOMEM, -1;
		memcpy(fbpf.prog.v, (void *)(uintptr_t)a->insns,
		       a->insn_cnt * sizeof(struct bpf_insn));
		fbpf.prog.n = a->insn_cnt;
		fbpf.prog_type = a->prog_type;
		snprintf(fbpf.license, sizeof(fbpf.license), "%s",
			 (const char *)(uintptr_t)a->license);
		fbpf.prog_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return fbpf.prog_fd;
	}
	if (cmd != BPF_PROG_ATTACH)
		return errno = EINVAL, -1;
	fbpf.attaches++;
	if (fbpf.attach_errno)
		return errno = fbpf.attach_errno, -1;
	if ((int)a->attach_bpf_fd != fbpf.prog_fd ||
	    fstat((int)a->target_fd, &st) < 0 || !S_ISDIR(st.st_mode))
		return errno = EBADF, -1;
	fbpf.target = st.st_ino;
	fbpf.attach_type = a->attach_type;
	fbpf.attach_flags = a->attach_flags;
	return 0;
}

static const struct cg_fake_kernel fake_with_bpf = {populate, depopulate, wrote,
						    fake_bpf};

static void fbpf_reset(void)
{
	program_free(&fbpf.prog);
	fbpf = (__typeof__(fbpf)){.prog_fd = -1};
	cg_fake_kernel = &fake_with_bpf;
}

TEST(v2_device_rules_attach_a_program)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};
	struct spec_device_rule d[16];
	struct program want = {0};
	char leaf[512];
	struct stat st;

	tree_new(true, ALL_V2);
	fbpf_reset();
	x.r.devices = d;
	x.r.n_devices = default_rules(d);
	x.r.pids_limit = SET(5);
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(skipped && !skipped[0]);
	CHECK(fbpf.loads == 1 && fbpf.attaches == 1);
	CHECK(fbpf.prog_type == BPF_PROG_TYPE_CGROUP_DEVICE);
	CHECK(fbpf.license[0]);
	CHECK(fbpf.attach_type == BPF_CGROUP_DEVICE);
	CHECK(fbpf.attach_flags == BPF_F_ALLOW_MULTI);
	snprintf(leaf, sizeof(leaf), "%s/corral/ct", tree);
	CHECK(stat(leaf, &st) == 0 && st.st_ino == fbpf.target);
	/* the attachment holds the program: corral's fd is closed */
	CHECK(fbpf.prog_fd >= 0 && fcntl(fbpf.prog_fd, F_GETFD) < 0);
	/* what was loaded is the program for the rules */
	CHECK(build(&want, d, x.r.n_devices));
	CHECK(fbpf.prog.n == want.n && want.v &&
	      memcmp(fbpf.prog.v, want.v, want.n * sizeof(*want.v)) == 0);
	ALLOWS(&fbpf.prog, "c 1:3 rw");
	DENIES(&fbpf.prog, "c 1:4 rw");
	CHECK(logged("corral/ct pids.max=5", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	program_free(&want);
	program_free(&fbpf.prog);
	tree_free();
}

TEST(v2_device_rules_fail_closed)
{
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};
	struct error *e = NULL;

	tree_new(true, ALL_V2);
	fbpf_reset();
	x.d[0] = rule(true, 'c', 1, 3, "rwm");
	x.d[1] = rule(true, 'c', 1, 5, "rwz");
	x.r.devices = x.d;
	x.r.n_devices = 2;
	x.r.pids_limit = SET(5);
	/* a wrong rule: refused before any mkdir, best effort or not */
	for (int best_effort = 0; best_effort < 2; best_effort++) {
		CHECK(prepare("corral/ct", &x.r, best_effort, &cg, &skipped,
			      &e) < 0);
		CHECK(msg_has(e, ".linux.resources.devices[1]: rule "
				 "\"c rwz\""));
		CHECK(!exists("corral") && fbpf.loads == 0);
		error_free(e);
		e = NULL;
	}

	/* the verifier refuses: its reason, and nothing is left */
	x.r.n_devices = 1;
	fbpf.load_errno = EACCES;
	fbpf.log = "0: (61) r2 = *(u32 *)(r1 +0)\nR0 !read_ok\n\n";
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "/corral/ct: load the device BPF program: "
			 "Permission denied (verifier: R0 !read_ok)"));
	CHECK(fbpf.loads == 2 && fbpf.attaches == 0);
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;

	/* no log: the cause alone */
	fbpf_reset();
	fbpf.load_errno = EPERM;
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "load the device BPF program: Operation not "
			 "permitted"));
	CHECK(e && !strstr(e->msg, "verifier"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;

	/* attaching fails (a parent's program allows no other) */
	fbpf_reset();
	fbpf.attach_errno = EPERM;
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "/corral/ct: attach the device BPF program: "
			 "Operation not permitted"));
	CHECK(fbpf.prog_fd >= 0 && fcntl(fbpf.prog_fd, F_GETFD) < 0);
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;

	/* best effort: skipped and said so, the rest written */
	CHECK(prepare("corral/ct", &x.r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.devices"));
	CHECK(logged("corral/ct pids.max=5", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	program_free(&fbpf.prog);
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
	pid_t sleeper;

	tree_new(true, ALL_V2);
	no_kill_file = true;
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	sleeper = listed_sleeper("corral/ct");
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("corral/ct cgroup.freeze=1", "corral/ct cgroup.freeze=0",
		     NULL));
	CHECK(sleeper_killed(sleeper));
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
	pid_t sleeper;

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
	sleeper = listed_sleeper("unified/corral/ct");
	wlog[0] = '\0';
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("unified/corral/ct cgroup.kill=1", NULL));
	CHECK(!strstr(wlog, "freezer.state"));
	sleeper_stop(sleeper); /* the fake cgroup.kill kills nothing */
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
	pid_t sleeper;

	tree_new(false, NULL);
	no_kill_file = true;
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	/* nothing in it: nothing to freeze or kill */
	wlog[0] = '\0';
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK_STR(wlog, "");
	sleeper = listed_sleeper("freezer/corral/ct");
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("freezer/corral/ct freezer.state=FROZEN",
		     "freezer/corral/ct freezer.state=THAWED", NULL));
	CHECK(sleeper_killed(sleeper));
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

/* ---- pause, resume, pids, signals (cgroup.c) -------------------------- */

/* Put `pids` in the container's cgroup.procs of hierarchy `hier` ("" on
 * v2) of the fake tree. */
static void procs(const char *hier, const char *path, const char *pids)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s%s%s", hier, *hier ? "/" : "", path);
	preset(rel, "cgroup.procs", pids);
}

TEST(v2_freeze_and_thaw)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	bool frozen = true;

	tree_new(true, ALL_V2);
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && !frozen);
	CHECK(cg && cgroup_freeze(cg, true, &e) == 0);
	CHECK(logged("corral/ct cgroup.freeze=1", NULL));
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && frozen);
	CHECK(cg && cgroup_freeze(cg, false, &e) == 0);
	CHECK(logged("corral/ct cgroup.freeze=1", "corral/ct cgroup.freeze=0",
		     NULL));
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && !frozen);
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	/* gone: not frozen, and nothing to freeze */
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && !frozen);
	CHECK(cg && cgroup_freeze(cg, true, &e) < 0 && msg_has(e, "no freezer"));
	cgroup_free(cg);
	tree_free();
}

/* A hybrid tree has freezer.state and the unified cgroup.freeze: the v1
 * freezer is the one used, for pause as for kill. */
TEST(v1_hybrid_freezes_through_the_v1_freezer)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	bool frozen = true;
	pid_t sleeper;

	tree_new(false, NULL);
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && !frozen);
	CHECK(cg && cgroup_freeze(cg, true, &e) == 0);
	CHECK(logged("freezer/corral/ct freezer.state=FROZEN", NULL));
	CHECK(!strstr(wlog, "cgroup.freeze"));
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && frozen);
	/* FREEZING is paused too: processes are being stopped */
	preset("freezer/corral/ct", "freezer.state", "FREEZING\n");
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && frozen);
	preset("freezer/corral/ct", "freezer.state", "FROZEN\n");
	/* a paused container killed through cgroup.kill is thawed, or its
	 * processes would never die */
	sleeper = listed_sleeper("freezer/corral/ct");
	wlog[0] = '\0';
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(logged("unified/corral/ct cgroup.kill=1",
		     "freezer/corral/ct freezer.state=THAWED", NULL));
	CHECK(sleeper_killed(sleeper));
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && !frozen);
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

/* Without a v1 freezer, the unified tree's cgroup.freeze is used. */
TEST(v1_without_freezer_uses_unified)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	bool frozen = false;

	tree_new(false, "cpu memory pids systemd unified");
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	CHECK(cg && cgroup_freeze(cg, true, &e) == 0);
	CHECK(logged("unified/corral/ct cgroup.freeze=1", NULL));
	CHECK(cg && cgroup_is_frozen(cg, &frozen, &e) == 0 && frozen);
	CHECK(cg && cgroup_freeze(cg, false, &e) == 0);
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

TEST(pids_are_the_union_of_every_hierarchy)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ pid_t *pids = NULL;
	struct cgroup *cg = NULL;
	size_t n = 99;

	tree_new(false, NULL);
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	CHECK(cg && cgroup_pids(cg, &pids, &n, &e) == 0 && n == 0 && !pids);
	procs("memory", "corral/ct", "30\n7\n");
	procs("pids", "corral/ct", "7\n30\n12\n");
	procs("unified", "corral/ct", "30\n");
	CHECK(cg && cgroup_pids(cg, &pids, &n, &e) == 0);
	CHECK(n == 3 && pids && pids[0] == 7 && pids[1] == 12 &&
	      pids[2] == 30);
	free(pids);
	pids = NULL;
	procs("pids", "corral/ct", "7\nx\n");
	CHECK(cg && cgroup_pids(cg, &pids, &n, &e) < 0 &&
	      msg_has(e, "not a pid list"));
	error_free(e);
	e = NULL;
	for (const char *h = "memory pids unified"; *h;) {
		char hier[32];
		size_t l = strcspn(h, " ");

		snprintf(hier, sizeof(hier), "%.*s", (int)l, h);
		procs(hier, "corral/ct", "");
		h += l + (h[l] == ' ');
	}
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(cg && cgroup_pids(cg, &pids, &n, &e) == 0 && n == 0);
	cgroup_free(cg);
	tree_free();
}

/* Real processes listed in a fake tree: each is signalled once, the
 * excepted one not at all. */
TEST(signal_reaches_every_listed_process_once)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	pid_t a, b;
	int sa = 0, sb = 0;
	char list[64];

	tree_new(false, NULL);
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	a = fork();
	if (a == 0) {
		pause();
		_exit(0);
	}
	b = fork();
	if (b == 0) {
		pause();
		_exit(0);
	}
	snprintf(list, sizeof(list), "%d\n%d\n", (int)a, (int)b);
	procs("memory", "corral/ct", list);
	procs("pids", "corral/ct", list);
	CHECK(cg && cgroup_signal(cg, SIGTERM, b, &e) == 0);
	CHECK(waitpid(a, &sa, 0) == a && WIFSIGNALED(sa) &&
	      WTERMSIG(sa) == SIGTERM);
	/* b was spared; now a pid no longer listed is not signalled */
	snprintf(list, sizeof(list), "%d\n", (int)a);
	procs("memory", "corral/ct", list);
	procs("pids", "corral/ct", "");
	CHECK(cg && cgroup_signal(cg, SIGKILL, 0, &e) == 0);
	CHECK(waitpid(b, &sb, WNOHANG) == 0);
	kill(b, SIGKILL);
	CHECK(waitpid(b, &sb, 0) == b && WTERMSIG(sb) == SIGKILL);
	procs("memory", "corral/ct", "");
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

/* ---- update (cgroup_update.c) ----------------------------------------- */

TEST(v2_update_writes_only_what_is_asked)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};

	tree_new(true, ALL_V2);
	x.r.pids_limit = SET(10);
	x.m.limit = SET(64 << 20);
	x.r.memory = &x.m;
	CHECK(prepare("corral/ct", &x.r, false, &cg, NULL, &e) == 0);
	wlog[0] = '\0';
	x = (struct res_bufs){0};
	x.m.limit = SET(32 << 20);
	x.m.swap = SET(32 << 20);
	x.c.quota = SET(20000);
	x.c.period = SET(50000);
	x.r.memory = &x.m;
	x.r.cpu = &x.c;
	CHECK(cg && cgroup_update(cg, &x.r, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	/* cpu was not needed at create: enabled now, down to the leaf's
	 * parent; the leaf stays a leaf */
	CHECK(logged(". cgroup.subtree_control=+cpu",
		     "corral cgroup.subtree_control=+cpu",
		     "corral/ct memory.max=33554432",
		     "corral/ct memory.swap.max=0",
		     "corral/ct cpu.max=20000 50000", NULL));
	CHECK(!strstr(wlog, "pids.max") &&
	      !strstr(wlog, "corral/ct cgroup.subtree_control"));
	CHECK_STR(get_file("corral/ct", "memory.max"), "33554432");
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

TEST(v2_update_fails_closed_before_writing)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};

	tree_new(true, "cpuset cpu io memory");
	CHECK(prepare("corral/ct", NULL, false, &cg, NULL, &e) == 0);
	wlog[0] = '\0';
	/* the host has no pids controller: refused, nothing written */
	x.r.pids_limit = SET(10);
	x.m.limit = SET(1 << 20);
	x.r.memory = &x.m;
	CHECK(cg && cgroup_update(cg, &x.r, &e) < 0 &&
	      msg_has(e, "the pids controller is not enabled"));
	CHECK(!strstr(wlog, "memory.max"));
	wlog[0] = '\0';
	x = (struct res_bufs){0};
	CHECK(wlog[0] == '\0');
	error_free(e);
	e = NULL;
	x.m.swap = SET(1 << 20); /* swap needs a memory limit */
	x.r.memory = &x.m;
	CHECK(cg && cgroup_update(cg, &x.r, &e) < 0 && e->code == EINVAL);
	error_free(e);
	e = NULL;
	x = (struct res_bufs){0};
	x.d[0] = (struct spec_device_rule){.allow = true, .type = 'a'};
	x.r.devices = x.d;
	x.r.n_devices = 1;
	CHECK(cg && cgroup_update(cg, &x.r, &e) < 0 &&
	      msg_has(e, "device rules cannot be updated"));
	CHECK(wlog[0] == '\0');
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

/* v1 wants memory.limit_in_bytes <= memsw: memsw first when it grows,
 * last when it shrinks. */
TEST(v1_update_orders_memory_and_memsw)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};

	tree_new(false, NULL);
	x.m.limit = SET(64 << 20);
	x.m.swap = SET(64 << 20);
	x.r.memory = &x.m;
	CHECK(prepare("corral/ct", &x.r, false, &cg, NULL, &e) == 0);
	preset("memory/corral/ct", "memory.memsw.limit_in_bytes", "67108864\n");
	wlog[0] = '\0';
	x.m.limit = SET(128 << 20);
	x.m.swap = SET(128 << 20);
	CHECK(cg && cgroup_update(cg, &x.r, &e) == 0);
	CHECK(logged("memory/corral/ct memory.memsw.limit_in_bytes=134217728",
		     "memory/corral/ct memory.limit_in_bytes=134217728", NULL));
	preset("memory/corral/ct", "memory.memsw.limit_in_bytes",
	       "134217728\n");
	wlog[0] = '\0';
	x.m.limit = SET(32 << 20);
	x.m.swap = SET(32 << 20);
	x.r.pids_limit = SET(5);
	CHECK(cg && cgroup_update(cg, &x.r, &e) == 0);
	CHECK(logged("memory/corral/ct memory.limit_in_bytes=33554432",
		     "memory/corral/ct memory.memsw.limit_in_bytes=33554432",
		     "pids/corral/ct pids.max=5", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	tree_free();
}

/* ---- statistics (cgroup_stats.c) ---------------------------------------- */

/* Make DIR (relative to the tree, with its parents) and write FILE. */
static void stat_file(const char *dir, const char *file, const char *text)
{
	char path[1024];
	int fd;

	for (char *p = path + snprintf(path, sizeof(path), "%s/", tree);
	     *dir; dir++, p++) {
		*p = *dir;
		p[1] = '\0';
		if (*dir == '/')
			mkdir(path, 0755);
	}
	mkdir(path, 0755);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	put_file(fd, file, text);
	close(fd);
}

/* A number at a JSON path of the emitted stats. */
static bool json_num(yajl_val doc, const char *want, ...)
{
	const char *path[8];
	va_list ap;
	size_t n = 0;
	yajl_val v;

	va_start(ap, want);
	while (n < 7 && (path[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	path[n] = NULL;
	v = yajl_tree_get(doc, path, yajl_t_number);
	if (v && strcmp(YAJL_GET_NUMBER(v), want) == 0)
		return true;
	printf("# %s...: %s, expected %s\n", path[0],
	       v ? YAJL_GET_NUMBER(v) : "(absent)", want);
	return false;
}

static yajl_val stats_json(const char *path, char **text)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup_stats s;
	struct cgroup *cg = NULL;
	char errbuf[128];
	yajl_val doc = NULL;

	*text = NULL;
	if (cgroup_open(tree, path, &cg, &e) < 0 ||
	    cgroup_stats_read(cg, &s, &e) < 0) {
		printf("# %s\n", e ? e->msg : "?");
		cgroup_free(cg);
		return NULL;
	}
	if (cgroup_stats_emit("ct1", &s, text, &e) == 0)
		doc = yajl_tree_parse(*text, errbuf, sizeof(errbuf));
	cgroup_stats_clear(&s);
	cgroup_free(cg);
	return doc;
}

TEST(v1_stats_in_runc_shape)
{
	_cleanup_free_ char *text = NULL;
	const char *type_path[] = {"type", NULL}, *id_path[] = {"id", NULL};
	const char *percpu[] = {"data", "cpu", "usage", "percpu", NULL};
	long hz = sysconf(_SC_CLK_TCK);
	char user_ns[32];
	yajl_val doc, v;

	tree_new(false, "cpu cpuacct memory pids freezer");
	stat_file("cpuacct/ct", "cpuacct.usage", "123456789\n");
	stat_file("cpuacct/ct", "cpuacct.usage_percpu", "100 200 300 \n");
	stat_file("cpuacct/ct", "cpuacct.stat", "user 250\nsystem 50\n");
	stat_file("cpu/ct", "cpu.stat",
		  "nr_periods 10\nnr_throttled 3\nthrottled_time 4000\n");
	stat_file("memory/ct", "memory.usage_in_bytes", "4096\n");
	stat_file("memory/ct", "memory.max_usage_in_bytes", "8192\n");
	stat_file("memory/ct", "memory.limit_in_bytes", "9223372036854771712\n");
	stat_file("memory/ct", "memory.failcnt", "2\n");
	stat_file("memory/ct", "memory.memsw.usage_in_bytes", "5000\n");
	stat_file("memory/ct", "memory.memsw.limit_in_bytes", "67108864\n");
	stat_file("memory/ct", "memory.stat", "cache 1024\nrss 2048\n");
	stat_file("memory/ct", "memory.oom_control",
		  "oom_kill_disable 0\nunder_oom 0\noom_kill 4\n");
	stat_file("pids/ct", "pids.current", "3\n");
	stat_file("pids/ct", "pids.max", "max\n");
	doc = stats_json("/ct", &text);
	CHECK(doc != NULL);
	v = yajl_tree_get(doc, type_path, yajl_t_string);
	CHECK_STR(v ? YAJL_GET_STRING(v) : NULL, "stats");
	v = yajl_tree_get(doc, id_path, yajl_t_string);
	CHECK_STR(v ? YAJL_GET_STRING(v) : NULL, "ct1");
	CHECK(json_num(doc, "123456789", "data", "cpu", "usage", "total",
		       NULL));
	snprintf(user_ns, sizeof(user_ns), "%llu",
		 250ULL * 1000000000ULL / (unsigned long long)hz);
	CHECK(json_num(doc, user_ns, "data", "cpu", "usage", "user", NULL));
	v = yajl_tree_get(doc, percpu, yajl_t_array);
	CHECK(v && YAJL_GET_ARRAY(v)->len == 3);
	CHECK(json_num(doc, "3", "data", "cpu", "throttling",
		       "throttled_periods", NULL));
	CHECK(json_num(doc, "4000", "data", "cpu", "throttling",
		       "throttled_time", NULL));
	CHECK(json_num(doc, "4096", "data", "memory", "usage", "usage", NULL));
	CHECK(json_num(doc, "8192", "data", "memory", "usage", "max", NULL));
	CHECK(json_num(doc, "9223372036854771712", "data", "memory", "usage",
		       "limit", NULL));
	CHECK(json_num(doc, "2", "data", "memory", "usage", "failcnt", NULL));
	CHECK(json_num(doc, "67108864", "data", "memory", "swap", "limit",
		       NULL));
	CHECK(json_num(doc, "0", "data", "memory", "swap", "max", NULL));
	CHECK(json_num(doc, "1024", "data", "memory", "cache", NULL));
	CHECK(json_num(doc, "2048", "data", "memory", "raw", "rss", NULL));
	CHECK(json_num(doc, "3", "data", "pids", "current", NULL));
	CHECK(json_num(doc, "0", "data", "pids", "limit", NULL));
	CHECK(text && strchr(text, '\n') == text + strlen(text) - 1);
	yajl_tree_free(doc);
	tree_free();
}

TEST(v2_stats_in_runc_shape)
{
	_cleanup_free_ char *text = NULL;
	const char *percpu[] = {"data", "cpu", "usage", "percpu", NULL};
	yajl_val doc, v;

	tree_new(true, ALL_V2);
	stat_file("a/ct", "cpu.stat",
		  "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n"
		  "nr_periods 7\nnr_throttled 2\nthrottled_usec 30\n");
	stat_file("a/ct", "memory.current", "65536\n");
	stat_file("a/ct", "memory.max", "max\n");
	stat_file("a/ct", "memory.peak", "131072\n");
	stat_file("a/ct", "memory.events",
		  "low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n");
	stat_file("a/ct", "memory.swap.current", "4096\n");
	stat_file("a/ct", "memory.swap.max", "0\n");
	stat_file("a/ct", "memory.stat", "anon 1000\nfile 3000\n");
	stat_file("a/ct", "pids.current", "2\n");
	stat_file("a/ct", "pids.max", "64\n");
	doc = stats_json("a/ct", &text);
	CHECK(doc != NULL);
	CHECK(json_num(doc, "1500000", "data", "cpu", "usage", "total", NULL));
	CHECK(json_num(doc, "500000", "data", "cpu", "usage", "kernel", NULL));
	CHECK(json_num(doc, "1000000", "data", "cpu", "usage", "user", NULL));
	v = yajl_tree_get(doc, percpu, yajl_t_array);
	CHECK(v && YAJL_GET_ARRAY(v)->len == 0);
	CHECK(json_num(doc, "7", "data", "cpu", "throttling", "periods",
		       NULL));
	CHECK(json_num(doc, "30000", "data", "cpu", "throttling",
		       "throttled_time", NULL));
	CHECK(json_num(doc, "18446744073709551615", "data", "memory", "usage",
		       "limit", NULL));
	CHECK(json_num(doc, "65536", "data", "memory", "usage", "usage",
		       NULL));
	CHECK(json_num(doc, "131072", "data", "memory", "usage", "max", NULL));
	CHECK(json_num(doc, "5", "data", "memory", "usage", "failcnt", NULL));
	/* swap is memory+swap, as v1's memsw */
	CHECK(json_num(doc, "69632", "data", "memory", "swap", "usage", NULL));
	CHECK(json_num(doc, "18446744073709551615", "data", "memory", "swap",
		       "limit", NULL));
	CHECK(json_num(doc, "3000", "data", "memory", "cache", NULL));
	CHECK(json_num(doc, "1000", "data", "memory", "raw", "anon", NULL));
	CHECK(json_num(doc, "64", "data", "pids", "limit", NULL));
	yajl_tree_free(doc);
	tree_free();
}

TEST(oom_kills_and_a_gone_cgroup)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup_stats s;
	struct cgroup *cg = NULL;
	uint64_t kills = 9;

	tree_new(true, ALL_V2);
	stat_file("ct", "memory.events", "max 1\noom 2\noom_kill 2\n");
	CHECK(cgroup_open(tree, "ct", &cg, &e) == 0);
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) == 0 && kills == 2);
	cgroup_free(cg);
	cg = NULL;
	CHECK(cgroup_open(tree, "gone", &cg, &e) == 0);
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) < 0 && e->code == ENOENT);
	error_free(e);
	e = NULL;
	CHECK(cg && cgroup_stats_read(cg, &s, &e) < 0 && e->code == ENOENT);
	cgroup_free(cg);
	cg = NULL;
	error_free(e);
	e = NULL;

	tree_new(false, "memory pids");
	stat_file("memory/ct", "memory.oom_control",
		  "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	CHECK(cgroup_open(tree, "ct", &cg, &e) == 0);
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) == 0 && kills == 3);
	/* a host without the counter: 0 */
	stat_file("memory/ct", "memory.oom_control", "oom_kill_disable 0\n");
	CHECK(cg && cgroup_oom_kills(cg, &kills, &e) == 0 && kills == 0);
	cgroup_free(cg);
	tree_free();
}

int main(void)
{
	return unit_run();
}
