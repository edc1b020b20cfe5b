#!/usr/bin/env bats
# The sandbox that harden() forces on any config.json, observed from inside a
# running container under the default policy.  Each test widens `corral
# spec`'s config.json with jq the way a careless or hostile engine would, and
# checks that what runs is narrowed anyway.

load helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	NETNS=""
	SUBMOUNT=""
}

# What the test made on the host goes first: corral_teardown fails the
# test (and stops) when a container is left.
teardown() {
	[ -z "$NETNS" ] || ip netns del "$NETNS" 2>/dev/null || true
	[ -z "$SUBMOUNT" ] || umount "$SUBMOUNT" 2>/dev/null || true
	corral_teardown
}

# run_in_container ARG...: run ARG... as the workload, in the foreground,
# with any global flags in CORRAL_FLAGS (e.g. --policy FILE), waiting at
# most CORRAL_WAIT seconds (60; helpers.bash bounded).
run_in_container() {
	set_args "$@"
	run --separate-stderr corral_bounded "${CORRAL_WAIT:-60}" \
		"${CORRAL_FLAGS[@]}" run --bundle "$BUNDLE" "$ID" </dev/null
}
CORRAL_FLAGS=()

# write_policy JSON: a policy file for this test; sets CORRAL_FLAGS.
write_policy() {
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	printf '%s\n' "$1" >"$POLICY"
	CORRAL_FLAGS=(--policy "$POLICY")
}

# try_create ARGS...: `corral ARGS...` (a create expected to fail) with
# stdio in files, not in a pipe that a wrongly created container would hold
# open; sets status, stderr and stderr_lines as `run --separate-stderr`.
try_create() {
	local err="$BATS_TEST_TMPDIR/create.err"
	status=0
	corral_bounded 60 "$@" </dev/null >"$BATS_TEST_TMPDIR/create.out" 2>"$err" ||
		status=$?
	output="$(cat "$BATS_TEST_TMPDIR/create.out")"
	stderr="$(cat "$err")"
	mapfile -t stderr_lines <"$err"
}

# now_ms: wall-clock milliseconds, from bash itself.
now_ms() {
	local t="${EPOCHREALTIME/./}"
	echo $((t / 1000))
}

@test "uid and gid 0 in config.json run as 65534, without groups" {
	update_config '.process.user = { uid: 0, gid: 0, additionalGids: [0, 10, 27] }'
	run_in_container sh -c 'id; grep -E "^(Uid|Gid|Groups):" /proc/self/status'
	assert_success
	assert_line --regexp '^uid=65534(\([a-z]+\))? gid=65534(\([a-z]+\))?$'
	assert_line --regexp '^Uid:[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534$'
	assert_line --regexp '^Gid:[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534$'
	assert_line --regexp '^Groups:[[:space:]]*$'
}

@test "capabilities asked for in config.json are all dropped" {
	update_config '.process.user.uid = 0 |
		.process.capabilities = ( ["CAP_SYS_ADMIN", "CAP_NET_ADMIN",
			"CAP_NET_RAW", "CAP_DAC_OVERRIDE", "CAP_SYS_PTRACE",
			"CAP_SETUID", "CAP_CHOWN"] as $c |
		{ bounding: $c, effective: $c, permitted: $c,
		  inheritable: $c, ambient: $c } )'
	run_in_container grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status
	assert_success
	[ "${#lines[@]}" -eq 5 ] || fail "expected 5 Cap lines: $output"
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		assert_line --regexp "^$set:[[:space:]]+0000000000000000$"
	done
}

@test "PID 1's command line names no host path (bundle, state root)" {
	run_in_container sh -c 'tr "\0" " " </proc/1/cmdline'
	assert_success
	assert_output --regexp '^corral-init *$'
	refute_output --partial "$BUNDLE"
	refute_output --partial "$ROOT"
}

@test "no_new_privs is on even when config.json says false" {
	update_config '.process.noNewPrivileges = false'
	run_in_container grep '^NoNewPrivs:' /proc/self/status
	assert_success
	assert_output --regexp '^NoNewPrivs:[[:space:]]+1$'
}

