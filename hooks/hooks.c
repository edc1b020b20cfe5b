#include "hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static char *const empty_env[] = {NULL};

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The hook's program, opened once: without following links (unless
 * follow_links), a regular file.  Not O_CLOEXEC: a script's interpreter
 * reads it through /dev/fd/N after execveat(). */
static int open_program(const char *path, bool follow_links, struct error **err)
{
	struct open_how how = {
	    .flags = O_PATH,
	    .resolve = RESOLVE_NO_MAGICLINKS |
		       (follow_links ? 0 : RESOLVE_NO_SYMLINKS),
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	struct stat st;

	if (fd < 0 && errno == ELOOP)
		return error_set(err, ELOOP,
				 "%s: a symbolic link is on the way (not "
				 "followed)",
				 path);
	if (fd < 0)
		return error_errno(err, "%s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, EACCES, "%s: not a regular file", path);
	}
	return fd;
}

/* In the forked child: stdin from the pipe, a clean signal state, exec
 * of the opened program. */
static void exec_hook(const struct spec_hook *hook, int program, int stdin_fd)
{
	char *argv_default[] = {hook->path, NULL};
	char *const *argv = hook->n_args ? hook->args : argv_default;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(stdin_fd, STDIN_FILENO) < 0)
		_exit(127);
	syscall(SYS_execveat, program, "", argv,
		hook->env ? hook->env : empty_env, AT_EMPTY_PATH);
	_exit(127);
}

static void write_state(int fd, const char *json)
{
	size_t len = strlen(json), off = 0;

	while (off < len) {
		ssize_t n = write(fd, json + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the hook need not read its stdin */
		off += (size_t)n;
	}
}

/* Wait for the hook, killing it at its timeout; returns its wait status,
 * or -1 with *timed_out set. */
static int wait_hook(pid_t pid, int timeout_s, bool *timed_out)
{
	_cleanup_close_ int pidfd = pidfd_open_(pid);
	int status = 0;

	*timed_out = false;
	if (pidfd >= 0 && timeout_s > 0) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		struct timespec start, now;
		long long left_ms = (long long)timeout_s * 1000;

		clock_gettime(CLOCK_MONOTONIC, &start);
		for (;;) {
			int r = poll(&p, 1, (int)left_ms);

			if (r > 0)
				break;
			if (r < 0 && errno != EINTR)
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
			left_ms = (long long)timeout_s * 1000 -
				  ((now.tv_sec - start.tv_sec) * 1000 +
				   (now.tv_nsec - start.tv_nsec) / 1000000);
			if (left_ms <= 0) {
				kill(pid, SIGKILL);
				*timed_out = true;
				break;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static int run_one(const struct spec_hook *hook, const char *name, size_t i,
		   const char *state_json, bool follow_links,
		   struct error **err)
{
	_cleanup_close_ int program =
	    open_program(hook->path, follow_links, err);
	int pipefd[2];
	bool timed_out;
	pid_t pid;
	int status;

	if (program < 0)
		return error_wrap(err, "hook %s[%zu]", name, i);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return error_errno(err, "hook %s[%zu] %s: pipe", name, i,
				   hook->path);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return error_errno(err, "hook %s[%zu] %s: fork", name, i,
				   hook->path);
	}
	if (pid == 0) {
		close(pipefd[1]);
		exec_hook(hook, program, pipefd[0]);
	}
	close(pipefd[0]);
	write_state(pipefd[1], state_json);
	close(pipefd[1]);
	status = wait_hook(pid, hook->timeout.set ? (int)hook->timeout.v : 0,
			   &timed_out);
	if (timed_out)
		return error_set(err, ETIMEDOUT,
				 "hook %s[%zu] %s: timed out after %llds", name,
				 i, hook->path, (long long)hook->timeout.v);
	if (WIFSIGNALED(status))
		return error_set(err, ECHILD,
				 "hook %s[%zu] %s: killed by signal %d", name,
				 i, hook->path, WTERMSIG(status));
	if (WEXITSTATUS(status) != 0)
		return error_set(err, ECHILD,
				 "hook %s[%zu] %s: exited with status %d", name,
				 i, hook->path, WEXITSTATUS(status));
	return 0;
}

int hooks_run(const struct spec_hook_list *list, enum spec_hook_kind kind,
	      const char *state_json, bool follow_links, struct error **err)
{
	for (size_t i = 0; i < list->n; i++)
		if (run_one(&list->hooks[i], spec_hook_kind_names[kind], i,
			    state_json, follow_links, err) < 0)
			return -1;
	return 0;
}
