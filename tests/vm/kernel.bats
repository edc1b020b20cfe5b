#!/usr/bin/env bats
# What differs between the kernels corral supports (Debian's 5.10, 6.1
# and 6.12, and the build machine's): one test per facility whose
# behaviour changed, each naming the kernel difference it guards.  The
# guests of `make check-vm` run it with the other suites
# (tests/vm/suites.list); it runs on any host as `bats tests/vm/kernel.bats`.

load ../integration/helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	chmod 0777 "$ROOTFS"
	update_config '.root.readonly = false'
}

teardown() {
	corral_teardown
	if grep -F -- " $ROOT/" /proc/self/mountinfo; then
		fail "a mount under $ROOT is left"
	fi
}

# scratch_mounts: the host's mounts under this test's state root, as
# "MOUNT-POINT OPTIONS".
scratch_mounts() {
	awk -v r="$ROOT/" 'index($5, r) == 1 { print $5, $6 }' /proc/self/mountinfo
}

# overlayfs before Linux 6.15 clones a layer only when its mount is
# attached in the caller's mount namespace; the scratch tmpfs is made
# detached (fsmount).  create attaches it in the state directory while
# it makes the overlay (runtime/fs/scratch.c).
@test "the scratch overlay is made, and takes the container's writes" {
	set_args sh -c 'echo written >/made-here && cat /made-here'
	run --separate-stderr corral run --bundle "$BUNDLE" "$ID"
	assert_success
	assert_output written
	[ ! -e "$ROOTFS/made-here" ] || fail "the write reached the bundle"
	assert_no_leftovers "$ID"
}

@test "without a report, only the overlay holds the scratch: nothing of it is mounted on the host" {
	set_args sleep 100
	run_detached "$ID"
	wait_for_status "$ID" running
	run scratch_mounts
	assert_output ""
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

@test "with a report, the host's view of the scratch is read-only, noexec, nosuid, nodev and nosymfollow" {
	mkdir -p "$BATS_TEST_TMPDIR/reports"
	printf '{"report": {"dir": "%s"}}\n' "$BATS_TEST_TMPDIR/reports" \
		>"$BATS_TEST_TMPDIR/policy.json"
	set_args sh -c 'echo written >/made-here; sleep 100'
	corral --policy "$BATS_TEST_TMPDIR/policy.json" run -d \
		--bundle "$BUNDLE" "$ID" </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/err")"
	wait_for_status "$ID" running
	run scratch_mounts
	assert_output --regexp "^$ROOT/$ID/scratch [^ ]+$"
	opts="${output##* }"
	for o in ro nosuid nodev noexec nosymfollow; do
		[[ ",$opts," == *",$o,"* ]] || fail "the scratch is mounted $opts: no $o"
	done
	# the container still writes through its own clone of it
	poll_equal "the write in the host's view" written 50 \
		cat "$ROOT/$ID/scratch/upper/made-here"
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

# Joining a cgroup whose cpuset controller is on sets a task's CPUs to
# the cpuset's on kernels before 6.2, whatever the task had asked for:
# corral's processes take back the CPUs of the command that made them
# once they are in the container's cgroup (runtime/cgroup/cpus.h).
@test "run and exec under taskset keep their CPUs in the container's cgroup" {
	[ "$(nproc)" -gt 1 ] || skip "one CPU: nothing to narrow"
	want="$(grep '^Cpus_allowed_list:' /proc/self/status)"
	cpu="${want##*[[:space:]]}"
	cpu="${cpu%%[,-]*}"
	set_args grep '^Cpus_allowed_list:' /proc/self/status
	run taskset -c "$cpu" "$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$ID"
	assert_success
	assert_output "Cpus_allowed_list:	$cpu"

	set_args sleep 100
	run_detached "$ID"
	wait_for_status "$ID" running
	run taskset -c "$cpu" "$CORRAL" --root "$ROOT" exec "$ID" \
		grep '^Cpus_allowed_list:' /proc/self/status
	assert_success
	assert_output "Cpus_allowed_list:	$cpu"
	# and without taskset, every CPU exec had
	run corral exec "$ID" grep '^Cpus_allowed_list:' /proc/self/status
	assert_success
	assert_output "$want"
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

# mount_setattr (Linux 5.12) restricts a bind's detached clone before it
# is attached; without it (5.10) the child remounts the attached bind and
# each mount below it (runtime/fs/bind_late.h).  Either way the container
# finds every mount of a recursive bind read-only, nosuid and nodev.
@test "a recursive bind is read-only, nosuid and nodev in the container, the mounts below it too" {
	local share="$BATS_TEST_TMPDIR/share"
	mkdir -p "$share/sub"
	echo host >"$share/file"
	chmod 0777 "$share" "$share/file"
	mount -t tmpfs -o size=1m tmpfs "$share/sub"
	echo sub >"$share/sub/file"
	chmod 0777 "$share/sub" "$share/sub/file"
	jq -n '{mounts: [{source: $s, rw: false}]}' --arg s "$share" \
		>"$BATS_TEST_TMPDIR/policy.json"
	update_config '.mounts += [{destination: "/data", type: "bind",
		source: $s, options: ["rbind", "rw"]}]' --arg s "$share"
	set_args sh -c 'cat /data/file /data/sub/file
		echo x >/data/file || echo top-refused
		echo x >/data/sub/file || echo sub-refused
		grep " /data" /proc/self/mountinfo'
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/policy.json" \
		run --bundle "$BUNDLE" "$ID"
	umount "$share/sub"
	assert_success
	assert_line --index 0 host
	assert_line --index 1 sub
	assert_line top-refused
	assert_line sub-refused
	for mp in /data /data/sub; do
		opts="$(awk -v m="$mp" '$5 == m { print $6 }' <<<"$output")"
		[ -n "$opts" ] || fail "$mp is not mounted in the container"
		for o in ro nosuid nodev; do
			[[ ",$opts," == *",$o,"* ]] || fail "$mp is mounted $opts: no $o"
		done
	done
	[ "$(cat "$share/file")" = host ] || fail "the host's file was written"
	assert_no_leftovers "$ID"
}

# The user-namespace pool idmaps the rootfs (mount_setattr's
# MOUNT_ATTR_IDMAP, Linux 5.12): before that, create refuses with one
# line naming the facility (tests/integration/userns.bats covers the
# pool where it runs).
@test "the user-namespace pool is refused, with one line naming mount_setattr, before Linux 5.12" {
	local major minor
	IFS=. read -r major minor _ <<<"$(uname -r)"
	[ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "${minor%%[!0-9]*}" -lt 12 ]; } ||
		skip "$(uname -r) has mount_setattr"
	pool=$((1073741824 + ($$ % 150) * 65536 * 32))
	printf '{"user": {"pool": {"hostUID": %d, "hostGID": %d, "size": 1048576}}}\n' \
		"$pool" "$pool" >"$BATS_TEST_TMPDIR/policy.json"
	set_args true
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/policy.json" \
		run --bundle "$BUNDLE" "$ID"
	assert_error_line
	[[ "$stderr" == *"idmapped mounts: mount_setattr, Linux 5.12"* ]] ||
		fail "stderr: $stderr"
	assert_no_leftovers "$ID"
}

