#!/usr/bin/env bats
# The cgroupfs driver's side of systemd's names, on a host whose init is
# not systemd (this machine, a container without an init): --systemd-cgroup
# warns once and the cgroup is made on cgroupfs where systemd would have
# put it, with systemd's escapes; a name systemd would refuse fails create
# with one line.  tests/vm/systemd_cgroup.bats covers the systemd driver.

load helpers

setup_file() {
	if [ -d /run/systemd/system ]; then skip "systemd is this host's init"; fi
	corral_setup_file
}

setup() {
	corral_setup
}

teardown() {
	corral_teardown
	# the slices are not corral's to remove (only corral/ parents are)
	local d
	for d in /sys/fs/cgroup/unified /sys/fs/cgroup/* /sys/fs/cgroup; do
		rmdir "$d"/corraltest.slice/corraltest-a.slice \
			"$d"/corraltest.slice "$d"/_cpu.slice 2>/dev/null || true
	done
}

# the cgroup2 tree: the unified one of a hybrid host, else the v2 root
cgroup2() {
	if [ -d /sys/fs/cgroup/unified ]; then
		echo /sys/fs/cgroup/unified
	else
		echo /sys/fs/cgroup
	fi
}

@test "--systemd-cgroup without systemd: one warning line, the cgroup where systemd would put it" {
	update_config ".linux.cgroupsPath = \"corraltest-a.slice:p:$ID\""
	set_args sleep 100
	# stdio to files: the container must not hold a pipe of bats' run
	timeout 30 "$CORRAL" --root "$ROOT" --systemd-cgroup create \
		--bundle "$BUNDLE" "$ID" </dev/null >"$BATS_TEST_TMPDIR/out" \
		2>"$BATS_TEST_TMPDIR/err" 3>&- || fail "create failed"
	stderr="$(cat "$BATS_TEST_TMPDIR/err")"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -eq 1 ] || fail "stderr: $stderr"
	[[ "$stderr" == *"--systemd-cgroup: systemd is not this host's init; the cgroup is made on cgroupfs"* ]] ||
		fail "stderr: $stderr"
	[ -d "$(cgroup2)/corraltest.slice/corraltest-a.slice/p-$ID.scope" ] ||
		fail "no scope directory"
	run timeout 30 "$CORRAL" --root "$ROOT" delete --force "$ID" 3>&-
	assert_success
	[ ! -e "$(cgroup2)/corraltest.slice/corraltest-a.slice/p-$ID.scope" ] ||
		fail "the scope directory is left"
}

@test "a slice named like a controller's file is escaped as systemd escapes it" {
	update_config ".linux.cgroupsPath = \"cpu.slice:p:$ID\""
	set_args true
	create_container "$ID"
	[ -d "$(cgroup2)/_cpu.slice/p-$ID.scope" ] ||
		fail "no _cpu.slice/p-$ID.scope: $(ls "$(cgroup2)")"
	run timeout 30 "$CORRAL" --root "$ROOT" delete --force "$ID" 3>&-
	assert_success
}

@test "a slice name systemd refuses fails create with one line, nothing made" {
	update_config '.linux.cgroupsPath = "bad name.slice:p:x"'
	run --separate-stderr timeout 30 "$CORRAL" --root "$ROOT" create \
		--bundle "$BUNDLE" "$ID" </dev/null 3>&-
	assert_error_line
	[[ "$stderr" == *"is not a slice name systemd accepts"* ]] ||
		fail "stderr: $stderr"
	[ ! -e "$(cgroup2)/bad name.slice" ] || fail "a cgroup was made"
	assert_no_leftovers "$ID"
}

@test "systemd as init over v1 controllers (a hybrid host): the systemd driver refuses with one line, nothing made" {
	[ -d /sys/fs/cgroup/unified ] || skip "not a hybrid host"
	[ -d /run/systemd ] || skip "no /run/systemd to cover"
	update_config ".linux.cgroupsPath = \"corraltest-a.slice:p:$ID\""
	set_args true
	# /run/systemd/system, sd_booted(3)'s test, in a mount namespace of
	# the test's own: to corral this host is then booted by systemd
	run --separate-stderr timeout 30 unshare -m --propagation private \
		sh -c 'mount -t tmpfs corraltest /run/systemd &&
			mkdir /run/systemd/system && exec "$@"' sh \
		"$CORRAL" --root "$ROOT" create --bundle "$BUNDLE" "$ID" \
		</dev/null 3>&-
	assert_error_line
	[[ "$stderr" == *"systemd's cgroup driver needs the unified cgroup v2 hierarchy, and this host mounts v1 controllers"* ]] ||
		fail "stderr: $stderr"
	[ ! -e "$(cgroup2)/corraltest.slice" ] || fail "a cgroup was made"
	assert_no_leftovers "$ID"
}
