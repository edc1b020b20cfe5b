#!/usr/bin/env bats
# Regression tests of what the runtime-tools validation suite found
# (tests/conformance/README.md): each fix, under the permissive policy
# where the sandbox is off and corral must behave as a plain OCI runtime,
# and, where the default policy's rule differs, that the rule still holds.

load helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	PERMISSIVE="$REPO_ROOT/config-examples/policy/permissive.json"
}

teardown() {
	corral_teardown
}

# corral_p ARGS...: corral under the permissive policy.
corral_p() {
	corral --policy "$PERMISSIVE" "$@"
}

# run_p ID: corral run (foreground) under the permissive policy, its
# output in $output as bats' run leaves it.
run_p() {
	run --separate-stderr corral_p run --bundle "$BUNDLE" "$1" </dev/null
}

@test "kernel memory limits are dropped with a warning, in both modes" {
	update_config '.linux.resources.memory = {"limit": 268435456,
		"kernel": 1048576, "kernelTCP": 65536}'
	set_args true
	run --separate-stderr corral run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	[[ "$stderr" == *"warning: $ID: .linux.resources.memory.kernel: 1048576 -> dropped (deprecated by the runtime-spec"* ]] ||
		fail "no warning for memory.kernel: $stderr"
	[[ "$stderr" == *".linux.resources.memory.kernelTCP: 65536 -> dropped"* ]] ||
		fail "no warning for memory.kernelTCP: $stderr"
	run_p "$ID-p"
	assert_success
	[[ "$stderr" == *"memory.kernel: 1048576 -> dropped"* ]] ||
		fail "no warning under permissive: $stderr"
	run corral explain --bundle "$BUNDLE"
	assert_output --regexp '\.linux\.resources\.memory\.kernel +1048576 -> dropped'
	assert_output --regexp '\.linux\.resources\.memory\.kernelTCP +65536 -> dropped'
	run corral explain --fields
	assert_output --partial ".linux.resources.memory.kernel"
	assert_output --partial "deprecated by the runtime-spec"
}

@test "permissive: the standard devices stay usable under a deny-all device rule" {
	# corral spec's config denies every device; busybox sh opens
	# /dev/null for a background job
	[ "$(jq -c .linux.resources.devices "$BUNDLE/config.json")" = \
		'[{"allow":false,"access":"rwm"}]' ]
	set_args sh -c 'echo x >/dev/null && head -c 4 /dev/zero | wc -c'
	run_p "$ID"
	assert_success
	assert_output 4
}

@test "permissive: config.json's device nodes are made, and not opened unless allowed" {
	update_config '.linux.devices = [
		{"path": "/dev/test1", "type": "c", "major": 10, "minor": 666,
		 "fileMode": 432, "uid": 0, "gid": 0},
		{"path": "/dev/test3", "type": "p", "major": 0, "minor": 0}]'
	set_args sh -c 'stat -c "%F %t:%T %a" /dev/test1 /dev/test3;
		cat /dev/test1 2>/dev/null || echo denied'
	run_p "$ID"
	assert_success
	assert_line --index 0 "character special file a:29a 660"
	assert_line --index 1 "fifo 0:0 666"
	assert_line --index 2 denied
}

@test "an ociVersion that is not SemVer fails create with one line" {
	update_config '.ociVersion = "invalid"'
	run --separate-stderr corral_p create --bundle "$BUNDLE" "$ID"
	assert_failure
	assert_error_line
	[[ "$stderr" == *".ociVersion: expected a SemVer version"* ]] ||
		fail "unexpected error: $stderr"
	[ ! -e "$ROOT/$ID" ]
}

@test "permissive: the hostname is set in a uts namespace config.json joins" {
	local holder pid
	unshare --uts --fork sleep 100 </dev/null >/dev/null 2>&1 3>&- &
	holder=$!
	track_pid "$holder"
	# the namespace is the child's (unshare --fork)
	poll_equal "unshare's child" 1 50 sh -c "pgrep -P $holder | wc -l"
	pid="$(pgrep -P "$holder")"
	track_pid "$pid" # killing unshare would leave its child
	update_config '.linux.namespaces |= map(if .type == "uts"
		then .path = $ns else . end) | .hostname = "joined-uts"' \
		--arg ns "/proc/$pid/ns/uts"
	set_args hostname
	run_p "$ID"
	assert_success
	assert_output joined-uts
	[ "$(nsenter --uts="/proc/$pid/ns/uts" hostname)" = joined-uts ]
	# the default policy joins no namespace that is not a pod sandbox's
	run --separate-stderr corral create --bundle "$BUNDLE" "$ID-d"
	assert_failure
	assert_error_line
}

