#!/usr/bin/env bats
# Malicious bundles.  Each one is refused with one error line naming the
# object, or contained (the workload runs and proves it stayed inside).
# Either way a sentinel tree on the host and the bundle's rootfs are
# unchanged afterwards (contents, modes, owners, mtimes, symlink targets),
# and no state directory, mount, cgroup or process of the container is left.

# shellcheck disable=SC2016,SC2034
# (jq and awk programs are single-quoted on purpose; PREFIX, stderr_lines
# are read by faults.bash and helpers.bash)

load faults

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	PREFIX="$ID"
	SENTINEL="$BATS_TEST_TMPDIR/sentinel"
	make_sentinel "$SENTINEL"
	snapshot sentinel "$SENTINEL"
	CORRAL_SUM="$(sha256sum "$CORRAL")"
}

teardown() {
	corral_teardown
	assert_unchanged sentinel "$SENTINEL"
	assert_clean teardown
	[ "$(sha256sum "$CORRAL")" = "$CORRAL_SUM" ] || fail "the corral binary changed"
}

# attempt [-t SECONDS] [RUN FLAGS...]: `corral run` of the bundle as $ID
# (at most SECONDS, default 30), with the rootfs snapshotted before and
# checked after; `status`, `output` and `stderr` are the run's.  ELAPSED
# is its wall time in seconds.
attempt() {
	local limit=30 start
	if [ "$1" = -t ]; then
		limit="$2"
		shift 2
	fi
	snapshot rootfs "$ROOTFS"
	start="$EPOCHREALTIME"
	capture corral_t "$limit" run --bundle "$BUNDLE" "$@" "$ID" \
		</dev/null
	ELAPSED="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
	[ "$status" -ne 137 ] || fail "corral run took more than $limit s (killed)"
	assert_unchanged rootfs "$ROOTFS"
	assert_unchanged sentinel "$SENTINEL"
	keep_run assert_no_leftovers "$ID"
	assert_clean "after run"
}

# keep_run COMMAND...: run COMMAND (which may use bats' run) and restore
# the results of the run before it.
keep_run() {
	local s="$status" o="$output" e="$stderr" l=("${lines[@]}") \
		el=("${stderr_lines[@]}")
	"$@"
	status="$s" output="$o" stderr="$e" lines=("${l[@]}") stderr_lines=("${el[@]}")
}

# refused_or_contained NAME: the last attempt either failed at create
# with one line naming NAME, or ran the workload to its end, which
# printed CONTAINED (its own checks passed).
refused_or_contained() {
	if [ "$status" -eq 0 ]; then
		if [ "${#lines[@]}" -eq 0 ] || [ "${lines[-1]}" != CONTAINED ]; then
			fail "the workload ran but did not confirm containment: $output / $stderr"
		fi
	else
		one_line_error "$1"
	fi
}

# symlink_outside PATH: replace PATH in the rootfs by a symlink to the
# sentinel, once absolute and once relative (climbing above the rootfs);
# each attempt is refused naming PATH, or contained (CHECK, a shell test
# run by the workload, holds).
symlink_outside() {
	local path="$1" check="$2" target
	set_args sh -c "$check && echo CONTAINED"
	for target in "$SENTINEL" "../../../../../../../../..$SENTINEL"; do
		rm -rf "${ROOTFS:?}/$path"
		ln -s "$target" "$ROOTFS/$path"
		attempt
		refused_or_contained "$(basename "$path")"
	done
}

@test "rootfs /proc is a symlink to a host directory" {
	symlink_outside proc 'grep -q "^Name:" /proc/self/status'
}

@test "rootfs /sys is a symlink to a host directory" {
	symlink_outside sys '[ -d /sys/kernel ]'
}

@test "rootfs /dev is a symlink to a host directory" {
	symlink_outside dev '[ -c /dev/null ] && [ ! -L /dev/null ]'
}

# A /dev tmpfs is always mounted, so what the image has under /dev is
# hidden; the same holds when config.json leaves the /dev mount out.
@test "rootfs /dev/null is a symlink to a host file" {
	check='[ -c /dev/null ] && [ ! -L /dev/null ] && echo x >/dev/null'
	symlink_outside dev/null "$check"
	assert_success
	update_config 'del(.mounts[] | select(.destination == "/dev"))'
	symlink_outside dev/null "$check"
	assert_success
}

@test "rootfs /dev/pts is a symlink to a host directory" {
	check='[ -d /dev/pts ] && [ ! -L /dev/pts ] && [ -c /dev/pts/ptmx ]'
	symlink_outside dev/pts "$check"
	assert_success
	update_config 'del(.mounts[] | select(.destination == "/dev" or .destination == "/dev/pts"))'
	symlink_outside dev/pts '[ ! -L /dev/pts ]'
	assert_success
}

