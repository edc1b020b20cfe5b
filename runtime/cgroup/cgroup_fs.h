/* The file system side of the cgroup module (cgroup_fs.c): one cgroup's
 * files, the hierarchies a cgroup is in, making and removing directories.
 * Shared by every backend; reaches one only through cg->backend
 * (cg_hiers_open).
 *
 * A hierarchy is one cgroup mount corral puts the container in: on v2 the
 * one tree, on v1 each controller's mount plus name=systemd and a cgroup2
 * beside ("unified").  The container's directory in it is ROOT/PATH. */
#ifndef CORRAL_CGROUP_FS_H
#define CORRAL_CGROUP_FS_H

#include <stdbool.h>
#include <stddef.h>

#include "cgroup.h"
#include "cgroup_path.h"

#define CG_RMDIR_TIMEOUT_MS 1000 /* a dying cgroup stays busy briefly */

/* ---- small lists ------------------------------------------------------ */

/* A growable NULL-terminated list of strings (v may be NULL when empty). */
struct cg_names {
	char **v;
	size_t n;
};

int cg_names_add(struct cg_names *l, const char *s);
bool cg_names_has(const struct cg_names *l, const char *s);
void cg_names_clear(struct cg_names *l);

/* True when `word` is one of the space-separated words of `list` (a
 * cgroup.controllers or cgroup.subtree_control line). */
bool cg_word_in(const char *list, const char *word);

/* ---- files of one cgroup directory ------------------------------------ */

/* Write value to DIR/FILE (dirfd refers to DIR) in one write(2), as the
 * kernel wants; errors read "cgroup DIR: write FILE: CAUSE". */
int cg_write(int dirfd, const char *dir, const char *file, const char *value,
	     struct error **err);
/* The same through one open of the path DIR/FILE, for a process that
 * needs nothing else of DIR. */
int cg_write_in(const char *dir, const char *file, const char *value,
		struct error **err);
int cg_read(int dirfd, const char *dir, const char *file, char **out,
	    struct error **err);
bool cg_exists(int dirfd, const char *file);

/* ---- hierarchies -------------------------------------------------------- */

struct cg_hier {
	const char *name; /* "memory", "systemd", "unified"; "" on v2 */
	bool cgroup2;	  /* v2 core files: cgroup.kill, cgroup.freeze */
	char *root;	  /* the hierarchy's root: "/sys/fs/cgroup/memory" */
	char *dir;	  /* ROOT/PATH; NULL when listed without a path */
	int fd;		  /* dir, when open; else -1 */
};

struct cg_hiers {
	struct cg_hier *v;
	size_t n;
};

/* The hierarchies cg is in: its backend's list, and in a delegated layout
 * only those with a base, each root then ROOT/BASE (cgroup.h); with_path,
 * each dir is ROOT/PATH.  The one place the bases are applied. */
int cg_hierarchies(const struct cgroup *cg, bool with_path,
		   struct cg_hiers *out, struct error **err);

/* The directory of hierarchy `name` that holds cg's cgroup, whether the
 * backend lists it or not (a co-mounted controller's link, "cpuacct"):
 * MOUNT_ROOT/NAME, and /BASE in a delegated layout.  NULL when out of
 * memory or, in a delegated layout, when it has no base there. */
char *cg_hier_root(const struct cgroup *cg, const char *name);

/* The hierarchies of cg (cg_hierarchies) with its path appended, each
 * opened (O_NOFOLLOW) when its directory exists. */
int cg_hiers_open(const struct cgroup *cg, struct cg_hiers *out,
		  struct error **err);
void cg_hiers_clear(struct cg_hiers *h);

/* ---- making and removing directories ----------------------------------- */

/* Make ROOT/PATH one component at a time below hier_root (the root must
 * exist; the leaf must not: an existing leaf may be another container's).
 * Before making a child in a directory, descend(ctx, fd, dir) runs on it;
 * after making a directory, made(ctx, parent_fd, fd, dir) runs on it.
 * Every directory made is appended to `made` (for cg_rmdir_all), and the
 * leaf is returned open in *leaf_fd. */
struct cg_walk {
	int (*descend)(void *ctx, int fd, const char *dir, struct error **err);
	int (*made)(void *ctx, int parent_fd, const char *parent, int fd,
		    const char *dir, struct error **err);
	void *ctx;
	bool leaf_exists; /* made by systemd: opened, not made */
};
int cg_make_path(const char *hier_root, const char *path,
		 const struct cg_walk *walk, struct cg_names *made,
		 int *leaf_fd, struct error **err);

/* Remove the directories of `made`, last first (the rollback of a failed
 * cgroup_prepare); failures are ignored: the cause is already reported. */
void cg_rmdir_all(struct cg_names *made);

/* rmdir(2) a cgroup, retrying while it is busy for up to timeout_ms; a
 * missing directory counts as removed.  -1 with errno on failure. */
int cg_rmdir(const char *dir, int timeout_ms);

void cg_sleep_ms(long ms);

/* Sleep the next step of a wait that has lasted `waited` ms and return
 * the new total: a cgroup whose last process is exiting (an init and its
 * egress helper end a moment apart) is busy for well under a
 * millisecond, so the steps start at 1 ms and double up to 10. */
int cg_wait_more(int waited);

/* ---- what the kernel does beside the files (cgroup_kernel.c) ----------- */

/* A new cgroup directory comes with the kernel's files; a cgroup's rmdir
 * takes them along; a write may change other files (cgroup.events after
 * cgroup.freeze); bpf(2) attaches device programs.  In corral these are
 * the kernel's own doing (the first three do nothing, the last is the
 * system call).  The unit tests link tests/unit/cgroup/cgroup_fake.c instead of
 * cgroup_kernel.c: a fake tree in a temporary directory stands in for
 * cgroupfs, and sees every write in order. */
int cg_kernel_made(int parent_fd, int fd, const char *dir);
void cg_kernel_removing(const char *dir);
void cg_kernel_wrote(const char *dir, const char *file, const char *value);
long cg_kernel_bpf(int cmd, void *attr, unsigned size);

#endif
