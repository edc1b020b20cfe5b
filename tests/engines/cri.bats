#!/usr/bin/env bats
# corral as a Kubernetes RuntimeClass: containerd 1.6's CRI plugin, set up
# from config-examples/containerd/config.toml, runs the pod of
# config-examples/kubernetes/pod.yaml with the handler of runtimeclass.yaml.
# cri/cri_client.py plays the kubelet over gRPC; cri/cri.bash builds and
# removes the private containerd, its network namespace and its images.

# shellcheck disable=SC2154
# (stderr is set by bats' run --separate-stderr)

bats_require_minimum_version 1.5.0

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load 'cri/cri.bash'

setup_file() {
	cri_setup_file
}

teardown_file() {
	cri_teardown_file
}

teardown() {
	# an upstream server a test started (by pid, whatever the test did)
	if [ -f "$BATS_TEST_TMPDIR/server.pid" ]; then
		# shellcheck disable=SC2046
		kill $(cat "$BATS_TEST_TMPDIR/server.pid") 2>/dev/null || true
	fi
	remove_test_pods
	# kubelet volume directories a test made, and the parents it made
	if [ -f "$BATS_TEST_TMPDIR/made" ]; then
		tac "$BATS_TEST_TMPDIR/made" | while read -r dir; do
			rm -rf -- "$dir"
		done
	fi
}

