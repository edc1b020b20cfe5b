/* Unit tests of harden_update(): what `corral update` may change, under
 * the policy a container was created under, and how the request is
 * merged into the stored resources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define MiB (INT64_C(1) << 20)

static struct spec_resources *resources(const char *json)
{
	_cleanup_error_ struct error *err = NULL;
	struct spec_resources *r = NULL;

	if (spec_parse_resources(json, strlen(json), &r, &err) < 0) {
		printf("# resources: %s\n", err->msg);
		unit_failed_checks++;
	}
	return r;
}

/* harden_update's error, or "(ok)". */
static char *update_error(const char *request, const char *current,
			  const char *policy, struct harden_update_notes *n)
{
	struct spec_resources *r = resources(request), *c = resources(current);
	struct policy *p = policy_of(policy);
	struct harden_update_notes ignored;
	struct error *err = NULL;
	char *msg;

	if (!r || !c || !p)
		msg = strdup("(setup failed)");
	else if (harden_update(r, c, p, n ? n : &ignored, &err) == 0)
		msg = strdup("(ok)");
	else
		msg = strdup(err->msg);
	error_free(err);
	spec_resources_free(r);
	spec_resources_free(c);
	policy_free(p);
	return msg;
}

TEST(narrowing_is_free_widening_stops_at_the_policy)
{
	const char *cur = "{\"memory\": {\"limit\": 268435456}, "
			  "\"pids\": {\"limit\": 100}}";
	char *ok =
	    update_error("{\"memory\": {\"limit\": 1048576}}", cur, NULL, NULL);
	char *mem = update_error("{\"memory\": {\"limit\": 1073741824}}", cur,
				 NULL, NULL);
	char *unl =
	    update_error("{\"memory\": {\"limit\": -1}}", cur, NULL, NULL);
	char *pids =
	    update_error("{\"pids\": {\"limit\": 100000}}", cur, NULL, NULL);
	char *perm = update_error("{\"memory\": {\"limit\": 1073741824}}", cur,
				  "{\"mode\": \"permissive\"}", NULL);

	CHECK_STR(ok, "(ok)");
	CHECK_STR(mem, "memory 1GiB is wider than the policy's 512MiB");
	CHECK_STR(unl, "memory unlimited is wider than the policy's 512MiB");
	CHECK_STR(pids, "pids 100000 is wider than the policy's 256");
	CHECK_STR(perm, "(ok)");
	free(ok);
	free(mem);
	free(unl);
	free(pids);
	free(perm);
}

TEST(a_quota_is_checked_with_the_stored_period)
{
	const char *cur = "{\"cpu\": {\"quota\": 10000, \"period\": 50000}}";
	const char *pol = "{\"limits\": {\"cpus\": 0.5}}";
	/* 30000/50000 = 0.6 CPU: wider than 0.5 */
	char *wide =
	    update_error("{\"cpu\": {\"quota\": 30000}}", cur, pol, NULL);
	char *fine =
	    update_error("{\"cpu\": {\"quota\": 25000}}", cur, pol, NULL);

	CHECK_STR(wide, "cpu quota 30000/50000 is wider than the policy's "
			"50000/100000");
	CHECK_STR(fine, "(ok)");
	free(wide);
	free(fine);
}

TEST(devices_go_swap_follows_memory_unified_cannot_reach_a_limit)
{
	struct harden_update_notes n;
	char *dev = update_error("{\"devices\": [{\"allow\": true}], "
				 "\"memory\": {\"limit\": 1048576, "
				 "\"swap\": 4194304}}",
				 "{}", NULL, &n);
	char *uni = update_error("{\"unified\": {\"pids.max\": \"max\"}}", "{}",
				 NULL, NULL);

	CHECK_STR(dev, "(ok)");
	CHECK(n.devices_dropped && n.swap_set_to_limit);
	CHECK_STR(uni, "unified pids.max: bounded by the policy; set it "
		       "through its resources field");
	free(dev);
	free(uni);
}

TEST(the_request_merges_into_the_stored_resources)
{
	struct spec_resources *cur = resources(
	    "{\"memory\": {\"limit\": 268435456}, \"cpu\": {\"shares\": 2, "
	    "\"cpus\": \"0-1\"}}");
	struct spec_resources *r = resources(
	    "{\"memory\": {\"limit\": 1048576}, \"cpu\": {\"cpus\": \"1\"}, "
	    "\"pids\": {\"limit\": 10}}");
	_cleanup_error_ struct error *err = NULL;

	CHECK(cur && r && harden_update_merge(cur, r, &err) == 0);
	CHECK(cur && cur->memory->limit.v == 1 * MiB);
	CHECK(cur && cur->cpu->shares.v == 2);
	CHECK(cur && cur->cpu && cur->cpu->cpus &&
	      strcmp(cur->cpu->cpus, "1") == 0);
	CHECK(cur && cur->pids_limit.set && cur->pids_limit.v == 10);
	spec_resources_free(cur);
	spec_resources_free(r);
}

/* The sandbox dropped network at create; an update cannot bring it
 * back.  Under the permissive mode it merges field by field. */
TEST(network_only_under_the_permissive_mode)
{
	char *sb =
	    update_error("{\"network\": {\"classID\": 7}}", "{}", NULL, NULL);
	char *perm = update_error("{\"network\": {\"classID\": 7}}", "{}",
				  "{\"mode\": \"permissive\"}", NULL);
	char *empty = update_error("{\"network\": {}}", "{}", NULL, NULL);
	struct spec_resources *cur =
	    resources("{\"network\": {\"classID\": 1, \"priorities\": "
		      "[{\"name\": \"lo\", \"priority\": 2}]}}");
	struct spec_resources *r = resources("{\"network\": {\"classID\": 9}}");
	_cleanup_error_ struct error *err = NULL;

	CHECK_STR(sb, "network: classID and priorities are the host's to "
		      "choose under the sandbox");
	CHECK_STR(perm, "(ok)");
	CHECK_STR(empty, "(ok)");
	CHECK(cur && r && harden_update_merge(cur, r, &err) == 0);
	CHECK(cur && cur->network && cur->network->class_id.v == 9 &&
	      cur->network->n_priorities == 1 &&
	      strcmp(cur->network->priorities[0].name, "lo") == 0);
	spec_resources_free(cur);
	spec_resources_free(r);
	free(sb);
	free(perm);
	free(empty);
}

int main(void)
{
	return unit_run();
}
