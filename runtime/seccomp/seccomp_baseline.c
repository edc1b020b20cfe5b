/* corral's baseline seccomp filter, which every workload runs under, on
 * top of config.json's (seccomp_own.c has the filters of corral's own
 * processes, runtime/egress/egress_seccomp.c the egress helper's).
 *
 * The baseline is an allowlist of the calls ordinary programs make, in the
 * spirit of Docker's default profile without its capability-gated groups.
 * Anything else gets ENOSYS, so a call a future kernel adds is denied until
 * someone reads it and lists it.  The calls that widen the kernel's attack
 * surface or leave the sandbox get EPERM whatever the policy says, and a few
 * calls are filtered by argument.  Only the native architecture is in the
 * filter: a call through another ABI (i386 via int 0x80, x32 numbers on
 * x86-64) kills the process.
 */
#include "seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "util.h"

/* clang-format off */
/* Allowed without conditions.  Names unknown to this libseccomp or absent
 * on this architecture (the 32-bit and time64 variants on 64-bit ones) are
 * skipped. */
static const char *const baseline_allowed[] = {
	/* file I/O */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv",
	"pwritev", "preadv2", "pwritev2", "open", "openat", "openat2", "creat",
	"close", "close_range", "lseek", "_llseek", "dup", "dup2", "dup3",
	"fcntl", "fcntl64", "flock", "fsync", "fdatasync", "sync", "syncfs",
	"sync_file_range", "fallocate", "truncate", "truncate64", "ftruncate",
	"ftruncate64", "fadvise64", "fadvise64_64", "readahead", "sendfile",
	"sendfile64", "copy_file_range", "splice", "tee", "vmsplice",

	/* files and directories */
	"stat", "fstat", "lstat", "newfstatat", "statx", "stat64", "fstat64",
	"lstat64", "fstatat64", "statfs", "fstatfs", "statfs64", "fstatfs64",
	"access", "faccessat", "faccessat2", "readlink", "readlinkat",
	"getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir",
	"mkdirat", "rmdir", "rename", "renameat", "renameat2", "link", "linkat",
	"symlink", "symlinkat", "unlink", "unlinkat", "mknod", "mknodat",
	"chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat",
	"chown32", "fchown32", "lchown32", "umask", "utime", "utimes",
	"utimensat", "utimensat_time64", "futimesat", "getxattr", "lgetxattr",
	"fgetxattr", "setxattr", "lsetxattr", "fsetxattr", "listxattr",
	"llistxattr", "flistxattr", "removexattr", "lremovexattr",
	"fremovexattr", "inotify_init", "inotify_init1", "inotify_add_watch",
	"inotify_rm_watch",

	/* waiting for I/O; the older asynchronous I/O (io_uring is denied) */
	"poll", "ppoll", "ppoll_time64", "select", "_newselect", "pselect6",
	"pselect6_time64", "epoll_create", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2",
	"io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents",
	"io_pgetevents", "io_pgetevents_time64",

	/* memory */
	"brk", "mmap", "mmap2", "munmap", "mremap", "mprotect", "madvise",
	"mincore", "msync", "mlock", "mlock2", "mlockall", "munlock",
	"munlockall", "remap_file_pages", "pkey_alloc", "pkey_free",
	"pkey_mprotect", "memfd_create", "memfd_secret", "membarrier",

	/* processes and threads (clone is filtered by argument below) */
	"fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4",
	"waitid", "waitpid", "set_tid_address", "set_robust_list",
	"get_robust_list", "futex", "futex_time64", "futex_waitv", "rseq",
	"arch_prctl", "prctl", "get_thread_area", "set_thread_area", "getpid",
	"gettid", "getppid", "getpgid", "setpgid", "getpgrp", "getsid",
	"setsid", "pidfd_open", "pidfd_send_signal", "process_mrelease",

	/* scheduling and resource limits: without capabilities, only lower */
	"sched_yield", "sched_getaffinity", "sched_setaffinity",
	"sched_getattr", "sched_setattr", "sched_getparam", "sched_setparam",
	"sched_getscheduler", "sched_setscheduler", "sched_get_priority_max",
	"sched_get_priority_min", "sched_rr_get_interval",
	"sched_rr_get_interval_time64", "getpriority", "setpriority",
	"ioprio_get", "ioprio_set", "getrlimit", "ugetrlimit", "setrlimit",
	"prlimit64", "getrusage", "getcpu",

	/* credentials: without capabilities, only among the ids already held */
	"getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
	"getgroups", "setuid", "setgid", "setreuid", "setregid", "setresuid",
	"setresgid", "setfsuid", "setfsgid", "setgroups", "getuid32",
	"geteuid32", "getgid32", "getegid32", "getresuid32", "getresgid32",
	"getgroups32", "setuid32", "setgid32", "setreuid32", "setregid32",
	"setresuid32", "setresgid32", "setfsuid32", "setfsgid32",
	"setgroups32", "capget", "capset",

	/* signals */
	"kill", "tkill", "tgkill", "rt_sigaction", "rt_sigprocmask",
	"rt_sigreturn", "rt_sigpending", "rt_sigsuspend", "rt_sigtimedwait",
	"rt_sigtimedwait_time64", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
	"sigaltstack", "signalfd", "signalfd4", "sigreturn", "sigprocmask",
	"pause", "restart_syscall",

	/* time (reading it; setting it is denied) */
	"clock_gettime", "clock_gettime64", "clock_getres",
	"clock_getres_time64", "clock_nanosleep", "clock_nanosleep_time64",
	"nanosleep", "gettimeofday", "time", "times", "alarm", "getitimer",
	"setitimer", "timer_create", "timer_delete", "timer_getoverrun",
	"timer_gettime", "timer_gettime64", "timer_settime", "timer_settime64",
	"timerfd_create", "timerfd_gettime", "timerfd_gettime64",
	"timerfd_settime", "timerfd_settime64",

	/* sockets (socket and socketpair are filtered by argument below;
	 * socketcall is left out: it hides the arguments from the filter) */
	"accept", "accept4", "bind", "connect", "listen", "getsockname",
	"getpeername", "getsockopt", "setsockopt", "shutdown", "sendto",
	"sendmsg", "sendmmsg", "send", "recvfrom", "recvmsg", "recvmmsg",
	"recvmmsg_time64", "recv",

	/* IPC: pipes, System V and POSIX message queues, semaphores, shm */
	"pipe", "pipe2", "msgget", "msgsnd", "msgrcv", "msgctl", "semget",
	"semop", "semtimedop", "semtimedop_time64", "semctl", "shmget", "shmat",
	"shmdt", "shmctl", "ipc", "mq_open", "mq_unlink", "mq_timedsend",
	"mq_timedsend_time64", "mq_timedreceive", "mq_timedreceive_time64",
	"mq_notify", "mq_getsetattr",

	/* system information; a program sandboxing itself further */
	"uname", "sysinfo", "getrandom", "seccomp", "landlock_create_ruleset",
	"landlock_add_rule", "landlock_restrict_self",

	/* architecture-specific housekeeping (arm, riscv) */
	"arm_fadvise64_64", "arm_sync_file_range", "sync_file_range2",
	"breakpoint", "cacheflush", "set_tls", "riscv_flush_icache",
};

