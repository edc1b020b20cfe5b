#!/usr/bin/env bats
# podman (Debian's 4.3) drives corral as its OCI runtime, with corral's
# default sandbox on and no --ulimit flags (corral clamps rlimits itself).
# --network none keeps podman's own network setup (netavark, CNI) off the
# host; corral's network namespace is what the container gets.
#
# podman's storage is shared with whoever else uses podman on this machine:
# every container, pod and image name here carries $$, and the teardown
# removes exactly those.  Every podman call closes fd 3 (bats' own output
# channel): a conmon that inherited it would make bats wait for it.

# shellcheck disable=SC2154,SC2016
# (output, status, lines and stderr are set by bats' run; the single-quoted
# scripts are expanded by the container's sh, not here.)

bats_require_minimum_version 1.5.0

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

REPO_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
CORRAL="${CORRAL:-$REPO_ROOT/corral}"
# corral's own default state root: podman as root passes no --root (only a
# rootless podman does), so that is where its containers live unless the
# conmon command line says otherwise (state_dir_of).
DEFAULT_STATE_ROOT=/run/corral

# The image: a busybox rootfs, tarred and `podman import`ed once per file.
setup_file() {
	[ -x "$CORRAL" ] || fail "corral binary $CORRAL not found: run make"
	export IMAGE="localhost/corral-test-$$:latest"
	local rootfs="$BATS_FILE_TMPDIR/image" dir applet
	for dir in bin etc tmp proc sys dev; do
		mkdir -p "$rootfs/$dir"
	done
	chmod 1777 "$rootfs/tmp"
	cp /bin/busybox "$rootfs/bin/busybox"
	for applet in $(/bin/busybox --list); do
		[ "$applet" = busybox ] || ln -s busybox "$rootfs/bin/$applet"
	done
	echo "imported by $BATS_TEST_FILENAME" >"$rootfs/etc/corral-test-image"
	# The pod's infra command: podman 4.3 takes --infra-command as one
	# word, and this host has no catatonit to build podman's own pause
	# image from.
	printf '#!/bin/sh\nexec sleep 100000\n' >"$rootfs/bin/pod-pause"
	chmod 755 "$rootfs/bin/pod-pause"
	tar -C "$rootfs" -cf "$BATS_FILE_TMPDIR/image.tar" . ||
		fail "tar of the busybox rootfs"
	podman import -q "$BATS_FILE_TMPDIR/image.tar" "$IMAGE" >/dev/null 3>&- ||
		fail "podman import $IMAGE"
}

teardown_file() {
	podman rmi -f "$IMAGE" >/dev/null 3>&-
}

setup() {
	NAME="corral-test-$BATS_TEST_NUMBER-$$"
	POD="$NAME-pod"
	STATE_DIRS="$BATS_TEST_TMPDIR/state-dirs"
	: >"$STATE_DIRS"
	ROOTFS="$BATS_TEST_TMPDIR/rootfs"
	mkdir -p "$ROOTFS"
	# `podman run --rootfs DIR` puts DIR in root.path, which corral takes
	# only below a directory the policy mounts (an engine directory is
	# for the engine's own store): this test's own is named
	# (--runtime-flag passes --policy to every corral call).
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	jq --arg d "$ROOTFS" '.mounts = [{source: $d}]' \
		"$REPO_ROOT/config-examples/policy/default.json" >"$POLICY"
	mkdir -p "$ROOTFS/bin"
	cp /bin/busybox "$ROOTFS/bin/"
	for a in sh echo cat id; do ln -s busybox "$ROOTFS/bin/$a"; done
}

