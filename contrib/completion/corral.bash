# bash completion for corral(8): commands, flags, flag values and the IDs
# of the containers in the state root (`corral [--root DIR] list -q`).
# Installed as /usr/share/bash-completion/completions/corral; it needs
# nothing of bash-completion's own functions, so `source` works too.
# The flags are corral(8)'s; tests/package/completion.bats drives it.

# _corral_cmd_opts COMMAND: the command's flags, one word each.
_corral_cmd_opts() {
	case "$1" in
	create) echo "-b --bundle --pid-file --console-socket --no-pivot
		--no-new-keyring --preserve-fds --keep" ;;
	run) echo "-b --bundle -d --detach --pid-file --console-socket
		--no-pivot --no-new-keyring --preserve-fds --keep --report" ;;
	kill) echo "-a --all" ;;
	delete) echo "-f --force" ;;
	list) echo "-q --quiet -f --format" ;;
	spec) echo "-b --bundle" ;;
	sandbox) echo "--rootfs --policy --timeout --memory --network
		--workspace --report --" ;;
	explain) echo "-b --bundle --policy -f --format --fields" ;;
	exec) echo "-p --process -d --detach --pid-file --console-socket
		-t --tty --cwd -e --env -u --user --preserve-fds --cap" ;;
	update) echo "-r --resources --memory --memory-swap --pids-limit
		--cpu-quota --cpu-period --cpu-shares --cpuset-cpus
		--cpuset-mems" ;;
	ps | report) echo "-f --format" ;;
	events) echo "--stats --interval" ;;
	esac
}

# _corral_opt_arg COMMAND FLAG: what FLAG's argument is ("" when FLAG
# takes none): dir, file, a fixed list, or "any".
_corral_opt_arg() {
	case "$1:$2" in
	global:--root) echo dir ;;
	global:--log | global:--policy) echo file ;;
	global:--log-format) echo "text json" ;;
	*:-b | *:--bundle | *:--rootfs | *:--workspace | *:--cwd) echo dir ;;
	*:--pid-file | *:--console-socket | *:--report | *:--policy | \
		*:-p | *:--process) echo file ;;
	update:-r | update:--resources) echo file ;;
	list:-f | list:--format | ps:-f | ps:--format) echo "table json" ;;
	explain:-f | explain:--format | report:-f | report:--format)
		echo "text json" ;;
	sandbox:--network) echo none ;;
	*:--preserve-fds | *:--timeout | *:--memory | *:-e | *:--env | \
		*:-u | *:--user | *:--cap | *:--interval | update:--*) echo any ;;
	esac
}

_corral_ids() {
	"$1" ${2:+--root "$2"} list -q 2>/dev/null
}

# _corral_reply COMPGEN-ARGS...: COMPREPLY from compgen, one reply a line
# (so a file name with spaces stays one).
_corral_reply() {
	mapfile -t COMPREPLY < <(compgen "$@")
}

_corral() {
	local cur="${COMP_WORDS[COMP_CWORD]}" bin="${COMP_WORDS[0]}"
	local i w cmd="" root="" arg="" npos=0 after_dashes=0 kind

	[ "$cur" = "=" ] && cur=""

	# Walk the words before the cursor: global flags, the command, its
	# flags (and their arguments), its positional arguments.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w="${COMP_WORDS[i]}"
		# --flag=VALUE arrives as three words when "=" breaks words
		[ "$w" = "=" ] && [ -n "$arg" ] && continue
		if [ -n "$arg" ]; then
			[ "$arg" = --root ] && root="$w"
			arg=""
			continue
		fi
		if [ "$after_dashes" = 1 ]; then
			npos=$((npos + 1))
			continue
		fi
		case "$w" in
		--) [ "$cmd" = sandbox ] && after_dashes=1 ;;
		--*=*) [ "${w%%=*}" = --root ] && [ -z "$cmd" ] &&
			root="${w#*=}" ;;
		-*) if [ -n "$(_corral_opt_arg "${cmd:-global}" "$w")" ]; then
			arg="$w"
		fi ;;
		*) if [ -z "$cmd" ]; then cmd="$w"; else npos=$((npos + 1)); fi ;;
		esac
	done

	if [ -n "$arg" ]; then
		kind="$(_corral_opt_arg "${cmd:-global}" "$arg")"
		case "$kind" in
		dir) compopt -o filenames 2>/dev/null; _corral_reply -d -- "$cur" ;;
		file) compopt -o filenames 2>/dev/null; _corral_reply -f -- "$cur" ;;
		any) COMPREPLY=() ;;
		*) _corral_reply -W "$kind" -- "$cur" ;;
		esac
		return 0
	fi
	if [ -z "$cmd" ]; then
		case "$cur" in
		-*) _corral_reply -W "--root --log --log-format --debug --policy
			--systemd-cgroup -v --version -h --help" -- "$cur" ;;
		*) _corral_reply -W "create start state kill delete run list spec
			sandbox explain features exec pause resume update ps events
			report" -- "$cur" ;;
		esac
		return 0
	fi
	if [ "$after_dashes" = 1 ]; then
		# sandbox -- CMD ARGS: a program, then its files
		if [ "$npos" = 0 ]; then
			_corral_reply -c -- "$cur"
		else
			compopt -o filenames 2>/dev/null
			_corral_reply -f -- "$cur"
		fi
		return 0
	fi
	if [[ "$cur" == -* ]]; then
		_corral_reply -W "$(_corral_cmd_opts "$cmd")" -- "$cur"
		return 0
	fi
	case "$cmd" in
	start | state | delete | pause | resume | update | events | report | \
		explain)
		[ "$npos" = 0 ] && _corral_reply -W "$(_corral_ids "$bin" "$root")" -- "$cur" ;;
	kill)
		if [ "$npos" = 0 ]; then
			_corral_reply -W "$(_corral_ids "$bin" "$root")" -- "$cur"
		elif [ "$npos" = 1 ]; then
			_corral_reply -W "TERM KILL INT HUP QUIT USR1 USR2 STOP CONT
				SIGTERM SIGKILL SIGINT SIGHUP" -- "$cur"
		fi ;;
	exec | ps)
		if [ "$npos" = 0 ]; then
			_corral_reply -W "$(_corral_ids "$bin" "$root")" -- "$cur"
		elif [ "$cmd" = exec ] && [ "$npos" = 1 ]; then
			_corral_reply -c -- "$cur"
		fi ;;
	*) COMPREPLY=() ;;
	esac
	return 0
}

complete -F _corral corral
