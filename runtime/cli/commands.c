#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_commands.h"
#include "container.h"
#include "report_gather.h"
#include "exec.h"
#include "fsutil.h"
#include "kernel_probe.h"
#include "harden.h"
#include "rootless.h"
#include "sandbox.h"
#include "signals.h"
#include "spec.h"
#include "state.h"
#include "util.h"

enum {
	OPT_PID_FILE = 256,
	OPT_CONSOLE_SOCKET,
	OPT_NO_PIVOT,
	OPT_NO_NEW_KEYRING,
	OPT_PRESERVE_FDS,
	OPT_REPORT,
};

/* Parse a command's flags with getopt_long; unknown flags are errors.
 * shortopts start with "+:" (stop at the first argument, report a missing
 * argument as ':'); the error case returns -2. */
static int next_opt(int argc, char **argv, const char *shortopts,
		    const struct option *longopts, struct error **err)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);

	if (c == '?' || c == ':') {
		error_set(err, EINVAL, "%s: %s %s", argv[0],
			  c == ':' ? "missing argument for" : "unknown option",
			  argv[optind - 1]);
		return -2;
	}
	return c;
}

static int want_args(int argc, char **argv, int min, int max, const char *usage,
		     struct error **err)
{
	int n = argc - optind;

	if (n < min || n > max)
		return error_set(err, EINVAL, "%s: usage: corral %s %s",
				 argv[0], argv[0], usage);
	return 0;
}

static int parse_count(const char *flag, const char *s, int *out,
		       struct error **err)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || !*s || n < 0 || n > 65536)
		return error_set(err, EINVAL, "%s: invalid number \"%s\"", flag,
				 s);
	*out = (int)n;
	return 0;
}

static const struct option create_longopts[] = {
    {"bundle", required_argument, NULL, 'b'},
    {"pid-file", required_argument, NULL, OPT_PID_FILE},
    {"console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET},
    {"no-pivot", no_argument, NULL, OPT_NO_PIVOT},
    {"no-new-keyring", no_argument, NULL, OPT_NO_NEW_KEYRING},
    {"preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS},
    {"detach", no_argument, NULL, 'd'},
    {"keep", no_argument, NULL, 'k'},
    {"report", required_argument, NULL, OPT_REPORT},
    {0},
};

/* create and run share their flags; run adds -d. */
static int parse_create(const struct global *g, int argc, char **argv,
			struct create_opts *o, bool *detach, struct error **err)
{
	const char *shortopts = detach ? "+:b:d" : "+:b:";
	int c;

	*o = (struct create_opts){.root = g->root,
				  .policy = g->policy,
				  .systemd_cgroup = g->systemd_cgroup};
	optind = 0;
	while ((c = next_opt(argc, argv, shortopts, create_longopts, err)) !=
	       -1) {
		switch (c) {
		case 'b':
			o->bundle = optarg;
			break;
		case OPT_PID_FILE:
			o->pid_file = optarg;
			break;
		case OPT_CONSOLE_SOCKET:
			o->console_socket = optarg;
			break;
		case OPT_NO_PIVOT:
			o->no_pivot = true;
			break;
		case OPT_NO_NEW_KEYRING:
			o->no_new_keyring = true;
			break;
		case OPT_PRESERVE_FDS:
			if (parse_count("--preserve-fds", optarg,
					&o->preserve_fds, err) < 0)
				return -1;
			break;
		case 'd':
			if (!detach)
				return error_set(err, EINVAL,
						 "%s: unknown option --detach",
						 argv[0]);
			*detach = true;
			break;
		case 'k':
			break;
		case OPT_REPORT:
			if (!detach)
				return error_set(err, EINVAL,
						 "%s: unknown option --report",
						 argv[0]);
			o->report = optarg;
			break;
		default:
			return -1;
		}
	}
	if (want_args(argc, argv, 1, 1, "[OPTIONS] ID", err) < 0)
		return -1;
	if (detach && *detach && o->report)
		return error_set(err, EINVAL,
				 "%s: --report needs the run to wait (no "
				 "--detach): the report is written at delete",
				 argv[0]);
	o->id = argv[optind];
	return 0;
}

int cmd_create(const struct global *g, int argc, char **argv,
	       struct error **err)
{
	struct create_opts o;

	if (parse_create(g, argc, argv, &o, NULL, err) < 0 ||
	    container_create(&o, NULL, err) < 0)
		return 1;
	return 0;
}

int cmd_run(const struct global *g, int argc, char **argv, struct error **err)
{
	struct create_opts o;
	bool detach = false;
	int status = 1;

	if (parse_create(g, argc, argv, &o, &detach, err) < 0 ||
	    container_run(&o, detach, &status, err) < 0)
		return 1;
	return status;
}

/* Commands whose only argument is the ID and that take no flags. */
static int id_only(int argc, char **argv, const char **id, struct error **err)
{
	static const struct option none[] = {{0}};

	optind = 0;
	if (next_opt(argc, argv, "+:", none, err) != -1 ||
	    want_args(argc, argv, 1, 1, "ID", err) < 0)
		return -1;
	*id = argv[optind];
	return 0;
}

/* `report ID [--format text|json]`: what the container's code tried. */
int cmd_report(const struct global *g, int argc, char **argv,
	       struct error **err)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {0},
	};
	_cleanup_free_ char *out = NULL;
	bool json = false;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:f:", longopts, err)) != -1) {
		if (c == 'f' && (strcmp(optarg, "json") == 0 ||
				 strcmp(optarg, "text") == 0)) {
			json = strcmp(optarg, "json") == 0;
			continue;
		}
		if (c == 'f')
			error_set(err, EINVAL,
				  "report: --format: expected text or json, "
				  "got \"%s\"",
				  optarg);
		return 1;
	}
	if (want_args(argc, argv, 1, 1, "[--format text|json] ID", err) < 0 ||
	    container_report(g->root, argv[optind], json, &out, err) < 0)
		return 1;
	fputs(out, stdout);
	return 0;
}

