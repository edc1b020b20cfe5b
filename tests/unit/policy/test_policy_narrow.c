/* Unit tests of policy_narrow() (spec/policy/policy_narrow.c): an ordinary
 * user's policy under the system's; the result is never wider than
 * either. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "policy.h"
#include "unit.h"
#include "util.h"

static struct policy *narrowed(const char *sys, const char *user)
{
	struct policy *s = policy_of(sys), *u = policy_of(user);
	struct error *err = NULL;

	CHECK(s && u);
	if (s && u && policy_narrow(s, u, &err) < 0) {
		printf("# %s\n", err->msg);
		error_free(err);
		policy_free(s);
		s = NULL;
	}
	policy_free(u);
	return s;
}

TEST(limits_take_the_smaller_and_none_is_the_widest)
{
	struct policy *p = narrowed(
	    "{\"limits\": {\"memory\": \"1GiB\", \"pids\": 0, \"wallClock\": 0,"
	    " \"cpus\": 2}}",
	    "{\"limits\": {\"memory\": \"2GiB\", \"pids\": 50, \"wallClock\": "
	    "30,"
	    " \"cpus\": 0.5}}");

	CHECK(p && p->memory == (INT64_C(1) << 30));
	CHECK(p && p->pids == 50 && p->wall_clock == 30);
	CHECK(p && p->cpu_quota == 50000 && p->cpu_period == 100000);
	policy_free(p);
	p = narrowed("{\"limits\": {\"cpus\": 0.5}}",
		     "{\"limits\": {\"cpus\": 4}}");
	CHECK(p && p->cpu_quota == 50000);
	policy_free(p);
}

TEST(lists_keep_what_both_name)
{
	struct policy *p = narrowed(
	    "{\"env\": {\"allow\": [\"PATH\", \"HOME\"]},"
	    " \"capabilities\": {\"keep\": [\"CAP_NET_BIND_SERVICE\"]},"
	    " \"syscalls\": {\"allow\": [\"io_pgetevents\"]}}",
	    "{\"env\": {\"allow\": [\"PATH\", \"SECRET\"]},"
	    " \"capabilities\": {\"keep\": [\"CAP_NET_BIND_SERVICE\","
	    " \"CAP_SYS_ADMIN\"]}}");

	CHECK(p && p->n_env_allow == 1 && !strcmp(p->env_allow[0], "PATH"));
	CHECK(p && p->n_caps_keep == 1 &&
	      !strcmp(p->caps_keep[0], "CAP_NET_BIND_SERVICE"));
	CHECK(p && p->n_syscalls_allow == 0);
	policy_free(p);
}

TEST(switches_allow_only_when_both_do)
{
	struct policy *p = narrowed(
	    "{\"mode\": \"permissive\", \"user\": {\"allowRoot\": true},"
	    " \"limits\": {\"bestEffort\": true}}",
	    "{\"limits\": {\"bestEffort\": false}}");

	CHECK(p && p->mode == POLICY_SANDBOX && !p->allow_root &&
	      !p->limits_best_effort);
	policy_free(p);
	p = narrowed("{\"rootfs\": {\"scratchSize\": \"16MiB\"}}",
		     "{\"rootfs\": {\"mode\": \"strict\", \"scratchSize\": "
		     "\"1GiB\"}}");
	CHECK(p && p->rootfs == POLICY_ROOTFS_STRICT &&
	      p->scratch_size == (UINT64_C(16) << 20));
	policy_free(p);
}

TEST(network_is_the_narrower)
{
	struct policy *p = narrowed("{\"network\": \"loopback\"}",
				    "{\"network\": \"config\"}");

	CHECK(p && p->network == POLICY_NET_LOOPBACK);
	policy_free(p);
	p = narrowed("{\"network\": \"config\"}",
		     "{\"network\": {\"allow\": [\"pypi.org\"]}}");
	CHECK(p && p->network == POLICY_NET_EGRESS && p->n_egress_allow == 1);
	policy_free(p);
	p = narrowed(
	    "{\"network\": {\"allow\": [\"pypi.org\", \"a.example\"]}}",
	    "{\"network\": {\"allow\": [\"a.example\", \"b.example\"]}}");
	CHECK(p && p->network == POLICY_NET_EGRESS && p->n_egress_allow == 1 &&
	      !strcmp(p->egress_allow[0], "a.example"));
	policy_free(p);
}

TEST(mounts_and_engine_dirs_keep_the_deeper_where_one_holds_the_other)
{
	struct policy *p = narrowed(
	    "{\"mounts\": [{\"source\": \"/srv\", \"rw\": true},"
	    " {\"source\": \"/data\"}], \"engineDirs\": [\"/var/lib/x\"]}",
	    "{\"mounts\": [{\"source\": \"/srv/mine\", \"rw\": true},"
	    " {\"source\": \"/data/a\", \"rw\": true}, {\"source\": \"/etc\"}],"
	    " \"engineDirs\": [\"/var/lib/x/y\", \"/home/u\"]}");

	CHECK(p && p->n_mounts == 2);
	CHECK(p && !strcmp(p->mounts[0].source, "/srv/mine") &&
	      p->mounts[0].rw);
	CHECK(p && !strcmp(p->mounts[1].source, "/data/a") && !p->mounts[1].rw);
	CHECK(p && p->n_engine_dirs == 1 &&
	      !strcmp(p->engine_dirs[0], "/var/lib/x/y"));
	policy_free(p);
}

TEST(privileged_groups_are_both_and_report_dir_stays_the_system_s)
{
	struct policy *p =
	    narrowed("{\"user\": {\"privilegedGroups\": [\"disk\"]},"
		     " \"report\": {\"dir\": \"/var/log/corral\"}}",
		     "{\"user\": {\"privilegedGroups\": [\"video\"]},"
		     " \"report\": {\"dir\": \"/tmp/mine\"}}");

	CHECK(p && p->n_privileged_groups == 2);
	CHECK(p && !strcmp(p->report_dir, "/var/log/corral"));
	policy_free(p);
}

TEST(a_narrowed_policy_round_trips)
{
	struct policy *p = narrowed(
	    "{}", "{\"limits\": {\"memory\": \"64MiB\"}, \"devices\": []}");
	char *text = p ? policy_text(p) : NULL;
	struct policy *back = text ? policy_of(text) : NULL;

	CHECK(back && back->memory == (INT64_C(64) << 20));
	CHECK(back && back->n_devices == 0);
	policy_free(back);
	free(text);
	policy_free(p);
}

int main(void)
{
	return unit_run();
}
