/* Becoming the stage (stage/main.c): the last step of corral's code in a
 * container's process.  corral carries the stage's bytes (runtime/
 * stage_blob.S); stage_exec() writes them into a sealed memfd, the
 * parameters into another, and execs the first, so that from then on the
 * process is not corral's binary and nothing inside the container can
 * reach that file through it (CVE-2019-5736). */
#ifndef CORRAL_STAGE_H
#define CORRAL_STAGE_H

#include <stdbool.h>

#include "caps.h"
#include "error.h"
#include "params.h"
#include "seccomp_filter.h"
#include "spec.h"

/* The process half of the parameters, shared by create and exec.  The
 * params point into `proc`, `env` and the filters, which must outlive
 * the stage_exec() call. */
void stage_params_process(struct stage_params *p,
			  const struct spec_process *proc, char **env,
			  const struct caps_masks *caps, bool enforced,
			  int keep_fds, const struct seccomp_program *baseline,
			  const struct seccomp_program *seccomp);

/* Exec the stage with p.  The fds p names (sync, fifo, cgroup files) are
 * handed over: they stay open across the exec, every other fd of the
 * caller but 0-2 and the kept ones must be close-on-exec.  Returns only
 * on failure. */
int stage_exec(const struct stage_params *p, struct error **err);

#endif
