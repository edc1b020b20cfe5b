#!/usr/bin/env bats
# `corral --help` and `corral COMMAND --help` print the synopsis corral(8)
# has: the first line of each is "usage: " and the section's synopsis line
# as text (docs/man/corral.8.scd, scdoc's *bold* and _underline_ taken
# off), exit 0 on stdout, and name every flag the section documents.

load helpers

MAN8="$REPO_ROOT/docs/man/corral.8.scd"

# plain SCDOC-LINE: the line as text: no *, and no _ that starts or ends a
# word (PS_ARGS keeps its own).
plain() {
	sed -E 's/\*//g; s/(^|[^A-Za-z0-9])_/\1/g; s/_([^A-Za-z0-9]|$)/\1/g' <<<"$1"
}

# synopsis NAME: the first "*corral*" line of the command's section, or of
# SYNOPSIS for "corral" itself.
synopsis() {
	if [ "$1" = corral ]; then
		awk '/^# SYNOPSIS$/ { on = 1; next } /^#/ { on = 0 } on' "$MAN8"
	else
		awk -v h="## $1" '$0 == h { on = 1; next } /^#/ { on = 0 } on' "$MAN8"
	fi | grep -m1 '^\*corral\*'
}

@test "corral --help starts with corral(8)'s synopsis" {
	run --separate-stderr "$CORRAL" --help
	assert_success
	assert_equal "${lines[0]}" "usage: $(plain "$(synopsis corral)")"
}

@test "corral COMMAND --help prints the command's synopsis from corral(8) and its flags" {
	local cmd want flag bad=""
	for cmd in $(grep '^## ' "$MAN8" | cut -c4-); do
		want="usage: $(plain "$(synopsis "$cmd")")"
		run --separate-stderr timeout 10 "$CORRAL" "$cmd" --help
		if [ "$status" != 0 ] || [ -n "$stderr" ]; then
			bad+=$'\n'"$cmd --help: status $status, stderr: $stderr"
			continue
		fi
		[ "${lines[0]}" = "$want" ] ||
			bad+=$'\n'"$cmd --help: \"${lines[0]}\", corral(8): \"$want\""
		for flag in $(awk -v h="## $cmd" '$0 == h { on = 1; next } /^#/ { on = 0 } on' "$MAN8" |
			grep -E $'^\t*\\*-' | grep -oE -- '\*-{1,2}[A-Za-z0-9][-A-Za-z0-9]*\*' | tr -d '*'); do
			grep -qE -- "(^|[^-A-Za-z0-9])$flag([^-A-Za-z0-9]|\$)" <<<"$output" ||
				bad+=$'\n'"$cmd --help does not name $flag"
		done
	done
	[ -z "$bad" ] || fail "$bad"
}
