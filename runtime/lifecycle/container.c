/* state, kill, delete and list: the commands on a container that is
 * there (start.c starts it, run.c runs one, create.c makes one). */
#include "report_gather.h"
#include "container.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "container_dir.h"
#include "forward.h"
#include "fsutil.h"
#include "hooks.h"
#include "log.h"
#include "spec.h"
#include "state.h"
#include "util.h"

#define KILL_WAIT_MS 10000

int container_state(const char *root, const char *id, char **json,
		    struct error **err)
{
	struct container c;
	int r;

	if (container_open(root, id, &c, err) < 0)
		return -1;
	c.state->status = container_status_name(c.status);
	r = spec_state_emit(c.state, STATE_PUBLIC, json, err);
	container_close(&c);
	return r;
}

/* A paused container's processes die of SIGKILL only once thawed (v1's
 * freezer): cgroup_kill() kills everything listed, thaws a frozen v1
 * freezer so the SIGKILLs land, and waits until the cgroup is empty; the
 * init is in it, so afterwards the container is stopped.  For kill and
 * delete. */
static int kill_paused(const struct container *c, struct error **err)
{
	struct cgroup *cg;

	if (!c->state->cgroup)
		return 0;
	if (!(cg = container_cgroup(c, "kill", err)))
		return -1;
	if (cgroup_kill(cg, err) < 0)
		return error_wrap(err, "kill %s", c->state->id);
	return 0;
}

/* Every process in the container's cgroup but the init, which the caller
 * signals through its pidfd: forks and setsid daemons included, and
 * nothing else (cgroup_signal pins each pid first, so a recycled one is
 * never hit). */
static int signal_all(const struct container *c, int sig, struct error **err)
{
	struct cgroup *cg = container_cgroup(c, "kill --all", err);

	if (!cg)
		return -1;
	if (cgroup_signal(cg, sig, c->state->pid, err) < 0)
		return error_wrap(err, "kill --all %s", c->state->id);
	return 0;
}

/* kill, and run's backstop: the line for the record (report_gather.h),
 * then the signal.  The backstop returns 1 when the supervisor had
 * already recorded its own kill at the deadline (a loaded machine took
 * over a second to end the container): the record keeps the
 * supervisor's line, the SIGKILL goes all the same. */
static int kill_noted(const char *root, const char *id, int sig, bool all,
		      bool overdue, struct error **err)
{
	_cleanup_close_ int pidfd = -1;
	struct container c;
	int r = -1, done = 0;

	if (container_open(root, id, &c, err) < 0)
		return -1;
	if (c.status == CONTAINER_STOPPED) {
		error_set(err, ESRCH, "%s: container not running", id);
		goto out;
	}
	pidfd = container_init_pidfd(c.state, err);
	if (pidfd < 0)
		goto out;
	if (overdue && report_deadline_recorded(&c.dir))
		done = 1;
	else if (overdue)
		report_note_deadline(&c.dir);
	else
		report_note_kill(&c.dir, sig);
	/* In a pod's pid namespace the init is not PID 1: SIGKILL would end
	 * it alone, so it goes to the whole cgroup. */
	if (sig == SIGKILL && c.state->shared_pidns)
		all = true;
	if (all && signal_all(&c, sig, err) < 0)
		goto out;
	if (pidfd_send_signal_(pidfd, sig) < 0 && errno != ESRCH) {
		error_errno(err, "kill container %s", id);
		goto out;
	}
	/* a paused container dies only once thawed */
	if (sig == SIGKILL && c.status == CONTAINER_PAUSED &&
	    kill_paused(&c, err) < 0)
		goto out;
	r = done;
out:
	container_close(&c);
	return r;
}

int container_kill(const char *root, const char *id, int sig, bool all,
		   struct error **err)
{
	return kill_noted(root, id, sig, all, false, err);
}

int container_kill_overdue(const char *root, const char *id, struct error **err)
{
	return kill_noted(root, id, SIGKILL, true, true, err);
}

/* SIGKILL the init (the kernel then kills its whole pid namespace) and
 * wait until it is gone. */
