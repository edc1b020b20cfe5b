#!/usr/bin/env bats
# A hostile bundle against corral's egress proxy (issue 39, items 7-12):
# the attacker writes config.json (its network namespace path, its
# annotations) and the workload; the policy is the administrator's.  Every
# target is the test's own: listeners on the host's loopback or in network
# namespaces the test made, which record each connection they accept, so
# a leak is seen on the host, never off this machine.

# shellcheck disable=SC2016,SC2034,SC2154
# (jq programs and container scripts are single-quoted on purpose; output,
# stderr and status are set by bats' run)

load ../integration/helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	PORT=$((40000 + RANDOM % 10000))
	NETNSES=()
	LISTENERS=()
}

teardown() {
	local pid ns
	corral_teardown
	for pid in "${LISTENERS[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for ns in "${NETNSES[@]}"; do
		ip netns delete "$ns" 2>/dev/null ||
			echo "# ip netns delete $ns failed" >&3
	done
	return 0
}

# listen_record FILE [NETNS]: a TCP listener on 127.0.0.1:$PORT (in
# NETNS, else the host's), writing one line to FILE per connection it
# accepts; returns once it accepts (its own probe is not recorded).
listen_record() {
	local file="$1" ns="${2:-}" pfx=() pid
	[ -z "$ns" ] || pfx=(ip netns exec "$ns")
	"${pfx[@]}" python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
c, _ = s.accept(); c.close()
open(sys.argv[2], "w").close()
while True:
    c, a = s.accept()
    open(sys.argv[2], "a").write("accepted %r\n" % (a,))
    c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\nLEAKED\n"); c.close()' \
		"$PORT" "$file" </dev/null >/dev/null 2>&1 3>&- &
	pid=$!
	LISTENERS+=("$pid")
	for _ in $(seq 100); do
		[ -e "$file" ] && return 0
		"${pfx[@]}" timeout 1 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0"' \
			"$PORT" 2>/dev/null || true
		sleep 0.05
	done
	fail "the listener in ${ns:-the host namespace} did not start"
}

# make_netns NAME: a network namespace of the test's own, lo up.
make_netns() {
	ip netns add "$1" || fail "ip netns add $1"
	NETNSES+=("$1")
	ip -n "$1" link set lo up || fail "lo up in $1"
}

# with_netns_path PATH: config.json's network namespace is PATH.
with_netns_path() {
	update_config '.linux.namespaces |= map(if .type == "network" then
		{type: "network", path: $p} else . end)' --arg p "$1"
}

# fetch_through_proxy: the workload asks the proxy for the listener.
fetch_through_proxy() {
	set_args sh -c "wget -q -O- http://127.0.0.1:$PORT/ 2>&1; echo wget=\$?"
}

# assert_accepted_nothing FILE
assert_accepted_nothing() {
	sleep 0.3
	[ ! -s "$1" ] || fail "the listener accepted: $(cat "$1")"
}

