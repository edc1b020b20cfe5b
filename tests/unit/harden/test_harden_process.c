/* Unit tests of harden_process(): the process of `exec` gets the same
 * sandbox as the container's workload.  The refusal of `exec --cap` for a
 * capability the policy does not keep is the runtime's (it needs the
 * flag); here the capabilities of a process document are only narrowed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fixture.h"

static struct spec_process *process_of(const char *json)
{
	_cleanup_error_ struct error *err = NULL;
	struct spec_process *p = NULL;

	if (spec_parse_process(json, strlen(json), &p, &err) < 0) {
		printf("# process: %s\n", err->msg);
		unit_failed_checks++;
		return NULL;
	}
	return p;
}

static struct spec_process *fixture_process(void)
{
	size_t len = 0;
	_cleanup_free_ char *json = read_file(FIXTURES "process.json", &len);

	return json ? process_of(json) : NULL;
}

/* harden_process() that must succeed; policy NULL means the built-ins. */
static struct spec_process *hardened(const struct spec_process *in,
				     const char *policy_json)
{
	_cleanup_error_ struct error *err = NULL;
	struct policy *p = policy_of(policy_json);
	struct spec_process *out = NULL;

	if (!in || !p) {
		policy_free(p);
		return NULL;
	}
	if (harden_process(in, p, NULL, &out, &err) < 0) {
		printf("# harden_process: %s\n", err->msg);
		unit_failed_checks++;
		out = NULL;
	}
	policy_free(p);
	return out;
}

/* The process as JSON text, for comparing two processes whole. */
static char *process_text(const struct spec_process *p)
{
	struct spec s = {.oci_version = (char *)SPEC_OCI_VERSION,
			 .process = (struct spec_process *)p};

	return spec_text(&s);
}

static const struct spec_rlimit *rlimit(const struct spec_process *p,
					int resource)
{
	for (size_t i = 0; p && i < p->n_rlimits; i++)
		if (p->rlimits[i].resource == resource)
			return &p->rlimits[i];
	return NULL;
}

static size_t n_caps(const struct spec_process *p)
{
	const struct spec_caps *c = p->caps;

	if (!c)
		return 0;
	return c->n_bounding + c->n_effective + c->n_inheritable +
	       c->n_permitted + c->n_ambient;
}

/* ---- secrets in the environment -------------------------------------- */

TEST(env_keeps_only_the_default_allowlist)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(in, NULL);

	if (out) {
		CHECK(out->n_env == 3);
		CHECK(has_str(out->env, out->n_env,
			      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
			      "/usr/bin:/sbin:/bin"));
		CHECK(has_str(out->env, out->n_env, "TERM=xterm"));
		CHECK(has_str(out->env, out->n_env, "HOME=/root"));
		CHECK(!has_str(out->env, out->n_env, "HOSTNAME=8f3c7a2d1e9b"));
		CHECK(out->env[out->n_env] == NULL);
	}
	spec_process_free(out);
	spec_process_free(in);
}

TEST(env_allowlist_comes_from_the_policy)
{
	struct spec_process *in =
	    process_of("{\"args\": [\"sh\"], \"cwd\": \"/\","
		       " \"env\": [\"SECRET=x\", \"PATH=/bin\", \"TOKEN=y\","
		       "  \"SECRETS=z\"]}");
	struct spec_process *out =
	    hardened(in, "{\"env\": {\"allow\": [\"SECRET\", \"PATH\"]}}");

	if (out) {
		CHECK(out->n_env == 2);
		CHECK_STR(out->env[0], "SECRET=x");
		CHECK_STR(out->env[1], "PATH=/bin");
	}
	spec_process_free(out);
	spec_process_free(in);
}

TEST(env_allowlist_empty_drops_everything)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(in, "{\"env\": {\"allow\": []}}");

	if (out)
		CHECK(out->n_env == 0);
	spec_process_free(out);
	spec_process_free(in);
}

/* ---- the user -------------------------------------------------------- */

TEST(uid_and_gid_0_become_the_policys)
{
	struct spec_process *in = fixture_process();
	struct spec_process *def = hardened(in, NULL);
	struct spec_process *pol =
	    hardened(in, "{\"user\": {\"uid\": 1000, \"gid\": 1001}}");

	if (def) {
		CHECK(def->user.uid == 65534);
		CHECK(def->user.gid == 65534);
		CHECK(def->user.n_additional_gids == 0);
	}
	if (pol) {
		CHECK(pol->user.uid == 1000);
		CHECK(pol->user.gid == 1001);
	}
	spec_process_free(def);
	spec_process_free(pol);
	spec_process_free(in);
}

TEST(a_non_zero_uid_is_kept)
{
	struct spec_process *in =
	    process_of("{\"args\": [\"id\"], \"cwd\": \"/\","
		       " \"user\": {\"uid\": 123, \"gid\": 0}}");
	struct spec_process *out = hardened(in, NULL);

	if (out) {
		CHECK(out->user.uid == 123);
		CHECK(out->user.gid == 65534);
	}
	spec_process_free(out);
	spec_process_free(in);
}

