/* `corral report`'s "changed by the sandbox" (report.h): what config.json
 * asked for that the container runs without, read back from the change
 * list create kept in sandbox.json.  The list is corral's own record, and
 * harden() made its strings safe to print (harden_safe), but they came
 * from config.json: a control byte or a byte beyond ASCII that a damaged
 * record holds is escaped on the way in all the same (quotes, which the
 * change list uses to name sysctls, are not). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "parse_internal.h"
#include "report.h"
#include "util.h"

/* A string member of a change, control bytes and bytes beyond ASCII
 * as \xNN; "?" when it has none. */
static char *member(yajl_val change, const char *key)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(change, path, yajl_t_string);
	const char *s = v ? YAJL_GET_STRING(v) : "?";
	char *out = malloc(strlen(s) * 4 + 1), *p = out;

	for (; out && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\') {
			snprintf(p, 5, "\\x%02x", c);
			p += 4;
		} else {
			*p++ = (char)c;
		}
	}
	if (out)
		*p = '\0';
	return out;
}

static int add_drop(struct report *r, yajl_val change, struct error **err)
{
	struct report_drop *d;

	r->n_drops_total++;
	if (r->n_drops == REPORT_DROPS_SHOWN)
		return 0;
	if (!r->drops &&
	    !(r->drops = calloc(REPORT_DROPS_SHOWN, sizeof(*r->drops))))
		return error_set(err, ENOMEM, "report: out of memory");
	d = &r->drops[r->n_drops++];
	*d = (struct report_drop){
	    member(change, "field"), member(change, "asked"),
	    member(change, "applied"), member(change, "reason")};
	if (!d->field || !d->asked || !d->applied || !d->reason)
		return error_set(err, ENOMEM, "report: out of memory");
	return 0;
}

int report_parse_changes(const char *buf, size_t len, struct report *r,
			 struct error **err)
{
	const char *changes_path[] = {"changes", NULL};
	const char *dropped_path[] = {"dropped", NULL};
	_cleanup_json_ yajl_val doc = NULL;
	struct error *ignored = NULL;
	yajl_val changes;

	if (json_load(buf, len, &doc, &ignored) < 0) {
		error_free(ignored);
		return 0;
	}
	changes = yajl_tree_get(doc, changes_path, yajl_t_array);
	if (!changes)
		return 0;
	r->drops_known = true;
	for (size_t i = 0; i < changes->u.array.len; i++) {
		yajl_val c = changes->u.array.values[i];

		if (YAJL_IS_OBJECT(c) &&
		    YAJL_IS_TRUE(yajl_tree_get(c, dropped_path, yajl_t_true)) &&
		    add_drop(r, c, err) < 0)
			return -1;
	}
	return 0;
}
