#!/usr/bin/env bats
# `corral report`'s syscalls refused: the workload's baseline hands the
# calls it always denies to the supervisor's seccomp listener, which
# answers EPERM (what the workload saw before) and records them
# (stage/notify.c).  The workload never holds the listener; a dead
# listener fails closed; `corral exec`'d processes keep the EPERM filter
# and are not recorded.

load helpers

SYSPROBE="${SYSPROBE:-$REPO_ROOT/build/helpers/static/sysprobe}"

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	[ -x "$SYSPROBE" ] || fail "$SYSPROBE not found: run make helpers"
	cp "$SYSPROBE" "$ROOTFS/bin/sysprobe"
}

teardown() {
	corral_teardown
}

# report_py ID EXPR: EXPR on `corral report --format json ID` as r.
report_py() {
	corral report --format json "$1" >"$BATS_TEST_TMPDIR/r.json" ||
		fail "report --format json $1 failed"
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$BATS_TEST_TMPDIR/r.json" "$2"
}

# hwm PID: the peak resident set of PID, in kB.
hwm() {
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"
}

@test "one denied call of each class: EPERM in the workload, exactly those in the report" {
	set_args sh -c '/bin/sysprobe mount bpf keyctl ptrace_attach unshare; exec sleep 100'
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	poll_equal "probes" 5 50 sh -c "wc -l <'$BATS_TEST_TMPDIR/$ID.out'"
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	assert_output "mount EPERM
bpf EPERM
keyctl EPERM
ptrace_attach EPERM
unshare EPERM"
	run report_py "$ID" 'sorted((c["name"], c["count"], c["first_comm"], c["first_pid"] > 1) for c in r["syscalls_refused"]["calls"]), r["syscalls_refused"]["total"]'
	assert_output "([('bpf', 1, 'sysprobe', True), ('keyctl', 1, 'sysprobe', True), ('mount', 1, 'sysprobe', True), ('ptrace', 1, 'sysprobe', True), ('unshare', 1, 'sysprobe', True)], 5)"
	# an exec'd process keeps the EPERM baseline and is not recorded
	run corral exec "$ID" /bin/sysprobe mount keyctl
	assert_success
	assert_output "mount EPERM
keyctl EPERM"
	run report_py "$ID" 'r["syscalls_refused"]["total"]'
	assert_output 5
	run --separate-stderr corral report "$ID"
	assert_success
	assert_line "syscalls refused"
	assert_line "  5 refused (EPERM)"
	for name in mount bpf keyctl ptrace unshare; do
		assert_line --regexp "^  $name +1  first [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z pid [0-9]+ \(sysprobe\)$"
	done
	refute_output --partial "not recorded yet"
}

@test "the workload holds no seccomp notify fd; the supervisor does" {
	set_args sh -c '/bin/sysprobe fdlinks; exec sleep 100'
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	poll_equal "fdlinks" done 50 sh -c "grep -q '^2 ' '$BATS_TEST_TMPDIR/$ID.out' && echo done"
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	refute_output --partial "seccomp"
	# (and the notify fd does exist, in the supervisor)
	pid="$(container_pid "$ID")"
	run ls -l "/proc/$pid/fd"
	assert_output --partial "anon_inode:seccomp notify"
	# the workload's own view, through /proc/self/fd, of a later process
	run corral exec "$ID" /bin/sysprobe fdlinks
	refute_output --partial "seccomp"
}

@test "1,000,000 denied calls finish, are counted, and the supervisor's memory stays flat" {
	set_args sh -c '/bin/sysprobe repeat 1000 mount; exec sleep 100'
	run_detached "$ID-small" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID-small.err")"
	poll_equal "small loop" "mount 1000 EPERM" 100 cat "$BATS_TEST_TMPDIR/$ID-small.out"
	poll_equal "small count" 1000 40 report_py "$ID-small" 'r["syscalls_refused"]["total"]'
	small="$(hwm "$(container_pid "$ID-small")")"
	set_args sh -c '/bin/sysprobe repeat 1000000 mount; exec sleep 100'
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	poll_equal "loop" "mount 1000000 EPERM" 1200 cat "$BATS_TEST_TMPDIR/$ID.out"
	# the count reaches the record within a second of the last call
	poll_equal "count" "(1000000, [('mount', 1000000)])" 40 report_py "$ID" \
		'r["syscalls_refused"]["total"], [(c["name"], c["count"]) for c in r["syscalls_refused"]["calls"]]'
	big="$(hwm "$(container_pid "$ID")")"
	echo "# supervisor VmHWM: $small kB after 1000 calls, $big kB after 1000000" >&3
	[ "$big" -le $((small + 64)) ] || fail "supervisor grew: $small kB -> $big kB"
	# count updates were bounded: at most about one line a second
	lines="$(grep -c '^syscall ' "$ROOT/$ID/outcome")"
	[ "$lines" -le 200 ] || fail "$lines syscall lines in the record"
	corral delete --force "$ID-small"
}

