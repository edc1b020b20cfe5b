#include "namespace.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "harden.h"
#include "netns.h"
#include "pod.h"
#include "util.h"

static const unsigned long ns_flags[NS_TYPE_COUNT] = {
    [NS_PID] = CLONE_NEWPID,	   [NS_NETWORK] = CLONE_NEWNET,
    [NS_MOUNT] = CLONE_NEWNS,	   [NS_IPC] = CLONE_NEWIPC,
    [NS_UTS] = CLONE_NEWUTS,	   [NS_USER] = CLONE_NEWUSER,
    [NS_CGROUP] = CLONE_NEWCGROUP, [NS_TIME] = CLONE_NEWTIME,
};

/* Joining the host's own namespace would undo the isolation: a pod's ipc
 * or uts namespace is fine, the host's never.  "The host's" is the
 * runtime's own (engines run it in the host's namespaces) and, where it
 * can be read, that of PID 1. */
static bool same_ns(const struct stat *a, const char *path)
{
	struct stat b;

	return stat(path, &b) == 0 && a->st_dev == b.st_dev &&
	       a->st_ino == b.st_ino;
}

/* The names of namespace types under /proc/PID/ns. */
static const char *const proc_ns_name[NS_TYPE_COUNT] = {
    [NS_PID] = "pid",	    [NS_NETWORK] = "net", [NS_MOUNT] = "mnt",
    [NS_IPC] = "ipc",	    [NS_UTS] = "uts",	  [NS_USER] = "user",
    [NS_CGROUP] = "cgroup", [NS_TIME] = "time",
};

static bool is_host_ns(int fd, enum spec_ns_type type)
{
	char self[64], init[64];
	struct stat st;

	snprintf(self, sizeof(self), "/proc/self/ns/%s", proc_ns_name[type]);
	snprintf(init, sizeof(init), "/proc/1/ns/%s", proc_ns_name[type]);
	if (fstat(fd, &st) < 0)
		return true; /* cannot tell: treat as the host's */
	return same_ns(&st, self) || same_ns(&st, init);
}

/* A namespace path of config.json, opened only once it is known to be a
 * namespace of its type (netns.h ns_open_path).  Every failure reads the
 * same, so that the message never tells whether a file the bundle's
 * author cannot read exists. */
static int open_join_path(const struct spec_namespace *ns, bool sandboxed,
			  int *fd, struct error **err)
{
	const char *name = spec_ns_type_names[ns->type];
	_cleanup_error_ struct error *why = NULL;

	*fd = ns_open_path(ns->path, (int)ns_flags[ns->type], &why);
	if (*fd >= 0)
		return 0;
	if (sandboxed)
		return error_set(err, EPERM,
				 "%s namespace %s: not a namespace this "
				 "container may join: refusing to join it",
				 name, ns->path);
	return error_set(err, why->code, "%s namespace %s", name, why->msg);
}

int ns_plan_make(const struct spec *spec, bool sandboxed, const char *root,
		 struct ns_plan *plan, struct error **err)
{
	const struct spec_linux *l = spec->linux_;
	bool seen[NS_TYPE_COUNT] = {false};

