/* `create` and `run`: parse and check the bundle, prepare everything that
 * can fail before any process exists, then clone the container's first
 * process and walk it through setup over the sync socket (spawn.c).  The
 * two sides, with the sync points (docs/architecture.md draws every step):
 *
 *   parent (this file, spawn.c)            child (init.c, then the stage)
 *   prepare(): config.json, harden(),
 *     host paths (mount_sources.c), the
 *     namespace and process plans, the
 *     state dir, [v2] the cgroup, [hybrid]
 *     its cgroup2 directory
 *   create_spawn(): clone ────────────────▶ [user ns] waits for GO
 *   (share_memory: the child shares this memory, this process
 *   suspended until its exec; the cgroup made before, no GO)
 *   [v1, hybrid] make the cgroup; [user ns]
 *     move the child in, write its id maps
 *   GO (state JSON) ──────────────── GO ──▶ namespaces, lo, the root,
 *   save sandbox/policy/explain files       the mounts before the first
 *                                           cgroup mount; [no user ns]
 *                                           waits for GO, enters its
 *                                           cgroup; the other mounts
 *   prestart, createRuntime hooks ◀ HOOKS ─ [when config.json has them]
 *                         ── HOOKS_DONE ──▶ createContainer hooks, pivot,
 *                                           proc_plan steps, the stage
 *   [egress] wait for the helper ◀ READY  the stage
 *     (forked after GO; it listens in
 *     the child's netns once the child,
 *     its lo up, writes to their pipe)
 *   state.json "created", pid file
 *   [run] open the init's pidfd, the fifo
 *   COMMIT (state JSON) ─────── COMMIT ───▶ stops dying with the parent
 *   exit                   ◀ COMMITTED ─── waits on the exec fifo
 */
#include "create_ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "container_dir.h"
#include "egress_helper.h"
#include "fsutil.h"
#include "harden.h"
#include "log.h"
#include "mount_sources.h"
#include "userns_pool.h"
#include "report_gather.h"
#include "rootless.h"
#include "scratch.h"
#include "stub_resolv.h"
#include "namespace.h"
#include "pod.h"
#include "policy_file.h"
#include "proc_plan.h"
#include "spec.h"
#include "util.h"

/* The bundle directory is the caller's (an engine's) choice; what is in
 * it is not: config.json must be a regular file in it, not a link to one
 * of the host's. */
static int load_bundle(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *json = NULL;
	_cleanup_close_ int cfd = -1;
	struct stat st;
	size_t len;

	/* opened first, and its absolute path taken from what was opened */
	c->bundle_fd = open(c->o->bundle ? c->o->bundle : ".",
			    O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->bundle_fd < 0 || !(c->bundle = fd_real_path(c->bundle_fd)))
		return error_errno(err, "bundle %s",
				   c->o->bundle ? c->o->bundle : ".");
	cfd = hostpath_open_at(c->bundle_fd, c->bundle, "config.json", false,
			       O_RDONLY, "bundle file", err);
	if (cfd < 0)
		return -1;
	if (fstat(cfd, &st) < 0 || !S_ISREG(st.st_mode))
		return error_set(err, EINVAL,
				 "bundle %s: config.json is not a regular file",
				 c->bundle);
	if (read_fd(cfd, "config.json", &json, &len, err) < 0)
		return error_wrap(err, "bundle %s", c->bundle);
	if (spec_parse(json, len, &c->config, err) < 0)
		return error_wrap(err, "config.json");
	if (!c->config->process)
		return error_set(err, EINVAL, "config.json: .process: missing");
	if (!c->config->root)
		return error_set(err, EINVAL, "config.json: .root: missing");
	return 0;
}

/* The systemd socket-activation fds (LISTEN_FDS for this very process)
 * are passed on as runc does, after fd 2, with LISTEN_PID=1. */
static int listen_fds(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	char *end;
	long n;

	if (!pid || !fds || strtol(pid, NULL, 10) != getpid())
		return 0;
	errno = 0;
	n = strtol(fds, &end, 10);
	if (errno || *end || n < 0 || n > 1024)
		return 0;
	return (int)n;
}

static int build_env(struct create_ctx *c, int nlisten, struct error **err)
{
	const struct spec_process *p = c->spec->process;
	size_t n = p->n_env;
	char **env = calloc(n + 3, sizeof(char *));

	if (!(c->proc.env = env))
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!(env[i] = strdup(p->env[i])))
			return error_set(err, ENOMEM, "out of memory");
	if (nlisten > 0 && (asprintf(&env[n], "LISTEN_FDS=%d", nlisten) < 0 ||
			    !(env[n + 1] = strdup("LISTEN_PID=1"))))
		return error_set(err, ENOMEM, "out of memory");
	return 0;
}

