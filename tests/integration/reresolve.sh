# Integration suite: endpoints that follow DNS (`wgx reresolve`, run by
# wgx-reresolve@.timer).  A wgx <-> wgx tunnel (lib.sh's tunnel_setup) whose
# side a names b by a host name in /etc/hosts: the name moves, and a's peer
# follows it while it has no recent handshake, and stays once it has one.
# The guest's root is read-only, so every command that resolves sees
# $RR_DIR/hosts bind-mounted on /etc/hosts in a mount namespace of its own.

RR_DIR=/tmp/reresolve

# rr NS CMD... — CMD in namespace NS with $RR_DIR/hosts as /etc/hosts.
rr() {
	local ns=$1
	shift
	ip netns exec "$ns" unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$RR_DIR/hosts" "$@"
}

# rr_hosts LINE... — the hosts file's new content, written in place (the
# bind mounts of later commands see the same file).
rr_hosts() {
	printf '127.0.0.1 localhost\n' >"$RR_DIR/hosts"
	printf '%s\n' "$@" >>"$RR_DIR/hosts"
}

# rr_endpoint KEY — a's endpoint for the peer KEY.
rr_endpoint() {
	n a "$WGX_TOOL" show wgt0 endpoints | awk -v k="$1" '$1 == k { print $2 }'
}

test_reresolve_follows_a_moved_name() {
	tunnel_setup wgx
	key_pair KC
	mkdir -p "$RR_DIR"
	cat >"$RR_DIR/wgt0.conf" <<EOF
[Interface]
PrivateKey = $KA
ListenPort = $TUN_PORT_A

[Peer]
PublicKey = $KB_pub
Endpoint = peer-b.test:$TUN_PORT_B
AllowedIPs = 10.0.0.2/32, fd00::2/128

[Peer]
PublicKey = $KC_pub
Endpoint = peer-c.test:51899
AllowedIPs = 10.0.0.3/32
EOF
	# At first the name gives an address nobody has.
	rr_hosts "192.0.2.99 peer-b.test" "192.0.2.98 peer-c.test"
	rr a "$WGX_TOOL" setconf wgt0 "$RR_DIR/wgt0.conf"
	expect_eq "b's endpoint from the name" "192.0.2.99:$TUN_PORT_B" "$(rr_endpoint "$KB_pub")"
	local out
	out=$(rr a "$WGX_TOOL" reresolve wgt0 "$RR_DIR/wgt0.conf") || fail "reresolve failed: $out"
	expect_eq "reresolve with the names unchanged" "" "$out"

	# b's name moves to b's address, c's name is gone.  b has never made a
	# handshake: it follows; c's failure is reported and changes nothing.
	rr_hosts "192.0.2.2 peer-b.test"
	if out=$(rr a "$WGX_TOOL" reresolve wgt0 "$RR_DIR/wgt0.conf" 2>"$RR_DIR/err"); then
		fail "reresolve succeeded although peer-c.test does not resolve"
	fi
	echo "$out"
	cat "$RR_DIR/err"
	expect_eq "the change, logged" \
		"wgt0: peer $KB_pub: endpoint peer-b.test:$TUN_PORT_B now resolves to 192.0.2.2:$TUN_PORT_B (was 192.0.2.99:$TUN_PORT_B)" \
		"$out"
	grep -qF "wgt0: peer $KC_pub: unable to resolve endpoint \`peer-c.test:51899': " "$RR_DIR/err" ||
		fail "the name that does not resolve is not named"
	expect_eq "b's endpoint" "192.0.2.2:$TUN_PORT_B" "$(rr_endpoint "$KB_pub")"
	expect_eq "c's endpoint" "192.0.2.98:51899" "$(rr_endpoint "$KC_pub")"
	ping_ok a 10.0.0.2

	# With a recent handshake b stays where it answers, whatever the name says.
	rr_hosts "192.0.2.77 peer-b.test" "192.0.2.98 peer-c.test"
	out=$(rr a "$WGX_TOOL" reresolve wgt0 "$RR_DIR/wgt0.conf") || fail "reresolve failed: $out"
	expect_eq "reresolve after the handshake" "" "$out"
	expect_eq "b's endpoint after the handshake" "192.0.2.2:$TUN_PORT_B" "$(rr_endpoint "$KB_pub")"
}
