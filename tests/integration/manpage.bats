#!/usr/bin/env bats
# The manual pages against the code: every flag corral's parser takes is
# documented in its command's section of corral(8) (docs/man/corral.8.scd),
# every flag documented there is one corral takes, every command has a
# section, every key of the policy file is in corral-policy.json(5), and
# both pages render without a warning from man.  The flags come from the C
# source (tests/package/cli_flags reads the getopt tables) and corral
# itself says which ones each command takes: a flag it refuses is answered
# "unknown option".  Nothing here makes a container.

load helpers

MAN8="$REPO_ROOT/docs/man/corral.8.scd"
MAN5="$REPO_ROOT/docs/man/corral-policy.json.5.scd"

# Once for the file: the parser's flags (cli_flags) and, for each, whether
# corral takes it (FLAGS: "COMMAND FLAG ARG TAKEN" lines).
setup_file() {
	[ -x "$CORRAL" ] || fail "corral binary $CORRAL not found: run make"
	export ROOT="$BATS_FILE_TMPDIR/state" FLAGS="$BATS_FILE_TMPDIR/flags"
	local cmd flag arg
	cd "$BATS_FILE_TMPDIR" || fail "cd"
	"$REPO_ROOT/tests/package/cli_flags" "$REPO_ROOT" >"$FLAGS.src" ||
		fail "tests/package/cli_flags failed"
	while read -r cmd flag arg; do
		if takes "$cmd" "$flag" "$arg"; then
			echo "$cmd $flag $arg 1"
		else
			echo "$cmd $flag $arg 0"
		fi
	done <"$FLAGS.src" >"$FLAGS"
}

# section NAME: the lines of corral(8)'s section for a command ("## NAME"),
# or for the global options (NAME "global").
section() {
	if [ "$1" = global ]; then
		awk '/^# GLOBAL OPTIONS$/ { on = 1; next } /^#/ { on = 0 } on' "$MAN8"
	else
		awk -v h="## $1" '$0 == h { on = 1; next } /^#/ { on = 0 } on' "$MAN8"
	fi
}

# entries NAME: the option entries of a section (the lines that start,
# after the indent, with a flag: "*-b*, *--bundle* _DIR_").
entries() {
	section "$1" | grep -E $'^\t*\\*-'
}

# synopsis NAME: the first line of a command's section, "*corral* ...".
synopsis() {
	section "$1" | grep -m1 '^\*corral\*'
}

# has TEXT FLAG: the flag is a word of TEXT (scdoc writes it as *--flag*
# or *-f*).
has() {
	grep -qE -- "(^|[^-A-Za-z0-9])$2([^-A-Za-z0-9]|\$)" <<<"$1"
}

# takes COMMAND FLAG ARG: corral's parser takes FLAG for COMMAND (ARG 1:
# given a value that names nothing), that is, corral does not answer
# "unknown option".  No command gets an ID, so none acts on a container;
# `spec` and `--log` get a path that does not exist.
takes() {
	local args=() out
	if [ "$1" = global ]; then
		args=("$2")
		[ "$3" = 1 ] && args+=(/nonexistent/corral-manpage)
		args+=(features)
	else
		args=("$1" "$2")
		[ "$3" = 1 ] && args+=(/nonexistent/corral-manpage)
	fi
	out="$(timeout 10 "$CORRAL" --root "$ROOT" "${args[@]}" 2>&1 \
		</dev/null 3>&-)"
	[[ "$out" != *"unknown option"* ]]
}

# in_synopsis SYNOPSIS ENTRIES FLAG: the synopsis names the flag, or
# another name of it (the flags of its entry line: "*-b*, *--bundle*").
in_synopsis() {
	local line name
	line="$(grep -E -- "(^|[^-A-Za-z0-9])$3([^-A-Za-z0-9]|\$)" <<<"$2")"
	for name in $(grep -oE -- '\*-{1,2}[A-Za-z0-9][-A-Za-z0-9]*\*' <<<"$line" | tr -d '*'); do
		has "$1" "$name" && return 0
	done
	return 1
}

@test "cli_flags finds the parser's flags" {
	run cat "$FLAGS.src"
	# a few that must be there, so that an extractor that finds nothing
	# cannot pass the tests below
	for want in "global --root 1" "global -v 0" "create --bundle 1" \
		"run -d 0" "exec --cap 1" "update --cpuset-mems 1" \
		"sandbox --workspace 1" "events --interval 1" "list -q 0"; do
		grep -qx -- "$want" <<<"$output" || fail "cli_flags lacks: $want"
	done
	[ "${#lines[@]}" -ge 80 ] || fail "only ${#lines[@]} flags found"
}

