#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"
#include "forward.h"
#include "fsutil.h"
#include "notify.h"
#include "seccomp_prebuilt.h"
#include "util.h"

/* Signals that report a fault in this very process stay unblocked. */
static const int synchronous[] = {SIGSEGV, SIGBUS,  SIGFPE,
				  SIGILL,  SIGTRAP, SIGSYS};

/* The listener of the workload's refused calls (notify.h); the
 * supervisor is one per process, and its table is kept out of the stack. */
static struct notify_state listener;

static void say(const char *msg)
{
	write_all(STDERR_FILENO, msg, strlen(msg));
}

static __attribute__((noreturn)) void die(const char *what)
{
	char line[256];

	snprintf(line, sizeof(line), "corral: supervisor: %s: %s\n", what,
		 strerror(errno));
	say(line);
	_exit(127);
}

/* Poll fds (fds[1] the seccomp listener) for up to ms, serving the
 * listener when a notification waits and closing it when it is gone;
 * false when interrupted, so that the caller polls again. */
static bool poll_serving(struct pollfd fds[2], int ms)
{
	if (poll(fds, 2, ms) < 0) {
		if (errno != EINTR)
			die("poll");
		return false;
	}
	if (fds[1].revents & POLLIN)
		notify_serve(&listener);
	else if (fds[1].revents & (POLLHUP | POLLERR | POLLNVAL))
		notify_close(&listener);
	return true;
}

static __attribute__((noreturn)) void
start_workload(const struct supervisor_config *c, int (*workload)(void *),
	       void *arg, const sigset_t *old)
{
	/* the supervisor's to serve, never the workload's to hold */
	if (c->listener >= 0)
		close(c->listener);
	/* Its own process group, in the terminal's foreground, so a ^C from
	 * the terminal reaches the workload and not PID 1 (SIGTTOU is still
	 * blocked here, which tcsetpgrp needs from a background group). */
	setpgid(0, 0);
	if (c->terminal && isatty(STDIN_FILENO))
		tcsetpgrp(STDIN_FILENO, getpid());
	sigprocmask(SIG_SETMASK, old, NULL);
	workload(arg);
	_exit(127);
}

/* The filter compiled at build time (tools/seccomp_gen.c); the stage is
 * built for the same architecture as the generator ran on, which the
 * filter itself checks first (any other kills the process). */
