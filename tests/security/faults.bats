#!/usr/bin/env bats
# Fault injection: corral killed with SIGKILL at random moments, a
# thousand run cycles, fifty containers at once, a full or read-only state
# root, a bundle removed under create.  Afterwards `delete --force` leaves
# nothing of the container (state directory, cgroup, mount, network
# namespace, process) and the same ID can be created again.
#
# Other agents run containers at the same time: every check looks only at
# what carries this test's ID prefix or --root (faults.bash).

# shellcheck disable=SC2034
# (PREFIX, OWN_MOUNTS are read by faults.bash)
# shellcheck disable=SC2154
# (stderr is set by capture, in faults.bash)

load faults

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	PREFIX="f$BATS_TEST_NUMBER-$$-"
	OWN_MOUNTS=()
	set_args sleep 100
}

teardown() {
	local m
	# writable again, so that delete can remove what a failed test left
	for m in ${OWN_MOUNTS[@]+"${OWN_MOUNTS[@]}"}; do
		mount -o remount,bind,rw "$m" 2>/dev/null || true
		mount -o remount,rw "$m" 2>/dev/null || true
	done
	corral_teardown
	# lazily: a mount still busy must not stay behind either
	for m in ${OWN_MOUNTS[@]+"${OWN_MOUNTS[@]}"}; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	assert_clean teardown
}

# ---- SIGKILL at random moments ------------------------------------------

# kill_randomly [-max MS] COMMAND ARGS...: `corral COMMAND ARGS...`
# SIGKILLed 0-50 ms (-max: 0-MS ms) after it started, timed to the
# microsecond by coreutils' timeout from its own fork (a shell's `sleep`
# costs about as long as a fast command takes, and so missed most of it):
# --foreground signals corral alone, as a kill of its pid would, and
# --preserve-status gives its own status, 137 only when the signal ended
# it.  A timeout of 0 would never fire: 1 us at least.  Each test's MS is
# about twice its command's time here, so that the kills fall all along
# it and some runs finish first.  Counts in KILLED the runs that the
# signal ended, in FINISHED those that had exited on their own.
kill_randomly() {
	local st=0 us secs max=50
	if [ "$1" = -max ]; then
		max="$2"
		shift 2
	fi
	us=$((((RANDOM << 15) | RANDOM) % (max * 1000) + 1))
	printf -v secs '%d.%06d' $((us / 1000000)) $((us % 1000000))
	timeout --foreground --preserve-status -s KILL "$secs" \
		"$CORRAL" --root "$ROOT" "$@" </dev/null >>"$BATS_TEST_TMPDIR/bg.out" \
		2>>"$BATS_TEST_TMPDIR/bg.err" 3>&- || st=$?
	if [ "$st" -eq 137 ]; then
		KILLED=$((KILLED + 1))
	else
		FINISHED=$((FINISHED + 1))
	fi
}

# after_kill ID: the state is readable or absent (never half-written),
# `delete --force` succeeds, nothing of ID is left, and ID can be created,
# started and deleted again.
after_kill() {
	local id="$1"
	capture corral_t 10 state "$id"
	if [ "$status" -eq 0 ]; then
		jq -e '.status | test("^(created|running|stopped)$")' <<<"$output" >/dev/null ||
			fail "$id: state after the kill: $output"
	else
		one_line_error "container $id does not exist"
	fi
	capture corral_t 30 delete --force "$id"
	[ "$status" -eq 0 ] || fail "delete --force $id: $stderr"
	assert_id_gone "$id"

	capture corral_t 30 create --bundle "$BUNDLE" "$id"
	[ "$status" -eq 0 ] || fail "create $id again: $stderr"
	capture corral_t 10 start "$id"
	[ "$status" -eq 0 ] || fail "start $id again: $stderr"
	capture corral_t 30 delete --force "$id"
	[ "$status" -eq 0 ] || fail "delete --force $id again: $stderr"
	assert_id_gone "$id"
}

# assert_id_gone ID: no state directory, cgroup, mount or process of ID.
assert_id_gone() {
	local id="$1" left
	[ ! -e "$ROOT/$id" ] || fail "$id: state directory left: $(ls -A "$ROOT/$id")"
	left="$(find /sys/fs/cgroup -type d -name "$id" 2>/dev/null || true)"
	[ -z "$left" ] || fail "$id: cgroups left: $left"
	! grep -F -e "$ROOT/" /proc/self/mountinfo || fail "$id: a mount is left"
	left="$(id_pids "$id")"
	[ -z "$left" ] || fail "$id: processes left: $left"
}

