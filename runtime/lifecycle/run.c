/* run: create, start, wait with the caller's terminal relayed and the
 * wall clock held from the host's side, delete (container.h). */
#include "container.h"

#include <signal.h>
#include <time.h>

#include "forward.h"
#include "log.h"
#include "tty_relay.h"

/* How long past its deadline a container may run before `run` ends it
 * itself: the supervisor's own clock started a little after this one,
 * and its kill takes a moment. */
#define BACKSTOP_GRACE_S 1

/* run's backstop to the supervisor's wall clock (stage/supervisor.h): a
 * container still running a moment after its deadline is killed from
 * here, outside its namespaces and credentials, whatever became of its
 * supervisor (killed by the OOM killer, or slowed by a workload of its
 * own uid), and the record says the wall clock ended it.  The warning is
 * for a supervisor that missed its deadline; one that had recorded its
 * kill was only slow to be gone. */
static void kill_overdue(void *opts)
{
	const struct create_opts *o = opts;

	if (container_kill_overdue(o->root, o->id, NULL) == 0)
		log_warn("%s: still running %ds after its wall clock: "
			 "killed by corral run",
			 o->id, BACKSTOP_GRACE_S);
}

/* run's wait for the init, forwarding signals, held to the deadline;
 * with the caller's terminal relayed (tty_relay.h) when relay is given. */
static int wait_held_to_clock(const struct create_opts *o,
			      const struct container_pids *pids,
			      const sigset_t *set, struct tty_relay *relay)
{
	struct timespec deadline, *by = NULL;
	int status;

	if (pids->wall_clock) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += (time_t)pids->wall_clock + BACKSTOP_GRACE_S;
		by = &deadline;
	}
	if (relay)
		return tty_relay_until_exit(relay, pids->init, set, by,
					    kill_overdue, (void *)o);
	status = forward_until_exit_by(pids->init, set, by);
	if (status >= 0)
		return status;
	kill_overdue((void *)o);
	return forward_until_exit(pids->init, set);
}

int container_run(const struct create_opts *o, bool detach, int *status,
		  struct error **err)
{
	struct create_opts started = *o;
	struct tty_relay relay = TTY_RELAY_INIT;
	sigset_t set, old;
	struct container_pids pids;
	int r = 0;

	started.start = true;
	forward_block(&set, &old);
	if (!detach && !o->console_socket)
		r = tty_relay_prepare(&relay, err);
	started.relay = r == 1 ? &relay : NULL;
	if (r >= 0)
		r = container_create(&started, &pids, err);
	if (r == 0 && !detach) {
		*status = wait_held_to_clock(o, &pids, &set, started.relay);
		/* The helper ends with the init: once it is gone, delete has
		 * no process left to kill and wait for. */
		if (pids.egress > 0)
			forward_reap(pids.egress, &set, 100);
		r = container_delete_report(o->root, o->id, true, o->report,
					    err);
	}
	tty_relay_release(&relay);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r == 0 && detach)
		*status = 0;
	return r;
}
