/* sysprobe: the security battery's system-call prober, run inside a
 * container (static, so it needs nothing from the image).
 *
 *   sysprobe PROBE...          one line "PROBE RESULT" per probe
 *   sysprobe fds               the open fds, one a line (not its own dirfd)
 *   sysprobe ids               "ids RUID EUID SUID RGID EGID SGID"
 *   sysprobe caps              the Cap* lines of its own /proc/self/status
 *   sysprobe securebits        "securebits 0xNN", prctl(PR_GET_SECUREBITS)
 *                              (/proc shows them nowhere)
 *   sysprobe connect IP PORT   "connect RESULT" (IPv4, 3 s at most)
 *   sysprobe connectunix PATH  "connect RESULT"; @NAME is an abstract name
 *   sysprobe openw PATH...     "PATH RESULT" for open(PATH, O_WRONLY)
 *   sysprobe scanexe SECONDS   watch /proc/[pid]/exe of every process
 *   sysprobe repeat N PROBE    the probe N times: "PROBE N RESULT" per
 *                              distinct result, in the order first seen
 *   sysprobe timed N PROBE     as repeat, then "ns_per_call NS"
 *   sysprobe fdlinks           "FD TARGET" for each open fd
 *
 * RESULT is "OK" when the call succeeded, or the errno's name.  Each call
 * is made with a bad fd, a bad pointer or bad flags, so that a call the
 * seccomp filter lets through fails in the kernel with EBADF, EFAULT,
 * EINVAL ... and does nothing, while a refused one fails with EPERM (or
 * ENOSYS).  The probes "int80" and "x32" make a call through another ABI:
 * the filter kills the process (SIGSYS), so they print only if they
 * survived.
 *
 * scanexe prints "exe PID TARGET" once per distinct (PID, TARGET) it can
 * read, and "WRITABLE PID TARGET" for any /proc/PID/exe that opens for
 * writing (CVE-2019-5736), until SECONDS have passed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

/* An address no process maps: the kernel answers EFAULT for it. */
#define BAD ((void *)1)

static long p_keyctl(void)
{
	return syscall(SYS_keyctl, 0x7fffffff, 0, 0, 0, 0);
}

static long p_add_key(void)
{
	return syscall(SYS_add_key, BAD, BAD, NULL, 0, -2);
}

static long p_request_key(void)
{
	return syscall(SYS_request_key, BAD, BAD, NULL, 0);
}

/* UFFD_USER_MODE_ONLY (1) needs no privilege; bit 2 is invalid. */
static long p_userfaultfd(void)
{
	return syscall(SYS_userfaultfd, 1 | 2);
}

static long p_io_uring_setup(void)
{
	return syscall(SYS_io_uring_setup, 0, BAD);
}

static long p_bpf(void)
{
	return syscall(SYS_bpf, -1, BAD, 0);
}

static long p_perf_event_open(void)
{
	return syscall(SYS_perf_event_open, BAD, 0, -1, -1, 0);
}

/* FAN_REPORT_FID (0x200): the unprivileged kind of fanotify group. */
static long p_fanotify_init(void)
{
	return syscall(SYS_fanotify_init, 0x200, O_RDONLY);
}

static long p_kexec_load(void)
{
	return syscall(SYS_kexec_load, 0, 0, NULL, ~0UL);
}

static long p_finit_module(void)
{
	return syscall(SYS_finit_module, -1, BAD, 0);
}

/* No LINUX_REBOOT_MAGIC: even a privileged caller gets EINVAL. */
static long p_reboot(void)
{
	return syscall(SYS_reboot, 0, 0, 0, NULL);
}

static long p_swapon(void)
{
	return syscall(SYS_swapon, BAD, 0);
}

static long p_acct(void)
{
	return syscall(SYS_acct, BAD);
}

/* SYSLOG_ACTION_SIZE_BUFFER: reads nothing. */
static long p_syslog(void)
{
	return syscall(SYS_syslog, 10, NULL, 0);
}

static long p_open_by_handle_at(void)
{
	return syscall(SYS_open_by_handle_at, -1, BAD, 0);
}

static long p_name_to_handle_at(void)
{
	return syscall(SYS_name_to_handle_at, AT_FDCWD, "/", BAD, BAD, 0);
}

/* CLONE_NEWUSER with CLONE_FS is always EINVAL: nothing is created. */
static long p_clone_newuser(void)
{
	return syscall(SYS_clone, CLONE_NEWUSER | CLONE_FS | SIGCHLD, NULL,
		       NULL, NULL, 0);
}

static long p_clone3(void)
{
	return syscall(SYS_clone3, NULL, 0);
}

/* Bit 0 lies in CSIGNAL, which unshare never accepts: EINVAL. */
static long p_unshare(void)
{
	return syscall(SYS_unshare, CLONE_NEWUSER | 1);
}

