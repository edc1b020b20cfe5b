#!/usr/bin/env bats
# The runtime binary is never reachable from inside the container
# (CVE-2019-5736): every process of a container is the stage, a sealed
# memfd, from before "created" (the init) or before its sandbox (exec)
# until it execs the container's code, so /proc/self/exe and
# /proc/1/exe never name corral's file, under the default policy and
# under the permissive one (root with every capability, no
# no_new_privs, no filter: runc's CVE conditions).  And a container
# that joined another pid namespace, where its supervisor is not PID 1,
# still loses every process at its end.

load security

PERMISSIVE="$REPO_ROOT/config-examples/policy/permissive.json"
MEMFD_EXE="/memfd:corral-init (deleted)"

# Root with the capabilities runc's CVE needs and more (not every one:
# a host's own bounding set may lack some, and then even a permissive
# container cannot have them), no no_new_privs, no seccomp filter.
# shellcheck disable=SC2016
ROOT_ALL_CAPS='
	(["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL",
	  "SETGID", "SETUID", "SETPCAP", "NET_ADMIN", "NET_RAW", "SYS_CHROOT",
	  "SYS_PTRACE", "SYS_ADMIN", "MKNOD", "AUDIT_WRITE", "SETFCAP"]
	 | map("CAP_" + .)) as $caps |
	.process.user = { uid: 0, gid: 0 } |
	.process.noNewPrivileges = false |
	.process.capabilities = { bounding: $caps, effective: $caps,
		permitted: $caps, inheritable: $caps, ambient: $caps } |
	.linux.resources.devices = [{ allow: true, access: "rwm" }] |
	del(.linux.seccomp)'

setup_file() {
	battery_setup_file
	printf '#!/proc/self/exe\n' >"$BATS_FILE_TMPDIR/bundle/rootfs/bin/selfexe"
	chmod 0755 "$BATS_FILE_TMPDIR/bundle/rootfs/bin/selfexe"
}

setup() {
	corral_setup
	HOST_NETNS=()
	BINARY="$(readlink -f "$CORRAL")"
	SUM_BEFORE="$(sha256sum <"$BINARY")"
}

teardown() {
	battery_teardown
}

# in_container [--policy F] ARG...: the workload ARG..., foreground; it
# is expected to exit 127, as the stage does when not started by corral.
in_container() {
	local policy=()
	if [ "$1" = --policy ]; then
		policy=(--policy "$2")
		shift 2
	fi
	set_args "$@"
	run -127 --separate-stderr corral_bounded 60 "${policy[@]}" run \
		--bundle "$BUNDLE" "$ID" </dev/null
}

# refute_corral: the last run printed nothing of corral's CLI.
refute_corral() {
	refute_output --partial "usage: corral"
	refute_output --partial "corral version"
	[[ "$stderr" != *"usage: corral"* && "$stderr" != *"corral version"* ]] ||
		fail "corral's CLI ran: $stderr"
}

assert_binary_unchanged() {
	assert_equal "$(sha256sum <"$BINARY")" "$SUM_BEFORE"
}

@test "exe: /proc/self/exe as the workload does not run corral (default policy)" {
	for args in "/proc/self/exe" "/proc/self/exe --version" \
		"/proc/self/exe spec" "/proc/self/exe 0"; do
		# shellcheck disable=SC2086
		in_container $args
		assert_failure 127
		refute_corral
	done
	assert_binary_unchanged
}

@test "exe: /proc/self/exe as the workload does not run corral (permissive policy, root with capabilities)" {
	update_config "$ROOT_ALL_CAPS"
	for args in "/proc/self/exe" "/proc/self/exe --version" \
		"/proc/self/exe --help"; do
		# shellcheck disable=SC2086
		in_container --policy "$PERMISSIVE" $args
		assert_failure 127
		refute_corral
	done
	assert_binary_unchanged
}

@test "exe: a #!/proc/self/exe script does not run corral, as the workload or through exec" {
	local policy
	for policy in "" "$PERMISSIVE"; do
		[ -z "$policy" ] || update_config "$ROOT_ALL_CAPS"
		in_container ${policy:+--policy "$policy"} /bin/selfexe --version
		assert_failure 127
		refute_corral
		set_args sleep 60
		corral_bounded 60 ${policy:+--policy "$policy"} run -d --bundle "$BUNDLE" \
			"$ID" </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/run.err" ||
			fail "run -d: $(cat "$BATS_TEST_TMPDIR/run.err")"
		run -127 --separate-stderr corral_bounded 60 exec "$ID" /bin/selfexe --version
		refute_corral
		run -127 --separate-stderr corral_bounded 60 exec "$ID" /proc/self/exe --help
		refute_corral
		corral delete --force "$ID"
	done
	assert_binary_unchanged
}

