/* The state directory: ROOT/ID/ holds state.json, config.json (the
 * effective spec the container was created with), sandbox.json and
 * explain.{txt,json} (what harden() decided), policy.json (the policy
 * it was hardened under, for exec and update), exec.fifo while the
 * container is created but not started, `outcome`, `scratch/` and
 * `scratch.ready` for `corral report` (report_gather.h, report_files.h),
 * and `lock`, an flock(2) held by
 * every command on the container so two never race.  Removing the
 * directory unmounts scratch/ first. */
#ifndef CORRAL_CONTAINER_DIR_H
#define CORRAL_CONTAINER_DIR_H

#include "cgroup.h"
#include "error.h"
#include "spec.h"
#include "state.h"

#define STATE_FILE "state.json"
#define CONFIG_FILE "config.json"
#define FIFO_FILE "exec.fifo"
#define SANDBOX_FILE "sandbox.json"
#define EXPLAIN_TEXT_FILE "explain.txt"
#define EXPLAIN_JSON_FILE "explain.json"
#define POLICY_FILE                                                            \
	"policy.json" /* the policy create applied; exec reuses it */
#define LOCK_FILE "lock"
/* a delegated cgroup's place (cgroup_path.h: cg_record_format), written
 * before the cgroup is made */
#define CGROUP_RECORD_FILE "cgroup"
/* the systemd driver's scope: "UNIT\nsystem\n" or "UNIT\nuser\n" */
#define SYSTEMD_RECORD_FILE "systemd"
/* ROOT/ID/scratch: the tmpfs holding the overlay's upper layer, attached
 * in the host's mount namespace while the overlay is made on a kernel
 * before 6.15, and kept there, read-only, when `corral report` is to read
 * what the container changed after its mount namespace is gone
 * (scratch.h scratch_mount_root); container_dir_remove unmounts it. */
#define SCRATCH_DIR "scratch"

struct container_dir {
	int dirfd;
	int lockfd;
};

/* Letters, digits, "_ - . +", 1 to 1024 bytes, no leading dot. */
int container_id_validate(const char *id, struct error **err);

/* Make ROOT/ID and take its lock; fails if the container exists. */
int container_dir_create(const char *root, const char *id,
			 struct container_dir *out, struct error **err);

/* Open ROOT/ID and take its lock; "container ID does not exist" when there
 * is no such container (or only a leftover of a create that died). */
int container_dir_open(const char *root, const char *id,
		       struct container_dir *out, struct error **err);

/* Remove the directory and everything in it; the lock stays held until
 * container_dir_close(). */
int container_dir_remove(const char *root, const char *id,
			 struct container_dir *dir, struct error **err);

void container_dir_close(struct container_dir *dir);

int container_dir_load_state(const struct container_dir *dir,
			     struct spec_state **out, struct error **err);
int container_dir_save_state(const struct container_dir *dir,
			     const struct spec_state *s, struct error **err);

/* The container's cgroup `path` (state.json's; NULL: the record's, for
 * what a killed create left): in the caller's delegated cgroup when the
 * directory holds its record (CGROUP_RECORD_FILE), else the host's.
 * Nothing is opened in the cgroup tree. */
int container_dir_cgroup(const struct container_dir *dir, const char *path,
			 struct cgroup **out, struct error **err);

/* The effective spec stored at create. */
int container_dir_load_config(const struct container_dir *dir,
			      struct spec **out, struct error **err);

/* A container's status, as runtime-spec names it (container_status_name:
 * "created", "running", "paused", "stopped"). */
enum container_status {
	CONTAINER_CREATED,
	CONTAINER_RUNNING,
	CONTAINER_PAUSED,
	CONTAINER_STOPPED,
};
const char *container_status_name(enum container_status status);

/* The status from the live process: the pid must exist, not be a zombie,
 * and have the recorded start time; a running container whose cgroup is
 * frozen is paused. */
enum container_status container_dir_status(const struct container_dir *dir,
					   const struct spec_state *s);

/* ---- a container opened for a command ----------------------------------- */

/* A container opened for a command: its directory (locked), its state,
 * its live status (container_dir_status) and its cgroup (named, not checked to
 * exist: cgroup_new).  A cgroup that cannot be named (a state.json path
 * corral would refuse, no cgroup mount) fails only the commands that need
 * it (container_cgroup), as `state` and `list` do not. */
struct container {
	struct container_dir dir;
	struct spec_state *state;
	enum container_status status;
	struct cgroup *cgroup;	    /* NULL when it has none, or on error */
	struct error *cgroup_error; /* why, when state.json names one */
};
int container_open(const char *root, const char *id, struct container *c,
		   struct error **err);
void container_close(struct container *c);

/* c's cgroup for the command `verb`; NULL with *err set ("VERB ID: the
 * container has no cgroup", or why it could not be named) otherwise. */
struct cgroup *container_cgroup(const struct container *c, const char *verb,
				struct error **err);

/* The init of st by pidfd, checked to be still the process create
 * started (its start time), so a recycled pid is never signalled; -1
 * with "ID: container not running" otherwise. */
int container_init_pidfd(const struct spec_state *st, struct error **err);

#endif
