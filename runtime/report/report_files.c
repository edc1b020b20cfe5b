/* The files a container changed: a walk of the scratch overlay's upper
 * layer, attached by create at ROOT/ID/scratch (runtime/fs/scratch.h).
 *
 * Every name in that tree was written by the workload, and corral walks it
 * as root, so the walk is by descriptor only: each directory is opened
 * with openat(O_DIRECTORY | O_NOFOLLOW) from its parent's descriptor, each
 * entry is looked at with fstatat(AT_SYMLINK_NOFOLLOW), nothing but a
 * directory is ever opened (a fifo or a device cannot block or act), and a
 * symbolic link is reported, never followed.  The tmpfs is corral's own
 * mount, attached read-only and nosymfollow in a 0700 directory of the
 * state root, so no mount of anyone else's can sit inside it; the walk is
 * bounded in depth, entries and path length.  The lower layer (the bundle
 * rootfs) is looked at the same way, only to tell "created" from
 * "modified". */
#include "report_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fsutil.h"
#include "hostpath.h"
#include "scratch.h"
#include "spec.h"
#include "util.h"

#define WALK_DEPTH 64
#define WALK_ENTRIES 100000
#define WALK_PATH 4096
/* The kernel stamps files from a clock that lags the one the supervisor
 * reads for "start" by up to a tick (4 ms at HZ=250). */
#define BIND_SLACK_NS 10000000LL

struct walk;
typedef int walk_entry_fn(struct walk *w, int up, int lower, const char *name,
			  const struct stat *st, size_t len, int depth,
			  struct error **err);

struct walk {
	walk_entry_fn *entry;
	struct report *r;
	const struct report_ready *ready; /* upper: what READY held */
	struct report_ready *collect;	  /* READY: the record being made */
	int64_t from_ns, to_ns;		  /* a bind: the run's window */
	dev_t bind_dev;			  /* a bind: its filesystem */
	uint64_t seen;
	char path[WALK_PATH + NAME_MAX + 2];
};

