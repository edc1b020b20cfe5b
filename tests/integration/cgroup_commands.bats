#!/usr/bin/env bats
# The commands that work through a container's cgroup: pause and resume
# (and the "paused" status), update, ps, events, and kill --all.
#
# The host reads what a workload writes in its /tmp through
# /proc/PID/root of the container's init: no bind mount (and no policy
# to allow one) is needed for that.  Every test's teardown deletes its
# containers (delete --force also takes a paused one) and fails if a
# cgroup directory of theirs is left.

load helpers

CGROOT=/sys/fs/cgroup

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	corral_setup_file
}

setup() {
	corral_setup
	if [ -d "$CGROOT/memory" ]; then
		LAYOUT=v1
	else
		LAYOUT=v2
	fi
}

teardown() {
	corral_teardown
	local left
	left="$(ls -d "$CGROOT/corral/$ID" "$CGROOT"/*/corral/"$ID" 2>/dev/null)"
	[ -z "$left" ] || fail "cgroup directories left: $left"
}

# cg_file CONTROLLER FILE: the container's cgroup file, v1 or v2.
cg_file() {
	if [ "$LAYOUT" = v1 ]; then
		echo "$CGROOT/$1/corral/$ID/$2"
	else
		echo "$CGROOT/corral/$ID/$2"
	fi
}

# A policy with small limits, for update to be bounded by.
write_policy() {
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	cat >"$POLICY" <<-'EOF'
		{"limits": {"memory": "64MiB", "pids": 32, "cpus": 0.5}}
	EOF
}

# start_counter: a running container whose workload counts in /tmp/count
# every 50 ms, each count renamed into place (a reader never finds the
# file truncated and not yet written); its init's pid in $PID.
start_counter() {
	set_args sh -c 'i=0; while :; do i=$((i+1)); echo $i >/tmp/count.new
		mv /tmp/count.new /tmp/count; sleep 0.05; done'
	run_detached "$ID" || fail "run failed: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	PID="$(container_pid "$ID")"
	track_pid "$PID"
	wait_for_file "/proc/$PID/root/tmp/count" '^[0-9]+$'
}

count() {
	cat "/proc/$PID/root/tmp/count"
}

@test "pause stops a counter, state says paused, resume lets it continue" {
	start_counter
	run corral pause "$ID"
	assert_success
	[ "$(state_field "$ID" status)" = paused ]
	if [ "$LAYOUT" = v1 ]; then
		[ "$(cat "$(cg_file freezer freezer.state)")" = FROZEN ]
	else
		[ "$(cat "$(cg_file "" cgroup.freeze)")" = 1 ]
	fi
	run corral list --format json
	[ "$(jq -r '.[0].status' <<<"$output")" = paused ]

	local a b c
	a="$(count)"
	sleep 0.5
	b="$(count)"
	[ "$a" = "$b" ] || fail "the counter moved while paused: $a -> $b"

	run corral resume "$ID"
	assert_success
	[ "$(state_field "$ID" status)" = running ]
	sleep 0.5
	c="$(count)"
	[ "$c" -gt "$b" ] || fail "the counter did not move after resume: $b -> $c"
}

@test "pause of a non-running container and resume of a non-paused one are one-line errors" {
	set_args sleep 100
	create_container "$ID"
	track_pid "$(container_pid "$ID")"
	run --separate-stderr corral pause "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: pause $ID: the container is created, not running"

	corral_bounded 60 start "$ID"
	run --separate-stderr corral resume "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: resume $ID: the container is running, not paused"
	corral pause "$ID"
	run --separate-stderr corral pause "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: pause $ID: the container is paused, not running"

	run --separate-stderr corral pause "$ID-none"
	assert_error_line
	[[ "$stderr" == *"does not exist"* ]]
}

@test "a paused container is killed by kill KILL and by delete --force" {
	start_counter
	corral pause "$ID"
	run --separate-stderr corral delete "$ID"
	assert_error_line
	[[ "$stderr" == *"it is paused (use --force)"* ]]
	run corral kill "$ID" KILL
	assert_success
	wait_for_status "$ID" stopped
	wait_pid_gone "$PID"
	corral delete "$ID"

	start_counter
	corral pause "$ID"
	run corral delete --force "$ID"
	assert_success
	wait_pid_gone "$PID"
	assert_no_leftovers "$ID"
}

