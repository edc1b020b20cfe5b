/* The stage: the static program every process of a container becomes
 * before it runs the container's code (CVE-2019-5736).  corral embeds
 * it, writes it into a sealed memfd and execs that (runtime/lifecycle/stage.c),
 * so /proc/PID/exe of the container's init and of `exec`'d processes names the
 * memfd, which nobody can write, and never corral's own file; and as a static
 * binary it loads nothing from the container's rootfs.
 *
 * argv[1] is the fd of the parameters (params.h); the environment is
 * empty.  STAGE_INIT: the container's first process, set up by corral up
 * to the last step before "created": tell create it is ready, wait for
 * `start` on the exec fifo, run the startContainer hooks, then supervise
 * the workload.  STAGE_EXEC: a process of `corral exec`, already in the
 * container's namespaces: apply the sandbox and exec.  Started any other
 * way (from inside a container, as /proc/self/exe), it finds no valid
 * parameters and exits 127 having done nothing. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "hooks.h"
#include "params.h"
#include "supervisor.h"
#include "sync.h"
#include "util.h"
#include "workload.h"

static void say_error(const struct error *e)
{
	write_all(STDERR_FILENO, "corral: ", 8);
	write_all(STDERR_FILENO, e->msg, strlen(e->msg));
	write_all(STDERR_FILENO, "\n", 1);
}

/* Run as /proc/self/exe from inside a container (or any other way): it
 * names what was run, as an exec error would. */
static int not_started(const char *argv0, struct error **err)
{
	return error_set(err, EINVAL,
			 "%.256s: the stage was not started by "
			 "corral: nothing to run",
			 argv0 ? argv0 : "stage");
}

/* The parameters from the fd named by argv[1], which is closed after. */
static int read_params(int argc, char **argv, struct stage_params *p,
		       struct error **err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	char *end;
	long n;

	*p = (struct stage_params){.sync_fd = -1,
				   .fifo_fd = -1,
				   .cgroup_procs_fd = -1,
				   .cgroup_kill_fd = -1,
				   .outcome_fd = -1};
	if (argc != 2)
		return not_started(argv[0], err);
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || n < 3 || n > 1 << 20)
		return not_started(argv[0], err);
	fd = (int)n;
	/* /proc/PID/cmdline is then just the name, as for corral-init
	 * before the exec. */
	memset(argv[1], 0, strlen(argv[1]));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > STAGE_PARAMS_MAX)
		return not_started(argv[0], err);
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return error_set(err, ENOMEM, "stage: out of memory");
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		return error_errno(err, "stage: read parameters");
	return stage_params_decode(buf, (size_t)st.st_size, p, err);
}

/* The end of create's sync protocol: "ready", then the parent commits
 * the state and sends it back (the startContainer hooks read it).  With
 * no startContainer hooks, which is always so under the sandbox (harden()
 * drops them), the workload's baseline is loaded while the parent
 * commits (workload_preload_baseline): it costs neither create nor
 * `start` any time then.  A failure there fails create. */
static int report_ready(struct stage_params *p, char **state_json,
			int *listener, struct error **err)
{
	if (sync_send(p->sync_fd, SYNC_READY, NULL, 0, err) < 0 ||
	    (!p->n_start_hooks &&
	     workload_preload_baseline(p, listener, err) < 0) ||
	    sync_expect(p->sync_fd, SYNC_COMMIT, state_json, err) < 0)
		return -1;
	/* The parent waits for this answer before it exits: were it to exit
	 * first, the death signal would still be armed and kill us. */
	if (prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) < 0)
		return error_errno(err, "clear parent death signal");
	if (sync_send(p->sync_fd, SYNC_COMMITTED, NULL, 0, err) < 0)
		return -1;
	close(p->sync_fd);
	p->sync_fd = -1;
	return 0;
}

/* Block until `start` opens the fifo for reading, run the startContainer
 * hooks, and tell `start` how that went: "0", or "1" and the error, which
 * start reports as its own.  The fifo was opened O_PATH before pivot_root;
 * it is reopened for writing through /proc/self/fd, as the host path is
 * out of reach.  With startContainer hooks the workload's baseline is
 * loaded after them, so that no hook runs under it (report_ready loads
 * it otherwise). */
static int wait_for_start(struct stage_params *p, const char *state_json,
			  int *listener, struct error **err)
{
	struct spec_hook_list hooks = {p->start_hooks, p->n_start_hooks};
	_cleanup_close_ int fd = -1;
	char path[FD_PATH_MAX];
	int r;

	fd_path(p->fifo_fd, path);
	do
		fd = open(path, O_WRONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return error_errno(err, "open exec fifo");
	close(p->fifo_fd);
	r = hooks_run(&hooks, HOOK_START_CONTAINER, state_json, !p->enforced,
		      err);
	if (r == 0 && p->n_start_hooks)
		r = workload_preload_baseline(p, listener, err);
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
	_cleanup_error_ struct error *err = NULL;

	workload_exec(arg, &err);
	if (err)
		say_error(err);
	return 127;
}

static int init_main(struct stage_params *p)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *state_json = NULL;
	struct reaper reaper = {p->cgroup_procs_fd, p->cgroup_kill_fd,
				p->cgroup_procs_reopen};
	struct supervisor_config sc = {
	    .wall_clock = p->wall_clock,
	    .terminal = p->terminal,
	    .uid = p->supervisor_uid,
	    .gid = p->supervisor_gid,
	    .workload_uid = p->uid,
	    .reaper = p->cgroup_procs_fd >= 0 ? &reaper : NULL,
	    .exec_fd = &p->sync_fd,
	    .outcome_fd = p->outcome_fd,
	    .listener = -1,
	};

	/* In a user namespace /proc/self of a non-dumpable process belongs
	 * to the host's root, out of reach for the fifo's reopen. */
	if (p->dumpable && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		error_errno(&err, "set dumpable");
	if (err || report_ready(p, &state_json, &sc.listener, &err) < 0) {
		sync_send(p->sync_fd, SYNC_ERROR, err->msg, strlen(err->msg),
			  NULL);
		return 1;
	}
	/* A signal that `kill` sends as soon as `start` has returned is held
	 * until the supervisor forwards it: as PID 1 of its namespace it
	 * would drop one with no handler that arrived unblocked. */
	supervisor_block_signals();
	if (wait_for_start(p, state_json, &sc.listener, &err) < 0) {
		say_error(err);
		return 127;
	}
	supervisor_run(&sc, workload_main, p);
}

/* corral exec's child reported "ready" already; an error from here on is
 * still the error of `exec`, which reads the sync socket until the
 * workload's exec closes it. */
static int exec_main(const struct stage_params *p)
{
	_cleanup_error_ struct error *err = NULL;

	workload_exec(p, &err);
	if (err && p->sync_fd >= 0)
		sync_send(p->sync_fd, SYNC_ERROR, err->msg, strlen(err->msg),
			  NULL);
	else if (err)
		say_error(err);
	return 127;
}

int main(int argc, char **argv)
{
	_cleanup_error_ struct error *err = NULL;
	struct stage_params p;
	int status;

	/* An exec makes a process dumpable again: until it is not, a process
	 * of the container with ptrace rights over it could open its fds. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_SET_NAME, "corral-init", 0, 0, 0);
	if (read_params(argc, argv, &p, &err) < 0) {
		say_error(err);
		stage_params_release(&p);
		return 127;
	}
	status = p.mode == STAGE_INIT ? init_main(&p) : exec_main(&p);
	stage_params_release(&p);
	return status;
}
