#include "caps.h"

#include <sys/capability.h>

#include "log.h"
#include "util.h"

static uint64_t resolve_set(char **names, size_t n, const char *set)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < n; i++) {
		cap_value_t v;

		if (cap_from_name(names[i], &v) < 0 || v < 0 || v >= 64) {
			log_warn("unknown capability %s in the %s set: ignored",
				 names[i], set);
			continue;
		}
		mask |= 1ULL << v;
	}
	return mask;
}

/* The capabilities this kernel has: a name libcap knows and the kernel
 * does not is left out, as the kernel would (the stage raises ambient
 * ones one by one, and that would fail). */
static uint64_t kernel_caps(void)
{
	int n = (int)cap_max_bits();

	return n > 0 && n < 64 ? (1ULL << n) - 1 : ~0ULL;
}

void caps_resolve(const struct spec_caps *caps, struct caps_masks *out)
{
	uint64_t known = kernel_caps();

	*out = (struct caps_masks){0};
	if (!caps)
		return;
	out->bounding =
	    resolve_set(caps->bounding, caps->n_bounding, "bounding") & known;
	out->effective =
	    resolve_set(caps->effective, caps->n_effective, "effective") &
	    known;
	out->inheritable =
	    resolve_set(caps->inheritable, caps->n_inheritable, "inheritable") &
	    known;
	out->permitted =
	    resolve_set(caps->permitted, caps->n_permitted, "permitted") &
	    known;
	out->ambient =
	    resolve_set(caps->ambient, caps->n_ambient, "ambient") & known;
}
