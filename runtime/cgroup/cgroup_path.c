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

/* ---- delegated cgroups ------------------------------------------------- */

int cg_delegated_path(const char *id, char **out, struct error **err)
{
	*out = NULL;
	if (!id || !file_name_ok(id))
		return error_set(err, EINVAL,
				 "cgroup path: container ID \"%s\" is not a "
				 "file name",
				 id ? shown(id) : "");
	if (asprintf(out, CG_PARENT "-%s", id) < 0) {
		*out = NULL;
		return error_set(err, ENOMEM, "cgroup path: out of memory");
	}
	return 0;
}

void cg_bases_clear(struct cgroup_bases *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].hier);
		free(b->v[i].dir);
	}
	free(b->v);
	*b = (struct cgroup_bases){0};
}

int cg_bases_add(struct cgroup_bases *b, const char *hier, const char *dir)
{
	struct cgroup_base *v = realloc(b->v, (b->n + 1) * sizeof(*v));

	if (!v)
		return -1;
	b->v = v;
	v[b->n] = (struct cgroup_base){strdup(hier), strdup(dir)};
	if (!v[b->n].hier || !v[b->n].dir) {
		free(v[b->n].hier);
		free(v[b->n].dir);
		return -1;
	}
	b->n++;
	return 0;
}

const char *cg_bases_find(const struct cgroup_bases *b, const char *hier)
{
	for (size_t i = 0; b && i < b->n; i++)
		if (strcmp(b->v[i].hier, hier) == 0)
			return b->v[i].dir;
	return NULL;
}

void cg_self_clear(struct cg_self *s)
{
	cg_bases_clear(&s->paths);
	free(s->line);
	s->line = NULL;
}

/* One controller list's names ("cpu,cpuacct", "name=systemd", ""). */
static int self_names(struct cg_self *s, const char *names, size_t len,
		      const char *path, size_t line)
{
	const char *p = names, *end = names + len;

	do {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t n = (size_t)((comma ? comma : end) - p);
		_cleanup_free_ char *name = NULL;
		size_t *grown;

		if (n > 5 && strncmp(p, "name=", 5) == 0) {
			p += 5;
			n -= 5;
		}
		grown = realloc(s->line, (s->paths.n + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		s->line = grown;
		name = strndup(p, n);
		if (!name || cg_bases_add(&s->paths, name, path) < 0)
			return -1;
		s->line[s->paths.n - 1] = line;
		p = comma ? comma + 1 : end;
	} while (p < end);
	return 0;
}

int cg_self_parse(const char *text, struct cg_self *out, struct error **err)
{
	size_t line = 0;

	*out = (struct cg_self){0};
	for (const char *p = text; p && *p; line++) {
		size_t n = strcspn(p, "\n");
		const char *c1 = memchr(p, ':', n);
		const char *c2 =
		    c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - p)) : NULL;
		_cleanup_free_ char *path = NULL;

		if (!c1 || !c2 || c2[1] != '/')
			goto bad;
		path = strndup(c2 + 1, n - (size_t)(c2 + 1 - p));
		if (!path || self_names(out, c1 + 1, (size_t)(c2 - c1 - 1),
					path, line) < 0) {
			cg_self_clear(out);
			return error_set(err, ENOMEM,
					 "/proc/self/cgroup: out of memory");
		}
		p += n + (p[n] == '\n');
	}
	return 0;
bad:
	cg_self_clear(out);
	return error_set(err, EINVAL,
			 "/proc/self/cgroup: line %zu: expected "
			 "ID:CONTROLLERS:/PATH",
			 line + 1);
}

int cg_record_format(const char *path, const struct cgroup_bases *b, char **out,
		     struct error **err)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	*out = NULL;
	if (!f)
		return error_set(err, ENOMEM, "cgroup record: out of memory");
	fprintf(f, "%s\n", path);
	for (size_t i = 0; i < b->n; i++)
		fprintf(f, "%s %s\n", b->v[i].hier, b->v[i].dir);
	if (fclose(f) != 0) {
		free(buf);
		return error_set(err, ENOMEM, "cgroup record: out of memory");
	}
	*out = buf;
	return 0;
}

/* A hierarchy's name: a controller's or a named hierarchy's, never a
 * path. */
static bool hier_name_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || s[i] == '-' ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return n < 64;
}

int cg_record_parse(const char *text, char **path, struct cgroup_bases *b,
		    struct error **err)
{
	_cleanup_free_ char *first = NULL;
	size_t n = strcspn(text, "\n");

	*path = NULL;
	*b = (struct cgroup_bases){0};
	if (!text[n] || !(first = strndup(text, n)))
		return error_set(err, EINVAL, "cgroup record: no path line");
	if (cg_path_normalize(first, path, err) < 0)
		return error_wrap(err, "cgroup record");
	for (const char *p = text + n + 1; *p;) {
		size_t len = strcspn(p, "\n");
		const char *sp = memchr(p, ' ', len);
		_cleanup_free_ char *hier = NULL, *dir = NULL, *norm = NULL;

		if (!sp || !p[len] || !hier_name_ok(p, (size_t)(sp - p)) ||
		    sp[1] != '/')
			goto bad;
		hier = strndup(p, (size_t)(sp - p));
		dir = strndup(sp + 1, len - (size_t)(sp + 1 - p));
		if (!hier || !dir || cg_path_normalize(dir, &norm, err) < 0 ||
		    cg_bases_find(b, hier) || cg_bases_add(b, hier, norm) < 0)
			goto bad;
		p += len + 1;
	}
	if (b->n == 0)
		goto bad;
	return 0;
bad:
	free(*path);
	*path = NULL;
	cg_bases_clear(b);
	if (err && *err)
		return error_wrap(err, "cgroup record");
	return error_set(err, EINVAL,
			 "cgroup record: expected \"HIERARCHY /BASE\" lines");
}
