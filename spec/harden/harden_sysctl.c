/* The rule of harden() for sysctls.  A sysctl is kept when three things
 * hold: its name is on sysctls.allow, the namespace it belongs to is the
 * container's own (a per-network-namespace knob written into a namespace
 * the container shares, with the host or with whatever a path named,
 * would change that namespace for everyone in it), and its value is one
 * the kernel's own range allows, checked here so a bad one is refused
 * with a clear line instead of failing late in the child.
 *
 * The default allowlist is the kubelet's "safe" set.  ping_group_range
 * is not checked against the host's privileged groups: it grants only
 * the right to open ICMP echo sockets in the container's own network
 * namespace, no file or device access, so a gid it names gains nothing
 * on the host.
 *
 * In the loopback-only namespace corral makes, ports below 1024 protect
 * nothing (no peer can reach them), so ip_unprivileged_port_start is set
 * to 0 there by default: a web server binds 80 without a capability.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harden_internal.h"
#include "util.h"

#define LOW_PORTS "net.ipv4.ip_unprivileged_port_start"

/* Which namespace a sysctl belongs to, by name prefix; names matching
 * none are not namespaced by a namespace config.json names, and only the
 * allowlist decides them. */
static const struct {
	const char *prefix;
	enum spec_ns_type ns;
} sysctl_namespaces[] = {
    {"net.", NS_NETWORK},   {"kernel.shm", NS_IPC}, {"kernel.msg", NS_IPC},
    {"kernel.sem", NS_IPC}, {"fs.mqueue.", NS_IPC},
};

/* A decimal number of at most max at *s, which moves past it. */
static bool take_uint(const char **s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return false;
	}
	*s = p;
	*out = v;
	return true;
}

/* One number in [lo, hi] and nothing else. */
static bool one_in(const char *s, uint64_t lo, uint64_t hi)
{
	uint64_t v;

	return take_uint(&s, hi, &v) && v >= lo && *s == '\0';
}

/* Two numbers of at most max separated by blanks (how the kernel writes
 * a range), the first not above the second when ordered. */
static bool two_of(const char *s, uint64_t min, uint64_t max, bool ordered)
{
	uint64_t a, b;

	if (!take_uint(&s, max, &a) || (*s != ' ' && *s != '\t'))
		return false;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!take_uint(&s, max, &b) || *s != '\0')
		return false;
	return a >= min && b >= min && (!ordered || a <= b);
}

static bool v_bool(const char *s)
{
	return one_in(s, 0, 1);
}
static bool v_syncookies(const char *s)
{
	return one_in(s, 0, 2);
}
static bool v_port(const char *s)
{
	return one_in(s, 0, 65535);
}
static bool v_port_range(const char *s)
{
	return two_of(s, 1, 65535, true);
}
/* "1 0" (no group) is the kernel's default, so the order is free. */
static bool v_gid_range(const char *s)
{
	return two_of(s, 0, 4294967294u, false);
}
static bool v_keepalive(const char *s)
{
	return one_in(s, 1, 32767);
}
static bool v_probes(const char *s)
{
	return one_in(s, 1, 127);
}
static bool v_fin_timeout(const char *s)
{
	return one_in(s, 1, 120);
}

/* "" or a comma-separated list of ports and "low-high" ranges. */
static bool v_port_list(const char *s)
{
	uint64_t a, b;

	if (*s == '\0')
		return true;
	for (;;) {
		if (!take_uint(&s, 65535, &a))
			return false;
		if (*s == '-' && (s++, !take_uint(&s, 65535, &b) || b < a))
			return false;
		if (*s == '\0')
			return true;
		if (*s++ != ',')
			return false;
	}
}

/* The kubelet's safe set and the values the kernel takes for each. */
static const struct {
	const char *name;
	bool (*valid)(const char *value);
	const char *expected;
} safe_sysctls[] = {
    {"kernel.shm_rmid_forced", v_bool, "0 or 1"},
    {"net.ipv4.ip_local_port_range", v_port_range,
     "two ports 1-65535, the low one first"},
    {"net.ipv4.tcp_syncookies", v_syncookies, "0, 1 or 2"},
    {"net.ipv4.ping_group_range", v_gid_range, "two group ids"},
    {LOW_PORTS, v_port, "a port 0-65535"},
    {"net.ipv4.ip_local_reserved_ports", v_port_list,
     "ports and low-high ranges 0-65535, comma-separated"},
    {"net.ipv4.tcp_keepalive_time", v_keepalive, "seconds 1-32767"},
    {"net.ipv4.tcp_fin_timeout", v_fin_timeout, "seconds 1-120"},
    {"net.ipv4.tcp_keepalive_intvl", v_keepalive, "seconds 1-32767"},
    {"net.ipv4.tcp_keepalive_probes", v_probes, "a count 1-127"},
};

