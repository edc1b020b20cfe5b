#!/usr/bin/env bats
# Bad input: every failure is one line "corral: WHAT: WHY" on stderr, a
# non-zero exit, and nothing left behind.

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

# create_fails [-r] PATTERN...: `corral create` (with -r: `corral run`) of
# $ID fails with one error line holding every PATTERN, and leaves no state
# directory, mount or process behind.
create_fails() {
	local cmd=create p
	if [ "$1" = -r ]; then
		cmd=run
		shift
	fi
	run --separate-stderr corral "$cmd" --bundle "$BUNDLE" "$ID"
	assert_error_line
	assert_output ""
	for p in "$@"; do
		[[ "$stderr" == *"$p"* ]] || fail "\"$p\" not in the error: $stderr"
	done
	assert_no_leftovers "$ID"
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ] || fail "left in $ROOT: $(ls -A "$ROOT")"
}

# fails_with PATTERN -- COMMAND...: one error line holding PATTERN.
fails_with() {
	local pattern="$1"
	shift 2
	run --separate-stderr "$@"
	assert_error_line
	[[ "$stderr" == *"$pattern"* ]] || fail "\"$pattern\" not in the error: $stderr"
}

@test "malformed JSON in config.json" {
	printf '{ "ociVersion": "1.2.0", "process": ' >"$BUNDLE/config.json"
	create_fails config.json JSON
	create_fails -r config.json JSON
}

@test "JSON that is not an object" {
	echo '[1, 2, 3]' >"$BUNDLE/config.json"
	create_fails config.json
}

@test "a wrong type names the field and what was expected" {
	update_config '.process.args = "sh"'
	create_fails config.json .process.args expected
	create_fails -r .process.args expected
}

@test "missing process.args" {
	update_config 'del(.process.args)'
	create_fails .process.args
}

@test "an AppArmor profile or SELinux label the host cannot apply" {
	[ -w /proc/self/attr/apparmor/exec ] && skip "AppArmor is enabled here"
	update_config '.process.apparmorProfile = "corral-test"'
	create_fails .process.apparmorProfile
	[ -e /sys/fs/selinux/enforce ] && skip "SELinux is enabled here"
	update_config 'del(.process.apparmorProfile) | .process.selinuxLabel = "system_u:system_r:container_t:s0"'
	create_fails .process.selinuxLabel
}

@test "empty process.args" {
	update_config '.process.args = []'
	create_fails .process.args
}

@test "an error of the child before GO is its own, however soon it exits" {
	# The child checks rootfsPropagation while create still makes the
	# cgroup: it can be gone before GO is sent (the send fails), or leave
	# GO unread (create's next receive fails with ECONNRESET). Either
	# way create must print the child's error, not the socket's.
	update_config '.linux.rootfsPropagation = "bogus"'
	for i in $(seq 20); do
		create_fails 'rootfsPropagation: unknown value "bogus"'
	done
}

@test "missing config.json" {
	rm "$BUNDLE/config.json"
	create_fails config.json
}

@test "missing rootfs" {
	rm -rf "$ROOTFS"
	create_fails rootfs "No such file or directory"
}

@test "a rootfs that is not a directory" {
	rm -rf "$ROOTFS"
	echo file >"$ROOTFS"
	create_fails rootfs
}

@test "a bundle that does not exist" {
	run --separate-stderr corral create --bundle "$BATS_TEST_TMPDIR/none" "$ID"
	assert_error_line
	[[ "$stderr" == *"$BATS_TEST_TMPDIR/none"* ]]
	assert_no_leftovers "$ID"
}

@test "a workload that cannot be executed" {
	set_args /bin/no-such-program
	# 127, as a shell reports a command it cannot run
	run -127 --separate-stderr corral run --bundle "$BUNDLE" "$ID"
	[[ "$stderr" == *no-such-program* ]] || fail "not named: $stderr"
	assert_no_leftovers "$ID"
}

@test "unknown command" {
	fails_with 'unknown command "frobnicate"' -- corral frobnicate
	fails_with 'unknown command' -- corral frobnicate "$ID"
	assert_no_leftovers "$ID"
}

@test "unknown flag" {
	fails_with '--bogus' -- corral create --bogus --bundle "$BUNDLE" "$ID"
	assert_no_leftovers "$ID"
	fails_with '--bogus' -- corral --bogus list
	fails_with '-z' -- corral delete -z "$ID"
	fails_with '--bogus' -- corral state --bogus "$ID"
	fails_with '--log-format' -- corral --log-format yaml list
}

@test "a missing argument prints the usage" {
	fails_with usage -- corral create --bundle "$BUNDLE"
	fails_with usage -- corral start
	fails_with usage -- corral state "$ID" extra
	fails_with 'missing argument for --bundle' -- corral create --bundle
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ]
	[ -z "$(bundle_pids)" ]
}

