#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

yajl_gen json_gen_new(int beautify)
{
	yajl_gen gen = yajl_gen_alloc(NULL);

	if (gen && beautify) {
		yajl_gen_config(gen, yajl_gen_beautify, 1);
		yajl_gen_config(gen, yajl_gen_indent_string, "  ");
	}
	return gen;
}

int json_gen_finish(yajl_gen gen, char **out, size_t *len, struct error **err)
{
	const unsigned char *buf;
	size_t n;
	char *s;

	if (yajl_gen_get_buf(gen, &buf, &n) != yajl_gen_status_ok) {
		yajl_gen_free(gen);
		return error_set(err, EINVAL, "emit JSON: generator error");
	}
	s = malloc(n + 2);
	if (!s) {
		yajl_gen_free(gen);
		return error_set(err, ENOMEM, "emit JSON: out of memory");
	}
	memcpy(s, buf, n);
	if (n == 0 || s[n - 1] != '\n')
		s[n++] = '\n';
	s[n] = '\0';
	yajl_gen_free(gen);
	*out = s;
	if (len)
		*len = n;
	return 0;
}

void json_str(yajl_gen gen, const char *s)
{
	yajl_gen_string(gen, (const unsigned char *)s, strlen(s));
}

void json_key_str(yajl_gen gen, const char *key, const char *value)
{
	json_str(gen, key);
	json_str(gen, value ? value : "");
}

void json_key_int(yajl_gen gen, const char *key, long long value)
{
	json_str(gen, key);
	yajl_gen_integer(gen, value);
}

void json_key_bool(yajl_gen gen, const char *key, int value)
{
	json_str(gen, key);
	yajl_gen_bool(gen, value);
}

void json_key_strv(yajl_gen gen, const char *key, const char *const *v,
		   size_t n)
{
	json_str(gen, key);
	yajl_gen_array_open(gen);
	for (size_t i = 0; i < n; i++)
		json_str(gen, v[i]);
	yajl_gen_array_close(gen);
}

yajl_val json_get(yajl_val obj, const char *key)
{
	if (!YAJL_IS_OBJECT(obj))
		return NULL;
	for (size_t i = 0; i < obj->u.object.len; i++)
		if (strcmp(obj->u.object.keys[i], key) == 0)
			return obj->u.object.values[i];
	return NULL;
}

bool json_value(yajl_gen gen, yajl_val v, int depth)
{
	if (!v || YAJL_IS_NULL(v))
		return yajl_gen_null(gen) == yajl_gen_status_ok;
	if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v))
		return yajl_gen_bool(gen, YAJL_IS_TRUE(v)) ==
		       yajl_gen_status_ok;
	if (YAJL_IS_STRING(v)) {
		json_str(gen, YAJL_GET_STRING(v));
		return true;
	}
	if (YAJL_IS_NUMBER(v))
		return yajl_gen_number(gen, YAJL_GET_NUMBER(v),
				       strlen(YAJL_GET_NUMBER(v))) ==
		       yajl_gen_status_ok;
	if (depth <= 0)
		return false;
	if (YAJL_IS_ARRAY(v)) {
		yajl_gen_array_open(gen);
		for (size_t i = 0; i < v->u.array.len; i++)
			if (!json_value(gen, v->u.array.values[i], depth - 1))
				return false;
		yajl_gen_array_close(gen);
		return true;
	}
	yajl_gen_map_open(gen);
	for (size_t i = 0; i < v->u.object.len; i++) {
		json_str(gen, v->u.object.keys[i]);
		if (!json_value(gen, v->u.object.values[i], depth - 1))
			return false;
	}
	yajl_gen_map_close(gen);
	return true;
}
