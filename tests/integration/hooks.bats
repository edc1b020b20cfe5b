#!/usr/bin/env bats
# OCI lifecycle hooks: order, the state on stdin, failures and timeouts,
# and which of config.json's hooks the sandbox lets run (only those the
# policy's hooks.allow names, with their exact arguments).

load helpers

# Every corral call of this file runs under $POLICY: a sandbox policy
# whose hooks.allow add_hook extends, or the permissive one where a test
# needs a startContainer hook (the sandbox never runs those).
corral() {
	"$CORRAL" --root "$ROOT" --policy "$POLICY" "$@" 3>&-
}

permissive() {
	POLICY="$REPO_ROOT/config-examples/policy/permissive.json"
}

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	# Every hook appends one line "KIND STATUS ID" to the log, which is also
	# where the container's stdout goes (create_container appends to it):
	# the startContainer hook runs inside the container, after pivot_root,
	# where no host path is reachable, and prints its line on stdout.
	LOG="$BATS_TEST_TMPDIR/$ID.out"
	: >"$LOG"

	# A hook on the host (and createContainer: it runs before pivot_root,
	# so host paths and jq still resolve).  $1 is the hook's kind.
	HOST_HOOK="$BATS_TEST_TMPDIR/host-hook"
	cat >"$HOST_HOOK" <<-EOF
		#!/bin/sh
		export PATH=/usr/sbin:/usr/bin:/sbin:/bin
		line="\$1 \$(jq -r '"\(.status) \(.id)"')"
		echo "\$line" >>"$LOG"
	EOF
	chmod 0755 "$HOST_HOOK"

	# The startContainer hook: a path inside the rootfs, run by the
	# container's busybox.
	cat >"$ROOTFS/bin/start-hook" <<-'EOF'
		#!/bin/sh
		state=$(cat)
		status=$(echo "$state" | sed -n 's/.*"status": *"\([^"]*\)".*/\1/p')
		id=$(echo "$state" | sed -n 's/.*"id": *"\([^"]*\)".*/\1/p')
		echo "$1 $status $id"
	EOF
	chmod 0755 "$ROOTFS/bin/start-hook"
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	echo '{"hooks": {"allow": []}}' >"$POLICY"
}

teardown() {
	corral_teardown
}

# add_hook KIND PATH [ARG] [TIMEOUT]: append a hook to .hooks.KIND; its
# argv is PATH ARG.  The sandbox policy (unless the test went permissive)
# allows exactly that path and argv.
add_hook() {
	local kind="$1" path="$2" arg="${3:-$1}" timeout="${4:-}"
	update_config '.hooks[$kind] += [{ path: $path, args: [$path, $arg],
		env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"] }
		+ (if $timeout == "" then {} else { timeout: ($timeout | tonumber) } end)]' \
		--arg kind "$kind" --arg path "$path" --arg arg "$arg" \
		--arg timeout "$timeout"
	[ "$POLICY" != "$BATS_TEST_TMPDIR/policy.json" ] && return
	jq --arg path "$path" --arg arg "$arg" \
		'.hooks.allow += [{path: $path, args: [$path, $arg]}]' \
		"$POLICY" >"$POLICY.new" && mv "$POLICY.new" "$POLICY"
}

# A hook script in the test's directory: add_script NAME BODY.
add_script() {
	printf '#!/bin/sh\n%s\n' "$2" >"$BATS_TEST_TMPDIR/$1"
	chmod 0755 "$BATS_TEST_TMPDIR/$1"
}

@test "hooks of all six kinds run in order with the state on stdin" {
	permissive
	set_args true
	for kind in prestart createRuntime createContainer poststart poststop; do
		add_hook "$kind" "$HOST_HOOK"
	done
	add_hook startContainer /bin/start-hook

	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
	run corral_bounded 60 start "$ID"
	assert_success
	wait_for_status "$ID" stopped
	run corral delete "$ID"
	assert_success

	# The host's hooks in order; startContainer runs in the container
	# between createContainer and poststop (its order against poststart
	# is checked by the next test).
	run grep -v '^startContainer ' "$LOG"
	assert_equal "$output" "prestart creating $ID
createRuntime creating $ID
createContainer creating $ID
poststart running $ID
poststop stopped $ID"
	mapfile -t log <"$LOG"
	[ "${#log[@]}" -eq 6 ] || fail "expected 6 hook lines: ${log[*]}"
	for i in "${!log[@]}"; do
		case "${log[$i]}" in
		createContainer*) created_at=$i ;;
		startContainer*) started_at=$i ;;
		poststop*) stopped_at=$i ;;
		esac
	done
	[ -n "${started_at:-}" ] || fail "the startContainer hook did not run: ${log[*]}"
	[ "$started_at" -gt "$created_at" ] && [ "$started_at" -lt "$stopped_at" ] ||
		fail "startContainer out of order: ${log[*]}"
	# the container is "created" when startContainer runs: create is done
	# and the user's program has not been executed (runtime-spec, State)
	assert_equal "${log[$started_at]}" "startContainer created $ID"
}

