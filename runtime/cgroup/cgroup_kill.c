/* Killing, freezing, listing and signalling the processes of a cgroup
 * (cgroup.h: cgroup_kill, cgroup_freeze, cgroup_is_frozen, cgroup_pids,
 * cgroup_signal).  The same for every backend: each works on the
 * hierarchies the backend lists (cg_hiers_open), through their
 * cgroup.procs, cgroup.kill, freezer.state and cgroup.freeze.
 *
 * Privileged: this runs as root on the host's cgroupfs, in a cgroup whose
 * path cg_path_normalize() checked (never a hierarchy's root, where
 * "every process of the cgroup" would be the host's); a pid is signalled
 * only through a pidfd taken while it was listed (signal_pinned). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_fs.h"
#include "fsutil.h"
#include "util.h"

#define CG_KILL_TIMEOUT_MS 5000	  /* processes must be gone by then */
#define CG_FREEZE_TIMEOUT_MS 1000 /* a kill's freeze waits this long */
#define CG_PAUSE_TIMEOUT_MS 5000  /* pause and resume wait this long */

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The pids in cgroup.procs; none when the cgroup is gone. */
static int read_pids(const struct cg_hier *h, pid_t **out, size_t *n,
		     struct error **err)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ pid_t *v = NULL;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (cg_read(h->fd, h->dir, "cgroup.procs", &text, &e) < 0) {
		if (e->code == ENOENT)
			return 0;
		if (!*err)
			*err = steal_pointer(&e);
		return -1;
	}
	for (char *p = text, *end; *p; p = end + (*end == '\n')) {
		long pid;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (end == p || errno || pid <= 0 || pid > INT_MAX ||
		    (*end && *end != '\n'))
			return error_set(err, EINVAL,
					 "cgroup %s: cgroup.procs: not a pid "
					 "list",
					 h->dir);
		if (*n == cap) {
			pid_t *nv =
			    realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv)
				return error_set(err, ENOMEM,
						 "cgroup: out of memory");
			v = nv;
		}
		v[(*n)++] = (pid_t)pid;
	}
	*out = steal_pointer(&v);
	return 0;
}

/* A pid read in cgroup.procs may belong to another process by the time
 * it is signalled (its owner exited and the number was reused), so each
 * of `first` is pinned with a pidfd, the cgroup is listed again
 * (relist), and only the pids still listed are signalled: a pidfd taken
 * before the second listing, whose pid is in it, is a process of the
 * cgroup.  `except` and the caller are left alone. */
typedef int relist_fn(const void *ctx, pid_t **out, size_t *n,
		      struct error **err);

static int signal_pinned(const pid_t *first, size_t n, relist_fn *relist,
			 const void *ctx, pid_t except, int sig,
			 const char *path, struct error **err)
{
	_cleanup_free_ pid_t *again = NULL;
	_cleanup_free_ int *fds = malloc((n ? n : 1) * sizeof(int));
	pid_t self = getpid();
	bool no_pidfd = false;
	size_t m = 0;
	int rc;

	if (!fds)
		return error_set(err, ENOMEM, "cgroup: out of memory");
	for (size_t i = 0; i < n; i++) {
		fds[i] = first[i] == except || first[i] == self
			     ? -2
			     : pidfd_open_(first[i]);
		no_pidfd |= fds[i] == -1 && errno == ENOSYS;
	}
	rc = relist(ctx, &again, &m, err);
	if (rc == 0 && m)
		qsort(again, m, sizeof(*again), cmp_pid);
	for (size_t i = 0; i < n; i++) {
		bool still =
		    rc == 0 && m && fds[i] != -2 &&
		    bsearch(&first[i], again, m, sizeof(*again), cmp_pid);
		int r = 0;

		if (still && fds[i] >= 0)
			r = pidfd_send_signal_(fds[i], sig);
		else if (still && no_pidfd) /* old kernel: best we can do */
			r = kill(first[i], sig);
		if (r < 0 && errno != ESRCH && rc == 0)
			rc = error_errno(err, "cgroup %s: signal %d to pid %d",
					 path, sig, (int)first[i]);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	return rc;
}

static int relist_one(const void *h, pid_t **out, size_t *n, struct error **err)
{
	return read_pids(h, out, n, err);
}

/* SIGKILL what one hierarchy's cgroup.procs lists (see signal_pinned). */
static int kill_listed(const struct cg_hier *h, size_t *listed,
		       struct error **err)
{
	_cleanup_free_ pid_t *first = NULL;
	size_t n = 0;

	*listed = 0;
	if (h->fd < 0)
		return 0;
	if (read_pids(h, &first, &n, err) < 0)
		return -1;
	*listed = n;
	if (n == 0)
		return 0;
	return signal_pinned(first, n, relist_one, h, 0, SIGKILL, h->dir, err);
}

static bool file_has_line(const struct cg_hier *h, const char *file,
			  const char *line)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *text = NULL;
	size_t len = strlen(line);

	if (cg_read(h->fd, h->dir, file, &text, &e) < 0)
		return false;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n == len && strncmp(p, line, len) == 0)
			return true;
		p += n + (p[n] == '\n');
	}
	return false;
}