int cmd_start(const struct global *g, int argc, char **argv, struct error **err)
{
	const char *id;

	if (id_only(argc, argv, &id, err) < 0 ||
	    container_start(g->root, id, err) < 0)
		return 1;
	return 0;
}

int cmd_state(const struct global *g, int argc, char **argv, struct error **err)
{
	_cleanup_free_ char *json = NULL;
	const char *id;

	if (id_only(argc, argv, &id, err) < 0 ||
	    container_state(g->root, id, &json, err) < 0)
		return 1;
	fputs(json, stdout);
	return 0;
}

int cmd_kill(const struct global *g, int argc, char **argv, struct error **err)
{
	static const struct option longopts[] = {
	    {"all", no_argument, NULL, 'a'},
	    {0},
	};
	bool all = false;
	int c, sig = 15;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:a", longopts, err)) != -1) {
		if (c != 'a')
			return 1;
		all = true;
	}
	if (want_args(argc, argv, 1, 2, "[-a|--all] ID [SIGNAL]", err) < 0)
		return 1;
	if (argc - optind == 2 && signal_parse(argv[optind + 1], &sig, err) < 0)
		return 1;
	if (container_kill(g->root, argv[optind], sig, all, err) < 0)
		return 1;
	return 0;
}

int cmd_delete(const struct global *g, int argc, char **argv,
	       struct error **err)
{
	static const struct option longopts[] = {
	    {"force", no_argument, NULL, 'f'},
	    {0},
	};
	bool force = false;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:f", longopts, err)) != -1) {
		if (c != 'f')
			return 1;
		force = true;
	}
	if (want_args(argc, argv, 1, 1, "[-f|--force] ID", err) < 0 ||
	    container_delete(g->root, argv[optind], force, err) < 0)
		return 1;
	return 0;
}

int cmd_list(const struct global *g, int argc, char **argv, struct error **err)
{
	static const struct option longopts[] = {
	    {"quiet", no_argument, NULL, 'q'},
	    {"format", required_argument, NULL, 'f'},
	    {0},
	};
	_cleanup_free_ char *out = NULL;
	enum list_format format = LIST_TABLE;
	bool quiet = false;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:qf:", longopts, err)) != -1) {
		if (c == 'q') {
			quiet = true;
		} else if (c == 'f' && strcmp(optarg, "json") == 0) {
			format = LIST_JSON;
		} else if (c == 'f' && strcmp(optarg, "table") == 0) {
			format = LIST_TABLE;
		} else {
			if (c == 'f')
				error_set(err, EINVAL,
					  "list: --format: expected table or "
					  "json, got \"%s\"",
					  optarg);
			return 1;
		}
	}
	if (want_args(argc, argv, 0, 0, "[-q] [--format table|json]", err) < 0)
		return 1;
	if (quiet && format == LIST_TABLE)
		format = LIST_QUIET;
	if (container_list(g->root, format, &out, err) < 0)
		return 1;
	fputs(out, stdout);
	return 0;
}