@test "poststart runs after the startContainer hooks" {
	# runtime-spec: poststart is called after the user-specified process
	# is executed, which is after the startContainer hooks.
	permissive
	set_args true
	cat >"$ROOTFS/bin/slow-start-hook" <<-'EOF'
		#!/bin/sh
		sleep 0.5
		echo startContainer
	EOF
	chmod 0755 "$ROOTFS/bin/slow-start-hook"
	add_hook startContainer /bin/slow-start-hook
	add_hook poststart "$HOST_HOOK"

	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
	run corral_bounded 60 start "$ID"
	assert_success
	wait_for_status "$ID" stopped
	run cat "$LOG"
	assert_equal "$output" "startContainer
poststart running $ID"
}

@test "a failing prestart hook fails create, leaving nothing behind" {
	set_args sleep 100
	add_script fail-hook "jq -r .pid >'$BATS_TEST_TMPDIR/hook-pid'; exit 1"
	add_hook prestart "$BATS_TEST_TMPDIR/fail-hook"

	run_files corral create --bundle "$BUNDLE" "$ID"
	assert_error_line
	[[ "$stderr" == *prestart* ]] || fail "the error does not name the hook: $stderr"
	[[ "$stderr" == *fail-hook* ]] || fail "the error does not name the hook: $stderr"
	[[ "$stderr" == *"status 1"* ]] || fail "the error does not give the status: $stderr"

	# the hook saw the container's pid: that process is gone
	pid="$(cat "$BATS_TEST_TMPDIR/hook-pid")"
	[ "$pid" -gt 0 ]
	track_pid "$pid"
	wait_pid_gone "$pid"
	assert_no_leftovers "$ID"
	[ -z "$(ls -A "$ROOT")" ]
}

@test "a failing createRuntime hook fails create" {
	set_args sleep 100
	add_script fail-hook 'exit 3'
	add_hook createRuntime "$BATS_TEST_TMPDIR/fail-hook"

	run_files corral create --bundle "$BUNDLE" "$ID"
	assert_error_line
	[[ "$stderr" == *createRuntime* ]]
	assert_no_leftovers "$ID"
}

@test "a failing createContainer hook fails create" {
	set_args sleep 100
	add_script fail-hook 'exit 4'
	add_hook createContainer "$BATS_TEST_TMPDIR/fail-hook"

	run_files corral create --bundle "$BUNDLE" "$ID"
	assert_error_line
	[[ "$stderr" == *createContainer* ]]
	[[ "$stderr" == *"status 4"* ]]
	assert_no_leftovers "$ID"
}

@test "a hook that outlives its timeout fails create with timed out" {
	set_args sleep 100
	# exec: the process killed at the timeout is the one holding stdout
	add_script slow-hook 'exec sleep 10'
	add_hook prestart "$BATS_TEST_TMPDIR/slow-hook" prestart 1

	SECONDS=0
	run_files corral create --bundle "$BUNDLE" "$ID"
	elapsed=$SECONDS
	assert_error_line
	[[ "$stderr" == *"timed out"* ]] || fail "no \"timed out\": $stderr"
	[[ "$stderr" == *prestart* ]]
	[ "$elapsed" -lt 5 ] || fail "create took ${elapsed}s with a 1s timeout"
	assert_no_leftovers "$ID"
}

@test "a failing startContainer hook fails start, and the workload never runs" {
	# runtime-spec: if a startContainer hook fails, the runtime MUST
	# generate an error and stop the container.
	permissive
	set_args sh -c 'echo must-not-run'
	printf '#!/bin/sh\nexit 1\n' >"$ROOTFS/bin/fail-hook"
	chmod 0755 "$ROOTFS/bin/fail-hook"
	add_hook startContainer /bin/fail-hook

	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
	run --separate-stderr corral_bounded 60 start "$ID"
	assert_error_line
	[[ "$stderr" == *startContainer* ]] || fail "the error does not name the hook: $stderr"
	wait_for_status "$ID" stopped
	run cat "$LOG"
	refute_output --partial must-not-run
}

