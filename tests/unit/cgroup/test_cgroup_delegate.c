/* Unit tests of runtime/cgroup/cgroup_delegate.c and the bases the backends
 * take (cgroup.h: a delegated layout): finding the caller's own cgroup in
 * /proc/self/cgroup's text on fake v1 and v2 trees, making the
 * container's cgroup there with its limits, removing it, and the pure
 * parsers of cgroup_path.c it uses (/proc/self/cgroup, the record). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "cgroup_fake.h"
#include "unit.h"
#include "util.h"

#define MEMORY_PIDS_CPU ((1u << CG_MEMORY) | (1u << CG_PIDS) | (1u << CG_CPU))

/* The directories of REL in the fake tree, each made as the kernel
 * would (with its files), as an administrator's mkdir makes them. */
static void made(const char *rel)
{
	_cleanup_error_ struct error *e = NULL;
	char root[512];
	const char *slash = strchr(rel, '/');
	struct cg_names dirs = {0};
	struct cg_walk walk = {0};
	int fd = -1;

	snprintf(root, sizeof(root), "%s/%.*s", tree, (int)(slash - rel), rel);
	if (cg_make_path(root, slash + 1, &walk, &dirs, &fd, &e) < 0)
		printf("# make %s: %s\n", rel, e->msg);
	if (fd >= 0)
		close(fd);
	cg_names_clear(&dirs);
}

static void made_v2(const char *rel)
{
	_cleanup_error_ struct error *e = NULL;
	struct cg_names dirs = {0};
	struct cg_walk walk = {0};
	int fd = -1;

	if (cg_make_path(tree, rel, &walk, &dirs, &fd, &e) < 0)
		printf("# make %s: %s\n", rel, e->msg);
	if (fd >= 0)
		close(fd);
	cg_names_clear(&dirs);
}

static const char v1_self[] = "9:name=systemd:/\n"
			      "8:pids:/u/sh\n"
			      "7:blkio:/\n"
			      "6:freezer:/u/sh\n"
			      "5:devices:/\n"
			      "4:memory:/box/u/sh\n"
			      "3:cpuset:/u/sh\n"
			      "2:cpuacct:/u/sh\n"
			      "1:cpu:/u/sh\n"
			      "0::/\n";

TEST(v1_bases_are_the_callers_own_cgroups)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup_bases b = {0};
	unsigned have = 0;

	tree_new(false, NULL);
	made("memory/box/u/sh");
	made("pids/u/sh");
	made("freezer/u/sh");
	made("cpuset/u/sh");
	made("cpu/u/sh");
	made("cpuacct/u/sh");
	CHECK(cg_find_delegated(tree, v1_self, &b, &have, &e) == 0);
	CHECK_STR(cg_bases_find(&b, "memory"), "/box/u/sh");
	CHECK_STR(cg_bases_find(&b, "pids"), "/u/sh");
	CHECK_STR(cg_bases_find(&b, "cpu"), "/u/sh");
	CHECK_STR(cg_bases_find(&b, "freezer"), "/u/sh");
	/* the root cgroup is never the caller's */
	CHECK(!cg_bases_find(&b, "devices") && !cg_bases_find(&b, "blkio"));
	CHECK(!cg_bases_find(&b, "systemd") && !cg_bases_find(&b, "unified"));
	CHECK(have == MEMORY_PIDS_CPU);
	cg_bases_clear(&b);
	tree_free();
}

/* As uid 12345, who may write its pids cgroup and not the memory one
 * (root's): only pids is a base.  Run in a child that drops to that uid;
 * it exits 0 when the bases are right. */
