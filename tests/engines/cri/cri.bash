# The test bed of tests/engines/cri.bats: a private containerd 1.6 whose
# CRI plugin runs pods under corral, driven over gRPC by cri_client.py.
#
# cri_setup_file builds it, cri_teardown_file takes all of it down again
# (also after a test failed halfway):
#   - a network namespace $CRI_NETNS with lo up; containerd runs in it, so
#     CNI's bridge, veths and routes exist only there;
#   - a CNI conflist (bridge + host-local on a private /24, + loopback) in
#     $CRI_WORK/cni;
#   - config-examples/containerd/config.toml with only its paths replaced
#     (render_config.py): root, state, socket, corral's binary and state
#     root, the CNI directories and the pause image;
#   - two images made here from busybox-static (no registry): the pause
#     image and the app image under the name pod.yaml gives, imported with
#     podman import | podman save | ctr images import;
#   - the Python CRI messages, generated from cri.proto with protoc.
# Everything lives under $CRI_WORK; pods get the cgroup parent
# /$CRI_CGROUP so their cgroups can be found and removed.

# shellcheck disable=SC2034,SC2154,SC2119,SC2120
# (the variables are read by cri.bats; output, status and stderr are set
# by bats' run; run_pod and create_app take options only when asked)

CRI_DIR="$BATS_TEST_DIRNAME/cri"
CRI_REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
CRI_EXAMPLES="$CRI_REPO/config-examples"
CRI_POD_YAML="$CRI_EXAMPLES/kubernetes/pod.yaml"
CRI_RUNTIMECLASS="$CRI_EXAMPLES/kubernetes/runtimeclass.yaml"
CRI_PYTHON=/usr/bin/python3
CRI_CNI_BIN=/usr/lib/cni
CRI_CORRAL="${CORRAL:-$CRI_REPO/corral}"
CRI_CTR_NS=k8s.io

# cri COMMAND ARGS...: the CRI client against this file's containerd.  fd 3
# is bats' own: nothing long-lived may hold it.
cri() {
	"$CRI_PYTHON" "$CRI_DIR/cri_client.py" --socket "$CRI_SOCK" \
		--pb-dir "$CRI_WORK/pb" "$@" 3>&-
}

# corral_k8s ARGS...: corral with the state root the shim gives it.
corral_k8s() {
	"$CRI_CORRAL" --root "$CRI_CORRAL_ROOT/$CRI_CTR_NS" "$@" 3>&-
}

ctr_k8s() {
	ctr --address "$CRI_SOCK" --namespace "$CRI_CTR_NS" "$@" 3>&-
}

# yaml_get FILE KEY...: one value of a manifest, KEYs walking down from
# the top (a number indexes a list): yaml_get pod.yaml metadata name.
yaml_get() {
	"$CRI_PYTHON" -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for k in sys.argv[2:]:
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$@"
}

cri_check_deps() {
	local tool
	for tool in containerd ctr containerd-shim-runc-v2 podman protoc \
		nsenter ip findmnt; do
		command -v "$tool" >/dev/null || fail "$tool is not installed"
	done
	for tool in bridge host-local loopback; do
		[ -x "$CRI_CNI_BIN/$tool" ] ||
			fail "containernetworking-plugins: no $tool in $CRI_CNI_BIN"
	done
	"$CRI_PYTHON" -c 'import grpc, google.protobuf, yaml, tomllib' ||
		fail "$CRI_PYTHON needs python3-grpcio, python3-protobuf, python3-yaml"
	[ -x "$CRI_CORRAL" ] || fail "corral binary $CRI_CORRAL not found: run make"
}

