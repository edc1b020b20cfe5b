/* `exec`: another process in a running container.  The parent (this
 * command) reads what create stored (the effective config, the sandbox
 * settings and the policy), builds and hardens the process as create did
 * the workload's, makes the same process plan (runtime/lifecycle/proc_plan.h),
 * opens the container's namespaces through its init, joins the pid
 * namespace and forks.  The child is put in the container's cgroup before
 * it runs a step, joins the other namespaces, walks the plan's steps in
 * create's order and becomes the stage (runtime/lifecycle/stage.h), which
 * applies the workload's own sandbox and execs.  Errors of the child and of the
 * stage travel back over a sync socket, as create's do.
 *
 * The child stays a child of this process: detached, it passes to the
 * caller's subreaper (conmon, the containerd shim) when this one exits. */
#include "exec.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "cgroup.h"
#include "container_dir.h"
#include "cpus.h"
#include "forward.h"
#include "fsutil.h"
#include "harden.h"
#include "log.h"
#include "namespace.h"
#include "policy_file.h"
#include "proc_plan.h"
#include "rootless.h"
#include "stage.h"
#include "sync.h"
#include "util.h"

struct exec_ctx {
	const struct exec_opts *o;
	struct container_dir dir;
	struct spec_state *state;
	struct spec *config;	      /* the effective spec stored at create */
	struct sandbox sandbox;	      /* sandbox.json */
	struct policy *policy;	      /* policy.json */
	struct spec_process *process; /* the hardened process */
	struct proc_plan proc;
	struct ns_plan ns; /* the init's namespaces that are not ours */
	struct cgroup *cgroup;
	int pidfd; /* the container's init */
	pid_t pid;
	/* exec's CPUs, which the child takes back once in the cgroup: a
	 * cpuset may have widened them (cpus.h) */
	bool cpus_saved;
	cpu_set_t cpus;
};

/* ---- what create stored --------------------------------------------- */

/* The init must still be the process create recorded (its start time), so
 * a recycled pid never lends its namespaces. */
static bool init_alive(const struct exec_ctx *c)
{
	struct pollfd p = {.fd = c->pidfd, .events = POLLIN};
	uint64_t start;

	if (poll(&p, 1, 0) != 0)
		return false; /* POLLIN: it exited */
	return proc_stat(c->state->pid, &start, NULL) == 0 &&
	       start == c->state->start_time;
}

static int open_running(struct exec_ctx *c, struct error **err)
{
	enum container_status status;

	if (container_dir_open(c->o->root, c->o->id, &c->dir, err) < 0 ||
	    container_dir_load_state(&c->dir, &c->state, err) < 0)
		return -1;
	status = container_dir_status(&c->dir, c->state);
	if (status != CONTAINER_RUNNING)
		return error_set(err, EINVAL, "container is %s, not running",
				 container_status_name(status));
	c->pidfd = pidfd_open_(c->state->pid);
	if (c->pidfd < 0 || !init_alive(c))
		return error_set(err, ESRCH, "container is not running");
	return 0;
}

static int load_stored(struct exec_ctx *c, struct error **err)
{
	_cleanup_free_ char *sandbox = NULL, *policy = NULL;
	size_t slen, plen;

	if (container_dir_load_config(&c->dir, &c->config, err) < 0)
		return -1;
	if (read_file_at(c->dir.dirfd, SANDBOX_FILE, &sandbox, &slen, err) <
		0 ||
	    hardened_parse_sandbox(sandbox, slen, &c->sandbox, err) < 0)
		return error_wrap(err, "stored " SANDBOX_FILE);
	/* Fail closed: without the policy of create there is no sandbox to
	 * apply, and the host's current one may be wider. */
	if (read_file_at(c->dir.dirfd, POLICY_FILE, &policy, &plen, err) < 0 ||
	    policy_load_text(policy, plen, &c->policy, err) < 0)
		return error_wrap(err, "stored " POLICY_FILE);
	return 0;
}

/* ---- the process ----------------------------------------------------- */

static int strv_append(char ***v, size_t *n, const char *s, struct error **err)
{
	char **grown = realloc(*v, (*n + 2) * sizeof(**v));

	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	*v = grown;
	if (!(grown[*n] = strdup(s)))
		return error_set(err, ENOMEM, "out of memory");
	grown[++*n] = NULL;
	return 0;
}

/* -e K=V replaces K or adds it; the allowlist decides afterwards. */
static int set_env(struct spec_process *p, const char *kv, struct error **err)
{
	const char *eq = strchr(kv, '=');
	size_t len;

	if (!eq || eq == kv)
		return error_set(err, EINVAL, "-e %s: expected KEY=VALUE", kv);
	len = (size_t)(eq - kv) + 1;
	for (size_t i = 0; i < p->n_env; i++) {
		if (strncmp(p->env[i], kv, len) == 0) {
			char *copy = strdup(kv);

			if (!copy)
				return error_set(err, ENOMEM, "out of memory");
			free(p->env[i]);
			p->env[i] = copy;
			return 0;
		}
	}
	return strv_append(&p->env, &p->n_env, kv, err);
}