static int check_spec(const struct create_ctx *c, struct error **err)
{
	const struct spec *s = c->spec;

	/* The hostname goes to the container's own uts namespace; under a
	 * permissive policy, as runc does, also to one config.json joins. */
	bool joined_uts =
	    !c->hardened->sandbox.enforced && c->ns.join_fds[NS_UTS] >= 0;

	if ((s->hostname || s->domainname) &&
	    !(c->ns.clone_flags & CLONE_NEWUTS) && !joined_uts)
		return error_set(
		    err, EINVAL,
		    "config.json: .hostname: needs a new uts namespace");
	/* A requested LSM label the host cannot apply fails here, before
	 * any process exists, not at exec. */
	if (s->process->apparmor_profile && *s->process->apparmor_profile &&
	    access("/proc/self/attr/apparmor/exec", W_OK) < 0)
		return error_set(err, ENOTSUP,
				 "config.json: .process.apparmorProfile: "
				 "AppArmor is not enabled on this host");
	if (s->process->selinux_label && *s->process->selinux_label &&
	    access("/sys/fs/selinux/enforce", F_OK) < 0)
		return error_set(err, ENOTSUP,
				 "config.json: .process.selinuxLabel: "
				 "SELinux is not enabled on this host");
	return 0;
}

/* Whether the cgroup is a scope made through systemd: asked for with
 * --systemd-cgroup or a "slice:prefix:name" cgroupsPath (as runc and
 * crun take it), on a host whose init is systemd.  Without systemd the
 * cgroup is made on cgroupfs as it always was, and --systemd-cgroup says
 * so once.  An ordinary user's corral keeps its delegated cgroup. */
static bool systemd_driver(const struct create_ctx *c)
{
	const struct spec_linux *l = c->config->linux_;
	bool asked =
	    c->o->systemd_cgroup || (l && cg_is_systemd_path(l->cgroups_path));

	if (!asked || c->policy->rootless)
		return false;
	if (cgroup_systemd_host())
		return true;
	if (c->o->systemd_cgroup)
		log_warn("%s: --systemd-cgroup: systemd is not this host's "
			 "init; the cgroup is made on cgroupfs",
			 c->o->id);
	return false;
}

/* config.json + policy -> the effective spec; nothing after this looks
 * at config.json again. */
static int harden_config(struct create_ctx *c, struct error **err)
{
	if (policy_load(c->o->policy, &c->policy, err) < 0)
		return -1;
	for (size_t i = 0; i < c->o->n_extra_ro_sources; i++)
		if (policy_allow_mount(c->policy, c->o->extra_ro_sources[i],
				       false, err) < 0)
			return -1;
	if (c->o->own_rootfs &&
	    policy_allow_root(c->policy, c->o->own_rootfs, err) < 0)
		return -1;
	rootless_cgroup(c->policy, &c->cgroup_bases);
	c->policy->cgroup_systemd = systemd_driver(c);
	/* the pod it claims, proved from corral's own records, before
	 * anything else of the pod's is looked at */
	if (c->policy->mode != POLICY_PERMISSIVE &&
	    pod_claim(c->o->root, c->config, &c->policy->pod_uid, err) < 0)
		return error_wrap(err, "config.json");
	/* A slice of the pool for corral's own user namespace, which
	 * harden() maps the container's ids to; given back at once when it
	 * decides on none (config.json's own namespace under user.idMap). */
	if (c->policy->mode != POLICY_PERMISSIVE &&
	    pod_userns(c->o->root, c->config, &c->policy->slice,
		       &c->pod_userns) == 0 &&
	    c->policy->pool.set) {
		if (userns_slice_take(&c->policy->pool, c->o->root, c->o->id,
				      &c->policy->slice, err) < 0)
			return error_wrap(err, "user namespace");
		c->slice_taken = true;
	}
	if (harden_take(&c->config, c->policy, c->bundle, &c->hardened, err) <
	    0)
		return error_wrap(err, "config.json");
	c->spec = c->hardened->spec;
	if (c->slice_taken && !c->hardened->sandbox.userns_auto) {
		userns_slice_release(c->policy->slice.uid, c->policy->slice.gid,
				     c->o->root, c->o->id, false);
		c->slice_taken = false;
	}
	return 0;
}

