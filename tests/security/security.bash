# Shared setup of the security battery (tests/security/*.bats): the
# integration helpers (bundle, $ROOT, $ID, teardown that fails on leftovers)
# plus a rootfs with the applets the attacks use and the static sysprobe.
#
# A test that makes something on the host (a network namespace, a listener,
# a process) records it in HOST_NETNS / track_pid so battery_teardown
# removes it even when the test fails; one that could see a host sysctl
# changed records its value first ("vm/swappiness=60" in HOST_SYSCTLS),
# and battery_teardown writes it back.

# shellcheck disable=SC2034,SC2154
# (shared with the .bats files; output, lines and stderr are set by bats' run.)

load '../integration/helpers'

SYSPROBE="${SYSPROBE:-$REPO_ROOT/build/helpers/static/sysprobe}"

# Applets beyond helpers.bash's APPLETS that the attacks run.
BATTERY_APPLETS=(mknod chroot mount umount unshare nsenter dmesg date dd find
	sha256sum setsid readlink stat ps seq du tail chmod cut xargs)

# What a careless or hostile engine would put in config.json, applied to
# every test's bundle: root, every capability, no no_new_privs, a writable
# root (so that a missing scratch overlay shows in the bundle), no masked
# or read-only paths, every device, an allow-all seccomp filter, huge
# limits and rlimits, the host's pid (by leaving it out) and network
# namespaces, sysctls off the allowlist.  The default policy must cut all of it
# down, so each attack below meets the sandbox, not the config.  (Nothing
# here would hurt the host if corral obeyed it: the sysctls are per network
# namespace, /sys stays read-only and no host path is mounted.)
# shellcheck disable=SC2016
HOSTILE_CONFIG='
	(["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL",
	  "SETGID", "SETUID", "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE",
	  "NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
	  "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
	  "SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME",
	  "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL",
	  "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM",
	  "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE"]
	 | map("CAP_" + .)) as $caps |
	.process.user = { uid: 0, gid: 0, additionalGids: [0] } |
	.process.noNewPrivileges = false |
	.root.readonly = false |
	.process.capabilities = { bounding: $caps, effective: $caps,
		permitted: $caps, inheritable: $caps, ambient: $caps } |
	.process.rlimits = [
		{ type: "RLIMIT_NOFILE", soft: 1048576, hard: 1048576 },
		{ type: "RLIMIT_NPROC", soft: 1048576, hard: 1048576 } ] |
	.process.oomScoreAdj = -1000 |
	.linux.maskedPaths = [] | .linux.readonlyPaths = [] |
	.linux.resources.devices = [{ allow: true, access: "rwm" }] |
	.linux.seccomp = { defaultAction: "SCMP_ACT_ALLOW" } |
	.linux.resources.memory = { limit: 68719476736 } |
	.linux.resources.pids = { limit: 1000000 } |
	.linux.namespaces = [{ type: "network", path: "/proc/1/ns/net" },
		{ type: "ipc" }, { type: "uts" }, { type: "mount" },
		{ type: "cgroup" }] |
	.linux.sysctl = { "net.ipv4.ip_forward": "1",
		"net.ipv4.conf.all.route_localnet": "1" }'

# Host device nodes a hostile config.json adds: the default policy refuses
# them at create (refuse.devices), so they are not in HOSTILE_CONFIG; the
# /dev test adds them, expects the refusal, and runs them dropped under
# refuse.devices false.
HOSTILE_DEVICES='.linux.devices = [
	{ path: "/dev/sda", type: "b", major: 8, minor: 0 },
	{ path: "/dev/mem", type: "c", major: 1, minor: 1 },
	{ path: "/dev/kmsg", type: "c", major: 1, minor: 11 } ]'

# The battery as an ordinary user: battery_rootless.bats is a link to
# battery.bats, and under that name every corral call runs as a user the
# file makes (with subordinate ids, newuidmap's), started in cgroups
# delegated to it below the test's own (v1 hierarchies: memory, pids,
# cpu, cpuacct, cpuset, freezer), so the same attacks meet an ordinary
# user's sandbox (runtime/ids/rootless.h) with its limits.  bats' temporary
# directories are made traversable for it; each test's state root is its.
BATTERY_ROOTLESS=""
[ "${BATS_TEST_FILENAME##*/}" != battery_rootless.bats ] || BATTERY_ROOTLESS=1

if [ -n "$BATTERY_ROOTLESS" ]; then
	corral() {
		(
			local dir
			for dir in $BATTERY_CGROUPS; do
				echo "$BASHPID" >"$dir/cgroup.procs" || exit 99
			done
			exec setpriv --reuid "$BATTERY_USER" \
				--regid "$(id -g "$BATTERY_USER")" --init-groups \
				--reset-env env HOME=/nonexistent PATH=/usr/bin:/bin \
				"$BATTERY_DIR/corral" --root "$ROOT" "$@" 3>&-
		)
	}