@test "egress item 7: config.json naming another namespace to dial from (a test netns with a listener, another container's) is refused; the host's is corral's own" {
	local got="$BATS_TEST_TMPDIR/got" ns="corral-hegr-$BATS_TEST_NUMBER-$$" victim="victim-$$" vpid path
	printf '{"network": {"allow": ["127.0.0.1:%s"]}}\n' "$PORT" >"$POLICY"
	# a namespace of the test's own, a listener on its loopback
	make_netns "$ns"
	listen_record "$got" "$ns"
	# another container's namespace (loopback only), a listener in it
	cp -a "$BATS_FILE_TMPDIR/bundle" "$BATS_TEST_TMPDIR/victim"
	(BUNDLE="$BATS_TEST_TMPDIR/victim"
	 set_args sh -c "echo LEAKED-FROM-VICTIM | nc -l -p $PORT & sleep 100")
	corral run -d --bundle "$BATS_TEST_TMPDIR/victim" "$victim" </dev/null \
		>/dev/null 2>"$BATS_TEST_TMPDIR/victim.err" ||
		fail "victim: $(cat "$BATS_TEST_TMPDIR/victim.err")"
	vpid="$(container_pid "$victim")"
	fetch_through_proxy
	cp "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/config.orig"
	for path in "/run/netns/$ns" "/proc/$vpid/ns/net"; do
		cp "$BATS_TEST_TMPDIR/config.orig" "$BUNDLE/config.json"
		with_netns_path "$path"
		run --separate-stderr timeout 20 "$CORRAL" --root "$ROOT" \
			--policy "$POLICY" run --bundle "$BUNDLE" "$ID" 3>&-
		assert_error_line
		assert_equal "$stderr" "corral: create $ID: egress: the namespace to dial from $path: processes live in it (another container's, or one in use): corral's proxy dials only from a namespace the engine made for this container"
		[[ "$output" != *LEAKED* ]] || fail "$path: the workload reached a listener"
		assert_no_leftovers "$ID"
	done
	# the host's: corral's own is where the proxy dials from without a
	# path, so naming it changes nothing; PID 1's, when it is not
	# corral's own (or not corral's to open), is refused.  Neither
	# reaches the listeners of the other namespaces.
	for path in /proc/self/ns/net "/proc/$$/ns/net" /proc/1/ns/net; do
		cp "$BATS_TEST_TMPDIR/config.orig" "$BUNDLE/config.json"
		with_netns_path "$path"
		run --separate-stderr timeout 20 "$CORRAL" --root "$ROOT" \
			--policy "$POLICY" run --bundle "$BUNDLE" "$ID" 3>&-
		if [ "$status" -ne 0 ]; then
			[[ "$path" == /proc/1/* ]] || fail "$path: $stderr"
			assert_error_line
			[[ "$stderr" == *"from /proc/1/ns/net: it is the host's" ||
			   "$stderr" == *"from: /proc/1/ns/net: not a network namespace" ]] ||
				fail "$path: $stderr"
		fi
		[[ "$output" != *LEAKED* ]] || fail "$path: the workload reached a listener"
		assert_no_leftovers "$ID"
	done
	assert_accepted_nothing "$got"
	assert_equal "$(corral state "$victim" | jq -r .status)" running
	# a fresh namespace with no process in it (as CNI makes) is where the
	# proxy dials from: control
	cp "$BATS_TEST_TMPDIR/config.orig" "$BUNDLE/config.json"
	make_netns "$ns-fresh"
	with_netns_path "/run/netns/$ns-fresh"
	run timeout 20 "$CORRAL" --root "$ROOT" --policy "$POLICY" run \
		--bundle "$BUNDLE" "$ID" 3>&-
	assert_success
	assert_line "wget=1"
	corral delete --force "$victim"
}

@test "egress item 7: a FIFO, a socket, a device node, a regular file and a directory as the namespace to dial from are refused unopened" {
	local d="$BATS_TEST_TMPDIR/paths" path
	printf '{"network": {"allow": ["127.0.0.1:%s"]}}\n' "$PORT" >"$POLICY"
	mkdir -p "$d"
	mkfifo "$d/fifo"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/sock"
	mknod "$d/null" c 1 3
	echo text >"$d/file"
	mkdir "$d/dir"
	ln -s fifo "$d/link-to-fifo"
	fetch_through_proxy
	cp "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/config.orig"
	for path in "$d/fifo" "$d/sock" "$d/null" /dev/null "$d/file" "$d/dir" \
		"$d/link-to-fifo" "$d/missing" /proc/1/ns/pid; do
		cp "$BATS_TEST_TMPDIR/config.orig" "$BUNDLE/config.json"
		with_netns_path "$path"
		# a FIFO opened for reading would block create for good
		run --separate-stderr timeout 20 "$CORRAL" --root "$ROOT" \
			--policy "$POLICY" create --bundle "$BUNDLE" "$ID" 3>&-
		[ "$status" -ne 124 ] || fail "$path: create hung"
		assert_error_line
		assert_equal "$stderr" "corral: create $ID: egress: the namespace to dial from: $path: not a network namespace"
		assert_no_leftovers "$ID"
	done
	# the FIFO has no reader waiting on it: a writer that does not block
	# finds none (ENXIO)
	run timeout 5 python3 -c 'import os, sys
try:
    os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK); print("a reader")
except OSError as e: print(e.errno)' "$d/fifo"
	assert_output 6
}

@test "egress item 8: run.corral.egress under network \"config\" and \"loopback\" is refused; the host's 127.0.0.1 accepts nothing" {
	local got="$BATS_TEST_TMPDIR/got" policy path
	listen_record "$got"
	update_config '.annotations["run.corral.egress"] = $a' --arg a "127.0.0.1:$PORT"
	fetch_through_proxy
	cp "$BUNDLE/config.json" "$BATS_TEST_TMPDIR/config.orig"
	for policy in '{"network": "config"}' '{}' '{"network": "loopback"}'; do
		echo "$policy" >"$POLICY"
		for path in "" /proc/1/ns/net; do
			cp "$BATS_TEST_TMPDIR/config.orig" "$BUNDLE/config.json"
			if [ -n "$path" ]; then
				with_netns_path "$path"
			else
				update_config '.linux.namespaces |= map(select(.type != "network"))'
			fi
			run --separate-stderr corral --policy "$POLICY" explain --bundle "$BUNDLE"
			assert_error_line
			[[ "$stderr" == *"annotation run.corral.egress=127.0.0.1:$PORT: the policy's network is "*": an egress list would turn corral's proxy on, which only the policy's network.allow does" ]] ||
				fail "$policy $path: $stderr"
			run --separate-stderr timeout 20 "$CORRAL" --root "$ROOT" \
				--policy "$POLICY" run --bundle "$BUNDLE" "$ID" 3>&-
			assert_error_line
			[[ "$output" != *LEAKED* ]] || fail "$policy $path: reached the host's listener"
			assert_no_leftovers "$ID"
		done
	done
	assert_accepted_nothing "$got"
	# the host's listener does accept: control
	timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0"' "$PORT" || fail "the control connect"
	for _ in $(seq 20); do [ -s "$got" ] && break; sleep 0.1; done
	[ -s "$got" ] || fail "the listener heard nothing"
}

@test "egress item 11: a wildcard over a public suffix, a name with suffixes under it or an IP-echo service is refused at policy load and in the annotation" {
	local d rule
	for d in nip.io sslip.io xip.io traefik.me localtest.me lvh.me \
		run.app trycloudflare.com ngrok-free.app fly.dev \
		compute-1.amazonaws.com s3.us-east-1.amazonaws.com \
		githubusercontent.com duckdns.org amazonaws.com ngrok.io \
		herokuapp.com github.io co.uk com x.ck 10.0.0.1.nip.io; do
		for rule in "*.$d" "**.$d"; do
			printf '{"network": {"allow": ["%s"]}}\n' "$rule" >"$POLICY"
			run --separate-stderr corral --policy "$POLICY" explain --bundle "$BUNDLE"
			assert_error_line
			[[ "$stderr" == *"$rule: a wildcard over "* ]] || fail "$rule: $stderr"
			# the annotation is parsed by the same rule
			echo '{"network": {"allow": ["**.example.com"]}}' >"$POLICY"
			update_config '.annotations["run.corral.egress"] = $a' --arg a "$rule"
			run --separate-stderr corral --policy "$POLICY" create --bundle "$BUNDLE" "$ID"
			assert_error_line
			[[ "$stderr" == *"annotation run.corral.egress: $rule: a wildcard over "* ]] ||
				fail "annotation $rule: $stderr"
			assert_no_leftovers "$ID"
			update_config 'del(.annotations["run.corral.egress"])'
		done
	done
	# names a policy does wildcard, and an exception of the list: control
	for rule in "*.github.com" "**.pythonhosted.org" "*.www.ck" "*.someone.github.io"; do
		printf '{"network": {"allow": ["%s"]}}\n' "$rule" >"$POLICY"
		run corral --policy "$POLICY" explain --bundle "$BUNDLE"
		assert_success
	done
}

@test "egress item 10: 20,000 refused lookups do not hide a later allowed request: it is logged and counted, and the log says what it dropped" {
	local got="$BATS_TEST_TMPDIR/got" log
	[ -x "$REPO_ROOT/build/helpers/static/dnsflood" ] || fail "run make helpers"
	cp "$REPO_ROOT/build/helpers/static/dnsflood" "$ROOTFS/bin/dnsflood"
	ln -sf busybox "$ROOTFS/bin/wget"
	listen_record "$got"
	printf '{"network": {"allow": ["127.0.0.1:%s"]}}\n' "$PORT" >"$POLICY"
	# names of about 230 bytes: each refusal is a line of some 500 bytes
	set_args sh -c "dnsflood 127.0.0.1 20000 230; wget -q -O- http://127.0.0.1:$PORT/; echo wget=\$?"
	timeout 120 "$CORRAL" --root "$ROOT" --policy "$POLICY" run -d \
		--bundle "$BUNDLE" "$ID" </dev/null >"$BATS_TEST_TMPDIR/out" \
		2>"$BATS_TEST_TMPDIR/err" 3>&- || fail "run: $(cat "$BATS_TEST_TMPDIR/err")"
	wait_for_status "$ID" stopped 1200
	# the helper ends with the init, its last line written
	for _ in $(seq 50); do
		grep -q '"dropped":[1-9]' "$ROOT/$ID/egress.log" && break
		sleep 0.1
	done
	log="$ROOT/$ID/egress.log"
	[ -s "$got" ] || fail "the allowed request did not reach the listener"
	run grep -c "\"kind\":\"proxy\",\"method\":\"GET\",\"name\":\"127.0.0.1\",\"port\":$PORT,.*\"verdict\":\"allow\"" "$log"
	assert_output 1
	run grep -c '"kind":"dns","verdict":"deny","dropped":0,' "$log"
	assert_output 1
	run grep -E '"kind":"dns","verdict":"deny","dropped":[1-9][0-9]*,"reason":"[0-9]+ lines dropped' "$log"
	assert_success
	[ "$(stat -c %s "$log")" -le $((8 << 20)) ] || fail "the log grew past 8 MiB"
	run corral report --format json "$ID"
	assert_success
	run jq -r '.network.egress | "\(.allowed) \(.denied >= 20000) \(.dropped_lines > 10000)"' <<<"$output"
	assert_output "1 true true"
	run corral report "$ID"
	assert_line "  egress: 1 allowed, 20000 denied"
	assert_line --regexp '^  egress log: [0-9]+ lines dropped'
}

# resolver_start: a name server on an address of the host's loopback
# this run alone uses, answering NXDOMAIN at once and recording each
# question's name (RESOLVER_GOT); resolv.conf for it (RESOLVER_CONF).
resolver_start() {
	local pid
	RESOLVER_ADDR="127.54.$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))"
	RESOLVER_GOT="$BATS_TEST_TMPDIR/resolver.got"
	RESOLVER_CONF="$BATS_TEST_TMPDIR/resolv.conf"
	echo "nameserver $RESOLVER_ADDR" >"$RESOLVER_CONF"
	python3 -c 'import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind((sys.argv[1], 53))
open(sys.argv[2], "w").close()
while True:
    d, a = u.recvfrom(2000)
    i, n = 12, []
    while d[i]:
        n.append(d[i + 1:i + 1 + d[i]].decode()); i += 1 + d[i]
    open(sys.argv[2], "a").write(".".join(n) + "\n")
    u.sendto(d[:2] + bytes([0x81, 0x83]) + d[4:6] + b"\0\0\0\0\0\0" + d[12:i + 5], a)' \
		"$RESOLVER_ADDR" "$RESOLVER_GOT" </dev/null >/dev/null 2>&1 3>&- &
	pid=$!
	LISTENERS+=("$pid")
	for _ in $(seq 50); do [ -e "$RESOLVER_GOT" ] && return 0; sleep 0.1; done
	fail "the test's resolver did not start"
}

@test "egress item 9: names a workload makes up under a wildcard reach the resolver at most 10 a second (burst 20), a name asked again not at all" {
	resolver_start
	ln -sf busybox "$ROOTFS/bin/wget"
	ln -sf busybox "$ROOTFS/bin/date"
	ln -sf busybox "$ROOTFS/bin/seq"
	echo '{"network": {"allow": ["*.allowed.test"]}}' >"$POLICY"
	set_args sh -c 'start=$(date +%s)
		for i in $(seq 100); do wget -q -O /dev/null http://n$i.allowed.test/ 2>/dev/null; done
		for i in $(seq 10); do wget -q -O /dev/null http://same.allowed.test/ 2>/dev/null; done
		echo elapsed=$(( $(date +%s) - start ))'
	run --separate-stderr timeout 300 unshare -m sh -c \
		'mount --bind "$0" /etc/resolv.conf && exec "$@"' \
		"$RESOLVER_CONF" "$CORRAL" --root "$ROOT" --policy "$POLICY" \
		run --report "$BATS_TEST_TMPDIR/report.json" --bundle "$BUNDLE" "$ID" 3>&-
	assert_success
	local elapsed names same
	elapsed="$(sed -n 's/^elapsed=//p' <<<"$output")"
	[ -n "$elapsed" ] || fail "no elapsed time: $output"
	names="$(grep -c '^n[0-9]*\.allowed\.test$' "$RESOLVER_GOT" || true)"
	names="$(grep '^n[0-9]*\.allowed\.test$' "$RESOLVER_GOT" | sort -u | wc -l)"
	# the bucket: 20 at once, then 10 a second (a second of slack)
	[ "$names" -le $((20 + 10 * (elapsed + 1))) ] ||
		fail "$names made-up names reached the resolver in ${elapsed}s"
	[ "$names" -lt 100 ] || fail "every made-up name reached the resolver"
	same="$(grep -c '^same\.allowed\.test$' "$RESOLVER_GOT" || true)"
	[ "$same" -le 2 ] || fail "a name asked 10 times was looked up $same times (A and AAAA once)"
	run jq -r '.network.egress | "\(.rate_refused > 0) \(.lookups == '"$names"' + ('"$same"' > 0 | if . then 1 else 0 end))"' \
		"$BATS_TEST_TMPDIR/report.json"
	assert_output "true true"
}

# grandchildren PID: the pids of the children of PID's children.
grandchildren() {
	local b
	for b in $(pgrep -P "$1"); do pgrep -P "$b"; done
}

@test "egress item 12: each connection's reader is its own exec'd program, under its own filter, with its own address layout" {
	local helper p1 p2 pids=() p
	printf '{"network": {"allow": ["127.0.0.1:%s"]}}\n' "$PORT" >"$POLICY"
	# two connections to the proxy that send nothing: each waits in its
	# reader for a request head
	set_args sh -c 'sleep 30 | nc 127.0.0.1 3128 & sleep 30 | nc 127.0.0.1 3128 & sleep 30'
	corral --policy "$POLICY" run -d --bundle "$BUNDLE" "$ID" </dev/null \
		>/dev/null 2>"$BATS_TEST_TMPDIR/err" || fail "run: $(cat "$BATS_TEST_TMPDIR/err")"
	helper="$(cat "$ROOT/$ID/egress.pid")"
	for _ in $(seq 100); do
		mapfile -t pids < <(grandchildren "$helper")
		[ "${#pids[@]}" -ge 2 ] && break
		sleep 0.05
	done
	[ "${#pids[@]}" -eq 2 ] || fail "expected two connections' processes, found: ${pids[*]}"
	p1="${pids[0]}" p2="${pids[1]}"
	# the helper has one filter of its own; a reader has the helper's
	# and its own (egress/main.c loads it before it reads a byte)
	assert_equal "$(awk '/^Seccomp_filters:/ { print $2 }' "/proc/$helper/status")" 1
	for p in "$p1" "$p2"; do
		run readlink "/proc/$p/exe"
		assert_output --partial "memfd:corral-egress-conn"
		assert_equal "$(awk '/^Seccomp_filters:/ { print $2 }' "/proc/$p/status")" 2
		assert_equal "$(awk '/^Seccomp:/ { print $2 }' "/proc/$p/status")" 2
		assert_equal "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$p/status")" 1
		assert_equal "$(awk '/^Uid:/ { print $2 }' "/proc/$p/status")" 65534
		# not dumpable: the kernel gives its /proc files to root
		assert_equal "$(stat -c %u "/proc/$p/maps")" 0
		# nothing but /dev/null on 0-2 and its three descriptors
		# (client, broker, the init's pidfd): no listener, no log, no
		# image
		run ls "/proc/$p/fd"
		assert_output "$(printf '0\n1\n2\n3\n4\n5')"
		for fd in 0 1 2; do
			assert_equal "$(readlink "/proc/$p/fd/$fd")" /dev/null
		done
	done
	# exec'd, not forked: the two readers' images and stacks lie at
	# addresses of their own, and neither at the helper's
	local m1 m2 mh
	m1="$(grep -m1 -E 'corral-egress-conn' "/proc/$p1/maps" | cut -d- -f1)"
	m2="$(grep -m1 -E 'corral-egress-conn' "/proc/$p2/maps" | cut -d- -f1)"
	[ -n "$m1" ] && [ -n "$m2" ] || fail "no image mapping: $(cat "/proc/$p1/maps")"
	[ "$m1" != "$m2" ] || fail "both readers' images at $m1"
	m1="$(grep -m1 '\[stack\]' "/proc/$p1/maps" | cut -d- -f1)"
	m2="$(grep -m1 '\[stack\]' "/proc/$p2/maps" | cut -d- -f1)"
	mh="$(grep -m1 '\[stack\]' "/proc/$helper/maps" | cut -d- -f1)"
	[ "$m1" != "$m2" ] && [ "$m1" != "$mh" ] && [ "$m2" != "$mh" ] ||
		fail "stacks: $m1 $m2, the helper's $mh"
	corral delete --force "$ID"
}
