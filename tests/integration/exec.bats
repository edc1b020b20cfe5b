#!/usr/bin/env bats
# exec: another process in a running container, in its namespaces and
# cgroup, under the same sandbox as the workload.

load helpers

setup_file() {
	corral_setup_file
	[ -x "$RECVTTY" ] || fail "$RECVTTY not found: run make helpers"
	# readlink for the /proc/PID/exe checks
	ln -s busybox "$BATS_FILE_TMPDIR/bundle/rootfs/bin/readlink"
}

setup() {
	corral_setup
	set_args sleep 100
}

teardown() {
	corral_teardown
}

# start_container [GLOBAL FLAGS...]: run -d $ID (sleep 100); INIT is its pid.
start_container() {
	"$CORRAL" --root "$ROOT" "$@" run -d --bundle "$BUNDLE" "$ID" \
		</dev/null >>"$BATS_TEST_TMPDIR/$ID.out" \
		2>>"$BATS_TEST_TMPDIR/$ID.err" 3>&- ||
		fail "run -d $ID: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	INIT="$(container_pid "$ID")"
	track_pid "$INIT"
}

# exec_detached NAME [EXEC ARGS...]: exec -d --pid-file, stdio to files
# $BATS_TEST_TMPDIR/NAME.{out,err}; PID is the process's pid.
exec_detached() {
	local name="$1"
	shift
	corral exec -d --pid-file "$BATS_TEST_TMPDIR/$name.pid" "$@" \
		</dev/null >"$BATS_TEST_TMPDIR/$name.out" \
		2>"$BATS_TEST_TMPDIR/$name.err" ||
		fail "exec -d: $(cat "$BATS_TEST_TMPDIR/$name.err")"
	PID="$(cat "$BATS_TEST_TMPDIR/$name.pid")"
	track_pid "$PID"
}

# The processes in the container's cgroup (v2 or v1's pids hierarchy).
cgroup_procs() {
	local path
	path="$(awk -F: '$1 == 0 || $2 == "pids" { print $3; exit }' "/proc/$INIT/cgroup")"
	for f in "/sys/fs/cgroup$path/cgroup.procs" \
		"/sys/fs/cgroup/pids$path/cgroup.procs"; do
		[ -e "$f" ] && { sort -n "$f"; return; }
	done
	fail "no cgroup.procs for $path"
}

@test "exec prints the command's output and exits 0" {
	start_container
	run --separate-stderr corral exec "$ID" sh -c 'echo hello from exec'
	assert_success
	assert_output "hello from exec"
	assert_equal "$stderr" ""
}

@test "exec exits with the command's status: 3" {
	start_container
	run corral exec "$ID" sh -c 'echo bye; exit 3'
	assert_failure 3
	assert_output bye
}

@test "exec of a command killed by a signal exits 128+N" {
	start_container
	run corral exec "$ID" sh -c 'kill -9 $$'
	assert_failure 137
}

@test "exec forwards signals to the process" {
	start_container
	# "$CORRAL" itself, not the corral function: $! must be corral's pid
	"$CORRAL" --root "$ROOT" exec "$ID" sh -c 'trap "exit 7" TERM; echo ready; while :; do sleep 0.1; done' \
		</dev/null >"$BATS_TEST_TMPDIR/exec.out" 2>&1 3>&- &
	exec_pid=$!
	track_pid "$exec_pid"
	wait_for_file "$BATS_TEST_TMPDIR/exec.out" ready
	kill -TERM "$exec_pid"
	wait_bg "$exec_pid"
	[ "$BG_STATUS" -eq 7 ] || fail "exec exited $BG_STATUS, expected 7"
	# the container itself is untouched
	[ "$(state_field "$ID" status)" = running ]
}

