/* The child side of create and start.  Until the parent commits the state
 * it reports errors over the sync socket and dies with the parent
 * (PR_SET_PDEATHSIG); after that it waits on the exec fifo, and errors go
 * to the container's stderr. */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
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

/* Everything up to the point where the container is "created". */
static int setup(const struct init_config *c, char **state_json,
		 struct error **err)
{
	_cleanup_close_ int rootfd = -1;
	const struct spec *spec = c->spec;

	if (sync_expect(c->sync_fd, SYNC_GO, state_json, err) < 0)
		return -1;
	if (become_ns_root(c, err) < 0)
		return -1;
	if ((c->ns->clone_flags & CLONE_NEWCGROUP) &&
	    unshare(CLONE_NEWCGROUP) < 0)
		return error_errno(err, "new cgroup namespace");
	/* While this process is still the corral binary, no process that
	 * joins the container may open its /proc/PID/exe or fds. */
	if (!(c->ns->clone_flags & CLONE_NEWUSER) &&
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return error_errno(err, "set non-dumpable");
	if (setsid() < 0)
		return error_errno(err, "setsid");
	if (ns_join_rest(c->ns, err) < 0 || set_names(spec, err) < 0)
		return -1;
	if (c->sandbox->loopback_only && netns_loopback_up(err) < 0)
		return -1;
	if (chdir(c->bundle) < 0)
		return error_errno(err, "chdir %s", c->bundle);
	rootfd = mount_prepare_rootfs(spec, c->rootfs, c->sandbox, err);
	if (rootfd < 0)
		return -1;
	if (has_hooks(spec, HOOK_PRESTART, HOOK_CREATE_RUNTIME) &&
	    (sync_send(c->sync_fd, SYNC_HOOKS, NULL, 0, err) < 0 ||
	     sync_expect(c->sync_fd, SYNC_HOOKS_DONE, NULL, err) < 0))
		return -1;
	if (hooks_run(&spec->hooks[HOOK_CREATE_CONTAINER], HOOK_CREATE_CONTAINER,
		      *state_json, err) < 0)
		return -1;
	if (mount_pivot_root(c->rootfs, c->no_pivot, err) < 0 ||
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
		      HOOK_START_CONTAINER, state_json, err);
	if (r < 0) {
		write_all(fd, "1", 1);
		write_all(fd, (*err)->msg, strlen((*err)->msg));
		return -1;
	}
	if (write_all(fd, "0", 1) < 0)
		return error_errno(err, "write exec fifo");
	return 0;
}

static int pass_fds(int keep, struct error **err)
{
	if (syscall(SYS_close_range, 3 + keep, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return error_errno(err, "mark fds close-on-exec");
	for (int fd = 3; fd < 3 + keep; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags >= 0)
			fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
	}
	return 0;
}

/* When the workload keeps no capability, lock the securebits (while still
 * root with CAP_SETPCAP) so that no later exec, not even of a setuid-root
 * binary, can hand capabilities back.  NO_SETUID_FIXUP keeps the caps
 * across the user switch until caps_apply() empties them. */
static int lock_securebits(const struct init_config *c, struct error **err)
{
	const struct caps_masks *m = &c->caps;
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
			     SECBIT_NO_SETUID_FIXUP |
			     SECBIT_NO_SETUID_FIXUP_LOCKED |
			     SECBIT_KEEP_CAPS_LOCKED |
			     SECBIT_NO_CAP_AMBIENT_RAISE |
			     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	if (!c->sandbox->enforced || m->effective || m->permitted ||
	    m->inheritable || m->ambient || m->bounding)
		return 0;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return error_errno(err, "lock securebits");
	return 0;
}

/* config.json's filter first, then corral's baseline on top: the kernel
 * runs both and the stricter answer wins.  Loading the second needs the
 * first to allow seccomp(2); a filter that does not fails closed here. */
static int load_filters(const struct init_config *c, struct error **err)
{
	if (seccomp_program_load(c->seccomp, err) < 0)
		return -1;
	if (seccomp_program_load(c->baseline, err) < 0)
		return error_wrap(err, "corral baseline");
	return 0;
}

/* The workload's own sandbox, then exec.  Runs in the child the supervisor
 * forks.  Without no_new_privs a non-root user cannot load a filter, so
 * the filters are loaded before the user switch (and must then allow
 * setuid and capset); with it, last. */
static int finish(const struct init_config *c, struct error **err)
{
	const struct spec_process *p = c->spec->process;
	bool nnp = p->no_new_privileges;

	if (chdir(p->cwd) < 0)
		return error_errno(err, "chdir %s", p->cwd);
	if (caps_drop_bounding(&c->caps, err) < 0)
		return -1;
	if (!nnp && load_filters(c, err) < 0)
		return -1;
	if (lock_securebits(c, err) < 0 ||
	    process_switch_user(&p->user, err) < 0 ||
	    caps_apply(&c->caps, err) < 0)
		return -1;
	if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(err, "set no_new_privs");
	umask(p->user.umask.set ? (mode_t)p->user.umask.v : 022);
	if (pass_fds(c->keep_fds, err) < 0)
		return -1;
	if (nnp && load_filters(c, err) < 0)
		return -1;
	return process_exec(p, c->env, err);
}

static int workload_main(void *arg)
{
	_cleanup_error_ struct error *err = NULL;

	finish(arg, &err);
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