static long p_setns(void)
{
	return syscall(SYS_setns, -1, 0);
}

static long p_mount(void)
{
	return syscall(SYS_mount, BAD, BAD, BAD, 0, NULL);
}

static long p_pivot_root(void)
{
	return syscall(SYS_pivot_root, BAD, BAD);
}

static long p_chroot(void)
{
	return syscall(SYS_chroot, BAD);
}

static long p_fsopen(void)
{
	return syscall(SYS_fsopen, BAD, 0);
}

static long p_open_tree(void)
{
	return syscall(SYS_open_tree, -1, BAD, 0);
}

static long p_move_mount(void)
{
	return syscall(SYS_move_mount, -1, BAD, -1, BAD, 0);
}

static long p_mount_setattr(void)
{
	return syscall(SYS_mount_setattr, -1, BAD, 0, NULL, 0);
}

static long p_ptrace_attach(void)
{
	return syscall(SYS_ptrace, PTRACE_ATTACH, getppid(), NULL, NULL);
}

/* A pid no process has: a permitted ptrace answers ESRCH. */
static long p_ptrace_nopid(void)
{
	return syscall(SYS_ptrace, PTRACE_ATTACH, 0x3ffffff0, NULL, NULL);
}

/* Flags must be 0: EINVAL before any memory is touched. */
static long p_process_vm_writev(void)
{
	return syscall(SYS_process_vm_writev, getppid(), NULL, 0, NULL, 0, 1);
}

static long p_process_vm_readv(void)
{
	return syscall(SYS_process_vm_readv, getppid(), NULL, 0, NULL, 0, 1);
}

static long p_pidfd_getfd(void)
{
	return syscall(SYS_pidfd_getfd, -1, 0, 0);
}

/* Allowed, it would succeed: put the old persona back. */
static long p_personality(void)
{
	long old = syscall(SYS_personality, READ_IMPLIES_EXEC);

	if (old >= 0)
		syscall(SYS_personality, old);
	return old;
}

static long p_socket_vsock(void)
{
	return socket(AF_VSOCK, SOCK_STREAM, 0);
}

static long p_socket_alg(void)
{
	return socket(AF_ALG, SOCK_SEQPACKET, 0);
}

static long p_socket_packet(void)
{
	return socket(AF_PACKET, SOCK_RAW, 0);
}

/* The kernel reads the family as int: the upper 32 bits are ignored. */
static long p_socket_packet_hibits(void)
{
	return syscall(SYS_socket, (1UL << 32) | AF_PACKET, SOCK_DGRAM, 0);
}

static long p_netlink_audit(void)
{
	return socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT);
}

static long p_socket_raw(void)
{
	return socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
}

static long p_socket_ping(void)
{
	return socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
}

static long p_tiocsti(void)
{
	return syscall(SYS_ioctl, -1, TIOCSTI, BAD);
}

/* ioctl's request is an unsigned int: the kernel drops the upper bits. */
static long p_tiocsti_hibits(void)
{
	return syscall(SYS_ioctl, -1, (1UL << 32) | TIOCSTI, BAD);
}

static long p_tioclinux(void)
{
	return syscall(SYS_ioctl, -1, TIOCLINUX, BAD);
}

static long p_bind80(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(80)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa));
}

/* Copied in before the capability check: EFAULT when allowed. */
static long p_settime(void)
{
	return syscall(SYS_clock_settime, CLOCK_REALTIME, BAD);
}

static long p_settimeofday(void)
{
	return syscall(SYS_settimeofday, BAD, NULL);
}

/* A higher priority needs CAP_SYS_NICE: EACCES. */
static long p_nice(void)
{
	return setpriority(PRIO_PROCESS, 0, -5);
}

/* Raising the hard limit needs CAP_SYS_RESOURCE: EPERM. */
static long p_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	rl.rlim_max += 1;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

/* unshare(CLONE_NEWUSER) through the i386 ABI (number 310). */
static long p_int80(void)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(310L), "b"((long)CLONE_NEWUSER)
			 : "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
#else
	errno = EOPNOTSUPP;
	return -1;
#endif
}

/* unshare(CLONE_NEWUSER) with the x32 bit on the x86-64 number. */
static long p_x32(void)
{
#if defined(__x86_64__)
	return syscall(__X32_SYSCALL_BIT | SYS_unshare, CLONE_NEWUSER);
#else
	errno = EOPNOTSUPP;
	return -1;
#endif
}

