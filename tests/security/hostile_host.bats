#!/usr/bin/env bats
# A hostile bundle, continued (hostile.bats has R1-R6): namespace paths,
# root.path, kernel filesystems, the pod sandbox role and user and group
# ids, each attack checked against the rules of docs/threat-model.md
# (R7-R11 in tests/security/README.md) and on the host, as there.
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
# ==== R7: namespace paths ===================================================

# start_victim NAME [ANNOTATIONS-JSON]: another corral container in the same
# state root, from a bundle of its own (not the test's marker), running
# sleep with a secret in its rootfs.  Sets VICTIM (its ID), VPID (its
# init's host pid), VSLEEP (its workload's) and VSECRET.
start_victim() {
	local vb="$BATS_TEST_TMPDIR/$1-bundle"
	VICTIM="$ID-$1"
	VSECRET="victim-secret-$RANDOM$RANDOM"
	cp -a "$BATS_FILE_TMPDIR/bundle" "$vb"
	echo "$VSECRET" >"$vb/rootfs/vsecret"
	jq --argjson a "${2:-{\}}" '.process.args = ["sleep", "120"] | .annotations = $a' \
		"$BATS_FILE_TMPDIR/bundle/config.json" >"$vb/config.json"
	corral run -d --bundle "$vb" "$VICTIM" </dev/null >/dev/null \
		2>"$BATS_TEST_TMPDIR/$VICTIM.err" ||
		fail "victim: $(cat "$BATS_TEST_TMPDIR/$VICTIM.err")"
	VPID="$(container_pid "$VICTIM")"
	track_pid "$VPID"
	VSLEEP="$(pgrep -P "$VPID" | head -n 1)"
	[ -n "$VSLEEP" ] || fail "the victim's workload is not running"
}

assert_victim_untouched() {
	assert_equal "$(state_field "$VICTIM" status)" running
	assert_equal "$(container_pid "$VICTIM")" "$VPID"
	kill -0 "$VSLEEP" || fail "the victim's workload died"
	[[ "$output" != *"$VSECRET"* ]] || fail "the victim's secret was read: $output"
}

# join_config TYPE PATH...: config.json's TYPE namespace joins PATH (a
# joined uts namespace goes without config.json's hostname, which would
# need a new one).
join_config() {
	update_config '.linux.namespaces = [.linux.namespaces[] |
		if .type == $t then .path = $p else . end] |
		if $t == "uts" then del(.hostname) else . end' --arg t "$1" --arg p "$2"
}

# What a joiner would do in the victim's namespaces.
JOINER='
for p in /proc/[0-9]*; do cat $p/root/vsecret 2>/dev/null; done
# kill what belongs to the victim (never a blind kill -1)
for p in /proc/[0-9]*; do
	[ -e $p/root/vsecret ] && [ ! $p/root -ef / ] && kill -9 ${p#/proc/} 2>/dev/null
done
true'

@test "namespaces: another container's pid namespace (/proc/ITS-INIT/ns/pid) is refused; the victim is untouched" {
	start_victim victim
	join_config pid "/proc/$VPID/ns/pid"
	workload "$JOINER"
	hostile_run
	assert_refused pid
	assert_victim_untouched
	# the victim's own /proc/N/ns/pid of its workload: the same namespace
	base_config
	join_config pid "/proc/$VSLEEP/ns/pid"
	workload "$JOINER"
	hostile_run
	assert_refused pid
	assert_victim_untouched
}

@test "namespaces: another container's ipc and uts namespaces are refused" {
	start_victim victim
	one() {
		base_config
		join_config "$1" "/proc/$VPID/ns/$1"
		workload "$JOINER"
		hostile_run
		assert_refused "$1"
		assert_victim_untouched
	}
	check_case ipc one ipc
	check_case uts one uts
	cases_done
}

@test "namespaces: the pid, ipc and uts namespaces of a host process made with unshare (no container) are refused" {
	one() {
		base_config
		join_config "$1" "/proc/$2/ns/$1"
		workload 'echo "sees $(ls /proc | grep -c "^[0-9]") processes"'
		hostile_run
		assert_refused "$1"
		kill -0 "$2" || fail "the $1 namespace's process died"
	}
	for t in pid ipc uts; do
		case "$t" in
		pid) unshare --pid --fork sleep 60 </dev/null >/dev/null 2>&1 3>&- & ;;
		ipc) unshare --ipc sleep 60 </dev/null >/dev/null 2>&1 3>&- & ;;
		uts) unshare --uts sleep 60 </dev/null >/dev/null 2>&1 3>&- & ;;
		esac
		u=$!
		track_pid "$u"
		target="$u"
		if [ "$t" = pid ]; then
			# the forked child is the one in the new namespace
			for _ in $(seq 50); do
				target="$(pgrep -P "$u" | head -n 1)"
				[ -n "$target" ] && break
				sleep 0.05
			done
			[ -n "$target" ] || fail "unshare's child did not start"
			track_pid "$target"
		fi
		wait_for_ns "$target" "$t"
		check_case "$t of process $target" one "$t" "$target"
	done
	cases_done
}

