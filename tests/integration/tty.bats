#!/usr/bin/env bats
# The caller's terminal is never the container's (runtime/lifecycle/tty_relay.h):
# `run`, `sandbox` and a foreground `exec` from a terminal give the
# workload a pty of its own and relay it; create, run -d and exec -d
# refuse a terminal on stdio.  The caller's terminal is a pty the test
# makes (tests/helpers/pty_caller.py), with `stty -a` of it before and
# after.

load helpers

PTY_CALLER="$REPO_ROOT/tests/helpers/pty_caller.py"

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	ln -s busybox "$ROOTFS/bin/stty"
}

teardown() {
	corral_teardown
}

# in_terminal [PTY_CALLER OPTIONS] -- CMD...: CMD run as from a person's
# terminal (40 rows, 100 columns); its output without the pty's carriage
# returns in $output and $lines, its exit status in $TTY_STATUS, and in
# $TTY_FLOW whether that terminal's output still flows afterwards.
in_terminal() {
	TTY_DIR="$BATS_TEST_TMPDIR/tty"
	rm -rf "$TTY_DIR"
	mkdir -p "$TTY_DIR"
	timeout 120 python3 "$PTY_CALLER" "$TTY_DIR" --size 40x100 "$@" 3>&- ||
		fail "pty_caller.py failed"
	TTY_STATUS="$(cat "$TTY_DIR/status")"
	TTY_FLOW="$(cat "$TTY_DIR/flow")"
	output="$(tr -d '\r' <"$TTY_DIR/out")"
	mapfile -t lines <<<"$output"
}

# The caller's terminal's settings (`stty -a`) are what they were before.
assert_terminal_unchanged() {
	diff -u "$TTY_DIR/before" "$TTY_DIR/after" ||
		fail "the caller's terminal changed (output: $output)"
	[ "$TTY_FLOW" = flowing ] || fail "the caller's terminal output is stopped"
}

# What the workload does to its terminal: its name and size, then every
# setting the issue's attack changed.
ATTACK='tty; stty size; stty -echo -isig -icanon cols 3 rows 2; echo attacked'

@test "sandbox from a terminal: stty inside changes a pty of the workload's own, not the caller's" {
	in_terminal -- "$CORRAL" --root "$ROOT" sandbox -- sh -c "$ATTACK"
	assert_equal "$TTY_STATUS" 0
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line "40 100"
	assert_line attacked
	assert_terminal_unchanged
}

@test "sandbox from a terminal: TCOOFF and TIOCSWINSZ inside do not stop or resize the caller's" {
	in_terminal -- "$CORRAL" --root "$ROOT" sandbox -- python3 -c '
import fcntl, struct, termios
fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 1, 1, 0, 0))
print("stopping", flush=True)
for fd in (0, 1, 2):
    termios.tcflow(fd, termios.TCOOFF)
'
	assert_equal "$TTY_STATUS" 0
	assert_line stopping
	assert_terminal_unchanged
}

@test "run from a terminal: the workload's own pty, with the caller's size; typed lines and ^C reach it" {
	set_args sh -c "$ATTACK; stty isig icanon echo; echo ready-for-a-line
		read -r x; echo \"got=\$x\"
		trap 'echo got-int; exit 3' INT; echo ready-for-int
		while :; do sleep 0.1; done"
	in_terminal --type-on ready-for-a-line hello --type-on ready-for-int $'\003' \
		-- "$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 3
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line "40 100"
	assert_line "got=hello"
	assert_line got-int
	assert_terminal_unchanged
	assert_no_leftovers "$ID"
}

@test "run from a terminal: the caller's terminal is restored when the wall clock or a signal ends it" {
	update_config '.annotations["run.corral.timeout"] = "2"'
	set_args sh -c 'stty raw -echo; sleep 30'
	in_terminal -- "$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 137
	assert_terminal_unchanged
	assert_no_leftovers "$ID"

	update_config 'del(.annotations["run.corral.timeout"])'
	set_args sh -c 'stty raw -echo; echo ready; sleep 30'
	in_terminal --signal-on ready TERM -- \
		"$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 143
	assert_terminal_unchanged
	assert_no_leftovers "$ID"
}

