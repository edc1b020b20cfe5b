/* Unit tests of runtime/cgroup/cgroup_path.c: cgroup_path_for() (pure, no
 * tree), on the fake trees of cgroup_fake.c (no root needed). */
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
	/* a unit name systemd accepts, "p-...scope": no ".." component */
	check_path("machine.slice:p:..", "z", "machine.slice/p-...scope");
	check_path("machine.slice::..", "z", "machine.slice/_...scope");
	check_path("machine.slice:p:", "z", NULL);
	check_path("machine.slice:a/b:n", "z", NULL);
	check_path("machine:p:n", "z", NULL);
	check_path("a--b.slice:p:n", "z", NULL);
	check_path("-a.slice:p:n", "z", NULL);
	check_path("a-.slice:p:n", "z", NULL);
	check_path("../a.slice:p:n", "z", NULL);
	check_path(".slice:p:n", "z", NULL);
}

/* What systemd 252 accepts and where it puts it (cgroup_path.c): only
 * unit-name characters, names below 256 bytes, and a "_" before a name
 * that could be taken for a kernel file. */
TEST(path_for_systemd_as_systemd_names_it)
{
	char longname[300];

	check_path("cpu.slice:p:n", "z", "_cpu.slice/p-n.scope");
	check_path("memory-x.slice:p:n", "z",
		   "_memory.slice/memory-x.slice/p-n.scope");
	check_path("_a.slice:p:n", "z", "__a.slice/p-n.scope");
	check_path("cgroup.x-y.slice:p:n", "z",
		   "_cgroup.x.slice/_cgroup.x-y.slice/p-n.scope");
	check_path("machine.slice::tasks", "z", "machine.slice/tasks.scope");
	check_path("machine.slice::pids", "z", "machine.slice/_pids.scope");
	check_path("a.b-c.slice:p:n", "z", "a.b.slice/a.b-c.slice/p-n.scope");
	check_path("machine.slice:p:a@b", "z", "machine.slice/p-a@b.scope");
	check_path("machine.slice:p:x\\x2d", "z",
		   "machine.slice/p-x\\x2d.scope");
	/* characters systemd refuses in a unit name */
	check_path("machine.slice:p:a b", "z", NULL);
	check_path("machine.slice:p:\xe2\x82\xac", "z", NULL);
	check_path("machine.slice:p:a\nb", "z", NULL);
	check_path("mach ine.slice:p:n", "z", NULL);
	check_path("a@b.slice:p:n", "z", NULL);
	check_path("machine.slice:p:a@", "z", NULL);
	check_path("machine.slice::@a", "z", NULL);
	check_path("machine.scope:p:n", "z", NULL);
	/* 255 bytes is the longest name: a slice of 250 + 6 is refused */
	memset(longname, 'a', sizeof(longname));
	snprintf(longname + 250, 50, ".slice:p:n");
	check_path(longname, "z", NULL);
	snprintf(longname + 249, 50, ".slice:p:n");
	{
		_cleanup_error_ struct error *e = NULL;
		_cleanup_free_ char *out = NULL;

		CHECK(cgroup_path_for(longname, "z", &out, &e) == 0);
	}
	/* and a scope: "p-" + 248 + ".scope" is 256 */
	memset(longname, 'n', sizeof(longname));
	memcpy(longname, "machine.slice:p:", 16);
	longname[16 + 248] = '\0';
	check_path(longname, "z", NULL);
}

TEST(slice_path_and_names)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *p = NULL;

	CHECK(cg_slice_path("-.slice", &p, &e) == 0);
	CHECK_STR(p, "");
	free(p);
	p = NULL;
	CHECK(cg_slice_path("kubepods-burstable-podX.slice", &p, &e) == 0);
	CHECK_STR(p, "kubepods.slice/kubepods-burstable.slice/"
		     "kubepods-burstable-podX.slice");
	free(p);
	p = NULL;
	CHECK(cg_slice_path("a/b.slice", &p, &e) < 0);
	CHECK(p == NULL);
	CHECK(cg_unit_name_ok("x.scope", "scope", true));
	CHECK(cg_unit_name_ok("a@b.scope", "scope", true));
	CHECK(!cg_unit_name_ok("a@b.slice", "slice", false));
	CHECK(!cg_unit_name_ok("a@.scope", "scope", true));
	CHECK(!cg_unit_name_ok(".scope", "scope", true));
	CHECK(!cg_unit_name_ok("xscope", "scope", true));
}

int main(void)
{
	return unit_run();
}
