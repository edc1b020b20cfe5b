#!/usr/bin/env bats
# containerd 1.6 (Debian's) drives corral through its runc v2 shim, with
# ctr: `ctr run --runtime io.containerd.runc.v2 --runc-binary corral`.
# The file starts its own containerd (containerd.bash) with everything in
# its tmpdir; the image is a busybox rootfs that podman packs as an OCI
# archive.  The shim calls corral with --root /run/containerd/runc/NS
# (CTRD_RUNC_ROOT) and --log-format json, and reads the last error line
# of that log into the message ctr prints.

# shellcheck disable=SC2016,SC2154
# (the workloads' scripts are single-quoted for the container's shell;
# stderr is set by bats' run --separate-stderr.)

load '../integration/helpers'
load 'containerd'

setup_file() {
	# the shim's default, which the tests check
	export CTRD_RUNC_BASE=/run/containerd/runc
	containerd_start "$BATS_FILE_TMPDIR/containerd"
	export IMAGE="localhost/corral-test-busybox-$$:latest"
	containerd_import_busybox "$IMAGE" /bin/sh
}

teardown_file() {
	containerd_stop
}

setup() {
	ID="ct-$BATS_TEST_NUMBER-$$"
	OUT="$BATS_TEST_TMPDIR/ctr.out"
	TRACKED_PIDS=()
}

teardown() {
	local entry pid left
	containerd_remove_container "$ID"
	# the second daemon of the engine-killed test
	containerd_stop "$BATS_TEST_TMPDIR/ctrd2" >/dev/null || true
	# a backgrounded ctr run ends with its task; kill it if it did not
	for entry in "${TRACKED_PIDS[@]}"; do
		pid="${entry%%:*}"
		if ! pid_gone "$pid" &&
			[ "$(proc_start_time "$pid")" = "${entry#*:}" ]; then
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null || true
	done
	left="$(container_leftovers "$ID")"
	if [ -n "$left" ]; then
		"$CORRAL" --root "$CTRD_RUNC_ROOT" delete --force "$ID" \
			>/dev/null 2>&1 3>&-
		fail "teardown: left after ctr task/container delete: $left"
	fi
}

# refute_container ID: ctr knows no container ID (any more).
refute_container() {
	local ids
	ids="$(ctrd containers ls -q)" || fail "ctr containers ls failed"
	if grep -qxF -- "$1" <<<"$ids"; then
		fail "container $1 is still there"
	fi
}

# ctr_run_bg [RUN OPTIONS] CMD...: `ctr run --rm` of $IMAGE as $ID in the
# background, output to $OUT; its pid in CTR_PID.
ctr_run_bg() {
	ctrd_run --rm "$@" </dev/null >"$OUT" 2>&1 &
	CTR_PID=$!
	track_pid "$CTR_PID"
}

# start_detached [RUN OPTIONS] CMD...: ctr run -d of $IMAGE as $ID, no IO;
# waits until the task runs and the workload wrote /tmp/ready.
start_detached() {
	local opts=()
	while [ "$1" != "--" ]; do
		opts+=("$1")
		shift
	done
	shift
	ctrd_run -d --null-io "${opts[@]}" "$IMAGE" "$ID" "$@" </dev/null ||
		fail "ctr run -d $ID failed"
	wait_task_status "$ID" RUNNING
	TASK_PID="$(task_field "$ID" pid)"
	wait_for_file "/proc/$TASK_PID/root/tmp/ready"
}

@test "ctr run --rm: stdout, stderr and the exit status reach ctr" {
	run --separate-stderr ctrd_run --rm "$IMAGE" "$ID" /bin/sh -c \
		'echo out; echo err >&2; test -t 0 || echo no-tty; exit 3' </dev/null
	assert_equal "$status" 3
	assert_equal "$output" "out"$'\n'"no-tty"
	assert_equal "$stderr" "err"
	refute_container "$ID"
}

@test "ctr run --rm: the image's CMD runs, reading ctr's stdin" {
	run --separate-stderr ctrd_run --rm "$IMAGE" "$ID" \
		<<<'echo from-stdin; exit 9'
	assert_equal "$status" 9
	assert_output "from-stdin"
}

