/* The kernel's side of the seam in cgroup_fs.h: on cgroupfs the kernel
 * itself fills a new directory, empties a removed one and acts on writes,
 * so there is nothing to do but make the bpf(2) call.  The unit tests
 * link their fake kernel (tests/unit/cgroup/cgroup_fake.c) in place of this
 * file. */
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup_fs.h"

int cg_kernel_made(int parent_fd, int fd, const char *dir)
{
	return 0;
}

void cg_kernel_removing(const char *dir)
{
}

void cg_kernel_wrote(const char *dir, const char *file, const char *value)
{
}

long cg_kernel_bpf(int cmd, void *attr, unsigned size)
{
	return syscall(SYS_bpf, cmd, attr, size);
}