# wait_for_ns PID TYPE: PID is no longer in the test's own TYPE namespace
# (unshare has made its own).
wait_for_ns() {
	for _ in $(seq 50); do
		[ "$(readlink "/proc/$1/ns/$2")" != "$(readlink "/proc/self/ns/$2")" ] && return 0
		sleep 0.05
	done
	fail "process $1 never got its own $2 namespace"
}

@test "namespaces: a pod's app container joins its sandbox; its wall clock and kill still end every process" {
	start_victim pod '{"io.kubernetes.cri.container-type": "sandbox"}'
	app_config() {
		base_config
		update_config '.annotations = {"io.kubernetes.cri.container-type": "container",
			"io.kubernetes.cri.sandbox-id": $s} + $extra' \
			--arg s "$VICTIM" --argjson extra "$1"
		for t in pid ipc uts; do
			join_config "$t" "/proc/$VPID/ns/$t"
		done
		set_args sh -c 'sleep 30 & sleep 30; echo NOT-KILLED'
	}
	# the wall clock
	app_config '{"run.corral.timeout": "2"}'
	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	procs_file="$(container_cgroup_file "$pid" pids cgroup.procs cgroup.procs)"
	corral start "$ID" || fail "start"
	sleep 2
	poll_equal "$ID: processes after the wall clock" "" 40 cat "$procs_file"
	wait_for_status "$ID" stopped
	grep -q wall-clock "$BATS_TEST_TMPDIR/$ID.err" || fail "no wall-clock message"
	! grep -q NOT-KILLED "$BATS_TEST_TMPDIR/$ID.out" || fail "the workload outlived the wall clock"
	corral delete "$ID"
	# kill
	app_config '{}'
	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	procs_file="$(container_cgroup_file "$pid" pids cgroup.procs cgroup.procs)"
	corral start "$ID" || fail "start"
	wait_for_status "$ID" running
	corral kill "$ID" KILL
	poll_equal "$ID: processes after kill KILL" "" 40 cat "$procs_file"
	corral delete --force "$ID"
	output=""
	assert_victim_untouched
}

# config.json (the attacker's) writes the annotation: naming a workload
# container must not make it joinable; only one corral made as a pod
# sandbox is, and the claim itself is refused: it proves no pod.
@test "namespaces: a sandbox-id annotation naming a workload container does not make it joinable" {
	start_victim victim
	update_config '.annotations = {"io.kubernetes.cri.sandbox-id": $v}' --arg v "$VICTIM"
	join_config pid "/proc/$VPID/ns/pid"
	workload "$JOINER"
	hostile_run
	assert_refused "io.kubernetes.cri.sandbox-id=$VICTIM"
	assert_victim_untouched
}

# ==== R7b: identity comes from corral's records ================================
#
# Which pod a container belongs to is not config.json's to say: under the
# CRI, a member proves it by being created by the same engine process as
# its pod sandbox (the pod's shim), or a process below it.  Here the
# "engine" of the victim's pod is a subshell of its own; the attacker's
# creates come from the test's shell, which that subshell is not an
# ancestor of.

# pod_bundle_of NAME UID: a pod sandbox's bundle (its path printed):
# CRI annotations, pod UID, sleeping.
pod_bundle_of() {
	local vb="$BATS_TEST_TMPDIR/$1-bundle"
	cp -a "$BATS_FILE_TMPDIR/bundle" "$vb"
	jq --arg id "$1" --arg uid "$2" '.process.args = ["sleep", "120"] |
		.annotations = {"io.kubernetes.cri.container-type": "sandbox",
			"io.kubernetes.cri.sandbox-id": $id,
			"io.kubernetes.cri.sandbox-uid": $uid}' \
		"$BATS_FILE_TMPDIR/bundle/config.json" >"$vb/config.json"
	echo "$vb"
}

# start_pod POD UID: pod sandbox POD of pod UID, run by a subshell that
# stands for the pod's shim; VPID its init.
start_pod() {
	local vb
	vb="$(pod_bundle_of "$1" "$2")"
	(corral "${POD_FLAGS[@]}" run -d --bundle "$vb" "$1" </dev/null \
		>/dev/null 2>"$BATS_TEST_TMPDIR/$1.err") ||
		fail "pod sandbox: $(cat "$BATS_TEST_TMPDIR/$1.err")"
	VPID="$(container_pid "$1")"
	track_pid "$VPID"
}