@test "update lowers the memory limit of a running container" {
	write_policy
	set_args sleep 100
	corral_bounded 60 --policy "$POLICY" run -d --bundle "$BUNDLE" "$ID" </dev/null \
		>>"$BATS_TEST_TMPDIR/$ID.out" 2>>"$BATS_TEST_TMPDIR/$ID.err"
	track_pid "$(container_pid "$ID")"
	if [ "$LAYOUT" = v1 ]; then
		MEM="$(cg_file memory memory.limit_in_bytes)"
	else
		MEM="$(cg_file memory memory.max)"
	fi
	[ "$(cat "$MEM")" = $((64 << 20)) ]

	run corral update --memory 32MiB "$ID"
	assert_success
	[ "$(cat "$MEM")" = $((32 << 20)) ]
	# still no swap
	if [ "$LAYOUT" = v1 ]; then
		[ "$(cat "$(cg_file memory memory.memsw.limit_in_bytes)")" = $((32 << 20)) ]
	else
		[ "$(cat "$(cg_file memory memory.swap.max)")" = 0 ]
	fi
	# later commands see it
	[ "$(jq .linux.resources.memory.limit "$ROOT/$ID/config.json")" = $((32 << 20)) ]

	# up again, to the policy's limit: allowed
	run corral update --memory 64m "$ID"
	assert_success
	[ "$(cat "$MEM")" = $((64 << 20)) ]

	# a LinuxResources document, from a file and from stdin
	echo '{"memory": {"limit": 16777216}, "pids": {"limit": 16}}' \
		>"$BATS_TEST_TMPDIR/res.json"
	run corral update --resources "$BATS_TEST_TMPDIR/res.json" "$ID"
	assert_success
	[ "$(cat "$MEM")" = $((16 << 20)) ]
	[ "$(cat "$(cg_file pids pids.max)")" = 16 ]
	run corral update --resources - --pids-limit 20 "$ID" \
		<<<'{"pids": {"limit": 8}}'
	assert_success
	[ "$(cat "$(cg_file pids pids.max)")" = 20 ]
	[ "$(jq .linux.resources.pids.limit "$ROOT/$ID/config.json")" = 20 ]
}

@test "update refuses to widen beyond the policy, with one line each" {
	write_policy
	set_args sleep 100
	corral_bounded 60 --policy "$POLICY" run -d --bundle "$BUNDLE" "$ID" </dev/null \
		>>"$BATS_TEST_TMPDIR/$ID.out" 2>>"$BATS_TEST_TMPDIR/$ID.err"
	track_pid "$(container_pid "$ID")"

	run --separate-stderr corral update --memory 2GiB "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: update $ID: memory 2GiB is wider than the policy's 64MiB"
	run --separate-stderr corral update --memory -1 "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: update $ID: memory unlimited is wider than the policy's 64MiB"
	run --separate-stderr corral update --pids-limit 100 "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: update $ID: pids 100 is wider than the policy's 32"
	run --separate-stderr corral update --cpu-quota 100000 "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: update $ID: cpu quota 100000/100000 is wider than the policy's 50000/100000"
	# a shorter period is a larger share too
	run --separate-stderr corral update --cpu-period 50000 "$ID"
	assert_error_line
	[[ "$stderr" == *"cpu quota 50000/50000 is wider"* ]]
	run --separate-stderr corral update --memory lots "$ID"
	assert_error_line
	[[ "$stderr" == *'--memory: invalid size "lots"'* ]]

	# nothing of it reached the cgroup or the stored config
	if [ "$LAYOUT" = v1 ]; then
		[ "$(cat "$(cg_file memory memory.limit_in_bytes)")" = $((64 << 20)) ]
		[ "$(cat "$(cg_file cpu cpu.cfs_quota_us)")" = 50000 ]
	else
		[ "$(cat "$(cg_file memory memory.max)")" = $((64 << 20)) ]
	fi
	[ "$(jq .linux.resources.memory.limit "$ROOT/$ID/config.json")" = $((64 << 20)) ]

	# narrowing the cpu share is fine
	run corral update --cpu-quota 20000 "$ID"
	assert_success
	if [ "$LAYOUT" = v1 ]; then
		[ "$(cat "$(cg_file cpu cpu.cfs_quota_us)")" = 20000 ]
	else
		[ "$(cat "$(cg_file cpu cpu.max)")" = "20000 100000" ]
	fi
}

