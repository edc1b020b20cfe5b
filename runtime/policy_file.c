#include "policy_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "util.h"

int policy_load(const char *path, struct policy **out, struct error **err)
{
	_cleanup_error_ struct error *read_err = NULL;
	_cleanup_free_ char *json = NULL;
	const char *file = path ? path : POLICY_PATH;
	size_t len;

	if (read_file_at(AT_FDCWD, file, &json, &len, &read_err) < 0) {
		if (!path && read_err->code == ENOENT)
			return policy_default(out, err);
		return error_set(err, read_err->code, "policy: %s",
				 read_err->msg);
	}
	if (policy_parse(json, len, out, err) < 0)
		return error_wrap(err, "policy %s", file);
	return 0;
}

int policy_allow_mount(struct policy *p, const char *source, bool rw,
		       struct error **err)
{
	struct policy_mount *grown =
	    realloc(p->mounts, (p->n_mounts + 1) * sizeof(*p->mounts));

	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	p->mounts = grown;
	grown[p->n_mounts].source = strdup(source);
	grown[p->n_mounts].rw = rw;
	if (!grown[p->n_mounts].source)
		return error_set(err, ENOMEM, "out of memory");
	p->n_mounts++;
	return 0;
}
