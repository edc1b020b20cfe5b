/* Device rules on cgroup v2.  v2 has no devices.allow and devices.deny:
 * a cgroup's device access is decided by BPF_PROG_TYPE_CGROUP_DEVICE
 * programs attached to it, which the kernel runs on every open(2) and
 * mknod(2) of a device node by a process of the cgroup or below it.  This
 * file turns linux.resources.devices into such a program with the
 * semantics of the v1 controller (cgroup_v1.c writes the same rules
 * there): the rules apply in order, the last one that matches decides,
 * and what no rule matches is denied.  An allow rule matches an access
 * when all the access asked is in its "rwm"; a deny rule when any of it
 * is: "deny c 1:5 w" after "allow c 1:5 rwm" must refuse an O_RDWR open
 * (asking rw at once), as v1 does by taking w out of the allowed entry.
 *
 * The program is emitted from the last rule to the first, each rule a
 * block that returns the rule's verdict when every test in it passes and
 * otherwise jumps to the next block; after the blocks, "return 0":
 *
 *	r2 = ctx->access_type & 0xffff	the device type (BLOCK or CHAR)
 *	r3 = ctx->access_type >> 16	the access asked (MKNOD|READ|WRITE)
 *	r4 = ctx->major
 *	r5 = ctx->minor
 *    rule n-1:
 *	if r2 != TYPE goto rule n-2		not for type 'a'
 *	r1 = r3; r1 &= ~ACCESS; if r1 != 0 goto rule n-2
 *						allow: asked not all in it
 *	r1 = r3; r1 &= ACCESS; if r1 == 0 goto rule n-2
 *						deny: asked none of it
 *						(neither when ACCESS is rwm)
 *	w1 = MAJOR; if r4 != r1 goto rule n-2	not for a wildcard
 *	w1 = MINOR; if r5 != r1 goto rule n-2	not for a wildcard
 *	r0 = ALLOW; exit
 *    rule n-2: ...
 *	r0 = 0; exit
 *
 * A rule without tests matches everything, so what would follow it could
 * never run, and the verifier refuses unreachable instructions: emitting
 * stops there.  Only forward jumps are emitted, so the program ends. */
#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup_devices.h"
#include "cgroup_fs.h"
#include "util.h"

/* ---- instructions ------------------------------------------------------- */

/* Registers: r1 holds the context on entry and is scratch after the
 * prologue has read it; r0 is the verdict (1 allow, 0 deny). */
enum {
	R_VERDICT = BPF_REG_0,
	R_CTX = BPF_REG_1,
	R_TMP = BPF_REG_1,
	R_TYPE = BPF_REG_2,
	R_ACCESS = BPF_REG_3,
	R_MAJOR = BPF_REG_4,
	R_MINOR = BPF_REG_5,
};

#define INSN(op, dst, src, o, i)                                               \
	((struct bpf_insn){.code = (op),                                       \
			   .dst_reg = (dst),                                   \
			   .src_reg = (src),                                   \
			   .off = (o),                                         \
			   .imm = (i)})
/* dst = (u32)ctx->field, zero-extended */
#define LOAD_CTX(dst, field)                                                   \
	INSN(BPF_LDX | BPF_MEM | BPF_W, dst, R_CTX,                            \
	     offsetof(struct bpf_cgroup_dev_ctx, field), 0)
#define MOV_REG(dst, src) INSN(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV_IMM(dst, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, i)
/* 32-bit move: the upper half is zeroed, so any u32 arrives unchanged */
#define MOV32_IMM(dst, i) INSN(BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, i)
#define AND_IMM(dst, i) INSN(BPF_ALU64 | BPF_AND | BPF_K, dst, 0, 0, i)
#define RSH_IMM(dst, i) INSN(BPF_ALU64 | BPF_RSH | BPF_K, dst, 0, 0, i)
/* "goto the next rule": the offset is filled in when the block ends */
#define JNE_IMM(dst, i) INSN(BPF_JMP | BPF_JNE | BPF_K, dst, 0, 0, i)
#define JEQ_IMM(dst, i) INSN(BPF_JMP | BPF_JEQ | BPF_K, dst, 0, 0, i)
#define JNE_REG(dst, src) INSN(BPF_JMP | BPF_JNE | BPF_X, dst, src, 0, 0)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

static const struct bpf_insn prologue[] = {
    LOAD_CTX(R_TYPE, access_type), /* (access << 16) | type */
    MOV_REG(R_ACCESS, R_TYPE),
    AND_IMM(R_TYPE, 0xffff), /* BPF_DEVCG_DEV_* */
    RSH_IMM(R_ACCESS, 16),   /* BPF_DEVCG_ACC_* */
    LOAD_CTX(R_MAJOR, major),
    LOAD_CTX(R_MINOR, minor),
};

