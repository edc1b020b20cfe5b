#!/usr/bin/env bats
# Rootless podman (Debian's 4.3) drives corral as an ordinary user: podman
# calls the runtime as root of its own user namespace (runtime/ids/rootless.h
# rootless_outside_host), with its own config.json, no --root (corral's
# state goes to $XDG_RUNTIME_DIR/corral) and the user's own policy file
# ($XDG_CONFIG_HOME/corral/policy.json), which adds the user's podman
# storage to engineDirs.  --network none: the host has no slirp4netns.
#
# The user, its subordinate ids, its home (podman's storage, under /tmp)
# and runtime directory are this file's; the teardown removes them all,
# with whatever the user still runs (podman's pause process) and the
# cgroups a test delegated to it.

# shellcheck disable=SC2154,SC2016
# (output, status, lines and stderr are set by bats' run; the single-quoted
# scripts are expanded by the container's sh, not here.)

bats_require_minimum_version 1.5.0

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

REPO_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
CORRAL="${CORRAL:-$REPO_ROOT/corral}"

setup_file() {
	[ -x "$CORRAL" ] || fail "corral binary $CORRAL not found: run make"
	command -v newuidmap >/dev/null || fail "newuidmap (Debian's uidmap) is missing"
	export PU="corral-pm-$$"
	PD="$(mktemp -d /tmp/corral-podman-rootless.XXXXXX)"
	export PD
	chmod 0755 "$PD"
	export PHOME="$PD/home" PRUN="$PD/run"
	useradd -M -N -s /bin/sh -d "$PHOME" -K SUB_UID_COUNT=0 \
		-K SUB_GID_COUNT=0 "$PU" || fail "useradd $PU"
	# a range no user of this host has: from 3200000000, by the pid
	local sub=$((3200000000 + ($$ % 1000) * 65536))
	usermod --add-subuids "$sub-$((sub + 65535))" \
		--add-subgids "$sub-$((sub + 65535))" "$PU" ||
		fail "usermod --add-subuids"
	mkdir -m 0700 "$PHOME" "$PRUN"
	chown "$PU:" "$PHOME" "$PRUN"
	cp "$CORRAL" "$PD/corral"
	# the user's policy: its podman storage is an engine directory, and
	# without a cgroup of its own the limits are off
	mkdir -p "$PHOME/.config/corral"
	jq --arg d "$PHOME/.local/share/containers/storage" \
		'{engineDirs: (.engineDirs + [$d]), limits: {bestEffort: true}}' \
		"$REPO_ROOT/config-examples/policy/default.json" \
		>"$PHOME/.config/corral/policy.json"
	jq '{engineDirs}' "$PHOME/.config/corral/policy.json" >"$PD/no-best-effort.json"
	jq '.limits = {memory: "64MiB", pids: 16}' \
		"$PHOME/.config/corral/policy.json" >"$PD/limits.json"
	chmod 0644 "$PD"/*.json
	chown -R "$PU:" "$PHOME/.config"
	# the image: busybox, imported by the user into its own storage
	local rootfs="$PD/image" applet dir
	for dir in bin etc tmp proc sys dev; do
		mkdir -p "$rootfs/$dir"
	done
	chmod 1777 "$rootfs/tmp"
	cp /bin/busybox "$rootfs/bin/busybox"
	for applet in $(/bin/busybox --list); do
		[ "$applet" = busybox ] || ln -s busybox "$rootfs/bin/$applet"
	done
	tar -C "$rootfs" -cf "$PD/image.tar" . || fail "tar of the busybox rootfs"
	chmod 0644 "$PD/image.tar"
	export IMAGE="localhost/corral-rootless:latest"
	as_user podman import -q "$PD/image.tar" "$IMAGE" >/dev/null ||
		fail "podman import as $PU"
}

teardown_file() {
	local uid pid
	if uid="$(id -u "$PU" 2>/dev/null)"; then
		# podman's pause process and anything a failed test left
		for pid in $(ps -o pid= -u "$uid" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		userdel "$PU" 2>/dev/null
	fi
	sed -i "/^$PU:/d" /etc/subuid /etc/subgid
	# the storage's files belong to the user's subordinate ids
	[ -z "${PD:-}" ] || rm -rf "$PD"
}

setup() {
	NAME="corral-rl-$BATS_TEST_NUMBER-$$"
	DELEGATED=()
}

teardown() {
	local dir left="" e
	as_user podman rm -f -i -t 0 "$NAME" "$NAME-b" >/dev/null 2>&1
	for e in "$PRUN/corral"/*; do
		[ -e "$e" ] && [ "${e##*/}" != .seccomp ] && left+=" state ${e##*/}"
	done
	for dir in "${DELEGATED[@]}"; do
		for e in "$dir"/*/; do
			[ -d "$e" ] || continue
			left+=" cgroup ${e%/}"
			rmdir "$e" 2>/dev/null
		done
		rmdir "$dir" 2>/dev/null || left+=" cgroup $dir (busy)"
	done
	[ -z "$left" ] || fail "left behind:$left"
}

# as_user CMD...: CMD as the user, with a login's environment.
as_user() {
	setpriv --reuid "$PU" --regid "$(id -g "$PU")" --init-groups \
		--reset-env env HOME="$PHOME" XDG_RUNTIME_DIR="$PRUN" \
		PATH=/usr/bin:/bin:/usr/sbin:/sbin "$@" 3>&-
}

# pm ARGS...: rootless podman with corral as its runtime.
pm() {
	(cd / && as_user podman --runtime "$PD/corral" "$@")
}

# delegate CONTROLLER...: as tests/integration/rootless.bats does, a
# cgroup of the user's below this test's own in each v1 hierarchy.
delegate() {
	local c own dir
	[ -e /sys/fs/cgroup/memory/cgroup.procs ] ||
		skip "the controllers are not on cgroup v1 here"
	for c in "$@"; do
		own="$(awk -F: -v c="$c" '$2 == c { print $3 }' /proc/self/cgroup)"
		dir="/sys/fs/cgroup/$c${own%/}/corral-pm-$$-$BATS_TEST_NUMBER"
		mkdir "$dir" || fail "mkdir $dir"
		DELEGATED+=("$dir")
		if [ "$c" = cpuset ]; then
			cp "${dir%/*}/cpuset.cpus" "$dir/cpuset.cpus"
			cp "${dir%/*}/cpuset.mems" "$dir/cpuset.mems"
		fi
		chown -R "$PU:" "$dir" || fail "chown $dir"
	done
}

# in_delegated CMD...: CMD started in the delegated cgroups.
in_delegated() {
	(
		local dir
		for dir in "${DELEGATED[@]}"; do
			echo "$BASHPID" >"$dir/cgroup.procs" || exit 99
		done
		"$@"
	)
}

field() {
	as_user podman inspect -f "{{$2}}" "$1"
}

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

status_is() {
	[ "$(field "$1" .State.Status)" = "$2" ]
}

logs_contain() {
	as_user podman logs "$1" 2>&1 | grep -qF -- "$2"
}

@test "rootless podman run --rm: the workload is sandboxed as root's is, the user's policy read, nothing left" {
	run pm run --rm --name "$NAME" --network none --env SECRET=hunter2 \
		--user 0 "$IMAGE" sh -c 'grep -E "^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status
			ls /sys/class/net; env; touch /bin/x 2>/dev/null || echo ro; exit 3'
	assert_equal "$status" 3
	assert_line --regexp $'^Uid:\t65534\t65534\t65534\t65534$'
	assert_line --regexp $'^CapEff:\t0+$'
	assert_line --regexp $'^CapBnd:\t0+$'
	assert_line --regexp $'^NoNewPrivs:\t1$'
	assert_line --regexp $'^Seccomp:\t2$'
	assert_line lo
	refute_output --partial hunter2
	[ -z "$(ls -A "$PRUN/corral" 2>/dev/null | grep -v '^\.seccomp$')" ] ||
		fail "state left: $(ls -A "$PRUN/corral")"
	# on the host the container's processes are the user's subordinate
	# ids, not root and not the user
	run pm run -d --name "$NAME-b" --network none "$IMAGE" sleep 100
	assert_success
	local pid
	pid="$(field "$NAME-b" .State.Pid)"
	[ "$(stat -c %u "/proc/$pid")" -ge 3200000000 ] ||
		fail "the container's uid on the host: $(stat -c %u "/proc/$pid")"
	run cat "$PRUN/corral/$(field "$NAME-b" .Id)/explain.txt"
	assert_success
	assert_line --regexp '^memory +limit +off: no cgroup of the caller.s own'
	assert_line --partial "the caller's: it is root of a user namespace of an ordinary user's"
}

@test "rootless podman run -d: exec, logs, ps, top, kill, stop and rm" {
	run pm run -d --name "$NAME" --network none "$IMAGE" \
		sh -c 'echo started; exec sleep 1000'
	assert_success
	wait_until 50 logs_contain "$NAME" started
	run pm exec "$NAME" sh -c 'id -u; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status'
	assert_success
	assert_output $'65534\nCapEff:\t0000000000000000\nNoNewPrivs:\t1'
	run pm ps --format '{{.Names}} {{.Status}}'
	assert_success
	assert_line --regexp "^$NAME Up "
	run pm top "$NAME" args
	assert_success
	assert_line --partial "sleep 1000"
	run pm kill "$NAME"
	assert_success
	wait_until 50 status_is "$NAME" exited
	assert_equal "$(field "$NAME" .State.ExitCode)" 137
	run pm run -d --name "$NAME-b" --network none "$IMAGE" sleep 1000
	assert_success
	run pm stop -t 1 "$NAME-b"
	assert_success
	assert_equal "$(field "$NAME-b" .State.Status)" exited
	run pm rm "$NAME" "$NAME-b"
	assert_success
	[ -z "$(ls -A "$PRUN/corral" 2>/dev/null | grep -v '^\.seccomp$')" ] ||
		fail "state left: $(ls -A "$PRUN/corral")"
}

@test "rootless podman with the user's report.dir: the report is kept at rm, with the files changed" {
	local dir="$PD/reports-$BATS_TEST_NUMBER" pol="$PD/report-$BATS_TEST_NUMBER.json" id
	mkdir -m 0700 "$dir"
	chown "$PU:" "$dir"
	jq --arg d "$dir" '.report = {dir: $d}' "$PHOME/.config/corral/policy.json" >"$pol"
	chmod 0644 "$pol"
	run pm --runtime-flag "policy=$pol" run --name "$NAME" --network none "$IMAGE" \
		sh -c 'echo kept >/tmp/note; exit 3'
	assert_equal "$status" 3
	id="$(field "$NAME" .Id)"
	run pm --runtime-flag "policy=$pol" rm "$NAME"
	assert_success
	[ -f "$dir/$id.json" ] || fail "no report in $dir: $(ls "$dir")"
	run jq -r '[.status, .outcome.reason, .outcome.exit_code,
		(.files.changes | map(.change + " " + .path) | join(","))] | @tsv' "$dir/$id.json"
	assert_output "$(printf 'stopped\tworkload exit\t3\tcreated /tmp/note')"
}

@test "rootless podman without a cgroup of the user's: the default policy refuses, naming limits.bestEffort" {
	run --separate-stderr pm --runtime-flag "policy=$PD/no-best-effort.json" \
		run --rm --name "$NAME" --network none "$IMAGE" echo ran
	assert_failure
	refute_output --partial ran
	[[ "$stderr" == *"rootless: no cgroup of the caller's own to limit memory, pids and cpu in (a delegated cgroup); the policy's limits.bestEffort runs without them"* ]] ||
		fail "stderr: $stderr"
}

@test "rootless podman in a delegated cgroup (v1): the container's limits are written in it" {
	local id mem pids
	delegate memory pids cpu cpuacct cpuset freezer
	run in_delegated pm --runtime-flag "policy=$PD/limits.json" run -d \
		--name "$NAME" --network none "$IMAGE" sleep 1000
	assert_success
	id="$(field "$NAME" .Id)"
	mem="${DELEGATED[0]}/corral-$id"
	pids="${DELEGATED[1]}/corral-$id"
	assert_equal "$(cat "$mem/memory.limit_in_bytes")" $((64 << 20))
	assert_equal "$(cat "$pids/pids.max")" 16
	grep -qx "$(field "$NAME" .State.Pid)" "$pids/cgroup.procs" ||
		fail "the init is not in $pids"
	run pm exec "$NAME" sh -c 'for i in $(seq 20); do sleep 5 & done 2>&1; wait'
	[ "$(cat "$pids/pids.current")" -le 16 ] || fail "pids.current $(cat "$pids/pids.current")"
	run pm rm -f -t 0 "$NAME"
	assert_success
	[ ! -e "$mem" ] && [ ! -e "$pids" ] || fail "the container's cgroup is left"
}
