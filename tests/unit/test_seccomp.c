/* Unit tests of corral's own seccomp filters: the baseline, the
 * supervisor's and the egress helper's.  Each case forks a child that sets
 * no_new_privs, loads the compiled filter and makes one raw system call; its
 * exit status carries the errno back (0 for success) unless the filter killed
 * it.  No root needed.  The arguments are chosen so that a call the filter
 * wrongly let through would fail harmlessly in the kernel with another errno.
 *
 * The argument filters and the other-ABI checks are also run through a
 * small BPF interpreter over many inputs: it covers what the kernel here
 * may not offer (i386 emulation is often off) and works under valgrind,
 * which does not implement seccomp(2) and so cannot run the children. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "egress_child.h"
#include "egress_seccomp.h"
#include "seccomp_filter.h"
#include "unit.h"
#include "util.h"

#define LOAD_FAILED 255
#define KILLED (-SIGSYS)
#define HIGH ((long)1 << 32) /* ignored by the kernel for int arguments */

/* ---- running one call under a filter --------------------------------- */

/* False under valgrind, after saying so once per test. */
static bool children_run(void)
{
	if (RUNNING_ON_VALGRIND)
		printf("# skip: valgrind cannot load seccomp filters\n");
	return !RUNNING_ON_VALGRIND;
}

static long sys(long r)
{
	return r < 0 ? -errno : r;
}

/* The outcome of fn in a child, under p when p is not NULL: the errno it
 * returned (0 for success), or minus the signal that killed the child. */
static int outcome(const struct seccomp_program *p, long (*fn)(void))
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

static void check_cases(const struct seccomp_program *p,
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
	static long fname(void)                                                \
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

static long call_pipe_rw(void)
{
	int fds[2];
	char c = 'x';

	if (syscall(SYS_pipe2, fds, O_CLOEXEC) < 0 ||
	    syscall(SYS_write, fds[1], &c, 1) != 1)
		return -errno;
	return sys(syscall(SYS_read, fds[0], &c, 1));
}

static long call_futex_wake(void)
{
	int word = 0;

	return sys(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL));
}

static long call_unix_socketpair(void)
{
	int sv[2];

	return sys(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv));
}

/* A raw clone; a child that should not exist leaves at once. */
static long clone_with(unsigned long flags)
{
	long r = syscall(SYS_clone, flags, 0, NULL, NULL, 0);

	if (r == 0)
		_exit(0);
	if (r < 0)
		return -errno;
	return sys(waitpid((pid_t)r, NULL, 0));
}

static long call_clone_plain(void)
{
	return clone_with(SIGCHLD);
}

static long call_clone_newns(void)
{
	return clone_with(CLONE_NEWNS | SIGCHLD);
}

static long call_clone_newuser(void)
{
	return clone_with(CLONE_NEWUSER | SIGCHLD);
}

/* glibc's fork and pthread_create: clone3 first, clone on ENOSYS. */
static long call_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return pid < 0 ? -errno : sys(waitpid(pid, NULL, 0));
}

static void *thread_main(void *arg)
{
	return arg;
}

static long call_thread(void)
{
	pthread_t t;
	int r = pthread_create(&t, NULL, thread_main, NULL);

	return r ? -r : -pthread_join(t, NULL);
}

/* getpid through the i386 ABI (int 0x80) from a 64-bit process. */
static long call_int80_getpid(void)
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

/* ---- the baseline ------------------------------------------------------ */

static const struct call_case baseline_cases[] = {
    {"getpid", call_getpid, 0},
    {"pipe2+write+read", call_pipe_rw, 0},
    {"openat", call_openat, 0},
    {"mmap", call_mmap, 0},
    {"futex", call_futex_wake, 0},
    {"keyctl", call_keyctl, EPERM},
    {"add_key", call_add_key, EPERM},
    {"bpf", call_bpf, EPERM},
    {"mount", call_mount, EPERM},
    {"umount2", call_umount2, EPERM},
    {"unshare(CLONE_NEWUSER)", call_unshare_user, EPERM},
    {"setns", call_setns, EPERM},
    {"ptrace", call_ptrace, EPERM},
    {"io_uring_setup", call_io_uring_setup, EPERM},
    {"perf_event_open", call_perf_event_open, EPERM},
    {"kexec_load", call_kexec_load, EPERM},
    {"userfaultfd", call_userfaultfd, EPERM},
    {"open_by_handle_at", call_open_by_handle_at, EPERM},
    {"syscall(1000)", call_1000, ENOSYS},
    {"get_mempolicy (not listed)", call_get_mempolicy, ENOSYS},
};

