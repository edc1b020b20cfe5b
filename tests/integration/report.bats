#!/usr/bin/env bats
# `corral report`: what a container's code tried (outcome, limits hit,
# files changed), while it runs, after it stops, and kept at delete with
# `run --report FILE`; hostile names in the scratch overlay.

load helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	# the workload (uid 65534) may write the image's / and /etc, which
	# land in the scratch overlay; the bundle itself stays untouched
	chmod 0777 "$ROOTFS" "$ROOTFS/etc"
	echo image >"$ROOTFS/etc/victim"
	update_config '.root.readonly = false'
	for applet in dd seq mkdir ln rm; do
		ln -sf busybox "$ROOTFS/bin/$applet"
	done
}

teardown() {
	corral_teardown
	if grep -F -- "$ROOT/" /proc/self/mountinfo; then
		fail "a scratch mount under $ROOT is left"
	fi
}

# run_reported ID: run -d (stdio to files, as run_detached) under a policy
# that asks for reports (report.dir): only then is the scratch kept for
# the files changed.
run_reported() {
	mkdir -p "$BATS_TEST_TMPDIR/reports"
	printf '{"report": {"dir": "%s"}}\n' "$BATS_TEST_TMPDIR/reports" \
		>"$BATS_TEST_TMPDIR/reported.json"
	corral --policy "$BATS_TEST_TMPDIR/reported.json" run -d \
		--bundle "$BUNDLE" "$1" </dev/null >>"$BATS_TEST_TMPDIR/$1.out" \
		2>>"$BATS_TEST_TMPDIR/$1.err"
}

# report_json ID EXPR: evaluate the Python expression EXPR on `corral
# report --format json ID` parsed as r (which must be valid JSON).
report_py() {
	corral report --format json "$1" >"$BATS_TEST_TMPDIR/r.json" ||
		fail "report --format json $1 failed"
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$BATS_TEST_TMPDIR/r.json" "$2"
}

@test "one of each event: scratch write, image delete, OOM kill, forks refused, wall clock" {
	update_config '.annotations["run.corral.timeout"] = "3"
		| .linux.resources.memory.limit = 33554432
		| .linux.resources.memory.swap = 33554432
		| .linux.resources.pids.limit = 8'
	set_args sh -c 'echo hello >/made-here; rm /etc/victim
		dd if=/dev/zero of=/dev/null bs=64M count=1
		sh -c "for i in \$(seq 12); do sleep 30 & done"; exec sleep 100'
	run_reported "$ID"
	wait_for_status "$ID" stopped 100
	run report_py "$ID" 'r["outcome"]["reason"], r["outcome"]["signal"], r["limits"]["wall_clock_fired"]'
	assert_output "('wall clock', 9, True)"
	run report_py "$ID" 'r["limits"]["oom_kills"], r["limits"]["forks_refused"] > 0, r["limits"]["cpu_throttled_periods"]'
	assert_output "(1, True, 0)"
	run report_py "$ID" 'sorted((c["change"], c["path"], c["size"]) for c in r["files"]["changes"])'
	assert_output "[('created', '/made-here', 6), ('deleted', '/etc/victim', 0)]"
	run report_py "$ID" 'r["syscalls_refused"]["total"], r["syscalls_refused"]["calls"], r["network"]["egress"], r["outcome"]["run_time_ns"] > 2.5e9'
	assert_output "(0, [], None, True)"
	run --separate-stderr corral report "$ID"
	assert_success
	assert_line "  reason:            wall clock"
	assert_line "  status:            killed by signal 9"
	assert_line "  oom kills:         1"
	assert_line --regexp '^  forks refused:     [1-9][0-9]* \(at pids.max\)$'
	assert_line "  wall clock:        fired (limit 3 s)"
	assert_line --regexp '^  scratch:           scratch at [0-9]+ of 67108864 bytes$'
	assert_line --regexp '^  created +6  /made-here$'
	assert_line --regexp '^  deleted +0  /etc/victim$'
	assert_line "  0 refused (EPERM)"
	[ "$(cat "$ROOTFS/etc/victim")" = image ] || fail "the image was written"
	run corral delete "$ID"
	assert_success
	assert_no_leftovers "$ID"
}