/* The effective spec, which later commands read.  It is saved before the
 * cgroup is made: a `delete --force` after a create that was killed finds
 * the cgroup's path there. */
static int save_config(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *config = NULL;

	if (spec_emit(c->spec, &config, NULL, err) < 0)
		return -1;
	return write_file_atomic_at(c->dir.dirfd, CONFIG_FILE, config,
				    strlen(config), 0600, err);
}

static int name_cgroup(struct create_ctx *c, struct error **err)
{
	const struct spec_linux *l = c->spec->linux_;
	_cleanup_free_ char *path = NULL;

	/* an ordinary user's corral without a cgroup of its own, under a
	 * best-effort policy (harden_limits.c): none */
	if (c->hardened->sandbox.no_cgroup)
		return 0;
	/* with one: "corral-ID" in it, beside the caller's own */
	if (c->hardened->sandbox.cgroup_delegated) {
		if (cg_delegated_path(c->o->id, &path, err) < 0 ||
		    cgroup_new_delegated(CGROUP_MOUNT, &c->cgroup_bases, path,
					 &c->cgroup, err) < 0)
			return error_wrap(err, "cgroup");
		return 0;
	}
	if (c->hardened->sandbox.cgroup_systemd) {
		if (cgroup_new_systemd(CGROUP_MOUNT, l ? l->cgroups_path : NULL,
				       c->o->id, false, &c->cgroup, err) < 0)
			return error_wrap(err, "cgroup");
		return 0;
	}
	if (cgroup_path_for(l ? l->cgroups_path : NULL, c->o->id, &path, err) <
		0 ||
	    cgroup_new(CGROUP_MOUNT, path, &c->cgroup, err) < 0 ||
	    (c->hardened->sandbox.enforced &&
	     cgroup_check_place(c->cgroup, err) < 0))
		return error_wrap(err, "cgroup");
	return 0;
}

/* A delegated cgroup's place, which later commands (and a delete after a
 * create killed before state.json) read: saved before the cgroup is
 * made. */
static int save_cgroup_record(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *text = NULL;

	if (c->cgroup && c->cgroup->unit) {
		if (asprintf(&text, "%s\n%s\n", c->cgroup->unit,
			     c->cgroup->user_manager ? "user" : "system") < 0)
			return error_set(err, ENOMEM, "out of memory");
		return write_file_atomic_at(c->dir.dirfd, SYSTEMD_RECORD_FILE,
					    text, strlen(text), 0600, err);
	}
	if (!c->cgroup || !c->cgroup->bases.n)
		return 0;
	if (cg_record_format(c->cgroup->path, &c->cgroup->bases, &text, err) <
	    0)
		return -1;
	return write_file_atomic_at(c->dir.dirfd, CGROUP_RECORD_FILE, text,
				    strlen(text), 0600, err);
}

/* The host id that container id 0 maps to, or -1. */
static long long host_root(const struct spec_id_mapping *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].container_id == 0 && m[i].size > 0)
			return m[i].host_id;
	return -1;
}

/* In a user namespace the init is root of that namespace, a host id of
 * the policy's range: the exec fifo it reopens for writing (through
 * /proc/self/fd, the state directory being out of its reach) is made
 * its own.  Only it and the host's root can open it. */
static int own_fifo(const struct create_ctx *c, struct error **err)
{
	const struct spec_linux *l = c->spec->linux_;
	long long uid, gid;

	if (!create_in_userns(c) || !l)
		return 0;
	uid = host_root(l->uid_mappings, l->n_uid_mappings);
	gid = host_root(l->gid_mappings, l->n_gid_mappings);
	if (uid < 0 || gid < 0)
		return 0;
	if (fchownat(c->dir.dirfd, FIFO_FILE, (uid_t)uid, (gid_t)gid,
		     AT_SYMLINK_NOFOLLOW) < 0)
		return error_errno(err, "exec fifo: give it to the container's "
					"root");
	return 0;
}

/* A source the caller opened itself (corral sandbox's --workspace) that
 * the policy's mounts do not allow is dropped as every such bind is:
 * said, since the caller asked for it by name. */
static void warn_dropped_preopened(const struct create_ctx *c)
{
	for (size_t i = 0; i < c->o->n_preopened; i++) {
		const char *src = c->o->preopened[i].source;
		bool kept = false;

		for (size_t m = 0; m < c->spec->n_mounts && !kept; m++)
			kept = c->spec->mounts[m].source &&
			       strcmp(c->spec->mounts[m].source, src) == 0;
		if (!kept)
			log_warn("%s is not mounted: no entry of the policy's "
				 "mounts allows it (policy: mounts)",
				 src);
	}
}

