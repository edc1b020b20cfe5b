/* The egress helper's seccomp filters (egress_seccomp.h): the helper's
 * own and its connections' program's, built with libseccomp at build
 * time (tools/seccomp_gen.c) as corral's other fixed filters are. */
#include "egress_seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>

#include "egress_child.h"
#include "util.h"

/* The egress helper (runtime/egress/egress_proxy.c) accepts, reads and writes
 * sockets, resolves over UDP, forks one broker per connection, logs by
 * write() and reads the clock; socket() only for IPv4 and IPv6, clone()
 * only as fork() makes it, and execveat() only of the connection's
 * program, its memfd at EGRESS_CONN_IMAGE_FD (below); that program's
 * start (arch_prctl, set_tid_address) and its own filter (seccomp) run
 * under this filter too.  Anything else fails with EPERM: it has no
 * business with files, ptrace, mounts or ids. */
static const char *const egress_allowed[] = {
    "read",
    "write",
    "readv",
    "writev",
    "close",
    "poll",
    "ppoll",
    "accept4",
    "connect",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "setsockopt",
    "getsockopt",
    "getsockname",
    "getpeername",
    "shutdown",
    "fcntl",
    "lseek",
    "fstat",
    "newfstatat",
    "clock_gettime",
    "gettimeofday",
    "nanosleep",
    "clock_nanosleep",
    "exit",
    "exit_group",
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "madvise",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "restart_syscall",
    "wait4",
    "waitid",
    "getpid",
    "gettid",
    "getrandom",
    "futex",
    "set_robust_list",
    "rseq",
    "sched_yield",
    "getuid",
    "getgid",
    "geteuid",
    "getegid",
    "uname",
    "close_range",
    "socketpair",
    "dup2",
    "dup3",
    "arch_prctl",
    "set_tid_address",
    "seccomp",
};

/* The connection's own program (egress/main.c, runtime/egress/egress_child.h)
 * reads the workload's bytes: it may read and write the descriptors it
 * was given, take the upstream's socket from its broker (recvmsg) and
 * end; no socket, connect, bind, listen, accept, exec, open, fork or
 * anything else (EPERM). */
static const char *const egress_conn_allowed[] = {
    "read",
    "write",
    "readv",
    "writev",
    "close",
    "poll",
    "ppoll",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "shutdown",
    "fcntl",
    "clock_gettime",
    "gettimeofday",
    "nanosleep",
    "clock_nanosleep",
    "exit",
    "exit_group",
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "madvise",
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "restart_syscall",
    "getpid",
    "gettid",
    "tkill",
    "getrandom",
    "futex",
    "lseek",
};

int seccomp_egress_build(struct seccomp_program *out, struct error **err)
{
	static const int families[] = {AF_INET, AF_INET6};
	const struct scmp_arg_cmp fork_only =
	    SCMP_A0(SCMP_CMP_MASKED_EQ,
		    CLONE_THREAD | CLONE_VM | CLONE_NEWNS | CLONE_NEWUSER |
			CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC |
			CLONE_NEWUTS | CLONE_NEWCGROUP,
		    0);
	const struct scmp_arg_cmp image_only[] = {
	    SCMP_A0(SCMP_CMP_EQ, EGRESS_CONN_IMAGE_FD),
	    SCMP_A4(SCMP_CMP_EQ, AT_EMPTY_PATH)};
	scmp_filter_ctx ctx;
	int r;

	*out = (struct seccomp_program){0};
	if (seccomp_filter_new(SCMP_ACT_ERRNO(EPERM), &ctx, err) < 0)
		return error_wrap(err, "seccomp egress");
	r = seccomp_allow_names(ctx, egress_allowed, ARRAY_SIZE(egress_allowed),
				err);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(families); i++) {
		const struct scmp_arg_cmp fam =
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)families[i]);

		r = seccomp_add_rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket),
				     &fam, 1, "socket", err);
	}
	if (r == 0)
		r = seccomp_add_rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone),
				     &fork_only, 1, "clone", err);
	if (r == 0)
		r = seccomp_add_rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(execveat),
				     image_only, 2, "execveat", err);
	if (seccomp_filter_finish(ctx, r, out, err) < 0)
		return error_wrap(err, "seccomp egress");
	return 0;
}

int seccomp_egress_conn_build(struct seccomp_program *out, struct error **err)
{
	scmp_filter_ctx ctx;
	int r;

	*out = (struct seccomp_program){0};
	if (seccomp_filter_new(SCMP_ACT_ERRNO(EPERM), &ctx, err) < 0)
		return error_wrap(err, "seccomp egress connection");
	r = seccomp_allow_names(ctx, egress_conn_allowed,
				ARRAY_SIZE(egress_conn_allowed), err);
	if (seccomp_filter_finish(ctx, r, out, err) < 0)
		return error_wrap(err, "seccomp egress connection");
	return 0;
}