@test "exec runs as 65534 without capabilities, no_new_privs and seccomp" {
	start_container
	run corral exec "$ID" sh -c 'echo "$(id -u):$(id -g)"; grep -E "^(Cap|NoNewPrivs|Seccomp:)" /proc/self/status'
	assert_success
	assert_line 65534:65534
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		assert_line --regexp "^$set:[[:space:]]+0000000000000000$"
	done
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_line --regexp '^Seccomp:[[:space:]]+2$'

	# -u 0 is mapped like the workload's root; another uid is kept
	run corral exec -u 0:0 "$ID" sh -c 'echo "$(id -u):$(id -g)"'
	assert_success
	assert_output 65534:65534
	run corral exec -u 1000:1001 --cwd /tmp "$ID" sh -c 'echo "$(id -u):$(id -g)"; pwd'
	assert_success
	assert_line --index 0 1000:1001
	assert_line --index 1 /tmp
}

@test "exec applies the env allowlist: -e SECRET=x is dropped by default" {
	start_container
	run corral exec -e SECRET=x -e TERM=dumb "$ID" env
	assert_success
	refute_line --partial SECRET
	assert_line TERM=dumb
}

@test "exec applies the container's policy: env.allow keeps SECRET" {
	echo '{"env": {"allow": ["PATH", "SECRET"]}}' >"$BATS_TEST_TMPDIR/policy.json"
	start_container --policy "$BATS_TEST_TMPDIR/policy.json"
	run corral exec -e SECRET=x -e OTHER=y "$ID" env
	assert_success
	assert_line SECRET=x
	refute_line --partial OTHER
	refute_line --partial TERM=

	# the policy is create's: a wider --policy given to exec changes nothing
	echo '{"env": {"allow": ["PATH", "SECRET", "OTHER"]}}' \
		>"$BATS_TEST_TMPDIR/wider.json"
	run "$CORRAL" --root "$ROOT" --policy "$BATS_TEST_TMPDIR/wider.json" \
		exec -e OTHER=y "$ID" env 3>&-
	assert_success
	refute_line --partial OTHER
}

@test "exec --cap is refused unless the policy keeps the capability" {
	start_container
	run --separate-stderr corral exec --cap CAP_NET_RAW "$ID" true
	assert_error_line
	[[ "$stderr" == *"exec $ID: --cap CAP_NET_RAW: refused"* ]] ||
		fail "unexpected error: $stderr"
	[[ "$stderr" == *capabilities.keep* ]]
}

@test "exec --cap of a capability the policy keeps reaches the bounding set" {
	echo '{"capabilities": {"keep": ["CAP_NET_RAW"]}}' >"$BATS_TEST_TMPDIR/policy.json"
	start_container --policy "$BATS_TEST_TMPDIR/policy.json"
	run corral exec --cap net_raw "$ID" grep CapBnd /proc/self/status
	assert_success
	# CAP_NET_RAW is bit 13
	assert_output --regexp '^CapBnd:[[:space:]]+0000000000002000$'
	run --separate-stderr corral exec --cap CAP_SYS_ADMIN "$ID" true
	assert_error_line
}

@test "exec -t sends the pty master to the console socket" {
	start_container
	sock="$BATS_TEST_TMPDIR/console.sock"
	"$RECVTTY" "$sock" 'tty; echo "ids $(id -u):$(id -g)"; echo hi-from-exec-pty; exit 5\n' </dev/null \
		>"$BATS_TEST_TMPDIR/tty.out" 2>"$BATS_TEST_TMPDIR/tty.err" 3>&- &
	recvtty_pid=$!
	track_pid "$recvtty_pid"
	wait_for_file "$sock"

	run corral exec -t --console-socket "$sock" "$ID" sh </dev/null
	assert_failure 5
	wait_bg "$recvtty_pid"
	[ "$BG_STATUS" -eq 0 ] ||
		fail "recvtty exited $BG_STATUS: $(cat "$BATS_TEST_TMPDIR/tty.err")"
	run tr -d '\r' <"$BATS_TEST_TMPDIR/tty.out"
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line "ids 65534:65534"
	assert_line hi-from-exec-pty
}

@test "exec in a terminal container runs without a terminal unless -t" {
	update_config '.process.terminal = true'
	sock="$BATS_TEST_TMPDIR/console.sock"
	"$RECVTTY" "$sock" '' </dev/null >"$BATS_TEST_TMPDIR/tty.out" \
		2>"$BATS_TEST_TMPDIR/tty.err" 3>&- &
	track_pid $!
	wait_for_file "$sock"
	run_detached "$ID" --console-socket "$sock" ||
		fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
	run --separate-stderr corral exec "$ID" sh -c 'tty || echo no-tty'
	assert_output --partial no-tty
	assert_equal "$stderr" ""
}