	plan->clone_flags = 0;
	plan->hop = false;
	for (int i = 0; i < NS_TYPE_COUNT; i++)
		plan->join_fds[i] = -1;
	for (size_t i = 0; l && i < l->n_namespaces; i++) {
		const struct spec_namespace *ns = &l->namespaces[i];
		const char *name = spec_ns_type_names[ns->type];

		if (seen[ns->type])
			return error_set(err, EINVAL,
					 "namespace %s listed twice", name);
		seen[ns->type] = true;
		if (ns->type == NS_TIME)
			return error_set(err, ENOTSUP,
					 "time namespace is not supported");
		if (!ns->path) {
			plan->clone_flags |= ns_flags[ns->type];
			continue;
		}
		if (ns->type == NS_MOUNT || ns->type == NS_USER)
			return error_set(
			    err, ENOTSUP,
			    "joining an existing %s namespace is not supported",
			    name);
		if (open_join_path(ns, sandboxed, &plan->join_fds[ns->type],
				   err) < 0) {
			ns_plan_release(plan);
			return -1;
		}
		if (sandboxed &&
		    is_host_ns(plan->join_fds[ns->type], ns->type)) {
			ns_plan_release(plan);
			return error_set(err, EPERM,
					 "%s namespace %s is the host's: "
					 "refusing to join it",
					 name, ns->path);
		}
		/* Another container's pid or ipc namespace would hand over
		 * its processes and shared memory; only the pod's own
		 * sandbox is meant to be shared.  A network path is the
		 * policy's (network "config": CNI's, no container's). */
		if (sandboxed && ns->type != NS_NETWORK &&
		    !pod_is_pods_ns(root, spec, proc_ns_name[ns->type],
				    plan->join_fds[ns->type])) {
			ns_plan_release(plan);
			return error_set(err, EPERM,
					 "%s namespace %s is not this "
					 "container's pod sandbox's: refusing "
					 "to join it",
					 name, ns->path);
		}
	}
	if (!(plan->clone_flags & CLONE_NEWNS)) {
		ns_plan_release(plan);
		return error_set(err, EINVAL,
				 "config.json: .linux.namespaces: a new mount "
				 "namespace is required");
	}
	return 0;
}

void ns_plan_release(struct ns_plan *plan)
{
	for (int i = 0; i < NS_TYPE_COUNT; i++) {
		if (plan->join_fds[i] >= 0)
			close(plan->join_fds[i]);
		plan->join_fds[i] = -1;
	}
}

int ns_join_pid(const struct ns_plan *plan, struct error **err)
{
	int fd = plan->join_fds[NS_PID];

	if (fd >= 0 && setns(fd, CLONE_NEWPID) < 0)
		return error_errno(err, "join pid namespace");
	return 0;
}

/* Every namespace but pid (joined by the parent, or by a hop's first
 * child, which stays in the host's own so that the pid its clone
 * returns is the host's) and user (last, by ns_join_user): each setns
 * before it is made with the runtime's own privileges, so that a
 * namespace the container's user namespace does not own (a pod's
 * network) can still be joined. */
int ns_join_rest(const struct ns_plan *plan, struct error **err)
{
	for (int t = 0; t < NS_TYPE_COUNT; t++) {
		if (t == NS_PID || t == NS_USER || plan->join_fds[t] < 0)
			continue;
		if (setns(plan->join_fds[t], (int)ns_flags[t]) < 0)
			return error_errno(err, "join %s namespace",
					   spec_ns_type_names[t]);
	}
	return 0;
}

int ns_join_user(const struct ns_plan *plan, bool *joined, struct error **err)
{
	*joined = plan->join_fds[NS_USER] >= 0;
	if (*joined && setns(plan->join_fds[NS_USER], CLONE_NEWUSER) < 0)
		return error_errno(err, "join user namespace");
	return 0;
}

int ns_plan_of_process(pid_t pid, struct ns_plan *plan, struct error **err)
{
	plan->clone_flags = 0;
	plan->hop = false;
	for (int t = 0; t < NS_TYPE_COUNT; t++) {
		char path[64], self[64];
		struct stat st;
		int fd;

		plan->join_fds[t] = -1;
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid,
			 proc_ns_name[t]);
		snprintf(self, sizeof(self), "/proc/self/ns/%s",
			 proc_ns_name[t]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue; /* a type this kernel lacks, or pid is gone */
		if (fd < 0) {
			error_errno(err, "open %s", path);
			ns_plan_release(plan);
			return -1;
		}
		/* the user namespace cannot be re-entered, and joining what
		 * is already ours changes nothing */
		if (fstat(fd, &st) == 0 && same_ns(&st, self))
			close(fd);
		else
			plan->join_fds[t] = fd;
	}
	return 0;
}

