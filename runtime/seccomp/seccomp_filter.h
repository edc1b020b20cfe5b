/* Seccomp filters: config.json's, corral's baseline and the filters of
 * corral's own processes (the egress helper's: egress_seccomp.h).
 * Each is compiled to BPF in the parent with libseccomp and loaded by the
 * child with seccomp(2) just before exec. */
#ifndef CORRAL_SECCOMP_FILTER_H
#define CORRAL_SECCOMP_FILTER_H

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "seccomp_prebuilt.h"
#include "spec.h"

struct seccomp_program {
	struct sock_fprog prog; /* .filter is malloc'ed */
	unsigned int flags;	/* SECCOMP_FILTER_FLAG_* */
};

int seccomp_compile(const struct spec_seccomp *sc, struct seccomp_program *out,
		    struct error **err);

/* seccomp_compile() through a cache of compiled filters in the state
 * root (seccomp_cache.c); root may be NULL (no cache). */
int seccomp_compile_cached(const char *root, const struct spec_seccomp *sc,
			   struct seccomp_program *out, struct error **err);
void seccomp_program_free(struct seccomp_program *p);

/* corral's baseline filter, loaded on top of any filter in config.json
 * (stacked: the stricter answer wins).  `extra` names the policy's
 * additional allowed syscalls; naming one the baseline always denies or
 * filters by argument is an error, names unknown here are skipped.
 * seccomp_baseline_build() runs libseccomp; seccomp_baseline_compile()
 * returns the copy made at build time when `extra` is empty (see
 * seccomp_prebuilt.c) and builds otherwise. */
int seccomp_baseline_build(char *const *extra, size_t n_extra,
			   struct seccomp_program *out, struct error **err);
int seccomp_baseline_compile(char *const *extra, size_t n_extra,
			     struct seccomp_program *out, struct error **err);

/* The same baseline for the container's workload, whose supervisor
 * listens: the always-denied calls return SECCOMP_RET_USER_NOTIF instead
 * of EPERM, and the filter is loaded with SECCOMP_FILTER_FLAG_NEW_LISTENER
 * (out->flags); the supervisor answers each with EPERM and records it
 * (stage/notify.c).  Prebuilt apart from the EPERM variant, which `exec`'d
 * processes keep (they have no listener). */
int seccomp_baseline_notify_build(char *const *extra, size_t n_extra,
				  struct seccomp_program *out,
				  struct error **err);
int seccomp_baseline_notify_compile(char *const *extra, size_t n_extra,
				    struct seccomp_program *out,
				    struct error **err);

/* The filter of corral's PID-1 supervisor: it waits, reaps, forwards
 * signals, reads a timer, writes its record and serves the workload's
 * seccomp listener (recvmsg, ioctl by request); any other call kills it.
 * Built and prebuilt as the baseline is. */
int seccomp_supervisor_build(struct seccomp_program *out, struct error **err);
int seccomp_supervisor_compile(struct seccomp_program *out, struct error **err);

/* Loaded on top of the baseline by a process of the container whose uid
 * is its supervisor's (a user namespace of one id, or a workload that is
 * root): the calls that set another process's scheduling, CPU affinity,
 * priority, I/O priority or resource limits get EPERM unless they name
 * the caller itself (0), so that the workload cannot slow the
 * supervisor's wall clock or make its record writes fail; everything
 * else is allowed (the baseline decides).  Prebuilt; the stage loads it
 * (stage/workload.c). */
int seccomp_self_only_build(struct seccomp_program *out, struct error **err);

/* Loaded on top of the baseline by the process of a pod sandbox (a
 * pause) and every process exec'd into one: no new process or thread
 * (fork, vfork, clone: EPERM; clone3: ENOSYS), everything else to the
 * baseline.  Prebuilt; the stage loads it. */
int seccomp_no_fork_build(struct seccomp_program *out, struct error **err);

/* Shared by the compilers above and the egress helper's
 * (egress_seccomp.c).  seccomp_add_rule() adds one libseccomp rule (n
 * comparisons, ANDed) and names the call in its error;
 * seccomp_export_prog() exports the filter as BPF (prog->filter is
 * malloc'ed).  seccomp_filter_new() starts a filter for the native
 * architecture alone (any other kills) with default action `def`;
 * seccomp_filter_finish() exports it when r is 0 and releases it
 * always.  seccomp_allow_names() allows calls by name (names this
 * libseccomp or architecture lacks are skipped); seccomp_resolve() is a
 * call's native number, or -1.  seccomp_prebuilt_copy() copies a filter
 * compiled at build time: 1, or 0 when it cannot serve here (another
 * architecture), -1 on error. */
int seccomp_add_rule(scmp_filter_ctx ctx, uint32_t action, int nr,
		     const struct scmp_arg_cmp *cmp, unsigned int n,
		     const char *name, struct error **err);
int seccomp_export_prog(scmp_filter_ctx ctx, struct sock_fprog *prog,
			struct error **err);
int seccomp_filter_new(uint32_t def, scmp_filter_ctx *out, struct error **err);
int seccomp_filter_finish(scmp_filter_ctx ctx, int r,
			  struct seccomp_program *out, struct error **err);
int seccomp_allow_names(scmp_filter_ctx ctx, const char *const *names, size_t n,
			struct error **err);
int seccomp_resolve(const char *name);
int seccomp_prebuilt_copy(const struct seccomp_prebuilt *pb,
			  struct seccomp_program *out, struct error **err);

/* The kernel reads most arguments as int and ignores the upper 32 bits
 * of the register, so a comparison must ignore them too: a full 64-bit
 * test is passed by AF_PACKET | 1 << 32. */
static inline struct scmp_arg_cmp
seccomp_low32_in(unsigned int arg, uint32_t mask, uint32_t value)
{
	return (struct scmp_arg_cmp){arg, SCMP_CMP_MASKED_EQ, mask, value};
}

int seccomp_program_load(const struct seccomp_program *p, struct error **err);

#endif
