/* Every field of config.json the parser knows, and what harden() (with
 * the runtime's checks on the host) does with it under the sandbox.  A
 * unit test (tests/unit/config/test_fields.c) records every key spec_parse()
 * looks up and fails for one without a row here, so a field the parser
 * learns later cannot pass through unclassified; docs/threat-model.md
 * carries the same table.  Under a permissive policy every field is
 * applied as written, as by a plain OCI runtime: but the deprecated
 * kernel memory limits, dropped in every mode, and the device rules, to
 * which the standard devices are added (harden_devices_permissive).
 *
 * Hook kinds share their rows: ".hooks.*" stands for each of them.
 */
#include "harden.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_tidy.h"
#include "util.h"

const struct harden_field harden_fields[] = {
    {".ociVersion", "kept", "data; not a capability", NULL},
    {".process", "kept", "required; its fields below", NULL},
    {".process.terminal", "kept",
     "the pty is made inside the container; its master goes to "
     "--console-socket, or to corral's own relay (run from a terminal)",
     NULL},
    {".process.consoleSize", "kept", "a size", NULL},
    {".process.consoleSize.height", "kept", "a size", NULL},
    {".process.consoleSize.width", "kept", "a size", NULL},
    {".process.user", "narrowed", "see uid, gid, additionalGids", NULL},
    {".process.user.uid", "kept or replaced",
     "0 becomes user.uid (65534) unless user.allowRoot; another uid stays; in "
     "corral's own user namespace (user.pool) 0 stays, its root, and an id "
     "beyond 65535 is refused",
     NULL},
    {".process.user.gid", "kept or replaced",
     "0 and privileged host groups (user.privilegedGroups) become user.gid; in "
     "corral's own user namespace kept (beyond 65535 refused)",
     NULL},
    {".process.user.umask", "kept", "only the container's own files", NULL},
    {".process.user.additionalGids", "dropped or narrowed",
     "dropped unless user.keepGroups; privileged host groups always go; in "
     "corral's own user namespace kept, but for ids beyond 65535",
     "recorded"},
    {".process.args", "kept", "the workload, run inside the sandbox", NULL},
    {".process.env", "narrowed",
     "only names on env.allow stay; the others dropped, recorded", "recorded"},
    {".process.cwd", "kept", "resolved inside the container", NULL},
    {".process.capabilities", "narrowed", "each set as below", "recorded"},
    {".process.capabilities.bounding", "narrowed",
     "intersected with capabilities.keep (default: none)", "recorded"},
    {".process.capabilities.effective", "narrowed",
     "intersected with capabilities.keep", "recorded"},
    {".process.capabilities.inheritable", "narrowed",
     "intersected with capabilities.keep", "recorded"},
    {".process.capabilities.permitted", "narrowed",
     "intersected with capabilities.keep", "recorded"},
    {".process.capabilities.ambient", "narrowed",
     "intersected with capabilities.keep", "recorded"},
    {".process.rlimits", "narrowed",
     "clamped to the runtime's own hard limits (recorded); RLIMIT_CORE 0 when "
     "absent",
     "recorded"},
    {".process.rlimits[].type", "kept", "a known RLIMIT_ name", NULL},
    {".process.rlimits[].hard", "narrowed",
     "at most the runtime's own hard limit", "recorded"},
    {".process.rlimits[].soft", "narrowed", "at most the hard limit",
     "recorded"},
    {".process.noNewPrivileges", "replaced", "always true", NULL},
    {".process.oomScoreAdj", "narrowed",
     "only raised above the runtime's own, never lowered", NULL},
    {".process.apparmorProfile", "kept or refused",
     "applied at exec; refused when the host has no AppArmor", "refused"},
    {".process.selinuxLabel", "kept or refused",
     "applied at exec; refused when the host has no SELinux", "refused"},
    {".root", "kept", "required; see path", NULL},
    {".root.path", "kept or refused",
     "a clean path in the bundle, the caller's own (corral sandbox --rootfs), "
     "below a policy mounts entry, or below engineDirs only when the engine's "
     "own records give it to this container; never another container's root, a "
     "kubelet pods directory, / or a system directory; opened once without "
     "links",
     "refused"},
    {".root.readonly", "kept or replaced",
     "true in rootfs.mode strict; the image is never written either way (the "
     "scratch overlay)",
     NULL},
    {".hostname", "kept", "set in the container's own uts namespace", NULL},
    {".domainname", "kept", "set in the container's own uts namespace", NULL},
    {".mounts", "narrowed", "each mount by its kind, below", NULL},
    {".mounts[].destination", "kept or dropped or refused",
     "clean absolute paths; never \"/\"; under /proc and /sys only their own "
     "filesystems (a bind elsewhere there refused, refuse.mounts; a kernel "
     "filesystem dropped); resolved inside the rootfs",
     "refused (refuse.mounts) or recorded"},
    {".mounts[].type", "kept or dropped or refused",
     "bind (by source), tmpfs, and proc, sysfs, devpts, mqueue, cgroup once "
     "each at their own places (a second copy dropped); any other type refused "
     "(refuse.mounts)",
     "refused (refuse.mounts) or recorded"},
    {".mounts[].source", "kept or dropped or refused",
     "a bind's source below a policy mounts entry, `corral sandbox "
     "--workspace` of the caller's own (workspace.allowOwn), an engine's file "
     "(regular, in the bundle or engineDirs), or a kubelet volume of the "
     "container's own pod, as its pod sandbox recorded it, by kind (emptyDir "
     "rw; configMap, downwardAPI ro; a secret only by name in volumes.secrets; "
     "a directory in engineDirs/UID/volumes/); any other refused "
     "(refuse.mounts, refuse.volumes), and engine state and sockets always; "
     "the service-account token and an engine's file from elsewhere dropped; "
     "opened once, a link on the way refused",
     "refused (refuse.mounts, refuse.volumes) or recorded"},
    {".mounts[].options", "narrowed",
     "a list per type; remount drops the mount; binds ro (unless the entry is "
     "rw), nosuid, nodev; no shared propagation; a tmpfs at most the scratch "
     "size",
     "recorded"},
    {".hooks", "narrowed", "each kind below", NULL},
    {".hooks.*", "dropped or kept",
     "only hooks.allow's paths with their exact args; startContainer never",
     "recorded"},
    {".hooks.*[].path", "kept", "opened once without links, a regular file",
     NULL},
    {".hooks.*[].args", "kept", "must equal the hooks.allow entry's", NULL},
    {".hooks.*[].env", "replaced", "PATH only, corral's", NULL},
    {".hooks.*[].timeout", "kept", "only shortens the hook", NULL},
    {".annotations", "kept or refused",
     "run.corral.* only narrow (a wider one is refused); the pod-sandbox "
     "markers set the role, which trades the wall clock for a pause's limits "
     "(its process: no fork, 10 s of CPU, 64 MiB); a CRI pod claimed by "
     "sandbox-id must be proved from corral's records",
     "refused"},
    {".linux", "kept", "its fields below", NULL},
    {".linux.namespaces", "narrowed",
     "pid, mount, ipc, uts, network and cgroup always new; time dropped",
     "recorded"},
    {".linux.namespaces[].type", "kept or dropped",
     "user only with user.idMap or a pool (user.pool, /etc/subuid's corral); "
     "time dropped; a repeat dropped",
     "recorded"},
    {".linux.namespaces[].path", "kept or replaced or refused",
     "opened O_PATH and checked to be a namespace of its type first; pid, ipc, "
     "uts only when it is the container's own pod sandbox's (refused "
     "otherwise); network only with network \"config\" and never the host's "
     "(otherwise replaced by corral's own; with an egress list, where corral's "
     "proxy dials from); mount, cgroup and user (but corral's own) refused "
     "(refuse.namespaces)",
     "refused (refuse.namespaces) or recorded"},
    {".linux.uidMappings", "dropped or kept or replaced or refused",
     "dropped without a user namespace; in corral's own (user.pool) replaced "
     "by 0-65535 onto the container's slice; otherwise every host id within "
     "user.idMap, or refused",
     "recorded or refused"},
    {".linux.uidMappings[].containerID", "kept", "the container's own id",
     NULL},
    {".linux.uidMappings[].hostID", "kept or replaced or refused",
     "within user.idMap, or the slice's", "refused"},
    {".linux.uidMappings[].size", "kept or replaced or refused",
     "within user.idMap, or 65536", "refused"},
    {".linux.gidMappings", "dropped or kept or replaced or refused",
     "as uidMappings", "recorded or refused"},
    {".linux.gidMappings[].containerID", "kept", "the container's own id",
     NULL},
    {".linux.gidMappings[].hostID", "kept or replaced or refused",
     "within user.idMap, or the slice's", "refused"},
    {".linux.gidMappings[].size", "kept or replaced or refused",
     "within user.idMap, or 65536", "refused"},
    {".linux.devices", "narrowed",
     "only nodes the policy's devices lists exactly, and the standard ones the "
     "runtime makes; any other refused (refuse.devices)",
     "refused (refuse.devices)"},
    {".linux.devices[].path", "kept or refused", "must match devices",
     "refused (refuse.devices)"},
    {".linux.devices[].type", "kept or refused", "must match devices",
     "refused (refuse.devices)"},
    {".linux.devices[].major", "kept or refused", "must match devices",
     "refused (refuse.devices)"},
    {".linux.devices[].minor", "kept or refused", "must match devices",
     "refused (refuse.devices)"},
    {".linux.devices[].fileMode", "kept", "the node's mode", NULL},
    {".linux.devices[].uid", "kept", "the node's owner", NULL},
    {".linux.devices[].gid", "kept", "the node's group", NULL},
    {".linux.cgroupsPath", "kept or refused or dropped",
     "the container's own cgroup must be new: an existing one is refused, and "
     "one inside another container's cgroup or any cgroup with processes; an "
     "ordinary user's corral makes its own in the caller's delegated cgroup, "
     "or none",
     "refused or recorded"},
    {".linux.resources", "narrowed", "each limit below", NULL},
    {".linux.resources.devices", "replaced",
     "deny all, then the standard devices and the policy's", NULL},
    {".linux.resources.devices[].allow", "replaced", "as above", NULL},
    {".linux.resources.devices[].type", "replaced", "as above", NULL},
    {".linux.resources.devices[].major", "replaced", "as above", NULL},
    {".linux.resources.devices[].minor", "replaced", "as above", NULL},
    {".linux.resources.devices[].access", "replaced", "as above", NULL},
    {".linux.resources.memory", "narrowed", "see limit and swap", NULL},
    {".linux.resources.memory.limit", "narrowed",
     "the smallest of config, policy, annotation", NULL},
    {".linux.resources.memory.reservation", "kept", "a soft target", NULL},
    {".linux.resources.memory.swap", "replaced", "equal to limit: no swap",
     NULL},
    {".linux.resources.memory.kernel", "dropped",
     "deprecated by the runtime-spec, with a warning, in every mode",
     "recorded"},
    {".linux.resources.memory.kernelTCP", "dropped", "as kernel", "recorded"},
    {".linux.resources.memory.swappiness", "kept", "a preference", NULL},
    {".linux.resources.memory.disableOOMKiller", "kept",
     "the memory limit holds either way", NULL},
    {".linux.resources.memory.useHierarchy", "kept", "v1 accounting", NULL},
    {".linux.resources.memory.checkBeforeUpdate", "kept", "for update", NULL},
    {".linux.resources.cpu", "narrowed", "see quota and period", NULL},
    {".linux.resources.cpu.shares", "kept", "a weight", NULL},
    {".linux.resources.cpu.quota", "narrowed",
     "the smaller share of config and limits.cpus", NULL},
    {".linux.resources.cpu.burst", "kept", "bounded by the quota", NULL},
    {".linux.resources.cpu.period", "narrowed", "with the quota", NULL},
    {".linux.resources.cpu.realtimeRuntime", "kept",
     "the cgroup's; no capability to use it", NULL},
    {".linux.resources.cpu.realtimePeriod", "kept", "as realtimeRuntime", NULL},
    {".linux.resources.cpu.cpus", "kept", "a subset of the host's", NULL},
    {".linux.resources.cpu.mems", "kept", "a subset of the host's", NULL},
    {".linux.resources.cpu.idle", "kept", "a weight", NULL},
    {".linux.resources.pids", "narrowed", "see limit", NULL},
    {".linux.resources.pids.limit", "narrowed",
     "the smallest of config, policy, annotation", NULL},
    {".linux.resources.blockIO", "kept", "weights and throttles only limit",
     NULL},
    {".linux.resources.blockIO.weight", "kept", "a weight", NULL},
    {".linux.resources.blockIO.leafWeight", "kept", "a weight", NULL},
    {".linux.resources.blockIO.weightDevice", "kept", "weights", NULL},
    {".linux.resources.blockIO.weightDevice[].major", "kept", "a device", NULL},
    {".linux.resources.blockIO.weightDevice[].minor", "kept", "a device", NULL},
    {".linux.resources.blockIO.weightDevice[].weight", "kept", "a weight",
     NULL},
    {".linux.resources.blockIO.weightDevice[].leafWeight", "kept", "a weight",
     NULL},
    {".linux.resources.blockIO.throttleReadBpsDevice", "kept", "a limit", NULL},
    {".linux.resources.blockIO.throttleWriteBpsDevice", "kept", "a limit",
     NULL},
    {".linux.resources.blockIO.throttleReadIOPSDevice", "kept", "a limit",
     NULL},
    {".linux.resources.blockIO.throttleWriteIOPSDevice", "kept", "a limit",
     NULL},
    {".linux.resources.blockIO.throttle*[].major", "kept", "a device", NULL},
    {".linux.resources.blockIO.throttle*[].minor", "kept", "a device", NULL},
    {".linux.resources.blockIO.throttle*[].rate", "kept", "a limit", NULL},
    {".linux.resources.hugepageLimits", "kept", "limits", NULL},
    {".linux.resources.hugepageLimits[].pageSize", "kept", "a size", NULL},
    {".linux.resources.hugepageLimits[].limit", "kept", "a limit", NULL},
    {".linux.resources.network", "dropped", "see its fields", "recorded"},
    {".linux.resources.network.classID", "dropped",
     "tags traffic for the host's tc and netfilter rules", "recorded"},
    {".linux.resources.network.priorities", "dropped",
     "net_prio: how the host ranks traffic on its interfaces", "recorded"},
    {".linux.resources.network.priorities[].name", "dropped", "with priorities",
     "recorded"},
    {".linux.resources.network.priorities[].priority", "dropped",
     "with priorities", "recorded"},
    {".linux.resources.unified", "kept or refused",
     "a controller's own files only, none a field above wrote", "refused"},
    {".linux.sysctl", "narrowed",
     "only names on sysctls.allow, net.* only in its own network namespace and "
     "IPC ones in its own IPC namespace, the safe set's values in the kernel's "
     "ranges; ip_unprivileged_port_start=0 added when loopback-only",
     "recorded"},
    {".linux.seccomp", "kept",
     "loaded too: the baseline is stacked on it, a call must pass both", NULL},
    {".linux.seccomp.defaultAction", "narrowed",
     "config.json's filter; SCMP_ACT_NOTIFY becomes ERRNO (ENOSYS)", NULL},
    {".linux.seccomp.defaultErrnoRet", "kept", "config.json's filter", NULL},
    {".linux.seccomp.architectures", "kept",
     "the baseline kills every foreign architecture anyway", NULL},
    {".linux.seccomp.flags", "kept", "filter flags", NULL},
    {".linux.seccomp.listenerPath", "dropped",
     "no notification leaves the container", "recorded"},
    {".linux.seccomp.syscalls", "kept", "config.json's filter", NULL},
    {".linux.seccomp.syscalls[].names", "kept", "config.json's filter", NULL},
    {".linux.seccomp.syscalls[].action", "narrowed",
     "config.json's filter; SCMP_ACT_NOTIFY becomes ERRNO (ENOSYS)", NULL},
    {".linux.seccomp.syscalls[].errnoRet", "kept", "config.json's filter",
     NULL},
    {".linux.seccomp.syscalls[].args", "kept", "config.json's filter", NULL},
    {".linux.seccomp.syscalls[].args[].index", "kept", "a comparison", NULL},
    {".linux.seccomp.syscalls[].args[].value", "kept", "a comparison", NULL},
    {".linux.seccomp.syscalls[].args[].valueTwo", "kept", "a comparison", NULL},
    {".linux.seccomp.syscalls[].args[].op", "kept", "a comparison", NULL},
    {".linux.maskedPaths", "narrowed", "united with corral's baseline", NULL},
    {".linux.readonlyPaths", "narrowed", "united with corral's baseline", NULL},
    {".linux.rootfsPropagation", "kept or narrowed",
     "shared becomes rslave: nothing propagates to the host", NULL},
    {".linux.mountLabel", "kept",
     "not applied: corral labels no mount, and SELinux refuses an unlabelled "
     "one rather than opening it",
     NULL},
    {".linux.personality", "kept or dropped", "only LINUX", "recorded"},
    {".linux.personality.domain", "kept or dropped", "only LINUX", "recorded"},
    {".linux.personality.flags", "kept or dropped", "with the domain",
     "recorded"},
    {"(any other field)", "dropped",
     "the parser does not read it, so nothing applies it", "not read"},
};

