#include "tty_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "forward.h"
#include "fsutil.h"
#include "util.h"

/* The most read from the master at a time (on the stack). */
#define RELAY_CHUNK 65536
/* After the process's exit, how long its pty's output is read while
 * something else still holds the slave. */
#define RELAY_DRAIN_MS 1000

int tty_relay_prepare(struct tty_relay *t, struct error **err)
{
	*t = TTY_RELAY_INIT;
	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd))
			t->shape.fds |= 1u << fd;
	if (!t->shape.fds)
		return 0;
	/* the first terminal, stdin's where it is one, lends its modes and
	 * size; a terminal's stdin is where its keyboard is */
	t->term = t->shape.fds & 1 ? 0 : t->shape.fds & 2 ? 1 : 2;
	t->shape.ctty = t->shape.fds & 1;
	if (tcgetattr(t->term, &t->shape.modes) < 0 ||
	    ioctl(t->term, TIOCGWINSZ, &t->shape.size) < 0)
		return error_errno(err, "the caller's terminal (fd %d)",
				   t->term);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, t->sock) < 0)
		return error_errno(err, "terminal relay: socketpair");
	return 1;
}

void tty_relay_take_all(struct tty_relay *t)
{
	t->shape.fds = 7;
	t->shape.ctty = true;
}

void tty_relay_release(struct tty_relay *t)
{
	closep(&t->sock[0]);
	closep(&t->sock[1]);
	closep(&t->master);
}

/* ---- the caller's terminal ------------------------------------------- */

/* Typed bytes go to the pty as they come, unechoed, uninterpreted: the
 * pty's own line discipline (the caller's settings, copied) does what
 * the caller's did.  Only stdin's terminal, and only when this process's
 * group is its foreground (a background job leaves it alone, as it must:
 * tcsetattr from there would stop it with SIGTTOU). */
static void enter_raw(struct tty_relay *t)
{
	struct termios raw;

	if (!(t->shape.fds & 1) || tcgetpgrp(0) != getpgrp() ||
	    tcgetattr(0, &t->saved) < 0)
		return;
	raw = t->saved;
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	t->raw = tcsetattr(0, TCSANOW, &raw) == 0;
}

/* The settings read before, exactly; TCSANOW, so that a terminal whose
 * output someone stopped cannot hold this process. */
static void leave_raw(struct tty_relay *t)
{
	if (t->raw)
		tcsetattr(0, TCSANOW, &t->saved);
	t->raw = false;
}

static void resize(const struct tty_relay *t)
{
	struct winsize ws;

	if (ioctl(t->term, TIOCGWINSZ, &ws) == 0)
		ioctl(t->master, TIOCSWINSZ, &ws);
}

/* ---- the relay ----------------------------------------------------------- */

struct relay_loop {
	struct tty_relay *t;
	pid_t pid;
	int status; /* pid's exit status, once it has exited */
	bool exited;
	int in;	 /* what is typed or piped into the pty, or -1 */
	int out; /* where the pty's output goes, or -1 once it fails */
	char pending[4096]; /* read from `in`, not yet taken by the pty */
	size_t n_pending, off_pending;
	const struct timespec *deadline; /* or NULL */
	void (*overdue)(void *);	 /* called once at the deadline */
	void *ctx;
};

/* Milliseconds to the loop's deadline (0 once it passed, calling its
 * overdue once then), or -1 without one. */
static int until_deadline(struct relay_loop *l)
{
	struct timespec now;
	long long ms;

	if (!l->deadline)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (l->deadline->tv_sec - now.tv_sec) * 1000LL +
	     (l->deadline->tv_nsec - now.tv_nsec) / 1000000;
	if (ms > 0)
		return ms > 60000 ? 60000 : (int)ms;
	if (l->overdue)
		l->overdue(l->ctx);
	l->deadline = NULL;
	return -1;
}

/* The pty's output as it comes.  The caller's end is written blocking:
 * it is the caller's own terminal or pipe, which the workload cannot stop
 * (its TCXONC acts on its own pty).  EIO: no process holds the slave. */
static bool copy_out(struct relay_loop *l)
{
	char buf[RELAY_CHUNK];
	ssize_t n = read(l->t->master, buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;
	if (l->out >= 0 && write_all(l->out, buf, (size_t)n) < 0)
		l->out = -1; /* gone: the rest is read and dropped */
	return true;
}

/* What the caller types (or pipes) into the pty, without blocking on a
 * pty whose reader does not read: what it does not take waits. */
static void copy_in(struct relay_loop *l, short revents)
{
	ssize_t n;

	if (!l->n_pending && (revents & (POLLIN | POLLHUP | POLLERR))) {
		n = read(l->in, l->pending, sizeof(l->pending));
		if (n <= 0) {
			if (n == 0 || (errno != EAGAIN && errno != EINTR))
				l->in = -1;
			return;
		}
		l->n_pending = (size_t)n;
		l->off_pending = 0;
	} else if (revents & POLLNVAL) {
		l->in = -1;
		return;
	}
	while (l->n_pending) {
		n = write(l->t->master, l->pending + l->off_pending,
			  l->n_pending);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				l->n_pending = 0;
			return;
		}
		l->off_pending += (size_t)n;
		l->n_pending -= (size_t)n;
	}
}