# kernel_at_least MAJOR MINOR: this kernel's release is MAJOR.MINOR or later.
kernel_at_least() {
	local major minor
	IFS=. read -r major minor _ <<<"$(uname -r)"
	minor="${minor%%[!0-9]*}"
	[ "$major" -gt "$1" ] || { [ "$major" -eq "$1" ] && [ "$minor" -ge "$2" ]; }
}

# What corral does about each difference above, as `corral features`
# (annotations) and `corral explain` (its kernel rows, and the JSON's
# "kernel") say it: the words expected here are worked out from this
# kernel's release alone, so a kernel that changed corral's choice
# without its words (or the words without the choice) fails here.  A
# created container's explain, saved at create, says the same.
@test "features and explain name the kernel and what corral does about each of its differences" {
	local -A want
	if kernel_at_least 6 15; then
		want[scratch]="made detached (6.15+)"
	else
		want[scratch]="attached while made (before 6.15)"
	fi
	if kernel_at_least 5 12; then
		want[binds]="restricted before attach (mount_setattr)"
	else
		want[binds]="restricted after attach (no mount_setattr)"
	fi
	if kernel_at_least 6 2; then
		want[cpus]="kept through the cgroup join (6.2+)"
	else
		want[cpus]="taken back after the cgroup join (before 6.2)"
	fi
	if ! kernel_at_least 5 12; then
		want[pool]="refused (no mount_setattr: idmapped mounts, Linux 5.12); /etc/subuid's range not taken"
	elif ! kernel_at_least 5 19; then
		want[pool]="/etc/subuid's range not taken (idmapped layers under overlayfs: Linux 5.19)"
	else
		want[pool]="idmapped layers (mount_setattr)"
	fi

	run --separate-stderr corral features
	assert_success
	local features="$output" name
	[ "$(jq -r '.annotations["run.corral.kernel"]' <<<"$features")" = "$(uname -r)" ] ||
		fail "features: $(jq -c .annotations <<<"$features")"
	for name in scratch binds cpus pool; do
		[ "$(jq -r --arg k "run.corral.kernel.$name" '.annotations[$k]' <<<"$features")" = "${want[$name]}" ] ||
			fail "features: $name: $(jq -c .annotations <<<"$features")"
	done

	run --separate-stderr corral explain --bundle "$BUNDLE"
	assert_success
	assert_line "kernel      release         $(uname -r)"
	for name in scratch binds cpus pool; do
		assert_line "$(printf '%-12s%-16s%s' '' "$name" "${want[$name]}")"
	done
	run --separate-stderr corral explain --format json --bundle "$BUNDLE"
	assert_success
	for name in scratch binds cpus pool; do
		[ "$(jq -r --arg k "$name" '.kernel[$k]' <<<"$output")" = "${want[$name]}" ] ||
			fail "explain --format json: $name: $(jq -c .kernel <<<"$output")"
	done

	set_args sleep 100
	create_container "$ID"
	track_pid "$(container_pid "$ID")"
	run --separate-stderr corral explain "$ID"
	assert_success
	assert_line "$(printf '%-12s%-16s%s' '' scratch "${want[scratch]}")"
	assert_line "$(printf '%-12s%-16s%s' '' pool "${want[pool]}")"
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}
