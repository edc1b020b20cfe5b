#!/usr/bin/env bats
# config.json's seccomp filter is the last thing loaded before the
# workload's execve (stage/workload.c): no call of corral's own runs
# under it, so a filter that denies what only the runtime needs (older
# Docker profiles lack close_range) does not kill the container.

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

# deny_calls NAME...: config.json's filter allows everything but NAME...
deny_calls() {
	update_config '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
		architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"],
		syscalls: [{names: $ARGS.positional, action: "SCMP_ACT_ERRNO"}]}' \
		--args "$@"
}

@test "a config.json filter without close_range runs the workload" {
	deny_calls close_range
	set_args echo ran
	run --separate-stderr corral run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_output ran
}

@test "a config.json filter denying what the runtime does before exec runs the workload" {
	deny_calls close_range capset setgroups setresuid setresgid prctl \
		chdir umask fcntl seccomp openat
	set_args echo ran
	run --separate-stderr corral run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_output ran
}

@test "a corral exec process gets config.json's filter last too" {
	deny_calls close_range capset setgroups prctl
	set_args sleep 60
	run_detached "$ID" || fail "run -d: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	track_pid "$(container_pid "$ID")"
	run --separate-stderr corral exec "$ID" echo ran
	assert_success
	assert_output ran
}

# Docker's profiles come with noNewPrivileges false: the filters are then
# loaded while the process is still root (an unprivileged process cannot
# load one), but after the fds are marked close-on-exec.
@test "without no_new_privs, a filter without close_range runs the workload (permissive policy)" {
	deny_calls close_range
	update_config '.process.noNewPrivileges = false'
	set_args echo ran
	run --separate-stderr corral --policy \
		"$REPO_ROOT/config-examples/policy/permissive.json" run \
		--bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_output ran
}

# An SCMP_ACT_NOTIFY of config.json's would wait for a listener the
# sandbox does not give (its listenerPath is dropped, and the baseline's
# listener is the process's one): the call is refused with ENOSYS, the
# rest runs, and the report still counts the baseline's own refusals.
@test "a config.json filter with SCMP_ACT_NOTIFY: those calls get ENOSYS, the container runs" {
	update_config '.linux.seccomp = {defaultAction: "SCMP_ACT_ALLOW",
		listenerPath: "/run/agent.sock",
		architectures: ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"],
		syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_NOTIFY"}]}'
	set_args sh -c 'mkdir /tmp/d; echo "mkdir $?"; echo ran'
	run --separate-stderr corral run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_line "mkdir 1"
	assert_line ran
	[[ "$stderr" == *"Function not implemented"* ]] || fail "stderr: $stderr"
	run corral explain --bundle "$BUNDLE"
	assert_line --regexp "^ +\\.linux\\.seccomp\\.syscalls\\[\\]\\.action +SCMP_ACT_NOTIFY -> SCMP_ACT_ERRNO \\(ENOSYS\\)  \\(default: "
}
