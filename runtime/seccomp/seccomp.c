#include "seccomp_filter.h"

#include <ctype.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

static int parse_action(const char *name, const struct spec_opt *errno_ret,
			uint32_t *out, struct error **err)
{
	uint16_t ret = errno_ret->set ? (uint16_t)errno_ret->v : EPERM;

	if (strcmp(name, "SCMP_ACT_ALLOW") == 0)
		*out = SCMP_ACT_ALLOW;
	else if (strcmp(name, "SCMP_ACT_ERRNO") == 0)
		*out = SCMP_ACT_ERRNO(ret);
	else if (strcmp(name, "SCMP_ACT_KILL") == 0 ||
		 strcmp(name, "SCMP_ACT_KILL_THREAD") == 0)
		*out = SCMP_ACT_KILL_THREAD;
	else if (strcmp(name, "SCMP_ACT_KILL_PROCESS") == 0)
		*out = SCMP_ACT_KILL_PROCESS;
	else if (strcmp(name, "SCMP_ACT_TRAP") == 0)
		*out = SCMP_ACT_TRAP;
	else if (strcmp(name, "SCMP_ACT_TRACE") == 0)
		*out = SCMP_ACT_TRACE(ret);
	else if (strcmp(name, "SCMP_ACT_LOG") == 0)
		*out = SCMP_ACT_LOG;
	else
		return error_set(err, ENOTSUP,
				 "seccomp action %s is not supported", name);
	return 0;
}

