/* Helpers over yajl_gen shared by the emitters in spec/. */
#ifndef CORRAL_JSON_H
#define CORRAL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "error.h"

yajl_gen json_gen_new(int beautify);

/* Copy the generator's buffer into a malloc'ed NUL-terminated string with
 * a trailing newline, and free the generator. */
int json_gen_finish(yajl_gen gen, char **out, size_t *len, struct error **err);

void json_str(yajl_gen gen, const char *s);
void json_key_str(yajl_gen gen, const char *key, const char *value);
void json_key_int(yajl_gen gen, const char *key, long long value);
void json_key_bool(yajl_gen gen, const char *key, int value);
void json_key_strv(yajl_gen gen, const char *key, const char *const *v,
		   size_t n);

/* Write a parsed value again, nested at most `depth` arrays or objects
 * deep; false (the generator then holds a part) when deeper. */
bool json_value(yajl_gen gen, yajl_val v, int depth);

/* Look up a member of an object node; NULL when absent or not an object. */
yajl_val json_get(yajl_val obj, const char *key);

#endif