static int kill_and_wait(const struct spec_state *st, struct error **err)
{
	_cleanup_close_ int pidfd = container_init_pidfd(st, NULL);
	struct pollfd p;

	if (pidfd < 0)
		return 0;
	if (pidfd_send_signal_(pidfd, SIGKILL) < 0 && errno != ESRCH)
		return error_errno(err, "kill container %s", st->id);
	p = (struct pollfd){.fd = pidfd, .events = POLLIN};
	while (poll(&p, 1, KILL_WAIT_MS) < 0 && errno == EINTR)
		;
	if (!(p.revents & POLLIN))
		return error_set(err, ETIMEDOUT,
				 "container %s did not die after SIGKILL",
				 st->id);
	return 0;
}

/* Whatever is left in the cgroup (a process that escaped the pid
 * namespace's teardown cannot exist, but a joined one could) dies with it,
 * then the cgroup goes. */
static int remove_cgroup(const struct container *c, struct error **err)
{
	struct cgroup *cg;

	if (!c->state->cgroup)
		return 0;
	if (!(cg = container_cgroup(c, "delete", err)))
		return -1;
	if (cgroup_remove(cg, err) < 0)
		return error_wrap(err, "delete %s", c->state->id);
	return 0;
}

/* The cgroup of a create that was killed before it wrote state.json.  Its
 * place comes from the record of a delegated cgroup, else from the
 * effective config.json; create stores both before it makes the cgroup:
 * without config.json there is no cgroup yet.  Whatever runs in it dies
 * first (the half-made init may not have seen its parent die yet). */
static int config_cgroup(const struct spec *spec, const char *id,
			 struct cgroup **cg, struct error **err)
{
	_cleanup_free_ char *path = NULL;

	if (cgroup_path_for(spec->linux_ ? spec->linux_->cgroups_path : NULL,
			    id, &path, err) < 0)
		return -1;
	return cgroup_new(CGROUP_MOUNT, path, cg, err);
}

static int remove_leftover_cgroup(const struct container_dir *dir,
				  const char *id, struct error **err)
{
	_cleanup_error_ struct error *none = NULL, *no_record = NULL;
	struct spec *spec = NULL;
	struct cgroup *cg = NULL;
	int r;

	if (container_dir_load_config(dir, &spec, &none) < 0)
		return 0;
	r = container_dir_cgroup(dir, NULL, &cg, &no_record);
	if (r < 0 && no_record->code == ENOENT)
		r = config_cgroup(spec, id, &cg, err);
	else if (r < 0)
		error_set(err, no_record->code, "%s", no_record->msg);
	spec_free(spec);
	if (r < 0)
		return error_wrap(err, "delete %s", id);
	r = cgroup_remove(cg, err);
	cgroup_free(cg);
	return r < 0 ? error_wrap(err, "delete %s", id) : 0;
}

/* A state directory without state.json is what a create that was killed
 * leaves: --force removes it as well, with its cgroup.  The directory
 * stays when the cgroup cannot be removed, so that a later delete can
 * try again. */
