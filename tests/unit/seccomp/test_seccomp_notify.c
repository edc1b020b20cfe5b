/* The baseline's two variants and the supervisor's listener rules: the
 * workload's baseline (seccomp_baseline_notify_*) answers exactly what
 * the EPERM baseline answers, except that its EPERM for the always-denied
 * calls becomes SECCOMP_RET_USER_NOTIF; the supervisor's filter allows
 * ioctl only for the listener's three requests.  Checked through the
 * interpreter of seccomp_eval.h over every call number and through the
 * kernel: a child loads the notify variant, another process serves its
 * listener with EPERM, and without a listener the kernel answers ENOSYS. */
#include <errno.h>
#include <linux/seccomp.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "seccomp_eval.h"
#include "unit.h"
#include "util.h"

static const char *const denied_named[] = {"mount", "bpf", "keyctl", "ptrace",
					   "unshare"};

TEST(notify_variant_differs_only_in_the_denied_calls)
{
	struct seccomp_program errno_v, notify_v;
	_cleanup_error_ struct error *e = NULL;
	uint32_t native = seccomp_arch_native();
	int notified = 0, differ = 0;
	uint64_t args[6] = {0};

	CHECK(seccomp_baseline_compile(NULL, 0, &errno_v, &e) == 0);
	CHECK(seccomp_baseline_notify_compile(NULL, 0, &notify_v, &e) == 0);
	CHECK(errno_v.flags == 0);
	CHECK(notify_v.flags == SECCOMP_FILTER_FLAG_NEW_LISTENER);
	for (int nr = 0; nr < 1024; nr++) {
		for (int a = 0; a < 3; a++) {
			uint32_t x, y;

			args[0] = a == 0 ? 0 : a == 1 ? 0x10000000 : ~0ULL;
			args[1] = args[0];
			x = verdict(&errno_v, nr, native, args);
			y = verdict(&notify_v, nr, native, args);
			if (x == y)
				continue;
			if (x == RET_EPERM && y == SECCOMP_RET_USER_NOTIF)
				notified += a == 0;
			else
				differ++;
		}
	}
	CHECK(differ == 0);
	printf("# %d calls notified\n", notified);
	CHECK(notified >= 40);
	for (size_t i = 0; i < ARRAY_SIZE(denied_named); i++)
		CHECK(verdict(&notify_v,
			      seccomp_syscall_resolve_name(denied_named[i]),
			      native, NULL) == SECCOMP_RET_USER_NOTIF);
	/* clone with a namespace flag stays EPERM from the filter itself */
	args[0] = CLONE_NEWUSER;
	CHECK(verdict(&notify_v, SYS_clone, native, args) == RET_EPERM);
	CHECK(verdict(&notify_v, SYS_getpid, native, NULL) ==
	      SECCOMP_RET_ALLOW);
	seccomp_program_free(&errno_v);
	seccomp_program_free(&notify_v);
}

TEST(prebuilt_notify_variant_matches_a_fresh_build)
{
	struct seccomp_program pre, built;
	_cleanup_error_ struct error *e = NULL;
	char *extra[] = {(char *)"get_mempolicy"};

	CHECK(seccomp_prebuilt_baseline_notify.arch == seccomp_arch_native());
	CHECK(seccomp_baseline_notify_compile(NULL, 0, &pre, &e) == 0);
	CHECK(seccomp_baseline_notify_build(NULL, 0, &built, &e) == 0);
	CHECK(pre.flags == built.flags);
	CHECK(pre.prog.len == built.prog.len &&
	      memcmp(pre.prog.filter, built.prog.filter,
		     pre.prog.len * sizeof(struct sock_filter)) == 0);
	seccomp_program_free(&pre);
	seccomp_program_free(&built);
	/* a policy's extra call: built, still the notify variant */
	CHECK(seccomp_baseline_notify_compile(extra, 1, &pre, &e) == 0);
	CHECK(pre.flags == SECCOMP_FILTER_FLAG_NEW_LISTENER);
	CHECK(verdict(&pre, SYS_get_mempolicy, seccomp_arch_native(), NULL) ==
	      SECCOMP_RET_ALLOW);
	CHECK(verdict(&pre, SYS_mount, seccomp_arch_native(), NULL) ==
	      SECCOMP_RET_USER_NOTIF);
	seccomp_program_free(&pre);
}

