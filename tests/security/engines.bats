#!/usr/bin/env bats
# A compact battery inside containers that the engines start: podman
# (`podman --runtime corral run --rootfs`) and containerd 1.6 (`ctr run
# --runc-binary corral`, a private daemon of containerd.bash).  Each engine
# is asked for the most it will give: --privileged, root, secrets in the
# environment (ctr also --net-host and --allow-new-privs), so every attack
# meets what corral makes of the engine's config.json.
#
# One script, /attack.sh in the rootfs, runs every attack in one container
# and prints one line per attack, "NAME ok" or "NAME LEAK DETAIL"; the host
# adds lines of its own (the rootfs or snapshot unchanged, its listeners on
# 127.0.0.1 and on an abstract unix socket accepted nothing, its hostname
# unchanged).  The first test
# of each engine runs the container; every test then asserts its group.
#
# The attacks are harmless to the host even where nothing contains them
# (CORRAL=$(command -v runc) bats ... is the control and must fail): files
# are only opened for writing, never written; the hostname is set to its
# own value; the syscalls get bad arguments (sysprobe); the ptrace target
# is a pid that does not exist.

# shellcheck disable=SC2154
# (output, status and lines are set by bats' run.)

load security
load '../engines/containerd'

# The groups: an @test per engine per group asserts that every one of its
# lines is "NAME ok".
PRIVILEGES=(priv.uid priv.caps priv.no_new_privs priv.seccomp priv.setuid
	priv.fds priv.pid1_cmdline priv.pid1_exe)
SECRETS=(sec.env_names sec.proc_environ sec.sockets)
FILESYSTEM=(fs.remount_root fs.mknod fs.block_devices fs.engine_files
	fs.host_rootfs)
KERNEL=(kern.proc_writes kern.mount_proc kern.mount_bind kern.unshare_user
	kern.unshare_net kern.chroot kern.hostname kern.host_hostname)
NETWORK=(net.interfaces net.routes net.host_listener net.host_abstract
	net.raw_sockets net.host_accepted)
SYSCALLS=(sys.keyrings sys.bpf sys.io_uring sys.userfaultfd
	sys.perf_event_open sys.ptrace sys.clone_newuser sys.int80 sys.x32)

# The script takes about a second.  A hang ends at corral's wall clock,
# narrowed by annotation, or (under another runtime) when the client is
# killed; teardown_file removes what is left.
WALL_CLOCK=run.corral.timeout=30
CLIENT_TIMEOUT=45

# write_attack_script FILE: the attacks, run as `sh /attack.sh PORT NAME
# TAG` (PORT: the host's listener on 127.0.0.1; NAME: the host's listener
# on an abstract unix socket; TAG: names the files it makes).
write_attack_script() {
	cat >"$1" <<'EOF'
#!/bin/sh
port="$1" abstract="$2" tag="$3"
. /attack.env

ok() { echo "$1 ok"; }
leak() { n="$1"; shift; echo "$n LEAK $*"; }
# expect NAME WANT PROBE...: sysprobe prints "PROBE WANT" for each PROBE.
expect() {
	n="$1" want="$2" bad=""
	shift 2
	for p in "$@"; do
		r="$(/bin/sysprobe "$p" 2>&1)"
		[ "$r" = "$p $want" ] || bad="$bad${bad:+, }${r:-$p (no output)}"
	done
	if [ -z "$bad" ]; then ok "$n"; else leak "$n" "$bad"; fi
}
# refused NAME CMD...: CMD fails.
refused() {
	n="$1"
	shift
	if "$@" >/dev/null 2>&1; then leak "$n" "$* succeeded"; else ok "$n"; fi
}
# not_writable NAME FILE...: no existing FILE opens O_WRONLY (nothing is
# written: sysprobe openw only opens and closes).
not_writable() {
	n="$1" bad=""
	shift
	for f in "$@"; do
		[ -e "$f" ] || continue
		[ "$(/bin/sysprobe openw "$f")" != "$f OK" ] || bad="$bad $f"
	done
	if [ -z "$bad" ]; then ok "$n"; else leak "$n" "opened for writing:$bad"; fi
}

# --- privileges
ids="$(id -u) $(id -g) $(id -G)"
case " $ids " in
*" 0 "*) leak priv.uid "ids $ids" ;;
*) ok priv.uid ;;
esac
nonzero="$(grep '^Cap' /proc/self/status | grep -cv ':[[:space:]]*0*$')"
if [ "$nonzero" = 0 ] && [ "$(grep -c '^Cap' /proc/self/status)" -ge 5 ]; then
	ok priv.caps