static int remove_leftover(const char *root, const char *id, struct error **err)
{
	_cleanup_close_ int rootfd =
	    open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct container_dir dir = {-1, -1};
	struct stat st;
	int r;

	if (rootfd < 0 || container_id_validate(id, NULL) < 0)
		return 0;
	dir.dirfd =
	    openat(rootfd, id, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dir.dirfd < 0)
		return 0;
	dir.lockfd =
	    openat(dir.dirfd, LOCK_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	/* A create in progress holds the lock: leave it alone.  No lock file
	 * at all is what a delete killed at its very end leaves (it removes
	 * the lock last). */
	if ((dir.lockfd < 0 && errno != ENOENT) ||
	    (dir.lockfd >= 0 && flock(dir.lockfd, LOCK_EX | LOCK_NB) < 0) ||
	    fstatat(dir.dirfd, STATE_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		container_dir_close(&dir);
		return 0;
	}
	if (remove_leftover_cgroup(&dir, id, err) < 0) {
		container_dir_close(&dir);
		return -1;
	}
	r = container_dir_remove(root, id, &dir, err);
	container_dir_close(&dir);
	return r < 0 ? error_wrap(err, "delete %s", id) : 0;
}

int container_delete(const char *root, const char *id, bool force,
		     struct error **err)
{
	return container_delete_report(root, id, force, NULL, err);
}

/* The report is written first, while the cgroup and the scratch it reads
 * are still there; a report that cannot be written fails the delete,
 * which can be run again. */
int container_delete_report(const char *root, const char *id, bool force,
			    const char *report, struct error **err)
{
	_cleanup_error_ struct error *report_err = NULL, *policy_err = NULL;
	struct container c;
	int r = -1;

	if (container_open(root, id, &c, err) < 0) {
		if (force && (*err)->code == ENOENT) {
			error_free(*err);
			*err = NULL;
			return remove_leftover(root, id, err);
		}
		return -1;
	}
	if (!force && c.status != CONTAINER_STOPPED &&
	    c.status != CONTAINER_CREATED) {
		error_set(err, EBUSY,
			  "cannot delete container %s: it is %s (use --force)",
			  id, container_status_name(c.status));
		goto out;
	}
	if (c.status == CONTAINER_PAUSED && kill_paused(&c, err) < 0)
		goto out;
	if (c.status != CONTAINER_STOPPED) {
		report_note_kill(&c.dir, SIGKILL);
		if (kill_and_wait(c.state, err) < 0)
			goto out;
		c.status = CONTAINER_STOPPED;
	}
	/* A report that cannot be written is an error of the delete, but
	 * not a reason to leave the container behind. */
	if (report && report_save(&c, report, &report_err) < 0)
		error_wrap(&report_err, "delete %s", id);
	if (report_save_policy(&c, &policy_err) < 0)
		log_warn("delete %s: %s", id, policy_err->msg);
	report_log_egress(&c);
	if (remove_cgroup(&c, err) < 0)
		goto out;
	c.state->status = container_status_name(CONTAINER_STOPPED);
	container_hooks_warn(&c.dir, c.state, HOOK_POSTSTOP);
	r = container_dir_remove(root, id, &c.dir, err);
	log_debug("deleted %s", id);
	if (r == 0 && report_err) {
		*err = steal_pointer(&report_err);
		r = -1;
	}
out:
	container_close(&c);
	return r;
}

static int list_one(const char *root, const char *id, struct spec_state **out,
		    enum container_status *status)
{
	_cleanup_error_ struct error *err = NULL;
	struct container c;

	if (container_open(root, id, &c, &err) < 0)
		return -1;
	c.state->status = container_status_name(c.status);
	*status = c.status;
	*out = c.state;
	c.state = NULL;
	container_close(&c);
	return 0;
}

/* A container as `list` shows it. */
struct listed {
	struct spec_state *state;
	enum container_status status;
};

static int cmp_listed(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->state->id,
		      ((const struct listed *)b)->state->id);
}

static int format_table(const struct listed *v, size_t n,
			enum list_format format, char **out, struct error **err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return error_errno(err, "list");
	if (format == LIST_TABLE)
		fprintf(f, "%-12s %-8s %-10s %-40s %s\n", "ID", "PID", "STATUS",
			"BUNDLE", "CREATED");
	for (size_t i = 0; i < n; i++) {
		const struct spec_state *s = v[i].state;

		if (format == LIST_QUIET)
			fprintf(f, "%s\n", s->id);
		else
			fprintf(f, "%-12s %-8d %-10s %-40s %s\n", s->id,
				v[i].status == CONTAINER_STOPPED ? 0 : s->pid,
				s->status, s->bundle, s->created);
	}
	fclose(f);
	*out = buf;
	return 0;
}

int container_list(const char *root, enum list_format format, char **out,
		   struct error **err)
{
	_cleanup_free_ struct spec_state **states = NULL;
	struct listed *v = NULL;
	size_t n = 0;
	struct dirent *e;
	DIR *d = opendir(root);
	int r;

	while (d && (e = readdir(d))) {
		struct listed one, *grown;

		if (e->d_name[0] == '.' ||
		    list_one(root, e->d_name, &one.state, &one.status) < 0)
			continue;
		grown = realloc(v, (n + 1) * sizeof(*v));
		if (!grown) {
			spec_state_free(one.state);
			break;
		}
		v = grown;
		v[n++] = one;
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_listed);
	states = calloc(n ? n : 1, sizeof(*states));
	for (size_t i = 0; states && i < n; i++)
		states[i] = v[i].state;
	if (!states)
		r = error_set(err, ENOMEM, "list: out of memory");
	else if (format == LIST_JSON)
		r = spec_state_emit_list(states, n, out, err);
	else
		r = format_table(v, n, format, out, err);
	for (size_t i = 0; i < n; i++)
		spec_state_free(v[i].state);
	free(v);
	return r;
}