# Remove what the test made, then fail if corral kept the state directory
# of any container the test saw running.
teardown() {
	local dir left=""
	# an upstream server a test started (by pid, whatever the test did)
	if [ -f "$BATS_TEST_TMPDIR/server.pid" ]; then
		kill "$(cat "$BATS_TEST_TMPDIR/server.pid")" 2>/dev/null || true
	fi
	podman pod rm -f -i -t 0 "$POD" >/dev/null 2>&1 3>&-
	podman rm -f -i -t 0 "$NAME" "$NAME-b" >/dev/null 2>&1 3>&-
	# the pod's cgroup parent: podman removes it in the hierarchies it
	# manages, not in cgroup2 beside v1 ones, where corral made it as
	# its members' parent and leaves it, as not its own
	if [ -f "$BATS_TEST_TMPDIR/pod.id" ]; then
		for dir in /sys/fs/cgroup/{,*/}libpod_parent/"$(cat "$BATS_TEST_TMPDIR/pod.id")"; do
			[ ! -d "$dir" ] || rmdir "$dir" || left+=" $dir"
		done
	fi
	while read -r dir; do
		[ ! -e "$dir" ] || left+=" $dir"
	done <"$STATE_DIRS"
	[ -z "$left" ] || fail "corral state or a cgroup left behind:$left"
}

pm() {
	podman --runtime "$CORRAL" --runtime-flag "policy=$POLICY" "$@" 3>&-
}

# podman_run [PODMAN OPTIONS] -- COMMAND...: run --rm with --rootfs.
podman_run() {
	local opts=()
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	pm run --rm --name "$NAME" --network none \
		"${opts[@]}" --rootfs "$ROOTFS" "$@"
}

# start_ct NAME [PODMAN RUN OPTIONS] -- COMMAND...: run -d from $IMAGE;
# CTPID is the container's pid (corral's supervisor, its PID 1).
start_ct() {
	local name="$1" opts=()
	shift
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	pm run -d --name "$name" --network none "${opts[@]}" "$IMAGE" "$@" \
		>/dev/null || fail "podman run -d $name failed"
	CTPID="$(field "$name" .State.Pid)"
	[ "$CTPID" -gt 0 ] || fail "$name: State.Pid is $CTPID"
	state_dir_of "$name" >>"$STATE_DIRS"
}

# field NAME TEMPLATE: one field of podman inspect ({{TEMPLATE}}).
field() {
	podman inspect -f "{{$2}}" "$1" 3>&-
}