static bool exists_at(int lower, const char *name, bool *dir)
{
	struct stat st;

	if (lower < 0 || fstatat(lower, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	*dir = S_ISDIR(st.st_mode);
	return true;
}

/* An opaque directory hides everything the lower layer had there. */
static bool opaque(int fd)
{
	char v[2];

	return fgetxattr(fd, "trusted.overlay.opaque", v, sizeof(v)) == 1 &&
	       v[0] == 'y';
}

static struct report_ready_entry ready_of(const struct stat *st, char *path)
{
	return (struct report_ready_entry){
	    .ino = st->st_ino,
	    .dir = S_ISDIR(st->st_mode),
	    .size = (uint64_t)st->st_size,
	    .mtime_sec = st->st_mtim.tv_sec,
	    .mtime_nsec = st->st_mtim.tv_nsec,
	    .ctime_sec = st->st_ctim.tv_sec,
	    .ctime_nsec = st->st_ctim.tv_nsec,
	    .path = path,
	};
}

static int walk_dir(struct walk *w, int up, int lower, size_t len, int depth,
		    struct error **err);

/* A file (not a directory, not a whiteout) at w->path.  One of several
 * names of its inode is counted once, whichever name comes first: a
 * workload's hard links must not make the report's bytes and count its
 * own (report_add_linked). */
static int add_file(struct walk *w, const struct stat *st, enum report_change c,
		    bool in_bind, struct error **err)
{
	if (st->st_nlink > 1)
		return report_add_linked(
		    w->r, w->path, c, (uint64_t)st->st_size, in_bind,
		    (uint64_t)st->st_dev, (uint64_t)st->st_ino, err);
	if (in_bind)
		return report_add_bind_file(w->r, w->path, c, false,
					    (uint64_t)st->st_size, err);
	return report_add_file(w->r, w->path, c, false, (uint64_t)st->st_size,
			       err);
}

/* A directory entry's descent, from its parent's descriptor. */
static int descend(struct walk *w, int up, int lower, const char *name,
		   size_t len, int depth, struct error **err)
{
	_cleanup_close_ int sub = -1;

	sub = openat(up, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return 0; /* gone meanwhile, or not ours to read */
	return walk_dir(w, sub, lower, len, depth + 1, err);
}

/* One entry of the upper layer at w->path (its parent's up and lower).
 * What READY held is corral's and unlisted; a directory of it is walked
 * all the same, for what the workload made inside. */
static int upper_entry(struct walk *w, int up, int lower, const char *name,
		       const struct stat *st, size_t len, int depth,
		       struct error **err)
{
	struct report_ready_entry e = ready_of(st, w->path);
	bool in_lower, lower_dir = false, corrals;
	_cleanup_close_ int sub = -1, sublower = -1;

	corrals = w->ready && report_ready_holds(w->ready, &e);
	in_lower = exists_at(lower, name, &lower_dir);
	if (S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0))
		return corrals ? 0
			       : report_add_file(w->r, w->path, REPORT_DELETED,
						 lower_dir, 0, err);
	if (!S_ISDIR(st->st_mode))
		return corrals ? 0
			       : add_file(w, st,
					  in_lower ? REPORT_MODIFIED
						   : REPORT_CREATED,
					  false, err);
	sub = openat(up, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return 0;
	if (in_lower && lower_dir && opaque(sub)) {
		if (!corrals && report_add_file(w->r, w->path, REPORT_DELETED,
						true, 0, err) < 0)
			return -1;
		in_lower = false;
	}
	if (!in_lower || !lower_dir) {
		if (!corrals && report_add_file(w->r, w->path, REPORT_CREATED,
						true, 0, err) < 0)
			return -1;
	} else {
		sublower = openat(
		    lower, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return walk_dir(w, sub, sublower, len, depth + 1, err);
}

/* One entry of the upper layer at READY, recorded. */
static int ready_entry(struct walk *w, int up, int lower, const char *name,
		       const struct stat *st, size_t len, int depth,
		       struct error **err)
{
	struct report_ready *rd = w->collect;
	char *path;

	if (rd->n == REPORT_READY_MAX) {
		w->r->files_truncated = true; /* the rest will be listed */
		return 0;
	}
	if (!(path = report_escape(w->path, len)))
		return error_set(err, ENOMEM, "out of memory");
	rd->v[rd->n++] = ready_of(st, path);
	return S_ISDIR(st->st_mode) ? descend(w, up, -1, name, len, depth, err)
				    : 0;
}

static int64_t ns_of(struct timespec t)
{
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* One entry of a writable bind: listed when its data or inode changed
 * within the run; created when it was born within it (statx's birth
 * time, where the filesystem keeps one).  A directory is listed only when
 * born within the run (its times change with every entry made in it),
 * and walked only on the bind's own filesystem: a mount below the source
 * is not the workload's doing, and opening an automount point would
 * mount it. */
static int bind_entry(struct walk *w, int up, int lower, const char *name,
		      const struct stat *st, size_t len, int depth,
		      struct error **err)
{
	struct statx sx;
	int64_t m = ns_of(st->st_mtim), c = ns_of(st->st_ctim);
	bool born = false, changed;

	if (statx(up, name,
		  AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC |
		      (*name ? 0 : AT_EMPTY_PATH),
		  STATX_BTIME, &sx) == 0 &&
	    (sx.stx_mask & STATX_BTIME)) {
		int64_t b =
		    sx.stx_btime.tv_sec * 1000000000LL + sx.stx_btime.tv_nsec;

		born = b >= w->from_ns && b <= w->to_ns;
	}
	changed = (m >= w->from_ns && m <= w->to_ns) ||
		  (c >= w->from_ns && c <= w->to_ns);
	if (S_ISDIR(st->st_mode)) {
		if (born && report_add_bind_file(w->r, w->path, REPORT_CREATED,
						 true, 0, err) < 0)
			return -1;
		if (st->st_dev != w->bind_dev)
			return 0;
		return descend(w, up, -1, name, len, depth, err);
	}
	if (!changed && !born)
		return 0;
	return add_file(w, st, born ? REPORT_CREATED : REPORT_MODIFIED, true,
			err);
}

/* The entries of directory `up` (w->path[0..len) names it). */
static int walk_dir(struct walk *w, int up, int lower, size_t len, int depth,
		    struct error **err)
{
	int fd;
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > WALK_DEPTH) {
		w->r->files_truncated = true;
		return 0;
	}
	fd = openat(up, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return error_errno(err, "report: read %s", "a directory");
	}
	while (r == 0 && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++w->seen > WALK_ENTRIES || len + 1 + n > WALK_PATH) {
			w->r->files_truncated = true;
			if (w->seen > WALK_ENTRIES)
				break;
			continue;
		}
		if (fstatat(up, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone meanwhile: the container still runs */
		w->path[len] = '/';
		memcpy(w->path + len + 1, e->d_name, n + 1);
		r = w->entry(w, up, lower, e->d_name, &st, len + 1 + n, depth,
			     err);
		w->path[len] = '\0';
	}
	closedir(d);
	return r;
}

/* The scratch tmpfs's use and size, from statfs of the mount itself. */
static void scratch_use(int scratch, struct report *r)
{
	struct statfs sf;

	if (fstatfs(scratch, &sf) < 0)
		return;
	r->scratch_size = (struct report_counter){
	    true, (uint64_t)sf.f_blocks * (uint64_t)sf.f_bsize};
	r->scratch_used = (struct report_counter){
	    true, (uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize};
}

/* The READY record, when create made one (a container made before it
 * had none: then every entry is listed). */
static int read_ready(int dirfd, struct report_ready *rd, struct error **err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len;

	fd = openat(dirfd, READY_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || read_fd(fd, READY_FILE, &buf, &len, NULL) < 0)
		return 0;
	return report_ready_parse(buf, len, rd, err);
}

static int open_upper(int dirfd, int *scratch, struct error **err)
{
	int upper;

	*scratch = openat(dirfd, SCRATCH_DIR,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*scratch < 0)
		return -1;
	upper = openat(*scratch, "upper",
		       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (upper < 0)
		error_errno(err, "scratch: open the upper layer");
	return upper;
}

int report_files_mark_ready(int dirfd, struct error **err)
{
	_cleanup_close_ int scratch = -1, upper = -1, fd = -1;
	struct report scratch_report = {0}; /* only its truncation flag */
	struct report_ready rd = {0};
	struct walk w = {
	    .entry = ready_entry, .r = &scratch_report, .collect = &rd};
	int r = -1;

	upper = open_upper(dirfd, &scratch, err);
	if (scratch < 0) /* none attached (a permissive policy) */
		return 0;
	if (upper < 0)
		return -1;
	rd.v = calloc(REPORT_READY_MAX, sizeof(*rd.v));
	if (!rd.v) {
		error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (walk_dir(&w, upper, -1, 0, 0, err) < 0)
		goto out;
	fd = openat(dirfd, READY_FILE,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		error_errno(err, "make " READY_FILE);
		goto out;
	}
	for (size_t i = 0; i < rd.n; i++) {
		_cleanup_free_ char *line = report_ready_line(&rd.v[i]);

		if (!line) {
			error_set(err, ENOMEM, "out of memory");
			goto out;
		}
		if (write_all(fd, line, strlen(line)) < 0) {
			error_errno(err, "write " READY_FILE);
			goto out;
		}
	}
	r = 0;
out:
	report_ready_release(&rd);
	report_release(&scratch_report);
	return r;
}

int report_files_read(int dirfd, const char *rootfs, struct report *r,
		      struct error **err)
{
	_cleanup_close_ int scratch = -1, upper = -1, lower = -1;
	struct report_ready rd = {0};
	struct walk w = {.entry = upper_entry, .r = r, .ready = &rd};
	int ret;

	upper = open_upper(dirfd, &scratch, err);
	if (scratch < 0) {
		r->files_why = "not recorded: the scratch is kept for the "
			       "report only when one was asked for (--report, "
			       "the policy's report.dir), never under a "
			       "permissive policy";
		return 0;
	}
	if (upper < 0)
		return -1;
	scratch_use(scratch, r);
	/* The rootfs only tells created from modified: without it every
	 * file reads as created. */
	if (rootfs)
		lower =
		    hostpath_open(rootfs, O_PATH | O_DIRECTORY, "rootfs", NULL);
	if (read_ready(dirfd, &rd, err) < 0)
		return -1;
	r->files_known = true;
	ret = walk_dir(&w, upper, lower, 0, 0, err);
	report_ready_release(&rd);
	if (ret < 0)
		return -1;
	report_sort_files(r);
	return 0;
}

/* One writable bind: its source opened as create opened it (no link on
 * the way) and walked by descriptor like the upper layer. */
static int walk_bind(struct walk *w, const struct spec_mount *m,
		     struct error **err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len = strlen(m->destination);

	if (!m->source || m->source[0] != '/')
		return report_add_bind(w->r, m->destination,
				       "not read: no absolute source", err);
	fd = hostpath_open(m->source, O_PATH | O_NOFOLLOW, "bind", NULL);
	if (fd < 0 || fstat(fd, &st) < 0)
		return report_add_bind(w->r, m->destination,
				       "not read: its source cannot be opened "
				       "without following a link",
				       err);
	if (len > WALK_PATH)
		return report_add_bind(w->r, m->destination,
				       "not read: too long a path", err);
	if (report_add_bind(w->r, m->destination, NULL, err) < 0)
		return -1;
	w->bind_dev = st.st_dev;
	memcpy(w->path, m->destination, len + 1);
	while (len > 1 && w->path[len - 1] == '/')
		w->path[--len] = '\0';
	if (!S_ISDIR(st.st_mode)) /* a file bind: itself, by the same rule */
		return bind_entry(w, fd, -1, "", &st, len, 0, err);
	return walk_dir(w, fd, -1, len == 1 ? 0 : len, 0, err);
}

int report_files_binds(const struct spec *config, struct report *r,
		       struct error **err)
{
	struct walk w = {.entry = bind_entry, .r = r};

	if (!r->files_known || !r->started.known)
		return 0;
	w.from_ns =
	    r->started.sec * 1000000000LL + r->started.nsec - BIND_SLACK_NS;
	w.to_ns = r->ended.known ? r->ended.sec * 1000000000LL + r->ended.nsec +
				       BIND_SLACK_NS
				 : INT64_MAX;
	for (size_t i = 0; i < config->n_mounts; i++)
		if (report_rw_bind(&config->mounts[i]) &&
		    walk_bind(&w, &config->mounts[i], err) < 0)
			return -1;
	report_sort_files(r);
	return 0;
}
