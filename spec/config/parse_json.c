/* The JSON reading toolkit under spec_parse(): load a document into a yajl
 * tree, read typed fields from it, and name the offending field by its JSON
 * path when something is wrong.  See parse_internal.h for the conventions.
 *
 * Pure: no system calls, so it is unit-tested and fuzzed without privileges.
 */
#include "parse_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "util.h"

/* ---- JSON paths and errors ------------------------------------------- */

/* Write s with quotes, backslashes and control characters escaped, so a
 * message never spans lines. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* s as a JSON-ish quoted string. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	put_escaped(f, s);
	fputc('"', f);
}

static void put_path(FILE *f, const struct jpath *p)
{
	if (!p)
		return;
	put_path(f, p->up);
	if (p->quoted) {
		fputc('[', f);
		put_quoted(f, p->key);
		fputc(']', f);
	} else if (p->key) {
		/* a key from the document (an unknown one) may hold anything */
		fputc('.', f);
		put_escaped(f, p->key);
	} else {
		fprintf(f, "[%zu]", p->index);
	}
}

/* Run a printer into a heap string; NULL when out of memory. */
static char *print_to_string(void (*print)(FILE *, const void *),
			     const void *arg)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	print(f, arg);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void print_path(FILE *f, const void *p)
{
	put_path(f, p);
}

static void print_quoted(FILE *f, const void *s)
{
	put_quoted(f, s);
}

int json_fail(const struct jpath *p, struct error **err, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL, *path = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return error_set(err, ENOMEM, "out of memory");
	if (!p)
		return error_set(err, EINVAL, "%s", msg);
	path = print_to_string(print_path, p);
	if (!path)
		return error_set(err, ENOMEM, "out of memory");
	return error_set(err, EINVAL, "%s: %s", path, msg);
}

int json_fail_value(const struct jpath *p, struct error **err, const char *what,
		    const char *value)
{
	_cleanup_free_ char *quoted = print_to_string(print_quoted, value);

	if (!quoted)
		return error_set(err, ENOMEM, "out of memory");
	return json_fail(p, err, "%s %s", what, quoted);
}

static int json_oom(const struct jpath *p, struct error **err)
{
	return json_fail(p, err, "out of memory");
}

/* ---- loading a document ---------------------------------------------- */

struct json_guard {
	unsigned depth;
	bool too_deep;
	bool nul_in_string;
};

static int guard_open(void *ctx)
{
	struct json_guard *g = ctx;

	if (++g->depth > JSON_MAX_DEPTH) {
		g->too_deep = true;
		return 0;
	}
	return 1;
}

static int guard_close(void *ctx)
{
	struct json_guard *g = ctx;

	g->depth--;
	return 1;
}

static int guard_string(void *ctx, const unsigned char *s, size_t len)
{
	struct json_guard *g = ctx;

	if (memchr(s, '\0', len)) {
		g->nul_in_string = true;
		return 0;
	}
	return 1;
}

static const yajl_callbacks guard_callbacks = {
    .yajl_string = guard_string,
    .yajl_start_map = guard_open,
    .yajl_map_key = guard_string,
    .yajl_end_map = guard_close,
    .yajl_start_array = guard_open,
    .yajl_end_array = guard_close,
};

/* "invalid JSON: " and the first line of yajl's message, trimmed. */
static int invalid_json(const char *msg, struct error **err)
{
	size_t start = strspn(msg, " \t\r\n");
	size_t len = strcspn(msg + start, "\r\n");

	while (len > 0 &&
	       (msg[start + len - 1] == ' ' || msg[start + len - 1] == '\t'))
		len--;
	if (len == 0)
		return error_set(err, EINVAL, "invalid JSON");
	return error_set(err, EINVAL, "invalid JSON: %.*s", (int)len,
			 msg + start);
}

/* A streaming pass over the whole buffer, before the tree is built: it is
 * strict JSON (no comments, one value), checks the depth and NUL bytes, and
 * sees the real length where yajl_tree_parse() would stop at a NUL. */