else
	leak priv.caps "$(grep '^Cap' /proc/self/status | tr '\t\n' ' ;')"
fi
v="$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' /proc/self/status)"
if [ "$v" = 1 ]; then ok priv.no_new_privs; else leak priv.no_new_privs "NoNewPrivs $v"; fi
v="$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status)"
if [ "$v" = 2 ]; then ok priv.seccomp; else leak priv.seccomp "Seccomp $v"; fi
v="$(/bin/suidprobe ids 2>&1)"
[ "$(stat -c %a:%u /bin/suidprobe)" = 6755:0 ] || v="not setuid-root: $v"
case "$v" in
"ids 0 "* | *" 0 "* | *" 0") leak priv.setuid "setuid-root binary: $v" ;;
"ids "*) ok priv.setuid ;;
*) leak priv.setuid "setuid-root binary: $v" ;;
esac
v="$(/bin/sysprobe fds | tr '\n' ' ')"
if [ "$v" = "0 1 2 " ]; then ok priv.fds; else leak priv.fds "fds $v"; fi
v="$(tr '\0' ' ' </proc/1/cmdline)"
bad=""
for p in $HOST_PATHS; do
	case "$v" in *"$p"*) bad="$bad $p" ;; esac
done
if [ -z "$bad" ]; then ok priv.pid1_cmdline; else leak priv.pid1_cmdline "$v"; fi
if v="$(readlink /proc/1/exe 2>/dev/null)"; then leak priv.pid1_exe "$v"; else ok priv.pid1_exe; fi

# --- secrets
bad=""
for n in $(env | cut -d= -f1); do
	case "$n" in PATH | HOME | TERM | LANG | PWD | SHLVL) ;; *) bad="$bad $n" ;; esac
done
if [ -z "$bad" ]; then ok sec.env_names; else leak sec.env_names "$bad"; fi
v="$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep -c '^SECRET_TOKEN=')"
if [ "$v" = 0 ]; then ok sec.proc_environ; else leak sec.proc_environ "SECRET_TOKEN in $v environ files"; fi
v="$(find / \( -path /proc -o -path /sys \) -prune -o -type s -print 2>/dev/null | tr '\n' ' ')"
for p in /run/containerd /var/run/docker.sock /run/podman /run/secrets /var/run/secrets; do
	[ ! -e "$p" ] || v="$v $p"
done
if [ -z "$v" ]; then ok sec.sockets; else leak sec.sockets "$v"; fi

# --- filesystem (the host looks for these two writes: fs.host_rootfs)
echo pwned >"/bin/pwned-$tag" 2>/dev/null
echo "pwned-$tag" >>/etc/passwd 2>/dev/null
refused fs.remount_root mount -o remount,rw /
if mknod "/tmp/blk-$tag" b 8 0 2>/dev/null; then
	rm -f "/tmp/blk-$tag"
	leak fs.mknod "block device 8:0 made"
else
	ok fs.mknod
fi
v="$(find /dev -type b 2>/dev/null | tr '\n' ' ')"
if [ -z "$v" ]; then ok fs.block_devices; else leak fs.block_devices "$v"; fi
not_writable fs.engine_files /etc/hosts /etc/resolv.conf /etc/hostname /run/.containerenv

# --- kernel
not_writable kern.proc_writes /proc/sysrq-trigger /proc/sys/kernel/core_pattern \
	/proc/sys/kernel/modprobe /sys/kernel/uevent_helper /proc/sys/vm/drop_caches
mkdir -p "/tmp/m-$tag"
if mount -t proc proc "/tmp/m-$tag" 2>/dev/null; then
	umount "/tmp/m-$tag"
	leak kern.mount_proc mounted
else
	ok kern.mount_proc
