/* Unit tests of corral's seccomp baseline, the filter every workload gets,
 * and of the filter cache.  Each case forks a child that loads the compiled
 * filter and makes one raw system call (seccomp_calls.h); no root needed.
 * The filters on corral's own processes: test_seccomp_own.c.
 *
 * The argument filters and the other-ABI checks are also run through a
 * small BPF interpreter over many inputs: it covers what the kernel here
 * may not offer (i386 emulation is often off) and works under valgrind,
 * which does not implement seccomp(2) and so cannot run the children. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "egress_child.h"
#include "egress_seccomp.h"
#include "seccomp_filter.h"
#include "unit.h"
#include "util.h"

#include "seccomp_calls.h"

/* ---- the baseline ------------------------------------------------------ */

static const struct call_case baseline_cases[] = {
    {"getpid", call_getpid, 0},
    {"pipe2+write+read", call_pipe_rw, 0},
    {"openat", call_openat, 0},
    {"mmap", call_mmap, 0},
    {"futex", call_futex_wake, 0},
    {"keyctl", call_keyctl, EPERM},
    {"add_key", call_add_key, EPERM},
    {"bpf", call_bpf, EPERM},
    {"mount", call_mount, EPERM},
    {"umount2", call_umount2, EPERM},
    {"unshare(CLONE_NEWUSER)", call_unshare_user, EPERM},
    {"setns", call_setns, EPERM},
    {"ptrace", call_ptrace, EPERM},
    {"io_uring_setup", call_io_uring_setup, EPERM},
    {"perf_event_open", call_perf_event_open, EPERM},
    {"kexec_load", call_kexec_load, EPERM},
    {"userfaultfd", call_userfaultfd, EPERM},
    {"open_by_handle_at", call_open_by_handle_at, EPERM},
    {"syscall(1000)", call_1000, ENOSYS},
    {"get_mempolicy (not listed)", call_get_mempolicy, ENOSYS},
};

TEST(baseline_allows_ordinary_calls_and_denies_the_dangerous)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(p.flags == 0);
	CHECK(p.prog.len > 0 && p.prog.len <= BPF_MAXINSNS);
	printf("# baseline: %u BPF instructions\n", p.prog.len);
	check_cases(&p, baseline_cases, ARRAY_SIZE(baseline_cases));
	seccomp_program_free(&p);
}

static const struct call_case clone_cases[] = {
    {"clone(SIGCHLD)", call_clone_plain, 0},
    {"clone(CLONE_NEWNS)", call_clone_newns, EPERM},
    {"clone(CLONE_NEWUSER)", call_clone_newuser, EPERM},
    {"clone3", call_clone3, ENOSYS},
    {"fork()", call_fork, 0},
    {"pthread_create", call_thread, 0},
};

TEST(baseline_clone_without_namespaces_only)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	check_cases(&p, clone_cases, ARRAY_SIZE(clone_cases));
	seccomp_program_free(&p);
}

static const struct call_case argument_cases[] = {
    {"socket(AF_UNIX)", call_unix_socket, 0},
    {"socket(AF_INET)", call_inet_socket, 0},
    {"socket(AF_NETLINK, NETLINK_ROUTE)", call_netlink_route, 0},
    {"socketpair(AF_UNIX)", call_unix_socketpair, 0},
    {"socket(AF_PACKET)", call_packet_socket, EPERM},
    {"socket(AF_PACKET | 1 << 32)", call_packet_socket_high, EPERM},
    {"socket(AF_VSOCK)", call_vsock_socket, EPERM},
    {"socket(AF_ALG)", call_alg_socket, EPERM},
    {"socket(AF_NETLINK, NETLINK_AUDIT)", call_audit_socket, EPERM},
    {"socket(AF_NETLINK, NETLINK_AUDIT | 1 << 32)", call_audit_socket_high,
     EPERM},
    {"socketpair(AF_VSOCK)", call_vsock_socketpair, EPERM},
    {"ioctl(FIONREAD) reaches the kernel", call_ioctl_fionread, EBADF},
    {"ioctl(TIOCSTI | 1 << 32)", call_tiocsti_high, EPERM},
    {"ioctl(TIOCLINUX)", call_tioclinux, EPERM},
    {"personality(0xffffffff)", call_personality_query, 0},
    {"personality(PER_LINUX | 1 << 32)", call_personality_linux_high, 0},
    {"personality(PER_BSD)", call_personality_bsd, EPERM},
    {"personality(READ_IMPLIES_EXEC)", call_personality_exec, EPERM},
};

TEST(baseline_filters_socket_ioctl_personality_by_argument)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	check_cases(&p, argument_cases, ARRAY_SIZE(argument_cases));
	seccomp_program_free(&p);
}