# write_cni_conf DIR: one bridge network on a private 10.X.Y.0/24, X and
# Y from the pid so that parallel runs differ (though each is alone in its
# own netns anyway); host-local keeps its leases under $CRI_WORK.
write_cni_conf() {
	local dir="$1" subnet="10.$((200 + $$ % 50)).$(($$ % 250)).0/24"
	mkdir -p "$dir"
	cat >"$dir/10-corral-cri.conflist" <<-CONF
	{
	  "cniVersion": "1.0.0",
	  "name": "$CRI_NETWORK",
	  "plugins": [
	    {
	      "type": "bridge",
	      "bridge": "cri0",
	      "isGateway": true,
	      "ipMasq": false,
	      "ipam": {
	        "type": "host-local",
	        "dataDir": "$CRI_WORK/cni-ipam",
	        "ranges": [[{"subnet": "$subnet"}]],
	        "routes": [{"dst": "0.0.0.0/0"}]
	      }
	    },
	    {"type": "loopback"}
	  ]
	}
	CONF
}

# The BinaryName containerd runs: corral with a policy whose engineDirs
# also hold this containerd's own root (the default list has
# /var/lib/containerd), where the CRI plugin keeps each pod's /etc/hosts,
# /etc/hostname and /etc/resolv.conf.
write_runtime_wrapper() {
	jq --arg d "$CRI_WORK/root" '{engineDirs: (.engineDirs + [$d])}' \
		"$CRI_EXAMPLES/policy/default.json" >"$CRI_WORK/policy.json" ||
		return 1
	printf '#!/bin/sh\nexec %q --policy %q "$@"\n' "$CRI_CORRAL" \
		"$CRI_WORK/policy.json" >"$CRI_WORK/corral-runtime" &&
		chmod 0755 "$CRI_WORK/corral-runtime"
}

render_containerd_config() {
	local cri='plugins."io.containerd.grpc.v1.cri"'
	local corral="$cri.containerd.runtimes.corral.options"
	write_runtime_wrapper || return 1
	"$CRI_PYTHON" "$CRI_DIR/render_config.py" \
		"$CRI_EXAMPLES/containerd/config.toml" "$CRI_WORK/config.toml" \
		"root=$CRI_WORK/root" \
		"state=$CRI_WORK/state" \
		"grpc.address=$CRI_SOCK" \
		"plugins.\"io.containerd.internal.v1.opt\".path=$CRI_WORK/opt" \
		"$cri.sandbox_image=$CRI_PAUSE_IMAGE" \
		"$cri.cni.bin_dir=$CRI_CNI_BIN" \
		"$cri.cni.conf_dir=$CRI_WORK/cni" \
		"$corral.BinaryName=$CRI_WORK/corral-runtime" \
		"$corral.Root=$CRI_CORRAL_ROOT" || return 1
	# CRI_SYSTEMD_CGROUP: the example's SystemdCgroup = false turned
	# true (a bool, which render_config.py does not set), as a node
	# with kubelet's systemd cgroup driver has it
	[ -z "${CRI_SYSTEMD_CGROUP:-}" ] && return 0
	sed -i 's/^\([[:space:]]*SystemdCgroup = \)false/\1true/' \
		"$CRI_WORK/config.toml" &&
		grep -q '^[[:space:]]*SystemdCgroup = true' "$CRI_WORK/config.toml"
}

# make_rootfs_tar FILE: busybox-static with its applets and a passwd that
# knows nobody, as a tarball for podman import.
make_rootfs_tar() {
	local tar="$1" rootfs="$CRI_WORK/rootfs" applet dir
	mkdir -p "$rootfs/bin" "$rootfs/etc"
	for dir in proc sys dev tmp root var/run; do mkdir -p "$rootfs/$dir"; done
	cp /bin/busybox "$rootfs/bin/busybox"
	for applet in sh echo cat ls id grep sleep hostname true false; do
		ln -s busybox "$rootfs/bin/$applet"
	done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$rootfs/etc/passwd"
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$rootfs/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
	tar -C "$rootfs" -cf "$tar" .
}

