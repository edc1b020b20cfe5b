/* Fuzz target: cgroup paths (runtime/cgroup/cgroup_path.h), the only part of
 * the cgroup module that reads config.json's text before any system call.
 *
 * The input is `CGROUPS_PATH \0 ID` (no NUL: the ID is empty).  When
 * cgroup_path_for() accepts it, the path must be one corral may write,
 * kill and remove in: normalized (normalizing it again gives it back), no
 * "." or ".." component, no empty one, never the root cgroup; a relative
 * one lies below "corral/"; no cgroupsPath gives "corral/ID"; an absolute
 * result maps to itself; and joined to a hierarchy's root it stays below
 * that root.  A rejected input comes with a one-line message.
 *
 * The whole input is also read as /proc/self/cgroup's text and as the
 * record of a delegated cgroup (cg_self_parse, cg_record_parse): a record
 * that parses has a normalized path and bases, none the root, each
 * hierarchy once, and formats back to a text that parses to the same.
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

/* The input as a delegated cgroup's record and as /proc/self/cgroup. */
static void check_record(const char *text)
{
	struct cgroup_bases b = {0}, again = {0};
	struct error *err = NULL;
	struct cg_self self = {0};
	char *path = NULL, *path2 = NULL, *formatted = NULL;

	if (cg_self_parse(text, &self, &err) == 0) {
		for (size_t i = 0; i < self.paths.n; i++)
			FUZZ_CHECK(self.paths.v[i].dir[0] == '/',
				   "a cgroup path \"%s\" not absolute",
				   self.paths.v[i].dir);
		cg_self_clear(&self);
	} else {
		fuzz_rejected(err, "cg_self_parse");
		err = NULL;
	}
	if (cg_record_parse(text, &path, &b, &err) < 0) {
		FUZZ_CHECK(!path && b.n == 0, "a rejected record kept data");
		fuzz_rejected(err, "cg_record_parse");
		return;
	}
	check_components(path);
	for (size_t i = 0; i < b.n; i++) {
		check_components(b.v[i].dir);
		FUZZ_CHECK(b.v[i].dir[0] == '/', "a base \"%s\" not absolute",
			   b.v[i].dir);
		FUZZ_CHECK(cg_bases_find(&b, b.v[i].hier) == b.v[i].dir,
			   "hierarchy \"%s\" twice", b.v[i].hier);
	}
	FUZZ_CHECK(cg_record_format(path, &b, &formatted, &err) == 0 &&
		       cg_record_parse(formatted, &path2, &again, &err) == 0,
		   "a parsed record does not format and parse again: %s",
		   err ? err->msg : "?");
	FUZZ_CHECK(strcmp(path, path2) == 0 && again.n == b.n,
		   "the record changed on its way back");
	for (size_t i = 0; i < b.n; i++)
		FUZZ_CHECK(strcmp(b.v[i].hier, again.v[i].hier) == 0 &&
			       strcmp(b.v[i].dir, again.v[i].dir) == 0,
			   "base %zu changed on its way back", i);
	free(path);
	free(path2);
	free(formatted);
	cg_bases_clear(&b);
	cg_bases_clear(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *id, *out = NULL, *again = NULL;
	struct error *err = NULL;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	check_record(buf);
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