static const struct {
	const char *name;
	long (*fn)(void);
} probes[] = {
    {"keyctl", p_keyctl},
    {"add_key", p_add_key},
    {"request_key", p_request_key},
    {"userfaultfd", p_userfaultfd},
    {"io_uring_setup", p_io_uring_setup},
    {"bpf", p_bpf},
    {"perf_event_open", p_perf_event_open},
    {"fanotify_init", p_fanotify_init},
    {"kexec_load", p_kexec_load},
    {"finit_module", p_finit_module},
    {"reboot", p_reboot},
    {"swapon", p_swapon},
    {"acct", p_acct},
    {"syslog", p_syslog},
    {"open_by_handle_at", p_open_by_handle_at},
    {"name_to_handle_at", p_name_to_handle_at},
    {"clone_newuser", p_clone_newuser},
    {"clone3", p_clone3},
    {"unshare", p_unshare},
    {"setns", p_setns},
    {"mount", p_mount},
    {"pivot_root", p_pivot_root},
    {"chroot", p_chroot},
    {"fsopen", p_fsopen},
    {"open_tree", p_open_tree},
    {"move_mount", p_move_mount},
    {"mount_setattr", p_mount_setattr},
    {"ptrace_attach", p_ptrace_attach},
    {"ptrace_nopid", p_ptrace_nopid},
    {"process_vm_writev", p_process_vm_writev},
    {"process_vm_readv", p_process_vm_readv},
    {"pidfd_getfd", p_pidfd_getfd},
    {"personality", p_personality},
    {"socket_vsock", p_socket_vsock},
    {"socket_alg", p_socket_alg},
    {"socket_packet", p_socket_packet},
    {"socket_packet_hibits", p_socket_packet_hibits},
    {"netlink_audit", p_netlink_audit},
    {"socket_raw", p_socket_raw},
    {"socket_ping", p_socket_ping},
    {"tiocsti", p_tiocsti},
    {"tiocsti_hibits", p_tiocsti_hibits},
    {"tioclinux", p_tioclinux},
    {"bind80", p_bind80},
    {"nice", p_nice},
    {"settime", p_settime},
    {"settimeofday", p_settimeofday},
    {"raise_nofile", p_raise_nofile},
    {"int80", p_int80},
    {"x32", p_x32},
};

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);
	static char buf[16];

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static void report(const char *what, long ret)
{
	printf("%s %s\n", what, ret < 0 ? errname(errno) : "OK");
	fflush(stdout);
}

static int run_probe(const char *name)
{
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (strcmp(probes[i].name, name) == 0) {
			errno = 0;
			report(name, probes[i].fn());
			return 0;
		}
	}
	fprintf(stderr, "sysprobe: unknown probe %s\n", name);
	return 2;
}

/* The probe n times, counting each result (at most a few distinct). */
static int repeat_probe(const char *count, const char *name, bool timed)
{
	struct timespec t0, t1;
	struct {
		int err;
		long n;
	} seen[8];
	size_t n_seen = 0;
	char *end;
	long n = strtol(count, &end, 10);

	if (*end || n <= 0) {
		fprintf(stderr, "sysprobe: bad count %s\n", count);
		return 2;
	}
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (strcmp(probes[i].name, name) != 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long k = 0; k < n; k++) {
			long ret;
			int e;
			size_t j;

			errno = 0;
			ret = probes[i].fn();
			e = ret < 0 ? errno : 0;
			for (j = 0; j < n_seen && seen[j].err != e; j++)
				;
			if (j == n_seen && n_seen < 8)
				seen[n_seen++].err = e, seen[j].n = 0;
			if (j < n_seen)
				seen[j].n++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (size_t j = 0; j < n_seen; j++)
			printf("%s %ld %s\n", name, seen[j].n,
			       seen[j].err ? errname(seen[j].err) : "OK");
		if (timed)
			printf("ns_per_call %.1f\n",
			       ((t1.tv_sec - t0.tv_sec) * 1e9 +
				(t1.tv_nsec - t0.tv_nsec)) /
				   (double)n);
		return 0;
	}
	fprintf(stderr, "sysprobe: unknown probe %s\n", name);
	return 2;
}

/* Each open fd and what it is (readlink of /proc/self/fd/N). */
static int list_fd_links(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[64], target[256];

	if (!d) {
		perror("sysprobe: /proc/self/fd");
		return 1;
	}
	while ((e = readdir(d))) {
		ssize_t len;

		if (e->d_name[0] == '.' ||
		    strtol(e->d_name, NULL, 10) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%.20s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len < 0 ? 0 : len] = '\0';
		printf("%s %s\n", e->d_name, len < 0 ? "?" : target);
	}
	closedir(d);
	return 0;
}

static int list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d) {
		perror("sysprobe: /proc/self/fd");
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    strtol(e->d_name, NULL, 10) == dirfd(d))
			continue;
		printf("%s\n", e->d_name);
	}
	closedir(d);
	return 0;
}