int cmd_spec(const struct global *g, int argc, char **argv, struct error **err)
{
	static const struct option longopts[] = {
	    {"bundle", required_argument, NULL, 'b'},
	    {0},
	};
	_cleanup_free_ char *json = NULL;
	_cleanup_close_ int dfd = -1, fd = -1;
	const char *bundle = ".";
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:b:", longopts, err)) != -1) {
		if (c != 'b')
			return 1;
		bundle = optarg;
	}
	if (want_args(argc, argv, 0, 0, "[-b DIR]", err) < 0 ||
	    spec_default_emit(&json, err) < 0)
		return 1;
	dfd = open(bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		error_errno(err, "spec: bundle %s", bundle);
		return 1;
	}
	fd = openat(dfd, "config.json",
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		error_errno(err, "spec: %s/config.json", bundle);
		return 1;
	}
	if (write_all(fd, json, strlen(json)) < 0) {
		error_errno(err, "spec: write config.json");
		return 1;
	}
	return 0;
}

int cmd_explain(const struct global *g, int argc, char **argv,
		struct error **err)
{
	static const struct option longopts[] = {
	    {"bundle", required_argument, NULL, 'b'},
	    {"policy", required_argument, NULL, 'p'},
	    {"format", required_argument, NULL, 'f'},
	    {"fields", no_argument, NULL, 'F'},
	    {0},
	};
	_cleanup_free_ char *out = NULL;
	const char *bundle = NULL, *policy = g->policy;
	bool json = false, fields = false;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:b:f:", longopts, err)) != -1) {
		if (c == 'F') {
			fields = true;
		} else if (c == 'b') {
			bundle = optarg;
		} else if (c == 'p') {
			policy = optarg;
		} else if (c == 'f' && (strcmp(optarg, "json") == 0 ||
					strcmp(optarg, "text") == 0)) {
			json = strcmp(optarg, "json") == 0;
		} else {
			if (c == 'f')
				error_set(err, EINVAL,
					  "explain: --format: expected text or "
					  "json, got \"%s\"",
					  optarg);
			return 1;
		}
	}
	if (fields) {
		if (want_args(argc, argv, 0, 0, "--fields [--format text|json]",
			      err) < 0 ||
		    explain_fields(json, &out, err) < 0)
			return 1;
		fputs(out, stdout);
		return 0;
	}
	if (want_args(argc, argv, bundle ? 0 : 1, bundle ? 0 : 1,
		      "[--policy F] [--format text|json] (--bundle DIR | ID "
		      "| --fields)",
		      err) < 0 ||
	    container_explain(g->root, bundle ? NULL : argv[optind], bundle,
			      policy, json, &out, err) < 0)
		return 1;
	fputs(out, stdout);
	return 0;
}

/* The workspace is opened, and its owner read, as the caller: before an
 * ordinary user's corral enters its own user namespace (which sandbox,
 * unlike the other commands that set a container up, does itself, here),
 * where a host owner it does not map shows as the overflow uid, the very
 * id the caller becomes. */
static int sandbox_command(struct sandbox_opts *o, const char *workspace,
			   struct error **err)
{
	struct sandbox_workspace ws = {.fd = -1};
	int status = 1, r = 0;

	if (workspace && sandbox_workspace_open(workspace, &ws, err) < 0) {
		sandbox_workspace_close(&ws);
		return 1;
	}
	o->workspace = workspace ? &ws : NULL;
	if (rootless()) {
		o->workspace_reopen = true;
		r = command_enter_userns(o->policy, &status, err);
	}
	if (r == 0 && sandbox_run(o, &status, err) < 0)
		status = 1;
	if (r < 0)
		status = 1;
	sandbox_workspace_close(&ws);
	return status;
}

int cmd_sandbox(const struct global *g, int argc, char **argv,
		struct error **err)
{
	static const struct option longopts[] = {
	    {"rootfs", required_argument, NULL, 'r'},
	    {"policy", required_argument, NULL, 'p'},
	    {"timeout", required_argument, NULL, 't'},
	    {"memory", required_argument, NULL, 'm'},
	    {"network", required_argument, NULL, 'n'},
	    {"workspace", required_argument, NULL, 'w'},
	    {"report", required_argument, NULL, OPT_REPORT},
	    {0},
	};
	struct sandbox_opts o = {.root = g->root, .policy = g->policy};
	const char *workspace = NULL;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:", longopts, err)) != -1) {
		switch (c) {
		case 'r':
			o.rootfs = optarg;
			break;
		case 'p':
			o.policy = optarg;
			break;
		case 't':
			o.timeout = optarg;
			break;
		case 'm':
			o.memory = optarg;
			break;
		case 'w':
			workspace = optarg;
			break;
		case OPT_REPORT:
			o.report = optarg;
			break;
		case 'n':
			if (strcmp(optarg, "none") != 0) {
				error_set(err, EINVAL,
					  "sandbox: --network: only \"none\" "
					  "(loopback only) is offered; the "
					  "policy file widens");
				return 1;
			}
			break;
		default:
			return 1;
		}
	}
	if (optind >= argc) {
		error_set(
		    err, EINVAL,
		    "sandbox: usage: corral sandbox [--rootfs DIR] "
		    "[--policy F] [--timeout S] [--memory M] [--network "
		    "none] [--workspace DIR] [--report FILE] -- CMD [ARGS...]");
		return 1;
	}
	o.argv = argv + optind;
	o.argc = argc - optind;
	return sandbox_command(&o, workspace, err);
}

