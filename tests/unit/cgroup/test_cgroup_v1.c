/* Unit tests of runtime/cgroup/cgroup_v1.c: the v1 backend writing every limit,
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

#include "cgroup_backend.h"
#include "cgroup_fake.h"
#include "unit.h"
#include "util.h"

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
	CHECK(cg && cg->backend == &cgroup_v1_backend);
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

/* A hybrid tree: the cgroup2 directory first and alone (clone3 needs it
 * before the child exists), then the v1 hierarchies and the limits, with
 * the cgroup2 directory opened, not refused as an existing leaf.  On a v2
 * tree the first step makes nothing: the whole cgroup is made at once. */
TEST(v1_cgroup2_first_then_the_rest)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x;

	tree_new(false, NULL);
	full_resources(&x);
	CHECK(cgroup_new(tree, "corral/ct", &cg, &e) == 0);
	CHECK(cg && cgroup_make_cgroup2(cg, &e) == 1);
	CHECK(exists("unified/corral/ct") && !exists("memory/corral/ct") &&
	      !exists("cpuset/corral"));
	CHECK(cg && cgroup_make(cg, &x.r, false, &skipped, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(exists("memory/corral/ct") && exists("systemd/corral/ct"));
	CHECK(logged("memory/corral/ct memory.limit_in_bytes=268435456", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	cg = NULL;
	tree_free();

	tree_new(true, "memory pids");
	CHECK(cgroup_new(tree, "corral/ct", &cg, &e) == 0);
	CHECK(cg && cgroup_make_cgroup2(cg, &e) == 0);
	CHECK(!exists("corral/ct") && !exists("corral"));
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

/* net_cls.classid and one net_prio.ifpriomap line per interface, in a
 * hierarchy of each, or in the one they share (the link named after each
 * controller leads to it), or refused where neither is mounted. */
TEST(v1_network_classes)
{
	struct spec_net_priority prio[2] = {{(char *)"eth0", 5},
					    {(char *)"lo", 1}};
	struct spec_network net = {SET(1048577), prio, 2};
	struct spec_resources r = {.network = &net};
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;

	tree_new(false, "memory pids freezer");
	tree_add_v1("net_cls", NULL);
	tree_add_v1("net_prio", NULL);
	CHECK(prepare("corral/ct", &r, false, &cg, NULL, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(logged("net_cls/corral/ct net_cls.classid=1048577",
		     "net_prio/corral/ct net_prio.ifpriomap=eth0 5",
		     "net_prio/corral/ct net_prio.ifpriomap=lo 1", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	cg = NULL;

	tree_new(false, "memory pids freezer");
	tree_add_v1("net_cls,net_prio", NULL);
	tree_add_v1("net_cls", "net_cls,net_prio");
	tree_add_v1("net_prio", "net_cls,net_prio");
	CHECK(prepare("corral/ct", &r, false, &cg, NULL, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(logged("net_cls/corral/ct net_cls.classid=1048577",
		     "net_cls/corral/ct net_prio.ifpriomap=eth0 5",
		     "net_cls/corral/ct net_prio.ifpriomap=lo 1", NULL));
	CHECK(exists("net_cls,net_prio/corral/ct"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	cg = NULL;

	tree_new(false, "memory pids freezer");
	CHECK(prepare("corral/ct", &r, false, &cg, NULL, &e) < 0);
	CHECK(msg_has(e, "no net_cls hierarchy is mounted"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;
	CHECK(prepare("corral/ct", &r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.network.classID"));
	CHECK(has(skipped, ".linux.resources.network.priorities"));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	tree_free();
}

/* The hierarchies a container's /sys/fs/cgroup may mount: those the
 * cgroup is made in, a co-mounted one by its directory's name too; not
 * a named hierarchy of another program's, nor a path. */
TEST(v1_joins_names_the_hierarchies_made)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup_v1_roots roots;
	struct cgroup *cg = NULL;
	int dirfd;

	tree_new(false, "memory pids");
	tree_add_v1("perf_event", NULL);
	tree_add_v1("cpu,cpuacct", NULL);
	tree_add_v1("cpu", "cpu,cpuacct");
	tree_add_v1("cpuacct", "cpu,cpuacct");
	tree_add_v1("elogind", NULL);
	dirfd = open(tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(cgroup_new(tree, "corral/ct", &cg, &e) == 0);
	CHECK(cg && cgroup_v1_joined(cg, &roots, &e) == 0 && roots.n == 4);
	CHECK(cgroup_v1_joins(&roots, dirfd, "memory"));
	CHECK(cgroup_v1_joins(&roots, dirfd, "perf_event"));
	CHECK(cgroup_v1_joins(&roots, dirfd, "cpu,cpuacct"));
	CHECK(!cgroup_v1_joins(&roots, dirfd, "cpu")); /* a link, no mount */
	CHECK(!cgroup_v1_joins(&roots, dirfd, "elogind"));
	CHECK(!cgroup_v1_joins(&roots, dirfd, "hugetlb"));
	CHECK(!cgroup_v1_joins(&roots, dirfd, "../memory"));
	cgroup_free(cg);
	close(dirfd);
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

int main(void)
{
	return unit_run();
}
