#include "caps.h"

#include <errno.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

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

int caps_keep_for_stage(struct error **err)
{
	static const cap_value_t kept[] = {CAP_SETPCAP, CAP_SETUID, CAP_SETGID,
					   CAP_KILL};
	cap_t caps;
	int r;

	if (geteuid() == 0)
		return 0;
	caps = cap_get_proc();
	if (!caps)
		return error_errno(err, "get capabilities");
	r = cap_set_flag(caps, CAP_INHERITABLE, (int)ARRAY_SIZE(kept), kept,
			 CAP_SET);
	if (r == 0)
		r = cap_set_proc(caps);
	cap_free(caps);
	if (r < 0)
		return error_errno(err, "set inheritable capabilities");
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, kept[i], 0, 0) <
		    0)
			return error_errno(err, "keep capability %d",
					   (int)kept[i]);
	return 0;
}
