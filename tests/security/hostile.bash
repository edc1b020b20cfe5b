# Shared by hostile.bats: a hostile bundle (config.json, the rootfs and
# files under a policy-allowed directory are the attacker's; the policy
# is the administrator's).  On top of faults.bash (snapshots, leak checks
# by this test's names, capture, one_line_error):
#
#   SENTINEL   a host tree no container may read or change (snapshotted in
#              setup, checked in teardown); it stands in for /etc, /tmp or
#              / as the target of the attacker's links
#   ALLOWED    a directory a test's policy may allow ($BATS_TEST_TMPDIR/allowed)
#   workloads  print RAN first, "LEAK WHAT" for every check that failed,
#              CONTAINED last; a refused create prints none of them
#
# Whatever a test starts on the host (a listener, a swapper, a process in
# its own namespaces, a tmpfs) is recorded so the teardown removes it
# even when the test fails.

# shellcheck disable=SC2016,SC2034,SC2154
# (jq programs are single-quoted on purpose; PREFIX, OWN_MOUNTS ... are
# read by faults.bash; status, output, lines and stderr are set by capture)

load faults

SYSPROBE="${SYSPROBE:-$REPO_ROOT/build/helpers/static/sysprobe}"
SWAPPER="${SWAPPER:-$REPO_ROOT/build/helpers/swapper}"

# Applets beyond helpers.bash's that the workloads run.
HOSTILE_APPLETS=(find chmod readlink cut seq xargs basename df)

hostile_setup_file() {
	local bin="$BATS_FILE_TMPDIR/bundle/rootfs/bin" applet
	[ -x "$SYSPROBE" ] || fail "$SYSPROBE not found: run make helpers"
	[ -x "$SWAPPER" ] || fail "$SWAPPER not found: run make helpers"
	corral_setup_file
	for applet in "${HOSTILE_APPLETS[@]}"; do
		ln -sf busybox "$bin/$applet"
	done
	cp "$SYSPROBE" "$bin/sysprobe"
}

hostile_setup() {
	corral_setup
	PREFIX="$ID"
	# bats makes its directories 0700: let the container's 65534 through
	# them (search only), so that a host path that leaks into a container
	# reaches this test's sentinel and listeners as it would reach any
	# world-readable host file
	local d="$BATS_TEST_TMPDIR"
	while [[ "$d" == "$BATS_RUN_TMPDIR"* ]]; do
		chmod o+x "$d"
		d="${d%/*}"
	done
	OWN_MOUNTS=()
	OWN_CGROUPS=()
	SWAPPERS=()
	CASES_OK=()
	CASES_FAILED=()
	ALLOWED="$BATS_TEST_TMPDIR/allowed"
	SENTINEL="$BATS_TEST_TMPDIR/sentinel"
	make_sentinel "$SENTINEL"
	# what an engine-file rule would take by name, and a directory named
	# like one
	echo "sentinel hosts $$" >"$SENTINEL/hosts"
	echo "sentinel resolv $$" >"$SENTINEL/resolv.conf"
	echo "sentinel hostname $$" >"$SENTINEL/hostname"
	mkdir "$SENTINEL/hosts-dir"
	echo "sentinel in a dir $$" >"$SENTINEL/hosts-dir/hosts"
	# writable by the container's 65534, so that a write that gets
	# through shows in the snapshot instead of failing on permissions
	chmod 0777 "$SENTINEL" "$SENTINEL/sub"
	snapshot sentinel "$SENTINEL"
	CORRAL_SUM="$(sha256sum "$CORRAL")"
}