int cmd_features(const struct global *g, int argc, char **argv,
		 struct error **err)
{
	static const struct option none[] = {{0}};
	_cleanup_free_ char *json = NULL;

	optind = 0;
	if (next_opt(argc, argv, "+:", none, err) != -1 ||
	    want_args(argc, argv, 0, 0, "", err) < 0 ||
	    spec_features_emit(kernel_probe(), &json, err) < 0)
		return 1;
	fputs(json, stdout);
	return 0;
}

int cmd_exec(const struct global *g, int argc, char **argv, struct error **err)
{
	enum { OPT_EXEC_CWD = 512, OPT_EXEC_CAP };
	static const struct option longopts[] = {
	    {"process", required_argument, NULL, 'p'},
	    {"detach", no_argument, NULL, 'd'},
	    {"pid-file", required_argument, NULL, OPT_PID_FILE},
	    {"console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET},
	    {"tty", no_argument, NULL, 't'},
	    {"cwd", required_argument, NULL, OPT_EXEC_CWD},
	    {"env", required_argument, NULL, 'e'},
	    {"user", required_argument, NULL, 'u'},
	    {"preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS},
	    {"cap", required_argument, NULL, OPT_EXEC_CAP},
	    {0},
	};
	_cleanup_free_ char **env = calloc((size_t)argc, sizeof(char *));
	_cleanup_free_ char **caps = calloc((size_t)argc, sizeof(char *));
	struct exec_opts o = {.root = g->root, .env = env, .caps = caps};
	int c, status = 1;

	if (!env || !caps) {
		error_set(err, ENOMEM, "out of memory");
		return 1;
	}
	optind = 0;
	while ((c = next_opt(argc, argv, "+:p:de:tu:", longopts, err)) != -1) {
		switch (c) {
		case 'p':
			o.process_file = optarg;
			break;
		case 'd':
			o.detach = true;
			break;
		case OPT_PID_FILE:
			o.pid_file = optarg;
			break;
		case OPT_CONSOLE_SOCKET:
			o.console_socket = optarg;
			break;
		case 't':
			o.tty = true;
			break;
		case OPT_EXEC_CWD:
			o.cwd = optarg;
			break;
		case 'e':
			env[o.n_env++] = optarg;
			break;
		case 'u':
			o.user = optarg;
			break;
		case OPT_PRESERVE_FDS:
			if (parse_count("--preserve-fds", optarg,
					&o.preserve_fds, err) < 0)
				return 1;
			break;
		case OPT_EXEC_CAP:
			caps[o.n_caps++] = optarg;
			break;
		default:
			return 1;
		}
	}
	if (want_args(argc, argv, 1, argc,
		      "[OPTIONS] ID (-p PROCESS.json | COMMAND [ARGS...])",
		      err) < 0)
		return 1;
	o.id = argv[optind];
	o.args = argv + optind + 1;
	o.n_args = (size_t)(argc - optind - 1);
	if (container_exec(&o, &status, err) < 0)
		return 1;
	return status;
}

int cmd_pause(const struct global *g, int argc, char **argv, struct error **err)
{
	const char *id;

	if (id_only(argc, argv, &id, err) < 0 ||
	    container_pause(g->root, id, err) < 0)
		return 1;
	return 0;
}

int cmd_resume(const struct global *g, int argc, char **argv,
	       struct error **err)
{
	const char *id;

	if (id_only(argc, argv, &id, err) < 0 ||
	    container_resume(g->root, id, err) < 0)
		return 1;
	return 0;
}

int cmd_update(const struct global *g, int argc, char **argv,
	       struct error **err)
{
	enum {
		OPT_MEMORY = 600,
		OPT_MEMORY_SWAP,
		OPT_PIDS,
		OPT_QUOTA,
		OPT_PERIOD,
		OPT_SHARES,
		OPT_CPUS,
		OPT_MEMS
	};
	static const struct option longopts[] = {
	    {"resources", required_argument, NULL, 'r'},
	    {"memory", required_argument, NULL, OPT_MEMORY},
	    {"memory-swap", required_argument, NULL, OPT_MEMORY_SWAP},
	    {"pids-limit", required_argument, NULL, OPT_PIDS},
	    {"cpu-quota", required_argument, NULL, OPT_QUOTA},
	    {"cpu-period", required_argument, NULL, OPT_PERIOD},
	    {"cpu-shares", required_argument, NULL, OPT_SHARES},
	    {"cpuset-cpus", required_argument, NULL, OPT_CPUS},
	    {"cpuset-mems", required_argument, NULL, OPT_MEMS},
	    {0},
	};
	struct update_opts o = {0};
	const char **slot;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:r:", longopts, err)) != -1) {
		switch (c) {
		case 'r':
			slot = &o.resources;
			break;
		case OPT_MEMORY:
			slot = &o.memory;
			break;
		case OPT_MEMORY_SWAP:
			slot = &o.memory_swap;
			break;
		case OPT_PIDS:
			slot = &o.pids_limit;
			break;
		case OPT_QUOTA:
			slot = &o.cpu_quota;
			break;
		case OPT_PERIOD:
			slot = &o.cpu_period;
			break;
		case OPT_SHARES:
			slot = &o.cpu_shares;
			break;
		case OPT_CPUS:
			slot = &o.cpuset_cpus;
			break;
		case OPT_MEMS:
			slot = &o.cpuset_mems;
			break;
		default:
			return 1;
		}
		*slot = optarg;
	}
	if (want_args(argc, argv, 1, 1,
		      "[--resources FILE|-] [--memory N] [--memory-swap N] "
		      "[--pids-limit N] [--cpu-quota N] [--cpu-period N] "
		      "[--cpu-shares N] [--cpuset-cpus S] [--cpuset-mems S] ID",
		      err) < 0 ||
	    container_update(g->root, argv[optind], &o, err) < 0)
		return 1;
	return 0;
}

int cmd_ps(const struct global *g, int argc, char **argv, struct error **err)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {0},
	};
	_cleanup_free_ char *out = NULL;
	enum ps_format format = PS_TABLE;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:f:", longopts, err)) != -1) {
		if (c == 'f' && strcmp(optarg, "json") == 0) {
			format = PS_JSON;
		} else if (c == 'f' && strcmp(optarg, "table") == 0) {
			format = PS_TABLE;
		} else {
			if (c == 'f')
				error_set(err, EINVAL,
					  "ps: --format: expected table or "
					  "json, got \"%s\"",
					  optarg);
			return 1;
		}
	}
	if (want_args(argc, argv, 1, argc,
		      "[--format table|json] ID [PS_ARGS...]", err) < 0 ||
	    container_ps(g->root, argv[optind], format, argv + optind + 1,
			 (size_t)(argc - optind - 1), &out, err) < 0)
		return 1;
	fputs(out, stdout);
	return 0;
}