TEST(baseline_allows_ordinary_calls_and_denies_the_dangerous)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(p.flags == 0);
	CHECK(p.prog.len > 0 && p.prog.len <= BPF_MAXINSNS);
	printf("# baseline: %u BPF instructions\n", p.prog.len);
	check_cases(&p, baseline_cases, ARRAY_SIZE(baseline_cases));
	seccomp_program_free(&p);
}

static const struct call_case clone_cases[] = {
    {"clone(SIGCHLD)", call_clone_plain, 0},
    {"clone(CLONE_NEWNS)", call_clone_newns, EPERM},
    {"clone(CLONE_NEWUSER)", call_clone_newuser, EPERM},
    {"clone3", call_clone3, ENOSYS},
    {"fork()", call_fork, 0},
    {"pthread_create", call_thread, 0},
};

TEST(baseline_clone_without_namespaces_only)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	check_cases(&p, clone_cases, ARRAY_SIZE(clone_cases));
	seccomp_program_free(&p);
}

static const struct call_case argument_cases[] = {
    {"socket(AF_UNIX)", call_unix_socket, 0},
    {"socket(AF_INET)", call_inet_socket, 0},
    {"socket(AF_NETLINK, NETLINK_ROUTE)", call_netlink_route, 0},
    {"socketpair(AF_UNIX)", call_unix_socketpair, 0},
    {"socket(AF_PACKET)", call_packet_socket, EPERM},
    {"socket(AF_PACKET | 1 << 32)", call_packet_socket_high, EPERM},
    {"socket(AF_VSOCK)", call_vsock_socket, EPERM},
    {"socket(AF_ALG)", call_alg_socket, EPERM},
    {"socket(AF_NETLINK, NETLINK_AUDIT)", call_audit_socket, EPERM},
    {"socket(AF_NETLINK, NETLINK_AUDIT | 1 << 32)", call_audit_socket_high,
     EPERM},
    {"socketpair(AF_VSOCK)", call_vsock_socketpair, EPERM},
    {"ioctl(FIONREAD) reaches the kernel", call_ioctl_fionread, EBADF},
    {"ioctl(TIOCSTI | 1 << 32)", call_tiocsti_high, EPERM},
    {"ioctl(TIOCLINUX)", call_tioclinux, EPERM},
    {"personality(0xffffffff)", call_personality_query, 0},
    {"personality(PER_LINUX | 1 << 32)", call_personality_linux_high, 0},
    {"personality(PER_BSD)", call_personality_bsd, EPERM},
    {"personality(READ_IMPLIES_EXEC)", call_personality_exec, EPERM},
};

TEST(baseline_filters_socket_ioctl_personality_by_argument)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	check_cases(&p, argument_cases, ARRAY_SIZE(argument_cases));
	seccomp_program_free(&p);
}

TEST(baseline_kills_other_abis)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	if (children_run()) {
		CHECK(outcome(&p, call_x32_getpid) == KILLED);
		if (outcome(NULL, call_int80_getpid) == 0)
			CHECK(outcome(&p, call_int80_getpid) == KILLED);
		else
			printf("# skip: no i386 emulation (int 0x80)\n");
	}
	seccomp_program_free(&p);
}

TEST(baseline_extra_allows_a_listed_call)
{
	char *extra[] = {(char *)"get_mempolicy", (char *)"no_such_call",
			 (char *)"s390_runtime_instr" /* not here: skipped */};
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(extra, ARRAY_SIZE(extra), &p, &e) == 0);
	if (children_run()) {
		CHECK(outcome(&p, call_get_mempolicy) == 0);
		CHECK(outcome(&p, call_mount) == EPERM);
	}
	seccomp_program_free(&p);
}

/* A policy cannot widen the fixed calls: naming one fails the compile, and
 * says which (libseccomp would drop an allow behind the call's own rule). */
