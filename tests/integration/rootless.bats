#!/usr/bin/env bats
# corral run by an ordinary user (runtime/ids/rootless.h): `corral sandbox`,
# run, exec, kill and delete as two users this file makes and removes,
# one with subordinate ids (newuidmap/newgidmap map 0-65535) and one
# without (its own ids alone).  The sandbox is checked from inside and on
# the host; the users' state is in their own runtime directories.  Without
# a cgroup of their own the default policy refuses with the key that runs
# without limits, and most tests' policy names it; the tests of a
# delegated cgroup (v1 hierarchies, as this host has) make one below the
# test's own cgroup in each hierarchy, chown it to the user and start the
# user's corral in it, as root moves a login into its own.

load helpers

setup_file() {
	[ -x "$CORRAL" ] || fail "corral binary $CORRAL not found: run make"
	command -v newuidmap >/dev/null || fail "newuidmap (Debian's uidmap) is missing"
	export RL_SUB="corral-rls-$$" RL_ONE="corral-rl1-$$"
	# the binary and a rootfs where ordinary users can reach them
	RL_DIR="$(mktemp -d /tmp/corral-rootless.XXXXXX)"
	export RL_DIR
	chmod 0755 "$RL_DIR"
	cp "$CORRAL" "$RL_DIR/corral"
	cp "$SYSPROBE_BIN" "$RL_DIR/sysprobe"
	cp "$REPO_ROOT/build/helpers/static/attacker" "$RL_DIR/attacker"
	printf '{"limits": {"bestEffort": true}}\n' >"$RL_DIR/best-effort.json"
	chmod 0644 "$RL_DIR/best-effort.json"
	useradd -M -N -s /bin/sh -d /nonexistent -K SUB_UID_COUNT=0 \
		-K SUB_GID_COUNT=0 "$RL_ONE" || fail "useradd $RL_ONE"
	useradd -M -N -s /bin/sh -d /nonexistent -K SUB_UID_COUNT=0 \
		-K SUB_GID_COUNT=0 "$RL_SUB" || fail "useradd $RL_SUB"
	# a range no user of this host has: from 3000000000, by the pid
	local sub=$((3000000000 + ($$ % 1000) * 65536))
	usermod --add-subuids "$sub-$((sub + 65535))" \
		--add-subgids "$sub-$((sub + 65535))" "$RL_SUB" ||
		fail "usermod --add-subuids"
	export RL_SUB_BASE="$sub"
}

teardown_file() {
	local u
	for u in "$RL_SUB" "$RL_ONE"; do
		[ -n "$u" ] || continue
		# processes a failed test left to the user
		pkill_user "$u"
		userdel "$u" 2>/dev/null
		sed -i "/^$u:/d" /etc/subuid /etc/subgid
		rm -rf "/tmp/corral-$(id -u "$u" 2>/dev/null || echo none)"
	done
	[ -z "${RL_DIR:-}" ] || rm -rf "$RL_DIR"
}

SYSPROBE_BIN="$REPO_ROOT/build/helpers/static/sysprobe"

setup() {
	TRACKED_PIDS=()
	DELEGATED=()
	# this test's files, where the users can reach them (bats's own
	# directories are root's alone)
	T="$RL_DIR/t$BATS_TEST_NUMBER"
	mkdir -m 0755 "$T"
	# each user's runtime directory, as a login would give it
	for u in "$RL_SUB" "$RL_ONE"; do
		mkdir -m 0700 "$T/run-$u"
		chown "$u:" "$T/run-$u"
	done
}

