/* A classic-BPF interpreter for the instructions libseccomp emits, shared
 * by the seccomp unit tests: what a filter answers for one call, without
 * loading it (valgrind cannot), for inputs the kernel here may not offer. */
#ifndef CORRAL_TEST_SECCOMP_EVAL_H
#define CORRAL_TEST_SECCOMP_EVAL_H

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>

#include "seccomp_filter.h"

#define BAD_PROGRAM 0xdeadbeefu
#define RET_EPERM (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)

/* What the program answers for one call: a classic-BPF interpreter for
 * the instructions libseccomp emits. */
static uint32_t verdict(const struct seccomp_program *p, int nr, uint32_t arch,
			const uint64_t *args)
{
	struct seccomp_data d = {.nr = nr, .arch = arch};
	const unsigned char *bytes = (const unsigned char *)&d;
	uint32_t a = 0;

	if (args)
		memcpy(d.args, args, sizeof(d.args));
	for (unsigned int pc = 0; pc < p->prog.len; pc++) {
		const struct sock_filter *f = &p->prog.filter[pc];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k > sizeof(d) - sizeof(a))
				return BAD_PROGRAM;
			memcpy(&a, bytes + f->k, sizeof(a));
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & f->k) ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			return BAD_PROGRAM;
		}
	}
	return BAD_PROGRAM;
}

#endif