@test "every flag corral's parser takes is in its command's section of corral(8)" {
	local cmd flag arg taken missing="" refused="" count=0 last=""
	local text="" syn=""
	while read -r cmd flag arg taken; do
		if [ "$taken" = 0 ]; then
			refused+=" $cmd:$flag"
			continue
		fi
		count=$((count + 1))
		if [ "$cmd" != "$last" ]; then
			text="$(entries "$cmd")"
			[ "$cmd" = global ] || syn="$(synopsis "$cmd")"
			last="$cmd"
		fi
		has "$text" "$flag" || missing+=" $cmd:$flag"
		[ "$cmd" = global ] || in_synopsis "$syn" "$text" "$flag" ||
			missing+=" $cmd:$flag(synopsis)"
	done <"$FLAGS"
	echo "# refused by their command (not checked):$refused" >&3
	[ -z "$missing" ] || fail "not in corral(8):$missing"
	[ "$count" -ge 80 ] || fail "only $count flags taken"
}

@test "every flag corral(8) documents is one corral takes" {
	local cmd flag flags taken bad="" count=0
	for cmd in global $(grep '^## ' "$MAN8" | cut -c4-); do
		flags="$(entries "$cmd" |
			grep -oE -- '\*-{1,2}[A-Za-z0-9][-A-Za-z0-9]*\*' | tr -d '*' | sort -u)"
		for flag in $flags; do
			count=$((count + 1))
			taken="$(awk -v c="$cmd" -v f="$flag" '$1 == c && $2 == f { print $4 }' "$FLAGS")"
			case "$taken" in
			"") bad+=" $cmd:$flag(not in the source)" ;;
			0) bad+=" $cmd:$flag(refused)" ;;
			esac
		done
	done
	[ -z "$bad" ] || fail "documented but not taken:$bad"
	[ "$count" -ge 80 ] || fail "only $count documented flags found"
}

@test "every command of corral --help has a section in corral(8), and no other" {
	run "$CORRAL" --help
	assert_success
	local help man
	help="$(sed -n '/^Commands:/,/^$/p' <<<"$output" | awk 'NF > 1 { print $1 }' | sort)"
	man="$(grep '^## ' "$MAN8" | cut -c4- | sort)"
	[ "$(wc -l <<<"$help")" -ge 18 ] || fail "corral --help lists: $help"
	assert_equal "$man" "$help"
}

@test "every key of the policy file is in corral-policy.json(5)" {
	local parse key missing=""
	# the file of spec/ that reads the policy (found by what it does)
	parse="$(grep -rl --include='*.c' 'JKEY(NULL, "limits")' "$REPO_ROOT/spec")"
	[ -n "$parse" ] || fail "the policy parser was not found in spec/"
	# every name in a keys[] table of the parser, and the names the
	# list sections take ("allow", "keep")
	for key in $(python3 - "$parse" <<-'EOF'
		import re, sys
		text = open(sys.argv[1]).read()
		names = set()
		for m in re.finditer(r"keys\[\]\s*=\s*\{([^}]*)\}", text):
		    names |= set(re.findall(r'"(\w+)"', m.group(1)))
		for m in re.finditer(r'\{"(\w+)",\s*"(\w+)",\s*(?:valid_\w+|NULL)', text):
		    names |= {m.group(1), m.group(2)}
		print("\n".join(sorted(names)))
	EOF
	); do
		grep -qE -- "(\\*|\\.|\")$key(\\*|\"|\\.)" "$MAN5" || missing+=" $key"
	done
	# every key path of the built-ins written out (default.json)
	for key in $(jq -r '[paths | map(select(type == "string")) | join(".")] | unique[]' \
		"$REPO_ROOT/config-examples/policy/default.json"); do
		grep -qF -- "*$key" "$MAN5" || missing+=" $key"
	done
	[ -z "$missing" ] || fail "not in corral-policy.json(5):$missing"
}

@test "both manual pages render without a warning from man" {
	command -v scdoc >/dev/null || fail "scdoc is not installed (make deps)"
	local src page
	for src in "$MAN8" "$MAN5"; do
		page="$BATS_TEST_TMPDIR/$(basename "$src" .scd)"
		sed 's/@VERSION@/test/' "$src" | scdoc >"$page" ||
			fail "scdoc $src"
		run --separate-stderr env LC_ALL=C.UTF-8 MANWIDTH=80 \
			man --warnings -E UTF-8 -l -Tutf8 -Z "$page"
		assert_success
		[ -z "$stderr" ] || fail "man warns about $src: $stderr"
	done
}
