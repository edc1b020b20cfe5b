# Common setup for corral's integration tests (bats-core >= 1.5, run as root).
#
# Each test gets, under its own $BATS_TEST_TMPDIR:
#   $ROOT    corral's state directory (every corral call gets --root "$ROOT")
#   $BUNDLE  a bundle: busybox-static in rootfs/ and `corral spec`'s config.json
#   $ID      a container ID unique to the test
# A .bats file calls corral_setup_file from setup_file() (it builds the
# bundle once per file), corral_setup from setup() (a fresh copy per test)
# and corral_teardown from teardown(): it deletes every container of
# $ROOT, kills the processes the test recorded with track_pid, and fails
# the test if anything is left behind.  Set CORRAL to test another binary.

# shellcheck disable=SC2034,SC2154
# (ID, BG_STATUS ... are used by the .bats files; output, lines, stderr and
# stderr_lines are set by bats' run.)

bats_require_minimum_version 1.5.0

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

REPO_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
CORRAL="${CORRAL:-$REPO_ROOT/corral}"
RECVTTY="${RECVTTY:-$REPO_ROOT/build/helpers/recvtty}"
BUSYBOX="${BUSYBOX:-/bin/busybox}"

# The applets the tests use; each is a symlink to /bin/busybox in the rootfs.
APPLETS=(sh cat echo env grep sed awk ls id hostname sleep tty touch mkdir
	 wc true false kill stat sort head tr printf rm nc)

# corral with this test's state root.  fd 3 is bats' own output channel: a
# container that inherited it would make bats wait for it.
corral() {
	"$CORRAL" --root "$ROOT" "$@" 3>&-
}

corral_setup_file() {
	[ -x "$CORRAL" ] || fail "corral binary $CORRAL not found: run make"
	make_bundle "$BATS_FILE_TMPDIR/bundle"
}

corral_setup() {
	ROOT="$BATS_TEST_TMPDIR/state"
	BUNDLE="$BATS_TEST_TMPDIR/bundle"
	ROOTFS="$BUNDLE/rootfs"
	ID="ct-$BATS_TEST_NUMBER-$$"
	TRACKED_PIDS=()
	MARKER=""
	setup_bundle
}

# setup_bundle: this test's own copy of the file's bundle, with a marker
# file in its rootfs that names the test (see bundle_pids).
setup_bundle() {
	cp -a "$BATS_FILE_TMPDIR/bundle" "$BUNDLE" || fail "copy the bundle"
	MARKER=".corral-test-$BATS_TEST_NUMBER-$$-$RANDOM"
	: >"$ROOTFS/$MARKER"
}

# make_bundle DIR: a busybox rootfs and corral's default config.json.  The
# mount points exist already, as in any image, so a container never has
# a reason to write to the bundle.
make_bundle() {
	local bundle="$1" dir applet
	mkdir -p "$bundle/rootfs/bin"
	for dir in proc sys dev tmp etc root; do
		mkdir -p "$bundle/rootfs/$dir"
	done
	cp "$BUSYBOX" "$bundle/rootfs/bin/busybox"
	for applet in "${APPLETS[@]}"; do
		ln -s busybox "$bundle/rootfs/bin/$applet"
	done
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >"$bundle/rootfs/etc/passwd"
	echo 'nogroup:x:65534:' >"$bundle/rootfs/etc/group"
	"$CORRAL" spec -b "$bundle" || fail "corral spec failed"
}

# update_config FILTER [JQ ARGS...]: edit the bundle's config.json with jq.
update_config() {
	local filter="$1"
	shift
	if ! jq "$filter" "$BUNDLE/config.json" "$@" >"$BUNDLE/config.json.new" ||
		! mv "$BUNDLE/config.json.new" "$BUNDLE/config.json"; then
		fail "update_config $filter failed"
	fi
}

# set_args ARG...: the workload's argv.  Each one goes in through --arg,
# which jq never mistakes for one of its own options (as it would "-c").
set_args() {
	local i=0 arg refs="" jqargs=()
	for arg in "$@"; do
		jqargs+=(--arg "a$i" "$arg")
		refs+="${refs:+,}\$a$i"
		i=$((i + 1))
	done
	update_config ".process.args = [$refs]" "${jqargs[@]}"
}