TEST(baseline_kills_other_abis)
{
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	if (children_run()) {
		CHECK(outcome(&p, call_x32_getpid) == KILLED);
		if (outcome(NULL, call_int80_getpid) == 0)
			CHECK(outcome(&p, call_int80_getpid) == KILLED);
		else
			printf("# skip: no i386 emulation (int 0x80)\n");
	}
	seccomp_program_free(&p);
}

TEST(baseline_extra_allows_a_listed_call)
{
	char *extra[] = {(char *)"get_mempolicy", (char *)"no_such_call",
			 (char *)"s390_runtime_instr" /* not here: skipped */};
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(extra, ARRAY_SIZE(extra), &p, &e) == 0);
	if (children_run()) {
		CHECK(outcome(&p, call_get_mempolicy) == 0);
		CHECK(outcome(&p, call_mount) == EPERM);
	}
	seccomp_program_free(&p);
}

/* A policy cannot widen the fixed calls: naming one fails the compile, and
 * says which (libseccomp would drop an allow behind the call's own rule). */
TEST(baseline_extra_cannot_allow_fixed_calls)
{
	static const char *const fixed[] = {"mount",	  "unshare", "clone",
					    "clone3",	  "socket",  "ioctl",
					    "personality"};

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		char *extra[] = {(char *)"get_mempolicy", (char *)fixed[i]};
		struct seccomp_program p;
		struct error *e = NULL;

		CHECK(seccomp_baseline_compile(extra, 2, &p, &e) < 0);
		CHECK(p.prog.filter == NULL);
		CHECK(e && strstr(e->msg, fixed[i]));
		if (e)
			printf("# %s\n", e->msg);
		error_free(e);
	}
}

/* ---- the BPF, evaluated here ------------------------------------------- */

#include "seccomp_eval.h"

/* The x32 and i386 numbers of getpid, run through the x86-64 filter. */
TEST(bpf_other_abis_are_killed)
{
	struct seccomp_program b, s;
	_cleanup_error_ struct error *e = NULL;
	uint32_t native = seccomp_arch_native();

	CHECK(seccomp_baseline_compile(NULL, 0, &b, &e) == 0);
	CHECK(seccomp_supervisor_compile(&s, &e) == 0);
	CHECK(verdict(&b, SYS_getpid, native, NULL) == SECCOMP_RET_ALLOW);
	CHECK(verdict(&b, 1000, native, NULL) == RET_ENOSYS);
	/* -1 is left to the kernel (tracers use it to skip a call) */
	CHECK(verdict(&b, -1, native, NULL) == RET_ENOSYS);
#if defined(__x86_64__)
	for (int i = 0; i < 2; i++) {
		const struct seccomp_program *p = i ? &s : &b;

		CHECK(verdict(p, __X32_SYSCALL_BIT | SYS_getpid, native,
			      NULL) == SECCOMP_RET_KILL_PROCESS);
		CHECK(verdict(p, __X32_SYSCALL_BIT | 1000, native, NULL) ==
		      SECCOMP_RET_KILL_PROCESS);
		CHECK(verdict(p, 20 /* getpid */, AUDIT_ARCH_I386, NULL) ==
		      SECCOMP_RET_KILL_PROCESS);
	}
#endif
	seccomp_program_free(&b);
	seccomp_program_free(&s);
}

/* Values around the filters' cut points, every bit, and pseudo-random
 * ones, each with 0, 1, all ones and random bits in the upper half. */
static size_t make_samples(uint64_t *out, size_t max)
{
	static const uint32_t near[] = {0,	8,	 9,	  16,
					17,	38,	 40,	  0x5412,
					0x541c, 0x20000, 0x20008, 0xffffffff};
	static const uint32_t highs[] = {0, 1, 0xffffffff, 0x5eed};
	uint32_t lows[1200], x = 12345;
	size_t n = 0, k = 0;

	for (uint32_t v = 0; v < 80; v++)
		lows[n++] = v;
	for (size_t i = 0; i < ARRAY_SIZE(near); i++)
		for (int d = -2; d <= 2; d++)
			lows[n++] = near[i] + (uint32_t)d;
	for (int b = 0; b < 32; b++) {
		lows[n++] = UINT32_C(1) << b;
		lows[n++] = (UINT32_C(1) << b) - 1;
		lows[n++] = ~(UINT32_C(1) << b);
	}
	while (n < ARRAY_SIZE(lows)) {
		x = x * 1103515245 + 12345;
		lows[n++] = x ^ (x >> 13);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t h = 0; h < ARRAY_SIZE(highs) && k < max; h++)
			out[k++] = (uint64_t)highs[h] << 32 | lows[i];
	return k;
}

static const uint32_t namespace_flags =
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;