# unshare(CLONE_NEWUSER) and a read-only adjtimex need no capability, so
# only a seccomp filter can refuse them to an unprivileged process.
seccomp_probe='grep "^Seccomp:" /proc/self/status
	/bin/busybox unshare -U true && echo unshare-allowed
	/bin/busybox adjtimex >/dev/null && echo adjtimex-allowed
	true'

@test "seccomp: the baseline filter is loaded and refuses what no capability guards" {
	if command -v setpriv >/dev/null &&
		! setpriv --reuid 65534 --regid 65534 --clear-groups \
			"$BUSYBOX" unshare -U true 2>/dev/null; then
		skip "this host refuses unprivileged user namespaces anyway"
	fi
	run_in_container sh -c "$seccomp_probe"
	assert_success
	assert_line --regexp '^Seccomp:[[:space:]]+2$'
	refute_line unshare-allowed
	refute_line adjtimex-allowed
	[[ "$stderr" == *"unshare"*"Operation not permitted"* ]] ||
		fail "unshare did not fail with EPERM: $stderr"
}

@test "seccomp: an allow-everything filter in config.json does not lift the baseline" {
	update_config '.linux.seccomp = { defaultAction: "SCMP_ACT_ALLOW" }'
	run_in_container sh -c "$seccomp_probe"' ; grep "^Seccomp_filters:" /proc/self/status'
	assert_success
	assert_line --regexp '^Seccomp:[[:space:]]+2$'
	assert_line --regexp '^Seccomp_filters:[[:space:]]+2$'
	refute_line unshare-allowed
	refute_line adjtimex-allowed
}

# make_netns: a network namespace of this test's own, told apart from any
# other by a veth pair (both ends inside it, down: no traffic) and lo's MTU.
make_netns() {
	NETNS="corral-test-$BATS_TEST_NUMBER-$$"
	ip netns add "$NETNS" || fail "ip netns add $NETNS"
	ip -n "$NETNS" link add ct-v0 type veth peer name ct-v1 ||
		fail "add a veth pair in $NETNS"
	ip -n "$NETNS" link set lo mtu 12345 || fail "set lo's mtu in $NETNS"
}

net_probe='awk -F: "NR > 2 { gsub(/ /, \"\", \$1); print \$1 }" /proc/net/dev
	echo "mtu $(cat /sys/class/net/lo/mtu)"'

@test "network: a netns path in config.json is not joined; only lo inside" {
	make_netns
	update_config '(.linux.namespaces[] | select(.type == "network")).path = $p' \
		--arg p "/var/run/netns/$NETNS"
	run_in_container sh -c "$net_probe"
	assert_success
	assert_output "lo
mtu 65536"

	# the control: with the sandbox off the same config.json joins it
	write_policy '{ "mode": "permissive" }'
	run_in_container sh -c "$net_probe"
	assert_success
	assert_line ct-v0
	assert_line "mtu 12345"
}

@test "network: the host's network namespace is not joined" {
	update_config '(.linux.namespaces[] | select(.type == "network")).path = "/proc/1/ns/net"'
	run_in_container sh -c "$net_probe"
	assert_success
	assert_output "lo
mtu 65536"
}

@test "env: a secret in config.json is dropped, and explain names it without its value" {
	value="s3cr3t-value-$RANDOM$RANDOM"
	update_config '.process.env += ["SECRET=" + $v, "DB_PASSWORD=" + $v]' --arg v "$value"

	run_in_container env
	assert_success
	refute_output --partial SECRET
	refute_output --partial DB_PASSWORD
	refute_output --partial "$value"

	run --separate-stderr corral explain --bundle "$BUNDLE"
	assert_success
	assert_line --regexp '^ +env dropped +.*SECRET'
	assert_line --regexp '^ +env dropped +.*DB_PASSWORD'
	refute_output --partial "$value"

	run --separate-stderr corral explain --format json --bundle "$BUNDLE"
	assert_success
	jq -e '.reach.secrets.envDropped | index("SECRET") and index("DB_PASSWORD")' <<<"$output" ||
		fail "envDropped: $output"
	refute_output --partial "$value"

	# nor does the runtime log at create
	corral_bounded 60 --log "$BATS_TEST_TMPDIR/log" --log-format json create \
		--bundle "$BUNDLE" "$ID" </dev/null >/dev/null 2>&1 ||
		fail "create $ID failed"
	grep -q SECRET "$BATS_TEST_TMPDIR/log" || fail "the log does not name SECRET"
	! grep -qF "$value" "$BATS_TEST_TMPDIR/log" || fail "the log holds the secret's value"
}