fi
if mount --bind /bin "/tmp/m-$tag" 2>/dev/null; then
	umount "/tmp/m-$tag"
	leak kern.mount_bind mounted
else
	ok kern.mount_bind
fi
refused kern.unshare_user unshare -U true
refused kern.unshare_net unshare -n true
refused kern.chroot chroot / /bin/true
# (to its own value: harmless even in the host's UTS namespace)
refused kern.hostname hostname "$(hostname)"

# --- network
v="$(cd /sys/class/net && echo *)"
if [ "$v" = lo ]; then ok net.interfaces; else leak net.interfaces "$v"; fi
v="$(tail -n +2 /proc/net/route | wc -l)"
if [ "$v" = 0 ]; then ok net.routes; else leak net.routes "$v routes"; fi
v="$(/bin/sysprobe connect 127.0.0.1 "$port")"
if [ "$v" = "connect ECONNREFUSED" ]; then ok net.host_listener; else leak net.host_listener "$v"; fi
# (a containerd-shim's kind of socket: CVE-2020-15257)
v="$(/bin/sysprobe connectunix "@$abstract")"
if [ "$v" = "connect ECONNREFUSED" ]; then ok net.host_abstract; else leak net.host_abstract "$v"; fi
expect net.raw_sockets EPERM socket_raw socket_packet

# --- system calls
expect sys.keyrings EPERM keyctl add_key request_key
expect sys.bpf EPERM bpf
expect sys.io_uring EPERM io_uring_setup
expect sys.userfaultfd EPERM userfaultfd
expect sys.perf_event_open EPERM perf_event_open
expect sys.ptrace EPERM ptrace_nopid
expect sys.clone_newuser EPERM clone_newuser unshare
# unshare(CLONE_NEWUSER) through the i386 ABI: killed by SIGSYS (128+31);
# a kernel without the i386 entry faults instead (SIGSEGV, 128+11), and
# the call never runs either
v="$(/bin/sysprobe int80 2>&1)"
rc=$?
if { [ "$rc" = 159 ] || [ "$rc" = 139 ]; } && [ -z "$v" ]; then ok sys.int80; else leak sys.int80 "exit $rc: $v"; fi
# the same with the x32 bit on the x86-64 number
v="$(/bin/sysprobe x32 2>&1)"
rc=$?
if [ "$rc" = 159 ] && [ -z "$v" ]; then ok sys.x32; else leak sys.x32 "exit $rc: $v"; fi
echo "end ok"
EOF
}

# make_attack_rootfs DIR: static busybox with every applet, sysprobe,
# /attack.sh and /attack.env.  /bin and /etc/passwd are writable by
# anyone, so only the sandbox keeps the writes off the rootfs; root and
# /etc/mtab are there already, so podman itself has nothing to add.
make_attack_rootfs() {
	local dir="$1" d applet
	for d in bin etc tmp proc sys dev root run; do
		mkdir -p "$dir/$d"
	done
	chmod 1777 "$dir/tmp"
	chmod 0777 "$dir/bin"
	cp "$BUSYBOX" "$dir/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[ "$applet" = busybox ] || ln -s busybox "$dir/bin/$applet"
	done
	cp "$SYSPROBE" "$dir/bin/sysprobe"
	cp "$SYSPROBE" "$dir/bin/suidprobe"
	chmod 6755 "$dir/bin/suidprobe"
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
		'nobody:x:65534:65534:nobody:/:/bin/sh' >"$dir/etc/passwd"
	chmod 0666 "$dir/etc/passwd"
	printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$dir/etc/group"
	ln -s /proc/mounts "$dir/etc/mtab"
	write_attack_script "$dir/attack.sh"
	# host paths PID 1's command line must not show
	printf 'HOST_PATHS=%q\n' "$BATS_RUN_TMPDIR $REPO_ROOT /run/corral /run/containerd /var/lib/containers" \
		>"$dir/attack.env"
}

setup_file() {
	[ -x "$SYSPROBE" ] || fail "$SYSPROBE not found: run make helpers"
	[ -x "$CORRAL" ] || fail "runtime $CORRAL not found: run make"
	# (each test runs in a process of its own: its $$ is not this one)
	export CT_NAME="engbat-$$"
	export PRISTINE="$BATS_FILE_TMPDIR/rootfs"
	export SECRET_VALUE="engbat-secret-$RANDOM$RANDOM$RANDOM"
	make_attack_rootfs "$PRISTINE"
}