TEST(an_absent_user_is_root_and_is_mapped)
{
	struct spec_process *in =
	    process_of("{\"args\": [\"id\"], \"cwd\": \"/\"}");
	struct spec_process *out = hardened(in, NULL);

	if (out) {
		CHECK(out->user.uid == 65534);
		CHECK(out->user.gid == 65534);
	}
	spec_process_free(out);
	spec_process_free(in);
}

TEST(allow_root_keeps_uid_0)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(
	    in, "{\"user\": {\"allowRoot\": true, \"keepGroups\": true}}");

	if (out) {
		CHECK(out->user.uid == 0);
		CHECK(out->user.gid == 0);
		CHECK(out->user.n_additional_gids == 11);
	}
	spec_process_free(out);
	spec_process_free(in);
}

/* ---- capabilities and no_new_privs ----------------------------------- */

TEST(capabilities_are_emptied_by_default)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(in, NULL);

	if (out)
		CHECK(n_caps(out) == 0);
	spec_process_free(out);
	spec_process_free(in);
}

TEST(capabilities_are_the_intersection_with_the_keep_list)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(
	    in,
	    "{\"capabilities\": {\"keep\": [\"CAP_KILL\", \"CAP_NET_RAW\"]}}");

	if (out && out->caps) {
		const struct spec_caps *c = out->caps;

		CHECK(c->n_bounding == 1 && c->n_effective == 1 &&
		      c->n_permitted == 1);
		CHECK_STR(c->bounding[0], "CAP_KILL");
		CHECK_STR(c->effective[0], "CAP_KILL");
		CHECK_STR(c->permitted[0], "CAP_KILL");
		CHECK(c->n_inheritable == 0 && c->n_ambient == 0);
	} else {
		CHECK(out && out->caps);
	}
	spec_process_free(out);
	spec_process_free(in);
}

TEST(no_new_privileges_is_forced)
{
	struct spec_process *in =
	    process_of("{\"args\": [\"sh\"], \"cwd\": \"/\","
		       " \"noNewPrivileges\": false}");
	struct spec_process *out = hardened(in, NULL);

	if (out)
		CHECK(out->no_new_privileges);
	spec_process_free(out);
	spec_process_free(in);
}

/* ---- rlimits ---------------------------------------------------------- */

TEST(core_dumps_are_off_and_other_rlimits_kept)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(in, NULL);
	const struct spec_rlimit *core = rlimit(out, RLIMIT_CORE);
	const struct spec_rlimit *nofile = rlimit(out, RLIMIT_NOFILE);

	CHECK(core && core->soft == 0 && core->hard == 0);
	CHECK(nofile && nofile->soft == 1048576 && nofile->hard == 1048576);
	spec_process_free(out);
	spec_process_free(in);
}

/* ---- the whole process ------------------------------------------------ */

TEST(the_rest_of_the_process_is_kept)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(in, NULL);

	if (out) {
		CHECK(out->terminal);
		CHECK(out->has_console_size && out->console_height == 24 &&
		      out->console_width == 80);
		CHECK(out->n_args == 3);
		CHECK_STR(out->args[2], "ps aux");
		CHECK_STR(out->cwd, "/");
	}
	spec_process_free(out);
	spec_process_free(in);
}

TEST(the_input_is_not_modified)
{
	struct spec_process *in = fixture_process();
	_cleanup_free_ char *before = in ? process_text(in) : NULL;
	struct spec_process *out = hardened(in, NULL);
	_cleanup_free_ char *after = in ? process_text(in) : NULL;

	CHECK_STR(after, before);
	spec_process_free(out);
	spec_process_free(in);
}

TEST(harden_process_is_idempotent)
{
	struct spec_process *in = fixture_process();
	struct spec_process *once =
	    hardened(in, "{\"env\": {\"allow\": [\"TERM\"]}}");
	struct spec_process *twice =
	    hardened(once, "{\"env\": {\"allow\": [\"TERM\"]}}");
	_cleanup_free_ char *a = once ? process_text(once) : NULL;
	_cleanup_free_ char *b = twice ? process_text(twice) : NULL;

	CHECK_STR(b, a);
	spec_process_free(twice);
	spec_process_free(once);
	spec_process_free(in);
}

/* The exec'd process of a container gets what harden() gives the
 * container's own process for the same input. */
TEST(same_result_as_harden_for_the_workload)
{
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = harden_ok(s, NULL);
	struct spec_process *out = s ? hardened(s->process, NULL) : NULL;
	_cleanup_free_ char *a = h ? process_text(h->spec->process) : NULL;
	_cleanup_free_ char *b = out ? process_text(out) : NULL;

	CHECK_STR(b, a);
	spec_process_free(out);
	hardened_free(h);
	spec_free(s);
}

TEST(permissive_returns_the_process_unchanged)
{
	struct spec_process *in = fixture_process();
	struct spec_process *out = hardened(in, "{\"mode\": \"permissive\"}");
	_cleanup_free_ char *a = in ? process_text(in) : NULL;
	_cleanup_free_ char *b = out ? process_text(out) : NULL;

	CHECK_STR(b, a);
	if (out) {
		CHECK(out->user.uid == 0);
		CHECK(n_caps(out) == 6);
	}
	spec_process_free(out);
	spec_process_free(in);
}

int main(void)
{
	return unit_run();
}
