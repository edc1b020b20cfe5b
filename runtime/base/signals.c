#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

static const struct {
	const char *name;
	int sig;
} signals[] = {
    {"ABRT", SIGABRT},	   {"ALRM", SIGALRM}, {"BUS", SIGBUS},
    {"CHLD", SIGCHLD},	   {"CONT", SIGCONT}, {"FPE", SIGFPE},
    {"HUP", SIGHUP},	   {"ILL", SIGILL},   {"INT", SIGINT},
    {"IO", SIGIO},	   {"IOT", SIGIOT},   {"KILL", SIGKILL},
    {"PIPE", SIGPIPE},	   {"POLL", SIGPOLL}, {"PROF", SIGPROF},
    {"PWR", SIGPWR},	   {"QUIT", SIGQUIT}, {"SEGV", SIGSEGV},
    {"STKFLT", SIGSTKFLT}, {"STOP", SIGSTOP}, {"SYS", SIGSYS},
    {"TERM", SIGTERM},	   {"TRAP", SIGTRAP}, {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN},	   {"TTOU", SIGTTOU}, {"URG", SIGURG},
    {"USR1", SIGUSR1},	   {"USR2", SIGUSR2}, {"VTALRM", SIGVTALRM},
    {"WINCH", SIGWINCH},   {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
};

int signal_parse(const char *s, int *sig, struct error **err)
{
	const char *name = s;
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (*s && !*end) {
		if (errno || n <= 0 || n > SIGRTMAX)
			return error_set(err, EINVAL, "invalid signal \"%s\"",
					 s);
		*sig = (int)n;
		return 0;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
		if (strcasecmp(signals[i].name, name) == 0) {
			*sig = signals[i].sig;
			return 0;
		}
	if (strncasecmp(name, "RTMIN+", 6) == 0 ||
	    strncasecmp(name, "RTMAX-", 6) == 0) {
		n = strtol(name + 6, &end, 10);
		if (!*end && n >= 0 && n <= SIGRTMAX - SIGRTMIN) {
			*sig = name[3] == 'I' || name[3] == 'i'
				   ? SIGRTMIN + (int)n
				   : SIGRTMAX - (int)n;
			return 0;
		}
	}
	return error_set(err, EINVAL, "invalid signal \"%s\"", s);
}