static int load_own_filter(void)
{
	struct sock_fprog prog = {
	    .len = seccomp_prebuilt_supervisor.len,
	    .filter = (struct sock_filter *)seccomp_prebuilt_supervisor.filter,
	};

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* Give up everything the supervisor does not need to wait and signal.
 * Not dumpable first of all, so that at no moment of the switch can a
 * process of the container open its fds or memory.  Then its ids: a uid
 * and gid of its own (params.h SUPERVISOR_ID: not root, not the
 * workload's), keeping CAP_KILL alone (to forward signals to the
 * workload and kill it at the deadline) through the switch with the
 * securebits locked (NO_SETUID_FIXUP keeps the capabilities, the rest
 * keeps an exec from giving any back); the workload, another uid without
 * capabilities, may then neither signal it, nor prlimit,
 * sched_setaffinity, setpriority or ptrace it.  Where the namespace maps
 * no such id (a user namespace of one id), the workload's ids and no
 * capability (enough to signal it); the workload runs under the
 * self-only filter then (workload.c).  Last, no_new_privs and its own
 * seccomp filter. */
static void drop_privileges(const struct supervisor_config *c)
{
	const unsigned long locked =
	    SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct caps[2] = {{0}};
	bool keep_kill = c->uid != c->workload_uid;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die("set non-dumpable");
	if (keep_kill && prctl(PR_SET_SECUREBITS, locked, 0, 0, 0) < 0)
		die("lock securebits");
	if ((setgroups(0, NULL) < 0 && !stage_setgroups_denied()) ||
	    setresgid(c->gid, c->gid, c->gid) < 0 ||
	    setresuid(c->uid, c->uid, c->uid) < 0)
		die("drop to the supervisor's user");
	/* its bounding set: nothing but CAP_KILL, ever (EINVAL: the
	 * first number past the kernel's last capability) */
	for (int cap = 0; keep_kill && cap < 64; cap++)
		if (cap != CAP_KILL &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;
			die("drop the bounding set");
		}
	if (keep_kill)
		caps[0].effective = caps[0].permitted = 1u << CAP_KILL;
	if (syscall(SYS_capset, &hdr, caps) < 0)
		die("drop capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("set no_new_privs");
	if (load_own_filter() < 0)
		die("load the supervisor's seccomp filter");
}

/* The supervisor's own uid and gid before the workload exists, its
 * capabilities kept (the workload, cloned from it, needs them to become
 * who it is): the workload never shares the supervisor's uid for a
 * moment.  Were the switch left to drop_privileges, the workload of a
 * user namespace of corral's (its root, as the supervisor was then)
 * would run its first instructions beside a supervisor of its own uid,
 * and a prlimit(1, RLIMIT_FSIZE, 0) as its first call took effect in 20
 * of 40 runs on the test machine, silencing the record.  Its ids differ
 * now from the workload's first instruction on, so the kernel refuses
 * the workload's kill, prlimit, sched_* and ptrace of it however early.
 * Nothing to do where the supervisor keeps the workload's ids (a user
 * namespace of one id: the workload's self-only filter covers it). */
static void take_own_ids(const struct supervisor_config *c)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct caps[2] = {{0}};

	if (c->uid == c->workload_uid)
		return;
	/* non-dumpable before the ids change, as drop_privileges says why
	 * (the change itself makes it so where fs.suid_dumpable is 0) */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die("set non-dumpable");
	/* KEEPCAPS keeps the permitted set across the uid change; the
	 * effective set, which the kernel empties, is put back below */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
	    setresgid(c->gid, c->gid, c->gid) < 0 ||
	    setresuid(c->uid, c->uid, c->uid) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		die("take the supervisor's own ids");
	if (syscall(SYS_capget, &hdr, caps) < 0)
		die("read capabilities");
	caps[0].effective = caps[0].permitted;
	caps[1].effective = caps[1].permitted;
	if (syscall(SYS_capset, &hdr, caps) < 0)
		die("keep capabilities");
}

/* Out of the OOM killer's choice: the supervisor is a few hundred
 * kilobytes, and a fork bomb against the memory limit would otherwise
 * kill it as readily as any of the bomb's own processes, and the record
 * of how the container ended with it.  -1000 needs CAP_SYS_RESOURCE;
 * without it (an ordinary user's corral, a host that withholds it) the
 * value it had before the workload raised its own, which the kernel
 * gave the supervisor too while the two shared their memory.  Set once
 * the workload runs its own program: a value set before that would be
 * the workload's too. */
static void protect_from_oom(int before)
{
	char buf[16];
	int fd = openat(AT_FDCWD, "/proc/self/oom_score_adj",
			O_WRONLY | O_CLOEXEC),
	    n;

	if (fd < 0)
		return;
	if (write(fd, "-1000", 5) != 5) {
		n = snprintf(buf, sizeof(buf), "%d", before);
		if (write(fd, buf, (size_t)n) != n) {
			/* it keeps the workload's, which is no worse for
			 * the container than the workload's own */
		}
	}
	close(fd);
}

/* Time left to the deadline; false once it has passed. */
static bool time_left(const struct timespec *deadline, struct timespec *left)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(deadline->tv_sec - now.tv_sec) * 1000000000LL +
	     (deadline->tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return false;
	left->tv_sec = (time_t)(ns / 1000000000LL);
	left->tv_nsec = (long)(ns % 1000000000LL);
	return true;
}

/* One line of the outcome record (supervisor.h), stamped with the
 * realtime clock; `corral report` reads it.  A failed write only loses the
 * record, never the container's end. */
static void record(const struct supervisor_config *c, const char *what)
{
	struct timespec now;
	char line[96];
	int n;

	if (c->outcome_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	n = snprintf(line, sizeof(line), "%s %lld %ld%s\n",
		     strncmp(what, "start", 5) == 0 ? "start" : "end",
		     (long long)now.tv_sec, now.tv_nsec,
		     strncmp(what, "start", 5) == 0 ? "" : what);
	if (n > 0 && (size_t)n < sizeof(line))
		write_all(c->outcome_fd, line, (size_t)n);
}

/* How the workload ended, as the record's " exit|signal N REASON". */
static void record_end(const struct supervisor_config *c, int wstatus,
		       const char *why)
{
	char what[48];

	if (WIFSIGNALED(wstatus))
		snprintf(what, sizeof(what), " signal %d %s", WTERMSIG(wstatus),
			 why);
	else
		snprintf(what, sizeof(what), " exit %d %s",
			 WEXITSTATUS(wstatus), why);
	record(c, what);
}

/* The end of the container at the workload's end.  As PID 1, exiting is
 * enough: the kernel kills the rest of the pid namespace.  Otherwise the
 * rest of the cgroup dies first. */
static __attribute__((noreturn)) void finish(const struct supervisor_config *c,
					     int status)
{
	if (c->reaper)
		reaper_kill_others(c->reaper);
	_exit(status);
}

/* The wall clock's end.  Nothing here waits on a descriptor the workload
 * could stall: the record is a host file, and the line to stderr is
 * written without blocking (a terminal the workload stopped with XOFF
 * takes no byte: the line is lost, the deadline holds).  As PID 1, every
 * other process of the namespace dies first (kill(-1) spares PID 1
 * itself), and the exit finishes the namespace.  Otherwise the cgroup
 * goes last, through cgroup.kill where there is one, which takes the
 * supervisor too (its SIGKILL reads as 137, as the exit would). */
static __attribute__((noreturn)) void
end_at_deadline(const struct supervisor_config *c)
{
	char line[128];
	int flags, n;

	if (!c->reaper)
		kill(-1, SIGKILL);
	notify_flush(&listener, true);
	record(c, " signal 9 wall_clock");
	n = snprintf(line, sizeof(line),
		     "corral: wall-clock limit of %llus reached; "
		     "container killed\n",
		     (unsigned long long)c->wall_clock);
	flags = fcntl(STDERR_FILENO, F_GETFL);
	if (flags >= 0 &&
	    fcntl(STDERR_FILENO, F_SETFL, flags | O_NONBLOCK) == 0 &&
	    write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* the line is lost; the record has it */
	}
	if (c->reaper)
		reaper_kill_all(c->reaper);
	_exit(137);
}

/* Forward one signal read from the signalfd, or reap on SIGCHLD; at the
 * workload's end, its record and the container's end. */
static void on_signal(const struct supervisor_config *c, pid_t child,
		      const struct signalfd_siginfo *si)
{
	int status;
	pid_t pid;

	if (si->ssi_signo != SIGCHLD) {
		kill(child, (int)si->ssi_signo);
		return;
	}
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == child) {
			notify_flush(&listener, true);
			record_end(c, status, "workload");
			finish(c, exit_status(status));
		}
}

/* Milliseconds to wait: to the deadline, or to the listener's next
 * write of its counts, whichever is sooner; -1: no end. */
static int wait_ms(const struct supervisor_config *c,
		   const struct timespec *deadline)
{
	struct timespec left;
	int due = notify_due_ms(&listener), ms = -1;

	if (c->wall_clock) {
		long long l;

		if (!time_left(deadline, &left))
			return 0;
		l = (long long)left.tv_sec * 1000 + left.tv_nsec / 1000000 + 1;
		ms = l > 60000 ? 60000 : (int)l;
	}
	if (due >= 0 && (ms < 0 || due < ms))
		ms = due;
	return ms;
}

/* Signals (through a signalfd), the wall clock and the listener, in one
 * poll. */
static __attribute__((noreturn)) void
supervise(const struct supervisor_config *c, pid_t child, int sfd)
{
	struct timespec deadline, left;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)c->wall_clock;
	for (;;) {
		struct pollfd fds[2] = {{sfd, POLLIN, 0},
					{listener.listener, POLLIN, 0}};
		struct signalfd_siginfo si;
		int ms;

		if (c->wall_clock && !time_left(&deadline, &left))
			end_at_deadline(c);
		ms = wait_ms(c, &deadline);
		if (!poll_serving(fds, ms))
			continue;
		notify_flush(&listener, false);
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			on_signal(c, child, &si);
	}
}

