#!/usr/bin/env bats
# What the default spec (`corral spec`) gives a workload.

load helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
}

teardown() {
	corral_teardown
}

# run_in_container ARG...: run ARG... as the workload, in the foreground
# (at most 60 s: helpers.bash bounded).
run_in_container() {
	set_args "$@"
	run --separate-stderr corral_bounded 60 run --bundle "$BUNDLE" "$ID" </dev/null
}

@test "the workload runs as uid and gid 65534" {
	run_in_container id
	assert_success
	assert_output --regexp '^uid=65534(\([a-z]+\))? gid=65534(\([a-z]+\))?'
	refute_output --partial groups=
}

@test "no capabilities in any set, and no_new_privs" {
	run_in_container grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status
	assert_success
	[ "${#lines[@]}" -eq 6 ]
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		assert_line --regexp "^$set:[[:space:]]+0000000000000000$"
	done
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
}

@test "the hostname is corral" {
	run_in_container hostname
	assert_success
	assert_output corral
}

@test "the network namespace has only lo" {
	run_in_container ls /sys/class/net
	assert_success
	assert_output lo
}

@test "loopback is up and carries a connection" {
	# all inside the container's own network namespace
	run_in_container sh -c '
		up=$(( $(cat /sys/class/net/lo/flags) & 1 ))
		echo "lo-up $up"
		[ $up = 1 ] || exit 0
		nc -l -p 5555 >/tmp/got &
		i=0
		until echo over-lo | nc -w 1 127.0.0.1 5555 2>/dev/null; do
			i=$((i + 1)); [ $i -lt 30 ] || break; sleep 0.1
		done
		i=0
		until [ -s /tmp/got ] || [ $i -ge 30 ]; do i=$((i + 1)); sleep 0.1; done
		cat /tmp/got'
	assert_success
	assert_line "lo-up 1"
	assert_line over-lo
}

@test "/ is read-only, /tmp is writable" {
	# writable by the workload's user: only the mount can refuse
	chmod 0777 "$ROOTFS" "$ROOTFS/bin"
	run_in_container sh -c 'touch /written; mkdir /bin/dir
		echo scratch >/tmp/file && cat /tmp/file'
	assert_success
	assert_output scratch
	assert_equal "$(grep -c 'Read-only file system' <<<"$stderr")" 2
	[ ! -e "$ROOTFS/written" ]
	[ ! -e "$ROOTFS/bin/dir" ]
}

@test "with a writable root, writes land in scratch, never in the bundle" {
	update_config '.root.readonly = false'
	# writable by the workload's user: only the mount can refuse
	chmod 0777 "$ROOTFS" "$ROOTFS/bin"
	run_in_container sh -c 'echo new >/written && cat /written &&
		echo changed >/bin/busybox-copy && rm -f /bin/sh && echo done'
	assert_success
	assert_output "new
done"
	[ ! -e "$ROOTFS/written" ] || fail "the container wrote to the bundle"
	[ ! -e "$ROOTFS/bin/busybox-copy" ] || fail "the container wrote to the bundle"
	[ -L "$ROOTFS/bin/sh" ] || fail "the container removed a file of the bundle"
}

# A script for `sh -c`: for each PATH argument print "PATH N M", N the bytes
# (a file) or entries (a directory) it holds, M its lines in mountinfo.
masked_check='
	for p in "$@"; do
		if [ -d "$p" ]; then n=$(ls -A "$p" | wc -l); else n=$(cat "$p" | wc -c); fi
		m=$(awk -v p="$p" "\$5 == p" /proc/self/mountinfo | wc -l)
		echo "$p $n $m"
	done'

@test "/proc/kcore is masked: it reads empty" {
	[ -e /proc/kcore ] || skip "this kernel has no /proc/kcore"
	run_in_container sh -c "$masked_check" sh /proc/kcore
	assert_success
	assert_output "/proc/kcore 0 1"
}

@test "the default masked paths that exist read empty" {
	paths=()
	for p in /proc/keys /proc/timer_list /proc/sched_debug /proc/acpi \
		/sys/firmware; do
		[ -e "$p" ] && paths+=("$p")
	done
	[ "${#paths[@]}" -gt 0 ] || skip "none of the masked paths exist here"
	run_in_container sh -c "$masked_check" sh "${paths[@]}"
	assert_success
	for p in "${paths[@]}"; do
		assert_line "$p 0 1"
	done
}

