/* `create` and `run`: parse and check the bundle, prepare everything that
 * can fail before any process exists, then clone the container's first
 * process and walk it through setup over the sync socket.  The two sides,
 * with the sync points (docs/architecture.md draws every step):
 *
 *   parent (this file)                     child (init.c, then the stage)
 *   prepare(): config.json, harden(),
 *     host paths (mount_sources.c), the
 *     namespace and process plans, the
 *     state dir, [v2] the cgroup, [hybrid]
 *     its cgroup2 directory
 *   spawn(): clone ───────────────────────▶ [user ns] waits for GO
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
 *   COMMIT (state JSON) ─────── COMMIT ───▶ stops dying with the parent
 *   exit                   ◀ COMMITTED ─── waits on the exec fifo
 */
#include "container.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "container_dir.h"
#include "cpus.h"
#include "egress_helper.h"
#include "fsutil.h"
#include "harden.h"
#include "hooks.h"
#include "hostpath.h"
#include "init.h"
#include "log.h"
#include "mount_sources.h"
#include "report_files.h"
#include "userns_pool.h"
#include "report_gather.h"
#include "rootless.h"
#include "scratch.h"
#include "stub_resolv.h"
#include "namespace.h"
#include "policy_file.h"
#include "proc_plan.h"
#include "spec.h"
#include "state.h"
#include "sync.h"
#include "util.h"

/* What create builds before the clone and releases after. */
struct create_ctx {
	const struct create_opts *o;
	char *bundle;  /* the caller's, made absolute */
	int bundle_fd; /* O_PATH */
	/* The root and the bind sources, opened as harden() said and cloned
	 * for the child to attach; sources.rootfs is the root's path. */
	struct mount_sources sources;
	struct spec *config; /* config.json as parsed, until harden takes it */
	struct policy *policy; /* kept in the state dir for exec */
	struct hardened *hardened;
	const struct spec *spec; /* the effective spec: hardened->spec */
	struct ns_plan ns;
	struct proc_plan proc; /* the workload's; the sync socket */
	struct container_dir dir;
	/* an ordinary user's delegated cgroup (rootless_cgroup), which the
	 * container's is made in */
	struct cgroup_bases cgroup_bases;
	struct cgroup *cgroup; /* named in prepare, made by make_cgroup */
	bool cgroup_made;
	bool in_cgroup; /* made there by clone3 */
	bool shared;	/* the child shares this memory (share_memory) */
	int fifo_fd;
	int outcome_fd; /* runtime/report.h */
	pid_t pid;
	struct egress_helper egress; /* when the sandbox has the proxy */
	bool slice_taken; /* policy->slice is this container's to give back */
	int pod_userns;	  /* its pod sandbox's user namespace, or -1 */
	/* [egress] the child says "lo is up" to the helper through it */
	int lo_up[2];
	char created[64];
	uint64_t start_time;	 /* the init's, read once its pid is final */
	struct spec_state state; /* as saved once created */
};

/* The container's first process is in a user namespace: one made for it
 * or, for a pod member, its pod sandbox's (ns_plan.hop). */
static bool in_userns(const struct create_ctx *c)
{
	return (c->ns.clone_flags & CLONE_NEWUSER) || c->ns.hop;
}

/* The bundle directory is the caller's (an engine's) choice; what is in
 * it is not: config.json must be a regular file in it, not a link to one
 * of the host's. */