teardown_file() {
	podman rm -f -i -t 0 "$CT_NAME" "$CT_NAME-priv" >/dev/null 2>&1 3>&-
	containerd_stop "$BATS_FILE_TMPDIR/containerd"
}

setup() {
	TRACKED_PIDS=()
}

teardown() {
	local entry pid
	for entry in "${TRACKED_PIDS[@]}"; do
		pid="${entry%%:*}"
		if ! pid_gone "$pid" &&
			[ "$(proc_start_time "$pid")" = "${entry#*:}" ]; then
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null || true
	done
}

# start_listeners: the host's listeners, each appending "accepted" to
# ACCEPTS per connection: TCP on 127.0.0.1:PORT (security.bash's
# start_listener) and the abstract unix socket ABSTRACT.
start_listeners() {
	PORT="$(free_port)" || fail "no free port"
	ABSTRACT="corral-$CT_NAME-$BATS_TEST_NUMBER"
	ACCEPTS="$BATS_TEST_TMPDIR/accepts"
	start_listener "$ACCEPTS" 127.0.0.1 "$PORT"
	python3 -c '
import socket, sys
f = open(sys.argv[1], "a", buffering=1)
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[2])
s.listen(8)
s.settimeout(60)
f.write("listening unix\n")
while True:
    c, _ = s.accept()
    f.write("accepted\n")
    c.close()
' "$ACCEPTS" "$ABSTRACT" </dev/null >/dev/null 2>&1 3>&- &
	track_pid "$!"
	wait_for_file "$ACCEPTS" '^listening unix$'
}

# host_lines: the host's own lines, after the container ran: the hostname
# and the listeners.
host_lines() {
	if [ "$(hostname)" = "$HOST_HOSTNAME" ]; then
		echo "kern.host_hostname ok"
	else
		echo "kern.host_hostname LEAK the host's hostname is $(hostname)"
	fi
	local n
	n="$(grep -c '^accepted$' "$ACCEPTS" || true)"
	if [ "$n" = 0 ]; then
		echo "net.host_accepted ok"
	else
		echo "net.host_accepted LEAK the host's listeners accepted $n"
	fi
}

# run_podman: the attacks in `podman run --privileged --user 0:0` with
# secrets in the environment, on a copy of the rootfs whose tree_sum must
# not change.  (--ulimit: what runc, the control, can set here; podman's
# own default is above this machine's hard limit.)
run_podman() {
	local rootfs="$BATS_FILE_TMPDIR/podman-rootfs" before after rc=0
	cp -a "$PRISTINE" "$rootfs" || fail "copy the rootfs"
	before="$(tree_sum "$rootfs")"
	start_listeners
	HOST_HOSTNAME="$(hostname)"
	# --rootfs: root.path is taken only below a directory the policy
	# mounts (or an engine's own store, tied to the container).
	# --privileged lists every host device, which the default policy
	# refuses (refuse.devices; the last test): the battery runs with
	# them dropped, as under an administrator who prefers containers to
	# start
	jq --arg d "$rootfs" '.mounts = [{source: $d}] | .refuse.devices = false' \
		"$REPO_ROOT/config-examples/policy/default.json" \
		>"$BATS_FILE_TMPDIR/policy.json"
	timeout -k 5 "$CLIENT_TIMEOUT" podman --runtime "$CORRAL" \
		--runtime-flag "policy=$BATS_FILE_TMPDIR/policy.json" run --rm \
		--name "$CT_NAME" --network none --annotation "$WALL_CLOCK" \
		--privileged --user 0:0 --ulimit nofile=4096:4096 \
		--ulimit nproc=4096:4096 -e SECRET_TOKEN="$SECRET_VALUE" \
		-e AWS_SECRET_ACCESS_KEY="$SECRET_VALUE" -e LD_PRELOAD=/tmp/evil.so \
		--rootfs "$rootfs" /bin/sh /attack.sh "$PORT" "$ABSTRACT" "podman-$CT_NAME" \
		</dev/null >"$RESULTS" 2>"$RESULTS.err" 3>&- || rc=$?
	echo "$rc" >"$RESULTS.status"
	# (there only if the client timed out)
	podman rm -f -i -t 0 "$CT_NAME" "$CT_NAME-priv" >/dev/null 2>&1 3>&-
	after="$(tree_sum "$rootfs")"
	if [ "$before" = "$after" ]; then
		echo "fs.host_rootfs ok"
	else
		echo "fs.host_rootfs LEAK the rootfs changed:" \
			"$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' |
				head -n 4 | tr '\n' ';')"
	fi >>"$RESULTS"
	host_lines >>"$RESULTS"
}

