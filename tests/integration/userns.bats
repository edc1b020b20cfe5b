#!/usr/bin/env bats
# corral's own user namespace (policy: user.pool, or /etc/subuid's
# "corral" range): each container's ids 0-65535 are a slice of the pool
# of its own, the root filesystem's layers are idmapped onto it so that
# the image's root owns its files inside, and the workload runs as root
# of that namespace with no capability; a pod's members share their pod
# sandbox's.  Each test has a pool of its own (POOL, 16 slices), so that
# no other test's containers take its slices.

load helpers

setup_file() {
	corral_setup_file
}

setup() {
	corral_setup
	# a range of 32 slices no other test uses: above 2^30, by this run's
	# pid and the test's number
	POOL=$((1073741824 + ($$ % 150 * 256 + BATS_TEST_NUMBER * 32) * 65536))
	POLICY="$BATS_TEST_TMPDIR/policy.json"
	write_policy 1048576
	# the image: root-owned, as images are; /work is its working directory
	mkdir -m 0755 "$ROOTFS/work"
	echo image >"$ROOTFS/work/old"
	update_config '.root.readonly = false | .process.user = {uid: 0, gid: 0}
		| .process.cwd = "/work"'
}

teardown() {
	corral_teardown
	for m in "$BATS_TEST_TMPDIR"/ovl/store/overlay/*/merged; do
		if mountpoint -q "$m" 2>/dev/null; then umount "$m"; fi
	done
}

# write_policy SIZE [MORE]: the test's pool of SIZE ids, and MORE keys.
write_policy() {
	printf '{%s"user": {"pool": {"hostUID": %d, "hostGID": %d, "size": %d}}}\n' \
		"${2:-}" "$POOL" "$POOL" "$1" >"$POLICY"
}

run_own() {
	corral --policy "$POLICY" run -d --bundle "$BUNDLE" "$1" \
		</dev/null >>"$BATS_TEST_TMPDIR/$1.out" 2>>"$BATS_TEST_TMPDIR/$1.err"
}

# host_ids PID: "UID GID" of PID on the host (real ids).
host_ids() {
	awk '$1 == "Uid:" { u = $2 } $1 == "Gid:" { g = $2 } END { print u, g }' \
		"/proc/$1/status"
}

# slice_of PID: the host ids PID's user namespace maps, "UID-BASE GID-BASE
# COUNT".  Unlike host_ids, it does not depend on how far the supervisor
# has come: right after run -d it may not have taken its own id yet.
slice_of() {
	echo "$(awk '{ print $2; exit }' "/proc/$1/uid_map")" \
		"$(awk '{ print $2, $3; exit }' "/proc/$1/gid_map")"
}

@test "the image's root owns its files: uid 0 inside writes the root-owned workdir, as a slice of the pool on the host" {
	set_args sh -c 'id; echo new >test.go && echo more >>old && echo wrote
		cat /proc/self/uid_map /proc/self/gid_map; exec sleep 100'
	run_own "$ID" || fail "run: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	poll_equal "output" 4 50 sh -c "wc -l <'$BATS_TEST_TMPDIR/$ID.out'"
	run cat "$BATS_TEST_TMPDIR/$ID.out"
	assert_line --index 0 "uid=0 gid=0"
	assert_line --index 1 wrote
	local pid base
	pid="$(container_pid "$ID")"
	# the workload (the supervisor's child) runs as the slice's first
	# id, the supervisor as its last (its own 65535): host root is
	# nowhere
	base="$(awk '{print $2; exit}' "/proc/$pid/uid_map")"
	[ "$base" -ge "$POOL" ] && [ "$base" -lt $((POOL + 1048576)) ] ||
		fail "host uid $base is outside the pool $POOL"
	assert_line --index 2 --regexp "^ +0 +$base +65536$"
	assert_equal "$(host_ids "$pid")" "$((base + 65535)) $((base + 65535))"
	for child in $(cat "/proc/$pid/task/$pid/children"); do
		assert_equal "$(host_ids "$child")" "$base $base"
		run grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' "/proc/$child/status"
		assert_output "CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	0000000000000000
NoNewPrivs:	1
Seccomp:	2"
	done
	# the slice is held while the container lives, by this container
	[ -f "/run/corral-userns/$base" ] || fail "no slice file $base"
	assert_equal "$(sed -n 2p "/run/corral-userns/$base")" "$ID"
	# the image itself is untouched, owner and content
	assert_equal "$(stat -c '%u:%g' "$ROOTFS/work" "$ROOTFS/work/old")" "0:0
0:0"
	assert_equal "$(cat "$ROOTFS/work/old")" image
	[ ! -e "$ROOTFS/work/test.go" ]
	run corral explain "$ID"
	assert_output --regexp "user namespace +uid 0-65535 -> host $base-"
	corral delete --force "$ID"
	[ ! -e "/run/corral-userns/$base" ] || fail "the slice is still held"
	assert_no_leftovers "$ID"
}

@test "in its own user namespace the workload may run on every CPU its create could" {
	[ "$(nproc)" -gt 1 ] || skip "one CPU: nothing is moved"
	want="$(grep '^Cpus_allowed_list:' /proc/self/status)"
	set_args grep '^Cpus_allowed_list:' /proc/self/status
	for i in $(seq 3); do
		run corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID"
		assert_success
		assert_output "$want"
	done
}

@test "two containers hold two slices; a full pool refuses the third with the reason, leaving nothing" {
	write_policy 131072
	set_args sleep 100
	run_own "$ID-a" || fail "run a: $(cat "$BATS_TEST_TMPDIR/$ID-a.err")"
	run_own "$ID-b" || fail "run b: $(cat "$BATS_TEST_TMPDIR/$ID-b.err")"
	local a b
	a="$(slice_of "$(container_pid "$ID-a")")"
	b="$(slice_of "$(container_pid "$ID-b")")"
	[ "$a" != "$b" ] || fail "both containers run as $a"
	run --separate-stderr corral --policy "$POLICY" run -d --bundle "$BUNDLE" "$ID-c" </dev/null
	assert_error_line
	[[ "$stderr" == *"user.pool: all 2 slices of 65536 ids are in use"* ]] ||
		fail "stderr: $stderr"
	[ ! -e "$ROOT/$ID-c" ] || fail "a state directory of $ID-c is left"
	corral delete --force "$ID-a"
	run_own "$ID-c" || fail "run c after a: $(cat "$BATS_TEST_TMPDIR/$ID-c.err")"
	assert_equal "$(slice_of "$(container_pid "$ID-c")")" "$a"
}

@test "a slice left by a killed create is taken again; another's live one is not" {
	write_policy 65536
	# a holder whose container directory is gone and whose create ended
	mkdir -p -m 0700 /run/corral-userns
	printf '%s\n%s\n%d %d\n' "$ROOT" "$ID-gone" 999999999 1 >"/run/corral-userns/$POOL"
	set_args sleep 100
	run_own "$ID" || fail "run: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	assert_equal "$(sed -n 2p "/run/corral-userns/$POOL")" "$ID"
	assert_equal "$(sed -n 2p "/run/corral-userns/g$POOL")" "$ID"
	run --separate-stderr corral --policy "$POLICY" run -d --bundle "$BUNDLE" "$ID-2" </dev/null
	assert_error_line
	[[ "$stderr" == *"all 1 slices"* ]] || fail "stderr: $stderr"
}

@test "a record a killed take left empty is taken again; gids another pool's slice holds are not given twice" {
	write_policy 65536
	mkdir -p -m 0700 /run/corral-userns
	: >"/run/corral-userns/g$POOL"
	set_args sleep 100
	run_own "$ID" || fail "run: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	assert_equal "$(sed -n 2p "/run/corral-userns/g$POOL")" "$ID"
	# a pool whose uids are free but whose gids are the first's
	printf '{"user": {"pool": {"hostUID": %d, "hostGID": %d, "size": 65536}}}\n' \
		"$((POOL + 65536))" "$POOL" >"$BATS_TEST_TMPDIR/other.json"
	run --separate-stderr corral --policy "$BATS_TEST_TMPDIR/other.json" \
		run -d --bundle "$BUNDLE" "$ID-2" </dev/null
	assert_error_line
	[[ "$stderr" == *"all 1 slices"* ]] || fail "stderr: $stderr"
	[ ! -e "/run/corral-userns/$((POOL + 65536))" ] || fail "a record of the refused slice is left"
	corral delete --force "$ID"
	[ -z "$(ls /run/corral-userns | grep -x "g\?$POOL")" ] || fail "the slice's records are left"
}

@test "supplementary groups are the container's own in its user namespace: kept" {
	update_config '.process.user.additionalGids = [5, 2000, 70000]'
	set_args sh -c 'id -G'
	run --separate-stderr corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_output "0 5 2000"
	run corral --policy "$POLICY" explain --bundle "$BUNDLE"
	assert_output --partial ".process.user.additionalGids"
	assert_output --partial "[5, 2000, 70000] -> [5, 2000]"
}

@test "without a pool, the container has no user namespace: uid 0 is 65534 on the host as before" {
	echo '{}' >"$POLICY"
	set_args sh -c 'id -u; cat /proc/self/uid_map'
	run --separate-stderr corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_line --index 0 65534
	assert_line --index 1 --regexp '^ +0 +0 +4294967295$'
}

# An engine's root filesystem is an overlay mount (containerd, CRI-O,
# podman's overlay driver): it cannot be idmapped, its layers can.
# mount_engine_overlay ID [N]: the bundle's root as such an overlay, of
# the rootfs's layer under N-1 more (default 1 in all), layer i holding
# /layer-i and a /which of its own number (the top's is seen); mounted
# where containers-storage mounts container ID's root (ovl/store), which
# its list gives ID, and its layers in ovl/layers.
mount_engine_overlay() {
	local o="$BATS_TEST_TMPDIR/ovl" n="${2:-1}" lowers="" i
	local merged="$o/store/overlay/l-$1/merged"
	mkdir -p "$o/layers/lower" "$o/layers/upper" "$o/layers/work" "$merged" \
		"$o/store/overlay-containers"
	jq -n --arg i "$1" '[{id: $i, layer: ("l-" + $i)}]' \
		>"$o/store/overlay-containers/containers.json"
	cp -a "$ROOTFS/." "$o/layers/lower/"
	echo from-upper >"$o/layers/upper/engine-file"
	for i in $(seq 2 "$n"); do
		mkdir "$o/layers/l$i" && echo "$i" >"$o/layers/l$i/layer-$i" &&
			echo "$i" >"$o/layers/l$i/which"
		lowers="$o/layers/l$i:$lowers"
	done
	mount -t overlay overlay -o "lowerdir=$lowers$o/layers/lower,upperdir=$o/layers/upper,workdir=$o/layers/work" \
		"$merged" || fail "mount the engine's overlay"
	ENGINE_MERGED="$merged"
	update_config '.root.path = $p' --arg p "$merged"
}

@test "an engine's overlay root: its layers idmapped and stacked again; the engine's upper layer unchanged" {
	mount_engine_overlay "$ID"
	write_policy 1048576 "\"engineDirs\": [\"$BATS_TEST_TMPDIR/ovl/store\", \"$BATS_TEST_TMPDIR/ovl/layers\"], "
	set_args sh -c 'cat /engine-file; echo x >/work/new && echo wrote; stat -c %u /work'
	run --separate-stderr corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_output "from-upper
wrote
0"
	[ ! -e "$BATS_TEST_TMPDIR/ovl/layers/upper/work/new" ] || fail "the engine's upper layer was written"
	[ ! -e "$ENGINE_MERGED/work/new" ] || fail "the engine's overlay was written"
}

@test "an engine's overlay root of 4 and of 24 layers: every layer stacked again in order" {
	local n
	for n in 4 24; do
		mount_engine_overlay "$ID-$n" "$n"
		write_policy 1048576 "\"engineDirs\": [\"$BATS_TEST_TMPDIR/ovl/store\", \"$BATS_TEST_TMPDIR/ovl/layers\"], "
		set_args sh -c 'cat /which; ls / | grep -c "^layer-"; cat /engine-file'
		run --separate-stderr corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID-$n" </dev/null
		assert_success
		assert_output "$n
$((n - 1))
from-upper"
		umount "$ENGINE_MERGED" && rm -rf "$BATS_TEST_TMPDIR/ovl"
	done
}

@test "an overlay root whose layers are outside the engine directories is refused, naming engineDirs" {
	mount_engine_overlay "$ID"
	write_policy 1048576 "\"engineDirs\": [\"$BATS_TEST_TMPDIR/ovl/store\"], "
	set_args true
	run --separate-stderr corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID" </dev/null
	assert_error_line
	[[ "$stderr" == *"overlay layer $BATS_TEST_TMPDIR/ovl/layers/upper: not below an engine directory (policy: engineDirs)"* ]] ||
		fail "stderr: $stderr"
	assert_no_leftovers "$ID"
}

# pod_bundle NAME ANNOTATIONS [PAUSE-PID] ARG...: a copy of the bundle; a
# member (PAUSE-PID given) names its pod sandbox's ipc, uts and network
# namespaces as containerd's CRI does.
pod_bundle() {
	local name="$1" ann="$2" pause="$3" b="$BATS_TEST_TMPDIR/b-$1"
	shift 3
	cp -a "$BUNDLE" "$b" || fail "copy the bundle"
	(BUNDLE="$b"
	 update_config '.annotations = $a' --argjson a "$ann"
	 if [ -n "$pause" ]; then
		update_config 'del(.hostname) | .linux.namespaces |= map(
			if .type == "network" then .path = "/proc/\($p)/ns/net"
			elif .type == "ipc" or .type == "uts" then .path = "/proc/\($p)/ns/\(.type)"
			else . end)' --arg p "$pause"
	 fi
	 set_args "$@")
}

# run_pod_sandbox: $ID-pause, a pod sandbox as the CRI makes one, running
# under the test's policy; its pid in PAUSE.
run_pod_sandbox() {
	pod_bundle "$ID-pause" "{\"io.kubernetes.cri.container-type\": \"sandbox\",
		\"io.kubernetes.cri.sandbox-id\": \"$ID-pause\"}" "" sleep 1000
	corral --policy "$POLICY" run -d --bundle "$BATS_TEST_TMPDIR/b-$ID-pause" "$ID-pause" \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/pause.err" ||
		fail "pause: $(cat "$BATS_TEST_TMPDIR/pause.err")"
	PAUSE="$(container_pid "$ID-pause")"
}

# run_pod_member NAME ARG...: $ID-NAME, a member of $ID-pause running
# ARG...; MEMBER_JQ, when set, edits its config.json first ($p is the
# pod sandbox's pid).
run_pod_member() {
	local name="$1"
	shift
	pod_bundle "$ID-$name" "{\"io.kubernetes.cri.container-type\": \"container\",
		\"io.kubernetes.cri.sandbox-id\": \"$ID-pause\"}" "$PAUSE" "$@"
	[ -z "${MEMBER_JQ:-}" ] ||
		(BUNDLE="$BATS_TEST_TMPDIR/b-$ID-$name"
		 update_config "$MEMBER_JQ" --arg p "$PAUSE")
	corral --policy "$POLICY" run -d --bundle "$BATS_TEST_TMPDIR/b-$ID-$name" "$ID-$name" \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/$name.err" ||
		fail "$name: $(cat "$BATS_TEST_TMPDIR/$name.err")"
}

@test "a pod's members join its pod sandbox's user namespace: one slice, one network, each image's root its own" {
	local pause pid
	run_pod_sandbox
	pause="$PAUSE"
	run_pod_member web busybox httpd -f -p 127.0.0.1:80 -h /work
	run_pod_member app sh -c 'echo mine >/work/app && exec sleep 1000'
	for c in web app; do
		pid="$(container_pid "$ID-$c")"
		assert_equal "$(readlink "/proc/$pid/ns/user")" "$(readlink "/proc/$pause/ns/user")"
		assert_equal "$(readlink "/proc/$pid/ns/net")" "$(readlink "/proc/$pause/ns/net")"
		assert_equal "$(slice_of "$pid")" "$(slice_of "$pause")"
		[ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink "/proc/$pause/ns/mnt")" ] ||
			fail "$c shares the pause's mount namespace"
		[ "$(readlink "/proc/$pid/ns/pid")" != "$(readlink "/proc/$pause/ns/pid")" ] ||
			fail "$c shares the pause's pid namespace"
	done
	run corral exec "$ID-app" sh -c 'for i in $(seq 50); do
		busybox wget -q -O- http://127.0.0.1:80/old && exit 0; sleep 0.1; done; exit 1'
	assert_success
	assert_output image
	run corral exec "$ID-app" cat /work/app
	assert_output mine
	run corral exec "$ID-app" ls /sys/class/net
	assert_output lo
	run corral explain "$ID-app"
	assert_output --partial "its pod sandbox's user namespace"
	# one slice, the pod sandbox's: the members hold none of their own
	[ -z "$(grep -lx "$ID-app\|$ID-web" /run/corral-userns/* 2>/dev/null)" ] ||
		fail "a member holds a slice"
	corral delete --force "$ID-app"
	corral delete --force "$ID-web"
	corral delete --force "$ID-pause"
}

@test "a pod sandbox deleted before its member: the slice stays the pod's until the member goes" {
	write_policy 65536
	run_pod_sandbox
	run_pod_member app sleep 1001
	corral delete --force "$ID-pause"
	[ -f "/run/corral-userns/$POOL" ] && [ -f "/run/corral-userns/g$POOL" ] ||
		fail "the slice was given back while the member runs in it"
	set_args sleep 100
	run --separate-stderr corral --policy "$POLICY" run -d --bundle "$BUNDLE" "$ID-new" </dev/null
	assert_error_line
	[[ "$stderr" == *"all 1 slices"* ]] || fail "stderr: $stderr"
	corral delete --force "$ID-app"
	[ ! -e "/run/corral-userns/$POOL" ] && [ ! -e "/run/corral-userns/g$POOL" ] ||
		fail "the last member's delete left the slice held"
	run_own "$ID-new" || fail "run new: $(cat "$BATS_TEST_TMPDIR/$ID-new.err")"
}

@test "a pod member in its pod's pid namespace: the pid corral records is the member's own, on the host" {
	local pause pid
	run_pod_sandbox
	pause="$PAUSE"
	MEMBER_JQ='.linux.namespaces |= map(if .type == "pid"
		then .path = "/proc/\($p)/ns/pid" else . end)' run_pod_member app sleep 1001
	pid="$(container_pid "$ID-app")"
	# the process at that host pid is the member's: in the pod's pid and
	# user namespaces, in a mount namespace of its own, its child the sleep
	assert_equal "$(readlink "/proc/$pid/ns/pid")" "$(readlink "/proc/$pause/ns/pid")"
	assert_equal "$(readlink "/proc/$pid/ns/user")" "$(readlink "/proc/$pause/ns/user")"
	[ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink "/proc/$pause/ns/mnt")" ] ||
		fail "pid $pid is not the member's"
	poll_equal "the member's sleep, a child of pid $pid" "sleep 1001" 50 \
		sh -c 'c="$(cat "/proc/$0/task/$0/children")" &&
			tr "\0" " " <"/proc/${c%% *}/cmdline" | sed "s/ $//"' "$pid"
	corral delete --force "$ID-app"
	kill -0 "$pause" || fail "deleting the member ended the pod sandbox"
	corral delete --force "$ID-pause"
}

@test "root of its own user namespace cannot reach its supervisor even as its first call: prlimit and kill of PID 1 refused in every run" {
	# The workload is root of the namespace, which the supervisor was
	# until it took its own ids: a switch after the workload's exec left
	# a window in which such a first call won in 11 to 20 of 20 runs.
	# prlimit needs the uids and the gids to match, kill (signal 0: the
	# permission alone) the uids.
	local out results=""
	cp "${ATTACKER:-$REPO_ROOT/build/helpers/static/attacker}" "$ROOTFS/bin/attacker"
	for attack in "prlimit 1" "signal 1 0"; do
		set_args /bin/attacker $attack
		for i in $(seq 20); do
			out="$(bounded 60 corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID-$i" </dev/null 2>&1)" || true
			results+="$out"$'\n'
		done
	done
	assert_equal "$(grep -c '^prlimit EPERM$' <<<"$results")" 20
	assert_equal "$(grep -c '^kill EPERM$' <<<"$results")" 20
	assert_equal "$(grep -v -e '^prlimit EPERM$' -e '^kill EPERM$' -e '^$' <<<"$results")" ""
}

@test "root of its own user namespace gains nothing: a setuid binary, mount, unshare, another's files" {
	cp "$REPO_ROOT/build/helpers/static/sysprobe" "$ROOTFS/bin/sysprobe"
	cp "$ROOTFS/bin/sysprobe" "$ROOTFS/bin/suidprobe"
	chmod 6755 "$ROOTFS/bin/suidprobe"
	# a host directory of root's, lent read-write by the policy: inside it
	# is nobody's, the namespace's root is not its owner
	mkdir -m 0755 "$BATS_TEST_TMPDIR/hostdir"
	echo host >"$BATS_TEST_TMPDIR/hostdir/file"
	write_policy 1048576 "\"mounts\": [{\"source\": \"$BATS_TEST_TMPDIR/hostdir\", \"rw\": true}], "
	update_config '.mounts += [{"destination": "/host", "type": "bind",
		"source": $s, "options": ["rbind", "rw"]}]' --arg s "$BATS_TEST_TMPDIR/hostdir"
	set_args sh -c '/bin/suidprobe mount unshare clone_newuser setns
		/bin/suidprobe capeff 2>/dev/null || grep CapEff /proc/self/status
		stat -c "%u %g" /host/file
		echo x >>/host/file 2>/dev/null && echo wrote-host || echo no-write
		chown 1000 /work/old 2>/dev/null || echo no-chown'
	run --separate-stderr corral --policy "$POLICY" run --bundle "$BUNDLE" "$ID" </dev/null
	assert_success
	assert_output "mount EPERM
unshare EPERM
clone_newuser EPERM
setns EPERM
CapEff:	0000000000000000
65534 65534
no-write
no-chown"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/hostdir/file")" host
	# the image's file on the host: its owner untouched
	assert_equal "$(stat -c %u "$ROOTFS/work/old")" 0
}

@test "without user.pool, the host's /etc/subuid and /etc/subgid lines of corral are the pool" {
	# the host's files stay as they are: this test's own lines are bound
	# over them in a mount namespace of its own
	[ -f /etc/subuid ] && [ -f /etc/subgid ] ||
		skip "no /etc/subuid and /etc/subgid to bind over here"
	printf 'someone:100000:65536\ncorral:%d:1048576\n' "$POOL" >"$BATS_TEST_TMPDIR/subuid"
	printf 'corral:%d:1048576\n' "$POOL" >"$BATS_TEST_TMPDIR/subgid"
	echo '{}' >"$POLICY"
	set_args sh -c 'id -u; echo x >/work/new && echo wrote'
	run --separate-stderr unshare -m --propagation private sh -c '
		mount --bind "$1/subuid" /etc/subuid && mount --bind "$1/subgid" /etc/subgid &&
		"$2" --root "$3" --policy "$4" explain --bundle "$5" | grep -E "user namespace|namespaces.user" &&
		exec "$2" --root "$3" --policy "$4" run --bundle "$5" "$6" </dev/null 3>&-' \
		sh "$BATS_TEST_TMPDIR" "$CORRAL" "$ROOT" "$POLICY" "$BUNDLE" "$ID"
	assert_success
	assert_line --regexp "^ +user namespace +uid 0-65535 -> host $POOL-"
	assert_line --partial "(default: the host's subordinate ids for corral (/etc/subuid, /etc/subgid))"
	assert_line 0
	assert_line wrote
}
