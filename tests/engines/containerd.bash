# A private containerd (Debian's 1.6) for engine tests, driven with ctr.
#
# Load tests/integration/helpers.bash first (this file uses its
# make_bundle, proc_start_time, pid_gone and fail).  Typical use:
#
#   setup_file()    { containerd_start "$BATS_FILE_TMPDIR/containerd"
#                     containerd_import_busybox "$IMAGE" /bin/sh; }
#   teardown()      { containerd_remove_container "$ID"; }
#   teardown_file() { containerd_stop; }
#
# containerd_start DIR runs `containerd --config DIR/config.toml` with
# everything under DIR: root/, state/, the gRPC socket DIR/containerd.sock,
# fifo/ for ctr's IO fifos, containerd.log.  No system containerd is
# touched.  It exports (bats copies exported variables from setup_file to
# the tests and to teardown_file):
#   CTRD_DIR   DIR
#   CTRD_SOCK  the gRPC socket (ctr -a, crictl --runtime-endpoint unix://...)
#   CTRD_PID   the daemon's pid; CTRD_PID_START its start time (pid reuse)
#   CTRD_NS    the namespace ctrd uses (default corral-test-$$)
#   CTRD_RUNC_BASE  /run/containerd/runc, the shim's default base for the
#              runtime's --root (set it beforehand if the runtime options
#              say Root = ...: a CRI test should, since every CRI daemon
#              uses namespace k8s.io and would share BASE/k8s.io)
#   CTRD_RUNC_ROOT  BASE/CTRD_NS: the --root the runc v2 shim gives
#              corral for CTRD_NS (the shim appends the namespace)
# Set before containerd_start to change the daemon:
#   CTRD_DISABLED_PLUGINS  plugin IDs to disable, space-separated (default
#              below: CRI and what a ctr test does not need); a CRI test
#              sets it without io.containerd.grpc.v1.cri
#   CTRD_EXTRA_CONFIG  TOML text appended to config.toml (plugin sections)
#
# containerd_stop undoes all of it, whatever state the tests left: the
# tasks, containers, images and namespaces in the daemon, the daemon
# (SIGTERM, SIGKILL after 10s), its shims (by pid), the runtime's state of
# its tasks under CTRD_RUNC_BASE, mounts under DIR, the cgroups /NS/ID of
# its tasks and /CTRD_NS, and DIR itself.  Cgroups elsewhere (a CRI pod's
# cgroup parent) are the caller's to remove.

# shellcheck disable=SC2154
# (status and output are set by bats' run.)

CTRD_DEFAULT_DISABLED_PLUGINS="io.containerd.grpc.v1.cri
	io.containerd.internal.v1.opt io.containerd.internal.v1.restart
	io.containerd.internal.v1.tracing io.containerd.tracing.processor.v1.otlp
	io.containerd.snapshotter.v1.aufs io.containerd.snapshotter.v1.btrfs
	io.containerd.snapshotter.v1.devmapper io.containerd.snapshotter.v1.zfs
	io.containerd.snapshotter.v1.native"
CTRD_SHIM="containerd-shim-runc-v2"

# ctrd ARGS...: ctr on the private daemon, in CTRD_NS.  fd 3 is bats'
# output channel: a shim or container that inherited it would hold bats.
ctrd() {
	ctr -a "$CTRD_SOCK" -n "$CTRD_NS" "$@" 3>&-
}

# ctrd_run [RUN OPTIONS] IMAGE ID [CMD...]: ctr run with corral as the runc
# v2 shim's binary and the IO fifos under CTRD_DIR.
ctrd_run() {
	ctrd run --runtime io.containerd.runc.v2 --runc-binary "$CORRAL" \
		--fifo-dir "$CTRD_DIR/fifo" "$@"
}

# ctrd_exec [EXEC OPTIONS] ID CMD...: ctr task exec, fifos as above.
ctrd_exec() {
	ctrd task exec --fifo-dir "$CTRD_DIR/fifo" "$@"
}

# ctrd_tty run|exec ARGS...: ctrd_run or ctrd_exec with a pseudo-terminal
# on ctr's stdin and stdout (script(1)): ctr -t insists on one.  Output
# lines end in CRLF; the exit status is ctr's.
ctrd_tty() {
	local argv=(ctr -a "$CTRD_SOCK" -n "$CTRD_NS")
	case "$1" in
	run) argv+=(run --runtime io.containerd.runc.v2
		--runc-binary "$CORRAL" --fifo-dir "$CTRD_DIR/fifo") ;;
	exec) argv+=(task exec --fifo-dir "$CTRD_DIR/fifo") ;;
	*) fail "ctrd_tty: run or exec, not $1" ;;
	esac
	shift
	# bash, not $SHELL, parses the %q quoting (see in_pty in podman.bats)
	SHELL=/bin/bash script -qec "$(printf '%q ' "${argv[@]}" "$@")" /dev/null 3>&-
}