# snapshot_upper ID: the upper directory of container ID's snapshot.
snapshot_upper() {
	ctrd snapshots mounts /engbat-unused "$1" |
		tr ',' '\n' | sed -n 's/^upperdir=//p'
}

# run_ctr: the attacks in `ctr run --privileged --net-host
# --allow-new-privs` with secrets in the environment, in a daemon of its
# own (gone again at the end).  The container's snapshot (the bundle's
# rootfs) must stay empty: corral writes into its scratch layer only.
run_ctr() {
	local id="$CT_NAME" image="localhost/corral-$CT_NAME:latest" upper v rc=0
	export CTRD_NS="corral-$CT_NAME"
	containerd_start "$BATS_FILE_TMPDIR/containerd"
	containerd_import_image "$PRISTINE" "$image" /bin/sh /attack.sh
	start_listeners
	HOST_HOSTNAME="$(hostname)"
	# --privileged's host devices dropped, not refused, as for podman
	jq '.refuse.devices = false' "$REPO_ROOT/config-examples/policy/default.json" \
		>"$BATS_FILE_TMPDIR/ctr-policy.json"
	printf '#!/bin/sh\nexec %q --policy %q "$@"\n' "$CORRAL" \
		"$BATS_FILE_TMPDIR/ctr-policy.json" >"$BATS_FILE_TMPDIR/corral-runtime"
	chmod 0755 "$BATS_FILE_TMPDIR/corral-runtime"
	timeout -k 5 "$CLIENT_TIMEOUT" ctr -a "$CTRD_SOCK" -n "$CTRD_NS" run \
		--runtime io.containerd.runc.v2 --runc-binary "$BATS_FILE_TMPDIR/corral-runtime" \
		--fifo-dir "$CTRD_DIR/fifo" --annotation "$WALL_CLOCK" \
		--privileged --net-host --allow-new-privs \
		--env SECRET_TOKEN="$SECRET_VALUE" \
		--env AWS_SECRET_ACCESS_KEY="$SECRET_VALUE" \
		--env LD_PRELOAD=/tmp/evil.so \
		"$image" "$id" /bin/sh /attack.sh "$PORT" "$ABSTRACT" "ctr-$CT_NAME" \
		</dev/null >"$RESULTS" 2>"$RESULTS.err" 3>&- || rc=$?
	echo "$rc" >"$RESULTS.status"
	upper="$(snapshot_upper "$id")"
	if [ -z "$upper" ] || [ ! -d "$upper" ]; then
		echo "fs.host_rootfs LEAK no snapshot upper directory for $id"
	elif v="$(cd "$upper" && find . -mindepth 1 | head -n 4 | tr '\n' ' ')" &&
		[ -z "$v" ]; then
		echo "fs.host_rootfs ok"
	else
		echo "fs.host_rootfs LEAK written to the snapshot: $v"
	fi >>"$RESULTS"
	host_lines >>"$RESULTS"
	containerd_remove_container "$id" || true
	containerd_stop || fail "containerd_stop: left behind"
}

# results ENGINE: RESULTS, the lines of ENGINE's run (the first test of
# the engine runs it; a later one fails if that run did not finish).
results() {
	RESULTS="$BATS_FILE_TMPDIR/$1.results"
	[ ! -e "$RESULTS.status" ] || return 0
	[ ! -e "$RESULTS.tried" ] || fail "the $1 run failed in an earlier test"
	: >"$RESULTS.tried"
	"run_$1"
}

