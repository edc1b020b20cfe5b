/* The container process's own attributes, applied by the child before it
 * becomes the stage: oom_score_adj (exec's process), personality,
 * sysctls, its command line.  (The rlimits, the user, the LSM labels and
 * the exec are the stage's: stage/workload.c.) */
#ifndef CORRAL_PROCESS_H
#define CORRAL_PROCESS_H

#include "error.h"
#include "spec.h"

/* oom_score_adj may be raised, never lowered below the runtime's own. */
int process_set_oom_score_adj(const struct spec_process *p, struct error **err);

int process_set_personality(const struct spec_linux *l, struct error **err);

/* Overwrite this process's command line (the memory /proc/PID/cmdline
 * reads) with `title`: until it execs the stage, the container's first
 * process is a copy of `corral create`, whose arguments name host paths
 * (bundle, state root, pid file) that a process joining the container
 * could read in its /proc/PID/cmdline. */
int process_set_title(const char *title, struct error **err);
/* Called first in main(): where the argument area process_set_title
 * overwrites lies. */
void process_title_init(int argc, char **argv);

/* The host's /proc/sys as an O_PATH descriptor, opened in the child once
 * it is in its own network and IPC namespaces and before the mounts:
 * the per-namespace entries below it resolve to the opener's namespaces,
 * and a container need not mount /proc for its sysctls (or the low ports
 * corral adds) to be written.  -2 when there is nothing to write, -1 with
 * *err on failure.  The descriptor never reaches the workload
 * (O_CLOEXEC, closed when setup returns). */
int process_open_sysctls(const struct spec_linux *l, struct error **err);

/* Write linux.sysctl through sysfd (after pivot_root, before the masks);
 * nothing when sysfd is -2. */
int process_set_sysctls(int sysfd, const struct spec_linux *l,
			struct error **err);

#endif