# task_field ID pid|status: a column of `ctr task ls` for task ID.
task_field() {
	ctrd task ls | awk -v id="$1" -v f="$2" \
		'$1 == id { print (f == "pid" ? $2 : $3) }'
}

# wait_task_status ID STATUS [TENTHS]: poll ctr task ls (default 10s).
wait_task_status() {
	poll_equal "task $1: status" "$2" "${3:-100}" task_field "$1" status
}

# container_leftovers ID [NS]: what is left of container ID after its task
# was deleted: the runtime's state directory, cgroups, mounts of its
# bundle, its shim.  Prints one line per leftover.
container_leftovers() {
	local id="$1" ns="${2:-$CTRD_NS}" cg
	[ ! -e "$CTRD_RUNC_BASE/$ns/$id" ] ||
		echo "state directory $CTRD_RUNC_BASE/$ns/$id"
	for cg in /sys/fs/cgroup/*/"$ns/$id"; do
		[ ! -d "$cg" ] || echo "cgroup $cg"
	done
	findmnt -rn -o TARGET |
		grep -F -- "/io.containerd.runtime.v2.task/$ns/$id/" |
		sed 's/^/mount /'
	containerd_shim_pids "$id" | sed 's/^/shim /'
}

# toml_list WORD...: ["a", "b"]
toml_list() {
	local w out=""
	for w in "$@"; do
		out+="${out:+, }\"$w\""
	done
	echo "[$out]"
}

containerd_write_config() {
	local dir="$1"
	# shellcheck disable=SC2086 # a list of words
	cat >"$dir/config.toml" <<-EOF
		version = 2
		root = "$dir/root"
		state = "$dir/state"
		disabled_plugins = $(toml_list ${CTRD_DISABLED_PLUGINS-$CTRD_DEFAULT_DISABLED_PLUGINS})

		[grpc]
		  address = "$CTRD_SOCK"
		[ttrpc]
		  address = "$CTRD_SOCK.ttrpc"
		[debug]
		  address = ""
		  level = "info"
		[metrics]
		  address = ""
		${CTRD_EXTRA_CONFIG:-}
	EOF
}

# containerd_start DIR: start the daemon and wait (10s at most) until it
# answers on its socket.
containerd_start() {
	local dir="$1" tries=200
	command -v containerd >/dev/null || fail "containerd is not installed"
	[ -x "$CORRAL" ] || fail "corral binary $CORRAL not found: run make"
	mkdir -p "$dir/root" "$dir/state" "$dir/fifo" || fail "mkdir $dir"
	export CTRD_DIR="$dir" CTRD_SOCK="$dir/containerd.sock"
	export CTRD_NS="${CTRD_NS:-corral-test-$$}"
	export CTRD_RUNC_BASE="${CTRD_RUNC_BASE:-/run/containerd/runc}"
	export CTRD_RUNC_ROOT="$CTRD_RUNC_BASE/$CTRD_NS"
	# the shim's socket and fifo directories there are fixed: they go
	# again at stop when this run made /run/containerd
	export CTRD_RUN_NEW=""
	[ -d /run/containerd ] || CTRD_RUN_NEW=1
	containerd_write_config "$dir"
	declare -p CTRD_DIR CTRD_SOCK CTRD_NS CTRD_RUNC_BASE CTRD_RUNC_ROOT \
		CTRD_RUN_NEW >"$dir/containerd.env"
	containerd --config "$dir/config.toml" </dev/null \
		>>"$dir/containerd.log" 2>&1 3>&- &
	export CTRD_PID=$!
	export CTRD_PID_START
	CTRD_PID_START="$(proc_start_time "$CTRD_PID")" || CTRD_PID_START=gone
	declare -p CTRD_PID CTRD_PID_START >>"$dir/containerd.env"
	while [ "$tries" -gt 0 ]; do
		if [ -S "$CTRD_SOCK" ] &&
			ctr -a "$CTRD_SOCK" version >/dev/null 2>&1 3>&-; then
			return 0
		fi
		pid_gone "$CTRD_PID" && break
		sleep 0.05
		tries=$((tries - 1))
	done
	wait_or_kill "$CTRD_PID" "$CTRD_PID_START"
	fail "containerd did not come up: $(tail -n 5 "$dir/containerd.log")"
}

# containerd_import_image ROOTFS REF [CMD...]: an OCI image REF whose one
# layer is ROOTFS and whose CMD is CMD, in CTRD_NS.  podman builds it
# (import, then save --format oci-archive) and forgets it again.
containerd_import_image() {
	local rootfs="$1" ref="$2" cmd tmp
	shift 2
	tmp="$(mktemp -d "$CTRD_DIR/image.XXXXXX")" || fail "mktemp"
	cmd="$(jq -cn '$ARGS.positional' --args -- "$@")" || fail "jq"
	tar -C "$rootfs" -cf "$tmp/rootfs.tar" . || fail "tar $rootfs"
	if ! podman import --quiet --change "CMD $cmd" "$tmp/rootfs.tar" \
		"$ref" >/dev/null 3>&-; then
		rm -rf "$tmp"
		fail "podman import $ref"
	fi
	if ! podman save --quiet --format oci-archive -o "$tmp/image.tar" \
		"$ref" 3>&-; then
		podman rmi "$ref" >/dev/null 2>&1 3>&-
		rm -rf "$tmp"
		fail "podman save $ref"
	fi
	podman rmi "$ref" >/dev/null 2>&1 3>&- || fail "podman rmi $ref"
	ctrd images import "$tmp/image.tar" >/dev/null ||
		fail "ctr images import $ref"
	rm -rf "$tmp"
}

# containerd_import_busybox REF [CMD...]: make_bundle's busybox rootfs
# (helpers.bash: static busybox, applet links, nobody in /etc/passwd),
# with a world-writable /tmp as in real images, as image REF.
containerd_import_busybox() {
	local ref="$1" bundle="$CTRD_DIR/busybox-bundle"
	shift
	make_bundle "$bundle"
	chmod 1777 "$bundle/rootfs/tmp"
	containerd_import_image "$bundle/rootfs" "$ref" "$@"
	rm -rf "$bundle"
}

# containerd_remove_container ID [NS]: kill and delete its task (exec
# processes included) and the container with its snapshot.  Quiet, and
# fine when they do not exist.
containerd_remove_container() {
	local id="$1" ns="${2:-$CTRD_NS}"
	[ -n "${CTRD_SOCK:-}" ] && [ -S "$CTRD_SOCK" ] || return 0
	ctr -a "$CTRD_SOCK" -n "$ns" task kill -a -s SIGKILL "$id" \
		>/dev/null 2>&1 3>&-
	ctr -a "$CTRD_SOCK" -n "$ns" task delete -f "$id" >/dev/null 2>&1 3>&-
	ctr -a "$CTRD_SOCK" -n "$ns" containers delete "$id" \
		>/dev/null 2>&1 3>&-
	return 0
}

# containerd_shim_pids [ID]: the shims of this daemon (of its task ID),
# found by their "-address SOCK" (and "-id ID") arguments.
containerd_shim_pids() {
	local p comm args id="${1:-}"
	for p in /proc/[0-9]*; do
		# read, not cat: no fork per process
		read -r comm 2>/dev/null <"$p/comm" || continue
		[ "$comm" = "${CTRD_SHIM:0:15}" ] || continue
		args="$(tr '\0' '\n' <"$p/cmdline" 2>/dev/null)" || continue
		if grep -qxF -- "$CTRD_SOCK" <<<"$args" &&
			{ [ -z "$id" ] || grep -qxF -- "$id" <<<"$args"; }; then
			echo "${p#/proc/}"
		fi
	done
}

# wait_or_kill PID START: SIGTERM, then SIGKILL after 10s, if PID is
# still the process that started at START.
wait_or_kill() {
	local pid="$1" start="$2" tries=200
	[ "$(proc_start_time "$pid" 2>/dev/null)" = "$start" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	while [ "$tries" -gt 0 ] && ! pid_gone "$pid"; do
		sleep 0.05
		tries=$((tries - 1))
	done
	pid_gone "$pid" || kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}

# containerd_namespaces: every namespace the daemon has or had tasks in.
containerd_namespaces() {
	{
		echo "$CTRD_NS"
		ctr -a "$CTRD_SOCK" namespaces ls -q 2>/dev/null 3>&-
		ls "$CTRD_DIR/state/io.containerd.runtime.v2.task" 2>/dev/null
	} | sort -u
}

# remove_cgroup_tree DIR: rmdir DIR and everything under it, deepest first
# (a cgroup directory goes only with rmdir, and only once empty).
remove_cgroup_tree() {
	[ -d "$1" ] || return 0
	find "$1" -depth -type d -exec rmdir {} + 2>/dev/null
	[ ! -d "$1" ]
}

# containerd_stop [DIR]: see the top of this file.  With DIR, the daemon
# containerd_start DIR started (its variables, from DIR/containerd.env,
# are local to the call: the caller's CTRD_* stay as they are).  Prints what
# it had to clean by force and returns 1 then, so teardown_file can
# report it.
containerd_stop() {
	local ns id pid start mnt cg entry tries left=""
	local namespaces=() shims=() sockets=() tasks=()
	if [ -n "${1:-}" ]; then
		[ -f "$1/containerd.env" ] || return 0
		# shellcheck disable=SC1091 # written by containerd_start
		source "$1/containerd.env"
	fi
	[ -n "${CTRD_DIR:-}" ] && [ -d "$CTRD_DIR" ] || return 0

	mapfile -t namespaces < <(containerd_namespaces)
	# 1. what the daemon still holds
	if ! pid_gone "$CTRD_PID"; then
		for ns in "${namespaces[@]}"; do
			for id in $(ctr -a "$CTRD_SOCK" -n "$ns" containers ls -q \
				2>/dev/null 3>&-); do
				containerd_remove_container "$id" "$ns"
			done
			for id in $(ctr -a "$CTRD_SOCK" -n "$ns" images ls -q \
				2>/dev/null 3>&-); do
				ctr -a "$CTRD_SOCK" -n "$ns" images rm "$id" \
					>/dev/null 2>&1 3>&-
			done
			ctr -a "$CTRD_SOCK" namespaces rm "$ns" >/dev/null 2>&1 3>&-
		done
	fi
	# 2. the daemon, then the shims it leaves running (their sockets are
	#    named in each task's bundle)
	wait_or_kill "$CTRD_PID" "$CTRD_PID_START"
	mapfile -t sockets < <(cat "$CTRD_DIR"/state/io.containerd.runtime.v2.task/*/*/address 2>/dev/null)
	# a shim exits on its own once its task is deleted: give it 5s
	tries=100
	while [ "$tries" -gt 0 ] && [ -n "$(containerd_shim_pids)" ]; do
		sleep 0.05
		tries=$((tries - 1))
	done
	mapfile -t shims < <(containerd_shim_pids)
	for pid in "${shims[@]}"; do
		left+="shim $pid; "
		start="$(proc_start_time "$pid")" && wait_or_kill "$pid" "$start"
	done
	for mnt in "${sockets[@]}"; do
		[ -n "$mnt" ] && rm -f "${mnt#unix://}"
	done
	# 3. the runtime's state of each task the daemon had, and all of
	#    CTRD_NS's (no other daemon uses that namespace): delete --force
	#    kills what is left of a container, removes its cgroup and state
	mapfile -t tasks < <(cd "$CTRD_DIR/state/io.containerd.runtime.v2.task" \
		2>/dev/null && printf '%s\n' */*)
	for entry in "$CTRD_RUNC_ROOT"/*; do
		[ -e "$entry" ] && tasks+=("$CTRD_NS/${entry##*/}")
	done
	for entry in "${tasks[@]}"; do
		[ -e "$CTRD_RUNC_BASE/$entry" ] || continue
		left+="corral state $entry; "
		"$CORRAL" --root "$CTRD_RUNC_BASE/${entry%%/*}" delete --force \
			"${entry#*/}" >/dev/null 2>&1 3>&-
		rm -rf "${CTRD_RUNC_BASE:?}/$entry"
	done
	for ns in "${namespaces[@]}"; do
		rmdir "$CTRD_RUNC_BASE/$ns" 2>/dev/null
	done
	# 4. mounts (rootfs of tasks, snapshots), deepest first
	while read -r mnt; do
		left+="mount $mnt; "
		umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	done < <(findmnt -rn -o TARGET | grep -F -- "$CTRD_DIR/" | sort -r)
	# 5. cgroups: ctr's cgroupsPath is /NS/ID; CTRD_NS's parent goes too
	for entry in "${tasks[@]}"; do
		for cg in /sys/fs/cgroup/*/"$entry"; do
			[ -d "$cg" ] || continue
			left+="cgroup $cg; "
			remove_cgroup_tree "$cg" || left+="(stays); "
		done
	done
	for cg in /sys/fs/cgroup/*/"$CTRD_NS"; do
		[ -d "$cg" ] || continue
		[ -z "$(find "$cg" -mindepth 1 -type d)" ] ||
			left+="cgroups under $cg; "
		remove_cgroup_tree "$cg" || left+="cgroup $cg stays; "
	done
	rm -rf "$CTRD_DIR"
	if [ -n "${CTRD_RUN_NEW:-}" ]; then
		rmdir /run/containerd/s /run/containerd/fifo "$CTRD_RUNC_BASE" \
			/run/containerd 2>/dev/null
	fi
	if [ -n "$left" ]; then
		echo "containerd_stop cleaned by force: $left"
		return 1
	fi
}
