#!/usr/bin/env bats
# The network of a pod: a member whose config.json names its pod
# sandbox's network (the CRI: /proc/PAUSE/ns/net) or the namespace the
# engine gave the pod (podman and CRI-O: the pod's path, which the pod
# sandbox recorded) joins the loopback-only namespace corral made for the
# pod sandbox, never the engine's; a member whose network would differ
# from the pod's is refused.  The engine's namespace is one this test
# makes.

load helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	NETNS="corral-podnet-$BATS_TEST_NUMBER-$$"
	ip netns add "$NETNS" || fail "ip netns add $NETNS"
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	echo '{}' >"$POLICY"
}

teardown() {
	corral_teardown
	if [ -n "${NETNS:-}" ]; then
		ip netns delete "$NETNS" 2>/dev/null ||
			echo "# ip netns delete $NETNS failed" >&3
	fi
}

# bundle_for NAME NETPATH ANNOTATIONS-JSON ARG...: a copy of the test's
# bundle for container NAME, its network namespace path and annotations.
bundle_for() {
	local name="$1" path="$2" ann="$3" b="$BATS_TEST_TMPDIR/b-$1"
	shift 3
	cp -a "$BUNDLE" "$b" || fail "copy the bundle"
	(BUNDLE="$b"
	 update_config '.linux.namespaces |= map(if .type == "network" then
			{type: "network", path: $p} else . end) |
		.annotations = $a' --arg p "$path" --argjson a "$ann"
	 set_args "$@")
}

# start NAME: run -d from its bundle under the test's policy.
start() {
	corral_bounded 60 --policy "$POLICY" run -d --bundle "$BATS_TEST_TMPDIR/b-$1" "$1" \
		</dev/null >>"$BATS_TEST_TMPDIR/$1.out" 2>>"$BATS_TEST_TMPDIR/$1.err"
}

netns_of() {
	readlink "/proc/$(container_pid "$1")/ns/net"
}

fetch_from() {
	run --separate-stderr corral_bounded 60 exec "$1" sh -c 'for i in $(seq 50); do
		busybox wget -q -O- http://127.0.0.1:80/group && exit 0
		sleep 0.1; done; exit 1'
}

@test "podman's shape: members naming the pod's namespace join the infra's loopback-only one" {
	local lib='{"io.container.manager": "libpod"}'
	local member="{\"io.container.manager\": \"libpod\", \"io.kubernetes.cri-o.SandboxID\": \"$ID-infra\"}"
	bundle_for "$ID-infra" "/run/netns/$NETNS" "$lib" sleep 1000
	bundle_for "$ID-a" "/run/netns/$NETNS" "$member" busybox httpd -f -p 127.0.0.1:80 -h /etc
	bundle_for "$ID-b" "/run/netns/$NETNS" "$member" sleep 1000
	for c in infra a b; do
		start "$ID-$c" || fail "run $ID-$c: $(cat "$BATS_TEST_TMPDIR/$ID-$c.err")"
	done
	assert_equal "$(netns_of "$ID-a")" "$(netns_of "$ID-infra")"
	assert_equal "$(netns_of "$ID-b")" "$(netns_of "$ID-infra")"
	[ "$(netns_of "$ID-infra")" != "$(readlink "/run/netns/$NETNS" 2>/dev/null || stat -L -c 'net:[%i]' "/run/netns/$NETNS")" ] ||
		fail "the pod is in the engine's namespace"
	fetch_from "$ID-b"
	assert_success
	assert_output nogroup:x:65534:
	run corral_bounded 60 exec "$ID-b" ls /sys/class/net
	assert_output lo
	run corral explain "$ID-b"
	assert_output --partial "its pod's: the pod sandbox's namespace (/run/netns/$NETNS)"
}

