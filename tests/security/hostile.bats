#!/usr/bin/env bats
# A hostile bundle under the default policy (and under policies that allow
# a directory of the test's own): the attacker writes config.json, the
# rootfs and files under the allowed directory; the policy is the
# administrator's.  Each test is one attack and its variants, checked
# against the rules of docs/threat-model.md (R1-R11 in
# tests/security/README.md): "refused" is one error line and nothing
# left, "dropped" is a container that runs without the field and an
# explain that lists the change.
# Every outcome is checked on the host too: the sentinel tree, the test's
# own filesystems and listeners, what is left of the container.

# shellcheck disable=SC2016,SC2034,SC2030,SC2031,SC2153,SC2154,SC2317
# (jq programs and container scripts are single-quoted on purpose; PREFIX
# and the like are read by faults.bash; output, stderr and status are set
# by capture and bats' run, MARKER by helpers.bash; the `one` functions
# are called through check_case, in a subshell of their own on purpose)

load hostile

setup_file() {
	hostile_setup_file
}

setup() {
	hostile_setup
}

teardown() {
	hostile_teardown
}

# ==== R1: user namespaces and id mappings ==================================

# A file of host root's, mode 0600, in the rootfs: the rootfs is the lower
# layer of the overlay, so this is a host-backed file; only host uid 0
# reads it.  The same for a group-only file of host gid 0.
root_only_files() {
	echo "root only $$" >"$ROOTFS/rootsecret"
	chmod 0600 "$ROOTFS/rootsecret"
	echo "root group only $$" >"$ROOTFS/groupsecret"
	chmod 0040 "$ROOTFS/groupsecret"
}

# The checks of a workload that must not be host root: the id files it
# can read, the host sysctl it could write (the very value the host has,
# $1), the mapping it sees.
USERNS_CHECKS='
[ "$(cat /proc/self/uid_map | tr -s " " | sed "s/^ //")" = "0 0 4294967295" ] ||
	echo "LEAK uid_map $(cat /proc/self/uid_map | tr -s " " | tr "\n" ";")"
cat /rootsecret >/dev/null 2>&1 && echo "LEAK read a host-root 0600 file"
cat /groupsecret >/dev/null 2>&1 && echo "LEAK read a host-gid-0 0040 file"
for p in /proc /p2; do
	[ -e $p/sys/kernel/core_pattern ] || continue
	(printf "%s\n" "$1" >$p/sys/kernel/core_pattern) 2>/dev/null &&
		echo "LEAK wrote $p/sys/kernel/core_pattern"
done'

@test "userns: uid/gid maps with host 0 in a later entry are dropped: not host root, no host file or sysctl (default policy)" {
	root_only_files
	core="$(cat /proc/sys/kernel/core_pattern)"
	update_config '.linux.namespaces += [{type: "user"}] |
		.linux.uidMappings = [{containerID: 0, hostID: 100000, size: 65534},
			{containerID: 65534, hostID: 0, size: 1}] |
		.linux.gidMappings = .linux.uidMappings |
		.mounts += [{destination: "/p2", type: "proc", source: "proc"}]'
	workload "$USERNS_CHECKS"'
echo READY
sleep 30' "$core"
	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	corral start "$ID" || fail "start failed"
	wait_for_file "$BATS_TEST_TMPDIR/$ID.out" '^READY$'
	# the host's view of the container's processes: no id 0
	procs="$(container_procs "$pid")" || fail "no cgroup for $pid"
	# shellcheck disable=SC2086
	assert_no_host_root $procs
	corral delete --force "$ID"
	output="$(cat "$BATS_TEST_TMPDIR/$ID.out")"
	[[ "$output" != *LEAK* ]] || fail "$output"
	assert_equal "$(cat /proc/sys/kernel/core_pattern)" "$core"
	assert_no_leftovers "$ID"
	explain_json
	assert_change 'uidMappings|namespaces\[user\]' dropped
	assert_change 'gidMappings|namespaces\[user\]' dropped
	assert_equal "$(jq -r '.reach.privileges.uid // empty' <<<"$EXPLAIN")" 65534
}

@test "userns: host 0 in the first entry, inside a range, or only in gidMappings: dropped, never host root (default policy)" {
	root_only_files
	core="$(cat /proc/sys/kernel/core_pattern)"
	one() {
		base_config
		update_config '.linux.namespaces += [{type: "user"}] |
			.linux.uidMappings = $m.u |
			.linux.gidMappings = ($m.g // $m.u) |
			.process.user.uid = $m.uid |
			.mounts += [{destination: "/p2", type: "proc", source: "proc"}]' \
			--argjson m "$1"
		workload "$USERNS_CHECKS" "$core"
		hostile_run
		assert_contained
		explain_json
		assert_change 'uidMappings|gidMappings|namespaces\[user\]' dropped
	}
	# (every map covers the ids the container needs today: 0, 5 for
	# devpts and the workload's, so that today's runtime runs it)
	n=0
	for maps in \
		'{"u": [{"containerID": 65534, "hostID": 0, "size": 1},
			{"containerID": 0, "hostID": 100000, "size": 65534}], "uid": 0}' \
		'{"u": [{"containerID": 0, "hostID": 100000, "size": 1000},
			{"containerID": 1000, "hostID": 0, "size": 64536}], "uid": 1000}' \
		'{"u": [{"containerID": 0, "hostID": 100000, "size": 65536}],
		  "g": [{"containerID": 0, "hostID": 100000, "size": 65534},
			{"containerID": 65534, "hostID": 0, "size": 1}], "uid": 0}'; do
		n=$((n + 1))
		check_case "map $n $(jq -c . <<<"$maps")" one "$maps"
	done
	assert_equal "$(cat /proc/sys/kernel/core_pattern)" "$core"
	cases_done
}

