/* ps: the host pids of a container's processes, from its cgroup's
 * cgroup.procs (every hierarchy).  As JSON, an array of numbers (what
 * containerd reads); as a table, what runc prints: the host's `ps` with
 * the given arguments (default -ef), its header, and the lines whose PID
 * column is one of the container's pids. */
#include "cgroup_commands.h"
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "forward.h"
#include "util.h"

#define PS_OUTPUT_MAX (64 << 20)

extern char **environ;

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int format_json(const pid_t *pids, size_t n, char **out,
		       struct error **err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return error_errno(err, "ps");
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", (int)pids[i]);
	fputs("]\n", f);
	if (fclose(f) != 0) {
		free(buf);
		return error_set(err, ENOMEM, "ps: out of memory");
	}
	*out = buf;
	return 0;
}

/* Run `ps ARGS` (found in PATH, as runc does) and collect its stdout.
 * It runs as the caller, on the host, and reads only /proc. */
static int run_ps(char *const *args, size_t n, char **out, struct error **err)
{
	_cleanup_free_ char **argv = calloc(n + 3, sizeof(char *));
	_cleanup_free_ char *buf = NULL;
	posix_spawn_file_actions_t fa;
	size_t len = 0, cap = 0;
	int pipefd[2], status, rc;
	pid_t pid;

	if (!argv)
		return error_set(err, ENOMEM, "ps: out of memory");
	argv[0] = (char *)"ps";
	if (n == 0)
		argv[1] = (char *)"-ef";
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = args[i];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return error_errno(err, "ps: pipe");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	rc = posix_spawnp(&pid, "ps", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc != 0) {
		close(pipefd[0]);
		errno = rc;
		return error_errno(err, "ps: run ps");
	}
	for (;;) {
		ssize_t r;

		if (len + 4096 + 1 > cap) {
			char *grown =
			    cap * 2 > PS_OUTPUT_MAX
				? NULL
				: realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!grown)
				break;
			buf = grown;
		}
		r = read(pipefd[0], buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return error_set(err, EIO, "ps: ps %s failed (status %d)",
				 n ? args[0] : "-ef", exit_status(status));
	if (!buf)
		return error_set(err, EIO, "ps: ps printed nothing");
	buf[len] = '\0';
	*out = steal_pointer(&buf);
	return 0;
}

/* The 0-based column of PID in ps's header; -1 when there is none. */
static int pid_column(const char *header, size_t len)
{
	int col = 0;

	for (size_t i = 0; i < len;) {
		size_t w;

		i += strspn(header + i, " \t");
		w = strcspn(header + i, " \t\n");
		if (w == 0)
			break;
		if (w == 3 && strncmp(header + i, "PID", 3) == 0)
			return col;
		col++;
		i += w;
	}
	return -1;
}

/* Column `col` of a line as a pid; -1 when it is not one. */
static long field_pid(const char *line, size_t len, int col)
{
	for (size_t i = 0; i < len; col--) {
		size_t w;
		char num[16];
		char *end;
		long v;

		i += strspn(line + i, " \t");
		w = strcspn(line + i, " \t\n");
		if (w == 0 || i + w > len)
			return -1;
		if (col == 0) {
			if (w >= sizeof(num))
				return -1;
			memcpy(num, line + i, w);
			num[w] = '\0';
			v = strtol(num, &end, 10);
			return *end || v <= 0 ? -1 : v;
		}
		i += w;
	}
	return -1;
}

static int format_table(const pid_t *pids, size_t n, char *const *args,
			size_t n_args, char **out, struct error **err)
{
	_cleanup_free_ char *text = NULL;
	char *buf = NULL;
	size_t len = 0, hl;
	FILE *f;
	int col;

	if (run_ps(args, n_args, &text, err) < 0)
		return -1;
	hl = strcspn(text, "\n");
	col = pid_column(text, hl);
	if (col < 0)
		return error_set(err, EINVAL,
				 "ps: no PID column in the output of ps");
	f = open_memstream(&buf, &len);
	if (!f)
		return error_errno(err, "ps");
	fprintf(f, "%.*s\n", (int)hl, text);
	for (char *p = text + hl + (text[hl] == '\n'); *p;) {
		size_t l = strcspn(p, "\n");
		long pid = field_pid(p, l, col);
		pid_t key = (pid_t)pid;

		if (pid > 0 && bsearch(&key, pids, n, sizeof(*pids), cmp_pid))
			fprintf(f, "%.*s\n", (int)l, p);
		p += l + (p[l] == '\n');
	}
	if (fclose(f) != 0) {
		free(buf);
		return error_set(err, ENOMEM, "ps: out of memory");
	}
	*out = buf;
	return 0;
}

int container_ps(const char *root, const char *id, enum ps_format format,
		 char *const *ps_args, size_t n_ps_args, char **out,
		 struct error **err)
{
	_cleanup_free_ pid_t *pids = NULL;
	struct container c;
	size_t n = 0;
	int r = 0;

	*out = NULL;
	if (container_open(root, id, &c, err) < 0)
		return error_wrap(err, "ps");
	if (!container_cgroup(&c, "ps", err))
		r = -1;
	else if (cgroup_pids(c.cgroup, &pids, &n, err) < 0)
		r = error_wrap(err, "ps %s", id);
	container_close(&c);
	if (r < 0)
		return -1;
	if (format == PS_JSON)
		return format_json(pids, n, out, err);
	return format_table(pids, n, ps_args, n_ps_args, out, err);
}
