#!/usr/bin/env bats
# A container that joins an existing pid namespace (a Kubernetes pod's):
# its supervisor is not PID 1 there, so the kernel kills nothing when it
# exits.  The supervisor kills the rest of the container's cgroup itself,
# at the workload's exit and at the wall clock (stage/reaper.c).

load helpers

PERMISSIVE="$REPO_ROOT/config-examples/policy/permissive.json"

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
}

# A delete that failed to remove the container's cgroup leaves it behind
# its state: remove it here (corral_teardown has killed what was in it).
teardown() {
	local rc=0 d
	corral_teardown || rc=$?
	for d in /sys/fs/cgroup/*/corral/"$ID" /sys/fs/cgroup/corral/"$ID"; do
		[ -d "$d" ] || continue
		# the killed may take a moment to leave it
		poll_equal "rmdir $d" 0 20 sh -c 'rmdir "$1" 2>/dev/null; echo $?' \
			sh "$d" || rc=1
	done
	return "$rc"
}

# make_pidns: a pid namespace of the test's own, held by a sleep that is
# its PID 1 (and dies with the unshare that forked it); NS_HOLDER is that
# sleep's host pid.
make_pidns() {
	local parent tries=100
	unshare --pid --kill-child sleep 300 </dev/null >/dev/null 2>&1 3>&- &
	parent=$!
	track_pid "$parent"
	while [ "$tries" -gt 0 ]; do
		NS_HOLDER="$(cat "/proc/$parent/task/$parent/children" 2>/dev/null)"
		NS_HOLDER="${NS_HOLDER%% *}"
		[ -n "$NS_HOLDER" ] && [ "$(readlink "/proc/$NS_HOLDER/ns/pid")" != \
			"$(readlink /proc/self/ns/pid)" ] && break
		sleep 0.05
		tries=$((tries - 1))
	done
	[ "$tries" -gt 0 ] || fail "no pid namespace from unshare"
	track_pid "$NS_HOLDER"
}

# join_pidns PID: config.json's pid namespace is PID's.  (The device
# cgroup lets /dev/null through, which the shell's background jobs read:
# `corral spec` denies every device and leaves the standard ones to the
# sandbox, which a permissive policy does not add.)
join_pidns() {
	update_config '.linux.namespaces |= map(if .type == "pid"
		then .path = $p else . end) |
		.linux.resources.devices = [{allow: true, access: "rwm"}]' \
		--arg p "/proc/$1/ns/pid"
}

# procs_file ID: the host path of the container's cgroup.procs (its pids
# controller's, on v1), read while its init runs.
procs_file() {
	local pid path
	pid="$(container_pid "$1")"
	path="$(awk -F: '$2 == "pids" { print $3; exit }' "/proc/$pid/cgroup")"
	if [ -n "$path" ]; then
		echo "/sys/fs/cgroup/pids$path/cgroup.procs"
		return
	fi
	path="$(awk -F: '$1 == 0 { print $3; exit }' "/proc/$pid/cgroup")"
	echo "/sys/fs/cgroup$path/cgroup.procs"
}

# wait_procs FILE N: until the cgroup.procs FILE lists N processes or
# more (the workload's shell and what it forked), at most 5 s.
wait_procs() {
	local tries=100
	while [ "$(wc -l <"$1")" -lt "$2" ] && [ "$tries" -gt 0 ]; do
		sleep 0.05
		tries=$((tries - 1))
	done
	[ "$tries" -gt 0 ] || fail "expected $2 processes in $1: $(cat "$1")"
}

# run_joined N ARGS...: `run -d` of ARGS under the permissive policy in
# a pid namespace of the test's own, then wait until its cgroup lists N
# processes; PROCS is that cgroup.procs.
run_joined() {
	local n="$1"
	shift
	make_pidns
	join_pidns "$NS_HOLDER"
	set_args "$@"
	corral --policy "$PERMISSIVE" run -d --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/run.err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/run.err")"
	PROCS="$(procs_file "$ID")"
	wait_procs "$PROCS" "$n"
}

now_ms() {
	local t="${EPOCHREALTIME/./}"
	echo $((t / 1000))
}

# wait_empty FILE TENTHS: until the cgroup.procs FILE lists nothing.
wait_empty() {
	poll_equal "processes in $1" "" "$2" cat "$1"
}

@test "joined pid namespace: the supervisor is not PID 1 there" {
	make_pidns
	join_pidns "$NS_HOLDER"
	set_args sh -c 'cat /proc/1/comm; echo $$'
	run --separate-stderr corral --policy "$PERMISSIVE" run \
		--bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_line --index 0 sleep
	refute_line --index 1 1
}

@test "joined pid namespace: when the workload exits, the rest of the cgroup dies (permissive policy)" {
	run_joined 3 sh -c 'sleep 100 & sleep 100 & sleep 1'
	wait_for_status "$ID" stopped 50
	wait_empty "$PROCS" 20
	# the holder of the namespace is no process of the container's
	kill -0 "$NS_HOLDER" || fail "the pid namespace's own PID 1 died"
}

@test "joined pid namespace: at the wall clock every process of the cgroup dies (default policy)" {
	# the pod: a sandbox container, whose pid namespace the next joins
	pod_bundle="$BATS_TEST_TMPDIR/pod"
	cp -a "$BUNDLE" "$pod_bundle"
	jq '.process.args = ["sleep", "100"] |
		.annotations["io.kubernetes.cri.container-type"] = "sandbox"' \
		"$BUNDLE/config.json" >"$pod_bundle/config.json"
	corral run -d --bundle "$pod_bundle" "$ID-pod" </dev/null >/dev/null \
		2>"$BATS_TEST_TMPDIR/pod.err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/pod.err")"
	pod="$(container_pid "$ID-pod")"
	track_pid "$pod"
	join_pidns "$pod"
	update_config '.annotations = {"run.corral.timeout": "3",
		"io.kubernetes.cri.container-type": "container",
		"io.kubernetes.cri.sandbox-id": $pod}' --arg pod "$ID-pod"
	set_args sh -c 'sleep 100 & sleep 100'
	start="$(now_ms)"
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	procs="$(procs_file "$ID")"
	wait_procs "$procs" 3
	wait_for_status "$ID" stopped 60
	wait_empty "$procs" 10
	elapsed=$(($(now_ms) - start))
	[ "$elapsed" -ge 2500 ] || fail "gone after $elapsed ms, before the wall clock"
	[ "$elapsed" -le 5000 ] || fail "gone only after $elapsed ms"
	grep -q "wall-clock limit of 3s reached" "$BATS_TEST_TMPDIR/$ID.err" ||
		fail "no wall-clock message: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	# the pod's own process is untouched
	assert_equal "$(state_field "$ID-pod" status)" running
}

# In a pod's pid namespace the supervisor is not PID 1, so the kernel
# does not guard it from signals sent inside; its own uid and CAP_KILL
# do (stage/supervisor.c): the workload cannot stop it, and the wall
# clock holds.
@test "joined pid namespace: the workload cannot stop its supervisor, and the wall clock holds" {
	pod_bundle="$BATS_TEST_TMPDIR/pod"
	cp -a "$BUNDLE" "$pod_bundle"
	jq '.process.args = ["sleep", "100"] |
		.annotations["io.kubernetes.cri.container-type"] = "sandbox"' \
		"$BUNDLE/config.json" >"$pod_bundle/config.json"
	corral run -d --bundle "$pod_bundle" "$ID-pod" </dev/null >/dev/null \
		2>"$BATS_TEST_TMPDIR/pod.err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/pod.err")"
	track_pid "$(container_pid "$ID-pod")"
	join_pidns "$(container_pid "$ID-pod")"
	update_config '.annotations = {"run.corral.timeout": "3",
		"io.kubernetes.cri.container-type": "container",
		"io.kubernetes.cri.sandbox-id": $pod}' --arg pod "$ID-pod"
	set_args sh -c 'sleep 1; kill -STOP $PPID; echo "stop=$?"; sleep 100'
	start="$(now_ms)"
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	wait_for_status "$ID" stopped 80
	elapsed=$(($(now_ms) - start))
	[ "$elapsed" -le 4500 ] || fail "stopped only after $elapsed ms (deadline 3000)"
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	assert_output "stop=1"
	assert_equal "$(state_field "$ID-pod" status)" running
}

# SIGKILL leaves the supervisor no time to kill the rest, and the kernel
# kills nothing either: delete finds a cgroup that refuses its rmdir
# (EBUSY) and kills what is in it before removing it (cgroup_remove).
@test "joined pid namespace: delete --force kills what outlives the supervisor in the cgroup" {
	run_joined 4 sh -c 'sleep 100 & sleep 100 & exec sleep 100'
	pids="$(cat "$PROCS")"
	for pid in $pids; do
		track_pid "$pid"
	done
	run corral delete --force "$ID"
	assert_success
	for pid in $pids; do
		pid_gone "$pid" || fail "pid $pid of the cgroup outlived delete"
	done
	[ ! -e "${PROCS%/cgroup.procs}" ] || fail "the cgroup is still there"
	kill -0 "$NS_HOLDER" || fail "the pid namespace's own PID 1 died"
}

# A host with cgroup v1 only (here: the unified hierarchy unmounted in a
# mount namespace of corral's own): no cgroup.kill, and cgroup.procs is
# reopened for each listing.
@test "joined pid namespace: on cgroup v1 alone, the rest of the cgroup dies too (permissive policy)" {
	mountpoint -q /sys/fs/cgroup/unified || skip "not a hybrid cgroup host"
	make_pidns
	join_pidns "$NS_HOLDER"
	set_args sh -c 'sleep 100 & sleep 100 & sleep 1'
	unshare -m --propagation private sh -c \
		'umount /sys/fs/cgroup/unified && exec "$@"' sh \
		"$CORRAL" --root "$ROOT" --policy "$PERMISSIVE" run -d \
		--bundle "$BUNDLE" "$ID" </dev/null >/dev/null \
		2>"$BATS_TEST_TMPDIR/run.err" 3>&- ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/run.err")"
	procs="$(procs_file "$ID")"
	wait_procs "$procs" 3
	wait_for_status "$ID" stopped 50
	wait_empty "$procs" 20
}
