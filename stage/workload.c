/* The last steps before the container's code runs: the workload's own
 * sandbox, then exec.  Runs as root of the container's namespaces, as the
 * stage (a sealed memfd, not corral's binary) and non-dumpable, so
 * nothing inside the container can reach corral's file through this
 * process.  Capabilities and filters go through the system calls
 * themselves: the stage links neither libcap nor libseccomp. */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "seccomp_prebuilt.h"
#include "util.h"

#define DEFAULT_PATH                                                           \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* ---- capabilities ------------------------------------------------------- */

static bool has_cap(const struct stage_params *p, enum stage_cap_set set, int c)
{
	return p->caps[set] & (1ULL << c);
}

/* Every capability not in the bounding set.  The kernel numbers its
 * capabilities from 0 without a gap: EINVAL marks the first number past
 * its last one, and every number after it. */
static int drop_bounding(const struct stage_params *p, struct error **err)
{
	for (int c = 0; c < 64; c++) {
		if (has_cap(p, STAGE_CAP_BOUNDING, c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL)
			return 0;
		return error_errno(
		    err, "drop capability %d from the bounding set", c);
	}
	return 0;
}

/* Effective, permitted and inheritable exactly as the masks say, then
 * the ambient set.  The kernel holds an ambient capability only while it
 * is also permitted and inheritable; others are left out, as runc and
 * crun do (`runc spec` lists ambient ones without an inheritable set). */
static int apply_caps(const struct stage_params *p, struct error **err)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {{0}};
	uint64_t ambient = p->caps[STAGE_CAP_AMBIENT] &
			   p->caps[STAGE_CAP_PERMITTED] &
			   p->caps[STAGE_CAP_INHERITABLE];

	for (int i = 0; i < 2; i++) {
		data[i].effective =
		    (uint32_t)(p->caps[STAGE_CAP_EFFECTIVE] >> (32 * i));
		data[i].permitted =
		    (uint32_t)(p->caps[STAGE_CAP_PERMITTED] >> (32 * i));
		data[i].inheritable =
		    (uint32_t)(p->caps[STAGE_CAP_INHERITABLE] >> (32 * i));
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		return error_errno(err, "set capabilities");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return error_errno(err, "clear ambient capabilities");
	for (int c = 0; c < 64; c++)
		if ((ambient & (1ULL << c)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
			return error_errno(err, "raise ambient capability %d",
					   c);
	return 0;
}

/* When the workload keeps no capability, lock the securebits (while still
 * root with CAP_SETPCAP) so that no later exec, not even of a setuid-root
 * binary, can hand capabilities back.  NO_SETUID_FIXUP keeps the caps
 * across the user switch until apply_caps() empties them. */
static int lock_securebits(const struct stage_params *p, struct error **err)
{
	unsigned long bits =
	    SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	if (!p->enforced)
		return 0;
	for (int i = 0; i < STAGE_CAP_SETS; i++)
		if (p->caps[i])
			return 0;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return error_errno(err, "lock securebits");
	return 0;
}

bool stage_setgroups_denied(void)
{
	char buf[8] = {0};
	int fd = open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n >= 4 && strncmp(buf, "deny", 4) == 0;
}

/* setgroups, setresgid, setresuid, keeping capabilities across the switch
 * (with locked securebits the kernel keeps them already). */
static int switch_user(const struct stage_params *p, struct error **err)
{
	bool keep =
	    !(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) & SECBIT_NO_SETUID_FIXUP);

	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return error_errno(err, "keep capabilities");
	if (setgroups(p->n_gids, p->gids) < 0 &&
	    !(p->n_gids == 0 && stage_setgroups_denied()))
		return error_errno(err, "setgroups");
	if (setresgid(p->gid, p->gid, p->gid) < 0)
		return error_errno(err, "setgid %u", p->gid);
	if (setresuid(p->uid, p->uid, p->uid) < 0)
		return error_errno(err, "setuid %u", p->uid);
	if (keep && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return error_errno(err, "keep capabilities");
	return 0;
}

/* ---- limits -------------------------------------------------------------- */

/* process.rlimits, each clamped to what this process has: a limit can
 * only come down here (harden() clamped them to the runtime's already). */
static int set_rlimits(const struct stage_params *p, struct error **err)
{
	for (size_t i = 0; i < p->n_rlimits; i++) {
		const struct stage_rlimit *l = &p->rlimits[i];
		struct rlimit cur,
		    want = {.rlim_cur = l->soft, .rlim_max = l->hard};

		if (getrlimit((int)l->resource, &cur) < 0)
			return error_errno(err, "get rlimit %u", l->resource);
		if (want.rlim_max > cur.rlim_max)
			want.rlim_max = cur.rlim_max;
		if (want.rlim_cur > want.rlim_max)
			want.rlim_cur = want.rlim_max;
		if (setrlimit((int)l->resource, &want) < 0)
			return error_errno(err, "set rlimit %u", l->resource);
	}
	return 0;
}

/* process.oomScoreAdj, only ever raised.  The workload shares the
 * supervisor's memory until its execve, and the kernel gives the new
 * value to every process sharing it: the supervisor takes its own back
 * once the workload runs (supervisor.c). */
static int set_oom_score_adj(const struct stage_params *p, struct error **err)
{
	_cleanup_close_ int fd = -1;
	char buf[16];
	int n;

	if (!p->has_oom_score_adj || p->oom_score_adj <= stage_oom_score_adj())
		return 0;
	fd = openat(AT_FDCWD, "/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	n = snprintf(buf, sizeof(buf), "%d", (int)p->oom_score_adj);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		return error_errno(err, "set oom_score_adj");
	return 0;
}

int stage_oom_score_adj(void)
{
	char buf[16] = {0};
	int fd =
	    openat(AT_FDCWD, "/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? (int)strtol(buf, NULL, 10) : 0;
}

/* ---- fds, labels, the program ------------------------------------------- */

/* The kept fds stay open across the exec; every other one (the stage's
 * own parameters, the supervisor's cgroup files, anything the caller
 * left open) is closed now, before the chdir: a cwd of /proc/self/fd/N
 * must not find a descriptor of anything outside (CVE-2024-21626).  One
 * more stays, close-on-exec, until the exec: the sync socket of `corral
 * exec`, to carry an error, or the supervisor's exec pipe, whose closing
 * tells it the program runs (stage/supervisor.h). */
static int pass_fds(int keep, int sync_fd, struct error **err)
{
	unsigned int first = 3 + (unsigned int)keep;

	if (sync_fd >= (int)first) {
		if ((sync_fd > (int)first &&
		     syscall(SYS_close_range, first, sync_fd - 1, 0) < 0) ||
		    fcntl(sync_fd, F_SETFD, FD_CLOEXEC) < 0)
			return error_errno(err, "close the runtime's fds");
		first = (unsigned int)sync_fd + 1;
	}
	if (syscall(SYS_close_range, first, ~0U, 0) < 0)
		return error_errno(err, "close the runtime's fds");
	for (int fd = 3; fd < 3 + keep; fd++) {
		int flags = fcntl(fd, F_GETFD);

		if (flags >= 0)
			fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
	}
	return 0;
}

/* The LSM label the next exec takes.  corral does not load profiles; it
 * asks the kernel for the one config.json names, and a host that cannot
 * apply it (no AppArmor, no SELinux) fails the container rather than run
 * it unconfined. */
static int set_exec_label(const char *path, const char *fmt, const char *label,
			  const char *what, struct error **err)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	char buf[4096];
	int n = snprintf(buf, sizeof(buf), fmt, label);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return error_set(err, EINVAL, "%s %s: too long", what, label);
	if (fd < 0 || write_all(fd, buf, (size_t)n) < 0)
		return error_errno(err, "%s %s: cannot be applied", what,
				   label);
	return 0;
}

static int set_lsm_labels(const struct stage_params *p, struct error **err)
{
	if (p->apparmor_profile && *p->apparmor_profile &&
	    set_exec_label("/proc/self/attr/apparmor/exec", "exec %s",
			   p->apparmor_profile, "AppArmor profile", err) < 0)
		return -1;
	if (p->selinux_label && *p->selinux_label &&
	    set_exec_label("/proc/self/attr/exec", "%s", p->selinux_label,
			   "SELinux label", err) < 0)
		return -1;
	return 0;
}

static const char *env_path(char *const *env)
{
	for (; env && *env; env++)
		if (strncmp(*env, "PATH=", 5) == 0)
			return *env + 5;
	return DEFAULT_PATH;
}

/* args[0] as execvp would find it, as the workload's user, but without
 * trying execve on each candidate: the execve comes only after the
 * filters.  A name with a slash is taken as it is; otherwise the first
 * executable regular file on the process's PATH, and when there is none,
 * the error of the most telling candidate (EACCES over ENOENT). */
static int find_program(const char *name, char *const *env, char out[PATH_MAX],
			struct error **err)
{
	const char *path = env_path(env);
	size_t len = strlen(name);
	int saved = ENOENT;

	if (strchr(name, '/')) {
		if (len >= PATH_MAX)
			return error_set(err, ENAMETOOLONG, "exec %s: %s", name,
					 strerror(ENAMETOOLONG));
		memcpy(out, name, len + 1);
		return 0;
	}
	while (*path) {
		const char *end = strchrnul(path, ':');
		int n = snprintf(out, PATH_MAX, "%.*s/%s", (int)(end - path),
				 path, name);
		bool empty = end == path;
		struct stat st;

		path = *end ? end + 1 : end;
		if (empty || n <= 0 || n >= PATH_MAX)
			continue;
		if (stat(out, &st) < 0) {
			if (errno == EACCES)
				saved = EACCES;
			continue;
		}
		if (S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		saved = EACCES; /* what execve would say */
	}
	errno = saved;
	return error_errno(err, "exec %s", name);
}

/* ---- filters ------------------------------------------------------------ */

/* Load one filter; *listener gets the fd of one loaded with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER (the kernel makes it close-on-exec). */
static int load_filter(const struct stage_filter *f, int *listener,
		       struct error **err)
{
	struct sock_fprog prog = {.len = f->len, .filter = f->insns};
	long r;

	if (!f->insns || !f->len)
		return 0;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, f->flags, &prog);
	if (r < 0)
		return error_errno(err, "load seccomp filter");
	if (f->flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
		*listener = (int)r;
	return 0;
}

/* What is left to load in the process itself, right before its execve:
 * the baseline where the supervisor did not load it already (a process
 * of `corral exec`, whose baseline has no listener), then config.json's.
 * The kernel runs both and the stricter answer wins; the baseline allows
 * seccomp(2), so it never keeps config.json's from loading, and
 * config.json's comes last so that, with no_new_privs, only the execve
 * runs under it.  A listener here would be one the process could answer
 * itself, allowing a denied call: refused. */
static int load_filters(const struct stage_params *p, struct error **err)
{
	const struct stage_filter self_only = {
	    0, seccomp_prebuilt_self_only.len,
	    (struct sock_filter *)seccomp_prebuilt_self_only.filter};
	const struct stage_filter no_fork = {
	    0, seccomp_prebuilt_no_fork.len,
	    (struct sock_filter *)seccomp_prebuilt_no_fork.filter};
	int listener = -1;

	if (load_filter(&p->baseline, &listener, err) < 0)
		return error_wrap(err, "corral baseline");
	if (p->self_only && load_filter(&self_only, &listener, err) < 0)
		return error_wrap(err, "corral self-only filter");
	if (p->no_fork && load_filter(&no_fork, &listener, err) < 0)
		return error_wrap(err, "corral no-fork filter");
	if (listener < 0 && load_filter(&p->seccomp, &listener, err) < 0)
		return -1;
	if (listener >= 0) {
		close(listener);
		return error_set(err, EINVAL,
				 "seccomp: a listener in the process itself "
				 "is not supported");
	}
	return 0;
}

int workload_preload_baseline(struct stage_params *p, int *listener,
			      struct error **err)
{
	int flags, fd;

	*listener = -1;
	if (!p->baseline.insns || !p->baseline.len)
		return 0;
	/* The kernel loads a filter for a process with no_new_privs or
	 * CAP_SYS_ADMIN in its namespace; the workload sets it anyway. */
	if (p->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(err, "set no_new_privs");
	if (load_filter(&p->baseline, listener, err) < 0)
		return error_wrap(err, "corral baseline");
	free(p->baseline.insns);
	p->baseline = (struct stage_filter){0};
	if (*listener < 0)
		return 0;
	flags = fcntl(*listener, F_GETFD);
	if (flags < 0 || !(flags & FD_CLOEXEC)) {
		close(*listener);
		*listener = -1;
		return error_set(err, EINVAL,
				 "seccomp listener: not close-on-exec");
	}
	/* above the fds the workload keeps (pass_fds closes all others) */
	if (*listener < 3 + p->keep_fds) {
		fd = fcntl(*listener, F_DUPFD_CLOEXEC, 3 + p->keep_fds);
		close(*listener);
		*listener = fd;
		if (fd < 0)
			return error_errno(err, "seccomp listener: move it");
	}
	return 0;
}

int workload_exec(const struct stage_params *p, struct error **err)
{
	char program[PATH_MAX];
	bool nnp = p->no_new_privs;

	/* corral ignores SIGPIPE for its own sake; an ignored signal stays
	 * ignored across exec, and the workload must not get that (a `yes
	 * | head` would never end). */
	signal(SIGPIPE, SIG_DFL);
	/* the sync socket of exec, or the supervisor's exec pipe */
	if (pass_fds(p->keep_fds, p->sync_fd, err) < 0)
		return -1;
	if (set_rlimits(p, err) < 0 || set_oom_score_adj(p, err) < 0)
		return -1;
	if (chdir(p->cwd) < 0)
		return error_errno(err, "chdir %s", p->cwd);
	umask(p->has_umask ? (mode_t)p->umask : 022);
	if (drop_bounding(p, err) < 0 || set_lsm_labels(p, err) < 0)
		return -1;
	if (!nnp && load_filters(p, err) < 0)
		return -1;
	if (lock_securebits(p, err) < 0 || switch_user(p, err) < 0 ||
	    apply_caps(p, err) < 0)
		return -1;
	if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(err, "set no_new_privs");
	if (find_program(p->args[0], p->env, program, err) < 0)
		return -1;
	if (nnp && load_filters(p, err) < 0)
		return -1;
	execve(program, p->args, p->env);
	return error_errno(err, "exec %s", p->args[0]);
}
