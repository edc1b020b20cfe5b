/* Fuzz target: harden() and what reads its result.
 *
 * The input is up to three parts separated by NUL bytes:
 *
 *     CONFIG.JSON \0 POLICY.JSON \0 ANNOTATIONS
 *
 * CONFIG.JSON must parse (else the input is uninteresting).  An empty or
 * absent POLICY.JSON means the built-in defaults; one that does not parse
 * makes the input uninteresting.  ANNOTATIONS, when present, is a JSON
 * object of strings merged over config.json's annotations, so the fuzzer
 * can vary run.corral.* and the pod markers without touching the config.
 *
 * When harden() succeeds, the checks of harden_invariants.h must hold
 * (idempotent, never wider), explain must render as text and as JSON (the
 * JSON must parse), the sandbox settings must read back from their JSON,
 * and harden_process() on config.json's process must give the workload's
 * process.  When it fails, the message must be one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "fuzz.h"
#include "harden.h"
#include "harden_invariants.h"
#include "policy.h"
#include "spec.h"

/* Set key=value in s's annotations (replacing a present key). */
static void put_annotation(struct spec *s, const struct spec_kv *kv)
{
	struct spec_kv *grown;

	for (size_t i = 0; i < s->n_annotations; i++) {
		if (strcmp(s->annotations[i].key, kv->key) == 0) {
			free(s->annotations[i].value);
			s->annotations[i].value = strdup(kv->value);
			FUZZ_CHECK(s->annotations[i].value, "out of memory");
			return;
		}
	}
	grown =
	    realloc(s->annotations, (s->n_annotations + 1) * sizeof(*grown));
	FUZZ_CHECK(grown, "out of memory");
	s->annotations = grown;
	grown[s->n_annotations] =
	    (struct spec_kv){strdup(kv->key), strdup(kv->value)};
	FUZZ_CHECK(grown[s->n_annotations].key && grown[s->n_annotations].value,
		   "out of memory");
	s->n_annotations++;
}

/* Merge the annotations part; false when it does not parse. */
static bool merge_annotations(struct spec *s, const char *text, size_t len)
{
	static const char head[] = "{\"ociVersion\": \"1.2.0\", "
				   "\"annotations\": ";
	size_t n = sizeof(head) - 1;
	char *doc = malloc(n + len + 2);
	struct error *err = NULL;
	struct spec *a = NULL;
	int r;

	FUZZ_CHECK(doc, "out of memory");
	memcpy(doc, head, n);
	memcpy(doc + n, text, len);
	memcpy(doc + n + len, "}", 2);
	r = spec_parse(doc, n + len + 1, &a, &err);
	free(doc);
	error_free(err);
	if (r < 0)
		return false;
	for (size_t i = 0; i < a->n_annotations; i++)
		put_annotation(s, &a->annotations[i]);
	spec_free(a);
	return true;
}

static void check_explain(const struct hardened *h)
{
	struct error *err = NULL;
	char *text = NULL, *json = NULL, errbuf[128];
	yajl_val doc;

	FUZZ_CHECK(explain_text(h, &text, &err) == 0, "explain_text: %s",
		   err ? err->msg : "?");
	FUZZ_CHECK(explain_json(h, &json, &err) == 0, "explain_json: %s",
		   err ? err->msg : "?");
	doc = yajl_tree_parse(json, errbuf, sizeof(errbuf));
	FUZZ_CHECK(doc, "explain_json is not JSON: %s\n%s", errbuf, json);
	yajl_tree_free(doc);
	free(text);
	free(json);
}

static void check_sandbox_json(const struct hardened *h)
{
	struct error *err = NULL;
	struct sandbox back = {0};
	char *json = NULL;

	FUZZ_CHECK(hardened_emit_sandbox(h, &json, &err) == 0,
		   "hardened_emit_sandbox: %s", err ? err->msg : "?");
	FUZZ_CHECK(hardened_parse_sandbox(json, strlen(json), &back, &err) == 0,
		   "sandbox.json does not read back: %s\n%s",
		   err ? err->msg : "?", json);
	FUZZ_CHECK(hinv_same_sandbox(&h->sandbox, &back),
		   "sandbox.json reads back different settings:\n%s", json);
	sandbox_release(&back);
	free(json);
}

/* exec's process gets exactly what the workload got. */
static void check_process(const struct spec *config, const struct policy *p,
			  const struct hardened *h)
{
	struct error *err = NULL;
	struct spec_process *pr = NULL;
	struct spec a = {.oci_version = (char *)SPEC_OCI_VERSION};
	struct spec b = {.oci_version = (char *)SPEC_OCI_VERSION,
			 .process = h->spec->process};
	char *ta, *tb;

	if (!config->process)
		return;
	FUZZ_CHECK(harden_process(config->process, p, &h->sandbox, &pr, &err) ==
		       0,
		   "harden_process: %s", err ? err->msg : "?");
	a.process = pr;
	ta = fuzz_spec_text(&a);
	tb = fuzz_spec_text(&b);
	FUZZ_CHECK(strcmp(ta, tb) == 0,
		   "harden_process differs from harden:\n%s\n---\n%s", ta, tb);
	free(ta);
	free(tb);
	spec_process_free(pr);
}