report_kills() {
	echo "# $1: $KILLED killed mid-way, $FINISHED finished first" >&3
}

@test "SIGKILL of create at random moments (50 tries)" {
	KILLED=0 FINISHED=0
	# a create takes about 10 ms
	for i in $(seq 50); do
		kill_randomly -max 20 create --bundle "$BUNDLE" "$PREFIX$i"
		after_kill "$PREFIX$i"
	done
	report_kills create
	[ "$KILLED" -gt 0 ] || fail "no create was killed mid-way"
}

@test "SIGKILL of start at random moments (50 tries)" {
	KILLED=0 FINISHED=0
	for i in $(seq 50); do
		corral create --bundle "$BUNDLE" "$PREFIX$i" </dev/null \
			>/dev/null 2>>"$BATS_TEST_TMPDIR/create.err" ||
			fail "create: $(cat "$BATS_TEST_TMPDIR/create.err")"
		# start takes about 4 ms
		kill_randomly -max 8 start "$PREFIX$i"
		after_kill "$PREFIX$i"
	done
	report_kills start
	[ "$KILLED" -gt 0 ] || fail "no start was killed mid-way"
}

@test "SIGKILL of exec at random moments (50 tries)" {
	KILLED=0 FINISHED=0
	for i in $(seq 50); do
		run_detached "$PREFIX$i" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$PREFIX$i.err")"
		# an exec of this sleep takes about 25 ms
		kill_randomly exec "$PREFIX$i" sh -c 'sleep 0.02'
		after_kill "$PREFIX$i"
	done
	report_kills exec
	[ "$KILLED" -gt 0 ] || fail "no exec was killed mid-way"
}

@test "SIGKILL of delete at random moments (50 tries)" {
	KILLED=0 FINISHED=0
	for i in $(seq 50); do
		run_detached "$PREFIX$i" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$PREFIX$i.err")"
		# a delete --force of a running container takes about 6 ms
		kill_randomly -max 12 delete --force "$PREFIX$i"
		after_kill "$PREFIX$i"
	done
	report_kills delete
	[ "$KILLED" -gt 0 ] || fail "no delete was killed mid-way"
}

# ---- many containers ----------------------------------------------------

# fd_list PID: PID's open fds and what they are, one per line.
fd_list() {
	find "/proc/$1/fd" -mindepth 1 -maxdepth 1 -printf '%f %l\n' | sort -n
}

