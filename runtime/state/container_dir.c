#include "container_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "fsutil.h"
#include "harden.h"
#include "userns_pool.h"
#include "util.h"

int container_id_validate(const char *id, struct error **err)
{
	size_t len = strlen(id);

	if (len == 0)
		return error_set(err, EINVAL, "invalid container ID: empty");
	if (len > 1024)
		return error_set(
		    err, EINVAL,
		    "invalid container ID: longer than 1024 bytes");
	if (id[0] == '.')
		return error_set(
		    err, EINVAL,
		    "invalid container ID \"%s\": starts with a dot", id);
	for (const char *p = id; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.' || c == '+'))
			return error_set(
			    err, EINVAL,
			    "invalid container ID \"%s\": only letters, digits "
			    "and \"_-.+\" are allowed",
			    id);
	}
	return 0;
}

/* mkdir -p with mode 0700, as runc does for --root: the containerd shim
 * passes /run/containerd/runc/NAMESPACE and expects the runtime to create
 * it.  The path is the caller's (root's) own, never inside a container. */
static int mkdir_parents(const char *root)
{
	char path[4096];
	size_t len = strlen(root);

	if (len == 0 || len >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(path, root, len + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int open_root(const char *root, bool create, struct error **err)
{
	int fd;

	if (create && mkdir_parents(root) < 0)
		return error_errno(err, "state root %s", root);
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "state root %s", root);
	return fd;
}

/* flock() needs no write access: an existing lock file is opened
 * read-only, so a state root that became read-only can still be read. */
static int lock_dir(int dirfd, bool create, struct error **err)
{
	int fd = openat(dirfd, LOCK_FILE,
			(create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC |
			    O_NOFOLLOW,
			0600);

	if (fd < 0)
		return error_errno(err, "lock");
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			error_errno(err, "lock");
			close(fd);
			return -1;
		}
	}
	return fd;
}

int container_dir_create(const char *root, const char *id,
			 struct container_dir *out, struct error **err)
{
	_cleanup_close_ int rootfd = open_root(root, true, err);
	int dirfd;

	if (rootfd < 0)
		return -1;
	if (mkdirat(rootfd, id, 0700) < 0) {
		if (errno == EEXIST)
			return error_set(err, EEXIST,
					 "container %s already exists", id);
		return error_errno(err, "create state directory %s/%s", root,
				   id);
	}
	dirfd =
	    openat(rootfd, id, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dirfd < 0) {
		error_errno(err, "open state directory %s/%s", root, id);
		unlinkat(rootfd, id, AT_REMOVEDIR);
		return -1;
	}
	out->dirfd = dirfd;
	out->lockfd = lock_dir(dirfd, true, err);
	if (out->lockfd < 0) {
		close(dirfd);
		unlinkat(rootfd, id, AT_REMOVEDIR);
		return -1;
	}
	return 0;
}

int container_dir_open(const char *root, const char *id,
		       struct container_dir *out, struct error **err)
{
	_cleanup_close_ int rootfd = -1, dirfd = -1;
	_cleanup_error_ struct error *lerr = NULL;
	struct stat st;

	if (container_id_validate(id, err) < 0)
		return -1;
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd >= 0)
		dirfd = openat(rootfd, id,
			       O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dirfd < 0)
		return error_set(err, ENOENT, "container %s does not exist",
				 id);
	out->lockfd = lock_dir(dirfd, false, &lerr);
	if (out->lockfd < 0 && lerr->code != ENOENT) {
		*err = steal_pointer(&lerr);
		return error_wrap(err, "container %s", id);
	}
	if (out->lockfd < 0)
		return error_set(err, ENOENT, "container %s does not exist",
				 id);
	/* A delete may have removed the directory while we waited. */
	if (fstatat(dirfd, STATE_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(out->lockfd);
		out->lockfd = -1;
		return error_set(err, ENOENT, "container %s does not exist",
				 id);
	}
	out->dirfd = take_fd(&dirfd);
	return 0;
}

/* The scratch tmpfs create attached for the report (scratch.h): detached
 * by the path of the directory's own descriptor, never following a link
 * at its end, then its directory goes.  No scratch is nothing to do. */
static int unmount_scratch(const struct container_dir *dir, const char *id,
			   struct error **err)
{
	char base[FD_PATH_MAX], path[FD_PATH_MAX + sizeof(SCRATCH_DIR) + 1];
	struct stat st;

	if (fstatat(dir->dirfd, SCRATCH_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	fd_path(dir->dirfd, base);
	snprintf(path, sizeof(path), "%s/%s", base, SCRATCH_DIR);
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL)
		return error_errno(err, "unmount the scratch of %s", id);
	if (unlinkat(dir->dirfd, SCRATCH_DIR, AT_REMOVEDIR) < 0)
		return error_errno(err, "remove the scratch of %s", id);
	return 0;
}

/* The slice of the user-namespace pool the container held (sandbox.json
 * says which), given back once its processes are gone; a pod member's is
 * its pod sandbox's, which the release leaves alone while the pod
 * sandbox is there, and a pod sandbox's stays while a member is in it. */
static void release_slice(const struct container_dir *dir, const char *root,
			  const char *id)
{
	_cleanup_free_ char *json = NULL;
	struct sandbox sb = {0};
	size_t len;

	if (read_file_at(dir->dirfd, SANDBOX_FILE, &json, &len, NULL) == 0 &&
	    hardened_parse_sandbox(json, len, &sb, NULL) == 0 && sb.userns_auto)
		userns_slice_release(sb.userns_uid, sb.userns_gid, root, id,
				     sb.role == ROLE_POD_SANDBOX);
	sandbox_release(&sb);
}

int container_dir_remove(const char *root, const char *id,
			 struct container_dir *dir, struct error **err)
{
	_cleanup_close_ int rootfd = -1;
	int fd;
	DIR *d;
	struct dirent *e;

	if (unmount_scratch(dir, id, err) < 0)
		return -1;
	release_slice(dir, root, id);
	fd = openat(dir->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "remove state of %s", id);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return error_errno(err, "remove state of %s", id);
	}
	/* state.json first, the lock last: a delete killed half-way leaves a
	 * directory without state.json that delete --force removes, and the
	 * directory stays locked until it is empty. */
	unlinkat(dirfd(d), STATE_FILE, 0);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 &&
		    strcmp(e->d_name, "..") != 0 &&
		    strcmp(e->d_name, LOCK_FILE) != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	unlinkat(dirfd(d), LOCK_FILE, 0);
	closedir(d);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || unlinkat(rootfd, id, AT_REMOVEDIR) < 0)
		return error_errno(err, "remove state directory %s/%s", root,
				   id);
	return 0;
}

