/* The filters compiled at build time (tools/seccomp_gen.c writes them to
 * build/gen/seccomp_filters.c), apart from libseccomp's header: the stage
 * (stage/supervisor.c) loads the supervisor's without libseccomp. */
#ifndef CORRAL_SECCOMP_PREBUILT_H
#define CORRAL_SECCOMP_PREBUILT_H

#include <linux/filter.h>
#include <stdint.h>

/* A filter for `arch`, the libseccomp native architecture of the build. */
struct seccomp_prebuilt {
	uint32_t arch;
	unsigned short len;
	const struct sock_filter *filter;
};
extern const struct seccomp_prebuilt seccomp_prebuilt_baseline;
extern const struct seccomp_prebuilt seccomp_prebuilt_baseline_notify;
extern const struct seccomp_prebuilt seccomp_prebuilt_supervisor;
extern const struct seccomp_prebuilt seccomp_prebuilt_egress;
extern const struct seccomp_prebuilt seccomp_prebuilt_self_only;
extern const struct seccomp_prebuilt seccomp_prebuilt_no_fork;
extern const struct seccomp_prebuilt seccomp_prebuilt_egress_conn;

#endif
