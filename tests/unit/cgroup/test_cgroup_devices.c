/* Unit tests of runtime/cgroup/cgroup_devices.c: the v2 device program,
 * interpreted, then loaded and attached through a fake bpf(2), on the fake
 * trees of cgroup_fake.c (no root needed). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "cgroup.h"
#include "cgroup_devices.h"
#include "cgroup_fake.h"
#include "unit.h"
#include "util.h"

/* ---- device rules on v2: the BPF program ----------------------------- */

/* The programs are run here by a small interpreter of the opcodes
 * cgroup_devices.c emits, which also refuses what the kernel's verifier
 * would: an unknown opcode, a register read before it is written, a
 * context read other than a u32 field, a jump backwards or out of the
 * program, falling off its end, and an instruction no path reaches. */

struct program {
	struct bpf_insn *v;
	size_t n;
};

static void program_free(struct program *pg)
{
	free(pg->v);
	*pg = (struct program){0};
}

static bool all_reachable(const struct bpf_insn *p, size_t n)
{
	bool seen[BPF_MAXINSNS] = {true};

	if (n == 0 || n > BPF_MAXINSNS)
		return false;
	for (size_t pc = 0; pc < n; pc++) {
		if (!seen[pc]) {
			printf("# instruction %zu is unreachable\n", pc);
			return false;
		}
		if (p[pc].code == (BPF_JMP | BPF_EXIT))
			continue;
		if (BPF_CLASS(p[pc].code) == BPF_JMP) {
			if (p[pc].off < 0 || pc + 1 + (size_t)p[pc].off >= n)
				return false;
			seen[pc + 1 + (size_t)p[pc].off] = true;
		}
		if (pc + 1 >= n)
			return false; /* falls off the end */
		seen[pc + 1] = true;
	}
	return true;
}

/* 1 allow, 0 deny, -1: a program the kernel would refuse. */
static int interpret(const struct bpf_insn *p, size_t n,
		     const struct bpf_cgroup_dev_ctx *ctx)
{
	uint64_t r[MAX_BPF_REG] = {0};
	bool set[MAX_BPF_REG] = {[BPF_REG_1] = true};
	bool ctx_in_r1 = true;

	for (size_t pc = 0; pc < n; pc++) {
		const struct bpf_insn *i = &p[pc];
		uint8_t d = i->dst_reg, s = i->src_reg;
		uint64_t k = (uint64_t)(int64_t)i->imm;
		bool jump = false;
		uint32_t v;

		if (d >= BPF_REG_10 || s >= BPF_REG_10)
			return -1;
		if (BPF_SRC(i->code) == BPF_X &&
		    BPF_CLASS(i->code) != BPF_LDX && !set[s])
			return -1;
		switch (i->code) {
		case BPF_LDX | BPF_MEM | BPF_W:
			if (s != BPF_REG_1 || !ctx_in_r1 || i->off < 0 ||
			    i->off > 8 || i->off % 4)
				return -1;
			memcpy(&v, (const char *)ctx + i->off, sizeof(v));
			r[d] = v;
			break;
		case BPF_ALU64 | BPF_MOV | BPF_X:
			r[d] = r[s];
			break;
		case BPF_ALU64 | BPF_MOV | BPF_K:
			r[d] = k;
			break;
		case BPF_ALU | BPF_MOV | BPF_K:
			r[d] = (uint32_t)i->imm;
			break;
		case BPF_ALU64 | BPF_AND | BPF_K:
		case BPF_ALU64 | BPF_RSH | BPF_K:
			if (!set[d] || (BPF_OP(i->code) == BPF_RSH && k > 63))
				return -1;
			r[d] =
			    BPF_OP(i->code) == BPF_AND ? r[d] & k : r[d] >> k;
			break;
		case BPF_JMP | BPF_JNE | BPF_K:
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JNE | BPF_X:
			if (!set[d] || i->off < 0 ||
			    pc + 1 + (size_t)i->off >= n)
				return -1;
			if (BPF_SRC(i->code) == BPF_X)
				k = r[s];
			jump =
			    BPF_OP(i->code) == BPF_JEQ ? r[d] == k : r[d] != k;
			pc += jump ? (size_t)i->off : 0;
			continue;
		case BPF_JMP | BPF_EXIT:
			return set[0] && r[0] <= 1 ? (int)r[0] : -1;
		default:
			return -1;
		}
		set[d] = true;
		ctx_in_r1 &= d != BPF_REG_1;
	}
	return -1; /* fell off the end */
}

#define ANY (-1)

