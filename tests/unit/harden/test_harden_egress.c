/* Unit tests of the egress policy: `network: {"allow": [...]}` read,
 * normalized and written back; harden()'s egress rule (a new loopback-only
 * namespace, the proxy's rules, config.json's network path kept as where
 * the proxy dials from) and the run.corral.egress annotation, which only
 * narrows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "fixture.h"

static struct spec *config(const char *annotations, const char *netns)
{
	char json[4096];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\","
		 " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		 "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
		 " \"root\": {\"path\": \"rootfs\"},"
		 " \"annotations\": {%s}, \"linux\": {\"namespaces\": ["
		 "  {\"type\": \"network\"%s%s%s}]}}",
		 annotations, netns ? ", \"path\": \"" : "", netns ? netns : "",
		 netns ? "\"" : "");
	return spec_of(json);
}

static const struct spec_namespace *netns_of(const struct hardened *h)
{
	const struct spec_linux *lx = h ? h->spec->linux_ : NULL;

	for (size_t i = 0; lx && i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == NS_NETWORK)
			return &lx->namespaces[i];
	return NULL;
}

TEST(the_allow_list_is_read_normalized)
{
	struct policy *p = policy_of(
	    "{\"network\": {\"allow\": [\"PyPI.org.\", \"**.GitHub.com\","
	    " \"api.example.com:8443\", \"127.0.0.1:8080\", \"[::1]:9\"]}}");

	CHECK(p && p->network == POLICY_NET_EGRESS);
	CHECK(p && p->n_egress_allow == 5);
	if (p && p->n_egress_allow == 5) {
		CHECK_STR(p->egress_allow[0], "pypi.org");
		CHECK_STR(p->egress_allow[1], "**.github.com");
		CHECK_STR(p->egress_allow[2], "api.example.com:8443");
		CHECK_STR(p->egress_allow[3], "127.0.0.1:8080");
		CHECK_STR(p->egress_allow[4], "[::1]:9");
	}
	policy_free(p);
}

TEST(the_allow_list_round_trips)
{
	struct policy *p = policy_of(
	    "{\"network\": {\"allow\": [\"pypi.org\", \"*.x.org\"]}}");
	char *text = p ? policy_text(p) : NULL;
	struct policy *q = text ? policy_of(text) : NULL;
	char *again = q ? policy_text(q) : NULL;

	CHECK(q && q->network == POLICY_NET_EGRESS && q->n_egress_allow == 2);
	CHECK(text && again && strcmp(text, again) == 0);
	free(text);
	free(again);
	policy_free(p);
	policy_free(q);
}

TEST(bad_rules_fail_naming_the_entry)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"network\": {\"allow\": [\"*\"]}}",
	     ".network.allow[0]: *: a wildcard is only `*.name` or `**.name`, "
	     "never all hosts"},
	    {"{\"network\": {\"allow\": [\"ok.org\", \"**.com\"]}}",
	     ".network.allow[1]: **.com: a wildcard over the public suffix "
	     "\"com\" would allow every site under it"},
	    {"{\"network\": {\"allow\": [\"*.github.io\"]}}",
	     ".network.allow[0]: *.github.io: a wildcard over the public "
	     "suffix \"github.io\" would allow every site under it"},
	    {"{\"network\": {\"allow\": [\"**.co.uk\"]}}",
	     ".network.allow[0]: **.co.uk: a wildcard over the public suffix "
	     "\"co.uk\" would allow every site under it"},
	    {"{\"network\": {\"alow\": []}}", ".network.alow: unknown key"},
	    {"{\"network\": {}}", ".network.allow: missing"},
	    {"{\"network\": {\"allow\": \"pypi.org\"}}",
	     ".network.allow: expected an array"},
	    {"{\"network\": \"open\"}",
	     ".network: expected \"loopback\" or \"config\", got \"open\""},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *msg = policy_error(cases[i].json);

		CHECK_STR(msg, cases[i].msg);
		free(msg);
	}
}

TEST(too_many_rules_fail)
{
	char json[16384] = "{\"network\": {\"allow\": [";
	size_t n = strlen(json);
	char *msg;

	for (int i = 0; i <= POLICY_EGRESS_MAX; i++)
		n += (size_t)snprintf(json + n, sizeof(json) - n,
				      "%s\"h%d.org\"", i ? "," : "", i);
	snprintf(json + n, sizeof(json) - n, "]}}");
	msg = policy_error(json);
	CHECK_STR(msg, ".network.allow: more than 256 rules");
	free(msg);
}

TEST(the_suffix_list_is_sorted)
{
	CHECK(egress_public_suffix_sorted());
	CHECK(egress_public_suffix("co.uk") == EGRESS_SUFFIX_PUBLIC);
	CHECK(egress_public_suffix("example.co.uk") == EGRESS_SUFFIX_NONE);
}

/* The Public Suffix List's own algorithm over the whole list (Debian's
 * publicsuffix package): plain rules of both sections, `*.` rules that
 * make every label under them a suffix, `!` exceptions that take one
 * back; names with suffixes under them; corral's own IP-echo and hosting
 * entries (issue 39, item 11). */
