/* seccomp_try: what a seccomp filter of another process answers a
 * system call, tried from the host (as root).
 *
 *   seccomp_try PID INDEX CALL...
 *
 * The filter INDEX of PID (0: the first it loaded; the kernel runs the
 * last loaded first) is read with PTRACE_SECCOMP_GET_FILTER (PID is
 * stopped for that moment), loaded into a child of this program, and the
 * child makes each
 * CALL with arguments that do nothing (no such pid, no such fd, a NULL
 * pointer).  One line per CALL: "CALL killed" (SIGSYS: the filter kills
 * or traps it), "CALL errno NAME" (the filter's errno, or the kernel's
 * answer to the bad arguments), "CALL allowed" (it returned).  The child
 * reports through shared memory and ends with a fault, not a system call
 * the filter might refuse. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The calls this knows, each with arguments that change nothing. */
static const struct {
	const char *name;
	long nr;
	long args[3];
} calls[] = {
    {"getpid", SYS_getpid, {0, 0, 0}},
    {"ptrace", SYS_ptrace, {PTRACE_ATTACH, -1, 0}},
    {"kill", SYS_kill, {0x7ffffff0, 0, 0}},
    {"execve", SYS_execve, {0, 0, 0}},
    {"socket", SYS_socket, {-1, 0, 0}},
    {"openat", SYS_openat, {-1, 0, 0}},
};

struct outcome {
	volatile int done;
	volatile long ret;
	volatile int err;
};

static struct sock_filter *get_filter(pid_t pid, long index, long *len)
{
	struct sock_filter *f = NULL;
	int status;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 ||
	    waitpid(pid, &status, __WALL) < 0) {
		perror("seccomp_try: stop the process");
		return NULL;
	}
	*len = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, index, NULL);
	if (*len > 0 && (f = calloc((size_t)*len, sizeof(*f))) &&
	    ptrace(PTRACE_SECCOMP_GET_FILTER, pid, index, f) != *len) {
		free(f);
		f = NULL;
	}
	if (!f)
		perror("seccomp_try: PTRACE_SECCOMP_GET_FILTER");
	if (ptrace(PTRACE_DETACH, pid, 0, 0) < 0)
		perror("seccomp_try: detach");
	return f;
}

static int try_call(struct sock_filter *f, long len, size_t c)
{
	struct sock_fprog prog = {.len = (unsigned short)len, .filter = f};
	struct outcome *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t child;

	if (o == MAP_FAILED)
		return -1;
	child = fork();
	if (child == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			_exit(2);
		o->ret = syscall(calls[c].nr, calls[c].args[0],
				 calls[c].args[1], calls[c].args[2]);
		o->err = errno;
		o->done = 1;
		__builtin_trap();
	}
	if (child < 0 || waitpid(child, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		printf("%s killed\n", calls[c].name);
	else if (!o->done)
		return -1;
	else if (o->ret < 0)
		printf("%s errno %s\n", calls[c].name, strerrorname_np(o->err));
	else
		printf("%s allowed\n", calls[c].name);
	munmap(o, sizeof(*o));
	return 0;
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end || v < 0 || v > 0x7fffffff ? -1 : v;
}

int main(int argc, char **argv)
{
	struct sock_filter *f;
	long pid, index, len = 0;

	if (argc < 4 || (pid = number(argv[1])) <= 0 ||
	    (index = number(argv[2])) < 0) {
		fprintf(stderr, "usage: seccomp_try PID INDEX CALL...\n");
		return 2;
	}
	f = get_filter((pid_t)pid, index, &len);
	if (!f)
		return 1;
	for (int i = 3; i < argc; i++) {
		size_t c = 0;

		while (c < sizeof(calls) / sizeof(calls[0]) &&
		       strcmp(calls[c].name, argv[i]) != 0)
			c++;
		if (c == sizeof(calls) / sizeof(calls[0])) {
			fprintf(stderr, "seccomp_try: unknown call %s\n",
				argv[i]);
			return 2;
		}
		if (try_call(f, len, c) < 0) {
			fprintf(stderr, "seccomp_try: %s: no answer\n",
				argv[i]);
			return 1;
		}
	}
	free(f);
	return 0;
}
