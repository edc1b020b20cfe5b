/* create's second half: start the container's first process and walk
 * it through setup over the sync socket, to "created" (create.c's
 * header draws both halves; docs/architecture.md every step).  The child
 * is a copy of create (ns_clone) or, when create has nothing to do
 * between the clone and GO, shares create's memory until its exec
 * (ns_clone_shared, create_ctx.h's `shared`). */
#include "create_ctx.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpus.h"
#include "fsutil.h"
#include "hooks.h"
#include "init.h"
#include "pod.h"
#include "report_files.h"
#include "state.h"
#include "sync.h"

/* What else the state directory keeps besides state.json: the sandbox
 * settings, explain's output for `corral explain ID`, and the policy,
 * which exec applies to its process.  Nothing reads them before the
 * container is created, so they are written while the child sets up. */
static int save_effective(struct create_ctx *c, struct error **err)
{
	static const struct {
		const char *name;
		int (*render)(const struct hardened *, char **,
			      struct error **);
	} files[] = {
	    {SANDBOX_FILE, hardened_emit_sandbox},
	    {EXPLAIN_TEXT_FILE, explain_text},
	    {EXPLAIN_JSON_FILE, explain_json},
	};
	_cleanup_free_ char *policy = NULL;

	if (policy_emit(c->policy, &policy, err) < 0 ||
	    write_file_atomic_at(c->dir.dirfd, POLICY_FILE, policy,
				 strlen(policy), 0600, err) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *out = NULL;

		if (files[i].render(c->hardened, &out, err) < 0 ||
		    write_file_atomic_at(c->dir.dirfd, files[i].name, out,
					 strlen(out), 0600, err) < 0)
			return -1;
	}
	return 0;
}

static void fill_state(const struct create_ctx *c, struct spec_state *st,
		       const char *status)
{
	*st = (struct spec_state){
	    .oci_version = c->spec->oci_version,
	    .id = (char *)c->o->id,
	    .status = status,
	    .pid = c->pid,
	    .bundle = c->bundle,
	    .rootfs = c->sources.rootfs,
	    .created = (char *)c->created,
	    .annotations = c->spec->annotations,
	    .n_annotations = c->spec->n_annotations,
	    .cgroup = c->cgroup ? c->cgroup->path : NULL,
	    .hooks_known = true,
	    .permissive = !c->hardened->sandbox.enforced,
	    .shared_pidns = c->ns.join_fds[NS_PID] >= 0,
	    .report_known = true,
	    .report_dir = c->policy->report_dir != NULL,
	};
	for (int k = 0; k < HOOK_KIND_COUNT; k++)
		if (c->spec->hooks[k].n > 0)
			st->hooks |= 1U << k;
	st->start_time = c->start_time;
	pod_caller(&st->creator_pid, &st->creator_start);
}

/* The egress helper, forked once GO is sent: it prepares while the init
 * sets up, listens in the init's network namespace once the init says
 * through lo_up that its lo is up (straight to the helper: create is
 * not woken for it), and is waited for at READY, before the workload
 * can run. */
static int fork_egress(struct create_ctx *c, struct error **err)
{
	const struct egress_start s = {
	    .id = c->o->id,
	    .sandbox = &c->hardened->sandbox,
	    .init = c->pid,
	    .lo_up = c->lo_up[0],
	    .cgroup = c->cgroup,
	    .dirfd = c->dir.dirfd,
	    .root = c->o->root,
	    .spec = c->spec,
	};
	int r;

	if (!create_egress_wanted(c))
		return 0;
	r = egress_helper_fork(&s, &c->egress, err);
	closep(&c->lo_up[0]);
	return r;
}

/* A hop (ns_plan.hop): the first child tells the pid of the container's
 * first process, its sibling, and ends; from then on c->pid is that
 * process. */
static int hopped_pid(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *payload = NULL;
	char *end;
	long pid;

	if (sync_expect(c->proc.sync[0], SYNC_PID, &payload, err) < 0)
		return -1;
	errno = 0;
	pid = strtol(payload ? payload : "", &end, 10);
	if (errno || !payload || end == payload || *end || pid <= 0 ||
	    pid > INT_MAX)
		return error_set(err, EPROTO, "sync: a bad pid");
	waitpid(c->pid, NULL, 0);
	c->pid = (pid_t)pid;
	return 0;
}

/* GO or COMMIT.  A child that failed before reading it (its mounts, its
 * namespaces; the stage's baseline filter) may have exited already: the
 * send fails, and the child's ERROR, still in the socket, says why. */
