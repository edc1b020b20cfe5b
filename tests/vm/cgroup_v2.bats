#!/usr/bin/env bats
# corral's cgroup v2 backend on a real pure-v2 kernel, through corral's own
# commands: what the other suites of a bare guest (cgroup.bats through the
# test driver, cgroup_commands.bats, the battery) do not already prove
# there (tests/vm/README.md lists which suite proves what).  Each test
# reads the kernel's own files of the container's cgroup and what the
# workload sees, never corral's word alone.  It needs cgroup2 alone at
# /sys/fs/cgroup with its controllers on (the guests of `make check-vm`,
# a systemd host); elsewhere it skips.  Every test deletes its container
# and fails when its cgroup directory is left.

load ../integration/helpers

CGROOT=/sys/fs/cgroup

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ "$(stat -f -c %T "$CGROOT")" = cgroup2fs ] ||
		skip "cgroup2 is not alone at $CGROOT"
	corral_setup_file
}

setup() {
	corral_setup
	CG="$CGROOT/corral/$ID"
	for applet in dd seq cat; do
		ln -sf busybox "$ROOTFS/bin/$applet"
	done
}

teardown() {
	corral_teardown
	[ ! -e "$CG" ] || fail "cgroup directory left: $CG"
}

# controller NAME: skip unless the root offers NAME to its children.
controller() {
	grep -qw "$1" "$CGROOT/cgroup.subtree_control" ||
		skip "no $1 controller in $CGROOT/cgroup.subtree_control"
}

# event FILE KEY: KEY's count in the cgroup's FILE (memory.events, ...).
event() {
	awk -v k="$2" '$1 == k { print $2 }' "$CG/$1"
}

# workload_pid: the container's workload, the only child of its init (corral's
# supervisor).
workload_pid() {
	local init
	init="$(container_pid "$ID")"
	cat "/proc/$init/task/$init/children" | awk '{ print $1 }'
}

# cpus_of PID: the CPUs PID may run on.
cpus_of() {
	awk '$1 == "Cpus_allowed_list:" { print $2 }' "/proc/$1/status"
}

@test "memory: memory.max and no swap as asked; a hog is OOM-killed, counted in memory.events, and corral report says so" {
	controller memory
	update_config '.linux.resources.memory = {"limit": 16777216, "swap": 16777216}'
	set_args dd if=/dev/zero of=/dev/null bs=64M count=1
	create_container "$ID"
	[ "$(cat "$CG/memory.max")" = 16777216 ]
	[ "$(cat "$CG/memory.swap.max")" = 0 ]
	corral start "$ID"
	wait_for_status "$ID" stopped 300
	[ "$(event memory.events oom_kill)" -ge 1 ] ||
		fail "memory.events: $(cat "$CG/memory.events")"
	run --separate-stderr corral report "$ID"
	assert_success
	assert_line "  reason:            OOM kill"
	assert_line --regexp '^  oom kills:         [1-9][0-9]*$'
	corral delete "$ID"
	assert_no_leftovers "$ID"
}

