#!/usr/bin/env bats
# What corral prints against the runtime-spec's schemas: config.json
# (`corral spec`, and the effective config a container keeps), state in
# every status, and `corral features`.  The config and state schemas are
# the runtime-spec's own, from Debian's golang-github-opencontainers-specs-dev
# (tests/deps installs it); features' is written from the spec's
# features.md (schemas/features-linux.json says why).

load helpers

SPEC_SCHEMAS=/usr/share/gocode/src/github.com/opencontainers/runtime-spec/schema
VALIDATE="$BATS_TEST_DIRNAME/schemas/validate"

setup_file() {
	corral_setup_file
}

setup() {
	[ -r "$SPEC_SCHEMAS/state-schema.json" ] ||
		fail "$SPEC_SCHEMAS: the runtime-spec's schemas are missing (make deps)"
	python3 -c 'import jsonschema' 2>/dev/null ||
		fail "python3-jsonschema is missing (make deps)"
	corral_setup
}

teardown() {
	corral_teardown
}

# valid SCHEMA FILE|-: the document matches, or the test fails with the
# validator's errors.
valid() {
	run "$VALIDATE" "$@"
	[ "$status" -eq 0 ] || fail "not valid against ${1##*/}: $output"
}

@test "corral spec's config.json matches the config schema" {
	valid "$SPEC_SCHEMAS/config-schema.json" "$BUNDLE/config.json"
}

@test "the effective config.json matches the config schema, in both modes" {
	local policy
	for policy in "" "$REPO_ROOT/config-examples/policy/permissive.json"; do
		set_args sleep 100
		corral ${policy:+--policy "$policy"} create --bundle "$BUNDLE" "$ID" \
			</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/err" ||
			fail "create: $(cat "$BATS_TEST_TMPDIR/err")"
		valid "$SPEC_SCHEMAS/config-schema.json" "$ROOT/$ID/config.json"
		corral delete --force "$ID"
	done
}

@test "state matches the state schema when created, running and stopped" {
	set_args sh -c 'read x; exit 0'
	mkfifo "$BATS_TEST_TMPDIR/in"
	corral create --bundle "$BUNDLE" "$ID" <"$BATS_TEST_TMPDIR/in" \
		>/dev/null 2>&1 &
	track_pid $!
	exec 5>"$BATS_TEST_TMPDIR/in"
	wait_for_status "$ID" created
	corral state "$ID" >"$BATS_TEST_TMPDIR/created.json"
	valid "$SPEC_SCHEMAS/state-schema.json" "$BATS_TEST_TMPDIR/created.json"
	corral start "$ID"
	wait_for_status "$ID" running
	corral state "$ID" >"$BATS_TEST_TMPDIR/running.json"
	valid "$SPEC_SCHEMAS/state-schema.json" "$BATS_TEST_TMPDIR/running.json"
	echo done >&5
	exec 5>&-
	wait_for_status "$ID" stopped
	corral state "$ID" >"$BATS_TEST_TMPDIR/stopped.json"
	valid "$SPEC_SCHEMAS/state-schema.json" "$BATS_TEST_TMPDIR/stopped.json"
	# the fields the spec requires, with the values it describes
	jq -e --arg id "$ID" --arg b "$BUNDLE" '.id == $id and .bundle == $b
		and (.pid | type == "number")' "$BATS_TEST_TMPDIR/running.json"
}

@test "corral features matches the features schema" {
	corral features >"$BATS_TEST_TMPDIR/features.json"
	valid "$BATS_TEST_DIRNAME/schemas/features-linux.json" \
		"$BATS_TEST_TMPDIR/features.json"
	# what runc's features also say: the versions bracket corral spec's
	jq -e --arg v "$(jq -r .ociVersion "$BUNDLE/config.json")" \
		'.ociVersionMax == $v and (.hooks | length) == 6' \
		"$BATS_TEST_TMPDIR/features.json"
}

@test "the validator itself refuses a wrong document" {
	echo '{"ociVersion": "1.2.0", "id": "x", "status": "paused-ish",
		"bundle": "/b"}' >"$BATS_TEST_TMPDIR/bad.json"
	run "$VALIDATE" "$SPEC_SCHEMAS/state-schema.json" "$BATS_TEST_TMPDIR/bad.json"
	assert_failure 1
	assert_output --partial ".status:"
	echo '{"ociVersionMin": "1.0.0", "ociVersionMax": "1.2.0", "hookz": []}' |
		{ run "$VALIDATE" "$BATS_TEST_DIRNAME/schemas/features-linux.json"
		  assert_failure 1; }
}
