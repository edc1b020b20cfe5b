/* The container process's own attributes, applied by the child: rlimits,
 * oom_score_adj, personality, user and groups, and the final exec. */
#ifndef CORRAL_PROCESS_H
#define CORRAL_PROCESS_H

#include "error.h"
#include "spec.h"

/* rlimits are clamped to the hard limits the runtime itself runs under:
 * a container never gets more than its host. */
int process_set_rlimits(const struct spec_process *p, struct error **err);

/* oom_score_adj may be raised, never lowered below the runtime's own. */
int process_set_oom_score_adj(const struct spec_process *p, struct error **err);

int process_set_personality(const struct spec_linux *l, struct error **err);

/* setgroups, setresgid, setresuid, keeping capabilities across the switch
 * so caps_apply() can set them afterwards. */
int process_switch_user(const struct spec_user *u, struct error **err);

/* execve args[0], looked up in the process's own PATH when it has no
 * slash.  Returns only on failure. */
int process_exec(const struct spec_process *p, char *const *env,
		 struct error **err);

/* config.json's AppArmor profile and SELinux label for the exec; an error
 * when the host cannot apply them. */
int process_set_lsm_labels(const struct spec_process *p, struct error **err);

/* Overwrite this process's command line (the memory /proc/PID/cmdline
 * reads) with `title`: the supervisor is a copy of `corral create`, whose
 * arguments name host paths (bundle, state root, pid file) that the
 * workload could read in /proc/1/cmdline. */
int process_set_title(const char *title, struct error **err);

/* Write linux.sysctl under /proc/sys (after pivot_root). */
int process_set_sysctls(const struct spec_linux *l, struct error **err);

#endif