static int load_bundle(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *json = NULL;
	_cleanup_close_ int cfd = -1;
	struct stat st;
	size_t len;

	c->bundle = realpath(c->o->bundle ? c->o->bundle : ".", NULL);
	if (!c->bundle)
		return error_errno(err, "bundle %s",
				   c->o->bundle ? c->o->bundle : ".");
	c->bundle_fd = open(c->bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->bundle_fd < 0)
		return error_errno(err, "bundle %s", c->bundle);
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
	/* A slice of the pool for corral's own user namespace, which
	 * harden() maps the container's ids to; given back at once when it
	 * decides on none (config.json's own namespace under user.idMap). */
	if (c->policy->mode != POLICY_PERMISSIVE &&
	    ns_pod_userns(c->o->root, c->config, &c->policy->slice,
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
	if (cgroup_path_for(l ? l->cgroups_path : NULL, c->o->id, &path, err) <
		0 ||
	    cgroup_new(CGROUP_MOUNT, path, &c->cgroup, err) < 0)
		return error_wrap(err, "cgroup");
	return 0;
}

/* A delegated cgroup's place, which later commands (and a delete after a
 * create killed before state.json) read: saved before the cgroup is
 * made. */
static int save_cgroup_record(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *text = NULL;

	if (!c->cgroup || !c->cgroup->bases.n)
		return 0;
	if (cg_record_format(c->cgroup->path, &c->cgroup->bases, &text, err) <
	    0)
		return -1;
	return write_file_atomic_at(c->dir.dirfd, CGROUP_RECORD_FILE, text,
				    strlen(text), 0600, err);
}

/* The container's cgroup, with every limit written, before the container
 * runs any code.  A limit that cannot be enforced fails create unless
 * the policy says limits are best-effort; then it is named in the log. */
static int make_cgroup(struct create_ctx *c, struct error **err)
{
	const struct spec_linux *l = c->spec->linux_;
	struct spec_resources r = {0};
	char **skipped = NULL;

	if (l && l->resources)
		r = *l->resources;
	/* an ordinary user's corral writes no device rules (harden_kernel.c
	 * rootless_device_rules says why none is needed); config.json keeps
	 * them as what /dev allows */
	if (c->hardened->sandbox.no_device_cgroup) {
		r.devices = NULL;
		r.n_devices = 0;
	}
	if (cgroup_make(c->cgroup, l && l->resources ? &r : NULL,
			c->hardened->sandbox.limits_best_effort, &skipped,
			err) < 0)
		return -1; /* it removed what it made */
	c->cgroup_made = true;
	for (char **s = skipped; s && *s; s++)
		log_warn("%s: %s is not enforced (limits are best-effort)",
			 c->o->id, *s);
	strv_free(skipped);
	return 0;
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

	if (!in_userns(c) || !l)
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

/* The host's view of the scratch (the report's files changed) is
 * attached only when a report will be written: a mount under the state
 * root is one more thing delete must find, and an administrator who
 * mounts over the root hides it (tests/security/faults.bats). */
static bool report_wanted(const struct create_ctx *c)
{
	/* An ordinary user's corral makes its mounts in a namespace of its
	 * own, which ends with the command: the view lasts for a --report,
	 * which the same command writes at its delete, not for the policy's
	 * report.dir, which a later delete writes.  Root of rootless
	 * podman's user namespace enters none: podman runs every command
	 * in the same one. */
	bool own_mntns = c->policy->rootless && !c->policy->rootless_nested;

	return c->o->report || (c->policy->report_dir && !own_mntns);
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

/* In its pod's network, the pod sandbox's proxy serves a container. */
static bool egress_wanted(const struct create_ctx *c)
{
	return c->hardened->sandbox.enforced &&
	       c->hardened->sandbox.egress_on &&
	       !c->hardened->sandbox.pod_network;
}

/* The child shares create's memory until its exec (ns_clone_shared):
 * no copy of create's address space is made, faulted in and torn down
 * again, about 0.9 ms of a `run` on the bench's guest.  create is
 * suspended meanwhile, so nothing it does between the clone and GO may
 * be needed: not for a child in a user namespace (create moves it into
 * its cgroup and writes its id maps), nor for hooks that run at create's
 * side or with GO's state (prestart, createRuntime, createContainer),
 * nor for the egress helper, which prepares beside the child's setup.
 * An ordinary user's corral keeps the copy too. */
static bool share_memory(const struct create_ctx *c)
{
	const struct spec_hook_list *h = c->spec->hooks;

	return !in_userns(c) && !c->policy->rootless && !egress_wanted(c) &&
	       h[HOOK_PRESTART].n == 0 && h[HOOK_CREATE_RUNTIME].n == 0 &&
	       h[HOOK_CREATE_CONTAINER].n == 0;
}

static int prepare(struct create_ctx *c, struct error **err)
{
	int nlisten = listen_fds();

	if (container_id_validate(c->o->id, err) < 0 ||
	    reserve_fds(c->o->preserve_fds + nlisten, err) < 0 ||
	    load_bundle(c, err) < 0 || harden_config(c, err) < 0 ||
	    mount_sources_open(c->hardened, c->bundle, c->bundle_fd,
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
		ns_plan_join_pod_userns(&c->ns, take_fd(&c->pod_userns));
	if (ns_join_pod_network(c->o->root, c->spec, &c->hardened->sandbox,
				&c->ns, err) < 0 ||
	    check_spec(c, err) < 0 || build_env(c, nlisten, err) < 0)
		return -1;
	c->proc.process = c->spec->process;
	c->proc.linux_ = c->spec->linux_;
	c->proc.enforced = c->hardened->sandbox.enforced;
	c->proc.notify = true; /* the supervisor listens (stage/notify.c) */
	c->proc.keep_fds = c->o->preserve_fds + nlisten;
	if (proc_plan_prepare(&c->proc, c->o->root,
			      c->spec->linux_ ? c->spec->linux_->seccomp : NULL,
			      &c->hardened->sandbox, c->o->console_socket,
			      err) < 0)
		return -1;
	if (name_cgroup(c, err) < 0 ||
	    container_dir_create(c->o->root, c->o->id, &c->dir, err) < 0 ||
	    save_config(c, err) < 0 || save_cgroup_record(c, err) < 0 ||
	    (c->hardened->sandbox.enforced && c->hardened->sandbox.egress_on &&
	     stub_resolv_prepare(c->dir.dirfd, c->sources.root,
				 &c->sources.resolv, err) < 0) ||
	    (report_wanted(c) &&
	     scratch_attach(c->sources.scratch, c->dir.dirfd, err) < 0) ||
	    report_open_outcome(&c->dir, &c->outcome_fd, err) < 0)
		return -1;
	/* clone3 starts the child in its cgroup2 directory, which must exist
	 * by then: on v2 that is the whole cgroup; beside v1 hierarchies it
	 * is made alone.  The v1 hierarchies are made, and the limits
	 * written, while the child makes its namespaces; the child moves
	 * itself into them after GO. */
	if (c->cgroup && cgroup_has_cgroup2(c->cgroup)) {
		int r = cgroup_make_cgroup2(c->cgroup, err);

		if (r < 0 || (r == 0 && make_cgroup(c, err) < 0))
			return -1;
	}
	/* A child sharing this memory finds create suspended until its
	 * exec: the whole cgroup is made before it. */
	c->shared = share_memory(c);
	if (c->shared && c->cgroup && !c->cgroup_made &&
	    make_cgroup(c, err) < 0)
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

	if (!egress_wanted(c))
		return 0;
	r = egress_helper_fork(&s, &c->egress, err);
	closep(&c->lo_up[0]);
	return r;
}

/* The parent's half of the sync protocol. */
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

/* GO.  A child that failed before it (its mounts, its namespaces) may
 * have exited already: the send fails, and the child's ERROR, still in
 * the socket, says why. */
static int send_go(struct create_ctx *c, const char *state_json,
		   struct error **err)
{
	_cleanup_error_ struct error *sent = NULL;
	_cleanup_free_ char *msg = NULL;
	enum sync_msg type;

	if (sync_send(c->proc.sync[0], SYNC_GO, state_json, strlen(state_json),
		      &sent) == 0)
		return 0;
	if ((sent->code == EPIPE || sent->code == ECONNRESET) &&
	    sync_recv(c->proc.sync[0], &type, &msg, NULL) == 0 &&
	    type == SYNC_ERROR)
		return error_set(err, EIO, "%s", msg);
	return error_set(err, sent->code, "%s", sent->msg);
}

static int supervise_setup(struct create_ctx *c, struct error **err)
{
	_cleanup_free_ char *state_json = NULL;
	bool enforced = c->hardened->sandbox.enforced;
	struct spec_state st;

	now_rfc3339(c->created, sizeof(c->created));
	if (c->cgroup && !c->cgroup_made && make_cgroup(c, err) < 0)
		return -1;
	/* A child in a user namespace cannot write the host's cgroup files:
	 * it is moved before it runs a step of its own.  Any other child
	 * moves itself once GO says the cgroup is there (init_run). */
	if (c->ns.hop && hopped_pid(c, err) < 0)
		return -1;
	if (in_userns(c) && c->cgroup &&
	    cgroup_enter(c->cgroup, c->pid, err) < 0)
		return error_wrap(err, "cgroup");
	if (c->ns.clone_flags & CLONE_NEWUSER &&
	    ns_write_id_maps(c->pid, c->spec, err) < 0)
		return -1;
	proc_stat(c->pid, &c->start_time, NULL);
	fill_state(c, &st, "creating");
	if (spec_state_emit(&st, STATE_PUBLIC, &state_json, err) < 0 ||
	    (!c->shared && send_go(c, state_json, err) < 0) ||
	    fork_egress(c, err) < 0 || save_effective(c, err) < 0)
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
		if (type != SYNC_HOOKS)
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
	if (report_wanted(c) && report_files_mark_ready(c->dir.dirfd, err) < 0)
		return -1;
	fill_state(c, &c->state, "created");
	free(state_json);
	state_json = NULL;
	if (container_dir_save_state(&c->dir, &c->state, err) < 0 ||
	    spec_state_emit(&c->state, STATE_PUBLIC, &state_json, err) < 0)
		return -1;
	if (c->o->pid_file && write_pid_file(c->o->pid_file, c->pid, err) < 0)
		return -1;
	/* The created state goes along: the startContainer hooks read it. */
	if (sync_send(c->proc.sync[0], SYNC_COMMIT, state_json,
		      strlen(state_json), err) < 0)
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

static int spawn(struct create_ctx *c, struct error **err)
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
	if (egress_wanted(c) &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->lo_up) < 0)
		return error_errno(err, "egress: socketpair");
	cfg.lo_up = c->lo_up[1];
	if (c->shared && spawn_shared(c, &cfg, c->ns.clone_flags & ~by_child,
				      cgroup_fd) < 0) {
		if (c->shared)
			return error_errno(err, "clone the container process");
		/* no clone3 on this kernel: a copy, as below; the cgroup is
		 * made already and GO is sent */
	}
	if (!c->shared) {
		cfg.cpus_saved = cpus_save(&cfg.cpus);
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
	    .sources = {.root = -1, .scratch = -1},
	    .proc = PROC_PLAN_INIT,
	    .egress = {.pid = -1, .ready = -1},
	    .pod_userns = -1,
	    .lo_up = {-1, -1},
	};
	int r, started = 0;

	for (int i = 0; i < NS_TYPE_COUNT; i++)
		c.ns.join_fds[i] = -1;
	r = prepare(&c, err);
	if (r == 0)
		r = spawn(&c, err);
	/* Started before anything is released: the init waits for it. */
	if (r == 0 && o->start)
		started = container_start_created(&c.dir, &c.state, err);
	if (r == 0)
		log_changes(o->id, c.hardened);
	if (r == 0 && pids)
		*pids = (struct container_pids){c.pid, c.egress.pid};
	ctx_release(&c, r < 0);
	if (r < 0)
		return error_wrap(err, "create %s", o->id);
	if (started < 0) {
		container_delete(o->root, o->id, true, NULL);
		return -1;
	}
	return 0;
}
