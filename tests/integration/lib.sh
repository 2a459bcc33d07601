# tests/integration/lib.sh — helpers for the integration suites, sourced by
# tests/integration/run inside the VM (scripts/vm).  Each suite file defines
# functions named test_<name>; the runner calls each in a subshell with
# `set -e`, prints "<suite>/<name>: ok|FAIL", and closes with one
# "N passed, N failed" line.

WGX_REPO=${WGX_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
WGX_TOOL=${WGX_TOOL:-$WGX_REPO/build/tools/wgx}

# fail MSG... — print a reason and fail the current case.
fail() {
	echo "    $*" >&2
	return 1
}

# must_fail CMD... — CMD must exit non-zero (`! CMD` does not trip `set -e`).
must_fail() {
	if "$@" >/dev/null 2>&1; then
		fail "expected failure: $*"
	fi
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	if [ "$2" != "$3" ]; then
		fail "$1: expected '$2', got '$3'"
	fi
}

# n NS CMD... — run CMD in network namespace NS.
n() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# netns_pair A B — two namespaces joined by a veth pair vA (in A) <-> vB (in B)
# with 192.0.2.1/24, 2001:db8::1/64 in A and .2/::2 in B (documentation ranges).
netns_pair() {
	local a=$1 b=$2
	ip netns add "$a"
	ip netns add "$b"
	ip link add "v$a" netns "$a" type veth peer "v$b" netns "$b"
	n "$a" ip link set lo up
	n "$b" ip link set lo up
	n "$a" ip addr add 192.0.2.1/24 dev "v$a"
	n "$b" ip addr add 192.0.2.2/24 dev "v$b"
	n "$a" ip addr add 2001:db8::1/64 dev "v$a" nodad
	n "$b" ip addr add 2001:db8::2/64 dev "v$b" nodad
	n "$a" ip link set "v$a" up
	n "$b" ip link set "v$b" up
}

# netns_cleanup — delete every namespace the case created.
netns_cleanup() {
	local ns
	for ns in $(ip netns list | awk '{print $1}'); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
}

# module_loaded — true when wgx.ko is loaded.
module_loaded() {
	grep -q '^wgx ' /proc/modules
}

# module_reload — make sure wgx.ko is loaded (after a case that removed it).
module_reload() {
	module_loaded || insmod "$WGX_REPO/kmod/wgx.ko"
}