TEST(baseline_extra_cannot_allow_fixed_calls)
{
	static const char *const fixed[] = {"mount",	  "unshare", "clone",
					    "clone3",	  "socket",  "ioctl",
					    "personality"};

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		char *extra[] = {(char *)"get_mempolicy", (char *)fixed[i]};
		struct seccomp_program p;
		struct error *e = NULL;

		CHECK(seccomp_baseline_compile(extra, 2, &p, &e) < 0);
		CHECK(p.prog.filter == NULL);
		CHECK(e && strstr(e->msg, fixed[i]));
		if (e)
			printf("# %s\n", e->msg);
		error_free(e);
	}
}

/* ---- the BPF, evaluated here ------------------------------------------- */

#include "seccomp_eval.h"

/* The x32 and i386 numbers of getpid, run through the x86-64 filter. */
TEST(bpf_other_abis_are_killed)
{
	struct seccomp_program b, s;
	_cleanup_error_ struct error *e = NULL;
	uint32_t native = seccomp_arch_native();

	CHECK(seccomp_baseline_compile(NULL, 0, &b, &e) == 0);
	CHECK(seccomp_supervisor_compile(&s, &e) == 0);
	CHECK(verdict(&b, SYS_getpid, native, NULL) == SECCOMP_RET_ALLOW);
	CHECK(verdict(&b, 1000, native, NULL) == RET_ENOSYS);
	/* -1 is left to the kernel (tracers use it to skip a call) */
	CHECK(verdict(&b, -1, native, NULL) == RET_ENOSYS);
#if defined(__x86_64__)
	for (int i = 0; i < 2; i++) {
		const struct seccomp_program *p = i ? &s : &b;

		CHECK(verdict(p, __X32_SYSCALL_BIT | SYS_getpid, native,
			      NULL) == SECCOMP_RET_KILL_PROCESS);
		CHECK(verdict(p, __X32_SYSCALL_BIT | 1000, native, NULL) ==
		      SECCOMP_RET_KILL_PROCESS);
		CHECK(verdict(p, 20 /* getpid */, AUDIT_ARCH_I386, NULL) ==
		      SECCOMP_RET_KILL_PROCESS);
	}
#endif
	seccomp_program_free(&b);
	seccomp_program_free(&s);
}

/* Values around the filters' cut points, every bit, and pseudo-random
 * ones, each with 0, 1, all ones and random bits in the upper half. */
static size_t make_samples(uint64_t *out, size_t max)
{
	static const uint32_t near[] = {0,	8,	 9,	  16,
					17,	38,	 40,	  0x5412,
					0x541c, 0x20000, 0x20008, 0xffffffff};
	static const uint32_t highs[] = {0, 1, 0xffffffff, 0x5eed};
	uint32_t lows[1200], x = 12345;
	size_t n = 0, k = 0;

	for (uint32_t v = 0; v < 80; v++)
		lows[n++] = v;
	for (size_t i = 0; i < ARRAY_SIZE(near); i++)
		for (int d = -2; d <= 2; d++)
			lows[n++] = near[i] + (uint32_t)d;
	for (int b = 0; b < 32; b++) {
		lows[n++] = UINT32_C(1) << b;
		lows[n++] = (UINT32_C(1) << b) - 1;
		lows[n++] = ~(UINT32_C(1) << b);
	}
	while (n < ARRAY_SIZE(lows)) {
		x = x * 1103515245 + 12345;
		lows[n++] = x ^ (x >> 13);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t h = 0; h < ARRAY_SIZE(highs) && k < max; h++)
			out[k++] = (uint64_t)highs[h] << 32 | lows[i];
	return k;
}

static const uint32_t namespace_flags =
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;

