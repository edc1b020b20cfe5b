#!/usr/bin/env bats
# network: {"allow": [...]}: corral's egress proxy reaches the named hosts
# and nothing else.  The upstreams are the test's own, on the host's
# loopback (an HTTP server and an HTTPS one with a certificate made here);
# names resolve through a hosts file bound over /etc/hosts in a private
# mount namespace that corral runs in; every request stays on this
# machine.  Reaching 127.0.0.1 from a name needs an address rule naming
# it: that is the refused-range rule the tests rely on.

load helpers
load upstreams

# tcp_open ADDR PORT: something listens there (bash's /dev/tcp); the
# timeout is a loaded machine's, a refusal answers at once.
tcp_open() {
	timeout 10 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

setup_file() {
	corral_setup_file
	UP="$BATS_FILE_TMPDIR/up"
	HTTP_PORT=$((20000 + RANDOM % 10000))
	HTTPS_PORT=$((HTTP_PORT + 1))
	upstreams_start "$UP" "$HTTP_PORT"
	# a repository served the "dumb" way, as static files
	git init -q "$UP/src" && echo cloned-through-the-proxy >"$UP/src/README" &&
		git -C "$UP/src" add README &&
		git -C "$UP/src" -c user.name=t -c user.email=t@up.test \
			commit -q -m one &&
		git clone -q --bare "$UP/src" "$UP/www/repo.git" &&
		git -C "$UP/www/repo.git" update-server-info ||
		fail "make the test repository"
	UDP_PORT=$((HTTP_PORT + 2))
	python3 -c 'import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", int(sys.argv[1])))
while True:
    d, a = u.recvfrom(100)
    open(sys.argv[2], "ab").write(d + b"\n")' "$UDP_PORT" "$UP/udp.got" \
		>/dev/null 2>&1 3>&- &
	echo $! >"$UP/udp.pid"
	{ cat /etc/hosts; echo "127.0.0.1 up.test other.test";
	  echo "169.254.169.254 metadata.test"; } >"$UP/hosts"
	export UP HTTP_PORT HTTPS_PORT UDP_PORT
}

teardown_file() {
	upstreams_stop "$UP" http.pid https.pid udp.pid
}

setup() {
	corral_setup
	POLICY="$BATS_TEST_TMPDIR/policy.json"
}

teardown() {
	corral_teardown
	if [ -n "${NETNS:-}" ]; then
		[ -f "$BATS_TEST_TMPDIR/ns-listen.pid" ] &&
			kill "$(cat "$BATS_TEST_TMPDIR/ns-listen.pid")" 2>/dev/null
		ip netns delete "$NETNS" ||
			echo "# ip netns delete $NETNS failed" >&3
	fi
	return 0
}

# allow RULE...: the test's policy.
allow() {
	local rules
	rules="$(printf '"%s",' "$@")"
	printf '{"network": {"allow": [%s]}}\n' "${rules%,}" >"$POLICY"
}

# sandboxed CMD...: corral sandbox under the policy, with the test's hosts
# file as the host's /etc/hosts (a private mount namespace); at most 180 s
# (pip and npm on a loaded machine; helpers.bash bounded).
sandboxed() {
	run --separate-stderr bounded 180 unshare -m sh -c \
		'mount --bind "$0" /etc/hosts && exec "$@"' "$UP/hosts" \
		"$CORRAL" --root "$ROOT" --policy "$POLICY" sandbox -- "$@" \
		</dev/null 3>&-
}

# create_with_policy: create $ID under the policy, stdio to files (the
# container outlives the command).
create_with_policy() {
	corral_bounded 60 --policy "$POLICY" create --bundle "$BUNDLE" "$ID" </dev/null \
		>>"$BATS_TEST_TMPDIR/$ID.out" 2>>"$BATS_TEST_TMPDIR/$ID.err" ||
		fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
}

# py CODE: python3 inside the sandbox.
py() {
	sandboxed python3 -c "$1"
}

@test "egress: plain HTTP to an allowed address works (busybox wget)" {
	allow "127.0.0.1:$HTTP_PORT"
	sandboxed busybox wget -q -O- "http://127.0.0.1:$HTTP_PORT/"
	assert_success
	assert_output hello-from-upstream
}

@test "egress: HTTPS through CONNECT to an allowed name works (curl)" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	sandboxed curl -sSk "https://up.test:$HTTPS_PORT/"
	assert_success
	assert_output hello-from-upstream
}