# (corral makes no /dev/console even for a terminal container: the pty
# is the workload's stdio.  Either way the image's symlink must not be it.)
@test "rootfs /dev/console is a symlink to a host file (terminal container)" {
	[ -x "$RECVTTY" ] || fail "$RECVTTY not found: run make helpers"
	sock="$BATS_TEST_TMPDIR/console.sock"
	update_config '.process.terminal = true'
	set_args sh -c '[ ! -L /dev/console ] || exit 9
		[ ! -e /dev/console ] || [ -c /dev/console ] || exit 10
		(echo via-console >>/dev/console) 2>/dev/null
		echo CONTAINED'
	for target in "$SENTINEL/secret" "../../../../../../..$SENTINEL/secret"; do
		rm -f "$ROOTFS/dev/console"
		ln -s "$target" "$ROOTFS/dev/console"
		"$RECVTTY" "$sock" '' </dev/null >"$BATS_TEST_TMPDIR/tty.out" \
			2>"$BATS_TEST_TMPDIR/tty.err" 3>&- &
		rpid=$!
		track_pid "$rpid"
		wait_for_file "$sock"
		attempt --console-socket "$sock"
		wait_bg "$rpid"
		if [ "$status" -eq 0 ]; then
			grep -q CONTAINED "$BATS_TEST_TMPDIR/tty.out" ||
				fail "no CONTAINED on the pty: $(cat "$BATS_TEST_TMPDIR/tty.out")"
		else
			one_line_error console
		fi
	done
}

# The mount lands on the path the symlink names inside the rootfs (it
# exists there as well), never on the host's; directories the mount needs
# are made in the container's scratch layer, not on the host or in the
# bundle.
@test "a mount destination through a symlink to a host directory stays in the rootfs" {
	update_config 'del(.mounts[] | select(.destination == "/tmp"))'
	mkdir -p "$ROOTFS$SENTINEL"
	ln -s "$SENTINEL" "$ROOTFS/evil"
	update_config '.mounts += [{"destination": "/evil/made/deeper",
		"type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}]'
	# the workload sees the tmpfs where the symlink leads inside the
	# rootfs, and can write there
	set_args sh -c "awk '\$5 == \"$SENTINEL/made/deeper\" { f = 1 } END { exit !f }' \
		/proc/self/mountinfo && echo w >/evil/made/deeper/file && echo CONTAINED"
	attempt
	refused_or_contained evil
	[ ! -e "$SENTINEL/made" ] || fail "a directory was made on the host"
}

@test "a mount destination through a symlink whose target is not in the rootfs" {
	ln -s "../../../../../../../..$SENTINEL" "$ROOTFS/evil"
	update_config '.mounts += [{"destination": "/evil/made",
		"type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}]'
	set_args sh -c 'echo w >/evil/made/file && echo CONTAINED'
	attempt
	refused_or_contained evil
	[ ! -e "$SENTINEL/made" ] || fail "a directory was made on the host"
}

@test "an allowed bind mount aimed through a symlink at a host directory" {
	share="$BATS_TEST_TMPDIR/share"
	mkdir "$share"
	echo shared >"$share/data"
	snapshot share "$share"
	policy="$BATS_TEST_TMPDIR/policy.json"
	jq -n --arg s "$share" '{mounts: [{source: $s, rw: false}]}' >"$policy"
	ln -s "$SENTINEL" "$ROOTFS/evil"
	update_config '.mounts += [{"destination": "/evil/bound",
		"type": "bind", "source": $s, "options": ["rbind"]}]' --arg s "$share"
	set_args sh -c 'cat /evil/bound/data && echo CONTAINED'
	snapshot rootfs "$ROOTFS"
	capture corral_t 30 --policy "$policy" \
		run --bundle "$BUNDLE" "$ID" </dev/null
	assert_unchanged rootfs "$ROOTFS"
	assert_unchanged share "$share"
	refused_or_contained evil
	[ ! -e "$SENTINEL/bound" ] || fail "a mount point was made on the host"
	assert_no_leftovers "$ID"
	assert_clean "after run"
}

@test "\"..\" in mount destinations is refused" {
	for dst in "/../../../..$SENTINEL" "/tmp/../../..$SENTINEL/x" \
		"../../x" "/proc/.." "/a/b/../../../../etc"; do
		cp "$BATS_FILE_TMPDIR/bundle/config.json" "$BUNDLE/config.json"
		update_config '.mounts += [{"destination": $d,
			"type": "tmpfs", "source": "tmpfs"}]' --arg d "$dst"
		set_args true
		attempt
		one_line_error "$dst" '".." not allowed'
	done
}