/* One id of -u, ending at `stop` or the end of the string. */
static bool parse_id(const char *s, char stop, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || v >= UINT32_MAX || (*end && *end != stop))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* -u UID[:GID], numeric as runc takes it; no GID means group 0 (which
 * the sandbox then maps like any root group). */
static int set_user(struct spec_process *p, const char *s, struct error **err)
{
	const char *colon = strchr(s, ':');
	uint32_t uid, gid = 0;

	if (!parse_id(s, ':', &uid) || (colon && !parse_id(colon + 1, 0, &gid)))
		return error_set(err, EINVAL,
				 "-u %s: expected UID[:GID] as numbers", s);
	p->user.uid = uid;
	p->user.gid = gid;
	return 0;
}

/* "net_raw", "NET_RAW" and "CAP_NET_RAW" all name CAP_NET_RAW. */
static char *cap_name(const char *s)
{
	bool prefixed = strncasecmp(s, "CAP_", 4) == 0;
	char *name = NULL;

	if (asprintf(&name, "%s%s", prefixed ? "" : "CAP_", s) < 0)
		return NULL;
	for (char *c = name; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return name;
}

/* --cap C widens: only the policy may allow that, so C must be on its
 * keep list (or the policy is permissive); then, as runc does, C goes in
 * the bounding, effective and permitted sets, and in the ambient set when
 * the process has an inheritable one. */
static int add_cap(struct exec_ctx *c, const char *flag, struct error **err)
{
	const struct policy *pol = c->policy;
	struct spec_process *p = c->process;
	_cleanup_free_ char *name = cap_name(flag);
	bool kept = pol->mode == POLICY_PERMISSIVE;
	struct spec_caps *caps;

	if (!name)
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < pol->n_caps_keep; i++)
		kept = kept || strcmp(pol->caps_keep[i], name) == 0;
	if (!kept)
		return error_set(err, EPERM,
				 "--cap %s: refused: the policy does not keep "
				 "%s (capabilities.keep)",
				 flag, name);
	if (!p->caps && !(p->caps = calloc(1, sizeof(*p->caps))))
		return error_set(err, ENOMEM, "out of memory");
	caps = p->caps;
	if (strv_append(&caps->bounding, &caps->n_bounding, name, err) < 0 ||
	    strv_append(&caps->effective, &caps->n_effective, name, err) < 0 ||
	    strv_append(&caps->permitted, &caps->n_permitted, name, err) < 0 ||
	    (caps->n_inheritable &&
	     strv_append(&caps->ambient, &caps->n_ambient, name, err) < 0))
		return -1;
	return 0;
}

/* The process as asked: --process, or the container's own process with
 * the command line in place of its args. */
static int asked_process(struct exec_ctx *c, struct spec_process **out,
			 struct error **err)
{
	const struct exec_opts *o = c->o;
	_cleanup_free_ char *json = NULL;
	struct spec_process *p;
	size_t len;

	if (o->process_file && o->n_args)
		return error_set(
		    err, EINVAL,
		    "--process and a command line exclude each other");
	if (o->process_file) {
		if (read_file_at(AT_FDCWD, o->process_file, &json, &len, err) <
			0 ||
		    spec_parse_process(json, len, out, err) < 0)
			return error_wrap(err, "--process %s", o->process_file);
		return 0;
	}
	if (!o->n_args)
		return error_set(err, EINVAL, "no command given");
	p = steal_pointer(&c->config->process);
	*out = p;
	/* a terminal is asked for each exec (-t), not inherited */
	p->terminal = false;
	p->has_console_size = false;
	strv_free(p->args);
	p->args = NULL;
	p->n_args = 0;
	for (size_t i = 0; i < o->n_args; i++)
		if (strv_append(&p->args, &p->n_args, o->args[i], err) < 0)
			return -1;
	return 0;
}