static bool in(uint32_t v, const uint32_t *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

/* The expected answer of the baseline for nr with argument arg = x, the
 * other arguments as in args. */
static uint32_t expected(int nr, unsigned int arg, uint64_t x,
			 const uint64_t *args)
{
	static const uint32_t bad_domains[] = {AF_PACKET, AF_ALG, AF_VSOCK};
	static const uint32_t personas[] = {0, 8, 0x20000, 0x20008, 0xffffffff};
	uint32_t low = (uint32_t)x;
	uint64_t a[6];
	bool deny;

	memcpy(a, args, sizeof(a));
	a[arg] = x;
	if (nr == SYS_socket || nr == SYS_socketpair)
		deny = in((uint32_t)a[0], bad_domains, 3) ||
		       ((uint32_t)a[0] == AF_NETLINK &&
			(uint32_t)a[2] == NETLINK_AUDIT);
	else if (nr == SYS_ioctl)
		deny = low == TIOCSTI || low == TIOCLINUX;
	else if (nr == SYS_personality)
		deny = !in(low, personas, ARRAY_SIZE(personas));
	else
		deny = (low & namespace_flags) != 0; /* clone */
	return deny ? RET_EPERM : SECCOMP_RET_ALLOW;
}

TEST(bpf_argument_filters_over_many_values)
{
	static const struct {
		int nr;
		unsigned int arg;
		uint64_t args[6];
	} rows[] = {
		{SYS_socket, 0, {0, SOCK_STREAM, 0}},
		{SYS_socket, 0, {0, SOCK_RAW, NETLINK_AUDIT}},
		{SYS_socket, 2, {AF_NETLINK, SOCK_RAW, 0}},
		{SYS_socket, 2, {AF_INET, SOCK_RAW, 0}},
		{SYS_socketpair, 0, {0, SOCK_STREAM, 0}},
		{SYS_socketpair, 2, {AF_NETLINK, SOCK_RAW, 0}},
		{SYS_ioctl, 1, {0}},
		{SYS_personality, 0, {0}},
#if defined(__x86_64__)
		{SYS_clone, 0, {0}},
#endif
	};
	static uint64_t samples[5000];
	size_t n = make_samples(samples, ARRAY_SIZE(samples)), wrong = 0;
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	for (size_t r = 0; r < ARRAY_SIZE(rows); r++)
		for (size_t i = 0; i < n; i++) {
			uint64_t a[6];
			uint32_t want, got;

			memcpy(a, rows[r].args, sizeof(a));
			a[rows[r].arg] = samples[i];
			want = expected(rows[r].nr, rows[r].arg, samples[i],
					rows[r].args);
			got = verdict(&p, rows[r].nr, seccomp_arch_native(), a);
			if (got != want && wrong++ < 5)
				printf("# call %d arg %u = %#llx: got %#x, "
				       "expected %#x\n",
				       rows[r].nr, rows[r].arg,
				       (unsigned long long)samples[i], got,
				       want);
		}
	printf("# %zu values per argument\n", n);
	CHECK(wrong == 0);
	seccomp_program_free(&p);
}

/* ---- the supervisor ---------------------------------------------------- */

static const struct call_case supervisor_cases[] __attribute__((unused)) = {
    {"wait4", call_wait4, ECHILD},
    {"kill(self, 0)", call_kill_self, 0},
    {"write", call_write_empty, 0},
    {"getpid", call_getpid, 0},
    /* cgroup.procs, reopened on cgroup v1 (stage/reaper.c) */
    {"openat", call_openat, 0},
    {"socket", call_unix_socket, KILLED},
    {"ioctl", call_ioctl_fionread, KILLED},
    {"mmap", call_mmap, 0},
    {"clone", call_clone_plain, KILLED},
};

TEST(supervisor_allows_waiting_and_signalling_only)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_supervisor_compile(&p, &e) == 0);
	CHECK(p.flags == 0 && p.prog.len > 0);
#if defined(__SANITIZE_ADDRESS__)
	/* the sanitizer's own system calls are not on this short list */
	printf("# skip: the supervisor filter under AddressSanitizer\n");
#else
	check_cases(&p, supervisor_cases, ARRAY_SIZE(supervisor_cases));
#endif
	seccomp_program_free(&p);
}

/* ---- the egress helper ------------------------------------------------ */

CALL(call_execve, SYS_execve, "/nonexistent", NULL, NULL)
CALL(call_splice, SYS_splice, -1, NULL, -1, NULL, 1, 0)
/* fd EGRESS_CONN_IMAGE_FD is not open here: EBADF when let through */
CALL(call_execveat_image, SYS_execveat, EGRESS_CONN_IMAGE_FD, "", NULL, NULL,
     AT_EMPTY_PATH)
CALL(call_execveat_other, SYS_execveat, EGRESS_CONN_IMAGE_FD - 1, "", NULL,
     NULL, AT_EMPTY_PATH)
CALL(call_execveat_path, SYS_execveat, EGRESS_CONN_IMAGE_FD, "x", NULL, NULL, 0)
CALL(call_connect, SYS_connect, -1, NULL, 0)
CALL(call_bind, SYS_bind, -1, NULL, 0)
CALL(call_socketpair, SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, NULL)
CALL(call_recvmsg, SYS_recvmsg, -1, NULL, 0)