@test "ctr run -t: the workload has a terminal (the console socket)" {
	run ctrd_tty run --rm -t "$IMAGE" "$ID" /bin/sh -c \
		'test -t 0 && test -t 1 && echo tty-ok; tty; exit 5' </dev/null
	assert_equal "$status" 5
	assert_output --partial tty-ok
	assert_output --regexp '/dev/pts/[0-9]+'
}

@test "ctr run --privileged under the default policy: corral's line names a host device and the devices key; nothing is left" {
	run --separate-stderr ctrd_run --rm --privileged "$IMAGE" "$ID" \
		/bin/sh -c 'echo ran' </dev/null
	assert_failure
	refute_output --partial ran
	[[ "$stderr" =~ "OCI runtime create failed: create $ID: device /dev/".*": not a standard device nor one the policy's devices lists (policy: devices)" ]] ||
		fail "corral's reason is not in ctr's message: $stderr"
	[ -z "$(task_field "$ID" status)" ] || fail "a task $ID is left"
	run container_leftovers "$ID"
	assert_output ""
}

# --privileged lists every host device; with refuse.devices false (a
# wrapper passes the policy, as the CRI tests' BinaryName does) they are
# dropped and the container starts, inside the sandbox.
@test "ctr run --privileged --net-host --allow-new-privs: the sandbox holds anyway" {
	local wrapper="$BATS_TEST_TMPDIR/corral-runtime"
	jq '.refuse.devices = false' "$REPO_ROOT/config-examples/policy/default.json" \
		>"$BATS_TEST_TMPDIR/policy.json"
	printf '#!/bin/sh\nexec %q --policy %q "$@"\n' "$CORRAL" \
		"$BATS_TEST_TMPDIR/policy.json" >"$wrapper"
	chmod 0755 "$wrapper"
	run --separate-stderr ctrd run --runtime io.containerd.runc.v2 \
		--runc-binary "$wrapper" --fifo-dir "$CTRD_DIR/fifo" \
		--rm --privileged --net-host \
		--allow-new-privs "$IMAGE" "$ID" /bin/sh -c '
		echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)"
		echo net: $(ls /sys/class/net)
		grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):" \
			/proc/self/status' </dev/null
	assert_success
	assert_line "uid=65534 gid=65534 groups=65534"
	assert_line "net: lo"
	assert_line --regexp $'^CapInh:\t0+$'
	assert_line --regexp $'^CapPrm:\t0+$'
	assert_line --regexp $'^CapEff:\t0+$'
	assert_line --regexp $'^CapBnd:\t0+$'
	assert_line --regexp $'^CapAmb:\t0+$'
	assert_line $'NoNewPrivs:\t1'
	assert_line $'Seccomp:\t2'
}

@test "ctr run --env: only the allowlisted variables reach the workload" {
	run --separate-stderr ctrd_run --rm --env SECRET=hunter2 \
		--env LANG=C.UTF-8 --env TERM=dumb "$IMAGE" "$ID" /bin/env </dev/null
	assert_success
	assert_line "LANG=C.UTF-8"
	assert_line "TERM=dumb"
	assert_line --regexp '^PATH=/'
	refute_output --partial hunter2
	local line
	for line in "${lines[@]}"; do
		[[ "${line%%=*}" =~ ^(PATH|HOME|TERM|LANG)$ ]] ||
			fail "not on the allowlist: $line"
	done
}

