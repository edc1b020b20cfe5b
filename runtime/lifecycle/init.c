/* The child side of create.  It sets the container up, reporting errors
 * over the sync socket and dying with the parent (PR_SET_PDEATHSIG), and
 * then, still before the container is "created", becomes the stage
 * (runtime/lifecycle/stage.h): the stage finishes the sync protocol, waits on
 * the exec fifo for `start` and supervises the workload, so that by the time
 * anything of the container's runs, no process of it is corral's binary. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "cpus.h"
#include "fsutil.h"
#include "hooks.h"
#include "mount.h"
#include "netns.h"
#include "process.h"
#include "stage.h"
#include "sync.h"
#include "util.h"

static bool has_hooks(const struct spec *spec, enum spec_hook_kind a,
		      enum spec_hook_kind b)
{
	return spec->hooks[a].n > 0 || spec->hooks[b].n > 0;
}

static int set_names(const struct spec *spec, struct error **err)
{
	if (spec->hostname &&
	    sethostname(spec->hostname, strlen(spec->hostname)) < 0)
		return error_errno(err, "set hostname");
	if (spec->domainname &&
	    setdomainname(spec->domainname, strlen(spec->domainname)) < 0)
		return error_errno(err, "set domainname");
	return 0;
}

/* Everything up to the last step before the container is "created".
 *
 * Without a user namespace the steps up to the root and its scratch
 * overlay (the network namespace among them) need nothing from the
 * parent and run while it makes the cgroup and writes the state.  GO
 * says the cgroup is there: this process moves itself in
 * (cgroup_enter_self), then makes its cgroup namespace and config.json's
 * mounts (cgroup mounts among them).  With a user namespace the parent
 * has moved it before GO, which also carries the id maps.  In a pid
 * namespace it joined, the supervisor is not PID 1: it gets the files it
 * needs to kill its cgroup itself, opened here while the host's cgroupfs
 * is still in reach. */
static int setup(const struct init_config *c, char **state_json,
		 struct cgroup_reaper_fds *reaper, struct error **err)
{
	_cleanup_close_ int rootfd = -1, sysfd = -1;
	const struct spec *spec = c->spec;
	bool userns = (c->ns->clone_flags & CLONE_NEWUSER) || c->hopped;
	size_t next = 0;