/* config.json's own resources as an `update` request against what harden
 * gave: accepted under the sandbox, it asks for no more memory or pids
 * than the policy, and it merges; refused, the message is one line. */
static void check_update(const struct spec *config, const struct policy *p,
			 const struct hardened *h)
{
	const struct spec_linux *lx = config->linux_;
	struct spec_resources *req = NULL, *stored = NULL;
	struct harden_update_notes notes;
	struct error *err = NULL;
	char *text = NULL;
	struct spec tmp = {.oci_version = (char *)SPEC_OCI_VERSION};

	if (!lx || !lx->resources || !h->spec->linux_ ||
	    !h->spec->linux_->resources)
		return;
	/* deep copies, through the serialiser as harden() copies */
	tmp.linux_ = &(struct spec_linux){.resources = lx->resources};
	if (spec_emit(&tmp, &text, NULL, &err) == 0) {
		struct spec *copy = NULL;

		if (spec_parse(text, strlen(text), &copy, &err) == 0 &&
		    copy->linux_) {
			req = steal_pointer(&copy->linux_->resources);
		}
		spec_free(copy);
	}
	free(text);
	error_free(err);
	err = NULL;
	stored = h->spec->linux_->resources;
	if (!req)
		return;
	if (harden_update(req, stored, p, &notes, &err) < 0) {
		fuzz_rejected(err, "harden_update");
	} else if (p->mode != POLICY_PERMISSIVE) {
		const struct spec_memory *m = req->memory;

		FUZZ_CHECK(!(p->memory > 0 && m && m->limit.set &&
			     m->limit.v != 0 &&
			     (m->limit.v < 0 || m->limit.v > p->memory)),
			   "update: memory wider than the policy");
		FUZZ_CHECK(
		    !(p->pids > 0 && req->pids_limit.set &&
		      (req->pids_limit.v <= 0 || req->pids_limit.v > p->pids)),
		    "update: pids wider than the policy");
		FUZZ_CHECK(req->n_devices == 0, "update: device rules kept");
	}
	spec_resources_free(req);
}

static void check_hardened(const struct spec *config, const struct policy *p,
			   const struct hardened *h)
{
	struct hinv_case k = {config, p, h};
	char *detail = NULL;
	const char *why = hinv_never_wider(&k);

	FUZZ_CHECK(!why, "never wider: %s", why);
	why = hinv_idempotent(&k, &detail);
	FUZZ_CHECK(!why, "idempotence: %s: %s", why, detail ? detail : "");
	check_explain(h);
	check_sandbox_json(h);
	check_process(config, p, h);
	check_update(config, p, h);
}

/* FUZZ_VERBOSE=1 says what became of each input (to check seeds). */
static void say(const char *what, const char *detail)
{
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_harden: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
}

static struct policy *read_policy(const char *text, size_t len)
{
	struct error *err = NULL;
	struct policy *p = NULL;
	int r;

	if (!text || len == 0)
		r = policy_default(&p, &err);
	else
		r = policy_parse(text, len, &p, &err);
	error_free(err);
	/* what the runtime would find of the caller (policy.h), from the
	 * text too: an ordinary user's corral, its mapping, its cgroup */
	if (r == 0) {
		p->rootless = len % 3 == 1;
		p->rootless_single = p->rootless && len % 2;
		p->rootless_groups = p->rootless_single && len % 4 == 1;
		p->rootless_nested = p->rootless && len % 7 == 3;
		p->cgroup_delegated = p->rootless && len % 5 == 0;
		p->cgroup_controllers =
		    p->cgroup_delegated ? (unsigned)(len / 5) % 8 : 0;
	}
	return r < 0 ? NULL : p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data, *part;
	struct error *err = NULL;
	struct spec *config = NULL;
	struct policy *policy = NULL;
	struct hardened *h = NULL;
	size_t len = 0;

	part = fuzz_part(in, size, 0, &len);
	if (spec_parse(part, len, &config, &err) < 0) {
		say("config rejected", err ? err->msg : NULL);
		error_free(err);
		return 0;
	}
	part = fuzz_part(in, size, 2, &len);
	if (part && len && !merge_annotations(config, part, len)) {
		say("annotations rejected", NULL);
		goto out;
	}
	part = fuzz_part(in, size, 1, &len);
	policy = read_policy(part, part ? len : 0);
	if (!policy) {
		say("policy rejected", NULL);
		goto out;
	}
	if (harden(config, policy, NULL, &h, &err) < 0) {
		say("harden failed", err ? err->msg : NULL);
		fuzz_rejected(err, "harden");
	} else {
		check_hardened(config, policy, h);
		say("hardened and checked", NULL);
	}
out:
	hardened_free(h);
	policy_free(policy);
	spec_free(config);
	return 0;
}