# 1,000 cycles of `corral run` of /bin/true (FAULT_CYCLES=N for fewer),
# each with its own ID (every 100th prints its network namespace
# instead).  Nothing accumulates: this shell's fds, and the mounts,
# cgroups, state directories, processes and network namespaces of these
# containers.
@test "1,000 sequential run cycles leave nothing behind" {
	local ns_bundle="$BATS_TEST_TMPDIR/ns-bundle"
	cp -a "$BUNDLE" "$ns_bundle"
	jq '.process.args = ["readlink", "/proc/self/ns/net"]' \
		"$BUNDLE/config.json" >"$ns_bundle/config.json"
	ln -s busybox "$ns_bundle/rootfs/bin/readlink"
	set_args true
	host_ns="$(readlink /proc/self/ns/net)"
	# (listed from a subshell into files: a $(...) would show its own pipe
	# among the fds, and a redirected function call its redirection; bats
	# swaps some of its own pipes meanwhile, so the number is compared)
	self="$BASHPID"
	(fd_list $$) >"$BATS_TEST_TMPDIR/fds.parent.before"
	(fd_list "$self") >"$BATS_TEST_TMPDIR/fds.self.before"
	mounts_before="$(wc -l </proc/self/mountinfo)"
	start="$EPOCHREALTIME"
	seen=()
	for i in $(seq "${FAULT_CYCLES:-1000}"); do
		if [ $((i % 100)) -eq 0 ]; then
			ns="$("$CORRAL" --root "$ROOT" run --bundle "$ns_bundle" "$PREFIX$i" \
				</dev/null 2>"$BATS_TEST_TMPDIR/err" 3>&-)" ||
				fail "cycle $i: $(cat "$BATS_TEST_TMPDIR/err")"
			[[ "$ns" == net:\[*\] ]] || fail "cycle $i: printed \"$ns\""
			[ "$ns" != "$host_ns" ] || fail "cycle $i: the host's network namespace"
			seen+=("$ns")
			continue
		fi
		"$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$PREFIX$i" </dev/null \
			>/dev/null 2>"$BATS_TEST_TMPDIR/err" 3>&- ||
			fail "cycle $i: $(cat "$BATS_TEST_TMPDIR/err")"
	done
	elapsed="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
	echo "# ${FAULT_CYCLES:-1000} cycles: ${elapsed}s; host mountinfo lines $mounts_before -> $(wc -l </proc/self/mountinfo) (all agents)" >&3

	# a sampled namespace is gone, or its inode number went to someone
	# else's new namespace: none of its holders is ours
	mine="$(my_pids)"
	for ns in $(printf '%s\n' "${seen[@]}" | sort -u); do
		while IFS= read -r holder; do
			[ -n "$holder" ] || continue
			case "$holder" in
			"mount "*"$ROOT"* | "mount "*"$PREFIX"*)
				fail "$ns is still mounted: $holder" ;;
			mount*) ;;
			*) ! grep -qxF "$holder" <<<"$mine" ||
				fail "$ns is still held by our process $holder" ;;
			esac
		done <<<"$(netns_holders "$ns")"
	done
	(fd_list $$) >"$BATS_TEST_TMPDIR/fds.parent.after"
	(fd_list "$self") >"$BATS_TEST_TMPDIR/fds.self.after"
	for who in parent self; do
		[ "$(wc -l <"$BATS_TEST_TMPDIR/fds.$who.before")" -eq \
			"$(wc -l <"$BATS_TEST_TMPDIR/fds.$who.after")" ] ||
			fail "the fds of the $who shell changed: $(diff "$BATS_TEST_TMPDIR/fds.$who.before" \
				"$BATS_TEST_TMPDIR/fds.$who.after")"
	done
	# corral's parent cgroup holds none of these containers any more
	left="$(find /sys/fs/cgroup/*/corral -maxdepth 1 -type d -name "$PREFIX*" 2>/dev/null | wc -l)"
	assert_equal "$left" 0
	assert_clean "after 1000 cycles"
}

@test "50 containers created, started and deleted concurrently" {
	local pids=() i failed=""
	lifecycle() {
		local id="$1" log="$BATS_TEST_TMPDIR/$1.log"
		"$CORRAL" --root "$ROOT" create --bundle "$BUNDLE" "$id" </dev/null \
			>"$log" 2>&1 3>&- &&
			"$CORRAL" --root "$ROOT" start "$id" >>"$log" 2>&1 3>&- &&
			[ "$("$CORRAL" --root "$ROOT" state "$id" 3>&- | jq -r .status)" = running ] &&
			"$CORRAL" --root "$ROOT" delete --force "$id" >>"$log" 2>&1 3>&-
	}
	for i in $(seq 50); do
		lifecycle "$PREFIX$i" &
		pids+=("$!")
	done
	for i in $(seq 50); do
		wait_bg "${pids[$((i - 1))]}" 600
		[ "$BG_STATUS" -eq 0 ] || failed+=" $PREFIX$i($(cat "$BATS_TEST_TMPDIR/$PREFIX$i.log"))"
	done
	[ -z "$failed" ] || fail "failed:$failed"
	run corral list -q
	assert_success
	assert_output ""
	assert_clean "after 50 at once"
}

# ---- the state root -----------------------------------------------------

# own_tmpfs DIR OPTIONS: a tmpfs at DIR, unmounted by the teardown.
own_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "$2" tmpfs "$1" || fail "mount tmpfs $2 on $1"
	OWN_MOUNTS+=("$1")
}

