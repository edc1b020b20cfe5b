#!/usr/bin/env bats
# process.terminal: the pty master goes to --console-socket.

load helpers

setup_file() {
	corral_setup_file
	[ -x "$RECVTTY" ] || fail "$RECVTTY not found: run make helpers"
}

setup() {
	corral_setup
	SOCK="$BATS_TEST_TMPDIR/console.sock"
	update_config '.process.terminal = true | .process.args = ["sh"]'
}

teardown() {
	corral_teardown
}

# start_recvtty INPUT: recvtty on $SOCK in the background, its output in
# $BATS_TEST_TMPDIR/tty.out; returns once the socket is there.
start_recvtty() {
	"$RECVTTY" "$SOCK" "$1" </dev/null >"$BATS_TEST_TMPDIR/tty.out" \
		2>"$BATS_TEST_TMPDIR/tty.err" 3>&- &
	RECVTTY_PID=$!
	track_pid "$RECVTTY_PID"
	wait_for_file "$SOCK"
}

@test "a terminal container sends its pty master to the console socket" {
	start_recvtty 'tty; echo hi-from-pty; exit 5\n'

	create_container "$ID" --console-socket "$SOCK"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	[ "$(state_field "$ID" status)" = created ]

	run corral start "$ID"
	assert_success

	# recvtty exits when the last holder of the pty's peer closes it
	wait_bg "$RECVTTY_PID"
	[ "$BG_STATUS" -eq 0 ] ||
		fail "recvtty exited $BG_STATUS: $(cat "$BATS_TEST_TMPDIR/tty.err")"
	run tr -d '\r' <"$BATS_TEST_TMPDIR/tty.out"
	# the lines the shell printed (the echo of the input holds them too,
	# but not as lines of their own)
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line hi-from-pty
	run cat "$BATS_TEST_TMPDIR/tty.err"
	assert_output ""

	wait_for_status "$ID" stopped
	wait_pid_gone "$pid"
	run corral delete "$ID"
	assert_success
	assert_no_leftovers "$ID"
}

@test "run with a console socket exits with the workload's status" {
	start_recvtty 'echo hi-from-pty; exit 5\n'
	run corral run --bundle "$BUNDLE" --console-socket "$SOCK" "$ID" </dev/null
	assert_failure 5
	wait_bg "$RECVTTY_PID"
	[ "$BG_STATUS" -eq 0 ] ||
		fail "recvtty exited $BG_STATUS: $(cat "$BATS_TEST_TMPDIR/tty.err")"
	run tr -d '\r' <"$BATS_TEST_TMPDIR/tty.out"
	assert_line hi-from-pty
	assert_no_leftovers "$ID"
}

@test "terminal: true without --console-socket fails" {
	run --separate-stderr corral create --bundle "$BUNDLE" "$ID"
	assert_error_line
	[[ "$stderr" == *console-socket* ]]
	assert_no_leftovers "$ID"
}

@test "--console-socket without terminal: true fails" {
	update_config '.process.terminal = false'
	start_recvtty 'exit\n'
	run --separate-stderr corral create --bundle "$BUNDLE" \
		--console-socket "$SOCK" "$ID"
	assert_error_line
	[[ "$stderr" == *console-socket* ]]
	assert_no_leftovers "$ID"
}

@test "a console socket nobody listens on fails create" {
	run --separate-stderr corral create --bundle "$BUNDLE" \
		--console-socket "$BATS_TEST_TMPDIR/nobody.sock" "$ID"
	assert_error_line
	[[ "$stderr" == *nobody.sock* ]]
	assert_no_leftovers "$ID"
}