@test "update under a permissive policy widens" {
	local policy="$BATS_TEST_TMPDIR/permissive.json"
	echo '{"mode": "permissive"}' >"$policy"
	set_args sleep 100
	corral_bounded 60 --policy "$policy" run -d --bundle "$BUNDLE" "$ID" </dev/null \
		>>"$BATS_TEST_TMPDIR/$ID.out" 2>>"$BATS_TEST_TMPDIR/$ID.err"
	track_pid "$(container_pid "$ID")"
	run corral update --memory 2GiB --pids-limit 5000 "$ID"
	assert_success
	[ "$(cat "$(cg_file pids pids.max)")" = 5000 ]
}

@test "ps lists the container's pids, as JSON and as a ps table" {
	# a fixed set of processes: the init, sleep 1000 and sleep 1001
	set_args sh -c 'sleep 1000 & exec sleep 1001'
	run_detached "$ID"
	PID="$(container_pid "$ID")"
	track_pid "$PID"
	sleep 0.3

	run --separate-stderr corral ps --format json "$ID"
	assert_success
	jq -e 'type == "array" and length == 3 and all(.[]; type == "number")' \
		<<<"$output"
	jq -e --argjson pid "$PID" 'index($pid) != null' <<<"$output"
	# exactly the cgroup's processes
	local want
	want="$(sort -n "$(cg_file pids cgroup.procs)" | tr '\n' ' ')"
	[ "$(jq -r 'sort | map(tostring) | join(" ")' <<<"$output") " = "$want" ]

	run --separate-stderr corral ps "$ID"
	assert_success
	assert_line --index 0 --regexp '^UID +PID +PPID'
	assert_line --regexp "^[^ ]+ +$PID +"
	assert_line --partial "sleep 1000"
	assert_line --partial "sleep 1001"
	# the header and the container's three processes, nothing else
	[ "${#lines[@]}" -eq 4 ]
	refute_line --regexp "^[^ ]+ +$$ "

	run --separate-stderr corral ps "$ID" -eo pid,args
	assert_success
	assert_line --index 0 --regexp '^ *PID +COMMAND'
	assert_line --partial "sleep 1000"

	run --separate-stderr corral ps --format yaml "$ID"
	assert_error_line
}

@test "events --stats prints one stats object in runc's shape" {
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	run --separate-stderr corral events --stats "$ID"
	assert_success
	[ "${#lines[@]}" -eq 1 ]
	jq -e --arg id "$ID" '.type == "stats" and .id == $id' <<<"$output"
	jq -e '.data.cpu.usage | (.total > 0) and (.percpu | type == "array")
		and (.kernel | type == "number") and (.user | type == "number")' \
		<<<"$output"
	jq -e '.data.cpu.throttling | has("periods") and has("throttled_periods")
		and has("throttled_time")' <<<"$output"
	jq -e '.data.memory.usage | (.usage > 0) and (.limit == 536870912)
		and has("max") and has("failcnt")' <<<"$output"
	jq -e '.data.memory.swap | has("usage") and has("limit")' <<<"$output"
	jq -e '.data.memory.raw | type == "object" and length > 0' <<<"$output"
	jq -e '.data.pids | (.current >= 2) and (.limit == 256)' <<<"$output"
}

