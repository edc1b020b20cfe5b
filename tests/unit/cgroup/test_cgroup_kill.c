/* Unit tests of runtime/cgroup/cgroup_kill.c: kill, pause, resume, pids and
 * signals, on the fake trees of
 * cgroup_fake.c (no root needed). */
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

/* ---- pause, resume, pids, signals (cgroup.c) -------------------------- */

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
	CHECK(cg && cgroup_freeze(cg, true, &e) < 0 &&
	      msg_has(e, "no freezer"));
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
	CHECK(n == 3 && pids && pids[0] == 7 && pids[1] == 12 && pids[2] == 30);
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

int main(void)
{
	return unit_run();
}