/* What the proxy's connections make (IPv4 and IPv6 sockets, forks) and
 * nothing that reaches a file, another namespace or another process. */
static const struct call_case egress_cases[] __attribute__((unused)) = {
    {"getpid", call_getpid, 0},
    {"socket(AF_INET)", call_inet_socket, 0},
    {"socket(AF_UNIX)", call_unix_socket, EPERM},
    {"socket(AF_NETLINK)", call_netlink_route, EPERM},
    {"fork", call_fork, 0},
    {"clone(CLONE_NEWNS)", call_clone_newns, EPERM},
    {"thread", call_thread, EPERM},
    {"openat", call_openat, EPERM},
    {"execve", call_execve, EPERM},
    {"execveat(the image)", call_execveat_image, EBADF},
    {"execveat(another fd)", call_execveat_other, EPERM},
    {"execveat(a path)", call_execveat_path, EPERM},
    {"splice", call_splice, EPERM},
    {"setns", call_setns, EPERM},
    {"ptrace", call_ptrace, EPERM},
    {"mount", call_mount, EPERM},
};

/* What a connection's own program may do: its descriptors' I/O, the
 * upstream's socket from its broker; never a socket, a connect, an exec,
 * a file or a fork of its own (issue 39, item 12). */
static const struct call_case egress_conn_cases[] __attribute__((unused)) = {
    {"getpid", call_getpid, 0},
    {"recvmsg", call_recvmsg, EBADF},
    {"socket(AF_INET)", call_inet_socket, EPERM},
    {"socket(AF_UNIX)", call_unix_socket, EPERM},
    {"socketpair", call_socketpair, EPERM},
    {"connect", call_connect, EPERM},
    {"bind", call_bind, EPERM},
    {"fork", call_fork, EPERM},
    {"openat", call_openat, EPERM},
    {"execve", call_execve, EPERM},
    {"execveat(the image)", call_execveat_image, EPERM},
    {"setns", call_setns, EPERM},
    {"ptrace", call_ptrace, EPERM},
};

TEST(egress_connection_cannot_dial_exec_or_open)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_egress_conn_build(&p, &e) == 0);
	/* what egress/main.c loads is this filter */
	CHECK(p.prog.len == seccomp_prebuilt_egress_conn.len &&
	      memcmp(p.prog.filter, seccomp_prebuilt_egress_conn.filter,
		     p.prog.len * sizeof(struct sock_filter)) == 0);
#if defined(__SANITIZE_ADDRESS__)
	printf(
	    "# skip: the egress connection's filter under AddressSanitizer\n");
#else
	check_cases(&p, egress_conn_cases, ARRAY_SIZE(egress_conn_cases));
#endif
	seccomp_program_free(&p);
}

TEST(egress_allows_inet_sockets_and_fork_only)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_prebuilt_copy(&seccomp_prebuilt_egress, &p, &e) == 1);
#if defined(__SANITIZE_ADDRESS__)
	/* as the supervisor's: the sanitizer's calls are not on the list */
	printf("# skip: the egress filter under AddressSanitizer\n");
#else
	check_cases(&p, egress_cases, ARRAY_SIZE(egress_cases));
#endif
	seccomp_program_free(&p);
}

/* ---- the self-only filter --------------------------------------------- */

CALL(call_setaffinity_self, SYS_sched_setaffinity, 0, 0, NULL)
CALL(call_setaffinity_other, SYS_sched_setaffinity, 1, 0, NULL)
CALL(call_setpriority_self, SYS_setpriority, PRIO_PROCESS, 0, 0x7fff)
CALL(call_setpriority_other, SYS_setpriority, PRIO_PROCESS, 1, 0x7fff)
CALL(call_setpriority_user, SYS_setpriority, PRIO_USER, 0, 0x7fff)
CALL(call_setscheduler_other, SYS_sched_setscheduler, 1, -1, NULL)
CALL(call_ioprio_user, SYS_ioprio_set, 3, 0, -1)
CALL(call_prlimit_get_other, SYS_prlimit64, 1, RLIMIT_NOFILE, NULL, NULL)
CALL(call_prlimit_set_other, SYS_prlimit64, 1, RLIMIT_NOFILE, 8, NULL)
CALL(call_prlimit_set_self, SYS_prlimit64, 0, 0x7fff, NULL, NULL)