@test "events streams stats every interval until the container stops" {
	set_args sh -c 'trap "exit 0" TERM; while :; do sleep 0.1; done'
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	local out="$BATS_TEST_TMPDIR/events"
	corral events --interval 1 "$ID" >"$out" 2>&1 &
	local ev=$!
	track_pid "$ev"
	wait_for_file "$out" '"type":"stats"' 30
	sleep 1.2
	corral kill "$ID" TERM
	wait_bg "$ev" 50
	[ "$BG_STATUS" -eq 0 ] || fail "events exited $BG_STATUS: $(cat "$out")"
	[ "$(grep -c '"type":"stats"' "$out")" -ge 2 ]
	jq -e -s 'all(.[]; .type == "stats" and .data.pids.current >= 1)' "$out"
}

@test "events reports an OOM kill over a small memory limit" {
	update_config '.linux.resources.memory = {"limit": 16777216}'
	set_args sh -c 'sleep 0.5; x=$(head -c 67108864 /dev/zero | tr "\0" a); echo survived'
	create_container "$ID"
	track_pid "$(container_pid "$ID")"
	local out="$BATS_TEST_TMPDIR/events"
	corral events --interval 60 "$ID" >"$out" 2>&1 &
	local ev=$!
	track_pid "$ev"
	wait_for_file "$out" '"type":"stats"' 30
	corral_bounded 60 start "$ID"
	wait_bg "$ev" 150
	[ "$BG_STATUS" -eq 0 ] || fail "events exited $BG_STATUS: $(cat "$out")"
	if grep -q survived "$BATS_TEST_TMPDIR/$ID.out"; then
		skip "the workload was not OOM-killed"
	fi
	run jq -c 'select(.type == "oom")' "$out"
	assert_output "{\"type\":\"oom\",\"id\":\"$ID\"}"
	wait_for_status "$ID" stopped
}

