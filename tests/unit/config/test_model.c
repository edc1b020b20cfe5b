/* Unit tests of the smaller pure models in spec/: the state object,
 * mount options, the features document and the built-in default config. */
#include <linux/mount.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <yajl/yajl_tree.h>

#include "mount_options.h"
#include "spec.h"
#include "state.h"
#include "unit.h"
#include "util.h"

static struct spec_kv annotations[] = {
    {(char *)"io.kubernetes.cri.container-type", (char *)"sandbox"},
    {(char *)"quote\"d", (char *)"new\nline"},
};

/* The string at a path, or "" when absent. */
static const char *str_at(yajl_val root, const char **path)
{
	yajl_val v = yajl_tree_get(root, path, yajl_t_string);

	return v && v->u.string ? v->u.string : "";
}

static const struct spec_state sample = {
    .oci_version = (char *)"1.2.0",
    .id = (char *)"web-1",
    .status = "running",
    .pid = 4242,
    .bundle = (char *)"/b",
    .rootfs = (char *)"/b/rootfs",
    .created = (char *)"2026-12-02T12:00:00.000000001Z",
    .annotations = annotations,
    .n_annotations = 2,
    .start_time = 987654321,
    .cgroup = (char *)"corral/web-1",
};

TEST(state_private_round_trip)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	struct spec_state *s = NULL;

	CHECK(spec_state_emit(&sample, STATE_PRIVATE, &json, &err) == 0);
	CHECK(spec_state_parse(json, strlen(json), &s, &err) == 0);
	if (!s)
		return;
	CHECK_STR(s->id, "web-1");
	CHECK(s->pid == 4242);
	CHECK(s->start_time == 987654321);
	CHECK_STR(s->cgroup, "corral/web-1");
	CHECK_STR(s->bundle, "/b");
	CHECK_STR(s->created, sample.created);
	CHECK(s->n_annotations == 2);
	CHECK_STR(s->annotations[1].key, "quote\"d");
	CHECK_STR(s->annotations[1].value, "new\nline");
	spec_state_free(s);
}

/* The hook kinds config.json has: kept, and unknown when not recorded
 * (a state.json of an older corral) or naming a kind this one lacks. */
TEST(state_records_hook_kinds)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	struct spec_state with = sample, *s = NULL;
	const char *base = "{\"ociVersion\":\"1\",\"id\":\"x\",\"bundle\":"
			   "\"/b\",\"rootfs\":\"/r\",\"created\":\"t\","
			   "\"corral\":{\"startTime\":1%s}}";
	char doc[512];

	with.hooks_known = true;
	with.hooks = 1U << HOOK_POSTSTOP | 1U << HOOK_PRESTART;
	CHECK(spec_state_emit(&with, STATE_PRIVATE, &json, &err) == 0);
	CHECK(json && strstr(json, "\"hooks\":[\"prestart\",\"poststop\"]"));
	CHECK(spec_state_parse(json, strlen(json), &s, &err) == 0);
	CHECK(s && s->hooks_known && s->hooks == with.hooks);
	spec_state_free(s);

	snprintf(doc, sizeof(doc), base, ",\"hooks\":[]");
	CHECK(spec_state_parse(doc, strlen(doc), &s, &err) == 0);
	CHECK(s && s->hooks_known && s->hooks == 0);
	spec_state_free(s);
	snprintf(doc, sizeof(doc), base, "");
	CHECK(spec_state_parse(doc, strlen(doc), &s, &err) == 0);
	CHECK(s && !s->hooks_known);
	spec_state_free(s);
	snprintf(doc, sizeof(doc), base, ",\"hooks\":[\"poststop\",\"later\"]");
	CHECK(spec_state_parse(doc, strlen(doc), &s, &err) == 0);
	CHECK(s && !s->hooks_known);
	spec_state_free(s);
	s = NULL;
	snprintf(doc, sizeof(doc), base, ",\"hooks\":\"poststop\"");
	CHECK(spec_state_parse(doc, strlen(doc), &s, &err) < 0 && !s);
}

/* Whether the policy names a report.dir: kept either way, unknown when
 * not recorded (an older corral's state.json), and only a boolean. */
TEST(state_records_report_dir)
{
	_cleanup_error_ struct error *err = NULL;
	const char *base = "{\"ociVersion\":\"1\",\"id\":\"x\",\"bundle\":"
			   "\"/b\",\"rootfs\":\"/r\",\"created\":\"t\","
			   "\"corral\":{\"startTime\":1%s}}";
	char doc[512];

	for (int dir = 0; dir < 2; dir++) {
		_cleanup_free_ char *json = NULL;
		struct spec_state with = sample, *s = NULL;

		with.report_known = true;
		with.report_dir = dir;
		CHECK(spec_state_emit(&with, STATE_PRIVATE, &json, &err) == 0);
		CHECK(json && strstr(json, dir ? "\"reportDir\":true"
					       : "\"reportDir\":false"));
		CHECK(spec_state_parse(json, strlen(json), &s, &err) == 0);
		CHECK(s && s->report_known && s->report_dir == (bool)dir);
		spec_state_free(s);
	}
	{
		struct spec_state *s = NULL;

		snprintf(doc, sizeof(doc), base, "");
		CHECK(spec_state_parse(doc, strlen(doc), &s, &err) == 0);
		CHECK(s && !s->report_known && !s->report_dir);
		spec_state_free(s);
		s = NULL;
		snprintf(doc, sizeof(doc), base, ",\"reportDir\":\"/x\"");
		CHECK(spec_state_parse(doc, strlen(doc), &s, &err) < 0 && !s);
	}
}