# assert_group ENGINE NAME...: ENGINE's run got to its end and printed
# "NAME ok" for every NAME.
assert_group() {
	local engine="$1" name line problems=""
	shift
	results "$engine"
	grep -qx 'end ok' "$RESULTS" ||
		problems+="the script did not finish (exit $(cat "$RESULTS.status")): $(tail -n 3 "$RESULTS.err")"$'\n'
	for name in "$@"; do
		line="$(grep -m1 "^$name " "$RESULTS" || true)"
		[ "$line" = "$name ok" ] || problems+="${line:-$name: no line}"$'\n'
	done
	[ -z "$problems" ] || fail "$engine: $problems"
	! grep -qF -- "$SECRET_VALUE" "$RESULTS" "$RESULTS.err" ||
		fail "$engine: the secret's value is in the container's output"
}

@test "podman: privileges: not root, no capability, NoNewPrivs, Seccomp 2, setuid inert, fds 0-2, PID 1 hidden" {
	assert_group podman "${PRIVILEGES[@]}"
}

@test "podman: secrets: -e SECRET_TOKEN and friends never reach the workload" {
	assert_group podman "${SECRETS[@]}"
}

@test "podman: filesystem: no remount, mknod or block device; the rootfs is unchanged" {
	assert_group podman "${FILESYSTEM[@]}"
}

@test "podman: kernel: /proc writes, mounts, unshare, chroot and sethostname fail" {
	assert_group podman "${KERNEL[@]}"
}

@test "podman: network: only lo; the host's 127.0.0.1 and abstract socket unreachable; no raw sockets" {
	assert_group podman "${NETWORK[@]}"
}

@test "podman: syscalls: keyrings, bpf, io_uring, userfaultfd, perf, ptrace, NEWUSER, int 0x80, x32" {
	assert_group podman "${SYSCALLS[@]}"
}

@test "containerd: privileges: not root, no capability, NoNewPrivs, Seccomp 2, setuid inert, fds 0-2, PID 1 hidden" {
	assert_group ctr "${PRIVILEGES[@]}"
}

@test "containerd: secrets: --env SECRET_TOKEN and friends never reach the workload" {
	assert_group ctr "${SECRETS[@]}"
}

@test "containerd: filesystem: no remount, mknod or block device; the snapshot is unchanged" {
	assert_group ctr "${FILESYSTEM[@]}"
}

@test "containerd: kernel: /proc writes, mounts, unshare, chroot and sethostname fail" {
	assert_group ctr "${KERNEL[@]}"
}

@test "containerd: network: --net-host or not, only lo; the host's 127.0.0.1 and abstract socket unreachable" {
	assert_group ctr "${NETWORK[@]}"
}

@test "containerd: syscalls: keyrings, bpf, io_uring, userfaultfd, perf, ptrace, NEWUSER, int 0x80, x32" {
	assert_group ctr "${SYSCALLS[@]}"
}

@test "podman --privileged under the default policy: refused with one line naming a host device and the devices key; nothing is left" {
	local rootfs="$BATS_TEST_TMPDIR/rootfs"
	cp -a "$PRISTINE" "$rootfs" || fail "copy the rootfs"
	jq --arg d "$rootfs" '.mounts = [{source: $d}]' \
		"$REPO_ROOT/config-examples/policy/default.json" >"$BATS_TEST_TMPDIR/policy.json"
	run --separate-stderr timeout -k 5 "$CLIENT_TIMEOUT" podman --runtime "$CORRAL" \
		--runtime-flag "policy=$BATS_TEST_TMPDIR/policy.json" run --rm \
		--name "$CT_NAME-priv" --network none --privileged --rootfs "$rootfs" \
		/bin/sh -c 'echo ran' </dev/null 3>&-
	assert_equal "$status" 126
	refute_output --partial ran
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "expected one line: $stderr"
	[[ "$stderr" =~ "corral: create "[0-9a-f]{64}": device /dev/".*": not a standard device nor one the policy's devices lists (policy: devices)"$ ]] ||
		fail "unexpected error: $stderr"
	run podman container exists "$CT_NAME-priv" 3>&-
	assert_failure
}