@test "permissive: mounts show in config.json's order, binds among them" {
	mkdir -p "$BATS_TEST_TMPDIR/src"
	update_config '.mounts += [
		{"destination": "/tmp/m1", "type": "tmpfs", "source": "tmpfs"},
		{"destination": "/tmp/m2", "type": "bind", "source": $src,
		 "options": ["bind", "unbindable"]},
		{"destination": "/tmp/m3", "type": "tmpfs", "source": "tmpfs"},
		{"destination": "/tmp/m4", "type": "bind", "source": $src,
		 "options": ["rbind", "rprivate"]}]' --arg src "$BATS_TEST_TMPDIR/src"
	set_args sh -c 'grep -o " /tmp/m[0-9] " /proc/self/mountinfo | tr -d " \n"'
	run_p "$ID"
	assert_success
	assert_output "/tmp/m1/tmp/m2/tmp/m3/tmp/m4"
}

# net_cls and net_prio (cgroup v1): this host mounts neither, so the test
# mounts them, co-mounted as systemd does, in a /sys/fs/cgroup of its own
# made in a private mount namespace, where the whole lifecycle runs; the
# host's /sys/fs/cgroup is not touched, and the hierarchy the test made
# is gone when it ends (checked).  On a cgroup v2 host the field is
# refused instead.
@test "permissive: linux.resources.network writes net_cls.classid and net_prio.ifpriomap" {
	if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
		update_config '.linux.resources.network = {"classID": 1048577}'
		run --separate-stderr corral_p create --bundle "$BUNDLE" "$ID"
		assert_failure
		assert_error_line
		[[ "$stderr" == *"needs cgroup v1 (cgroup v2 has no net_cls"* ]] ||
			fail "unexpected error: $stderr"
		return
	fi
	local had_net_cls=""
	! cgroupfs_listed net_cls,net_prio || had_net_cls=y
	update_config '.linux.resources.network = {"classID": 1048577,
		"priorities": [{"name": "lo", "priority": 7}]}'
	{
		cgroupfs_prelude
		cat <<'SCRIPT'
ours=""
if [ ! -e "$t/net_cls" ]; then
	add_hierarchy net_cls,net_prio net_cls,net_prio net_cls net_prio
	ours=/sys/fs/cgroup/net_cls,net_prio
fi
SCRIPT
		cgroupfs_take
		cat <<'SCRIPT'
c() { "$CORRAL" --root "$ROOT" --policy "$PERMISSIVE" "$@" 3>&-; }
cleanup() {
	c delete --force "$ID" >/dev/null 2>&1 || true
	[ -z "$ours" ] || rmdir "$ours/corral" 2>/dev/null || true
}
trap cleanup EXIT
c create --bundle "$BUNDLE" "$ID" </dev/null >/dev/null
dir="/sys/fs/cgroup/net_cls/corral/$ID"
echo "classid $(cat "$dir/net_cls.classid")"
grep '^lo ' "/sys/fs/cgroup/net_prio/corral/$ID/net_prio.ifpriomap"
c delete --force "$ID"
[ ! -e "$dir" ] && echo "removed"
[ -z "$ours" ] || echo "own hierarchy"
SCRIPT
	} >"$BATS_TEST_TMPDIR/net.sh"
	export CORRAL ROOT PERMISSIVE BUNDLE ID BATS_TEST_TMPDIR
	run unshare -m --propagation private bash "$BATS_TEST_TMPDIR/net.sh"
	[ -n "$had_net_cls" ] || cgroupfs_destroy net_cls,net_prio
	[[ "$output" != skip:* ]] || skip "${output#skip: }"
	assert_success
	assert_output --regexp "^classid 1048577
lo 7
removed(
own hierarchy)?$"
}

@test "the default policy drops linux.resources.network, and update cannot set it" {
	update_config '.linux.resources.network = {"classID": 1048577,
		"priorities": [{"name": "lo", "priority": 7}]}'
	run corral explain --bundle "$BUNDLE"
	assert_success
	assert_output --regexp '\.linux\.resources\.network\.classID +1048577 -> dropped'
	assert_output --regexp '\.linux\.resources\.network\.priorities +1 interface\(s\) -> dropped'
	set_args sleep 30
	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	run jq -c '.linux.resources.network' "$ROOT/$ID/config.json"
	assert_output null
	echo '{"network": {"classID": 7}}' >"$BATS_TEST_TMPDIR/res.json"
	run --separate-stderr corral update --resources "$BATS_TEST_TMPDIR/res.json" "$ID"
	assert_failure
	assert_error_line
	[[ "$stderr" == *"network: classID and priorities are the host's to choose under the sandbox"* ]] ||
		fail "unexpected error: $stderr"
}