static int send_to_child(struct create_ctx *c, enum sync_msg type,
			 const char *state_json, struct error **err)
{
	_cleanup_error_ struct error *sent = NULL;
	_cleanup_free_ char *msg = NULL;
	enum sync_msg got;

	if (sync_send(c->proc.sync[0], type, state_json, strlen(state_json),
		      &sent) == 0)
		return 0;
	if ((sent->code == EPIPE || sent->code == ECONNRESET) &&
	    sync_recv(c->proc.sync[0], &got, &msg, NULL) == 0 &&
	    got == SYNC_ERROR)
		return error_set(err, EIO, "%s", msg);
	return error_set(err, sent->code, "%s", sent->msg);
}

static int supervise_setup(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *state_json = NULL;
	bool enforced = c->hardened->sandbox.enforced;
	struct spec_state st;

	now_rfc3339(c->created, sizeof(c->created));
	if (c->cgroup && !c->cgroup_made && create_make_cgroup(c, err) < 0)
		return -1;
	/* A child in a user namespace cannot write the host's cgroup files:
	 * it is moved before it runs a step of its own.  Any other child
	 * moves itself once GO says the cgroup is there (init_run). */
	if (c->ns.hop && hopped_pid(c, err) < 0)
		return -1;
	if (create_in_userns(c) && c->cgroup &&
	    cgroup_enter(c->cgroup, c->pid, err) < 0)
		return error_wrap(err, "cgroup");
	if (c->ns.clone_flags & CLONE_NEWUSER &&
	    ns_write_id_maps(c->pid, c->spec, err) < 0)
		return -1;
	proc_stat(c->pid, &c->start_time, NULL);
	/* GO's state, which the prestart and createRuntime hooks read too:
	 * a shared child has neither */
	if (!c->shared) {
		fill_state(c, &st, "creating");
		if (spec_state_emit(&st, STATE_PUBLIC, &state_json, err) < 0 ||
		    send_to_child(c, SYNC_GO, state_json, err) < 0)
			return -1;
	}
	if (fork_egress(c, err) < 0 || save_effective(c, err) < 0)
		return -1;
	for (;;) {
		enum sync_msg type;
		_cleanup_free_ char *payload = NULL;

		if (sync_recv(c->proc.sync[0], &type, &payload, err) < 0)
			return -1;
		if (type == SYNC_ERROR)
			return error_set(err, EIO, "%s", payload);
		if (type == SYNC_READY)
			break;
		if (type != SYNC_HOOKS || !state_json)
			return error_set(err, EPROTO,
					 "sync: unexpected message");
		if (hooks_run(&c->spec->hooks[HOOK_PRESTART], HOOK_PRESTART,
			      state_json, !enforced, err) < 0 ||
		    hooks_run(&c->spec->hooks[HOOK_CREATE_RUNTIME],
			      HOOK_CREATE_RUNTIME, state_json, !enforced,
			      err) < 0 ||
		    sync_send(c->proc.sync[0], SYNC_HOOKS_DONE, NULL, 0, err) <
			0)
			return -1;
	}
	if (c->egress.pid > 0 && egress_helper_ready(&c->egress, err) < 0)
		return -1;
	/* Every mount point is made by now, and no code of the container's
	 * has run: what the upper layer holds is corral's. */
	if (create_report_wanted(c) &&
	    report_files_mark_ready(c->dir.dirfd, err) < 0)
		return -1;
	fill_state(c, &c->state, "created");
	free(state_json);
	state_json = NULL;
	if (container_dir_save_state(&c->dir, &c->state, err) < 0 ||
	    spec_state_emit(&c->state, STATE_PUBLIC, &state_json, err) < 0)
		return -1;
	if (c->o->pid_file && write_pid_file(c->o->pid_file, c->pid, err) < 0)
		return -1;
	/* run: the fifo is open for reading before COMMIT, so that the init
	 * goes on once it has answered COMMITTED, not once this process has
	 * read that answer and come back to open it */
	if (c->o->start &&
	    container_start_open(&c->dir, &c->state, &c->start, err) < 0)
		return -1;
	/* The created state goes along: the startContainer hooks read it. */
	if (send_to_child(c, SYNC_COMMIT, state_json, err) < 0)
		return -1;
	return sync_expect(c->proc.sync[0], SYNC_COMMITTED, NULL, err);
}

/* In the child: close create's descriptors that the container must not
 * inherit.  Plain closes, which leave create's numbers for them alone:
 * a child of ns_clone_shared writes nothing of create's memory. */