@test "filesystem: writes past the scratch cap fail with ENOSPC, inside only" {
	write_policy '{ "rootfs": { "scratchSize": "4MiB" } }'
	update_config '.root.readonly = false'
	chmod 0777 "$ROOTFS"
	run_in_container sh -c '/bin/busybox dd if=/dev/zero of=/big bs=1M count=8 2>&1; echo "dd: $?"'
	assert_success
	assert_output --partial "No space left on device"
	refute_line "dd: 0"
	[ ! -e "$ROOTFS/big" ] || fail "the write reached the bundle"
}

@test "filesystem: the bundle rootfs is byte for byte unchanged after rm -rf / inside" {
	update_config '.root.readonly = false'
	# every directory writable by the workload: only the overlay protects
	find "$ROOTFS" -type d -exec chmod 0777 {} +
	snapshot() {
		(cd "$ROOTFS" && find . -printf '%p %y %m %s %U:%G %T@ %l\n' | sort &&
			find . -type f -exec md5sum {} + | sort)
	}
	before="$(snapshot)"
	run_in_container sh -c 'rm -rf / 2>/dev/null
		[ -e /bin/busybox ] || echo busybox-gone
		[ -e "/$1" ] || echo marker-gone' sh "$MARKER"
	assert_line busybox-gone
	assert_line marker-gone
	assert_equal "$(snapshot)" "$before"
}

bind_data() {
	DATA="$BATS_TEST_TMPDIR/hostdata"
	mkdir -p "$DATA"
	echo "host-data-$RANDOM" >"$DATA/file"
	chmod 0777 "$DATA"
	update_config '.mounts += [{ destination: "/data", type: "bind",
		source: $s, options: ["rbind", "rw"] }]' --arg s "$DATA"
}

@test "mounts: a host directory not on the allowlist fails create with one line naming the key; nothing is left" {
	bind_data
	try_create create --bundle "$BUNDLE" "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: create $ID: bind $DATA on /data: no entry of the policy's mounts allows $DATA (policy: mounts)"
	assert_no_leftovers "$ID"
	! grep -q " /data " /proc/self/mountinfo || fail "a mount of /data is left"
	# explain says the same, and runs nothing
	run --separate-stderr corral explain --bundle "$BUNDLE"
	assert_error_line
	assert_equal "$stderr" "corral: bind $DATA on /data: no entry of the policy's mounts allows $DATA (policy: mounts)"
}

@test "mounts: with refuse.mounts false a host directory not on the allowlist is dropped, and the drop recorded in explain, the log and the report" {
	bind_data
	set_args sleep 100
	write_policy '{ "refuse": { "mounts": false } }'
	# stdio in files: the running container must not hold a bats pipe
	corral "${CORRAL_FLAGS[@]}" --log "$BATS_TEST_TMPDIR/log" \
		run -d --bundle "$BUNDLE" "$ID" </dev/null \
		>"$BATS_TEST_TMPDIR/run.out" 2>"$BATS_TEST_TMPDIR/run.err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/run.err")"
	run --separate-stderr timeout 20 "$CORRAL" --root "$ROOT" exec "$ID" 3>&- \
		sh -c 'ls -A /data; cat /data/file; grep " /data " /proc/self/mountinfo; true'
	assert_success
	refute_output --partial host-data
	refute_output --partial /data
	grep -q "$ID: \.mounts\[/data\]: bind $DATA \[rbind,rw\] -> dropped (policy: refuse.mounts false: no entry of the policy's mounts allows $DATA (policy: mounts))" \
		"$BATS_TEST_TMPDIR/log" || fail "the runtime log: $(cat "$BATS_TEST_TMPDIR/log")"
	run --separate-stderr corral explain "$ID"
	assert_line --regexp '^ +mounts dropped +/data'
	assert_line --regexp "^dropped +runs without +\.mounts\[/data\]: bind $DATA"
	run --separate-stderr corral report "$ID"
	assert_success
	assert_line "changed by the sandbox"
	assert_line "  .mounts[/data]: bind $DATA [rbind,rw] -> dropped (policy: refuse.mounts false: no entry of the policy's mounts allows $DATA (policy: mounts))"
}

