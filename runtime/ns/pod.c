/* Which pod a container belongs to, proved from corral's own records
 * (pod.h; docs/threat-model.md, "Identity"). */
#include "pod.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container_dir.h"
#include "egress.h"
#include "fsutil.h"
#include "harden.h"
#include "netns.h"
#include "util.h"

/* The annotations by which engines name a container's pod sandbox:
 * containerd's CRI, CRI-O's and podman's (which writes CRI-O's). */
#define CRI_SANDBOX_KEY "io.kubernetes.cri.sandbox-id"
static const char *const pod_sandbox_keys[] = {
    CRI_SANDBOX_KEY,
    "io.kubernetes.cri-o.SandboxID",
};
/* The pod's uid, as containerd's CRI writes it on a pod sandbox. */
#define CRI_POD_UID_KEY "io.kubernetes.cri.sandbox-uid"

/* The process that ran this corral (pod_note_caller). */
static pid_t caller;

static const char *annotation(const struct spec_kv *kv, size_t n,
			      const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return kv[i].value;
	return NULL;
}

static const char *pod_sandbox_id(const struct spec *spec)
{
	for (size_t i = 0; i < ARRAY_SIZE(pod_sandbox_keys); i++) {
		const char *v =
		    annotation(spec->annotations, spec->n_annotations,
			       pod_sandbox_keys[i]);

		if (v)
			return v;
	}
	return NULL;
}

void pod_note_caller(void)
{
	caller = getppid();
}

int pod_caller(int *pid, uint64_t *start)
{
	*pid = 0;
	*start = 0;
	if (caller <= 1 || proc_stat(caller, start, NULL) < 0)
		return -1;
	*pid = caller;
	return 0;
}

/* How far up from this corral's caller the pod sandbox's creator is
 * looked for. */
#define CALLER_DEPTH 16

/* Whether the pod sandbox `pod` was made by the process that runs this
 * corral, or by one of its ancestors.  Under the CRI, containerd's shim
 * of a pod runs `create` for its pod sandbox and for each of its
 * containers (the runc shim groups a pod's containers under the pod
 * sandbox's shim), so a member's create comes from the process that
 * created its pod sandbox; a bundle naming another pod's sandbox comes
 * through another process, none of whose ancestors made it: another
 * pod's shim, podman's conmon, a shell.  Each process is compared by pid
 * and start time, so a reused pid is no match; PID 1, everyone's
 * ancestor, is never a creator (pod_caller). */
static bool same_caller(const struct spec_state *pod)
{
	uint64_t start;
	pid_t pid = caller, up;

	if (pod->creator_pid <= 1)
		return false;
	for (int depth = 0; depth < CALLER_DEPTH && pid > 1; depth++) {
		if (proc_parent(pid, &up, &start) < 0)
			return false;
		if (pid == pod->creator_pid && start == pod->creator_start)
			return true;
		pid = up;
	}
	return false;
}

static bool is_libpod(const struct spec *s)
{
	for (size_t i = 0; i < s->n_annotations; i++)
		if (strcmp(s->annotations[i].key, "io.container.manager") == 0)
			return strcmp(s->annotations[i].value, "libpod") == 0;
	return false;
}

/* Whether the container of dir may be joined as a pod's sandbox: corral
 * made it as one (its sandbox.json says so: containerd's CRI and CRI-O
 * mark them), or, for a podman pod, it is podman's and no member of a
 * pod itself, since podman writes no marker on its infra container. */
static bool joinable_sandbox(const struct container_dir *dir,
			     const struct spec *joiner)
{
	_cleanup_free_ char *json = NULL;
	struct spec *target = NULL;
	struct sandbox sb = {0};
	size_t len = 0;
	bool ok = false;

	if (read_file_at(dir->dirfd, SANDBOX_FILE, &json, &len, NULL) == 0 &&
	    hardened_parse_sandbox(json, len, &sb, NULL) == 0)
		ok = sb.role == ROLE_POD_SANDBOX;
	sandbox_release(&sb);
	if (ok || !is_libpod(joiner) ||
	    container_dir_load_config(dir, &target, NULL) < 0)
		return ok;
	ok = is_libpod(target) && !pod_sandbox_id(target);
	spec_free(target);
	return ok;
}

