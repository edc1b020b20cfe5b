/* One raw system call in a child under a seccomp filter, for the unit
 * tests of corral's filters (test_seccomp.c and test_seccomp_own.c): the
 * child sets no_new_privs, loads the filter and makes the call; its exit
 * status carries the errno back (0 for success) unless the filter killed
 * it.  The arguments are chosen so that a call wrongly let through fails
 * harmlessly in the kernel with another errno. */
#ifndef CORRAL_TESTS_SECCOMP_CALLS_H
#define CORRAL_TESTS_SECCOMP_CALLS_H

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "seccomp_filter.h"
#include "unit.h"

#define LOAD_FAILED 255
#define KILLED (-SIGSYS)
#define HIGH ((long)1 << 32) /* ignored by the kernel for int arguments */

/* ---- running one call under a filter --------------------------------- */

/* False under valgrind, after saying so once per test. */
static inline bool children_run(void)
{
	if (RUNNING_ON_VALGRIND)
		printf("# skip: valgrind cannot load seccomp filters\n");
	return !RUNNING_ON_VALGRIND;
}

static inline long sys(long r)
{
	return r < 0 ? -errno : r;
}

/* The outcome of fn in a child, under p when p is not NULL: the errno it
 * returned (0 for success), or minus the signal that killed the child. */