@test "a plain exit: status, reason, nothing changed; running says so" {
	set_args sh -c 'read x; exit 3'
	mkfifo "$BATS_TEST_TMPDIR/in"
	mkdir -p "$BATS_TEST_TMPDIR/reports"
	printf '{"report": {"dir": "%s"}}\n' "$BATS_TEST_TMPDIR/reports" \
		>"$BATS_TEST_TMPDIR/reported.json"
	corral --policy "$BATS_TEST_TMPDIR/reported.json" run -d \
		--bundle "$BUNDLE" "$ID" <"$BATS_TEST_TMPDIR/in" >/dev/null 2>&1 &
	track_pid $!
	exec 5>"$BATS_TEST_TMPDIR/in"
	wait_for_status "$ID" running 100
	run report_py "$ID" 'r["status"], r["outcome"]["reason"], r["outcome"]["exit_code"]'
	assert_output "('running', 'running', None)"
	exec 5>&-
	wait_for_status "$ID" stopped 100
	run report_py "$ID" 'r["outcome"]["reason"], r["outcome"]["exit_code"], r["files"]["total"], r["limits"]["oom_kills"]'
	assert_output "('workload exit', 3, 0, 0)"
}

@test "corral kill is the reason when its signal ended the workload" {
	set_args sleep 100
	run_detached "$ID"
	wait_for_status "$ID" running 100
	corral kill "$ID" TERM
	wait_for_status "$ID" stopped 100
	run report_py "$ID" 'r["outcome"]["reason"], r["outcome"]["signal"]'
	assert_output "('corral kill', 15)"
}

@test "run --report FILE writes the JSON report at delete, 0600, never through a link" {
	set_args sh -c 'echo abc >/out; exit 4'
	run corral run --report "$BATS_TEST_TMPDIR/rep.json" --bundle "$BUNDLE" "$ID" </dev/null
	assert_failure 4
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/rep.json")" = 600 ]
	run python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["status"], r["outcome"]["exit_code"], [c["path"] for c in r["files"]["changes"]])' "$BATS_TEST_TMPDIR/rep.json"
	assert_output "stopped 4 ['/out']"
	assert_no_leftovers "$ID"
	# a link planted at the name is not followed, nor a file overwritten
	echo keep >"$BATS_TEST_TMPDIR/target"
	ln -s "$BATS_TEST_TMPDIR/target" "$BATS_TEST_TMPDIR/link.json"
	run --separate-stderr corral run --report "$BATS_TEST_TMPDIR/link.json" --bundle "$BUNDLE" "$ID-2" </dev/null
	assert_failure
	[[ "$stderr" == *"link.json"* ]] || fail "stderr: $stderr"
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = keep ]
	assert_no_leftovers "$ID-2"
	run --separate-stderr corral run -d --report "$BATS_TEST_TMPDIR/x.json" --bundle "$BUNDLE" "$ID-3" </dev/null
	assert_error_line
	[ ! -e "$BATS_TEST_TMPDIR/x.json" ]
}

@test "sandbox --report FILE: the sandbox's files and exit in the report" {
	run --separate-stderr corral sandbox --timeout 20 \
		--report "$BATS_TEST_TMPDIR/sb.json" -- sh -c 'echo data >/tmp/f; exit 5' </dev/null
	assert_failure 5
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/sb.json")" = 600 ]
	run python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["outcome"]["reason"], r["outcome"]["exit_code"], r["limits"]["wall_clock_limit_s"])' "$BATS_TEST_TMPDIR/sb.json"
	assert_output "workload exit 5 20"
	[ -z "$(ls -A "$ROOT" 2>/dev/null | grep -v '^\.seccomp$' || true)" ]
}