/* Another process's scheduling, priority and limits are refused; the
 * caller's own go to the kernel (which answers the bad arguments). */
static const struct call_case self_only_cases[] = {
    {"sched_setaffinity(0)", call_setaffinity_self, EINVAL},
    {"sched_setaffinity(1)", call_setaffinity_other, EPERM},
    {"setpriority(PRIO_PROCESS, 0)", call_setpriority_self, 0},
    {"setpriority(PRIO_PROCESS, 1)", call_setpriority_other, EPERM},
    {"setpriority(PRIO_USER, 0)", call_setpriority_user, EPERM},
    {"sched_setscheduler(1)", call_setscheduler_other, EPERM},
    {"ioprio_set(IOPRIO_WHO_USER)", call_ioprio_user, EPERM},
    {"prlimit64(1, get)", call_prlimit_get_other, 0},
    {"prlimit64(1, set)", call_prlimit_set_other, EPERM},
    {"prlimit64(0, bad resource)", call_prlimit_set_self, EINVAL},
    {"getpid", call_getpid, 0},
};

TEST(self_only_refuses_other_processes_alone)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_self_only_build(&p, &e) == 0);
	check_cases(&p, self_only_cases, ARRAY_SIZE(self_only_cases));
	seccomp_program_free(&p);
}

/* A pause makes no process or thread; the rest goes to the baseline. */
static const struct call_case no_fork_cases[] = {
    {"fork", call_fork, EPERM},	     {"clone", call_clone_plain, EPERM},
    {"clone3", call_clone3, ENOSYS}, {"thread", call_thread, EPERM},
    {"getpid", call_getpid, 0},	     {"openat", call_openat, 0},
};

TEST(no_fork_refuses_new_processes_alone)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_no_fork_build(&p, &e) == 0);
	check_cases(&p, no_fork_cases, ARRAY_SIZE(no_fork_cases));
	seccomp_program_free(&p);
	CHECK(seccomp_no_fork_build(&p, &e) == 0);
	CHECK(p.prog.len == seccomp_prebuilt_no_fork.len &&
	      memcmp(p.prog.filter, seccomp_prebuilt_no_fork.filter,
		     p.prog.len * sizeof(struct sock_filter)) == 0);
	seccomp_program_free(&p);
}

static bool same_program(const struct seccomp_program *a,
			 const struct seccomp_program *b)
{
	return a->flags == b->flags && a->prog.len == b->prog.len &&
	       memcmp(a->prog.filter, b->prog.filter,
		      a->prog.len * sizeof(struct sock_filter)) == 0;
}

/* The copies made at build time are what libseccomp builds now: a source
 * change that missed the generator, or another libseccomp, shows here. */
TEST(prebuilt_filters_match_a_fresh_build)
{
	struct seccomp_program pre, built;
	_cleanup_error_ struct error *e = NULL;
	char *extra[] = {(char *)"get_mempolicy"};

	CHECK(seccomp_prebuilt_baseline.arch == seccomp_arch_native());
	CHECK(seccomp_baseline_compile(NULL, 0, &pre, &e) == 0);
	CHECK(seccomp_baseline_build(NULL, 0, &built, &e) == 0);
	CHECK(pre.prog.filter != seccomp_prebuilt_baseline.filter);
	CHECK(same_program(&pre, &built));
	seccomp_program_free(&pre);
	seccomp_program_free(&built);
	CHECK(seccomp_supervisor_compile(&pre, &e) == 0);
	CHECK(seccomp_supervisor_build(&built, &e) == 0);
	CHECK(same_program(&pre, &built));
	seccomp_program_free(&pre);
	seccomp_program_free(&built);
	CHECK(seccomp_prebuilt_copy(&seccomp_prebuilt_egress, &pre, &e) == 1);
	CHECK(seccomp_egress_build(&built, &e) == 0);
	CHECK(same_program(&pre, &built));
	seccomp_program_free(&pre);
	seccomp_program_free(&built);
	CHECK(seccomp_self_only_build(&built, &e) == 0);
	CHECK(built.prog.len == seccomp_prebuilt_self_only.len &&
	      memcmp(built.prog.filter, seccomp_prebuilt_self_only.filter,
		     built.prog.len * sizeof(struct sock_filter)) == 0);
	seccomp_program_free(&built);
	/* a policy's extra call is built, not the prebuilt copy */
	CHECK(seccomp_baseline_compile(extra, 1, &pre, &e) == 0);
	CHECK(pre.prog.len != seccomp_prebuilt_baseline.len ||
	      memcmp(pre.prog.filter, seccomp_prebuilt_baseline.filter,
		     pre.prog.len * sizeof(struct sock_filter)) != 0);
	seccomp_program_free(&pre);
}

