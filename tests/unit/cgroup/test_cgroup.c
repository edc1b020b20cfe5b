/* Unit tests of runtime/cgroup/cgroup.c: picking the backend, naming, making
 * and removing a cgroup, on the fake trees of
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

#include "cgroup_backend.h"
#include "cgroup_fake.h"
#include "unit.h"
#include "util.h"

/* ---- detection ------------------------------------------------------- */

TEST(detect_layouts)
{
	_cleanup_error_ struct error *e = NULL;
	const struct cgroup_backend *l = NULL;
	struct stat st;

	tree_new(true, "memory pids");
	CHECK(cgroup_detect(tree, &l, &e) == 0 && l == &cgroup_v2_backend);
	tree_new(false, NULL);
	CHECK(cgroup_detect(tree, &l, &e) == 0 && l == &cgroup_v1_backend);
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
	CHECK(cgroup_new(tree, "", &cg, &e) < 0 && !cg);
	tree_free();
}

TEST(open_kill_destroy_of_a_gone_cgroup)
{
	_cleanup_error_ struct error *e = NULL;
	struct cgroup *cg = NULL;

	tree_new(true, ALL_V2);
	CHECK(cgroup_new(tree, "corral/gone", &cg, &e) == 0);
	CHECK(cg && cg->backend == &cgroup_v2_backend);
	CHECK_STR(cg ? cg->path : NULL, "corral/gone");
	CHECK(cg && cgroup_kill(cg, &e) == 0);
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(cg && cgroup_enter(cg, 1, &e) < 0 && e->code == ENOENT);
	cgroup_free(cg);
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
