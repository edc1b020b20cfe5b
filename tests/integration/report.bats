#!/usr/bin/env bats
# `corral report`: what a container's code tried (outcome, limits hit,
# files changed), while it runs, after it stops, and kept at delete with
# `run --report FILE`; hostile names in the scratch overlay.

load helpers

setup_file() {
	corral_setup_file
}

SYSPROBE="${SYSPROBE:-$REPO_ROOT/build/helpers/static/sysprobe}"

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
# the files changed.  $POLICY_MORE, when set, adds keys to that policy
# (`"mounts": [...], `).
run_reported() {
	mkdir -p "$BATS_TEST_TMPDIR/reports"
	printf '{%s"report": {"dir": "%s"}}\n' "${POLICY_MORE:-}" \
		"$BATS_TEST_TMPDIR/reports" >"$BATS_TEST_TMPDIR/reported.json"
	corral_bounded 60 --policy "$BATS_TEST_TMPDIR/reported.json" run -d \
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

@test "one of each event: denied calls, scratch write, image delete, rw bind, OOM kill, forks refused, wall clock" {
	[ -x "$SYSPROBE" ] || fail "$SYSPROBE not found: run make helpers"
	cp "$SYSPROBE" "$ROOTFS/bin/sysprobe"
	# a host directory the policy lends read-write, with a file the
	# workload appends to and one it leaves alone (written before the run)
	mkdir -m 0777 "$BATS_TEST_TMPDIR/shared"
	echo old >"$BATS_TEST_TMPDIR/shared/appended"
	echo old >"$BATS_TEST_TMPDIR/shared/untouched"
	chmod 0666 "$BATS_TEST_TMPDIR/shared/appended"
	touch -d '1 hour ago' "$BATS_TEST_TMPDIR/shared/"*
	POLICY_MORE="\"mounts\": [{\"source\": \"$BATS_TEST_TMPDIR/shared\", \"rw\": true}], "
	update_config '.annotations["run.corral.timeout"] = "3"
		| .linux.resources.memory.limit = 33554432
		| .linux.resources.memory.swap = 33554432
		| .linux.resources.pids.limit = 8
		| .mounts += [{"destination": "/shared", "type": "bind",
			"source": $src, "options": ["rbind", "rw"]}]' \
		--arg src "$BATS_TEST_TMPDIR/shared"
	set_args sh -c 'echo hello >/made-here; rm /etc/victim
		/bin/sysprobe mount bpf keyctl ptrace_attach unshare
		echo more >>/shared/appended; echo new >/shared/made
		dd if=/dev/zero of=/dev/null bs=64M count=1
		sh -c "for i in \$(seq 12); do sleep 30 & done"; exec sleep 100'
	run_reported "$ID"
	wait_for_status "$ID" stopped 100
	run report_py "$ID" 'r["outcome"]["reason"], r["outcome"]["signal"], r["limits"]["wall_clock_fired"]'
	assert_output "('wall clock', 9, True)"
	run report_py "$ID" 'r["limits"]["oom_kills"], r["limits"]["forks_refused"] > 0, r["limits"]["cpu_throttled_periods"], r["limits"]["scratch_full"]'
	assert_output "(1, True, 0, False)"
	run report_py "$ID" 'sorted((c["change"], c["path"], c["size"], c["where"]) for c in r["files"]["changes"])'
	assert_output "[('created', '/made-here', 6, 'scratch'), ('created', '/shared/made', 4, 'rw bind'), ('deleted', '/etc/victim', 0, 'scratch'), ('modified', '/shared/appended', 9, 'rw bind')]"
	run report_py "$ID" 'r["files"]["rw_binds"]["binds"]'
	assert_output "[{'path': '/shared', 'read': True, 'why': None}]"
	run report_py "$ID" 'sorted((c["name"], c["count"]) for c in r["syscalls_refused"]["calls"]), r["syscalls_refused"]["total"]'
	assert_output "([('bpf', 1), ('keyctl', 1), ('mount', 1), ('ptrace', 1), ('unshare', 1)], 5)"
	run report_py "$ID" 'r["network"]["egress"], r["outcome"]["run_time_ns"] > 2.5e9'
	assert_output "(None, True)"
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
	assert_line --regexp '^  modified +9  /shared/appended  \(rw bind, by time\)$'
	assert_line --regexp '^  created +4  /shared/made  \(rw bind, by time\)$'
	assert_line "  rw bind /shared: by file times within the run, approximate: another writer's files then are listed, deletions are not seen"
	assert_line "  5 refused (EPERM)"
	refute_output --partial untouched
	[ "$(cat "$ROOTFS/etc/victim")" = image ] || fail "the image was written"
	run corral delete "$ID"
	assert_success
	assert_no_leftovers "$ID"
}

@test "hard links: a 30 MiB file and 2000 links are 31457280 bytes in one file, listed once; the same in a rw bind" {
	mkdir -m 0777 "$BATS_TEST_TMPDIR/shared"
	POLICY_MORE="\"mounts\": [{\"source\": \"$BATS_TEST_TMPDIR/shared\", \"rw\": true}], "
	update_config '.mounts += [{"destination": "/shared", "type": "bind",
		"source": $src, "options": ["rbind", "rw"]}]' \
		--arg src "$BATS_TEST_TMPDIR/shared"
	# 30 MiB, 2000 more names for it, and 101 small files that would
	# have been pushed out of the list of 100 by the links; in the bind a
	# 1 MiB file with 50 more names
	set_args sh -c 'dd if=/dev/zero of=/big bs=1048576 count=30 2>/dev/null
		mkdir /links; for i in $(seq 2000); do ln /big /links/$i; done
		mkdir /small; for i in $(seq 101); do echo $i >/small/$i; done
		dd if=/dev/zero of=/shared/b bs=1048576 count=1 2>/dev/null
		for i in $(seq 50); do ln /shared/b /shared/l$i; done'
	run_reported "$ID"
	wait_for_status "$ID" stopped 600
	run report_py "$ID" 'r["outcome"]["exit_code"], r["files"]["bytes"], r["files"]["total"], r["files"]["more_names"]'
	# the files: /big, /links/ and /small/ (made), the 101 small ones;
	# in the bind /shared/b; bytes: 30 MiB, 1 MiB and the small ones'
	small="$(seq 101 | wc -c)"
	assert_output "(0, $((31457280 + 1048576 + small)), 105, 2050)"
	# the list: the two inodes first, each named once with its other
	# names counted, then the small files that fit
	run report_py "$ID" '[(c["size"], c["more_names"], c["where"]) for c in r["files"]["changes"][:2]], len(r["files"]["changes"]), sum(c["path"].startswith("/links/") or c["path"] == "/big" for c in r["files"]["changes"]), r["files"]["not_listed"]'
	assert_output "([(31457280, 2000, 'scratch'), (1048576, 50, 'rw bind')], 100, 1, 5)"
	run --separate-stderr corral report "$ID"
	assert_success
	assert_line --regexp '^  created +31457280  /(big|links/[0-9]+)  \(and 2000 more names\)$'
	assert_line --regexp '^  created +1048576  /shared/(b|l[0-9]+)  \(rw bind, by time\)  \(and 50 more names\)$'
	assert_line "  and 5 more"
}