@test "userns: with a policy user.idMap, a mapping outside it is refused naming it; one inside runs as the mapped host ids" {
	root_only_files
	policy="$BATS_TEST_TMPDIR/policy.json"
	write_policy "$policy" '{user: {idMap: {hostID: 200000, size: 65536}}}'
	refused() {
		base_config
		update_config '.linux.namespaces += [{type: "user"}] |
			.linux.uidMappings = $m.u | .linux.gidMappings = ($m.g // $m.u)' \
			--argjson m "$2"
		workload 'cat /rootsecret >/dev/null 2>&1 && echo "LEAK read it"'
		hostile_run --policy "$policy"
		assert_refused "$1"
	}
	# refused: host 0 in a later uid entry, a gid range leaving the
	# map, a workload uid nothing maps
	for case in \
		'.linux.uidMappings[1]|{"u": [{"containerID": 0, "hostID": 200000, "size": 65534}, {"containerID": 65534, "hostID": 0, "size": 1}]}' \
		'.linux.gidMappings[0]|{"u": [{"containerID": 0, "hostID": 200000, "size": 65536}], "g": [{"containerID": 0, "hostID": 265000, "size": 65536}]}' \
		'uid|{"u": [{"containerID": 0, "hostID": 200000, "size": 1000}]}'; do
		check_case "refused naming ${case%%|*}" refused "${case%%|*}" "${case#*|}"
	done
	cases_done
	# inside the map: 65534 in the container is 265534 on the host
	base_config
	update_config '.linux.namespaces += [{type: "user"}] |
		.linux.uidMappings = [{containerID: 0, hostID: 200000, size: 65536}] |
		.linux.gidMappings = .linux.uidMappings'
	workload 'cat /rootsecret >/dev/null 2>&1 && echo "LEAK read a host-root file"
echo READY
sleep 30'
	corral --policy "$policy" create --bundle "$BUNDLE" "$ID" </dev/null \
		>>"$BATS_TEST_TMPDIR/$ID.out" 2>>"$BATS_TEST_TMPDIR/$ID.err" ||
		fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	corral start "$ID" || fail "start failed"
	wait_for_file "$BATS_TEST_TMPDIR/$ID.out" '^READY$'
	# the workload's 65534, and the supervisor's own 65535 (its init)
	for p in $(container_procs "$pid"); do
		read -r _ ruid euid _ < <(grep '^Uid:' "/proc/$p/status")
		want=265534
		[ "$p" != "$pid" ] || want=265535
		[ "$ruid" = "$want" ] && [ "$euid" = "$want" ] ||
			fail "process $p: host uid $ruid/$euid, expected $want"
	done
	corral delete --force "$ID"
	[[ "$(cat "$BATS_TEST_TMPDIR/$ID.out")" != *LEAK* ]] ||
		fail "$(cat "$BATS_TEST_TMPDIR/$ID.out")"
	run --separate-stderr corral --policy "$policy" explain --bundle "$BUNDLE"
	assert_success
	assert_output --partial 265534
}

# ==== R2: hooks =============================================================

# hook_config MARKS: a hook of every kind.  The host-side ones write
# MARKS.KIND with who ran them (ids, capabilities, network namespace);
# createRuntime is the reported `/bin/sh -c id`.  The startContainer one
# runs in the container and prints HOOK-startContainer.  prestart goes
# through a symlink to /bin/sh.
hook_config() {
	ln -sf /bin/sh "$BATS_TEST_TMPDIR/sh-link"
	update_config '
		def h($k; $p): [{path: $p, args: ["sh", "-c",
			"{ id; grep CapEff /proc/self/status; readlink /proc/self/ns/net; } >\($m).\($k)"]}];
		.hooks = {
			prestart: h("prestart"; $link),
			createRuntime: h("createRuntime"; "/bin/sh"),
			createContainer: h("createContainer"; "/bin/sh"),
			startContainer: [{path: "/bin/sh", args: ["sh", "-c", "echo HOOK-startContainer"]}],
			poststart: h("poststart"; "/bin/sh"),
			poststop: h("poststop"; "/bin/sh")}' \
		--arg m "$1" --arg link "$BATS_TEST_TMPDIR/sh-link"
}

@test "hooks: none of the six kinds from config.json runs, through a symlink or not (default policy)" {
	marks="$BATS_TEST_TMPDIR/hook-ran"
	hook_config "$marks"
	workload 'true'
	hostile_run
	ran="$(ls "$marks".* 2>/dev/null || true)"
	for f in $ran; do
		echo "# $f: $(tr '\n' ' ' <"$f")" >&3
	done
	[ -z "$ran" ] || fail "hooks ran on the host: $ran"
	[[ "$output" != *HOOK-startContainer* ]] || fail "startContainer ran: $output"
	assert_contained
	explain_json
	for kind in prestart createRuntime createContainer startContainer poststart poststop; do
		assert_change "hooks.*$kind" dropped
	done
}

# An allowed hook, a second script it must never be confused with, and a
# path on the allowlist that is a symlink to the second one (the attacker
# owns the directory it is in).
hook_scripts() {
	HOOKS="$BATS_TEST_TMPDIR/hooks"
	mkdir -p "$HOOKS"
	printf '#!/bin/sh\necho "$*" >>%s\nenv >>%s\n' \
		"$HOOKS/allowed.log" "$HOOKS/allowed.env" >"$HOOKS/allowed"
	printf '#!/bin/sh\necho "$0 $*" >>%s\n' "$HOOKS/evil.log" >"$HOOKS/evil"
	chmod 0755 "$HOOKS/allowed" "$HOOKS/evil"
	ln -s evil "$HOOKS/listed-link"
	ln -s allowed "$HOOKS/link-to-allowed"
	cp "$HOOKS/allowed" "$ROOTFS/bin/in-root-hook"
	policy="$BATS_TEST_TMPDIR/policy.json"
	write_policy "$policy" '{hooks: {allow: [
		{path: ($h + "/allowed"), args: [($h + "/allowed"), "ok"]},
		{path: ($h + "/listed-link")},
		{path: "/bin/in-root-hook"}]}}' --arg h "$HOOKS"
}