TEST(state_public_view_has_no_private_fields)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	yajl_val root;

	CHECK(spec_state_emit(&sample, STATE_PUBLIC, &json, &err) == 0);
	CHECK(strstr(json, "corral") == NULL);
	CHECK(strstr(json, "startTime") == NULL);
	CHECK(strstr(json, "corral/web-1") == NULL);
	root = yajl_tree_parse(json, NULL, 0);
	CHECK(root != NULL);
	{
		const char *status_path[] = {"status", NULL};
		const char *pid_path[] = {"pid", NULL};
		yajl_val pid = yajl_tree_get(root, pid_path, yajl_t_number);

		CHECK_STR(str_at(root, status_path), "running");
		CHECK(pid && YAJL_GET_INTEGER(pid) == 4242);
	}
	yajl_tree_free(root);
}

TEST(state_parse_rejects_bad_documents)
{
	static const char *bad[] = {
	    "",
	    "[]",
	    "{\"ociVersion\":\"1\",\"id\":\"x\",\"bundle\":\"/"
	    "b\",\"rootfs\":\"/r\","
	    "\"created\":\"t\",\"pid\":-1,\"corral\":{\"startTime\":1}}",
	    "{\"ociVersion\":\"1\",\"id\":\"x\",\"bundle\":\"/"
	    "b\",\"rootfs\":\"/r\","
	    "\"created\":\"t\",\"pid\":1}",
	    "{\"ociVersion\":\"1\",\"id\":7,\"bundle\":\"/b\",\"rootfs\":\"/"
	    "r\","
	    "\"created\":\"t\",\"corral\":{\"startTime\":1}}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_error_ struct error *err = NULL;
		struct spec_state *s = NULL;

		CHECK(spec_state_parse(bad[i], strlen(bad[i]), &s, &err) < 0);
		CHECK(err != NULL && s == NULL);
	}
}

/* Found by tests/fuzz: a key from the document is escaped in the error. */
TEST(state_error_stays_one_line)
{
	_cleanup_error_ struct error *err = NULL;
	const char *json =
	    "{\"ociVersion\":\"1\",\"id\":\"x\",\"bundle\":\"/b\","
	    "\"rootfs\":\"/r\",\"created\":\"t\",\"corral\":{\"startTime\":1},"
	    "\"annotations\":{\"a\\nb\":1}}";
	struct spec_state *s = NULL;

	CHECK(spec_state_parse(json, strlen(json), &s, &err) < 0);
	CHECK_STR(err ? err->msg : NULL,
		  ".annotations[\"a\\x0ab\"]: expected a string");
}

/* Found by tests/fuzz: a deeply nested state.json overflowed the stack
 * when yajl freed its tree; it is refused like any other document. */
TEST(state_refuses_deep_nesting)
{
	_cleanup_error_ struct error *err = NULL;
	char json[2 * 1000 + 1];
	struct spec_state *s = NULL;

	memset(json, '[', 1000);
	memset(json + 1000, ']', 1000);
	json[2000] = '\0';
	CHECK(spec_state_parse(json, 2000, &s, &err) < 0);
	CHECK(err && strstr(err->msg, "nested deeper"));
}

TEST(list_emits_an_array)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	struct spec_state *const states[] = {(struct spec_state *)&sample,
					     (struct spec_state *)&sample};
	yajl_val root;

	CHECK(spec_state_emit_list(states, 2, &json, &err) == 0);
	root = yajl_tree_parse(json, NULL, 0);
	CHECK(YAJL_IS_ARRAY(root) && root->u.array.len == 2);
	yajl_tree_free(root);
	free(json);
	json = NULL;
	CHECK(spec_state_emit_list(NULL, 0, &json, &err) == 0);
	CHECK_STR(json, "[]\n");
}

static struct spec_mount_flags parse_opts(char **opts, size_t n, int *r)
{
	_cleanup_error_ struct error *err = NULL;
	struct spec_mount_flags f;

	*r = spec_mount_options_parse(opts, n, &f, &err);
	return f;
}