@test "exec -t without --console-socket fails" {
	start_container
	run --separate-stderr corral exec -t "$ID" sh
	assert_error_line
	[[ "$stderr" == *console-socket* ]]
}

@test "exec --detach returns with the process running in the container's cgroup and pid namespace" {
	start_container
	exec_detached bg "$ID" sleep 100

	# the pid file: bare digits, no newline
	assert_regex "$PID" '^[0-9]+$'
	[ "$(wc -c <"$BATS_TEST_TMPDIR/bg.pid")" -eq "${#PID}" ]
	! pid_gone "$PID" || fail "the detached process is not running"
	# sleep itself, not corral
	[ "$(cat "/proc/$PID/comm")" = sleep ]
	for ns in pid mnt net ipc uts cgroup; do
		[ "$(readlink "/proc/$PID/ns/$ns")" = "$(readlink "/proc/$INIT/ns/$ns")" ] ||
			fail "the process is not in the container's $ns namespace"
	done
	assert_equal "$(cat "/proc/$PID/cgroup")" "$(cat "/proc/$INIT/cgroup")"
	cgroup_procs | grep -qx "$PID" || fail "$PID is not in the container's cgroup.procs"
	# its pid inside the container
	inner="$(awk '/^NSpid:/ { print $NF }' "/proc/$PID/status")"
	run corral exec "$ID" sh -c "kill -0 $inner && echo visible"
	assert_success
	assert_output visible

	# it dies with the container
	run corral delete --force "$ID"
	assert_success
	wait_pid_gone "$PID"
	assert_no_leftovers "$ID"
}

@test "exec --process runs a runtime-spec process, hardened" {
	start_container
	cat >"$BATS_TEST_TMPDIR/process.json" <<-'EOF'
	{
		"args": ["sh", "-c", "echo from-process; id -u; pwd; env; grep -E '^(CapBnd|NoNewPrivs)' /proc/self/status"],
		"env": ["PATH=/bin", "HOME=/root", "SECRET=x"],
		"cwd": "/tmp",
		"user": {"uid": 0, "gid": 0},
		"capabilities": {"bounding": ["CAP_KILL"], "effective": ["CAP_KILL"],
				 "permitted": ["CAP_KILL"]},
		"noNewPrivileges": false
	}
	EOF
	run corral exec --process "$BATS_TEST_TMPDIR/process.json" "$ID"
	assert_success
	assert_line --index 0 from-process
	assert_line --index 1 65534
	assert_line /tmp
	assert_line HOME=/root
	refute_line --partial SECRET
	assert_line --regexp '^CapBnd:[[:space:]]+0000000000000000$'
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'

	# a process file and a command line exclude each other
	run --separate-stderr corral exec --process "$BATS_TEST_TMPDIR/process.json" \
		"$ID" true
	assert_error_line
}

@test "exec --process: detached, with a pid file, as the engines call it" {
	start_container
	echo '{"args": ["sleep", "100"], "cwd": "/"}' >"$BATS_TEST_TMPDIR/process.json"
	exec_detached p --process "$BATS_TEST_TMPDIR/process.json" "$ID"
	[ "$(readlink "/proc/$PID/ns/pid")" = "$(readlink "/proc/$INIT/ns/pid")" ]
	run grep -E '^(NoNewPrivs|CapEff|Uid)' "/proc/$PID/status"
	assert_line --regexp '^NoNewPrivs:[[:space:]]+1$'
	assert_line --regexp '^CapEff:[[:space:]]+0000000000000000$'
	assert_line --regexp '^Uid:[[:space:]]+65534[[:space:]]'
}

@test "exec --preserve-fds passes fd 3" {
	start_container
	echo passed-fd >"$BATS_TEST_TMPDIR/fd3"
	run "$CORRAL" --root "$ROOT" exec --preserve-fds 1 "$ID" \
		sh -c 'cat <&3; ls /proc/self/fd' 3<"$BATS_TEST_TMPDIR/fd3"
	assert_success
	assert_line --index 0 passed-fd
	# 0, 1, 2, 3 and the directory ls reads; no fd of corral's
	[ "$(grep -cx '[0-9]*' <<<"$output")" -le 5 ] ||
		fail "unexpected fds: $output"
}