@test "mounts: a host directory on the allowlist is mounted read-only, nosuid, nodev" {
	bind_data
	write_policy "{ \"mounts\": [ { \"source\": \"$DATA\" } ] }"
	run_in_container sh -c 'cat /data/file; touch /data/new && echo wrote
		awk "\$5 == \"/data\" { print \$6 }" /proc/self/mountinfo'
	assert_success
	assert_line --index 0 "$(cat "$DATA/file")"
	refute_line wrote
	assert_line --regexp '^ro(,.*)?,nosuid(,.*)?,nodev'
	[[ "$stderr" == *"Read-only file system"* ]] || fail "touch: $stderr"
	[ ! -e "$DATA/new" ] || fail "the container wrote to the host"
}

# The allowlisted source is bound with rbind: what is mounted below it on
# the host comes along, and must be just as read-only.
@test "mounts: a mount below an allowlisted directory is read-only too" {
	bind_data
	mkdir "$DATA/sub"
	mount -t tmpfs -o size=1m,mode=1777 corral-test "$DATA/sub" || fail "mount tmpfs"
	SUBMOUNT="$DATA/sub"
	write_policy "{ \"mounts\": [ { \"source\": \"$DATA\" } ] }"
	run_in_container sh -c 'touch /data/sub/new && echo wrote
		awk "\$5 == \"/data/sub\" { print \$6 }" /proc/self/mountinfo'
	assert_success
	[ ! -e "$DATA/sub/new" ] || fail "the container wrote to a host mount below /data"
	refute_line wrote
	assert_line --regexp '^ro(,.*)?,nosuid(,.*)?,nodev'
}

@test "wall clock: a busy loop dies at the deadline with 137 and the reason" {
	CORRAL_WAIT=20
	update_config '.annotations["run.corral.timeout"] = "2"'
	start=$(now_ms)
	run_in_container sh -c 'while :; do :; done'
	elapsed=$(($(now_ms) - start))
	assert_failure 137
	assert_equal "$stderr" "corral: wall-clock limit of 2s reached; container killed"
	[ "$elapsed" -ge 1900 ] && [ "$elapsed" -le 4000 ] ||
		fail "killed after ${elapsed}ms, expected about 2000"
}

@test "wall clock: a process that ignores SIGTERM dies too" {
	CORRAL_WAIT=20
	update_config '.annotations["run.corral.timeout"] = "2"'
	start=$(now_ms)
	run_in_container sh -c 'trap "" TERM INT HUP; while :; do :; done'
	elapsed=$(($(now_ms) - start))
	assert_failure 137
	[[ "$stderr" == *"wall-clock limit of 2s reached"* ]] || fail "stderr: $stderr"
	[ "$elapsed" -le 5000 ] || fail "killed after ${elapsed}ms"
}

# pids_with_args ARGV0 ARG: the pids of the processes whose argv[0] is ARGV0
# and whose last argument is ARG, read from /proc without running anything
# that would itself carry ARG.
pids_with_args() {
	local p args
	for p in /proc/[0-9]*; do
		mapfile -d '' args 2>/dev/null <"$p/cmdline" || continue
		[ "${#args[@]}" -gt 1 ] && [ "${args[0]}" = "$1" ] &&
			[ "${args[-1]}" = "$2" ] && echo "${p#/proc/}"
	done
	return 0
}