	if (!c->shared && process_set_title("corral-init", err) < 0)
		return -1;
	if (userns &&
	    (sync_expect(c->proc->sync[1], SYNC_GO, state_json, err) < 0 ||
	     proc_become_ns_root(err) < 0))
		return -1;
	if (userns && c->cpus_saved && cpus_restore(&c->cpus) < 0)
		return error_errno(err, "take back the CPUs create had");
	/* Becoming the namespace's root changed the effective uid, which
	 * made this process undumpable, and so its /proc/self files the
	 * host root's, which its namespace cannot name: oom_score_adj could
	 * not be opened.  Dumpable again, as it was forked: they are that
	 * root's (the container's own id), and no process of the container
	 * exists yet to look. */
	if (userns && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		return error_errno(err, "set dumpable");
	/* While this process is still the corral binary, no process that
	 * joins the container may open its /proc/PID/exe or fds. */
	if (!userns && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return error_errno(err, "set non-dumpable");
	if (setsid() < 0)
		return error_errno(err, "setsid");
	if (!c->hopped && ns_join_rest(c->ns, err) < 0)
		return -1;
	if ((c->ns->clone_flags & CLONE_NEWNET) && unshare(CLONE_NEWNET) < 0)
		return error_errno(err, "new network namespace");
	if (set_names(spec, err) < 0)
		return -1;
	if (c->sandbox->loopback_only && netns_loopback_up(err) < 0)
		return -1;
	/* The egress helper may listen there now, while the rest is set up;
	 * it puts DNS_STUB_ADDR, where the stub resolver's names lead, on
	 * lo itself (runtime/egress/egress_helper.c; a pod's network has it
	 * from its pod sandbox's).  The byte goes straight to the helper,
	 * create is not woken to pass it on; a helper gone already (EPIPE) is
	 * create's to report at READY.  It carries this namespace: entering
	 * it through this process's pidfd asks ptrace's leave, which a
	 * non-dumpable process gives only to CAP_SYS_PTRACE in the host's
	 * user namespace, which an ordinary user's helper lacks. */
	if (c->lo_up >= 0) {
		_cleanup_close_ int net =
		    open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

		if (net < 0 || send_with_fd(c->lo_up, "", 1, net) < 0) {
			ssize_t w =
			    write(c->lo_up, "", 1); /* the helper fails */

			(void)w;
		}
		close(c->lo_up);
	}
	sysfd = process_open_sysctls(spec->linux_, err);
	if (sysfd == -1)
		return -1;
	rootfd = mount_prepare_root(spec, c->sources, c->sandbox, err);
	/* The copy makes the mounts that need no cgroup while create makes
	 * the cgroup; a shared child's cgroup is made already, and it joins
	 * it before it makes any. */
	if (rootfd < 0 ||
	    (!c->shared && mount_prepare_before_cgroup(rootfd, spec, c->sources,
						       &next, err) < 0))
		return -1;
	if (!userns && !c->shared &&
	    sync_expect(c->proc->sync[1], SYNC_GO, state_json, err) < 0)
		return -1;
	if (!userns && c->cgroup &&
	    cgroup_enter_self(c->cgroup, c->in_cgroup2, err) < 0)
		return error_wrap(err, "cgroup");
	if (!userns && c->cpus_saved && cpus_restore(&c->cpus) < 0)
		return error_errno(err, "take back the CPUs create had");
	if (c->ns->join_fds[NS_PID] >= 0 && c->cgroup &&
	    cgroup_open_reaper(c->cgroup, reaper, err) < 0)
		return error_wrap(err, "cgroup");
	if ((c->ns->clone_flags & CLONE_NEWCGROUP) &&
	    unshare(CLONE_NEWCGROUP) < 0)
		return error_errno(err, "new cgroup namespace");
	if (mount_prepare_rest(rootfd, spec, c->sources, c->cgroup, next, err) <
	    0)
		return -1;
	mount_sources_close(c->sources);
	if (has_hooks(spec, HOOK_PRESTART, HOOK_CREATE_RUNTIME) &&
	    (sync_send(c->proc->sync[1], SYNC_HOOKS, NULL, 0, err) < 0 ||
	     sync_expect(c->proc->sync[1], SYNC_HOOKS_DONE, NULL, err) < 0))
		return -1;
	if (hooks_run(&spec->hooks[HOOK_CREATE_CONTAINER],
		      HOOK_CREATE_CONTAINER, *state_json, !c->sandbox->enforced,
		      err) < 0)
		return -1;
	if (mount_pivot_root(rootfd, c->no_pivot, err) < 0 ||
	    process_set_sysctls(sysfd, spec->linux_, err) < 0 ||
	    mount_finish(spec, err) < 0)
		return -1;
	/* proc_plan.h: the steps of every sandboxed process, in order; the
	 * session is this process's own already (setsid above). */
	if (proc_plan_attributes(c->proc, !c->no_new_keyring, false, err) < 0 ||
	    proc_plan_console(c->proc, false, err) < 0)
		return -1;
	return 0;
}

/* Everything the stage needs, from what create decided. */
static void fill_params(const struct init_config *c,
			const struct cgroup_reaper_fds *reaper,
			struct stage_params *p)
{
	const struct spec *spec = c->spec;

	proc_plan_stage(c->proc, STAGE_INIT, p);
	p->dumpable = (c->ns->clone_flags & CLONE_NEWUSER) || c->hopped;
	p->wall_clock = c->sandbox->wall_clock;
	p->fifo_fd = c->fifo_fd;
	p->cgroup_procs_fd = reaper->procs;
	p->cgroup_kill_fd = reaper->kill;
	p->cgroup_procs_reopen = reaper->reopen;
	p->outcome_fd = c->outcome_fd;
	p->start_hooks = spec->hooks[HOOK_START_CONTAINER].hooks;
	p->n_start_hooks = spec->hooks[HOOK_START_CONTAINER].n;
}

int init_run(const struct init_config *c)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *state_json = NULL;
	struct cgroup_reaper_fds reaper = {-1, -1, false};
	struct stage_params params;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		error_errno(&err, "parent death signal");
	else if (setup(c, &state_json, &reaper, &err) == 0 &&
		 caps_keep_for_stage(&err) == 0) {
		fill_params(c, &reaper, &params);
		stage_exec(&params, &err);
	}
	sync_send(c->proc->sync[1], SYNC_ERROR, err->msg, strlen(err->msg),
		  NULL);
	return 1;
}

int init_hop(const struct init_config *c)
{
	_cleanup_error_ struct error *err = NULL;
	struct init_config second = *c;
	char pid_text[16];
	bool joined;
	pid_t pid;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) {
		error_errno(&err, "parent death signal");
	} else if (ns_join_pid(c->ns, &err) == 0 &&
		   ns_join_rest(c->ns, &err) == 0 &&
		   ns_join_user(c->ns, &joined, &err) == 0 &&
		   proc_become_ns_root(&err) == 0) {
		/* the new namespaces, the network's and the cgroup's but
		 * (init_run makes those), are the joined user namespace's */
		unsigned long flags =
		    c->ns->clone_flags &
		    ~(unsigned long)(CLONE_NEWNET | CLONE_NEWCGROUP);

		pid = ns_clone(flags | CLONE_PARENT, -1, &second.in_cgroup2);
		if (pid == 0) {
			second.hopped = true;
			second.in_cgroup2 = c->in_cgroup2;
			_exit(init_run(&second));
		}
		if (pid > 0) {
			int n = snprintf(pid_text, sizeof(pid_text), "%d",
					 (int)pid);

			return sync_send(c->proc->sync[1], SYNC_PID, pid_text,
					 (size_t)n, NULL) < 0;
		}
		error_errno(&err, "clone the container process");
	}
	sync_send(c->proc->sync[1], SYNC_ERROR, err->msg, strlen(err->msg),
		  NULL);
	return 1;
}
