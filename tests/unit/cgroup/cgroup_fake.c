/* The fake kernel of the cgroup unit tests (cgroup_fake.h): a fake
 * cgroupfs in a temporary directory, and the test-side half of the seam
 * in runtime/cgroup/cgroup_fs.h.  The cgroup unit tests link this file in place
 * of runtime/cgroup/cgroup_kernel.c.
 *
 * It creates in each new directory the files the kernel would (per
 * controller, so a missing controller means missing files), merges writes
 * to cgroup.subtree_control as the kernel does (and gives children those
 * controllers in their cgroup.controllers), empties a directory before
 * its rmdir, empties cgroup.procs once the cgroup is killed or thawed,
 * and logs every write as "DIR FILE=VALUE" with DIR relative to the tree:
 * the tests check file names, value formats and their order from that
 * log.  Between tree_new() and tree_free() only; outside, the seam is the
 * kernel's (no fake files, the real bpf(2)). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup_fake.h"
#include "cgroup_fs.h"
#include "util.h"

static bool fake_on; /* a fake tree is there */
long (*fake_bpf)(int cmd, void *attr, unsigned size);

char tree[256];	    /* the fake mount root */
char wlog[1 << 16]; /* every write, in order */
bool fake_v2;
bool no_swap_files;	 /* swap accounting off */
bool no_kill_file;	 /* a kernel before cgroup.kill */
const char *broken_file; /* made a directory: writes fail */

void put_file(int dirfd, const char *name, const char *content)
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

char *get_file(const char *dir, const char *name)
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

bool exists(const char *rel)
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
    {"net_cls", {"net_cls.classid"}},
    {"net_prio", {"net_prio.ifpriomap"}},
    {"net_cls,net_prio", {"net_cls.classid", "net_prio.ifpriomap"}},
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

/* A hierarchy reached through a link ("net_prio" to "net_cls,net_prio")
 * has the files of the one the link names: HIER becomes that name. */
static void link_target(char *hier, size_t size)
{
	char link[1024], to[64];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/%s", tree, hier);
	n = readlink(link, to, sizeof(to) - 1);
	if (n > 0) {
		to[n] = '\0';
		snprintf(hier, size, "%s", to);
	}
}

static int populate(int parent_fd, int fd, const char *dir)
{
	char hier[64];

	if (fake_v2)
		return populate_v2(parent_fd, fd);
	snprintf(hier, sizeof(hier), "%s", dir + strlen(tree) + 1);
	hier[strcspn(hier, "/")] = '\0';
	link_target(hier, sizeof(hier));
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
void preset(const char *rel, const char *name, const char *content)
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

/* A sleeping child of the test's, listed in the cgroup.procs of `rel`:
 * a cgroup in use, which cgroup_kill goes all the way for (an empty one
 * it leaves at once). */
pid_t listed_sleeper(const char *rel)
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
bool sleeper_killed(pid_t p)
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
void sleeper_stop(pid_t p)
{
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

void tree_free(void)
{
	if (tree[0])
		nftw(tree, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	tree[0] = '\0';
	fake_on = false;
	fake_bpf = NULL;
	no_swap_files = no_kill_file = false;
	broken_file = NULL;
}

void tree_new(bool v2, const char *controllers)
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
	fake_on = true;
	fake_bpf = NULL;
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

void tree_add_v1(const char *name, const char *link_to)
{
	int fd = open(tree, O_RDONLY | O_DIRECTORY);
	int h;

	if (link_to) {
		if (symlinkat(link_to, fd, name) < 0)
			perror("tree_add_v1: symlinkat");
	} else {
		mkdirat(fd, name, 0755);
		h = openat(fd, name, O_RDONLY | O_DIRECTORY);
		populate_v1_hier(h, name);
		close(h);
	}
	close(fd);
}

/* The log after the line `s` at or after `from`; NULL when absent. */
const char *find_line(const char *from, const char *s)
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
bool logged(const char *first, ...)
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
bool has_subdir(const char *rel)
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
bool no_cgroup_left(const char *name)
{
	static const char *const hiers[] = {
	    "",		"cpuset",	    "cpu",
	    "cpuacct",	"memory",	    "pids",
	    "blkio",	"devices",	    "freezer",
	    "hugetlb",	"net_cls,net_prio", "net_cls",
	    "net_prio", "systemd",	    "unified"};
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

bool has(char **list, const char *s)
{
	for (; list && *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

bool msg_has(struct error *e, const char *s)
{
	if (e && strstr(e->msg, s))
		return true;
	printf("# error \"%s\" lacks \"%s\"\n", e ? e->msg : "(none)", s);
	return false;
}

/* ---- the seam (runtime/cgroup/cgroup_fs.h) ------------------------------- */

int cg_kernel_made(int parent_fd, int fd, const char *dir)
{
	return fake_on ? populate(parent_fd, fd, dir) : 0;
}

void cg_kernel_removing(const char *dir)
{
	if (fake_on)
		depopulate(dir);
}

void cg_kernel_wrote(const char *dir, const char *file, const char *value)
{
	if (fake_on)
		wrote(dir, file, value);
}

long cg_kernel_bpf(int cmd, void *attr, unsigned size)
{
	if (fake_on && fake_bpf)
		return fake_bpf(cmd, attr, size);
	return syscall(SYS_bpf, cmd, attr, size);
}

/* ---- fixtures ---------------------------------------------------------- */

/* Every kind of limit, with values whose formats differ per layout. */
void full_resources(struct res_bufs *x)
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

int prepare(const char *path, const struct spec_resources *r, bool best_effort,
	    struct cgroup **cg, char ***skipped, struct error **err)
{
	return cgroup_prepare(tree, path, r, best_effort, cg, skipped, err);
}

/* Put `pids` in the container's cgroup.procs of hierarchy `hier` ("" on
 * v2) of the fake tree. */
void procs(const char *hier, const char *path, const char *pids)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s%s%s", hier, *hier ? "/" : "", path);
	preset(rel, "cgroup.procs", pids);
}
