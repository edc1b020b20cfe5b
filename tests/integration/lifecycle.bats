#!/usr/bin/env bats
# The OCI lifecycle: create, start, state, kill, delete, run, list.

load helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
}

teardown() {
	corral_teardown
}

# A workload that ends only on SIGTERM (with status 7) and says "ready"
# once its handler is in place (a PID 1 without a handler ignores TERM).
trap_term() {
	set_args sh -c 'trap "exit 7" TERM; echo ready; while :; do sleep 0.1; done'
}

# bats test_tags=vm-ci
@test "create, start, kill and delete walk the states" {
	set_args sleep 100
	create_container "$ID" --pid-file "$BATS_TEST_TMPDIR/pid"

	run corral state "$ID"
	assert_success
	[ "$(jq -r .status <<<"$output")" = created ]
	[ "$(jq -r .id <<<"$output")" = "$ID" ]
	[ "$(jq -r .bundle <<<"$output")" = "$BUNDLE" ]
	pid="$(jq -r .pid <<<"$output")"
	[ "$pid" -gt 0 ]
	track_pid "$pid"

	# the pid file: bare digits, no newline, the init's pid
	run cat "$BATS_TEST_TMPDIR/pid"
	assert_output "$pid"
	assert_regex "$output" '^[0-9]+$'
	[ "$(wc -c <"$BATS_TEST_TMPDIR/pid")" -eq "${#pid}" ]

	run corral start "$ID"
	assert_success
	[ "$(state_field "$ID" status)" = running ]
	[ "$(state_field "$ID" pid)" = "$pid" ]

	run corral kill "$ID" KILL
	assert_success
	wait_for_status "$ID" stopped
	wait_pid_gone "$pid"

	run corral delete "$ID"
	assert_success
	[ ! -e "$ROOT/$ID" ]

	run --separate-stderr corral state "$ID"
	assert_failure
	assert_equal "$stderr" "corral: container $ID does not exist"
}

# bats test_tags=vm-ci
@test "run exits with the workload's status: 0" {
	set_args sh -c 'echo hello'
	run corral run --bundle "$BUNDLE" "$ID"
	assert_success
	assert_output hello
	assert_no_leftovers "$ID"
}

@test "run exits with the workload's status: 3" {
	set_args sh -c 'echo bye; exit 3'
	run corral run --bundle "$BUNDLE" "$ID"
	assert_failure 3
	assert_output bye
	assert_no_leftovers "$ID"
}

@test "run of a workload killed by a signal exits 128+N" {
	set_args sh -c 'kill -9 $$'
	run corral run --bundle "$BUNDLE" "$ID"
	assert_failure 137
	assert_no_leftovers "$ID"
}

@test "run of a workload killed from outside exits 128+N" {
	set_args sh -c 'echo ready; while :; do sleep 0.1; done'
	run_in_background "$BATS_TEST_TMPDIR/run.out"
	wait_for_file "$BATS_TEST_TMPDIR/run.out" ready

	run corral kill "$ID" KILL
	assert_success
	wait_bg "$RUN_PID"
	[ "$BG_STATUS" -eq 137 ] || fail "run exited $BG_STATUS, expected 137"
	assert_no_leftovers "$ID"
}

# bats test_tags=vm-ci
@test "create returns with the container alive, even on one CPU" {
	# The container must outlive the create command that made it, however
	# the scheduler orders their last steps.  On one CPU the command
	# usually exits before its child runs again.
	command -v taskset >/dev/null || skip "no taskset"
	cpu="$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)"
	cpu="${cpu%%[,-]*}"
	set_args sleep 100
	for i in $(seq 10); do
		taskset -c "$cpu" "$CORRAL" --root "$ROOT" create --bundle "$BUNDLE" \
			"$ID-$i" </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/create.err" 3>&- ||
			fail "create $ID-$i: $(cat "$BATS_TEST_TMPDIR/create.err")"
		read -r st pid < <(corral state "$ID-$i" | jq -r '"\(.status) \(.pid)"')
		track_pid "$pid"
		[ "$st" = created ] ||
			fail "attempt $i: the container is $st right after create"
		corral delete --force "$ID-$i" || fail "delete $ID-$i failed"
		assert_no_leftovers "$ID-$i"
	done
}

