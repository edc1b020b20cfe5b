# Shared by bundles.bats and faults.bats: snapshots of host trees, and
# leak checks that look only at what carries this test's names (other
# agents run containers on the same host at the same time).
#
# A test sets PREFIX (every container ID it makes starts with it) before it
# calls the checks; ROOT, BUNDLE, ROOTFS and MARKER come from helpers.bash.

# shellcheck disable=SC2154,SC2034
# (status, output, stderr ... are set by bats' run and by capture)

load ../integration/helpers

# tree_sum DIR: one line per entry (type, mode, owner, size, mtime, path,
# symlink target) and the sha256 of every regular file.  Any write, chmod,
# chown, new or removed entry, or retargeted symlink under DIR changes it.
tree_sum() {
	(
		cd "$1" || exit 1
		find . -printf '%y %m %U:%G %s %T@ %p -> %l\n' | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
	)
}

# snapshot NAME DIR: remember DIR's tree_sum as NAME.
snapshot() {
	tree_sum "$2" >"$BATS_TEST_TMPDIR/$1.sum" || fail "snapshot of $2 failed"
}

# assert_unchanged NAME DIR: DIR is exactly as snapshot NAME saw it.
assert_unchanged() {
	local diff
	diff="$(tree_sum "$2" | diff "$BATS_TEST_TMPDIR/$1.sum" -)" ||
		fail "$2 changed: $diff"
}

# make_sentinel DIR: a host tree no container may touch: files, a private
# file, an executable, a subdirectory and symlinks.
make_sentinel() {
	local dir="$1"
	mkdir -p "$dir/sub"
	echo "host secret $$" >"$dir/secret"
	echo private >"$dir/private"
	chmod 600 "$dir/private"
	printf '#!/bin/sh\necho host\n' >"$dir/tool"
	chmod 755 "$dir/tool"
	echo nested >"$dir/sub/file"
	ln -s secret "$dir/link"
	ln -s /etc/hostname "$dir/abs-link"
}

# The pids (one per line) of live processes that belong to this test: a
# corral command with $ROOT on its command line (so also a clone of create
# before it renames itself corral-init), a process in a cgroup named for
# $PREFIX (the init and all it runs), or one whose root holds the bundle's
# marker.  grep reads its patterns from a file, so that its own command
# line does not match them.
my_pids() {
	local pat="$BATS_TEST_TMPDIR/.pids.pat" f pid
	printf '%s\n' "$ROOT" "/corral/$PREFIX" >"$pat"
	{
		grep -l -F -f "$pat" /proc/[0-9]*/cmdline /proc/[0-9]*/cgroup \
			2>/dev/null | while IFS= read -r f; do
			pid="${f#/proc/}"
			echo "${pid%%/*}"
		done
		bundle_pids
	} | sort -un | while IFS= read -r pid; do
		[ "$pid" = "$BASHPID" ] || pid_gone "$pid" || echo "$pid"
	done
}

# Directories of cgroups named for $PREFIX in any hierarchy.  (find fails
# when another agent's cgroup goes away under it: that is no error here.)
my_cgroups() {
	find /sys/fs/cgroup -type d -name "$PREFIX*" 2>/dev/null || true
}

# id_pids ID: live processes of container ID alone: an argument of their
# command line is ID (corral commands, a clone of create), or their cgroup
# is corral's for ID (the init and all it runs).
id_pids() {
	local id="$1" f pid
	{
		grep -l -z -x -F -e "$id" /proc/[0-9]*/cmdline 2>/dev/null
		grep -l -E -e ":/corral/$id\$" /proc/[0-9]*/cgroup 2>/dev/null
	} | while IFS= read -r f; do
		pid="${f#/proc/}"
		pid="${pid%%/*}"
		[ "$pid" = "$BASHPID" ] || pid_gone "$pid" || echo "$pid"
	done | sort -un
}

# Lines of the host's mountinfo that name $ROOT, $PREFIX or the bundle
# (nsfs bind mounts of a namespace included), less those in
# $OWN_MOUNTS, the mount points the test made itself.
my_mounts() {
	local line own skip
	while IFS= read -r line; do
		case "$line" in
		*"$ROOT"* | *"$PREFIX"* | *"$BUNDLE"*) ;;
		*) continue ;;
		esac
		skip=
		for own in ${OWN_MOUNTS[@]+"${OWN_MOUNTS[@]}"}; do
			[[ "$line" == *" $own "* ]] && skip=1
		done
		[ -n "$skip" ] || echo "$line"
	done </proc/self/mountinfo
}

# assert_clean [WHAT]: no state directory, cgroup, mount or process of this
# test's containers is left.  WHAT names the moment in the failure.
assert_clean() {
	local what="${1:-}" left
	left="$(state_entries)"
	[ -z "$left" ] || fail "${what:+$what: }state directories left in $ROOT: $left"
	left="$(my_cgroups)"
	[ -z "$left" ] || fail "${what:+$what: }cgroups left: $left"
	left="$(my_mounts)"
	[ -z "$left" ] || fail "${what:+$what: }mounts left: $left"
	left="$(my_pids)"
	[ -z "$left" ] || fail "${what:+$what: }processes left: $left ($(ps -o pid=,args= -p "${left//$'\n'/,}"))"
}

# netns_holders NS: what still refers to network namespace NS
# ("net:[INODE]"): "PID" for a process, thread or open fd, "mount POINT"
# for an nsfs mount.  Inode numbers are reused once a namespace is gone,
# so a holder may also be another agent's new namespace: the caller
# looks at who holds it.
netns_holders() {
	local ns="$1" pat f
	# find's -lname takes a glob: the brackets are literal here
	pat="${ns//\[/\\[}"
	pat="${pat//\]/\\]}"
	{
		find /proc/[0-9]*/ns/net /proc/[0-9]*/task/[0-9]*/ns/net \
			/proc/[0-9]*/fd -maxdepth 1 -lname "$pat" -print 2>/dev/null |
			while IFS= read -r f; do
				f="${f#/proc/}"
				echo "${f%%/*}"
			done
		awk -v ns="$ns" '$9 == "nsfs" && $4 == ns { print "mount " $5 }' \
			/proc/self/mountinfo
	} | sort -u
}

# corral_t SECONDS ARGS...: corral with this test's --root, SIGKILLed after
# SECONDS.  fd 3 (bats' own) is closed for corral only: closed around
# bats' `run` itself, bats could no longer report.
corral_t() {
	local limit="$1"
	shift
	timeout -s KILL "$limit" "$CORRAL" --root "$ROOT" "$@" 3>&-
}

# capture COMMAND...: as bats' `run --separate-stderr`, through files (a
# container that outlives COMMAND may keep its stdio open without holding
# the test up) and quiet about status 127, which corral uses for a
# workload that cannot be executed.
capture() {
	local out="$BATS_TEST_TMPDIR/.capture.out" err="$BATS_TEST_TMPDIR/.capture.err"
	status=0
	"$@" >"$out" 2>"$err" || status=$?
	output="$(cat "$out")"
	stderr="$(cat "$err")"
	mapfile -t lines <"$out"
	mapfile -t stderr_lines <"$err"
}

# random_delay [MAX]: sleep 0 to MAX ms (default 50).
random_delay() {
	sleep "$(printf '0.%03d' $((RANDOM % (${1:-50} + 1))))"
}

# one_line_error NAME...: the last `run --separate-stderr` failed with one
# line "corral: ..." on stderr that holds every NAME.
one_line_error() {
	local name
	assert_error_line
	for name in "$@"; do
		[[ "$stderr" == *"$name"* ]] || fail "\"$name\" not in the error: $stderr"
	done
}