/* The child shares create's memory until its exec (ns_clone_shared):
 * no copy of create's address space is made, faulted in and torn down
 * again, about 0.9 ms of a `run` on the bench's guest.  create is
 * suspended meanwhile, so nothing it does between the clone and GO may
 * be needed: not for a child in a user namespace (create moves it into
 * its cgroup and writes its id maps), nor for hooks that run at create's
 * side or with GO's state (prestart, createRuntime, createContainer),
 * nor for the egress helper, which prepares beside the child's setup.
 * An ordinary user's corral shares it too: the container's namespaces
 * are made in the user namespace corral entered, not a new one. */
static bool share_memory(const struct create_ctx *c)
{
	const struct spec_hook_list *h = c->spec->hooks;

	/* the systemd driver's scope is started with the child in it,
	 * which the child waits for (GO) before its cgroup namespace */
	return !create_in_userns(c) && !create_egress_wanted(c) &&
	       !(c->cgroup && cgroup_needs_pid(c->cgroup)) &&
	       h[HOOK_PRESTART].n == 0 && h[HOOK_CREATE_RUNTIME].n == 0 &&
	       h[HOOK_CREATE_CONTAINER].n == 0;
}

static int prepare(struct create_ctx *c, struct error **err)
{
	int nlisten = listen_fds();

	if (container_id_validate(c->o->id, err) < 0 ||
	    reserve_fds(c->o->preserve_fds + nlisten, err) < 0 ||
	    load_bundle(c, err) < 0 || harden_config(c, err) < 0 ||
	    mount_sources_open(c->hardened, c->o->id, c->bundle, c->bundle_fd,
			       c->o->preopened, c->o->n_preopened, &c->sources,
			       err) < 0)
		return -1;
	warn_dropped_preopened(c);
	if (ns_plan_make(c->spec, c->hardened->sandbox.enforced, c->o->root,
			 &c->ns, err) < 0)
		return -1;
	/* a pod member goes into its pod sandbox's user namespace, whose
	 * ipc, uts and network namespaces it joins */
	if (c->pod_userns >= 0 && c->hardened->sandbox.userns_auto)
		pod_plan_join_userns(&c->ns, take_fd(&c->pod_userns));
	if (pod_join_network(c->o->root, c->spec, &c->hardened->sandbox, &c->ns,
			     err) < 0 ||
	    check_spec(c, err) < 0 || build_env(c, nlisten, err) < 0)
		return -1;
	c->proc.process = c->spec->process;
	c->proc.init_uid = c->spec->process->user.uid;
	c->proc.init_gid = c->spec->process->user.gid;
	c->proc.linux_ = c->spec->linux_;
	c->proc.enforced = c->hardened->sandbox.enforced;
	c->proc.pause = c->hardened->sandbox.role == ROLE_POD_SANDBOX;
	c->proc.notify = true; /* the supervisor listens (stage/notify.c) */
	c->proc.keep_fds = c->o->preserve_fds + nlisten;
	c->proc.relay = c->o->relay;
	if (proc_plan_prepare(&c->proc, c->o->root,
			      c->spec->linux_ ? c->spec->linux_->seccomp : NULL,
			      &c->hardened->sandbox, c->o->console_socket,
			      err) < 0)
		return -1;
	if (name_cgroup(c, err) < 0 ||
	    container_dir_create(c->o->root, c->o->id, &c->dir, err) < 0 ||
	    mount_sources_make_root(c->hardened, &c->sources, c->dir.dirfd,
				    create_report_wanted(c), err) < 0 ||
	    save_config(c, err) < 0 || save_cgroup_record(c, err) < 0 ||
	    (c->hardened->sandbox.enforced && c->hardened->sandbox.egress_on &&
	     stub_resolv_prepare(c->dir.dirfd, c->sources.root,
				 &c->sources.resolv, err) < 0) ||
	    report_open_outcome(&c->dir, &c->outcome_fd, err) < 0)
		return -1;
	/* clone3 starts the child in its cgroup2 directory, which must exist
	 * by then: on v2 that is the whole cgroup; beside v1 hierarchies it
	 * is made alone.  The v1 hierarchies are made, and the limits
	 * written, while the child makes its namespaces; the child moves
	 * itself into them after GO. */
	if (c->cgroup && !cgroup_needs_pid(c->cgroup) &&
	    cgroup_has_cgroup2(c->cgroup)) {
		int r = cgroup_make_cgroup2(c->cgroup, err);

		if (r < 0 || (r == 0 && create_make_cgroup(c, err) < 0))
			return -1;
	}
	/* A child sharing this memory finds create suspended until its
	 * exec: the whole cgroup is made before it. */
	c->shared = share_memory(c);
	if (c->shared && c->cgroup && !c->cgroup_made &&
	    create_make_cgroup(c, err) < 0)
		return -1;
	if (mkfifoat(c->dir.dirfd, FIFO_FILE, 0600) < 0)
		return error_errno(err, "make exec fifo");
	if (own_fifo(c, err) < 0)
		return -1;
	c->fifo_fd = openat(c->dir.dirfd, FIFO_FILE, O_PATH | O_CLOEXEC);
	if (c->fifo_fd < 0)
		return error_errno(err, "open exec fifo");
	return 0;
}