@test "hooks: hooks.allow keeps an exact match with a fixed env; other args, a symlink to it, startContainer: dropped" {
	hook_scripts
	a="$HOOKS/allowed"
	update_config '.hooks = {
		prestart: [
			{path: $a, args: [$a, "ok"], env: ["SECRET_TOKEN=t0k3n", "PATH=/evil", "LD_PRELOAD=/evil.so"]},
			{path: $a, args: [$a, "evil-args"]},
			{path: $l, args: [$l, "ok"]}],
		startContainer: [{path: "/bin/in-root-hook"}]}' \
		--arg a "$a" --arg l "$HOOKS/link-to-allowed"
	workload 'true'
	hostile_run --policy "$policy"
	assert_contained
	# the exact match ran once, with only the fixed PATH
	assert_equal "$(cat "$HOOKS/allowed.log" 2>/dev/null)" ok
	assert_equal "$(grep -c . "$HOOKS/allowed.env")" \
		"$(grep -c -e '^PATH=' -e '^PWD=' -e '^SHLVL=' -e '^_=' "$HOOKS/allowed.env")"
	grep -qx 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		"$HOOKS/allowed.env" || fail "hook env: $(cat "$HOOKS/allowed.env")"
	[ ! -e "$HOOKS/evil.log" ] || fail "evil ran: $(cat "$HOOKS/evil.log")"
	explain_json --policy "$policy"
	assert_change 'hooks.*prestart.*1' dropped
	assert_change 'hooks.*prestart.*2' dropped
	assert_change 'hooks.*startContainer' dropped
}