# The tmpfs is filled so that 0 to 32 KiB are left: create stops at
# whichever write does not fit (config.json, policy.json, ... state.json)
# with one line, and nothing is left; with room enough it works.
@test "a full --root: one line, nothing left; with room, create works" {
	ROOT="$BATS_TEST_TMPDIR/full"
	own_tmpfs "$ROOT" size=64k,mode=0700
	failed=0 worked=0
	for free in 0 4 8 12 16 20 24 28 32; do
		id="$PREFIX$free"
		rm -f "$ROOT/fill"
		dd if=/dev/zero of="$ROOT/fill" bs=1k count=$((64 - free)) 2>/dev/null || true
		capture corral_t 20 create --bundle "$BUNDLE" "$id"
		if [ "$status" -eq 0 ]; then
			worked=$((worked + 1))
			capture corral_t 10 start "$id"
			assert_equal "$status" 0
			capture corral_t 30 delete --force "$id"
			[ "$status" -eq 0 ] || fail "delete $id: $stderr"
		else
			failed=$((failed + 1))
			one_line_error "create $id" "No space left on device"
		fi
		assert_equal "$(ls -A "$ROOT")" fill
		assert_id_gone "$id"
	done
	echo "# $failed creates failed for want of space, $worked worked" >&3
	[ "$failed" -gt 0 ] && [ "$worked" -gt 0 ] ||
		fail "the sweep did not cross the limit ($failed failed, $worked worked)"
	# no inodes left
	umount "$ROOT"
	mount -t tmpfs -o size=1m,nr_inodes=1,mode=0700 tmpfs "$ROOT"
	capture corral_t 20 create --bundle "$BUNDLE" "${PREFIX}i"
	one_line_error "${PREFIX}i" "No space left on device"
	assert_equal "$(ls -A "$ROOT")" ""
	assert_id_gone "${PREFIX}i"
}

@test "a read-only --root: one line, nothing left" {
	ROOT="$BATS_TEST_TMPDIR/ro"
	own_tmpfs "$ROOT" ro,size=64k
	capture corral_t 20 create --bundle "$BUNDLE" "${PREFIX}1"
	one_line_error "${PREFIX}1" "Read-only file system"
	assert_id_gone "${PREFIX}1"
	capture corral_t 20 run --bundle "$BUNDLE" "${PREFIX}2"
	one_line_error "${PREFIX}2" "Read-only file system"
	assert_id_gone "${PREFIX}2"
}

# A root that turns read-only under a running container: the container
# can still be seen, nothing new can be made, delete says why it cannot
# finish, and once writable again delete completes.
@test "a --root made read-only under a running container" {
	ROOT="$BATS_TEST_TMPDIR/rootdir"
	run_detached "${PREFIX}1" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/${PREFIX}1.err")"
	track_pid "$(container_pid "${PREFIX}1")"
	mount --bind "$ROOT" "$ROOT" || fail "bind $ROOT"
	OWN_MOUNTS+=("$ROOT")
	mount -o remount,bind,ro "$ROOT" || fail "remount $ROOT read-only"

	assert_equal "$(state_field "${PREFIX}1" status)" running
	capture corral_t 20 create --bundle "$BUNDLE" "${PREFIX}2"
	one_line_error "${PREFIX}2" "Read-only file system"
	assert_id_gone "${PREFIX}2"
	assert_equal "$(state_field "${PREFIX}1" status)" running
	capture corral_t 30 delete --force "${PREFIX}1"
	one_line_error "${PREFIX}1" "Read-only file system"

	mount -o remount,bind,rw "$ROOT" || fail "remount $ROOT read-write"
	capture corral_t 30 delete --force "${PREFIX}1"
	[ "$status" -eq 0 ] || fail "delete after remount: $stderr"
	assert_id_gone "${PREFIX}1"
}

# rm -rf of the bundle races with create: create either fails with one
# line or makes a container that delete removes; nothing is left.  A
# loaded machine can start the rm too late for 30 tries to hit: then up
# to 60 more follow with the rm started at once.
@test "the bundle removed while create runs (30 tries)" {
	local b rm_pid ok=0 refused=0
	for i in $(seq 90); do
		[ "$i" -le 30 ] || [ "$refused" -eq 0 ] || break
		b="$BATS_TEST_TMPDIR/race-$i"
		cp -a "$BUNDLE" "$b"
		# a create takes a few ms, and reads the bundle in its first
		# one or two (config.json, then the rootfs, opened once): the
		# rm starts within that
		(
			[ "$i" -gt 30 ] || random_delay 3
			rm -rf "$b"
		) &
		rm_pid=$!
		capture corral_t 20 create --bundle "$b" "$PREFIX$i"
		wait_bg "$rm_pid"
		if [ "$status" -eq 0 ]; then
			ok=$((ok + 1))
			capture corral_t 30 delete --force "$PREFIX$i"
			[ "$status" -eq 0 ] || fail "delete $PREFIX$i: $stderr"
		else
			refused=$((refused + 1))
			one_line_error "$PREFIX$i"
		fi
		assert_id_gone "$PREFIX$i"
		[ ! -e "$b" ] || fail "$b was not removed (busy?)"
	done
	echo "# $refused creates failed cleanly, $ok worked" >&3
	[ "$refused" -gt 0 ] || fail "the race never hit a create"
}