TEST(the_public_suffix_list_decides_wildcards)
{
	static const struct {
		const char *name;
		int want;
	} cases[] = {
	    {"com", EGRESS_SUFFIX_PUBLIC},
	    {"co.uk", EGRESS_SUFFIX_PUBLIC},
	    {"example.co.uk", EGRESS_SUFFIX_NONE},
	    /* *.ck and !www.ck */
	    {"ck", EGRESS_SUFFIX_PUBLIC},
	    {"anything.ck", EGRESS_SUFFIX_PUBLIC},
	    {"www.ck", EGRESS_SUFFIX_NONE},
	    {"a.www.ck", EGRESS_SUFFIX_NONE},
	    {"b.anything.ck", EGRESS_SUFFIX_NONE},
	    /* *.kawasaki.jp and !city.kawasaki.jp */
	    {"x.kawasaki.jp", EGRESS_SUFFIX_PUBLIC},
	    {"city.kawasaki.jp", EGRESS_SUFFIX_NONE},
	    {"kawasaki.jp", EGRESS_SUFFIX_ABOVE},
	    /* the PRIVATE section */
	    {"run.app", EGRESS_SUFFIX_PUBLIC},
	    {"trycloudflare.com", EGRESS_SUFFIX_PUBLIC},
	    {"fly.dev", EGRESS_SUFFIX_PUBLIC},
	    {"githubusercontent.com", EGRESS_SUFFIX_PUBLIC},
	    {"duckdns.org", EGRESS_SUFFIX_PUBLIC},
	    {"github.io", EGRESS_SUFFIX_PUBLIC},
	    {"someone.github.io", EGRESS_SUFFIX_NONE},
	    {"compute-1.amazonaws.com", EGRESS_SUFFIX_ABOVE},
	    {"ec2-1-2-3-4.compute-1.amazonaws.com", EGRESS_SUFFIX_PUBLIC},
	    {"amazonaws.com", EGRESS_SUFFIX_ABOVE},
	    /* internationalized, in punycode as rules are compared */
	    {"xn--55qx5d.cn", EGRESS_SUFFIX_PUBLIC}, /* 公司.cn */
	    /* corral's own */
	    {"nip.io", EGRESS_SUFFIX_ECHO},
	    {"10.0.0.1.nip.io", EGRESS_SUFFIX_ECHO},
	    {"sslip.io", EGRESS_SUFFIX_ECHO},
	    {"xip.io", EGRESS_SUFFIX_ECHO},
	    {"traefik.me", EGRESS_SUFFIX_ECHO},
	    {"localtest.me", EGRESS_SUFFIX_ECHO},
	    {"lvh.me", EGRESS_SUFFIX_ECHO},
	    {"io", EGRESS_SUFFIX_PUBLIC},
	    {"ngrok-free.app", EGRESS_SUFFIX_HOSTING},
	    {"s3.us-east-1.amazonaws.com", EGRESS_SUFFIX_HOSTING},
	    {"oast.fun", EGRESS_SUFFIX_HOSTING},
	    /* names a policy does wildcard */
	    {"github.com", EGRESS_SUFFIX_NONE},
	    {"api.github.com", EGRESS_SUFFIX_NONE},
	    {"pythonhosted.org", EGRESS_SUFFIX_NONE},
	    {"example.com", EGRESS_SUFFIX_NONE},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = egress_public_suffix(cases[i].name);

		if (got != cases[i].want) {
			printf("# %s: %d, expected %d\n", cases[i].name, got,
			       cases[i].want);
			unit_failed_checks++;
		}
	}
}