static int parse_op(const char *name, enum scmp_compare *out,
		    struct error **err)
{
	static const struct {
		const char *name;
		enum scmp_compare op;
	} ops[] = {
	    {"SCMP_CMP_NE", SCMP_CMP_NE},
	    {"SCMP_CMP_LT", SCMP_CMP_LT},
	    {"SCMP_CMP_LE", SCMP_CMP_LE},
	    {"SCMP_CMP_EQ", SCMP_CMP_EQ},
	    {"SCMP_CMP_GE", SCMP_CMP_GE},
	    {"SCMP_CMP_GT", SCMP_CMP_GT},
	    {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
	};

	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (strcmp(ops[i].name, name) == 0) {
			*out = ops[i].op;
			return 0;
		}
	return error_set(err, EINVAL, "unknown seccomp operator %s", name);
}

/* "SCMP_ARCH_X86_64" -> libseccomp's "x86_64". */
static int add_arch(scmp_filter_ctx ctx, const char *name, struct error **err)
{
	char lower[64];
	const char *s = strncmp(name, "SCMP_ARCH_", 10) == 0 ? name + 10 : name;
	uint32_t arch;
	size_t i;
	int r;

	for (i = 0; s[i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)tolower((unsigned char)s[i]);
	lower[i] = '\0';
	arch = seccomp_arch_resolve_name(lower);
	if (arch == 0)
		return error_set(err, EINVAL, "unknown seccomp architecture %s",
				 name);
	r = seccomp_arch_add(ctx, arch);
	if (r < 0 && r != -EEXIST)
		return error_set(err, -r, "seccomp architecture %s: %s", name,
				 strerror(-r));
	return 0;
}

static bool repeated_index(const struct spec_syscall *s)
{
	for (size_t i = 0; i < s->n_args; i++)
		for (size_t j = i + 1; j < s->n_args; j++)
			if (s->args[i].index == s->args[j].index)
				return true;
	return false;
}

int seccomp_add_rule(scmp_filter_ctx ctx, uint32_t action, int nr,
		     const struct scmp_arg_cmp *cmp, unsigned int n,
		     const char *name, struct error **err)
{
	int r = seccomp_rule_add_array(ctx, action, nr, n, cmp);

	if (r < 0)
		return error_set(err, -r, "seccomp rule for %s: %s", name,
				 strerror(-r));
	return 0;
}

/* Arguments on distinct indexes are ANDed in one rule; when an index
 * repeats, each comparison becomes its own rule (ORed), as runc does. */
static int add_syscall(scmp_filter_ctx ctx, uint32_t def,
		       const struct spec_syscall *s, struct error **err)
{
	struct scmp_arg_cmp cmp[6];
	uint32_t action;
	bool split = repeated_index(s);

	if (s->n_args > 6)
		return error_set(err, EINVAL, "seccomp: more than 6 arguments");
	if (parse_action(s->action, &s->errno_ret, &action, err) < 0)
		return -1;
	for (size_t i = 0; i < s->n_args; i++) {
		enum scmp_compare op = SCMP_CMP_EQ;

		if (parse_op(s->args[i].op, &op, err) < 0)
			return -1;
		cmp[i] = (struct scmp_arg_cmp){s->args[i].index, op,
					       s->args[i].value,
					       s->args[i].value_two};
	}
	if (action == def)
		return 0; /* libseccomp refuses rules equal to the default */
	for (size_t i = 0; i < s->n_names; i++) {
		int nr = seccomp_syscall_resolve_name(s->names[i]);

		if (nr == __NR_SCMP_ERROR)
			continue; /* unknown to this kernel and libseccomp */
		if (!split) {
			if (seccomp_add_rule(ctx, action, nr, cmp,
					     (unsigned)s->n_args, s->names[i],
					     err) < 0)
				return -1;
			continue;
		}
		for (size_t a = 0; a < s->n_args; a++)
			if (seccomp_add_rule(ctx, action, nr, &cmp[a], 1,
					     s->names[i], err) < 0)
				return -1;
	}
	return 0;
}

static int parse_flags(const struct spec_seccomp *sc, unsigned int *out,
		       struct error **err)
{
	*out = 0;
	for (size_t i = 0; i < sc->n_flags; i++) {
		if (strcmp(sc->flags[i], "SECCOMP_FILTER_FLAG_LOG") == 0)
			*out |= SECCOMP_FILTER_FLAG_LOG;
		else if (strcmp(sc->flags[i],
				"SECCOMP_FILTER_FLAG_SPEC_ALLOW") == 0)
			*out |= SECCOMP_FILTER_FLAG_SPEC_ALLOW;
		else
			return error_set(err, ENOTSUP,
					 "seccomp flag %s is not supported",
					 sc->flags[i]);
	}
	return 0;
}

int seccomp_export_prog(scmp_filter_ctx ctx, struct sock_fprog *prog,
			struct error **err)
{
	_cleanup_close_ int fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
	off_t size;
	int r;

	if (fd < 0)
		return error_errno(err, "seccomp: memfd");
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return error_set(err, -r, "seccomp: export: %s", strerror(-r));
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % sizeof(struct sock_filter) != 0 ||
	    size / sizeof(struct sock_filter) > BPF_MAXINSNS)
		return error_set(err, EINVAL, "seccomp: filter too large");
	prog->filter = malloc((size_t)size);
	if (!prog->filter)
		return error_set(err, ENOMEM, "seccomp: out of memory");
	if (pread(fd, prog->filter, (size_t)size, 0) != size) {
		free(prog->filter);
		prog->filter = NULL;
		return error_errno(err, "seccomp: read filter");
	}
	prog->len = (unsigned short)(size / sizeof(struct sock_filter));
	return 0;
}

/* libseccomp takes time quadratic in the rules added for one syscall, so
 * a hostile config.json of a million copies of one rule would hold create
 * for hours.  Real profiles (runc's, containerd's, podman's) add a few
 * hundred rules; more than SECCOMP_MAX_RULES is refused up front. */
#define SECCOMP_MAX_RULES 4096

static int check_rule_count(const struct spec_seccomp *sc, struct error **err)
{
	size_t total = 0;

	for (size_t i = 0; i < sc->n_syscalls; i++) {
		const struct spec_syscall *s = &sc->syscalls[i];
		size_t per_name = s->n_args > 1 ? s->n_args : 1;

		if (s->n_names > SECCOMP_MAX_RULES ||
		    (total += s->n_names * per_name) > SECCOMP_MAX_RULES)
			return error_set(
			    err, E2BIG,
			    "config.json: .linux.seccomp.syscalls: "
			    "more than %d rules",
			    SECCOMP_MAX_RULES);
	}
	return 0;
}

int seccomp_compile(const struct spec_seccomp *sc, struct seccomp_program *out,
		    struct error **err)
{
	static const struct spec_opt no_errno = {0};
	scmp_filter_ctx ctx;
	uint32_t def;
	int r = -1;

	*out = (struct seccomp_program){0};
	if (check_rule_count(sc, err) < 0)
		return -1;
	if (parse_flags(sc, &out->flags, err) < 0 ||
	    parse_action(sc->default_action,
			 sc->default_errno_ret.set ? &sc->default_errno_ret
						   : &no_errno,
			 &def, err) < 0)
		return error_wrap(err, "config.json: .linux.seccomp");
	ctx = seccomp_init(def);
	if (!ctx)
		return error_set(err, EINVAL, "seccomp: init failed");
	for (size_t i = 0; i < sc->n_architectures; i++)
		if (add_arch(ctx, sc->architectures[i], err) < 0)
			goto out;
	for (size_t i = 0; i < sc->n_syscalls; i++)
		if (add_syscall(ctx, def, &sc->syscalls[i], err) < 0)
			goto out;
	r = seccomp_export_prog(ctx, &out->prog, err);
out:
	seccomp_release(ctx);
	return r;
}

void seccomp_program_free(struct seccomp_program *p)
{
	free(p->prog.filter);
	p->prog.filter = NULL;
}

int seccomp_program_load(const struct seccomp_program *p, struct error **err)
{
	if (!p || !p->prog.filter)
		return 0;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, p->flags, &p->prog) <
	    0)
		return error_errno(err, "load seccomp filter");
	return 0;
}
