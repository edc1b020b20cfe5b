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

int main(void)
{
	return unit_run();
}