@test "kill --all signals every process of the cgroup, a setsid daemon too" {
	ln -s busybox "$ROOTFS/bin/setsid"
	# the workload outlives TERM; its double-forked daemon does not
	set_args sh -c 'trap "echo term >>/tmp/log" TERM
		setsid sh -c "sleep 1000 & echo \$! >/tmp/daemon"
		while :; do sleep 0.1; done'
	run_detached "$ID"
	PID="$(container_pid "$ID")"
	track_pid "$PID"
	wait_for_file "/proc/$PID/root/tmp/daemon" '^[0-9]+$'

	local pids p daemon=""
	pids="$(corral ps --format json "$ID" | jq -r '.[]')"
	for p in $pids; do
		if [ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 1000 " ]; then
			daemon="$p"
		fi
	done
	[ -n "$daemon" ] || fail "no daemon among $pids"
	# another session than the workload's, reparented to the init
	local stat init_stat
	read -r -a stat <<<"$(sed 's/.*) //' "/proc/$daemon/stat")"
	read -r -a init_stat <<<"$(sed 's/.*) //' "/proc/$PID/stat")"
	[ "${stat[1]}" = "$PID" ] || fail "the daemon's parent is ${stat[1]}"
	[ "${stat[3]}" != "${init_stat[3]}" ] || fail "setsid did not happen"

	run corral kill --all "$ID" TERM
	assert_success
	wait_pid_gone "$daemon"
	[ "$(state_field "$ID" status)" = running ]

	run corral kill --all "$ID" KILL
	assert_success
	wait_for_status "$ID" stopped
	for p in $pids; do
		wait_pid_gone "$p"
	done
	[ -z "$(cat "$(cg_file pids cgroup.procs)" 2>/dev/null)" ]
}

# On a hybrid or v1 host, the cgroup2 hierarchy can be mounted over
# /sys/fs/cgroup in a private mount namespace: corral then takes the v2
# layout for real (with no controller to enforce a limit, hence
# best-effort limits).  The script runs in that namespace, so the host's
# view of /sys/fs/cgroup is never touched.  A pure v2 host (the guests of
# tests/vm) has it there already: mounting it again would fail (EBUSY).
@test "cgroup v2 layout on the real cgroup2: born in its cgroup (clone3), gone at delete" {
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	echo '{"limits": {"bestEffort": true}}' >"$POLICY"
	set_args sleep 30
	cat >"$BATS_TEST_TMPDIR/v2.sh" <<-'EOF'
		set -e
		[ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] ||
			mount -t cgroup2 none /sys/fs/cgroup
		c() { "$CORRAL" --root "$ROOT" --policy "$POLICY" "$@" 3>&-; }
		trap 'c delete --force "$ID" 2>/dev/null' EXIT
		strace -e trace=clone3 -o "$TRACE" \
			"$CORRAL" --root "$ROOT" --policy "$POLICY" \
			create --bundle "$BUNDLE" "$ID" 2>/dev/null 3>&-
		pid="$(c state "$ID" | jq -r .pid)"
		echo "procs: $(cat "/sys/fs/cgroup/corral/$ID/cgroup.procs")"
		echo "pid: $pid"
		c start "$ID"
		c delete --force "$ID"
		test ! -e "/sys/fs/cgroup/corral/$ID" && echo gone
	EOF
	TRACE="$BATS_TEST_TMPDIR/clone3.trace"
	CORRAL="$CORRAL" ROOT="$ROOT" POLICY="$POLICY" BUNDLE="$BUNDLE" \
		ID="$ID" TRACE="$TRACE" run unshare -m --propagation private \
		bash "$BATS_TEST_TMPDIR/v2.sh"
	assert_success
	pid="$(sed -n 's/^pid: //p' <<<"$output")"
	[ -n "$pid" ]
	assert_line "procs: $pid"
	assert_line gone
	run grep -c "CLONE_INTO_CGROUP.* = $pid\$" "$TRACE"
	assert_output 1
}

# With v1 hierarchies only (this host's, less its cgroup2 "unified",
# unmounted in a private mount namespace), clone3 has no cgroup to start
# the child in: the parent makes the cgroup while the child makes its
# namespaces, and the child moves itself in before it mounts anything of
# config.json's.  The limits hold, every hierarchy lists the init, and
# delete leaves nothing.
@test "v1 hierarchies only: the cgroup made after the clone holds the init and its limits" {
	[ -d "$CGROOT/memory" ] || skip "needs cgroup v1 controllers"
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	echo '{"limits": {"memory": "48MiB", "pids": 24}}' >"$POLICY"
	set_args sleep 30
	cat >"$BATS_TEST_TMPDIR/v1.sh" <<-'EOF'
		set -e
		! mountpoint -q /sys/fs/cgroup/unified || umount /sys/fs/cgroup/unified
		c() { "$CORRAL" --root "$ROOT" --policy "$POLICY" "$@" 3>&-; }
		trap 'c delete --force "$ID" 2>/dev/null' EXIT
		c create --bundle "$BUNDLE" "$ID" 2>/dev/null
		pid="$(c state "$ID" | jq -r .pid)"
		echo "pid: $pid"
		for h in /sys/fs/cgroup/*/; do
			h="${h%/}"
			mountpoint -q "$h" || continue
			echo "${h##*/}: $(cat "$h/corral/$ID/cgroup.procs")"
		done
		echo "memory.limit: $(cat "/sys/fs/cgroup/memory/corral/$ID/memory.limit_in_bytes")"
		echo "pids.max: $(cat "/sys/fs/cgroup/pids/corral/$ID/pids.max")"
		[ "$(readlink "/proc/$pid/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
			echo "own netns"
		c start "$ID"
		c delete --force "$ID"
		ls -d /sys/fs/cgroup/*/corral/"$ID" 2>/dev/null || echo gone
	EOF
	CORRAL="$CORRAL" ROOT="$ROOT" POLICY="$POLICY" BUNDLE="$BUNDLE" \
		ID="$ID" run unshare -m --propagation private \
		bash "$BATS_TEST_TMPDIR/v1.sh"
	assert_success
	pid="$(sed -n 's/^pid: //p' <<<"$output")"
	[ -n "$pid" ]
	refute_line --partial unified
	local h
	for h in memory pids cpu freezer devices; do
		assert_line "$h: $pid"
	done
	assert_line "memory.limit: $((48 << 20))"
	assert_line "pids.max: 24"
	assert_line "own netns"
	assert_line gone
}
