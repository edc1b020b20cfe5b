/* Internals of the cgroup module, shared by cgroup.c (the interface and
 * what both layouts share), cgroup_v1.c, cgroup_v2.c and the unit tests.
 *
 * A hierarchy is one cgroup mount corral puts the container in: on v2 the
 * one tree, on v1 each controller's mount plus name=systemd and a cgroup2
 * beside ("unified").  The container's directory in it is ROOT/PATH.
 *
 * Limits are written through a table per layout (struct cg_limit).  Each
 * row is one field of config.json's linux.resources; its function calls
 * cg_put() once per file.  The same rows run twice: first in CG_COLLECT
 * mode, which writes nothing but validates the request and records the
 * controllers it needs (so v2 can enable them in the parents before the
 * leaf exists), then in CG_WRITE mode.  The controller of a file is its
 * name up to the first dot ("memory.max" -> memory, "blkio.weight" ->
 * blkio), which on v1 is also the hierarchy's directory name.
 */
#ifndef CORRAL_CGROUP_INTERNAL_H
#define CORRAL_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "cgroup_path.h"

#define CG_KILL_TIMEOUT_MS 5000 /* processes must be gone by then */
#define CG_FREEZE_TIMEOUT_MS 1000
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

/* The hierarchies of a layout below mount_root with `path` (validated)
 * appended; directories are not opened.  v1 lists the known hierarchies
 * present (a directory holding cgroup.procs), co-mounted ones once. */
int cg_hiers_list(enum cgroup_layout layout, const char *mount_root,
		  const char *path, struct cg_hiers *out, struct error **err);
int cg_v1_hiers_list(const char *mount_root, const char *path,
		     struct cg_hiers *out, struct error **err);
void cg_hiers_clear(struct cg_hiers *h);

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

/* ---- limit writers ------------------------------------------------------ */

enum cg_mode { CG_COLLECT, CG_WRITE };

/* The controllers corral can write, as bits of a mask. */
enum cg_controller {
	CG_CPUSET,
	CG_CPU,
	CG_IO,
	CG_MEMORY,
	CG_HUGETLB,
	CG_PIDS,
	CG_RDMA,
	CG_MISC,
	CG_BLKIO, /* v1 only from here */
	CG_DEVICES,
	CG_N_CONTROLLERS,
};
extern const char *const cg_controller_names[CG_N_CONTROLLERS];
#define CG_V2_CONTROLLERS ((1u << CG_BLKIO) - 1)

struct cg_limit;

struct cg_writer {
	enum cg_mode mode;
	const struct cg_limit *row; /* the row being run */
	/* CG_WRITE: the directory to write a controller's files in, or -1
	 * with *err set saying why it is not available. */
	int (*target)(struct cg_writer *w, enum cg_controller c,
		      const char **dir, struct error **err);
	void *ctx;
	unsigned wanted;	 /* CG_COLLECT: controllers the rows write */
	struct cg_names written; /* files put so far (both modes) */
	bool invalid; /* the last error is in the request, not the host */
};

/* One field of linux.resources and how it is written; write() returns 0
 * when done (or nothing was asked), -1 with *err set otherwise. */
struct cg_limit {
	const char *name; /* ".linux.resources.memory.limit", for *skipped */
	int (*write)(struct cg_writer *w, const struct spec_resources *r,
		     struct error **err);
};

extern const struct cg_limit cg_v1_limits[];
extern const size_t cg_v1_n_limits;
extern const struct cg_limit cg_v2_limits[];
extern const size_t cg_v2_n_limits;

/* Put a printf-formatted value in FILE. */
int cg_put(struct cg_writer *w, const char *file, struct error **err,
	   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Put v, or `unlimited` when v < 0. */
int cg_put_num(struct cg_writer *w, const char *file, int64_t v,
	       const char *unlimited, struct error **err);
/* Whether FILE exists (always true in CG_COLLECT mode, which records
 * the controller; on absence in CG_WRITE mode, false without error). */
bool cg_has(struct cg_writer *w, const char *file);
/* The request is wrong: an error whatever best_effort says. */
int cg_invalid(struct cg_writer *w, struct error **err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The host cannot enforce what was asked (skipped when best_effort). */
int cg_cannot(struct cg_writer *w, struct error **err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Run every row.  A row that fails is an error; with best_effort, one
 * that fails for the host's reason is added to `skipped` instead. */
int cg_write_limits(struct cg_writer *w, const struct cg_limit *rows, size_t n,
		    const struct spec_resources *r, bool best_effort,
		    struct cg_names *skipped, struct error **err);

/* Values both layouts check the same way. */
struct cg_memory {
	int64_t limit, swap, reservation; /* 0: not asked; -1: unlimited */
};
int cg_memory_values(const struct spec_resources *r, struct cg_memory *out,
		     struct cg_writer *w, struct error **err);
bool cg_page_size_ok(const char *s); /* "2MB", "1GB", "64KB" */

/* Rows both layouts write the same way (same file, same format), and
 * rows for fields no layout can enforce. */
int cg_row_pids(struct cg_writer *w, const struct spec_resources *r,
		struct error **err);
int cg_row_cpus(struct cg_writer *w, const struct spec_resources *r,
		struct error **err);
int cg_row_mems(struct cg_writer *w, const struct spec_resources *r,
		struct error **err);
int cg_row_cpu_idle(struct cg_writer *w, const struct spec_resources *r,
		    struct error **err);
int cg_row_kernel_memory(struct cg_writer *w, const struct spec_resources *r,
			 struct error **err);
int cg_row_leaf_weight(struct cg_writer *w, const struct spec_resources *r,
		       struct error **err);

/* ---- device rules on v2 (cgroup_devices.c) ------------------------------ */

struct bpf_insn;

/* The BPF_PROG_TYPE_CGROUP_DEVICE program enforcing `rules` as the v1
 * devices controller does: in order, the last matching rule decides,
 * default deny.  A wrong rule is an EINVAL error naming it.  *out is
 * malloc'd, *len instructions long. */
int cg_devices_program(const struct spec_device_rule *rules, size_t n,
		       struct bpf_insn **out, size_t *len, struct error **err);

/* Load the program and attach it (BPF_F_ALLOW_MULTI) to the cgroup2
 * directory dirfd, named dir in errors. */
int cg_devices_attach(int dirfd, const char *dir, const struct bpf_insn *prog,
		      size_t len, struct error **err);

/* ---- the layouts -------------------------------------------------------- */

int cg_v1_prepare(const char *mount_root, const char *path,
		  const struct spec_resources *r, bool best_effort,
		  struct cg_names *skipped, struct error **err);
int cg_v2_prepare(const char *mount_root, const char *path,
		  const struct spec_resources *r, bool best_effort,
		  struct cg_names *skipped, struct error **err);

/* ---- test seam ---------------------------------------------------------- */

/* A fake hierarchy in a temporary directory has none of the files the
 * kernel makes in a new cgroup, and rmdir(2) there needs an empty
 * directory.  The unit tests set this to stand in for the kernel (and to
 * see every write in order); it is NULL in corral. */
struct cg_fake_kernel {
	int (*populate)(int parent_fd, int fd, const char *dir);
	void (*depopulate)(const char *dir);
	void (*wrote)(const char *dir, const char *file, const char *value);
	/* stands in for bpf(2): a fake tree is no cgroup to attach to */
	long (*bpf)(int cmd, void *attr, unsigned size);
};
extern const struct cg_fake_kernel *cg_fake_kernel;

#endif