@test "bad container IDs are refused by every command" {
	for bad in a/b .hidden "" .. ../x "a b"; do
		fails_with 'invalid container ID' -- \
			corral create --bundle "$BUNDLE" "$bad"
		fails_with 'invalid container ID' -- \
			corral run --bundle "$BUNDLE" "$bad"
		for cmd in start state kill delete; do
			fails_with 'invalid container ID' -- corral "$cmd" "$bad"
		done
		[ -z "$(ls -A "$ROOT" 2>/dev/null)" ] ||
			fail "ID \"$bad\" left: $(ls -A "$ROOT")"
	done
	[ ! -e "$BATS_TEST_TMPDIR/x" ] && [ ! -e "$BATS_TEST_TMPDIR/a" ]
	[ -z "$(bundle_pids)" ]
}

@test "create of an existing ID fails and leaves the first container alone" {
	set_args sleep 100
	create_container "$ID"
	pid="$(container_pid "$ID")"
	track_pid "$pid"

	fails_with 'already exists' -- corral create --bundle "$BUNDLE" "$ID"
	[[ "$stderr" == *"$ID"* ]]
	fails_with 'already exists' -- corral run --bundle "$BUNDLE" "$ID"

	[ "$(state_field "$ID" status)" = created ]
	[ "$(container_pid "$ID")" = "$pid" ]
	# the only process in the bundle is the first container's
	assert_equal "$(bundle_pids)" "$pid"
	run corral start "$ID"
	assert_success
	[ "$(state_field "$ID" status)" = running ]
}

@test "start of a running container fails" {
	set_args sleep 100
	run_detached "$ID"
	pid="$(container_pid "$ID")"
	track_pid "$pid"

	fails_with running -- corral start "$ID"
	[ "$(state_field "$ID" status)" = running ]
	[ "$(container_pid "$ID")" = "$pid" ]
}

@test "start of a stopped container fails" {
	set_args true
	create_container "$ID"
	track_pid "$(container_pid "$ID")"
	corral start "$ID"
	wait_for_status "$ID" stopped

	fails_with stopped -- corral start "$ID"
	[ "$(state_field "$ID" status)" = stopped ]
}

@test "delete of a running container without --force fails" {
	set_args sleep 100
	run_detached "$ID"
	pid="$(container_pid "$ID")"
	track_pid "$pid"

	fails_with running -- corral delete "$ID"
	[ "$(state_field "$ID" status)" = running ]
	kill -0 "$pid"
	[ -d "$ROOT/$ID" ]
}

@test "commands on a container that does not exist" {
	for cmd in start state kill delete; do
		fails_with "container $ID does not exist" -- corral "$cmd" "$ID"
	done
}

# Engines put logs in directories others may write: the log is never
# written through a link at its end, a FIFO (which would block), or a
# hard link to another file.
@test "--log FILE that is a symbolic link, a FIFO or a hard link is not written" {
	target="$BATS_TEST_TMPDIR/target"
	echo precious >"$target"
	ln -s "$target" "$BATS_TEST_TMPDIR/link.log"
	ln "$target" "$BATS_TEST_TMPDIR/hard.log"
	mkfifo "$BATS_TEST_TMPDIR/fifo.log"
	update_config '.process.args = "sh"'
	for log in link hard fifo; do
		run --separate-stderr timeout 10 "$CORRAL" --root "$ROOT" \
			--log "$BATS_TEST_TMPDIR/$log.log" --log-format json \
			create --bundle "$BUNDLE" "$ID" 3>&-
		assert_error_line
	done
	assert_equal "$(cat "$target")" precious
	assert_no_leftovers "$ID"
}

@test "--log FILE --log-format json gets the error as one JSON line" {
	log="$BATS_TEST_TMPDIR/corral.log"
	update_config '.process.args = "sh"'
	run --separate-stderr corral --log "$log" --log-format json create \
		--bundle "$BUNDLE" "$ID"
	assert_error_line

	[ "$(wc -l <"$log")" -eq 1 ] || fail "log: $(cat "$log")"
	jq -e . "$log" >/dev/null || fail "not JSON: $(cat "$log")"
	assert_equal "$(jq -r .level "$log")" error
	# the same message as on stderr
	assert_equal "corral: $(jq -r .msg "$log")" "$stderr"
	assert_regex "$(jq -r .time "$log")" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T'
	assert_no_leftovers "$ID"

	# a second failure appends a second line
	run --separate-stderr corral --log "$log" --log-format json state "$ID"
	assert_error_line
	[ "$(wc -l <"$log")" -eq 2 ]
	assert_equal "$(jq -rs '.[1].msg' "$log")" "container $ID does not exist"
}

@test "--log with a message that needs JSON escaping" {
	log="$BATS_TEST_TMPDIR/corral.log"
	run --separate-stderr corral --log "$log" --log-format json \
		create --bundle "$BATS_TEST_TMPDIR/a \"quoted\\ dir" "$ID"
	assert_error_line
	[ "$(wc -l <"$log")" -eq 1 ]
	assert_equal "corral: $(jq -r .msg "$log")" "$stderr"
}