/* An exact name, or a prefix entry "net.ipv4.*" (which does not match
 * "net.ipv4" itself). */
static bool sysctl_allowed(const struct policy *p, const char *key)
{
	for (size_t i = 0; i < p->n_sysctl_allow; i++) {
		const char *a = p->sysctl_allow[i];
		size_t n = strlen(a);

		if (n >= 2 && strcmp(a + n - 2, ".*") == 0) {
			if (strncmp(key, a, n - 1) == 0 && key[n - 1] != '\0')
				return true;
		} else if (strcmp(key, a) == 0) {
			return true;
		}
	}
	return false;
}

/* The namespace entry of type t in lx when it is a new one. */
static bool own_namespace(const struct spec_linux *lx, enum spec_ns_type t)
{
	for (size_t i = 0; i < lx->n_namespaces; i++)
		if (lx->namespaces[i].type == t)
			return lx->namespaces[i].path == NULL;
	return false;
}

/* NULL when kv may be written, else why not ("why" is the allowlist's
 * reason).  What is kept is not recorded: the changes list only what
 * differs from config.json, so harden() of its own output records none. */
static char *judge_sysctl(struct harden_ctx *c, const struct spec_kv *kv,
			  const char *why)
{
	const struct spec_linux *lx = c->spec->linux_;
	int ns = -1;

	if (!sysctl_allowed(c->policy, kv->key))
		return harden_fmt(c, "%s", why);
	for (size_t i = 0; i < ARRAY_SIZE(sysctl_namespaces); i++)
		if (strncmp(kv->key, sysctl_namespaces[i].prefix,
			    strlen(sysctl_namespaces[i].prefix)) == 0)
			ns = (int)sysctl_namespaces[i].ns;
	if (ns >= 0 && !own_namespace(lx, (enum spec_ns_type)ns))
		return harden_fmt(c, "default: the %s namespace is not its own",
				  spec_ns_type_names[ns]);
	for (size_t i = 0; i < ARRAY_SIZE(safe_sysctls); i++)
		if (strcmp(kv->key, safe_sysctls[i].name) == 0 &&
		    !safe_sysctls[i].valid(kv->value))
			return harden_fmt(c, "default: expected %s",
					  safe_sysctls[i].expected);
	return NULL;
}

/* ip_unprivileged_port_start=0 in the loopback-only namespace, unless
 * config.json set it itself (its value was then judged above). */
static void low_ports(struct harden_ctx *c, struct spec_linux *lx)
{
	struct spec_kv *grown, kv = {strdup(LOW_PORTS), strdup("0")};

	for (size_t i = 0; i < lx->n_sysctl; i++)
		if (strcmp(lx->sysctl[i].key, LOW_PORTS) == 0)
			goto out;
	grown = realloc(lx->sysctl, (lx->n_sysctl + 1) * sizeof(*grown));
	if (!kv.key || !kv.value || !grown) {
		if (grown)
			lx->sysctl = grown;
		c->oom = true;
		goto out;
	}
	lx->sysctl = grown;
	lx->sysctl[lx->n_sysctl++] = kv;
	kv = (struct spec_kv){NULL, NULL};
	harden_record(c, ".linux.sysctl[\"" LOW_PORTS "\"]", "absent", "0",
		      "default: a loopback-only network namespace corral "
		      "made; low ports reach no peer");
out:
	free(kv.key);
	free(kv.value);
}

int harden_sysctls(struct harden_ctx *c, struct error **err)
{
	struct spec_linux *lx = harden_linux(c);
	const char *why =
	    HARDEN_WHY(harden_strv_equal(c->policy->sysctl_allow,
					 c->policy->n_sysctl_allow,
					 c->defaults->sysctl_allow,
					 c->defaults->n_sysctl_allow),
		       "sysctls.allow");
	size_t n = 0;

	if (!lx)
		return 0;
	for (size_t i = 0; i < lx->n_sysctl; i++) {
		struct spec_kv *kv = &lx->sysctl[i];
		_cleanup_free_ char *key = NULL, *field = NULL, *value = NULL,
				    *refused = NULL;

		refused = judge_sysctl(c, kv, why);
		key = harden_safe(kv->key, SIZE_MAX);
		field =
		    key ? harden_fmt(c, ".linux.sysctl[\"%s\"]", key) : NULL;
		value = harden_safe(kv->value, 200);
		if (!refused && !c->oom) {
			lx->sysctl[n++] = *kv;
			continue;
		}
		harden_record(c, field, value, "dropped", refused);
		free(kv->key);
		free(kv->value);
	}
	lx->n_sysctl = n;
	if (c->h->sandbox.loopback_only && sysctl_allowed(c->policy, LOW_PORTS))
		low_ports(c, lx);
	return 0;
}