/* How a hierarchy freezes: v1's freezer, or cgroup2's cgroup.freeze.
 * `file` reads back `off` exactly when the cgroup is not frozen (v1 also
 * shows FREEZING); `state_file` has the line `frozen` once every process
 * stopped and `thawed` once all run again. */
struct freezer {
	const char *file, *on, *off, *state_file, *frozen, *thawed;
};
static const struct freezer v1_freezer = {.file = "freezer.state",
					  .on = "FROZEN",
					  .off = "THAWED",
					  .state_file = "freezer.state",
					  .frozen = "FROZEN",
					  .thawed = "THAWED"};
static const struct freezer v2_freezer = {.file = "cgroup.freeze",
					  .on = "1",
					  .off = "0",
					  .state_file = "cgroup.events",
					  .frozen = "frozen 1",
					  .thawed = "frozen 0"};

/* The freezer of the container's cgroup (the hierarchies open): v1's
 * freezer controller when the host has one, else cgroup2's cgroup.freeze
 * (5.2+); NULL when neither.  A hybrid host has both, and the v1 freezer
 * is the one used there, by pause as by kill: the v1 hierarchies are
 * where the container's processes are contained and limited (the
 * "unified" tree beside them is systemd's, which may move processes in
 * it on its own), runc and the host's other v1 tools read freezer.state,
 * and one freezer for pause and kill means a kill never thaws through one
 * file what a pause froze through the other.  Its cost, that a frozen v1
 * task does not die of SIGKILL until thawed, is paid by cgroup_kill(),
 * which thaws after killing. */
static const struct cg_hier *pick_freezer(const struct cg_hiers *h,
					  const struct freezer **how)
{
	for (size_t i = 0; i < h->n; i++) {
		if (h->v[i].fd >= 0 && strcmp(h->v[i].name, "freezer") == 0 &&
		    cg_exists(h->v[i].fd, v1_freezer.file)) {
			*how = &v1_freezer;
			return &h->v[i];
		}
	}
	for (size_t i = 0; i < h->n; i++) {
		if (h->v[i].fd >= 0 && h->v[i].cgroup2 &&
		    cg_exists(h->v[i].fd, v2_freezer.file)) {
			*how = &v2_freezer;
			return &h->v[i];
		}
	}
	return NULL;
}

/* Frozen or freezing: anything but `off` in the freezer's file. */
static bool is_frozen(const struct cg_hier *h, const struct freezer *how)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *text = NULL;

	if (cg_read(h->fd, h->dir, how->file, &text, &e) < 0)
		return false;
	text[strcspn(text, "\n")] = '\0';
	return strcmp(text, how->off) != 0;
}

/* Freeze the cgroup so nothing in it can fork or exit while it is being
 * killed; the hierarchy used, or NULL when none can (then the kill loop
 * alone has to catch up with forks). */