/* The longest block: type 1, access 3, major 2, minor 2, verdict 2. */
#define RULE_MAX_INSNS 10
#define MAX_RULES ((BPF_MAXINSNS - ARRAY_SIZE(prologue) - 2) / RULE_MAX_INSNS)

/* ---- rules -------------------------------------------------------------- */

/* A letter of config.json and the bits the kernel uses for it. */
struct letter {
	char letter;
	unsigned bits;
};

static const struct letter types[] = {
    {'a', 0}, /* no test: both kinds */
    {'b', BPF_DEVCG_DEV_BLOCK},
    {'c', BPF_DEVCG_DEV_CHAR},
};

static const struct letter accesses[] = {
    {'r', BPF_DEVCG_ACC_READ},
    {'w', BPF_DEVCG_ACC_WRITE},
    {'m', BPF_DEVCG_ACC_MKNOD},
};

#define ACC_ALL (BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD)

struct rule {
	bool allow;
	unsigned type;	 /* BPF_DEVCG_DEV_*, 0 for both */
	unsigned access; /* BPF_DEVCG_ACC_* bits granted or denied */
	bool any_major, any_minor;
	uint32_t major, minor;
};

static bool number(struct spec_opt o, bool *any, uint32_t *out)
{
	*any = !o.set;
	*out = o.set ? (uint32_t)o.v : 0;
	return !o.set || (o.v >= 0 && o.v <= UINT32_MAX);
}

/* A rule as the program tests it; the same checks as cgroup_v1.c's
 * device_rule(), plus the range the kernel's u32 numbers have. */
static int parse_rule(const struct spec_device_rule *d, size_t i,
		      struct rule *out, struct error **err)
{
	const char *access = d->access ? d->access : "rwm";
	char type = d->type ? d->type : 'a';
	size_t t = 0;

	*out = (struct rule){.allow = d->allow};
	while (t < ARRAY_SIZE(types) && types[t].letter != type)
		t++;
	if (t == ARRAY_SIZE(types) || !*access ||
	    strspn(access, "rwm") != strlen(access))
		return error_set(err, EINVAL,
				 "cgroup: .linux.resources.devices[%zu]: rule "
				 "\"%c %s\": expected type a, b or c and "
				 "access in \"rwm\"",
				 i, type ? type : '?', access);
	out->type = types[t].bits;
	for (size_t a = 0; a < ARRAY_SIZE(accesses); a++)
		if (strchr(access, accesses[a].letter))
			out->access |= accesses[a].bits;
	if (!number(d->major, &out->any_major, &out->major) ||
	    !number(d->minor, &out->any_minor, &out->minor))
		return error_set(err, EINVAL,
				 "cgroup: .linux.resources.devices[%zu]: "
				 "major and minor must be in 0..%u",
				 i, UINT32_MAX);
	return 0;
}

/* ---- the program -------------------------------------------------------- */

struct prog {
	struct bpf_insn *v; /* room for the longest program is allocated */
	size_t n;
};

static void emit(struct prog *p, struct bpf_insn insn)
{
	p->v[p->n++] = insn;
}

/* One rule's block; true when it has no test (it matches everything).
 * Every conditional jump of a block means "no match": it goes to the
 * block's end, where the next rule's block starts. */
static bool emit_rule(struct prog *p, const struct rule *r)
{
	size_t start = p->n;
	bool catch_all;

	if (r->type)
		emit(p, JNE_IMM(R_TYPE, (int32_t)r->type));
	/* The kernel asks only for rwm bits, and for at least one, so a
	 * rule naming all three matches any access. */
	if (r->access != ACC_ALL && r->allow) {
		emit(p, MOV_REG(R_TMP, R_ACCESS));
		emit(p, AND_IMM(R_TMP, ~(int32_t)r->access));
		emit(p, JNE_IMM(R_TMP, 0));
	} else if (r->access != ACC_ALL) {
		emit(p, MOV_REG(R_TMP, R_ACCESS));
		emit(p, AND_IMM(R_TMP, (int32_t)r->access));
		emit(p, JEQ_IMM(R_TMP, 0));
	}
	/* Through a register: a u32 immediate above INT32_MAX would be
	 * sign-extended by a 64-bit compare and match nothing. */
	if (!r->any_major) {
		emit(p, MOV32_IMM(R_TMP, (int32_t)r->major));
		emit(p, JNE_REG(R_MAJOR, R_TMP));
	}
	if (!r->any_minor) {
		emit(p, MOV32_IMM(R_TMP, (int32_t)r->minor));
		emit(p, JNE_REG(R_MINOR, R_TMP));
	}
	catch_all = p->n == start;
	emit(p, MOV_IMM(R_VERDICT, r->allow ? 1 : 0));
	emit(p, EXIT());
	for (size_t i = start; i < p->n; i++)
		if (BPF_CLASS(p->v[i].code) == BPF_JMP &&
		    BPF_OP(p->v[i].code) != BPF_EXIT)
			p->v[i].off = (int16_t)(p->n - i - 1);
	return catch_all;
}