/* EPERM whatever config.json or the policy says. */
static const char *const baseline_denied[] = {
	/* keyrings are not namespaced */
	"keyctl", "add_key", "request_key",
	/* frequent sources of kernel exploits */
	"userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"bpf", "perf_event_open",
	/* reading or steering other processes */
	"ptrace", "process_vm_readv", "process_vm_writev", "process_madvise",
	"pidfd_getfd", "kcmp",
	/* the kernel itself: modules, kexec, swap, accounting, logs */
	"kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "reboot", "swapon", "swapoff", "acct", "syslog",
	"quotactl", "quotactl_fd", "lookup_dcookie", "nfsservctl", "_sysctl",
	"uselib", "ustat", "sysfs",
	/* the mount family and namespaces: the sandbox's own walls */
	"mount", "umount", "umount2", "pivot_root", "chroot", "fsopen",
	"fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
	"mount_setattr", "unshare", "setns",
	/* file handles bypass path checks (the "shocker" escape) */
	"open_by_handle_at", "name_to_handle_at", "fanotify_init",
	/* hardware ports and the host's clock */
	"iopl", "ioperm", "vm86", "vm86old", "settimeofday", "stime",
	"clock_settime", "clock_settime64", "clock_adjtime", "clock_adjtime64",
	"adjtimex",
};
/* clang-format on */