# kubelet_volumes UID KIND/NAME...: the kubelet's volume directories of
# pod UID under /var/lib/kubelet/pods, each with a file "key" saying
# which it is; an emptyDir is world-writable, as the kubelet makes it.
kubelet_volumes() {
	local uid="$1" d top
	shift
	for top in /var/lib/kubelet /var/lib/kubelet/pods; do
		[ -e "$top" ] || { mkdir "$top" && echo "$top" >>"$BATS_TEST_TMPDIR/made"; }
	done
	mkdir "/var/lib/kubelet/pods/$uid" || fail "mkdir the pod's directory"
	echo "/var/lib/kubelet/pods/$uid" >>"$BATS_TEST_TMPDIR/made"
	for d in "$@"; do
		mkdir -p "/var/lib/kubelet/pods/$uid/volumes/kubernetes.io~$d"
		echo "${d%%/*}" >"/var/lib/kubelet/pods/$uid/volumes/kubernetes.io~$d/key"
		[[ "$d" != empty-dir/* ]] ||
			chmod 0777 "/var/lib/kubelet/pods/$uid/volumes/kubernetes.io~$d"
	done
}

# A CRI log line: RFC 3339 time, stream, tag (F full, P partial), message.
CRI_LOG_LINE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+) (stdout|stderr) [FP] '

@test "CRI Version answers as containerd speaking runtime API v1" {
	run --separate-stderr cri version
	assert_success
	assert_output --regexp '^containerd .+ v1$'
	# the images exist for the CRI under the names the examples use
	run --separate-stderr cri image-status "$CRI_APP_IMAGE"
	assert_success
	run --separate-stderr cri image-status "$CRI_PAUSE_IMAGE"
	assert_success
}

@test "a pod's full lifecycle through the CRI runs on corral" {
	local pause_state pid
	run_pod
	assert_success
	run --separate-stderr cri pod-status "$POD"
	assert_success
	assert_equal "$(jq -r .state <<<"$output")" SANDBOX_READY
	assert_equal "$(jq -r .runtime_handler <<<"$output")" "$CRI_HANDLER"

	create_app
	assert_success
	assert_equal "$(status_field "$CTR" state)" CONTAINER_CREATED
	run --separate-stderr cri start "$CTR"
	assert_success
	wait_state "$CTR" CONTAINER_RUNNING

	# corral ran both: its state root has the pause container and the app
	# container, running, with the pid containerd reports
	pid="$(status_field "$CTR" pid)"
	[ "$pid" -gt 0 ] || fail "ContainerStatus gave no pid"
	run --separate-stderr corral_k8s state "$CTR"
	assert_success
	assert_equal "$(jq -r .status <<<"$output")" running
	assert_equal "$(jq -r .pid <<<"$output")" "$pid"
	pause_state="$(corral_k8s state "$POD")" || fail "corral has no pause container $POD"
	assert_equal "$(jq -r .status <<<"$pause_state")" running
	[ -s "$CRI_CORRAL_ROOT/$CRI_CTR_NS/$CTR/explain.txt" ] ||
		fail "no explain.txt for $CTR"
	# in the cgroup containerd asked for: the pod's parent, then its id
	grep -q ":/$CRI_CGROUP/pod-$BATS_TEST_NUMBER/$CTR\$" "/proc/$pid/cgroup" ||
		fail "container $pid is not in its pod's cgroup: $(cat "/proc/$pid/cgroup")"

	run --separate-stderr cri stop "$CTR" --timeout 5
	assert_success
	wait_state "$CTR" CONTAINER_EXITED
	# SIGTERM, forwarded by corral's supervisor to the workload
	assert_equal "$(status_field "$CTR" exit_code)" 143
	run --separate-stderr cri remove "$CTR"
	assert_success
	[ ! -e "$CRI_CORRAL_ROOT/$CRI_CTR_NS/$CTR" ] ||
		fail "corral's state of $CTR is left after RemoveContainer"
	run --separate-stderr cri status "$CTR"
	assert_failure 2
	stderr_has NOT_FOUND

	run --separate-stderr cri stop-pod "$POD"
	assert_success
	run --separate-stderr cri remove-pod "$POD"
	assert_success
	[ ! -e "$CRI_CORRAL_ROOT/$CRI_CTR_NS/$POD" ] ||
		fail "corral's state of the pause container is left"
	run compgen -G "/sys/fs/cgroup/*/$CRI_CGROUP/pod-$BATS_TEST_NUMBER/*/"
	assert_output ""
	run --separate-stderr cri pod-status "$POD"
	assert_failure 2
}

@test "the container's output reaches its CRI log file" {
	local log name
	start_pod_app
	name="$(yaml_get "$CRI_POD_YAML" metadata name)"
	# <log_directory>/<name>/<attempt>.log, as the kubelet asked
	log="$(status_field "$CTR" log_path)"
	assert_equal "$log" "$BATS_TEST_TMPDIR/logs/app/0.log"
	# pod.yaml's command prints the hostname, which is the pod's (the
	# container joins the pause container's uts namespace)
	wait_log "$log" "${CRI_LOG_LINE}hello from $name\$"
	run grep -Evc "$CRI_LOG_LINE" "$log"
	assert_output 0
}

@test "ExecSync returns the command's output and exit code" {
	start_pod_app
	run --separate-stderr cri exec "$CTR" -- sh -c 'echo out; echo err >&2; exit 3'
	assert_equal "$status" 3
	assert_output out
	assert_equal "$stderr" err
	run --separate-stderr cri exec "$CTR" -- true
	assert_success
	assert_output ""
	run --separate-stderr cri exec "$CTR" -- cat /etc/hostname
	assert_success
	assert_output "$(yaml_get "$CRI_POD_YAML" metadata name)"
}

@test "the pod's app container has only lo, uid 65534 and no capabilities, though CNI gave the pod an address" {
	local ip netns pause_pid
	start_pod_app
	ip="$(cri pod-status "$POD" | jq -r .ip)"
	[[ "$ip" == 10.* ]] || fail "CNI gave the pod no 10.x address: \"$ip\""
	# CNI put eth0 with that address in the network namespace containerd
	# made for the pod; corral joined it for neither of its containers
	netns="$(jq -r '.linux.namespaces[] | select(.type == "network") | .path' \
		"$CRI_WORK/state/io.containerd.runtime.v2.task/$CRI_CTR_NS/$POD/config.json")"
	[ -e "$netns" ] || fail "no pod network namespace at \"$netns\""
	run nsenter --net="$netns" ip -o -4 addr show dev eth0
	assert_success
	assert_output --partial " $ip/"
	pause_pid="$(corral_k8s state "$POD" | jq -r .pid)"
	run cat "/proc/$pause_pid/net/dev"
	assert_success
	refute_output --partial eth0
	assert_output --partial "lo:"
	if [ "/proc/$pause_pid/ns/net" -ef "$netns" ]; then
		fail "the pause container is in the CNI network namespace"
	fi

	run --separate-stderr cri exec "$CTR" -- ls /sys/class/net
	assert_success
	assert_output lo
	run --separate-stderr cri exec "$CTR" -- cat /proc/net/dev
	assert_success
	refute_output --partial eth0
	run --separate-stderr cri exec "$CTR" -- id -u
	assert_success
	assert_output 65534
	run --separate-stderr cri exec "$CTR" -- grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status
	assert_success
	assert_equal "${#lines[@]}" 5
	refute_output --regexp '[1-9a-f]$'
	# the workload itself, not only the exec'd process: its pid 1 is
	# corral's supervisor, a uid of its own with CAP_KILL alone, and the
	# workload its child, as nobody with no capability
	run --separate-stderr cri exec "$CTR" -- sh -c 'grep -E "^(Uid|CapEff):" /proc/1/status
		for c in $(cat /proc/1/task/1/children); do grep -E "^(Uid|CapEff):" /proc/$c/status; done'
	assert_success
	assert_line --index 0 --regexp '^Uid:[[:space:]]+65535[[:space:]]+65535'
	assert_line --index 1 --regexp '^CapEff:[[:space:]]+0+20$'
	assert_line --index 2 --regexp '^Uid:[[:space:]]+65534[[:space:]]+65534'
	assert_line --index 3 --regexp '^CapEff:[[:space:]]+0+$'
}

@test "pod.yaml's run.corral.timeout kills the app container at its deadline; the pause container lives on" {
	local timeout elapsed log
	timeout="$(yaml_get "$CRI_POD_YAML" metadata annotations run.corral.timeout)"
	[ "$timeout" -gt 0 ] && [ "$timeout" -le 60 ] ||
		fail "pod.yaml's run.corral.timeout is \"$timeout\": the test waits for it"
	start_pod_app
	wait_state "$CTR" CONTAINER_RUNNING
	# corral took the wall clock from the annotation containerd passed on
	run --separate-stderr corral_k8s explain --format json "$CTR"
	assert_success
	assert_equal "$(jq -r .sandbox.role <<<"$output")" workload
	assert_equal "$(jq -r .reach.time.wallClock <<<"$output")" "$timeout"
	assert_equal "$(jq -r .reach.time.source <<<"$output")" \
		"annotation: run.corral.timeout"
	wait_state "$CTR" CONTAINER_EXITED $(((timeout + 15) * 10))
	# seen exited (ContainerStatus is polled) between the deadline and a
	# few seconds after it
	elapsed=$(($(now_ms) - APP_STARTED_MS))
	[ "$elapsed" -ge $((timeout * 1000)) ] ||
		fail "the container exited after ${elapsed}ms, before the ${timeout}s deadline"
	[ "$elapsed" -le $(((timeout + 10) * 1000)) ] ||
		fail "the container exited after ${elapsed}ms, long after the ${timeout}s deadline"
	assert_equal "$(status_field "$CTR" exit_code)" 137
	log="$BATS_TEST_TMPDIR/logs/app/0.log"
	wait_log "$log" "${CRI_LOG_LINE}corral: wall-clock limit of ${timeout}s reached"

	# the pause container got the same annotation and, being the pod's
	# sandbox (containerd's container-type annotation), no wall clock
	run --separate-stderr cri pod-status "$POD"
	assert_success
	assert_equal "$(jq -r .state <<<"$output")" SANDBOX_READY
	assert_equal "$(corral_k8s state "$POD" | jq -r .status)" running
	run --separate-stderr corral_k8s explain --format json "$POD"
	assert_success
	assert_equal "$(jq -r .sandbox.role <<<"$output")" pod-sandbox
	assert_equal "$(jq -r .sandbox.wallClock <<<"$output")" 0
	assert_equal "$(jq -r '.changes[] | select(.field == "sandbox.wallClock") | .asked + " -> " + .applied' <<<"$output")" \
		"$timeout -> none"
	# and the pod still takes a new container (the kubelet's restart)
	create_app --attempt 1
	assert_success
	run --separate-stderr cri start "$CTR"
	assert_success
	wait_state "$CTR" CONTAINER_RUNNING
}

@test "a container annotation that widens the wall clock fails StartContainer with corral's reason" {
	run_pod
	assert_success
	create_app --annotation run.corral.timeout=100000
	assert_success
	run --separate-stderr cri start "$CTR"
	assert_failure 2
	stderr_has "StartContainer: UNKNOWN"
	stderr_has "annotation run.corral.timeout=100000: wider than the policy's 600s"
	[ "$(status_field "$CTR" state)" != CONTAINER_RUNNING ] ||
		fail "$CTR is running"
	[ ! -e "$CRI_CORRAL_ROOT/$CRI_CTR_NS/$CTR" ] ||
		fail "a failed create left corral state for $CTR"
	# the pod itself is unharmed
	assert_equal "$(cri pod-status "$POD" | jq -r .state)" SANDBOX_READY
}

@test "a pod annotation that lifts the wall clock fails RunPodSandbox with corral's reason" {
	run_pod --annotation run.corral.timeout=none
	assert_failure 2
	stderr_has "RunPodSandbox:"
	stderr_has "annotation run.corral.timeout=none: wider than the policy's 600s"
}

# cni_gateway: the CNI bridge's gateway (the subnet's first address),
# inside this file's private network namespace, in GW.
cni_gateway() {
	GW="$(jq -r '.plugins[0].ipam.ranges[0][0].subnet' \
		"$CRI_WORK/cni/10-corral-cri.conflist")"
	GW="${GW%.0/24}.1"
	[[ "$GW" == 10.* ]] || fail "no gateway address in the CNI config: \"$GW\""
}

# egress_pod RULE... [-- run_pod's arguments]: the pod, and so its
# network, made under the test's policy plus network.allow RULE...
# (StartContainer runs corral's create); the policy is restored after.
egress_pod() {
	local saved="$BATS_TEST_TMPDIR/policy.saved" rules=() started
	while [ $# -gt 0 ] && [ "$1" != -- ]; do rules+=("$1"); shift; done
	[ $# -eq 0 ] || shift
	cp "$CRI_WORK/policy.json" "$saved"
	jq '.network = {allow: $ARGS.positional}' "$saved" \
		--args "${rules[@]}" >"$CRI_WORK/policy.json"
	run_pod "$@"
	[ "$status" -ne 0 ] || create_app
	[ "$status" -ne 0 ] || run --separate-stderr cri start "$CTR"
	started=$status
	cp "$saved" "$CRI_WORK/policy.json"
	[ "$started" -eq 0 ] || fail "the egress pod: $stderr"
}

# cluster_upstream PORT: an HTTP server on GW:PORT in the CNI namespace
# answering "hello-from-PORT", once CNI has made the bridge; its pid is
# appended to server.pid (teardown stops it).
cluster_upstream() {
	local www="$BATS_TEST_TMPDIR/www-$1"
	mkdir -p "$www" && echo "hello-from-$1" >"$www/index.html"
	nsenter --net="/run/netns/$CRI_NETNS" python3 -m http.server "$1" \
		--bind "$GW" --directory "$www" >/dev/null 2>&1 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/server.pid"
	for _ in $(seq 50); do
		nsenter --net="/run/netns/$CRI_NETNS" busybox nc -z "$GW" "$1" \
			2>/dev/null && break
		sleep 0.1
	done
}

@test "an egress policy: the app container reaches the allowed host through its pod's proxy, from the pod's CNI namespace" {
	local port=$((30000 + RANDOM % 10000)) pause_pid
	cni_gateway
	egress_pod "$GW:$port"
	cluster_upstream "$port"
	run --separate-stderr cri exec "$CTR" -- sh -c \
		"wget -q -O- http://$GW:$port/; wget -q -O- http://$GW:$((port + 1))/ 2>&1; ls /sys/class/net"
	assert_line --index 0 "hello-from-$port"
	assert_line --index 1 --partial "403 Forbidden"
	assert_line --index 2 lo
	# one proxy for the pod: the pause container's, none of the app's
	pause_pid="$(corral_k8s state "$POD" | jq -r .pid)"
	[ -f "$CRI_CORRAL_ROOT/$CRI_CTR_NS/$POD/egress.pid" ] || fail "the pod sandbox has no proxy"
	[ ! -e "$CRI_CORRAL_ROOT/$CRI_CTR_NS/$CTR/egress.pid" ] || fail "the app container has its own proxy"
	[ "/proc/$pause_pid/ns/net" -ef "/proc/$(corral_k8s state "$CTR" | jq -r .pid)/ns/net" ] ||
		fail "the app container is not in its pod's network namespace"
}

@test "the pod annotation run.corral.egress narrows the policy's hosts: a host it leaves out is refused, though served and allowed by the policy" {
	local port=$((30000 + RANDOM % 10000))
	cni_gateway
	egress_pod "$GW:$port" "$GW:$((port + 1))" -- \
		--annotation "run.corral.egress=$GW:$port"
	cluster_upstream "$port"
	cluster_upstream "$((port + 1))"
	run --separate-stderr cri exec "$CTR" -- sh -c \
		"wget -q -O- http://$GW:$port/; wget -q -O- http://$GW:$((port + 1))/ 2>&1"
	assert_line --index 0 "hello-from-$port"
	assert_line --index 1 --partial "403 Forbidden"
	refute_output --partial "hello-from-$((port + 1))"
}

@test "a pod's containers share its loopback-only network: one serves on 127.0.0.1:80, the other fetches it" {
	local yaml="$BATS_TEST_TMPDIR/pair.yaml" server pause_pid c
	cat >"$yaml" <<-EOF
		apiVersion: v1
		kind: Pod
		metadata:
		  name: corral-pair
		  namespace: default
		spec:
		  runtimeClassName: corral
		  containers:
		    - name: server
		      image: $CRI_APP_IMAGE
		      command: ["busybox", "httpd", "-f", "-p", "127.0.0.1:80", "-h", "/etc"]
		    - name: client
		      image: $CRI_APP_IMAGE
		      command: ["sleep", "3600"]
	EOF
	CRI_POD_YAML="$yaml" run_pod
	[ "$status" -eq 0 ] || fail "RunPodSandbox: $stderr"
	create_app --pod-yaml "$yaml" --container server
	[ "$status" -eq 0 ] || fail "CreateContainer server: $stderr"
	server="$CTR"
	run --separate-stderr cri start "$server"
	[ "$status" -eq 0 ] || fail "StartContainer server: $stderr"
	create_app --pod-yaml "$yaml" --container client
	[ "$status" -eq 0 ] || fail "CreateContainer client: $stderr"
	run --separate-stderr cri start "$CTR"
	[ "$status" -eq 0 ] || fail "StartContainer client: $stderr"
	# the pod's one namespace, corral's, with only lo
	pause_pid="$(corral_k8s state "$POD" | jq -r .pid)"
	for c in "$server" "$CTR"; do
		[ "/proc/$pause_pid/ns/net" -ef "/proc/$(corral_k8s state "$c" | jq -r .pid)/ns/net" ] ||
			fail "$c is not in its pod's network namespace: $(cat "$BATS_TEST_TMPDIR"/logs/*/0.log)"
	done
	for _ in $(seq 50); do
		run --separate-stderr cri exec "$CTR" -- busybox wget -q -O- http://127.0.0.1:80/group
		[ "$status" -eq 0 ] && break
		sleep 0.1
	done
	assert_success
	# the image's /etc/group, served by the other container
	assert_output "$(printf 'root:x:0:\nnogroup:x:65534:')"
	run --separate-stderr cri exec "$CTR" -- ls /sys/class/net
	assert_output lo
	run --separate-stderr corral_k8s explain "$CTR"
	assert_success
	assert_output --partial "its pod's: the pod sandbox's namespace"
}

@test "a pod's volumes by kind: emptyDir shared and writable, configMap and downwardAPI read-only, secret and token absent" {
	local yaml="$BATS_TEST_TMPDIR/vol.yaml" uid="pod-$BATS_TEST_NUMBER-$$"
	local v="/var/lib/kubelet/pods/pod-$BATS_TEST_NUMBER-$$/volumes/kubernetes.io~" m=()
	cat >"$yaml" <<-EOF
		apiVersion: v1
		kind: Pod
		metadata:
		  name: corral-volumes
		  namespace: default
		spec:
		  runtimeClassName: corral
		  containers:
		    - name: writer
		      image: $CRI_APP_IMAGE
		      command: ["sh", "-c", "echo from-the-writer >/scratch/note && exec sleep 3600"]
		    - name: reader
		      image: $CRI_APP_IMAGE
		      command: ["sleep", "3600"]
	EOF
	kubelet_volumes "$uid" empty-dir/scratch configmap/app-config \
		downward-api/podinfo secret/db-creds projected/kube-api-access-x1
	m=(--mount "${v}empty-dir/scratch:/scratch"
	   --mount "${v}configmap/app-config:/config:ro"
	   --mount "${v}downward-api/podinfo:/podinfo:ro"
	   --mount "${v}secret/db-creds:/creds:ro"
	   --mount "${v}projected/kube-api-access-x1:/var/run/secrets/kubernetes.io/serviceaccount:ro")
	CRI_POD_YAML="$yaml" run_pod
	[ "$status" -eq 0 ] || fail "RunPodSandbox: $stderr"
	for c in writer reader; do
		create_app --pod-yaml "$yaml" --container "$c" "${m[@]}"
		[ "$status" -eq 0 ] || fail "CreateContainer $c: $stderr"
		run --separate-stderr cri start "$CTR"
		[ "$status" -eq 0 ] || fail "StartContainer $c: $stderr"
	done
	# the reader sees what the writer wrote in the pod's emptyDir
	for _ in $(seq 50); do
		run --separate-stderr cri exec "$CTR" -- cat /scratch/note
		[ "$status" -eq 0 ] && break
		sleep 0.1
	done
	assert_success
	assert_output from-the-writer
	run --separate-stderr cri exec "$CTR" -- sh -c \
		'cat /config/key /podinfo/key; echo x >/config/new 2>/dev/null || echo config-read-only; ls /creds /var/run/secrets/kubernetes.io/serviceaccount 2>/dev/null || echo secrets-absent'
	assert_success
	assert_output "$(printf 'configmap\ndownward-api\nconfig-read-only\nsecrets-absent')"
	run --separate-stderr corral_k8s explain "$CTR"
	assert_success
	assert_output --partial "a secret volume is mounted only when the policy's volumes.secrets names it"
	assert_output --partial "the service-account token is never mounted"
}

@test "with a pool of ids: the pod is root of its own user namespace; a server writes under /var/run and serves port 80; the root-owned workdir is written; groups kept" {
	local yaml="$BATS_TEST_TMPDIR/userns.yaml" saved="$BATS_TEST_TMPDIR/policy.saved"
	local pool=$((1073741824 + ($$ % 150 * 256 + 200) * 65536)) server pid host
	cat >"$yaml" <<-EOF
		apiVersion: v1
		kind: Pod
		metadata:
		  name: corral-userns
		  namespace: default
		spec:
		  runtimeClassName: corral
		  securityContext:
		    supplementalGroups: [3000]
		    fsGroup: 2000
		  containers:
		    - name: server
		      image: $CRI_APP_IMAGE
		      command: ["sh", "-c", "echo \$\$ >/var/run/httpd.pid && exec busybox httpd -f -p 80 -h /var/run"]
		    - name: client
		      image: $CRI_APP_IMAGE
		      workingDir: /root
		      command: ["sh", "-c", "echo written >note && exec sleep 3600"]
	EOF
	# the pool the host would reserve in /etc/subuid, in this test's
	# policy only while the pod is made
	cp "$CRI_WORK/policy.json" "$saved"
	jq --argjson p "$pool" '.user.pool = {hostUID: $p, hostGID: $p, size: 1048576}' \
		"$saved" >"$CRI_WORK/policy.json"
	CRI_POD_YAML="$yaml" run_pod
	[ "$status" -ne 0 ] || create_app --pod-yaml "$yaml" --container server
	server="$CTR"
	[ "$status" -ne 0 ] || run --separate-stderr cri start "$server"
	[ "$status" -ne 0 ] || create_app --pod-yaml "$yaml" --container client
	[ "$status" -ne 0 ] || run --separate-stderr cri start "$CTR"
	cp "$saved" "$CRI_WORK/policy.json"
	[ "$status" -eq 0 ] || fail "the pod: $stderr"
	run --separate-stderr cri exec "$CTR" -- sh -c 'id -u; id -G; cat /root/note; ls /sys/class/net'
	assert_success
	assert_output "$(printf '0\n0 2000 3000\nwritten\nlo')"
	for _ in $(seq 50); do
		run --separate-stderr cri exec "$CTR" -- busybox wget -q -O- http://127.0.0.1:80/httpd.pid
		[ "$status" -eq 0 ] && break
		sleep 0.1
	done
	assert_success
	[[ "$output" =~ ^[0-9]+$ ]] || fail "the pid file: $output"
	# on the host, the pod's processes are ids of the pool, never root
	for c in "$POD" "$server" "$CTR"; do
		pid="$(corral_k8s state "$c" | jq -r .pid)"
		host="$(awk '$1 == "Uid:" { print $2 }' "/proc/$pid/status")"
		[ "$host" -ge "$pool" ] && [ "$host" -lt $((pool + 1048576)) ] ||
			fail "$c runs as host uid $host, outside the pool $pool"
	done
	run --separate-stderr corral_k8s explain "$CTR"
	assert_output --partial "its pod sandbox's user namespace"
	# the pod's one slice is given back when the pod goes (its init is
	# the supervisor, the slice's last id: the slice starts 65535 below)
	# (ids above 2^31: the shell's arithmetic, not mawk's, which prints
	# them as 2.3e+09)
	local slice
	slice="$(awk '$1 == "Uid:" { print $2 }' "/proc/$(corral_k8s state "$POD" | jq -r .pid)/status")"
	slice=$((slice - 65535))
	[ -f "/run/corral-userns/$slice" ] || fail "no slice file $slice"
	run --separate-stderr cri stop-pod "$POD"
	assert_success
	run --separate-stderr cri remove-pod "$POD"
	assert_success
	[ ! -e "/run/corral-userns/$slice" ] || fail "the pod's slice $slice is still held"
}

@test "a pod's safe sysctls are set in its namespaces and read back by its container; an unsafe one is dropped, explained" {
	local yaml="$BATS_TEST_TMPDIR/sysctl.yaml" host_ka
	host_ka="$(cat /proc/sys/net/ipv4/tcp_keepalive_time)"
	cat >"$yaml" <<-EOF
		apiVersion: v1
		kind: Pod
		metadata:
		  name: corral-sysctls
		  namespace: default
		spec:
		  runtimeClassName: corral
		  securityContext:
		    sysctls:
		      - {name: net.ipv4.tcp_keepalive_time, value: "600"}
		      - {name: net.ipv4.ip_local_port_range, value: "40000 50000"}
		      - {name: kernel.shm_rmid_forced, value: "1"}
		      - {name: net.core.somaxconn, value: "12345"}
		  containers:
		    - name: app
		      image: $CRI_APP_IMAGE
		      command: ["sleep", "3600"]
	EOF
	CRI_POD_YAML="$yaml" run_pod
	[ "$status" -eq 0 ] || fail "RunPodSandbox: $stderr"
	create_app --pod-yaml "$yaml" --container app
	[ "$status" -eq 0 ] || fail "CreateContainer: $stderr"
	run --separate-stderr cri start "$CTR"
	[ "$status" -eq 0 ] || fail "StartContainer: $stderr"
	run --separate-stderr cri exec "$CTR" -- cat /proc/sys/net/ipv4/tcp_keepalive_time \
		/proc/sys/net/ipv4/ip_local_port_range /proc/sys/kernel/shm_rmid_forced \
		/proc/sys/net/core/somaxconn
	assert_success
	assert_line --index 0 600
	assert_line --index 1 --regexp '^40000[[:space:]]+50000$'
	assert_line --index 2 1
	[ "${lines[3]}" != 12345 ] || fail "the unsafe sysctl was applied"
	# the host's own value is untouched
	assert_equal "$(cat /proc/sys/net/ipv4/tcp_keepalive_time)" "$host_ka"
	run --separate-stderr corral_k8s explain "$POD"
	assert_success
	assert_output --regexp 'net\.core\.somaxconn.*dropped'
}
