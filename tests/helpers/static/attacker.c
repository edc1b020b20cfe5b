/* attacker: what a workload would try against corral's own processes
 * from inside its container (tests/security/inside_out.bats).  Static,
 * so it needs nothing from the image.
 *
 *   attacker xoff                 ioctl(0, TCXONC, TCOOFF): stop output
 *                                 to its own terminal
 *   attacker prlimit PID          prlimit(PID, RLIMIT_FSIZE, 0)
 *   attacker sched PID            SCHED_IDLE, nice 19, the first CPU
 *                                 only and the idle I/O class for PID
 *   attacker signal PID SIG       kill(PID, SIG)
 *   attacker spin N SECONDS       N threads busy on the first CPU
 *
 * Each attack prints "NAME RESULT" (OK or the errno's name), one line per
 * call, and exits 0; spin prints nothing. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void result(const char *name, int r)
{
	const char *e = "OK";

	if (r < 0) {
		switch (errno) {
		case EPERM:
			e = "EPERM";
			break;
		case EACCES:
			e = "EACCES";
			break;
		case ESRCH:
			e = "ESRCH";
			break;
		case EINVAL:
			e = "EINVAL";
			break;
		case ENOTTY:
			e = "ENOTTY";
			break;
		default:
			e = strerror(errno);
		}
	}
	printf("%s %s\n", name, e);
	fflush(stdout);
}

static void sched_attack(pid_t pid)
{
	struct sched_param idle = {0};
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	result("sched_setscheduler",
	       sched_setscheduler(pid, SCHED_IDLE, &idle));
	result("setpriority", setpriority(PRIO_PROCESS, (id_t)pid, 19));
	result("sched_setaffinity", sched_setaffinity(pid, sizeof(one), &one));
	/* IOPRIO_WHO_PROCESS, the idle class (3 << 13) */
	result("ioprio_set", (int)syscall(SYS_ioprio_set, 1, pid, 3 << 13));
}

static volatile int stop;

static void *busy(void *unused)
{
	(void)unused;
	while (!stop)
		;
	return NULL;
}

static void spin(int n, int seconds)
{
	pthread_t t;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, busy, NULL);
	sleep((unsigned)seconds);
	stop = 1;
}

static int number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *end || end == s || v < 0 || v > 1 << 22 ? -1 : (int)v;
}

int main(int argc, char **argv)
{
	struct rlimit zero = {0, 0};

	if (argc == 2 && strcmp(argv[1], "xoff") == 0)
		result("xoff", tcflow(0, TCOOFF));
	else if (argc == 3 && strcmp(argv[1], "prlimit") == 0)
		result("prlimit", prlimit((pid_t)number(argv[2]), RLIMIT_FSIZE,
					  &zero, NULL));
	else if (argc == 3 && strcmp(argv[1], "sched") == 0)
		sched_attack((pid_t)number(argv[2]));
	else if (argc == 4 && strcmp(argv[1], "signal") == 0)
		result("kill", kill((pid_t)number(argv[2]), number(argv[3])));
	else if (argc == 4 && strcmp(argv[1], "spin") == 0)
		spin(number(argv[2]), number(argv[3]));
	else {
		fprintf(stderr, "attacker: unknown attack\n");
		return 2;
	}
	return 0;
}