# A cgroup namespace roots each hierarchy at the container's own cgroup
# only where it has one.  perf_event (mounted here for the test when the
# host has not, as most v1 hosts do) must be one of them, another
# tenant's cgroup beside the container's out of sight; a named hierarchy
# of another program's, where corral makes no cgroup, must not be
# mounted at all: it would show the host's whole tree.
@test "a v1 host's /sys/fs/cgroup shows the container's own cgroups, no other" {
	local had_perf_event=""
	[ ! -e /sys/fs/cgroup/cgroup.controllers ] ||
		skip "cgroup v2 host: one hierarchy, rooted at the container's cgroup"
	! cgroupfs_listed name=corraltest ||
		skip "a name=corraltest hierarchy exists already"
	! cgroupfs_listed perf_event || had_perf_event=y
	set_args sh -c 'cd /sys/fs/cgroup || exit 1
		[ -e perf_event/cgroup.procs ] && echo "perf_event: own"
		[ -e perf_event/other-tenant ] && echo "perf_event: another tenant"
		[ -e corraltest ] && echo "corraltest: mounted"
		true'
	{
		cgroupfs_prelude
		cat <<'SCRIPT'
ours=""
if [ ! -e "$t/perf_event" ]; then
	add_hierarchy perf_event perf_event
	ours=/sys/fs/cgroup/perf_event
fi
add_hierarchy corraltest none,name=corraltest
SCRIPT
		cgroupfs_take
		cat <<'SCRIPT'
cleanup() {
	"$CORRAL" --root "$ROOT" delete --force "$ID" >/dev/null 2>&1 3>&- || true
	rmdir /sys/fs/cgroup/corraltest/other-tenant 2>/dev/null || true
	[ -z "$ours" ] || rmdir "$ours/other-tenant" "$ours/corral" 2>/dev/null ||
		true
}
trap cleanup EXIT
mkdir /sys/fs/cgroup/corraltest/other-tenant
[ -z "$ours" ] || mkdir "$ours/other-tenant"
"$CORRAL" --root "$ROOT" run --bundle "$BUNDLE" "$ID" </dev/null 3>&-
SCRIPT
	} >"$BATS_TEST_TMPDIR/cg.sh"
	export CORRAL ROOT BUNDLE ID BATS_TEST_TMPDIR
	run bounded 60 unshare -m --propagation private bash "$BATS_TEST_TMPDIR/cg.sh"
	cgroupfs_destroy name=corraltest
	[ -n "$had_perf_event" ] || cgroupfs_destroy perf_event
	[[ "$output" != skip:* ]] || skip "${output#skip: }"
	assert_success
	assert_output "perf_event: own"
}

@test "/proc/sys is mounted read-only" {
	run_in_container awk '$5 == "/proc/sys" { print $6 }' /proc/self/mountinfo
	assert_success
	[ -n "$output" ] || fail "/proc/sys is not a mount point"
	assert_output --regexp '^ro(,|$)'
	# and a write is refused
	run_in_container sh -c 'echo 1 >/proc/sys/kernel/ns_last_pid && echo written'
	refute_output --partial written
}

@test "the bundle's rootfs is unchanged after the container wrote to /tmp" {
	snapshot() {
		find "$ROOTFS" -printf '%P %y %m %s %U:%G %T@ %l\n' | sort
	}
	before="$(snapshot)"
	run_in_container sh -c '
		echo data >/tmp/a && mkdir /tmp/d && echo more >/tmp/d/b &&
		cat /tmp/a /tmp/d/b; touch /x 2>/dev/null; true'
	assert_success
	assert_output "data
more"
	after="$(snapshot)"
	assert_equal "$after" "$before"
}

@test "the environment is exactly config.json's env" {
	update_config '.process.env = ["PATH=/bin", "HOME=/root", "TERM=dumb",
		"LANG=C.UTF-8"]'
	run_in_container env
	assert_success
	assert_equal "$(sort <<<"$output")" "$(printf '%s\n' HOME=/root LANG=C.UTF-8 PATH=/bin TERM=dumb)"
}

@test "names off the environment allowlist are dropped" {
	update_config '.process.env = ["PATH=/bin", "AWS_SECRET_ACCESS_KEY=hunter2",
		"HOME=/root", "DATABASE_URL=postgres://u:p@db/x"]'
	run_in_container env
	assert_success
	refute_output --partial hunter2
	refute_output --partial DATABASE_URL
	assert_line PATH=/bin
	assert_line HOME=/root
}

@test "a seccomp filter from config.json is enforced" {
	update_config '.linux.seccomp = {
		defaultAction: "SCMP_ACT_ALLOW",
		syscalls: [ { names: ["mkdir", "mkdirat"],
			      action: "SCMP_ACT_ERRNO", errnoRet: 1 } ] }'
	run_in_container sh -c 'mkdir /tmp/d; echo "mkdir: $?"; echo x >/tmp/f && echo write-ok'
	assert_success
	assert_line --regexp 'mkdir: 1$'
	assert_line write-ok
	[[ "$stderr" == *"Operation not permitted"* ]] ||
		fail "mkdir did not fail with EPERM: $stderr"
}

@test "rlimits from config.json reach the process" {
	update_config '.process.rlimits = [
		{ type: "RLIMIT_NOFILE", soft: 123, hard: 456 } ]'
	run_in_container sh -c 'ulimit -n; ulimit -Hn'
	assert_success
	assert_output "123
456"
}

@test "--preserve-fds 1 passes fd 3 and nothing else leaks" {
	echo preserved-data >"$BATS_TEST_TMPDIR/fd3"
	set_args ls /proc/self/fd
	# fd 3 given explicitly: the corral wrapper closes bats' own fd 3
	run --separate-stderr bounded 60 "$CORRAL" --root "$ROOT" run --preserve-fds 1 \
		--bundle "$BUNDLE" "$ID" 3<"$BATS_TEST_TMPDIR/fd3"
	assert_success
	# 0 1 2 3 and the directory ls itself has open
	[ "${#lines[@]}" -eq 5 ] || fail "fds in the container: ${lines[*]}"
	for fd in 0 1 2 3; do
		assert_line --index "$fd" "$fd"
	done

	set_args sh -c 'cat <&3'
	run --separate-stderr bounded 60 "$CORRAL" --root "$ROOT" run --preserve-fds 1 \
		--bundle "$BUNDLE" "$ID" 3<"$BATS_TEST_TMPDIR/fd3"
	assert_success
	assert_output preserved-data
}

@test "without --preserve-fds only 0 1 2 reach the workload" {
	run_in_container ls /proc/self/fd
	assert_success
	[ "${#lines[@]}" -eq 4 ] || fail "fds in the container: ${lines[*]}"
}