@test "wall clock: a double-forked setsid child is killed as well" {
	tag="escapee-$BATS_TEST_NUMBER-$$-$RANDOM"
	# the child detaches (new session, its parent gone) and ignores TERM
	cat >"$ROOTFS/bin/escape" <<'EOF'
#!/bin/sh
sh -c '/bin/busybox setsid sh -c "trap \"\" TERM HUP; while :; do :; done" "$1-child" &' sh "$1"
trap "" TERM
while :; do :; done
EOF
	chmod 0755 "$ROOTFS/bin/escape"
	update_config '.annotations["run.corral.timeout"] = "2"'
	set_args /bin/escape "$tag"
	run_in_background "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err"

	child=""
	for _ in $(seq 15); do
		child="$(pids_with_args sh "$tag-child")"
		[ -z "$child" ] || break
		sleep 0.1
	done
	[ -n "$child" ] || fail "the detached child never showed up"
	read -r stat <"/proc/$child/stat"
	read -r -a f <<<"${stat##*) }"
	[ "${f[3]}" = "$child" ] || fail "child $child is not a session leader (sid ${f[3]})"

	wait_bg "$RUN_PID" 60
	assert_equal "$BG_STATUS" 137
	grep -q "wall-clock limit of 2s reached" "$BATS_TEST_TMPDIR/err" ||
		fail "stderr: $(cat "$BATS_TEST_TMPDIR/err")"
	wait_pid_gone "$child" 10
	assert_equal "$(pids_with_args sh "$tag-child")" ""
	assert_equal "$(bundle_pids)" ""
}

@test "annotations: one that widens the policy fails create and leaves nothing" {
	for a in run.corral.timeout=99999 run.corral.memory=64GiB run.corral.pids=100000; do
		cp "$BATS_FILE_TMPDIR/bundle/config.json" "$BUNDLE/config.json"
		update_config '.annotations[$k] = $v' --arg k "${a%%=*}" --arg v "${a#*=}"
		try_create create --bundle "$BUNDLE" "$ID"
		assert_error_line
		[[ "$stderr" == *"annotation $a"*"wider than the policy"* ]] ||
			fail "$a: unclear error: $stderr"
		assert_no_leftovers "$ID"
	done
}

@test "annotations: a narrowing one is applied, with its reason" {
	update_config '.annotations["run.corral.timeout"] = "60" |
		.annotations["run.corral.pids"] = "32"'
	run --separate-stderr corral explain --format json --bundle "$BUNDLE"
	assert_success
	assert_equal "$(jq -r '.reach.time.wallClock' <<<"$output")" 60
	assert_equal "$(jq -r '.reach.pids.limit' <<<"$output")" 32
}

# The default policy has limits and bestEffort false: a limit that is not
# enforced must stop the container from starting, never be skipped.
@test "limits: the pids limit holds inside (annotation run.corral.pids)" {
	update_config '.annotations["run.corral.pids"] = "16"'
	# 40 sleepers, counted as they start; a refused fork ends the shell
	run_in_container sh -c 'i=0
		while [ $i -lt 40 ]; do sleep 3 & i=$((i + 1)); echo "started $i"; done'
	assert_failure
	n="$(grep -c '^started' <<<"$output" || true)"
	[ "$n" -lt 16 ] || fail "started $n under a limit of 16"
	[[ "$stderr" == *"Resource temporarily unavailable"* ]] || fail "stderr: $stderr"
}

@test "limits: the memory limit holds inside (annotation run.corral.memory)" {
	update_config '.annotations["run.corral.memory"] = "16MiB"'
	# dd fills a 64 MiB buffer: four times the limit, and no swap
	run_in_container sh -c '/bin/busybox dd if=/dev/zero of=/dev/null bs=64M count=1
		echo "dd $?"'
	refute_line "dd 0"
}

@test "policy file: an unknown key or a wrong type fails create, naming the JSON path" {
	for case in '{ "limits": { "memroy": "1GiB" } }|.limits.memroy' \
		'{ "env": { "allow": "PATH" } }|.env.allow' \
		'{ "limits": { "wallClock": "ten" } }|.limits.wallClock' \
		'{ "rootfs": { "scratchSize": "64MB" } }|.rootfs.scratchSize' \
		'{ "capabilities": { "keep": ["CAP_NET_BIND_SERIVCE"] } }|.capabilities.keep[0]'; do
		write_policy "${case%|*}"
		try_create --policy "$POLICY" create --bundle "$BUNDLE" "$ID"
		assert_error_line
		[[ "$stderr" == *"$POLICY: ${case#*|}"* ]] ||
			fail "expected \"$POLICY: ${case#*|}\" in: $stderr"
		assert_no_leftovers "$ID"
	done
}