TEST(v1_a_cgroup_the_caller_may_not_write_is_not_a_base)
{
	char path[512];
	int status = -1;
	pid_t pid;

	if (geteuid() != 0) {
		printf("# skipped: chown and setresuid need root\n");
		return;
	}
	tree_new(false, NULL);
	made("memory/box/u/sh");
	made("pids/u/sh");
	CHECK(chmod(tree, 0755) == 0);
	snprintf(path, sizeof(path), "%s/pids/u/sh", tree);
	CHECK(chown(path, 12345, 12345) == 0);
	pid = fork();
	if (pid == 0) {
		struct error *e = NULL;
		struct cgroup_bases b = {0};
		unsigned have = 0;

		if (setgroups(0, NULL) < 0 || setresgid(12345, 12345, 12345) ||
		    setresuid(12345, 12345, 12345) < 0)
			_exit(2);
		if (cg_find_delegated(tree, v1_self, &b, &have, &e) < 0)
			_exit(3);
		_exit(!cg_bases_find(&b, "memory") &&
			      cg_bases_find(&b, "pids") &&
			      have == (1u << CG_PIDS)
			  ? 0
			  : 4);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	tree_free();
}

TEST(v1_delegated_cgroup_is_made_below_the_bases_and_removed)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup_bases b = {0};
	struct cgroup *cg = NULL;
	struct res_bufs x;
	struct cgroup_v1_roots roots;
	unsigned have = 0;
	int dirfd;

	tree_new(false, NULL);
	made("memory/box/u/sh");
	made("pids/u/sh");
	made("cpuset/u/sh");
	made("cpu/u/sh");
	made("freezer/u/sh");
	preset("cpuset/u/sh", "cpuset.cpus", "0-1\n");
	CHECK(cg_find_delegated(tree, v1_self, &b, &have, &e) == 0);
	memset(&x, 0, sizeof(x));
	x.m.limit = SET(64 << 20);
	x.r.memory = &x.m;
	x.r.pids_limit = SET(32);
	CHECK(cgroup_new_delegated(tree, &b, "corral-ct", &cg, &e) == 0);
	CHECK(cg && cgroup_make(cg, &x.r, false, &skipped, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(logged("cpuset/u/sh/corral-ct cpuset.cpus=0-1",
		     "memory/box/u/sh/corral-ct memory.limit_in_bytes=67108864",
		     "pids/u/sh/corral-ct pids.max=32", NULL));
	CHECK(exists("freezer/u/sh/corral-ct"));
	/* nothing outside the caller's own */
	CHECK(!exists("devices/corral-ct") && !exists("memory/corral-ct") &&
	      !exists("unified/corral-ct") && !exists("systemd/corral-ct"));
	/* and the container's /sys/fs/cgroup mounts only those five */
	dirfd = open(tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(cg && cgroup_v1_joined(cg, &roots, &e) == 0 && roots.n == 5);
	CHECK(cgroup_v1_joins(&roots, dirfd, "memory") &&
	      cgroup_v1_joins(&roots, dirfd, "freezer"));
	CHECK(!cgroup_v1_joins(&roots, dirfd, "devices") &&
	      !cgroup_v1_joins(&roots, dirfd, "systemd"));
	close(dirfd);
	CHECK(!cgroup_has_cgroup2(cg));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(!exists("memory/box/u/sh/corral-ct") &&
	      !exists("pids/u/sh/corral-ct"));
	CHECK(exists("memory/box/u/sh") && exists("pids/u/sh"));
	cgroup_free(cg);
	cg_bases_clear(&b);
	tree_free();
}

TEST(v1_a_limit_whose_hierarchy_is_not_delegated_fails)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup_bases b = {0};
	struct cgroup *cg = NULL;
	struct res_bufs x;
	unsigned have = 0;

	tree_new(false, NULL);
	made("pids/u/sh");
	CHECK(cg_find_delegated(tree, v1_self, &b, &have, &e) == 0);
	CHECK(have == (1u << CG_PIDS));
	memset(&x, 0, sizeof(x));
	x.m.limit = SET(64 << 20);
	x.r.memory = &x.m;
	CHECK(cgroup_new_delegated(tree, &b, "corral-ct", &cg, &e) == 0);
	CHECK(cg && cgroup_make(cg, &x.r, false, &skipped, &e) < 0);
	CHECK(msg_has(e, "the memory hierarchy is not delegated"));
	CHECK(!exists("pids/u/sh/corral-ct"));
	error_free(e);
	e = NULL;
	/* best effort: skipped, and named */
	CHECK(cg && cgroup_make(cg, &x.r, true, &skipped, &e) == 0);
	CHECK(skipped && has(skipped, ".linux.resources.memory.limit"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	cg_bases_clear(&b);
	tree_free();
}

/* v2: the container's cgroup beside the caller's, in the parent the
 * caller owns, which enables the controllers for its children. */
TEST(v2_delegated_cgroup_is_a_leaf_beside_the_caller)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup_bases b = {0};
	struct cgroup *cg = NULL;
	struct res_bufs x;
	unsigned have = 0;

	tree_new(true, ALL_V2);
	preset(".", "cgroup.subtree_control", "memory pids cpu");
	made_v2("user.slice/u.service/app.slice/sh.scope");
	preset("user.slice", "cgroup.subtree_control", "memory pids cpu");
	preset("user.slice/u.service", "cgroup.subtree_control", "memory pids");
	CHECK(cg_find_delegated(tree,
				"0::/user.slice/u.service/app.slice/sh.scope\n",
				&b, &have, &e) == 0);
	CHECK_STR(cg_bases_find(&b, ""), "/user.slice/u.service/app.slice");
	/* what app.slice may give its children: no cpu here */
	CHECK(have == ((1u << CG_MEMORY) | (1u << CG_PIDS)));
	memset(&x, 0, sizeof(x));
	x.m.limit = SET(64 << 20);
	x.r.memory = &x.m;
	x.r.pids_limit = SET(32);
	CHECK(cgroup_new_delegated(tree, &b, "corral-ct", &cg, &e) == 0);
	CHECK(cg && cgroup_make(cg, &x.r, false, &skipped, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(logged(
	    "user.slice/u.service/app.slice "
	    "cgroup.subtree_control=+memory +pids",
	    "user.slice/u.service/app.slice/corral-ct memory.max=67108864",
	    "user.slice/u.service/app.slice/corral-ct pids.max=32", NULL));
	/* nothing written above the caller's own */
	CHECK(!strstr(wlog, ". cgroup.subtree_control"));
	CHECK(!strstr(wlog, "user.slice cgroup.subtree_control"));
	CHECK(cgroup_has_cgroup2(cg));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(!exists("user.slice/u.service/app.slice/corral-ct"));
	CHECK(exists("user.slice/u.service/app.slice/sh.scope"));
	cgroup_free(cg);
	cg_bases_clear(&b);
	tree_free();
}

TEST(v2_the_callers_top_cgroup_has_no_place_beside_it)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup_bases b = {0};
	unsigned have = 1;

	tree_new(true, ALL_V2);
	made_v2("sh.scope");
	CHECK(cg_find_delegated(tree, "0::/sh.scope\n", &b, &have, &e) == 0);
	CHECK(b.n == 0 && have == 0);
	CHECK(cg_find_delegated(tree, "0::/\n", &b, &have, &e) == 0);
	CHECK(b.n == 0);
	tree_free();
}

TEST(self_parse_lines)
{
	_cleanup_error_ struct error *e = NULL;
	struct cg_self s = {0};

	CHECK(cg_self_parse("3:cpu,cpuacct:/a b\n1:name=systemd:/s\n0::/\n", &s,
			    &e) == 0);
	CHECK(s.paths.n == 4);
	CHECK_STR(cg_bases_find(&s.paths, "cpuacct"), "/a b");
	CHECK_STR(cg_bases_find(&s.paths, "systemd"), "/s");
	CHECK_STR(cg_bases_find(&s.paths, ""), "/");
	CHECK(s.line && s.line[0] == s.line[1] && s.line[1] != s.line[2]);
	cg_self_clear(&s);
	CHECK(cg_self_parse("3:cpu\n", &s, &e) < 0);
	CHECK(msg_has(e, "line 1: expected ID:CONTROLLERS:/PATH"));
	CHECK(s.paths.n == 0);
}

TEST(record_round_trip_and_errors)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *text = NULL, *path = NULL;
	struct cgroup_bases b = {0}, back = {0};

	CHECK(cg_bases_add(&b, "memory", "/a/b") == 0);
	CHECK(cg_bases_add(&b, "", "/u/app.slice") == 0);
	CHECK(cg_record_format("corral-ct", &b, &text, &e) == 0);
	CHECK_STR(text, "corral-ct\nmemory /a/b\n /u/app.slice\n");
	CHECK(cg_record_parse(text, &path, &back, &e) == 0);
	CHECK_STR(path, "corral-ct");
	CHECK(back.n == 2);
	CHECK_STR(cg_bases_find(&back, ""), "/u/app.slice");
	cg_bases_clear(&back);
	static const char *const bad[] = {
	    "",
	    "corral-ct",
	    "corral-ct\n",
	    "corral-ct\nmemory /\n",
	    "corral-ct\nmemory /a/../b\n",
	    "corral-ct\nmem/ory /a\n",
	    "corral-ct\nmemory a\n",
	    "corral-ct\nmemory /a\nmemory /b\n",
	    "corral-ct\nmemory /a",
	    "../x\nmemory /a\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		error_free(e);
		e = NULL;
		free(path);
		path = NULL;
		CHECK(cg_record_parse(bad[i], &path, &back, &e) < 0);
		CHECK(!path && back.n == 0 && e && !strchr(e->msg, '\n'));
	}
	cg_bases_clear(&b);
}

int main(void)
{
	return unit_run();
}
