/* Device rules on cgroup v2 (cgroup_devices.c): a
 * BPF_PROG_TYPE_CGROUP_DEVICE program instead of v1's devices.allow and
 * devices.deny. */
#ifndef CORRAL_CGROUP_DEVICES_H
#define CORRAL_CGROUP_DEVICES_H

#include <stddef.h>

#include "error.h"
#include "spec.h"

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

#endif
