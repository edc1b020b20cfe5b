/* Unit tests of harden() for an ordinary user's corral (policy.h: the
 * runtime's facts rootless, cgroup_delegated, cgroup_controllers): no
 * cgroup (refused, or every limit off under limits.bestEffort), a
 * delegated cgroup with every controller (the limits as root's), one
 * that lacks a controller (refused, or that limit off), the device rules
 * it does not write, explain's rows and the sandbox settings' JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define MiB (INT64_C(1) << 20)

/* A policy from JSON, with the facts the runtime would find. */
static struct policy *rootless_policy(const char *json, bool delegated,
				      unsigned controllers)
{
	struct policy *p = policy_of(json);

	if (p) {
		p->rootless = true;
		p->cgroup_delegated = delegated;
		p->cgroup_controllers = controllers;
	}
	return p;
}

static const struct spec_resources *res(const struct hardened *h)
{
	return h && h->spec->linux_ ? h->spec->linux_->resources : NULL;
}

static char *text_of(const struct hardened *h)
{
	_cleanup_error_ struct error *err = NULL;
	char *out = NULL;

	if (!h || explain_text(h, &out, &err) < 0)
		return NULL;
	return out;
}

TEST(no_cgroup_refuses_naming_best_effort)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p = rootless_policy("{}", false, 0);

	CHECK_ERROR(harden_error(s, p),
		    "rootless: no cgroup of the caller's own to limit memory, "
		    "pids and cpu in (a delegated cgroup); the policy's "
		    "limits.bestEffort runs without them");
	policy_free(p);
	spec_free(s);
}

TEST(no_cgroup_best_effort_turns_every_limit_off)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p =
	    rootless_policy("{\"limits\": {\"bestEffort\": true}}", false, 0);
	struct hardened *h = harden_ok(s, p);
	_cleanup_free_ char *text = text_of(h);

	CHECK(h && h->sandbox.no_cgroup && !h->sandbox.cgroup_delegated);
	CHECK(h && h->sandbox.limits_off == POLICY_LIMITS_ALL);
	CHECK(h && h->sandbox.wall_clock == 600);
	CHECK(text && strstr(text, "off: no cgroup of the caller's own "
				   "(policy: limits.bestEffort)"));
	CHECK(text && strstr(text, "none (rootless: no cgroup of the "
				   "caller's own)"));
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(delegated_cgroup_keeps_every_limit)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p = rootless_policy("{\"limits\": {\"cpus\": 0.5}}",
					   true, POLICY_LIMITS_ALL);
	struct hardened *h = harden_ok(s, p);
	_cleanup_free_ char *text = text_of(h);

	CHECK(h && !h->sandbox.no_cgroup && h->sandbox.cgroup_delegated);
	CHECK(h && h->sandbox.limits_off == 0);
	CHECK(res(h) && res(h)->memory && res(h)->memory->limit.v == 512 * MiB);
	CHECK(res(h) && res(h)->pids_limit.set && res(h)->pids_limit.v == 256);
	CHECK(res(h) && res(h)->cpu && res(h)->cpu->quota.v == 50000);
	CHECK(text && strstr(text, "the caller's delegated cgroup"));
	CHECK(text && !strstr(text, "off:"));
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(delegated_cgroup_without_memory_refuses)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p =
	    rootless_policy("{}", true, POLICY_LIMIT_PIDS | POLICY_LIMIT_CPU);
	struct policy *none =
	    rootless_policy("{\"limits\": {\"memory\": 0}}", true,
			    POLICY_LIMIT_PIDS | POLICY_LIMIT_CPU);

	CHECK_ERROR(harden_error(s, p),
		    "rootless: the caller's delegated cgroup has no memory "
		    "controller to limit memory in; the policy's "
		    "limits.bestEffort runs without it");
	/* nothing asks for a memory limit: nothing to refuse */
	CHECK_ERROR(harden_error(s, none), "(hardened)");
	policy_free(p);
	policy_free(none);
	spec_free(s);
}