const size_t harden_n_fields = ARRAY_SIZE(harden_fields);

/* `corral explain --fields`: the table, as text (one field a line, its
 * kind in brackets at the end) or as JSON (an array of {field, decision,
 * rule, kind}). */
int explain_fields(bool json, char **out, struct error **err)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	yajl_gen g;

	if (json) {
		g = json_gen_new(1);
		if (!g)
			return error_set(err, ENOMEM, "out of memory");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < harden_n_fields; i++) {
			yajl_gen_map_open(g);
			json_key_str(g, "field", harden_fields[i].path);
			json_key_str(g, "decision", harden_fields[i].decision);
			json_key_str(g, "rule", harden_fields[i].rule);
			json_str(g, "kind");
			if (harden_fields[i].kind)
				json_str(g, harden_fields[i].kind);
			else
				yajl_gen_null(g);
			yajl_gen_map_close(g);
		}
		yajl_gen_array_close(g);
		return json_tidy_finish(g, out, err);
	}
	f = open_memstream(&buf, &size);
	if (!f)
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < harden_n_fields; i++) {
		const struct harden_field *r = &harden_fields[i];

		fprintf(f, "%-48s %-26s %s", r->path, r->decision, r->rule);
		if (r->kind)
			fprintf(f, " [%s]", r->kind);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return error_set(err, ENOMEM, "out of memory");
	}
	*out = buf;
	return 0;
}