@test "writes land in corral's scratch, not in containerd's writable snapshot" {
	local mark="written-$$-$RANDOM" bundle opts upper
	start_detached -- /bin/sh -c 'echo ok >/tmp/ready; exec sleep 600'
	run --separate-stderr ctrd_exec --exec-id "w-$$" "$ID" /bin/sh -c \
		"echo data >/tmp/$mark && cat /tmp/$mark" </dev/null
	assert_success
	assert_output data
	# the rootfs containerd mounted in the task's bundle: an overlay whose
	# upper directory is the container's writable snapshot
	bundle="$CTRD_DIR/state/io.containerd.runtime.v2.task/$CTRD_NS/$ID"
	opts="$(findmnt -rn -o OPTIONS -M "$bundle/rootfs")" ||
		fail "no rootfs mount at $bundle/rootfs"
	upper="$(tr ',' '\n' <<<"$opts" | sed -n 's/^upperdir=//p')"
	[ -d "$upper" ] || fail "no upperdir in: $opts"
	[ ! -e "$bundle/rootfs/tmp/$mark" ] || fail "the write reached the bundle"
	run find "$upper" -mindepth 1
	assert_output ""
	[ ! -e "$bundle/rootfs/tmp/ready" ] ||
		fail "the workload's write reached the bundle"
	# and inside, the workload sees the exec's file: one scratch
	run ctrd_exec --exec-id "r-$$" "$ID" /bin/cat "/tmp/$mark" </dev/null
	assert_success
	assert_output data
}

@test "ctr task exec: output, exit status, no tty, the workload's sandbox" {
	start_detached -- /bin/sh -c 'echo from-workload >/tmp/ready; exec sleep 600'
	run --separate-stderr ctrd_exec --exec-id "e-$$" "$ID" /bin/sh -c '
		cat /tmp/ready; id -u; test -t 0 || echo no-tty
		grep -E "^(CapEff|NoNewPrivs):" /proc/self/status
		echo err >&2; exit 7' </dev/null
	assert_equal "$status" 7
	assert_line from-workload
	assert_line 65534
	assert_line no-tty
	assert_line --regexp $'^CapEff:\t0+$'
	assert_line $'NoNewPrivs:\t1'
	assert_equal "$stderr" err
	# --user 0 asks for root: it becomes 65534 as in the workload
	run --separate-stderr ctrd_exec --user 0 --exec-id "u-$$" "$ID" \
		/bin/id -u </dev/null
	assert_success
	assert_output 65534
	# the task is still running, the exec processes are gone
	assert_equal "$(task_field "$ID" status)" RUNNING
	run ctrd task ps "$ID"
	assert_equal "${#lines[@]}" 3 # header, supervisor, sleep
}

@test "ctr task exec -t: a terminal and the exit status" {
	start_detached -- /bin/sh -c 'echo ok >/tmp/ready; exec sleep 600'
	# ctr may log "resize pty" when the process is already gone: noise
	run ctrd_tty exec -t --exec-id "t-$$" "$ID" /bin/sh -c \
		'test -t 0 && test -t 1 && echo tty-ok; tty; exit 6' </dev/null
	assert_equal "$status" 6
	assert_output --partial tty-ok
	assert_output --regexp '/dev/pts/[0-9]+'
}

@test "ctr task kill: SIGTERM reaches the workload, which exits its own way" {
	ctr_run_bg "$IMAGE" "$ID" /bin/sh -c \
		'trap "echo got-term; exit 42" TERM; echo ready
		while :; do sleep 0.1; done'
	wait_for_file "$OUT" '^ready'
	wait_task_status "$ID" RUNNING
	run ctrd task kill "$ID"
	assert_success
	wait_bg "$CTR_PID"
	assert_equal "$BG_STATUS" 42
	run cat "$OUT"
	assert_line got-term
	refute_container "$ID"
}

@test "ctr task kill -s SIGKILL: a workload that ignores SIGTERM dies, 137" {
	ctr_run_bg "$IMAGE" "$ID" /bin/sh -c \
		'trap "" TERM; echo ready; while :; do sleep 0.1; done'
	wait_for_file "$OUT" '^ready'
	wait_task_status "$ID" RUNNING
	run ctrd task kill "$ID"
	assert_success
	sleep 1
	assert_equal "$(task_field "$ID" status)" RUNNING
	run ctrd task kill -s SIGKILL "$ID"
	assert_success
	wait_bg "$CTR_PID"
	assert_equal "$BG_STATUS" 137
}

