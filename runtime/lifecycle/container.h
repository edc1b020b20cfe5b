/* The OCI lifecycle: one function per command (create.c, start.c, run.c,
 * container.c, explain; the commands that work through a container's
 * cgroup are in cgroup_commands.h, exec in exec.h).  Each takes the state root
 * and the container ID, does its work under the container's lock, and reports
 * failure through *err; printing is left to main. */
#ifndef CORRAL_CONTAINER_H
#define CORRAL_CONTAINER_H

#include <stdbool.h>
#include <sys/types.h>

#include "cgroup.h"
#include "container_dir.h"
#include "error.h"
#include "hostpath.h"
#include "tty_relay.h"

struct create_opts {
	const char *root;
	const char *id;
	const char *bundle; /* NULL: the current directory */
	const char *pid_file;
	const char *console_socket;
	const char *policy; /* NULL: /etc/corral/policy.json or built-ins */
	/* Read-only bind sources allowed on top of the policy: the host
	 * directories `corral sandbox` lends its default root. */
	const char *const *extra_ro_sources;
	size_t n_extra_ro_sources;
	/* `corral sandbox --rootfs DIR`: the caller's own root filesystem,
	 * allowed as root.path exactly. */
	const char *own_rootfs;
	/* Bind sources the caller opened itself (the workspace): a bind of
	 * exactly that source is made from the descriptor, not the path. */
	const struct preopened_source *preopened;
	size_t n_preopened;
	bool no_pivot;
	bool no_new_keyring;
	/* --systemd-cgroup: the cgroup is a scope systemd makes, where
	 * systemd is the host's init (cgroup_systemd.c) */
	bool systemd_cgroup;
	int preserve_fds;
	/* run: write the JSON report there at delete (report_gather.h) */
	const char *report;
	/* run: start the container too, before create lets go of its lock;
	 * a failed start deletes it */
	bool start;
	/* run, sandbox: the caller's terminal relayed (tty_relay.h); NULL:
	 * none, and a terminal on stdio is refused */
	struct tty_relay *relay;
};

/* The processes a create leaves: the container's init and, when the
 * sandbox has the egress proxy, its helper (else -1); both are children
 * of the caller.  And the container's wall clock (seconds; 0: none),
 * which `run` holds it to from the host's side too. */
struct container_pids {
	pid_t init;
	pid_t egress;
	uint64_t wall_clock;
};

int container_create(const struct create_opts *o, struct container_pids *pids,
		     struct error **err);
int container_start(const char *root, const char *id, struct error **err);
/* start's work on a container whose lock the caller holds, created as
 * st says */
int container_start_created(const struct container_dir *dir,
			    struct spec_state *st, struct error **err);
/* The same in two halves.  container_start_open takes the init's pidfd
 * and opens the exec fifo for reading, which lets the init, once it
 * opens its end, go on at once (run opens it before COMMIT, so that the
 * init does not wait for create to come back); container_start_opened
 * reads the init's answer, runs the poststart hooks and closes both. */
struct start_fds {
	int pidfd;
	int fifo;
};
#define START_FDS_INIT ((struct start_fds){.pidfd = -1, .fifo = -1})
int container_start_open(const struct container_dir *dir,
			 const struct spec_state *st, struct start_fds *s,
			 struct error **err);
int container_start_opened(const struct container_dir *dir,
			   struct spec_state *st, struct start_fds *s,
			   struct error **err);
int container_state(const char *root, const char *id, char **json,
		    struct error **err);
int container_kill(const char *root, const char *id, int sig, bool all,
		   struct error **err);
/* run's backstop: SIGKILL to every process of a container still running
 * past its wall clock, its record saying the wall clock ended it; 1 when
 * its supervisor had recorded that already (it was ending), 0 when the
 * backstop ended it. */
int container_kill_overdue(const char *root, const char *id,
			   struct error **err);
/* poststart and poststop hooks of the container's stored config.json
 * (start and delete): a failure is a warning. */
void container_hooks_warn(const struct container_dir *dir,
			  struct spec_state *st, enum spec_hook_kind kind);
int container_delete(const char *root, const char *id, bool force,
		     struct error **err);
/* delete, writing the JSON report into `report` first (NULL: none). */
int container_delete_report(const char *root, const char *id, bool force,
			    const char *report, struct error **err);

/* create + start; unless detached, wait for the workload, forwarding
 * signals, delete the container and set *status to the workload's exit
 * status (128+N when killed by signal N).  Not detached and without a
 * console socket, a terminal on stdio is relayed (tty_relay.h). */
int container_run(const struct create_opts *o, bool detach, int *status,
		  struct error **err);

/* With a bundle: harden its config.json under the policy and explain the
 * result; with an ID: what was applied to that container at create. */
int container_explain(const char *root, const char *id, const char *bundle,
		      const char *policy, bool json, char **out,
		      struct error **err);

enum list_format { LIST_TABLE, LIST_JSON, LIST_QUIET };
int container_list(const char *root, enum list_format format, char **out,
		   struct error **err);

#endif
