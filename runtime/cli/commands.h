/* The commands of the CLI, one function each. */
#ifndef CORRAL_COMMANDS_H
#define CORRAL_COMMANDS_H

#include <stdbool.h>

#include "error.h"
#include "log.h"

#define DEFAULT_ROOT "/run/corral"

struct global {
	const char *root;
	bool root_given; /* --root: else an ordinary user's is its own */
	const char *log;
	const char *policy; /* --policy FILE */
	enum log_format log_format;
	bool debug;
	bool systemd_cgroup;
};

/* argv[0] is the command name.  Returns the process exit status; on
 * failure *err is set (and the status is non-zero). */
typedef int (*command_fn)(const struct global *g, int argc, char **argv,
			  struct error **err);

struct command {
	const char *name;
	command_fn fn;
	const char *help;
	/* it sets a container up: an ordinary user's corral runs it in a
	 * user namespace of its own (rootless.h) */
	bool sets_up;
};

/* An ordinary user's corral enters a user namespace of its own where the
 * policy's sandbox user is the caller (rootless.h rootless_enter): 0 in
 * the process that goes on with the command, 1 in the caller's once it
 * has ended (*status its exit status), -1 on error. */
int command_enter_userns(const char *policy, int *status, struct error **err);

int cmd_create(const struct global *g, int argc, char **argv,
	       struct error **err);
int cmd_start(const struct global *g, int argc, char **argv,
	      struct error **err);
int cmd_state(const struct global *g, int argc, char **argv,
	      struct error **err);
int cmd_kill(const struct global *g, int argc, char **argv, struct error **err);
int cmd_delete(const struct global *g, int argc, char **argv,
	       struct error **err);
int cmd_run(const struct global *g, int argc, char **argv, struct error **err);
int cmd_list(const struct global *g, int argc, char **argv, struct error **err);
int cmd_spec(const struct global *g, int argc, char **argv, struct error **err);
int cmd_explain(const struct global *g, int argc, char **argv,
		struct error **err);
int cmd_sandbox(const struct global *g, int argc, char **argv,
		struct error **err);
int cmd_features(const struct global *g, int argc, char **argv,
		 struct error **err);
int cmd_exec(const struct global *g, int argc, char **argv, struct error **err);
int cmd_pause(const struct global *g, int argc, char **argv,
	      struct error **err);
int cmd_resume(const struct global *g, int argc, char **argv,
	       struct error **err);
int cmd_update(const struct global *g, int argc, char **argv,
	       struct error **err);
int cmd_ps(const struct global *g, int argc, char **argv, struct error **err);
int cmd_events(const struct global *g, int argc, char **argv,
	       struct error **err);
int cmd_report(const struct global *g, int argc, char **argv,
	       struct error **err);

#endif