@test "egress: git clones over HTTPS through the proxy" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	sandboxed sh -c 'git -c http.sslVerify=false clone -q "$0" /tmp/r &&
		cat /tmp/r/README' "https://up.test:$HTTPS_PORT/repo.git"
	assert_success
	assert_output cloned-through-the-proxy
}

@test "egress: python urllib over HTTPS works with the proxy variables alone" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	py "import ssl, urllib.request as u
ctx = ssl.create_default_context(cafile=None); ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
print(u.urlopen('https://up.test:$HTTPS_PORT/', context=ctx).read().decode().strip())"
	assert_success
	assert_output hello-from-upstream
}

# packages UP: a Python index (UP/www/simple, one wheel) and an npm
# registry (UP/www/npm, one tarball) of one package, demo-pkg, served by
# the upstreams; its code says "installed-through-the-proxy".
packages() {
	python3 - "$1/www" "$HTTPS_PORT" <<-'PY' || fail "make the packages"
		import base64, hashlib, io, json, os, sys, tarfile, zipfile
		www, port = sys.argv[1], sys.argv[2]
		said = "installed-through-the-proxy"
		os.makedirs(www + "/simple/demo-pkg", exist_ok=True)
		os.makedirs(www + "/packages", exist_ok=True)
		os.makedirs(www + "/npm/-", exist_ok=True)
		files = {"demo_pkg/__init__.py": "X = %r\n" % said,
		         "demo_pkg-1.0.dist-info/METADATA":
		             "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n",
		         "demo_pkg-1.0.dist-info/WHEEL":
		             "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\n"
		             "Tag: py3-none-any\n"}
		record = ""
		with zipfile.ZipFile(www + "/packages/demo_pkg-1.0-py3-none-any.whl", "w") as z:
		    for name, text in files.items():
		        z.writestr(name, text)
		        digest = base64.urlsafe_b64encode(
		            hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
		        record += "%s,sha256=%s,%d\n" % (name, digest, len(text))
		    z.writestr("demo_pkg-1.0.dist-info/RECORD",
		               record + "demo_pkg-1.0.dist-info/RECORD,,\n")
		open(www + "/simple/demo-pkg/index.html", "w").write(
		    '<a href="../../packages/demo_pkg-1.0-py3-none-any.whl">'
		    'demo_pkg-1.0-py3-none-any.whl</a>\n')
		tgz = io.BytesIO()
		with tarfile.open(fileobj=tgz, mode="w:gz") as t:
		    for name, text in (("package/package.json", json.dumps(
		            {"name": "demo-pkg", "version": "1.0.0", "main": "index.js"})),
		            ("package/index.js", "module.exports = %s;\n" % json.dumps(said))):
		        info = tarfile.TarInfo(name)
		        info.size, info.mode = len(text), 0o644
		        t.addfile(info, io.BytesIO(text.encode()))
		tgz = tgz.getvalue()
		open(www + "/npm/-/demo-pkg-1.0.0.tgz", "wb").write(tgz)
		integrity = "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()
		json.dump({"name": "demo-pkg", "dist-tags": {"latest": "1.0.0"},
		           "versions": {"1.0.0": {"name": "demo-pkg", "version": "1.0.0",
		               "main": "index.js", "dist": {
		                   "tarball": "https://up.test:%s/npm/-/demo-pkg-1.0.0.tgz" % port,
		                   "shasum": hashlib.sha1(tgz).hexdigest(),
		                   "integrity": integrity}}}},
		          open(www + "/npm/demo-pkg", "w"))
	PY
}

@test "egress: pip install from an allowed index over HTTPS; another index is refused" {
	packages "$UP"
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	sandboxed sh -c 'python3 -m pip install --no-cache-dir --disable-pip-version-check \
			--no-deps --trusted-host up.test --target /tmp/t \
			--index-url "https://up.test:$0/simple/" demo-pkg >/tmp/pip.out 2>&1 ||
			cat /tmp/pip.out
		PYTHONPATH=/tmp/t python3 -c "import demo_pkg; print(demo_pkg.X)"
		python3 -m pip download --no-cache-dir --disable-pip-version-check \
			--no-deps --trusted-host other.test -d /tmp/d \
			--index-url "https://other.test:$0/simple/" demo-pkg 2>&1 | tail -1
		ls /tmp/d 2>/dev/null | wc -l' "$HTTPS_PORT"
	assert_success
	assert_line --index 0 installed-through-the-proxy
	assert_line --index 1 "ERROR: No matching distribution found for demo-pkg"
	assert_line --index 2 0
}

@test "egress: npm install and npm ci from an allowed registry over HTTPS; another registry gets 403" {
	command -v npm >/dev/null || fail "npm is not installed (tests/deps installs it)"
	packages "$UP"
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	sandboxed sh -c 'export HOME=/tmp npm_config_strict_ssl=false
		mkdir /tmp/p && cd /tmp/p && echo "{}" >package.json &&
		npm install --no-audit --no-fund --registry "https://up.test:$0/npm/" \
			demo-pkg >/tmp/npm.out 2>&1 || cat /tmp/npm.out
		rm -rf node_modules /tmp/.npm &&
		npm ci --no-audit --no-fund --registry "https://up.test:$0/npm/" \
			>/tmp/npm.out 2>&1 || cat /tmp/npm.out
		node -e "console.log(require(\"demo-pkg\"))"
		npm view --registry "https://other.test:$0/npm/" demo-pkg 2>&1 |
			grep -c "E403"' "$HTTPS_PORT"
	assert_success
	assert_line --index 0 installed-through-the-proxy
	assert_line --index 1 1
}

@test "egress: Go's default HTTP client goes through the proxy; another host gets the 403 naming it" {
	local ws="$BATS_TEST_TMPDIR/ws"
	mkdir -p "$ws/src"
	cat >"$ws/src/main.go" <<-'GO'
		package main

		import (
			"fmt"
			"io"
			"net/http"
			"os"
		)

		func main() {
			r, err := http.Get(os.Args[1])
			if err != nil {
				fmt.Println("error:", err)
				os.Exit(1)
			}
			b, _ := io.ReadAll(r.Body)
			fmt.Printf("%d %s", r.StatusCode, b)
		}
	GO
	(cd "$ws/src" && GOCACHE="$BATS_TEST_TMPDIR/gocache" GO111MODULE=off \
		CGO_ENABLED=0 go build -o "$ws/get" main.go) || fail "go build"
	cp "$UP/ca/cert.pem" "$ws/"
	chmod -R a+rX "$ws"
	printf '{"network": {"allow": ["up.test:%s", "127.0.0.1:%s"]}, "mounts": [{"source": "%s"}]}\n' \
		"$HTTPS_PORT" "$HTTPS_PORT" "$ws" >"$POLICY"
	run --separate-stderr bounded 180 unshare -m sh -c \
		'mount --bind "$0" /etc/hosts && exec "$@"' "$UP/hosts" \
		"$CORRAL" --root "$ROOT" --policy "$POLICY" sandbox --workspace "$ws" -- \
		sh -c 'export SSL_CERT_FILE=/workspace/cert.pem
			/workspace/get "https://up.test:$0/"; echo
			/workspace/get "http://other.test:$0/"' "$HTTPS_PORT" </dev/null 3>&-
	assert_success
	assert_line --index 0 "200 hello-from-upstream"
	assert_line --index 1 "403 corral: egress to other.test:$HTTPS_PORT refused: no rule of the host policy's network.allow names this host and port"
}

@test "egress: a host no rule names gets 403 with the message and the header" {
	allow "127.0.0.1:$HTTP_PORT"
	sandboxed curl -s -D - "http://other.test:$HTTP_PORT/"
	assert_success
	assert_line --partial "403 Forbidden"
	assert_line --partial "X-Corral-Egress: denied"
	assert_line "corral: egress to other.test:$HTTP_PORT refused: no rule of the host policy's network.allow names this host and port"
}

@test "egress: CONNECT to an address literal no rule names is refused" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTP_PORT"
	sandboxed curl -sk "https://127.0.0.1:$HTTPS_PORT/"
	assert_failure
	py "import socket
s = socket.create_connection(('127.0.0.1', 3128))
s.sendall(b'CONNECT 127.0.0.1:$HTTPS_PORT HTTP/1.1\r\nHost: 127.0.0.1:$HTTPS_PORT\r\n\r\n')
print(s.recv(1000).decode().splitlines()[-1])"
	assert_output "corral: egress to 127.0.0.1:$HTTPS_PORT refused: an address is reached only when a rule of the host policy's network.allow names it"
}

