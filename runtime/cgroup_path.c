/* Cgroup paths (cgroup_path.h): systemd's slice names, normalizing,
 * joining.  Pure: strings in, strings out. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_path.h"
#include "util.h"

/* The input as an error message may quote it: every message is one line
 * (README.md), and a cgroupsPath may hold any byte. */
static const char *shown(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return "(a name with a control character)";
	return s;
}

static bool file_name_ok(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0 && strlen(s) < 256;
}

/* systemd nests slices by their dashes: "a-b.slice" lives in
 * "a.slice/a-b.slice"; "-.slice" is the root. */
static int expand_slice(const char *slice, char **out, struct error **err)
{
	size_t len = strlen(slice), base, dashes = 0, n = 0;
	char *buf;

	if (strcmp(slice, "-.slice") == 0) {
		*out = strdup("");
		return *out ? 0
			    : error_set(err, ENOMEM,
					"cgroupsPath: out of memory");
	}
	base = len > 6 ? len - 6 : 0;
	if (base == 0 || strcmp(slice + base, ".slice") != 0 ||
	    !file_name_ok(slice) || slice[0] == '-' || slice[base - 1] == '-' ||
	    strstr(slice, "--"))
		return error_set(err, EINVAL,
				 "cgroupsPath: \"%s\" is not a systemd slice "
				 "name",
				 shown(slice));
	for (size_t i = 0; i < base; i++)
		dashes += slice[i] == '-';
	buf = malloc((dashes + 1) * (len + 1) + 1);
	if (!buf)
		return error_set(err, ENOMEM, "cgroupsPath: out of memory");
	for (size_t i = 0; i < base; i++) {
		if (slice[i] != '-')
			continue;
		memcpy(buf + n, slice, i);
		memcpy(buf + n + i, ".slice/", 7);
		n += i + 7;
	}
	memcpy(buf + n, slice, len + 1);
	*out = buf;
	return 0;
}

/* "slice:prefix:name" -> "SLICE-PATH/prefix-name.scope", as systemd would
 * place the scope it made for the container (corral does not ask systemd;
 * it makes the directories itself).  An empty slice is system.slice. */
static int systemd_path(const char *spec, char **out, struct error **err)
{
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : 0;
	_cleanup_free_ char *slice = NULL, *prefix = NULL, *parent = NULL;
	_cleanup_free_ char *path = NULL;
	const char *name = c2 ? c2 + 1 : "";
	int r;

	if (!c2 || strchr(name, ':') || !file_name_ok(name))
		return error_set(err, EINVAL,
				 "cgroupsPath \"%s\": expected "
				 "\"slice:prefix:name\"",
				 shown(spec));
	slice = c1 == spec ? strdup("system.slice")
			   : strndup(spec, (size_t)(c1 - spec));
	prefix = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
	if (!slice || !prefix)
		return error_set(err, ENOMEM, "cgroupsPath: out of memory");
	if (*prefix && !file_name_ok(prefix))
		return error_set(err, EINVAL, "cgroupsPath \"%s\": bad prefix",
				 shown(spec));
	if (expand_slice(slice, &parent, err) < 0)
		return -1;
	r = asprintf(&path, "%s%s%s%s%s.scope", parent, *parent ? "/" : "",
		     prefix, *prefix ? "-" : "", name);
	if (r < 0) {
		path = NULL;
		return error_set(err, ENOMEM, "cgroupsPath: out of memory");
	}
	return cg_path_normalize(path, out, err);
}

int cgroup_path_for(const char *cgroups_path, const char *id, char **out,
		    struct error **err)
{
	_cleanup_free_ char *norm = NULL;
	char *s = NULL;

	*out = NULL;
	if (!cgroups_path || !*cgroups_path) {
		if (!id || !file_name_ok(id))
			return error_set(err, EINVAL,
					 "cgroup path: container ID \"%s\" is "
					 "not a file name",
					 id ? shown(id) : "");
		norm = strdup(id);
	} else if (cgroups_path[0] != '/' && strchr(cgroups_path, ':')) {
		return systemd_path(cgroups_path, out, err);
	} else if (cg_path_normalize(cgroups_path, &norm, err) < 0) {
		return -1;
	} else if (norm[0] == '/') {
		*out = steal_pointer(&norm);
		return 0;
	}
	if (!norm || asprintf(&s, CG_PARENT "/%s", norm) < 0)
		return error_set(err, ENOMEM, "cgroup path: out of memory");
	*out = s;
	return 0;
}

/* ---- normalizing and joining ------------------------------------------- */

char *cg_join(const char *root, const char *path)
{
	size_t rl = strlen(root);
	char *s = NULL;

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	while (path && *path == '/')
		path++;
	if (!path || !*path)
		return strndup(root, rl);
	if (asprintf(&s, "%.*s/%s", (int)rl, root, path) < 0)
		return NULL;
	return s;
}

int cg_path_normalize(const char *path, char **out, struct error **err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	const char *p = path;

	*out = NULL;
	if (!path || strlen(path) >= 4096)
		return error_set(err, EINVAL,
				 "cgroup path: missing or too long");
	buf = malloc(strlen(path) + 1);
	if (!buf)
		return error_set(err, ENOMEM, "cgroup path: out of memory");
	if (*p == '/')
		buf[len++] = '/';
	while (*p) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return error_set(err, EINVAL,
					 "cgroup path \"%s\": \".\" and \"..\" "
					 "are not allowed",
					 shown(path));
		if (len > 0 && buf[len - 1] != '/')
			buf[len++] = '/';
		memcpy(buf + len, p, n);
		len += n;
		p += n;
	}
	buf[len] = '\0';
	if (len == 0 || strcmp(buf, "/") == 0)
		return error_set(err, EINVAL,
				 "cgroup path \"%s\": the root cgroup is not a "
				 "container's",
				 shown(path));
	*out = steal_pointer(&buf);
	return 0;
}
