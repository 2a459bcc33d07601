# Integration suite, debug test kernel only (CONFIG_FAILSLAB): allocation
# failures everywhere.  For N = 1, 2, 3, ... the N-th slab allocation made by
# one command (the task's /proc/<pid>/fail-nth, sleeping allocations
# included) fails, until the command has run through without reaching N: so
# every error-unwinding path of device creation and of configuration runs
# once.  Whatever fails must fail cleanly: an error to the caller, no kernel
# report (KASAN, lockdep, a hung task: scripts/vm fails the run), no leak
# (kmemleak after the suites), and the device or module still works after.

FAILSLAB=/sys/kernel/debug/failslab

failslab_on() {
	[ -d "$FAILSLAB" ] || fail "no $FAILSLAB: this suite needs the debug test kernel"
	echo N >"$FAILSLAB/ignore-gfp-wait"
	echo N >"$FAILSLAB/cache-filter"
	echo 0 >"$FAILSLAB/verbose"
	# fail-nth alone decides; the random/interval knobs stay out of the way.
	echo 0 >"$FAILSLAB/probability"
}

# with_fail_nth N CMD... — run CMD with its N-th slab allocation failing.
# CMD is resolved to its path first: a PATH search by the shell would spend
# the injected failure on a stat() of a directory without CMD, which the
# search takes for "not here", and the command would run unharmed.
# With FAIL_NETNS set, CMD runs in that network namespace, and only CMD's
# own allocations count (not those of `ip netns exec` entering it).
with_fail_nth() {
	local nth=$1 cmd
	shift
	cmd=$(type -P "$1") || fail "no command $1"
	shift
	if [ -n "${FAIL_NETNS:-}" ]; then
		ip netns exec "$FAIL_NETNS" \
			bash -c 'echo "$1" >/proc/self/fail-nth && shift && exec "$@"' _ "$nth" "$cmd" "$@"
	else
		bash -c 'echo "$1" >/proc/self/fail-nth && shift && exec "$@"' _ "$nth" "$cmd" "$@"
	fi
}

# fail_every_allocation MAX UNDO CMD... — CMD with allocation 1, 2, ... failing
# until it succeeds three times in a row (it no longer reaches N), at most MAX
# steps; UNDO (a command string, may be empty) runs after each success.
# Prints how many steps ran and how many of them failed.
fail_every_allocation() {
	local max=$1 undo=$2 nth ok_streak=0 failures=0
	shift 2
	for ((nth = 1; nth <= max; nth++)); do
		if with_fail_nth "$nth" "$@" >/dev/null 2>&1; then
			ok_streak=$((ok_streak + 1))
			[ -z "$undo" ] || eval "$undo"
			[ "$ok_streak" -ge 3 ] && break
		else
			ok_streak=0
			failures=$((failures + 1))
		fi
	done
	echo "$*: $nth steps, $failures failed cleanly"
	[ "$nth" -le "$max" ] || fail "still failing after $max allocations: $*"
	# Injection that never hit anything tested nothing.
	[ "$failures" -gt 0 ] || fail "no injected allocation failure made the command fail: $*"
}

test_create_device_under_allocation_failures() {
	failslab_on
	ip netns add a
	FAIL_NETNS=a fail_every_allocation 600 "n a ip link del wgt0" ip link add wgt0 type wgx
	# The module still makes working devices.
	netns_cleanup
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
}

test_configure_under_allocation_failures() {
	failslab_on
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	key_pair KC
	# Adding a peer with allowed IPs and an endpoint, and removing it again.
	FAIL_NETNS=a fail_every_allocation 400 "n a $WGX_TOOL set wgt0 peer $KC_pub remove" \
		"$WGX_TOOL" set wgt0 listen-ports 2 peer "$KC_pub" endpoint 192.0.2.9:1 \
		allowed-ips 10.9.0.0/16,fd09::/64,10.10.0.1/32
	# The tunnel between a and b was never disturbed.
	ping_ok a 10.0.0.2
	n a "$WGX_TOOL" set wgt0 listen-ports 1
	ping_ok b 10.0.0.1
}

test_bring_up_under_allocation_failures() {
	failslab_on
	tunnel_setup wgx 4 0
	n a "$WGX_TOOL" set wgt0 listen-ports 4
	n a ip link set wgt0 down
	# Binding four socket pairs at `up` can fail anywhere.
	FAIL_NETNS=a fail_every_allocation 400 "n a ip link set wgt0 down" ip link set wgt0 up
	n a ip link set wgt0 up
	ping_ok a 10.0.0.2
}
