#!/usr/bin/env bats
# tests/demo (`make demo`): six attempts, each contained under the default
# policy, and honestly shown as leaked when the sandbox is off; the
# workspace of attempt 5 mounted under both, its files destroyed, the
# sentinel beside it kept.

load helpers

DEMO="$REPO_ROOT/tests/demo"

setup() {
	[ -x "$REPO_ROOT/corral" ] || fail "corral binary not found: run make"
	BEFORE="$(demo_leftovers)"
}

teardown() {
	local after
	after="$(demo_leftovers)"
	[ "$after" = "$BEFORE" ] || fail "the demo left behind: $after"
}

# What a run of the demo could leave: its work dirs (in the test's own
# TMPDIR, so that another demo running on the machine is not counted),
# the scratch file of attempt 1 on the host.
demo_leftovers() {
	ls -d "$BATS_TEST_TMPDIR"/tmp/corral-demo.* /tmp/scratch-*.txt \
		2>/dev/null || true
}

# demo [POLICY]: run tests/demo into $output; fd 3 (bats' own) closed so
# that nothing the demo starts can hold it.
demo() {
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	POLICY="${1:-}" TMPDIR="$BATS_TEST_TMPDIR/tmp" "$DEMO" 3>&-
}

# The table's rows: "attempt | outcome | why".
outcomes() {
	grep -E '^[^|]+ \| (ran|contained|leaked|skipped|failed) +\| ' <<<"$output"
}

@test "demo: six attempts, none leaked, exit 0" {
	run demo
	assert_success
	assert_line --regexp '^attempt +\| outcome +\| why'
	rows="$(outcomes)"
	assert_equal "$(wc -l <<<"$rows")" 8
	! grep -qE '\| (leaked|failed) ' <<<"$rows" || fail "leaked or failed rows: $rows"
	grep -qE '^fetch from the allowed index +\| ran ' <<<"$rows" || fail "$rows"
	grep -qE '^fetch from the other index +\| contained ' <<<"$rows" || fail "$rows"
	grep -qE '^write /tmp/scratch-[^ ]+\.txt +\| ran ' <<<"$rows" || fail "$rows"
	grep -qE '^read /etc/passwd +\| contained ' <<<"$rows" || fail "$rows"
	grep -qE '^send env to 127\.0\.0\.1:[0-9]+ +\| contained ' <<<"$rows" || fail "$rows"
	grep -qE '^while true \(--timeout 3\) +\| contained ' <<<"$rows" || fail "$rows"
	# the workspace was mounted and the command ran in it; beside it
	# nothing was touched
	grep -qE '^rm -rf / \(the workspace\) +\| (ran +\| ran, inside the mount|skipped)' <<<"$rows" || fail "$rows"
	grep -qE '^rm -rf / \(beside it\) +\| (contained|skipped) ' <<<"$rows" || fail "$rows"
	refute_output --partial sk-demo-not-a-real-key
	# corral's report of each attempt: the wall clock, the proxy's verdicts
	assert_line --regexp '^    report: wall clock, signal 9; '
	assert_line --regexp '^    report: .*; egress: 1 allowed, 0 denied$'
	assert_line --regexp '^    report: .*; egress: 0 allowed, 1 denied$'
	assert_line "nothing leaked"
}

@test "demo: with permissive.json the rows the sandbox contains leak (the host's /etc, the network, egress, the wall clock), exit non-zero" {
	run demo "$REPO_ROOT/config-examples/policy/permissive.json"
	assert_failure
	rows="$(outcomes)"
	assert_equal "$(wc -l <<<"$rows")" 8
	grep -qE '^read /etc/passwd +\| leaked ' <<<"$rows" ||
		fail "the host's /etc row did not leak: $rows"
	grep -qE '^fetch from the other index +\| leaked ' <<<"$rows" ||
		fail "the egress row did not leak: $rows"
	grep -qE '^send env to 127\.0\.0\.1:[0-9]+ +\| leaked .*DEMO_API_KEY included' <<<"$rows" ||
		fail "the network row did not leak: $rows"
	grep -qE '^while true \(--timeout 3\) +\| leaked ' <<<"$rows" ||
		fail "the wall-clock row did not leak: $rows"
	# what the sandbox lets through it lets through with it off too: the
	# write in its own root, the workspace; and what neither config nor
	# sandbox lends stays out of reach
	grep -qE '^write /tmp/scratch-[^ ]+\.txt +\| ran ' <<<"$rows" || fail "$rows"
	grep -qE '^rm -rf / \(the workspace\) +\| (ran|skipped) ' <<<"$rows" || fail "$rows"
	grep -qE '^rm -rf / \(beside it\) +\| (contained|skipped) ' <<<"$rows" || fail "$rows"
	! grep -q '| failed ' <<<"$rows" || fail "failed rows: $rows"
	# and the listener's catch is shown
	assert_line --partial "DEMO_API_KEY=sk-demo-not-a-real-key"
	assert_line --regexp '^[0-9]+ attempt\(s\) leaked'
}

@test "demo: a policy file that does not exist fails rather than running unsandboxed" {
	run demo "$BATS_TEST_TMPDIR/no-such-policy.json"
	assert_failure
	refute_line "nothing leaked"
}