/* clone3 is allowed by nothing: its flags live in memory the filter cannot
 * read, and ENOSYS (the default) makes glibc fall back to clone. */
static const char *const baseline_clone3 = "clone3";

/* Namespace flags clone may not carry.  CLONE_NEWTIME (0x80) lies in the
 * exit-signal byte of clone's flags, which no valid signal reaches. */
static const uint32_t clone_namespace_flags[] = {
    CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
    CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET, CLONE_NEWTIME,
};

/* Architectures where clone's flags are not the first argument. */
static const struct {
	uint32_t arch;
	unsigned int arg;
} clone_flags_arg[] = {
    {SCMP_ARCH_S390X, 1},
    {SCMP_ARCH_S390, 1},
};

enum verdict { ALLOW, DENY };

/* A call filtered on one int argument: `values` get `listed`, every other
 * value the opposite.  With `when`, the row covers only calls whose argument
 * when_arg equals when_value, and the row without `when` for the same call
 * leaves that value to it. */
struct arg_filter {
	const char *syscall;
	unsigned int arg;
	enum verdict listed;
	uint32_t values[5];
	size_t n_values;
	bool when;
	unsigned int when_arg;
	uint32_t when_value;
};

#define VALUES(...)                                                            \
	.values = {__VA_ARGS__},                                               \
	.n_values = sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)
#define WHEN(arg, value) .when = true, .when_arg = (arg), .when_value = (value)

static const struct arg_filter baseline_arg_filters[] = {
    /* the personas of setarch and 32-bit builds, and the query */
    {"personality", 0, ALLOW,
     VALUES(PER_LINUX, PER_LINUX32, UNAME26, UNAME26 | PER_LINUX32,
	    0xffffffff)},
    /* raw packets, the kernel crypto API and host vsock: reach and
     * attack surface a workload has no business with */
    {"socket", 0, DENY, VALUES(AF_PACKET, AF_ALG, AF_VSOCK)},
    {"socket", 2, DENY, VALUES(NETLINK_AUDIT), WHEN(0, AF_NETLINK)},
    {"socketpair", 0, DENY, VALUES(AF_PACKET, AF_ALG, AF_VSOCK)},
    {"socketpair", 2, DENY, VALUES(NETLINK_AUDIT), WHEN(0, AF_NETLINK)},
    /* pushing input into a terminal another process reads */
    {"ioctl", 1, DENY, VALUES(TIOCSTI, TIOCLINUX)},
};

/* The numbers no allow rule may name: the denied calls and those filtered
 * by argument (libseccomp would drop the allow rule silently behind the
 * call's first unconditional rule; the policy gets an error instead). */
struct fixed_set {
	int nr[ARRAY_SIZE(baseline_denied) + ARRAY_SIZE(baseline_arg_filters) +
	       2];
	size_t n;
};

/* The native number of a call, or -1 when this libseccomp does not know it
 * or it does not exist here (libseccomp's negative pseudo-numbers). */
int seccomp_resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	return nr < 0 ? -1 : nr;
}

static bool is_fixed(const struct fixed_set *f, int nr)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->nr[i] == nr)
			return true;
	return false;
}

static int mark_fixed(struct fixed_set *f, int nr, struct error **err)
{
	if (is_fixed(f, nr))
		return 0;
	if (f->n == ARRAY_SIZE(f->nr))
		return error_set(err, ENOSPC, "seccomp: too many fixed calls");
	f->nr[f->n++] = nr;
	return 0;
}