static int print_ids(void)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0) {
		perror("sysprobe: getresuid");
		return 1;
	}
	printf("ids %u %u %u %u %u %u\n", r, e, s, rg, eg, sg);
	return 0;
}

static int print_caps(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	if (!f) {
		perror("sysprobe: /proc/self/status");
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Cap", 3) == 0)
			fputs(line, stdout);
	fclose(f);
	return 0;
}

static int print_securebits(void)
{
	int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);

	if (bits < 0) {
		perror("sysprobe: PR_GET_SECUREBITS");
		return 1;
	}
	printf("securebits 0x%02x\n", bits);
	return 0;
}

static int probe_connect(const char *ip, const char *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	char *end;
	long p = strtol(port, &end, 10);
	int fd;

	if (*end || p <= 0 || p > 65535 ||
	    inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
		fprintf(stderr, "sysprobe: bad address %s %s\n", ip, port);
		return 2;
	}
	sa.sin_port = htons((uint16_t)p);
	alarm(3);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		report("socket", -1);
		return 0;
	}
	report("connect", connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	return 0;
}

static int probe_connect_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len = strlen(path);
	int fd;

	if (len == 0 || len >= sizeof(sa.sun_path)) {
		fprintf(stderr, "sysprobe: bad socket path %s\n", path);
		return 2;
	}
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	alarm(3);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) {
		report("socket", -1);
		return 0;
	}
	report(
	    "connect",
	    connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)));
	return 0;
}

static int open_for_writing(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		int fd = open(argv[i], O_WRONLY | O_CLOEXEC);

		report(argv[i], fd);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

#define SEEN_MAX 4096

/* One pass over /proc: report the exe links not seen before, and any
 * that opens for writing. */
static void scan_once(char seen[][300], size_t *n_seen)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[64], target[256], key[300];

	if (!d)
		return;
	while ((e = readdir(d))) {
		ssize_t len;
		size_t i;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/exe", e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		len = readlink(path, target, sizeof(target) - 1);
		target[len < 0 ? 0 : len] = '\0';
		if (fd >= 0) {
			printf("WRITABLE %.20s %s\n", e->d_name, target);
			close(fd);
		}
		if (len < 0)
			continue;
		snprintf(key, sizeof(key), "%.20s %.255s", e->d_name, target);
		for (i = 0; i < *n_seen; i++)
			if (strcmp(seen[i], key) == 0)
				break;
		if (i < *n_seen || *n_seen == SEEN_MAX)
			continue;
		memcpy(seen[(*n_seen)++], key, sizeof(key));
		printf("exe %s\n", key);
	}
	closedir(d);
	fflush(stdout);
}

static int scan_exe(const char *seconds)
{
	static char seen[SEEN_MAX][300];
	size_t n_seen = 0;
	char *end;
	long s = strtol(seconds, &end, 10);
	struct timespec now, stop;

	if (*end || s <= 0 || s > 60) {
		fprintf(stderr, "sysprobe: bad duration %s\n", seconds);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &stop);
	stop.tv_sec += s;
	do {
		scan_once(seen, &n_seen);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < stop.tv_sec ||
		 (now.tv_sec == stop.tv_sec && now.tv_nsec < stop.tv_nsec));
	printf("scan done\n");
	return 0;
}

int main(int argc, char **argv)
{
	int r = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: sysprobe PROBE... | fds | ids | caps | "
				"securebits | "
				"connect IP PORT | connectunix PATH | "
				"openw PATH... | "
				"scanexe SECONDS | repeat|timed N PROBE | "
				"fdlinks\n");
		return 2;
	}
	if (strcmp(argv[1], "fds") == 0)
		return list_fds();
	if (strcmp(argv[1], "fdlinks") == 0)
		return list_fd_links();
	if (strcmp(argv[1], "repeat") == 0 && argc == 4)
		return repeat_probe(argv[2], argv[3], false);
	if (strcmp(argv[1], "timed") == 0 && argc == 4)
		return repeat_probe(argv[2], argv[3], true);
	if (strcmp(argv[1], "ids") == 0)
		return print_ids();
	if (strcmp(argv[1], "caps") == 0)
		return print_caps();
	if (strcmp(argv[1], "securebits") == 0)
		return print_securebits();
	if (strcmp(argv[1], "connect") == 0 && argc == 4)
		return probe_connect(argv[2], argv[3]);
	if (strcmp(argv[1], "connectunix") == 0 && argc == 3)
		return probe_connect_unix(argv[2]);
	if (strcmp(argv[1], "openw") == 0)
		return open_for_writing(argc - 2, argv + 2);
	if (strcmp(argv[1], "scanexe") == 0 && argc == 3)
		return scan_exe(argv[2]);
	for (int i = 1; i < argc && r == 0; i++)
		r = run_probe(argv[i]);
	return r;
}