# bats test_tags=vm-ci
@test "the workload may run on every CPU its create could" {
	# create keeps its child off its own CPU until GO, and the child then
	# takes back the whole set (runtime/cgroup/cpus.h): never the workload's
	[ "$(nproc)" -gt 1 ] || skip "one CPU: nothing is moved"
	want="$(grep '^Cpus_allowed_list:' /proc/self/status)"
	set_args grep '^Cpus_allowed_list:' /proc/self/status
	for i in $(seq 5); do
		run corral run --bundle "$BUNDLE" "$ID"
		assert_success
		assert_output "$want"
	done
	# a narrower set is kept as given
	cpu="${want##*[[:space:]]}"
	cpu="${cpu%%[,-]*}"
	run taskset -c "$cpu" "$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$ID"
	assert_success
	assert_output "Cpus_allowed_list:	$cpu"
	assert_no_leftovers "$ID"
}

@test "run -d leaves the container running; delete --force removes it" {
	set_args sleep 100
	run_detached "$ID"
	[ "$(state_field "$ID" status)" = running ]
	pid="$(container_pid "$ID")"
	track_pid "$pid"

	run corral delete --force "$ID"
	assert_success
	wait_pid_gone "$pid"
	assert_no_leftovers "$ID"
}

@test "two containers run at once" {
	set_args sleep 100
	run_detached "$ID-a"
	run_detached "$ID-b"
	track_pid "$(container_pid "$ID-a")"
	track_pid "$(container_pid "$ID-b")"

	[ "$(state_field "$ID-a" status)" = running ]
	[ "$(state_field "$ID-b" status)" = running ]
	[ "$(container_pid "$ID-a")" != "$(container_pid "$ID-b")" ]

	run corral delete --force "$ID-a"
	assert_success
	# the other one is untouched
	[ "$(state_field "$ID-b" status)" = running ]
}

@test "list: table, json and -q" {
	set_args sleep 100
	create_container "$ID-c"
	run_detached "$ID-r"
	pid_c="$(container_pid "$ID-c")"
	pid_r="$(container_pid "$ID-r")"
	track_pid "$pid_c"
	track_pid "$pid_r"

	run corral list
	assert_success
	assert_line --index 0 --regexp '^ID +PID +STATUS +BUNDLE +CREATED$'
	assert_line --regexp "^$ID-c +$pid_c +created +$BUNDLE "
	assert_line --regexp "^$ID-r +$pid_r +running +$BUNDLE "
	[ "${#lines[@]}" -eq 3 ]

	run corral list --format json
	assert_success
	[ "$(jq length <<<"$output")" -eq 2 ]
	[ "$(jq -r --arg id "$ID-c" '.[] | select(.id == $id) | .status' <<<"$output")" = created ]
	[ "$(jq -r --arg id "$ID-r" '.[] | select(.id == $id) | .status' <<<"$output")" = running ]
	[ "$(jq -r --arg id "$ID-r" '.[] | select(.id == $id) | .pid' <<<"$output")" = "$pid_r" ]
	[ "$(jq -r --arg id "$ID-r" '.[] | select(.id == $id) | .bundle' <<<"$output")" = "$BUNDLE" ]

	run corral list -q
	assert_success
	[ "${#lines[@]}" -eq 2 ]
	assert_line --index 0 "$ID-c"
	assert_line --index 1 "$ID-r"
}

@test "list of an empty root" {
	run corral list -q
	assert_success
	assert_output ""

	run corral list --format json
	assert_success
	[ "$(jq length <<<"$output")" -eq 0 ]
}

@test "kill --all signals every process of the container" {
	# The shell traps TERM and goes on waiting; its two children do not
	# trap it.  Only when both are gone does the shell exit.
	set_args sh -c '
		trap "echo got-term" TERM
		sleep 100 & a=$!
		sleep 100 & b=$!
		echo ready
		while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do wait; done
		echo children-gone'
	run_detached "$ID"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	wait_for_file "$BATS_TEST_TMPDIR/$ID.out" ready

	# without --all the children are left alone
	run corral kill "$ID" TERM
	assert_success
	wait_for_file "$BATS_TEST_TMPDIR/$ID.out" got-term
	sleep 0.2
	[ "$(state_field "$ID" status)" = running ]

	run corral kill --all "$ID" TERM
	assert_success
	wait_for_status "$ID" stopped
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	assert_line children-gone
}