/* The signals: SIGCHLD may be pid's end; SIGWINCH resizes the pty (its
 * foreground group gets SIGWINCH from the kernel); any other goes to
 * pid, as forward_until_exit would send it. */
static void on_signals(struct relay_loop *l, int sfd)
{
	struct signalfd_siginfo si;
	int ws;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGWINCH)
			resize(l->t);
		else if (si.ssi_signo != SIGCHLD)
			kill(l->pid, (int)si.ssi_signo);
	}
	if (!l->exited && waitpid(l->pid, &ws, WNOHANG) == l->pid) {
		l->status = exit_status(ws);
		l->exited = true;
	}
}

static int ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int)((now.tv_sec - start->tv_sec) * 1000 +
		     (now.tv_nsec - start->tv_nsec) / 1000000);
}

static void relay(struct relay_loop *l, int sfd)
{
	bool master_open = true;
	struct timespec start;

	while (!l->exited) {
		struct pollfd p[3] = {
		    {.fd = sfd, .events = POLLIN},
		    {.fd = master_open ? l->t->master : -1,
		     .events = POLLIN | (l->n_pending ? POLLOUT : 0)},
		    {.fd = l->in >= 0 && !l->n_pending ? l->in : -1,
		     .events = POLLIN},
		};

		if (poll(p, 3, until_deadline(l)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
			master_open = copy_out(l);
		if (master_open && (p[2].revents || (p[1].revents & POLLOUT)))
			copy_in(l, p[2].revents);
		if (p[0].revents)
			on_signals(l, sfd);
	}
	/* What the container wrote before its end, some of it maybe still
	 * on its way through the pty's buffers: once the slave's last holder
	 * is gone (with the container's pid namespace) the master reads it
	 * all and then EIO.  A holder that outlived pid (an exec'd process's
	 * background child) gets RELAY_DRAIN_MS more. */
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (master_open) {
		struct pollfd p = {.fd = l->t->master, .events = POLLIN};
		int left = RELAY_DRAIN_MS - ms_since(&start);

		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		master_open = copy_out(l);
	}
}

/* Where the pty's output goes: stdout when the pty has the workload's
 * stdout, else stderr, else (a terminal on stdin alone: its echo)
 * stdin's terminal, which a shell opens for writing too. */
static int out_fd(const struct tty_relay *t)
{
	if (t->shape.fds & 2)
		return 1;
	return t->shape.fds & 4 ? 2 : 0;
}

/* Typed bytes are read from stdin when the pty has the workload's stdin:
 * a pipe always, a terminal only from its foreground (a background
 * job's read would stop it with SIGTTIN). */
static int in_fd(const struct tty_relay *t)
{
	if (!(t->shape.fds & 1))
		return -1;
	if (isatty(0) && tcgetpgrp(0) != getpgrp())
		return -1;
	return 0;
}

/* Waiting without relaying (no master came, or the relay ended first),
 * held to the loop's deadline all the same. */
static int wait_plain(struct relay_loop *l, const sigset_t *set)
{
	int status = forward_until_exit_by(l->pid, set, l->deadline);

	if (status >= 0)
		return status;
	if (l->overdue)
		l->overdue(l->ctx);
	return forward_until_exit(l->pid, set);
}

int tty_relay_until_exit(struct tty_relay *t, pid_t pid, const sigset_t *set,
			 const struct timespec *deadline,
			 void (*overdue)(void *), void *ctx)
{
	struct relay_loop l = {.t = t,
			       .pid = pid,
			       .deadline = deadline,
			       .overdue = overdue,
			       .ctx = ctx};
	_cleanup_close_ int sfd = -1;
	char c;

	closep(&t->sock[1]);
	if (recv_with_fd(t->sock[0], &c, 1, &t->master) != 1 || t->master < 0 ||
	    fcntl(t->master, F_SETFL, O_NONBLOCK) < 0 ||
	    (sfd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		return wait_plain(&l, set);
	closep(&t->sock[0]);
	l.in = in_fd(t);
	l.out = out_fd(t);
	/* a resize since prepare read the size is a SIGWINCH pending in
	 * `set`, blocked since before then: on_signals applies it */
	enter_raw(t);
	on_signals(&l, sfd); /* pid may have ended already */
	relay(&l, sfd);
	leave_raw(t);
	if (!l.exited)
		return wait_plain(&l, set);
	return l.status;
}