static struct spec_device_rule rule(bool allow, char type, int64_t major,
				    int64_t minor, const char *access)
{
	struct spec_device_rule d = {
	    .allow = allow, .type = type, .access = (char *)access};

	if (major != ANY)
		d.major = SET(major);
	if (minor != ANY)
		d.minor = SET(minor);
	return d;
}

/* Build the program for rules; false (and a diagnostic) when it fails or
 * has an unreachable instruction. */
static bool build(struct program *pg, const struct spec_device_rule *rules,
		  size_t n)
{
	_cleanup_error_ struct error *e = NULL;

	program_free(pg);
	if (cg_devices_program(rules, n, &pg->v, &pg->n, &e) < 0) {
		printf("# %s\n", e ? e->msg : "failed");
		return false;
	}
	return all_reachable(pg->v, pg->n);
}

/* The verdict on a request written "c 1:3 rw". */
static int verdict(const struct program *pg, const char *request)
{
	static const char acc[] = {
	    ['r'] = BPF_DEVCG_ACC_READ,
	    ['w'] = BPF_DEVCG_ACC_WRITE,
	    ['m'] = BPF_DEVCG_ACC_MKNOD,
	};
	struct bpf_cgroup_dev_ctx ctx = {0};
	unsigned major, minor, type;
	char t, access[4];

	if (sscanf(request, "%c %u:%u %3s", &t, &major, &minor, access) != 4)
		return -2;
	type = t == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
	for (const char *a = access; *a; a++)
		ctx.access_type |= (uint32_t)acc[(unsigned char)*a] << 16;
	ctx.access_type |= type;
	ctx.major = major;
	ctx.minor = minor;
	return interpret(pg->v, pg->n, &ctx);
}

#define ALLOWS(pg, req) CHECK(verdict(pg, req) == 1)
#define DENIES(pg, req) CHECK(verdict(pg, req) == 0)

/* corral's default: deny everything, then the usual character devices. */
static size_t default_rules(struct spec_device_rule *d)
{
	static const int64_t nodes[][2] = {{1, 3}, {1, 5}, {1, 7}, {1, 8},
					   {1, 9}, {5, 0}, {5, 1}, {5, 2}};
	size_t n = 0;

	d[n++] = rule(false, 'a', ANY, ANY, "rwm");
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++)
		d[n++] = rule(true, 'c', nodes[i][0], nodes[i][1], "rwm");
	d[n++] = rule(true, 'c', 136, ANY, "rwm");
	return n;
}

TEST(devices_program_default_corral_set)
{
	struct spec_device_rule d[16];
	struct program pg = {0};
	size_t n = default_rules(d);

	CHECK(build(&pg, d, n));
	for (const char *const *q =
		 (const char *const[]){
		     "c 1:3 rwm", "c 1:3 r", "c 1:3 w", "c 1:3 m", "c 1:5 rw",
		     "c 1:7 rw", "c 1:8 r", "c 1:9 r", "c 5:0 rw", "c 5:1 rw",
		     "c 5:2 rw", "c 136:0 rw", "c 136:1048575 rwm", NULL};
	     *q; q++)
		ALLOWS(&pg, *q);
	for (const char *const *q =
		 (const char *const[]){
		     "c 1:1 r", "c 1:4 r", "c 1:11 w", "c 5:3 rw", "c 4:0 rw",
		     "c 10:200 rw", "c 135:0 r", "c 137:0 r", "b 1:3 r",
		     "b 7:0 rw", "b 136:0 r", "c 0:0 m", NULL};
	     *q; q++)
		DENIES(&pg, *q);
	/* the first rule, "deny a", matches everything: it ends the
	 * program (a "return 0" after it could never run) */
	CHECK(pg.n >= 2 &&
	      pg.v[pg.n - 2].code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
	      pg.v[pg.n - 2].imm == 0);
	program_free(&pg);
}

TEST(devices_program_wildcards)
{
	struct spec_device_rule d[2] = {rule(true, 'c', ANY, 3, "rw"),
					rule(true, 'b', ANY, ANY, "m")};
	struct program pg = {0};

	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "c 1:3 r");
	ALLOWS(&pg, "c 99:3 rw");
	ALLOWS(&pg, "c 4095:3 w");
	DENIES(&pg, "c 99:4 r");
	DENIES(&pg, "b 99:3 r");
	DENIES(&pg, "c 1:3 m");
	ALLOWS(&pg, "b 8:0 m");
	ALLOWS(&pg, "b 259:17 m");
	DENIES(&pg, "b 8:0 r");
	DENIES(&pg, "c 8:0 m");

	/* numbers are u32: above INT32_MAX too, with no sign extension */
	d[0] = rule(true, 'c', 4294967295LL, 2147483648LL, "r");
	CHECK(build(&pg, d, 1));
	ALLOWS(&pg, "c 4294967295:2147483648 r");
	DENIES(&pg, "c 2147483647:2147483648 r");
	DENIES(&pg, "c 4294967295:0 r");

	/* an empty list denies everything */
	CHECK(build(&pg, d, 0));
	DENIES(&pg, "c 1:3 r");
	program_free(&pg);
}