int cg_devices_program(const struct spec_device_rule *rules, size_t n,
		       struct bpf_insn **out, size_t *len, struct error **err)
{
	_cleanup_free_ struct rule *parsed = NULL;
	struct prog p = {0};
	bool ended = false;

	*out = NULL;
	*len = 0;
	if (n > MAX_RULES)
		return error_set(err, EINVAL,
				 "cgroup: .linux.resources.devices: %zu rules, "
				 "at most %zu fit in one BPF program",
				 n, (size_t)MAX_RULES);
	parsed = calloc(n ? n : 1, sizeof(*parsed));
	p.v =
	    calloc(ARRAY_SIZE(prologue) + n * RULE_MAX_INSNS + 2, sizeof(*p.v));
	if (!parsed || !p.v) {
		free(p.v);
		return error_set(err, ENOMEM, "cgroup: out of memory");
	}
	/* All rules are checked before any is emitted: one wrong rule
	 * fails the whole list, never a program missing it. */
	for (size_t i = 0; i < n; i++) {
		if (parse_rule(&rules[i], i, &parsed[i], err) < 0) {
			free(p.v);
			return -1;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(prologue); i++)
		emit(&p, prologue[i]);
	for (size_t i = n; i-- > 0 && !ended;)
		ended = emit_rule(&p, &parsed[i]);
	if (!ended) {
		emit(&p, MOV_IMM(R_VERDICT, 0));
		emit(&p, EXIT());
	}
	*out = p.v;
	*len = p.n;
	return 0;
}

/* ---- loading and attaching ---------------------------------------------- */

#define LOG_SIZE (64 * 1024)
#define LOAD_TRIES 5 /* the verifier returns EAGAIN when interrupted */

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return cg_kernel_bpf(cmd, attr, sizeof(*attr));
}

static int load(const struct bpf_insn *prog, size_t len, char *log,
		uint32_t log_size)
{
	/* No helper is called, so the license only labels the program. */
	static const char license[] = "GPL";
	union bpf_attr attr;
	long fd;
	int tries = 0;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (uint64_t)(uintptr_t)prog;
	attr.insn_cnt = (uint32_t)len;
	attr.license = (uint64_t)(uintptr_t)license;
	if (log) {
		attr.log_level = 1;
		attr.log_buf = (uint64_t)(uintptr_t)log;
		attr.log_size = log_size;
	}
	do
		fd = sys_bpf(BPF_PROG_LOAD, &attr);
	while (fd < 0 && errno == EAGAIN && ++tries < LOAD_TRIES);
	return (int)fd;
}

/* The verifier's reason: the last line of its log (the lines before
 * trace the instructions it walked). */
static const char *log_reason(char *log)
{
	size_t n = strnlen(log, LOG_SIZE - 1);
	char *line;

	log[n] = '\0';
	while (n > 0 && log[n - 1] == '\n')
		log[--n] = '\0';
	line = strrchr(log, '\n');
	return line ? line + 1 : log;
}

/* Privileged: this loads a program into the kernel and attaches it to a
 * cgroup.  It is safe because the program is built here from checked
 * rules, of a handful of opcodes with forward jumps only (and the
 * verifier checks it again); it reads only its context and decides only
 * the device accesses of the cgroup it is attached to, which is dirfd:
 * the container's directory that cgroup_prepare has just made, opened
 * O_NOFOLLOW (cg_make_path refuses an existing one).  BPF_F_ALLOW_MULTI
 * adds it to what the host's manager attached above, since every program
 * on the path must allow an access: the container can only lose access,
 * never gain it.  The attachment holds the program, and dies with the
 * cgroup; the fd is closed either way. */
int cg_devices_attach(int dirfd, const char *dir, const struct bpf_insn *prog,
		      size_t len, struct error **err)
{
	_cleanup_close_ int prog_fd = -1;
	_cleanup_free_ char *log = NULL;
	union bpf_attr attr;
	int e = 0;

	prog_fd = load(prog, len, NULL, 0);
	if (prog_fd < 0) {
		/* The log is asked for only after a failure: one too small
		 * for the verifier's trace fails a good program (ENOSPC). */
		e = errno;
		log = calloc(1, LOG_SIZE);
		if (log)
			prog_fd = load(prog, len, log, LOG_SIZE);
	}
	if (prog_fd < 0 && log && *log)
		return error_set(err, e,
				 "cgroup %s: load the device BPF program: %s "
				 "(verifier: %s)",
				 dir, strerror(e), log_reason(log));
	if (prog_fd < 0)
		return error_set(err, e,
				 "cgroup %s: load the device BPF program: %s",
				 dir, strerror(e));
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)dirfd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	if (sys_bpf(BPF_PROG_ATTACH, &attr) < 0)
		return error_errno(
		    err, "cgroup %s: attach the device BPF program", dir);
	return 0;
}
