/* `corral report ID`: a report (spec/report/report.h) assembled from the
 * container's own records, each section from its source:
 * - outcome: ROOT/ID/outcome, lines the supervisor writes through a
 *   descriptor create hands it ("start", "end ... exit|signal N REASON"),
 *   and `kill`/delete's "kill SIG"; CPU time and peak memory from the
 *   cgroup, which stays until delete;
 * - limits hit: the cgroup's counters (memory.events / memory.oom_control,
 *   pids.events, cpu.stat), the wall clock from the record and
 *   sandbox.json, the scratch tmpfs's use;
 * - files changed: the upper layer (report_files.h);
 * - network: ROOT/ID/egress.log when the egress proxy wrote one;
 * - syscalls refused: not recorded yet.
 * delete writes the report where it was asked for (--report FILE, the
 * policy's report.dir) before the cgroup and the scratch go. */
#ifndef CORRAL_REPORT_GATHER_H
#define CORRAL_REPORT_GATHER_H

#include <stdbool.h>

#include "container_dir.h"
#include "error.h"

#define OUTCOME_FILE "outcome"
#define EGRESS_LOG_FILE "egress.log"

/* create: ROOT/ID/outcome, new, append-only, for the supervisor. */
int report_open_outcome(const struct container_dir *dir, int *fd,
			struct error **err);

/* kill and delete: note the signal corral sent (best effort). */
void report_note_kill(const struct container_dir *dir, int sig);
/* The end a host-side backstop gives a container its supervisor did not
 * end at its deadline (container_run): the supervisor's own line. */
void report_note_deadline(const struct container_dir *dir);

/* Whether the supervisor has recorded its own kill at the wall clock: a
 * container past its deadline with that line is already dying. */
bool report_deadline_recorded(const struct container_dir *dir);

/* delete: one line in the runtime log of what the egress proxy allowed
 * and denied, when the container had it. */
void report_log_egress(const struct container *c);

/* The report of an opened container, as text or JSON. */
int report_render(const struct container *c, bool json, char **out,
		  struct error **err);

int container_report(const char *root, const char *id, bool json, char **out,
		     struct error **err);

/* delete: the JSON report into `file` (a host path, made new: O_EXCL,
 * no links, 0600); report_save_policy: into DIR/ID.json the same way when
 * the stored policy names a report directory ("report": {"dir": DIR}). */
int report_save(const struct container *c, const char *file,
		struct error **err);
int report_save_policy(const struct container *c, struct error **err);

#endif
