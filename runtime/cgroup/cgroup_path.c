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

/* ---- systemd's unit names ---------------------------------------------
 *
 * systemd 252's rules (unit-name.c unit_name_is_valid, cgroup-util.c
 * cg_slice_to_path and cg_escape), written here from their documented
 * behaviour: a name is below 256 bytes, "PREFIX.TYPE", PREFIX non-empty
 * and of [A-Za-z0-9:_.\-] (and one "@" of a template's instance, which a
 * slice may not have); a slice nests by its dashes ("a-b.slice" lives in
 * "a.slice/a-b.slice"), with no dash first, last or doubled; and each
 * name becomes a cgroup directory escaped with a "_" in front when it
 * could be taken for a kernel file ("_x", ".x", "tasks", "cgroup.x",
 * "cpu.slice"). */

#define UNIT_NAME_MAX 256

static bool unit_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == ':' || c == '-' || c == '_' ||
	       c == '.' || c == '\\';
}

bool cg_unit_name_ok(const char *name, const char *type, bool instance_ok)
{
	size_t len = strlen(name), tl = strlen(type);
	const char *at = NULL;

	if (len >= UNIT_NAME_MAX || len < tl + 2 ||
	    strcmp(name + len - tl, type) != 0 || name[len - tl - 1] != '.')
		return false;
	for (size_t i = 0; i < len - tl - 1; i++) {
		if (name[i] == '@' && instance_ok && !at) {
			at = name + i;
			continue;
		}
		if (!unit_char_ok(name[i]))
			return false;
	}
	/* "@x.scope": no template; "a@.scope": a template, not a unit */
	return !at || (at != name && at + 1 < name + len - tl - 1);
}

/* Controllers whose files are CONTROLLER.x: "cpu.slice" could be one. */
static const char *const sd_controllers[] = {
    "cpu",
    "cpuacct",
    "cpuset",
    "io",
    "blkio",
    "memory",
    "devices",
    "pids",
    "bpf-firewall",
    "bpf-devices",
    "bpf-foreign",
    "bpf-socket-bind",
    "bpf-restrict-network-interfaces",
};

static bool needs_escape(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (name[0] == '_' || name[0] == '.' ||
	    strcmp(name, "notify_on_release") == 0 ||
	    strcmp(name, "release_agent") == 0 || strcmp(name, "tasks") == 0 ||
	    strncmp(name, "cgroup.", 7) == 0)
		return true;
	for (size_t i = 0; dot && i < ARRAY_SIZE(sd_controllers); i++)
		if (strlen(sd_controllers[i]) == (size_t)(dot - name) &&
		    memcmp(name, sd_controllers[i], (size_t)(dot - name)) == 0)
			return true;
	return false;
}

/* Append "/" (unless first) and NAME, escaped, to f. */
static void put_escaped(FILE *f, bool first, const char *name, size_t n)
{
	_cleanup_free_ char *copy = strndup(name, n);

	if (!copy)
		return; /* the stream is checked by its caller */
	fprintf(f, "%s%s%s", first ? "" : "/", needs_escape(copy) ? "_" : "",
		copy);
}

int cg_slice_path(const char *slice, char **out, struct error **err)
{
	size_t len = strlen(slice), size = 0;
	_cleanup_free_ char *buf = NULL;
	FILE *f;

	*out = NULL;
	if (strcmp(slice, "-.slice") == 0) {
		*out = strdup("");
		return *out ? 0 : error_set(err, ENOMEM, "out of memory");
	}
	if (!cg_unit_name_ok(slice, "slice", false) || slice[0] == '-' ||
	    slice[len - 7] == '-' || strstr(slice, "--"))
		return error_set(err, EINVAL,
				 "\"%s\" is not a slice name systemd accepts",
				 shown(slice));
	f = open_memstream(&buf, &size);
	if (!f)
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < len - 6; i++) {
		char parent[UNIT_NAME_MAX + 8];

		if (slice[i] != '-')
			continue;
		snprintf(parent, sizeof(parent), "%.*s.slice", (int)i, slice);
		put_escaped(f, i == (size_t)(strchr(slice, '-') - slice),
			    parent, strlen(parent));
	}
	put_escaped(f, !strchr(slice, '-'), slice, len);
	if (fclose(f) != 0 || !buf)
		return error_set(err, ENOMEM, "out of memory");
	*out = steal_pointer(&buf);
	return 0;
}

void cg_systemd_unit_clear(struct cg_systemd_unit *u)
{
	free(u->slice);
	free(u->scope);
	free(u->path);
	*u = (struct cg_systemd_unit){0};
}

bool cg_is_systemd_path(const char *cgroups_path)
{
	return cgroups_path && cgroups_path[0] != '/' &&
	       strchr(cgroups_path, ':');
}

static int bad_spec(const char *spec, const char *why, struct error **err)
{
	return error_set(err, EINVAL, "cgroupsPath \"%s\": %s", shown(spec),
			 why);
}

int cg_systemd_parse(const char *spec, const char *default_slice,
		     struct cg_systemd_unit *out, struct error **err)
{
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : 0;
	const char *name = c2 ? c2 + 1 : "";
	struct cg_systemd_unit u = {0};
	_cleanup_free_ char *parent = NULL, *leaf = NULL;
	int r;

	*out = (struct cg_systemd_unit){0};
	if (!c2 || strchr(name, ':') || !*name)
		return bad_spec(spec, "expected \"slice:prefix:name\"", err);
	u.slice = c1 == spec ? strdup(default_slice)
			     : strndup(spec, (size_t)(c1 - spec));
	r = u.slice ? asprintf(&u.scope, "%.*s%s%s.scope", (int)(c2 - c1 - 1),
			       c1 + 1, c2 > c1 + 1 ? "-" : "", name)
		    : -1;
	if (r < 0) {
		u.scope = NULL;
		cg_systemd_unit_clear(&u);
		return error_set(err, ENOMEM, "cgroupsPath: out of memory");
	}
	if (!cg_unit_name_ok(u.scope, "scope", true)) {
		r = bad_spec(spec,
			     "the scope is not a unit name systemd "
			     "accepts",
			     err);
		goto fail;
	}
	if (cg_slice_path(u.slice, &parent, err) < 0) {
		r = error_wrap(err, "cgroupsPath");
		goto fail;
	}
	if (asprintf(&leaf, "%s%s%s%s", parent, *parent ? "/" : "",
		     needs_escape(u.scope) ? "_" : "", u.scope) < 0) {
		leaf = NULL;
		r = error_set(err, ENOMEM, "cgroupsPath: out of memory");
		goto fail;
	}
	if (cg_path_normalize(leaf, &u.path, err) < 0) {
		r = -1;
		goto fail;
	}
	*out = u;
	return 0;
fail:
	cg_systemd_unit_clear(&u);
	return r;
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
	} else if (cg_is_systemd_path(cgroups_path)) {
		struct cg_systemd_unit u;

		if (cg_systemd_parse(cgroups_path, "system.slice", &u, err) < 0)
			return -1;
		*out = steal_pointer(&u.path);
		cg_systemd_unit_clear(&u);
		return 0;
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