# safe_bundle_vars: BUNDLE and ROOTFS name the test's own directories.
# helpers.bash's bundle_pids treats every process whose cwd is $ROOTFS
# or $BUNDLE as a container's, and the teardown kills those: were ROOTFS
# a link to / (as a root.path test makes it), that would be every process
# of the host whose cwd is /.  So whatever is not a real directory under
# this test's directory is replaced by a path that matches nothing.
safe_bundle_vars() {
	local v real
	for v in BUNDLE ROOTFS; do
		real="$(realpath -e "${!v}" 2>/dev/null)" || real=""
		if [ -L "${!v}" ] || [[ "$real" != "$BATS_TEST_TMPDIR"/* ]]; then
			echo "# $v ${!v} is no directory of this test's: not used to find processes" >&3
			printf -v "$v" '%s' "$BATS_TEST_TMPDIR/.no-${v,,}"
		fi
	done
}

hostile_teardown() {
	local problems="" i
	safe_bundle_vars
	stop_swappers || problems+="a swapper; "
	corral_teardown || problems+="corral_teardown; "
	# cgroups the test made (its processes gone with corral_teardown's
	# kills): removed even when the test failed before its own rmdir
	for ((i = ${#OWN_CGROUPS[@]} - 1; i >= 0; i--)); do
		[ -d "${OWN_CGROUPS[i]}" ] || continue
		for _ in $(seq 50); do
			rmdir "${OWN_CGROUPS[i]}" 2>/dev/null && break
			sleep 0.1
		done
		[ ! -d "${OWN_CGROUPS[i]}" ] || problems+="rmdir ${OWN_CGROUPS[i]}; "
	done
	for ((i = ${#OWN_MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${OWN_MOUNTS[i]}" 2>/dev/null ||
			umount -l "${OWN_MOUNTS[i]}" ||
			problems+="umount ${OWN_MOUNTS[i]}; "
	done
	assert_unchanged sentinel "$SENTINEL" || problems+="sentinel; "
	assert_clean teardown || problems+="leftovers; "
	[ "$(sha256sum "$CORRAL")" = "$CORRAL_SUM" ] ||
		problems+="the corral binary changed; "
	[ -z "$problems" ] || fail "teardown: $problems"
}

# ---- running the bundle -------------------------------------------------

# hostile_run [-t SECONDS] [CORRAL OPTIONS...]: `corral [OPTIONS] run` of
# $BUNDLE as $ID (SIGKILLed after SECONDS, default 30) into status,
# output, stderr, lines; ELAPSED_MS is its wall time.  Options before
# "run" are corral's global ones (--policy FILE).
hostile_run() {
	local limit=30 start
	if [ "$1" = -t ]; then
		limit="$2"
		shift 2
	fi
	start="$(now_ms)"
	capture corral_t "$limit" "$@" run --bundle "$BUNDLE" "$ID" </dev/null
	ELAPSED_MS=$(($(now_ms) - start))
}

# hostile_create [CORRAL OPTIONS...]: `corral create` alone, for bundles
# whose workload could not even start (a root that is no image).
hostile_create() {
	capture corral_t 30 "$@" create --bundle "$BUNDLE" "$ID" </dev/null
}

# assert_refused WORD...: the last run/create was refused: one line
# "corral: ..." naming every WORD, the workload never ran, and nothing of
# the container is left.
assert_refused() {
	[ "$status" -ne 0 ] ||
		fail "expected a refusal, the container ran: $output / $stderr"
	[[ "$output" != *RAN* ]] ||
		fail "expected a refusal, the workload ran: $output / $stderr"
	one_line_error "$@"
	keep_run assert_no_leftovers "$ID"
}

# assert_contained: the last run ran the workload to its end and it
# found no leak.
assert_contained() {
	[ "$status" -eq 0 ] ||
		fail "expected the container to run (exit $status): $output / $stderr"
	[[ "$output" != *LEAK* ]] || fail "the workload leaked: $output"
	if [ "${#lines[@]}" -eq 0 ] || [ "${lines[-1]}" != CONTAINED ]; then
		fail "the workload did not confirm containment: $output / $stderr"
	fi
	keep_run assert_no_leftovers "$ID"
}

# refused_or_contained WORD...: either of the two (for variants the
# contract leaves to the runtime, or that were already closed).
refused_or_contained() {
	if [ "$status" -eq 0 ]; then
		assert_contained
	else
		assert_refused "$@"
	fi
}

# check_case NAME COMMAND...: run COMMAND (assertions that fail the test)
# in a subshell of its own and remember whether it held, so that a test
# with many variants checks every one of them and names those that
# failed; cases_done then fails the test if any did.  (The subshell runs
# in the background and is waited for: in an `if` or `||` bash would
# ignore errexit inside it.)
check_case() {
	local name="$1" log="$BATS_TEST_TMPDIR/.case.log"
	shift
	: >"$log"
	("$@") >>"$log" 2>&1 3>&- &
	if wait "$!"; then
		CASES_OK+=("$name")
	else
		CASES_FAILED+=("$name: $(tr '\n' ' ' <"$log" | cut -c1-400)")
	fi
}

cases_done() {
	local f
	echo "# ${#CASES_OK[@]} cases held, ${#CASES_FAILED[@]} failed" >&3
	[ "${#CASES_FAILED[@]}" -eq 0 ] && return 0
	for f in "${CASES_FAILED[@]}"; do
		echo "FAILED $f" >&2
	done
	fail "${#CASES_FAILED[@]} of $((${#CASES_OK[@]} + ${#CASES_FAILED[@]})) cases failed"
}

# keep_run COMMAND...: run COMMAND (which may use bats' run) and restore
# the last run's results.
keep_run() {
	local s="$status" o="$output" e="$stderr" l=("${lines[@]}") \
		el=("${stderr_lines[@]}")
	"$@"
	status="$s" output="$o" stderr="$e" lines=("${l[@]}") stderr_lines=("${el[@]}")
}

# workload SCRIPT [ARGS...]: the workload is `sh -c 'echo RAN; SCRIPT;
# echo CONTAINED' sh ARGS...`.  SCRIPT prints "LEAK WHAT" for what it
# should not have reached.
workload() {
	local script="$1"
	shift
	set_args sh -c "echo RAN
$script
echo CONTAINED" sh "$@"
}

# base_config: this test's config.json back to the file's default.
base_config() {
	cp "$BATS_FILE_TMPDIR/bundle/config.json" "$BUNDLE/config.json"
}

# add_bind SOURCE DESTINATION [OPTIONS-JSON]: a bind mount in config.json.
add_bind() {
	update_config '.mounts += [{destination: $d, type: "bind", source: $s,
		options: $o}]' --arg s "$1" --arg d "$2" \
		--argjson o "${3:-[\"rbind\"]}"
}

# ---- policies -------------------------------------------------------------

# write_policy FILE JQ-FILTER [JQ ARGS...]: a policy file made by jq -n.
write_policy() {
	local file="$1" filter="$2"
	shift 2
	jq -n "$filter" "$@" >"$file" || fail "write_policy $filter"
}

# allow_policy FILE DIR [rw]: a policy whose only change to the defaults
# is a mounts entry for DIR (rw with the third argument).
allow_policy() {
	write_policy "$1" '{mounts: [{source: $s, rw: $rw}]}' --arg s "$2" \
		--argjson rw "$([ "${3:-}" = rw ] && echo true || echo false)"
}

# ---- explain ----------------------------------------------------------------

# explain_json [CORRAL OPTIONS...]: `corral [OPTIONS] explain --format json
# --bundle $BUNDLE` into EXPLAIN (fails the test if explain fails).
explain_json() {
	EXPLAIN="$(corral "$@" explain --format json --bundle "$BUNDLE" 2>"$BATS_TEST_TMPDIR/explain.err")" ||
		fail "explain failed: $(cat "$BATS_TEST_TMPDIR/explain.err")"
}

# assert_change FIELD-REGEX [APPLIED-REGEX]: EXPLAIN lists a change whose
# field matches FIELD-REGEX (and whose applied value matches
# APPLIED-REGEX), case-insensitively.
assert_change() {
	jq -e --arg f "$1" --arg a "${2:-}" \
		'any(.changes[]; (.field | test($f; "i")) and
			($a == "" or ((.applied // "") | test($a; "i"))))' \
		<<<"$EXPLAIN" >/dev/null ||
		fail "explain lists no change /$1/${2:+ -> /$2/}: $(jq -c '.changes' <<<"$EXPLAIN")"
}

# now_ms: wall-clock milliseconds, from bash itself.
now_ms() {
	local t="${EPOCHREALTIME/./}"
	echo $((t / 1000))
}

# ---- host-side helpers ------------------------------------------------------

# make_host_fs DIR [SIZE]: a tmpfs of the test's own at DIR (size 4m by
# default).  Whatever a remount does to "the host filesystem" of a bind
# then happens to this one, never to a filesystem of the host's.
make_host_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=${2:-4m},mode=0755" "hostile-$ID" "$1" ||
		fail "mount a tmpfs on $1"
	OWN_MOUNTS+=("$1")
}

# fs_options DIR: the mount and superblock options of the mount at DIR.
fs_options() {
	awk -v m="$1" '$5 == m { for (i = 7; $i != "-"; i++); print $6, $(i + 3) }' \
		/proc/self/mountinfo
}

# bundle_on_host_fs: move $BUNDLE onto a tmpfs of the test's own
# ($HOST_FS), so that a remount of a bind from the bundle touches only it.
bundle_on_host_fs() {
	HOST_FS="$BATS_TEST_TMPDIR/hostfs"
	make_host_fs "$HOST_FS" 16m
	cp -a "$BUNDLE" "$HOST_FS/bundle" || fail "copy the bundle"
	rm -rf "$BUNDLE"
	BUNDLE="$HOST_FS/bundle"
	ROOTFS="$BUNDLE/rootfs"
}

# start_unix_listener SOCKET LOG: a unix stream listener at SOCKET that
# appends "accepted" to LOG for every connection; "listening" when ready.
start_unix_listener() {
	python3 -c '
import os, socket, sys
f = open(sys.argv[2], "a", buffering=1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(8)
s.settimeout(120)
f.write("listening\n")
while True:
    c, _ = s.accept()
    f.write("accepted\n")
    c.close()
' "$1" "$2" </dev/null >/dev/null 2>&1 3>&- &
	track_pid "$!"
	wait_for_file "$2" '^listening$'
}

# start_swapper A B SECONDS [PAUSE_US]: the swapper in the background,
# exchanging A and B; stop_swappers (in the teardown) ends it and it
# leaves A and B as they were.
start_swapper() {
	local out="$BATS_TEST_TMPDIR/swapper.$RANDOM"
	"$SWAPPER" "$@" </dev/null >"$out" 2>&1 3>&- &
	SWAPPERS+=("$!:$out")
	track_pid "$!"
	wait_for_file "$out" '^ready$'
}

stop_swappers() {
	local entry pid ok=0
	for entry in ${SWAPPERS[@]+"${SWAPPERS[@]}"}; do
		pid="${entry%%:*}"
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || ok=1
		echo "# $(tr '\n' ' ' <"${entry#*:}")" >&3
	done
	SWAPPERS=()
	return "$ok"
}

# container_cgroup_file PID CONTROLLER V1-FILE V2-FILE: the host path of
# the file in PID's cgroup (v1 CONTROLLER hierarchy, else cgroup2).
container_cgroup_file() {
	local pid="$1" ctl="$2" path f
	path="$(awk -F: -v c="$ctl" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) { print $3; exit } }' "/proc/$pid/cgroup")"
	if [ -n "$path" ] && [ -e "/sys/fs/cgroup/$ctl$path/$3" ]; then
		echo "/sys/fs/cgroup/$ctl$path/$3"
		return 0
	fi
	path="$(awk -F: '$1 == 0 { print $3; exit }' "/proc/$pid/cgroup")"
	for f in "/sys/fs/cgroup/unified$path/$4" "/sys/fs/cgroup$path/$4"; do
		[ -n "$path" ] && [ -e "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# container_procs PID: the pids in PID's pids cgroup (the container's
# processes, whatever pid namespace they are in).
container_procs() {
	local f
	f="$(container_cgroup_file "$1" pids cgroup.procs cgroup.procs)" || return 1
	cat "$f"
}

# assert_no_host_root PID...: none of these processes has a real,
# effective, saved or filesystem uid or gid 0 on the host.
assert_no_host_root() {
	local pid ids
	for pid in "$@"; do
		ids="$(awk '/^(Uid|Gid):/ { print $2, $3, $4, $5 }' "/proc/$pid/status" 2>/dev/null)" || continue
		for id in $ids; do
			[ "$id" != 0 ] || fail "process $pid runs with host id 0: $(tr '\n' ' ' <<<"$ids")"
		done
	done
}