TEST(devices_program_block_and_char)
{
	struct spec_device_rule d[2] = {rule(true, 'b', 8, 0, "rwm")};
	struct program pg = {0};

	CHECK(build(&pg, d, 1));
	ALLOWS(&pg, "b 8:0 rw");
	DENIES(&pg, "c 8:0 rw");
	DENIES(&pg, "b 8:1 rw");
	/* 'a' (and an absent type) is both kinds */
	d[0] = rule(true, 'a', 8, 0, "rwm");
	d[1] = rule(true, 0, 1, 3, NULL);
	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "b 8:0 rw");
	ALLOWS(&pg, "c 8:0 rw");
	DENIES(&pg, "b 8:1 r");
	ALLOWS(&pg, "b 1:3 rwm");
	ALLOWS(&pg, "c 1:3 rwm");
	program_free(&pg);
}

TEST(devices_program_partial_access)
{
	struct spec_device_rule d[2] = {rule(true, 'c', 1, 3, "r")};
	struct program pg = {0};

	CHECK(build(&pg, d, 1));
	ALLOWS(&pg, "c 1:3 r");
	DENIES(&pg, "c 1:3 rw");
	DENIES(&pg, "c 1:3 w");
	DENIES(&pg, "c 1:3 m");
	/* access granted by two rules is not merged: each request must
	 * fit in one (stricter than v1, never looser) */
	d[0] = rule(true, 'c', 1, 3, "rm");
	d[1] = rule(true, 'c', 1, 3, "w");
	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "c 1:3 r");
	ALLOWS(&pg, "c 1:3 rm");
	ALLOWS(&pg, "c 1:3 w");
	DENIES(&pg, "c 1:3 rw");
	program_free(&pg);
}

TEST(devices_program_last_match_wins)
{
	struct spec_device_rule d[4] = {
	    rule(true, 'c', 1, ANY, "rwm"),
	    rule(false, 'c', 1, 5, "rwm"),
	    rule(true, 'c', 1, 5, "r"),
	};
	struct program pg = {0};

	CHECK(build(&pg, d, 3));
	ALLOWS(&pg, "c 1:3 rw");
	ALLOWS(&pg, "c 1:5 r");	 /* the last rule */
	DENIES(&pg, "c 1:5 rw"); /* not within the last: the deny */
	DENIES(&pg, "c 1:5 m");
	/* the same rules the other way round */
	d[0] = rule(true, 'c', 1, 5, "r");
	d[1] = rule(false, 'c', 1, 5, "rwm");
	d[2] = rule(true, 'c', 1, ANY, "rwm");
	CHECK(build(&pg, d, 3));
	ALLOWS(&pg, "c 1:5 rw");
	ALLOWS(&pg, "c 1:5 m");
	/* a catch-all ends the program: nothing before it counts */
	d[0] = rule(false, 'c', 1, 3, "rwm");
	d[1] = rule(true, 'a', ANY, ANY, "rwm");
	CHECK(build(&pg, d, 2));
	CHECK(pg.n == 6 + 2);
	ALLOWS(&pg, "c 1:3 rw");
	ALLOWS(&pg, "b 7:0 m");
	d[2] = rule(false, 'a', ANY, ANY, "rwm");
	CHECK(build(&pg, d, 3));
	DENIES(&pg, "c 1:3 r");
	program_free(&pg);
}

/* A deny rule matches when any access it names is asked, so an open for
 * rw is refused by "deny w", as v1 takes w out of the allowed entry. */
TEST(devices_program_deny_refuses_any_named_access)
{
	struct spec_device_rule d[2] = {rule(true, 'c', 1, ANY, "rwm"),
					rule(false, 'c', 1, 7, "w")};
	struct program pg = {0};

	CHECK(build(&pg, d, 2));
	ALLOWS(&pg, "c 1:7 r");
	ALLOWS(&pg, "c 1:7 m");
	DENIES(&pg, "c 1:7 w");
	DENIES(&pg, "c 1:7 rw");
	DENIES(&pg, "c 1:7 rwm");
	ALLOWS(&pg, "c 1:8 rw");
	program_free(&pg);
}