fi

# The user, its subordinate ids, its corral and its delegated cgroups.
battery_rootless_setup_file() {
	local sub c own dir
	[ -e /sys/fs/cgroup/memory/cgroup.procs ] ||
		skip "the controllers are not on cgroup v1 here"
	export BATTERY_USER="corral-bt-$$"
	BATTERY_DIR="$(mktemp -d /tmp/corral-battery.XXXXXX)"
	export BATTERY_DIR
	chmod 0755 "$BATTERY_DIR"
	cp "$CORRAL" "$BATTERY_DIR/corral"
	useradd -M -N -s /bin/sh -d /nonexistent -K SUB_UID_COUNT=0 \
		-K SUB_GID_COUNT=0 "$BATTERY_USER" || fail "useradd"
	sub=$((3400000000 + ($$ % 1000) * 65536))
	usermod --add-subuids "$sub-$((sub + 65535))" \
		--add-subgids "$sub-$((sub + 65535))" "$BATTERY_USER" ||
		fail "usermod --add-subuids"
	BATTERY_CGROUPS=""
	for c in memory pids cpu cpuacct cpuset freezer; do
		own="$(awk -F: -v c="$c" '$2 == c { print $3 }' /proc/self/cgroup)"
		dir="/sys/fs/cgroup/$c${own%/}/corral-bt-$$"
		mkdir "$dir" || fail "mkdir $dir"
		BATTERY_CGROUPS+="$dir "
		if [ "$c" = cpuset ]; then
			cp "${dir%/*}/cpuset.cpus" "$dir/cpuset.cpus"
			cp "${dir%/*}/cpuset.mems" "$dir/cpuset.mems"
		fi
		chown -R "$BATTERY_USER:" "$dir"
	done
	export BATTERY_CGROUPS
	chmod 0711 "$BATS_RUN_TMPDIR" "$BATS_FILE_TMPDIR" "$BATS_FILE_TMPDIR/.."
}