/* ---- the calls filtered by argument -------------------------------------
 *
 * libseccomp says "any value but these" of an argument only as one rule
 * per aligned block of the values between them (a rule may compare an
 * argument once, and it ranks overlapping rules in an order of its own):
 * that was 430 of the baseline's 997 instructions, which the kernel checks
 * and compiles at every load.  So in libseccomp's program each of these
 * calls gets a marker instead, SECCOMP_RET_TRACE (an action corral uses
 * nowhere else) with the call's index as its data, and splice_tests()
 * turns each marker's return into a jump to the call's own test, appended
 * after the program: load the argument's low 32 bits (the upper half is
 * ignored, as the kernel ignores it), compare it with each value, return.
 * Every jump goes forward, as classic BPF requires. */

#define MARKER_BASE 0x5c00u
#define TESTS_MAX 64 /* below 256: every jump offset in a test fits a byte */

struct tests {
	struct sock_filter insn[TESTS_MAX];
	size_t n; /* may pass TESTS_MAX: splice_tests() refuses it */
	size_t start[ARRAY_SIZE(baseline_arg_filters) + 1];
	size_t n_calls;
};

static void emit(struct tests *t, uint16_t code, size_t jt, uint32_t k)
{
	if (t->n < TESTS_MAX)
		t->insn[t->n] = (struct sock_filter){code, (uint8_t)jt, 0, k};
	t->n++;
}

static uint32_t arg_low(unsigned int arg)
{
	bool big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	return (uint32_t)(offsetof(struct seccomp_data, args) + 8 * arg +
			  (big ? 4 : 0));
}

static uint32_t ret_of(enum verdict v)
{
	return v == ALLOW ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM;
}

/* Load a's argument; each of the `refined` values jumps to its own test,
 * to[i] instructions past this one's end; each listed value jumps to
 * `ret listed`; any other value returns the opposite. */
static void emit_compare(struct tests *t, const struct arg_filter *a,
			 const uint32_t *refined, const size_t *to,
			 size_t n_refined)
{
	size_t left = n_refined + a->n_values;

	emit(t, BPF_LD | BPF_W | BPF_ABS, 0, arg_low(a->arg));
	for (size_t i = 0; i < n_refined; i++)
		emit(t, BPF_JMP | BPF_JEQ | BPF_K, --left + 2 + to[i],
		     refined[i]);
	for (size_t i = 0; i < a->n_values; i++)
		emit(t, BPF_JMP | BPF_JEQ | BPF_K, --left + 1, a->values[i]);
	emit(t, BPF_RET | BPF_K, 0, ret_of(a->listed == ALLOW ? DENY : ALLOW));
	emit(t, BPF_RET | BPF_K, 0, ret_of(a->listed));
}

/* The test of base's call: its own row, then the rows with `when` that
 * take one of its argument's values further. */
static int emit_call(struct tests *t, const struct arg_filter *base,
		     struct error **err)
{
	const struct arg_filter *sub[ARRAY_SIZE(baseline_arg_filters)];
	uint32_t refined[ARRAY_SIZE(baseline_arg_filters)];
	size_t to[ARRAY_SIZE(baseline_arg_filters)], n = 0, size = 0;

	for (size_t i = 0; i < ARRAY_SIZE(baseline_arg_filters); i++) {
		const struct arg_filter *r = &baseline_arg_filters[i];

		if (!r->when || strcmp(r->syscall, base->syscall) != 0)
			continue;
		if (r->when_arg != base->arg)
			return error_set(err, EINVAL,
					 "seccomp: %s: a row with `when` "
					 "must refine its call's argument",
					 r->syscall);
		sub[n] = r;
		refined[n] = r->when_value;
		to[n++] = size;
		size += r->n_values + 3;
	}
	emit_compare(t, base, refined, to, n);
	for (size_t i = 0; i < n; i++)
		emit_compare(t, sub[i], NULL, NULL, 0);
	return 0;
}