@test "killing the supervisor (PID 1) ends the workload; no denied call succeeds" {
	set_args sh -c 'while :; do /bin/sysprobe mount; done'
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	poll_equal "first probe" yes 100 sh -c "grep -q 'mount EPERM' '$BATS_TEST_TMPDIR/$ID.out' && echo yes"
	kill -9 "$(container_pid "$ID")"
	wait_for_status "$ID" stopped 50
	# a call made between the listener's end and the kernel's killing of
	# the pid namespace gets ENOSYS (no listener): refused all the same
	run grep -v -x -e "mount EPERM" -e "mount ENOSYS" "$BATS_TEST_TMPDIR/$ID.out"
	assert_failure
}

@test "killing the supervisor where it is not PID 1: the workload's denied calls fail closed (ENOSYS)" {
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
	update_config '.linux.namespaces |= map(if .type == "pid"
		then .path = $p else . end) |
		.annotations = {"io.kubernetes.cri.container-type": "container",
		"io.kubernetes.cri.sandbox-id": $pod}' \
		--arg p "/proc/$pod/ns/pid" --arg pod "$ID-pod"
	# one process making 2,000,000 denied calls, counting each answer
	set_args /bin/sysprobe repeat 2000000 mount
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	poll_equal "first call recorded" yes 100 sh -c "grep -q '^syscall ' '$ROOT/$ID/outcome' && echo yes"
	sleep 0.5
	kill -9 "$(container_pid "$ID")"
	# the workload lives on (nothing kills it): the rest of its calls get
	# ENOSYS from the kernel, none succeeds
	poll_equal "the loop's end" 2 600 sh -c "wc -l <'$BATS_TEST_TMPDIR/$ID.out'"
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	assert_line --index 0 --regexp '^mount [0-9]+ EPERM$'
	assert_line --index 1 --regexp '^mount [0-9]+ ENOSYS$'
	total=$(awk '{ n += $2 } END { print n }' "$BATS_TEST_TMPDIR/$ID.out")
	[ "$total" = 2000000 ] || fail "$total calls answered"
	corral delete --force "$ID"
	corral delete --force "$ID-pod"
}

@test "a hostile comm is escaped; a permissive policy (no baseline) records nothing" {
	ln -s sysprobe "$ROOTFS/bin/x y"$'\e'
	set_args sh -c '"/bin/x y'$'\e''" keyctl; exec sleep 100'
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	poll_equal "probe" "keyctl EPERM" 50 cat "$BATS_TEST_TMPDIR/$ID.out"
	run report_py "$ID" '[(c["name"], c["first_comm"]) for c in r["syscalls_refused"]["calls"]]'
	assert_output "[('keyctl', 'x\\\\x20y\\\\x1b')]"
	run corral report "$ID"
	assert_line --regexp '^  keyctl +1  first .* \(x\\x20y\\x1b\)$'
	set_args sh -c '/bin/sysprobe keyctl; exec sleep 100'
	corral --policy "$REPO_ROOT/config-examples/policy/permissive.json" \
		run -d --bundle "$BUNDLE" "$ID-p" </dev/null \
		>"$BATS_TEST_TMPDIR/p.out" 2>&1 || fail "run -d: $(cat "$BATS_TEST_TMPDIR/p.out")"
	poll_equal "probe" yes 50 sh -c "grep -q '^keyctl ' '$BATS_TEST_TMPDIR/p.out' && echo yes"
	run report_py "$ID-p" 'r["syscalls_refused"]'
	assert_output None
	run corral report "$ID-p"
	assert_line "  not recorded: the supervisor had no seccomp listener (no baseline under a permissive policy, or a container made before it)"
}