/* The container's pod sandbox, the container the pod annotation names in
 * root, which corral made as one and whose init runs: *out is its
 * directory (the caller closes it), *pidfd pins its init (checked against
 * the recorded start time) and *pid is that init's. */
static bool open_running_pod_sandbox(const char *root,
				     const struct spec *joiner,
				     struct container_dir *out, int *pidfd,
				     pid_t *pid)
{
	const char *id = pod_sandbox_id(joiner);
	struct container_dir dir = {-1, -1};
	struct spec_state *st = NULL;
	uint64_t start;
	bool ok = false;

	*pidfd = -1;
	if (!id || !root || container_id_validate(id, NULL) < 0 ||
	    container_dir_open(root, id, &dir, NULL) < 0)
		return false;
	if (joinable_sandbox(&dir, joiner) &&
	    container_dir_load_state(&dir, &st, NULL) == 0 &&
	    (!annotation(joiner->annotations, joiner->n_annotations,
			 CRI_SANDBOX_KEY) ||
	     same_caller(st)) &&
	    container_dir_status(&dir, st) == CONTAINER_RUNNING &&
	    (*pidfd = pidfd_open_(st->pid)) >= 0 &&
	    proc_stat(st->pid, &start, NULL) == 0 && start == st->start_time) {
		*pid = st->pid;
		ok = true;
	}
	spec_state_free(st);
	if (ok) {
		*out = dir;
	} else {
		closep(pidfd);
		container_dir_close(&dir);
	}
	return ok;
}

/* Whether the pinned init is still alive: then /proc/PID named it, not a
 * process that took its pid since. */
static bool still_running(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) == 0;
}

/* Whether fd is the namespace of type `name` of the running init of
 * the container's pod sandbox (open_running_pod_sandbox).  When it is,
 * *out is the pod sandbox's directory, which the caller closes. */
static bool open_pod_sandbox(const char *root, const struct spec *joiner,
			     const char *name, int fd,
			     struct container_dir *out)
{
	struct container_dir dir = {-1, -1};
	_cleanup_close_ int pidfd = -1;
	struct stat want, have;
	char path[64];
	pid_t pid;
	bool ok;

	if (!open_running_pod_sandbox(root, joiner, &dir, &pidfd, &pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, name);
	ok = stat(path, &want) == 0 && fstat(fd, &have) == 0 &&
	     want.st_dev == have.st_dev && want.st_ino == have.st_ino &&
	     still_running(pidfd);
	if (ok)
		*out = dir;
	else
		container_dir_close(&dir);
	return ok;
}

bool pod_is_pods_ns(const char *root, const struct spec *joiner,
		    const char *name, int fd)
{
	struct container_dir dir = {-1, -1};

	if (!open_pod_sandbox(root, joiner, name, fd, &dir))
		return false;
	container_dir_close(&dir);
	return true;
}

int pod_claim(const char *root, const struct spec *spec, char **pod_uid,
	      struct error **err)
{
	const char *id = annotation(spec->annotations, spec->n_annotations,
				    CRI_SANDBOX_KEY),
		   *mine = annotation(spec->annotations, spec->n_annotations,
				      CRI_POD_UID_KEY),
		   *theirs;
	struct container_dir dir = {-1, -1};
	_cleanup_close_ int pidfd = -1;
	struct spec_state *st = NULL;
	pid_t pid;
	int r = 0;