@test "run from a terminal: a resize of the caller's terminal resizes the workload's pty" {
	set_args sh -c 'trap "stty size; exit 0" WINCH; tty; echo ready; while :; do sleep 0.1; done'
	in_terminal --resize-on ready 50x120 -- \
		"$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 0
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line "50 120"
}

@test "run from a terminal, stdin piped: the pipe stays the workload's stdin, stdout is its pty" {
	set_args sh -c 'read -r x; echo "got=$x"; test -t 0 || echo stdin-not-tty
		test -t 1 && echo stdout-tty; stty cols 3 rows 2 <&1; stty size <&1'
	in_terminal -- sh -c 'echo piped | "$0" --root "$1" run --bundle "$2" "$3"' \
		"$CORRAL" "$ROOT" "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 0
	assert_line got=piped
	assert_line stdin-not-tty
	assert_line stdout-tty
	assert_line "2 3"
	assert_terminal_unchanged
}

@test "run with process.terminal from a terminal: the pty takes all three, a piped stdin is typed into it" {
	update_config '.process.terminal = true'
	set_args sh -c 'read -r x; echo "got=$x"; test -t 0 && echo stdin-tty'
	in_terminal -- sh -c 'echo piped | "$0" --root "$1" run --bundle "$2" "$3"' \
		"$CORRAL" "$ROOT" "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 0
	assert_line got=piped
	assert_line stdin-tty
	assert_terminal_unchanged
}

@test "exec from a terminal: a pty of its own; with stdio redirected, /dev/tty is not the caller's" {
	set_args sleep 1000
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"

	in_terminal -- "$CORRAL" --root "$ROOT" exec "$ID" sh -c "$ATTACK"
	assert_equal "$TTY_STATUS" 0
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line "40 100"
	assert_terminal_unchanged

	# without a terminal on stdio the process must not reach the caller's
	# through its session either
	in_terminal -- sh -c '"$0" --root "$1" exec "$2" sh -c "stty -echo cols 3 rows 2 </dev/tty" \
		</dev/null >/dev/null 2>&1; echo "exec=$?"' "$CORRAL" "$ROOT" "$ID"
	assert_line --regexp '^exec=[1-9][0-9]*$'
	assert_terminal_unchanged
}

@test "create, run -d and exec -d with a terminal on stdio are refused with one line, nothing left" {
	in_terminal -- "$CORRAL" --root "$ROOT" create --bundle "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 1
	assert_output "corral: create $ID: stdin is a terminal: use process.terminal with --console-socket, or pipes"
	assert_no_leftovers "$ID"

	in_terminal -- sh -c 'exec "$@" </dev/null' sh "$CORRAL" --root "$ROOT" \
		run -d --bundle "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 1
	assert_output "corral: create $ID: stdout is a terminal: use process.terminal with --console-socket, or pipes"
	assert_no_leftovers "$ID"

	# the terminal on a preserved fd alone
	in_terminal -- sh -c 'err=$1; shift; exec "$@" 3<>/dev/tty </dev/null \
		>/dev/null 2>"$err"' sh "$BATS_TEST_TMPDIR/err" \
		"$CORRAL" --root "$ROOT" create --preserve-fds 1 --bundle "$BUNDLE" "$ID"
	assert_equal "$TTY_STATUS" 1
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output "corral: create $ID: fd 3 is a terminal: a terminal is passed on only as process.terminal with --console-socket"
	assert_no_leftovers "$ID"

	set_args sleep 1000
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	in_terminal -- "$CORRAL" --root "$ROOT" exec -d "$ID" sleep 1000
	assert_equal "$TTY_STATUS" 1
	assert_output "corral: exec $ID: stdin is a terminal: use process.terminal with --console-socket, or pipes"
	run corral ps --format json "$ID"
	assert_success
	[ "$(jq length <<<"$output")" -eq 2 ] || fail "exec -d left a process: $output"
}