@test "exec of a missing command fails with one line" {
	start_container
	before="$(cgroup_procs)"
	run --separate-stderr corral exec "$ID" nosuchcmd
	assert_error_line
	assert_equal "$stderr" "corral: exec $ID: exec nosuchcmd: No such file or directory"
	# the failed process is gone: the cgroup holds what it held before
	assert_equal "$(cgroup_procs)" "$before"
}

@test "exec into a stopped, a created or a missing container fails" {
	run --separate-stderr corral exec "$ID-missing" true
	assert_error_line
	assert_equal "$stderr" "corral: exec $ID-missing: container $ID-missing does not exist"

	create_container "$ID-created"
	track_pid "$(container_pid "$ID-created")"
	run --separate-stderr corral exec "$ID-created" true
	assert_error_line
	assert_equal "$stderr" "corral: exec $ID-created: container is created, not running"

	start_container
	run corral kill "$ID" KILL
	assert_success
	wait_for_status "$ID" stopped
	run --separate-stderr corral exec "$ID" true
	assert_error_line
	assert_equal "$stderr" "corral: exec $ID: container is stopped, not running"
	run --separate-stderr corral exec "$ID"
	assert_error_line
}

@test "exec'd processes cannot reach corral's binary through /proc" {
	start_container
	# the container's PID 1 is corral's supervisor: nothing of it opens
	run --separate-stderr corral exec "$ID" readlink /proc/1/exe
	assert_failure
	assert_output ""
	run corral exec "$ID" sh -c 'ls /proc/1/fd || echo no-fds; cat /proc/1/environ || echo no-environ'
	assert_line no-fds
	assert_line no-environ

	# a watcher inside reads every /proc/PID/exe it can, while more execs
	# start: not one of them may show corral's binary (an exec'd process
	# is non-dumpable until it is the command)
	exec_detached watch "$ID" sh -c '
		while :; do
			for p in /proc/[0-9]*; do
				l=$(readlink $p/exe 2>/dev/null) && echo "${p#/proc/} $l"
			done
		done'
	for i in $(seq 20); do
		corral exec "$ID" true || fail "exec $i failed"
	done
	corral exec -d "$ID" sleep 100 </dev/null >/dev/null 2>&1
	sleep 0.2
	run cat "$BATS_TEST_TMPDIR/watch.out"
	refute_output --partial corral
	refute_line --regexp '^1 '
	# what it did see are the container's own programs
	assert_line --regexp '^[0-9]+ /bin/busybox$'

	# the exec'd process's own exe is its command's, and corral exec
	# itself stays outside the container's pid namespace
	inner="$(awk '/^NSpid:/ { print $NF }' "/proc/$PID/status")"
	run corral exec "$ID" readlink "/proc/$inner/exe"
	assert_output /bin/busybox
	"$CORRAL" --root "$ROOT" exec "$ID" sleep 100 </dev/null >/dev/null 2>&1 3>&- &
	fg_pid=$!
	track_pid "$fg_pid"
	sleep 0.3
	[ "$(readlink "/proc/$fg_pid/ns/pid")" != "$(readlink "/proc/$INIT/ns/pid")" ] ||
		fail "corral exec itself is in the container's pid namespace"
	kill -TERM "$fg_pid"
	wait_bg "$fg_pid"
	[ "$BG_STATUS" -eq 143 ] || fail "exec exited $BG_STATUS, expected 143"
}

@test "nothing is left behind after execs" {
	start_container
	before="$(cgroup_procs)"
	run corral exec "$ID" true
	assert_success
	exec_detached bg "$ID" sleep 100
	run corral exec "$ID" nosuchcmd
	assert_failure
	run corral exec --cap CAP_SYS_ADMIN "$ID" true
	assert_failure
	kill -KILL "$PID"
	wait_pid_gone "$PID"
	assert_equal "$(cgroup_procs)" "$before"

	run corral delete --force "$ID"
	assert_success
	assert_no_leftovers "$ID"
}
