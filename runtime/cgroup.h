/* Resource limits through cgroups, v2 (unified) and v1 (legacy, and hybrid
 * hosts whose controllers are on v1 with a cgroup2 at
 * /sys/fs/cgroup/unified).  The layout is detected at run time.
 *
 * The parent makes the container's cgroup and writes its limits before the
 * container runs any code (cgroup_prepare), puts the first process in it
 * (cgroup_enter) before releasing it, and at delete kills what is left and
 * removes the cgroup (cgroup_kill, cgroup_destroy).  Fail closed: a limit
 * that cannot be written fails cgroup_prepare unless best_effort, in which
 * case it is reported in *skipped. */
#ifndef CORRAL_CGROUP_H
#define CORRAL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "spec.h"

#define CGROUP_MOUNT "/sys/fs/cgroup"

enum cgroup_layout {
	CGROUP_V2, /* everything on one cgroup2 mount */
	CGROUP_V1, /* controllers on v1 mounts (a cgroup2 may exist beside) */
};

struct cgroup {
	enum cgroup_layout layout;
	char *mount_root; /* "/sys/fs/cgroup" (a temp dir in unit tests) */
	char *path; /* below each hierarchy root: "corral/ID", "/a/b" */
};

/* Detect the layout of the hierarchy mounted at mount_root. */
int cgroup_detect(const char *mount_root, enum cgroup_layout *out,
		  struct error **err);

/* The cgroup path for a container: config.json's cgroupsPath when set
 * (absolute "/a/b", relative "a/b" below "corral/", or systemd's
 * "slice:prefix:name" mapped to "SLICE-PATH/prefix-name.scope", e.g.
 * "machine.slice:libpod:ID" -> "machine.slice/libpod-ID.scope" and
 * "a-b.slice:x:y" -> "a.slice/a-b.slice/x-y.scope"), else "corral/ID".
 * No ".." component is accepted.  Pure. */
int cgroup_path_for(const char *cgroups_path, const char *id, char **out,
		    struct error **err);

/* Make the cgroup (in every v1 hierarchy that has a controller corral
 * writes, plus name=systemd/unified ones when present, or in the one v2
 * tree, enabling the controllers it needs in each parent's
 * cgroup.subtree_control) and write the limits of `r` (may be NULL). */
int cgroup_prepare(const char *mount_root, const char *path,
		   const struct spec_resources *r, bool best_effort,
		   struct cgroup **out, char ***skipped, struct error **err);

/* Reopen an existing container cgroup (for delete) without writing. */
int cgroup_open(const char *mount_root, const char *path, struct cgroup **out,
		struct error **err);

/* Move pid into the cgroup (every hierarchy). */
int cgroup_enter(const struct cgroup *cg, pid_t pid, struct error **err);

/* Kill every process in the cgroup: cgroup.kill on v2 (when the kernel has
 * it), otherwise freeze, SIGKILL every pid in cgroup.procs, thaw; then wait
 * (bounded) until cgroup.procs is empty. */
int cgroup_kill(const struct cgroup *cg, struct error **err);

/* Remove the cgroup directories (retrying while they are busy, bounded). */
int cgroup_destroy(const struct cgroup *cg, struct error **err);

void cgroup_free(struct cgroup *cg);

#endif
