#include "stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

/* The stage's ELF image, built from stage/ and included by
 * runtime/lifecycle/stage_blob.S. */
extern const char corral_stage_start[];
extern const char corral_stage_end[];

static struct stage_filter filter_of(const struct seccomp_program *s)
{
	if (!s || !s->prog.filter)
		return (struct stage_filter){0};
	return (struct stage_filter){s->flags, s->prog.len, s->prog.filter};
}

void stage_params_process(struct stage_params *p,
			  const struct spec_process *proc, char **env,
			  const struct caps_masks *caps, bool enforced,
			  int keep_fds, const struct seccomp_program *baseline,
			  const struct seccomp_program *seccomp)
{
	static char *none[] = {NULL};

	p->args = proc->args;
	p->n_args = proc->n_args;
	p->env = env ? env : none;
	p->n_env = 0;
	while (p->env[p->n_env])
		p->n_env++;
	p->cwd = proc->cwd;
	p->uid = proc->user.uid;
	p->gid = proc->user.gid;
	p->gids = proc->user.additional_gids;
	p->n_gids = proc->user.n_additional_gids;
	p->has_umask = proc->user.umask.set;
	p->umask = (uint32_t)proc->user.umask.v;
	p->caps[STAGE_CAP_BOUNDING] = caps->bounding;
	p->caps[STAGE_CAP_EFFECTIVE] = caps->effective;
	p->caps[STAGE_CAP_INHERITABLE] = caps->inheritable;
	p->caps[STAGE_CAP_PERMITTED] = caps->permitted;
	p->caps[STAGE_CAP_AMBIENT] = caps->ambient;
	p->enforced = enforced;
	p->no_new_privs = proc->no_new_privileges;
	p->terminal = proc->terminal;
	p->keep_fds = keep_fds;
	p->apparmor_profile = proc->apparmor_profile;
	p->selinux_label = proc->selinux_label;
	p->baseline = filter_of(baseline);
	p->seccomp = filter_of(seccomp);
	/* one of each type at most (the parser refuses a second), and the
	 * kernel has fewer types than the array holds */
	p->n_rlimits = 0;
	for (size_t i = 0; i < proc->n_rlimits && i < STAGE_RLIMITS_MAX; i++)
		p->rlimits[p->n_rlimits++] = (struct stage_rlimit){
		    (uint32_t)proc->rlimits[i].resource, proc->rlimits[i].soft,
		    proc->rlimits[i].hard};
}

static int keep_open(int fd, struct error **err)
{
	if (fd >= 0 && fcntl(fd, F_SETFD, 0) < 0)
		return error_errno(err, "stage: pass fd %d", fd);
	return 0;
}

int stage_exec(const struct stage_params *p, struct error **err)
{
	static char *const envp[] = {NULL};
	_cleanup_free_ char *blob = NULL;
	_cleanup_close_ int image = -1, params = -1;
	char fd_arg[16];
	char *argv[] = {"corral-init", fd_arg, NULL};
	size_t len;

	if (stage_params_encode(p, &blob, &len, err) < 0)
		return -1;
	params = sealed_memfd("corral-params", blob, len, false, err);
	if (params < 0)
		return -1;
	image = sealed_memfd("corral-init", corral_stage_start,
			     (size_t)(corral_stage_end - corral_stage_start),
			     true, err);
	if (image < 0)
		return -1;
	if (keep_open(params, err) < 0 || keep_open(p->sync_fd, err) < 0 ||
	    keep_open(p->fifo_fd, err) < 0 ||
	    keep_open(p->cgroup_procs_fd, err) < 0 ||
	    keep_open(p->cgroup_kill_fd, err) < 0 ||
	    keep_open(p->outcome_fd, err) < 0)
		return -1;
	snprintf(fd_arg, sizeof(fd_arg), "%d", params);
	syscall(SYS_execveat, image, "", argv, envp, AT_EMPTY_PATH);
	return error_errno(err, "stage: exec");
}
