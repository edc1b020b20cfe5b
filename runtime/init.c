/* The child side of create and start.  Until the parent commits the state
 * it reports errors over the sync socket and dies with the parent
 * (PR_SET_PDEATHSIG); after that it waits on the exec fifo, and errors go
 * to the container's stderr. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "console.h"
#include "netns.h"
#include "fsutil.h"
#include "hooks.h"
#include "mount.h"
#include "process.h"
#include "supervisor.h"
#include "sync.h"
#include "util.h"
#include "workload.h"

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

static int become_ns_root(const struct init_config *c, struct error **err)
{
	if (!(c->ns->clone_flags & CLONE_NEWUSER))
		return 0;
	if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
		return error_errno(err, "become root in the user namespace");
	return 0;
}

/* Everything up to the point where the container is "created".
 *
 * Without a user namespace the steps up to the root and its scratch
 * overlay (the network namespace among them) need nothing from the
 * parent and run while it makes the cgroup and writes the state.  GO
 * says the cgroup is there: this process moves itself in
 * (cgroup_enter_self), then makes its cgroup namespace and config.json's
 * mounts (cgroup mounts among them).  With a user namespace the parent
 * has moved it before GO, which also carries the id maps. */
static int setup(const struct init_config *c, char **state_json,
		 struct error **err)
{
	_cleanup_close_ int rootfd = -1;
	const struct spec *spec = c->spec;
	bool userns = c->ns->clone_flags & CLONE_NEWUSER;

	if (process_set_title("corral-init", err) < 0)
		return -1;
	if (userns && (sync_expect(c->sync_fd, SYNC_GO, state_json, err) < 0 ||
		       become_ns_root(c, err) < 0))
		return -1;
	/* While this process is still the corral binary, no process that
	 * joins the container may open its /proc/PID/exe or fds. */
	if (!userns && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return error_errno(err, "set non-dumpable");
	if (setsid() < 0)
		return error_errno(err, "setsid");
	if (ns_join_rest(c->ns, err) < 0)
		return -1;
	if ((c->ns->clone_flags & CLONE_NEWNET) && unshare(CLONE_NEWNET) < 0)
		return error_errno(err, "new network namespace");
	if (set_names(spec, err) < 0)
		return -1;
	if (c->sandbox->loopback_only && netns_loopback_up(err) < 0)
		return -1;
	rootfd = mount_prepare_root(spec, c->sources, c->mountpoint, c->sandbox,
				    err);
	if (rootfd < 0)
		return -1;
	if (!userns && sync_expect(c->sync_fd, SYNC_GO, state_json, err) < 0)
		return -1;
	if (!userns && cgroup_enter_self(c->cgroup, c->in_cgroup2, err) < 0)
		return error_wrap(err, "cgroup");
	if ((c->ns->clone_flags & CLONE_NEWCGROUP) &&
	    unshare(CLONE_NEWCGROUP) < 0)
		return error_errno(err, "new cgroup namespace");
	if (mount_prepare_rest(rootfd, spec, c->sources, err) < 0)
		return -1;
	mount_sources_close(c->sources);
	if (has_hooks(spec, HOOK_PRESTART, HOOK_CREATE_RUNTIME) &&
	    (sync_send(c->sync_fd, SYNC_HOOKS, NULL, 0, err) < 0 ||
	     sync_expect(c->sync_fd, SYNC_HOOKS_DONE, NULL, err) < 0))
		return -1;
	if (hooks_run(&spec->hooks[HOOK_CREATE_CONTAINER],
		      HOOK_CREATE_CONTAINER, *state_json, !c->sandbox->enforced,
		      err) < 0)
		return -1;
	if (mount_pivot_root(rootfd, c->no_pivot, err) < 0 ||
	    process_set_sysctls(spec->linux_, err) < 0 ||
	    mount_finish(spec, err) < 0)
		return -1;
	if (spec->process->terminal &&
	    console_setup(c->console_fd, spec->process, err) < 0)
		return -1;
	if (c->console_fd >= 0)
		close(c->console_fd);
	if (!c->no_new_keyring &&
	    syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 &&
	    errno != ENOSYS)
		return error_errno(err, "new session keyring");
	if (process_set_rlimits(spec->process, err) < 0 ||
	    process_set_oom_score_adj(spec->process, err) < 0 ||
	    process_set_personality(spec->linux_, err) < 0)
		return -1;
	free(*state_json);
	*state_json = NULL;
	if (sync_send(c->sync_fd, SYNC_READY, NULL, 0, err) < 0 ||
	    sync_expect(c->sync_fd, SYNC_COMMIT, state_json, err) < 0)
		return -1;
	/* The parent waits for this answer before it exits: were it to exit
	 * first, the death signal would still be armed and kill us. */
	if (prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) < 0)
		return error_errno(err, "clear parent death signal");
	if (sync_send(c->sync_fd, SYNC_COMMITTED, NULL, 0, err) < 0)
		return -1;
	close(c->sync_fd);
	return 0;
}

/* Block until `start` opens the fifo for reading, run the startContainer
 * hooks, and tell `start` how that went: "0", or "1" and the error, which
 * start reports as its own.  The fifo was opened O_PATH before pivot_root;
 * it is reopened for writing through /proc/self/fd, as the host path is
 * out of reach. */
static int wait_for_start(const struct init_config *c, const char *state_json,
			  struct error **err)
{
	_cleanup_close_ int fd = -1;
	char p[FD_PATH_MAX];
	int r;

	fd_path(c->fifo_fd, p);
	do
		fd = open(p, O_WRONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return error_errno(err, "open exec fifo");
	close(c->fifo_fd);
	r = hooks_run(&c->spec->hooks[HOOK_START_CONTAINER],
		      HOOK_START_CONTAINER, state_json, !c->sandbox->enforced,
		      err);
	if (r < 0) {
		write_all(fd, "1", 1);
		write_all(fd, (*err)->msg, strlen((*err)->msg));
		return -1;
	}
	if (write_all(fd, "0", 1) < 0)
		return error_errno(err, "write exec fifo");
	return 0;
}

/* The workload, forked by the supervisor: its own sandbox, then exec. */
static int workload_main(void *arg)
{
	const struct init_config *c = arg;
	_cleanup_error_ struct error *err = NULL;
	struct workload w = {
	    .process = c->spec->process,
	    .env = c->env,
	    .caps = c->caps,
	    .enforced = c->sandbox->enforced,
	    .keep_fds = c->keep_fds,
	    .seccomp = c->seccomp,
	    .baseline = c->baseline,
	};

	workload_exec(&w, &err);
	if (err)
		fprintf(stderr, "corral: %s\n", err->msg);
	return 127;
}

int init_run(const struct init_config *c)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *state_json = NULL;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    setup(c, &state_json, &err) < 0) {
		if (!err)
			error_errno(&err, "parent death signal");
		sync_send(c->sync_fd, SYNC_ERROR, err->msg, strlen(err->msg),
			  NULL);
		return 1;
	}
	if (wait_for_start(c, state_json, &err) < 0) {
		fprintf(stderr, "corral: %s\n", err->msg);
		return 127;
	}
	{
		struct supervisor_config sc = {
		    .wall_clock = c->sandbox->wall_clock,
		    .terminal = c->spec->process->terminal,
		    .uid = c->spec->process->user.uid,
		    .gid = c->spec->process->user.gid,
		    .filter = c->supervisor,
		};

		supervisor_run(&sc, workload_main, (void *)c);
	}
}