@test "pods: a bundle naming another pod's sandbox, from another engine process, is refused with one line; the pod is untouched" {
	POD_FLAGS=()
	start_pod "$ID-pod" 6a1f3c2e-0000-4e7f-a6c5-1d2e3f4a5b6c
	update_config '.annotations = {"io.kubernetes.cri.container-type": "container",
		"io.kubernetes.cri.sandbox-id": $s}' --arg s "$ID-pod"
	for t in pid ipc uts; do
		join_config "$t" "/proc/$VPID/ns/$t"
	done
	workload 'kill -9 -1'
	hostile_run
	assert_refused "io.kubernetes.cri.sandbox-id=$ID-pod" "no running pod sandbox"
	assert_equal "$(state_field "$ID-pod" status)" running
	# the same claim with no namespace to join is refused as well
	base_config
	update_config '.annotations = {"io.kubernetes.cri.sandbox-id": $s}' --arg s "$ID-pod"
	hostile_run
	assert_refused "io.kubernetes.cri.sandbox-id=$ID-pod"
}

@test "pods: a kubelet volume is the container's only through the pod its pod sandbox recorded, never its own sandbox-uid annotation" {
	local pods="$BATS_TEST_TMPDIR/kubelet/pods" victim=0b1f3c2e-1111-4e7f-a6c5-1d2e3f4a5b6c
	local mine=7c2f3c2e-2222-4e7f-a6c5-1d2e3f4a5b6c
	local cm="$pods/$victim/volumes/kubernetes.io~configmap/cfg"
	local ed="$pods/$victim/volumes/kubernetes.io~empty-dir/scratch"
	mkdir -p "$cm" "$ed"
	echo victim-config >"$cm/value"
	policy="$BATS_TEST_TMPDIR/policy.json"
	write_policy "$policy" '{engineDirs: [$p]}' --arg p "$pods"
	POD_FLAGS=(--policy "$policy")
	# a container with no pod, naming the victim's uid
	update_config '.annotations = {"io.kubernetes.cri.container-type": "container",
		"io.kubernetes.cri.sandbox-uid": $u}' --arg u "$victim"
	add_bind "$cm" /cfg '["rbind", "ro"]'
	add_bind "$ed" /scratch '["rbind", "rw"]'
	workload 'cat /cfg/value 2>/dev/null && echo LEAK-CONFIG
touch /scratch/planted 2>/dev/null && [ -e /scratch/planted ] && echo WROTE'
	# not its pod's volume: a bind no mounts entry allows, refused
	# (refuse.mounts), never run without it in silence
	hostile_run --policy "$policy"
	assert_refused "bind $cm on /cfg" "(policy: mounts)"
	[ ! -e "$ed/planted" ] || fail "a file was planted in the victim pod's emptyDir"
	# a member of a pod of its own (its sandbox made by this shell, as
	# the same engine), naming the victim's uid: refused
	POD_FLAGS=(--policy "$policy")
	corral --policy "$policy" run -d --bundle "$(pod_bundle_of "$ID-mine" "$mine")" \
		"$ID-mine" </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/mine.err" ||
		fail "own pod: $(cat "$BATS_TEST_TMPDIR/mine.err")"
	track_pid "$(container_pid "$ID-mine")"
	update_config '.annotations["io.kubernetes.cri.sandbox-id"] = $s' --arg s "$ID-mine"
	hostile_run --policy "$policy"
	assert_refused "io.kubernetes.cri.sandbox-uid=$victim" "belongs to another pod"
	[ ! -e "$ed/planted" ] || fail "a file was planted in the victim pod's emptyDir"
}

# A namespace path is opened O_PATH and checked to be a namespace before
# anything opens it: a FIFO never blocks create (its waiting writer stays
# blocked: nobody opened it), a device is never opened, and every kind of
# wrong path gets the same line, so it tells nothing of what is there.
@test "namespaces: a FIFO, a socket, a device, a file, a directory or nothing as a namespace path: refused at once with one line, nothing opened" {
	local d="$BATS_TEST_TMPDIR/ns" t kind first=""
	mkdir -p "$d"
	mkfifo "$d/fifo"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/socket"
	mknod "$d/device" c 1 3
	echo x >"$d/file"
	mkdir "$d/dir"
	# a writer that waits for a reader: still waiting at the end means
	# no one opened the FIFO
	(echo opened >"$d/fifo") 3>&- &
	writer=$!
	track_pid "$writer"
	for t in pid ipc uts; do
		for kind in fifo socket device file dir missing; do
			base_config
			join_config "$t" "$d/$kind"
			workload 'true'
			hostile_create
			[ "$status" -ne 0 ] || { corral delete --force "$ID"; fail "$t $kind: created"; }
			assert_error_line
			msg="${stderr//$d\/$kind/PATH}"
			if [ "$t" = pid ]; then
				[ -n "$first" ] || first="$msg"
				assert_equal "$msg" "$first"
			fi
			keep_run assert_no_leftovers "$ID"
		done
		first=""
	done
	# a network path is not joined under the default policy (a network
	# of its own) and is looked at only to find a pod's: never opened
	base_config
	join_config network "$d/fifo"
	workload 'true'
	hostile_run
	assert_contained
	kill -0 "$writer" || fail "the FIFO was opened"
}