static const struct cg_hier *freeze(const struct cg_hiers *h,
				    const struct freezer **how)
{
	const struct cg_hier *use = pick_freezer(h, how);
	_cleanup_error_ struct error *e = NULL;

	if (!use ||
	    cg_write(use->fd, use->dir, (*how)->file, (*how)->on, &e) < 0)
		return NULL;
	for (int waited = 0; waited < CG_FREEZE_TIMEOUT_MS;
	     waited = cg_wait_more(waited))
		if (file_has_line(use, (*how)->state_file, (*how)->frozen))
			break;
	return use;
}

static int wait_empty(const struct cg_hiers *h, struct error **err)
{
	for (int waited = 0;; waited = cg_wait_more(waited)) {
		const char *busy = NULL;
		size_t left = 0;

		for (size_t i = 0; i < h->n; i++) {
			size_t n;

			if (kill_listed(&h->v[i], &n, err) < 0)
				return -1;
			if (n && !busy)
				busy = h->v[i].dir;
			left += n;
		}
		if (left == 0)
			return 0;
		if (waited >= CG_KILL_TIMEOUT_MS)
			return error_set(err, EBUSY,
					 "cgroup %s: %zu processes still "
					 "there %d s after SIGKILL",
					 busy, left, CG_KILL_TIMEOUT_MS / 1000);
	}
}

/* Every pid of every hierarchy's cgroup.procs, sorted, each once. */
static int list_all(const struct cg_hiers *h, pid_t **out, size_t *n,
		    struct error **err)
{
	_cleanup_free_ pid_t *all = NULL;
	size_t len = 0, kept = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < h->n; i++) {
		_cleanup_free_ pid_t *v = NULL;
		size_t m = 0;
		pid_t *grown;

		if (h->v[i].fd < 0)
			continue;
		if (read_pids(&h->v[i], &v, &m, err) < 0)
			return -1;
		if (m == 0)
			continue;
		grown = realloc(all, (len + m) * sizeof(*all));
		if (!grown)
			return error_set(err, ENOMEM, "cgroup: out of memory");
		all = grown;
		memcpy(all + len, v, m * sizeof(*v));
		len += m;
	}
	if (len)
		qsort(all, len, sizeof(*all), cmp_pid);
	for (size_t i = 0; i < len; i++)
		if (kept == 0 || all[kept - 1] != all[i])
			all[kept++] = all[i];
	*out = steal_pointer(&all);
	*n = kept;
	return 0;
}

int cgroup_kill(const struct cgroup *cg, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct freezer *how = NULL;
	const struct cg_hier *frozen;
	_cleanup_error_ struct error *none = NULL;
	_cleanup_free_ pid_t *listed = NULL;
	bool kill_file = false;
	size_t nlisted;
	int rc = 0;

	if (cg_hiers_open(cg, &h, err) < 0)
		return -1;
	/* The cgroup of a stopped container is empty as a rule, and a cgroup
	 * without a process gains one only by a move from outside it: then
	 * there is nothing to freeze, signal or wait for.  (list_all skips a
	 * hierarchy it cannot open, which hides no process: each is in every
	 * hierarchy the cgroup has.) */
	if (list_all(&h, &listed, &nlisted, &none) == 0 && nlisted == 0)
		return 0;
	/* cgroup.kill (5.14) kills the whole cgroup at once, forks and all;
	 * a hybrid host has it on its "unified" tree too, where every
	 * process of the container is as well. */
	for (size_t i = 0; i < h.n && !kill_file; i++) {
		_cleanup_error_ struct error *e = NULL;

		kill_file = h.v[i].fd >= 0 && h.v[i].cgroup2 &&
			    cg_exists(h.v[i].fd, "cgroup.kill") &&
			    cg_write(h.v[i].fd, h.v[i].dir, "cgroup.kill", "1",
				     &e) == 0;
	}
	frozen = kill_file ? NULL : freeze(&h, &how);
	for (size_t i = 0; i < h.n && rc == 0; i++) {
		size_t n;

		rc = kill_listed(&h.v[i], &n, err);
	}
	/* A paused container: the processes cgroup.kill signalled die only
	 * once thawed when the freezer is v1's. */
	if (kill_file && (frozen = pick_freezer(&h, &how)) &&
	    !is_frozen(frozen, how))
		frozen = NULL;
	/* v1 freezes fatal signals too: the killed die once thawed. */
	if (frozen &&
	    cg_write(frozen->fd, frozen->dir, how->file, how->off, err) < 0)
		rc = -1;
	return rc < 0 ? -1 : wait_empty(&h, err);
}

