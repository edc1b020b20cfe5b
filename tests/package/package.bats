#!/usr/bin/env bats
# The Debian package on this machine: `dpkg -i` of the .deb that `make
# deb` built (or $CORRAL_DEB), then corral from /usr/bin as a user gets
# it: the manual pages, podman's named runtime "corral" through the
# packaged drop-in, bash and zsh completion, the conffile equal to the
# built-in policy, lintian; and last `apt-get remove` and `purge`, which
# must leave nothing of the package.  Not in `make check`: it installs a
# package on the host (tests/package/README.md).
#
# It refuses to touch a machine where it would change what is there: a
# corral package already installed, an /etc/corral or a podman drop-in
# named corral.conf that exist already.  Whatever it installed it purges
# in teardown_file, even when a test failed; /run/corral, which corral
# makes at its first container (podman's), is removed again if it was not
# there.

# shellcheck disable=SC2154
# (output, status, lines and stderr are set by bats' run.)

bats_require_minimum_version 1.5.0

REPO_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
# every corral call below is the installed one (helpers.bash's corral()
# and make_bundle use $CORRAL)
export CORRAL=/usr/bin/corral
load ../integration/helpers

DROPIN=/etc/containers/containers.conf.d/corral.conf

# dpkg_locked CMD...: run a dpkg or apt command (each try under a
# timeout), waiting up to 60 s for the dpkg lock another apt may hold.
dpkg_locked() {
	local i out
	for ((i = 0; i < 30; i++)); do
		if out="$(timeout 300 "$@" 2>&1 </dev/null 3>&-)"; then
			return 0
		fi
		grep -q "lock" <<<"$out" || { echo "$out" >&2; return 1; }
		sleep 2
	done
	echo "$out" >&2
	return 1
}

installed() {
	dpkg-query -W -f='${Status}' corral 2>/dev/null | grep -q "ok installed"
}

setup_file() {
	[ "$(id -u)" = 0 ] || skip "installs a package: needs root"
	dpkg-query -W -f='${Status}' corral 2>/dev/null | grep -q "installed" &&
		skip "a corral package is installed already: not touching it"
	[ ! -e /etc/corral ] || skip "/etc/corral exists already: not touching it"
	[ ! -e "$DROPIN" ] || skip "$DROPIN exists already: not touching it"
	DEB="${CORRAL_DEB:-$(ls "$REPO_ROOT"/build/deb/corral_*_amd64.deb 2>/dev/null | tail -1)}"
	[ -f "$DEB" ] || fail "no package: run make deb (or set CORRAL_DEB)"
	export DEB
	# what was there before, for teardown_file
	[ -e /run/corral ] && touch "$BATS_FILE_TMPDIR/run-corral-was-there"
	[ -e "${DROPIN%/*}" ] && touch "$BATS_FILE_TMPDIR/dropin-dir-was-there"
	# podman knew no runtime "corral" before: the drop-in is what adds it
	# (unset CONTAINERS_CONF: with it podman reads no other file)
	unset CONTAINERS_CONF
	! podman --runtime corral info >/dev/null 2>&1 3>&- ||
		fail "podman knows a runtime \"corral\" already (a containers.conf names it)"

	dpkg_locked dpkg -i "$DEB" || fail "dpkg -i $DEB failed"
	dpkg -L corral | sort >"$BATS_FILE_TMPDIR/files"

	export IMAGE="localhost/corral-package-test-$$:latest"
	make_bundle "$BATS_FILE_TMPDIR/bundle"
	# the image podman runs: the bundle's busybox rootfs
	tar -C "$BATS_FILE_TMPDIR/bundle/rootfs" -cf "$BATS_FILE_TMPDIR/image.tar" . ||
		fail "tar of the rootfs"
	podman import -q "$BATS_FILE_TMPDIR/image.tar" "$IMAGE" >/dev/null 3>&- ||
		fail "podman import $IMAGE"
}

teardown_file() {
	unset CONTAINERS_CONF
	[ -z "${IMAGE:-}" ] || podman rmi -f "$IMAGE" >/dev/null 2>&1 3>&-
	if dpkg-query -W -f='${Status}' corral 2>/dev/null | grep -q "installed"; then
		dpkg_locked apt-get purge -y -q corral
	fi
	# /run/corral, when this file's containers made it: it holds no
	# container now, only the cache of compiled filters
	if [ ! -e "$BATS_FILE_TMPDIR/run-corral-was-there" ] && [ -d /run/corral ] &&
		[ -z "$(find /run/corral -mindepth 1 -maxdepth 1 ! -name .seccomp)" ]; then
		rm -rf /run/corral
	fi
}

setup() {
	unset CONTAINERS_CONF
	NAME="corral-package-$BATS_TEST_NUMBER-$$"
	ROOT="$BATS_TEST_TMPDIR/state"
	BUNDLE="$BATS_TEST_TMPDIR/bundle"
	cp -a "$BATS_FILE_TMPDIR/bundle" "$BUNDLE"
}

