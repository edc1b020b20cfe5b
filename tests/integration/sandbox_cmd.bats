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

@test "sandbox: --workspace of the caller's own directory is mounted read-write; what the workload writes there is the caller's; the log and the report name it" {
	local ws="$BATS_TEST_TMPDIR/ws"
	mkdir "$ws" && echo data >"$ws/file" && mkdir "$ws/sub"
	run --separate-stderr corral --log "$BATS_TEST_TMPDIR/log" sandbox \
		--workspace "$ws" --report "$BATS_TEST_TMPDIR/report.json" -- \
		sh -c 'cat /workspace/file; id -u; echo new >/workspace/out; rm -r /workspace/file /workspace/sub' </dev/null
	assert_success
	assert_line --index 0 data
	# the workload is nobody, and still the directory's owner inside
	assert_line --index 1 65534
	assert_equal "$(cat "$ws/out")" new
	[ ! -e "$ws/file" ] && [ ! -e "$ws/sub" ] || fail "the workload could not delete in its workspace"
	# on the host what it wrote is the caller's, not nobody's
	assert_equal "$(stat -c %u:%g "$ws/out")" "$(id -u):$(id -g)"
	grep -q "sandbox.workspace: $ws -> /workspace, read-write (policy: workspace.allowOwn: the caller's own directory)" \
		"$BATS_TEST_TMPDIR/log" || fail "the runtime log: $(cat "$BATS_TEST_TMPDIR/log")"
	run jq -r '.files.rw_binds.binds[].path' "$BATS_TEST_TMPDIR/report.json"
	assert_output /workspace
	assert_root_empty
}

@test "sandbox: --workspace of a system, shared or home directory, or of another owner's, is refused with one line naming the key; nothing is made" {
	local d theirs="$BATS_TEST_TMPDIR/theirs" home="$BATS_TEST_TMPDIR/home"
	mkdir "$theirs" "$home" && chown 65534:65534 "$theirs"
	local mark="corral-ws-$BATS_TEST_NUMBER-$$"
	for d in /etc /usr/share / /tmp /var/lib /run; do
		sandbox --workspace "$d" -- touch "/workspace/$mark"
		assert_error_line
		[[ "$stderr" == "corral: workspace $d: "*" (policy: mounts)" ]] ||
			fail "--workspace $d: $stderr"
	done
	sandbox --workspace "$theirs" -- true
	assert_error_line
	assert_equal "$stderr" "corral: workspace $theirs: owned by uid 65534, not by the caller (uid $(id -u)) (policy: mounts)"
	HOME="$home" sandbox --workspace "$home" -- true
	assert_error_line
	[[ "$stderr" == "corral: workspace $home: a home directory is never a workspace"* ]] ||
		fail "\$HOME: $stderr"
	[ ! -e "/etc/$mark" ] && [ ! -e "/tmp/$mark" ] || fail "a refused workspace was written"
	assert_root_empty
}

@test "sandbox: workspace.allowOwn false refuses the caller's own; a mounts entry allows a workspace again" {
	local ws="$BATS_TEST_TMPDIR/ws"
	mkdir "$ws" && echo data >"$ws/file" && chmod 0777 "$ws"
	printf '{"workspace": {"allowOwn": false}}\n' >"$BATS_TEST_TMPDIR/off.json"
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/off.json" \
		sandbox --workspace "$ws" -- cat /workspace/file </dev/null
	assert_error_line
	assert_equal "$stderr" "corral: workspace $ws: the policy mounts no workspace of the caller's own (policy: workspace.allowOwn; or an entry of mounts)"
	refute_output data

	printf '{"mounts": [{"source": "%s", "rw": true}], "workspace": {"allowOwn": false}}\n' "$ws" \
		>"$BATS_TEST_TMPDIR/policy.json"
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/policy.json" \
		sandbox --workspace "$ws" -- sh -c 'cat /workspace/file; echo new >/workspace/out' </dev/null
	assert_success
	assert_output data
	assert_equal "$stderr" ""
	assert_equal "$(cat "$ws/out")" new
	assert_root_empty
}

@test "sandbox: --workspace named through a symbolic link is refused naming the link and its target; by its own path, or . from inside it, it is mounted" {
	local ws="$BATS_TEST_TMPDIR/ws" mark="corral-ws-$BATS_TEST_NUMBER-$$"
	mkdir "$ws" && echo data >"$ws/file"
	ln -s ws "$BATS_TEST_TMPDIR/link"
	sandbox --workspace "$BATS_TEST_TMPDIR/link" -- touch "/workspace/$mark"
	assert_error_line
	assert_equal "$stderr" "corral: workspace $BATS_TEST_TMPDIR/link: a symbolic link on the way (to $ws); a directory of the caller's own is mounted only when named without one (policy: workspace.allowOwn; or an entry of mounts)"
	[ ! -e "$ws/$mark" ] || fail "the workload ran in the workspace"
	assert_root_empty
	sandbox --workspace "$BATS_TEST_TMPDIR/link/../ws/" -- cat /workspace/file
	assert_success
	assert_output data
	(cd "$ws" && timeout 20 "$CORRAL" --root "$ROOT" sandbox --workspace . -- \
		cat /workspace/file </dev/null >"$BATS_TEST_TMPDIR/dot.out" 2>&1 3>&-) ||
		fail "--workspace .: $(cat "$BATS_TEST_TMPDIR/dot.out")"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/dot.out")" data
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
