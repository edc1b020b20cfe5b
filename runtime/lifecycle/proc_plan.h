/* The process corral starts in a container, create's first process and
 * exec's alike: one plan, made by the parent before the fork, and the
 * steps that make a sandboxed process from it, which both children call
 * in the same order:
 *
 *   parent: proc_plan_prepare()   console check, no inherited terminal,
 *                                 capabilities, filters, console
 *                                 socket (or the relay's), sync socket
 *   child:  (namespaces, mounts: create's init.c or exec.c)
 *           proc_plan_attributes() session keyring, personality
 *                                 (exec: oom_score_adj too)
 *           (exec: join the user namespace, proc_become_ns_root())
 *           proc_plan_console()   exec: a session of its own; the pty,
 *                                 when process.terminal or relayed
 *           proc_plan_stage()     the stage's parameters; stage_exec()
 *
 * Create becomes root in its new user namespace first of all, before it
 * makes its mounts; exec joins the container's user namespace only after
 * the attributes, because its child is not dumpable and its /proc/self
 * files belong to the host's root, out of reach from inside.  The stage
 * (stage/workload.c) then sets the user, capabilities and LSM labels,
 * loads the filters and execs.  Resource limits, and the oom_score_adj
 * of create's workload, are the stage's too, applied by the workload
 * alone: the supervisor that forks it keeps the runtime's own, so that no
 * config.json can make its record writes fail or the OOM killer prefer
 * it (stage/supervisor.h). */
#ifndef CORRAL_PROC_PLAN_H
#define CORRAL_PROC_PLAN_H

#include <stdbool.h>

#include "caps.h"
#include "error.h"
#include "harden.h"
#include "params.h"
#include "seccomp_filter.h"
#include "spec.h"
#include "tty_relay.h"

struct proc_plan {
	const struct spec_process *process; /* hardened */
	/* the container's workload's ids (create's own process.user, the
	 * stored config.json's for exec): its supervisor's follow */
	uint32_t init_uid, init_gid;
	const struct spec_linux *linux_; /* its personality */
	char **env;			 /* the environment passed */
	bool enforced;			 /* the sandbox is on */
	bool pause; /* a pod sandbox's: no fork (stage/params.h no_fork) */
	/* the baseline's denied calls go to the supervisor's listener
	 * (create's workload); false: EPERM from the filter (exec) */
	bool notify;
	int keep_fds; /* fds 3 .. 3+keep_fds-1 are passed on */
	struct caps_masks caps;
	struct seccomp_program seccomp; /* config.json's, if any */
	bool has_seccomp;
	struct seccomp_program baseline; /* corral's, when enforced */
	int console_fd;			 /* connected console socket, or -1 */
	/* run, sandbox, a foreground exec: the caller's terminal relayed
	 * through a pty of the container's own (tty_relay.h); else NULL */
	struct tty_relay *relay;
	int sync[2]; /* [0] the parent's, [1] the child's */
};

#define PROC_PLAN_INIT                                                         \
	{                                                                      \
		.console_fd = -1, .sync = { -1, -1 }                           \
	}

/* Parent: process, linux_, env, enforced, keep_fds and relay are set.
 * Checks process.terminal against the console socket (or the relay),
 * refuses a terminal on an fd passed on that no pty replaces, resolves
 * the capability sets, compiles config.json's filter `sc` (through the
 * cache in the state root `root`) and, when enforced, the baseline with
 * the policy's extra calls, connects the console socket (or takes the
 * relay's) and makes the sync pair. */
int proc_plan_prepare(struct proc_plan *pp, const char *root,
		      const struct spec_seccomp *sc, const struct sandbox *sb,
		      const char *console_socket, struct error **err);

/* Child: the process's own attributes.  new_keyring: join a fresh
 * session keyring, so that no key of the host's stays reachable.
 * oom_score_adj: process.oomScoreAdj here (exec's process, which is the
 * process itself) rather than in the stage. */
int proc_plan_attributes(const struct proc_plan *pp, bool new_keyring,
			 bool oom_score_adj, struct error **err);

/* Child, in a user namespace it made or joined: uid and gid 0 there. */
int proc_become_ns_root(struct error **err);

/* Child, in the container's mount namespace: a new session first when
 * new_session; with process.terminal or a relay, a pty from the
 * container's devpts becomes its controlling terminal and stdio (as the
 * relay's shape says) and its master goes to the console socket; the
 * socket is closed either way. */
int proc_plan_console(struct proc_plan *pp, bool new_session,
		      struct error **err);

/* The process half of the stage's parameters (the rest is the caller's),
 * with the supervisor's ids: root of the namespace when this process is
 * root there (the namespace maps 0) and the container's workload is not;
 * else the workload's, and then a process of that uid loads the
 * self-only filter (stage/params.h).
 * They point into the plan, which must outlive stage_exec(). */
void proc_plan_stage(const struct proc_plan *pp, enum stage_mode mode,
		     struct stage_params *p);

void proc_plan_release(struct proc_plan *pp);

#endif