TEST(egress_makes_a_loopback_namespace_and_keeps_the_path_to_dial_from)
{
	struct policy *p =
	    policy_of("{\"network\": {\"allow\": [\"pypi.org\"]}}");
	struct spec *s = config("", "/var/run/netns/cni-1");
	struct hardened *h = p && s ? harden_ok(s, p) : NULL;
	const struct spec_namespace *ns = netns_of(h);

	CHECK(h && h->sandbox.egress_on && h->sandbox.loopback_only);
	CHECK(h && h->sandbox.n_egress == 1);
	if (h && h->sandbox.n_egress == 1)
		CHECK_STR(h->sandbox.egress[0], "pypi.org");
	CHECK(ns && !ns->path);
	CHECK(h && h->sandbox.engine_netns);
	if (h && h->sandbox.engine_netns)
		CHECK_STR(h->sandbox.engine_netns, "/var/run/netns/cni-1");
	CHECK_CHANGE(h, "sandbox.egress", "absent", "[pypi.org]",
		     "policy: network.allow");
	hardened_free(h);
	spec_free(s);
	policy_free(p);
}

TEST(a_dropped_network_path_is_kept_as_the_engines)
{
	struct spec *s = config("\"io.kubernetes.cri.container-type\": "
				"\"sandbox\"",
				"/var/run/netns/cni-3");
	struct hardened *h = harden_ok(s, NULL);
	const struct spec_namespace *ns = netns_of(h);

	CHECK(h && h->sandbox.role == ROLE_POD_SANDBOX);
	CHECK(h && !h->sandbox.egress_on && ns && !ns->path);
	CHECK(h && h->sandbox.engine_netns);
	if (h && h->sandbox.engine_netns)
		CHECK_STR(h->sandbox.engine_netns, "/var/run/netns/cni-3");
	hardened_free(h);
	spec_free(s);
}

TEST(without_egress_nothing_changes)
{
	struct spec *s = config("", NULL);
	struct hardened *h = harden_ok(s, NULL);

	CHECK(h && !h->sandbox.egress_on && h->sandbox.loopback_only);
	CHECK(h && !h->sandbox.engine_netns && h->sandbox.n_egress == 0);
	CHECK(!find_change(h, "sandbox.egress"));
	hardened_free(h);
	spec_free(s);
}

/* An engine's resolv.conf (containerd's, in its store) is kept without
 * egress and dropped with it: there corral mounts its stub resolver's
 * own (runtime/fs/stub_resolv.c). */
TEST(egress_drops_the_engines_resolv_conf)
{
	static const char json[] =
	    "{\"ociVersion\": \"1.2.0\","
	    " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
	    "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
	    " \"root\": {\"path\": \"rootfs\"},"
	    " \"mounts\": [{\"destination\": \"/etc/resolv.conf\","
	    "  \"type\": \"bind\", \"options\": [\"rbind\", \"ro\"],"
	    "  \"source\": \"/var/lib/containerd/sandboxes/abc/resolv.conf\"},"
	    " {\"destination\": \"/etc/hostname\", \"type\": \"bind\","
	    "  \"options\": [\"rbind\", \"ro\"],"
	    "  \"source\": \"/var/lib/containerd/sandboxes/abc/hostname\"}],"
	    " \"linux\": {\"namespaces\": [{\"type\": \"network\"}]}}";
	struct policy *p =
	    policy_of("{\"network\": {\"allow\": [\"pypi.org\"]}}");
	struct spec *s = spec_of(json);
	struct hardened *h = p && s ? harden_ok(s, p) : NULL;
	struct hardened *plain = s ? harden_ok(s, NULL) : NULL;

	CHECK(h && h->sandbox.egress_on);
	CHECK(h && !find_mount(h->spec, "/etc/resolv.conf"));
	CHECK(h && find_mount(h->spec, "/etc/hostname"));
	CHECK_CHANGE(h, ".mounts[/etc/resolv.conf]", NULL, "dropped",
		     "policy: network.allow: /etc/resolv.conf names corral's "
		     "stub resolver");
	CHECK(plain && !plain->sandbox.egress_on);
	CHECK(plain && find_mount(plain->spec, "/etc/resolv.conf"));
	hardened_free(h);
	hardened_free(plain);
	spec_free(s);
	policy_free(p);
}