teardown() {
	local u dir id left=""
	if [ -n "${SYSTEM_POLICY_MADE:-}" ]; then
		rm -f /etc/corral/policy.json
		rmdir /etc/corral
	fi
	for u in "$RL_SUB" "$RL_ONE"; do
		dir="$T/run-$u/corral"
		[ -d "$dir" ] || continue
		for id in $(ls "$dir"); do
			as "$u" corral delete --force "$id" >/dev/null 2>&1
		done
		[ -z "$(ls -A "$dir")" ] || left+=" state in $dir: $(ls -A "$dir")"
	done
	# the delegated cgroups: the containers' must be gone by now
	for dir in "${DELEGATED[@]}"; do
		rmdir "$dir/sh" 2>/dev/null
		for id in "$dir"/*/; do
			[ -d "$id" ] || continue
			left+=" cgroup ${id%/}"
			rmdir "$id" 2>/dev/null
		done
		rmdir "$dir" 2>/dev/null || left+=" cgroup $dir (busy)"
	done
	[ -z "$left" ] || fail "left behind:$left"
}

# cgroup_v1_only: skip unless the host's controllers are on v1 (this
# file's delegated cgroups are v1's; the unit tests run both layouts on
# fake trees).
cgroup_v1_only() {
	[ -e /sys/fs/cgroup/memory/cgroup.procs ] ||
		skip "the controllers are not on cgroup v1 here"
}

# delegate USER CONTROLLER...: a cgroup of USER's in each hierarchy named,
# below this test's own cgroup there (so whatever limits the test's own
# still applies), chowned to USER as a delegation gives it; their paths
# in DELEGATED.  "unified", a hybrid host's cgroup2, is delegated as
# cgroup2 wants it: the user's directory holds the cgroup its processes
# are in ("sh"), and the container's goes beside that one.
delegate() {
	local u="$1" c own dir
	shift
	cgroup_v1_only
	for c in "$@"; do
		own="$(awk -F: -v c="$c" '$2 == c { print $3 }' /proc/self/cgroup)"
		[ "$c" != unified ] ||
			own="$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)"
		dir="/sys/fs/cgroup/$c${own%/}/corral-rl-$$-$BATS_TEST_NUMBER"
		mkdir "$dir" || fail "mkdir $dir"
		DELEGATED+=("$dir")
		if [ "$c" = cpuset ]; then
			cp "${dir%/*}/cpuset.cpus" "$dir/cpuset.cpus"
			cp "${dir%/*}/cpuset.mems" "$dir/cpuset.mems"
		fi
		[ "$c" != unified ] || mkdir "$dir/sh"
		chown -R "$u:" "$dir" || fail "chown $dir"
	done
}

# in_delegated USER CMD...: `as USER CMD` started in the delegated
# cgroups: a subshell writes its own pid in each (as root), then runs it.
in_delegated() {
	(
		local dir
		for dir in "${DELEGATED[@]}"; do
			[ ! -d "$dir/sh" ] || dir="$dir/sh"
			echo "$BASHPID" >"$dir/cgroup.procs" || exit 99
		done
		as "$@"
	)
}

# cgroup_of DELEGATED-INDEX ID: the container ID's cgroup in it.
cgroup_of() {
	echo "${DELEGATED[$1]}/corral-$2"
}

# pkill_user USER: kill what USER still runs (by pid, from /proc).
pkill_user() {
	local uid pid
	uid="$(id -u "$1" 2>/dev/null)" || return 0
	for pid in $(ps -o pid= -u "$uid" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null
	done
}

# as USER CMD...: CMD as USER, with a login's environment (its runtime
# directory) and the test's binary as `corral`; ASAN_OPTIONS passes
# through (tests/run turns LeakSanitizer off: it hangs in a process that
# joined another pid namespace, as exec does).
as() {
	local u="$1"
	shift
	setpriv --reuid "$u" --regid "$(id -g "$u")" --init-groups --reset-env \
		env XDG_RUNTIME_DIR="$T/run-$u" HOME=/nonexistent \
		PATH="$RL_DIR:/usr/bin:/bin" SECRET=host-secret \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" "$@" 3>&-
}

# status_pid USER ID: the container's init, as USER sees it.
status_pid() {
	as "$1" corral state "$2" | jq -r .pid
}

# status_as USER ID: the container's status, as USER sees it.
status_as() {
	as "$1" corral state "$2" | jq -r .status
}

@test "rootless: without a cgroup of its own, the default policy refuses, naming limits.bestEffort; nothing is left" {
	run --separate-stderr as "$RL_ONE" corral sandbox -- true
	assert_failure
	[[ "$stderr" == *"rootless: no cgroup of the caller's own"*"limits.bestEffort"* ]] ||
		fail "stderr: $stderr"
	[ -z "$(ls -A "$T/run-$RL_ONE/corral" 2>/dev/null)" ] ||
		fail "state left"
}

# A user namespace 33 deep has no room for another: a corral started
# there as each user (its uid mapped at every level, so that it is an
# ordinary user to itself; the host's root behind it, so that a root-owned
# directory is its own) cannot enter one, with its own ids (unshare in
# corral itself) or with subordinate ids (unshare in its child).
@test "rootless: no user namespace left to make: one line naming user.max_user_namespaces, for either mapping; nothing made" {
	local u i nest
	mkdir -m 0700 "$T/run-nested"
	for u in "$RL_ONE" "$RL_SUB"; do
		nest=()
		for i in $(seq 33); do
			nest+=(unshare -U "--map-user=$(id -u "$u")" "--map-group=$(id -g "$u")")
		done
		run --separate-stderr "${nest[@]}" env -i XDG_RUNTIME_DIR="$T/run-nested" \
			HOME=/nonexistent PATH=/usr/bin:/bin ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
			"$RL_DIR/corral" --policy "$RL_DIR/best-effort.json" sandbox -- true
		assert_failure
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "$u: stderr: $stderr"
		[[ "$stderr" == "corral: user namespace: no more user namespaces allowed (user.max_user_namespaces"* ]] ||
			fail "$u: stderr: $stderr"
		[ -z "$(ls -A "$T/run-nested/corral" 2>/dev/null)" ] || fail "$u: state left"
	done
}

# The sandbox from inside, as each user: the same rows as root's.
sandbox_rows() {
	local u="$1"
	run --separate-stderr as "$u" corral --policy "$RL_DIR/best-effort.json" \
		sandbox -- sh -c 'id -u; id -g; id -G
			grep -E "^(CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):" /proc/self/status
			ls /sys/class/net; echo "secret=${SECRET:-}"
			echo x >/tmp/f && echo scratch-ok; touch /usr/x 2>/dev/null || echo usr-ro
			cat /proc/self/uid_map'
	assert_success
	assert_line --index 0 65534
	assert_line --index 1 65534
	assert_line "CapPrm:	0000000000000000"
	assert_line "CapEff:	0000000000000000"
	assert_line "CapBnd:	0000000000000000"
	assert_line "CapAmb:	0000000000000000"
	assert_line "NoNewPrivs:	1"
	assert_line "Seccomp:	2"
	assert_line lo
	assert_line "secret="
	assert_line scratch-ok
	assert_line usr-ro
	[[ "$stderr" == *"limits: memory, pids, cpu -> off"* ]] || fail "stderr: $stderr"
}

@test "rootless with its own ids alone: uid 65534 inside is the caller, no capability, seccomp, only lo, an empty environment" {
	sandbox_rows "$RL_ONE"
	assert_line --regexp "^ +65534 +$(id -u "$RL_ONE") +1$"
}

@test "rootless with subordinate ids: 0-65535 mapped, 65534 the caller, its groups dropped" {
	sandbox_rows "$RL_SUB"
	assert_line --index 2 65534
	assert_line --regexp "^ +0 +$RL_SUB_BASE +65534$"
	assert_line --regexp "^ +65534 +$(id -u "$RL_SUB") +1$"
}

@test "rootless: sandbox --workspace of the user's own directory is mounted read-write; root's, whose owner the user namespace hides, is refused" {
	local u
	for u in "$RL_SUB" "$RL_ONE"; do
		mkdir "$T/ws-$u" "$T/root-$u"
		echo data >"$T/ws-$u/file"
		chown -R "$u:" "$T/ws-$u"
		# root's, and writable by all: only the owner tells it apart
		chmod 0777 "$T/root-$u"
		run --separate-stderr as "$u" corral --policy "$RL_DIR/best-effort.json" \
			sandbox --workspace "$T/ws-$u" -- \
			sh -c 'cat /workspace/file; echo new >/workspace/out' </dev/null
		assert_success
		assert_output data
		assert_equal "$(stat -c %U "$T/ws-$u/out")" "$u"
		# inside the user namespace root's directory shows as the
		# overflow uid, the very id the caller is there: the owner is
		# read before it is entered
		run --separate-stderr as "$u" corral --policy "$RL_DIR/best-effort.json" \
			sandbox --workspace "$T/root-$u" -- touch /workspace/x </dev/null
		assert_failure
		assert_equal "$stderr" "corral: workspace $T/root-$u: owned by uid 0, not by the caller (uid $(id -u "$u")) (policy: mounts)"
		[ ! -e "$T/root-$u/x" ] || fail "root's directory was written"
	done
}

@test "rootless: the wall clock, and calls the baseline refuses" {
	# a root filesystem of the user's own (sandbox --rootfs)
	make_bundle "$T/b"
	cp "$RL_DIR/sysprobe" "$T/b/rootfs/bin/sysprobe"
	chown -R "$RL_SUB:" "$T/b"
	run --separate-stderr as "$RL_SUB" corral --policy "$RL_DIR/best-effort.json" \
		sandbox --rootfs "$T/b/rootfs" --timeout 2 -- \
		sh -c "/bin/sysprobe mount unshare setns ptrace_attach bpf; exec sleep 30"
	assert_equal "$status" 137
	assert_output "mount EPERM
unshare EPERM
setns EPERM
ptrace_attach EPERM
bpf EPERM"
}

# With its own ids alone, the user namespace has one uid: the supervisor
# shares the workload's, and the kernel would let the workload limit and
# reschedule it.  The workload's self-only filter refuses those calls on
# any process but itself (runtime/seccomp/seccomp_own.c), and it keeps them
# on itself.
@test "rootless with its own ids alone: the workload cannot reschedule, renice or limit its supervisor, only itself" {
	make_bundle "$T/b"
	cp "$RL_DIR/attacker" "$T/b/rootfs/bin/attacker"
	chown -R "$RL_ONE:" "$T/b"
	run --separate-stderr as "$RL_ONE" timeout 20 corral \
		--policy "$RL_DIR/best-effort.json" sandbox --rootfs "$T/b/rootfs" \
		--timeout 3 -- sh -c 'sleep 1; grep ^Uid /proc/1/status
			attacker sched 1; attacker prlimit 1; attacker sched 0
			exec sleep 30'
	assert_equal "$status" 137
	assert_output "Uid:	65534	65534	65534	65534
sched_setscheduler EPERM
setpriority EPERM
sched_setaffinity EPERM
ioprio_set EPERM
prlimit EPERM
sched_setscheduler OK
setpriority OK
sched_setaffinity OK
ioprio_set OK"
}

@test "rootless run -d, state, exec, kill, delete with a bundle of the user's: state in its runtime directory" {
	local bundle="$T/bundle" pid
	make_bundle "$bundle"
	(BUNDLE="$bundle"; update_config '.process.args = ["sleep", "100"]')
	chown -R "$RL_ONE:" "$bundle"
	as "$RL_ONE" corral --policy "$RL_DIR/best-effort.json" run -d \
		--bundle "$bundle" c1 </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/run.err" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/run.err")"
	[ -d "$T/run-$RL_ONE/corral/c1" ] || fail "no state in the runtime directory"
	run as "$RL_ONE" corral state c1
	assert_success
	pid="$(jq -r .pid <<<"$output")"
	assert_equal "$(jq -r .status <<<"$output")" running
	# on the host the container's processes are the user's own
	assert_equal "$(stat -c %u "/proc/$pid")" "$(id -u "$RL_ONE")"
	run as "$RL_ONE" corral --policy "$RL_DIR/best-effort.json" exec c1 sh -c \
		'id -u; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status'
	assert_success
	assert_output "65534
CapEff:	0000000000000000
NoNewPrivs:	1"
	run as "$RL_ONE" corral kill c1 KILL
	assert_success
	poll_equal "status" stopped 50 status_as "$RL_ONE" c1
	run as "$RL_ONE" corral delete c1
	assert_success
	[ ! -e "$T/run-$RL_ONE/corral/c1" ] || fail "state left"
	# dead: gone, or a zombie the host's PID 1 has yet to reap
	[ ! -e "/proc/$pid" ] || [ "$(awk '$1 == "State:" { print $2 }' "/proc/$pid/status" 2>/dev/null)" = Z ] ||
		[ ! -e "/proc/$pid" ] || fail "the container's process $pid is left"
}

@test "rootless without XDG_RUNTIME_DIR: state in a private /tmp/corral-UID, said once" {
	local uid dir
	uid="$(id -u "$RL_ONE")"
	dir="/tmp/corral-$uid"
	rm -rf "$dir"
	run --separate-stderr setpriv --reuid "$RL_ONE" --regid "$(id -g "$RL_ONE")" \
		--init-groups --reset-env env PATH="$RL_DIR:/usr/bin:/bin" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
		corral --policy "$RL_DIR/best-effort.json" sandbox -- true
	assert_success
	[[ "$stderr" == *"XDG_RUNTIME_DIR is not set: state goes to $dir"* ]] || fail "stderr: $stderr"
	assert_equal "$(stat -c '%u %a' "$dir")" "$uid 700"
	rm -rf "$dir"
}

@test "rootless: the user's own policy file is read (XDG_CONFIG_HOME/corral/policy.json)" {
	local cfg="$T/config-$RL_ONE"
	mkdir -p "$cfg/corral"
	printf '{"limits": {"bestEffort": true, "wallClock": 7}}\n' >"$cfg/corral/policy.json"
	chown -R "$RL_ONE:" "$cfg"
	run --separate-stderr as "$RL_ONE" env XDG_CONFIG_HOME="$cfg" corral sandbox -- true
	assert_success
	make_bundle "$T/b"
	chown -R "$RL_ONE:" "$T/b"
	run --separate-stderr as "$RL_ONE" env XDG_CONFIG_HOME="$cfg" corral explain --bundle "$T/b"
	assert_success
	assert_line --regexp '^time +wall clock +7s'
	assert_line --partial "/sys/fs/cgroup (default: rootless, no cgroup filesystem of the host's)"
}

@test "rootless: run --report and sandbox --report list the files the workload changed" {
	local u
	make_bundle "$T/b"
	BUNDLE="$T/b" update_config '.root.readonly = false |
		.process.args = ["sh", "-c", "echo data >/made-here; rm /etc/victim; exit 3"]'
	echo v >"$T/b/rootfs/etc/victim"
	for u in "$RL_SUB" "$RL_ONE"; do
		mkdir -m 0700 "$T/out-$u"
		chown -R "$u:" "$T/b" "$T/out-$u"
		run --separate-stderr as "$u" corral --policy "$RL_DIR/best-effort.json" \
			run --report "$T/out-$u/run.json" --bundle "$T/b" c1 </dev/null
		assert_failure 3
		run python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["outcome"]["exit_code"], sorted((c["change"], c["path"]) for c in r["files"]["changes"]))' "$T/out-$u/run.json"
		assert_output "3 [('created', '/made-here'), ('deleted', '/etc/victim')]"
		run --separate-stderr as "$u" corral --policy "$RL_DIR/best-effort.json" \
			sandbox --report "$T/out-$u/sb.json" -- sh -c 'echo data >/tmp/f'
		assert_success
		run python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print([(c["change"], c["path"]) for c in r["files"]["changes"]])' "$T/out-$u/sb.json"
		assert_output "[('created', '/tmp/f')]"
	done
}

@test "rootless: make demo as an ordinary user without a cgroup: limits said off, nothing leaked" {
	mkdir -p "$T/demo/tests"
	cp "$REPO_ROOT/tests/demo" "$T/demo/tests/demo"
	cp "$RL_DIR/corral" "$T/demo/corral"
	mkdir -m 0700 "$T/tmp"
	chown "$RL_ONE:" "$T/tmp"
	run as "$RL_ONE" env TMPDIR="$T/tmp" "$T/demo/tests/demo"
	assert_success
	assert_line --partial "without a cgroup of your own: memory, pids and cpu limits off"
	assert_line --regexp '^fetch from the allowed index +\| ran '
	refute_line --regexp '\| leaked '
	assert_line "nothing leaked"
	[ -z "$(ls -A "$T/tmp")" ] || fail "the demo left: $(ls -A "$T/tmp")"
}

@test "rootless: the system policy is the ceiling of a --policy file too" {
	[ ! -e /etc/corral ] || skip "this host has an /etc/corral of its own"
	SYSTEM_POLICY_MADE=1
	mkdir -m 0755 /etc/corral
	printf '{"limits": {"wallClock": 5}}\n' >/etc/corral/policy.json
	chmod 0644 /etc/corral/policy.json
	printf '{"limits": {"bestEffort": true, "wallClock": 60}}\n' >"$T/wide.json"
	make_bundle "$T/b"
	chown -R "$RL_ONE:" "$T/b"
	# the user's file may not turn the limits off
	run --separate-stderr as "$RL_ONE" corral --policy "$T/wide.json" sandbox -- true
	assert_failure
	[[ "$stderr" == *"rootless: no cgroup of the caller's own"*"limits.bestEffort"* ]] ||
		fail "stderr: $stderr"
	# nor lengthen the clock; a shorter one counts
	printf '{"limits": {"bestEffort": true, "wallClock": 5}}\n' >/etc/corral/policy.json
	run --separate-stderr as "$RL_ONE" corral --policy "$T/wide.json" explain --bundle "$T/b"
	assert_success
	assert_line --regexp '^time +wall clock +5s'
	printf '{"limits": {"bestEffort": true, "wallClock": 3}}\n' >"$T/narrow.json"
	run --separate-stderr as "$RL_ONE" corral --policy "$T/narrow.json" explain --bundle "$T/b"
	assert_success
	assert_line --regexp '^time +wall clock +3s'
	run --separate-stderr as "$RL_ONE" corral --policy "$T/missing.json" explain --bundle "$T/b"
	assert_failure
	[[ "$stderr" == *missing.json* ]] || fail "stderr: $stderr"
	# a system file the user may not read is no missing one
	chmod 0700 /etc/corral
	run --separate-stderr as "$RL_ONE" corral --policy "$T/wide.json" explain --bundle "$T/b"
	assert_failure
	[[ "$stderr" == *"/etc/corral/policy.json"*"ermission denied"* ]] ||
		fail "stderr: $stderr"
}

@test "rootless without a cgroup under limits.bestEffort: explain says every limit is off and why" {
	make_bundle "$T/b"
	chown -R "$RL_ONE:" "$T/b"
	run --separate-stderr as "$RL_ONE" corral --policy "$RL_DIR/best-effort.json" \
		explain --bundle "$T/b"
	assert_success
	assert_line --regexp '^memory +limit +off: no cgroup of the caller.s own \(policy: limits.bestEffort\)$'
	assert_line --regexp '^pids +limit +off: no cgroup of the caller.s own'
	assert_line --regexp '^ +cgroup +none \(rootless: no cgroup of the caller.s own\)$'
	assert_line --regexp '^time +wall clock +600s'
}

@test "rootless with a delegated cgroup (v1): the limits are written there, a fork bomb is stopped, exec, ps, pause, events and delete work; nothing is left" {
	local pol="$T/limits.json" mem pids
	delegate "$RL_SUB" memory pids cpu cpuacct cpuset freezer unified
	printf '{"limits": {"memory": "64MiB", "pids": 16, "cpus": 0.5}}\n' >"$pol"
	chmod 0644 "$pol"
	make_bundle "$T/b"
	(BUNDLE="$T/b"; set_args sleep 100)
	cp -a "$T/b" "$T/bomb"
	(BUNDLE="$T/bomb"; set_args sh -c 'sleep 100 & f() { f | f & }; f; wait')
	chown -R "$RL_SUB:" "$T/b" "$T/bomb"
	run --separate-stderr in_delegated "$RL_SUB" corral --policy "$pol" explain --bundle "$T/b"
	assert_success
	assert_line --regexp '^memory +limit +64 MiB, no swap$'
	assert_line --regexp '^pids +limit +16 processes$'
	assert_line --regexp '^ +cgroup +the caller.s delegated cgroup \(rootless\)$'
	in_delegated "$RL_SUB" corral --policy "$pol" run -d --bundle "$T/b" c1 \
		</dev/null >/dev/null 2>"$T/run.err" || fail "run -d: $(cat "$T/run.err")"
	mem="$(cgroup_of 0 c1)"
	pids="$(cgroup_of 1 c1)"
	assert_equal "$(cat "$mem/memory.limit_in_bytes")" $((64 << 20))
	assert_equal "$(cat "$pids/pids.max")" 16
	assert_equal "$(cat "$(cgroup_of 2 c1)/cpu.cfs_quota_us")" 50000
	assert_equal "$(wc -l <"$pids/cgroup.procs")" 2
	# in the cgroup2 beside the caller's own, where clone3 started it
	grep -qx "$(status_pid "$RL_SUB" c1)" "$(cgroup_of 6 c1)/cgroup.procs" ||
		fail "the init is not in $(cgroup_of 6 c1)"
	run as "$RL_SUB" corral ps c1
	assert_success
	assert_line --partial "sleep 100"
	# from inside the delegated cgroups: the kernel moves a process into a
	# cgroup2 only for a writer of the common ancestor's cgroup.procs
	run as "$RL_SUB" corral --policy "$pol" exec c1 id -u
	assert_failure
	assert_output --partial "corral-c1: write cgroup.procs: Permission denied"
	run in_delegated "$RL_SUB" corral --policy "$pol" exec c1 id -u
	assert_success
	assert_output 65534
	run as "$RL_SUB" corral pause c1
	assert_success
	assert_equal "$(cat "$(cgroup_of 5 c1)/freezer.state")" FROZEN
	assert_equal "$(status_as "$RL_SUB" c1)" paused
	run as "$RL_SUB" corral resume c1
	assert_success
	run as "$RL_SUB" corral events --stats c1
	assert_success
	assert_equal "$(jq -r .data.pids.limit <<<"$output")" 16
	assert_equal "$(jq -r .data.memory.usage.limit <<<"$output")" $((64 << 20))
	run as "$RL_SUB" corral delete --force c1
	assert_success
	[ ! -e "$mem" ] && [ ! -e "$pids" ] || fail "the container's cgroup is left"
	# a fork bomb fills its 16 pids and no more
	in_delegated "$RL_SUB" corral --policy "$pol" run -d --bundle "$T/bomb" c2 \
		</dev/null >/dev/null 2>"$T/run.err" || fail "run -d: $(cat "$T/run.err")"
	pids="$(cgroup_of 1 c2)"
	poll_equal "forks refused" yes 50 awk '$1 == "max" && $2 > 0 { print "yes" }' "$pids/pids.events"
	[ "$(cat "$pids/pids.current")" -le 16 ] || fail "pids.current $(cat "$pids/pids.current")"
	run as "$RL_SUB" corral delete --force c2
	assert_success
	[ ! -e "$pids" ] || fail "the bomb's cgroup is left"
}

@test "rootless with a delegated cgroup lacking memory: refused naming limits.bestEffort; under it memory is off (explained) and pids still applies" {
	delegate "$RL_ONE" pids
	run --separate-stderr in_delegated "$RL_ONE" corral sandbox -- true
	assert_failure
	[[ "$stderr" == *"rootless: the caller's delegated cgroup has no memory controller to limit memory in; the policy's limits.bestEffort runs without it"* ]] ||
		fail "stderr: $stderr"
	run --separate-stderr in_delegated "$RL_ONE" corral --policy "$RL_DIR/best-effort.json" \
		sandbox -- sh -c 'cat /proc/self/cgroup >/dev/null; sleep 1 & sleep 1 & wait; echo ran'
	assert_success
	assert_output ran
	[[ "$stderr" == *"limits: memory -> off: the caller's delegated cgroup has no memory controller"* ]] ||
		fail "stderr: $stderr"
	[[ "$stderr" != *"pids -> off"* ]] || fail "pids off: $stderr"
	make_bundle "$T/b"
	chown -R "$RL_ONE:" "$T/b"
	run --separate-stderr in_delegated "$RL_ONE" corral --policy "$RL_DIR/best-effort.json" \
		explain --bundle "$T/b"
	assert_line --regexp '^memory +limit +off: the caller.s delegated cgroup has no memory controller \(policy: limits.bestEffort\)$'
	assert_line --regexp '^pids +limit +256 processes$'
}

@test "rootless: a cgroup of another user's is not delegated to the caller" {
	delegate "$RL_SUB" memory pids
	# the caller is in them, but they are RL_SUB's
	run --separate-stderr in_delegated "$RL_ONE" corral sandbox -- true
	assert_failure
	[[ "$stderr" == *"rootless: no cgroup of the caller's own"* ]] || fail "stderr: $stderr"
}
