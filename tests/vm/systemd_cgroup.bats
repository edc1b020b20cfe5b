#!/usr/bin/env bats
# The systemd cgroup driver (runtime/cgroup/cgroup_systemd.c), in the
# systemd guest of `make check-vm` (MODE=systemd): each container a
# transient scope that systemd made, with Delegate=yes and its limits on
# the unit, surviving a daemon-reload and a change of its slice, gone
# (unit, scope, cgroup) after delete.  Skipped where systemd is not PID 1.

load ../integration/helpers

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "systemd is not PID 1"
	corral_setup_file
}

setup() {
	corral_setup
	SCOPE="corraltest-$ID.scope"
}

teardown() {
	corral_teardown
	systemctl stop "$SCOPE" >/dev/null 2>&1 || true
	systemctl stop corraltest-pod.slice >/dev/null 2>&1 || true
}

# prop UNIT NAME: one property of the unit, as systemctl shows it
prop() {
	systemctl show -P "$2" "$1"
}

# A container with memory and pids limits, under --systemd-cgroup.
limited_container() {
	local path="$1"
	update_config ".linux.cgroupsPath = \"$path\" |
		.linux.resources.memory.limit = 33554432 |
		.linux.resources.pids.limit = 20"
	set_args sleep 300
	# stdio to files: the container must not hold a pipe of bats' run
	timeout 60 "$CORRAL" --root "$ROOT" --systemd-cgroup create \
		--bundle "$BUNDLE" "$ID" </dev/null >"$BATS_TEST_TMPDIR/out" \
		2>"$BATS_TEST_TMPDIR/err" 3>&- ||
		fail "create: $(cat "$BATS_TEST_TMPDIR/err")"
}

@test "a container is a transient scope in its slice, Delegate=yes, its limits on the unit" {
	limited_container "machine.slice:corraltest:$ID"
	run prop "$SCOPE" ActiveState
	assert_output active
	run prop "$SCOPE" Delegate
	assert_output yes
	run prop "$SCOPE" Slice
	assert_output machine.slice
	run prop "$SCOPE" MemoryMax
	assert_output 33554432
	run prop "$SCOPE" TasksMax
	assert_output 20
	run prop "$SCOPE" ControlGroup
	assert_output "/machine.slice/$SCOPE"
	# the container's first process is in it
	pid="$(container_pid "$ID")"
	run cat "/proc/$pid/cgroup"
	assert_output "0::/machine.slice/$SCOPE"
	run cat "/sys/fs/cgroup/machine.slice/$SCOPE/memory.max"
	assert_output 33554432
	run systemd-cgls --no-pager -u machine.slice
	assert_output --partial "$SCOPE"
	run timeout 30 "$CORRAL" --root "$ROOT" explain "$ID" 3>&-
	assert_output --partial "made through systemd"
}

@test "a nested slice is where systemd puts it; delete leaves no unit, scope or cgroup" {
	limited_container "corraltest-pod.slice:corraltest:$ID"
	dir=/sys/fs/cgroup/corraltest.slice/corraltest-pod.slice/$SCOPE
	[ -d "$dir" ] || fail "no $dir"
	run timeout 30 "$CORRAL" --root "$ROOT" delete --force "$ID" 3>&-
	assert_success
	run prop "$SCOPE" LoadState
	assert_output not-found
	[ ! -e "$dir" ] || fail "$dir is left"
	assert_no_leftovers "$ID"
}

@test "daemon-reload and a change of the slice keep the container and its limits" {
	limited_container "corraltest-pod.slice:corraltest:$ID"
	pid="$(container_pid "$ID")"
	dir=/sys/fs/cgroup/corraltest.slice/corraltest-pod.slice/$SCOPE
	systemctl daemon-reload
	systemctl set-property --runtime corraltest-pod.slice MemoryMax=1G
	systemctl set-property --runtime corraltest-pod.slice CPUWeight=50
	run cat "$dir/memory.max" "$dir/pids.max"
	assert_output $'33554432\n20'
	run state_field "$ID" status
	assert_output created
	kill -0 "$pid" || fail "the container's process is gone"
	run cat "/proc/$pid/cgroup"
	assert_output "0::/corraltest.slice/corraltest-pod.slice/$SCOPE"
}