# ==== R7c: cgroup paths =======================================================

@test "cgroups: a cgroupsPath inside another container's cgroup, running or stopped, or inside any cgroup with processes, is refused; the victim's pids are its own" {
	start_victim victim
	vcg="$(jq -r .corral.cgroup "$ROOT/$VICTIM/state.json")"
	vprocs="$(container_cgroup_file "$VPID" pids cgroup.procs cgroup.procs)"
	before="$(wc -l <"$vprocs")"
	update_config '.linux.cgroupsPath = $p' --arg p "/$vcg/evil"
	workload 'for i in $(seq 50); do sleep 100 & done'
	hostile_run
	assert_refused "$vcg" "another container's cgroup"
	assert_equal "$(wc -l <"$vprocs")" "$before"
	# a stopped one: its mark holds where no process is left
	corral kill "$VICTIM" KILL
	wait_for_status "$VICTIM" stopped
	hostile_run
	assert_refused "$vcg" "another container's cgroup"
	corral delete "$VICTIM" || fail "the victim's cgroup could not be removed"
	# any cgroup with processes: a service's, another runtime's
	sleep 100 </dev/null >/dev/null 2>&1 3>&- &
	holder=$!
	track_pid "$holder"
	mine="$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)"
	base="$(dirname "$vprocs")"
	base="${base%"$vcg"}"
	mkdir "$base/corral-holder-$$"
	OWN_CGROUPS+=("$base/corral-holder-$$")
	echo "$holder" >"$base/corral-holder-$$/cgroup.procs" ||
		{ rmdir "$base/corral-holder-$$"; fail "move the holder"; }
	base_config
	update_config '.linux.cgroupsPath = $p' --arg p "/corral-holder-$$/evil"
	workload 'true'
	hostile_run
	status_was="$status"
	stderr_was="$stderr"
	kill -9 "$holder"
	wait "$holder" 2>/dev/null || true
	for _ in $(seq 50); do rmdir "$base/corral-holder-$$" 2>/dev/null && break; sleep 0.05; done
	status="$status_was"
	stderr="$stderr_was"
	[ "$status" -ne 0 ] || fail "created inside a cgroup with processes"
	[[ "$stderr" == *"a cgroup with processes of its own"* ]] || fail "stderr: $stderr"
}

# ==== R8: root.path =========================================================

# assert_not_an_image: explain does not call root.path a "read-only
# image", if it says anything at all.
assert_not_an_image() {
	local text
	if text="$(corral explain --bundle "$BUNDLE" 2>/dev/null)"; then
		[[ "$text" != *"read-only image"* ]] ||
			fail "explain calls root.path $(jq -r .root.path "$BUNDLE/config.json") an image: $(grep -m1 'root ' <<<"$text")"
	fi
}

# assert_create_refused: the last hostile_create failed with one line
# naming the field (root.path) or its value (unless that is "/", which
# any error may hold); a container it made is deleted first.
assert_create_refused() {
	local path
	path="$(jq -r .root.path "$BUNDLE/config.json")"
	if [ "$status" -eq 0 ]; then
		corral delete --force "$ID" >/dev/null 2>&1
		fail "created: root.path $path"
	fi
	assert_error_line
	[[ "$stderr" == *root.path* ]] || { [ "$path" != / ] && [[ "$stderr" == *"$path"* ]]; } ||
		fail "neither root.path nor \"$path\" in the error: $stderr"
	keep_run assert_no_leftovers "$ID"
}

@test "root.path: a host directory (/, /etc, a test directory) is refused; explain does not call it an image" {
	one() {
		base_config
		update_config '.root.path = $r' --arg r "$1"
		hostile_create
		assert_create_refused
		assert_not_an_image
	}
	for root in / /etc /usr "$SENTINEL"; do
		check_case "$root" one "$root"
	done
	cases_done
}

