/* How a backend writes linux.resources (cgroup_limits.c).
 *
 * Limits are written through a table per backend (struct cg_limit).  Each
 * row is one field of config.json's linux.resources; its function calls
 * cg_put() once per file.  The same rows run twice: first in CG_COLLECT
 * mode, which writes nothing but validates the request and records the
 * controllers it needs (so v2 can enable them in the parents before the
 * leaf exists), then in CG_WRITE mode.  The controller of a file is its
 * name up to the first dot ("memory.max" -> memory, "blkio.weight" ->
 * blkio), which on v1 is also the hierarchy's directory name.  `update`
 * runs the same tables on a live cgroup (cgroup_update.c). */
#ifndef CORRAL_CGROUP_LIMITS_H
#define CORRAL_CGROUP_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup_fs.h"
#include "spec.h"

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
	CG_NET_CLS,
	CG_NET_PRIO,
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

#endif