@test "ctr task ps: exactly the processes in the container's cgroup" {
	local pids cgpids pid sleeps=0
	start_detached -- /bin/sh -c \
		'sleep 600 & sleep 601 & echo ok >/tmp/ready; wait'
	run ctrd task ps "$ID"
	assert_success
	assert_line --index 0 --regexp '^PID +INFO'
	pids="$(printf '%s\n' "${lines[@]:1}" | awk '{ print $1 }' | sort -n)"
	cgpids="$(sort -n "/sys/fs/cgroup/pids/$CTRD_NS/$ID/cgroup.procs")"
	assert_equal "$pids" "$cgpids"
	# corral's supervisor (the task's pid), sh and the two sleeps
	assert_equal "$(wc -l <<<"$pids")" 4
	grep -qx "$TASK_PID" <<<"$pids" || fail "init $TASK_PID not listed"
	for pid in $pids; do
		[ "$(cat "/proc/$pid/comm")" != sleep ] || sleeps=$((sleeps + 1))
	done
	assert_equal "$sleeps" 2
}

@test "ctr task pause/resume: PAUSED stops the workload, RUNNING again resumes it" {
	local before after
	ctr_run_bg "$IMAGE" "$ID" /bin/sh -c \
		'i=0; while :; do i=$((i + 1)); echo $i; sleep 0.05; done'
	wait_for_file "$OUT" '^5$'
	run ctrd task pause "$ID"
	assert_success
	assert_equal "$(task_field "$ID" status)" PAUSED
	assert_equal "$(cat "/sys/fs/cgroup/freezer/$CTRD_NS/$ID/freezer.state")" FROZEN
	run "$CORRAL" --root "$CTRD_RUNC_ROOT" state "$ID"
	assert_success
	assert_equal "$(jq -r .status <<<"$output")" paused
	sleep 0.3
	before="$(wc -l <"$OUT")"
	sleep 1
	after="$(wc -l <"$OUT")"
	assert_equal "$after" "$before"
	run ctrd task resume "$ID"
	assert_success
	assert_equal "$(task_field "$ID" status)" RUNNING
	wait_for_file "$OUT" "^$((after + 5))\$"
	run ctrd task kill -s SIGKILL "$ID"
	assert_success
	wait_bg "$CTR_PID"
	assert_equal "$BG_STATUS" 137
}

@test "ctr task metrics: memory and pids from the v1 cgroups, with ctr's limit" {
	local limit=104857600 pids_max
	start_detached --memory-limit "$limit" -- /bin/sh -c \
		'sleep 600 & echo ok >/tmp/ready; wait'
	pids_max="$(cat "/sys/fs/cgroup/pids/$CTRD_NS/$ID/pids.max")"
	[[ "$pids_max" =~ ^[0-9]+$ ]] || fail "pids.max is \"$pids_max\""
	run --separate-stderr ctrd task metrics --format json "$ID"
	assert_success
	assert_equal "$(jq .memory.usage.limit <<<"$output")" "$limit"
	assert_equal "$(jq .memory.hierarchical_memory_limit <<<"$output")" "$limit"
	jq -e '.memory.usage.usage > 0' <<<"$output" >/dev/null ||
		fail "no memory usage: $output"
	assert_equal "$(jq .pids.current <<<"$output")" 3
	assert_equal "$(jq .pids.limit <<<"$output")" "$pids_max"
	run --separate-stderr ctrd task metrics "$ID"
	assert_success
	assert_line --regexp "^memory\.limit_in_bytes +$limit *$"
	assert_line --regexp '^memory\.usage_in_bytes +[1-9][0-9]* *$'
	assert_line --regexp '^pids\.current +3 *$'
}

