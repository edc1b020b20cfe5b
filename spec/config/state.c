/* state.json and `list --format json`: emit and parse. */
#include "state.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parse_internal.h"
#include "util.h"

static void emit_state_object(yajl_gen gen, const struct spec_state *s,
			      enum spec_state_view view)
{
	yajl_gen_map_open(gen);
	json_key_str(gen, "ociVersion", s->oci_version);
	json_key_str(gen, "id", s->id);
	json_key_str(gen, "status", s->status ? s->status : "stopped");
	if (s->pid > 0)
		json_key_int(gen, "pid", s->pid);
	json_key_str(gen, "bundle", s->bundle);
	json_key_str(gen, "rootfs", s->rootfs);
	json_key_str(gen, "created", s->created);
	if (s->n_annotations > 0) {
		json_str(gen, "annotations");
		yajl_gen_map_open(gen);
		for (size_t i = 0; i < s->n_annotations; i++)
			json_key_str(gen, s->annotations[i].key,
				     s->annotations[i].value);
		yajl_gen_map_close(gen);
	}
	if (view == STATE_PRIVATE) {
		json_str(gen, "corral");
		yajl_gen_map_open(gen);
		json_key_int(gen, "startTime", (long long)s->start_time);
		if (s->cgroup)
			json_key_str(gen, "cgroup", s->cgroup);
		if (s->hooks_known) {
			json_str(gen, "hooks");
			yajl_gen_array_open(gen);
			for (int k = 0; k < HOOK_KIND_COUNT; k++)
				if (s->hooks & (1U << k))
					json_str(gen, spec_hook_kind_names[k]);
			yajl_gen_array_close(gen);
		}
		if (s->permissive)
			json_key_bool(gen, "permissive", true);
		if (s->shared_pidns)
			json_key_bool(gen, "sharedPidns", true);
		if (s->report_known)
			json_key_bool(gen, "reportDir", s->report_dir);
		if (s->creator_pid > 0) {
			json_key_int(gen, "creatorPid", s->creator_pid);
			json_key_int(gen, "creatorStart",
				     (long long)s->creator_start);
		}
		yajl_gen_map_close(gen);
	}
	yajl_gen_map_close(gen);
}

int spec_state_emit(const struct spec_state *state, enum spec_state_view view,
		    char **out, struct error **err)
{
	yajl_gen gen = json_gen_new(view == STATE_PUBLIC);

	if (!gen)
		return error_set(err, ENOMEM, "emit state: out of memory");
	emit_state_object(gen, state, view);
	return json_gen_finish(gen, out, NULL, err);
}

int spec_state_emit_list(struct spec_state *const *states, size_t n, char **out,
			 struct error **err)
{
	yajl_gen gen = json_gen_new(0);

	if (!gen)
		return error_set(err, ENOMEM, "emit list: out of memory");
	yajl_gen_array_open(gen);
	for (size_t i = 0; i < n; i++)
		emit_state_object(gen, states[i], STATE_PUBLIC);
	yajl_gen_array_close(gen);
	return json_gen_finish(gen, out, NULL, err);
}

static int dup_member(yajl_val root, const char *key, char **out,
		      struct error **err)
{
	yajl_val v = json_get(root, key);

	if (!YAJL_IS_STRING(v))
		return error_set(err, EINVAL, ".%s: expected a string", key);
	*out = strdup(v->u.string);
	if (!*out)
		return error_set(err, ENOMEM, ".%s: out of memory", key);
	return 0;
}

static int parse_annotations(yajl_val v, struct spec_state *s,
			     struct error **err)
{
	size_t n;

	if (!v)
		return 0;
	if (!YAJL_IS_OBJECT(v))
		return error_set(err, EINVAL,
				 ".annotations: expected an object");
	n = v->u.object.len;
	s->annotations = calloc(n ? n : 1, sizeof(*s->annotations));
	if (!s->annotations)
		return error_set(err, ENOMEM, ".annotations: out of memory");
	for (size_t i = 0; i < n; i++) {
		yajl_val val = v->u.object.values[i];

		if (!YAJL_IS_STRING(val)) {
			/* the key is escaped: the message stays one line */
			struct jpath ap = JKEY(NULL, "annotations");
			struct jpath kp = JMAPKEY(&ap, v->u.object.keys[i]);

			return json_fail(&kp, err, "expected a string");
		}
		s->annotations[i].key = strdup(v->u.object.keys[i]);
		s->annotations[i].value = strdup(val->u.string);
		s->n_annotations++;
		if (!s->annotations[i].key || !s->annotations[i].value)
			return error_set(err, ENOMEM,
					 ".annotations: out of memory");
	}
	return 0;
}

/* .corral.hooks: the names of hook kinds.  A name this corral does not
 * know leaves the record unknown (config.json is read then). */
/* creatorPid and creatorStart, both or neither. */
static int parse_creator(yajl_val corral, struct spec_state *s,
			 struct error **err)
{
	yajl_val pid = json_get(corral, "creatorPid"),
		 start = json_get(corral, "creatorStart");