@test "root.path: a link rootfs (to /, out of the bundle, relative), '..' or '.', an absolute path through a link: refused" {
	mv "$ROOTFS" "$BUNDLE/real-rootfs"
	# ROOTFS must stay a directory of the test's: bundle_pids kills what
	# has it as its cwd (see safe_bundle_vars)
	ROOTFS="$BUNDLE/real-rootfs"
	one() {
		local path="$1" target="$2"
		base_config
		rm -f "$BUNDLE/rootfs" "$BUNDLE/mid"
		if [ -n "$target" ]; then
			ln -s "$target" "$BUNDLE/rootfs"
			if [ "$path" = ABS ]; then
				path="$BUNDLE/rootfs"
			fi
		elif [ "$path" = MID ]; then
			# a link in the middle: mid -> the bundle itself
			ln -s "$BUNDLE" "$BUNDLE/mid"
			path=mid/real-rootfs
		fi
		update_config '.root.path = $p' --arg p "$path"
		hostile_create
		assert_create_refused
	}
	for case in \
		"rootfs /" \
		"rootfs $SENTINEL" \
		"rootfs ../../../../../../../../../.." \
		"rootfs real-rootfs" \
		"ABS /" \
		"MID" \
		"../$(basename "$BUNDLE")/real-rootfs" \
		"./real-rootfs" \
		"real-rootfs/../real-rootfs"; do
		read -r path target <<<"$case"
		check_case "$case" one "$path" "$target"
	done
	# control: the rootfs as a directory, relative and absolute
	rm -f "$BUNDLE/rootfs"
	rm -f "$BUNDLE/mid"
	ROOTFS="$BUNDLE/rootfs"
	mv "$BUNDLE/real-rootfs" "$ROOTFS"
	for path in rootfs "$ROOTFS"; do
		base_config
		update_config '.root.path = $p' --arg p "$path"
		workload 'true'
		hostile_run
		assert_contained
	done
	cases_done
}

@test "root.path: /etc as the root with a shell from an allowed directory and gid 42 is refused; nothing of /etc is read" {
	mkdir -p "$ALLOWED/bin"
	cp "$BUSYBOX" "$ALLOWED/bin/busybox"
	ln -s busybox "$ALLOWED/bin/sh"
	policy="$BATS_TEST_TMPDIR/policy.json"
	allow_policy "$policy" "$ALLOWED"
	shadow="$(getent group shadow | cut -d: -f3)"
	update_config '.root.path = "/etc" | .process.user.gid = ($g | tonumber) |
		.process.args = ["/bin/sh", "-c",
			"echo RAN; cat /shadow >/dev/null 2>&1 && echo LEAK-SHADOW-READABLE; echo CONTAINED"]' \
		--arg g "${shadow:-42}"
	add_bind "$ALLOWED/bin" /bin
	hostile_run --policy "$policy"
	[[ "$output" != *LEAK* ]] || fail "the host's /etc/shadow was readable in the container"
	[[ "$output" != *RAN* ]] || fail "the workload ran with /etc as its root: $output"
	assert_create_refused
	# a rootfs under an allowed mounts entry shows what a bind of it
	# would, read-only (podman run --rootfs of a directory the policy
	# names)
	cp -a "$ROOTFS" "$ALLOWED/rootfs"
	base_config
	update_config '.root.path = $p' --arg p "$ALLOWED/rootfs"
	workload 'touch /x 2>/dev/null && echo "LEAK the root is writable"'
	hostile_run --policy "$policy"
	assert_contained
}

# store_with STORE ID...: a containers-storage of the test's own, the
# shape podman's and CRI-O's overlay driver give it: each ID's root its
# own layer's merged directory (a copy of the rootfs), listed in
# overlay-containers/containers.json.
store_with() {
	local store="$1" list="[]" id
	shift
	mkdir -p "$store/overlay-containers"
	for id in "$@"; do
		mkdir -p "$store/overlay/layer-$id"
		cp -a "$ROOTFS" "$store/overlay/layer-$id/merged"
		list="$(jq -c --arg i "$id" '. + [{id: $i, layer: ("layer-" + $i)}]' <<<"$list")"
	done
	echo "$list" >"$store/overlay-containers/containers.json"
}

