/* config.json's seccomp filter: compiled to BPF in the parent with
 * libseccomp, loaded by the child with seccomp(2) just before exec. */
#ifndef CORRAL_SECCOMP_H
#define CORRAL_SECCOMP_H

#include <linux/filter.h>
#include <stdbool.h>

#include "error.h"
#include "spec.h"

struct seccomp_program {
	struct sock_fprog prog; /* .filter is malloc'ed */
	unsigned int flags; /* SECCOMP_FILTER_FLAG_* */
};

int seccomp_compile(const struct spec_seccomp *sc, struct seccomp_program *out,
		    struct error **err);
void seccomp_program_free(struct seccomp_program *p);

int seccomp_program_load(const struct seccomp_program *p, struct error **err);

#endif