	if (!pid && !start)
		return 0;
	if (!YAJL_IS_INTEGER(pid) || YAJL_GET_INTEGER(pid) <= 0 ||
	    YAJL_GET_INTEGER(pid) > INT_MAX || !YAJL_IS_INTEGER(start) ||
	    YAJL_GET_INTEGER(start) < 0)
		return error_set(err, EINVAL,
				 ".corral.creatorPid, .creatorStart: expected "
				 "a pid and its start time");
	s->creator_pid = (int)YAJL_GET_INTEGER(pid);
	s->creator_start = (uint64_t)YAJL_GET_INTEGER(start);
	return 0;
}

static int parse_hooks(yajl_val v, struct spec_state *s, struct error **err)
{
	if (!v)
		return 0;
	if (!YAJL_IS_ARRAY(v))
		return error_set(err, EINVAL,
				 ".corral.hooks: expected an array");
	s->hooks = 0;
	for (size_t i = 0; i < v->u.array.len; i++) {
		yajl_val name = v->u.array.values[i];
		int k = 0;

		if (!YAJL_IS_STRING(name))
			return error_set(err, EINVAL,
					 ".corral.hooks: expected strings");
		while (k < HOOK_KIND_COUNT &&
		       strcmp(name->u.string, spec_hook_kind_names[k]) != 0)
			k++;
		if (k == HOOK_KIND_COUNT)
			return 0;
		s->hooks |= 1U << k;
	}
	s->hooks_known = true;
	return 0;
}

static int parse_tree(yajl_val root, struct spec_state *s, struct error **err)
{
	yajl_val pid, start, cgroup, report;

	if (!YAJL_IS_OBJECT(root))
		return error_set(err, EINVAL, "expected a JSON object");
	if (dup_member(root, "ociVersion", &s->oci_version, err) < 0 ||
	    dup_member(root, "id", &s->id, err) < 0 ||
	    dup_member(root, "bundle", &s->bundle, err) < 0 ||
	    dup_member(root, "rootfs", &s->rootfs, err) < 0 ||
	    dup_member(root, "created", &s->created, err) < 0)
		return -1;
	pid = json_get(root, "pid");
	if (pid) {
		if (!YAJL_IS_INTEGER(pid) || YAJL_GET_INTEGER(pid) <= 0 ||
		    YAJL_GET_INTEGER(pid) > INT_MAX)
			return error_set(err, EINVAL, ".pid: expected a pid");
		s->pid = (int)YAJL_GET_INTEGER(pid);
	}
	start = json_get(json_get(root, "corral"), "startTime");
	if (!YAJL_IS_INTEGER(start) || YAJL_GET_INTEGER(start) < 0)
		return error_set(err, EINVAL,
				 ".corral.startTime: expected an integer");
	s->start_time = (uint64_t)YAJL_GET_INTEGER(start);
	cgroup = json_get(json_get(root, "corral"), "cgroup");
	if (cgroup) {
		if (!YAJL_IS_STRING(cgroup))
			return error_set(err, EINVAL,
					 ".corral.cgroup: expected a string");
		s->cgroup = strdup(cgroup->u.string);
		if (!s->cgroup)
			return error_set(err, ENOMEM, "out of memory");
	}
	if (parse_hooks(json_get(json_get(root, "corral"), "hooks"), s, err) <
	    0)
		return -1;
	s->permissive =
	    YAJL_IS_TRUE(json_get(json_get(root, "corral"), "permissive"));
	s->shared_pidns =
	    YAJL_IS_TRUE(json_get(json_get(root, "corral"), "sharedPidns"));
	report = json_get(json_get(root, "corral"), "reportDir");
	if (report && !YAJL_IS_TRUE(report) && !YAJL_IS_FALSE(report))
		return error_set(err, EINVAL,
				 ".corral.reportDir: expected a boolean");
	s->report_known = report != NULL;
	s->report_dir = YAJL_IS_TRUE(report);
	if (parse_creator(json_get(root, "corral"), s, err) < 0)
		return -1;
	return parse_annotations(json_get(root, "annotations"), s, err);
}

/* Through json_load(), like every other document: yajl's tree alone would
 * recurse without bound freeing a deeply nested one (a stack overflow),
 * and would cut strings at a \u0000. */
int spec_state_parse(const char *json, size_t len, struct spec_state **out,
		     struct error **err)
{
	_cleanup_json_ yajl_val root = NULL;
	struct spec_state *s;

	if (json_load(json, len, &root, err) < 0)
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s)
		return error_set(err, ENOMEM, "out of memory");
	if (parse_tree(root, s, err) < 0) {
		spec_state_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void spec_state_free(struct spec_state *s)
{
	if (!s)
		return;
	free(s->oci_version);
	free(s->id);
	free(s->bundle);
	free(s->rootfs);
	free(s->created);
	free(s->cgroup);
	for (size_t i = 0; i < s->n_annotations; i++) {
		free(s->annotations[i].key);
		free(s->annotations[i].value);
	}
	free(s->annotations);
	free(s);
}