@test "root.path below engineDirs: only the root the engine's records give this container; never another's, a link out, or a kubelet pod directory" {
	store="$BATS_TEST_TMPDIR/store"
	store_with "$store" "$ID" victim
	echo victim-secret >"$store/overlay/layer-victim/merged/secret"
	ln -s "$SENTINEL" "$store/overlay/link"
	ln -s / "$store/overlay/root"
	policy="$BATS_TEST_TMPDIR/policy.json"
	write_policy "$policy" '{engineDirs: [$s, $p]}' --arg s "$store" \
		--arg p "$BATS_TEST_TMPDIR/kubelet/pods"
	update_config '.root.path = $p' --arg p "$store/overlay/layer-$ID/merged"
	workload '[ -e /secret ] && echo "LEAK another container root"'
	hostile_run --policy "$policy"
	assert_contained
	# another container's merged directory, the store itself, its other
	# files, a link out of it
	for p in overlay/layer-victim/merged overlay/layer-victim overlay \
		overlay-containers overlay/link overlay/root; do
		base_config
		update_config '.root.path = $p' --arg p "$store/$p"
		hostile_create --policy "$policy"
		assert_create_refused
	done
	base_config
	update_config '.root.path = $p' --arg p "$store/overlay/layer-victim/merged"
	hostile_create --policy "$policy"
	[[ "$stderr" == *"the engine's records (overlay-containers/containers.json) do not give it to container $ID"* ]] ||
		fail "stderr: $stderr"
	# the vfs driver's shape (rootless podman's without fuse-overlayfs):
	# vfs/dir/LAYER, listed in vfs-containers/containers.json
	mkdir -p "$store/vfs/dir" "$store/vfs-containers"
	cp -a "$ROOTFS" "$store/vfs/dir/vl-$ID"
	cp -a "$ROOTFS" "$store/vfs/dir/vl-victim"
	echo victim-secret >"$store/vfs/dir/vl-victim/secret"
	jq -n -c --arg i "$ID" '[{id: $i, layer: ("vl-" + $i)},
		{id: "victim", layer: "vl-victim"}]' \
		>"$store/vfs-containers/containers.json"
	base_config
	update_config '.root.path = $p' --arg p "$store/vfs/dir/vl-$ID"
	workload '[ -e /secret ] && echo "LEAK another container root"'
	hostile_run --policy "$policy"
	assert_contained
	for p in vfs/dir/vl-victim vfs/dir vfs vfs-containers; do
		base_config
		update_config '.root.path = $p' --arg p "$store/$p"
		hostile_create --policy "$policy"
		assert_create_refused
	done
	# a directory of a driver corral does not know
	mkdir -p "$store/btrfs/subvolumes"
	cp -a "$ROOTFS" "$store/btrfs/subvolumes/vl-$ID"
	base_config
	update_config '.root.path = $p' --arg p "$store/btrfs/subvolumes/vl-$ID"
	hostile_create --policy "$policy"
	assert_create_refused
	[[ "$stderr" == *"not a root of a storage driver corral knows"* ]] ||
		fail "stderr: $stderr"
	# a list that does not parse, or a store without one, gives nothing
	echo '{"id"' >"$store/overlay-containers/containers.json"
	base_config
	update_config '.root.path = $p' --arg p "$store/overlay/layer-$ID/merged"
	hostile_create --policy "$policy"
	assert_create_refused
	# a kubelet pod directory (an engineDirs entry named pods) holds the
	# pods' volumes: never a root, whatever is in it
	pod="$BATS_TEST_TMPDIR/kubelet/pods/6a1f3c2e-9b8d-4e7f-a6c5-1d2e3f4a5b6c"
	mkdir -p "$pod/volumes/kubernetes.io~secret/db"
	cp -a "$ROOTFS" "$pod/rootfs"
	echo secret >"$pod/volumes/kubernetes.io~secret/db/password"
	for p in "$pod" "$pod/rootfs"; do
		base_config
		update_config '.root.path = $p' --arg p "$p"
		hostile_create --policy "$policy"
		assert_create_refused
		[[ "$stderr" == *"the kubelet's pods with their volumes: never a root filesystem"* ]] ||
			fail "stderr: $stderr"
	done
}

# ==== R9: kernel filesystems ================================================

@test "kernel filesystems: a second proc, sysfs, cgroup, mqueue or devpts, or a mount under /proc, is dropped; masks hold" {
	update_config '.mounts += [
		{destination: "/p2", type: "proc", source: "proc"},
		{destination: "/s2", type: "sysfs", source: "sysfs"},
		{destination: "/proc", type: "proc", source: "proc"},
		{destination: "/cg2", type: "cgroup", source: "cgroup"},
		{destination: "/mq2", type: "mqueue", source: "mqueue"},
		{destination: "/pts2", type: "devpts", source: "devpts"},
		{destination: "/proc/driver", type: "tmpfs", source: "tmpfs"},
		{destination: "/sys/kernel/mm", type: "tmpfs", source: "tmpfs"}]'
	workload '
