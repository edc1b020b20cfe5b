/* Unit tests of harden() for sysctls: the allowlist, the namespace a
 * sysctl belongs to, the value checks of the kubelet's safe set, and the
 * low ports of the loopback-only namespace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* A config with the given namespaces and sysctl objects. */
static struct spec *config(const char *namespaces, const char *sysctl)
{
	char json[4096];

	snprintf(json, sizeof(json),
		 "{\"ociVersion\": \"1.2.0\","
		 " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0},"
		 "  \"args\": [\"sh\"], \"cwd\": \"/\"},"
		 " \"root\": {\"path\": \"rootfs\"},"
		 " \"linux\": {\"namespaces\": [%s], \"sysctl\": {%s}}}",
		 namespaces, sysctl);
	return spec_of(json);
}

/* The effective value of key, or NULL. */
static const char *sysctl_of(const struct hardened *h, const char *key)
{
	const struct spec_linux *lx = h ? h->spec->linux_ : NULL;

	for (size_t i = 0; lx && i < lx->n_sysctl; i++)
		if (strcmp(lx->sysctl[i].key, key) == 0)
			return lx->sysctl[i].value;
	return NULL;
}

#define OWN "{\"type\": \"network\"}, {\"type\": \"ipc\"}"
#define LOW "net.ipv4.ip_unprivileged_port_start"

TEST(sysctls_need_the_allowlist)
{
	struct spec *s = config(
	    OWN, "\"net.ipv4.ping_group_range\": \"0 0\","
		 " \"kernel.shm_rmid_forced\": \"1\","
		 " \"net.ipv4.ip_forward\": \"1\", \"net.ipv6.x\": \"1\"");
	struct policy *prefix =
	    policy_of("{\"sysctls\": {\"allow\": [\"net.ipv4.*\"]}}");
	struct hardened *def = harden_ok(s, NULL), *h = harden_ok(s, prefix);

	CHECK_STR(sysctl_of(def, "net.ipv4.ping_group_range"), "0 0");
	CHECK_STR(sysctl_of(def, "kernel.shm_rmid_forced"), "1");
	CHECK(!sysctl_of(def, "net.ipv4.ip_forward"));
	CHECK_CHANGE(def, ".linux.sysctl[\"net.ipv4.ip_forward\"]", "1",
		     "dropped", "default");
	CHECK(!find_change(def, ".linux.sysctl[\"kernel.shm_rmid_forced\"]"));
	CHECK_STR(sysctl_of(h, "net.ipv4.ip_forward"), "1");
	CHECK(!sysctl_of(h, "kernel.shm_rmid_forced"));
	CHECK_CHANGE(h, ".linux.sysctl[\"net.ipv6.x\"]", "1", "dropped",
		     "policy: sysctls.allow");
	CHECK(!find_change(h, ".linux.sysctl[\"net.ipv4.ip_forward\"]"));
	hardened_free(def);
	hardened_free(h);
	policy_free(prefix);
	spec_free(s);
}

/* Joined namespaces: an engine's path for the network namespace (kept
 * only under network "config") and the pod's IPC namespace. */
TEST(a_shared_namespace_gets_none_of_its_sysctls)
{
	struct spec *s =
	    config("{\"type\": \"network\", \"path\": \"/run/netns/cni-1\"},"
		   " {\"type\": \"ipc\", \"path\": \"/proc/42/ns/ipc\"}",
		   "\"net.ipv4.tcp_syncookies\": \"1\","
		   " \"kernel.shm_rmid_forced\": \"1\"");
	struct policy *cfg = policy_of("{\"network\": \"config\"}");
	struct hardened *def = harden_ok(s, NULL), *h = harden_ok(s, cfg);

	/* The default policy makes the network namespace new. */
	CHECK_STR(sysctl_of(def, "net.ipv4.tcp_syncookies"), "1");
	CHECK(!sysctl_of(def, "kernel.shm_rmid_forced"));
	CHECK_CHANGE(def, ".linux.sysctl[\"kernel.shm_rmid_forced\"]", "1",
		     "dropped", "default: the ipc namespace is not its own");
	CHECK(!sysctl_of(h, "net.ipv4.tcp_syncookies"));
	CHECK_CHANGE(h, ".linux.sysctl[\"net.ipv4.tcp_syncookies\"]", "1",
		     "dropped",
		     "default: the network namespace is not its own");
	/* Nor is anything added to the engine's namespace. */
	CHECK(!sysctl_of(h, LOW));
	CHECK(!find_change(h, ".linux.sysctl[\"" LOW "\"]"));
	hardened_free(def);
	hardened_free(h);
	policy_free(cfg);
	spec_free(s);
}

/* Every name of the safe set with values the kernel takes and values it
 * would refuse (or that are no number at all). */
