#include "proc_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "console.h"
#include "process.h"
#include "stage.h"
#include "sync.h"
#include "util.h"

/* A terminal needs the engine's socket (or corral's relay) to send its
 * master to, and a socket without a terminal would wait for an fd that
 * never comes. */
static int check_console(const struct spec_process *p, const char *socket,
			 const struct tty_relay *relay, struct error **err)
{
	if (p->terminal && !socket && !relay)
		return error_set(err, EINVAL,
				 "process.terminal is true (a terminal was "
				 "asked): --console-socket is required");
	if (!p->terminal && socket)
		return error_set(err, EINVAL,
				 "--console-socket given but process.terminal "
				 "is false (no terminal was asked)");
	return 0;
}

/* The caller's terminal is never the container's (tty_relay.h): a
 * terminal on an fd the process is handed, stdio that no pty replaces or
 * a preserved fd, would let it change the caller's modes and size, stop
 * its output and read what is typed after corral has returned. */
static int check_no_terminal(const struct proc_plan *pp, bool console,
			     struct error **err)
{
	static const char *const names[] = {"stdin", "stdout", "stderr"};
	unsigned replaced = console	? 7u
			    : pp->relay ? pp->relay->shape.fds
					: 0u;

	for (int fd = 0; fd < 3 + pp->keep_fds; fd++) {
		if ((fd < 3 && (replaced & (1u << fd))) || !isatty(fd))
			continue;
		if (fd < 3)
			return error_set(
			    err, EINVAL,
			    "%s is a terminal: use process.terminal "
			    "with --console-socket, or pipes",
			    names[fd]);
		return error_set(err, EINVAL,
				 "fd %d is a terminal: a terminal is passed "
				 "on only as process.terminal with "
				 "--console-socket",
				 fd);
	}
	return 0;
}

int proc_plan_prepare(struct proc_plan *pp, const char *root,
		      const struct spec_seccomp *sc, const struct sandbox *sb,
		      const char *console_socket, struct error **err)
{
	if (check_console(pp->process, console_socket, pp->relay, err) < 0)
		return -1;
	if (pp->relay && pp->process->terminal)
		tty_relay_take_all(pp->relay);
	if (check_no_terminal(pp, console_socket && pp->process->terminal,
			      err) < 0)
		return -1;
	caps_resolve(pp->process->caps, &pp->caps);
	if (sc) {
		if (seccomp_compile_cached(root, sc, &pp->seccomp, err) < 0)
			return -1;
		pp->has_seccomp = true;
	}
	if (pp->enforced && pp->notify &&
	    seccomp_baseline_notify_compile(sb->syscalls_allow,
					    sb->n_syscalls_allow, &pp->baseline,
					    err) < 0)
		return -1;
	if (pp->enforced && !pp->notify &&
	    seccomp_baseline_compile(sb->syscalls_allow, sb->n_syscalls_allow,
				     &pp->baseline, err) < 0)
		return -1;
	if (console_socket) {
		pp->console_fd = console_connect(console_socket, err);
		if (pp->console_fd < 0)
			return -1;
	} else if (pp->relay) {
		pp->console_fd = fcntl(pp->relay->sock[1], F_DUPFD_CLOEXEC, 3);
		if (pp->console_fd < 0)
			return error_errno(err, "terminal relay socket");
	}
	return sync_socketpair(pp->sync, err);
}

int proc_plan_attributes(const struct proc_plan *pp, bool new_keyring,
			 bool oom_score_adj, struct error **err)
{
	if (new_keyring &&
	    syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 &&
	    errno != ENOSYS)
		return error_errno(err, "new session keyring");
	if ((oom_score_adj &&
	     process_set_oom_score_adj(pp->process, err) < 0) ||
	    process_set_personality(pp->linux_, err) < 0)
		return -1;
	return 0;
}

int proc_become_ns_root(struct error **err)
{
	if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
		return error_errno(err, "become root in the user namespace");
	return 0;
}

int proc_plan_console(struct proc_plan *pp, bool new_session,
		      struct error **err)
{
	int r = 0;

	/* A session of its own, terminal or not: the caller's session's
	 * controlling terminal is what /dev/tty opens. */
	if (new_session && setsid() < 0)
		r = error_errno(err, "setsid");
	else if (pp->process->terminal || pp->relay)
		r = console_setup(pp->console_fd, pp->process,
				  pp->relay ? &pp->relay->shape : NULL, err);
	closep(&pp->console_fd);
	return r;
}

/* Whether `id` is mapped in this process's user namespace (map_file:
 * "uid_map" or "gid_map" of /proc/self). */
static bool id_mapped(const char *map_file, uint32_t id)
{
	char path[32], line[96];
	_cleanup_fclose_ FILE *f = NULL;
	unsigned long inside, outside, count;

	snprintf(path, sizeof(path), "/proc/self/%s", map_file);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lu %lu %lu", &inside, &outside, &count) ==
			3 &&
		    id >= inside && id - inside < count)
			return true;
	return false;
}

void proc_plan_stage(const struct proc_plan *pp, enum stage_mode mode,
		     struct stage_params *p)
{
	const struct spec_process *proc = pp->process;
	/* a uid and gid of the supervisor's own, the workload's neighbour
	 * (stage/params.h), when the namespace maps them */
	uint32_t own =
	    pp->init_uid == SUPERVISOR_ID ? SUPERVISOR_ID - 2 : SUPERVISOR_ID;
	bool distinct = id_mapped("uid_map", own) && id_mapped("gid_map", own);

	*p = (struct stage_params){
	    .mode = mode, .sync_fd = pp->sync[1], .outcome_fd = -1};
	stage_params_process(p, proc, pp->env, &pp->caps, pp->enforced,
			     pp->keep_fds, pp->enforced ? &pp->baseline : NULL,
			     pp->has_seccomp ? &pp->seccomp : NULL);
	p->supervisor_uid = distinct ? own : pp->init_uid;
	p->supervisor_gid = distinct ? own : pp->init_gid;
	p->self_only = pp->enforced && proc->user.uid == p->supervisor_uid;
	p->no_fork = pp->enforced && pp->pause;
	p->has_oom_score_adj = mode == STAGE_INIT && proc->oom_score_adj.set;
	p->oom_score_adj = (int32_t)proc->oom_score_adj.v;
	/* the workload gets the foreground of the pty that is its stdin */
	if (pp->relay && pp->relay->shape.ctty)
		p->terminal = true;
}

void proc_plan_release(struct proc_plan *pp)
{
	closep(&pp->console_fd);
	closep(&pp->sync[0]);
	closep(&pp->sync[1]);
	seccomp_program_free(&pp->seccomp);
	seccomp_program_free(&pp->baseline);
}