# import_image TARBALL PODMAN-NAME CMD-JSON CTR-NAME: podman import ->
# podman save (OCI archive) -> ctr import, then CTR-NAME tags it in
# containerd.  The podman image is removed again right away.
import_image() {
	local tar="$1" name="$2" cmd="$3" want="$4" archive imported
	archive="$CRI_WORK/$(basename "${name%%:*}").oci.tar"
	podman import --change "CMD $cmd" "$tar" "$name" >/dev/null 3>&- ||
		fail "podman import $name"
	echo "$name" >>"$CRI_WORK/podman-images"
	podman save --quiet --format oci-archive -o "$archive" "$name" 3>&- ||
		fail "podman save $name"
	podman rmi "$name" >/dev/null 3>&- || fail "podman rmi $name"
	ctr_k8s images import --all-platforms "$archive" >"$CRI_WORK/import.out" 2>&1 ||
		fail "ctr images import $archive: $(cat "$CRI_WORK/import.out")"
	imported="$(ctr_k8s images ls -q | grep -F "$(basename "${name%%:*}")" | head -n1)"
	[ -n "$imported" ] || fail "ctr import of $archive named no image: $(ctr_k8s images ls)"
	if [ "$imported" != "$want" ]; then
		ctr_k8s images tag "$imported" "$want" >/dev/null ||
			fail "ctr images tag $imported $want"
	fi
}

# wait_containerd: until the CRI answers Version (20s).
wait_containerd() {
	local tries=200
	while [ "$tries" -gt 0 ]; do
		kill -0 "$CRI_CONTAINERD_PID" 2>/dev/null ||
			fail "containerd exited: $(tail -n 20 "$CRI_WORK/containerd.log")"
		[ -S "$CRI_SOCK" ] && cri version >/dev/null 2>&1 && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	fail "containerd did not answer on $CRI_SOCK"
}

cri_setup_file() {
	cri_check_deps
	export CRI_WORK="$BATS_FILE_TMPDIR"
	export CRI_NETNS="corral-cri-$$"
	export CRI_NETWORK="corral-cri-$$"
	export CRI_CGROUP="corral-cri-$$"
	export CRI_SOCK="$CRI_WORK/containerd.sock"
	export CRI_CORRAL_ROOT="$CRI_WORK/corral"
	export CRI_PAUSE_IMAGE="localhost/corral-cri-pause-$$:latest"
	# libcni makes /var/lib/cni/results; it goes again if it was not here
	CRI_CNI_CACHE_NEW=""
	[ -d /var/lib/cni ] || CRI_CNI_CACHE_NEW=1
	export CRI_CNI_CACHE_NEW
	# and the shim's fixed /run/containerd/{s,fifo,runc}
	CRI_RUN_NEW=""
	[ -d /run/containerd ] || CRI_RUN_NEW=1
	export CRI_RUN_NEW
	CRI_APP_IMAGE="$(yaml_get "$CRI_POD_YAML" spec containers 0 image)"
	export CRI_APP_IMAGE
	CRI_HANDLER="$(yaml_get "$CRI_RUNTIMECLASS" handler)"
	export CRI_HANDLER

	mkdir -p "$CRI_WORK/pb" "$CRI_CORRAL_ROOT"
	protoc -I "$CRI_DIR" --python_out="$CRI_WORK/pb" "$CRI_DIR/cri.proto" ||
		fail "protoc cri.proto"

	ip netns add "$CRI_NETNS" || fail "ip netns add $CRI_NETNS"
	ip -n "$CRI_NETNS" link set lo up || fail "lo up in $CRI_NETNS"
	write_cni_conf "$CRI_WORK/cni"
	render_containerd_config || fail "render config.toml from the example"

	# nsenter --net rather than `ip netns exec`: the latter also remounts
	# /sys for the namespace, which hides /sys/fs/cgroup from containerd
	# and corral.  Only the network namespace has to differ.
	nsenter --net="/run/netns/$CRI_NETNS" \
		containerd --config "$CRI_WORK/config.toml" --log-level debug \
		</dev/null >"$CRI_WORK/containerd.log" 2>&1 3>&- &
	export CRI_CONTAINERD_PID=$!
	echo "$CRI_CONTAINERD_PID" >"$CRI_WORK/containerd.pid"
	wait_containerd

	make_rootfs_tar "$CRI_WORK/rootfs.tar"
	import_image "$CRI_WORK/rootfs.tar" "$CRI_PAUSE_IMAGE" \
		'["/bin/sleep", "1000000000"]' "$CRI_PAUSE_IMAGE"
	import_image "$CRI_WORK/rootfs.tar" "localhost/corral-cri-app-$$:latest" \
		'["/bin/sh"]' "$CRI_APP_IMAGE"
}