TEST(delegated_cgroup_best_effort_turns_one_limit_off)
{
	struct spec *s =
	    spec_of("{\"ociVersion\": \"1.2.0\","
		    " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		    "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
		    " \"root\": {\"path\": \"rootfs\"},"
		    " \"linux\": {\"resources\": {\"pids\": {\"limit\": 10},"
		    "  \"cpu\": {\"shares\": 512, \"cpus\": \"0\"}}}}");
	struct policy *p = rootless_policy(
	    "{\"limits\": {\"bestEffort\": true}}", true, POLICY_LIMIT_MEMORY);
	struct hardened *h = harden_ok(s, p);
	struct hardened *again = h ? harden_ok(h->spec, p) : NULL;
	_cleanup_free_ char *text = text_of(h);

	CHECK(h &&
	      h->sandbox.limits_off == (POLICY_LIMIT_PIDS | POLICY_LIMIT_CPU));
	CHECK(res(h) && res(h)->memory && res(h)->memory->limit.v == 512 * MiB);
	CHECK(res(h) && !res(h)->pids_limit.set);
	/* cpus is the cpuset's, which the runtime checks */
	CHECK(res(h) && res(h)->cpu && !res(h)->cpu->shares.set &&
	      res(h)->cpu->cpus && strcmp(res(h)->cpu->cpus, "0") == 0);
	CHECK(text && strstr(text, "off: the caller's delegated cgroup has no "
				   "pids controller (policy: "
				   "limits.bestEffort)"));
	CHECK(text && strstr(text, "512 MiB"));
	/* again: the same, and no field of config.json's changed */
	CHECK(again && again->sandbox.limits_off == h->sandbox.limits_off);
	for (size_t i = 0; again && i < again->n_changes; i++)
		CHECK(again->changes[i].field[0] != '.');
	hardened_free(again);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(rootless_writes_no_device_rules_but_keeps_them)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p = rootless_policy("{}", true, POLICY_LIMITS_ALL);
	struct policy *root = policy_of("{}");
	struct hardened *h = harden_ok(s, p), *hr = harden_ok(s, root);

	CHECK(h && h->sandbox.no_device_cgroup);
	CHECK(hr && !hr->sandbox.no_device_cgroup);
	CHECK(res(h) && res(h)->n_devices > 0 && !res(h)->devices[0].allow);
	CHECK_CHANGE(h, "device rules", NULL,
		     "not written: no device node opens but those bound from "
		     "the host",
		     NULL);
	CHECK(!find_change(hr, "device rules"));
	hardened_free(h);
	hardened_free(hr);
	policy_free(p);
	policy_free(root);
	spec_free(s);
}

TEST(rootless_sandbox_settings_round_trip)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p = rootless_policy(
	    "{\"limits\": {\"bestEffort\": true}}", true, POLICY_LIMIT_PIDS);
	struct hardened *h = harden_ok(s, p);
	_cleanup_error_ struct error *err = NULL;
	_cleanup_free_ char *json = NULL, *ej = NULL;
	struct sandbox back = {0};

	if (!h || hardened_emit_sandbox(h, &json, &err) < 0 ||
	    hardened_parse_sandbox(json, strlen(json), &back, &err) < 0) {
		CHECK(!"emit and parse the sandbox");
		goto out;
	}
	CHECK(back.cgroup_delegated && back.no_device_cgroup);
	CHECK(back.limits_off == (POLICY_LIMIT_MEMORY | POLICY_LIMIT_CPU));
	CHECK(strstr(
	    json, "\"limitsOff\": [\n      \"memory\",\n      \"cpu\"\n    ]"));
	CHECK(explain_json(h, &ej, &err) == 0 &&
	      strstr(ej, "\"cgroup\": \"delegated\""));
	CHECK(ej && strstr(ej, "\"off\": \"off: the caller's delegated cgroup "
			       "has no memory controller"));
out:
	sandbox_release(&back);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

/* Root of rootless podman's user namespace: no namespace of corral's,
 * config.json's dropped, and explain says whose ids they are. */
TEST(nested_in_an_engines_user_namespace)
{
	struct spec *s =
	    spec_of("{\"ociVersion\": \"1.2.0\","
		    " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		    "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
		    " \"root\": {\"path\": \"rootfs\"},"
		    " \"linux\": {\"namespaces\": [{\"type\": \"user\"}],"
		    "  \"uidMappings\": [{\"containerID\": 0, \"hostID\": 1,"
		    "   \"size\": 65536}],"
		    "  \"gidMappings\": [{\"containerID\": 0, \"hostID\": 1,"
		    "   \"size\": 65536}]}}");
	struct policy *p = rootless_policy("{}", true, POLICY_LIMITS_ALL);
	struct hardened *h = NULL;
	_cleanup_free_ char *text = NULL, *json = NULL;
	_cleanup_error_ struct error *err = NULL;
	struct sandbox back = {0};

	if (p)
		p->rootless_nested = true;
	h = harden_ok(s, p);
	text = text_of(h);
	CHECK(h && h->sandbox.rootless && h->sandbox.rootless_nested);
	CHECK(h && !h->sandbox.userns_auto);
	CHECK_CHANGE(h, ".linux.namespaces[user]", NULL, "dropped", NULL);
	CHECK(h && h->spec->linux_->n_uid_mappings == 0);
	CHECK(text && strstr(text, "the caller's: it is root of a user "
				   "namespace of an ordinary user's"));
	CHECK(h && hardened_emit_sandbox(h, &json, &err) == 0 &&
	      strstr(json, "\"rootlessNested\": true"));
	CHECK(json &&
	      hardened_parse_sandbox(json, strlen(json), &back, &err) == 0 &&
	      back.rootless && back.rootless_nested && !back.rootless_single);
	sandbox_release(&back);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(sandbox_parse_refuses_an_unknown_limit)
{
	_cleanup_error_ struct error *err = NULL;
	static const char json[] =
	    "{\"sandbox\": {\"enforced\": true, \"role\": \"workload\","
	    " \"loopbackOnly\": true, \"rootfs\": \"overlay\","
	    " \"scratchSize\": 1, \"wallClock\": 1, \"syscallsAllow\": [],"
	    " \"limitsBestEffort\": true, \"limitsOff\": [\"disk\"]}}";
	struct sandbox back = {0};

	CHECK(hardened_parse_sandbox(json, strlen(json), &back, &err) < 0);
	CHECK(err && strstr(err->msg, "limitsOff"));
	sandbox_release(&back);
}

int main(void)
{
	return unit_run();
}
