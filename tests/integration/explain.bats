#!/usr/bin/env bats
# `corral explain`: what a container can reach under each example policy,
# for a bundle (nothing runs) and for a created container (what was applied).

load helpers

POLICIES="$REPO_ROOT/config-examples/policy"

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
}

teardown() {
	corral_teardown
}

# explain [ARGS...]: `corral explain ARGS... --bundle $BUNDLE` into $output.
explain() {
	run --separate-stderr corral explain "$@" --bundle "$BUNDLE"
	assert_success
	[ -z "$stderr" ] || fail "explain wrote to stderr: $stderr"
}

@test "explain --bundle runs nothing and leaves nothing" {
	snapshot() { find "$BUNDLE" -printf '%p %y %m %s %T@\n' | sort; }
	update_config '.hooks.prestart = [{ path: "/bin/touch", args: ["touch", $f] }]' \
		--arg f "$BATS_TEST_TMPDIR/hook-ran"
	before="$(snapshot)"
	explain
	assert_equal "$(snapshot)" "$before"
	[ ! -e "$BATS_TEST_TMPDIR/hook-ran" ] || fail "explain ran a hook"
	[ -z "$(ls -A "$ROOT" 2>/dev/null)" ] || fail "explain wrote to the state root"
}

@test "explain, default.json: the built-in sandbox in full" {
	# a config.json that asks for a lot
	update_config '.process.user.uid = 0 | .process.env += ["API_TOKEN=t0k3n"] |
		.process.capabilities.bounding = ["CAP_SYS_ADMIN"]'
	explain --policy "$POLICIES/default.json"
	assert_line --index 0 "corral sandbox: enforced (workload)"
	assert_line --regexp '^network +loopback only'
	assert_line --regexp '^ +env dropped +API_TOKEN$'
	assert_line --regexp '^time +wall clock +600s'
	assert_line --regexp '^memory +limit +512 MiB'
	assert_line --regexp '^pids +limit +256 processes'
	assert_line --regexp '^privileges +user +65534:65534'
	assert_line --regexp '^ +capabilities +none$'
	assert_line --regexp '^ +no_new_privs +yes$'
	assert_line --regexp '^syscalls +baseline +loaded'
	assert_line --regexp '^ +\.process\.user\.uid +0 -> 65534 +\(default\)$'
	refute_output --partial t0k3n
	# default.json is the built-ins written out
	if [ ! -e /etc/corral/policy.json ]; then
		text="$output"
		explain
		assert_equal "$output" "$text"
	fi
}

@test "explain: a --policy file that does not exist is an error, not the built-ins" {
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/missing.json" \
		explain --bundle "$BUNDLE"
	assert_error_line
	[[ "$stderr" == *missing.json* ]] || fail "$stderr"
}

@test "explain, agent.json: 15 minutes, 2 GiB, 512 processes, still no network" {
	explain --policy "$POLICIES/agent.json"
	assert_line --index 0 "corral sandbox: enforced (workload)"
	assert_line --regexp '^time +wall clock +900s \(15 min\).*\(policy\)$'
	assert_line --regexp '^memory +limit +2 GiB'
	assert_line --regexp '^pids +limit +512 processes'
	assert_line --regexp '^network +loopback only'
	assert_line --regexp 'memory\.limit +absent -> 2GiB +\(policy: limits\.memory\)$'
}

@test "explain, gpu.json: NVIDIA nodes kept, any other device refused with one line; dropped and listed under refuse.devices false" {
	update_config '.linux.devices = [
		{ path: "/dev/nvidia0", type: "c", major: 195, minor: 0 } ]'
	explain --policy "$POLICIES/gpu.json"
	assert_line --regexp '^devices +.*/dev/nvidia0$'
	# without the policy the GPU is refused too
	run --separate-stderr corral explain --bundle "$BUNDLE"
	assert_error_line
	assert_equal "$stderr" "corral: device /dev/nvidia0 (c 195:0): not a standard device nor one the policy's devices lists (policy: devices)"
	update_config '.linux.devices += [{ path: "/dev/sda", type: "b", major: 8, minor: 0 }]'
	run --separate-stderr corral explain --policy "$POLICIES/gpu.json" --bundle "$BUNDLE"
	assert_error_line
	assert_equal "$stderr" "corral: device /dev/sda (b 8:0): not a standard device nor one the policy's devices lists (policy: devices)"
	# an administrator who prefers the container to start without it
	jq '.refuse.devices = false' "$POLICIES/gpu.json" >"$BATS_TEST_TMPDIR/gpu.json"
	explain --policy "$BATS_TEST_TMPDIR/gpu.json"
	assert_line --regexp '^devices +.*/dev/nvidia0$'
	refute_line --regexp '^devices .*/dev/sda'
	assert_line --regexp '^ +\.linux\.devices\[/dev/sda\] +b 8:0 -> dropped +\(policy: refuse\.devices false: .*\(policy: devices\)\)$'
	assert_line --regexp '^dropped +runs without +\.linux\.devices\[/dev/sda\]: b 8:0'
}