/* Until the workload's exec closes the channel (or it dies), serve its
 * notifications; signals stay pending, for the program to get. */
static void wait_exec(int chan)
{
	for (;;) {
		struct pollfd fds[2] = {{chan, POLLIN, 0},
					{listener.listener, POLLIN, 0}};
		char byte;

		if (!poll_serving(fds, -1))
			continue;
		if ((fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) ||
		    ((fds[0].revents & POLLIN) && read(chan, &byte, 1) <= 0))
			return;
	}
}

/* The mask before supervisor_block_signals(), which the workload gets. */
static sigset_t unblocked;
static bool signals_blocked;

static void forwarded_set(sigset_t *set)
{
	sigfillset(set);
	for (size_t i = 0; i < ARRAY_SIZE(synchronous); i++)
		sigdelset(set, synchronous[i]);
}

void supervisor_block_signals(void)
{
	sigset_t set;

	if (signals_blocked)
		return;
	forwarded_set(&set);
	sigprocmask(SIG_BLOCK, &set, &unblocked);
	signals_blocked = true;
}

/* The workload is started as vfork starts a process: it shares this
 * process's memory, on a stack of its own, and the supervisor sleeps
 * until its execve (or its death).  No second address space is made and
 * torn down again at the exec: about 0.7 ms of each `corral run` on the
 * test machine, where a fresh address space is dear.  The workload's
 * steps make only calls the baseline allows (docs/architecture.md), so
 * none waits on the sleeping supervisor; they change this memory only as
 * the supervisor may see once it wakes (exec_fd below).  Static: one
 * workload per stage. */
