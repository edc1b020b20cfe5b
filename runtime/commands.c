#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container.h"
#include "fsutil.h"
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

static int want_args(int argc, char **argv, int min, int max,
		     const char *usage, struct error **err)
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
		return error_set(err, EINVAL, "%s: invalid number \"%s\"", flag, s);
	*out = (int)n;
	return 0;
}

static const struct option create_longopts[] = {
	{ "bundle", required_argument, NULL, 'b' },
	{ "pid-file", required_argument, NULL, OPT_PID_FILE },
	{ "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
	{ "no-pivot", no_argument, NULL, OPT_NO_PIVOT },
	{ "no-new-keyring", no_argument, NULL, OPT_NO_NEW_KEYRING },
	{ "preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS },
	{ "detach", no_argument, NULL, 'd' },
	{ "keep", no_argument, NULL, 'k' },
	{ 0 },
};

/* create and run share their flags; run adds -d. */
static int parse_create(const struct global *g, int argc, char **argv,
			struct create_opts *o, bool *detach, struct error **err)
{
	const char *shortopts = detach ? "+:b:d" : "+:b:";
	int c;

	*o = (struct create_opts){ .root = g->root, .policy = g->policy };
	optind = 0;
	while ((c = next_opt(argc, argv, shortopts, create_longopts, err)) != -1) {
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
		default:
			return -1;
		}
	}
	if (want_args(argc, argv, 1, 1, "[OPTIONS] ID", err) < 0)
		return -1;
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
static int id_only(int argc, char **argv, const char **id,
		   struct error **err)
{
	static const struct option none[] = { { 0 } };

	optind = 0;
	if (next_opt(argc, argv, "+:", none, err) != -1 ||
	    want_args(argc, argv, 1, 1, "ID", err) < 0)
		return -1;
	*id = argv[optind];
	return 0;
}

int cmd_start(const struct global *g, int argc, char **argv,
	      struct error **err)
{
	const char *id;

	if (id_only(argc, argv, &id, err) < 0 ||
	    container_start(g->root, id, err) < 0)
		return 1;
	return 0;
}

int cmd_state(const struct global *g, int argc, char **argv,
	      struct error **err)
{
	_cleanup_free_ char *json = NULL;
	const char *id;

	if (id_only(argc, argv, &id, err) < 0 ||
	    container_state(g->root, id, &json, err) < 0)
		return 1;
	fputs(json, stdout);
	return 0;
}

int cmd_kill(const struct global *g, int argc, char **argv,
	     struct error **err)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ 0 },
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
	if (argc - optind == 2 &&
	    signal_parse(argv[optind + 1], &sig, err) < 0)
		return 1;
	if (container_kill(g->root, argv[optind], sig, all, err) < 0)
		return 1;
	return 0;
}

int cmd_delete(const struct global *g, int argc, char **argv,
	       struct error **err)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ 0 },
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

int cmd_list(const struct global *g, int argc, char **argv,
	     struct error **err)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, 'f' },
		{ 0 },
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
					  "list: --format: expected table or json, got \"%s\"",
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

int cmd_spec(const struct global *g, int argc, char **argv,
	     struct error **err)
{
	static const struct option longopts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ 0 },
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
	if (dfd < 0)
		{
			error_errno(err, "spec: bundle %s", bundle);
			return 1;
		}
	fd = openat(dfd, "config.json",
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		{
			error_errno(err, "spec: %s/config.json", bundle);
			return 1;
		}
	if (write_all(fd, json, strlen(json)) < 0)
		{
			error_errno(err, "spec: write config.json");
			return 1;
		}
	return 0;
}

int cmd_explain(const struct global *g, int argc, char **argv,
		struct error **err)
{
	static const struct option longopts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ 0 },
	};
	_cleanup_free_ char *out = NULL;
	const char *bundle = NULL, *policy = g->policy;
	bool json = false;
	int c;

	optind = 0;
	while ((c = next_opt(argc, argv, "+:b:f:", longopts, err)) != -1) {
		if (c == 'b') {
			bundle = optarg;
		} else if (c == 'p') {
			policy = optarg;
		} else if (c == 'f' && (strcmp(optarg, "json") == 0 ||
					strcmp(optarg, "text") == 0)) {
			json = strcmp(optarg, "json") == 0;
		} else {
			if (c == 'f')
				error_set(err, EINVAL,
					  "explain: --format: expected text or json, got \"%s\"",
					  optarg);
			return 1;
		}
	}
	if (want_args(argc, argv, bundle ? 0 : 1, bundle ? 0 : 1,
		      "[--policy F] [--format text|json] (--bundle DIR | ID)",
		      err) < 0 ||
	    container_explain(g->root, bundle ? NULL : argv[optind], bundle,
			      policy, json, &out, err) < 0)
		return 1;
	fputs(out, stdout);
	return 0;
}

int cmd_sandbox(const struct global *g, int argc, char **argv,
		struct error **err)
{
	static const struct option longopts[] = {
		{ "rootfs", required_argument, NULL, 'r' },
		{ "policy", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "memory", required_argument, NULL, 'm' },
		{ "network", required_argument, NULL, 'n' },
		{ "workspace", required_argument, NULL, 'w' },
		{ 0 },
	};
	struct sandbox_opts o = { .root = g->root, .policy = g->policy };
	int c, status = 1;

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
			o.workspace = optarg;
			break;
		case 'n':
			if (strcmp(optarg, "none") != 0) {
				error_set(err, EINVAL,
					  "sandbox: --network: only \"none\" (loopback only) is offered; the policy file widens");
				return 1;
			}
			break;
		default:
			return 1;
		}
	}
	if (optind >= argc)
		{
			error_set(err, EINVAL,
					 "sandbox: usage: corral sandbox [--rootfs DIR] [--policy F] [--timeout S] [--memory M] [--network none] [--workspace DIR] -- CMD [ARGS...]");
			return 1;
		}
	o.argv = argv + optind;
	o.argc = argc - optind;
	if (sandbox_run(&o, &status, err) < 0)
		return 1;
	return status;
}

int cmd_features(const struct global *g, int argc, char **argv,
		 struct error **err)
{
	static const struct option none[] = { { 0 } };
	_cleanup_free_ char *json = NULL;

	optind = 0;
	if (next_opt(argc, argv, "+:", none, err) != -1 ||
	    want_args(argc, argv, 0, 0, "", err) < 0 ||
	    spec_features_emit(&json, err) < 0)
		return 1;
	fputs(json, stdout);
	return 0;
}
