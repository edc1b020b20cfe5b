#include "forward.h"

#include <errno.h>
#include <sys/wait.h>
#include <time.h>

#include "util.h"

static const int forwarded[] = {SIGCHLD, SIGHUP,  SIGINT,  SIGQUIT,
				SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH};

void forward_block(sigset_t *set, sigset_t *old)
{
	sigemptyset(set);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(set, forwarded[i]);
	sigprocmask(SIG_BLOCK, set, old);
}

int exit_status(int wstatus)
{
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return WEXITSTATUS(wstatus);
}

int forward_until_exit(pid_t pid, const sigset_t *set)
{
	return forward_until_exit_by(pid, set, NULL);
}

/* The time from now to deadline, false once it has passed. */
static bool until(const struct timespec *deadline, struct timespec *left)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(deadline->tv_sec - now.tv_sec) * 1000000000LL +
	     (deadline->tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return false;
	*left = (struct timespec){ns / 1000000000LL, ns % 1000000000LL};
	return true;
}

int forward_until_exit_by(pid_t pid, const sigset_t *set,
			  const struct timespec *deadline)
{
	for (;;) {
		struct timespec left;
		siginfo_t info;
		int status, sig;

		if (deadline && !until(deadline, &left))
			return waitpid(pid, &status, WNOHANG) == pid
				   ? exit_status(status)
				   : -1;
		sig = deadline ? sigtimedwait(set, &info, &left)
			       : sigwaitinfo(set, &info);
		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			kill(pid, sig);
			continue;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			return exit_status(status);
	}
}

bool forward_reap(pid_t pid, const sigset_t *set, int timeout_ms)
{
	struct timespec left = {timeout_ms / 1000,
				(timeout_ms % 1000) * 1000000L};
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (waitpid(pid, NULL, WNOHANG) != pid) {
		long long spent, remaining;

		if (sigtimedwait(set, NULL, &left) < 0 && errno == EAGAIN)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = (now.tv_sec - start.tv_sec) * 1000000000LL +
			(now.tv_nsec - start.tv_nsec);
		remaining = (long long)timeout_ms * 1000000 - spent;
		if (remaining <= 0)
			return waitpid(pid, NULL, WNOHANG) == pid;
		left = (struct timespec){remaining / 1000000000,
					 remaining % 1000000000};
	}
	return true;
}