static int json_check(const char *json, size_t len, struct error **err)
{
	struct json_guard g = {0};
	yajl_handle h = yajl_alloc(&guard_callbacks, NULL, &g);
	yajl_status st;
	int r = 0;

	if (!h)
		return error_set(err, ENOMEM, "out of memory");
	st = yajl_parse(h, (const unsigned char *)json, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	if (st != yajl_status_ok) {
		if (g.too_deep) {
			r = error_set(
			    err, EINVAL,
			    "invalid JSON: nested deeper than %d levels",
			    JSON_MAX_DEPTH);
		} else if (g.nul_in_string) {
			r = error_set(
			    err, EINVAL,
			    "invalid JSON: a string contains \\u0000");
		} else {
			unsigned char *msg = yajl_get_error(
			    h, 0, (const unsigned char *)json, len);

			r = invalid_json(msg ? (const char *)msg : "", err);
			if (msg)
				yajl_free_error(h, msg);
		}
	}
	yajl_free(h);
	return r;
}

int json_load(const char *json, size_t len, yajl_val *out, struct error **err)
{
	_cleanup_free_ char *text = NULL;
	char errbuf[256];
	yajl_val root;

	if (!json)
		len = 0;
	if (json_check(json ? json : "", len, err) < 0)
		return -1;
	/* yajl_tree_parse() wants a NUL-terminated copy. */
	text = malloc(len + 1);
	if (!text)
		return error_set(err, ENOMEM, "out of memory");
	if (len)
		memcpy(text, json, len);
	text[len] = '\0';
	root = yajl_tree_parse(text, errbuf, sizeof(errbuf));
	if (!root)
		return invalid_json(errbuf, err);
	*out = root;
	return 0;
}

/* ---- typed values ---------------------------------------------------- */

static const struct {
	const char *expect;
	int64_t min;
	int64_t max;
} int_kinds[] = {
    [JSON_I32] = {"expected a 32-bit integer", INT32_MIN, INT32_MAX},
    [JSON_I64] = {"expected a 64-bit integer", INT64_MIN, INT64_MAX},
    [JSON_U16] = {"expected an unsigned 16-bit integer", 0, UINT16_MAX},
    [JSON_U32] = {"expected an unsigned 32-bit integer", 0, UINT32_MAX},
    [JSON_U63] = {"expected an integer from 0 to 9223372036854775807", 0,
		  INT64_MAX},
    [JSON_U64] = {"expected an unsigned 64-bit integer", 0, INT64_MAX},
};

/* The number's own text, when it is written as an integer.  yajl has
 * already checked the JSON grammar, so no '.', 'e' or 'E' means an
 * integer; 1.0 and 1e3 are rejected for integer fields, as Go does. */
static const char *integer_text(yajl_val v)
{
	if (!YAJL_IS_NUMBER(v) || !v->u.number.r)
		return NULL;
	if (strpbrk(v->u.number.r, ".eE"))
		return NULL;
	return v->u.number.r;
}

int json_string(yajl_val v, const struct jpath *p, char **out,
		struct error **err)
{
	if (!YAJL_IS_STRING(v))
		return json_fail(p, err, "expected a string");
	*out = strdup(v->u.string);
	if (!*out)
		return json_oom(p, err);
	return 0;
}

int json_int(yajl_val v, const struct jpath *p, enum json_int_kind kind,
	     int64_t *out, struct error **err)
{
	const char *text = integer_text(v);
	char *end = NULL;
	long long x;

	if (kind == JSON_U64)
		kind = JSON_U63;
	if (!text)
		return json_fail(p, err, "%s", int_kinds[kind].expect);
	errno = 0;
	x = strtoll(text, &end, 10);
	if (errno != 0 || *end != '\0' || x < int_kinds[kind].min ||
	    x > int_kinds[kind].max)
		return json_fail(p, err, "%s", int_kinds[kind].expect);
	*out = x;
	return 0;
}

int json_u64(yajl_val v, const struct jpath *p, uint64_t *out,
	     struct error **err)
{
	const char *text = integer_text(v);
	char *end = NULL;
	unsigned long long x;

	/* strtoull() would accept "-1" as 2^64-1. */
	if (!text || text[0] == '-')
		return json_fail(p, err, "%s", int_kinds[JSON_U64].expect);
	errno = 0;
	x = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0')
		return json_fail(p, err, "%s", int_kinds[JSON_U64].expect);
	*out = x;
	return 0;
}

/* ---- object members -------------------------------------------------- */

#ifdef JSON_TRACE_KEYS
/* The field-rule test's build only: every key the parser looks up. */
void json_trace_key(const struct jpath *p, const char *key);
#endif

int json_member(yajl_val obj, const struct jpath *p, const char *key,
		yajl_val *out, struct error **err)
{
	yajl_val found = NULL;
	bool seen = false;

#ifdef JSON_TRACE_KEYS
	json_trace_key(p, key);
#endif
	for (size_t i = 0; i < obj->u.object.len; i++) {
		if (strcmp(obj->u.object.keys[i], key) != 0)
			continue;
		if (seen) {
			struct jpath kp = JKEY(p, key);

			return json_fail(&kp, err, "duplicate key");
		}
		seen = true;
		found = obj->u.object.values[i];
	}
	*out = YAJL_IS_NULL(found) ? NULL : found;
	return 0;
}

/* The member at key, failing with "missing" when required and absent. */
static int member(yajl_val obj, const struct jpath *p, const char *key,
		  bool required, yajl_val *out, struct error **err)
{
	if (json_member(obj, p, key, out, err) < 0)
		return -1;
	if (!*out && required) {
		struct jpath kp = JKEY(p, key);

		return json_fail(&kp, err, "missing");
	}
	return 0;
}

int json_field_string(yajl_val obj, const struct jpath *p, const char *key,
		      bool required, char **out, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val v;

	if (member(obj, p, key, required, &v, err) < 0)
		return -1;
	return v ? json_string(v, &kp, out, err) : 0;
}

int json_field_bool(yajl_val obj, const struct jpath *p, const char *key,
		    bool *out, bool *has, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val v;

	if (member(obj, p, key, false, &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
		return json_fail(&kp, err, "expected a boolean");
	*out = YAJL_IS_TRUE(v);
	if (has)
		*has = true;
	return 0;
}

int json_field_int(yajl_val obj, const struct jpath *p, const char *key,
		   enum json_int_kind kind, int64_t *out, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val v;

	if (member(obj, p, key, true, &v, err) < 0)
		return -1;
	return json_int(v, &kp, kind, out, err);
}

int json_field_u32(yajl_val obj, const struct jpath *p, const char *key,
		   uint32_t *out, struct error **err)
{
	int64_t v;

	if (json_field_int(obj, p, key, JSON_U32, &v, err) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int json_field_u64(yajl_val obj, const struct jpath *p, const char *key,
		   bool required, uint64_t *out, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val v;

	if (member(obj, p, key, required, &v, err) < 0)
		return -1;
	return v ? json_u64(v, &kp, out, err) : 0;
}

int json_field_opt(yajl_val obj, const struct jpath *p, const char *key,
		   enum json_int_kind kind, struct spec_opt *out,
		   struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val v;

	if (member(obj, p, key, false, &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	if (json_int(v, &kp, kind, &out->v, err) < 0)
		return -1;
	out->set = true;
	return 0;
}

int json_fields_opt(yajl_val obj, const struct jpath *p,
		    const struct json_opt_field *f, size_t n, void *base,
		    struct error **err)
{
	for (size_t i = 0; i < n; i++) {
		struct spec_opt *o =
		    (struct spec_opt *)((char *)base + f[i].offset);

		if (json_field_opt(obj, p, f[i].key, f[i].kind, o, err) < 0)
			return -1;
	}
	return 0;
}

/* An array member, type-checked; NULL when absent or empty.  A required
 * array must also be non-empty: an empty one would be emitted as absent. */
static int field_array(yajl_val obj, const struct jpath *p, const char *key,
		       bool required, yajl_val *out, struct error **err)
{
	struct jpath kp = JKEY(p, key);

	if (member(obj, p, key, required, out, err) < 0)
		return -1;
	if (*out && !YAJL_IS_ARRAY(*out))
		return json_fail(&kp, err, "expected an array");
	if (*out && (*out)->u.array.len == 0) {
		if (required)
			return json_fail(&kp, err, "must not be empty");
		*out = NULL;
	}
	return 0;
}

int json_field_strv(yajl_val obj, const struct jpath *p, const char *key,
		    bool required, char ***out, size_t *n, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val arr;
	char **list;
	size_t len;

	if (field_array(obj, p, key, required, &arr, err) < 0)
		return -1;
	if (!arr)
		return 0;
	len = arr->u.array.len;
	list = calloc(len + 1, sizeof(*list));
	if (!list)
		return json_oom(&kp, err);
	*out = list;
	*n = len;
	for (size_t i = 0; i < len; i++) {
		struct jpath ip = JINDEX(&kp, i);

		if (json_string(arr->u.array.values[i], &ip, &list[i], err) < 0)
			return -1;
	}
	return 0;
}

int json_field_u32v(yajl_val obj, const struct jpath *p, const char *key,
		    uint32_t **out, size_t *n, struct error **err)
{
	struct jpath kp = JKEY(p, key);
	uint32_t *list;
	yajl_val arr;
	size_t len;

	if (field_array(obj, p, key, false, &arr, err) < 0)
		return -1;
	if (!arr)
		return 0;
	len = arr->u.array.len;
	list = calloc(len, sizeof(*list));
	if (!list)
		return json_oom(&kp, err);
	*out = list;
	*n = len;
	for (size_t i = 0; i < len; i++) {
		struct jpath ip = JINDEX(&kp, i);
		int64_t v;

		if (json_int(arr->u.array.values[i], &ip, JSON_U32, &v, err) <
		    0)
			return -1;
		list[i] = (uint32_t)v;
	}
	return 0;
}

static int compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Duplicate keys in a map, found by sorting a copy of the key pointers. */
static int check_unique_keys(yajl_val m, const struct jpath *p,
			     struct error **err)
{
	size_t len = m->u.object.len;
	_cleanup_free_ const char **keys = calloc(len, sizeof(*keys));

	if (!keys)
		return json_oom(p, err);
	memcpy(keys, m->u.object.keys, len * sizeof(*keys));
	qsort(keys, len, sizeof(*keys), compare_keys);
	for (size_t i = 1; i < len; i++) {
		if (strcmp(keys[i - 1], keys[i]) == 0) {
			struct jpath kp = JMAPKEY(p, keys[i]);

			return json_fail(&kp, err, "duplicate key");
		}
	}
	return 0;
}

int json_field_map(yajl_val obj, const struct jpath *p, const char *key,
		   struct spec_kv **out, size_t *n, struct error **err)
{
	struct jpath mp = JKEY(p, key);
	struct spec_kv *kv;
	yajl_val m;
	size_t len;

	if (json_field_object(obj, p, key, &m, err) < 0)
		return -1;
	if (!m || m->u.object.len == 0)
		return 0;
	len = m->u.object.len;
	if (check_unique_keys(m, &mp, err) < 0)
		return -1;
	kv = calloc(len, sizeof(*kv));
	if (!kv)
		return json_oom(&mp, err);
	*out = kv;
	*n = len;
	for (size_t i = 0; i < len; i++) {
		struct jpath kp = JMAPKEY(&mp, m->u.object.keys[i]);

		kv[i].key = strdup(m->u.object.keys[i]);
		if (!kv[i].key)
			return json_oom(&kp, err);
		if (json_string(m->u.object.values[i], &kp, &kv[i].value, err) <
		    0)
			return -1;
	}
	return 0;
}

void spec_kv_free(struct spec_kv *kv, size_t n)
{
	for (size_t i = 0; kv && i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

int json_field_object(yajl_val obj, const struct jpath *p, const char *key,
		      yajl_val *out, struct error **err)
{
	struct jpath kp = JKEY(p, key);

	if (member(obj, p, key, false, out, err) < 0)
		return -1;
	if (*out && !YAJL_IS_OBJECT(*out))
		return json_fail(&kp, err, "expected an object");
	return 0;
}

int json_field_objects(yajl_val obj, const struct jpath *p, const char *key,
		       size_t size, json_elem_fn fn, void *slot, size_t *n,
		       struct error **err)
{
	struct jpath kp = JKEY(p, key);
	yajl_val arr;
	char *base;
	size_t len;

	if (field_array(obj, p, key, false, &arr, err) < 0)
		return -1;
	if (!arr)
		return 0;
	len = arr->u.array.len;
	base = calloc(len, size);
	if (!base)
		return json_oom(&kp, err);
	memcpy(slot, &base, sizeof(base));
	*n = len;
	for (size_t i = 0; i < len; i++) {
		struct jpath ip = JINDEX(&kp, i);
		yajl_val v = arr->u.array.values[i];

		if (!YAJL_IS_OBJECT(v))
			return json_fail(&ip, err, "expected an object");
		if (fn(v, &ip, base + i * size, err) < 0)
			return -1;
	}
	return 0;
}

int json_field_struct(yajl_val obj, const struct jpath *p, const char *key,
		      size_t size, json_elem_fn fn, void *slot,
		      struct error **err)
{
	struct jpath kp = JKEY(p, key);
	void *item;
	yajl_val v;

	if (json_field_object(obj, p, key, &v, err) < 0)
		return -1;
	if (!v)
		return 0;
	item = calloc(1, size);
	if (!item)
		return json_oom(&kp, err);
	memcpy(slot, &item, sizeof(item));
	return fn(v, &kp, item, err);
}