@test "hooks: an allowlisted hook path that is a symlink never runs its target" {
	hook_scripts
	update_config '.hooks = {createRuntime: [{path: $p}]}' \
		--arg p "$HOOKS/listed-link"
	workload 'true'
	hostile_run --policy "$policy"
	[ ! -e "$HOOKS/evil.log" ] || fail "the link's target ran: $(cat "$HOOKS/evil.log")"
	refused_or_contained listed-link
	# the policy itself is understood (today: an unknown key)
	run --separate-stderr corral --policy "$policy" explain --bundle "$BUNDLE"
	assert_success
}

# ==== R3: engine files ======================================================

# A workload that looks through DEST for the host: the sentinel's files,
# /proc, a unix listener of the test's ($1), the host's /etc.
look_through() {
	local dest="$1"
	workload '
d='"$dest"'
for f in "$d" "$d'"$SENTINEL"'/secret" "$d/secret" "$d/hosts" "$d/etc/hostname" \
	"$d/proc/1/status" "$d/run"; do
	[ -f "$f" ] || [ -d "$f" ] || continue
	grep -q "sentinel\|host secret" "$f" 2>/dev/null && echo "LEAK $f: $(head -c 60 "$f")"
	[ "$f" = "$d/proc/1/status" ] && echo "LEAK host /proc through $d"
	[ "$f" = "$d/run" ] && echo "LEAK host /run through $d"
done
[ -d "$d" ] && echo "LEAK $d is a directory"
r="$(sysprobe connectunix "$d$1")"
[ "$r" = "connect OK" ] && echo "LEAK $r"
true' "$SOCK"
}

@test "engine files: a bundle link hosts -> / bound on /etc/hosts is refused; the host root and its sockets stay out" {
	SOCK="$BATS_TEST_TMPDIR/listen.sock"
	start_unix_listener "$SOCK" "$BATS_TEST_TMPDIR/listen.log"
	ln -s / "$BUNDLE/hosts"
	add_bind "$BUNDLE/hosts" /etc/hosts
	look_through /etc/hosts
	hostile_run
	assert_equal "$(grep -c accepted "$BATS_TEST_TMPDIR/listen.log")" 0
	assert_refused "$BUNDLE/hosts"
	# the listener works (control)
	python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "$SOCK"
	wait_for_file "$BATS_TEST_TMPDIR/listen.log" '^accepted$'
}