static int build_process(struct exec_ctx *c, struct error **err)
{
	const struct exec_opts *o = c->o;
	struct spec_process *asked = NULL;
	int r;

	/* whose ids the supervisor took follows from the workload's */
	if (!c->config->process)
		return error_set(err, EINVAL,
				 "stored " CONFIG_FILE ": .process: missing");
	c->proc.init_uid = c->config->process->user.uid;
	c->proc.init_gid = c->config->process->user.gid;

	if (asked_process(c, &c->process, err) < 0)
		return -1;
	for (size_t i = 0; i < o->n_env; i++)
		if (set_env(c->process, o->env[i], err) < 0)
			return -1;
	if (o->user && set_user(c->process, o->user, err) < 0)
		return -1;
	if (o->cwd) {
		char *cwd = strdup(o->cwd);

		if (o->cwd[0] != '/' || !cwd) {
			free(cwd);
			return error_set(err, EINVAL,
					 "--cwd %s: must be an absolute path",
					 o->cwd);
		}
		free(c->process->cwd);
		c->process->cwd = cwd;
	}
	if (o->tty)
		c->process->terminal = true;
	for (size_t i = 0; i < o->n_caps; i++)
		if (add_cap(c, o->caps[i], err) < 0)
			return -1;
	/* The same sandbox as the workload's: harden_process() runs
	 * harden()'s own process rules under create's policy. */
	asked = steal_pointer(&c->process);
	r = harden_process(asked, c->policy, &c->sandbox, &c->process, err);
	spec_process_free(asked);
	return r;
}

/* ---- the container's namespaces and cgroup --------------------------- */

/* The init's namespaces, then a check that the init is still the same
 * process: had it exited in between, the paths could have been another
 * process's. */
static int open_namespaces(struct exec_ctx *c, struct error **err)
{
	if (ns_plan_of_process(c->state->pid, &c->ns, err) < 0)
		return -1;
	if (!init_alive(c))
		return error_set(err, ESRCH, "container is not running");
	return 0;
}

static int open_cgroup(struct exec_ctx *c, struct error **err)
{
	if (!c->state->cgroup)
		return 0;
	if (container_dir_cgroup(&c->dir, c->state->cgroup, &c->cgroup, err) <
	    0)
		return error_wrap(err, "cgroup");
	return 0;
}

/* As create does: the same plan, under the policy stored at create. */
static int prepare(struct exec_ctx *c, struct error **err)
{
	const struct spec_linux *l;

	if (reserve_fds(c->o->preserve_fds, err) < 0 ||
	    open_running(c, err) < 0 || load_stored(c, err) < 0 ||
	    build_process(c, err) < 0)
		return -1;
	l = c->config->linux_;
	c->proc.process = c->process;
	c->proc.linux_ = l;
	c->proc.env = c->process->env;
	c->proc.enforced = c->sandbox.enforced;
	c->proc.pause = c->sandbox.role == ROLE_POD_SANDBOX;
	/* no listener serves an exec'd process: its baseline answers EPERM
	 * itself, and its refused calls are not in the report */
	c->proc.notify = false;
	c->proc.keep_fds = c->o->preserve_fds;
	if (proc_plan_prepare(&c->proc, c->o->root, l ? l->seccomp : NULL,
			      &c->sandbox, c->o->console_socket, err) < 0 ||
	    open_cgroup(c, err) < 0)
		return -1;
	return open_namespaces(c, err);
}

/* ---- the child -------------------------------------------------------- */

/* Everything between the fork and the stage (proc_plan.h gives the
 * order).  Runs as the runtime (root), not dumpable (set before the
 * fork), in the container's pid namespace and cgroup. */
static int child_setup(struct exec_ctx *c, struct error **err)
{
	bool userns;

	if (sync_expect(c->proc.sync[1], SYNC_GO, NULL, err) < 0)
		return -1;
	if (c->cpus_saved && cpus_restore(&c->cpus) < 0)
		return error_errno(err, "take back the CPUs exec had");
	if (ns_join_rest(&c->ns, err) < 0 ||
	    proc_plan_attributes(&c->proc, true, true, err) < 0 ||
	    ns_join_user(&c->ns, &userns, err) < 0 ||
	    (userns && proc_become_ns_root(err) < 0) ||
	    proc_plan_console(&c->proc, true, err) < 0 ||
	    sync_send(c->proc.sync[1], SYNC_READY, NULL, 0, err) < 0)
		return -1;
	/* From here on the process outlives `exec`, detached or not. */
	if (prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) < 0)
		return error_errno(err, "clear parent death signal");
	return 0;
}

/* The stage applies the sandbox and execs; it reports its errors over
 * the sync socket too, which the workload's exec closes. */
static void become_stage(const struct exec_ctx *c, struct error **err)
{
	struct stage_params p;

	proc_plan_stage(&c->proc, STAGE_EXEC, &p);
	stage_exec(&p, err);
}

static int exec_child(struct exec_ctx *c)
{
	_cleanup_error_ struct error *err = NULL;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		error_errno(&err, "set parent death signal");
	else if (child_setup(c, &err) == 0 && caps_keep_for_stage(&err) == 0)
		become_stage(c, &err);
	if (err)
		sync_send(c->proc.sync[1], SYNC_ERROR, err->msg,
			  strlen(err->msg), NULL);
	return 127;
}