static bool in(uint32_t v, const uint32_t *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

/* The expected answer of the baseline for nr with argument arg = x, the
 * other arguments as in args. */
static uint32_t expected(int nr, unsigned int arg, uint64_t x,
			 const uint64_t *args)
{
	static const uint32_t bad_domains[] = {AF_PACKET, AF_ALG, AF_VSOCK};
	static const uint32_t personas[] = {0, 8, 0x20000, 0x20008, 0xffffffff};
	uint32_t low = (uint32_t)x;
	uint64_t a[6];
	bool deny;

	memcpy(a, args, sizeof(a));
	a[arg] = x;
	if (nr == SYS_socket || nr == SYS_socketpair)
		deny = in((uint32_t)a[0], bad_domains, 3) ||
		       ((uint32_t)a[0] == AF_NETLINK &&
			(uint32_t)a[2] == NETLINK_AUDIT);
	else if (nr == SYS_ioctl)
		deny = low == TIOCSTI || low == TIOCLINUX;
	else if (nr == SYS_personality)
		deny = !in(low, personas, ARRAY_SIZE(personas));
	else
		deny = (low & namespace_flags) != 0; /* clone */
	return deny ? RET_EPERM : SECCOMP_RET_ALLOW;
}

TEST(bpf_argument_filters_over_many_values)
{
	static const struct {
		int nr;
		unsigned int arg;
		uint64_t args[6];
	} rows[] = {
		{SYS_socket, 0, {0, SOCK_STREAM, 0}},
		{SYS_socket, 0, {0, SOCK_RAW, NETLINK_AUDIT}},
		{SYS_socket, 2, {AF_NETLINK, SOCK_RAW, 0}},
		{SYS_socket, 2, {AF_INET, SOCK_RAW, 0}},
		{SYS_socketpair, 0, {0, SOCK_STREAM, 0}},
		{SYS_socketpair, 2, {AF_NETLINK, SOCK_RAW, 0}},
		{SYS_ioctl, 1, {0}},
		{SYS_personality, 0, {0}},
#if defined(__x86_64__)
		{SYS_clone, 0, {0}},
#endif
	};
	static uint64_t samples[5000];
	size_t n = make_samples(samples, ARRAY_SIZE(samples)), wrong = 0;
	struct seccomp_program p;
	_cleanup_error_ struct error *e = NULL;

	CHECK(seccomp_baseline_compile(NULL, 0, &p, &e) == 0);
	for (size_t r = 0; r < ARRAY_SIZE(rows); r++)
		for (size_t i = 0; i < n; i++) {
			uint64_t a[6];
			uint32_t want, got;

			memcpy(a, rows[r].args, sizeof(a));
			a[rows[r].arg] = samples[i];
			want = expected(rows[r].nr, rows[r].arg, samples[i],
					rows[r].args);
			got = verdict(&p, rows[r].nr, seccomp_arch_native(), a);
			if (got != want && wrong++ < 5)
				printf("# call %d arg %u = %#llx: got %#x, "
				       "expected %#x\n",
				       rows[r].nr, rows[r].arg,
				       (unsigned long long)samples[i], got,
				       want);
		}
	printf("# %zu values per argument\n", n);
	CHECK(wrong == 0);
	seccomp_program_free(&p);
}

static bool same_program(const struct seccomp_program *a,
			 const struct seccomp_program *b)
{
	return a->flags == b->flags && a->prog.len == b->prog.len &&
	       memcmp(a->prog.filter, b->prog.filter,
		      a->prog.len * sizeof(struct sock_filter)) == 0;
}

/* The copies made at build time are what libseccomp builds now: a source
 * change that missed the generator, or another libseccomp, shows here. */
TEST(prebuilt_filters_match_a_fresh_build)
{
	struct seccomp_program pre, built;
	_cleanup_error_ struct error *e = NULL;
	char *extra[] = {(char *)"get_mempolicy"};

	CHECK(seccomp_prebuilt_baseline.arch == seccomp_arch_native());
	CHECK(seccomp_baseline_compile(NULL, 0, &pre, &e) == 0);
	CHECK(seccomp_baseline_build(NULL, 0, &built, &e) == 0);
	CHECK(pre.prog.filter != seccomp_prebuilt_baseline.filter);
	CHECK(same_program(&pre, &built));
	seccomp_program_free(&pre);
	seccomp_program_free(&built);
	CHECK(seccomp_supervisor_compile(&pre, &e) == 0);
	CHECK(seccomp_supervisor_build(&built, &e) == 0);
	CHECK(same_program(&pre, &built));
	seccomp_program_free(&pre);
	seccomp_program_free(&built);
	CHECK(seccomp_prebuilt_copy(&seccomp_prebuilt_egress, &pre, &e) == 1);
	CHECK(seccomp_egress_build(&built, &e) == 0);
	CHECK(same_program(&pre, &built));
	seccomp_program_free(&pre);
	seccomp_program_free(&built);
	CHECK(seccomp_self_only_build(&built, &e) == 0);
	CHECK(built.prog.len == seccomp_prebuilt_self_only.len &&
	      memcmp(built.prog.filter, seccomp_prebuilt_self_only.filter,
		     built.prog.len * sizeof(struct sock_filter)) == 0);
	seccomp_program_free(&built);
	/* a policy's extra call is built, not the prebuilt copy */
	CHECK(seccomp_baseline_compile(extra, 1, &pre, &e) == 0);
	CHECK(pre.prog.len != seccomp_prebuilt_baseline.len ||
	      memcmp(pre.prog.filter, seccomp_prebuilt_baseline.filter,
		     pre.prog.len * sizeof(struct sock_filter)) != 0);
	seccomp_program_free(&pre);
}

/* config.json's filter through the cache in a state root: a miss
 * compiles and stores, a hit returns what is stored, an entry under the
 * same name but for another key is a miss, and a full cache stores no
 * more. */
static void plant_entry(const char *dir, const char *name, const char *key,
			const struct seccomp_program *p)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fprintf(f, "corral-seccomp-1\n%zu %u %u\n%s", strlen(key), p->flags,
		(unsigned)p->prog.len, key);
	fwrite(p->prog.filter, sizeof(struct sock_filter), p->prog.len, f);
	fclose(f);
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	*len = f ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

TEST(config_filter_cache_hits_misses_and_bounds)
{
	char root[] = "/tmp/corral-test-seccomp-XXXXXX", dir[4096], path[8192];
	char *names[] = {(char *)"getpid"};
	struct spec_syscall rule = {
	    .names = names, .n_names = 1, .action = (char *)"SCMP_ACT_ALLOW"};
	struct spec_seccomp sc = {.default_action = (char *)"SCMP_ACT_ERRNO",
				  .syscalls = &rule,
				  .n_syscalls = 1};
	struct seccomp_program fresh, a, b, other;
	_cleanup_error_ struct error *e = NULL;
	_cleanup_free_ char *entry = NULL, *key = NULL;
	char name[256] = "";
	size_t len;
	DIR *d;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/.seccomp", root);
	CHECK(seccomp_compile(&sc, &fresh, &e) == 0);
	CHECK(seccomp_compile_cached(root, &sc, &a, &e) == 0);
	CHECK(same_program(&fresh, &a));
	/* one entry, holding its key */
	d = opendir(dir);
	for (struct dirent *x; d && (x = readdir(d));)
		if (x->d_name[0] != '.')
			snprintf(name, sizeof(name), "%s", x->d_name);
	if (d)
		closedir(d);
	CHECK(strlen(name) == 16);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	entry = read_whole(path, &len);
	CHECK(strstr(entry, "\"SCMP_ACT_ERRNO\"") != NULL);
	key = strndup(
	    strchr(strchr(entry, '\n') + 1, '\n') + 1,
	    len - (size_t)(strchr(strchr(entry, '\n') + 1, '\n') + 1 - entry) -
		a.prog.len * sizeof(struct sock_filter));
	/* a hit returns the stored program: plant another one under the key */
	CHECK(seccomp_supervisor_build(&other, &e) == 0);
	plant_entry(dir, name, key, &other);
	CHECK(seccomp_compile_cached(root, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &other));
	seccomp_program_free(&b);
	/* the same name with another key is a miss, and is rewritten */
	plant_entry(dir, name, "another key", &other);
	CHECK(seccomp_compile_cached(root, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &fresh));
	seccomp_program_free(&b);
	/* a full cache stores nothing new */
	CHECK(unlink(path) == 0);
	for (int i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "%s/filler%02d", dir, i);
		fclose(fopen(path, "w"));
	}
	CHECK(seccomp_compile_cached(root, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &fresh));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	CHECK(access(path, F_OK) < 0);
	seccomp_program_free(&b);
	/* no state root: compiled, no cache */
	CHECK(seccomp_compile_cached(NULL, &sc, &b, &e) == 0);
	CHECK(same_program(&b, &fresh));
	seccomp_program_free(&b);
	for (int i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "%s/filler%02d", dir, i);
		unlink(path);
	}
	rmdir(dir);
	rmdir(root);
	seccomp_program_free(&fresh);
	seccomp_program_free(&a);
	seccomp_program_free(&other);
}

/* valgrind does not implement seccomp(2), so libseccomp's probe of the
 * kernel finds no SECCOMP_RET_KILL_PROCESS; level 3 says it is there. */
int main(void)
{
	if (RUNNING_ON_VALGRIND)
		seccomp_api_set(3);
	return unit_run();
}