teardown() {
	podman rm -f -i -t 0 "$NAME" >/dev/null 2>&1 3>&-
	local id
	if [ -d "$ROOT" ]; then
		for id in $("$CORRAL" --root "$ROOT" list -q 2>/dev/null 3>&-); do
			timeout 30 "$CORRAL" --root "$ROOT" delete --force "$id" \
				>/dev/null 2>&1 3>&-
		done
	fi
}

@test "the package installs /usr/bin/corral, the conffiles and the completion" {
	installed || fail "corral is not installed"
	run "$CORRAL" --version
	assert_success
	assert_line "corral version $(cat "$REPO_ROOT/VERSION")"
	run dpkg-query -W -f='${Conffiles}' corral
	assert_output --partial "/etc/corral/policy.json"
	assert_output --partial "$DROPIN"
	for f in /usr/share/bash-completion/completions/corral \
		/usr/share/zsh/vendor-completions/_corral \
		/usr/share/doc/corral/copyright \
		/usr/share/doc/corral/examples/containerd-corral.toml; do
		grep -qx "$f" "$BATS_FILE_TMPDIR/files" || fail "$f is not the package's"
	done
}

@test "man -w corral and man corral-policy.json resolve to the installed pages" {
	run man -w corral
	assert_success
	assert_output /usr/share/man/man8/corral.8.gz
	run man -w corral-policy.json
	assert_success
	assert_output /usr/share/man/man5/corral-policy.json.5.gz
	run env MANPAGER=cat MANWIDTH=80 man corral-policy.json
	assert_success
	assert_output --partial "corral-policy.json - the host's sandbox policy for corral"
	assert_output --partial "engineDirs"
	run env MANPAGER=cat MANWIDTH=80 man 8 corral
	assert_success
	assert_output --partial "corral - an OCI runtime that runs untrusted code"
	assert_output --partial "--workspace DIR"
}

@test "/etc/corral/policy.json is the built-in default: the same bytes, and corral reads it to the same policy" {
	cmp /etc/corral/policy.json "$REPO_ROOT/config-examples/policy/default.json" ||
		fail "the conffile differs from config-examples/policy/default.json"
	# corral writes the policy it read, as policy_emit() writes it, into
	# the state directory at create: under the conffile (named, and as
	# the default path), and under {} (the built-ins and nothing else)
	echo '{}' >"$BATS_TEST_TMPDIR/empty.json"
	corral --policy "$BATS_TEST_TMPDIR/empty.json" create -b "$BUNDLE" builtin ||
		fail "create under {}"
	corral --policy /etc/corral/policy.json create -b "$BUNDLE" named ||
		fail "create under /etc/corral/policy.json"
	corral create -b "$BUNDLE" default || fail "create with no --policy"
	[ -s "$ROOT/builtin/policy.json" ] || fail "no policy.json in the state directory"
	cmp "$ROOT/builtin/policy.json" "$ROOT/named/policy.json" ||
		fail "/etc/corral/policy.json reads to another policy than the built-ins"
	cmp "$ROOT/builtin/policy.json" "$ROOT/default/policy.json" ||
		fail "corral's default policy file reads to another policy than the built-ins"
	# and explain says the same of a bundle under both
	run corral explain --policy "$BATS_TEST_TMPDIR/empty.json" --bundle "$BUNDLE"
	assert_success
	local builtin="$output"
	run corral explain --bundle "$BUNDLE"
	assert_success
	assert_equal "$output" "$builtin"
}

@test "podman --runtime corral runs a container through the packaged drop-in" {
	run podman --runtime corral info --format '{{.Host.OCIRuntime.Path}}' 3>&-
	assert_success
	assert_output /usr/bin/corral
	run podman --runtime corral run --rm --name "$NAME" --network none \
		"$IMAGE" sh -c 'echo hi; id -u' 3>&-
	assert_success
	assert_output $'hi\n65534'
	# runtime_supports_json: conmon passes --log-format=json
	podman --runtime corral run -d --name "$NAME" --network none \
		"$IMAGE" sleep 100 >/dev/null 3>&- || fail "podman run -d"
	assert_equal "$(podman inspect -f '{{.OCIRuntime}}' "$NAME" 3>&-)" corral
	local conmon args
	conmon="$(podman inspect -f '{{.State.ConmonPid}}' "$NAME" 3>&-)"
	args="$(tr '\0' '\n' <"/proc/$conmon/cmdline")"
	grep -qx -- '--log-format=json' <<<"$args" ||
		fail "conmon was not given --log-format=json: $args"
	grep -qx -- /usr/bin/corral <<<"$args" ||
		fail "conmon does not run /usr/bin/corral: $args"
}

# bash_complete WORD...: the replies of the packaged completion function
# for the command line WORD... (the last word is the one being completed),
# one a line, in a bash where bash-completion loads it on demand.
bash_complete() {
	bash --norc --noprofile -c '
		source /usr/share/bash-completion/bash_completion
		_completion_loader corral
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_corral corral "${@: -1}" "${@: -2:1}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$@" 3>&-
}