# A source in the bundle is opened (and a link refused); one anywhere
# else, a /proc magic link among them, is not an engine's file at all
# and is dropped unopened: either way nothing of the host is bound.
@test "engine files: links at each depth, relative links, a directory, /proc magic links: each refused or dropped (default policy)" {
	SOCK="$BATS_TEST_TMPDIR/listen.sock"
	start_unix_listener "$SOCK" "$BATS_TEST_TMPDIR/listen.log"
	b="$BUNDLE"
	mkdir -p "$b/a" "$b/pods/u/containers/n" "$b/etc-hosts"
	ln -s "$SENTINEL/secret" "$b/hosts"                     # last, to a file
	ln -s "$SENTINEL" "$b/first"                            # first component
	ln -s "$SENTINEL" "$b/a/mid"                            # middle component
	ln -s "../../../../../../../../..$SENTINEL/hosts-dir" "$b/resolv.conf" # relative, climbing out
	ln -s "$SENTINEL/secret" "$b/.containerenv"
	ln -s "$SENTINEL/secret" "$b/pods/u/containers/n/0123abcd"
	ln -s ../../../../../../../../../.. "$b/up"              # relative, to the host's /
	one() {
		base_config
		add_bind "$2" "$1"
		look_through "$1"
		hostile_run
		if [[ "$2" == *..* ]]; then
			# not a clean path: dropped already, and still so
			refused_or_contained "$1"
		elif [[ "$2" == /proc/* ]]; then
			# not in the bundle or an engine directory: dropped
			assert_contained
			explain_json
			assert_change "mounts\\[$1\\]" dropped
		else
			assert_refused "$2"
		fi
	}
	for case in \
		"/etc/hosts $b/hosts" \
		"/etc/hosts $b/first/hosts" \
		"/etc/resolv.conf $b/first/resolv.conf" \
		"/etc/hostname $b/a/mid/hostname" \
		"/etc/resolv.conf $b/resolv.conf" \
		"/etc/hosts $b/etc-hosts" \
		"/etc/hosts $b/first/../hosts" \
		"/etc/hosts $b/up/etc/hosts" \
		"/etc/hosts /proc/1/root$SENTINEL/hosts-dir/hosts" \
		"/etc/hosts /proc/$$/root$SENTINEL/hosts" \
		"/etc/hosts /proc/self/root$SENTINEL/hosts" \
		"/run/.containerenv $b/.containerenv" \
		"/dev/termination-log $b/pods/u/containers/n/0123abcd"; do
		check_case "$case" one "${case%% *}" "${case#* }"
	done
	assert_equal "$(grep -c accepted "$BATS_TEST_TMPDIR/listen.log")" 0
	cases_done
}

@test "engine files: /proc/self/cwd/hosts (the bundle through a magic link) is dropped; a plain bundle file is kept read-only" {
	echo "bundle hosts" >"$BUNDLE/hosts"
	add_bind /proc/self/cwd/hosts /etc/hosts
	workload '! grep -qs "bundle hosts" /etc/hosts || echo "LEAK the magic link was followed"'
	hostile_run
	refused_or_contained /proc/self/cwd/hosts
	# control: the bundle's own regular file is an engine file
	base_config
	add_bind "$BUNDLE/hosts" /etc/hosts
	workload 'grep -q "bundle hosts" /etc/hosts || echo "LEAK? no engine file"
(echo x >>/etc/hosts) 2>/dev/null && echo "LEAK /etc/hosts is writable"'
	hostile_run
	assert_contained
	assert_equal "$(cat "$BUNDLE/hosts")" "bundle hosts"
}

# ==== R4: mount options =====================================================

# remount_case DEST TYPE SOURCE OPTIONS-JSON: a mount with remount after
# what is already at DEST.
remount_case() {
	update_config '.mounts += [{destination: $d, type: $t, source: $s,
		options: $o}]' --arg d "$1" --arg t "$2" --arg s "$3" --argjson o "$4"
}

# A workload that tries to write through the forced read-only bind at
# DEST ($1, a file or a directory) and checks its mount is ro.
WRITE_RO='
d="$1"
t="$d"; [ -d "$d" ] && t="$d/f"
(echo pwned >>"$t") 2>/dev/null && echo "LEAK wrote $t"
awk -v d="$d" '"'"'$5 == d { print $6 }'"'"' /proc/self/mountinfo | grep -qv "^ro,\|,ro,\|,ro$\|^ro$" &&
	echo "LEAK $d is mounted rw: $(awk -v d="$d" '"'"'$5 == d { print $6 }'"'"' /proc/self/mountinfo | tr "\n" " ")"
true'

@test "remount: a later remount of an allowed ro bind is dropped: no write, the (test's) host filesystem untouched" {
	fs="$BATS_TEST_TMPDIR/hostfs"
	make_host_fs "$fs"
	before="$(fs_options "$fs")"
	policy="$BATS_TEST_TMPDIR/policy.json"
	one() {
		local type="$1" src="$2" opts="$3"
		[ "$src" != SHARE ] || src="$share"
		base_config
		add_bind "$share" /data
		remount_case /data "$type" "$src" "$opts"
		workload "$WRITE_RO" /data
		hostile_run --policy "$policy"
		assert_unchanged share "$share"
		assert_equal "$(fs_options "$fs")" "$before"
		touch "$fs/host-can-write" || fail "the host's filesystem became read-only"
		rm "$fs/host-can-write"
		assert_contained
		explain_json --policy "$policy"
		assert_change '^\.mounts\[/data\]' dropped
		# explain says ro, and now it is true
		jq -e '[.reach.filesystem.mounts[]? | select(.destination == "/data") | .readOnly] | all' \
			<<<"$EXPLAIN" >/dev/null || fail "explain: $(jq -c .reach.filesystem <<<"$EXPLAIN")"
	}
	n=0
	for later in \
		'tmpfs tmpfs ["remount"]' \
		'tmpfs tmpfs ["remount", "ro"]' \
		'proc proc ["remount", "rw"]' \
		'bind SHARE ["rbind", "remount", "rw"]'; do
		# a share of its own for each case, ro in the policy
		n=$((n + 1))
		share="$fs/share$n"
		mkdir "$share"
		echo original >"$share/f"
		chmod 0777 "$share"
		chmod 0666 "$share/f"
		snapshot share "$share"
		allow_policy "$policy" "$share"
		read -r type src opts <<<"$later"
		check_case "$later" one "$type" "$src" "$opts"
		# undo on the test's own tmpfs whatever the case did to it
		mount -o remount,rw,size=4m "$fs"
	done
	cases_done
}

@test "remount: under the default policy, remounts of /etc/hosts, /sys, /tmp and a bind are dropped" {
	bundle_on_host_fs
	echo "bundle hosts" >"$BUNDLE/hosts"
	chmod 0666 "$BUNDLE/hosts"
	before="$(fs_options "$HOST_FS")"
	one() {
		local dest="$1" type="$2" src="$3" opts="$4"
		[ "$src" != HOSTS ] || src="$BUNDLE/hosts"
		base_config
		add_bind "$BUNDLE/hosts" /etc/hosts
		remount_case "$dest" "$type" "$src" "$opts"
		workload "$WRITE_RO"'
[ -w /sys/kernel ] && echo "LEAK /sys/kernel is writable"
awk '"'"'$5 == "/sys" { print $NF }'"'"' /proc/self/mountinfo | grep -q "^ro\|,ro" ||
	echo "LEAK the container'"'"'s sysfs superblock is rw"
k="$(df -k /tmp | awk '"'"'NR == 2 { print $2 }'"'"')"
[ "$k" -le 65536 ] || echo "LEAK /tmp is $k KiB, over the 64 MiB cap"' /etc/hosts
		hostile_run
		assert_equal "$(cat "$BUNDLE/hosts")" "bundle hosts"
		assert_equal "$(fs_options "$HOST_FS")" "$before"
		assert_contained
		explain_json
		assert_change "^\\.mounts\\[$dest\\]" dropped
	}
	for case in \
		'/etc/hosts tmpfs tmpfs ["remount"]' \
		'/etc/hosts bind HOSTS ["rbind", "remount", "rw"]' \
		'/sys proc proc ["remount"]' \
		'/sys tmpfs tmpfs ["remount"]' \
		'/sys sysfs sysfs ["remount", "rw"]' \
		'/tmp tmpfs tmpfs ["remount", "size=1g"]'; do
		read -r dest type src opts <<<"$case"
		check_case "$case" one "$dest" "$type" "$src" "$opts"
		mount -o remount,rw,size=16m "$HOST_FS"
	done
	cases_done
}

@test "mount propagation: rshared on a bind and rootfsPropagation shared are narrowed" {
	mkdir -p "$ALLOWED/sub"
	policy="$BATS_TEST_TMPDIR/policy.json"
	allow_policy "$policy" "$ALLOWED" rw
	update_config '.linux.rootfsPropagation = "shared"'
	add_bind "$ALLOWED/sub" /data '["rbind", "rshared"]'
	workload 'grep -q "shared:" /proc/self/mountinfo &&
	echo "LEAK shared mounts: $(grep "shared:" /proc/self/mountinfo | cut -d" " -f5 | tr "\n" " ")"
true'
	hostile_run --policy "$policy"
	assert_contained
	explain_json --policy "$policy"
	assert_change 'rootfsPropagation' 'slave'
	assert_change '^\.mounts\[/data\]'
	jq -e '[.changes[] | select(.field == ".mounts[/data]") | .applied] | all(test("shared") | not)' \
		<<<"$EXPLAIN" >/dev/null || fail "rshared kept: $(jq -c .changes <<<"$EXPLAIN")"
}

# ==== R5: links under a policy-allowed directory ============================

# An allowed directory with a directory of its own (the control) and the
# attacker's links; the policy allows it read-write.
allowed_dir() {
	mkdir -p "$ALLOWED/sub" "$ALLOWED/a/b"
	echo "allowed data" >"$ALLOWED/sub/id"
	chmod -R a+rwX "$ALLOWED"
	policy="$BATS_TEST_TMPDIR/policy.json"
	allow_policy "$policy" "$ALLOWED" rw
}

# A workload that writes and reads through DEST and says what it found.
LOOK_MNT='
d="$1"
t="$d"; [ -d "$d" ] && t="$d/pwned"
grep -q "host secret\|sentinel" "$d" "$d/secret" "$d/hosts" 2>/dev/null && echo "LEAK the sentinel at $d"
[ -e "$d/passwd" ] && [ -e "$d/hostname" ] && echo "LEAK host /etc at $d"
[ -e "$d/sub/file" ] && echo "LEAK the sentinel tree at $d"
[ -e "$d/config.json" ] || [ -e "$d/rootfs" ] && echo "LEAK the bundle at $d"
[ -e "$d/bin/busybox" ] && [ -e "$d/proc" ] && echo "LEAK a root directory at $d"
(echo x >"$t") 2>/dev/null && [ ! -e "$d/id" ] && echo "LEAK wrote $t"
true'

@test "allowed directory: links to host directories (/etc ro, a /tmp stand-in rw) are refused; the target is never mounted" {
	allowed_dir
	ln -s /etc "$ALLOWED/etclink"
	ln -s "$SENTINEL" "$ALLOWED/link"
	one() {
		base_config
		add_bind "$ALLOWED/$1" /mnt "$2"
		workload "$LOOK_MNT" /mnt
		hostile_run --policy "$policy"
		assert_refused "$ALLOWED/$1"
	}
	check_case "etclink ro" one etclink '["rbind","ro"]'
	check_case "link rw" one link '["rbind","rw"]'
	check_case "link" one link '["rbind"]'
	cases_done
	# control: the directory itself is mounted rw
	base_config
	add_bind "$ALLOWED/sub" /mnt '["rbind","rw"]'
	workload "$LOOK_MNT"'
grep -q "allowed data" /mnt/id || echo "LEAK? the allowed directory is not there"
echo w >/mnt/written || echo "LEAK? the rw entry is not writable"' /mnt
	hostile_run --policy "$policy"
	assert_contained
	assert_equal "$(cat "$ALLOWED/sub/written")" w
}

@test "allowed directory: links at the first, middle and last component, relative, to a file, to /proc magic links: each refused" {
	allowed_dir
	ln -s "$SENTINEL" "$ALLOWED/l1"                                  # first
	ln -s "$SENTINEL" "$ALLOWED/a/l2"                                # middle
	ln -s "$SENTINEL/sub" "$ALLOWED/a/b/l3"                          # last
	ln -s "../../../../../../../../../..$SENTINEL" "$ALLOWED/rel"    # relative, climbing out
	ln -s "$SENTINEL/secret" "$ALLOWED/file"                         # a file
	ln -s "/proc/1/root$SENTINEL" "$ALLOWED/pid1root"                # magic: /proc/N/root
	ln -s "/proc/$$/root$SENTINEL" "$ALLOWED/myroot"
	ln -s /proc/self/cwd "$ALLOWED/cwd"                              # magic: the bundle
	for n in 3 4 5 6 7 8; do
		ln -s "/proc/self/fd/$n" "$ALLOWED/fd$n"                 # magic: /proc/self/fd/N
	done
	one() {
		local src="$1" dest=/mnt
		[ "$src" != file ] || dest=/mnt-file
		base_config
		add_bind "$ALLOWED/$src" "$dest" '["rbind","rw"]'
		workload "$LOOK_MNT" "$dest"
		hostile_run --policy "$policy"
		if [[ "$src" == *..* ]]; then
			refused_or_contained "$src" # not clean: dropped already
		else
			assert_refused "$ALLOWED/$src"
		fi
	}
	for src in l1/sub a/l2/sub a/b/l3 rel rel/sub file pid1root myroot cwd \
		fd3 fd4 fd5 fd6 fd7 fd8 l1/../sub; do
		check_case "$src" one "$src"
	done
	# a link inside a bound directory resolves in the container: fine
	ln -s "$SENTINEL" "$ALLOWED/sub/inner"
	base_config
	add_bind "$ALLOWED/sub" /mnt
	workload "$LOOK_MNT" /mnt/inner
	hostile_run --policy "$policy"
	assert_contained
	cases_done
}

@test "allowed directory: a directory swapped with a link during create is never mounted as the link's target" {
	allowed_dir
	ln -s "$SENTINEL" "$ALLOWED/swap"
	add_bind "$ALLOWED/sub" /mnt '["rbind","rw"]'
	workload "$LOOK_MNT" /mnt
	start_swapper "$ALLOWED/sub" "$ALLOWED/swap" 8
	refused=0 ran=0 leaks=0 tries=0
	end=$(($(now_ms) + 6000))
	while [ "$tries" -lt 60 ] && [ "$(now_ms)" -lt "$end" ]; do
		tries=$((tries + 1))
		hostile_run -t 10 --policy "$policy"
		if [[ "$output" == *LEAK* ]]; then
			leaks=$((leaks + 1))
		elif [ "$status" -eq 0 ]; then
			ran=$((ran + 1))
		else
			one_line_error
			refused=$((refused + 1))
		fi
		keep_run assert_no_leftovers "$ID"
	done
	echo "# $tries tries: $ran ran, $refused refused, $leaks leaked" >&3
	[ "$leaks" -eq 0 ] || fail "$leaks of $tries tries mounted the link's target"
	[ "$ran" -gt 0 ] || [ "$refused" -gt 0 ] || fail "no try at all"
}

@test "allowed directory: followLinks follows a link inside the entry and refuses one that leaves it" {
	allowed_dir
	write_policy "$policy" '{mounts: [{source: $s, rw: true, followLinks: true}]}' \
		--arg s "$ALLOWED"
	ln -s sub "$ALLOWED/inside"
	ln -s "$SENTINEL" "$ALLOWED/out"
	ln -s "../$(basename "$ALLOWED")/sub" "$ALLOWED/up-and-back"
	ln -s "../../../../../../../../..$SENTINEL" "$ALLOWED/rel-out"
	add_bind "$ALLOWED/inside" /mnt
	workload "$LOOK_MNT"'
grep -q "allowed data" /mnt/id || echo "LEAK? the link inside was not followed"' /mnt
	hostile_run --policy "$policy"
	assert_contained
	for src in out rel-out up-and-back; do
		base_config
		add_bind "$ALLOWED/$src" /mnt
		workload "$LOOK_MNT" /mnt
		hostile_run --policy "$policy"
		assert_refused "$ALLOWED/$src"
	done
}

# ==== R6: sandbox --workspace ================================================

# sandbox_try POLICY-ARGS...: one `corral sandbox --workspace $WS` whose
# command reports what /workspace is.
sandbox_try() {
	capture corral_t 20 "$@" sandbox --workspace "$WS" -- sh -c '
echo RAN
[ -e /workspace/secret ] && echo "LEAK the sentinel at /workspace"
[ -e /workspace/proc ] && [ -e /workspace/etc ] && echo "LEAK the host root at /workspace"
(echo x >/workspace/pwned) 2>/dev/null && [ ! -e /workspace/id ] && echo "LEAK wrote /workspace"
[ -e /workspace/id ] && echo WS
echo CONTAINED' </dev/null
}

# swap_tries POLICY-ARGS...: up to 60 `corral sandbox --workspace $WS`
# in 8 s while a swapper exchanges $WS and a link to the sentinel; fails
# the test if one mounted the link's target, then checks that without the
# swapper the workspace itself is mounted.
swap_tries() {
	local refused=0 ws=0 none=0 leaks=0 tries=0 end
	end=$(($(now_ms) + 8000))
	while [ "$tries" -lt 60 ] && [ "$(now_ms)" -lt "$end" ]; do
		tries=$((tries + 1))
		sandbox_try "$@"
		if [[ "$output" == *LEAK* ]]; then
			leaks=$((leaks + 1))
		elif [ "$status" -ne 0 ]; then
			one_line_error
			refused=$((refused + 1))
		elif [[ "$output" == *WS* ]]; then
			ws=$((ws + 1))
		else
			none=$((none + 1))
		fi
		[ -z "$(state_entries)" ] || fail "left in the state root: $(state_entries)"
	done
	echo "# $tries tries: $ws the workspace, $none without one, $refused refused, $leaks leaked" >&3
	[ "$leaks" -eq 0 ] || fail "$leaks of $tries tries mounted the link's target at /workspace"
	# control, without the swapper: the workspace itself
	stop_swappers
	sandbox_try "$@"
	assert_success
	assert_line WS
}

@test "sandbox --workspace: a directory swapped with a link to a host directory is never mounted (allowed workspace)" {
	allowed_dir
	WS="$ALLOWED/sub"
	ln -s "$SENTINEL" "$ALLOWED/swap"
	start_swapper "$ALLOWED/sub" "$ALLOWED/swap" 10
	swap_tries --policy "$policy"
}

# The caller's own directory is a workspace under the default policy
# (workspace.allowOwn): a link swapped in for it would lead to any other
# directory of the caller's, root's here, the sentinel among them.
@test "sandbox --workspace: under the default policy the caller's own directory is mounted, a link swapped in for it never followed" {
	allowed_dir
	WS="$ALLOWED/sub"
	ln -s "$SENTINEL" "$ALLOWED/swap"
	start_swapper "$ALLOWED/sub" "$ALLOWED/swap" 4
	swap_tries
}
