#include "overlay_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The kernel's seq_escape: a byte of the escaped set as \ooo.  NULL
 * when out of memory or when the text holds a NUL, escaped or not. */
static char *unescape(const char *s, size_t len)
{
	char *out = malloc(len + 1), *p = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' &&
		    s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			*p++ = (char)((s[i + 1] - '0') * 64 +
				      (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			*p++ = s[i];
		}
		if (p[-1] == '\0') {
			free(out);
			return NULL;
		}
	}
	*p = '\0';
	return out;
}

/* One layer's path: absolute, no NUL, no ':' escaped by the engine (a
 * "\:" that the kernel shows as "\134:" splits wrongly here). */
static int add_layer(struct overlay_opts *o, const char *raw, size_t len,
		     size_t max, struct error **err)
{
	char *path, **grown;

	if (len >= 4 && memcmp(raw + len - 4, "\\134", 4) == 0)
		return error_set(err, EINVAL,
				 "overlay: a ':' inside a layer's path");
	if (o->n == max)
		return error_set(err, E2BIG, "overlay: more than %zu layers",
				 max);
	path = unescape(raw, len);
	if (!path || path[0] != '/') {
		free(path);
		return error_set(err, EINVAL,
				 "overlay: a layer's path is not absolute");
	}
	grown = realloc(o->layers, (o->n + 1) * sizeof(*grown));
	if (!grown) {
		free(path);
		return error_set(err, ENOMEM, "out of memory");
	}
	o->layers = grown;
	o->layers[o->n++] = path;
	return 0;
}

static int add_lowers(struct overlay_opts *o, const char *v, size_t len,
		      size_t max, struct error **err)
{
	const char *end = v + len;

	if (len == 0)
		return error_set(err, EINVAL, "overlay: no lower layer");
	if (memmem(v, len, "::", 2))
		return error_set(err, EINVAL, "overlay: data-only layers");
	while (v <= end) {
		const char *colon = memchr(v, ':', (size_t)(end - v));
		size_t n = colon ? (size_t)(colon - v) : (size_t)(end - v);

		if (add_layer(o, v, n, max, err) < 0)
			return -1;
		if (!colon)
			break;
		v = colon + 1;
	}
	return 0;
}

static bool key_is(const char *tok, size_t len, const char *key, size_t *at)
{
	size_t k = strlen(key);

	if (len < k || memcmp(tok, key, k) != 0)
		return false;
	if (len == k) {
		*at = k;
		return true;
	}
	if (tok[k] != '=')
		return false;
	*at = k + 1;
	return true;
}

int overlay_opts_parse(const char *opts, size_t max, struct overlay_opts *out,
		       struct error **err)
{
	const char *p = opts, *upper = NULL, *lower = NULL;
	size_t upper_len = 0, lower_len = 0;
	struct overlay_opts o = {0};

	*out = o;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p), at;

		if (key_is(p, len, "lowerdir", &at)) {
			lower = p + at;
			lower_len = len - at;
		} else if (key_is(p, len, "upperdir", &at)) {
			upper = p + at;
			upper_len = len - at;
		} else if (key_is(p, len, "metacopy", &at) && at < len &&
			   strncmp(p + at, "on", len - at) == 0 &&
			   len - at == 2) {
			return error_set(err, EINVAL,
					 "overlay: metacopy=on (its layers "
					 "do not stand alone)");
		} else if (len == 9 && memcmp(p, "userxattr", 9) == 0) {
			o.userxattr = true;
		} else if (len > 9 && (memcmp(p, "lowerdir+", 9) == 0 ||
				       memcmp(p, "datadir+", 8) == 0)) {
			return error_set(err, EINVAL,
					 "overlay: layers added one by one");
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	if (!lower)
		return error_set(err, EINVAL, "overlay: no lower layer");
	if ((upper && add_layer(&o, upper, upper_len, max, err) < 0) ||
	    add_lowers(&o, lower, lower_len, max, err) < 0) {
		overlay_opts_release(&o);
		return -1;
	}
	*out = o;
	return 0;
}

void overlay_opts_release(struct overlay_opts *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->layers[i]);
	free(o->layers);
	*o = (struct overlay_opts){0};
}