# bats test_tags=vm-ci
@test "delete --force of a running container kills it" {
	set_args sleep 100
	create_container "$ID"
	run corral start "$ID"
	assert_success
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	kill -0 "$pid"

	run corral delete --force "$ID"
	assert_success
	# kill -0 fails, or the pid is a zombie waiting for the host's init
	wait_pid_gone "$pid"
	assert_no_leftovers "$ID"
}

@test "delete of a created, never started container" {
	set_args sh -c 'echo must-not-run'
	create_container "$ID"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	[ "$(state_field "$ID" status)" = created ]

	run corral delete "$ID"
	assert_success
	wait_pid_gone "$pid"
	assert_no_leftovers "$ID"
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	refute_output --partial must-not-run
}

@test "delete --force of a container that does not exist succeeds" {
	run corral delete --force "$ID"
	assert_success
	run --separate-stderr corral delete "$ID"
	assert_error_line
	assert_equal "$stderr" "corral: container $ID does not exist"
}

@test "kill of a stopped container fails; delete of it works" {
	set_args true
	create_container "$ID"
	track_pid "$(container_pid "$ID")"
	corral start "$ID"
	wait_for_status "$ID" stopped

	run --separate-stderr corral kill "$ID" KILL
	assert_error_line
	[[ "$stderr" == *"not running"* ]]

	run corral delete "$ID"
	assert_success
	assert_no_leftovers "$ID"
}

@test "kill TERM reaches a workload that traps it" {
	trap_term
	run_in_background "$BATS_TEST_TMPDIR/run.out"
	wait_for_file "$BATS_TEST_TMPDIR/run.out" ready

	run corral kill "$ID" TERM
	assert_success
	wait_bg "$RUN_PID"
	[ "$BG_STATUS" -eq 7 ] ||
		fail "run exited $BG_STATUS, expected 7: $(cat "$BATS_TEST_TMPDIR/run.out")"
	assert_no_leftovers "$ID"
}

@test "kill takes the signal as TERM, SIGTERM, 15 and defaults to TERM" {
	trap_term
	for sig in TERM SIGTERM 15 ""; do
		id="$ID-${sig:-default}"
		run_detached "$id"
		track_pid "$(container_pid "$id")"
		wait_for_file "$BATS_TEST_TMPDIR/$id.out" ready

		run corral kill "$id" $sig
		assert_success
		wait_for_status "$id" stopped
		run corral delete "$id"
		assert_success
	done
}

@test "kill rejects an unknown signal" {
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"

	run --separate-stderr corral kill "$ID" NOSUCHSIG
	assert_error_line
	[[ "$stderr" == *NOSUCHSIG* ]]
	[ "$(state_field "$ID" status)" = running ]
}

@test "process.oomScoreAdj is the workload's alone: run and the supervisor keep their own" {
	# The init shares run's memory until it execs the stage (create.c
	# share_memory), and the workload the supervisor's until its
	# execve: the kernel gives a vfork child's oom_score_adj to it
	# alone, and the supervisor takes its own back (-1000 where it may
	# set that) once the workload runs.
	mine="$(cat /proc/self/oom_score_adj)"
	[ "$mine" -lt 500 ] || skip "this shell's oom_score_adj is $mine already"
	update_config '.process.oomScoreAdj = 500'
	set_args sh -c 'echo ready; while :; do sleep 0.1; done'
	run_in_background "$BATS_TEST_TMPDIR/run.out"
	wait_for_file "$BATS_TEST_TMPDIR/run.out" ready
	pid="$(state_field "$ID" pid)"
	parent="$(awk '{print $4}' "/proc/$pid/stat")"
	workload="$(cat "/proc/$pid/task/$pid/children")"
	workload="${workload%% *}"
	assert_equal "$(cat "/proc/$parent/comm")" corral
	assert_equal "$(cat "/proc/$workload/oom_score_adj")" 500
	supervisor="$(cat "/proc/$pid/oom_score_adj")"
	[ "$supervisor" = -1000 ] || [ "$supervisor" = "$mine" ] ||
		fail "the supervisor's oom_score_adj is $supervisor"
	assert_equal "$(cat "/proc/$parent/oom_score_adj")" "$mine"

	run corral kill "$ID" KILL
	assert_success
	wait_bg "$RUN_PID"
	assert_no_leftovers "$ID"
}