static struct workload_start {
	const struct supervisor_config *c;
	int (*workload)(void *);
	void *arg;
	const sigset_t *old;
	int *chan;
} workload_start;
static char workload_stack[128 * 1024] __attribute__((aligned(16)));

static int workload_child(void *unused)
{
	const struct workload_start *w = &workload_start;

	if (w->c->exec_fd) {
		close(w->chan[0]);
		*w->c->exec_fd = w->chan[1];
	}
	start_workload(w->c, w->workload, w->arg, w->old);
}

void supervisor_run(const struct supervisor_config *c, int (*workload)(void *),
		    void *arg)
{
	sigset_t set, old;
	pid_t child;
	int chan[2] = {-1, -1}, sfd, oom_before;

	supervisor_block_signals();
	forwarded_set(&set);
	old = unblocked;
	oom_before = stage_oom_score_adj();
	if (c->exec_fd &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan) < 0)
		die("make the exec channel");
	workload_start = (struct workload_start){c, workload, arg, &old, chan};
	take_own_ids(c);
	child = clone(workload_child, workload_stack + sizeof(workload_stack),
		      CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (child < 0)
		die("fork the workload");
	/* the workload has exec'd (or died): its memory is its own now */
	protect_from_oom(oom_before);
	/* the child put its end of the channel there, in this memory; the
	 * supervisor's copy of it is closed below */
	if (c->exec_fd)
		*c->exec_fd = -1;
	/* the signals stay pending meanwhile: they are blocked */
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die("signalfd");
	notify_init(&listener, c->listener, c->outcome_fd);
	if (c->exec_fd)
		close(chan[1]);
	/* From here on the supervisor reads what the workload's calls
	 * carry: it does so without privileges, under its own filter.  The
	 * workload's program may already run beside it, and cannot reach it
	 * meanwhile: its signals are blocked, and its memory and fds are
	 * behind the kernel's ptrace check, which asks for capabilities the
	 * workload lacks (ptrace and its cousins are refused besides). */
	drop_privileges(c);
	if (listener.listener >= 0 && c->outcome_fd >= 0)
		write_all(c->outcome_fd, "listening\n", 10);
	if (c->exec_fd) {
		wait_exec(chan[0]);
		close(chan[0]);
	}
	record(c, "start");
	supervise(c, child, sfd);
}
