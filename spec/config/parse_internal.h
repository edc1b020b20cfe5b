/* Internal to spec/: typed readers over a yajl tree, the JSON path that
 * names a field in error messages, and the field tables that parse and emit
 * share so both agree on names and types.
 *
 * Conventions of the readers:
 * - `obj` is a JSON object and `p` its path; the reader looks up `key`.
 * - An absent member and a JSON null are the same thing: absent.  A required
 *   member that is absent fails with "PATH: missing"; a required array must
 *   also not be empty.
 * - On failure they return -1 with *err set to "PATH: PROBLEM" and leave
 *   whatever they allocated reachable from their output, so freeing the
 *   enclosing struct releases it.
 * - An empty array is stored as an absent list (NULL, 0).
 */
#ifndef CORRAL_PARSE_INTERNAL_H
#define CORRAL_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_tree.h>

#include "spec.h"

/* A JSON path as a chain of stack frames from a field up to the document
 * root (up == NULL).  Nothing is allocated until an error prints it as
 * ".linux.namespaces[1].type" or ".annotations[\"key\"]". */
struct jpath {
	const struct jpath *up;
	const char *key; /* ".key", or ["key"] when quoted; NULL: [index] */
	size_t index;
	bool quoted;
};

#define JKEY(parent, k) ((struct jpath){.up = (parent), .key = (k)})
#define JINDEX(parent, i) ((struct jpath){.up = (parent), .index = (i)})
#define JMAPKEY(parent, k)                                                     \
	((struct jpath){.up = (parent), .key = (k), .quoted = true})

/* Fail with "PATH: MESSAGE" (just MESSAGE at the root); returns -1. */
int json_fail(const struct jpath *p, struct error **err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fail with `PATH: WHAT "VALUE"`, VALUE escaped so the message stays one
 * line whatever the document holds. */
int json_fail_value(const struct jpath *p, struct error **err, const char *what,
		    const char *value);

/* Parse a whole document into a yajl tree.  Rejects what yajl's tree would
 * mishandle: nesting deeper than JSON_MAX_DEPTH (it frees recursively) and
 * strings holding a NUL byte (it would silently truncate them). */
#define JSON_MAX_DEPTH 64
int json_load(const char *json, size_t len, yajl_val *out, struct error **err);

static inline void json_freep(yajl_val *v)
{
	yajl_tree_free(*v);
}
#define _cleanup_json_ __attribute__((cleanup(json_freep)))

/* Integer kinds: the range a field accepts and the message when it does not. */
enum json_int_kind {
	JSON_I32,
	JSON_I64,
	JSON_U16,
	JSON_U32,
	JSON_U63, /* a uint64 in the spec kept in an int64: 0..INT64_MAX */
	JSON_U64, /* only through json_u64()/json_field_u64() */
};

int json_string(yajl_val v, const struct jpath *p, char **out,
		struct error **err);
int json_int(yajl_val v, const struct jpath *p, enum json_int_kind kind,
	     int64_t *out, struct error **err);
int json_u64(yajl_val v, const struct jpath *p, uint64_t *out,
	     struct error **err);

/* Look up a member; *out is NULL when absent or null.  A key given twice is
 * an error: two readers of the same document must not see different
 * values. */
int json_member(yajl_val obj, const struct jpath *p, const char *key,
		yajl_val *out, struct error **err);

int json_field_string(yajl_val obj, const struct jpath *p, const char *key,
		      bool required, char **out, struct error **err);
int json_field_bool(yajl_val obj, const struct jpath *p, const char *key,
		    bool *out, bool *has, struct error **err);
int json_field_int(yajl_val obj, const struct jpath *p, const char *key,
		   enum json_int_kind kind, int64_t *out, struct error **err);
int json_field_u32(yajl_val obj, const struct jpath *p, const char *key,
		   uint32_t *out, struct error **err);
int json_field_u64(yajl_val obj, const struct jpath *p, const char *key,
		   bool required, uint64_t *out, struct error **err);
int json_field_opt(yajl_val obj, const struct jpath *p, const char *key,
		   enum json_int_kind kind, struct spec_opt *out,
		   struct error **err);
int json_field_strv(yajl_val obj, const struct jpath *p, const char *key,
		    bool required, char ***out, size_t *n, struct error **err);
int json_field_u32v(yajl_val obj, const struct jpath *p, const char *key,
		    uint32_t **out, size_t *n, struct error **err);
int json_field_map(yajl_val obj, const struct jpath *p, const char *key,
		   struct spec_kv **out, size_t *n, struct error **err);
/* An object member (type-checked) or NULL. */
int json_field_object(yajl_val obj, const struct jpath *p, const char *key,
		      yajl_val *out, struct error **err);

/* Fill one element (already zeroed) from the JSON object `obj` at `p`. */
typedef int (*json_elem_fn)(yajl_val obj, const struct jpath *p, void *elem,
			    struct error **err);

/* An array of objects.  `slot` is the address of a `T *` (T of `size`
 * bytes): it gets a zeroed array of *n elements, filled in order by `fn`.
 * On failure the array is already in the slot, so freeing the parent
 * releases it. */
int json_field_objects(yajl_val obj, const struct jpath *p, const char *key,
		       size_t size, json_elem_fn fn, void *slot, size_t *n,
		       struct error **err);
/* An optional object: the `T *` at `slot` gets a zeroed T filled by `fn`,
 * or stays NULL when absent.  On failure the T is already in the slot. */
int json_field_struct(yajl_val obj, const struct jpath *p, const char *key,
		      size_t size, json_elem_fn fn, void *slot,
		      struct error **err);

/* Tables of fields, shared with emit.c. */
struct json_opt_field {
	const char *key;
	size_t offset; /* of a struct spec_opt */
	enum json_int_kind kind;
};

struct json_strv_field {
	const char *key;
	size_t list;  /* offset of a char ** */
	size_t count; /* offset of its size_t */
};

struct json_flag_field {
	const char *key;
	size_t has;   /* offset of the bool "present" */
	size_t value; /* offset of the bool */
};

int json_fields_opt(yajl_val obj, const struct jpath *p,
		    const struct json_opt_field *f, size_t n, void *base,
		    struct error **err);

extern const struct json_strv_field spec_caps_fields[5];
extern const struct json_opt_field spec_memory_fields[6];
extern const struct json_flag_field spec_memory_flags[3];
extern const struct json_opt_field spec_cpu_fields[7];
extern const struct json_opt_field spec_block_io_fields[2];
extern const char *const spec_throttle_names[4];

/* parse_linux.c */
int spec_parse_linux(yajl_val obj, const struct jpath *p, void *elem,
		     struct error **err);
void spec_linux_free(struct spec_linux *lx);

void spec_kv_free(struct spec_kv *kv, size_t n);

#endif
