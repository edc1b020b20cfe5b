/* The helpers harden()'s rules share (harden_internal.h): recording a
 * change, formatting under the out-of-memory flag, string lists, paths,
 * and the parts of the spec a rule may have to create. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden_internal.h"
#include "strfmt.h"
#include "util.h"

void harden_record(struct harden_ctx *c, const char *field, const char *asked,
		   const char *applied, const char *reason)
{
	struct hardened *h = c->h;
	struct harden_change *ch;

	if (c->oom || !field || !asked || !applied || !reason) {
		c->oom = true;
		return;
	}
	if (h->n_changes == c->cap_changes) {
		size_t cap = c->cap_changes ? 2 * c->cap_changes : 16;
		struct harden_change *grown =
		    realloc(h->changes, cap * sizeof(*grown));

		if (!grown) {
			c->oom = true;
			return;
		}
		h->changes = grown;
		c->cap_changes = cap;
	}
	ch = &h->changes[h->n_changes];
	*ch = (struct harden_change){.field = strdup(field),
				     .asked = strdup(asked),
				     .applied = strdup(applied),
				     .reason = strdup(reason)};
	h->n_changes++;
	if (!ch->field || !ch->asked || !ch->applied || !ch->reason)
		c->oom = true;
	ch->dropped = strncmp(applied, "dropped", 7) == 0;
}

void harden_mark_dropped(struct harden_ctx *c)
{
	if (!c->oom && c->h->n_changes)
		c->h->changes[c->h->n_changes - 1].dropped = true;
}

char *harden_fmt(struct harden_ctx *c, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strfmt_va(&c->oom, fmt, ap);
	va_end(ap);
	return s;
}

char *harden_join(struct harden_ctx *c, char *const *v, size_t n,
		  const char *sep)
{
	char *buf;
	size_t size;
	FILE *f = strfmt_stream(&c->oom, &buf, &size);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? sep : "", v[i]);
	return strfmt_close(&c->oom, f, &buf);
}

char *harden_list(struct harden_ctx *c, char *const *v, size_t n)
{
	_cleanup_free_ char *joined = harden_join(c, v, n, ", ");

	return joined ? harden_fmt(c, "[%s]", joined) : NULL;
}

char *harden_opt(struct harden_ctx *c, struct spec_opt o)
{
	if (!o.set)
		return harden_fmt(c, "absent");
	return harden_fmt(c, "%lld", (long long)o.v);
}

char *harden_safe(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *out = strndup(s, n);

	for (size_t i = 0; out && i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
	return out;
}

bool harden_strv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

bool harden_strv_equal(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

bool harden_strv_push(char ***v, size_t *n, const char *s)
{
	char **grown = realloc(*v, (*n + 2) * sizeof(**v));

	if (!grown)
		return false;
	*v = grown;
	grown[*n] = strdup(s);
	grown[*n + 1] = NULL;
	if (!grown[*n])
		return false;
	(*n)++;
	return true;
}

bool harden_path_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0)
		return path[0] == '/';
	return strncmp(path, prefix, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

bool harden_has_namespace(const struct spec_linux *lx, enum spec_ns_type t)
{
	for (size_t i = 0; lx && i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == t)
			return true;
	return false;
}

const char *harden_annotation(const struct spec *s, const char *key)
{
	for (size_t i = 0; i < s->n_annotations; i++)
		if (strcmp(s->annotations[i].key, key) == 0)
			return s->annotations[i].value;
	return NULL;
}

struct spec_linux *harden_linux(struct harden_ctx *c)
{
	if (!c->spec->linux_)
		c->spec->linux_ = calloc(1, sizeof(*c->spec->linux_));
	if (!c->spec->linux_)
		c->oom = true;
	return c->spec->linux_;
}

struct spec_resources *harden_resources(struct harden_ctx *c)
{
	struct spec_linux *lx = harden_linux(c);

	if (lx && !lx->resources)
		lx->resources = calloc(1, sizeof(*lx->resources));
	if (lx && !lx->resources)
		c->oom = true;
	return lx ? lx->resources : NULL;
}

bool harden_clean_path(const char *p)
{
	if (!p || p[0] != '/')
		return false;
	if (p[1] == '\0')
		return true;
	for (const char *c = p + 1;;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (c[n] == '\0')
			return true;
		c += n + 1;
	}
}