# ---- one pod ----------------------------------------------------------------

# run_pod [--annotation K=V]...: RunPodSandbox from pod.yaml, under the
# handler of runtimeclass.yaml; the id goes to POD (and to the list that
# teardown removes), the config to $BATS_TEST_TMPDIR/pod.pb.  Output and
# status as bats' run leaves them.  The pod's cgroup parent is
# $CRI_POD_PARENT when set (a slice, under SystemdCgroup).
run_pod() {
	run --separate-stderr cri run-pod --pod-yaml "$CRI_POD_YAML" \
		--runtimeclass "$CRI_RUNTIMECLASS" \
		--log-dir "$BATS_TEST_TMPDIR/logs" \
		--save-config "$BATS_TEST_TMPDIR/pod.pb" \
		--uid "pod-$BATS_TEST_NUMBER-$$" \
		--cgroup-parent "${CRI_POD_PARENT:-/$CRI_CGROUP/pod-$BATS_TEST_NUMBER}" "$@"
	POD=""
	if [ "$status" -eq 0 ]; then
		POD="$output"
		echo "$POD" >>"$BATS_TEST_TMPDIR/pods"
	fi
}

# create_app [--annotation K=V]...: CreateContainer for pod.yaml's first
# container in $POD; the id goes to CTR.
create_app() {
	run --separate-stderr cri create --pod-id "$POD" \
		--pod-config "$BATS_TEST_TMPDIR/pod.pb" \
		--pod-yaml "$CRI_POD_YAML" "$@"
	CTR=""
	[ "$status" -ne 0 ] || CTR="$output"
}

# start_pod_app: a running pod with pod.yaml's app container started.
start_pod_app() {
	run_pod
	[ "$status" -eq 0 ] || fail "RunPodSandbox: $stderr"
	create_app
	[ "$status" -eq 0 ] || fail "CreateContainer: $stderr"
	# taken before StartContainer: the wall clock cannot start earlier
	APP_STARTED_MS="$(now_ms)"
	run --separate-stderr cri start "$CTR"
	[ "$status" -eq 0 ] || fail "StartContainer: $stderr"
}

# now_ms: the time in milliseconds.
now_ms() {
	local t="$EPOCHREALTIME"
	echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 ))
}

# status_field ID FIELD: one field of ContainerStatus.
status_field() {
	cri status "$1" | jq -r ".$2"
}