@test "egress: a port the rule does not name is refused" {
	allow up.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	sandboxed curl -s -D - "http://up.test:$HTTP_PORT/"
	assert_line --partial "403 Forbidden"
}

@test "egress: suffix tricks and case: only the name itself matches" {
	allow up.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	sandboxed curl -s "http://UP.TEST.:$HTTP_PORT/"
	assert_output hello-from-upstream
	for host in up.test.attacker evilup.test x.up.test; do
		sandboxed curl -s -o /dev/null -w '%{http_code}' \
			"http://$host:$HTTP_PORT/"
		assert_output 403
	done
}

@test "egress: a name that resolves to loopback or the metadata address is refused without an address rule" {
	allow up.test:"$HTTP_PORT" metadata.test:80
	sandboxed curl -s "http://up.test:$HTTP_PORT/"
	assert_line --partial "the name resolves only to refused addresses (loopback)"
	sandboxed curl -s "http://metadata.test/"
	assert_line --partial "refused addresses (metadata)"
}

@test "egress: a TLS server name other than the CONNECT host, or none, closes the tunnel" {
	allow up.test:"$HTTPS_PORT" other.test:"$HTTPS_PORT" "127.0.0.1:$HTTPS_PORT"
	py "import socket, ssl
def tunnel(sni):
    s = socket.create_connection(('127.0.0.1', 3128))
    s.sendall(b'CONNECT up.test:$HTTPS_PORT HTTP/1.1\r\nHost: up.test:$HTTPS_PORT\r\n\r\n')
    assert s.recv(100).startswith(b'HTTP/1.1 200')
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
        t.sendall(b'GET / HTTP/1.0\r\n\r\n')
        return 'open:' + t.recv(100).decode(errors='replace')[:12]
    except (ssl.SSLError, OSError) as e:
        return 'closed'
print(tunnel('up.test'), tunnel('other.test'), tunnel(None))"
	assert_success
	assert_output "open:HTTP/1.0 200 closed closed"
}

