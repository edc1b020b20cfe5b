/* Unit tests of runtime/cgroup/cgroup_v2.c: the v2 backend writing every limit,
 * on the fake trees of cgroup_fake.c (no root needed). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cgroup_fs.h"

#include "cgroup_backend.h"
#include "cgroup_fake.h"
#include "unit.h"
#include "util.h"

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
	CHECK(cg && cg->backend == &cgroup_v2_backend);
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

/* cgroup v2 has no net_cls or net_prio: refused, or skipped when limits
 * are best-effort; nothing is made either way. */
TEST(v2_has_no_network_classes)
{
	struct spec_network net = {SET(7), NULL, 0};
	struct spec_resources r = {.network = &net};
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;

	tree_new(true, "cpuset cpu io memory pids");
	CHECK(prepare("corral/ct", &r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, ".linux.resources.network: needs cgroup v1 (cgroup "
			 "v2 has no net_cls or net_prio controller)"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;
	CHECK(prepare("corral/ct", &r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.network"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
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

int main(void)
{
	return unit_run();
}
