#!/usr/bin/env bats
# Inside-out: the workload, under the default policy, against corral's
# own processes (its supervisor, the wall clock, the record).  Each test
# times or checks the outcome on the host.  tests/security/README.md's
# "Inside-out" table lists them.

load security

ATTACKER="${ATTACKER:-$REPO_ROOT/build/helpers/static/attacker}"
SECCOMP_TRY="${SECCOMP_TRY:-$REPO_ROOT/build/helpers/seccomp_try}"

setup_file() {
	[ -x "$ATTACKER" ] || fail "$ATTACKER not found: run make helpers"
	[ -x "$SECCOMP_TRY" ] || fail "$SECCOMP_TRY not found: run make helpers"
	[ -x "$RECVTTY" ] || fail "$RECVTTY not found: run make helpers"
	battery_setup_file
	cp "$ATTACKER" "$BATS_FILE_TMPDIR/bundle/rootfs/bin/attacker"
}

setup() {
	battery_setup
	update_config '.annotations["run.corral.timeout"] = "3"'
}

teardown() {
	battery_teardown
}

# start_detached: create and start this test's container (its stdio to
# files), START_MS when start returned.
start_detached() {
	create_container "$ID" "$@" ||
		fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
	timeout 10 "$CORRAL" --root "$ROOT" start "$ID" 3>&- ||
		fail "start failed"
	START_MS="$(now_ms)"
}

# assert_ended_at_wall_clock: the container stops 3 s after its start,
# as the host sees it, without `run`'s backstop (the container is
# detached, so only its supervisor can end it); and its record says the
# wall clock ended it.  Two seconds of slack for a loaded machine (CI
# runs the VM guests beside the suites): the attacks this file makes held
# the clock for 20 s and more.
assert_ended_at_wall_clock() {
	local elapsed
	wait_pid_gone "$(container_pid "$ID")" 80
	elapsed=$(($(now_ms) - START_MS))
	[ "$elapsed" -ge 2500 ] || fail "stopped after $elapsed ms, before the deadline"
	[ "$elapsed" -le 5000 ] || fail "stopped only after $elapsed ms (deadline 3000)"
	run corral report --format json "$ID"
	assert_success
	assert_equal "$(jq -r .outcome.reason <<<"$output")" "wall clock"
}

@test "inside-out: XOFF on its own terminal does not hold the wall clock" {
	local sock="$BATS_TEST_TMPDIR/console.sock"
	update_config '.process.terminal = true'
	set_args sh -c 'attacker xoff; sleep 100'
	"$RECVTTY" "$sock" '' </dev/null >"$BATS_TEST_TMPDIR/tty.out" \
		2>"$BATS_TEST_TMPDIR/tty.err" 3>&- &
	track_pid "$!"
	wait_for_file "$sock"
	start_detached --console-socket "$sock"
	assert_ended_at_wall_clock
	# the attack held: the terminal took none of the supervisor's line
	# (nor the attacker's own report of it)
	run grep -c -e "wall-clock limit" -e "xoff" "$BATS_TEST_TMPDIR/tty.out"
	assert_output 0
}

@test "inside-out: the supervisor's limits are its own, not the workload's to set" {
	set_args sh -c 'sleep 1; attacker prlimit 1; exit 3'
	run_in_container_report
	assert_equal "$status" 3
	assert_line "prlimit EPERM"
	assert_equal "$(jq -r '.outcome.reason, .outcome.exit_code' \
		"$BATS_TEST_TMPDIR/report.json")" "workload exit
3"
}

@test "inside-out: config.json's rlimits reach the workload, not the supervisor's record" {
	update_config '.process.rlimits = [
		{type: "RLIMIT_FSIZE", soft: 0, hard: 0},
		{type: "RLIMIT_CPU", soft: 1, hard: 1}]'
	set_args sh -c 'ulimit -f; exit 3'
	run_in_container_report
	assert_equal "$status" 3
	assert_line 0
	assert_equal "$(jq -r '.outcome.reason, .outcome.exit_code' \
		"$BATS_TEST_TMPDIR/report.json")" "workload exit
3"
}

@test "inside-out: the workload cannot reschedule, renice or pin its supervisor" {
	set_args sh -c 'sleep 1; attacker sched 1; attacker spin 16 100'
	start_detached
	assert_ended_at_wall_clock
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	assert_output "sched_setscheduler EPERM
setpriority EPERM
sched_setaffinity EPERM
ioprio_set EPERM"
}

@test "inside-out: the workload cannot stop or signal its supervisor" {
	set_args sh -c 'sleep 1; attacker signal 1 19; attacker signal 1 9; sleep 100'
	start_detached
	assert_ended_at_wall_clock
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	# PID 1 of the namespace: the kernel drops SIGSTOP and SIGKILL from
	# inside it, and the supervisor's own uid refuses them anyway
	assert_line --regexp '^kill (EPERM|OK)$'
}

@test "inside-out: the supervisor runs as a uid of its own (65535) with CAP_KILL alone, not dumpable, its own filter" {
	set_args sleep 100
	start_detached
	pid="$(container_pid "$ID")"
	run grep -E '^(Uid|CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' \
		"/proc/$pid/status"
	assert_line --regexp '^Uid:[[:space:]]+65535[[:space:]]+65535[[:space:]]+65535[[:space:]]+65535$'
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000020$'
	assert_line --regexp '^CapPrm:[[:space:]]+0000000000000020$'
	assert_line --regexp '^CapBnd:[[:space:]]+0000000000000020$'
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_line --regexp '^Seccomp:[[:space:]]+2$'
	# not dumpable: its /proc files are root's of the host, not its uid's
	assert_equal "$(stat -c %u "/proc/$pid/fd")" 0
	# a workload of uid 65535 gets a supervisor of 65533
	run corral kill "$ID" KILL
	assert_success
	wait_for_status "$ID" stopped
	corral delete "$ID"
	update_config '.process.user = {uid: 65535, gid: 65535}'
	start_detached
	pid="$(container_pid "$ID")"
	run grep '^Uid:' "/proc/$pid/status"
	assert_output --regexp '^Uid:[[:space:]]+65533[[:space:]]'
	run corral kill "$ID" KILL
	assert_success
}

