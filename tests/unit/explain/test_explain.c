/* Unit tests of `corral explain`'s renderers: explain_json's shape and
 * values, explain_text's page (readable units, the loud warning under a
 * permissive policy, no terminal control characters from config.json),
 * and both for every example policy. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "fixture.h"

static yajl_val json_of(const char *text)
{
	char errbuf[256];
	yajl_val v = yajl_tree_parse(text, errbuf, sizeof(errbuf));

	if (!v) {
		printf("# not JSON: %s\n", errbuf);
		unit_failed_checks++;
	}
	return v;
}

/* The node at a path of object keys, e.g. at(v, "reach", "time", NULL). */
static yajl_val at(yajl_val v, ...)
{
	const char *path[8];
	va_list ap;
	size_t n = 0;

	va_start(ap, v);
	while (n < 7 && (path[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	path[n] = NULL;
	return yajl_tree_get(v, path, yajl_t_any);
}

static char *explain(const struct hardened *h, bool json)
{
	_cleanup_error_ struct error *err = NULL;
	char *out = NULL;

	if (!h)
		return NULL;
	if ((json ? explain_json(h, &out, &err) : explain_text(h, &out, &err)) <
	    0) {
		printf("# explain: %s\n", err->msg);
		unit_failed_checks++;
		return NULL;
	}
	return out;
}

static const char *str_at(yajl_val v)
{
	return YAJL_IS_STRING(v) ? v->u.string : NULL;
}

TEST(json_has_sandbox_reach_and_changes)
{
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = harden_ok(s, NULL);
	_cleanup_free_ char *text = explain(h, true);
	yajl_val v = text ? json_of(text) : NULL, dropped, changes;

	if (!v)
		goto out;
	CHECK(YAJL_IS_TRUE(at(v, "sandbox", "enforced", NULL)));
	CHECK_STR(str_at(at(v, "sandbox", "role", NULL)), "workload");
	CHECK_STR(str_at(at(v, "reach", "filesystem", "root", NULL)),
		  "read-only image + 64 MiB scratch overlay");
	CHECK(YAJL_IS_ARRAY(at(v, "reach", "filesystem", "mounts", NULL)));
	CHECK(YAJL_IS_TRUE(at(v, "reach", "network", "loopbackOnly", NULL)));
	CHECK_STR(str_at(at(v, "reach", "network", "namespace", NULL)), "new");
	dropped = at(v, "reach", "secrets", "envDropped", NULL);
	CHECK(YAJL_IS_ARRAY(dropped) && dropped->u.array.len == 1 &&
	      strcmp(dropped->u.array.values[0]->u.string, "HOSTNAME") == 0);
	CHECK(YAJL_GET_INTEGER(at(v, "reach", "time", "wallClock", NULL)) ==
	      600);
	CHECK(YAJL_GET_INTEGER(at(v, "reach", "memory", "limit", NULL)) ==
	      536870912);
	CHECK(YAJL_GET_INTEGER(at(v, "reach", "memory", "swap", NULL)) == 0);
	CHECK(YAJL_GET_INTEGER(at(v, "reach", "pids", "limit", NULL)) == 256);
	CHECK(YAJL_IS_NULL(at(v, "reach", "cpu", "cpus", NULL)));
	CHECK(YAJL_GET_INTEGER(at(v, "reach", "privileges", "uid", NULL)) ==
	      65534);
	CHECK(
	    YAJL_IS_ARRAY(at(v, "reach", "privileges", "capabilities", NULL)));
	CHECK(YAJL_IS_TRUE(at(v, "reach", "syscalls", "baseline", NULL)));
	CHECK(YAJL_IS_TRUE(at(v, "reach", "syscalls", "configFilter", NULL)));
	CHECK(YAJL_IS_ARRAY(at(v, "reach", "devices", NULL)));
	changes = at(v, "changes", NULL);
	CHECK(YAJL_IS_ARRAY(changes) && changes->u.array.len == h->n_changes);
	CHECK_STR(str_at(at(changes->u.array.values[0], "field", NULL)),
		  h->changes[0].field);
out:
	yajl_tree_free(v);
	hardened_free(h);
	spec_free(s);
}

TEST(json_lists_dropped_mounts_and_cpu)
{
	struct spec *s = fixture("cri_container.json");
	struct hardened *h = harden_ok(s, NULL);
	_cleanup_free_ char *text = explain(h, true);
	yajl_val v = text ? json_of(text) : NULL, mounts;

	if (!v)
		goto out;
	mounts = at(v, "reach", "secrets", "mountsDropped", NULL);
	/* the pod's /dev/shm becomes a private tmpfs; the token is dropped */
	CHECK(YAJL_IS_ARRAY(mounts) && mounts->u.array.len == 1);
	CHECK(YAJL_IS_ARRAY(mounts) && mounts->u.array.len == 1 &&
	      strcmp(str_at(at(mounts->u.array.values[0], "destination", NULL)),
		     "/var/run/secrets/kubernetes.io/serviceaccount") == 0);
	CHECK(YAJL_GET_INTEGER(at(v, "reach", "cpu", "quota", NULL)) == 50000);
	CHECK(YAJL_GET_DOUBLE(at(v, "reach", "cpu", "cpus", NULL)) == 0.5);
	CHECK(YAJL_GET_INTEGER(at(v, "reach", "privileges", "uid", NULL)) ==
	      101);
out:
	yajl_tree_free(v);
	hardened_free(h);
	spec_free(s);
}

TEST(text_reads_at_a_glance)
{
	static const char *const lines[] = {
	    "corral sandbox: enforced (workload)\n",
	    "filesystem  root            read-only image + 64 MiB scratch "
	    "overlay\n",
	    "network                     loopback only: a new network "
	    "namespace with lo up and no other interface\n",
	    "            env dropped     HOSTNAME\n",
	    "time        wall clock      600s (10 min), then every process is "
	    "killed (policy)\n",
	    "memory      limit           512 MiB, no swap\n",
	    "pids        limit           256 processes\n",
	    "            capabilities    none\n",
	    "changes to config.json (20)\n",
	    "  .process.user.uid                             0 -> 65534  "
	    "(default)\n",
	};
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = harden_ok(s, NULL);
	_cleanup_free_ char *text = explain(h, false);

	for (size_t i = 0; text && i < ARRAY_SIZE(lines); i++) {
		if (!strstr(text, lines[i])) {
			printf("# missing: %s", lines[i]);
			unit_failed_checks++;
		}
	}
	hardened_free(h);
	spec_free(s);
}

/* With egress, the rules, the stub resolver and its address, in text
 * and JSON; podman's bind of its resolv.conf is dropped for corral's. */
TEST(egress_names_the_stub_resolver)
{
	struct policy *p = policy_of(
	    "{\"network\": {\"allow\": [\"pypi.org\", \"**.github.com\"]}}");
	struct spec *s = fixture("podman_busybox.json");
	struct hardened *h = p && s ? harden_ok(s, p) : NULL;
	_cleanup_free_ char *text = explain(h, false);
	_cleanup_free_ char *json = explain(h, true);
	yajl_val v = json ? json_of(json) : NULL;

	CHECK(text && strstr(text, "            egress          pypi.org\n"));
	CHECK(text && strstr(text, "            names           corral's stub "
				   "resolver at 127.0.0.1:53 "
				   "(/etc/resolv.conf) answers these hosts "
				   "with 198.18.0.1"));
	CHECK(text && strstr(text, "/etc/resolv.conf names corral's stub "
				   "resolver"));
	CHECK_STR(
	    str_at(at(v, "reach", "network", "egress", "stubResolver", NULL)),
	    "127.0.0.1:53");
	CHECK_STR(
	    str_at(at(v, "reach", "network", "egress", "stubAddress", NULL)),
	    "198.18.0.1");
	yajl_tree_free(v);
	hardened_free(h);
	spec_free(s);
	policy_free(p);
}

TEST(permissive_says_so_loudly)
{
	struct spec *s = fixture("podman_busybox.json");
	struct policy *p = policy_of("{\"mode\": \"permissive\"}");
	struct hardened *h = harden_ok(s, p);
	_cleanup_free_ char *text = explain(h, false), *json = explain(h, true);
	yajl_val v = json ? json_of(json) : NULL;

	CHECK(text && strncmp(text,
			      "WARNING: SANDBOX OFF (policy mode permissive): "
			      "the container runs as config.json says\n",
			      84) == 0);
	CHECK(text && strstr(text, "  sandbox ") &&
	      strstr(text, " - -> off  (policy: mode permissive)"));
	CHECK(text && strstr(text, "joins /run/netns/netns-33c8e92f"));
	CHECK(v && YAJL_IS_FALSE(at(v, "sandbox", "enforced", NULL)));
	CHECK(v && YAJL_IS_FALSE(at(v, "reach", "syscalls", "baseline", NULL)));
	yajl_tree_free(v);
	hardened_free(h);
	policy_free(p);
	spec_free(s);
}

TEST(control_characters_never_reach_the_terminal)
{
	struct spec *s = spec_of(
	    "{\"ociVersion\": \"1.2.0\", \"process\": {\"args\": [\"sh\"],"
	    " \"cwd\": \"/\", \"env\": [\"PATH=/bin\","
	    " \"X\\u001b]0;pwned\\u0007=1\"]},"
	    " \"mounts\": [{\"destination\": \"/m\\u001b[2J\","
	    " \"type\": \"bind\", \"source\": \"/s\"}]}");
	struct policy *drop = policy_of("{\"refuse\": {\"mounts\": false}}");
	struct hardened *h = harden_ok(s, drop);
	_cleanup_free_ char *text = explain(h, false);
	_cleanup_free_ char *refused = harden_error(s, NULL);

	CHECK(text && !strchr(text, '\x1b') && !strchr(text, '\a'));
	CHECK(text && strstr(text, "X?]0;pwned?"));
	/* the one line of a refusal too */
	CHECK_STR(refused, "bind /s on /m?[2J: no entry of the policy's mounts "
			   "allows /s (policy: mounts)");
	hardened_free(h);
	policy_free(drop);
	spec_free(s);
}

TEST(every_example_policy_explains)
{
	DIR *dir = opendir("config-examples/policy");
	struct spec *s = fixture("cri_container.json");
	struct dirent *e;

	while (dir && s && (e = readdir(dir))) {
		char path[512];
		size_t n = strlen(e->d_name), len = 0;
		_cleanup_free_ char *json = NULL, *text = NULL, *out = NULL;
		struct policy *p;
		struct hardened *h;

		if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "config-examples/policy/%s",
			 e->d_name);
		json = read_file(path, &len);
		p = json ? policy_of(json) : NULL;
		h = p ? harden_ok(s, p) : NULL;
		text = explain(h, false);
		out = explain(h, true);
		CHECK(text && out);
		printf("# %s: %.*s\n", e->d_name,
		       text ? (int)strcspn(text, "\n") : 0, text ? text : "");
		hardened_free(h);
		policy_free(p);
	}
	if (dir)
		closedir(dir);
	spec_free(s);
}

int main(void)
{
	return unit_run();
}
