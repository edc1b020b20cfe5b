/* The corral CLI: global flags, then one command.  Each command parses its
 * own flags and calls one function of the runtime; errors are printed here
 * and nowhere else, as one line "corral: WHAT: WHY". */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "spec.h"
#include "log.h"
#include "pod.h"
#include "policy.h"
#include "policy_file.h"
#include "process.h"
#include "rootless.h"
#include "util.h"

static const struct command commands[] = {
    {"create", cmd_create, "create a container from a bundle", true},
    {"start", cmd_start, "start the process of a created container", false},
    {"state", cmd_state, "print the state of a container as JSON", false},
    {"kill", cmd_kill, "send a signal to a container's init process", false},
    {"delete", cmd_delete, "delete a container and its state", false},
    {"run", cmd_run, "create and start a container, wait for it", true},
    {"list", cmd_list, "list containers", false},
    {"spec", cmd_spec, "write a config.json with corral's defaults", false},
    {"sandbox", cmd_sandbox,
     "run a command under the full sandbox, no engine needed", true},
    {"explain", cmd_explain,
     "show what a container can reach, without running it", false},
    {"features", cmd_features, "print the runtime's features as JSON", false},
    {"exec", cmd_exec, "run another process in a running container", false},
    {"pause", cmd_pause, "freeze every process of a running container", false},
    {"resume", cmd_resume, "thaw a paused container", false},
    {"update", cmd_update, "change the resource limits of a container", false},
    {"ps", cmd_ps, "list the processes of a container", false},
    {"events", cmd_events, "stream a container's stats and OOM events as JSON",
     false},
    {"report", cmd_report,
     "what a container's code tried: outcome, limits hit, files changed",
     false},
};

/* `corral COMMAND --help`: the synopsis and options of the command's
 * section of corral(8), made into C at build time from the page's source
 * (tools/help_gen.awk on docs/man/corral.8.scd), so the two agree. */
static const struct {
	const char *name, *usage, *options;
} command_help[] = {
#include "help.inc"
};

/* Whether argv (a command and its arguments) asks for the command's help
 * (its first argument is --help; a later one is the container's program's,
 * as in `exec ID prog --help`), which is then printed. */
static bool print_command_help(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") != 0)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(command_help); i++) {
		if (strcmp(command_help[i].name, argv[0]) != 0)
			continue;
		fputs(command_help[i].usage, stdout);
		if (command_help[i].options[0])
			printf("\nOptions:\n%s", command_help[i].options);
		return true;
	}
	return false;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: corral [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGS]\n\n"
	    "An OCI runtime that runs untrusted code in a hardened sandbox.\n\n"
	    "Commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(
	    f, "\nGlobal options:\n"
	       "  --root DIR           state directory (default " DEFAULT_ROOT
	       ")\n"
	       "  --log FILE           append errors to FILE\n"
	       "  --log-format FORMAT  text or json\n"
	       "  --debug              debug logging\n"
	       "  --policy FILE        the sandbox policy (default " POLICY_PATH
	       ")\n"
	       "  --systemd-cgroup     a systemd scope per container\n"
	       "  -v, --version        print the version\n"
	       "  -h, --help           print this help\n");
}

static int parse_global(int argc, char **argv, struct global *g,
			struct error **err)
{
	enum {
		OPT_ROOT = 256,
		OPT_LOG,
		OPT_LOG_FORMAT,
		OPT_DEBUG,
		OPT_SYSTEMD_CGROUP,
		OPT_POLICY
	};
	static const struct option opts[] = {
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"log", required_argument, NULL, OPT_LOG},
	    {"log-format", required_argument, NULL, OPT_LOG_FORMAT},
	    {"debug", no_argument, NULL, OPT_DEBUG},
	    {"systemd-cgroup", no_argument, NULL, OPT_SYSTEMD_CGROUP},
	    {"policy", required_argument, NULL, OPT_POLICY},
	    {"version", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_ROOT:
			g->root = optarg;
			g->root_given = true;
			break;
		case OPT_LOG:
			g->log = optarg;
			break;
		case OPT_LOG_FORMAT:
			if (strcmp(optarg, "json") == 0)
				g->log_format = LOG_JSON;
			else if (strcmp(optarg, "text") == 0)
				g->log_format = LOG_TEXT;
			else
				return error_set(err, EINVAL,
						 "--log-format: expected text "
						 "or json, got \"%s\"",
						 optarg);
			break;
		case OPT_DEBUG:
			g->debug = true;
			break;
		case OPT_SYSTEMD_CGROUP:
			g->systemd_cgroup = true;
			break;
		case OPT_POLICY:
			g->policy = optarg;
			break;
		case 'v':
			printf("corral version %s\nspec: %s\n", CORRAL_VERSION,
			       SPEC_OCI_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return error_set(err, EINVAL, "unknown option %s",
					 argv[optind - 1]);
		}
	}
	return optind;
}

/* An ordinary user's corral sets a container up in a user namespace of
 * its own, where the policy's sandbox user is the caller (rootless.h):
 * 0 in that namespace's process, which goes on with the command; 1 in
 * the caller's once it has ended (*status its exit status); -1 on
 * error. */
static int enter_own_userns(const struct global *g, int *status,
			    struct error **err)
{
	struct policy *p = NULL;
	int r;

	if (policy_load(g->policy, &p, err) < 0)
		return -1;
	r = rootless_enter(p->uid, p->gid, status, err);
	policy_free(p);
	return r;
}

/* Run the command; an ordinary user's state root is its own (unless
 * --root says), as is that of root of a user namespace not the host's
 * (rootless podman's, which passes no --root); a command that sets a
 * container up runs in a user namespace of the caller's own, unless the
 * caller is root of one already. */
static int dispatch(struct global *g, const struct command *cmd, int argc,
		    char **argv, char **own_root, struct error **err)
{
	int status = 1, r;

	if ((rootless() || rootless_outside_host()) && !g->root_given) {
		if (rootless_state_root(own_root, err) < 0)
			return 1;
		g->root = *own_root;
	}
	if (rootless()) {
		if (cmd->sets_up) {
			r = enter_own_userns(g, &status, err);
			if (r < 0)
				return 1;
			if (r == 1)
				return status;
		}
	}
	return cmd->fn(g, argc, argv, err);
}

int main(int argc, char **argv)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *own_root = NULL;
	struct global g = {.root = DEFAULT_ROOT, .log_format = LOG_TEXT};
	const struct command *cmd = NULL;
	int first, status = 1;

	process_title_init(argc, argv);
	pod_note_caller();
	/* A hook or console peer that goes away must not kill the runtime
	 * halfway through: write errors are handled where they happen. */
	signal(SIGPIPE, SIG_IGN);
	first = parse_global(argc, argv, &g, &err);
	if (first >= 0) {
		log_init(g.log, g.log_format, g.debug);
		if (first >= argc) {
			usage(stderr);
			return 1;
		}
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			if (strcmp(commands[i].name, argv[first]) == 0)
				cmd = &commands[i];
		if (!cmd)
			error_set(&err, EINVAL, "unknown command \"%s\"",
				  argv[first]);
		else if (print_command_help(argc - first, argv + first))
			status = 0;
		else
			status = dispatch(&g, cmd, argc - first, argv + first,
					  &own_root, &err);
	}
	if (err) {
		fprintf(stderr, "corral: %s\n", err->msg);
		log_error(err->msg);
		return status > 0 ? status : 1;
	}
	return status;
}
