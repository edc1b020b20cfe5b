/* The config.json that `corral spec` writes: a bundle skeleton whose
 * defaults are already corral's sandbox (an unprivileged user, no
 * capabilities, no_new_privs, a read-only root with a small /tmp, every
 * namespace new, the kernel's sensitive files masked).  Kept as JSON text
 * because that is what a reader compares it with; it is parsed and
 * re-emitted, so it is checked like any config.json. */
#include <errno.h>
#include <string.h>

#include "spec.h"
#include "state.h"
#include "util.h"

static const char default_config[] =
    "{"
    " \"ociVersion\": \"" SPEC_OCI_VERSION "\","
    " \"process\": {"
    "  \"terminal\": false,"
    "  \"user\": { \"uid\": 65534, \"gid\": 65534 },"
    "  \"args\": [ \"sh\" ],"
    "  \"env\": [ "
    "\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\","
    "            \"TERM=xterm\" ],"
    "  \"cwd\": \"/\","
    "  \"capabilities\": { \"bounding\": [], \"effective\": [],"
    "                     \"inheritable\": [], \"permitted\": [], \"ambient\": "
    "[] },"
    "  \"rlimits\": [ { \"type\": \"RLIMIT_NOFILE\", \"hard\": 1024, \"soft\": "
    "1024 } ],"
    "  \"noNewPrivileges\": true"
    " },"
    " \"root\": { \"path\": \"rootfs\", \"readonly\": true },"
    " \"hostname\": \"corral\","
    " \"mounts\": ["
    "  { \"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\","
    "    \"options\": [ \"nosuid\", \"noexec\", \"nodev\" ] },"
    "  { \"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\","
    "    \"options\": [ \"nosuid\", \"strictatime\", \"mode=755\", "
    "\"size=65536k\" ] },"
    "  { \"destination\": \"/dev/pts\", \"type\": \"devpts\", \"source\": "
    "\"devpts\","
    "    \"options\": [ \"nosuid\", \"noexec\", \"newinstance\", "
    "\"ptmxmode=0666\","
    "                   \"mode=0620\", \"gid=5\" ] },"
    "  { \"destination\": \"/dev/shm\", \"type\": \"tmpfs\", \"source\": "
    "\"shm\","
    "    \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"mode=1777\", "
    "\"size=65536k\" ] },"
    "  { \"destination\": \"/dev/mqueue\", \"type\": \"mqueue\", \"source\": "
    "\"mqueue\","
    "    \"options\": [ \"nosuid\", \"noexec\", \"nodev\" ] },"
    "  { \"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\","
    "    \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"ro\" ] },"
    "  { \"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup\", "
    "\"source\": \"cgroup\","
    "    \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"relatime\", "
    "\"ro\" ] },"
    "  { \"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\","
    "    \"options\": [ \"nosuid\", \"nodev\", \"mode=1777\", \"size=65536k\" "
    "] }"
    " ],"
    " \"linux\": {"
    "  \"resources\": { \"devices\": [ { \"allow\": false, \"access\": \"rwm\" "
    "} ] },"
    "  \"namespaces\": [ { \"type\": \"pid\" }, { \"type\": \"network\" },"
    "                  { \"type\": \"ipc\" }, { \"type\": \"uts\" },"
    "                  { \"type\": \"mount\" }, { \"type\": \"cgroup\" } ],"
    "  \"maskedPaths\": [ \"/proc/acpi\", \"/proc/asound\", \"/proc/kcore\","
    "    \"/proc/keys\", \"/proc/latency_stats\", \"/proc/timer_list\","
    "    \"/proc/timer_stats\", \"/proc/sched_debug\", \"/proc/scsi\","
    "    \"/sys/firmware\", \"/sys/devices/virtual/powercap\" ],"
    "  \"readonlyPaths\": [ \"/proc/bus\", \"/proc/fs\", \"/proc/irq\","
    "    \"/proc/sys\", \"/proc/sysrq-trigger\" ]"
    " }"
    "}";

int spec_default(struct spec **out, struct error **err)
{
	if (spec_parse(default_config, strlen(default_config), out, err) < 0)
		return error_wrap(err, "built-in default config");
	return 0;
}

int spec_default_emit(char **out, struct error **err)
{
	struct spec *spec = NULL;
	int r;

	if (spec_default(&spec, err) < 0)
		return -1;
	r = spec_emit(spec, out, NULL, err);
	spec_free(spec);
	return r;
}
