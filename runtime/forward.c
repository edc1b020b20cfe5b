#include "forward.h"

#include <sys/wait.h>

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
	for (;;) {
		siginfo_t info;
		int status, sig = sigwaitinfo(set, &info);

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
