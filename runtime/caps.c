#include "caps.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/capability.h>
#include <sys/prctl.h>

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

void caps_resolve(const struct spec_caps *caps, struct caps_masks *out)
{
	*out = (struct caps_masks){0};
	if (!caps)
		return;
	out->bounding =
	    resolve_set(caps->bounding, caps->n_bounding, "bounding");
	out->effective =
	    resolve_set(caps->effective, caps->n_effective, "effective");
	out->inheritable =
	    resolve_set(caps->inheritable, caps->n_inheritable, "inheritable");
	out->permitted =
	    resolve_set(caps->permitted, caps->n_permitted, "permitted");
	out->ambient = resolve_set(caps->ambient, caps->n_ambient, "ambient");
}

static int last_cap(void)
{
	int n = (int)cap_max_bits();

	return n > 0 && n <= 64 ? n - 1 : CAP_LAST_CAP;
}

int caps_drop_bounding(const struct caps_masks *m, struct error **err)
{
	for (int c = 0; c <= last_cap(); c++) {
		if (m->bounding & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return error_errno(
			    err, "drop capability %d from the bounding set", c);
	}
	return 0;
}

int caps_apply(const struct caps_masks *m, struct error **err)
{
	cap_t caps = cap_init();
	int r = 0;

	if (!caps)
		return error_errno(err, "capabilities");
	for (int c = 0; c <= last_cap(); c++) {
		cap_value_t v = c;

		if (m->effective & (1ULL << c))
			cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_SET);
		if (m->permitted & (1ULL << c))
			cap_set_flag(caps, CAP_PERMITTED, 1, &v, CAP_SET);
		if (m->inheritable & (1ULL << c))
			cap_set_flag(caps, CAP_INHERITABLE, 1, &v, CAP_SET);
	}
	if (cap_set_proc(caps) < 0)
		r = error_errno(err, "set capabilities");
	cap_free(caps);
	if (r < 0)
		return r;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return error_errno(err, "clear ambient capabilities");
	/* The kernel holds an ambient capability only while it is also
	 * permitted and inheritable; others are left out, as runc and crun
	 * do (`runc spec` lists ambient ones without an inheritable set). */
	for (int c = 0; c <= last_cap(); c++)
		if ((m->ambient & m->permitted & m->inheritable &
		     (1ULL << c)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
			return error_errno(err, "raise ambient capability %d",
					   c);
	return 0;
}