/* The change list goes to the runtime log once create has succeeded (a
 * failed create leaves only its error there, which podman parses). */
static void log_changes(const char *id, const struct hardened *h)
{
	log_hold();
	if (!h->sandbox.enforced)
		log_info("%s: SANDBOX OFF: the policy is permissive, the "
			 "container runs as config.json says",
			 id);
	for (size_t i = 0; i < h->n_changes; i++)
		(h->changes[i].warn ? log_warn : log_info)(
		    "%s: %s: %s -> %s (%s)", id, h->changes[i].field,
		    h->changes[i].asked, h->changes[i].applied,
		    h->changes[i].reason);
	log_release();
}

static void ctx_release(struct create_ctx *c, bool failed)
{
	if (failed && c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	if (failed)
		egress_helper_stop(&c->egress);
	if (failed &&
	    (c->cgroup_made || (c->cgroup && c->cgroup->cgroup2_made))) {
		cgroup_kill(c->cgroup, NULL);
		cgroup_destroy(c->cgroup, NULL);
	}
	cgroup_free(c->cgroup);
	cg_bases_clear(&c->cgroup_bases);
	if (failed && c->dir.dirfd >= 0)
		container_dir_remove(c->o->root, c->o->id, &c->dir, NULL);
	if (failed && c->slice_taken)
		userns_slice_release(c->policy->slice.uid, c->policy->slice.gid,
				     c->o->root, c->o->id, false);
	container_dir_close(&c->dir);
	closep(&c->fifo_fd);
	closep(&c->outcome_fd);
	closep(&c->lo_up[0]);
	closep(&c->lo_up[1]);
	closep(&c->start.pidfd);
	closep(&c->start.fifo);
	closep(&c->bundle_fd);
	mount_sources_release(&c->sources);
	ns_plan_release(&c->ns);
	closep(&c->pod_userns);
	proc_plan_release(&c->proc);
	strv_free(c->proc.env);
	spec_free(c->config);
	hardened_free(c->hardened);
	policy_free(c->policy);
	free(c->bundle);
}

int container_create(const struct create_opts *o, struct container_pids *pids,
		     struct error **err)
{
	struct create_ctx c = {
	    .o = o,
	    .dir = {-1, -1},
	    .fifo_fd = -1,
	    .outcome_fd = -1,
	    .bundle_fd = -1,
	    .sources = {.root = -1, .resolv = -1},
	    .proc = PROC_PLAN_INIT,
	    .egress = {.pid = -1, .ready = -1},
	    .pod_userns = -1,
	    .lo_up = {-1, -1},
	    .start = START_FDS_INIT,
	};
	int r, started = 0;

	for (int i = 0; i < NS_TYPE_COUNT; i++)
		c.ns.join_fds[i] = -1;
	r = prepare(&c, err);
	if (r == 0)
		r = create_spawn(&c, err);
	/* Started before anything is released: the init waits for it. */
	if (r == 0 && o->start)
		started =
		    container_start_opened(&c.dir, &c.state, &c.start, err);
	if (r == 0)
		log_changes(o->id, c.hardened);
	if (r == 0 && pids)
		*pids = (struct container_pids){c.pid, c.egress.pid,
						c.hardened->sandbox.wall_clock};
	ctx_release(&c, r < 0);
	if (r < 0)
		return error_wrap(err, "create %s", o->id);
	if (started < 0) {
		container_delete(o->root, o->id, true, NULL);
		return -1;
	}
	return 0;
}
