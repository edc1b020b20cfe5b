#!/usr/bin/env bats
# corral's cgroup module on this host's kernel, through the test driver
# build/helpers/cgtool (create and delete do not call the module yet).
#
# Every test names its cgroups under "corral-test-$$-N" (N: the test's
# number), records the processes it starts, and its teardown kills those
# and whatever is still in its cgroups, then removes the directories, in
# every hierarchy, even when the test failed.  A process is always held
# on a fifo until it is in its cgroup, so it runs none of its own code
# outside.

load helpers

CGTOOL="${CGTOOL:-$REPO_ROOT/build/helpers/cgtool}"
CGROOT=/sys/fs/cgroup

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -x "$CGTOOL" ] || fail "$CGTOOL not found: run make build/helpers/cgtool"
	# the interpreter itself: a pyenv shim would run in the cgroup too
	PYTHON="$(python3 -c 'import sys; print(sys.executable)')" ||
		fail "python3 is needed"
	export PYTHON
}

setup() {
	PREFIX="corral-test-$$-$BATS_TEST_NUMBER"
	CG="/$PREFIX/ct"
	TRACKED_PIDS=()
	LAYOUT="$("$CGTOOL" detect)" || fail "cgtool detect failed"
}

# Kill what the test started and what is left in its cgroups, then remove
# them deepest first.
teardown() {
	local entry pid dirs
	for entry in "${TRACKED_PIDS[@]}"; do
		pid="${entry%%:*}"
		if ! pid_gone "$pid" &&
			[ "$(proc_start_time "$pid")" = "${entry#*:}" ]; then
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null || true
	done
	dirs="$(ls -d "$CGROOT"/"$PREFIX" "$CGROOT"/*/"$PREFIX" \
		"$CGROOT"/corral/"$PREFIX" "$CGROOT"/*/corral/"$PREFIX" \
		"$CGROOT"/unified/"$PREFIX" 2>/dev/null)"
	[ -n "$dirs" ] || return 0
	# shellcheck disable=SC2086
	find $dirs -name cgroup.procs -exec cat {} + 2>/dev/null |
		xargs -r kill -KILL 2>/dev/null || true
	sleep 0.1
	# shellcheck disable=SC2086
	find $dirs -depth -type d -exec rmdir {} \; 2>/dev/null || true
}

# start_held NAME CMD...: run CMD in the background, held until `release
# NAME`; its pid in $HELD (the same process: the subshell execs CMD).
start_held() {
	local fifo="$BATS_TEST_TMPDIR/$1"
	shift
	mkfifo "$fifo"
	(
		read -r _ <"$fifo"
		exec "$@"
	) 3>&- </dev/null >"$BATS_TEST_TMPDIR/held.out" 2>&1 &
	HELD=$!
	track_pid "$HELD"
}

release() {
	echo go >"$BATS_TEST_TMPDIR/$1"
}

# cgroup_dirs PATH: the directories of PATH that exist, in any hierarchy.
cgroup_dirs() {
	ls -d "$CGROOT"/"${1#/}" "$CGROOT"/*/"${1#/}" 2>/dev/null || true
}

assert_no_cgroup() {
	local left
	left="$(cgroup_dirs "$1")"
	[ -z "$left" ] || fail "cgroup directories left: $left"
}

# procs_in PATH: the pids in PATH's cgroup.procs, in every hierarchy.
procs_in() {
	cat "$CGROOT"/"${1#/}"/cgroup.procs "$CGROOT"/*/"${1#/}"/cgroup.procs \
		2>/dev/null | sort -u
}

