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

# sample_seed — the seed of the CI selection's sample: $WGX_SAMPLE_SEED if
# set, else the checked-out commit (so a CI run is repeatable for a commit
# and successive commits sample different cases), else 0.
sample_seed() {
	local seed=${WGX_SAMPLE_SEED:-$(git -C "$repo" rev-parse --short=8 HEAD 2>/dev/null)}
	[[ "$seed" =~ ^[0-9a-fA-F]+$ ]] || seed=0
	echo "$((16#${seed:0:8}))"
}

# suite_cases SUITE — every case of tests/integration/SUITE.sh, one
# "SUITE/case" per line (the names tests/integration/run and
# WGX_TEST_FILTER use).
suite_cases() {
	grep -oE '^test_[a-z0-9_]+' "$repo/tests/integration/$1.sh" | sed "s|^test_|$1/|"
}

# sample K ITEM... — K of the ITEMs (all of them if there are no more than
# K), chosen by sample_seed: a run of K consecutive items, wrapping, from
# the seed's position.  Prints one item per line.
sample() {
	local k=$1 n i start
	shift
	n=$#
	[ "$k" -lt "$n" ] || k=$n
	[ "$n" -gt 0 ] || return 0
	local items=("$@")
	start=$(($(sample_seed) % n))
	for ((i = 0; i < k; i++)); do
		echo "${items[$(((start + i) % n))]}"
	done
}