# create_container ID [CREATE FLAGS...]: create in $BUNDLE.  The
# container's stdio (and create's errors) go to files $BATS_TEST_TMPDIR/ID.out
# and ID.err: a container that outlives the command must not hold the pipe
# of a bats `run`.  At most 60 s (bounded, below).
create_container() {
	local id="$1"
	shift
	corral_bounded 60 create --bundle "$BUNDLE" "$@" "$id" \
		</dev/null >>"$BATS_TEST_TMPDIR/$id.out" 2>>"$BATS_TEST_TMPDIR/$id.err"
}

# run_detached ID [RUN FLAGS...]: corral run -d, stdio to files as above.
run_detached() {
	local id="$1"
	shift
	corral_bounded 60 run -d --bundle "$BUNDLE" "$@" "$id" \
		</dev/null >>"$BATS_TEST_TMPDIR/$id.out" 2>>"$BATS_TEST_TMPDIR/$id.err"
}

# bounded SECONDS COMMAND...: COMMAND (a function too) that may wait on
# corral at most SECONDS.  Every wait of a test on corral (run, start,
# exec, sandbox) goes through it (or corral_bounded, or `timeout` where no
# container can hold the test's output), so that a regression that makes
# the guarded thing succeed (a loop that should have died) fails the test
# in bounded time instead of hanging the suite.  COMMAND runs in this
# shell, so corral is its child as without the bound (a pod's members
# must come from the process that made their pod sandbox); a watchdog
# beside it, past SECONDS, kills this shell's other children (COMMAND's
# processes) and every container of the test's state root (one that
# holds the output pipe of a bats `run` would keep the test waiting).
# Then it returns 124 with a line on stderr.
bounded() {
	local secs="$1" me="$BASHPID" dog status=0 id
	local fired="$BATS_TEST_TMPDIR/.bounded.$BASHPID.$RANDOM"
	shift
	(
		trap 'kill "$nap" 2>/dev/null; exit 0' TERM
		sleep "$secs" &
		nap=$!
		wait "$nap"
		trap '' TERM # fired: the shell's kill waits for the deletes
		: >"$fired"
		for c in $(cat /proc/"$me"/task/*/children); do
			[ "$c" = "$BASHPID" ] || kill -KILL "$c"
		done
		for id in $(state_entries); do
			corral delete --force "$id"
		done
	) </dev/null >/dev/null 2>&1 3>&- &
	dog=$!
	"$@" || status=$?
	kill "$dog" 2>/dev/null || true
	wait "$dog" 2>/dev/null || true
	if [ -e "$fired" ]; then
		rm -f "$fired"
		echo "bounded: $1 ${2:-} still waiting after ${secs}s: killed" >&2
		return 124
	fi
	return "$status"
}

# corral_bounded SECONDS ARG...: `corral ARG...` (the function, which a
# file may redefine: the rootless battery's runs it as a user), bounded.
corral_bounded() {
	bounded "$1" corral "${@:2}"
}

# run_files COMMAND...: bats' `run --separate-stderr COMMAND...` through
# files, bounded (60 s): a container that COMMAND made (a create that
# should have been refused) keeps its stdio open, and would keep a `run`
# waiting on its pipe.  Sets status, output, stderr, lines, stderr_lines.
run_files() {
	local out="$BATS_TEST_TMPDIR/.run_files.out" err="$BATS_TEST_TMPDIR/.run_files.err"
	status=0
	bounded 60 "$@" >"$out" 2>"$err" || status=$?
	output="$(cat "$out")"
	stderr="$(cat "$err")"
	mapfile -t lines <"$out"
	mapfile -t stderr_lines <"$err"
}

# state_field ID FIELD: one field of `corral state`.
state_field() {
	corral state "$1" | jq -r ".$2"
}

container_pid() {
	state_field "$1" pid
}

# poll_equal WHAT WANT TENTHS CMD...: run CMD every 50ms until it prints
# WANT, for at most TENTHS tenths of a second; fails naming WHAT.
# (All the waits poll every 50ms and take their limit in tenths of a second.)
poll_equal() {
	local what="$1" want="$2" tries=$(($3 * 2)) got=""
	shift 3
	while [ "$tries" -gt 0 ]; do
		# a CMD that fails is polled again, not the test's end (errexit)
		got="$("$@" 2>/dev/null)" || true
		[ "$got" = "$want" ] && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	fail "$what: \"$got\", expected \"$want\""
}

# wait_for_status ID STATUS [TENTHS]: poll `corral state` (default 5s).
wait_for_status() {
	poll_equal "container $1: status" "$2" "${3:-50}" state_field "$1" status
}

# state_entries: the container directories in $ROOT; .seccomp is corral's
# cache of compiled filters, no container's.
state_entries() {
	local e
	for e in "$ROOT"/* "$ROOT"/.[!.]*; do
		[ -e "$e" ] && [ "${e##*/}" != .seccomp ] && echo "${e##*/}"
	done
	return 0
}

# wait_for_file FILE [PATTERN] [TENTHS]: until FILE exists (and holds
# PATTERN, a grep -E expression).
wait_for_file() {
	local file="$1" pattern="${2:-}" tries=$((${3:-50} * 2))
	while [ "$tries" -gt 0 ]; do
		if [ -e "$file" ] &&
			{ [ -z "$pattern" ] || grep -Eq -- "$pattern" "$file"; }; then
			return 0
		fi
		sleep 0.05
		tries=$((tries - 1))
	done
	fail "timed out waiting for $file${pattern:+ to contain \"$pattern\"}"
}

# proc_start_time PID: the start time of PID (field 22 of its stat), so a
# recorded pid is never confused with a later process that reuses it.
proc_start_time() {
	local stat fields
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	read -r -a fields <<<"${stat##*) }"
	echo "${fields[19]}"
}

# Remember a pid this test started; the teardown kills it if it is still
# alive (and still the same process).
track_pid() {
	local start
	start="$(proc_start_time "$1")" || start=gone
	TRACKED_PIDS+=("$1:$start")
}

# run_in_background OUT [ERR]: `corral run` of this test's bundle as a
# background job of this shell, its stdout in OUT and its stderr in ERR
# (or OUT too); its pid in RUN_PID, tracked.  wait_bg waits for it.
run_in_background() {
	local out="$1" err="${2:-$1}"
	if [ "$err" = "$out" ]; then
		corral run --bundle "$BUNDLE" "$ID" </dev/null >"$out" 2>&1 &
	else
		corral run --bundle "$BUNDLE" "$ID" </dev/null >"$out" 2>"$err" &
	fi
	RUN_PID=$!
	track_pid "$RUN_PID"
}

# A pid is gone when it no longer exists or is a zombie: a zombie is dead,
# only waiting for the host's init (not ours to hurry) to reap it.
pid_gone() {
	local pid="$1" stat
	kill -0 "$pid" 2>/dev/null || return 0
	read -r stat 2>/dev/null <"/proc/$pid/stat" || return 0
	stat="${stat##*) }"
	[ "${stat%% *}" = Z ]
}

# wait_pid_gone PID [TENTHS]
wait_pid_gone() {
	local pid="$1" tries=$((${2:-50} * 2))
	while [ "$tries" -gt 0 ]; do
		pid_gone "$pid" && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	fail "process $pid is still alive"
}

# wait_bg PID [TENTHS]: wait for PID, a background job of this shell, at
# most TENTHS (default 10s) so a test cannot hang; its exit status goes to
# BG_STATUS (not echoed: `wait` must run in this shell, not in a $(...)).
wait_bg() {
	local pid="$1" tries=$((${2:-100} * 2))
	while [ "$tries" -gt 0 ] && ! pid_gone "$pid"; do
		sleep 0.05
		tries=$((tries - 1))
	done
	pid_gone "$pid" || fail "background process $pid did not exit"
	BG_STATUS=0
	wait "$pid" || BG_STATUS=$?
}

# The processes of this test's containers: their root shows the rootfs's
# marker file (through /proc/PID/root, whether the root is the rootfs
# itself or an overlay on it), or, before pivot_root, their working
# directory is the bundle.  -ef compares device and inode through the
# /proc magic link, which readlink would only show as "/".
bundle_pids() {
	local p bundle="" rootfs=""
	[ -n "$MARKER" ] || return 0
	# Only directories of the test's own: a test that turned $ROOTFS into
	# a link to / must not make every process on the machine "its".
	own_dir "$BUNDLE" && bundle="$BUNDLE"
	own_dir "$ROOTFS" && rootfs="$ROOTFS"
	for p in /proc/[0-9]*; do
		if { [ -e "$p/root/$MARKER" ] && ! [ "$p/root" -ef / ]; } ||
			{ [ -n "$bundle" ] && [ "$p/cwd" -ef "$bundle" ]; } ||
			{ [ -n "$rootfs" ] && [ "$p/cwd" -ef "$rootfs" ]; }; then
			echo "${p#/proc/}"
		fi
	done
}

# own_dir PATH: PATH is a real directory (no link) below this test's or
# this file's temporary directory.
own_dir() {
	local real
	[ -d "$1" ] && [ ! -L "$1" ] || return 1
	real="$(realpath -e "$1" 2>/dev/null)" || return 1
	[[ "$real" == "$(realpath "$BATS_TEST_TMPDIR")"/* ||
		"$real" == "$(realpath "$BATS_FILE_TMPDIR")"/* ]]
}

# assert_error_line: the last `run --separate-stderr` failed with exactly
# one line "corral: ..." on stderr.
assert_error_line() {
	assert_failure
	[ "${#stderr_lines[@]}" -eq 1 ] ||
		fail "expected one line on stderr, got ${#stderr_lines[@]}: $stderr"
	[[ "$stderr" == "corral: "?* ]] ||
		fail "stderr does not start with \"corral: \": $stderr"
}

# assert_no_leftovers ID: nothing of container ID survives: no state
# directory, no mount of the bundle, no process in the bundle.
assert_no_leftovers() {
	local id="$1" pids
	[ ! -e "$ROOT/$id" ] || fail "state directory $ROOT/$id is left"
	run --separate-stderr corral state "$id"
	assert_failure
	[[ "$stderr" == *"does not exist"* ]] ||
		fail "state $id: expected \"does not exist\", got: $stderr"
	if grep -F -- "$BUNDLE" /proc/self/mountinfo; then
		fail "a mount of $BUNDLE is left in the host's mount namespace"
	fi
	pids="$(bundle_pids)"
	[ -z "$pids" ] || fail "processes left in the bundle: $pids"
	pids="$(ls -d /sys/fs/cgroup/corral/"$id" /sys/fs/cgroup/*/corral/"$id" \
		2>/dev/null || true)"
	[ -z "$pids" ] || fail "cgroup directories left: $pids"
}

corral_teardown() {
	local entry id pid left problems=""

	if [ -d "$ROOT" ]; then
		# list -q skips directories without a readable state: delete
		# --force every entry, which also removes those.
		for id in $("$CORRAL" --root "$ROOT" list -q 2>/dev/null 3>&-) \
			$(state_entries); do
			"$CORRAL" --root "$ROOT" delete --force "$id" 3>&- >/dev/null 2>&1 ||
				problems+="delete --force $id failed; "
		done
		left="$(state_entries)"
		[ -z "$left" ] || problems+="state dir entries left: $left; "
	fi
	# what the test started itself (recvtty, a backgrounded corral run)
	for entry in "${TRACKED_PIDS[@]}"; do
		pid="${entry%%:*}"
		if [ -n "$pid" ] && ! pid_gone "$pid" &&
			[ "$(proc_start_time "$pid")" = "${entry#*:}" ]; then
			kill -KILL "$pid" 2>/dev/null
		fi
		[ -z "$pid" ] || wait "$pid" 2>/dev/null || true
	done
	# a container process that survived all that is a runtime bug
	left="$(bundle_pids)"
	if [ -n "$left" ]; then
		problems+="container processes left: $left; "
		for pid in $left; do
			kill -KILL "$pid" 2>/dev/null
		done
	fi
	# a slice of a user-namespace pool (runtime/state/userns_pool.h) still
	# held for a container of this test's state root
	left="$(userns_slices_of "$ROOT")"
	if [ -n "$left" ]; then
		problems+="user-namespace slices left: $left; "
		(cd /run/corral-userns && rm -f -- $left)
	fi
	[ -z "$problems" ] || fail "teardown: $problems"
}

# userns_slices_of ROOT: the slices of /run/corral-userns held for a
# container of state root ROOT (the holder file's first line).
userns_slices_of() {
	local f
	[ -d /run/corral-userns ] || return 0
	for f in /run/corral-userns/*; do
		[ -f "$f" ] && [ "$(head -n 1 "$f")" = "$1" ] && printf '%s ' "${f##*/}"
	done
	return 0
}

# A /sys/fs/cgroup of a test's own, for tests that need v1 hierarchies
# this host does not mount.  cgroupfs_prelude prints the start of a bash
# script to run under `unshare -m --propagation private`: it builds a
# tmpfs with the host's hierarchies bound into it and puts it over
# /sys/fs/cgroup (the host's is not touched), and defines
# `add_hierarchy DIR OPTIONS [LINK...]`, which mounts a v1 hierarchy at
# DIR there with its links, or prints "skip: ..." and exits when it
# cannot.  A hierarchy the script made lives on in the kernel until an
# unmount leaves it without a child: cgroupfs_destroy NAME... (after the
# script) mounts and unmounts each until /proc/self/cgroup no longer
# lists it.  Only a hierarchy the kernel did not have is to be added.
cgroupfs_prelude() {
	cat <<'PRELUDE'
set -eu
t="$(mktemp -d "$BATS_TEST_TMPDIR/cgroupfs.XXXXXX")"
mount -t tmpfs -o mode=755 tmpfs "$t"
for e in /sys/fs/cgroup/*; do
	n="$(basename "$e")"
	if [ -L "$e" ]; then
		ln -s "$(readlink "$e")" "$t/$n"
	else
		mkdir "$t/$n"
		mount --bind "$e" "$t/$n"
	fi
done
add_hierarchy() {
	local dir="$1" opts="$2" link
	shift 2
	mkdir "$t/$dir"
	mount -t cgroup -o "$opts" cgroup "$t/$dir" ||
		{ echo "skip: cannot mount a $opts hierarchy"; exit 0; }
	for link in "$@"; do
		ln -s "$dir" "$t/$link"
	done
}
PRELUDE
}

# cgroupfs_take: the line that puts the script's tmpfs in place of
# /sys/fs/cgroup, once its hierarchies are added.
cgroupfs_take() {
	echo 'umount -l /sys/fs/cgroup && mount --move "$t" /sys/fs/cgroup'
}

# cgroupfs_listed NAME: /proc/self/cgroup has a line for the hierarchy
# NAME ("perf_event", "net_cls,net_prio", "name=x").
cgroupfs_listed() {
	awk -F: -v o="$1" '$2 == o { found = 1 } END { exit !found }' /proc/self/cgroup
}

# cgroupfs_destroy NAME...: as /proc/self/cgroup names them.
cgroupfs_destroy() {
	local name opts i
	for name in "$@"; do
		opts="$name"
		[[ "$name" != name=* ]] || opts="none,$name"
		for i in $(seq 50); do
			cgroupfs_listed "$name" || break
			unshare -m --propagation private sh -c 'mount -t cgroup \
				-o "$2" cgroup "$1" && umount "$1"' \
				- "$BATS_TEST_TMPDIR" "$opts" 2>/dev/null || true
			sleep 0.1
		done
		! cgroupfs_listed "$name" ||
			fail "the test's $name hierarchy stayed in the kernel"
	done
}
