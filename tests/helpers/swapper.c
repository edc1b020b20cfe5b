/* swapper: exchange two paths over and over, for the race tests of
 * tests/security/hostile.bats.
 *
 *   swapper A B SECONDS [PAUSE_US]
 *
 * renameat2(A, B, RENAME_EXCHANGE) in a loop (a pause of PAUSE_US
 * microseconds, default 0, after each) until SECONDS have passed or a
 * SIGTERM/SIGINT arrives.  It then leaves A and B as they were when it
 * started (one more exchange if the count is odd), prints "swaps N" and
 * exits 0.  It writes "ready" on stdout before the first exchange, so
 * the caller can wait for it.  A failed exchange is an error: exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int exchange(const char *a, const char *b)
{
	if (renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) < 0) {
		fprintf(stderr, "swapper: exchange %s %s: %s\n", a, b,
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned long long n = 0;
	double end;
	long pause_us;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: swapper A B SECONDS [PAUSE_US]\n");
		return 2;
	}
	end = now() + strtod(argv[3], NULL);
	pause_us = argc == 5 ? strtol(argv[4], NULL, 10) : 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!stop && now() < end) {
		if (exchange(argv[1], argv[2]) < 0)
			return 1;
		n++;
		if (pause_us > 0)
			usleep((useconds_t)pause_us);
	}
	if (n % 2 == 1) {
		if (exchange(argv[1], argv[2]) < 0)
			return 1;
		n++;
	}
	printf("swaps %llu\n", n);
	return 0;
}
