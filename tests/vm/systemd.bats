#!/usr/bin/env bats
# The systemd guest of `make check-vm` (MODE=systemd): a host as Debian
# users run one, systemd 252 as PID 1 over a pure cgroup v2 hierarchy,
# where containerd and podman are services and podman places containers
# with systemd's cgroup manager (cgroupsPath "machine.slice:libpod:ID").
# Skipped where systemd is not PID 1.

load ../integration/helpers

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "systemd is not PID 1"
	corral_setup_file
	export IMAGE="localhost/corral-vm-$$:latest"
	local rootfs="$BATS_FILE_TMPDIR/image" dir
	for dir in bin etc tmp proc sys dev; do
		mkdir -p "$rootfs/$dir"
	done
	chmod 1777 "$rootfs/tmp"
	cp /bin/busybox "$rootfs/bin/busybox"
	for applet in sh cat sleep echo; do
		ln -s busybox "$rootfs/bin/$applet"
	done
	tar -C "$rootfs" -cf "$BATS_FILE_TMPDIR/image.tar" . ||
		fail "tar of the busybox rootfs"
	podman import -q "$BATS_FILE_TMPDIR/image.tar" "$IMAGE" >/dev/null 3>&- ||
		fail "podman import $IMAGE"
}

teardown_file() {
	[ -z "${IMAGE:-}" ] || podman rmi -f "$IMAGE" >/dev/null 3>&-
}

setup() {
	corral_setup
	NAME="corral-vm-$BATS_TEST_NUMBER-$$"
}

teardown() {
	podman rm -f "$NAME" >/dev/null 2>&1 3>&-
	corral_teardown
}

@test "systemd is PID 1 over a pure cgroup v2 hierarchy, no unit failed" {
	run stat -f -c %T /sys/fs/cgroup
	assert_output cgroup2fs
	[ ! -e /sys/fs/cgroup/unified ] || fail "a hybrid layout"
	run systemctl --failed --no-legend --plain
	assert_success
	assert_output ""
}

@test "containerd starts as a service" {
	run systemctl start containerd.service
	assert_success
	run ctr --timeout 60s version
	assert_success
	assert_line --partial "Server:"
	systemctl stop containerd.service
}

@test "podman runs a container with corral under systemd's cgroup manager, its limits in force" {
	run --separate-stderr podman --runtime "$CORRAL" --cgroup-manager systemd \
		run --name "$NAME" --network none --memory 64m --pids-limit 50 \
		"$IMAGE" sh -c 'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max; cat /proc/self/cgroup' 3>&-
	assert_success
	assert_line --index 0 67108864
	assert_line --index 1 50
	# the container's cgroup namespace is rooted at its own cgroup
	assert_line --index 2 "0::/"
	# where systemd's cgroup manager puts it: a scope in machine.slice
	id="$(podman inspect --format '{{.Id}}' "$NAME" 3>&-)"
	run podman inspect --format '{{.State.CgroupPath}}' "$NAME" 3>&-
	echo "cgroup: $output"
	podman rm "$NAME" >/dev/null 3>&-
	[ ! -e "/sys/fs/cgroup/machine.slice/libpod-$id.scope" ] ||
		fail "the container's scope is left"
}