@test "policy report.dir: create-start-delete as an engine calls it leaves DIR/ID.json" {
	mkdir "$BATS_TEST_TMPDIR/reports"
	printf '{"report": {"dir": "%s"}}\n' "$BATS_TEST_TMPDIR/reports" >"$BATS_TEST_TMPDIR/policy.json"
	set_args sh -c 'echo z >/z; exit 2'
	corral --policy "$BATS_TEST_TMPDIR/policy.json" create --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>&1
	corral start "$ID"
	wait_for_status "$ID" stopped 100
	corral delete "$ID"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/reports/$ID.json")" = 600 ]
	run python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["id"], r["outcome"]["exit_code"], [c["path"] for c in r["files"]["changes"]])' "$BATS_TEST_TMPDIR/reports/$ID.json"
	assert_output "$ID 2 ['/z']"
	assert_no_leftovers "$ID"
	# a report directory that is a link is refused, the delete still done
	ln -s "$BATS_TEST_TMPDIR/reports" "$BATS_TEST_TMPDIR/rlink"
	printf '{"report": {"dir": "%s"}}\n' "$BATS_TEST_TMPDIR/rlink" >"$BATS_TEST_TMPDIR/policy.json"
	corral --policy "$BATS_TEST_TMPDIR/policy.json" create --bundle "$BUNDLE" "$ID-2" \
		</dev/null >/dev/null 2>&1
	run --separate-stderr corral delete "$ID-2"
	assert_success
	[[ "$stderr" == *"rlink"* ]] || fail "no warning: $stderr"
	[ ! -e "$BATS_TEST_TMPDIR/reports/$ID-2.json" ]
	assert_no_leftovers "$ID-2"
	# a relative directory is refused at create
	echo '{"report": {"dir": "reports"}}' >"$BATS_TEST_TMPDIR/policy.json"
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/policy.json" create --bundle "$BUNDLE" "$ID-3"
	assert_error_line
	[[ "$stderr" == *"report.dir"* ]] || fail "stderr: $stderr"
}

@test "hostile names in the upper layer: escaped, links not followed, deep trees bounded" {
	echo host-secret >"$BATS_TEST_TMPDIR/secret"
	set_args sh -c '
		printf a >"/new
line"; printf bb >"/q\"uote'"'"'s\\back"
		ln -s "$1" /planted; mkdir /deep; cd /deep
		for i in $(seq 80); do mkdir d; cd d; done; echo x >leaf' \
		sh "$BATS_TEST_TMPDIR/secret"
	run_reported "$ID"
	wait_for_status "$ID" stopped 100
	run report_py "$ID" '[c["path"] for c in r["files"]["changes"] if c["size"] in (1, 2)]'
	assert_output "['/q\\\\x22uote\\\\x27s\\\\\\\\back', '/new\\\\x0aline']"
	run report_py "$ID" '[(c["change"], c["size"]) for c in r["files"]["changes"] if c["path"] == "/planted"], r["files"]["truncated"]'
	assert_output "([('created', $(printf %s "$BATS_TEST_TMPDIR/secret" | wc -c))], True)"
	run corral report "$ID"
	assert_success
	assert_line --regexp '^  created +1  /new\\x0aline$'
	refute_output --partial host-secret
	[ "$(cat "$BATS_TEST_TMPDIR/secret")" = host-secret ]
	# the host's view of the scratch is read-only
	run touch "$ROOT/$ID/scratch/upper/x"
	assert_failure
}

@test "an egress log in the state directory is counted" {
	set_args true
	run_detached "$ID"
	wait_for_status "$ID" stopped 100
	printf '%s\n' '{"verdict":"allow","name":"pypi.org","port":443,"reason":"rule pypi.org"}' \
		'{"verdict":"deny","name":"evil.example","port":80,"reason":"no rule"}' \
		>"$ROOT/$ID/egress.log"
	run report_py "$ID" 'r["network"]["egress"]'
	assert_output "{'allowed': 1, 'denied': 1, 'unreadable_lines': 0, 'denied_names': ['evil.example:80 (no rule)']}"
	run corral report "$ID"
	assert_line "  egress: 1 allowed, 1 denied"
	assert_line "  connects inside the loopback-only namespace are not visible to corral"
}

@test "report: bad usage is one error line" {
	run --separate-stderr corral report nosuch
	assert_error_line
	run --separate-stderr corral report --format xml "$ID"
	assert_error_line
}

@test "without a report asked for, the files changed are not recorded and the report says why" {
	set_args sh -c 'echo hello >/made-here'
	run_detached "$ID"
	wait_for_status "$ID" stopped 100
	run report_py "$ID" 'r["files"]'
	assert_output None
	run corral report "$ID"
	assert_output --partial "unknown: not recorded: the scratch is kept for the report only when one was asked for"
	[ ! -e "$ROOT/$ID/scratch" ]
}