@test "ctr task delete, container delete: no corral state, cgroup, mount or process left" {
	start_detached -- /bin/sh -c 'echo ok >/tmp/ready; exec sleep 600'
	# the shim runs corral with --root /run/containerd/runc/NAMESPACE
	assert_equal "$CTRD_RUNC_ROOT" "/run/containerd/runc/$CTRD_NS"
	[ -f "$CTRD_RUNC_ROOT/$ID/state.json" ] ||
		fail "no corral state in $CTRD_RUNC_ROOT/$ID"
	run "$CORRAL" --root "$CTRD_RUNC_ROOT" state "$ID"
	assert_success
	assert_equal "$(jq -r .status <<<"$output")" running
	assert_equal "$(jq -r .pid <<<"$output")" "$TASK_PID"
	[ -d "/sys/fs/cgroup/memory/$CTRD_NS/$ID" ] || fail "no memory cgroup"
	[ -n "$(container_leftovers "$ID")" ] || fail "container_leftovers sees nothing"

	run ctrd task kill -s SIGKILL "$ID"
	assert_success
	wait_task_status "$ID" STOPPED
	run ctrd task delete "$ID"
	assert_success
	wait_pid_gone "$TASK_PID"
	# state, cgroups, mounts: gone when delete returns; the shim exits
	# on its own a moment later
	local tries=100 left
	left="$(container_leftovers "$ID" | grep -v '^shim ')" || true
	[ -z "$left" ] || fail "left after task delete: $left"
	while left="$(container_leftovers "$ID")" && [ -n "$left" ] &&
		[ "$tries" -gt 0 ]; do
		sleep 0.05
		tries=$((tries - 1))
	done
	[ -z "$left" ] || fail "left after task delete: $left"
	run --separate-stderr "$CORRAL" --root "$CTRD_RUNC_ROOT" state "$ID"
	assert_failure
	[[ "$stderr" == *"does not exist"* ]] || fail "corral state: $stderr"

	run ctrd containers delete "$ID"
	assert_success
	refute_container "$ID"
	run ctrd snapshots ls
	refute_output --partial "$ID"
}

@test "corral refuses a widening annotation: ctr prints corral's message" {
	run --separate-stderr ctrd_run --rm \
		--annotation run.corral.timeout=100000 "$IMAGE" "$ID" /bin/true </dev/null
	assert_failure
	[[ "$stderr" == *"OCI runtime create failed"*"annotation run.corral.timeout=100000: wider than the policy's 600s"* ]] ||
		fail "corral's reason is not in ctr's message: $stderr"
	[ -z "$(task_field "$ID" status)" ] || fail "a task $ID is left"
	run container_leftovers "$ID"
	assert_output ""
}

@test "a narrowing annotation: the wall clock kills the task, 137" {
	local start=$SECONDS
	run --separate-stderr ctrd_run --rm --annotation run.corral.timeout=1 \
		"$IMAGE" "$ID" /bin/sleep 30 </dev/null
	assert_equal "$status" 137
	[ $((SECONDS - start)) -lt 15 ] || fail "took $((SECONDS - start))s"
}

@test "ctr task exec of a missing program: corral's message reaches ctr" {
	start_detached -- /bin/sh -c 'echo ok >/tmp/ready; exec sleep 600'
	run --separate-stderr ctrd_exec --exec-id "m-$$" "$ID" /nosuch/prog \
		</dev/null
	assert_failure
	[[ "$stderr" == *"OCI runtime exec failed"*"exec /nosuch/prog: No such file or directory"* ]] ||
		fail "corral's reason is not in ctr's message: $stderr"
	# the container is unharmed, and a later exec works
	assert_equal "$(task_field "$ID" status)" RUNNING
	run ctrd_exec --exec-id "m2-$$" "$ID" /bin/echo still-here </dev/null
	assert_success
	assert_output still-here
}

@test "ctr run --read-only: config.json's read-only root is kept" {
	run --separate-stderr ctrd_run --rm --read-only "$IMAGE" "$ID" \
		/bin/sh -c 'echo x >/tmp/f && echo written; echo finished' </dev/null
	assert_success
	assert_output finished
	assert_equal "$stderr" "/bin/sh: can't create /tmp/f: Read-only file system"
}