# CVE-2024-21626: a cwd through a runtime's leaked fd is a host directory.
# Whatever fd number is named, the workload never starts with a working
# directory outside its root: chdir fails (one line naming it), or from
# the directory it gets, climbing up reaches the container's own root.
@test "process.cwd /proc/self/fd/N" {
	set_args sh -c "cd ../../../../../../../../../.. && [ -e '/$MARKER' ] &&
		[ -e './$MARKER' ] && echo CONTAINED"
	for n in $(seq 0 12); do
		update_config '.process.cwd = $c' --arg c "/proc/self/fd/$n"
		attempt
		if [ "$status" -ne 0 ]; then
			assert_failure 127
			one_line_error "/proc/self/fd/$n"
		else
			assert_output CONTAINED
		fi
	done
	update_config '.process.cwd = "/proc/1/cwd/../../.."'
	attempt
	if [ "$status" -eq 0 ]; then
		assert_output CONTAINED
	else
		one_line_error /proc/1/cwd
	fi
}

# CVE-2019-5736: the workload must not get to run (or open) the runtime's
# binary through /proc/self/exe or the supervisor's /proc/1/exe.
@test "process.args[0] is a symlink to /proc/self/exe" {
	ln -s /proc/self/exe "$ROOTFS/bin/evil"
	for argv0 in /bin/evil /proc/self/exe /proc/1/exe; do
		set_args "$argv0" --version
		attempt
		if [ "$status" -eq 127 ]; then
			one_line_error "$argv0"
		else
			# it ran something: not corral
			[[ "$output$stderr" != *corral* ]] ||
				fail "$argv0 ran the runtime: $output $stderr"
		fi
	done
	set_args sh -c 'cat /proc/1/exe >/dev/null 2>&1 && echo READ-1;
		(echo x >>/proc/1/exe) 2>/dev/null && echo WROTE-1; echo CONTAINED'
	attempt
	assert_success
	assert_output CONTAINED
}

# ---- giant and malformed config.json ------------------------------------

# giant_config PYTHON-EXPR: write config.json as this bundle's config with
# `c` changed by the Python statement (the document is made by python3,
# whose json module is in Debian's base install).
giant_config() {
	python3 - "$BUNDLE/config.json" "$1" <<'EOF' || fail "python3 failed"
import json, sys
path, stmt = sys.argv[1], sys.argv[2]
with open(path) as f:
    c = json.load(f)
exec(stmt)
with open(path, "w") as f:
    json.dump(c, f)
EOF
}

# timed_create LIMIT_S LIMIT_MB: `corral create` under /usr/bin/time, at
# most LIMIT_S seconds and LIMIT_MB of peak memory.
timed_create() {
	local limit_s="$1" limit_mb="$2" secs kb
	command -v /usr/bin/time >/dev/null || skip "needs /usr/bin/time (Debian package time)"
	snapshot rootfs "$ROOTFS"
	# stdio to files, not bats' pipes: a created container holds them
	status=0
	/usr/bin/time -o "$BATS_TEST_TMPDIR/time" -f '%e %M' \
		timeout -s KILL 60 "$CORRAL" --root "$ROOT" create --bundle "$BUNDLE" \
		"$ID" </dev/null >"$BATS_TEST_TMPDIR/create.out" \
		2>"$BATS_TEST_TMPDIR/create.err" 3>&- || status=$?
	output="$(cat "$BATS_TEST_TMPDIR/create.out")"
	stderr="$(cat "$BATS_TEST_TMPDIR/create.err")"
	mapfile -t stderr_lines <"$BATS_TEST_TMPDIR/create.err"
	read -r secs kb < <(tail -n 1 "$BATS_TEST_TMPDIR/time")
	echo "# create: ${secs}s, $((kb / 1024)) MiB" >&3
	awk -v s="$secs" -v l="$limit_s" 'BEGIN { exit !(s < l) }' ||
		fail "create took ${secs}s (limit ${limit_s}s)"
	[ "$((kb / 1024))" -lt "$limit_mb" ] ||
		fail "create used $((kb / 1024)) MiB (limit $limit_mb MiB)"
	assert_unchanged rootfs "$ROOTFS"
}

@test "config.json of 100 MB is refused quickly" {
	giant_config 'c["annotations"] = {"pad": "a" * (100 << 20)}'
	[ "$(stat -c %s "$BUNDLE/config.json")" -gt 100000000 ]
	timed_create 3 256
	one_line_error config.json "too large"
	assert_no_leftovers "$ID"
}

@test "config.json nested 10,000 levels deep is refused" {
	printf '{"a":%s%s}' "$(printf '[%.0s' $(seq 10000))" \
		"$(printf ']%.0s' $(seq 10000))" >"$BUNDLE/config.json"
	timed_create 2 64
	one_line_error config.json "nested deeper"
	assert_no_leftovers "$ID"
}

