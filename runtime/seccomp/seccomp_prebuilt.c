/* The baseline (both variants: EPERM, and USER_NOTIF for a workload whose
 * supervisor listens) and the supervisor's filter without libseccomp at
 * run time (the egress helper copies its own: egress_proxy.c).
 *
 * They are fixed by corral's source unless the policy widens the
 * baseline, so the build compiles them once (tools/seccomp_gen.c, into
 * build/gen/seccomp_filters.c) and create and exec copy the result: a
 * create spends no time in libseccomp for them.  The unit tests check the
 * copy against a fresh build.  A policy's extra calls, or a binary run on
 * another architecture than it was built for, build with libseccomp as
 * before. */
#include "seccomp_filter.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>

static int copy_prebuilt(const struct seccomp_prebuilt *pb,
			 struct seccomp_program *out, struct error **err)
{
	size_t size = pb->len * sizeof(struct sock_filter);

	*out = (struct seccomp_program){0};
	out->prog.filter = malloc(size);
	if (!out->prog.filter)
		return error_set(err, ENOMEM, "seccomp: out of memory");
	memcpy(out->prog.filter, pb->filter, size);
	out->prog.len = pb->len;
	return 0;
}

static bool usable(const struct seccomp_prebuilt *pb)
{
	return pb->len > 0 && pb->arch == seccomp_arch_native();
}

int seccomp_prebuilt_copy(const struct seccomp_prebuilt *pb,
			  struct seccomp_program *out, struct error **err)
{
	if (!usable(pb))
		return 0;
	return copy_prebuilt(pb, out, err) < 0 ? -1 : 1;
}

int seccomp_baseline_compile(char *const *extra, size_t n_extra,
			     struct seccomp_program *out, struct error **err)
{
	if (n_extra == 0 && usable(&seccomp_prebuilt_baseline))
		return copy_prebuilt(&seccomp_prebuilt_baseline, out, err);
	return seccomp_baseline_build(extra, n_extra, out, err);
}

int seccomp_baseline_notify_compile(char *const *extra, size_t n_extra,
				    struct seccomp_program *out,
				    struct error **err)
{
	if (n_extra == 0 && usable(&seccomp_prebuilt_baseline_notify)) {
		if (copy_prebuilt(&seccomp_prebuilt_baseline_notify, out, err) <
		    0)
			return -1;
		out->flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
		return 0;
	}
	return seccomp_baseline_notify_build(extra, n_extra, out, err);
}

int seccomp_supervisor_compile(struct seccomp_program *out, struct error **err)
{
	if (usable(&seccomp_prebuilt_supervisor))
		return copy_prebuilt(&seccomp_prebuilt_supervisor, out, err);
	return seccomp_supervisor_build(out, err);
}