TEST(devices_program_refuses_bad_rules)
{
	static const struct {
		struct spec_device_rule d;
		const char *msg;
	} bad[] = {
	    {{.allow = true, .type = 'x'}, "devices[1]: rule \"x rwm\": "},
	    {{.allow = true, .type = 'c', .access = (char *)""}, "rule"},
	    {{.allow = true, .type = 'c', .access = (char *)"rwx"}, "rule"},
	    {{.allow = true, .type = 'u'}, "expected type a, b or c"},
	    {{.allow = true, .type = 'c', .major = {true, -1}},
	     "0..4294967295"},
	    {{.allow = false, .minor = {true, 4294967296LL}},
	     "major and minor"},
	};
	struct spec_device_rule d[2] = {rule(true, 'c', 1, 3, "rwm")};
	struct spec_device_rule *many;
	struct bpf_insn *prog = (struct bpf_insn *)&d; /* must be reset */
	size_t len = 99;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_error_ struct error *e = NULL;

		d[1] = bad[i].d;
		CHECK(cg_devices_program(d, 2, &prog, &len, &e) < 0);
		CHECK(e && e->code == EINVAL && msg_has(e, bad[i].msg));
		CHECK(!prog && len == 0);
	}
	/* a list too long for one program is refused, one that fits not */
	many = calloc(409, sizeof(*many));
	for (size_t i = 0; many && i < 409; i++)
		many[i] = rule(true, 'c', (int64_t)i, 1, "r");
	if (many) {
		_cleanup_error_ struct error *e = NULL;

		CHECK(cg_devices_program(many, 409, &prog, &len, &e) < 0);
		CHECK(msg_has(e, "409 rules, at most 408"));
		CHECK(cg_devices_program(many, 408, &prog, &len, &e) == 0);
		CHECK(len <= BPF_MAXINSNS && all_reachable(prog, len));
		free(prog);
	}
	free(many);
}

/* ---- device rules on v2: loading and attaching ------------------------ */

/* bpf(2) as the fake kernel sees it. */
static struct {
	int loads, attaches;
	int load_errno, attach_errno; /* fail with these */
	const char *log;	      /* the verifier's, on a failed load */
	struct program prog;	      /* what was loaded */
	uint32_t prog_type, attach_type, attach_flags;
	char license[16];
	int prog_fd;
	ino_t target; /* the directory attached to */
} fbpf;

static long bpf_on_the_fake(int cmd, void *attr_, unsigned size)
{
	union bpf_attr *a = attr_;
	struct stat st;

	if (size != sizeof(*a))
		return errno = E2BIG, -1;
	if (cmd == BPF_PROG_LOAD) {
		fbpf.loads++;
		if (fbpf.load_errno) {
			if (a->log_level && a->log_buf && fbpf.log)
				snprintf((char *)(uintptr_t)a->log_buf,
					 a->log_size, "%s", fbpf.log);
			return errno = fbpf.load_errno, -1;
		}
		program_free(&fbpf.prog);
		fbpf.prog.v = calloc(a->insn_cnt, sizeof(struct bpf_insn));
		if (!fbpf.prog.v)
			return errno = ENOMEM, -1;
		memcpy(fbpf.prog.v, (void *)(uintptr_t)a->insns,
		       a->insn_cnt * sizeof(struct bpf_insn));
		fbpf.prog.n = a->insn_cnt;
		fbpf.prog_type = a->prog_type;
		snprintf(fbpf.license, sizeof(fbpf.license), "%s",
			 (const char *)(uintptr_t)a->license);
		fbpf.prog_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return fbpf.prog_fd;
	}
	if (cmd != BPF_PROG_ATTACH)
		return errno = EINVAL, -1;
	fbpf.attaches++;
	if (fbpf.attach_errno)
		return errno = fbpf.attach_errno, -1;
	if ((int)a->attach_bpf_fd != fbpf.prog_fd ||
	    fstat((int)a->target_fd, &st) < 0 || !S_ISDIR(st.st_mode))
		return errno = EBADF, -1;
	fbpf.target = st.st_ino;
	fbpf.attach_type = a->attach_type;
	fbpf.attach_flags = a->attach_flags;
	return 0;
}

static void fbpf_reset(void)
{
	program_free(&fbpf.prog);
	fbpf = (__typeof__(fbpf)){.prog_fd = -1};
	fake_bpf = bpf_on_the_fake;
}