@test "exe: from the host, the init's exe is the sealed memfd, and it does not open for writing" {
	set_args sleep 60
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	assert_equal "$(readlink "/proc/$pid/exe")" "$MEMFD_EXE"
	# the stage's command line names no host path; neither does its comm
	[[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" =~ ^corral-init\ *$ ]] ||
		fail "cmdline: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
	assert_equal "$(cat "/proc/$pid/comm")" corral-init
	run python3 -c '
import os, sys
exe = "/proc/%s/exe" % sys.argv[1]
for flags in (os.O_WRONLY, os.O_RDWR, os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_APPEND):
    try:
        fd = os.open(exe, flags)
    except OSError as e:
        print("refused", e.strerror)
        continue
    try:
        os.write(fd, b"x")
        print("WRITTEN")
    except OSError as e:
        print("write refused", e.strerror)
    os.close(fd)
' "$pid"
	assert_success
	refute_output --partial WRITTEN
	assert_binary_unchanged
}

# runc's CVE: a process of the container holds /proc/PID/exe of the
# runtime (O_PATH) until that process is gone, then reopens it for
# writing.  Here the host plays the holder, which has every right to
# open it: the memfd's seals refuse every write, also once no process
# runs it.
@test "exe: a held /proc/PID/exe of the init cannot be written after the container is gone" {
	set_args sleep 60
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	run python3 -c '
import os, subprocess, sys, time
pid, corral, root, cid = sys.argv[1:]
held = os.open("/proc/%s/exe" % pid, os.O_PATH)
subprocess.run([corral, "--root", root, "kill", cid, "KILL"], check=True)
for _ in range(100):
    if not os.path.exists("/proc/%s/exe" % pid):
        break
    time.sleep(0.05)
try:
    fd = os.open("/proc/self/fd/%d" % held, os.O_WRONLY)
except OSError as e:
    print("reopen refused", e.strerror)
    sys.exit(0)
for data in (b"x", b"#!/bin/sh\n"):
    try:
        os.write(fd, data)
        print("WRITTEN")
    except OSError as e:
        print("write refused", e.strerror)
try:
    os.ftruncate(fd, 0)
    print("TRUNCATED")
except OSError as e:
    print("truncate refused", e.strerror)
' "$pid" "$CORRAL" "$ROOT" "$ID"
	assert_success
	refute_output --partial WRITTEN
	refute_output --partial TRUNCATED
	assert_binary_unchanged
}

@test "exe: a permissive root container's writes to /proc/1/exe and its own exe leave corral unchanged" {
	update_config "$ROOT_ALL_CAPS"
	set_args sleep 60
	corral_bounded 60 --policy "$PERMISSIVE" run -d --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/run.err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/run.err")"
	track_pid "$(container_pid "$ID")"
	# with CAP_SYS_PTRACE the workload may read PID 1's exe link: the
	# memfd, which refuses the writes
	run --separate-stderr corral_bounded 60 exec "$ID" sh -c '
		readlink /proc/1/exe
		echo x >/proc/1/exe && echo "WROTE /proc/1/exe"
		echo x >>/proc/1/exe && echo "APPENDED /proc/1/exe"
		(exec 5<>/proc/1/exe) && echo "OPENED /proc/1/exe rw"
		sysprobe openw /proc/1/exe /proc/self/exe
		true'
	assert_success
	assert_line "$MEMFD_EXE"
	refute_output --partial WROTE
	refute_output --partial APPENDED
	refute_output --partial OPENED
	refute_output --regexp 'exe OK$'
	assert_binary_unchanged
}

# Docker's default capabilities (root, but no CAP_SYS_PTRACE): a process
# of corral exec is corral's binary from its fork in the container's pid
# namespace to its exec of the stage, and not dumpable, which keeps its
# /proc/PID/exe from everyone without CAP_SYS_PTRACE.  (With it, as a
# privileged container has, that window shows corral; the stage does not
# change that.)  After the window it is the stage, and then its command:
# a #!/proc/self/exe command runs the stage again, never corral.
@test "exe: a permissive root container sees no corral in any /proc/PID/exe during corral exec" {
	update_config "$ROOT_ALL_CAPS"
	update_config '.process.capabilities |= map_values(map(select(. != "CAP_SYS_PTRACE")))'
	set_args sleep 60
	corral_bounded 60 --policy "$PERMISSIVE" run -d --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/run.err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/run.err")"
	track_pid "$(container_pid "$ID")"
	corral_bounded 60 exec -d --pid-file "$BATS_TEST_TMPDIR/scan.pid" "$ID" \
		/bin/sysprobe scanexe 3 </dev/null \
		>"$BATS_TEST_TMPDIR/scan.out" 2>"$BATS_TEST_TMPDIR/scan.err" ||
		fail "exec scanexe: $(cat "$BATS_TEST_TMPDIR/scan.err")"
	scan_pid="$(cat "$BATS_TEST_TMPDIR/scan.pid")"
	track_pid "$scan_pid"
	for _ in $(seq 10); do
		corral_bounded 60 exec "$ID" true || fail "exec true failed"
		corral_bounded 60 exec "$ID" /bin/selfexe >/dev/null 2>&1 || true
	done
	wait_pid_gone "$scan_pid" 60
	run cat "$BATS_TEST_TMPDIR/scan.out"
	assert_line "scan done"
	refute_output --partial WRITABLE
	refute_output --partial "$BINARY"
	refute_output --regexp '^exe [0-9]+ /[^:]*corral[^:]*$'
	assert_binary_unchanged
}
