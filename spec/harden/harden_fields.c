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
    {".ociVersion", "kept", "data; not a capability"},
    {".process", "kept", "required; its fields below"},
    {".process.terminal", "kept",
     "the pty is made inside the container; its master goes to "
     "--console-socket, or to corral's own relay (run from a terminal)"},
    {".process.consoleSize", "kept", "a size"},
    {".process.consoleSize.height", "kept", "a size"},
    {".process.consoleSize.width", "kept", "a size"},
    {".process.user", "narrowed", "see uid, gid, additionalGids"},
    {".process.user.uid", "kept or replaced",
     "0 becomes user.uid (65534) unless user.allowRoot; another uid stays; in "
     "corral's own user namespace (user.pool) 0 stays, its root, and an id "
     "beyond 65535 is refused"},
    {".process.user.gid", "kept or replaced",
     "0 and privileged host groups (user.privilegedGroups) become user.gid; in "
     "corral's own user namespace kept (beyond 65535 refused)"},
    {".process.user.umask", "kept", "only the container's own files"},
    {".process.user.additionalGids", "dropped or narrowed",
     "dropped unless user.keepGroups; privileged host groups always go; in "
     "corral's own user namespace kept, but for ids beyond 65535"},
    {".process.args", "kept", "the workload, run inside the sandbox"},
    {".process.env", "narrowed", "only names on env.allow stay"},
    {".process.cwd", "kept", "resolved inside the container"},
    {".process.capabilities", "narrowed", "each set as below"},
    {".process.capabilities.bounding", "narrowed",
     "intersected with capabilities.keep (default: none)"},
    {".process.capabilities.effective", "narrowed",
     "intersected with capabilities.keep"},
    {".process.capabilities.inheritable", "narrowed",
     "intersected with capabilities.keep"},
    {".process.capabilities.permitted", "narrowed",
     "intersected with capabilities.keep"},
    {".process.capabilities.ambient", "narrowed",
     "intersected with capabilities.keep"},
    {".process.rlimits", "narrowed",
     "clamped to the runtime's own hard limits; RLIMIT_CORE 0 when absent"},
    {".process.rlimits[].type", "kept", "a known RLIMIT_ name"},
    {".process.rlimits[].hard", "narrowed", "at most the host's hard limit"},
    {".process.rlimits[].soft", "narrowed", "at most the hard limit"},
    {".process.noNewPrivileges", "replaced", "always true"},
    {".process.oomScoreAdj", "narrowed",
     "only raised above the runtime's own, never lowered"},
    {".process.apparmorProfile", "kept or refused",
     "applied at exec; refused when the host has no AppArmor"},
    {".process.selinuxLabel", "kept or refused",
     "applied at exec; refused when the host has no SELinux"},
    {".root", "kept", "required; see path"},
    {".root.path", "kept or refused",
     "a clean path in the bundle, the caller's own (corral sandbox "
     "--rootfs), below a policy mounts entry, or below engineDirs only when "
     "the engine's own records give it to this container; never another "
     "container's root, a kubelet pods directory, / or a system "
     "directory; opened once without links"},
    {".root.readonly", "kept or replaced",
     "true in rootfs.mode strict; the image is never written either way "
     "(the scratch overlay)"},
    {".hostname", "kept", "set in the container's own uts namespace"},
    {".domainname", "kept", "set in the container's own uts namespace"},
    {".mounts", "narrowed", "each mount by its kind, below"},
    {".mounts[].destination", "kept or dropped",
     "clean absolute paths; never \"/\"; under /proc and /sys only their "
     "own filesystems; resolved inside the rootfs"},
    {".mounts[].type", "kept or dropped",
     "bind (by source), tmpfs, and proc, sysfs, devpts, mqueue, cgroup "
     "once each at their own places; any other type dropped"},
    {".mounts[].source", "kept or dropped or refused",
     "a bind's source below a policy mounts entry, an engine's file "
     "(regular, in the bundle or engineDirs), or a kubelet volume of the "
     "container's own pod, as its pod sandbox recorded it, by kind "
     "(emptyDir rw; configMap, downwardAPI ro; a secret only by name in "
     "volumes.secrets; a directory in "
     "engineDirs/UID/volumes/); never the service-account token, engine "
     "state or sockets; opened once, a link on the way refused"},
    {".mounts[].options", "narrowed",
     "a list per type; remount drops the mount; binds ro (unless the "
     "entry is rw), nosuid, nodev; no shared propagation; a tmpfs at "
     "most the scratch size"},
    {".hooks", "narrowed", "each kind below"},
    {".hooks.*", "dropped or kept",
     "only hooks.allow's paths with their exact args; startContainer "
     "never"},
    {".hooks.*[].path", "kept", "opened once without links, a regular file"},
    {".hooks.*[].args", "kept", "must equal the hooks.allow entry's"},
    {".hooks.*[].env", "replaced", "PATH only, corral's"},
    {".hooks.*[].timeout", "kept", "only shortens the hook"},
    {".annotations", "kept or refused",
     "run.corral.* only narrow (a wider one is refused); the pod-sandbox "
     "markers set the role, which trades the wall clock for a pause's "
     "limits (its process: no fork, 10 s of CPU, 64 MiB); a CRI pod "
     "claimed by sandbox-id must be proved from corral's records"},
    {".linux", "kept", "its fields below"},
    {".linux.namespaces", "narrowed",
     "pid, mount, ipc, uts, network and cgroup always new; time dropped"},
    {".linux.namespaces[].type", "kept or dropped",
     "user only with user.idMap or a pool (user.pool, /etc/subuid's corral); "
     "time dropped; a repeat dropped"},
    {".linux.namespaces[].path", "kept or dropped or refused",
     "opened O_PATH and checked to be a namespace of its type first; pid, "
     "ipc, uts only when it is the container's own pod sandbox's "
     "(refused otherwise); network only with network \"config\" and "
     "never the host's (with an egress list, where corral's proxy dials "
     "from); mount, cgroup, user dropped"},
    {".linux.uidMappings", "dropped or kept or replaced or refused",
     "dropped without a user namespace; in corral's own (user.pool) replaced "
     "by 0-65535 onto the container's slice; otherwise every host id within "
     "user.idMap, or refused"},
    {".linux.uidMappings[].containerID", "kept", "the container's own id"},
    {".linux.uidMappings[].hostID", "kept or replaced or refused",
     "within user.idMap, or the slice's"},
    {".linux.uidMappings[].size", "kept or replaced or refused",
     "within user.idMap, or 65536"},
    {".linux.gidMappings", "dropped or kept or replaced or refused",
     "as uidMappings"},
    {".linux.gidMappings[].containerID", "kept", "the container's own id"},
    {".linux.gidMappings[].hostID", "kept or replaced or refused",
     "within user.idMap, or the slice's"},
    {".linux.gidMappings[].size", "kept or replaced or refused",
     "within user.idMap, or 65536"},
    {".linux.devices", "narrowed",
     "only nodes the policy's devices lists exactly; the standard ones "
     "are the runtime's"},
    {".linux.devices[].path", "kept or dropped", "must match devices"},
    {".linux.devices[].type", "kept or dropped", "must match devices"},
    {".linux.devices[].major", "kept or dropped", "must match devices"},
    {".linux.devices[].minor", "kept or dropped", "must match devices"},
    {".linux.devices[].fileMode", "kept", "the node's mode"},
    {".linux.devices[].uid", "kept", "the node's owner"},
    {".linux.devices[].gid", "kept", "the node's group"},
    {".linux.cgroupsPath", "kept or refused or dropped",
     "the container's own cgroup must be new: an existing one is refused, "
     "and one inside another container's cgroup or any cgroup with "
     "processes; an ordinary user's corral makes its own in the caller's "
     "delegated cgroup, or none"},
    {".linux.resources", "narrowed", "each limit below"},
    {".linux.resources.devices", "replaced",
     "deny all, then the standard devices and the policy's"},
    {".linux.resources.devices[].allow", "replaced", "as above"},
    {".linux.resources.devices[].type", "replaced", "as above"},
    {".linux.resources.devices[].major", "replaced", "as above"},
    {".linux.resources.devices[].minor", "replaced", "as above"},
    {".linux.resources.devices[].access", "replaced", "as above"},
    {".linux.resources.memory", "narrowed", "see limit and swap"},
    {".linux.resources.memory.limit", "narrowed",
     "the smallest of config, policy, annotation"},
    {".linux.resources.memory.reservation", "kept", "a soft target"},
    {".linux.resources.memory.swap", "replaced", "equal to limit: no swap"},
    {".linux.resources.memory.kernel", "dropped",
     "deprecated by the runtime-spec, with a warning, in every mode"},
    {".linux.resources.memory.kernelTCP", "dropped", "as kernel"},
    {".linux.resources.memory.swappiness", "kept", "a preference"},
    {".linux.resources.memory.disableOOMKiller", "kept",
     "the memory limit holds either way"},
    {".linux.resources.memory.useHierarchy", "kept", "v1 accounting"},
    {".linux.resources.memory.checkBeforeUpdate", "kept", "for update"},
    {".linux.resources.cpu", "narrowed", "see quota and period"},
    {".linux.resources.cpu.shares", "kept", "a weight"},
    {".linux.resources.cpu.quota", "narrowed",
     "the smaller share of config and limits.cpus"},
    {".linux.resources.cpu.burst", "kept", "bounded by the quota"},
    {".linux.resources.cpu.period", "narrowed", "with the quota"},
    {".linux.resources.cpu.realtimeRuntime", "kept",
     "the cgroup's; no capability to use it"},
    {".linux.resources.cpu.realtimePeriod", "kept", "as realtimeRuntime"},
    {".linux.resources.cpu.cpus", "kept", "a subset of the host's"},
    {".linux.resources.cpu.mems", "kept", "a subset of the host's"},
    {".linux.resources.cpu.idle", "kept", "a weight"},
    {".linux.resources.pids", "narrowed", "see limit"},
    {".linux.resources.pids.limit", "narrowed",
     "the smallest of config, policy, annotation"},
    {".linux.resources.blockIO", "kept", "weights and throttles only limit"},
    {".linux.resources.blockIO.weight", "kept", "a weight"},
    {".linux.resources.blockIO.leafWeight", "kept", "a weight"},
    {".linux.resources.blockIO.weightDevice", "kept", "weights"},
    {".linux.resources.blockIO.weightDevice[].major", "kept", "a device"},
    {".linux.resources.blockIO.weightDevice[].minor", "kept", "a device"},
    {".linux.resources.blockIO.weightDevice[].weight", "kept", "a weight"},
    {".linux.resources.blockIO.weightDevice[].leafWeight", "kept", "a weight"},
    {".linux.resources.blockIO.throttleReadBpsDevice", "kept", "a limit"},
    {".linux.resources.blockIO.throttleWriteBpsDevice", "kept", "a limit"},
    {".linux.resources.blockIO.throttleReadIOPSDevice", "kept", "a limit"},
    {".linux.resources.blockIO.throttleWriteIOPSDevice", "kept", "a limit"},
    {".linux.resources.blockIO.throttle*[].major", "kept", "a device"},
    {".linux.resources.blockIO.throttle*[].minor", "kept", "a device"},
    {".linux.resources.blockIO.throttle*[].rate", "kept", "a limit"},
    {".linux.resources.hugepageLimits", "kept", "limits"},
    {".linux.resources.hugepageLimits[].pageSize", "kept", "a size"},
    {".linux.resources.hugepageLimits[].limit", "kept", "a limit"},
    {".linux.resources.network", "dropped", "see its fields"},
    {".linux.resources.network.classID", "dropped",
     "tags traffic for the host's tc and netfilter rules"},
    {".linux.resources.network.priorities", "dropped",
     "net_prio: how the host ranks traffic on its interfaces"},
    {".linux.resources.network.priorities[].name", "dropped",
     "with priorities"},
    {".linux.resources.network.priorities[].priority", "dropped",
     "with priorities"},
    {".linux.resources.unified", "kept or refused",
     "a controller's own files only, none a field above wrote"},
    {".linux.sysctl", "narrowed",
     "only names on sysctls.allow, net.* only in its own network namespace "
     "and IPC ones in its own IPC namespace, the safe set's values in the "
     "kernel's ranges; ip_unprivileged_port_start=0 added when loopback-only"},
    {".linux.seccomp", "kept",
     "loaded too: the baseline is stacked on it, a call must pass both"},
    {".linux.seccomp.defaultAction", "narrowed",
     "config.json's filter; SCMP_ACT_NOTIFY becomes ERRNO (ENOSYS)"},
    {".linux.seccomp.defaultErrnoRet", "kept", "config.json's filter"},
    {".linux.seccomp.architectures", "kept",
     "the baseline kills every foreign architecture anyway"},
    {".linux.seccomp.flags", "kept", "filter flags"},
    {".linux.seccomp.listenerPath", "dropped",
     "no notification leaves the container"},
    {".linux.seccomp.syscalls", "kept", "config.json's filter"},
    {".linux.seccomp.syscalls[].names", "kept", "config.json's filter"},
    {".linux.seccomp.syscalls[].action", "narrowed",
     "config.json's filter; SCMP_ACT_NOTIFY becomes ERRNO (ENOSYS)"},
    {".linux.seccomp.syscalls[].errnoRet", "kept", "config.json's filter"},
    {".linux.seccomp.syscalls[].args", "kept", "config.json's filter"},
    {".linux.seccomp.syscalls[].args[].index", "kept", "a comparison"},
    {".linux.seccomp.syscalls[].args[].value", "kept", "a comparison"},
    {".linux.seccomp.syscalls[].args[].valueTwo", "kept", "a comparison"},
    {".linux.seccomp.syscalls[].args[].op", "kept", "a comparison"},
    {".linux.maskedPaths", "narrowed", "united with corral's baseline"},
    {".linux.readonlyPaths", "narrowed", "united with corral's baseline"},
    {".linux.rootfsPropagation", "kept or narrowed",
     "shared becomes rslave: nothing propagates to the host"},
    {".linux.mountLabel", "kept",
     "not applied: corral labels no mount, and SELinux refuses an "
     "unlabelled one rather than opening it"},
    {".linux.personality", "kept or dropped", "only LINUX"},
    {".linux.personality.domain", "kept or dropped", "only LINUX"},
    {".linux.personality.flags", "kept or dropped", "with the domain"},
    {"(any other field)", "dropped",
     "the parser does not read it, so nothing applies it"},
};

const size_t harden_n_fields = ARRAY_SIZE(harden_fields);

/* `corral explain --fields`: the table, as text (one field a line) or as
 * JSON (an array of {field, decision, rule}). */
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
			yajl_gen_map_close(g);
		}
		yajl_gen_array_close(g);
		return json_tidy_finish(g, out, err);
	}
	f = open_memstream(&buf, &size);
	if (!f)
		return error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < harden_n_fields; i++)
		fprintf(f, "%-48s %-26s %s\n", harden_fields[i].path,
			harden_fields[i].decision, harden_fields[i].rule);
	if (fclose(f) != 0) {
		free(buf);
		return error_set(err, ENOMEM, "out of memory");
	}
	*out = buf;
	return 0;
}