void container_dir_close(struct container_dir *dir)
{
	if (dir->lockfd >= 0)
		close(dir->lockfd);
	if (dir->dirfd >= 0)
		close(dir->dirfd);
	dir->lockfd = dir->dirfd = -1;
}

int container_dir_load_state(const struct container_dir *dir,
			     struct spec_state **out, struct error **err)
{
	_cleanup_free_ char *json = NULL;
	size_t len;

	if (read_file_at(dir->dirfd, STATE_FILE, &json, &len, err) < 0)
		return -1;
	if (spec_state_parse(json, len, out, err) < 0)
		return error_wrap(err, STATE_FILE);
	return 0;
}

int container_dir_save_state(const struct container_dir *dir,
			     const struct spec_state *s, struct error **err)
{
	_cleanup_free_ char *json = NULL;

	if (spec_state_emit(s, STATE_PRIVATE, &json, err) < 0)
		return -1;
	return write_file_atomic_at(dir->dirfd, STATE_FILE, json, strlen(json),
				    0600, err);
}

int container_dir_load_config(const struct container_dir *dir,
			      struct spec **out, struct error **err)
{
	_cleanup_free_ char *json = NULL;
	size_t len;

	if (read_file_at(dir->dirfd, CONFIG_FILE, &json, &len, err) < 0)
		return -1;
	if (spec_parse(json, len, out, err) < 0)
		return error_wrap(err, "stored " CONFIG_FILE);
	return 0;
}

/* The systemd driver's record (SYSTEMD_RECORD_FILE): 1 and *out when
 * there is one, 0 when not. */
static int systemd_record(const struct container_dir *dir, const char *path,
			  struct cgroup **out, struct error **err)
{
	_cleanup_error_ struct error *missing = NULL;
	_cleanup_free_ char *text = NULL;
	char *nl, *manager;

	if (read_file_at(dir->dirfd, SYSTEMD_RECORD_FILE, &text, NULL,
			 &missing) < 0) {
		if (missing->code == ENOENT)
			return 0;
		return error_set(err, missing->code, "cgroup: %s",
				 missing->msg);
	}
	nl = strchr(text, '\n');
	manager = nl ? nl + 1 : NULL;
	if (!path || !nl ||
	    (strcmp(manager, "system\n") != 0 &&
	     strcmp(manager, "user\n") != 0))
		return error_set(err, EINVAL, "cgroup: a bad systemd record");
	*nl = '\0';
	if (cgroup_open_systemd(CGROUP_MOUNT, path, text, *manager == 'u', out,
				err) < 0)
		return error_wrap(err, "cgroup");
	return 1;
}

