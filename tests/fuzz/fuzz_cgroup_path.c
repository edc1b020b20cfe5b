/* Fuzz target: cgroup paths (runtime/cgroup_path.h), the only part of the
 * cgroup module that reads config.json's text before any system call.
 *
 * The input is `CGROUPS_PATH \0 ID` (no NUL: the ID is empty).  When
 * cgroup_path_for() accepts it, the path must be one corral may write,
 * kill and remove in: normalized (normalizing it again gives it back), no
 * "." or ".." component, no empty one, never the root cgroup; a relative
 * one lies below "corral/"; no cgroupsPath gives "corral/ID"; an absolute
 * result maps to itself; and joined to a hierarchy's root it stays below
 * that root.  A rejected input comes with a one-line message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_path.h"
#include "fuzz.h"

static void check_components(const char *path)
{
	const char *p = path + (*path == '/');

	FUZZ_CHECK(*p, "the root cgroup: \"%s\"", path);
	while (*p) {
		size_t n = strcspn(p, "/");

		FUZZ_CHECK(n > 0, "empty component in \"%s\"", path);
		FUZZ_CHECK(!(n == 1 && p[0] == '.') &&
			       !(n == 2 && p[0] == '.' && p[1] == '.'),
			   "dot component in \"%s\"", path);
		p += n;
		if (*p == '/') {
			p++;
			FUZZ_CHECK(*p, "trailing slash in \"%s\"", path);
		}
	}
}

static void check_join(const char *path)
{
	static const char root[] = "/sys/fs/cgroup/memory";
	char *joined = cg_join(root, path);
	const char *rel = path + (*path == '/');

	FUZZ_CHECK(joined, "cg_join(\"%s\") failed", path);
	FUZZ_CHECK(strncmp(joined, root, sizeof(root) - 1) == 0 &&
		       joined[sizeof(root) - 1] == '/' &&
		       strcmp(joined + sizeof(root), rel) == 0,
		   "cg_join(\"%s\") = \"%s\"", path, joined);
	free(joined);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *id, *out = NULL, *again = NULL;
	struct error *err = NULL;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	id = buf + strlen(buf) + (strlen(buf) < size);
	if (cgroup_path_for(buf, id, &out, &err) < 0) {
		FUZZ_CHECK(!out, "a rejected path gave \"%s\"", out);
		fuzz_rejected(err, "cgroup_path_for");
		free(buf);
		return 0;
	}
	check_components(out);
	FUZZ_CHECK(cg_path_normalize(out, &again, &err) == 0,
		   "\"%s\" does not normalize: %s", out, err ? err->msg : "?");
	FUZZ_CHECK(strcmp(again, out) == 0, "\"%s\" normalizes to \"%s\"", out,
		   again);
	free(again);
	again = NULL;
	if (out[0] != '/')
		FUZZ_CHECK(strncmp(out, CG_PARENT "/", strlen(CG_PARENT) + 1) ==
				   0 ||
			       strchr(buf, ':'),
			   "relative \"%s\" (from \"%s\") is not below %s", out,
			   buf, CG_PARENT);
	if (!*buf)
		FUZZ_CHECK(strncmp(out, CG_PARENT "/", strlen(CG_PARENT) + 1) ==
				   0 &&
			       strcmp(out + strlen(CG_PARENT) + 1, id) == 0,
			   "default path \"%s\" for ID \"%s\"", out, id);
	if (out[0] == '/') {
		FUZZ_CHECK(cgroup_path_for(out, id, &again, &err) == 0 &&
			       strcmp(again, out) == 0,
			   "absolute \"%s\" maps to \"%s\"", out,
			   again ? again : err->msg);
		free(again);
	}
	check_join(out);
	free(out);
	free(buf);
	return 0;
}