/* Seconds ("5", "5s") or milliseconds ("500ms"), as runc's durations. */
static int parse_interval(const char *s, unsigned *ms, struct error **err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!errno && end != s && v > 0 && v <= 86400 &&
	    (!*end || strcmp(end, "s") == 0)) {
		*ms = (unsigned)v * 1000;
		return 0;
	}
	if (!errno && end != s && v > 0 && v <= 86400000 &&
	    strcmp(end, "ms") == 0) {
		*ms = (unsigned)v;
		return 0;
	}
	return error_set(err, EINVAL,
			 "events: --interval: expected seconds like 5 or 5s, "
			 "or 500ms, got \"%s\"",
			 s);
}

static int print_event(const char *json, void *ctx)
{
	if (fputs(json, stdout) == EOF || fflush(stdout) == EOF)
		return -1;
	return 0;
}

int cmd_events(const struct global *g, int argc, char **argv,
	       struct error **err)
{
	static const struct option longopts[] = {
	    {"stats", no_argument, NULL, 's'},
	    {"interval", required_argument, NULL, 'i'},
	    {0},
	};
	unsigned interval_ms = 5000;
	bool stats = false;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:", longopts, err)) != -1) {
		if (c == 's')
			stats = true;
		else if (c != 'i' ||
			 parse_interval(optarg, &interval_ms, err) < 0)
			return 1;
	}
	if (want_args(argc, argv, 1, 1, "[--stats] [--interval N] ID", err) <
		0 ||
	    container_events(g->root, argv[optind], stats, interval_ms,
			     print_event, NULL, err) < 0)
		return 1;
	return 0;
}