@test "egress: a Host header that differs from the request, and a second request on the connection, do not reach the upstream" {
	allow up.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	py "import socket
s = socket.create_connection(('127.0.0.1', 3128))
s.sendall(b'GET http://up.test:$HTTP_PORT/ HTTP/1.1\r\nHost: other.test:$HTTP_PORT\r\n\r\n')
print(s.recv(200).split(b'\r\n')[0].decode())
s = socket.create_connection(('127.0.0.1', 3128))
s.sendall(b'GET http://up.test:$HTTP_PORT/ HTTP/1.1\r\nHost: up.test:$HTTP_PORT\r\n\r\n'
          b'GET http://up.test:$HTTP_PORT/second HTTP/1.1\r\nHost: up.test:$HTTP_PORT\r\n\r\n')
data = b''
while True:
    b = s.recv(4096)
    if not b: break
    data += b
print(data.count(b'HTTP/1.'), b'hello-from-upstream' in data)"
	assert_success
	assert_line --index 0 "HTTP/1.1 400 Bad Request"
	assert_line --index 1 "1 True"
	run grep -c "GET /second" "$UP/http.log"
	assert_output 0
}

@test "egress: oversized and malformed heads are refused" {
	allow up.test:"$HTTP_PORT" "127.0.0.1:$HTTP_PORT"
	py "import socket
def ask(data):
    s = socket.create_connection(('127.0.0.1', 3128))
    s.sendall(data)
    return s.recv(100).split(b'\r\n')[0].decode()
print(ask(b'GET http://up.test:$HTTP_PORT/ HTTP/1.1\r\nX: ' + b'a' * 20000 + b'\r\n\r\n'))
print(ask(b'GET http://up.test:$HTTP_PORT/ HTTP/1.1\nHost: up.test\n\n\r\n\r\n'))
print(ask(b'GET / HTTP/1.1\r\nHost: up.test:$HTTP_PORT\r\n\r\n'))
print(ask(b'POST http://up.test:$HTTP_PORT/ HTTP/1.1\r\nHost: up.test:$HTTP_PORT\r\nTransfer-Encoding: chunked\r\n\r\n'))"
	assert_success
	assert_line --index 0 "HTTP/1.1 431 Request Header Fields Too Large"
	assert_line --index 1 "HTTP/1.1 400 Bad Request"
	assert_line --index 2 "HTTP/1.1 400 Bad Request"
	assert_line --index 3 "HTTP/1.1 411 Length Required"
}