@test "bash completion: bash-completion loads it; commands, flags, values and container IDs" {
	run bash --norc --noprofile -c 'source /usr/share/bash-completion/bash_completion
		_completion_loader corral; complete -p corral' 3>&-
	assert_success
	assert_output "complete -F _corral corral"

	run bash_complete corral cr
	assert_output create
	run bash_complete corral ""
	[ "${#lines[@]}" -eq 18 ] || fail "expected the 18 commands: $output"
	assert_line sandbox
	assert_line report
	run bash_complete corral --lo
	assert_output $'--log\n--log-format'
	run bash_complete corral run --no
	assert_output $'--no-pivot\n--no-new-keyring'
	run bash_complete corral --log-format ""
	assert_output $'text\njson'
	run bash_complete corral sandbox --network ""
	assert_output none
	run bash_complete corral exec -""
	assert_line --tty
	assert_line --cap

	# IDs: of the state root the line names, from corral list -q
	corral create -b "$BUNDLE" "$NAME-a" || fail "create"
	corral create -b "$BUNDLE" "$NAME-b" || fail "create"
	run bash_complete corral --root "$ROOT" kill ""
	assert_output "$(printf '%s\n' "$NAME-a" "$NAME-b")"
	run bash_complete corral --root "$ROOT" delete "$NAME-b"
	assert_output "$NAME-b"
	run bash_complete corral --root "$ROOT" kill "$NAME-a" SIGK
	assert_output SIGKILL
	# and none from another root
	run bash_complete corral --root "$BATS_TEST_TMPDIR/other" kill ""
	assert_output ""
}

@test "zsh completion: commands, flags, values and container IDs" {
	local z="$REPO_ROOT/tests/package/zsh_complete"
	run timeout 30 "$z" corral cre
	assert_success
	assert_output create
	run timeout 30 "$z" corral ""
	[ "${#lines[@]}" -eq 18 ] || fail "expected the 18 commands: $output"
	run timeout 30 "$z" corral run --no
	assert_output $'--no-new-keyring\n--no-pivot'
	run timeout 30 "$z" corral list --format ""
	assert_output $'json\ntable'
	corral create -b "$BUNDLE" "$NAME-z" || fail "create"
	run timeout 30 "$z" corral --root "$ROOT" start ""
	assert_success
	assert_output "$NAME-z"
}

@test "the containerd fragment is TOML naming /usr/bin/corral" {
	run python3 -c '
import sys, tomllib
c = tomllib.load(open(sys.argv[1], "rb"))
r = c["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["corral"]
print(r["runtime_type"], r["options"]["BinaryName"])' \
		/usr/share/doc/corral/examples/containerd-corral.toml
	assert_success
	assert_output "io.containerd.runc.v2 /usr/bin/corral"
}

@test "lintian: no error and no warning" {
	command -v lintian >/dev/null || fail "lintian is not installed (make deps)"
	local changes="${DEB%.deb}.changes"
	[ -f "$changes" ] || changes="$DEB"
	run --separate-stderr timeout 300 lintian "$changes"
	assert_success
	assert_output ""
}

# Last: it removes the package (the tests above need it).
@test "apt-get remove keeps the conffiles; apt-get purge leaves nothing of the package" {
	dpkg_locked apt-get remove -y -q corral || fail "apt-get remove"
	[ ! -e /usr/bin/corral ] || fail "/usr/bin/corral is left after remove"
	[ -f /etc/corral/policy.json ] || fail "remove took the conffile"
	[ -f "$DROPIN" ] || fail "remove took the podman drop-in"
	run dpkg-query -W -f='${db:Status-Abbrev}' corral
	assert_output "rc "
	# podman still works with a drop-in naming a missing binary
	run podman info --format '{{.Host.OCIRuntime.Name}}' 3>&-
	assert_success

	dpkg_locked apt-get purge -y -q corral || fail "apt-get purge"
	run dpkg-query -W -f='${db:Status-Abbrev}' corral
	[[ "$output" != "i"* && "$output" != "rc"* ]] || fail "dpkg still lists corral: $output"
	local f left=""
	while read -r f; do
		# directories other packages or the system own stay
		[ -d "$f" ] && [ ! -L "$f" ] && continue
		[ ! -e "$f" ] && [ ! -L "$f" ] || left+=" $f"
	done <"$BATS_FILE_TMPDIR/files"
	for f in /etc/corral /usr/share/doc/corral; do
		[ ! -e "$f" ] || left+=" $f"
	done
	# the drop-in's directory is the package's when it made it
	[ -e "$BATS_FILE_TMPDIR/dropin-dir-was-there" ] || [ ! -e "${DROPIN%/*}" ] ||
		left+=" ${DROPIN%/*}"
	[ -z "$left" ] || fail "left after purge:$left"
	run podman --runtime corral info 3>&-
	assert_failure
}