@test "the CRI's shape: a member naming the pause's /proc namespace joins it" {
	local pause="{\"io.kubernetes.cri.container-type\": \"sandbox\", \"io.kubernetes.cri.sandbox-id\": \"$ID-pause\"}"
	local app="{\"io.kubernetes.cri.container-type\": \"container\", \"io.kubernetes.cri.sandbox-id\": \"$ID-pause\"}"
	bundle_for "$ID-pause" "/run/netns/$NETNS" "$pause" sleep 1000
	start "$ID-pause" || fail "run the pause: $(cat "$BATS_TEST_TMPDIR/$ID-pause.err")"
	bundle_for "$ID-app" "/proc/$(container_pid "$ID-pause")/ns/net" "$app" \
		busybox httpd -f -p 127.0.0.1:80 -h /etc
	start "$ID-app" || fail "run the app: $(cat "$BATS_TEST_TMPDIR/$ID-app.err")"
	assert_equal "$(netns_of "$ID-app")" "$(netns_of "$ID-pause")"
	# the app's server, reached from the pause's namespace
	run timeout 20 nsenter --net="/proc/$(container_pid "$ID-pause")/ns/net" \
		busybox wget -q -O- http://127.0.0.1:80/group
	assert_success
	assert_output nogroup:x:65534:
}

@test "a member whose policy would get another network than its pod's is refused" {
	local pause="{\"io.kubernetes.cri.container-type\": \"sandbox\", \"io.kubernetes.cri.sandbox-id\": \"$ID-pause\"}"
	local app="{\"io.kubernetes.cri.container-type\": \"container\", \"io.kubernetes.cri.sandbox-id\": \"$ID-pause\"}"
	echo '{"network": {"allow": ["pypi.org"]}}' >"$POLICY"
	bundle_for "$ID-pause" "/run/netns/$NETNS" "$pause" sleep 1000
	start "$ID-pause" || fail "run the pause: $(cat "$BATS_TEST_TMPDIR/$ID-pause.err")"
	bundle_for "$ID-app" "/proc/$(container_pid "$ID-pause")/ns/net" "$app" sleep 1000
	# no proxy for the member, where the pod has one
	echo '{}' >"$POLICY"
	# (through files: a create that should fail would hold a pipe)
	run_files corral --policy "$POLICY" create \
		--bundle "$BATS_TEST_TMPDIR/b-$ID-app" "$ID-app"
	assert_failure
	assert_output ""
	[[ "$stderr" == *"the pod's network has corral's egress proxy and this container's policy allows no host"* ]] ||
		fail "unexpected error: $stderr"
	# more rules than the pod's: the pod's proxy serves it (stdio to
	# files: the created container outlives the command)
	echo '{"network": {"allow": ["pypi.org", "files.pythonhosted.org"]}}' >"$POLICY"
	corral_bounded 60 --policy "$POLICY" create --bundle "$BATS_TEST_TMPDIR/b-$ID-app" \
		"$ID-app" </dev/null >>"$BATS_TEST_TMPDIR/$ID-app.out" \
		2>>"$BATS_TEST_TMPDIR/$ID-app.err" ||
		fail "create: $(cat "$BATS_TEST_TMPDIR/$ID-app.err")"
	[ ! -e "$ROOT/$ID-app/egress.pid" ] || fail "the member has a proxy of its own"
	jq -e '.sandbox.podNetwork == true' "$ROOT/$ID-app/sandbox.json" >/dev/null ||
		fail "the member is not in its pod's network"
	echo '{"network": {"allow": ["files.pythonhosted.org"]}}' >"$POLICY"
	run_files corral --policy "$POLICY" create \
		--bundle "$BATS_TEST_TMPDIR/b-$ID-app" "$ID-app-2"
	assert_failure
	[[ "$stderr" == *"the pod's proxy allows hosts this container's policy does not"* ]] ||
		fail "unexpected error: $stderr"
	[ ! -e "$ROOT/$ID-app-2" ] || fail "a refused create left its state"
}

@test "a member naming a pod sandbox that is not running is refused with one line; nothing is left" {
	local app="{\"io.kubernetes.cri.container-type\": \"container\", \"io.kubernetes.cri.sandbox-id\": \"$ID-none\"}"
	bundle_for "$ID-app" "/run/netns/$NETNS" "$app" sleep 1000
	run_files corral --policy "$POLICY" create \
		--bundle "$BATS_TEST_TMPDIR/b-$ID-app" "$ID-app"
	assert_error_line
	[[ "$stderr" == *"annotation io.kubernetes.cri.sandbox-id=$ID-none: no running pod sandbox of that name"* ]] ||
		fail "unexpected error: $stderr"
	assert_no_leftovers "$ID-app"
}
