#!/usr/bin/env bats
# `corral sandbox -- CMD`: the host's /usr under a synthetic root, the full
# sandbox, CMD's output streamed and its exit status passed through.

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

# sandbox [OPTIONS] -- CMD...: corral sandbox into $output/$stderr/$status.
sandbox() {
	run --separate-stderr corral sandbox "$@" </dev/null
}

# Nothing of a sandbox run may stay in the state root.
assert_root_empty() {
	local left
	left="$(ls -A "$ROOT" 2>/dev/null || true)"
	[ -z "$left" ] || fail "left in the state root: $left"
}

@test "sandbox: python3 -c 'print(2+2)' prints 4" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 on this host"
	sandbox -- python3 -c 'print(2+2)'
	assert_success
	assert_output 4
	assert_root_empty
}

@test "sandbox: stdout and stderr are streamed apart" {
	sandbox -- sh -c 'echo to-out; echo to-err >&2'
	assert_success
	assert_output to-out
	assert_equal "$stderr" to-err
}

@test "sandbox: exit statuses pass through, 128+N for a signal" {
	sandbox -- sh -c 'exit 7'
	assert_failure 7
	sandbox -- sh -c 'exit 0'
	assert_success
	sandbox -- sh -c 'kill -TERM $$'
	assert_failure 143
	run -127 --separate-stderr corral sandbox -- /nonexistent/command </dev/null
	assert_root_empty
}

@test "sandbox: --timeout kills at the deadline with 137 and the reason" {
	start=${EPOCHREALTIME/./}
	sandbox --timeout 1 -- sh -c 'while :; do :; done'
	elapsed=$(( (${EPOCHREALTIME/./} - start) / 1000 ))
	assert_failure 137
	assert_equal "$stderr" "corral: wall-clock limit of 1s reached; container killed"
	[ "$elapsed" -le 3000 ] || fail "killed after ${elapsed}ms"
	assert_root_empty
}

@test "sandbox: the host's /etc, /home, /root and /run are not visible" {
	sandbox -- sh -c 'for d in /home /root /run; do [ -e $d ] && echo "visible $d"; done
		[ -e /etc/shadow ] && echo "visible /etc/shadow"
		cat /etc/passwd; true'
	assert_success
	refute_output --partial visible
	refute_line "$(head -n 1 /etc/passwd)"
	assert_line --regexp '^nobody:x:65534:'
}

@test "sandbox: the caller's root and environment are not passed on" {
	SECRET_TOKEN="tok-$RANDOM$RANDOM" sandbox -- sh -c 'id -u; env'
	assert_success
	assert_line --index 0 65534
	refute_output --partial SECRET_TOKEN
	refute_output --partial tok-
	assert_line --regexp '^PATH='
}

@test "sandbox: only loopback inside" {
	sandbox -- sh -c 'ls /sys/class/net'
	assert_success
	assert_output lo
}

@test "sandbox: --workspace is mounted only when the policy allows its source" {
	ws="$BATS_TEST_TMPDIR/ws"
	mkdir "$ws" && echo data >"$ws/file" && chmod 0777 "$ws"
	sandbox --workspace "$ws" -- sh -c 'cat /workspace/file; true'
	assert_success
	refute_output data
	[[ "$stderr" == "corral: warning: $ws is not mounted: no entry of the policy's mounts allows it (policy: mounts)"* ]] ||
		fail "stderr: $stderr"

	printf '{ "mounts": [ { "source": "%s", "rw": true } ] }\n' "$ws" \
		>"$BATS_TEST_TMPDIR/policy.json"
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/policy.json" \
		sandbox --workspace "$ws" -- sh -c 'cat /workspace/file; echo new >/workspace/out' </dev/null
	assert_success
	assert_output data
	assert_equal "$stderr" ""
	assert_equal "$(cat "$ws/out")" new
	assert_root_empty
}

@test "sandbox: --network other than none is refused" {
	for net in host bridge slirp4netns ""; do
		sandbox --network "$net" -- true
		assert_error_line
		[[ "$stderr" == *"--network"* ]] || fail "--network $net: $stderr"
	done
	sandbox --network none -- true
	assert_success
	assert_root_empty
}

@test "sandbox: a widening --timeout fails with the reason and leaves nothing" {
	sandbox --timeout 99999 -- true
	assert_error_line
	[[ "$stderr" == *"run.corral.timeout=99999"*"wider than the policy"* ]] || fail "$stderr"
	assert_root_empty
}

@test "sandbox: no command is a usage error" {
	sandbox --
	assert_error_line
	[[ "$stderr" == *usage* ]] || fail "$stderr"
	assert_root_empty
}