static void close_in_child(const struct create_ctx *c, int cgroup_fd)
{
	/* The lock is shared with this copy of its fd: closed here so that
	 * the parent's close releases the container to other commands. */
	close(c->dir.lockfd);
	close(c->dir.dirfd);
	close(c->proc.sync[0]);
	if (c->lo_up[0] >= 0)
		close(c->lo_up[0]);
	if (cgroup_fd >= 0)
		close(cgroup_fd);
	/* Host directories: an fd left open would be a way out for a cwd of
	 * /proc/self/fd/N (CVE-2024-21626). */
	close(c->bundle_fd);
	for (size_t i = 0; i < c->o->n_preopened; i++)
		close(c->o->preopened[i].fd);
}

struct shared_start {
	const struct create_ctx *c;
	const struct init_config *cfg;
	int cgroup_fd;
};

/* The child of ns_clone_shared, in create's memory: it runs on its own
 * copies of the init config and of the process plan, which init_run
 * changes.  It returns, and ns_clone_shared's code exits with the value:
 * a call to _exit here would be a noreturn call on a stack that
 * AddressSanitizer did not make, which it warns about on stderr. */
static int shared_child(void *arg)
{
	const struct shared_start *s = arg;
	struct init_config cfg = *s->cfg;
	struct proc_plan proc = *s->cfg->proc;

	cfg.proc = &proc;
	close_in_child(s->c, s->cgroup_fd);
	return init_run(&cfg);
}

/* The child sharing create's memory; 0, or -1 with errno ENOSYS when it
 * cannot be made that way (c->shared is then false). */
static int spawn_shared(struct create_ctx *c, struct init_config *cfg,
			unsigned long flags, int cgroup_fd)
{
	struct shared_start s = {c, cfg, cgroup_fd};
	int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), saved;

	cfg->shared = true;
	cfg->in_cgroup2 = cgroup_fd >= 0;
	c->pid =
	    ns_clone_shared(flags, cgroup_fd, &c->in_cgroup, shared_child, &s);
	saved = errno;
	/* The child made itself non-dumpable, and being dumpable is the
	 * memory's, so this process's too: back as it was. */
	if (dumpable >= 0)
		prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
	errno = saved;
	if (c->pid < 0 && errno == ENOSYS)
		c->shared = cfg->shared = false;
	return c->pid < 0 ? -1 : 0;
}

int create_spawn(struct create_ctx *c, struct error **err)
{
	struct init_config cfg = {
	    .spec = c->spec,
	    .sources = &c->sources,
	    .ns = &c->ns,
	    .proc = &c->proc,
	    .fifo_fd = c->fifo_fd,
	    .outcome_fd = c->outcome_fd,
	    .no_pivot = c->o->no_pivot,
	    .no_new_keyring = c->o->no_new_keyring,
	    .sandbox = &c->hardened->sandbox,
	    .cgroup = c->cgroup,
	};

	/* The cgroup namespace is made by the child once it is in its
	 * cgroup, so that cgroup is the namespace's root; the network
	 * namespace, the costly one, by the child too, so that the parent
	 * makes the cgroup and writes the state meanwhile. */
	const unsigned long by_child = CLONE_NEWCGROUP | CLONE_NEWNET;
	_cleanup_close_ int cgroup_fd =
	    c->cgroup_made || (c->cgroup && c->cgroup->cgroup2_made)
		? cgroup_clone_fd(c->cgroup)
		: -1;

	/* a hop's first child joins the pid namespace itself: in it, the
	 * pid its clone returns would be that namespace's, not the host's */
	if (!c->ns.hop && ns_join_pid(&c->ns, err) < 0)
		return -1;
	if (create_egress_wanted(c) &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->lo_up) < 0)
		return error_errno(err, "egress: socketpair");
	cfg.lo_up = c->lo_up[1];
	cfg.cpus_saved = cpus_save(&cfg.cpus);
	if (c->shared && spawn_shared(c, &cfg, c->ns.clone_flags & ~by_child,
				      cgroup_fd) < 0) {
		if (c->shared)
			return error_errno(err, "clone the container process");
		/* no clone3 on this kernel: a copy, as below; the cgroup is
		 * made already and GO is sent */
	}
	if (!c->shared) {
		/* a hop's first child makes no namespace: init_hop does, after
		 * joining */
		c->pid = ns_clone(c->ns.hop ? 0 : c->ns.clone_flags & ~by_child,
				  cgroup_fd, &c->in_cgroup);
		if (c->pid < 0)
			return error_errno(err, "clone the container process");
		if (c->pid == 0) {
			close_in_child(c, cgroup_fd);
			cfg.in_cgroup2 = c->in_cgroup;
			_exit(c->ns.hop ? init_hop(&cfg) : init_run(&cfg));
		}
		if (cfg.cpus_saved)
			cpus_away(c->pid, &cfg.cpus);
	}
	closep(&c->proc.sync[1]);
	/* the init's alone: if it dies first, the helper reads the end */
	closep(&c->lo_up[1]);
	return supervise_setup(c, err);
}
