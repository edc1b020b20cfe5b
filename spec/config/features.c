/* The runtime-spec features document (`corral features`). */
#include <errno.h>
#include <stdio.h>

#include "host_kernel.h"
#include "json.h"
#include "mount_options.h"
#include "spec.h"
#include "state.h"
#include "util.h"

/* Every capability of Linux 5.9+, in number order. */
const char *const spec_capability_names[SPEC_N_CAPABILITIES] = {
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
};

static const char *const seccomp_actions[] = {
    "SCMP_ACT_ALLOW",	     "SCMP_ACT_ERRNO",	     "SCMP_ACT_KILL",
    "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_LOG",
    "SCMP_ACT_TRACE",	     "SCMP_ACT_TRAP",
};

static const char *const seccomp_operators[] = {
    "SCMP_CMP_EQ", "SCMP_CMP_GE",	 "SCMP_CMP_GT", "SCMP_CMP_LE",
    "SCMP_CMP_LT", "SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE",
};

static const char *const seccomp_archs[] = {
    "SCMP_ARCH_X86",	 "SCMP_ARCH_X86_64", "SCMP_ARCH_X32",
    "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM",
};

static const char *const seccomp_flags[] = {
    "SECCOMP_FILTER_FLAG_LOG",
    "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
};

static void emit_linux(yajl_gen gen)
{
	json_str(gen, "linux");
	yajl_gen_map_open(gen);
	json_key_strv(gen, "namespaces",
		      (const char *const *)spec_ns_type_names, NS_TIME);
	json_key_strv(gen, "capabilities", spec_capability_names,
		      SPEC_N_CAPABILITIES);
	json_str(gen, "cgroup");
	yajl_gen_map_open(gen);
	json_key_bool(gen, "v1", 1);
	json_key_bool(gen, "v2", 1);
	json_key_bool(gen, "systemd", 0);
	json_key_bool(gen, "systemdUser", 0);
	yajl_gen_map_close(gen);
	json_str(gen, "seccomp");
	yajl_gen_map_open(gen);
	json_key_bool(gen, "enabled", 1);
	json_key_strv(gen, "actions", seccomp_actions,
		      ARRAY_SIZE(seccomp_actions));
	json_key_strv(gen, "operators", seccomp_operators,
		      ARRAY_SIZE(seccomp_operators));
	json_key_strv(gen, "archs", seccomp_archs, ARRAY_SIZE(seccomp_archs));
	json_key_strv(gen, "knownFlags", seccomp_flags,
		      ARRAY_SIZE(seccomp_flags));
	json_key_strv(gen, "supportedFlags", seccomp_flags,
		      ARRAY_SIZE(seccomp_flags));
	yajl_gen_map_close(gen);
	json_str(gen, "apparmor");
	yajl_gen_map_open(gen);
	json_key_bool(gen, "enabled", 0);
	yajl_gen_map_close(gen);
	json_str(gen, "selinux");
	yajl_gen_map_open(gen);
	json_key_bool(gen, "enabled", 0);
	yajl_gen_map_close(gen);
	yajl_gen_map_close(gen);
}

/* "annotations": implementation-specific strings, as the features
 * document allows: the kernel's release and corral's decisions on it. */
static void emit_kernel(yajl_gen gen, const struct host_kernel *k)
{
	struct host_kernel_fact facts[HOST_KERNEL_N_FACTS];
	unsigned n = host_kernel_facts(k, facts);
	char key[64];

	if (!n)
		return;
	json_str(gen, "annotations");
	yajl_gen_map_open(gen);
	json_key_str(gen, "run.corral.kernel", k->release);
	for (unsigned i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "run.corral.kernel.%s",
			 facts[i].name);
		json_key_str(gen, key, facts[i].what);
	}
	yajl_gen_map_close(gen);
}

int spec_features_emit(const struct host_kernel *k, char **out,
		       struct error **err)
{
	yajl_gen gen = json_gen_new(1);
	size_t n_mount = 0;

	if (!gen)
		return error_set(err, ENOMEM, "features: out of memory");
	while (spec_mount_option_names[n_mount])
		n_mount++;
	yajl_gen_map_open(gen);
	json_key_str(gen, "ociVersionMin", "1.0.0");
	json_key_str(gen, "ociVersionMax", SPEC_OCI_VERSION);
	json_key_strv(gen, "hooks", (const char *const *)spec_hook_kind_names,
		      HOOK_KIND_COUNT);
	json_key_strv(gen, "mountOptions", spec_mount_option_names, n_mount);
	emit_linux(gen);
	emit_kernel(gen, k);
	yajl_gen_map_close(gen);
	return json_gen_finish(gen, out, NULL, err);
}