static int write_map(pid_t pid, const char *file,
		     const struct spec_id_mapping *m, size_t n,
		     struct error **err)
{
	char path[64], buf[4096];
	size_t off = 0;
	_cleanup_close_ int fd = -1;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + off, sizeof(buf) - off, "%u %u %u\n",
				 m[i].container_id, m[i].host_id, m[i].size);

		if (w < 0 || (size_t)w >= sizeof(buf) - off)
			return error_set(err, E2BIG, "%s: too many mappings",
					 file);
		off += (size_t)w;
	}
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write_all(fd, buf, off) < 0)
		return error_errno(err, "write %s", file);
	return 0;
}

int ns_write_id_maps(pid_t pid, const struct spec *spec, struct error **err)
{
	const struct spec_linux *l = spec->linux_;

	if (!l)
		return 0;
	if (write_map(pid, "uid_map", l->uid_mappings, l->n_uid_mappings, err) <
		0 ||
	    write_map(pid, "gid_map", l->gid_mappings, l->n_gid_mappings, err) <
		0)
		return -1;
	return 0;
}

/* Starting the child in its cgroup spares the cgroup.procs write, which
 * takes the cgroup threadgroup lock for writing and so may wait for an
 * RCU grace period (milliseconds); a fork takes it for reading only. */
pid_t ns_clone(unsigned long flags, int cgroup_fd, bool *in_cgroup)
{
	struct clone_args args = {
	    .flags = flags | CLONE_INTO_CGROUP,
	    .exit_signal = SIGCHLD,
	    .cgroup = (uint64_t)cgroup_fd,
	};
	long pid;

	*in_cgroup = false;
	if (cgroup_fd >= 0) {
		pid = syscall(SYS_clone3, &args, sizeof(args));
		if (pid >= 0) {
			*in_cgroup = true;
			return (pid_t)pid;
		}
		if (errno != ENOSYS && errno != E2BIG)
			return -1;
	}
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL,
			      NULL);
}

#if defined(__x86_64__)
/* clone3(args): in the child, which starts on args->stack, call fn(arg)
 * and exit with its value; never return there.  fn and arg travel in
 * r12 and r13, which the system call keeps and the child inherits. */
static long clone3_call(struct clone_args *args, int (*fn)(void *), void *arg)
{
	register long rax __asm__("rax") = SYS_clone3;
	register struct clone_args *rdi __asm__("rdi") = args;
	register size_t rsi __asm__("rsi") = sizeof(*args);
	register int (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "hlt\n"
			 "1:"
			 : "+r"(rax)
			 : "r"(rdi), "r"(rsi), "r"(r12),
			   "r"(r13), [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	return rax;
}
#endif

pid_t ns_clone_shared(unsigned long flags, int cgroup_fd, bool *in_cgroup,
		      int (*fn)(void *), void *arg)
{
#if defined(__x86_64__)
	/* the child's stack, with a guard page below it: an overflow faults
	 * instead of writing over this process's memory */
	const size_t guard = 4096, size = 256 * 1024;
	struct clone_args args = {
	    .flags = flags | CLONE_VM | CLONE_VFORK |
		     (cgroup_fd >= 0 ? CLONE_INTO_CGROUP : 0),
	    .exit_signal = SIGCHLD,
	    .stack_size = size,
	    .cgroup = cgroup_fd >= 0 ? (uint64_t)cgroup_fd : 0,
	};
	char *map = mmap(NULL, guard + size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long pid;

	*in_cgroup = false;
	if (map == MAP_FAILED)
		return -1;
	if (mprotect(map, guard, PROT_NONE) < 0) {
		munmap(map, guard + size);
		return -1;
	}
	args.stack = (uint64_t)(uintptr_t)(map + guard);
	pid = clone3_call(&args, fn, arg);
	munmap(map, guard + size);
	if (pid < 0) {
		errno = pid == -E2BIG ? ENOSYS : (int)-pid;
		return -1;
	}
	*in_cgroup = cgroup_fd >= 0;
	return (pid_t)pid;
#else
	(void)flags;
	(void)cgroup_fd;
	(void)fn;
	(void)arg;
	*in_cgroup = false;
	errno = ENOSYS;
	return -1;
#endif
}
