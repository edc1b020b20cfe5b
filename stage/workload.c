/* The last steps before the container's code runs: the workload's own
 * sandbox, then exec.  Runs as root of the container's namespaces, still
 * the corral binary and non-dumpable, so nothing inside the container can
 * open this process's /proc/PID/exe or fds before it execs. */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/securebits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "process.h"

static int pass_fds(int keep, struct error **err)
{
	if (syscall(SYS_close_range, 3 + keep, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return error_errno(err, "mark fds close-on-exec");
	for (int fd = 3; fd < 3 + keep; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags >= 0)
			fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
	}
	return 0;
}

/* When the workload keeps no capability, lock the securebits (while still
 * root with CAP_SETPCAP) so that no later exec, not even of a setuid-root
 * binary, can hand capabilities back.  NO_SETUID_FIXUP keeps the caps
 * across the user switch until caps_apply() empties them. */
static int lock_securebits(const struct workload *w, struct error **err)
{
	const struct caps_masks *m = &w->caps;
	unsigned long bits =
	    SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	if (!w->enforced || m->effective || m->permitted || m->inheritable ||
	    m->ambient || m->bounding)
		return 0;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return error_errno(err, "lock securebits");
	return 0;
}

/* config.json's filter first, then corral's baseline on top: the kernel
 * runs both and the stricter answer wins.  Loading the second needs the
 * first to allow seccomp(2); a filter that does not fails closed here. */
static int load_filters(const struct workload *w, struct error **err)
{
	if (seccomp_program_load(w->seccomp, err) < 0)
		return -1;
	if (seccomp_program_load(w->baseline, err) < 0)
		return error_wrap(err, "corral baseline");
	return 0;
}

/* Without no_new_privs a non-root user cannot load a filter, so the
 * filters are loaded before the user switch (and must then allow setuid
 * and capset); with it, last. */
int workload_exec(const struct workload *w, struct error **err)
{
	const struct spec_process *p = w->process;
	bool nnp = p->no_new_privileges;

	/* main() ignores SIGPIPE for the runtime's own sake; an ignored
	 * signal stays ignored across exec, and the workload must not get
	 * that (a `yes | head` would never end). */
	signal(SIGPIPE, SIG_DFL);
	if (chdir(p->cwd) < 0)
		return error_errno(err, "chdir %s", p->cwd);
	if (caps_drop_bounding(&w->caps, err) < 0)
		return -1;
	if (!nnp && load_filters(w, err) < 0)
		return -1;
	if (lock_securebits(w, err) < 0 ||
	    process_switch_user(&p->user, err) < 0 ||
	    caps_apply(&w->caps, err) < 0)
		return -1;
	if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(err, "set no_new_privs");
	umask(p->user.umask.set ? (mode_t)p->user.umask.v : 022);
	if (pass_fds(w->keep_fds, err) < 0)
		return -1;
	if (nnp && load_filters(w, err) < 0)
		return -1;
	if (process_set_lsm_labels(p, err) < 0)
		return -1;
	return process_exec(p, w->env, err);
}
