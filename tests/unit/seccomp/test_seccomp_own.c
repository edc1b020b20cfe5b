/* Unit tests of the filters corral puts on its own processes: the
 * supervisor's, the egress helper's and its connections', the self-only
 * filter of a workload that shares its supervisor's ids, and the pod
 * sandbox's no-fork filter.  How each call is made: seccomp_calls.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "egress_child.h"
#include "egress_seccomp.h"
#include "seccomp_calls.h"
#include "seccomp_filter.h"
#include "unit.h"
#include "util.h"

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

/* valgrind does not implement seccomp(2); level 3 says the kernel's
 * SECCOMP_RET_KILL_PROCESS is there (test_seccomp.c says why). */
int main(void)
{
	if (RUNNING_ON_VALGRIND)
		seccomp_api_set(3);
	return unit_run();
}
