/* The filters of corral's own processes in the container: the
 * supervisor's (stage/supervisor.c) and the two a workload loads on top
 * of the baseline by its role (stage/workload.c): self-only, where it
 * shares its supervisor's uid, and no-fork, a pod sandbox's pause.  All
 * prebuilt (tools/seccomp_gen.c). */
#include "seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include "util.h"

/* clang-format off */
/* The supervisor only waits, reaps, forwards signals, reads a timer and
 * writes one line; outside PID 1's place (a joined pid namespace) it
 * also kills its cgroup through the files corral opened for it: reads
 * cgroup.procs (on cgroup v1 reopened through /proc/self/fd), pins pids
 * and signals them, or writes cgroup.kill (stage/reaper.c). */
static const char *const supervisor_allowed[] = {
	/* waiting, reaping and forwarding signals */
	"wait4", "waitid", "kill", "tgkill", "rt_sigaction", "rt_sigprocmask",
	"rt_sigreturn", "rt_sigtimedwait", "signalfd4", "restart_syscall",
	/* the timer, and the one line it writes */
	"clock_gettime", "clock_nanosleep", "nanosleep", "timerfd_create",
	"timerfd_settime", "ppoll", "poll", "read", "write", "close", "fcntl",
	/* killing its cgroup (openat: read-only, below) */
	"pread64", "pidfd_open", "pidfd_send_signal",
	/* itself */
	"getpid", "getppid", "brk", "mmap", "munmap", "exit", "exit_group",
	/* the listener of the workload's refused calls (stage/notify.c) is
	 * its own from before the fork: ioctl is allowed below by request
	 * only */
};

/* The listener's three requests; ioctl with any other request kills the
 * supervisor. */
static const uint32_t supervisor_ioctls[] = {
    SECCOMP_IOCTL_NOTIF_RECV,
    SECCOMP_IOCTL_NOTIF_SEND,
    SECCOMP_IOCTL_NOTIF_ID_VALID,
};
/* clang-format on */

int seccomp_supervisor_build(struct seccomp_program *out, struct error **err)
{
	scmp_filter_ctx ctx;
	int r;

	*out = (struct seccomp_program){0};
	if (seccomp_filter_new(SCMP_ACT_KILL_PROCESS, &ctx, err) < 0)
		return error_wrap(err, "seccomp supervisor");
	r = seccomp_allow_names(ctx, supervisor_allowed,
				ARRAY_SIZE(supervisor_allowed), err);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(supervisor_ioctls); i++) {
		struct scmp_arg_cmp req =
		    seccomp_low32_in(1, UINT32_MAX, supervisor_ioctls[i]);

		r = seccomp_add_rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), &req,
				     1, "ioctl", err);
	}
	/* It reads cgroup.procs again and the workload's /proc/PID/comm;
	 * it never writes, creates or truncates a file, which as root of
	 * the container's namespace it could otherwise do to root's files
	 * there. */
	if (r == 0) {
		const struct scmp_arg_cmp read_only = seccomp_low32_in(
		    2, O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE,
		    0);

		r = seccomp_add_rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat),
				     &read_only, 1, "openat", err);
	}
	if (seccomp_filter_finish(ctx, r, out, err) < 0)
		return error_wrap(err, "seccomp supervisor");
	return 0;
}

/* The calls that act on another process's scheduling, priority, I/O
 * priority or limits, and the argument that names it: the process
 * itself is 0.  setpriority and ioprio_set name a process group or a
 * user too (their first argument): a user, even 0 (the caller's own),
 * takes in the supervisor. */
static const struct {
	const char *name;
	unsigned int who; /* the argument naming the target */
	int user_kind;	  /* the first argument's value for "a user"; -1 */
} self_only_calls[] = {
    {"sched_setaffinity", 0, -1},  {"sched_setscheduler", 0, -1},
    {"sched_setparam", 0, -1},	   {"sched_setattr", 0, -1},
    {"setpriority", 1, PRIO_USER}, {"ioprio_set", 1, 3 /* WHO_USER */},
};

int seccomp_no_fork_build(struct seccomp_program *out, struct error **err)
{
	static const char *const forks[] = {"fork", "vfork", "clone"};
	scmp_filter_ctx ctx;
	int r = 0, nr;

	*out = (struct seccomp_program){0};
	if (seccomp_filter_new(SCMP_ACT_ALLOW, &ctx, err) < 0)
		return error_wrap(err, "seccomp no-fork");
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(forks); i++)
		if ((nr = seccomp_resolve(forks[i])) >= 0)
			r = seccomp_add_rule(ctx, SCMP_ACT_ERRNO(EPERM), nr,
					     NULL, 0, forks[i], err);
	/* ENOSYS, which a C library takes as "use clone" */
	if (r == 0 && (nr = seccomp_resolve("clone3")) >= 0)
		r = seccomp_add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, NULL, 0,
				     "clone3", err);
	if (seccomp_filter_finish(ctx, r, out, err) < 0)
		return error_wrap(err, "seccomp no-fork");
	return 0;
}

int seccomp_self_only_build(struct seccomp_program *out, struct error **err)
{
	const struct scmp_arg_cmp another[] = {SCMP_A0(SCMP_CMP_NE, 0),
					       SCMP_A2(SCMP_CMP_NE, 0)};
	scmp_filter_ctx ctx;
	int r = 0;

	*out = (struct seccomp_program){0};
	if (seccomp_filter_new(SCMP_ACT_ALLOW, &ctx, err) < 0)
		return error_wrap(err, "seccomp self-only");
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(self_only_calls); i++) {
		int nr = seccomp_resolve(self_only_calls[i].name);
		struct scmp_arg_cmp not_self = {self_only_calls[i].who,
						SCMP_CMP_NE, 0, 0};
		struct scmp_arg_cmp user = SCMP_A0(
		    SCMP_CMP_EQ, (scmp_datum_t)self_only_calls[i].user_kind);

		if (nr < 0)
			continue;
		r = seccomp_add_rule(ctx, SCMP_ACT_ERRNO(EPERM), nr, &not_self,
				     1, self_only_calls[i].name, err);
		if (r == 0 && self_only_calls[i].user_kind >= 0)
			r = seccomp_add_rule(ctx, SCMP_ACT_ERRNO(EPERM), nr,
					     &user, 1, self_only_calls[i].name,
					     err);
	}
	/* prlimit64(pid, resource, new, old): setting another's; reading
	 * (new NULL) is left to the kernel's own check */
	if (r == 0)
		r = seccomp_add_rule(ctx, SCMP_ACT_ERRNO(EPERM),
				     SCMP_SYS(prlimit64), another, 2,
				     "prlimit64", err);
	if (seccomp_filter_finish(ctx, r, out, err) < 0)
		return error_wrap(err, "seccomp self-only");
	return 0;
}