[ -e /p2/self ] && echo "LEAK a second proc at /p2"
[ -s /p2/timer_list ] && echo "LEAK /p2/timer_list is not masked"
grep -q . /proc/timer_list 2>/dev/null && echo "LEAK /proc/timer_list is not masked"
[ -d /s2/kernel ] && echo "LEAK a second sysfs at /s2"
[ -e /s2/firmware/acpi ] || [ -n "$(ls /s2/firmware 2>/dev/null)" ] && echo "LEAK /s2/firmware"
[ -n "$(ls /cg2 2>/dev/null)" ] && echo "LEAK cgroups at /cg2"
[ -e /pts2/ptmx ] && echo "LEAK devpts at /pts2"
[ "$(grep -c " /proc " /proc/self/mountinfo)" -le 1 ] || echo "LEAK /proc mounted twice"
awk '"'"'$5 == "/proc/driver" || $5 == "/sys/kernel/mm" { print "LEAK a mount at " $5 }'"'"' /proc/self/mountinfo
true'
	hostile_run
	assert_contained
	explain_json
	for dest in /p2 /s2 /cg2 /mq2 /pts2 /proc/driver /sys/kernel/mm; do
		assert_change "^\\.mounts\\[$dest\\]" dropped
	done
	assert_change '^\.mounts\[/proc\]' dropped
}

@test "kernel filesystems: a mount at / is dropped" {
	update_config '.mounts += [{destination: "/", type: "tmpfs", source: "tmpfs"}]'
	workload '[ -e /'"$MARKER"' ] || echo "LEAK the rootfs is hidden"'
	hostile_run
	assert_contained
	explain_json
	assert_change '^\.mounts\[/\]' dropped
}

@test "kernel filesystems: an image whose /proc or /sys is a link is refused" {
	one() {
		base_config
		rm -rf "${ROOTFS:?}/$1"
		ln -s "$2" "$ROOTFS/$1"
		workload 'true'
		hostile_run
		assert_refused "$1"
	}
	for dir in proc sys; do
		for target in /tmp "../../../../../..$SENTINEL" etc; do
			check_case "/$dir -> $target" one "$dir" "$target"
		done
		rm -f "$ROOTFS/$dir"
		mkdir "$ROOTFS/$dir"
	done
	cases_done
}

# ==== R10: the pod sandbox role =============================================

# A pod annotation reaches the pod's sandbox as it reaches every
# container of the pod: its wall clock must not take the pod down, so a
# sandbox has none, and what the marker buys is bounded by the next test.
@test "pod sandbox role: no wall clock even with run.corral.timeout, for each role annotation; the change is explained" {
	one() {
		base_config
		update_config '.annotations = $m + {"run.corral.timeout": "1"}' --argjson m "$1"
		set_args sleep 3
		hostile_run -t 12
		echo "exit $status after ${ELAPSED_MS} ms"
		assert_equal "$status" 0
		[ "$ELAPSED_MS" -ge 2500 ] || fail "ended after $ELAPSED_MS ms"
		keep_run assert_no_leftovers "$ID"
		explain_json
		assert_equal "$(jq -r '.changes[] | select(.field == "sandbox.wallClock") | .asked + " -> " + .applied' <<<"$EXPLAIN")" \
			"1 -> none"
	}
	for marker in '{"io.kubernetes.cri.container-type": "sandbox"}' \
		'{"io.kubernetes.cri-o.ContainerType": "sandbox"}' \
		'{"io.podman.annotations.infra": "TRUE"}'; do
		check_case "$marker" one "$marker"
	done
	cases_done
}