	*pod_uid = NULL;
	if (!id || harden_role(spec) == ROLE_POD_SANDBOX)
		return 0;
	if (!open_running_pod_sandbox(root, spec, &dir, &pidfd, &pid))
		return error_set(
		    err, EPERM,
		    "annotation " CRI_SANDBOX_KEY "=%.64s: no running pod "
		    "sandbox of that name that corral made for the engine "
		    "process running this create: refusing a pod it cannot "
		    "prove",
		    container_id_validate(id, NULL) == 0 ? id : "(invalid)");
	if (container_dir_load_state(&dir, &st, err) < 0) {
		r = -1;
		goto out;
	}
	theirs =
	    annotation(st->annotations, st->n_annotations, CRI_POD_UID_KEY);
	if (mine && (!theirs || strcmp(mine, theirs) != 0)) {
		r = error_set(
		    err, EPERM,
		    "annotation " CRI_POD_UID_KEY "=%.64s: its pod "
		    "sandbox %s belongs to another pod",
		    container_id_validate(mine, NULL) == 0 ? mine : "(invalid)",
		    id);
		goto out;
	}
	if (theirs && !(*pod_uid = strdup(theirs)))
		r = error_set(err, ENOMEM, "out of memory");
out:
	spec_state_free(st);
	container_dir_close(&dir);
	return r;
}

int pod_userns(const char *root, const struct spec *spec,
	       struct policy_slice *slice, int *fd)
{
	struct container_dir dir = {-1, -1};
	_cleanup_close_ int pidfd = -1;
	_cleanup_free_ char *json = NULL;
	struct sandbox sb = {0};
	char path[64];
	size_t len;
	pid_t pid;
	int found = 0;

	*fd = -1;
	if (!open_running_pod_sandbox(root, spec, &dir, &pidfd, &pid))
		return 0;
	if (read_file_at(dir.dirfd, SANDBOX_FILE, &json, &len, NULL) == 0 &&
	    hardened_parse_sandbox(json, len, &sb, NULL) == 0 &&
	    sb.userns_auto) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		*fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*fd >= 0 && still_running(pidfd)) {
			*slice = (struct policy_slice){.set = true,
						       .pod = true,
						       .uid = sb.userns_uid,
						       .gid = sb.userns_gid};
			found = 1;
		} else {
			closep(fd);
		}
	}
	sandbox_release(&sb);
	container_dir_close(&dir);
	return found;
}

void pod_plan_join_userns(struct ns_plan *plan, int fd)
{
	if (plan->join_fds[NS_USER] >= 0)
		close(plan->join_fds[NS_USER]);
	plan->join_fds[NS_USER] = fd;
	plan->clone_flags &= ~(unsigned long)CLONE_NEWUSER;
	plan->hop = true;
}

int pod_engine_netns(const char *root, const struct spec *spec, int fd,
		     char **path)
{
	struct container_dir dir = {-1, -1};
	_cleanup_free_ char *json = NULL;
	struct sandbox sb = {0};
	size_t len = 0;

	*path = NULL;
	if (!open_pod_sandbox(root, spec, "net", fd, &dir))
		return 0;
	if (read_file_at(dir.dirfd, SANDBOX_FILE, &json, &len, NULL) == 0 &&
	    hardened_parse_sandbox(json, len, &sb, NULL) == 0)
		*path = steal_pointer(&sb.engine_netns);
	sandbox_release(&sb);
	container_dir_close(&dir);
	return 0;
}

/* Sharing the pod's network must widen no member's: both have corral's
 * proxy or neither, and the pod's rules (which its one proxy applies to
 * every container in the namespace) are within the member's. */
static int same_network(const struct sandbox *member, const struct sandbox *pod,
			struct error **err)
{
	struct egress_rule *narrow = NULL, *wide = NULL;
	bool ok;