/* config.json's filter through the cache in a state root: a miss
 * compiles and stores, a hit returns what is stored, an entry under the
 * same name but for another key is a miss, and a full cache stores no
 * more. */
static void plant_entry(const char *dir, const char *name, const char *key,
			const struct seccomp_program *p)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fprintf(f, "corral-seccomp-1\n%zu %u %u\n%s", strlen(key), p->flags,
		(unsigned)p->prog.len, key);
	fwrite(p->prog.filter, sizeof(struct sock_filter), p->prog.len, f);
	fclose(f);
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	*len = f ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

TEST(config_filter_cache_hits_misses_and_bounds)
{
	char root[] = "/tmp/corral-test-seccomp-XXXXXX", dir[4096], path[8192];
	char *names[] = {(char *)"getpid"};
	struct spec_syscall rule = {
	    .names = names, .n_names = 1, .action = (char *)"SCMP_ACT_ALLOW"};
	struct spec_seccomp sc = {.default_action = (char *)"SCMP_ACT_ERRNO",
				  .syscalls = &rule,
				  .n_syscalls = 1};
	struct seccomp_program fresh, a, b, other;
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *entry = NULL, *key = NULL;
	char name[256] = "";
	size_t len;
	DIR *d;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/.seccomp", root);
	CHECK(seccomp_compile(&sc, &fresh, &e) == 0);
	CHECK(seccomp_compile_cached(root, &sc, &a, &e) == 0);
	CHECK(same_program(&fresh, &a));
	/* one entry, holding its key */
	d = opendir(dir);
	for (struct dirent *x; d && (x = readdir(d));)
		if (x->d_name[0] != '.')
			snprintf(name, sizeof(name), "%s", x->d_name);
	if (d)
		closedir(d);
	CHECK(strlen(name) == 16);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	entry = read_whole(path, &len);
	CHECK(strstr(entry, "\"SCMP_ACT_ERRNO\"") != NULL);
	key = strndup(
	    strchr(strchr(entry, '\n') + 1, '\n') + 1,
	    len - (size_t)(strchr(strchr(entry, '\n') + 1, '\n') + 1 - entry) -
		a.prog.len * sizeof(struct sock_filter));
	/* a hit returns the stored program: plant another one under the key */
	CHECK(seccomp_supervisor_build(&other, &e) == 0);
	plant_entry(dir, name, key, &other);
	CHECK(seccomp_compile_cached(root, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &other));
	seccomp_program_free(&b);
	/* the same name with another key is a miss, and is rewritten */
	plant_entry(dir, name, "another key", &other);
	CHECK(seccomp_compile_cached(root, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &fresh));
	seccomp_program_free(&b);
	/* a full cache stores nothing new */
	CHECK(unlink(path) == 0);
	for (int i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "%s/filler%02d", dir, i);
		fclose(fopen(path, "w"));
	}
	CHECK(seccomp_compile_cached(root, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &fresh));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK(access(path, F_OK) < 0);
	seccomp_program_free(&b);
	/* no state root: compiled, no cache */
	CHECK(seccomp_compile_cached(NULL, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &fresh));
	seccomp_program_free(&b);
	for (int i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "%s/filler%02d", dir, i);
		unlink(path);
	}
	rmdir(dir);
	rmdir(root);
	seccomp_program_free(&fresh);
	seccomp_program_free(&a);
	seccomp_program_free(&other);
}

/* valgrind does not implement seccomp(2), so libseccomp's probe of the
 * kernel finds no SECCOMP_RET_KILL_PROCESS; level 3 says it is there. */
int main(void)
{
	if (RUNNING_ON_VALGRIND)
		seccomp_api_set(3);
	return unit_run();
}