@test "ctr --memory-limit: a smaller limit is enforced, a larger one clamped to the policy's" {
	local cg
	# 32 MiB: a 64 MiB shell variable gets the workload OOM-killed
	run --separate-stderr ctrd_run --rm --memory-limit 33554432 "$IMAGE" \
		"$ID" /bin/sh -c \
		'x="$(head -c 67108864 /dev/zero | tr "\0" a)"; echo survived' \
		</dev/null
	assert_equal "$status" 137
	refute_output --partial survived
	# 4 GiB: above the default policy's 512MiB, which wins
	start_detached --memory-limit 4294967296 -- /bin/sh -c \
		'echo ok >/tmp/ready; exec sleep 600'
	cg="/sys/fs/cgroup/memory/$CTRD_NS/$ID"
	assert_equal "$(cat "$cg/memory.limit_in_bytes")" 536870912
	run --separate-stderr ctrd task metrics --format json "$ID"
	assert_success
	assert_equal "$(jq .memory.usage.limit <<<"$output")" 536870912
}

@test "containerd and the shim killed: corral delete --force still removes all" {
	local ns="corral-test-killed-$$" ctrd2="$BATS_TEST_TMPDIR/ctrd2" pid cg
	# a second daemon, so that this one can be killed
	(
		CTRD_NS="$ns"
		containerd_start "$ctrd2"
		containerd_import_busybox "$IMAGE" /bin/sh
		start_detached -- /bin/sh -c 'echo ok >/tmp/ready; exec sleep 600'
		echo "$TASK_PID" >"$BATS_TEST_TMPDIR/task.pid"
		mapfile -t shims < <(containerd_shim_pids)
		[ "${#shims[@]}" -eq 1 ] || fail "shims: ${shims[*]}"
		# shellcheck disable=SC2153 # CTRD_PID: set by containerd_start
		kill -KILL "$CTRD_PID" "${shims[@]}" || fail "kill daemon and shim"
	)
	pid="$(cat "$BATS_TEST_TMPDIR/task.pid")"
	sleep 0.2
	! pid_gone "$pid" || fail "the container died with its engine"
	[ -d "$CTRD_RUNC_BASE/$ns/$ID" ] || fail "no corral state"
	run --separate-stderr "$CORRAL" --root "$CTRD_RUNC_BASE/$ns" \
		delete --force "$ID"
	assert_success
	wait_pid_gone "$pid"
	[ ! -e "$CTRD_RUNC_BASE/$ns/$ID" ] || fail "corral state is left"
	for cg in /sys/fs/cgroup/*/"$ns/$ID"; do
		[ ! -e "$cg" ] || fail "cgroup $cg is left"
	done
	# the rest is containerd's: its bundle's rootfs mount, its dirs
	run containerd_stop "$ctrd2"
	refute_output --partial "corral state"
	refute_output --partial "cgroup"
	run findmnt -rn -o TARGET
	refute_output --partial "$ctrd2/"
	[ ! -e "$ctrd2" ] || fail "$ctrd2 is left"
	[ ! -e "$CTRD_RUNC_BASE/$ns" ] || fail "$CTRD_RUNC_BASE/$ns is left"
}

@test "the policy's report.dir under containerd: each task's report is kept at delete" {
	local dir="$BATS_TEST_TMPDIR/reports"
	mkdir -m 0700 "$dir"
	printf '{"report": {"dir": "%s"}}\n' "$dir" >"$BATS_TEST_TMPDIR/policy.json"
	# the shim passes no flags of an administrator's: the binary it runs
	# is given the policy, as /etc/corral/policy.json would be
	printf '#!/bin/sh\nexec %q --policy %q "$@"\n' "$CORRAL" \
		"$BATS_TEST_TMPDIR/policy.json" >"$BATS_TEST_TMPDIR/corral-reported"
	chmod 0755 "$BATS_TEST_TMPDIR/corral-reported"
	CORRAL="$BATS_TEST_TMPDIR/corral-reported" run ctrd_run --rm "$IMAGE" "$ID" \
		sh -c 'echo kept >/tmp/note; exit 3'
	assert_equal "$status" 3
	[ -f "$dir/$ID.json" ] || fail "no report in $dir: $(ls "$dir")"
	run jq -c '[.id, .status, .outcome.reason, .outcome.exit_code,
		[.files.changes[] | [.change, .path]]]' "$dir/$ID.json"
	assert_output "[\"$ID\",\"stopped\",\"workload exit\",3,[[\"created\",\"/tmp/note\"]]]"
	run stat -c %a "$dir/$ID.json"
	assert_output 600
}
