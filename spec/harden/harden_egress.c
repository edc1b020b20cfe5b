/* The network's egress rule: which hosts corral's per-container proxy
 * lets the container reach.  With `network: {"allow": [...]}` the
 * container gets a new network namespace with only lo, as under
 * "loopback", and the proxy on its 127.0.0.1 dials out for it, from the
 * namespace config.json names (an engine's CNI or pod namespace) or else
 * from corral's own, to the hosts the rules name and nowhere else.
 *
 * The annotation run.corral.egress ("pypi.org, files.pythonhosted.org")
 * may narrow the policy's list to a subset, never add to it.  Under
 * "loopback" (no network) and "config" (the engine's network, which
 * corral's proxy does not guard) it is refused: it would turn a proxy on,
 * a helper that dials out from a namespace config.json chose, which only
 * the policy's network.allow may do (docs/threat-model.md, "The egress
 * proxy"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "harden_internal.h"
#include "util.h"

#define ANNOTATION_MAX 4096

/* The annotation's rules, split at commas, each trimmed of blanks. */
static int annotation_rules(const char *value, struct egress_rule **out,
			    size_t *n, struct error **err)
{
	_cleanup_free_ char *copy = NULL;
	struct egress_rule *rules = NULL;
	size_t count = 0;
	char *save = NULL;

	if (strlen(value) > ANNOTATION_MAX)
		return error_set(err, EINVAL,
				 "annotation %s: longer than %d bytes",
				 ANNOTATION_EGRESS, ANNOTATION_MAX);
	if (!(copy = strdup(value)))
		return error_set(err, ENOMEM, "out of memory");
	for (char *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		struct egress_rule *grown;
		char *end;

		t += strspn(t, " \t");
		end = t + strlen(t);
		while (end > t && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (!*t)
			continue;
		if (count == POLICY_EGRESS_MAX ||
		    !(grown = realloc(rules, (count + 1) * sizeof(*rules)))) {
			egress_rules_free(rules, count);
			return count == POLICY_EGRESS_MAX
				   ? error_set(err, EINVAL,
					       "annotation %s: more than %d "
					       "rules",
					       ANNOTATION_EGRESS,
					       POLICY_EGRESS_MAX)
				   : error_set(err, ENOMEM, "out of memory");
		}
		rules = grown;
		if (egress_rule_parse(t, egress_public_suffix, &rules[count],
				      err) < 0) {
			egress_rules_free(rules, count);
			return error_wrap(err, "annotation %s",
					  ANNOTATION_EGRESS);
		}
		count++;
	}
	*out = rules;
	*n = count;
	return 0;
}

/* The annotation's list, checked to lie within the policy's. */
static int narrow(struct harden_ctx *c, const char *value, char ***out,
		  size_t *n_out, struct error **err)
{
	struct egress_rule *wide = NULL, *want = NULL;
	const struct egress_rule *bad = NULL;
	size_t n_want = 0;
	char **texts;
	int r = -1;

	if (annotation_rules(value, &want, &n_want, err) < 0)
		return -1;
	if (c->policy->network == POLICY_NET_EGRESS) {
		if (egress_rules_parse(c->policy->egress_allow,
				       c->policy->n_egress_allow,
				       egress_public_suffix, &wide, err) < 0) {
			error_wrap(err, "policy: network.allow");
			goto out;
		}
		if (!egress_rules_within(want, n_want, wide,
					 c->policy->n_egress_allow, &bad)) {
			_cleanup_free_ char *t = egress_rule_text(bad);

			error_set(err, EINVAL,
				  "annotation %s: %s is not within the "
				  "policy's network.allow",
				  ANNOTATION_EGRESS, t ? t : "a rule");
			goto out;
		}
	}
	if (!(texts = calloc(n_want + 1, sizeof(*texts)))) {
		error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_want; i++) {
		if (!(texts[i] = egress_rule_text(&want[i]))) {
			strv_free(texts);
			error_set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	*out = texts;
	*n_out = n_want;
	r = 0;
out:
	egress_rules_free(wide, c->policy->n_egress_allow);
	egress_rules_free(want, n_want);
	return r;
}

int harden_egress(struct harden_ctx *c, struct error **err)
{
	const char *ann = harden_annotation(c->spec, ANNOTATION_EGRESS);
	struct sandbox *s = &c->h->sandbox;
	_cleanup_free_ char *applied = NULL;
	const char *reason = "policy: network.allow";

	if (ann && c->policy->network != POLICY_NET_EGRESS) {
		_cleanup_free_ char *safe = harden_safe(ann, 64);

		return error_set(
		    err, EINVAL,
		    "annotation %s=%s: the policy's network is %s: an egress "
		    "list would turn corral's proxy on, which only the "
		    "policy's network.allow does",
		    ANNOTATION_EGRESS, safe ? safe : "",
		    c->policy->network == POLICY_NET_CONFIG
			? "\"config\" (the engine's network)"
			: "\"loopback\" (no network)");
	}
	if (ann) {
		if (narrow(c, ann, &s->egress, &s->n_egress, err) < 0)
			return -1;
		reason = "annotation: " ANNOTATION_EGRESS;
	} else if (c->policy->network == POLICY_NET_EGRESS) {
		for (size_t i = 0; i < c->policy->n_egress_allow; i++)
			if (!harden_strv_push(&s->egress, &s->n_egress,
					      c->policy->egress_allow[i]))
				return error_set(err, ENOMEM, "out of memory");
	} else {
		return 0;
	}
	s->egress_on = true;
	applied = s->n_egress ? harden_list(c, s->egress, s->n_egress)
			      : strdup("no host");
	harden_record(c, "sandbox.egress", "absent", applied, reason);
	return 0;
}

/* The variables that send HTTP clients to the proxy: corral's, not the
 * caller's, so the env allowlist does not apply to them and a caller's
 * variable of the same name is replaced. */
static const char *const proxy_env[] = {
    "HTTP_PROXY=http://" EGRESS_PROXY_AUTHORITY,
    "HTTPS_PROXY=http://" EGRESS_PROXY_AUTHORITY,
    "http_proxy=http://" EGRESS_PROXY_AUTHORITY,
    "https_proxy=http://" EGRESS_PROXY_AUTHORITY,
    "NO_PROXY=localhost,127.0.0.1,::1",
    "no_proxy=localhost,127.0.0.1,::1",
    "npm_config_proxy=http://" EGRESS_PROXY_AUTHORITY,
    "npm_config_https_proxy=http://" EGRESS_PROXY_AUTHORITY,
    "NODE_USE_ENV_PROXY=1",
};

static bool is_proxy_var(const char *e)
{
	size_t len = strcspn(e, "=");

	for (size_t i = 0; i < ARRAY_SIZE(proxy_env); i++)
		if (strncmp(proxy_env[i], e, len) == 0 &&
		    proxy_env[i][len] == '=')
			return true;
	return false;
}

int harden_egress_env(struct spec_process *pr, const struct sandbox *s,
		      struct error **err)
{
	size_t n = 0;
	char **env;

	if (!pr || !s->enforced || !s->egress_on)
		return 0;
	env = realloc(pr->env,
		      (pr->n_env + ARRAY_SIZE(proxy_env) + 1) * sizeof(*env));
	if (!env)
		return error_set(err, ENOMEM, "out of memory");
	pr->env = env;
	for (size_t i = 0; i < pr->n_env; i++) {
		if (is_proxy_var(env[i]))
			free(env[i]);
		else
			env[n++] = env[i];
	}
	for (size_t i = 0; i < ARRAY_SIZE(proxy_env); i++) {
		if (!(env[n] = strdup(proxy_env[i]))) {
			env[n] = NULL;
			pr->n_env = n;
			return error_set(err, ENOMEM, "out of memory");
		}
		n++;
	}
	env[n] = NULL;
	pr->n_env = n;
	return 0;
}

/* After the env allowlist (harden_env), which would drop them. */
int harden_egress_environment(struct harden_ctx *c, struct error **err)
{
	return harden_egress_env(c->spec->process, &c->h->sandbox, err);
}