# The baseline alone would show "Seccomp: 2" too.  The supervisor runs
# under two filters (its workload under one, the baseline, and one more
# when config.json has one): the baseline, loaded first for the workload
# to inherit (index 0), and its own over it (index 1), which kills what
# the supervisor never calls.  seccomp_try reads a filter from the host
# and tries calls under it in a child of its own.
@test "inside-out: the supervisor's own filter is loaded over the baseline and kills ptrace" {
	set_args sleep 100
	start_detached
	pid="$(container_pid "$ID")"
	run grep -E '^Seccomp(_filters)?:' "/proc/$pid/status"
	assert_line --regexp '^Seccomp:[[:space:]]+2$'
	assert_line --regexp '^Seccomp_filters:[[:space:]]+2$'
	# the baseline refuses ptrace (EPERM; ENOSYS where it hands refusals
	# to the supervisor's listener, which seccomp_try's child has not)
	run "$SECCOMP_TRY" "$pid" 0 getpid ptrace
	assert_success
	assert_line --index 0 "getpid allowed"
	assert_line --index 1 --regexp '^ptrace errno (EPERM|ENOSYS)$'
	run "$SECCOMP_TRY" "$pid" 1 getpid ptrace execve socket
	assert_success
	assert_output "getpid allowed
ptrace killed
execve killed
socket killed"
	# stopped for a moment to be read, it still runs the container
	assert_equal "$(state_field "$ID" status)" running
	corral kill "$ID" KILL
	wait_pid_gone "$pid" 50
}

@test "inside-out: a fork bomb against the memory limit leaves a record that names it" {
	# each process holds a megabyte: the limit is met after a few dozen
	update_config '.annotations["run.corral.memory"] = "24MiB" |
		.annotations["run.corral.timeout"] = "8"'
	set_args sh -c 'b() { x=$(seq 150000); b & b; }; b'
	start_detached
	pid="$(container_pid "$ID")"
	oom="$(cat "/proc/$pid/oom_score_adj" 2>/dev/null)" || oom=""
	wait_pid_gone "$pid" 120
	elapsed=$(($(now_ms) - START_MS))
	[ "$elapsed" -le 9500 ] || fail "stopped only after $elapsed ms (deadline 8000)"
	run corral report --format json "$ID"
	assert_success
	reason="$(jq -r .outcome.reason <<<"$output")"
	kills="$(jq -r .limits.oom_kills <<<"$output")"
	[ "$kills" -gt 0 ] || fail "no OOM kill counted: the bomb did not reach the limit"
	# The workload's shell may die of it (OOM kill) or outlive it (wall
	# clock).  The supervisor is -1000 where the host lets it set that
	# (CAP_SYS_RESOURCE) and survives to record either; elsewhere it may
	# die too, and then the report says the record is incomplete and
	# names the OOM kill: never "unknown".
	case "$reason" in
	"wall clock" | "OOM kill") ;;
	"OOM kill (record incomplete)")
		[ "$oom" != -1000 ] || fail "the supervisor died at -1000" ;;
	*) fail "reason \"$reason\" (the supervisor's oom_score_adj: $oom)" ;;
	esac
	[ "$oom" = -1000 ] || [ "$oom" = "$(cat /proc/self/oom_score_adj)" ] ||
		fail "the supervisor's oom_score_adj is $oom"
}

@test "inside-out: run ends a container whose supervisor is stalled, a second after its deadline" {
	set_args sleep 100
	"$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" \
		--report "$BATS_TEST_TMPDIR/report.json" "$ID" </dev/null \
		>"$BATS_TEST_TMPDIR/run.out" 2>&1 3>&- &
	RUN_PID=$!
	track_pid "$RUN_PID"
	start="$(now_ms)"
	wait_for_status "$ID" running
	pid="$(container_pid "$ID")"
	# what a workload of the supervisor's own uid could do to it, or the
	# OOM killer: here the host stops it
	kill -STOP "$pid"
	wait_bg "$RUN_PID" 100
	elapsed=$(($(now_ms) - start))
	assert_equal "$BG_STATUS" 137
	[ "$elapsed" -ge 3500 ] || fail "ended after $elapsed ms, before the backstop"
	[ "$elapsed" -le 5500 ] || fail "ended only after $elapsed ms"
	assert_equal "$(jq -r .outcome.reason "$BATS_TEST_TMPDIR/report.json")" \
		"wall clock"
	grep -q "still running 1s after its wall clock" "$BATS_TEST_TMPDIR/run.out" ||
		fail "no line from run: $(cat "$BATS_TEST_TMPDIR/run.out")"
}

# run_in_container_report: run_in_container with --report to
# $BATS_TEST_TMPDIR/report.json.
run_in_container_report() {
	run --separate-stderr timeout 20 "$CORRAL" --root "$ROOT" run \
		--bundle "$BUNDLE" --report "$BATS_TEST_TMPDIR/report.json" \
		"$ID" </dev/null 3>&-
}
