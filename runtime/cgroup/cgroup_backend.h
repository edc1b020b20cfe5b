/* A cgroup backend: what one cgroup layout does its own way, as a struct
 * of operations, as crun's cgroup managers are.  One instance per layout:
 * cgroup_v1_backend (cgroup_v1.c: a mount per controller, and hybrid
 * hosts) and cgroup_v2_backend (cgroup_v2.c: the unified tree).
 * cgroup_detect() (cgroup.c) is the one place that picks one; everything
 * else calls through cg->backend.
 *
 * Entering, killing, freezing, listing and removing are the same for
 * both (cgroup.c, cgroup_kill.c): they work on the hierarchies the
 * backend lists.  A backend that makes its cgroup another way (a systemd
 * scope, a rootless user's delegated subtree) plugs in here, with its own
 * prepare and, should it need them, further operations.
 *
 * The layers, each calling only those below it:
 *   cgroup.c, cgroup_kill.c, cgroup_reaper.c, cgroup_update.c,
 *   cgroup_stats.c                                (cgroup.h)
 *   cgroup_v1.c, cgroup_v2.c                      (the backends)
 *   cgroup_update.c's driver, cgroup_stats.c's readers, cgroup_limits.c,
 *   cgroup_devices.c
 *   cgroup_fs.c, cgroup_kernel.c, cgroup_path.c
 * (cgroup_update.c and cgroup_stats.c hold both the public entry and the
 * pieces the backends share; neither calls a backend but through
 * cg->backend.) */
#ifndef CORRAL_CGROUP_BACKEND_H
#define CORRAL_CGROUP_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "cgroup_fs.h"
#include "cgroup_limits.h"

struct cgroup_backend {
	const char *name; /* "v1", "v2" */
	/* The hierarchies below mount_root, with `path` (normalized)
	 * appended unless NULL; directories are not opened. */
	int (*hierarchies)(const char *mount_root, const char *path,
			   struct cg_hiers *out, struct error **err);
	/* Make the cgroup's directories and write the limits of r (NULL:
	 * none); a limit the host cannot enforce fails it, or with
	 * best_effort is added to skipped.  Nothing is left on failure. */
	int (*prepare)(const struct cgroup *cg, const struct spec_resources *r,
		       bool best_effort, struct cg_names *skipped,
		       struct error **err);
	/* New limits on the live cgroup (cgroup_update() says how). */
	int (*update)(const struct cgroup *cg, const struct spec_resources *r,
		      struct error **err);
	/* Statistics in runc's shape, and the OOM killer's count. */
	int (*stats)(const struct cgroup *cg, struct cgroup_stats *out,
		     struct error **err);
	int (*oom_kills)(const struct cgroup *cg, uint64_t *out,
			 struct error **err);
	/* NULL, or what comes before the directories are removed (the
	 * systemd driver stops its scope, which removes it). */
	int (*release)(const struct cgroup *cg, struct error **err);
};

extern const struct cgroup_backend cgroup_v1_backend;
extern const struct cgroup_backend cgroup_v2_backend;
/* a transient scope made through systemd (cgroup_systemd.c), over the
 * layout in cg->layout */
extern const struct cgroup_backend cgroup_systemd_backend;

/* ---- shared by the backends' update (cgroup_update.c) ------------------- */

/* A live cgroup being updated: its hierarchies (open where the directory
 * exists), and on v2 the leaf's cgroup.controllers. */
struct cg_update {
	const struct cgroup *cg;
	struct cg_hiers h;
	char *controllers;
};
void cg_update_clear(struct cg_update *u);

typedef int cg_target_fn(struct cg_writer *w, enum cg_controller c,
			 const char **dir, struct error **err);

/* Run `rows` on u (the writer's ctx) in CG_COLLECT mode; give the
 * controllers it wants to the cgroup with enable (NULL: nothing to do);
 * check each of them has a target; then write.  A wrong request or a
 * missing controller changes nothing. */
int cg_update_write(struct cg_update *u, const struct cg_limit *rows, size_t n,
		    cg_target_fn *target,
		    int (*enable)(struct cg_update *u, unsigned wanted,
				  struct error **err),
		    const struct spec_resources *r, struct error **err);

/* ---- delegated cgroups (cgroup_delegate.c) ------------------------------ */

/* cgroup_find_delegated with /proc/self/cgroup's text given: the unit
 * tests' way in, on their fake trees. */
int cg_find_delegated(const char *mount_root, const char *proc_self_cgroup,
		      struct cgroup_bases *out, unsigned *controllers,
		      struct error **err);

/* ---- each backend's statistics (cgroup_stats.c) ------------------------- */

int cg_v1_stats(const struct cgroup *cg, struct cgroup_stats *out,
		struct error **err);
int cg_v2_stats(const struct cgroup *cg, struct cgroup_stats *out,
		struct error **err);
int cg_v1_oom_kills(const struct cgroup *cg, uint64_t *out, struct error **err);
int cg_v2_oom_kills(const struct cgroup *cg, uint64_t *out, struct error **err);

#endif