@test "config.json with invalid UTF-8 is refused" {
	update_config '.hostname = "HOST"'
	sed -i 's/HOST/h\xff\xfe\xc0\xafo/' "$BUNDLE/config.json"
	grep -q $'\xff' "$BUNDLE/config.json" || fail "no invalid byte written"
	timed_create 2 64
	one_line_error config.json UTF8
	[ "${#stderr}" -lt 300 ] || fail "error too long"
	assert_no_leftovers "$ID"
}

@test "config.json with NUL bytes in strings is refused" {
	update_config '.hostname = "h\u0000o"'
	timed_create 2 64
	one_line_error config.json '\u0000'
	assert_no_leftovers "$ID"
	# a raw NUL byte, not an escape
	cp "$BATS_FILE_TMPDIR/bundle/config.json" "$BUNDLE/config.json"
	update_config '.hostname = "hXXo"'
	sed -i 's/hXXo/h\x00o/' "$BUNDLE/config.json"
	[ "$(tr -cd '\000' <"$BUNDLE/config.json" | wc -c)" -eq 1 ] || fail "no NUL written"
	timed_create 2 64
	one_line_error config.json JSON
	assert_no_leftovers "$ID"
}

@test "1,000,000 elements in process.args: quick, bounded, nothing left" {
	giant_config 'c["process"]["args"] = ["true"] + ["x"] * 1000000'
	timed_create 5 512
	if [ "$status" -ne 0 ]; then
		one_line_error config.json
	else
		# the kernel refuses such an argv at exec
		capture corral_t 20 start "$ID"
		assert_success
		wait_for_status "$ID" stopped 100
		grep -q "Argument list too long" "$BATS_TEST_TMPDIR/create.err" ||
			fail "workload: $(cat "$BATS_TEST_TMPDIR/create.err")"
		run corral delete "$ID"
		assert_success
	fi
	assert_no_leftovers "$ID"
}

@test "1,000,000 seccomp rules are refused without compiling them" {
	giant_config 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW",
	"syscalls": [{"names": ["getpid"], "action": "SCMP_ACT_ERRNO"}] * 1000000}'
	timed_create 20 1200
	one_line_error .linux.seccomp "rules"
	assert_no_leftovers "$ID"
}

# harden() unites config.json's masked paths with corral's: once in
# O(n^2) (hours for a million), now sorted.  explain runs harden() alone;
# a run with a million repeats of one path masks it once.
@test "1,000,000 masked paths: harden() in time, repeats masked once" {
	giant_config 'c["linux"]["maskedPaths"] = ["/m%d" % i for i in range(1000000)]'
	start="$EPOCHREALTIME"
	capture corral_t 30 explain --bundle "$BUNDLE"
	elapsed="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
	echo "# explain: ${elapsed}s" >&3
	assert_equal "$status" 0
	[[ "$output" == *"1000000 paths -> 10000"*" paths (added "* ]] ||
		fail "explain: $(grep maskedPaths <<<"$output")"
	awk -v s="$elapsed" 'BEGIN { exit !(s < 10) }' || fail "explain took ${elapsed}s"

	cp "$BATS_FILE_TMPDIR/bundle/config.json" "$BUNDLE/config.json"
	giant_config 'c["linux"]["maskedPaths"] = ["/proc/kcore"] * 1000000'
	set_args true
	attempt -t 20
	assert_success
	echo "# run: ${ELAPSED}s" >&3
	awk -v s="$ELAPSED" 'BEGIN { exit !(s < 10) }' || fail "run took ${ELAPSED}s"
}

@test "integers out of range are refused, naming the field" {
	base="$BATS_FILE_TMPDIR/bundle/config.json"
	check() {
		local field="$1" filter="$2"
		jq "$filter" "$base" >"$BUNDLE/config.json" || fail "jq $filter"
		capture corral_t 10 create --bundle "$BUNDLE" "$ID" \
			</dev/null
		one_line_error config.json "$field"
		assert_no_leftovers "$ID"
	}
	check .process.user.uid '.process.user.uid = 4294967296'
	check .process.user.uid '.process.user.uid = -1'
	# (uid_t)-1 means "unchanged" to setresuid(): it would stay root
	check .process.user.uid '.process.user.uid = 4294967295'
	check .process.user.gid '.process.user.gid = 4294967295'
	check .process.user.gid '.process.user.gid = 99999999999999999999'
	check '.process.rlimits[0].hard' '.process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": -1, "soft": 1}]'
	check '.process.rlimits[0].soft' '.process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": 1, "soft": -5}]'
	check .linux.resources.memory.limit '.linux.resources.memory.limit = 18446744073709551616'
	check .linux.resources.pids.limit '.linux.resources.pids.limit = 1e30'
	check .process.oomScoreAdj '.process.oomScoreAdj = 4294967296'
}