/* ---- pause, resume, listing, signalling --------------------------------- */

/* Wait until the freezer's state file says `line`; v1 may sit in
 * FREEZING while a task is in an uninterruptible sleep, so the request
 * is repeated, as runc does. */
static bool wait_freezer(const struct cg_hier *use, const struct freezer *how,
			 const char *value, const char *line)
{
	for (int waited = 0; waited < CG_PAUSE_TIMEOUT_MS; waited += 10) {
		_cleanup_error_ struct error *e = NULL;

		if (file_has_line(use, how->state_file, line))
			return true;
		if (waited % 100 == 90)
			cg_write(use->fd, use->dir, how->file, value, &e);
		cg_sleep_ms(10);
	}
	return file_has_line(use, how->state_file, line);
}

int cgroup_freeze(const struct cgroup *cg, bool frozen, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct freezer *how = NULL;
	const struct cg_hier *use;
	const char *value;

	if (cg_hiers_open(cg, &h, err) < 0)
		return -1;
	use = pick_freezer(&h, &how);
	if (!use)
		return error_set(err, EOPNOTSUPP,
				 "cgroup %s: no freezer (neither a v1 freezer "
				 "hierarchy nor cgroup.freeze)",
				 cg->path);
	value = frozen ? how->on : how->off;
	if (cg_write(use->fd, use->dir, how->file, value, err) < 0)
		return -1;
	if (wait_freezer(use, how, value, frozen ? how->frozen : how->thawed))
		return 0;
	/* Half frozen is neither paused nor running: back to running. */
	if (frozen)
		cg_write(use->fd, use->dir, how->file, how->off, NULL);
	return error_set(err, ETIMEDOUT, "cgroup %s: %s: not %s after %d s",
			 use->dir, how->file, frozen ? "frozen" : "thawed",
			 CG_PAUSE_TIMEOUT_MS / 1000);
}

int cgroup_is_frozen(const struct cgroup *cg, bool *out, struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	const struct freezer *how = NULL;
	const struct cg_hier *use;

	*out = false;
	if (cg_hiers_open(cg, &h, err) < 0)
		return -1;
	use = pick_freezer(&h, &how);
	*out = use && is_frozen(use, how);
	return 0;
}

int cgroup_pids(const struct cgroup *cg, pid_t **out, size_t *n,
		struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};

	*out = NULL;
	*n = 0;
	if (cg_hiers_open(cg, &h, err) < 0)
		return -1;
	return list_all(&h, out, n, err);
}

static int relist_all(const void *h, pid_t **out, size_t *n, struct error **err)
{
	return list_all(h, out, n, err);
}

/* Over every hierarchy at once, so that a process in several is
 * signalled once (see signal_pinned). */
int cgroup_signal(const struct cgroup *cg, int sig, pid_t except,
		  struct error **err)
{
	_cleanup_(cg_hiers_clear) struct cg_hiers h = {0};
	_cleanup_free_ pid_t *first = NULL;
	size_t n = 0;

	if (cg_hiers_open(cg, &h, err) < 0 || list_all(&h, &first, &n, err) < 0)
		return -1;
	if (n == 0)
		return 0;
	return signal_pinned(first, n, relist_all, &h, except, sig, cg->path,
			     err);
}