@test "a failing poststart hook only warns, and the next one still runs" {
	set_args sleep 100
	add_script fail-hook 'exit 1'
	add_hook poststart "$BATS_TEST_TMPDIR/fail-hook"
	add_hook poststart "$HOST_HOOK"

	create_container "$ID"
	track_pid "$(container_pid "$ID")"
	run --separate-stderr corral_bounded 60 start "$ID"
	assert_success
	[[ "$stderr" == *warning* ]] || fail "no warning: $stderr"
	[[ "$stderr" == *poststart* ]] || fail "the warning does not name the hook: $stderr"
	[ "$(state_field "$ID" status)" = running ]
	run cat "$LOG"
	assert_output "poststart running $ID"
}

@test "a failing poststop hook only warns; delete still removes the container" {
	set_args true
	add_script fail-hook 'exit 1'
	add_hook poststop "$BATS_TEST_TMPDIR/fail-hook"

	create_container "$ID"
	track_pid "$(container_pid "$ID")"
	corral_bounded 60 start "$ID"
	wait_for_status "$ID" stopped
	run --separate-stderr corral delete "$ID"
	assert_success
	[[ "$stderr" == *poststop* ]] || fail "no warning naming the hook: $stderr"
	assert_no_leftovers "$ID"
}

@test "hooks run when run is used too, poststop at the end" {
	set_args sh -c 'echo workload'
	for kind in prestart poststart poststop; do
		add_hook "$kind" "$HOST_HOOK"
	done

	run corral_bounded 60 run --bundle "$BUNDLE" "$ID"
	assert_success
	assert_output workload
	run cat "$LOG"
	assert_line --index 0 "prestart creating $ID"
	assert_line --index 1 "poststart running $ID"
	assert_line --index 2 "poststop stopped $ID"
	assert_no_leftovers "$ID"
}

# ---- what the sandbox lets run ----------------------------------------

@test "sandbox: only the policy's hooks run, with their exact argv and corral's PATH" {
	set_args true
	add_script env-hook "env >'$BATS_TEST_TMPDIR/hook-env'; echo \"\$1\" >>'$LOG'"
	for kind in prestart createRuntime createContainer poststart poststop; do
		add_hook "$kind" "$HOST_HOOK"
	done
	add_hook prestart "$BATS_TEST_TMPDIR/env-hook" env
	update_config '.hooks.prestart[-1].env += ["LD_PRELOAD=/tmp/evil.so", "SECRET=1"]'
	# not allowed: another argv for an allowed path, an unlisted path, and
	# a startContainer hook (the policy may not name one either)
	update_config '.hooks.poststart += [{path: $p, args: [$p, "other"]}]' \
		--arg p "$HOST_HOOK"
	add_script unlisted 'echo UNLISTED >>'"'$LOG'"
	update_config '.hooks.createRuntime += [{path: $p}]' \
		--arg p "$BATS_TEST_TMPDIR/unlisted"
	update_config '.hooks.startContainer = [{path: "/bin/start-hook", args: ["/bin/start-hook", "startContainer"]}]'
	jq '.hooks.allow += [{path: "/bin/start-hook", args: ["/bin/start-hook", "startContainer"]}]' \
		"$POLICY" >"$POLICY.new" && mv "$POLICY.new" "$POLICY"

	run corral explain --bundle "$BUNDLE"
	assert_success
	assert_output --partial ".hooks.createRuntime[1]"
	assert_output --partial ".hooks.startContainer[0]"
	assert_output --partial ".hooks.poststart[1]"
	assert_output --partial ".hooks.prestart[1].env"

	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
	run corral_bounded 60 start "$ID"
	assert_success
	wait_for_status "$ID" stopped
	run corral delete "$ID"
	assert_success
	run cat "$LOG"
	assert_equal "$output" "prestart creating $ID
env
createRuntime creating $ID
createContainer creating $ID
poststart running $ID
poststop stopped $ID"
	run cat "$BATS_TEST_TMPDIR/hook-env"
	refute_output --partial LD_PRELOAD
	refute_output --partial SECRET
	assert_line "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}

@test "sandbox: an allowed hook path that is a symbolic link is refused, naming it" {
	set_args true
	ln -s "$HOST_HOOK" "$BATS_TEST_TMPDIR/link-hook"
	add_hook prestart "$BATS_TEST_TMPDIR/link-hook"

	run_files corral create --bundle "$BUNDLE" "$ID"
	assert_error_line
	[[ "$stderr" == *link-hook*"symbolic link"* ]] || fail "$stderr"
	run cat "$LOG"
	assert_output ""
	assert_no_leftovers "$ID"
}