/* ---- the parent -------------------------------------------------------- */

/* Until the child's exec closes its end of the sync socket: an error it
 * sends is the error of exec. */
static int wait_for_exec(struct exec_ctx *c, struct error **err)
{
	bool ready = false;

	for (;;) {
		_cleanup_error_ struct error *recv_err = NULL;
		_cleanup_free_ char *payload = NULL;
		enum sync_msg type;

		if (sync_recv(c->proc.sync[0], &type, &payload, &recv_err) <
		    0) {
			if (recv_err->code != EPIPE)
				return error_set(err, recv_err->code, "%s",
						 recv_err->msg);
			if (ready)
				return 0;
			return error_set(
			    err, ECHILD,
			    "the process died before it could exec");
		}
		if (type == SYNC_ERROR)
			return error_set(err, EIO, "%s", payload);
		if (type != SYNC_READY)
			return error_set(err, EPROTO,
					 "sync: unexpected message");
		ready = true;
	}
}

static int spawn(struct exec_ctx *c, struct error **err)
{
	bool joined;

	/* An ordinary user has no privilege over the container's other
	 * namespaces but as the owner of its user namespace (the one its
	 * create made, runtime/ids/rootless.h): that one first, here, so the
	 * child is in it already. */
	if (rootless()) {
		if (ns_join_user(&c->ns, &joined, err) < 0)
			return -1;
		closep(&c->ns.join_fds[NS_USER]);
	}
	if (ns_join_pid(&c->ns, err) < 0)
		return -1;
	/* CVE-2019-5736: until it execs, the child is the corral binary in
	 * the container's pid namespace.  Not dumpable, no process there may
	 * open its /proc/PID/exe, fds or memory; it inherits this from here,
	 * so there is no window after the fork. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return error_errno(err, "set non-dumpable");
	c->cpus_saved = cpus_save(&c->cpus);
	c->pid = fork();
	if (c->pid < 0) {
		if (errno == ENOMEM && !init_alive(c))
			return error_set(err, ESRCH,
					 "container is not running");
		return error_errno(err, "fork");
	}
	if (c->pid == 0) {
		/* the lock stays the parent's to release */
		container_dir_close(&c->dir);
		closep(&c->proc.sync[0]);
		_exit(exec_child(c));
	}
	closep(&c->proc.sync[1]);
	/* Into the container's cgroup before it runs a single step. */
	if (c->cgroup && cgroup_enter(c->cgroup, c->pid, err) < 0)
		return error_wrap(err, "cgroup");
	if (sync_send(c->proc.sync[0], SYNC_GO, NULL, 0, err) < 0)
		return -1;
	return wait_for_exec(c, err);
}

static void ctx_release(struct exec_ctx *c, bool failed)
{
	if (failed && c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	ns_plan_release(&c->ns);
	proc_plan_release(&c->proc);
	closep(&c->pidfd);
	cgroup_free(c->cgroup);
	spec_process_free(c->process);
	policy_free(c->policy);
	sandbox_release(&c->sandbox);
	spec_free(c->config);
	spec_state_free(c->state);
	container_dir_close(&c->dir);
}

int container_exec(const struct exec_opts *o, int *status, struct error **err)
{
	struct exec_ctx c = {
	    .o = o,
	    .dir = {-1, -1},
	    .pidfd = -1,
	    .proc = PROC_PLAN_INIT,
	};
	struct tty_relay relay = TTY_RELAY_INIT;
	sigset_t set, old;
	pid_t pid;
	int r = 0;

	for (int i = 0; i < NS_TYPE_COUNT; i++)
		c.ns.join_fds[i] = -1;
	forward_block(&set, &old);
	/* a terminal on stdio is relayed when someone stays to relay it */
	if (!o->detach && !o->console_socket)
		r = tty_relay_prepare(&relay, err);
	c.proc.relay = r == 1 ? &relay : NULL;
	if (r >= 0)
		r = prepare(&c, err);
	if (r == 0)
		r = spawn(&c, err);
	if (r == 0 && o->pid_file)
		r = write_pid_file(o->pid_file, c.pid, err);
	if (r == 0)
		log_debug("exec %s: pid %d", o->id, (int)c.pid);
	pid = c.pid;
	/* Releases the container's lock: a foreground exec must not hold
	 * it while the process runs. */
	ctx_release(&c, r < 0);
	if (r == 0)
		*status = o->detach ? 0
			  : c.proc.relay
			      ? tty_relay_until_exit(&relay, pid, &set, NULL,
						     NULL, NULL)
			      : forward_until_exit(pid, &set);
	tty_relay_release(&relay);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		return error_wrap(err, "exec %s", o->id);
	return 0;
}