/* clone without a namespace flag is allowed; with one, EPERM. */
static void emit_clone(struct tests *t)
{
	uint32_t native = seccomp_arch_native(), flags = 0;
	unsigned int arg = 0;

	for (size_t i = 0; i < ARRAY_SIZE(clone_flags_arg); i++)
		if (clone_flags_arg[i].arch == native)
			arg = clone_flags_arg[i].arg;
	for (size_t i = 0; i < ARRAY_SIZE(clone_namespace_flags); i++)
		flags |= clone_namespace_flags[i];
	emit(t, BPF_LD | BPF_W | BPF_ABS, 0, arg_low(arg));
	emit(t, BPF_JMP | BPF_JSET | BPF_K, 1, flags);
	emit(t, BPF_RET | BPF_K, 0, ret_of(ALLOW));
	emit(t, BPF_RET | BPF_K, 0, ret_of(DENY));
}

/* Mark the call `name` for the test that starts at t->n.  Exact: on an
 * architecture that multiplexes socket calls, libseccomp would otherwise
 * mark socketcall too, whose first argument is not the domain.  Returns
 * 1 when the call exists here (its test is to be emitted), 0 when not. */
static int add_marker(scmp_filter_ctx ctx, struct tests *t,
		      struct fixed_set *fixed, const char *name,
		      struct error **err)
{
	int nr = seccomp_resolve(name), r;

	if (nr < 0)
		return 0;
	if (mark_fixed(fixed, nr, err) < 0)
		return -1;
	r = seccomp_rule_add_exact(
	    ctx, SCMP_ACT_TRACE(MARKER_BASE + t->n_calls), nr, 0);
	if (r < 0)
		return error_set(err, -r, "seccomp rule for %s: %s", name,
				 strerror(-r));
	t->start[t->n_calls++] = t->n;
	return 1;
}

/* Mark clone and the call of each row of baseline_arg_filters without
 * `when`, and emit their tests (a row with `when` and none without would
 * mark nothing: its call stays refused).  clone3 is fixed: nothing allows
 * it. */
static int add_argument_calls(scmp_filter_ctx ctx, struct tests *t,
			      struct fixed_set *fixed, struct error **err)
{
	int nr3 = seccomp_resolve(baseline_clone3), r;

	if (nr3 >= 0 && mark_fixed(fixed, nr3, err) < 0)
		return -1;
	r = add_marker(ctx, t, fixed, "clone", err);
	if (r > 0)
		emit_clone(t);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(baseline_arg_filters);
	     i++) {
		const struct arg_filter *a = &baseline_arg_filters[i];

		if (a->when)
			continue;
		r = add_marker(ctx, t, fixed, a->syscall, err);
		if (r > 0)
			r = emit_call(t, a, err);
	}
	return r < 0 ? -1 : 0;
}

/* Replace every marker's return in p with a jump to its call's test, and
 * append the tests. */
static int splice_tests(struct sock_fprog *p, const struct tests *t,
			struct error **err)
{
	size_t len = (size_t)p->len + t->n;
	struct sock_filter *f;

	if (t->n > TESTS_MAX || len > BPF_MAXINSNS)
		return error_set(err, E2BIG, "seccomp: filter too large");
	f = realloc(p->filter, len * sizeof(*f));
	if (!f)
		return error_set(err, ENOMEM, "seccomp: out of memory");
	p->filter = f;
	for (size_t pc = 0; pc < p->len; pc++) {
		uint32_t k = f[pc].k, i = (k & SECCOMP_RET_DATA) - MARKER_BASE;

		if (f[pc].code != (BPF_RET | BPF_K) ||
		    (k & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_TRACE)
			continue;
		if (i >= t->n_calls)
			return error_set(err, EINVAL,
					 "seccomp: a stray marker %#x", k);
		f[pc] = (struct sock_filter){
		    BPF_JMP | BPF_JA, 0, 0,
		    (uint32_t)(p->len + t->start[i] - pc - 1)};
	}
	memcpy(f + p->len, t->insn, t->n * sizeof(*f));
	p->len = (unsigned short)len;
	return 0;
}

/* The always-denied calls: EPERM from the filter itself, or (notify)
 * SCMP_ACT_NOTIFY, for the supervisor to answer with that same EPERM and
 * count (stage/notify.c).  With no listener the kernel answers ENOSYS. */
static int add_denied(scmp_filter_ctx ctx, struct fixed_set *fixed, bool notify,
		      struct error **err)
{
	uint32_t act = notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM);