TEST(mount_options_flags_and_data)
{
	char *opts[] = {"nosuid",   "noexec",	   "nodev",	 "ro",
			"mode=755", "size=65536k", "strictatime"};
	int r;
	struct spec_mount_flags f = parse_opts(opts, ARRAY_SIZE(opts), &r);

	CHECK(r == 0);
	CHECK(f.flags ==
	      (MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RDONLY | MS_STRICTATIME));
	CHECK_STR(f.data, "mode=755,size=65536k");
	CHECK(!f.bind && f.propagation == 0);
	free(f.data);
}

TEST(mount_options_later_words_win)
{
	char *opts[] = {"ro",	 "rw",	     "nosuid", "suid",
			"rbind", "rprivate", "rslave"};
	int r;
	struct spec_mount_flags f = parse_opts(opts, ARRAY_SIZE(opts), &r);

	CHECK(r == 0);
	CHECK(!(f.flags & MS_RDONLY) && !(f.flags & MS_NOSUID));
	CHECK(f.bind && (f.flags & MS_REC));
	CHECK(f.propagation == (MS_SLAVE | MS_REC));
	CHECK(f.data == NULL);
}

TEST(mount_options_recursive_attributes)
{
	char *opts[] = {"rbind", "rro", "rnosuid", "rsuid"};
	int r;
	struct spec_mount_flags f = parse_opts(opts, ARRAY_SIZE(opts), &r);

	CHECK(r == 0);
	CHECK(f.attr_set == MOUNT_ATTR_RDONLY);
	CHECK(f.attr_clr == MOUNT_ATTR_NOSUID);
}

TEST(mount_options_refuse_idmap)
{
	char *opts[] = {"bind", "size=1", "idmap"};
	_cleanup_error_ struct error *err = NULL;
	struct spec_mount_flags f;

	CHECK(spec_mount_options_parse(opts, ARRAY_SIZE(opts), &f, &err) < 0);
	CHECK(err && strstr(err->msg, "idmap"));
	CHECK(f.data == NULL);
}

TEST(features_document)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	const char *max[] = {"ociVersionMax", NULL};
	const char *hooks[] = {"hooks", NULL};
	const char *ns[] = {"linux", "namespaces", NULL};
	const char *notes[] = {"annotations", NULL};
	struct host_kernel unknown = {0};
	yajl_val root;

	CHECK(spec_features_emit(&unknown, &json, &err) == 0);
	root = yajl_tree_parse(json, NULL, 0);
	CHECK(root != NULL);
	CHECK_STR(str_at(root, max), SPEC_OCI_VERSION);
	CHECK(yajl_tree_get(root, hooks, yajl_t_array)->u.array.len ==
	      HOOK_KIND_COUNT);
	/* time namespaces are not offered */
	CHECK(yajl_tree_get(root, ns, yajl_t_array)->u.array.len == NS_TIME);
	/* an unprobed kernel: nothing said of it */
	CHECK(yajl_tree_get(root, notes, yajl_t_object) == NULL);
	yajl_tree_free(root);
}

/* The kernel's release and corral's decisions, as annotations. */
TEST(features_name_the_kernel)
{
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL;
	const char *release[] = {"annotations", "run.corral.kernel", NULL};
	const char *scratch[] = {"annotations", "run.corral.kernel.scratch",
				 NULL};
	const char *binds[] = {"annotations", "run.corral.kernel.binds", NULL};
	struct host_kernel k = {.known = true,
				.release = "5.10.0-32-amd64",
				.major = 5,
				.minor = 10};
	yajl_val root;

	CHECK(spec_features_emit(&k, &json, &err) == 0);
	root = yajl_tree_parse(json, NULL, 0);
	CHECK(root != NULL);
	CHECK_STR(str_at(root, release), "5.10.0-32-amd64");
	CHECK_STR(str_at(root, scratch), "attached while made (before 6.15)");
	CHECK_STR(str_at(root, binds),
		  "restricted after attach (no mount_setattr)");
	yajl_tree_free(root);
}

TEST(default_config_is_the_sandbox)
{
	_cleanup_error_ struct error *err = NULL;
	struct spec *s = NULL;
	bool net = false;

	CHECK(spec_default(&s, &err) == 0);
	if (!s)
		return;
	CHECK(s->process->user.uid == 65534 && s->process->user.gid == 65534);
	CHECK(s->process->no_new_privileges);
	CHECK(s->process->caps == NULL || (s->process->caps->n_bounding == 0 &&
					   s->process->caps->n_permitted == 0 &&
					   s->process->caps->n_effective == 0));
	CHECK(s->root->readonly);
	for (size_t i = 0; i < s->linux_->n_namespaces; i++) {
		CHECK(s->linux_->namespaces[i].path == NULL);
		if (s->linux_->namespaces[i].type == NS_NETWORK)
			net = true;
	}
	CHECK(net);
	CHECK(s->linux_->n_masked_paths > 0 && s->linux_->n_readonly_paths > 0);
	spec_free(s);
}

int main(void)
{
	return unit_run();
}