@test "strict mode: / is read-only even when config.json asks, /tmp is scratch" {
	write_policy '{ "rootfs": { "mode": "strict" } }'
	update_config '.root.readonly = false'
	chmod 0777 "$ROOTFS"
	run_in_container sh -c 'touch /written && echo root-writable
		echo scratch >/tmp/f && cat /tmp/f'
	assert_success
	refute_line root-writable
	assert_line scratch
	[[ "$stderr" == *"Read-only file system"* ]] || fail "touch /: $stderr"
	[ ! -e "$ROOTFS/written" ]
}

@test "roles: a pod sandbox container has no wall clock, and only a pause's limits" {
	write_policy '{ "limits": { "wallClock": 1 } }'
	update_config '.annotations["io.kubernetes.cri.container-type"] = "sandbox"'
	run --separate-stderr corral "${CORRAL_FLAGS[@]}" explain --bundle "$BUNDLE"
	assert_success
	assert_line --regexp '^ *time +wall clock +no limit \(role: pod sandbox\)'
	assert_line --regexp '^ *pids +limit +2 processes'
	assert_line --regexp '^ *memory +limit +16 MiB'
	# the pause outlives the policy's wall clock ...
	run_in_container sleep 2
	assert_success
	# ... but cannot do more than pause: the supervisor and one process
	run_in_container sh -c 'sleep 0; echo forked'
	refute_output forked
	# nor a pod annotation's (it reaches the pause too), which would
	# take the pod down
	update_config '.annotations["run.corral.timeout"] = "1"'
	run_in_container sleep 2
	assert_success
	update_config 'del(.annotations["run.corral.timeout"])'

	# the same container as an ordinary workload does die at 1s
	update_config '.annotations["io.kubernetes.cri.container-type"] = "container"'
	run_in_container sh -c 'sleep 2; echo outlived'
	assert_failure 137
}

# With corral's egress proxy the pod sandbox's cgroup holds the pod's
# proxy too, under the policy's limits; the pause itself is still held
# to a pause's share, under every policy: no fork, 10 s of CPU, 64 MiB
# of address space (issue 39: the role lifted the wall clock and the
# limits together).
@test "roles: under an egress policy a pod sandbox's own process is still a pause: no fork, 10 s of CPU" {
	write_policy '{ "limits": { "wallClock": 1 }, "network": { "allow": ["example.test"] } }'
	update_config '.annotations["io.kubernetes.cri.container-type"] = "sandbox"'
	run --separate-stderr corral "${CORRAL_FLAGS[@]}" explain --bundle "$BUNDLE"
	assert_success
	assert_line --partial "its process a pause's: no fork, 10 s of CPU, 64 MiB"
	run_in_container sh -c 'ulimit -t; ulimit -v; sleep 0; echo forked'
	assert_failure
	assert_output "10
65536"
	[[ "$stderr" == *"can't fork"* ]] || fail "stderr: $stderr"
	# a busy loop dies of its CPU time, not of a wall clock (it has none):
	# it outlives the policy's 1 s clock, and 10 s of CPU end it however
	# long a loaded machine takes to give them (the bound only keeps a
	# regression from hanging the suite)
	start="$(now_ms)"
	run_in_container sh -c 'while :; do :; done'
	assert_failure 137
	elapsed=$(($(now_ms) - start))
	[ "$elapsed" -ge 9000 ] && [ "$elapsed" -le 180000 ] ||
		fail "the loop ended after $elapsed ms"
}

@test "permissive: ambient capabilities need inheritable ones, as with runc (runc spec lists none)" {
	write_policy '{ "mode": "permissive" }'
	update_config '.process.user = {uid: 0, gid: 0} |
		.process.capabilities = {bounding: ["CAP_KILL"],
			effective: ["CAP_KILL"], permitted: ["CAP_KILL"],
			ambient: ["CAP_KILL"]}'
	run_in_container sh -c 'grep CapAmb /proc/self/status'
	assert_success
	assert_output --regexp 'CapAmb:[[:space:]]+0+$'

	update_config '.process.capabilities.inheritable = ["CAP_KILL"]'
	run_in_container sh -c 'grep CapAmb /proc/self/status'
	assert_success
	assert_output --regexp 'CapAmb:[[:space:]]+0+20$'
}