@test "egress: raw TCP and UDP that bypass the proxy reach nothing" {
	# the listeners are the host's loopback ones of this test: a leak
	# would reach them, never leave the machine
	allow "127.0.0.1:$HTTP_PORT"
	py "import socket
try:
    socket.create_connection(('127.0.0.1', $HTTP_PORT), timeout=2).sendall(b'GET /raw-bypass HTTP/1.0\r\n\r\n'); print('tcp leaked')
except OSError as e: print('tcp', e.errno)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b'udp-bypass', ('127.0.0.1', $UDP_PORT))
print([n for _, n in socket.if_nameindex()])"
	assert_success
	assert_line --index 0 "tcp 111"
	assert_line --index 1 "['lo']"
	sleep 0.3
	run grep -c raw-bypass "$UP/http.log"
	assert_output 0
	[ ! -s "$UP/udp.got" ] || fail "the UDP listener got: $(cat "$UP/udp.got")"
	# the listener does hear this host's own loopback
	python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'host', ('127.0.0.1', $UDP_PORT))"
	for _ in $(seq 20); do [ -s "$UP/udp.got" ] && break; sleep 0.1; done
	run cat "$UP/udp.got"
	assert_output host
	: >"$UP/udp.got"
}

# ns_target: a network namespace of this test's own, reached from the
# host over a veth pair (10.213.N.2 and fd00:213:N::2), with TCP and UDP
# listeners there that record what reaches them.
ns_target() {
	local n=$((BATS_TEST_NUMBER % 250)) host="ceh$$"
	NETNS="corral-egress-$BATS_TEST_NUMBER-$$"
	NS4="10.213.$n.2"
	NS6="fd00:213:$n::2"
	ip netns add "$NETNS" || fail "ip netns add $NETNS"
	ip link add "${host:0:15}" type veth peer name cev0 netns "$NETNS" &&
		ip addr add "10.213.$n.1/30" dev "${host:0:15}" &&
		ip addr add "fd00:213:$n::1/64" dev "${host:0:15}" nodad &&
		ip link set "${host:0:15}" up &&
		ip -n "$NETNS" addr add "$NS4/30" dev cev0 &&
		ip -n "$NETNS" addr add "$NS6/64" dev cev0 nodad &&
		ip -n "$NETNS" link set cev0 up &&
		ip -n "$NETNS" link set lo up || fail "the test's veth pair"
	ip netns exec "$NETNS" python3 -c 'import select, socket, sys
socks = []
for fam, addr in ((socket.AF_INET, sys.argv[1]), (socket.AF_INET6, sys.argv[2])):
    t = socket.socket(fam, socket.SOCK_STREAM); t.bind((addr, 8080)); t.listen()
    u = socket.socket(fam, socket.SOCK_DGRAM); u.bind((addr, 8053))
    socks += [t, u]
open(sys.argv[3], "w").close()
while True:
    for s in select.select(socks, [], [])[0]:
        got = s.accept()[1] if s.type == socket.SOCK_STREAM else s.recvfrom(100)[1]
        open(sys.argv[3], "a").write("%r\n" % (got,))' "$NS4" "$NS6" \
		"$BATS_TEST_TMPDIR/ns.got" >/dev/null 2>&1 3>&- &
	echo $! >"$BATS_TEST_TMPDIR/ns-listen.pid"
	for _ in $(seq 50); do
		[ -e "$BATS_TEST_TMPDIR/ns.got" ] && tcp_open "$NS4" 8080 && break
		sleep 0.1
	done
	# the kernel completes that connection before the listener accepts
	# it: wait for its line, or it could land after the file is emptied
	# and read as a leak
	for _ in $(seq 50); do
		[ -s "$BATS_TEST_TMPDIR/ns.got" ] && break
		sleep 0.1
	done
	: >"$BATS_TEST_TMPDIR/ns.got"
}