# state_dir_of NAME: corral's state directory for a running container:
# the --root podman gives the runtime through conmon, else corral's
# default.  It must hold the container's state.json.
state_dir_of() {
	local conmon root="$DEFAULT_STATE_ROOT" args i
	conmon="$(field "$1" .State.ConmonPid)"
	mapfile -d '' args <"/proc/$conmon/cmdline" ||
		fail "conmon $conmon of $1 is not running"
	for ((i = 0; i + 3 < ${#args[@]}; i++)); do
		if [ "${args[i]}" = --runtime-arg ] &&
			[ "${args[i + 1]}" = --root ]; then
			root="${args[i + 3]}"
		fi
	done
	echo "$root/$(field "$1" .Id)"
}

# wait_until TENTHS COMMAND...: poll COMMAND every 0.1s.
wait_until() {
	local tries="$1"
	shift
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	fail "timed out waiting for: $*"
}

logs_contain() {
	podman logs "$1" 2>&1 3>&- | grep -qF -- "$2"
}

status_is() {
	[ "$(field "$1" .State.Status)" = "$2" ]
}

# cgroup_dir CONTROLLER PID: PID's cgroup directory of a v1 controller
# (this host is hybrid: the controllers are on v1).
cgroup_dir() {
	local path
	path="$(awk -F: -v c="$1" '$2 == c { print $3 }' "/proc/$2/cgroup")"
	[ -n "$path" ] || fail "pid $2 has no $1 cgroup"
	echo "/sys/fs/cgroup/$1$path"
}

# in_pty COMMAND...: COMMAND with a pty as its terminal (script(1)), the
# caller's stdin typed into it; exits with COMMAND's status.
in_pty() {
	local cmd
	printf -v cmd '%q ' "$@"
	# script runs the line with $SHELL: bash, which reads the $'...' that
	# %q makes of a newline (sh, when CI leaves SHELL unset, would not)
	SHELL=/bin/bash script -qec "$cmd" /dev/null 3>&-
}

# strip_cr: the last run's output without the pty's carriage returns.
strip_cr() {
	output="${output//$'\r'/}"
	mapfile -t lines <<<"$output"
}

# The sandbox as the process sees it, from its /proc/self/status.
SANDBOX_PROBE='grep -E "^(Uid|CapEff|NoNewPrivs|Seccomp):" /proc/self/status'

# The network interfaces the process sees, as one line "interfaces: lo".
IFACES='echo "interfaces:" $(awk -F: "NR > 2 { sub(/^ +/, \"\", \$1); print \$1 }" /proc/net/dev)'

assert_sandboxed() {
	assert_line --regexp $'^Uid:\t65534\t65534\t65534\t65534$'
	assert_line --regexp $'^CapEff:\t0+$'
	assert_line --regexp $'^NoNewPrivs:\t1$'
	assert_line --regexp $'^Seccomp:\t2$'
}

@test "podman run --rm prints the workload's output" {
	run podman_run -- /bin/echo hi
	assert_success
	assert_output "hi"
}

@test "podman run passes the exit status through" {
	run podman_run -- /bin/sh -c 'echo out; exit 4'
	assert_equal "$status" 4
	assert_output "out"
}

@test "podman run without --ulimit: rlimits beyond the host are clamped" {
	run podman_run -- /bin/sh -c 'ulimit -n'
	assert_success
	[ "$output" -le "$(ulimit -Hn)" ]
}

@test "podman run -t gets a terminal through the console socket" {
	run podman_run -t -- /bin/sh -c 'test -t 0 && echo tty; exit 5' </dev/null
	assert_equal "$status" 5
	assert_output --partial "tty"
}

@test "podman run --rootfs of a directory the policy does not name is refused, naming mounts and engineDirs" {
	run --separate-stderr podman --runtime "$CORRAL" run --rm --name "$NAME" \
		--network none --rootfs "$ROOTFS" /bin/echo ran 3>&-
	assert_failure
	refute_output --partial ran
	[[ "$stderr" == *".root.path: $ROOTFS is neither in the bundle, below a directory the policy mounts, nor below an engine directory (policy: mounts, engineDirs)"* ]] ||
		fail "unexpected error: $stderr"
	run podman container exists "$NAME" 3>&-
	assert_failure
}

@test "podman run of an imported image: the workload is sandboxed" {
	run pm run --rm --name "$NAME" --network none --env SECRET=hunter2 \
		--user 0 "$IMAGE" sh -c "cat /etc/corral-test-image; $SANDBOX_PROBE;
			env; $IFACES; exit 3"
	assert_equal "$status" 3
	assert_line "imported by $BATS_TEST_FILENAME"
	assert_sandboxed
	refute_output --partial SECRET
	# only loopback: the network namespace is corral's own
	assert_line "interfaces: lo"
}

@test "podman run -d: podman logs has the workload's stdout and stderr" {
	start_ct "$NAME" -- sh -c 'echo to-stdout; echo to-stderr >&2; sleep 1000'
	wait_until 50 logs_contain "$NAME" to-stderr
	run podman logs "$NAME" 3>&-
	assert_success
	assert_line to-stdout
	assert_line to-stderr
}

@test "podman inspect: Running with a Pid, then the ExitCode" {
	start_ct "$NAME" -- sh -c 'until [ -e /tmp/go ]; do sleep 0.1; done; exit 42'
	assert_equal "$(field "$NAME" .State.Status)" running
	assert_equal "$(field "$NAME" .State.Running)" true
	# the Pid is PID 1 of the container's own pid namespace
	run grep -E '^NSpid:' "/proc/$CTPID/status"
	assert_output --regexp $'^NSpid:\t'"$CTPID"$'\t1$'

	pm exec "$NAME" touch /tmp/go
	run timeout 20 podman wait "$NAME" 3>&-
	assert_success
	assert_output 42
	assert_equal "$(field "$NAME" .State.Status)" exited
	assert_equal "$(field "$NAME" .State.Running)" false
	assert_equal "$(field "$NAME" .State.ExitCode)" 42
}

@test "podman stop: SIGTERM reaches the workload" {
	start_ct "$NAME" -- sh -c 'trap "echo got TERM; exit 3" TERM; echo ready
		while :; do sleep 0.1; done'
	wait_until 50 logs_contain "$NAME" ready
	local start=$SECONDS
	run pm stop "$NAME"
	assert_success
	# its own exit status, well before podman's 10s would have run out
	[ $((SECONDS - start)) -lt 5 ] || fail "stop took $((SECONDS - start))s"
	assert_equal "$(field "$NAME" .State.ExitCode)" 3
	run podman logs "$NAME" 3>&-
	assert_line "got TERM"
}

@test "podman stop -t 2: a workload that ignores SIGTERM is killed" {
	start_ct "$NAME" -- sh -c 'trap "" TERM; echo ready
		while :; do sleep 0.1; done'
	wait_until 50 logs_contain "$NAME" ready
	local start end ms
	start="$(date +%s%N)"
	run pm stop -t 2 "$NAME"
	end="$(date +%s%N)"
	assert_success
	ms=$(((end - start) / 1000000))
	[ "$ms" -ge 1500 ] && [ "$ms" -lt 8000 ] ||
		fail "stop -t 2 took ${ms}ms"
	assert_equal "$(field "$NAME" .State.ExitCode)" 137
	wait_until 50 [ ! -e "/proc/$CTPID" ]
}

@test "podman kill: SIGKILL by default, -s any signal to the workload" {
	start_ct "$NAME" -- sh -c 'trap "echo got USR1" USR1; echo ready
		while :; do sleep 0.1; done'
	wait_until 50 logs_contain "$NAME" ready
	pm kill -s USR1 "$NAME" >/dev/null
	wait_until 50 logs_contain "$NAME" "got USR1"
	assert_equal "$(field "$NAME" .State.Status)" running
	pm kill -s TERM "$NAME" >/dev/null
	run timeout 20 podman wait "$NAME" 3>&-
	assert_output 143

	start_ct "$NAME-b" -- sh -c 'trap "" TERM INT HUP; sleep 1000'
	pm kill "$NAME-b" >/dev/null
	run timeout 20 podman wait "$NAME-b" 3>&-
	assert_output 137
}

@test "podman rm -f of a running container leaves nothing in corral's state root" {
	start_ct "$NAME" -- sleep 1000
	local dir conmon id memcg pidscg
	dir="$(state_dir_of "$NAME")"
	id="$(field "$NAME" .Id)"
	conmon="$(field "$NAME" .State.ConmonPid)"
	memcg="$(cgroup_dir memory "$CTPID")"
	pidscg="$(cgroup_dir pids "$CTPID")"
	# the directory is the one corral uses for this container
	[ -f "$dir/state.json" ] || fail "no $dir/state.json"
	run "$CORRAL" --root "${dir%/*}" state "$id" 3>&-
	assert_success
	assert_equal "$(jq -r .status <<<"$output")" running
	assert_equal "$(jq -r .pid <<<"$output")" "$CTPID"

	run pm rm -f "$NAME"
	assert_success
	[ ! -e "$dir" ] || fail "$dir is left: $(ls -A "$dir")"
	run --separate-stderr "$CORRAL" --root "${dir%/*}" state "$id" 3>&-
	assert_failure
	[[ "$stderr" == *"does not exist"* ]] || fail "state $id: $stderr"
	run podman container exists "$NAME" 3>&-
	assert_failure
	wait_until 50 [ ! -e "/proc/$CTPID" ]
	wait_until 50 [ ! -e "/proc/$conmon" ]
	[ ! -e "$memcg" ] || fail "cgroup $memcg is left"
	[ ! -e "$pidscg" ] || fail "cgroup $pidscg is left"
}

@test "podman exec: exit status, and the exec'd process is sandboxed too" {
	start_ct "$NAME" -- sleep 1000
	run pm exec "$NAME" sh -c 'echo from-exec; exit 7'
	assert_equal "$status" 7
	assert_output from-exec

	# --user 0 asks for root: corral makes it 65534 all the same
	run pm exec --user 0 "$NAME" sh -c "$SANDBOX_PROBE; readlink /proc/self/ns/net"
	assert_success
	assert_sandboxed
	# in the container's network namespace, not a new one nor the host's
	assert_line "$(readlink "/proc/$CTPID/ns/net")"
}

@test "podman exec -t and -it get a terminal; the exit status comes through" {
	start_ct "$NAME" -- sleep 1000
	run pm exec -t "$NAME" sh -c "tty; $SANDBOX_PROBE; exit 5" </dev/null
	assert_equal "$status" 5
	strip_cr
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_sandboxed

	run in_pty podman --runtime "$CORRAL" exec -it "$NAME" \
		sh -c 'read -r x; tty; echo "got=$x"; exit 6' <<<"typed"
	assert_equal "$status" 6
	strip_cr
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line "got=typed"
}

@test "podman run -it: a terminal through the console socket, stdin typed into it" {
	run in_pty podman --runtime "$CORRAL" run -it --rm --name "$NAME" \
		--network none "$IMAGE" sh -c 'read -r x; tty
			test -t 0 && test -t 1 && echo both-ttys; echo "got=$x"; exit 9' \
		<<<"hello"
	assert_equal "$status" 9
	strip_cr
	assert_line --regexp '^/dev/pts/[0-9]+$'
	assert_line both-ttys
	assert_line "got=hello"
}

# counter PID: the count the workload of the pause test last wrote.
counter() {
	cat "/proc/$1/root/tmp/n" 2>/dev/null
}

counter_above() {
	local n
	n="$(counter "$1")"
	[ -n "$n" ] && [ "$n" -gt "$2" ]
}

@test "podman pause stops the workload, unpause lets it go on" {
	start_ct "$NAME" -- sh -c 'i=0; while :; do i=$((i + 1)); echo $i >/tmp/n; sleep 0.05; done'
	wait_until 50 counter_above "$CTPID" 2
	pm pause "$NAME" >/dev/null
	assert_equal "$(field "$NAME" .State.Status)" paused
	assert_equal "$(cat "$(cgroup_dir freezer "$CTPID")/freezer.state")" FROZEN
	local before after
	before="$(counter "$CTPID")"
	sleep 0.5
	after="$(counter "$CTPID")"
	assert_equal "$after" "$before"
	# nothing runs in a frozen container, exec neither
	run pm exec "$NAME" true
	assert_failure

	pm unpause "$NAME" >/dev/null
	assert_equal "$(field "$NAME" .State.Status)" running
	wait_until 50 counter_above "$CTPID" "${before:-0}"
}

@test "podman top: every process of the workload runs as 65534, corral's supervisor as its own 65535" {
	start_ct "$NAME" -- sh -c 'sleep 1000; echo never'
	run pm top "$NAME" user args
	assert_success
	assert_line --regexp '^65534 +sleep 1000 *$'
	assert_line --regexp '^65534 +sh -c sleep 1000; echo never *$'
	assert_line --regexp '^65535 +corral-init *$'
	# a header and at least the supervisor, sh and sleep
	[ "${#lines[@]}" -ge 4 ] || fail "too few processes: $output"
	local line
	for line in "${lines[@]:1}"; do
		[[ "$line" == "65534 "* || "$line" =~ ^65535\ +corral-init ]] ||
			fail "not 65534: $line"
	done
}

@test "podman --memory 32m and --pids-limit 16 land in the container's cgroup" {
	start_ct "$NAME" --memory 32m --pids-limit 16 -- sleep 1000
	assert_equal "$(cat "$(cgroup_dir memory "$CTPID")/memory.limit_in_bytes")" 33554432
	assert_equal "$(cat "$(cgroup_dir pids "$CTPID")/pids.max")" 16
	# and the pids limit holds: 20 more processes do not fit
	run pm exec "$NAME" sh -c 'for i in $(seq 20); do
			sleep 30 </dev/null >/dev/null 2>&1 &
		done; echo done'
	assert_output --partial "can't fork"
	[ "$(cat "$(cgroup_dir pids "$CTPID")/pids.current")" -le 16 ]
}

# ns_of PID NS: the namespace PID is in.
ns_of() {
	readlink "/proc/$1/ns/$2"
}

@test "podman pod: infra and two containers share ipc and uts, each sandboxed with only lo" {
	pm pod create --network none --name "$POD" --infra-image "$IMAGE" \
		--infra-command /bin/pod-pause >/dev/null
	podman pod inspect -f '{{.Id}}' "$POD" >"$BATS_TEST_TMPDIR/pod.id" 3>&-
	local infra c pid ns dirs=() pids=()
	start_ct "$NAME" --pod "$POD" -- sleep 1000
	start_ct "$NAME-b" --pod "$POD" -- sleep 1000
	assert_equal "$(podman pod inspect -f '{{.State}}' "$POD" 3>&-)" Running
	infra="$(podman pod inspect -f '{{.InfraContainerID}}' "$POD" 3>&-)"
	state_dir_of "$infra" >>"$STATE_DIRS"
	for c in "$infra" "$NAME" "$NAME-b"; do
		assert_equal "$(field "$c" .OCIRuntime)" "$CORRAL"
		pids+=("$(field "$c" .State.Pid)")
		dirs+=("$(state_dir_of "$c")")
	done
	for ns in ipc uts; do
		assert_equal "$(ns_of "${pids[1]}" "$ns")" "$(ns_of "${pids[0]}" "$ns")"
		assert_equal "$(ns_of "${pids[2]}" "$ns")" "$(ns_of "${pids[0]}" "$ns")"
	done
	# corral never joins a network namespace, the pod's neither
	[ "$(ns_of "${pids[1]}" net)" != "$(ns_of "${pids[0]}" net)" ]
	[ "$(ns_of "${pids[1]}" pid)" != "$(ns_of "${pids[2]}" pid)" ]
	for c in "$NAME" "$NAME-b"; do
		run pm exec "$c" sh -c "hostname; $SANDBOX_PROBE; $IFACES"
		assert_success
		assert_line "$POD"
		assert_sandboxed
		assert_line "interfaces: lo"
	done

	run pm pod stop -t 2 "$POD"
	assert_success
	for c in "$infra" "$NAME" "$NAME-b"; do
		assert_equal "$(field "$c" .State.Status)" exited
	done
	run pm pod rm "$POD"
	assert_success
	run podman pod exists "$POD" 3>&-
	assert_failure
	for pid in "${pids[@]}"; do
		wait_until 50 [ ! -e "/proc/$pid" ]
	done
	for c in "${dirs[@]}"; do
		[ ! -e "$c" ] || fail "$c is left"
	done
}

# named_runtime_conf: CONTAINERS_CONF is config-examples/containers.conf
# itself, with only its binary path line pointing to the corral under test.
# Exported for the rest of the test and its teardown: a podman without it
# cannot even remove a container of the runtime named "corral".
named_runtime_conf() {
	local example="$REPO_ROOT/config-examples/containers.conf"
	local conf="$BATS_TEST_TMPDIR/containers.conf"
	sed "s|^\( *\)\"/usr/local/bin/corral\",|\1\"$CORRAL\",|" "$example" >"$conf"
	# exactly one line changed, or the example no longer looks as expected
	[ "$(diff "$example" "$conf" | grep -c '^>')" -eq 1 ] ||
		fail "the path line of $example was not found"
	export CONTAINERS_CONF="$conf"
}

@test "named runtime from config-examples/containers.conf: podman --runtime corral" {
	named_runtime_conf
	run podman --runtime corral run --rm \
		--name "$NAME" --network none "$IMAGE" sh -c 'echo hi; id -u' 3>&-
	assert_success
	assert_output $'hi\n65534'

	# runtime_supports_json: podman has conmon pass --log-format=json
	podman --runtime corral run -d --name "$NAME" \
		--network none "$IMAGE" sleep 1000 >/dev/null 3>&-
	state_dir_of "$NAME" >>"$STATE_DIRS"
	assert_equal "$(field "$NAME" .OCIRuntime)" corral
	local args
	args="$(tr '\0' '\n' <"/proc/$(field "$NAME" .State.ConmonPid)/cmdline")"
	grep -qx -- '--log-format=json' <<<"$args" ||
		fail "conmon was not given --log-format=json: $args"
}

@test "named runtime: an error in corral is one readable line from podman run" {
	named_runtime_conf
	local bad want
	for bad in timeout=garbage timeout=100000; do
		run --separate-stderr podman --runtime corral run --rm \
			--name "$NAME" --network none \
			--annotation "run.corral.$bad" "$IMAGE" echo ran 3>&-
		assert_equal "$status" 126
		assert_output ""
		case "$bad" in
		timeout=garbage) want='expected a positive number of seconds or "none"' ;;
		*) want="wider than the policy's 600s" ;;
		esac
		# corral's own line from its JSON log, not stderr prefixed
		# with the binary's path
		[ "${#stderr_lines[@]}" -eq 1 ] ||
			fail "expected one line, got: $stderr"
		[[ "$stderr" =~ ^"Error: OCI runtime error: corral: create "[0-9a-f]{64}": config.json: annotation run.corral.$bad: $want"$ ]] ||
			fail "unexpected error: $stderr"
		run podman container exists "$NAME" 3>&-
		assert_failure
	done
}

# host_data: a host directory of the test's own for -v, with a file.
host_data() {
	DATA="$BATS_TEST_TMPDIR/data"
	mkdir -p "$DATA"
	echo "host-data-$$" >"$DATA/file"
}

# bind_cmd [PODMAN RUN OPTIONS]: BIND is podman --runtime corral run -v
# $DATA:/data as a user types it, under $POLICY.
bind_cmd() {
	BIND=(podman --runtime corral --runtime-flag "policy=$POLICY" run --rm
		--name "$NAME" --network none -v "$DATA:/data" "$@" "$IMAGE"
		sh -c 'echo ran; cat /data/file')
}

# nothing_left ID: of a container whose create corral refused, podman has
# no record, corral no state, and the host no mount or process that
# names it or $DATA.
nothing_left() {
	run podman container exists "$NAME" 3>&-
	assert_failure
	[ ! -e "$DEFAULT_STATE_ROOT/$1" ] || fail "corral state $1 is left"
	! grep -F -e "$1" -e "$DATA" /proc/self/mountinfo ||
		fail "a mount of $1 or $DATA is left"
	! ps -eo args | grep -v grep | grep -F "$1" ||
		fail "a process of $1 is left"
}

@test "podman run -v of a directory the policy does not allow fails with corral's one line, on a terminal and without; nothing is left" {
	named_runtime_conf
	host_data
	local id want="bind $DATA on /data: no entry of the policy's mounts allows $DATA (policy: mounts)"
	# the line as a regular expression: the message's own characters
	# literal, the container's ID captured
	want="^Error: OCI runtime error: corral: create ([0-9a-f]{64}): $(sed 's/[][\\.*^$()+?{}|]/\\&/g' <<<"$want")\$"
	# without a terminal: nothing on stdout, one line on stderr
	bind_cmd
	run --separate-stderr "${BIND[@]}" </dev/null 3>&-
	assert_equal "$status" 126
	assert_output ""
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "expected one line: $stderr"
	[[ "$stderr" =~ $want ]] || fail "unexpected error: $stderr"
	nothing_left "${BASH_REMATCH[1]}"
	# on a pseudo-terminal, as a user runs it, plain and with -it: the
	# same line is on the terminal (through conmon and podman)
	for tty in "" -it; do
		bind_cmd $tty
		run in_pty "${BIND[@]}" </dev/null
		assert_equal "$status" 126
		strip_cr
		refute_line ran
		assert_line --regexp "$want"
		id="$(grep -oE 'create [0-9a-f]{64}' <<<"$output" | cut -c8-)"
		nothing_left "$id"
	done
}

@test "podman run -v of a directory a mounts entry of the policy names: mounted, read-only" {
	named_runtime_conf
	host_data
	jq --arg d "$DATA" '.mounts += [{source: $d}]' "$POLICY" >"$POLICY.new"
	mv "$POLICY.new" "$POLICY"
	bind_cmd
	run "${BIND[@]}" </dev/null 3>&-
	assert_success
	assert_output $'ran\nhost-data-'"$$"
	run podman --runtime corral --runtime-flag "policy=$POLICY" run --rm \
		--name "$NAME" --network none -v "$DATA:/data" "$IMAGE" \
		sh -c 'touch /data/new && echo wrote' 3>&-
	refute_output --partial wrote
	[ ! -e "$DATA/new" ] || fail "the container wrote to $DATA"
}

@test "podman run --rootfs and an imported image behave alike" {
	run podman_run -- /bin/sh -c 'id -u; exit 2'
	assert_equal "$status" 2
	local rootfs_out="$output"
	run pm run --rm --name "$NAME" --network none "$IMAGE" sh -c 'id -u; exit 2'
	assert_equal "$status" 2
	assert_equal "$output" "$rootfs_out"
	assert_equal "$output" 65534
}

@test "podman with an egress policy: the allowed host through corral's proxy, another refused" {
	local port=$((30000 + RANDOM % 10000)) www="$BATS_TEST_TMPDIR/www" pid
	mkdir -p "$www" && echo hello-through-proxy >"$www/index.html"
	python3 -m http.server "$port" --bind 127.0.0.2 --directory "$www" \
		>"$BATS_TEST_TMPDIR/http.log" 2>&1 3>&- &
	pid=$!
	echo "$pid" >"$BATS_TEST_TMPDIR/server.pid"
	for _ in $(seq 50); do
		busybox nc -z 127.0.0.2 "$port" 2>/dev/null && break
		sleep 0.1
	done
	jq --arg a "127.0.0.2:$port" '.network = {allow: [$a]}' "$POLICY" \
		>"$POLICY.new" && mv "$POLICY.new" "$POLICY"
	run pm run --rm --name "$NAME" --network none "$IMAGE" \
		sh -c "wget -q -O- http://127.0.0.2:$port/; wget -q -O- http://127.0.0.2:$((port + 1))/ 2>&1; ip -o link | wc -l"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	assert_line --index 0 hello-through-proxy
	assert_line --index 1 --partial "403 Forbidden"
	assert_line --index 2 1
}

@test "podman with the policy's report.dir: each container's report is kept at delete" {
	local dir="$BATS_TEST_TMPDIR/reports" id
	mkdir -m 0700 "$dir"
	jq --arg d "$dir" '.report = {dir: $d}' "$POLICY" >"$POLICY.new" &&
		mv "$POLICY.new" "$POLICY"
	run pm run --name "$NAME" --network none "$IMAGE" \
		sh -c 'echo kept >/tmp/note; exit 3'
	assert_equal "$status" 3
	id="$(podman inspect -f '{{.Id}}' "$NAME" 3>&-)"
	run pm rm "$NAME"
	assert_success
	[ -f "$dir/$id.json" ] || fail "no report in $dir: $(ls "$dir")"
	run jq -r '[.id, .status, .outcome.reason, .outcome.exit_code] | @tsv' "$dir/$id.json"
	assert_output "$(printf '%s\tstopped\tworkload exit\t3' "$id")"
	run stat -c %a "$dir/$id.json"
	assert_output 600
}

@test "podman with a pool of ids: root of its own user namespace writes the image's root-owned /etc; the host sees the slice" {
	local pool=$((1073741824 + ($$ % 150 * 256 + 220) * 65536))
	jq --argjson p "$pool" '.user.pool = {hostUID: $p, hostGID: $p, size: 1048576}' \
		"$POLICY" >"$POLICY.new" && mv "$POLICY.new" "$POLICY"
	run pm run --rm --name "$NAME" --network none "$IMAGE" \
		sh -c 'echo x >/etc/written && cat /etc/written; id -u; cat /proc/self/uid_map'
	assert_success
	assert_line --index 0 x
	assert_line --index 1 0
	[[ "${lines[2]}" =~ ^\ +0\ +([0-9]+)\ +65536$ ]] || fail "uid_map: ${lines[2]}"
	[ "${BASH_REMATCH[1]}" -ge "$pool" ] && [ "${BASH_REMATCH[1]}" -lt $((pool + 1048576)) ] ||
		fail "host uid ${BASH_REMATCH[1]} is outside the pool $pool"
	[ ! -e "/run/corral-userns/${BASH_REMATCH[1]}" ] || fail "the slice is still held"
}