@test "pids: pids.max as asked; forks past it fail, counted in pids.events and by corral report" {
	controller pids
	update_config '.linux.resources.pids = {"limit": 8}'
	set_args sh -c 'for i in $(seq 12); do sleep 100 & done; exec sleep 100'
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	[ "$(cat "$CG/pids.max")" = 8 ]
	poll_equal "pids.events max > 0" yes 300 \
		sh -c "[ \"\$(awk '\$1 == \"max\" { print \$2 }' $CG/pids.events)\" -gt 0 ] && echo yes"
	[ "$(cat "$CG/pids.current")" -le 8 ]
	run --separate-stderr corral report "$ID"
	assert_success
	assert_line --regexp '^  forks refused:     [1-9][0-9]* \(at pids.max\)$'
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

@test "cpu: cpu.max and cpu.weight as asked; a busy loop is throttled; update moves cpu.max" {
	controller cpu
	# shares 512 is weight 1 + (510 * 9999) / 262142 = 20, as runc maps it
	update_config '.linux.resources.cpu = {"quota": 20000, "period": 100000, "shares": 512}'
	set_args sh -c 'while :; do :; done'
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	[ "$(cat "$CG/cpu.max")" = "20000 100000" ]
	[ "$(cat "$CG/cpu.weight")" = 20 ]
	poll_equal "cpu.stat nr_throttled > 0" yes 300 \
		sh -c "[ \"\$(awk '\$1 == \"nr_throttled\" { print \$2 }' $CG/cpu.stat)\" -gt 0 ] && echo yes"
	run corral update --cpu-quota 50000 "$ID"
	assert_success
	[ "$(cat "$CG/cpu.max")" = "50000 100000" ]
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

@test "cpuset: cpuset.cpus and mems as asked, the workload runs only there; update moves it" {
	controller cpuset
	[ "$(nproc --all)" -ge 2 ] || skip "one CPU"
	update_config '.linux.resources.cpu = {"cpus": "0", "mems": "0"}'
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	[ "$(cat "$CG/cpuset.cpus")" = 0 ]
	[ "$(cat "$CG/cpuset.mems")" = 0 ]
	[ "$(cpus_of "$(workload_pid)")" = 0 ]
	run corral update --cpuset-cpus 1 "$ID"
	assert_success
	[ "$(cat "$CG/cpuset.cpus")" = 1 ]
	[ "$(cpus_of "$(workload_pid)")" = 1 ]
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

@test "io: blkioWeight becomes io.weight (or BFQ's io.bfq.weight)" {
	controller io
	update_config '.linux.resources.blockIO = {"weight": 500}'
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	if [ -e "$CG/io.weight" ]; then
		# 10..1000 onto 1..10000: 1 + (500 - 10) * 9999 / 990
		[ "$(cat "$CG/io.weight")" = "default 4950" ]
	elif [ -e "$CG/io.bfq.weight" ]; then
		[ "$(cat "$CG/io.bfq.weight")" = "default 500" ]
	else
		fail "neither io.weight nor io.bfq.weight in $CG, and create did not refuse"
	fi
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

# io.max names a block device, which the kernel must have: a bare guest
# of tests/vm has the loop module's (tests/vm/guest loads it); a host
# without any block device skips.
@test "io: a device's read and write limits become io.max" {
	controller io
	local dev
	dev="$(cat "$(compgen -G "/sys/block/*/dev" | head -n 1)" 2>/dev/null)" ||
		skip "no block device"
	update_config '.linux.resources.blockIO = {
		"throttleReadBpsDevice": [{"major": $ma, "minor": $mi, "rate": 1048576}],
		"throttleWriteIOPSDevice": [{"major": $ma, "minor": $mi, "rate": 100}]}' \
		--argjson ma "${dev%%:*}" --argjson mi "${dev#*:}"
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	run grep "^$dev " "$CG/io.max"
	assert_output "$dev rbps=1048576 wbps=max riops=max wiops=100"
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

@test "hugetlb: hugepageLimits become hugetlb.SIZE.max" {
	controller hugetlb
	update_config '.linux.resources.hugepageLimits = [{"pageSize": "2MB", "limit": 4194304}]'
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	[ "$(cat "$CG/hugetlb.2MB.max")" = 4194304 ]
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

# The device rules are a BPF program attached to the container's cgroup:
# any process in that cgroup, root on the host included, opens only the
# devices it allows.  A host shell moved into the cgroup tries one the
# sandbox allows (c 1:3, /dev/null) and one it does not (c 1:11,
# /dev/kmsg); the same shell outside opens both.
@test "devices: the cgroup's BPF program lets a process in it open /dev/null, not /dev/kmsg" {
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	run sh -c 'exec 3</dev/kmsg && echo outside-opened'
	assert_output outside-opened
	run sh -c "echo \$\$ >$CG/cgroup.procs &&
		{ exec 3</dev/null && echo null-opened; } &&
		{ exec 3</dev/kmsg && echo kmsg-opened; }"
	assert_failure
	assert_line null-opened
	refute_line kmsg-opened
	assert_output --partial "Operation not permitted"
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

@test "freeze: pause sets cgroup.freeze and the kernel reports the cgroup frozen; resume thaws it" {
	set_args sleep 100
	run_detached "$ID"
	track_pid "$(container_pid "$ID")"
	corral pause "$ID"
	[ "$(cat "$CG/cgroup.freeze")" = 1 ]
	poll_equal "cgroup.events frozen" 1 100 event cgroup.events frozen
	corral resume "$ID"
	[ "$(cat "$CG/cgroup.freeze")" = 0 ]
	poll_equal "cgroup.events frozen" 0 100 event cgroup.events frozen
	[ "$(state_field "$ID" status)" = running ]
	corral delete --force "$ID"
	assert_no_leftovers "$ID"
}

# The container's cgroup namespace is rooted at its own cgroup: it sees
# itself as "/", and the cgroup2 mount of its config.json shows its own
# limits, not the host's tree.
@test "cgroup namespace: the container sees its cgroup as / and its own limits at /sys/fs/cgroup" {
	update_config '.linux.resources.memory = {"limit": 33554432}
		| .linux.resources.pids = {"limit": 16}'
	set_args sh -c 'cat /proc/self/cgroup; cat /sys/fs/cgroup/memory.max
		cat /sys/fs/cgroup/pids.max; ls /sys/fs/cgroup | grep -cx corral || :'
	run --separate-stderr corral run --bundle "$BUNDLE" "$ID"
	assert_success
	assert_equal "${lines[0]}" "0::/"
	assert_equal "${lines[1]}" 33554432
	assert_equal "${lines[2]}" 16
	assert_equal "${lines[3]}" 0
	assert_no_leftovers "$ID"
}