@test "pod sandbox role: no wall clock but pids 2, memory 16 MiB, cpu 0.05, seen from the host" {
	update_config '.annotations = {"io.kubernetes.cri.container-type": "sandbox"} |
		.linux.resources.memory = {limit: 68719476736} |
		.linux.resources.pids = {limit: 1000000}'
	set_args sh -c '(echo child) & (echo child) & (echo child) & wait; echo READY; sleep 60'
	create_container "$ID" || fail "create: $(cat "$BATS_TEST_TMPDIR/$ID.err")"
	pid="$(container_pid "$ID")"
	track_pid "$pid"
	pids_max="$(cat "$(container_cgroup_file "$pid" pids pids.max pids.max)")"
	mem_max="$(cat "$(container_cgroup_file "$pid" memory memory.limit_in_bytes memory.max)")"
	if f="$(container_cgroup_file "$pid" cpu cpu.cfs_quota_us cpu.max)"; then
		if [[ "$f" == */cpu.max ]]; then
			read -r quota period <"$f"
		else
			quota="$(cat "$f")"
			period="$(cat "${f%/*}/cpu.cfs_period_us")"
		fi
	fi
	corral start "$ID" || fail "start"
	# READY, or a shell that gave up when a fork failed
	for _ in $(seq 100); do
		grep -q '^READY$' "$BATS_TEST_TMPDIR/$ID.out" && break
		[ "$(state_field "$ID" status)" = stopped ] && break
		sleep 0.05
	done
	children="$(grep -c '^child$' "$BATS_TEST_TMPDIR/$ID.out" || true)"
	corral delete --force "$ID"
	echo "# pids.max $pids_max, memory $mem_max, cpu $quota/$period, $children of 3 forks" >&3
	[ "$pids_max" != max ] && [ "$pids_max" -le 2 ] || fail "pids.max $pids_max"
	[ "$mem_max" != max ] && [ "$mem_max" -le $((16 << 20)) ] || fail "memory limit $mem_max"
	[ -n "$quota" ] && [ "$quota" != max ] && [ "$quota" -gt 0 ] &&
		[ $((quota * 100)) -le $((period * 5)) ] || fail "cpu quota $quota/$period"
	[ "$children" -lt 3 ] || fail "all three forks succeeded"
	assert_no_leftovers "$ID"
	explain_json
	jq -e '.reach.time.wallClock == 0 or .reach.time.wallClock == null' <<<"$EXPLAIN" >/dev/null ||
		fail "wall clock: $(jq -c .reach.time <<<"$EXPLAIN")"
	run --separate-stderr corral explain --bundle "$BUNDLE"
	assert_output --partial "pod sandbox"
	# a smaller limit of config.json's stays
	update_config '.linux.resources.memory = {limit: 8388608}'
	explain_json
	assert_equal "$(jq -r .reach.memory.limit <<<"$EXPLAIN")" 8388608
}

# ==== R11: user and group ids ===============================================

# The privileged groups of the contract's default list that this host has.
privileged_gids() {
	local g
	for g in shadow disk kmem adm sudo docker wheel lxd libvirt systemd-journal; do
		getent group "$g" | cut -d: -f3
	done
	echo 0
}

@test "ids: a privileged primary gid (shadow, disk, root ...) becomes 65534; a host-backed file of that group stays unreadable" {
	gids="$(privileged_gids)"
	for g in $gids; do
		echo "group $g only $$" >"$ROOTFS/gsecret-$g"
		chown "0:$g" "$ROOTFS/gsecret-$g"
		chmod 0040 "$ROOTFS/gsecret-$g"
	done
	one() {
		base_config
		update_config '.process.user.uid = 1000 | .process.user.gid = ($g | tonumber)' --arg g "$1"
		workload '
[ "$(id -g)" = 65534 ] || echo "LEAK primary gid $(id -g)"
[ "$(id -u)" = 1000 ] || echo "LEAK? uid $(id -u), expected 1000 (kept)"
cat /gsecret-$1 >/dev/null 2>&1 && echo "LEAK read a group $1 file"
true' "$1"
		hostile_run
		assert_contained
		explain_json
		assert_change '^\.process\.user\.gid$' 65534
	}
	for g in $gids; do
		check_case "gid $g" one "$g"
	done
	cases_done
}

@test "ids: privileged supplementary gids go even with keepGroups; others stay; the allowed host file of group shadow is unreadable" {
	shadow="$(getent group shadow | cut -d: -f3)"
	disk="$(getent group disk | cut -d: -f3)"
	mkdir -p "$ALLOWED"
	echo "shadow-like $$" >"$ALLOWED/shadowlike"
	chown "0:${shadow:-42}" "$ALLOWED/shadowlike"
	chmod 0640 "$ALLOWED/shadowlike"
	policy="$BATS_TEST_TMPDIR/policy.json"
	write_policy "$policy" '{user: {keepGroups: true}, mounts: [{source: $s, rw: false}]}' \
		--arg s "$ALLOWED"
	update_config '.process.user = {uid: 1000, gid: 1000,
		additionalGids: [($d | tonumber), ($s | tonumber), 0, 2000, 3000]}' \
		--arg d "${disk:-6}" --arg s "${shadow:-42}"
	add_bind "$ALLOWED" /data
	workload '
for g in $(id -G); do
	case " $1 " in *" $g "*) echo "LEAK kept group $g";; esac
done
for g in 2000 3000; do
	case " $(id -G) " in *" $g "*) ;; *) echo "LEAK? group $g dropped";; esac
done
cat /data/shadowlike >/dev/null 2>&1 && echo "LEAK read the shadow-group file"
true' "${disk:-6} ${shadow:-42} 0"
	hostile_run --policy "$policy"
	assert_contained
	explain_json --policy "$policy"
	assert_change 'additionalGids'
}

@test "ids: a policy's user.privilegedGroups replaces the default set; group 0 always counts" {
	users="$(getent group users | cut -d: -f3)"
	[ -n "$users" ] || skip "no group users on this host"
	policy="$BATS_TEST_TMPDIR/policy.json"
	write_policy "$policy" '{user: {privilegedGroups: ["users"]}}'
	for g in "$users" 0; do
		base_config
		update_config '.process.user.uid = 1000 | .process.user.gid = ($g | tonumber)' --arg g "$g"
		workload '[ "$(id -g)" = 65534 ] || echo "LEAK primary gid $(id -g)"'
		hostile_run --policy "$policy"
		assert_contained
	done
}