ns_echos() {
	ip netns exec "$NETNS" awk '/^Icmp:/ { n++ } /^Icmp:/ && n == 2 { print $9 }' \
		/proc/net/snmp
}

@test "egress: TCP, UDP and ICMP over IPv4 and IPv6 that bypass the proxy reach nothing" {
	# the target is a namespace this test made: a leak would reach its
	# listeners, never leave the machine
	ns_target
	allow "$NS4:8080" "[$NS6]:8080"
	# the target is live from the host
	busybox ping -c 1 -W 2 "$NS4" >/dev/null || fail "ping $NS4 from the host"
	local echos
	echos="$(ns_echos)"
	sandboxed sh -c 'python3 -c "import socket, sys
for fam, a in ((socket.AF_INET, sys.argv[1]), (socket.AF_INET6, sys.argv[2])):
    try:
        socket.create_connection((a, 8080), timeout=2); print(\"tcp leaked\")
    except OSError as e: print(\"tcp\", e.errno)
    try:
        socket.socket(fam, socket.SOCK_DGRAM).sendto(b\"dns?\", (a, 8053)); print(\"udp sent\")
    except OSError as e: print(\"udp\", e.errno)
" "$0" "$1"
		busybox ping -c 1 -W 1 "$0" >/dev/null 2>&1; echo "ping $?"
		busybox ping6 -c 1 -W 1 "$1" >/dev/null 2>&1; echo "ping6 $?"' \
		"$NS4" "$NS6"
	assert_success
	# 101: ENETUNREACH, nothing but lo to send on
	assert_output "$(printf 'tcp 101\nudp 101\ntcp 101\nudp 101\nping 1\nping6 1')"
	sleep 0.3
	[ ! -s "$BATS_TEST_TMPDIR/ns.got" ] ||
		fail "the namespace's listeners got: $(cat "$BATS_TEST_TMPDIR/ns.got")"
	[ "$(ns_echos)" = "$echos" ] || fail "an echo request reached $NS4"
	# and the listeners do hear the host
	tcp_open "$NS4" 8080 || fail "connect to $NS4:8080 from the host"
	for _ in $(seq 20); do [ -s "$BATS_TEST_TMPDIR/ns.got" ] && break; sleep 0.1; done
	[ -s "$BATS_TEST_TMPDIR/ns.got" ] || fail "the listener heard nothing"
}

@test "egress: each decision is one JSON line in the state directory, and the helper runs as nobody without privileges" {
	allow "127.0.0.1:$HTTP_PORT"
	set_args sh -c "wget -q -O- http://127.0.0.1:$HTTP_PORT/; wget -q -O- http://127.0.0.1:1/ 2>/dev/null; sleep 30"
	ln -s busybox "$ROOTFS/bin/wget"
	create_with_policy
	local pid dir="$ROOT/$ID"
	pid="$(cat "$dir/egress.pid")"
	run grep -E '^(Uid|Gid|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' "/proc/$pid/status"
	assert_line --regexp '^Uid:\s+65534\s+65534\s+65534\s+65534$'
	assert_line --regexp '^CapEff:\s+0+$'
	assert_line --regexp '^CapPrm:\s+0+$'
	assert_line --regexp '^CapBnd:\s+0+$'
	assert_line --regexp '^NoNewPrivs:\s+1$'
	assert_line --regexp '^Seccomp:\s+2$'
	# in the container's cgroup in every hierarchy, cgroup2 included
	# (it is cloned into that one)
	local cg
	cg="$(cat "/proc/$pid/cgroup")"
	[ "$cg" = "$(cat "/proc/$(container_pid "$ID")/cgroup")" ]
	[[ "$cg" == *"/$ID"* ]]
	corral_bounded 60 start "$ID"
	for _ in $(seq 50); do
		[ "$(wc -l <"$dir/egress.log")" -ge 2 ] && break
		sleep 0.1
	done
	run python3 -c "import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l); print(d['verdict'], d['port'], d['container'], d['address'], d['rule'])" "$dir/egress.log"
	assert_line "allow $HTTP_PORT $ID 127.0.0.1 127.0.0.1:$HTTP_PORT"
	assert_line "deny 1 $ID None None"
	corral kill "$ID" KILL
	corral delete --force "$ID"
	wait_pid_gone "$pid" 20
}

@test "egress: the helper goes when the container's init exits" {
	allow "127.0.0.1:$HTTP_PORT"
	set_args sleep 30
	create_with_policy
	local pid
	pid="$(cat "$ROOT/$ID/egress.pid")"
	kill -0 "$pid"
	kill -KILL "$(container_pid "$ID")"
	wait_pid_gone "$pid" 50
}

@test "egress: after kill -9 of corral run the container and its helper live on, and delete --force ends both" {
	local run_pid helper
	allow "127.0.0.1:$HTTP_PORT"
	set_args sleep 30
	"$CORRAL" --root "$ROOT" --policy "$POLICY" run --bundle "$BUNDLE" "$ID" \
		</dev/null >/dev/null 2>&1 3>&- &
	run_pid=$!
	track_pid "$run_pid"
	poll_equal "the helper's pid file" yes 50 \
		sh -c '[ -s "$0/egress.pid" ] && echo yes' "$ROOT/$ID"
	poll_equal "the container running" running 50 state_field "$ID" status
	helper="$(cat "$ROOT/$ID/egress.pid")"
	kill -KILL "$run_pid"
	wait "$run_pid" 2>/dev/null || true
	# as with runc: the container is the engine's to end, not the
	# runtime's process; its proxy still serves it
	run corral_bounded 60 exec "$ID" busybox wget -q -O- "http://127.0.0.1:$HTTP_PORT/"
	assert_success
	assert_output hello-from-upstream
	pid_gone "$helper" && fail "the helper died with corral run"
	corral delete --force "$ID"
	wait_pid_gone "$helper" 50
}

@test "egress: events streams each decision; delete logs a summary" {
	allow "127.0.0.1:$HTTP_PORT"
	set_args sh -c "sleep 1; wget -q -O /dev/null http://127.0.0.1:$HTTP_PORT/
		wget -q -O /dev/null http://denied.test/; sleep 0.5"
	create_with_policy
	corral_bounded 60 start "$ID"
	run --separate-stderr timeout 20 "$CORRAL" --root "$ROOT" events \
		--interval 60s "$ID"
	assert_success
	# a decision's line is written when its connection ends: the allowed
	# one may end after the denied one was refused
	run jq -c -s '[.[] | select(.type == "egress") | [.id, .data.verdict, .data.name]] | sort | .[]' \
		<<<"$output"
	assert_output "$(printf '["%s","allow","127.0.0.1"]\n["%s","deny","denied.test"]' "$ID" "$ID")"
	corral --log "$BATS_TEST_TMPDIR/runtime.log" delete "$ID"
	run cat "$BATS_TEST_TMPDIR/runtime.log"
	assert_output --partial "$ID: egress: 1 allowed, 1 denied (denied.test:80)"
}

@test "egress: explain lists the rules; an annotation only narrows them" {
	allow pypi.org "**.github.com"
	run corral --policy "$POLICY" explain --bundle "$BUNDLE"
	assert_success
	assert_line --partial "corral's proxy at 127.0.0.1:3128"
	assert_line --regexp '^ +egress +pypi.org$'
	update_config '.annotations["run.corral.egress"] = "api.github.com"'
	run corral --policy "$POLICY" explain --bundle "$BUNDLE"
	assert_line --partial "sandbox.egress"
	assert_line --partial "[api.github.com]  (annotation: run.corral.egress)"
	update_config '.annotations["run.corral.egress"] = "evil.example"'
	# through files: a create that should fail would hold a `run`'s pipe
	run_files corral --policy "$POLICY" create --bundle "$BUNDLE" "$ID"
	assert_failure
	assert_error_line "create $ID: config.json: annotation run.corral.egress: evil.example is not within the policy's network.allow"
	[ ! -e "$ROOT/$ID" ]
}