	if (member->egress_on != pod->egress_on)
		return error_set(
		    err, EPERM,
		    "the pod's network %s corral's egress proxy and this "
		    "container's policy %s: the pod sandbox's policy decides "
		    "the network of the whole pod",
		    pod->egress_on ? "has" : "has no",
		    member->egress_on ? "asks for one" : "allows no host");
	if (!pod->egress_on)
		return 0;
	if (egress_rules_parse(pod->egress, pod->n_egress, egress_public_suffix,
			       &narrow, err) < 0)
		return -1;
	if (egress_rules_parse(member->egress, member->n_egress,
			       egress_public_suffix, &wide, err) < 0) {
		egress_rules_free(narrow, pod->n_egress);
		return -1;
	}
	ok = egress_rules_within(narrow, pod->n_egress, wide, member->n_egress,
				 NULL);
	egress_rules_free(narrow, pod->n_egress);
	egress_rules_free(wide, member->n_egress);
	return ok ? 0
		  : error_set(err, EPERM,
			      "the pod's proxy allows hosts this container's "
			      "policy does not, and it serves the whole pod "
			      "network: narrow the pod (its run.corral.egress "
			      "annotation), not the container");
}

/* The pod sandbox's own network namespace, when fd is it (a CRI member
 * names /proc/PAUSE/ns/net) or is the one the engine gave the pod
 * sandbox (podman and CRI-O give members the pod's CNI path, which the
 * pod sandbox recorded as its engineNetns): -1 otherwise.  *pod is the
 * pod sandbox's sandbox.json. */
static int pod_netns(const char *root, const struct spec *spec, int fd,
		     struct sandbox *pod, struct error **err)
{
	struct container_dir dir = {-1, -1};
	_cleanup_close_ int pidfd = -1;
	_cleanup_free_ char *json = NULL;
	struct stat want, have;
	char path[64];
	size_t len = 0;
	pid_t pid;
	int ns = -1;

	if (!open_running_pod_sandbox(root, spec, &dir, &pidfd, &pid))
		return -1;
	if (read_file_at(dir.dirfd, SANDBOX_FILE, &json, &len, err) < 0 ||
	    hardened_parse_sandbox(json, len, pod, err) < 0)
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || fstat(ns, &want) < 0 || fstat(fd, &have) < 0 ||
	    !still_running(pidfd))
		goto fail;
	if (want.st_dev == have.st_dev && want.st_ino == have.st_ino)
		goto out;
	if (pod->engine_netns && stat(pod->engine_netns, &want) == 0 &&
	    want.st_dev == have.st_dev && want.st_ino == have.st_ino)
		goto out;
fail:
	if (ns >= 0)
		close(ns);
	ns = -1;
out:
	container_dir_close(&dir);
	return ns;
}

int pod_join_network(const char *root, const struct spec *spec,
		     struct sandbox *sb, struct ns_plan *plan,
		     struct error **err)
{
	struct sandbox pod = {0};
	int fd, ns = -1, r = 0;

	if (!sb->enforced || sb->role == ROLE_POD_SANDBOX ||
	    !(sb->loopback_only || sb->egress_on) || !sb->engine_netns ||
	    !(plan->clone_flags & CLONE_NEWNET))
		return 0;
	/* a CNI path that is gone, or no network namespace: a namespace of
	 * its own */
	fd = ns_open_path(sb->engine_netns, CLONE_NEWNET, NULL);
	if (fd < 0)
		return 0;
	ns = pod_netns(root, spec, fd, &pod, err);
	close(fd);
	if (ns < 0 && err && *err)
		r = -1;
	/* the pod sandbox's namespace is corral's own, made as this one
	 * would be, and its sandbox is no member of another pod */
	else if (ns >= 0 && pod.enforced &&
		 (pod.loopback_only || pod.egress_on) && !pod.pod_network) {
		if ((r = same_network(sb, &pod, err)) == 0) {
			plan->join_fds[NS_NETWORK] = ns;
			ns = -1;
			plan->clone_flags &= ~(unsigned long)CLONE_NEWNET;
			sb->pod_network = true;
		}
	}
	if (ns >= 0)
		close(ns);
	sandbox_release(&pod);
	return r < 0 ? error_wrap(err, "pod network") : 0;
}