battery_rootless_teardown_file() {
	local uid pid dir
	if uid="$(id -u "$BATTERY_USER" 2>/dev/null)"; then
		for pid in $(ps -o pid= -u "$uid" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		userdel "$BATTERY_USER" 2>/dev/null
	fi
	sed -i "/^$BATTERY_USER:/d" /etc/subuid /etc/subgid
	for dir in $BATTERY_CGROUPS; do
		rmdir "$dir" 2>/dev/null
	done
	[ -z "${BATTERY_DIR:-}" ] || rm -rf "$BATTERY_DIR"
}

battery_setup_file() {
	local bin="$BATS_FILE_TMPDIR/bundle/rootfs/bin" applet
	[ -x "$SYSPROBE" ] || fail "$SYSPROBE not found: run make helpers"
	[ -z "$BATTERY_ROOTLESS" ] || battery_rootless_setup_file
	corral_setup_file
	for applet in "${BATTERY_APPLETS[@]}"; do
		ln -sf busybox "$bin/$applet"
	done
	cp "$SYSPROBE" "$bin/sysprobe"
}

battery_teardown_file() {
	[ -z "$BATTERY_ROOTLESS" ] || battery_rootless_teardown_file
}

battery_setup() {
	corral_setup
	HOST_NETNS=()
	HOST_SYSCTLS=()
	update_config "$HOSTILE_CONFIG"
	# where corral writes files the test names (a pid file): its own
	USER_TMPDIR="$BATS_TEST_TMPDIR"
	if [ -n "$BATTERY_ROOTLESS" ]; then
		chmod 0711 "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/.."
		mkdir -m 0700 "$ROOT" "$BATS_TEST_TMPDIR/user"
		chown "$BATTERY_USER:" "$ROOT" "$BATS_TEST_TMPDIR/user"
		USER_TMPDIR="$BATS_TEST_TMPDIR/user"
	fi
}

# The corral binary the tests run: the user's copy when rootless.
battery_binary() {
	if [ -n "$BATTERY_ROOTLESS" ]; then
		echo "$BATTERY_DIR/corral"
	else
		readlink -f "$CORRAL"
	fi
}

battery_teardown() {
	local ns id kv
	for ns in "${HOST_NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	for kv in "${HOST_SYSCTLS[@]}"; do
		[ "$(cat "/proc/sys/${kv%%=*}")" = "${kv#*=}" ] ||
			echo "${kv#*=}" >"/proc/sys/${kv%%=*}" ||
			echo "# could not restore ${kv%%=*}" >&3
	done
	# the user's own delete first, as it would clean up
	if [ -n "$BATTERY_ROOTLESS" ] && [ -d "$ROOT" ]; then
		for id in $(state_entries); do
			corral delete --force "$id" >/dev/null 2>&1
		done
	fi
	corral_teardown
}

# run_in_container ARG...: run ARG... as the workload in the foreground,
# stdin from /dev/null; status, output and stderr as `run --separate-stderr`.
# It waits at most CORRAL_WAIT seconds (60; helpers.bash corral_bounded).
run_in_container() {
	set_args "$@"
	run --separate-stderr corral_bounded "${CORRAL_WAIT:-60}" run \
		--bundle "$BUNDLE" "$ID" </dev/null
}

# run_in_container_with POLICY-JSON ARG...: run_in_container under a
# policy file of the test's own (readable by the battery's user).
run_in_container_with() {
	local policy="$USER_TMPDIR/policy.json"
	printf '%s\n' "$1" >"$policy" && chmod 0644 "$policy" ||
		fail "write $policy"
	shift
	set_args "$@"
	run --separate-stderr corral --policy "$policy" run --bundle "$BUNDLE" "$ID" </dev/null
}

# probe ARG...: sysprobe ARG... in the container.
probe() {
	run_in_container /bin/sysprobe "$@"
}

# assert_probes "NAME RESULT"...: the last probe printed exactly these
# lines, in order.
assert_probes() {
	assert_success
	assert_equal "$output" "$(printf '%s\n' "$@")"
}

# tree_sum DIR: one line per entry of DIR (type, mode, owner, size, link
# target) and the sha256 of every regular file, sorted: equal sums mean a
# byte-for-byte equal tree.
tree_sum() {
	(cd "$1" && find . -printf '%p %y %m %U:%G %s %l\n' | sort &&
		find . -type f -exec sha256sum {} + | sort)
}

# make_test_netns: a network namespace of this test's own with a veth
# pair inside it, up, addressed in 198.18.N.0/24 (the benchmarking range,
# never routed off this machine, and here only inside this namespace).
# Sets NETNS and NETNS_ADDR (the address of the first end).
make_test_netns() {
	local net=$((BATS_TEST_NUMBER % 250))
	NETNS="corral-battery-$BATS_TEST_NUMBER-$$"
	ip netns add "$NETNS" || fail "ip netns add $NETNS"
	HOST_NETNS+=("$NETNS")
	NETNS_ADDR="198.18.$net.1"
	if ! ip -n "$NETNS" link add bt-v0 type veth peer name bt-v1 ||
		! ip -n "$NETNS" addr add "$NETNS_ADDR/24" dev bt-v0 ||
		! ip -n "$NETNS" addr add "198.18.$net.2/24" dev bt-v1 ||
		! ip -n "$NETNS" link set lo up ||
		! ip -n "$NETNS" link set bt-v0 up ||
		! ip -n "$NETNS" link set bt-v1 up; then
		fail "set up the veth pair in $NETNS"
	fi
}

# start_listener FILE HOST PORT [NETNS]: a TCP listener on HOST:PORT (in
# NETNS if given) that appends "accepted" to FILE for every connection; it
# writes "listening" to FILE when ready.  Its pid is tracked.
start_listener() {
	local file="$1" host="$2" port="$3" ns="${4:-}" cmd=()
	[ -z "$ns" ] || cmd=(ip netns exec "$ns")
	"${cmd[@]}" python3 -c '
import socket, sys
f = open(sys.argv[1], "a", buffering=1)
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[2] else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[2], int(sys.argv[3])))
s.listen(8)
s.settimeout(60)
f.write("listening\n")
while True:
    c, _ = s.accept()
    f.write("accepted\n")
    c.close()
' "$file" "$host" "$port" </dev/null >/dev/null 2>&1 3>&- &
	track_pid "$!"
	wait_for_file "$file" '^listening$'
}

# free_port: a TCP port nothing on the host listens on.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# cgroup_file PID CONTROLLER FILE: the host path of FILE in PID's v1
# CONTROLLER cgroup (or its cgroup2 one).
cgroup_file() {
	local path
	path="$(awk -F: -v c="$2" '$2 == c { print $3; exit }' "/proc/$1/cgroup")"
	if [ -n "$path" ] && [ -e "/sys/fs/cgroup/$2$path/$3" ]; then
		echo "/sys/fs/cgroup/$2$path/$3"
		return
	fi
	path="$(awk -F: '$1 == 0 { print $3; exit }' "/proc/$1/cgroup")"
	for f in "/sys/fs/cgroup/unified$path/$3" "/sys/fs/cgroup$path/$3"; do
		[ -e "$f" ] && { echo "$f"; return; }
	done
	return 1
}

# pids_with_tag TAG: host pids whose command line contains TAG.
pids_with_tag() {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "$1" && echo "${p#/proc/}"
	done
	return 0
}

# now_ms: wall-clock milliseconds, from bash itself.
now_ms() {
	local t="${EPOCHREALTIME/./}"
	echo $((t / 1000))
}