	for (size_t i = 0; i < ARRAY_SIZE(baseline_denied); i++) {
		int nr = seccomp_resolve(baseline_denied[i]);

		if (nr < 0)
			continue;
		if (mark_fixed(fixed, nr, err) < 0)
			return -1;
		if (seccomp_add_rule(ctx, act, nr, NULL, 0, baseline_denied[i],
				     err) < 0)
			return -1;
	}
	return 0;
}

/* Allow calls by name, refusing the fixed ones (fixed may be NULL). */
static int add_allowed(scmp_filter_ctx ctx, const char *const *names, size_t n,
		       const struct fixed_set *fixed, struct error **err)
{
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_resolve(names[i]);

		if (nr < 0)
			continue;
		if (fixed && is_fixed(fixed, nr))
			return error_set(
			    err, EPERM,
			    "syscall %s: always denied or filtered "
			    "by argument; a policy cannot allow it",
			    names[i]);
		if (seccomp_add_rule(ctx, SCMP_ACT_ALLOW, nr, NULL, 0, names[i],
				     err) < 0)
			return -1;
	}
	return 0;
}

/* A filter for the native architecture only: libseccomp gives every other
 * one, x32's numbers on x86-64 included, the bad-arch action.  The binary
 * tree keeps a long allowlist from being a linear scan on every call. */
int seccomp_filter_new(uint32_t def, scmp_filter_ctx *out, struct error **err)
{
	scmp_filter_ctx ctx = seccomp_init(def);
	int r;

	if (!ctx)
		return error_set(err, EINVAL, "seccomp: init failed");
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			     SCMP_ACT_KILL_PROCESS);
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0) {
		seccomp_release(ctx);
		return error_set(err, -r, "seccomp: filter attributes: %s",
				 strerror(-r));
	}
	*out = ctx;
	return 0;
}

/* Export the filter when r is 0, release it always. */
int seccomp_filter_finish(scmp_filter_ctx ctx, int r,
			  struct seccomp_program *out, struct error **err)
{
	if (r == 0)
		r = seccomp_export_prog(ctx, &out->prog, err);
	seccomp_release(ctx);
	return r;
}

static int baseline_build(char *const *extra, size_t n_extra, bool notify,
			  struct seccomp_program *out, struct error **err)
{
	struct fixed_set fixed = {.n = 0};
	struct tests tests = {.n = 0};
	scmp_filter_ctx ctx;
	int r;

	*out = (struct seccomp_program){0};
	if (seccomp_filter_new(SCMP_ACT_ERRNO(ENOSYS), &ctx, err) < 0)
		return error_wrap(err, "seccomp baseline");
	/* The fixed rules go first: libseccomp keeps the first
	 * unconditional rule of a call and drops later ones silently. */
	r = add_denied(ctx, &fixed, notify, err);
	if (r == 0)
		r = add_argument_calls(ctx, &tests, &fixed, err);
	if (r == 0)
		r = add_allowed(ctx, baseline_allowed,
				ARRAY_SIZE(baseline_allowed), &fixed, err);
	if (r == 0)
		r = add_allowed(ctx, (const char *const *)extra, n_extra,
				&fixed, err);
	if (seccomp_filter_finish(ctx, r, out, err) < 0)
		return error_wrap(err, "seccomp baseline");
	if (splice_tests(&out->prog, &tests, err) < 0) {
		seccomp_program_free(out);
		return error_wrap(err, "seccomp baseline");
	}
	if (notify)
		out->flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	return 0;
}

int seccomp_baseline_build(char *const *extra, size_t n_extra,
			   struct seccomp_program *out, struct error **err)
{
	return baseline_build(extra, n_extra, false, out, err);
}

int seccomp_baseline_notify_build(char *const *extra, size_t n_extra,
				  struct seccomp_program *out,
				  struct error **err)
{
	return baseline_build(extra, n_extra, true, out, err);
}

int seccomp_allow_names(scmp_filter_ctx ctx, const char *const *names, size_t n,
			struct error **err)
{
	return add_allowed(ctx, names, n, NULL, err);
}
