# Build-time generator: `corral COMMAND --help` from corral(8)'s source
# (docs/man/corral.8.scd), so that the two never disagree.  For each
# command section ("## NAME") it writes one C initializer
#   {"NAME", "usage: SYNOPSIS\n", "  OPTION\n      its text\n..."},
# the synopsis and each option as text: scdoc's *bold* and _underline_
# taken off (a _ inside a word, as in PS_ARGS, stays).
function alnum(c) {
	return c ~ /[A-Za-z0-9]/
}
function plain(s,    out, i, c, prev, next_) {
	gsub(/\*/, "", s)
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		prev = i > 1 ? substr(s, i - 1, 1) : ""
		next_ = substr(s, i + 1, 1)
		if (c == "_" && (!alnum(prev) || !alnum(next_)))
			continue
		out = out c
	}
	return out
}
function cstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	return s
}
function flush() {
	if (cmd != "")
		printf "{\"%s\", \"usage: %s\\n\", \"%s\"},\n", cmd, cstr(syn),
		    cstr(opts)
	cmd = ""; syn = ""; opts = ""
}
/^## / { flush(); cmd = substr($0, 4); want_text = 0; next }
/^# / { flush(); next }
cmd != "" && syn == "" && /^\*corral\*/ { syn = plain($0); next }
cmd != "" && /^\t\*-/ {
	line = $0; sub(/^\t/, "", line)
	opts = opts "  " plain(line) "\\n"
	want_text = 1
	next
}
cmd != "" && want_text && /^\t\t/ {
	line = $0; sub(/^\t\t/, "", line)
	opts = opts "      " plain(line) "\\n"
	next
}
{ want_text = 0 }
END { flush() }
