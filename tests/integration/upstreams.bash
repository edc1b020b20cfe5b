# The upstreams of the egress tests (egress.bats, egress_dns.bats): the
# test's own servers on the host's loopback, started by setup_file and
# stopped by pid in teardown_file.
#
# upstreams_start UP PORT: under UP, www/index.html, a certificate for
# up.test and other.test (UP/ca/cert.pem, its key UP/key.pem), an HTTP
# server on 127.0.0.1:PORT and an HTTPS one on PORT+1 serving UP/www,
# their pids in UP/http.pid and UP/https.pid; returns once both accept.
upstreams_start() {
	local up="$1" port="$2" p
	mkdir -p "$up/www" "$up/ca"
	echo hello-from-upstream >"$up/www/index.html"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=up.test \
		-addext subjectAltName=DNS:up.test,DNS:other.test \
		-keyout "$up/key.pem" -out "$up/ca/cert.pem" 2>/dev/null ||
		fail "openssl req"
	python3 -m http.server "$port" --bind 127.0.0.1 \
		--directory "$up/www" >"$up/http.log" 2>&1 3>&- &
	echo $! >"$up/http.pid"
	python3 - "$((port + 1))" "$up" >"$up/https.log" 2>&1 3>&- <<-'PY' &
		import functools, http.server, ssl, sys
		port, up = int(sys.argv[1]), sys.argv[2]
		h = functools.partial(http.server.SimpleHTTPRequestHandler,
				      directory=up + "/www")
		s = http.server.ThreadingHTTPServer(("127.0.0.1", port), h)
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		ctx.load_cert_chain(up + "/ca/cert.pem", up + "/key.pem")
		s.socket = ctx.wrap_socket(s.socket, server_side=True)
		s.serve_forever()
	PY
	echo $! >"$up/https.pid"
	for p in "$port" "$((port + 1))"; do
		for _ in $(seq 50); do
			nc -z 127.0.0.1 "$p" 2>/dev/null && break
			sleep 0.1
		done
	done
}

# upstreams_stop UP PIDFILE...: stop each server whose pid file is there.
upstreams_stop() {
	local up="$1" f
	shift
	for f in "$@"; do
		[ -f "$up/$f" ] && kill "$(cat "$up/$f")" 2>/dev/null
	done
	return 0
}