TEST(supervisor_allows_the_listener_ioctls_only)
{
	struct seccomp_program s;
	_cleanup_error_ struct error *e = NULL;
	uint32_t native = seccomp_arch_native();
	uint64_t args[6] = {3, 0};
	const uint64_t allowed[] = {SECCOMP_IOCTL_NOTIF_RECV,
				    SECCOMP_IOCTL_NOTIF_SEND,
				    SECCOMP_IOCTL_NOTIF_ID_VALID};
	const uint64_t refused[] = {0x5401 /* TCGETS */, 0x5412 /* TIOCSTI */,
				    SECCOMP_IOCTL_NOTIF_ADDFD,
				    SECCOMP_IOCTL_NOTIF_RECV | 1ULL << 32 | 1};

	CHECK(seccomp_supervisor_compile(&s, &e) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(allowed); i++) {
		args[1] = allowed[i];
		CHECK(verdict(&s, SYS_ioctl, native, args) ==
		      SECCOMP_RET_ALLOW);
		/* the kernel reads the request as an int */
		args[1] = allowed[i] | 1ULL << 32;
		CHECK(verdict(&s, SYS_ioctl, native, args) ==
		      SECCOMP_RET_ALLOW);
	}
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		args[1] = refused[i];
		CHECK(verdict(&s, SYS_ioctl, native, args) ==
		      SECCOMP_RET_KILL_PROCESS);
	}
	/* the listener is its own before it drops: no fd comes over a socket */
	CHECK(verdict(&s, SYS_recvmsg, native, NULL) ==
	      SECCOMP_RET_KILL_PROCESS);
	CHECK(verdict(&s, SYS_sendmsg, native, NULL) ==
	      SECCOMP_RET_KILL_PROCESS);
	seccomp_program_free(&s);
}

/* fd over a unix socket (SCM_RIGHTS): the test's child loads the filter
 * and hands the listener to this process, which answers as the supervisor
 * does (the stage's supervisor loads it itself before it forks). */
static int send_fd(int sock, int fd)
{
	char byte = 'L', cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1 ||
	    !(cm = CMSG_FIRSTHDR(&msg)) || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* A child under the notify variant: mount(2) with bad pointers, its
 * errno as the exit status.  With serve, this process answers the one
 * notification the way the supervisor does (EPERM); without, the child
 * closes the listener itself first and the kernel answers ENOSYS.  An
 * alarm ends a child left waiting, so the test fails instead of hanging. */
static int run_notified(bool serve, uint32_t *nr_seen)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;
	int sv[2], status = -1;
	pid_t pid;

	if (seccomp_baseline_notify_compile(NULL, 0, &p, &e) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd;
		long r;

		alarm(10);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, p.flags,
				  &p.prog);
		if (fd < 0)
			_exit(255);
		if (serve && send_fd(sv[1], fd) < 0)
			_exit(254);
		close(fd);
		r = syscall(SYS_mount, "/nonexistent-a", "/nonexistent-b",
			    "corral-none", 0, NULL);
		_exit(r < 0 ? errno : 0);
	}
	seccomp_program_free(&p);
	close(sv[1]);
	if (serve) {
		struct seccomp_notif req = {0};
		struct seccomp_notif_resp resp = {0};
		int fd = recv_fd(sv[0]);

		if (fd >= 0 && ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
			*nr_seen = (uint32_t)req.data.nr;
			resp.id = req.id;
			resp.error = -EPERM;
			ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		}
		if (fd >= 0)
			close(fd);
	}
	close(sv[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(a_notified_call_is_refused_with_eperm_or_enosys_without_listener)
{
	uint32_t nr = 0;

	if (RUNNING_ON_VALGRIND) {
		printf("# skip: valgrind cannot load seccomp filters\n");
		return;
	}
	CHECK(run_notified(true, &nr) == EPERM);
	CHECK(nr == SYS_mount);
	CHECK(run_notified(false, &nr) == ENOSYS);
}

int main(void)
{
	if (RUNNING_ON_VALGRIND)
		seccomp_api_set(3);
	return unit_run();
}
