#!/usr/bin/env bats
# Low ports in the loopback-only network namespace corral makes: the
# workload binds port 80 as its unprivileged user, and a second process
# (corral exec) reaches it.  In a namespace the engine gave, nothing is
# written.

load helpers

setup_file() {
	corral_setup_file
	export HOST_LOW_PORTS
	HOST_LOW_PORTS="$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)"
}

setup() {
	corral_setup
	NETNS=""
}

teardown() {
	corral_teardown
	if [ -n "$NETNS" ]; then
		ip netns delete "$NETNS" || echo "# ip netns delete $NETNS failed" >&3
	fi
}

# start_server: the workload serves one line on port 80, detached.
start_server() {
	set_args sh -c 'while :; do echo served-on-80 | nc -l -p 80; done'
	run_detached "$ID" "$@" ||
		fail "run -d $ID: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
}

@test "the workload binds port 80 and corral exec connects to it" {
	start_server
	run --separate-stderr corral exec "$ID" sh -c '
		id -u; cat /proc/sys/net/ipv4/ip_unprivileged_port_start
		i=0
		until out=$(nc -w 1 127.0.0.1 80 </dev/null) && [ -n "$out" ]; do
			i=$((i + 1)); [ $i -lt 50 ] || exit 1; sleep 0.1
		done
		echo "$out"'
	assert_success
	assert_line --index 0 65534
	assert_line --index 1 0
	assert_line --index 2 served-on-80
	# the host's own namespace is untouched
	assert_equal "$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)" \
		"$HOST_LOW_PORTS"
}

@test "config.json's own value is kept: port 80 is then refused" {
	update_config '.linux.sysctl = {"net.ipv4.ip_unprivileged_port_start": "1024"}'
	set_args sh -c 'cat /proc/sys/net/ipv4/ip_unprivileged_port_start
		nc -l -p 80 -w 1 </dev/null; echo "nc $?"'
	run --separate-stderr corral run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_line --index 0 1024
	assert_line --index 1 "nc 1"
}

@test "an engine's network namespace (network: config) is left as it was" {
	NETNS="corral-lowports-$$-$BATS_TEST_NUMBER"
	ip netns add "$NETNS" || fail "ip netns add"
	ip netns exec "$NETNS" sh -c \
		'echo 900 >/proc/sys/net/ipv4/ip_unprivileged_port_start'
	printf '{ "network": "config" }\n' >"$BATS_TEST_TMPDIR/policy.json"
	update_config \
		'.linux.namespaces |= map(if .type == "network" then .path = $p else . end)' \
		--arg p "/run/netns/$NETNS"
	set_args sh -c 'cat /proc/sys/net/ipv4/ip_unprivileged_port_start'
	run --separate-stderr "$CORRAL" --root "$ROOT" \
		--policy "$BATS_TEST_TMPDIR/policy.json" \
		run --bundle "$BUNDLE" "$ID" </dev/null 3>&-
	# 900, the test's own value: the engine's namespace, joined, not
	# written (a new one would say 1024, a written one 0)
	assert_success
	assert_output 900
	run ip netns exec "$NETNS" cat /proc/sys/net/ipv4/ip_unprivileged_port_start
	assert_output 900
}

@test "explain says why low ports are open" {
	run --separate-stderr corral explain --bundle "$BUNDLE"
	assert_success
	assert_output --regexp '\.linux\.sysctl\["net\.ipv4\.ip_unprivileged_port_start"\] +absent -> 0  \(default: a loopback-only network namespace corral made; low ports reach no peer\)'
}
