#!/usr/bin/env bats
# podman (Debian's 4.3) drives corral as its OCI runtime.  --network none
# keeps podman's own network setup (netavark) off the host; corral's
# network namespace is what the container gets.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

setup() {
	CORRAL="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/corral"
	NAME="corral-test-$BATS_TEST_NUMBER-$$"
	ROOTFS="$BATS_TEST_TMPDIR/rootfs"
	mkdir -p "$ROOTFS/bin"
	cp /bin/busybox "$ROOTFS/bin/"
	for a in sh echo cat id; do ln -s busybox "$ROOTFS/bin/$a"; done
}

teardown() {
	podman rm -f "$NAME" >/dev/null 2>&1 || true
}

# podman_run [PODMAN OPTIONS] -- COMMAND...
podman_run() {
	local opts=()
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	podman --runtime "$CORRAL" run --rm --name "$NAME" --network none \
		"${opts[@]}" --rootfs "$ROOTFS" "$@"
}

@test "podman run --rm prints the workload's output" {
	run podman_run --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		-- /bin/echo hi
	assert_success
	assert_output "hi"
}

@test "podman run passes the exit status through" {
	run podman_run -- /bin/sh -c 'echo out; exit 4'
	assert_equal "$status" 4
	assert_output "out"
}

@test "podman run without --ulimit: rlimits beyond the host are clamped" {
	run podman_run -- /bin/sh -c 'ulimit -n'
	assert_success
	[ "$output" -le "$(ulimit -Hn)" ]
}

@test "podman run -t gets a terminal through the console socket" {
	run podman_run -t -- /bin/sh -c 'test -t 0 && echo tty; exit 5' </dev/null
	assert_equal "$status" 5
	assert_output --partial "tty"
}
