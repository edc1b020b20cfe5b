#!/usr/bin/env bats
# containerd's CRI with SystemdCgroup = true and corral as BinaryName, in
# the systemd guest of `make check-vm` (MODE=systemd): what a Kubernetes
# node with kubelet's systemd cgroup driver does.  The pod's cgroup parent
# is a slice with the pod's limits on it (the kubelet makes that slice;
# here systemctl does), and each of its containers, the pause container
# included, is a scope systemd made in it (cri-containerd-ID.scope,
# Delegate=yes).  The pod's limits hold its containers together: an OOM
# kill at the slice's MemoryMax, a fork refused at its TasksMax.  A
# daemon-reload and a change of the slice leave the containers running;
# removing the pod leaves no unit, scope or cgroup.  Skipped where systemd
# is not PID 1.

bats_require_minimum_version 1.5.0

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load '../engines/cri/cri.bash'
# cri.bash finds its client and proto beside the bats file that loads it
# (tests/engines); this one is in tests/vm
CRI_DIR="$BATS_TEST_DIRNAME/../engines/cri"
# pod.yaml's app twice, and without its 15 s wall clock (setup_file
# writes it); set here, as cri.bash's own is, for every test
CRI_POD_YAML="$BATS_FILE_TMPDIR/pod2.yaml"

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] || skip "systemd is not PID 1"
	export CRI_SYSTEMD_CGROUP=1
	yq_two_containers >"$CRI_POD_YAML" || fail "write $CRI_POD_YAML"
	cri_setup_file
}

teardown_file() {
	cri_teardown_file
}

setup() {
	SLICE="corraltest-pod$BATS_TEST_NUMBER.slice"
	SLICE_DIR="/sys/fs/cgroup/corraltest.slice/$SLICE"
	export CRI_POD_PARENT="$SLICE"
}

teardown() {
	remove_test_pods
	systemctl stop "$SLICE" >/dev/null 2>&1 || true
	systemctl stop corraltest.slice >/dev/null 2>&1 || true
}

# pod.yaml with two containers, a and b, each the app's image sleeping.
yq_two_containers() {
	"$CRI_PYTHON" - "$BATS_TEST_DIRNAME/../../config-examples/kubernetes/pod.yaml" <<-'PY'
	import sys, yaml
	pod = yaml.safe_load(open(sys.argv[1]))
	pod['metadata']['annotations'].pop('run.corral.timeout', None)
	app = pod['spec']['containers'][0]
	pod['spec']['containers'] = [
	    dict(app, name=n, command=['sh', '-c', 'exec sleep 3600'])
	    for n in ('a', 'b')]
	print(yaml.safe_dump(pod))
	PY
}

prop() {
	systemctl show -P "$2" "$1"
}

# A running pod in $SLICE (MemoryMax 64M, TasksMax 40 on the slice, as
# the kubelet puts a pod's limits on its slice) with containers a and b:
# POD, CTR_A, CTR_B.
pod_of_two() {
	systemctl set-property --runtime "$SLICE" MemoryMax=64M TasksMax=40 ||
		fail "set-property $SLICE"
	systemctl start "$SLICE" || fail "start $SLICE"
	run_pod
	[ "$status" -eq 0 ] || fail "RunPodSandbox: $stderr"
	for c in a b; do
		create_app --container "$c"
		[ "$status" -eq 0 ] || fail "CreateContainer $c: $stderr"
		run --separate-stderr cri start "$CTR"
		[ "$status" -eq 0 ] || fail "StartContainer $c: $stderr"
		wait_state "$CTR" CONTAINER_RUNNING 300
		eval "CTR_${c^^}=\$CTR"
	done
}