int container_dir_cgroup(const struct container_dir *dir, const char *path,
			 struct cgroup **out, struct error **err)
{
	_cleanup_error_ struct error *missing = NULL;
	_cleanup_free_ char *text = NULL, *recorded = NULL;
	struct cgroup_bases bases = {0};
	int r;

	*out = NULL;
	r = systemd_record(dir, path, out, err);
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (read_file_at(dir->dirfd, CGROUP_RECORD_FILE, &text, NULL,
			 &missing) < 0) {
		if (missing->code != ENOENT)
			return error_set(err, missing->code, "cgroup: %s",
					 missing->msg);
		if (!path)
			return error_set(err, ENOENT, "cgroup: no record");
		return cgroup_new(CGROUP_MOUNT, path, out, err);
	}
	if (cg_record_parse(text, &recorded, &bases, err) < 0)
		return error_wrap(err, "cgroup");
	if (path && strcmp(path, recorded) != 0)
		r = error_set(err, EINVAL,
			      "cgroup: state.json's %s is not the record's",
			      path);
	else
		r = cgroup_new_delegated(CGROUP_MOUNT, &bases, recorded, out,
					 err);
	cg_bases_clear(&bases);
	return r;
}

/* Whether the container's cgroup is frozen (by `pause`); a cgroup that
 * cannot be read is not. */
static bool cgroup_frozen(const struct container_dir *dir,
			  const struct spec_state *s)
{
	_cleanup_error_ struct error *err = NULL;
	struct cgroup *cg = NULL;
	bool frozen = false;

	if (!s->cgroup || container_dir_cgroup(dir, s->cgroup, &cg, &err) < 0)
		return false;
	if (cgroup_is_frozen(cg, &frozen, &err) < 0)
		frozen = false;
	cgroup_free(cg);
	return frozen;
}

const char *container_status_name(enum container_status status)
{
	static const char *const names[] = {
	    [CONTAINER_CREATED] = "created",
	    [CONTAINER_RUNNING] = "running",
	    [CONTAINER_PAUSED] = "paused",
	    [CONTAINER_STOPPED] = "stopped",
	};

	return names[status];
}

enum container_status container_dir_status(const struct container_dir *dir,
					   const struct spec_state *s)
{
	uint64_t start;
	char st = '?';
	struct stat sb;

	if (s->pid <= 0 || proc_stat(s->pid, &start, &st) < 0 ||
	    start != s->start_time || st == 'Z' || st == 'X')
		return CONTAINER_STOPPED;
	if (fstatat(dir->dirfd, FIFO_FILE, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		return CONTAINER_CREATED;
	return cgroup_frozen(dir, s) ? CONTAINER_PAUSED : CONTAINER_RUNNING;
}

/* ---- a container opened for a command ----------------------------------- */

void container_close(struct container *c)
{
	cgroup_free(c->cgroup);
	c->cgroup = NULL;
	error_free(c->cgroup_error);
	c->cgroup_error = NULL;
	spec_state_free(c->state);
	c->state = NULL;
	container_dir_close(&c->dir);
}

/* The state is read once, and the status worked out once from it. */
int container_open(const char *root, const char *id, struct container *c,
		   struct error **err)
{
	*c = (struct container){.dir = {-1, -1}};
	if (container_dir_open(root, id, &c->dir, err) < 0)
		return -1;
	if (container_dir_load_state(&c->dir, &c->state, err) < 0) {
		container_close(c);
		return -1;
	}
	if (c->state->cgroup)
		container_dir_cgroup(&c->dir, c->state->cgroup, &c->cgroup,
				     &c->cgroup_error);
	c->status = container_dir_status(&c->dir, c->state);
	return 0;
}

struct cgroup *container_cgroup(const struct container *c, const char *verb,
				struct error **err)
{
	if (c->cgroup)
		return c->cgroup;
	if (c->cgroup_error)
		error_set(err, c->cgroup_error->code, "%s %s: %s", verb,
			  c->state->id, c->cgroup_error->msg);
	else
		error_set(err, EOPNOTSUPP, "%s %s: the container has no cgroup",
			  verb, c->state->id);
	return NULL;
}

/* Open the init process by pidfd, then check it is still the process we
 * started (start time), so a recycled pid is never signalled. */
int container_init_pidfd(const struct spec_state *st, struct error **err)
{
	int pidfd = pidfd_open_(st->pid);
	uint64_t start;
	char s;

	if (pidfd < 0 || proc_stat(st->pid, &start, &s) < 0 ||
	    start != st->start_time) {
		if (pidfd >= 0)
			close(pidfd);
		return error_set(err, ESRCH, "%s: container not running",
				 st->id);
	}
	return pidfd;
}