static inline int outcome(const struct seccomp_program *p, long (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1000;
	if (pid == 0) {
		struct error *e = NULL;
		long r;

		if (p && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
			  seccomp_program_load(p, &e) < 0))
			_exit(LOAD_FAILED);
		r = fn();
		_exit(r < 0 ? (int)-r : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1000;
	return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

struct call_case {
	const char *name;
	long (*fn)(void);
	int expect; /* errno, 0 for success, or KILLED */
};

static inline void check_cases(const struct seccomp_program *p,
			       const struct call_case *c, size_t n)
{
	if (!children_run())
		return;
	for (size_t i = 0; i < n; i++) {
		int got = outcome(p, c[i].fn);

		if (got != c[i].expect)
			printf("# %s: got %d (%s), expected %d\n", c[i].name,
			       got, got > 0 ? strerror(got) : "-", c[i].expect);
		CHECK(got == c[i].expect);
	}
}

/* ---- the calls --------------------------------------------------------- */

/* One raw call with fixed arguments per function. */
#define CALL(fname, ...)                                                       \
	static inline long fname(void)                                         \
	{                                                                      \
		return sys(syscall(__VA_ARGS__));                              \
	}

CALL(call_getpid, SYS_getpid)
CALL(call_openat, SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC)
CALL(call_mmap, SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
CALL(call_unix_socket, SYS_socket, AF_UNIX, SOCK_STREAM, 0)
CALL(call_inet_socket, SYS_socket, AF_INET, SOCK_DGRAM, 0)
CALL(call_netlink_route, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)
CALL(call_ioctl_fionread, SYS_ioctl, -1, FIONREAD, NULL)
CALL(call_personality_query, SYS_personality, 0xffffffffL)
CALL(call_personality_linux_high, SYS_personality, PER_LINUX | HIGH)

CALL(call_keyctl, SYS_keyctl, 0x7fff, 0, 0, 0, 0)
CALL(call_add_key, SYS_add_key, NULL, NULL, NULL, 0, 0)
CALL(call_bpf, SYS_bpf, -1, NULL, 0)
CALL(call_mount, SYS_mount, 1, 1, 1, 0, 0)
CALL(call_umount2, SYS_umount2, 1, 0)
CALL(call_unshare_user, SYS_unshare, CLONE_NEWUSER)
CALL(call_setns, SYS_setns, -1, 0)
CALL(call_ptrace, SYS_ptrace, 0x7fff, 0, 0, 0)
CALL(call_io_uring_setup, SYS_io_uring_setup, 0, NULL)
CALL(call_perf_event_open, SYS_perf_event_open, NULL, 0, -1, -1, 0)
CALL(call_kexec_load, SYS_kexec_load, 0, 1000, NULL, 0)
CALL(call_userfaultfd, SYS_userfaultfd, 0x7fff0000)
CALL(call_open_by_handle_at, SYS_open_by_handle_at, -1, NULL, 0)
CALL(call_packet_socket, SYS_socket, AF_PACKET, SOCK_DGRAM, 0)
CALL(call_packet_socket_high, SYS_socket, AF_PACKET | HIGH, SOCK_DGRAM, 0)
CALL(call_vsock_socket, SYS_socket, AF_VSOCK, SOCK_STREAM, 0)
CALL(call_alg_socket, SYS_socket, AF_ALG, SOCK_SEQPACKET, 0)
CALL(call_audit_socket, SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT)
CALL(call_audit_socket_high, SYS_socket, AF_NETLINK, SOCK_RAW,
     NETLINK_AUDIT | HIGH)
CALL(call_vsock_socketpair, SYS_socketpair, AF_VSOCK, SOCK_STREAM, 0, NULL)
CALL(call_tiocsti_high, SYS_ioctl, -1, TIOCSTI | HIGH, NULL)
CALL(call_tioclinux, SYS_ioctl, -1, TIOCLINUX, NULL)
CALL(call_personality_bsd, SYS_personality, PER_BSD)
CALL(call_personality_exec, SYS_personality, READ_IMPLIES_EXEC)

CALL(call_1000, 1000)
CALL(call_get_mempolicy, SYS_get_mempolicy, NULL, NULL, 0, NULL, 0)
CALL(call_clone3, SYS_clone3, NULL, 0)
CALL(call_x32_getpid, __X32_SYSCALL_BIT | SYS_getpid)

CALL(call_wait4, SYS_wait4, -1, NULL, WNOHANG, NULL)
CALL(call_kill_self, SYS_kill, getpid(), 0)
CALL(call_write_empty, SYS_write, STDOUT_FILENO, "", 0)

static inline long call_pipe_rw(void)
{
	int fds[2];
	char c = 'x';

	if (syscall(SYS_pipe2, fds, O_CLOEXEC) < 0 ||
	    syscall(SYS_write, fds[1], &c, 1) != 1)
		return -errno;
	return sys(syscall(SYS_read, fds[0], &c, 1));
}

static inline long call_futex_wake(void)
{
	int word = 0;

	return sys(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL));
}

static inline long call_unix_socketpair(void)
{
	int sv[2];

	return sys(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv));
}

/* A raw clone; a child that should not exist leaves at once. */
static inline long clone_with(unsigned long flags)
{
	long r = syscall(SYS_clone, flags, 0, NULL, NULL, 0);

	if (r == 0)
		_exit(0);
	if (r < 0)
		return -errno;
	return sys(waitpid((pid_t)r, NULL, 0));
}

static inline long call_clone_plain(void)
{
	return clone_with(SIGCHLD);
}

static inline long call_clone_newns(void)
{
	return clone_with(CLONE_NEWNS | SIGCHLD);
}

static inline long call_clone_newuser(void)
{
	return clone_with(CLONE_NEWUSER | SIGCHLD);
}

/* glibc's fork and pthread_create: clone3 first, clone on ENOSYS. */
static inline long call_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return pid < 0 ? -errno : sys(waitpid(pid, NULL, 0));
}

static inline void *thread_main(void *arg)
{
	return arg;
}

static inline long call_thread(void)
{
	pthread_t t;
	int r = pthread_create(&t, NULL, thread_main, NULL);

	return r ? -r : -pthread_join(t, NULL);
}

/* getpid through the i386 ABI (int 0x80) from a 64-bit process. */
static inline long call_int80_getpid(void)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(20L) /* i386 getpid */
			 : "memory", "r8", "r9", "r10", "r11");
	return r;
#else
	return -ENOSYS;
#endif
}

#endif