@test "explain, permissive.json: says loudly that the sandbox is off" {
	explain --policy "$POLICIES/permissive.json"
	assert_line --index 0 --regexp '^WARNING: SANDBOX OFF'
	assert_line --regexp '^time +wall clock +no limit'
	assert_line --regexp '^syscalls +baseline +off$'
	run --separate-stderr corral explain --policy "$POLICIES/permissive.json" \
		--format json --bundle "$BUNDLE"
	assert_success
	assert_equal "$(jq -r .sandbox.enforced <<<"$output")" false
	assert_equal "$(jq -r .reach.network.loopbackOnly <<<"$output")" false
}

@test "explain --format json: every example policy gives .sandbox, .reach and .changes" {
	for p in "$POLICIES"/*.json; do
		run --separate-stderr corral explain --policy "$p" --format json --bundle "$BUNDLE"
		assert_success
		jq -e '(.sandbox | type == "object") and (.reach | type == "object") and
			(.changes | type == "array") and
			(.reach | has("filesystem", "network", "secrets", "time",
				"memory", "pids", "privileges", "syscalls", "devices")) and
			all(.changes[]; has("field", "asked", "applied", "reason"))' \
			<<<"$output" >/dev/null || fail "$p: $output"
	done
	run --separate-stderr corral explain --policy "$POLICIES/agent.json" \
		--format json --bundle "$BUNDLE"
	assert_equal "$(jq -c '[.sandbox.enforced, .reach.time.wallClock, .reach.memory.limit, .reach.pids.limit]' <<<"$output")" \
		'[true,900,2147483648,512]'
}

@test "explain ID: shows what was applied at create, whatever changes after" {
	update_config '.process.env += ["SECRET=v4lue"]'
	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	# created under the built-ins; then the bundle and the policy change
	update_config '.process.env += ["OTHER=x"]'
	run --separate-stderr corral --policy "$POLICIES/agent.json" explain "$ID"
	assert_success
	assert_line --regexp '^time +wall clock +600s'
	assert_line --regexp '^memory +limit +512 MiB'
	assert_line --regexp '^ +env dropped +SECRET$'
	refute_output --partial OTHER
	refute_output --partial v4lue
	run --separate-stderr corral explain --format json "$ID"
	assert_success
	assert_equal "$(jq -r .reach.time.wallClock <<<"$output")" 600

	corral delete --force "$ID"
	run --separate-stderr corral explain "$ID"
	assert_error_line
	[[ "$stderr" == *"$ID"*"does not exist"* ]] || fail "$stderr"
}

@test "explain ID: a container created under agent.json keeps agent.json's limits" {
	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	corral delete --force "$ID"
	corral --policy "$POLICIES/agent.json" create --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/err" ||
		fail "create: $(cat "$BATS_TEST_TMPDIR/err")"
	run --separate-stderr corral explain "$ID"
	assert_success
	assert_line --regexp '^time +wall clock +900s'
	assert_line --regexp '^memory +limit +2 GiB'
}

@test "the runtime log at create: the change list, and SANDBOX OFF when permissive" {
	log="$BATS_TEST_TMPDIR/log"
	update_config '.process.user.uid = 0'
	corral --log "$log" --log-format json create --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>&1 || fail "create failed"
	jq -e -s 'length > 0 and all(.[]; .level == "info" and (.time | type == "string"))' \
		"$log" >/dev/null || fail "log: $(cat "$log")"
	grep -q '"msg":"[^"]*\.process\.user\.uid: 0 -> 65534' "$log" ||
		fail "the uid change is not logged: $(cat "$log")"
	! grep -q 'SANDBOX OFF' "$log" || fail "SANDBOX OFF under the default policy"
	corral delete --force "$ID"

	: >"$log"
	corral --policy "$POLICIES/permissive.json" --log "$log" --log-format json \
		create --bundle "$BUNDLE" "$ID" </dev/null >/dev/null 2>&1 ||
		fail "create failed"
	jq -e -s 'any(.[]; .level == "info" and (.msg | test("SANDBOX OFF")))' \
		"$log" >/dev/null || fail "no SANDBOX OFF in the log: $(cat "$log")"
	run --separate-stderr corral explain "$ID"
	assert_line --index 0 --regexp '^WARNING: SANDBOX OFF'
}

@test "explain: bad arguments are one clear error" {
	run --separate-stderr corral explain --format yaml --bundle "$BUNDLE"
	assert_error_line
	run --separate-stderr corral explain
	assert_error_line
	run --separate-stderr corral explain --bundle "$BATS_TEST_TMPDIR/nowhere"
	assert_error_line
	[[ "$stderr" == *nowhere* ]] || fail "$stderr"
}

@test "explain --fields lists every field of config.json with its rule" {
	run corral explain --fields
	assert_success
	assert_line --regexp '^\.process\.user\.uid +kept or replaced +0 becomes'
	assert_line --regexp '^\.hooks\.\* +dropped or kept +only hooks.allow'
	run corral explain --fields --format json
	assert_success
	assert_equal "$(jq -r '.[] | select(.field == ".root.path") | .decision' <<<"$output")" \
		"kept or refused"
	# the same table as docs/threat-model.md's
	jq -r '.[] | "| `\(.field)` | \(.decision) |"' <<<"$output" |
		while IFS= read -r row; do
			grep -qF -- "$row" "$REPO_ROOT/docs/threat-model.md" ||
				fail "docs/threat-model.md lacks $row"
		done
}
