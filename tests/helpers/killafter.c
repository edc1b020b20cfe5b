/* killafter: run a command and SIGKILL it a given number of microseconds
 * after it was started, for the fault tests of tests/security/faults.bats.
 *
 *   killafter MICROSECONDS PROGRAM [ARG...]
 *
 * PROGRAM runs with this helper's stdin, stdout and stderr.  The delay is
 * measured from the fork, on CLOCK_MONOTONIC, so that the moment is not
 * lost in a shell's own fork and exec of sleep(1), which take about as long
 * as a fast command does.  Exit status: 137 if the SIGKILL ended PROGRAM,
 * otherwise PROGRAM's own status (128 + N for another signal N); 127 if it
 * could not be run; 2 on a usage error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec at;
	char *end;
	unsigned long us;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr,
			"usage: killafter MICROSECONDS PROGRAM [ARG...]\n");
		return 2;
	}
	errno = 0;
	us = strtoul(argv[1], &end, 10);
	if (errno != 0 || *end != '\0' || end == argv[1] || us > 60000000UL) {
		fprintf(stderr, "killafter: bad delay: %s\n", argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &at);
	pid = fork();
	if (pid < 0) {
		perror("killafter: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "killafter: %s: %s\n", argv[2],
			strerror(errno));
		_exit(127);
	}
	at.tv_nsec += (long)(us % 1000000UL) * 1000L;
	at.tv_sec += (time_t)(us / 1000000UL) + at.tv_nsec / 1000000000L;
	at.tv_nsec %= 1000000000L;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) ==
	       EINTR)
		;
	/* a child that has exited but not been reaped is still there: the
	 * signal then does nothing and its own status is reported */
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			perror("killafter: waitpid");
			return 127;
		}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
