/* The files a container changed: a walk of the scratch overlay's upper
 * layer, attached by create at ROOT/ID/scratch (runtime/scratch.h).
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

#include "hostpath.h"
#include "scratch.h"
#include "util.h"

#define WALK_DEPTH 64
#define WALK_ENTRIES 100000
#define WALK_PATH 4096

struct walk {
	struct report *r;
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

static int walk_dir(struct walk *w, int up, int lower, size_t len, int depth,
		    struct error **err);

/* One entry of the upper layer at w->path (its parent's up and lower). */
static int walk_entry(struct walk *w, int up, int lower, const char *name,
		      size_t len, int depth, struct error **err)
{
	struct stat st;
	bool in_lower, lower_dir = false;
	_cleanup_close_ int sub = -1, sublower = -1;

	if (fstatat(up, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0; /* gone meanwhile: the container still runs */
	in_lower = exists_at(lower, name, &lower_dir);
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0))
		return report_add_file(w->r, w->path, REPORT_DELETED, lower_dir,
				       0, err);
	if (!S_ISDIR(st.st_mode))
		return report_add_file(
		    w->r, w->path, in_lower ? REPORT_MODIFIED : REPORT_CREATED,
		    false, (uint64_t)st.st_size, err);
	sub = openat(up, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return 0;
	if (in_lower && lower_dir && opaque(sub)) {
		if (report_add_file(w->r, w->path, REPORT_DELETED, true, 0,
				    err) < 0)
			return -1;
		in_lower = false;
	}
	if (!in_lower || !lower_dir) {
		if (report_add_file(w->r, w->path, REPORT_CREATED, true, 0,
				    err) < 0)
			return -1;
	} else {
		sublower = openat(
		    lower, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return walk_dir(w, sub, sublower, len, depth + 1, err);
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
		return error_errno(err, "scratch: read %s", "a directory");
	}
	while (r == 0 && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++w->seen > WALK_ENTRIES || len + 1 + n > WALK_PATH) {
			w->r->files_truncated = true;
			if (w->seen > WALK_ENTRIES)
				break;
			continue;
		}
		w->path[len] = '/';
		memcpy(w->path + len + 1, e->d_name, n + 1);
		r = walk_entry(w, up, lower, e->d_name, len + 1 + n, depth,
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

int report_files_read(int dirfd, const char *rootfs, struct report *r,
		      struct error **err)
{
	_cleanup_close_ int scratch = -1, upper = -1, lower = -1;
	struct walk w = {.r = r};

	scratch = openat(dirfd, SCRATCH_DIR,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (scratch < 0) {
		r->files_why = "not recorded: the scratch is kept for the "
			       "report only when one was asked for (--report, "
			       "the policy's report.dir), never under a "
			       "permissive policy";
		return 0;
	}
	scratch_use(scratch, r);
	upper = openat(scratch, "upper",
		       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (upper < 0)
		return error_errno(err, "scratch: open the upper layer");
	/* The rootfs only tells created from modified: without it every
	 * file reads as created. */
	if (rootfs)
		lower =
		    hostpath_open(rootfs, O_PATH | O_DIRECTORY, "rootfs", NULL);
	r->files_known = true;
	if (walk_dir(&w, upper, lower, 0, 0, err) < 0)
		return -1;
	report_sort_files(r);
	return 0;
}