@test "update changes the unit and the cgroup; the pids limit refuses a fork" {
	limited_container "machine.slice:corraltest:$ID"
	run timeout 30 "$CORRAL" --root "$ROOT" update --memory 50331648 \
		--pids-limit 3 "$ID" 3>&-
	assert_success
	run prop "$SCOPE" MemoryMax
	assert_output 50331648
	run prop "$SCOPE" TasksMax
	assert_output 3
	systemctl daemon-reload
	run cat "/sys/fs/cgroup/machine.slice/$SCOPE/pids.max"
	assert_output 3
	run timeout 30 "$CORRAL" --root "$ROOT" start "$ID" 3>&-
	assert_success
	run timeout 30 "$CORRAL" --root "$ROOT" exec "$ID" sh -c \
		'sleep 5 & sleep 5 & sleep 5 & sleep 5 & wait' 3>&-
	assert_failure
	run cat "/sys/fs/cgroup/machine.slice/$SCOPE/pids.events"
	refute_output "max 0"
}

@test "the OOM killer kills at the scope's memory limit" {
	update_config '.linux.resources.memory.swap = 33554432'
	limited_container "machine.slice:corraltest:$ID"
	run timeout 30 "$CORRAL" --root "$ROOT" start "$ID" 3>&-
	assert_success
	# dd's one 64 MiB block is allocated and filled: twice the limit
	# (busybox's tail -c 1 of a pipe, used here before, keeps 1.3 MiB)
	run timeout 60 "$CORRAL" --root "$ROOT" exec "$ID" \
		busybox dd if=/dev/zero of=/dev/null bs=64M count=1 3>&-
	assert_failure
	run grep oom_kill "/sys/fs/cgroup/machine.slice/$SCOPE/memory.events"
	refute_output "oom_kill 0"
}

@test "pause and resume freeze the scope" {
	limited_container "machine.slice:corraltest:$ID"
	run timeout 30 "$CORRAL" --root "$ROOT" start "$ID" 3>&-
	assert_success
	run timeout 30 "$CORRAL" --root "$ROOT" pause "$ID" 3>&-
	assert_success
	run cat "/sys/fs/cgroup/machine.slice/$SCOPE/cgroup.freeze"
	assert_output 1
	run timeout 30 "$CORRAL" --root "$ROOT" resume "$ID" 3>&-
	assert_success
	run timeout 30 "$CORRAL" --root "$ROOT" ps "$ID" 3>&-
	assert_success
	assert_output --partial "$(container_pid "$ID")"
}

@test "a slice name systemd refuses fails create with one line, nothing made" {
	update_config '.linux.cgroupsPath = "bad name.slice:corraltest:x"'
	run --separate-stderr timeout 30 "$CORRAL" --root "$ROOT" \
		--systemd-cgroup create --bundle "$BUNDLE" "$ID" </dev/null 3>&-
	assert_error_line
	[[ "$stderr" == *"not a slice name systemd accepts"* ]] ||
		fail "$stderr"
	assert_no_leftovers "$ID"
}

@test "podman with systemd's cgroup manager: run, exec, pause, update, stop, rm" {
	command -v podman >/dev/null || skip "no podman"
	local image="localhost/corral-sd-$$:latest" name="corral-sd-$$" id
	tar -C "$ROOTFS" -cf "$BATS_TEST_TMPDIR/image.tar" . ||
		fail "tar the rootfs"
	podman import -q "$BATS_TEST_TMPDIR/image.tar" "$image" >/dev/null 3>&-
	run podman --runtime "$CORRAL" --cgroup-manager systemd run -d \
		--name "$name" --network none --memory 64m "$image" \
		sleep 300 3>&-
	assert_success
	id="$(podman inspect --format '{{.Id}}' "$name" 3>&-)"
	run prop "libpod-$id.scope" Delegate
	assert_output yes
	run prop "libpod-$id.scope" MemoryMax
	assert_output 67108864
	run podman exec "$name" cat /sys/fs/cgroup/memory.max 3>&-
	assert_output 67108864
	run podman pause "$name" 3>&-
	assert_success
	run podman unpause "$name" 3>&-
	assert_success
	run podman update --memory 96m "$name" 3>&-
	assert_success
	run prop "libpod-$id.scope" MemoryMax
	assert_output 100663296
	run podman stop -t 2 "$name" 3>&-
	assert_success
	run podman rm "$name" 3>&-
	assert_success
	run prop "libpod-$id.scope" LoadState
	assert_output not-found
	[ ! -e "/sys/fs/cgroup/machine.slice/libpod-$id.scope" ] ||
		fail "the scope's cgroup is left"
	podman rmi -f "$image" >/dev/null 3>&-
}