@test "a pod of two: each container a scope in the pod's slice, Delegate=yes, the pod's limits on the slice" {
	local id scope pid
	pod_of_two
	for id in "$POD" "$CTR_A" "$CTR_B"; do
		scope="cri-containerd-$id.scope"
		run prop "$scope" ActiveState
		assert_output active
		run prop "$scope" Slice
		assert_output "$SLICE"
		run prop "$scope" Delegate
		assert_output yes
		run prop "$scope" ControlGroup
		assert_output "/corraltest.slice/$SLICE/$scope"
	done
	pid="$(status_field "$CTR_A" pid)"
	run cat "/proc/$pid/cgroup"
	assert_output "0::/corraltest.slice/$SLICE/cri-containerd-$CTR_A.scope"
	run prop "$SLICE" MemoryMax
	assert_output 67108864
	run prop "$SLICE" TasksMax
	assert_output 40
	run cat "$SLICE_DIR/memory.max" "$SLICE_DIR/pids.max"
	assert_output $'67108864\n40'
	run systemd-cgls --no-pager -u "$SLICE"
	assert_output --partial "cri-containerd-$CTR_A.scope"
	assert_output --partial "cri-containerd-$CTR_B.scope"
}

@test "the pod's slice limits hold: a fork refused at TasksMax, an OOM kill at MemoryMax" {
	pod_of_two
	# the image links only sh, sleep and a few more to busybox: the
	# loops are the shell's own; "--" keeps -c from the client's options
	run --separate-stderr cri exec "$CTR_A" --timeout 60 -- sh -c \
		'i=0; while [ $i -lt 60 ]; do sleep 30 & i=$((i + 1)); done; wait'
	# 6.1 counts a refusal in the pids.events of the forking task's
	# cgroup (a's scope), kernels with pids.events.local in the slice
	# whose limit was hit as well: the slice's and its children's are read
	run sh -c "cat $SLICE_DIR/pids.events $SLICE_DIR/*/pids.events |
		awk '\$1 == \"max\" { n += \$2 } END { print n + 0 }'"
	[ "$output" -gt 0 ] || fail "no fork refused in $SLICE_DIR"
	# a string doubled up to 128 MiB, twice the slice's MemoryMax
	run --separate-stderr cri exec "$CTR_B" --timeout 60 -- sh -c \
		'x=a; i=0; while [ $i -lt 27 ]; do x="$x$x"; i=$((i + 1)); done
		echo survived'
	refute_output --partial survived
	run grep oom_kill "$SLICE_DIR/memory.events"
	refute_output "oom_kill 0"
	# the pod lives on: b's pause container and a
	wait_state "$CTR_A" CONTAINER_RUNNING
}

@test "daemon-reload and a change of the pod's slice leave its containers running" {
	local pid
	pod_of_two
	pid="$(status_field "$CTR_A" pid)"
	systemctl daemon-reload
	systemctl set-property --runtime "$SLICE" MemoryMax=96M CPUWeight=50
	run prop "$SLICE" MemoryMax
	assert_output 100663296
	kill -0 "$pid" || fail "container a's process is gone"
	wait_state "$CTR_A" CONTAINER_RUNNING
	wait_state "$CTR_B" CONTAINER_RUNNING
	run cat "/proc/$pid/cgroup"
	assert_output "0::/corraltest.slice/$SLICE/cri-containerd-$CTR_A.scope"
	run --separate-stderr cri exec "$CTR_B" --timeout 30 echo alive
	assert_output alive
}

@test "removing the pod leaves no unit, scope or cgroup" {
	local id
	pod_of_two
	run --separate-stderr cri stop-pod "$POD"
	assert_success
	run --separate-stderr cri remove-pod "$POD"
	assert_success
	for id in "$POD" "$CTR_A" "$CTR_B"; do
		run prop "cri-containerd-$id.scope" LoadState
		assert_output not-found
		[ ! -e "$SLICE_DIR/cri-containerd-$id.scope" ] ||
			fail "the cgroup of $id is left"
		[ ! -e "$CRI_CORRAL_ROOT/$CRI_CTR_NS/$id" ] ||
			fail "corral's state of $id is left"
	done
}