# cpu_ns PATH: the CPU time used in the cgroup so far, in nanoseconds.
cpu_ns() {
	local usec
	if [ -e "$CGROOT/cpuacct/${1#/}/cpuacct.usage" ]; then
		cat "$CGROOT/cpuacct/${1#/}/cpuacct.usage"
	else
		usec="$(awk '$1 == "usage_usec" { print $2 }' \
			"$CGROOT/${1#/}/cpu.stat")"
		echo $((usec * 1000))
	fi
}

@test "prepare makes the cgroup in every hierarchy and enter joins them all" {
	run "$CGTOOL" prepare "$CG" $((64 << 20)) 32
	assert_success
	[ "${#lines[@]}" -ge 1 ]
	if [ "$LAYOUT" = v1 ]; then
		assert_line "$CGROOT/memory/$PREFIX/ct"
		assert_line "$CGROOT/pids/$PREFIX/ct"
		assert_line "$CGROOT/freezer/$PREFIX/ct"
		[ ! -d "$CGROOT/unified" ] || assert_line "$CGROOT/unified/$PREFIX/ct"
		[ "$(cat "$CGROOT/memory/$PREFIX/ct/memory.limit_in_bytes")" = $((64 << 20)) ]
		[ "$(cat "$CGROOT/memory/$PREFIX/ct/memory.memsw.limit_in_bytes")" = $((64 << 20)) ]
	else
		[ "$(cat "$CGROOT/$PREFIX/ct/memory.max")" = $((64 << 20)) ]
		[ "$(cat "$CGROOT/$PREFIX/ct/memory.swap.max")" = 0 ]
	fi
	start_held p sleep 300
	run "$CGTOOL" enter "$CG" "$HELD"
	assert_success
	# the process's cgroup is the container's in every hierarchy listed
	run grep -c ":/$PREFIX/ct\$" "/proc/$HELD/cgroup"
	[ "$output" -eq "$(cgroup_dirs "$CG" | wc -l)" ]
	run "$CGTOOL" kill "$CG"
	assert_success
	wait_bg "$HELD"
	[ "$BG_STATUS" -eq 137 ]
	run "$CGTOOL" destroy "$CG"
	assert_success
	assert_no_cgroup "$CG"
}

@test "a memory hog is OOM-killed at the limit while the host stays fine" {
	run "$CGTOOL" prepare "$CG" $((16 << 20)) -
	assert_success
	start_held hog "$PYTHON" -c 'b = bytearray(64 << 20); print("survived")'
	"$CGTOOL" enter "$CG" "$HELD"
	release hog
	wait_bg "$HELD" 100
	[ "$BG_STATUS" -eq 137 ] || fail "hog: status $BG_STATUS, expected 137"
	run cat "$BATS_TEST_TMPDIR/held.out"
	refute_output --partial survived
	if [ "$LAYOUT" = v1 ]; then
		grep -Eq '^oom_kill [1-9]' "$CGROOT/memory/$PREFIX/ct/memory.oom_control"
	else
		grep -Eq '^oom_kill [1-9]' "$CGROOT/$PREFIX/ct/memory.events"
	fi
	# outside the cgroup the same allocation is fine
	run "$PYTHON" -c 'b = bytearray(64 << 20); print("fine")'
	assert_success
	assert_output fine
	"$CGTOOL" destroy "$CG"
	assert_no_cgroup "$CG"
}

@test "forks stop at pids.max and kill takes every process" {
	run "$CGTOOL" prepare "$CG" - 8
	assert_success
	local result="$BATS_TEST_TMPDIR/forks"
	start_held bomb "$PYTHON" -c '
import os, sys, time
ok = failed = 0
for _ in range(40):
    try:
        pid = os.fork()
    except BlockingIOError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(300)
        os._exit(0)
    ok += 1
with open(sys.argv[1], "w") as f:
    f.write(f"{ok} {failed}\n")
time.sleep(300)
' "$result"
	"$CGTOOL" enter "$CG" "$HELD"
	release bomb
	wait_for_file "$result" '^[0-9]+ [0-9]+$' 100
	read -r ok failed <"$result"
	[ "$ok" -eq 7 ] || fail "$ok forks succeeded, expected 7 (pids.max 8)"
	[ "$failed" -eq 33 ]
	[ "$(procs_in "$CG" | wc -l)" -eq 8 ]
	local pids
	pids="$(procs_in "$CG")"
	run "$CGTOOL" kill "$CG"
	assert_success
	[ -z "$(procs_in "$CG")" ]
	for pid in $pids; do
		pid_gone "$pid" || fail "process $pid survived kill"
	done
	wait_bg "$HELD"
	[ "$BG_STATUS" -eq 137 ]
	run "$CGTOOL" destroy "$CG"
	assert_success
	assert_no_cgroup "$CG"
}

@test "a cpu quota of 0.2 CPU keeps a busy loop near 20 %" {
	run "$CGTOOL" prepare "$CG" - - quota=20000 period=100000
	assert_success
	start_held spin sh -c 'while :; do :; done'
	"$CGTOOL" enter "$CG" "$HELD"
	release spin
	sleep 0.5
	local u1 u2 t1 t2 pct
	u1="$(cpu_ns "$CG")"
	t1="$(date +%s%N)"
	sleep 2
	u2="$(cpu_ns "$CG")"
	t2="$(date +%s%N)"
	pct=$(((u2 - u1) * 100 / (t2 - t1)))
	echo "# busy loop used $pct % of a CPU" >&3
	[ "$pct" -ge 10 ] && [ "$pct" -le 40 ] ||
		fail "busy loop used $pct % of a CPU, expected about 20"
	"$CGTOOL" kill "$CG"
	"$CGTOOL" destroy "$CG"
	assert_no_cgroup "$CG"
}

@test "device rules: only the allowed devices open (v1)" {
	[ "$LAYOUT" = v1 ] || skip "device rules need a BPF program on cgroup v2"
	run "$CGTOOL" prepare "$CG" - - "device=c 1:3 rwm"
	assert_success
	[ "$(cat "$CGROOT/devices/$PREFIX/ct/devices.list")" = "c 1:3 rwm" ]
	local out="$BATS_TEST_TMPDIR/devices"
	start_held dev sh -c "echo ok >/dev/null && echo null-ok >$out;
		head -c1 /dev/zero >/dev/null 2>&1 || echo zero-denied >>$out"
	"$CGTOOL" enter "$CG" "$HELD"
	release dev
	wait_bg "$HELD"
	run cat "$out"
	assert_output "null-ok
zero-denied"
	"$CGTOOL" destroy "$CG"
	assert_no_cgroup "$CG"
}

@test "no directory remains after destroy, in any hierarchy; corral/ itself stays" {
	run "$CGTOOL" path "" "$PREFIX"
	assert_output "corral/$PREFIX"
	run "$CGTOOL" prepare "corral/$PREFIX" $((32 << 20)) 16 quota=50000
	assert_success
	[ -n "$(cgroup_dirs "corral/$PREFIX")" ]
	start_held p sleep 300
	"$CGTOOL" enter "corral/$PREFIX" "$HELD"
	run "$CGTOOL" destroy "corral/$PREFIX"
	assert_failure # busy: a process is still in it
	[ -n "$(cgroup_dirs "corral/$PREFIX")" ]
	"$CGTOOL" kill "corral/$PREFIX"
	run "$CGTOOL" destroy "corral/$PREFIX"
	assert_success
	assert_no_cgroup "corral/$PREFIX"
	[ -n "$(cgroup_dirs corral)" ] || fail "corral/ was removed"
	# and again: a cgroup that is gone is nothing to kill or remove
	run "$CGTOOL" kill "corral/$PREFIX"
	assert_success
	run "$CGTOOL" destroy "corral/$PREFIX"
	assert_success
}

@test "a failed prepare leaves nothing behind" {
	run "$CGTOOL" prepare "$CG" $((32 << 20)) 16 cpus=99999
	assert_failure
	assert_output --regexp "^cgtool: cgroup .*/$PREFIX/ct: write cpuset.cpus: "
	assert_no_cgroup "$PREFIX"
	# a controller this host lacks: refused unless best-effort
	if [ "$LAYOUT" = v1 ] && [ ! -d "$CGROOT/hugetlb" ]; then
		run "$CGTOOL" prepare "$CG" - 16 hugetlb.2MB=4194304
		assert_failure
		assert_output --partial "no hugetlb hierarchy is mounted"
		assert_no_cgroup "$PREFIX"
		run "$CGTOOL" -b prepare "$CG" - 16 hugetlb.2MB=4194304
		assert_success
		assert_line "skipped .linux.resources.hugepageLimits"
		"$CGTOOL" destroy "$CG"
		rmdir "$CGROOT"/*/"$PREFIX" # not under corral/: not destroy's
	fi
	# an existing cgroup is never taken over: in the pids hierarchy, or
	# on a pure v2 host the one hierarchy (where $CGROOT/pids would be a
	# cgroup named pids)
	local existing="$CGROOT/pids/$PREFIX"
	[ "$LAYOUT" != v2 ] || existing="$CGROOT/$PREFIX"
	mkdir -p "$existing/ct"
	run "$CGTOOL" prepare "$CG" - 16
	assert_failure
	assert_output --partial "already exists"
	[ -d "$existing/ct" ]
	rmdir "$existing/ct" "$existing"
	assert_no_cgroup "$PREFIX"
}

@test "cgroup v2 core files on the unified mount: fail closed, cgroup.kill" {
	local v2="$CGROOT/unified"
	[ "$LAYOUT" = v2 ] && v2="$CGROOT"
	[ "$("$CGTOOL" -r "$v2" detect 2>/dev/null)" = v2 ] ||
		skip "no cgroup2 mount"
	if ! grep -qw memory "$v2/cgroup.controllers"; then
		run "$CGTOOL" -r "$v2" prepare "$CG" $((16 << 20)) -
		assert_failure
		assert_output --partial "the memory controller is not available"
		[ ! -e "$v2/$PREFIX" ]
	fi
	run "$CGTOOL" -r "$v2" prepare "$CG" - -
	assert_success
	assert_output "$v2/$PREFIX/ct"
	start_held p sh -c 'while :; do sleep 1 & wait; done'
	"$CGTOOL" -r "$v2" enter "$CG" "$HELD"
	release p
	run "$CGTOOL" -r "$v2" kill "$CG"
	assert_success
	[ -z "$(cat "$v2/$PREFIX/ct/cgroup.procs")" ]
	wait_bg "$HELD"
	[ "$BG_STATUS" -eq 137 ]
	run "$CGTOOL" -r "$v2" destroy "$CG"
	assert_success
	[ ! -e "$v2/$PREFIX/ct" ]
	rmdir "$v2/$PREFIX"
}

@test "without cgroup.kill, kill freezes, kills and thaws a fork bomb (v1)" {
	[ "$LAYOUT" = v1 ] || skip "the v1 freezer"
	# the v1 hierarchies without "unified": as on a kernel before 5.14
	local root="$BATS_TEST_TMPDIR/cgroup" h
	mkdir "$root"
	for h in "$CGROOT"/*; do
		[ "${h##*/}" = unified ] || ln -s "$h" "$root/${h##*/}"
	done
	run "$CGTOOL" -r "$root" prepare "$CG" - 32
	assert_success
	refute_output --partial unified
	start_held bomb "$PYTHON" -c '
import os, time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
'
	"$CGTOOL" -r "$root" enter "$CG" "$HELD"
	release bomb
	wait_for_file "$CGROOT/pids/$PREFIX/ct/pids.current" '^(2[0-9]|3[0-2])$' 100
	run "$CGTOOL" -r "$root" kill "$CG"
	assert_success
	[ -z "$(procs_in "$CG")" ]
	[ "$(cat "$CGROOT/freezer/$PREFIX/ct/freezer.state")" = THAWED ]
	wait_bg "$HELD"
	[ "$BG_STATUS" -eq 137 ]
	run "$CGTOOL" -r "$root" destroy "$CG"
	assert_success
	assert_no_cgroup "$CG"
}

# v2_root: the cgroup2 mount (the unified one on a hybrid host) in $V2,
# or skip.
v2_root() {
	V2="$CGROOT/unified"
	[ "$LAYOUT" = v2 ] && V2="$CGROOT"
	[ "$("$CGTOOL" -r "$V2" detect 2>/dev/null)" = v2 ] ||
		skip "no cgroup2 mount"
}

# probe_script FILE 'NAME CMD'...: a sh script printing, for each probe,
# "NAME ok" or "NAME CAUSE" (the end of CMD's error message).
probe_script() {
	local file="$1" p
	shift
	{
		echo 'probe() { name=$1; shift'
		echo '	if err=$("$@" 2>&1 >/dev/null); then echo "$name ok"'
		echo '	else echo "$name ${err##*: }"; fi; }'
		for p in "$@"; do
			echo "probe $p"
		done
	} >"$file"
}

@test "device rules on cgroup v2: a BPF program allows only c 1:3" {
	v2_root
	run "$CGTOOL" -r "$V2" prepare "$CG" - - "device=c 1:3 rwm"
	assert_success
	assert_output "$V2/$PREFIX/ct"
	probe_script "$BATS_TEST_TMPDIR/probe.sh" \
		"null sh -c 'echo x >/dev/null'" \
		"zero head -c1 /dev/zero"
	start_held dev sh "$BATS_TEST_TMPDIR/probe.sh"
	echo "$HELD" >"$V2/$PREFIX/ct/cgroup.procs"
	release dev
	wait_bg "$HELD"
	run cat "$BATS_TEST_TMPDIR/held.out"
	assert_output "null ok
zero Operation not permitted"
	# outside the cgroup /dev/zero opens
	run head -c1 /dev/zero
	assert_success
	run "$CGTOOL" -r "$V2" destroy "$CG"
	assert_success
	rmdir "$V2/$PREFIX"
}

@test "device rules on cgroup v2: last match wins, a deny takes any access it names" {
	v2_root
	run "$CGTOOL" -r "$V2" prepare "$CG" - - "device=c 1:* rwm" \
		"device-deny=c 1:7 w"
	assert_success
	probe_script "$BATS_TEST_TMPDIR/probe.sh" \
		"null-rw sh -c ': <>/dev/null'" \
		"full-r head -c1 /dev/full" \
		"full-w sh -c 'echo x >/dev/full'" \
		"full-rw sh -c ': <>/dev/full'" \
		"tty sh -c ': </dev/tty'" \
		"loop0 head -c1 /dev/loop0"
	start_held dev sh "$BATS_TEST_TMPDIR/probe.sh"
	echo "$HELD" >"$V2/$PREFIX/ct/cgroup.procs"
	release dev
	wait_bg "$HELD"
	# /dev/tty (5:0) and /dev/loop0 (b 7:0) match no rule.  Without the
	# program /dev/full opens for writing (the write fails, ENOSPC),
	# /dev/tty fails with ENXIO (no terminal) and /dev/loop0 opens.
	run cat "$BATS_TEST_TMPDIR/held.out"
	assert_output "null-rw ok
full-r ok
full-w Operation not permitted
full-rw Operation not permitted
tty Operation not permitted
loop0 Operation not permitted"
	run "$CGTOOL" -r "$V2" destroy "$CG"
	assert_success
	rmdir "$V2/$PREFIX"
}
