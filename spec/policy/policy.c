/* The host's sandbox policy: the built-in defaults, freeing, and the
 * host's groups by name.  The reader is policy_parse.c, the writer
 * policy_emit.c; config-examples/policy/README.md documents the schema
 * key by key. */
#include "policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy_internal.h"
#include "util.h"

#define MiB (UINT64_C(1) << 20)
#define CPU_PERIOD POLICY_CPU_PERIOD

static const char *const default_env[] = {"PATH", "HOME", "TERM", "LANG"};

/* The kubelet's "safe" set: each is per network or IPC namespace, and
 * harden() keeps one only when that namespace is the container's own
 * and its value is in range (harden_sysctl.c). */
static const char *const default_sysctls[] = {
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
};

/* Groups whose members can read or change what the host keeps from its
 * users: password hashes (shadow), raw disks and memory (disk, kmem), the
 * logs and the journal (adm, systemd-journal), the engines' sockets
 * (docker, lxd, libvirt), and sudo's own (sudo, wheel).  Group 0 is always
 * added. */
static const char *const default_privileged_groups[] = {
    "shadow", "disk",  "kmem", "adm",	  "sudo",
    "docker", "wheel", "lxd",  "libvirt", "systemd-journal",
};

/* podman's and containerd's image and container stores, and kubelet's
 * per-pod directories (etc-hosts, the termination log). */
static const char *const default_engine_dirs[] = {
    "/var/lib/containers/storage",
    "/run/containers/storage",
    "/var/lib/containerd",
    "/var/lib/kubelet/pods",
};

/* The kubelet volume kinds a pod's container keeps by default
 * (spec/harden/harden_mounts.c): its own scratch, and what the cluster hands it
 * to read. */
static const char *const default_volume_kinds[] = {
    "emptyDir",
    "configMap",
    "downwardAPI",
};

/* "/" and the top-level directories of the host, which no root
 * filesystem or store may be. */
static const char *const system_dirs[] = {
    "/",	"/bin",	      "/boot",	"/dev",	   "/etc",     "/home",
    "/lib",	"/lib32",     "/lib64", "/libx32", "/media",   "/mnt",
    "/opt",	"/proc",      "/root",	"/run",	   "/sbin",    "/srv",
    "/sys",	"/tmp",	      "/usr",	"/var",	   "/var/lib", "/var/run",
    "/usr/lib", "/usr/local",
};

const char *const policy_mode_names[2] = {
    [POLICY_SANDBOX] = "sandbox",
    [POLICY_PERMISSIVE] = "permissive",
};
const char *const policy_network_names[2] = {
    [POLICY_NET_LOOPBACK] = "loopback",
    [POLICY_NET_CONFIG] = "config",
};
const char *const policy_refusal_names[POLICY_REFUSALS] = {
    [POLICY_REFUSE_MOUNTS] = "mounts",
    [POLICY_REFUSE_VOLUMES] = "volumes",
    [POLICY_REFUSE_DEVICES] = "devices",
    [POLICY_REFUSE_NAMESPACES] = "namespaces",
};
const char *const policy_rootfs_names[2] = {
    [POLICY_ROOTFS_OVERLAY] = "overlay",
    [POLICY_ROOTFS_STRICT] = "strict",
};

/* ---- defaults and freeing -------------------------------------------- */

static char **strv_dup(const char *const *v, size_t n)
{
	char **out = calloc(n + 1, sizeof(*out));

	for (size_t i = 0; out && i < n; i++) {
		out[i] = strdup(v[i]);
		if (!out[i]) {
			strv_free(out);
			return NULL;
		}
	}
	return out;
}