TEST(v2_device_rules_attach_a_program)
{
	_cleanup_error_ struct error *e = NULL;
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};
	struct spec_device_rule d[16];
	struct program want = {0};
	char leaf[512];
	struct stat st;

	tree_new(true, ALL_V2);
	fbpf_reset();
	x.r.devices = d;
	x.r.n_devices = default_rules(d);
	x.r.pids_limit = SET(5);
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) == 0);
	if (e)
		printf("# %s\n", e->msg);
	CHECK(skipped && !skipped[0]);
	CHECK(fbpf.loads == 1 && fbpf.attaches == 1);
	CHECK(fbpf.prog_type == BPF_PROG_TYPE_CGROUP_DEVICE);
	CHECK(fbpf.license[0]);
	CHECK(fbpf.attach_type == BPF_CGROUP_DEVICE);
	CHECK(fbpf.attach_flags == BPF_F_ALLOW_MULTI);
	snprintf(leaf, sizeof(leaf), "%s/corral/ct", tree);
	CHECK(stat(leaf, &st) == 0 && st.st_ino == fbpf.target);
	/* the attachment holds the program: corral's fd is closed */
	CHECK(fbpf.prog_fd >= 0 && fcntl(fbpf.prog_fd, F_GETFD) < 0);
	/* what was loaded is the program for the rules */
	CHECK(build(&want, d, x.r.n_devices));
	CHECK(fbpf.prog.n == want.n && want.v &&
	      memcmp(fbpf.prog.v, want.v, want.n * sizeof(*want.v)) == 0);
	ALLOWS(&fbpf.prog, "c 1:3 rw");
	DENIES(&fbpf.prog, "c 1:4 rw");
	CHECK(logged("corral/ct pids.max=5", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	CHECK(no_cgroup_left("corral"));
	cgroup_free(cg);
	program_free(&want);
	program_free(&fbpf.prog);
	tree_free();
}

TEST(v2_device_rules_fail_closed)
{
	_cleanup_strv_ char **skipped = NULL;
	struct cgroup *cg = NULL;
	struct res_bufs x = {0};
	struct error *e = NULL;

	tree_new(true, ALL_V2);
	fbpf_reset();
	x.d[0] = rule(true, 'c', 1, 3, "rwm");
	x.d[1] = rule(true, 'c', 1, 5, "rwz");
	x.r.devices = x.d;
	x.r.n_devices = 2;
	x.r.pids_limit = SET(5);
	/* a wrong rule: refused before any mkdir, best effort or not */
	for (int best_effort = 0; best_effort < 2; best_effort++) {
		CHECK(prepare("corral/ct", &x.r, best_effort, &cg, &skipped,
			      &e) < 0);
		CHECK(msg_has(e, ".linux.resources.devices[1]: rule "
				 "\"c rwz\""));
		CHECK(!exists("corral") && fbpf.loads == 0);
		error_free(e);
		e = NULL;
	}

	/* the verifier refuses: its reason, and nothing is left */
	x.r.n_devices = 1;
	fbpf.load_errno = EACCES;
	fbpf.log = "0: (61) r2 = *(u32 *)(r1 +0)\nR0 !read_ok\n\n";
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "/corral/ct: load the device BPF program: "
			 "Permission denied (verifier: R0 !read_ok)"));
	CHECK(fbpf.loads == 2 && fbpf.attaches == 0);
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;

	/* no log: the cause alone */
	fbpf_reset();
	fbpf.load_errno = EPERM;
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "load the device BPF program: Operation not "
			 "permitted"));
	CHECK(e && !strstr(e->msg, "verifier"));
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;

	/* attaching fails (a parent's program allows no other) */
	fbpf_reset();
	fbpf.attach_errno = EPERM;
	CHECK(prepare("corral/ct", &x.r, false, &cg, &skipped, &e) < 0);
	CHECK(msg_has(e, "/corral/ct: attach the device BPF program: "
			 "Operation not permitted"));
	CHECK(fbpf.prog_fd >= 0 && fcntl(fbpf.prog_fd, F_GETFD) < 0);
	CHECK(no_cgroup_left("corral"));
	error_free(e);
	e = NULL;

	/* best effort: skipped and said so, the rest written */
	CHECK(prepare("corral/ct", &x.r, true, &cg, &skipped, &e) == 0);
	CHECK(has(skipped, ".linux.resources.devices"));
	CHECK(logged("corral/ct pids.max=5", NULL));
	CHECK(cg && cgroup_destroy(cg, &e) == 0);
	cgroup_free(cg);
	program_free(&fbpf.prog);
	tree_free();
}

int main(void)
{
	return unit_run();
}