# wait_state ID STATE [TENTHS]: poll ContainerStatus (default 10s).
wait_state() {
	local id="$1" want="$2" tries=${3:-100} got=""
	while [ "$tries" -gt 0 ]; do
		got="$(status_field "$id" state 2>/dev/null)"
		[ "$got" = "$want" ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	fail "container $id: state \"$got\", expected \"$want\""
}

# wait_log FILE PATTERN [TENTHS]: until FILE has a line matching PATTERN.
wait_log() {
	local file="$1" pattern="$2" tries=${3:-100}
	while [ "$tries" -gt 0 ]; do
		grep -Eq -- "$pattern" "$file" 2>/dev/null && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	fail "no line \"$pattern\" in $file: $(cat "$file" 2>&1)"
}

# remove_test_pods: StopPodSandbox + RemovePodSandbox for every pod this
# test made (which stops and removes their containers too).
remove_test_pods() {
	local pod problems=""
	[ -f "$BATS_TEST_TMPDIR/pods" ] || return 0
	while read -r pod; do
		# a test may have removed it already
		cri pod-status "$pod" >/dev/null 2>&1 || continue
		cri stop-pod "$pod" >/dev/null 2>&1 ||
			problems+="StopPodSandbox $pod failed; "
		cri remove-pod "$pod" >/dev/null 2>&1 ||
			problems+="RemovePodSandbox $pod failed; "
	done <"$BATS_TEST_TMPDIR/pods"
	rm -f "$BATS_TEST_TMPDIR/pods"
	[ -z "$problems" ] || fail "teardown: $problems"
}

# ---- taking it all down -----------------------------------------------------

# stop_pid PID [TENTHS]: TERM, then KILL if it is still there.
stop_pid() {
	local pid="$1" tries=${2:-100}
	kill -TERM "$pid" 2>/dev/null || return 0
	while [ "$tries" -gt 0 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		tries=$((tries - 1))
	done
	kill -KILL "$pid" 2>/dev/null || true
}

# The shims this containerd started: their command line names its socket.
own_shims() {
	local p cmdline
	for p in /proc/[0-9]*; do
		cmdline="$({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null)" || continue
		case "$cmdline" in
		*containerd-shim*"-address $CRI_SOCK "*) echo "${p#/proc/}" ;;
		esac
	done
}

cri_teardown_file() {
	local pod pid id mnt addr dir
	[ -n "${CRI_WORK:-}" ] || return 0
	if [ -n "${CRI_CONTAINERD_PID:-}" ] &&
		kill -0 "$CRI_CONTAINERD_PID" 2>/dev/null; then
		for pod in $(cri list-pods 2>/dev/null); do
			cri stop-pod "$pod" >/dev/null 2>&1
			cri remove-pod "$pod" >/dev/null 2>&1
		done
		stop_pid "$CRI_CONTAINERD_PID"
		wait "$CRI_CONTAINERD_PID" 2>/dev/null
	fi
	# containers the pods left (corral's own state says which)
	for dir in "$CRI_CORRAL_ROOT/$CRI_CTR_NS"/*; do
		[ -d "$dir" ] || continue
		corral_k8s delete --force "${dir##*/}" >/dev/null 2>&1
	done
	for pid in $(own_shims); do
		stop_pid "$pid" 50
	done
	# a killed shim leaves its socket in containerd's shared socket dir
	for addr in "$CRI_WORK"/state/io.containerd.runtime.v2.task/*/*/address; do
		[ -f "$addr" ] || continue
		addr="$(cat "$addr")"
		addr="${addr#unix://}"
		case "$addr" in /run/containerd/s/*) rm -f "$addr" ;; esac
	done
	findmnt -rn -o TARGET | grep -F "$CRI_WORK/" | sort -r |
		while read -r mnt; do
			umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
		done
	for dir in /sys/fs/cgroup/*/"$CRI_CGROUP" /sys/fs/cgroup/"$CRI_CGROUP"; do
		[ -d "$dir" ] && find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	ip netns del "$CRI_NETNS" 2>/dev/null
	# libcni's result cache (/var/lib/cni, not configurable in containerd
	# 1.6): a pod that never saw CNI DEL (containerd killed) leaves its
	# entries, the bridge's under our network name and containerd's
	# loopback network's under the pod's id
	rm -f /var/lib/cni/results/"$CRI_NETWORK"-*
	for dir in "$CRI_WORK"/root/io.containerd.grpc.v1.cri/sandboxes/*; do
		[ -d "$dir" ] || continue
		rm -f /var/lib/cni/results/cni-loopback-"${dir##*/}"-*
	done
	if [ -n "${CRI_CNI_CACHE_NEW:-}" ]; then
		rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null
	fi
	if [ -n "${CRI_RUN_NEW:-}" ]; then
		rmdir /run/containerd/s /run/containerd/fifo \
			/run/containerd/runc /run/containerd 2>/dev/null
	fi
	if [ -f "$CRI_WORK/podman-images" ]; then
		while read -r id; do
			podman rmi -f "$id" >/dev/null 2>&1
		done <"$CRI_WORK/podman-images"
	fi
	rm -rf "$CRI_WORK/root" "$CRI_WORK/state" "$CRI_CORRAL_ROOT"
	return 0
}

# stderr_has TEXT: the last `run --separate-stderr` printed TEXT on stderr
# (this bats-assert has no assert_stderr).
stderr_has() {
	[[ "$stderr" == *"$1"* ]] || fail "stderr lacks \"$1\": $stderr"
}