int policy_default(struct policy **out, struct error **err)
{
	struct policy *p = calloc(1, sizeof(*p));

	if (!p)
		return error_set(err, ENOMEM, "out of memory");
	p->mode = POLICY_SANDBOX;
	p->network = POLICY_NET_LOOPBACK;
	p->rootfs = POLICY_ROOTFS_OVERLAY;
	p->scratch_size = 64 * MiB;
	p->env_allow = strv_dup(default_env, ARRAY_SIZE(default_env));
	p->n_env_allow = ARRAY_SIZE(default_env);
	p->uid = 65534;
	p->gid = 65534;
	p->wall_clock = 600;
	p->memory = 512 * MiB;
	p->pids = 256;
	p->cpu_period = CPU_PERIOD;
	p->sysctl_allow =
	    strv_dup(default_sysctls, ARRAY_SIZE(default_sysctls));
	p->n_sysctl_allow = ARRAY_SIZE(default_sysctls);
	p->privileged_groups = strv_dup(default_privileged_groups,
					ARRAY_SIZE(default_privileged_groups));
	p->n_privileged_groups = ARRAY_SIZE(default_privileged_groups);
	p->engine_dirs =
	    strv_dup(default_engine_dirs, ARRAY_SIZE(default_engine_dirs));
	p->n_engine_dirs = ARRAY_SIZE(default_engine_dirs);
	p->volume_kinds =
	    strv_dup(default_volume_kinds, ARRAY_SIZE(default_volume_kinds));
	p->n_volume_kinds = ARRAY_SIZE(default_volume_kinds);
	for (size_t i = 0; i < POLICY_REFUSALS; i++)
		p->refuse[i] = true;
	p->workspace_own = true;
	if (!p->env_allow || !p->sysctl_allow || !p->privileged_groups ||
	    !p->engine_dirs || !p->volume_kinds) {
		policy_free(p);
		return error_set(err, ENOMEM, "out of memory");
	}
	*out = p;
	return 0;
}

void policy_free(struct policy *p)
{
	if (!p)
		return;
	strv_free(p->egress_allow);
	strv_free(p->env_allow);
	strv_free(p->caps_keep);
	strv_free(p->syscalls_allow);
	strv_free(p->sysctl_allow);
	strv_free(p->privileged_groups);
	free(p->privileged_gids);
	strv_free(p->engine_dirs);
	strv_free(p->volume_kinds);
	strv_free(p->volume_secrets);
	free(p->report_dir);
	strv_free(p->root_dirs);
	free(p->pod_uid);
	free(p->workspace);
	strv_free(p->drop_sources);
	for (size_t i = 0; p->hooks && i < p->n_hooks; i++) {
		free(p->hooks[i].path);
		strv_free(p->hooks[i].args);
	}
	free(p->hooks);
	for (size_t i = 0; p->mounts && i < p->n_mounts; i++)
		free(p->mounts[i].source);
	free(p->mounts);
	for (size_t i = 0; p->devices && i < p->n_devices; i++) {
		free(p->devices[i].path);
		free(p->devices[i].access);
	}
	free(p->devices);
	free(p);
}

bool policy_system_dir(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++)
		if (strcmp(system_dirs[i], path) == 0)
			return true;
	return false;
}

/* ---- resolving group names ------------------------------------------- */

static bool has_gid(const struct policy *p, uint32_t gid)
{
	for (size_t i = 0; i < p->n_privileged_gids; i++)
		if (p->privileged_gids[i] == gid)
			return true;
	return false;
}

static int add_gid(struct policy *p, uint32_t gid, struct error **err)
{
	uint32_t *grown;

	if (has_gid(p, gid))
		return 0;
	grown = realloc(p->privileged_gids,
			(p->n_privileged_gids + 1) * sizeof(*grown));
	if (!grown)
		return error_set(err, ENOMEM, "out of memory");
	grown[p->n_privileged_gids++] = gid;
	p->privileged_gids = grown;
	return 0;
}

int policy_pool_check(int64_t uid, int64_t gid, int64_t size)
{
	if (uid < POLICY_SLICE || gid < POLICY_SLICE || size < POLICY_SLICE)
		return -1;
	if (uid + size > UINT32_MAX || gid + size > UINT32_MAX)
		return -1;
	return 0;
}

int policy_resolve_groups(struct policy *p,
			  bool (*lookup)(void *ctx, const char *name,
					 uint32_t *gid),
			  void *ctx, struct error **err)
{
	free(p->privileged_gids);
	p->privileged_gids = NULL;
	p->n_privileged_gids = 0;
	if (add_gid(p, 0, err) < 0)
		return -1;
	for (size_t i = 0; i < p->n_privileged_groups; i++) {
		const char *name = p->privileged_groups[i];
		unsigned long long id;
		uint32_t gid;
		char *end;

		if (name[strspn(name, "0123456789")] == '\0') {
			id = strtoull(name, &end, 10);
			if (id >= UINT32_MAX)
				continue;
			gid = (uint32_t)id;
		} else if (!lookup || !lookup(ctx, name, &gid)) {
			continue;
		}
		if (add_gid(p, gid, err) < 0)
			return -1;
	}
	return 0;
}
