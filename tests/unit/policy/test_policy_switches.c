/* Unit tests of the policy's switches (spec/policy/policy_parse.c
 * parse_switches, policy_narrow.c, policy_workspace.c): "refuse", what is
 * refused at create by kind, and "workspace", which directories of the
 * caller's own `corral sandbox --workspace` mounts. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "policy.h"
#include "unit.h"
#include "util.h"

TEST(every_kind_is_refused_by_default_and_each_can_be_turned_off)
{
	struct policy *def = policy_of(NULL);
	struct policy *p = policy_of("{\"refuse\": {\"mounts\": false,"
				     " \"namespaces\": false}}");
	_cleanup_free_ char *text = p ? policy_text(p) : NULL;
	struct policy *back = text ? policy_of(text) : NULL;

	for (size_t i = 0; def && i < POLICY_REFUSALS; i++)
		CHECK(def->refuse[i]);
	CHECK(def && def->workspace_own);
	CHECK(p && !p->refuse[POLICY_REFUSE_MOUNTS] &&
	      p->refuse[POLICY_REFUSE_VOLUMES] &&
	      p->refuse[POLICY_REFUSE_DEVICES] &&
	      !p->refuse[POLICY_REFUSE_NAMESPACES]);
	/* written out and read back the same */
	CHECK(text && strstr(text, "\"refuse\": {"));
	CHECK(back && !back->refuse[POLICY_REFUSE_MOUNTS] &&
	      back->refuse[POLICY_REFUSE_DEVICES]);
	policy_free(back);
	policy_free(p);
	policy_free(def);
}

TEST(a_typo_in_a_switch_is_an_error)
{
	_cleanup_free_ char *kind =
	    policy_error("{\"refuse\": {\"mount\": false}}");
	_cleanup_free_ char *type =
	    policy_error("{\"refuse\": {\"devices\": \"no\"}}");
	_cleanup_free_ char *ws =
	    policy_error("{\"workspace\": {\"allowown\": true}}");

	CHECK_STR(kind, ".refuse.mount: unknown key");
	CHECK(strstr(type, ".refuse.devices"));
	CHECK_STR(ws, ".workspace.allowown: unknown key");
}

TEST(a_users_file_only_narrows_the_switches)
{
	struct policy *s = policy_of("{\"refuse\": {\"mounts\": false,"
				     " \"devices\": false},"
				     " \"workspace\": {\"allowOwn\": true}}");
	struct policy *u = policy_of("{\"refuse\": {\"mounts\": true,"
				     " \"volumes\": false, \"devices\": false},"
				     " \"workspace\": {\"allowOwn\": false}}");
	struct error *err = NULL;

	CHECK(s && u && policy_narrow(s, u, &err) == 0);
	/* a refusal of either file stands (a key a file leaves out is its
	 * default, a refusal); a drop needs both */
	CHECK(s && s->refuse[POLICY_REFUSE_MOUNTS]);
	CHECK(s && s->refuse[POLICY_REFUSE_VOLUMES]);
	CHECK(s && !s->refuse[POLICY_REFUSE_DEVICES]);
	CHECK(s && s->refuse[POLICY_REFUSE_NAMESPACES]);
	CHECK(s && !s->workspace_own);
	error_free(err);
	policy_free(s);
	policy_free(u);
}

TEST(system_shared_and_home_directories_are_never_workspaces)
{
	static const char *const never[] = {
	    "/",
	    "/etc",
	    "/etc/ssh",
	    "/usr",
	    "/usr/local/src",
	    "/boot",
	    "/proc",
	    "/sys/fs",
	    "/dev",
	    "/run",
	    "/run/user/1000",
	    "/var",
	    "/var/lib/containers",
	    "/var/log",
	    "/bin",
	    "/lib64",
	    "/home",
	    "/root",
	    "/tmp",
	    "/var/tmp",
	    "/srv",
	    "/opt",
	    "/mnt",
	    "/media",
	    "/home/alice",
	    "/data/alice",
	};
	static const char *const fine[] = {
	    "/home/alice/project",
	    "/tmp/build",
	    "/var/tmp/job",
	    "/srv/data",
	    "/root/work",
	    "/opt/app/src",
	    "/mnt/usb",
	    "/data/shared",
	    "/etcetera",
	};

	for (size_t i = 0; i < ARRAY_SIZE(never); i++) {
		const char *why =
		    policy_workspace_forbidden(never[i], "/data/alice");

		if (!why)
			printf("# allowed: %s\n", never[i]);
		CHECK(why != NULL);
	}
	for (size_t i = 0; i < ARRAY_SIZE(fine); i++) {
		const char *why =
		    policy_workspace_forbidden(fine[i], "/data/alice");

		if (why)
			printf("# %s: %s\n", fine[i], why);
		CHECK(why == NULL);
	}
}

TEST(a_workspace_is_the_callers_own_or_a_mounts_entrys)
{
	struct policy *def = policy_of(NULL);
	struct policy *off =
	    policy_of("{\"workspace\": {\"allowOwn\": false}}");
	struct policy *srv =
	    policy_of("{\"mounts\": [{\"source\": \"/srv\", \"rw\": true}],"
		      " \"workspace\": {\"allowOwn\": false}}");
	struct error *err = NULL;
	bool own = false;

	CHECK(def &&
	      policy_workspace_check(def, "/home/u/p", NULL, 1000, 1000, &own,
				     &err) == 0 &&
	      own);
	/* another owner's, even root's caller's */
	CHECK(def && policy_workspace_check(def, "/home/u/p", NULL, 1000, 0,
					    &own, &err) < 0);
	CHECK(err && !strcmp(err->msg, "workspace /home/u/p: owned by uid "
				       "1000, not by the caller (uid 0) "
				       "(policy: mounts)"));
	error_free(err);
	err = NULL;
	CHECK(def &&
	      policy_workspace_check(def, "/etc", NULL, 0, 0, &own, &err) < 0);
	CHECK(err && !strcmp(err->msg, "workspace /etc: a system directory "
				       "is never a workspace (policy: "
				       "mounts)"));
	error_free(err);
	err = NULL;
	/* the administrator's switch */
	CHECK(off && policy_workspace_check(off, "/home/u/p", NULL, 1000, 1000,
					    &own, &err) < 0);
	CHECK(err && strstr(err->msg, "(policy: workspace.allowOwn; or an "
				      "entry of mounts)"));
	error_free(err);
	err = NULL;
	/* a mounts entry allows any owner's, and harden() judges the bind */
	CHECK(srv &&
	      policy_workspace_check(srv, "/srv/x", NULL, 0, 1000, &own,
				     &err) == 0 &&
	      !own);
	error_free(err);
	policy_free(def);
	policy_free(off);
	policy_free(srv);
}

int main(void)
{
	return unit_run();
}