TEST(safe_sysctl_values_are_checked)
{
	static const struct {
		const char *key, *value;
		bool ok;
	} cases[] = {
	    {"kernel.shm_rmid_forced", "0", true},
	    {"kernel.shm_rmid_forced", "2", false},
	    {"kernel.shm_rmid_forced", "", false},
	    {"net.ipv4.ip_local_port_range", "1024 65000", true},
	    {"net.ipv4.ip_local_port_range", "1024   2048", true},
	    {"net.ipv4.ip_local_port_range", "2048 1024", false},
	    {"net.ipv4.ip_local_port_range", "0 1024", false},
	    {"net.ipv4.ip_local_port_range", "1024 65536", false},
	    {"net.ipv4.ip_local_port_range", "1024", false},
	    {"net.ipv4.ip_local_port_range", "1024 2048 x", false},
	    {"net.ipv4.ip_local_port_range", "-1 2048", false},
	    {"net.ipv4.tcp_syncookies", "2", true},
	    {"net.ipv4.tcp_syncookies", "3", false},
	    {"net.ipv4.ping_group_range", "1 0", true},
	    {"net.ipv4.ping_group_range", "0 4294967294", true},
	    {"net.ipv4.ping_group_range", "0 4294967295", false},
	    {"net.ipv4.ping_group_range", "0 99999999999999999999999", false},
	    {LOW, "0", true},
	    {LOW, "1024", true},
	    {LOW, "65536", false},
	    {LOW, "80 ", false},
	    {"net.ipv4.ip_local_reserved_ports", "", true},
	    {"net.ipv4.ip_local_reserved_ports", "8080,9000-9100", true},
	    {"net.ipv4.ip_local_reserved_ports", "9100-9000", false},
	    {"net.ipv4.ip_local_reserved_ports", "8080,", false},
	    {"net.ipv4.ip_local_reserved_ports", "70000", false},
	    {"net.ipv4.tcp_keepalive_time", "7200", true},
	    {"net.ipv4.tcp_keepalive_time", "0", false},
	    {"net.ipv4.tcp_keepalive_time", "32768", false},
	    {"net.ipv4.tcp_fin_timeout", "60", true},
	    {"net.ipv4.tcp_fin_timeout", "121", false},
	    {"net.ipv4.tcp_keepalive_intvl", "75", true},
	    {"net.ipv4.tcp_keepalive_intvl", "0x10", false},
	    {"net.ipv4.tcp_keepalive_probes", "9", true},
	    {"net.ipv4.tcp_keepalive_probes", "128", false},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char kv[256], field[128];
		struct spec *s;
		struct hardened *h;
		const struct harden_change *ch;

		snprintf(kv, sizeof(kv), "\"%s\": \"%s\"", cases[i].key,
			 cases[i].value);
		snprintf(field, sizeof(field), ".linux.sysctl[\"%s\"]",
			 cases[i].key);
		s = config(OWN, kv);
		h = harden_ok(s, NULL);
		ch = find_change(h, field);
		if (cases[i].ok != (sysctl_of(h, cases[i].key) &&
				    strcmp(sysctl_of(h, cases[i].key),
					   cases[i].value) == 0) ||
		    (cases[i].ok
			 ? ch != NULL
			 : !ch || strcmp(ch->applied, "dropped") != 0)) {
			printf("# %s = \"%s\": expected %s\n", cases[i].key,
			       cases[i].value,
			       cases[i].ok ? "kept" : "dropped");
			unit_failed_checks++;
		}
		if (!cases[i].ok && ch &&
		    strncmp(ch->reason, "default: expected ", 18) != 0) {
			printf("# %s: reason \"%s\"\n", cases[i].key,
			       ch->reason);
			unit_failed_checks++;
		}
		hardened_free(h);
		spec_free(s);
	}
}

TEST(the_loopback_namespace_gets_low_ports)
{
	struct spec *none = config(OWN, ""),
		    *own = config(OWN, "\"" LOW "\": \"1024\"");
	struct hardened *h = harden_ok(none, NULL), *h2 = harden_ok(own, NULL);

	CHECK_STR(sysctl_of(h, LOW), "0");
	CHECK_CHANGE(h, ".linux.sysctl[\"" LOW "\"]", "absent", "0",
		     "default: a loopback-only network namespace corral "
		     "made; low ports reach no peer");
	/* config.json's own value wins, once. */
	CHECK_STR(sysctl_of(h2, LOW), "1024");
	CHECK(h2 && h2->spec->linux_->n_sysctl == 1);
	hardened_free(h);
	hardened_free(h2);
	spec_free(none);
	spec_free(own);
}

int main(void)
{
	return unit_run();
}
