#!/usr/bin/env bats
# Every host path class reached through a symbolic link: a policy mounts
# entry, an engineDirs entry, the console socket, the sandbox workspace
# (opened once without following a link: runtime/fs/hostpath.c
# hostpath_open), a link below a mounts entry that does not say
# followLinks (hostpath_open_beneath), and a source that is no longer
# below its entry when create checks what it opened (hostpath_check_under).
# The policy's paths and the caller's are trusted text, but each must be a
# real path: "fails create and names the link" (docs/threat-model.md,
# "Every host path is opened once ...").  tests/security/README.md,
# "Host paths through links", lists them.

# shellcheck disable=SC2016,SC2154
# (jq programs are single-quoted on purpose; status, output and stderr are
# set by capture)

load hostile

setup_file() {
	[ -x "$RECVTTY" ] || fail "$RECVTTY not found: run make helpers"
	hostile_setup_file
}

setup() {
	hostile_setup
	policy="$BATS_TEST_TMPDIR/policy.json"
	# REAL holds the data, LINK -> REAL is the way through a link
	REAL="$BATS_TEST_TMPDIR/real"
	LINK="$BATS_TEST_TMPDIR/link"
	mkdir -p "$REAL"
	ln -s "$REAL" "$LINK"
}

teardown() {
	hostile_teardown
}

@test "host links: a policy mounts entry reached through a link fails create, naming the link" {
	mkdir "$REAL/share"
	echo "shared $$" >"$REAL/share/file"
	allow_policy "$policy" "$LINK/share"
	add_bind "$LINK/share" /share
	workload '[ -e /share/file ] && echo "LEAK the entry through its link"'
	hostile_run --policy "$policy"
	assert_refused "$LINK/share: $LINK is a symbolic link (not followed)"
	# control: the same entry by its real path is mounted
	base_config
	allow_policy "$policy" "$REAL/share"
	add_bind "$REAL/share" /share
	workload '[ -e /share/file ] || echo "LEAK? the real entry is not mounted"'
	hostile_run --policy "$policy"
	assert_contained
}

@test "host links: an engineDirs entry reached through a link fails create, naming the link" {
	mkdir -p "$REAL/engine/$ID"
	echo "127.0.0.1 engine-hosts-$$" >"$REAL/engine/$ID/hosts"
	write_policy "$policy" '{engineDirs: [$e]}' --arg e "$LINK/engine"
	add_bind "$LINK/engine/$ID/hosts" /etc/hosts '["rbind", "ro"]'
	workload 'grep -q engine-hosts /etc/hosts && echo "LEAK the engine file through its link"'
	hostile_run --policy "$policy"
	assert_refused "$LINK is a symbolic link (not followed)"
	base_config
	write_policy "$policy" '{engineDirs: [$e]}' --arg e "$REAL/engine"
	add_bind "$REAL/engine/$ID/hosts" /etc/hosts '["rbind", "ro"]'
	workload 'grep -q engine-hosts /etc/hosts || echo "LEAK? the engine file is not there"'
	hostile_run --policy "$policy"
	assert_contained
}

@test "host links: a console socket reached through a link fails create, naming the link" {
	local got="$BATS_TEST_TMPDIR/tty.out"
	"$RECVTTY" "$REAL/console.sock" '' </dev/null >"$got" 2>&1 3>&- &
	track_pid "$!"
	wait_for_file "$REAL/console.sock"
	update_config '.process.terminal = true'
	workload true
	capture corral_t 30 create --bundle "$BUNDLE" \
		--console-socket "$LINK/console.sock" "$ID" </dev/null
	assert_refused "console socket $LINK/console.sock: $LINK is a symbolic link (not followed)"
	[ ! -s "$got" ] || fail "the console reached the socket: $(cat "$got")"
}

# The caller's own path is made real first (links in what the caller
# typed are the caller's), then opened without links: a directory swapped
# for a link in between is refused, naming it, never followed.  The
# swapper exchanges the workspace's first directory with a link to
# another directory of the allowed one while `sandbox --workspace` runs,
# until a run meets the link at the open.  The workspace lies 1000
# directories deeper, so that realpath's walk after that directory (a
# readlink of each prefix) takes longer than many swaps, even on a loaded
# machine: about one run in four meets the link.
@test "host links: a sandbox workspace reached through a link when it is opened is refused, naming the link" {
	local deep tries=0 named=0
	deep="$(printf '/d%.0s' $(seq 1000))"
	mkdir -p "$ALLOWED/top$deep" "$ALLOWED/other$deep"
	ln -s "$ALLOWED/other" "$ALLOWED/swap"
	allow_policy "$policy" "$ALLOWED" rw
	start_swapper "$ALLOWED/top" "$ALLOWED/swap" 120
	while [ "$tries" -lt 40 ] && [ "$named" -eq 0 ]; do
		tries=$((tries + 1))
		capture corral_t 20 --policy "$policy" sandbox \
			--workspace "$ALLOWED/top$deep" -- true </dev/null
		[[ "$stderr" != *": $ALLOWED/top is a symbolic link (not followed)"* ]] ||
			named=$((named + 1))
	done
	echo "# $tries tries, $named refused naming the link" >&3
	[ "$named" -gt 0 ] || fail "no try met the link at the open ($tries tries)"
}

@test "host links: a relative link inside a mounts entry without followLinks is refused, naming it" {
	mkdir -p "$ALLOWED/sub"
	echo "allowed data" >"$ALLOWED/sub/id"
	allow_policy "$policy" "$ALLOWED"
	ln -s sub "$ALLOWED/rel"
	add_bind "$ALLOWED/rel" /mnt
	workload '[ -e /mnt/id ] && echo "LEAK the link inside was followed"'
	hostile_run --policy "$policy"
	assert_refused "$ALLOWED/rel: $ALLOWED/rel is a symbolic link (not followed)"
}

# What was opened is checked, not the text that named it: a workspace
# directory that another process moves out of the allowed directory
# after the open (here the swapper exchanges it with a directory
# outside) is refused, naming where it is now.
@test "host links: a workspace moved out of the allowed directory after its open is refused" {
	local ws="$ALLOWED/ws" out="$BATS_TEST_TMPDIR/outside/ws" tries=0 moved=0
	mkdir -p "$ws" "$out"
	allow_policy "$policy" "$ALLOWED" rw
	start_swapper "$ws" "$out" 120
	while [ "$tries" -lt 40 ] && [ "$moved" -eq 0 ]; do
		tries=$((tries + 1))
		capture corral_t 20 --policy "$policy" sandbox --workspace "$ws" -- \
			true </dev/null
		[[ "$stderr" != *"opened $out, which is not below $ALLOWED"* ]] ||
			moved=$((moved + 1))
	done
	echo "# $tries tries, $moved refused as moved out" >&3
	[ "$moved" -gt 0 ] || fail "no try was refused for a workspace moved out ($tries tries)"
}