@test "a plain exit: status, reason, nothing changed; running says so" {
	set_args sh -c 'read x; exit 3'
	mkfifo "$BATS_TEST_TMPDIR/in"
	mkdir -p "$BATS_TEST_TMPDIR/reports"
	printf '{"report": {"dir": "%s"}}\n' "$BATS_TEST_TMPDIR/reports" \
		>"$BATS_TEST_TMPDIR/reported.json"
	corral_bounded 60 --policy "$BATS_TEST_TMPDIR/reported.json" run -d \
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
	run corral_bounded 60 run --report "$BATS_TEST_TMPDIR/rep.json" --bundle "$BUNDLE" "$ID" </dev/null
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
	run --separate-stderr corral_bounded 60 run --report "$BATS_TEST_TMPDIR/link.json" --bundle "$BUNDLE" "$ID-2" </dev/null
	assert_failure
	[[ "$stderr" == *"link.json"* ]] || fail "stderr: $stderr"
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = keep ]
	assert_no_leftovers "$ID-2"
	run --separate-stderr corral_bounded 60 run -d --report "$BATS_TEST_TMPDIR/x.json" --bundle "$BUNDLE" "$ID-3" </dev/null
	assert_error_line
	[ ! -e "$BATS_TEST_TMPDIR/x.json" ]
}

@test "sandbox --report FILE: the sandbox's files and exit in the report" {
	run --separate-stderr corral_bounded 60 sandbox --timeout 20 \
		--report "$BATS_TEST_TMPDIR/sb.json" -- sh -c 'echo data >/tmp/f; exit 5' </dev/null
	assert_failure 5
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/sb.json")" = 600 ]
	run python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["outcome"]["reason"], r["outcome"]["exit_code"], r["limits"]["wall_clock_limit_s"])
print([(c["change"], c["path"]) for c in r["files"]["changes"]])' "$BATS_TEST_TMPDIR/sb.json"
	# /tmp is the scratch's (no tmpfs of its own), and the mount points
	# corral made in the synthetic root (/dev, /proc, /sys, /usr) are
	# not the workload's changes
	assert_output "workload exit 5 20
[('created', '/tmp/f')]"
	[ -z "$(ls -A "$ROOT" 2>/dev/null | grep -v '^\.seccomp$' || true)" ]
}

