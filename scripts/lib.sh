# scripts/lib.sh — shell helpers shared by the scripts in scripts/ (bash;
# sourced, never run).  A script sets prog (its name in messages), then:
#   . "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"
# which also sets repo, the repository's root (physical path).

repo=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)

# die MSG... — print "PROG: MSG" on stderr and exit with $die_status
# (default 1; scripts/vm sets 125, its harness-failure status).
die() {
	echo "$prog: $*" >&2
	exit "${die_status:-1}"
}

# need_arg OPTION ARGS... — in an option loop (`need_arg "$@"`): die unless
# OPTION is followed by a non-empty value.
need_arg() {
	[ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value (see --help)"
}

# print_help — the calling script's header comment (from line 2 to the line
# before its first `set -`), without the comment marks: its --help text.
print_help() {
	sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"
}