TEST(the_annotation_narrows)
{
	struct policy *p = policy_of(
	    "{\"network\": {\"allow\": [\"pypi.org\", \"**.github.com\"]}}");
	struct spec *s = config(
	    "\"run.corral.egress\": \" api.github.com , pypi.org\"", NULL);
	struct hardened *h = p && s ? harden_ok(s, p) : NULL;

	CHECK(h && h->sandbox.n_egress == 2);
	if (h && h->sandbox.n_egress == 2) {
		CHECK_STR(h->sandbox.egress[0], "api.github.com");
		CHECK_STR(h->sandbox.egress[1], "pypi.org");
	}
	CHECK_CHANGE(h, "sandbox.egress", "absent",
		     "[api.github.com, pypi.org]",
		     "annotation: run.corral.egress");
	hardened_free(h);
	spec_free(s);
	policy_free(p);
}

TEST(an_empty_annotation_allows_no_host)
{
	struct policy *p =
	    policy_of("{\"network\": {\"allow\": [\"pypi.org\"]}}");
	struct spec *s = config("\"run.corral.egress\": \"\"", NULL);
	struct hardened *h = p && s ? harden_ok(s, p) : NULL;

	CHECK(h && h->sandbox.egress_on && h->sandbox.n_egress == 0);
	CHECK_CHANGE(h, "sandbox.egress", "absent", "no host",
		     "annotation: run.corral.egress");
	hardened_free(h);
	spec_free(s);
	policy_free(p);
}