@test "the mount points corral made are not listed; the workload's first write is" {
	# mount points the image lacks, made in the upper layer before READY
	rmdir "$ROOTFS/proc" "$ROOTFS/sys"
	update_config '.mounts += [{"destination": "/mnt/new/deep", "type": "tmpfs",
		"source": "tmpfs", "options": ["size=1m"]}]'
	# the first thing the workload does, in the tick READY was in
	set_args sh -c 'echo 1 >/first; mkdir /mnt/mine; echo 2 >/mnt/mine/f
		echo 3 >/mnt/new/deep/in-tmpfs; exit 0'
	chmod 0777 "$ROOTFS"
	run_reported "$ID"
	wait_for_status "$ID" stopped 100
	run report_py "$ID" 'sorted((c["change"], c["path"]) for c in r["files"]["changes"])'
	# /mnt (made by corral for the tmpfs) is not listed, what the
	# workload made in it is; the tmpfs's own file is not in the scratch
	assert_output "[('created', '/first'), ('created', '/mnt/mine'), ('created', '/mnt/mine/f')]" ||
		cat "$ROOT/$ID/scratch.ready"
	[ -s "$ROOT/$ID/scratch.ready" ] || fail "no READY record"
}

@test "a damaged READY record hides nothing" {
	rmdir "$ROOTFS/proc"
	set_args sh -c 'echo 1 >/first'
	chmod 0777 "$ROOTFS"
	run_reported "$ID"
	wait_for_status "$ID" stopped 100
	run report_py "$ID" 'sorted(c["path"] for c in r["files"]["changes"])'
	assert_output "['/first']"
	# a record that names every entry with other times, or is garbage,
	# lists corral's own mount point too rather than hiding anything
	sed -i 's/^\([0-9]*\) [df] .*/\1 f 0 0 0 0 0 \/first/' "$ROOT/$ID/scratch.ready"
	printf 'junk\n\0\n' >>"$ROOT/$ID/scratch.ready"
	run report_py "$ID" 'sorted(c["path"] for c in r["files"]["changes"])'
	assert_output "['/first', '/proc']"
}

@test "policy report.dir: create-start-delete as an engine calls it leaves DIR/ID.json" {
	mkdir "$BATS_TEST_TMPDIR/reports"
	printf '{"report": {"dir": "%s"}}\n' "$BATS_TEST_TMPDIR/reports" >"$BATS_TEST_TMPDIR/policy.json"
	set_args sh -c 'echo z >/z; exit 2'
	corral_bounded 60 --policy "$BATS_TEST_TMPDIR/policy.json" create --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>&1
	corral_bounded 60 start "$ID"
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
	corral_bounded 60 --policy "$BATS_TEST_TMPDIR/policy.json" create --bundle "$BUNDLE" "$ID-2" \
		</dev/null >/dev/null 2>&1
	run --separate-stderr corral delete "$ID-2"
	assert_success
	[[ "$stderr" == *"rlink"* ]] || fail "no warning: $stderr"
	[ ! -e "$BATS_TEST_TMPDIR/reports/$ID-2.json" ]
	assert_no_leftovers "$ID-2"
	# a relative directory is refused at create
	echo '{"report": {"dir": "reports"}}' >"$BATS_TEST_TMPDIR/policy.json"
	run_files corral --policy "$BATS_TEST_TMPDIR/policy.json" create --bundle "$BUNDLE" "$ID-3"
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

@test "the egress counts are the helper's counters, the denied names the log's" {
	set_args true
	run_detached "$ID"
	wait_for_status "$ID" stopped 100
	printf '%s\n' '{"verdict":"allow","name":"pypi.org","port":443,"reason":"rule pypi.org"}' \
		'{"verdict":"deny","name":"evil.example","port":80,"reason":"no rule"}' \
		'{"kind":"dns","verdict":"deny","dropped":40,"reason":"40 lines dropped"}' \
		>"$ROOT/$ID/egress.log"
	# struct egress_counts (spec/egress/egress_counts.h): proxy 5 allowed, 2
	# denied; dns 41 denied, 40 of them dropped from the log; 3 lookups,
	# 1 from the cache, 4 refused for rate
	python3 -c 'import struct, sys
d = [5, 2, 0, 0, 0, 41]; logged = [0] * 6; dropped = [0, 0, 0, 0, 0, 40]
open(sys.argv[1], "wb").write(struct.pack("<II", 0x31435245, 8 + 21 * 8) +
    struct.pack("<21Q", *(d + logged + dropped + [3, 1, 4])))' "$ROOT/$ID/egress.counts"
	run report_py "$ID" 'r["network"]["egress"]'
	assert_output "{'allowed': 5, 'denied': 43, 'unreadable_lines': 0, 'dropped_lines': 40, 'lookups': 3, 'cache_hits': 1, 'rate_refused': 4, 'denied_names': ['evil.example:80 (no rule)']}"
	run corral report "$ID"
	assert_line "  egress: 5 allowed, 43 denied"
	assert_line "  egress log: 40 lines dropped (a kind's share of the log spent; counted above)"
	assert_line "  resolver: 3 names looked up, 1 from the cache, 4 refused for rate"
	assert_line "  connects inside the loopback-only namespace are not visible to corral"
	# a log alone counts nothing
	rm "$ROOT/$ID/egress.counts"
	run corral report "$ID"
	assert_line "  egress: no egress proxy log"
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
