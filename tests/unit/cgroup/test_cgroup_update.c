/* Unit tests of runtime/cgroup/cgroup_update.c and the backends' update, on the
 * fake trees of cgroup_fake.c (no root needed). */
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

#include "cgroup.h"
#include "cgroup_fake.h"
#include "unit.h"
#include "util.h"

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

int main(void)
{
	return unit_run();
}