TEST(an_annotation_that_widens_fails)
{
	static const struct {
		const char *policy, *annotation, *msg;
	} cases[] = {
	    {"{\"network\": {\"allow\": [\"pypi.org\"]}}", "evil.example",
	     "annotation run.corral.egress: evil.example is not within the "
	     "policy's network.allow"},
	    {"{\"network\": {\"allow\": [\"*.github.com\"]}}", "github.com",
	     "annotation run.corral.egress: github.com is not within the "
	     "policy's network.allow"},
	    {"{\"network\": {\"allow\": [\"pypi.org\"]}}", "pypi.org:22",
	     "annotation run.corral.egress: pypi.org:22 is not within the "
	     "policy's network.allow"},
	    {"{}", "pypi.org",
	     "annotation run.corral.egress=pypi.org: the policy's network is "
	     "\"loopback\" (no network): an egress list would turn corral's "
	     "proxy on, which only the policy's network.allow does"},
	    {"{\"network\": \"config\"}", "pypi.org",
	     "annotation run.corral.egress=pypi.org: the policy's network is "
	     "\"config\" (the engine's network): an egress list would turn "
	     "corral's proxy on, which only the policy's network.allow does"},
	    {"{\"network\": {\"allow\": [\"**.example.com\"]}}",
	     "127.0.0.1:8080",
	     "annotation run.corral.egress: 127.0.0.1:8080 is not within the "
	     "policy's network.allow"},
	    {"{\"network\": {\"allow\": [\"**.example.com\", "
	     "\"10.0.0.1:80\"]}}",
	     "169.254.169.254:80",
	     "annotation run.corral.egress: 169.254.169.254:80 is not within "
	     "the policy's network.allow"},
	    {"{\"network\": {\"allow\": [\"pypi.org\"]}}", "*",
	     "annotation run.corral.egress: *: a wildcard is only `*.name` or "
	     "`**.name`, never all hosts"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char ann[256];
		struct policy *p = policy_of(cases[i].policy);
		struct spec *s;
		char *msg;

		snprintf(ann, sizeof(ann), "\"run.corral.egress\": \"%s\"",
			 cases[i].annotation);
		s = config(ann, NULL);
		msg = p && s ? harden_error(s, p) : NULL;
		CHECK_STR(msg, cases[i].msg);
		free(msg);
		spec_free(s);
		policy_free(p);
	}
}

/* Under "config" the annotation would start a proxy dialing from the
 * engine's namespace, or the host's when config.json names none (issue
 * 39, item 8): refused, with the namespace path or without. */
TEST(under_the_engines_network_the_annotation_is_refused)
{
	static const char *const paths[] = {"/var/run/netns/cni-2", NULL};

	for (size_t i = 0; i < 2; i++) {
		struct policy *p = policy_of("{\"network\": \"config\"}");
		struct spec *s =
		    config("\"run.corral.egress\": \"pypi.org\"", paths[i]);
		char *msg = p && s ? harden_error(s, p) : NULL;

		CHECK(msg && strstr(msg, "only the policy's network.allow"));
		free(msg);
		spec_free(s);
		policy_free(p);
	}
}

TEST(the_sandbox_json_carries_the_rules)
{
	_cleanup_error_ struct error *err = NULL;
	struct policy *p =
	    policy_of("{\"network\": {\"allow\": [\"a.org\", \"b.org:81\"]}}");
	struct spec *s = config("", "/run/netns/x");
	struct hardened *h = p && s ? harden_ok(s, p) : NULL;
	char *json = NULL;
	struct sandbox back = {0};

	CHECK(h && hardened_emit_sandbox(h, &json, &err) == 0);
	CHECK(json &&
	      hardened_parse_sandbox(json, strlen(json), &back, &err) == 0);
	CHECK(back.egress_on && back.n_egress == 2);
	if (back.n_egress == 2)
		CHECK_STR(back.egress[1], "b.org:81");
	CHECK(back.engine_netns);
	if (back.engine_netns)
		CHECK_STR(back.engine_netns, "/run/netns/x");
	sandbox_release(&back);
	free(json);
	hardened_free(h);
	spec_free(s);
	policy_free(p);
}

TEST(the_proxy_variables_are_corrals)
{
	struct policy *p =
	    policy_of("{\"network\": {\"allow\": [\"pypi.org\"]}}");
	struct spec *s = spec_of(
	    "{\"ociVersion\": \"1.2.0\", \"process\": {\"user\": {\"uid\": 0,"
	    " \"gid\": 0}, \"args\": [\"sh\"], \"cwd\": \"/\", \"env\": ["
	    "\"PATH=/bin\", \"https_proxy=http://evil:1\", \"SECRET=x\"]},"
	    " \"root\": {\"path\": \"rootfs\"}}");
	struct hardened *h = p && s ? harden_ok(s, p) : NULL;
	const struct spec_process *pr = h ? h->spec->process : NULL;

	CHECK(pr && has_str(pr->env, pr->n_env, "PATH=/bin"));
	CHECK(pr &&
	      has_str(pr->env, pr->n_env, "https_proxy=http://127.0.0.1:3128"));
	CHECK(pr &&
	      has_str(pr->env, pr->n_env, "HTTPS_PROXY=http://127.0.0.1:3128"));
	CHECK(pr &&
	      has_str(pr->env, pr->n_env, "NO_PROXY=localhost,127.0.0.1,::1"));
	CHECK(pr && !has_str(pr->env, pr->n_env, "https_proxy=http://evil:1"));
	CHECK(pr && !has_str(pr->env, pr->n_env, "SECRET=x"));
	CHECK(pr && pr->n_env == 10 && !pr->env[pr->n_env]);
	hardened_free(h);
	spec_free(s);
	policy_free(p);
}

int main(void)
{
	return unit_run();
}
