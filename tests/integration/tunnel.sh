# Integration suite: real tunnels between two namespaces.  Namespace a runs
# wgx; b runs wgx, the in-tree wireguard.ko (configured with wg) or
# wireguard-go.  See lib.sh for the topology.

# traffic_ok — ping both inner families, then TCP both ways with 1 and 8 flows.
traffic_ok() {
	ping_ok a 10.0.0.2
	ping_ok a fd00::2
	ping_ok b 10.0.0.1
	iperf_ok a 10.0.0.2 1
	iperf_ok a 10.0.0.2 1 -R
	iperf_ok a fd00::2 8
	iperf_ok a fd00::2 8 -R
}

test_wgx_wgx_outer4() {
	tunnel_setup wgx 4 0
	traffic_ok
}

test_wgx_wgx_outer6_psk() {
	tunnel_setup wgx 6 1
	traffic_ok
}

test_wireguard_outer4() {
	tunnel_setup wireguard 4 0
	traffic_ok
}

test_wireguard_outer6_psk() {
	tunnel_setup wireguard 6 1
	traffic_ok
}

test_wireguard_go_outer4_psk() {
	tunnel_setup wireguard-go 4 1
	traffic_ok
}

test_wireguard_go_outer6() {
	tunnel_setup wireguard-go 6 0
	traffic_ok
}

test_handshake_on_first_packet() {
	tunnel_setup wireguard 4 0
	expect_eq "latest handshake before traffic" 0 "$(wgx_peer_field a 5)"
	ping_ok a 10.0.0.2
	[ "$(wgx_peer_field a 5)" -gt 0 ] || fail "no handshake after the first packet"
	[ "$(wgx_peer_field a 6)" -gt 0 ] || fail "rx bytes not counted"
	[ "$(wgx_peer_field a 7)" -gt 0 ] || fail "tx bytes not counted"
}

test_persistent_keepalive_on_wire() {
	tunnel_setup wireguard 4 0 1
	ping_ok a 10.0.0.2
	# Keepalives are transport data with an empty payload: 32 bytes of UDP payload.
	local seen
	seen=$(n b timeout 4 tcpdump -n -i vb -c 2 "udp and src host 192.0.2.1 and udp[4:2] = 40" 2>/dev/null | wc -l)
	[ "$seen" -ge 2 ] || fail "expected 2 keepalives from wgx within 4 s, saw $seen"
}

test_roaming() {
	tunnel_setup wgx 4 0
	ping_ok b 10.0.0.1
	# b moves to a new address and port; a learns it from b's next packet.
	# (Delete first: deleting a primary address takes its secondaries along.)
	n b ip addr del 192.0.2.2/24 dev vb
	n b ip addr add 192.0.2.3/24 dev vb
	n b "$WGX_TOOL" set wgt0 listen-port 51999
	ping_ok b 10.0.0.1
	# b's data leaves from any of its (automatic) listen ports, all of them its own.
	local ep ports
	ep=$(wgx_peer_field a 3)
	ports=" $(udp_ports b) "
	echo "a's endpoint for b: $ep; b listens on:$ports"
	[[ $ports == *" 51999 "* ]] || fail "b does not listen on 51999:$ports"
	[[ $ep == 192.0.2.3:* && $ports == *" ${ep##*:} "* ]] ||
		fail "endpoint after roaming is $ep, not 192.0.2.3 and a port of b's"
	ping_ok a 10.0.0.2
}

test_reply_from_contacted_address() {
	tunnel_setup wireguard 4 0
	# a has two addresses; b contacts the second one; a's replies come from it.
	n a ip addr add 192.0.2.10/24 dev va
	n b wg set wgt0 peer "$KA_pub" endpoint 192.0.2.10:$TUN_PORT_A
	# Handshake replies leave from the listen port, data from any of a's ports.
	capture_start b /tmp/replies -n -i vb -c 3 "udp and dst host 192.0.2.2"
	ping_ok b 10.0.0.1
	capture_stop
	cat /tmp/replies
	[ "$(grep -c '192.0.2.10' /tmp/replies)" -ge 1 ] || fail "no reply from 192.0.2.10"
	if grep -q '192.0.2.1\.' /tmp/replies; then fail "reply left from 192.0.2.1"; fi
}

test_allowedips_source_enforced() {
	tunnel_setup wireguard 4 0
	ping_ok a 10.0.0.2
	# b sends from an inner source that a does not allow for b: dropped and counted.
	n b ip addr add 10.0.0.99/24 dev wgt0
	n b wg set wgt0 peer "$KA_pub" allowed-ips 10.0.0.1/32,fd00::1/128
	local before after
	before=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.rx_drop_allowedips')
	n b ping -c 3 -i 0.2 -W 1 -I 10.0.0.99 10.0.0.1 >/dev/null 2>&1 || true
	after=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.rx_drop_allowedips')
	[ "$after" -ge $((before + 3)) ] || fail "allowed-IPs drops: before $before, after $after"
}

test_mtu_default_and_too_big() {
	tunnel_setup wgx 4 0
	expect_eq mtu 1420 "$(n a cat /sys/class/net/wgt0/mtu)"
	ping_ok a 10.0.0.2
	# 1392 + 28 = 1420 fits; 1393 does not, and DF is set.
	n a ping -c 1 -W 3 -M do -s 1392 10.0.0.2 >/dev/null
	local out
	out=$(n a ping -c 1 -W 3 -M do -s 1393 10.0.0.2 2>&1 || true)
	echo "$out"
	echo "$out" | grep -Eqi 'message too long|frag needed|mtu' || fail "no too-big error"
}

test_forwarded_too_big_gets_icmp() {
	tunnel_setup wgx 4 0
	# A third namespace c routes through a: a forwards c's big DF packet and must
	# answer with ICMP fragmentation needed (mtu 1420).
	ip netns add c
	ip link add vc netns c type veth peer vac netns a
	n c ip link set lo up
	n c ip addr add 198.51.100.2/24 dev vc
	n a ip addr add 198.51.100.1/24 dev vac
	n c ip link set vc up
	n a ip link set vac up
	n c ip route add 10.0.0.0/24 via 198.51.100.1
	n a sysctl -qw net.ipv4.ip_forward=1
	n b "$(conf_tool wgx)" set wgt0 peer "$KA_pub" allowed-ips 10.0.0.1/32,fd00::1/128,198.51.100.0/24
	n b ip route add 198.51.100.0/24 dev wgt0
	n c ping -c 2 -W 3 10.0.0.2 >/dev/null
	local out
	out=$(n c ping -c 2 -W 3 -M do -s 1450 10.0.0.2 2>&1 || true)
	echo "$out"
	echo "$out" | grep -Eqi 'frag needed|mtu = 1420|mtu=1420' || fail "no ICMP fragmentation-needed from a"
}

test_padding_within_mtu() {
	tunnel_setup wgx 4 0
	n a ip link set wgt0 mtu 1413
	n b ip link set wgt0 mtu 1413
	capture_start b /tmp/big -n -i vb -c 4 "udp and src host 192.0.2.1 and greater 1400"
	n a ping -c 4 -i 0.2 -W 3 -M do -s $((1413 - 28)) 10.0.0.2 >/dev/null
	capture_stop
	cat /tmp/big
	# UDP payload = 16 header + padded plaintext + 16 tag; padded must stay <= 1413.
	local len
	for len in $(sed -n 's/.*UDP, length \([0-9]*\).*/\1/p' /tmp/big); do
		[ "$len" -le $((1413 + 32)) ] || fail "UDP payload $len exceeds mtu 1413 + 32"
	done
	[ -s /tmp/big ] || fail "no large packets captured"
}

test_private_key_change() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	# a gets a new identity; b still knows only the old one, so its traffic is refused.
	key_pair KN
	printf '%s\n' "$KN" >/tmp/kn.key
	n a "$WGX_TOOL" set wgt0 private-key /tmp/kn.key
	if n b ping -c 2 -W 2 10.0.0.1 >/dev/null 2>&1; then fail "stale peer still reaches a"; fi
	# b learns a's new public key: a new handshake and traffic resumes.
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" remove peer "$KN_pub" endpoint 192.0.2.1:$TUN_PORT_A \
		allowed-ips 10.0.0.1/32,fd00::1/128
	ping_ok b 10.0.0.1
	ping_ok a 10.0.0.2
}

test_rekey_keeps_traffic() {
	# Protocol timers scaled down 30x (test-only module parameter): REKEY_AFTER_TIME = 4 s.
	# timer_scale is fixed at load: whatever happens, the case ends with the
	# module reloaded with its defaults (the runner reloads only a missing
	# module, and later cases would run with the timers scaled).
	trap 'netns_cleanup; rmmod wgx 2>/dev/null; insmod "$WGX_MODULE_KO"' EXIT
	rmmod wgx
	insmod "$WGX_MODULE_KO" timer_scale=30
	expect_eq "timer_scale" 30 "$(cat /sys/module/wgx/parameters/timer_scale)"
	tunnel_setup wireguard 4 0
	ping_ok a 10.0.0.2
	local first received
	first=$(wgx_peer_field a 5)
	received=$(n a ping -c 40 -i 0.25 -W 1 10.0.0.2 | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	echo "received $received of 40 across rekeys"
	[ "$(wgx_peer_field a 5)" -gt "$first" ] || fail "no new handshake"
	[ "$received" -ge 38 ] || fail "traffic lost across rekey: $received/40"
}

# LOAD_MIN_BYTES: what b's wgt0 must have received of the load before the
# teardown step (a few tenths of a second of a 4-flow transfer under TCG).
LOAD_MIN_BYTES=1000000

# load — iperf3 from a to b in the background for up to 20 s; returns once
# the load demonstrably flows: b's wgt0 has received LOAD_MIN_BYTES more
# than before it (at most 15 s), and the client still runs, so the teardown
# step that follows happens under load.  LOAD_PID ends with the client.
load() {
	local i rx
	n b iperf3 -s -D >/dev/null
	sleep 0.3
	LOAD_RX0=$(wgt0_stat b rx_bytes)
	iperf_client a 10.0.0.2 20 -P 4 >/dev/null 2>&1 &
	LOAD_PID=$!
	for ((i = 0; i < 150; i++)); do
		rx=$(wgt0_stat b rx_bytes)
		[ $((rx - LOAD_RX0)) -ge $LOAD_MIN_BYTES ] && break
		kill -0 "$LOAD_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "load: b's wgt0 received $((rx - LOAD_RX0)) bytes before the teardown step"
	kill -0 "$LOAD_PID" 2>/dev/null || fail "the load ended before the teardown step"
	[ $((rx - LOAD_RX0)) -ge $LOAD_MIN_BYTES ] ||
		fail "the load moved $((rx - LOAD_RX0)) bytes in 15 s (at least $LOAD_MIN_BYTES expected)"
}

# unload — stop the load (it cannot finish once the tunnel is gone).
unload() {
	pkill -x iperf3 || true
	wait "$LOAD_PID" 2>/dev/null || true
}

# One TCP flow through a forwarding hop arrives in order, both ways, with
# the sending process free to move between CPUs: the hop and the receiver
# work on the CPU that sent (no RPS), so a flow whose packets left from two
# CPUs' queues would overtake itself there.
test_routed_path_keeps_order() {
	TUN_ROUTED=1 tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	tcp_order_ok a 10.0.0.2
	tcp_order_ok a 10.0.0.2 -R
}

test_teardown_delete_device_under_load() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	load
	n a ip link del wgt0
	n b ip link del wgt0
	unload
}

test_teardown_remove_peers_under_load() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	load
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" remove
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" remove
	unload
	expect_eq "peers left" "" "$(n a "$WGX_TOOL" show wgt0 peers)"
}

test_teardown_netns_move_under_load() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	load
	ip netns add elsewhere
	n a ip link set wgt0 netns elsewhere
	unload
	# The sockets stay in a: the moved device still tunnels through a's veth.
	n elsewhere ip link set wgt0 up
	n elsewhere ip addr add 10.0.0.1/24 dev wgt0
	n elsewhere ping -c 3 -W 3 10.0.0.2 >/dev/null
	ip netns del elsewhere
}

# The namespace that created a device (its sockets, its peers' cached
# routes) is deleted while the device lives on in another: the namespace's
# cleanup must not wait for anything of ours.  A route cached for a peer's
# endpoint holds a's veth, and the cleanup would wait for it ("waiting for
# va to become free", logged once the wait passes
# net.core.netdev_unregister_timeout_secs, 1 s here).  The namespace must
# be freed within 10 s, and on the debug kernel the reference trackers of
# namespaces and devices must report nothing.
test_creating_netns_deleted_while_device_lives() {
	local timeout i msg
	timeout=$(sysctl -n net.core.netdev_unregister_timeout_secs)
	trap 'sysctl -qw net.core.netdev_unregister_timeout_secs='"$timeout" EXIT
	sysctl -qw net.core.netdev_unregister_timeout_secs=1
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	ip netns add elsewhere
	n a ip link set wgt0 netns elsewhere
	n elsewhere ip link set wgt0 up
	n elsewhere ip addr add 10.0.0.1/24 dev wgt0
	n elsewhere ping -c 3 -W 3 10.0.0.2 >/dev/null || fail "the moved device does not tunnel"
	dmesg -C
	ip netns del a
	# Freed: its cleanup runs once nothing holds the namespace, and takes
	# a's end of the veth pair with it, so b's end goes too.
	for i in $(seq 100); do
		n b ip link show vb >/dev/null 2>&1 || break
		sleep 0.1
	done
	! n b ip link show vb >/dev/null 2>&1 ||
		fail "namespace a not freed within 10 s: b's end of the veth pair (vb) is still there"
	echo "namespace a cleaned up after $((i - 1))00 ms"
	sleep 2
	msg=$(dmesg | grep -E 'to become free|leaked reference|WARNING' | head -n 1)
	[ -z "$msg" ] || fail "the deleted namespace's cleanup: $msg"
	# The moved device is still there and can be removed.
	n elsewhere ip link show wgt0 >/dev/null || fail "the moved device is gone"
	n elsewhere ip link del wgt0
}

test_teardown_rmmod_under_load() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	load
	rmmod wgx
	unload
	must_fail grep -q '^wgx ' /proc/modules
}

# Byte counters count WireGuard messages, as the in-tree module's do (users
# and the kernel's selftest rely on it): every transport message, keepalive
# and handshake message to or from the peer, by its UDP payload length; the
# interface's `ip -stats` and the peer's transfer figures agree.  10 pings of
# 84-byte IP packets are 10 x 128-byte transport messages each way, plus the
# initiation (148) a sent and the response (92) it received; a keepalive (32)
# may follow the initiator's handshake.
test_byte_counters_count_messages() {
	tunnel_setup wgx 4 1
	n a ping -c 10 -f -W 1 10.0.0.2 >/dev/null
	local rx tx prx ptx xa xb ta tb
	# A message with the express mark is 16 bytes longer (docs/datapath.md,
	# "Express delivery"); each end counts the ones it sent.
	xa=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.tx_express // 0')
	xb=$(n b "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.tx_express // 0')
	ta=$((1428 + 16 * xa)) tb=$((1372 + 16 * xb))
	{ read -r _; read -r _; read -r _; read -r rx _; read -r _; read -r tx _; } < <(n a ip -stats link show dev wgt0)
	read -r _ prx ptx < <(n a "$WGX_TOOL" show wgt0 transfer)
	echo "a: ip -stats rx $rx tx $tx; transfer rx $prx tx $ptx; marked: $xa sent by a, $xb by b"
	expect_eq "rx bytes (ip -stats)" "$tb" "$rx"
	[ "$tx" = "$ta" ] || [ "$tx" = $((ta + 32)) ] || fail "tx bytes (ip -stats): $tx, expected $ta or $((ta + 32))"
	expect_eq "rx bytes (transfer)" "$tb" "$prx"
	[ "$ptx" = "$ta" ] || [ "$ptx" = $((ta + 32)) ] || fail "tx bytes (transfer): $ptx, expected $ta or $((ta + 32))"
	# And the responder's view, mirrored.
	{ read -r _; read -r _; read -r _; read -r rx _; read -r _; read -r tx _; } < <(n b ip -stats link show dev wgt0)
	echo "b: ip -stats rx $rx tx $tx"
	expect_eq "b's tx bytes" "$tb" "$tx"
	[ "$rx" = "$ta" ] || [ "$rx" = $((ta + 32)) ] || fail "b's rx bytes: $rx, expected $ta or $((ta + 32))"
}

# A peer with persistent keepalive starts talking as soon as the device has
# both a private key and is up, in whichever order they come.
test_keepalive_when_key_set_after_up() {
	netns_pair a b
	key_pair KA
	key_pair KB
	printf '%s\n' "$KA" >/tmp/ka.key
	tunnel_dev a wgx
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" endpoint 192.0.2.2:$TUN_PORT_B persistent-keepalive 1
	n a ip link set wgt0 up
	expect_eq "tx bytes before the key" 0 "$(n a "$WGX_TOOL" show wgt0 transfer | cut -f3)"
	n a "$WGX_TOOL" set wgt0 private-key /tmp/ka.key
	local tx i
	for i in $(seq 20); do
		tx=$(n a "$WGX_TOOL" show wgt0 transfer | cut -f3)
		[ "$tx" -gt 0 ] && break
		sleep 0.1
	done
	[ "$tx" -gt 0 ] || fail "nothing sent after the private key was set on an up device"
}

# Suspend and hibernation end every session (keys must not sit in a
# hibernation image, nor a machine resume hours-old sessions): the next packet
# needs a new handshake.  /sys/power/pm_test "freezer" runs the suspend
# sequence up to frozen tasks (PM notifiers included) and resumes after 5 s.
test_suspend_clears_sessions() {
	[ -w /sys/power/pm_test ] || fail "no /sys/power/pm_test (CONFIG_PM_DEBUG)"
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	local before after state=freeze
	before=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.handshakes_completed')
	grep -qw freeze /sys/power/state || state=mem
	echo freezer >/sys/power/pm_test
	echo "$state" >/sys/power/state || { echo none >/sys/power/pm_test; fail "suspend test failed"; }
	echo none >/sys/power/pm_test
	ping_ok a 10.0.0.2
	after=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.handshakes_completed')
	echo "handshakes completed: $before before the suspend, $after after"
	[ "$after" -gt "$before" ] || fail "the session survived the suspend"
}

# wgt0_stat NS FIELD — a counter of wgt0 in NS from sysfs (tx_errors, ...).
wgt0_stat() {
	n "$1" cat "/sys/class/net/wgt0/statistics/$2"
}

# An endpoint whose route goes through the tunnel itself (here b's inner
# address) is allowed, as in WireGuard (onion routing through one device is
# legitimate; the kernel selftest's nested case needs it): the loop it makes
# must end by itself, each round adding outer headers until the packet no
# longer fits, on the workers' path and on the priority lane's inline path
# (marked pings) alike, and the real endpoint afterwards works at once.
test_outer_route_through_itself_ends() {
	local tx0 tx1 tx2
	tunnel_setup wgx
	ping_ok a 10.0.0.2
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" endpoint 10.0.0.2:$TUN_PORT_B
	tx0=$(wgt0_stat a tx_packets)
	must_fail n a ping -c 3 -i 0.2 -W 1 -Q 0xb8 10.0.0.2
	must_fail n a ping -c 3 -i 0.2 -W 1 10.0.0.2
	sleep 2
	tx1=$(wgt0_stat a tx_packets)
	sleep 2
	tx2=$(wgt0_stat a tx_packets)
	echo "tx_packets: +$((tx1 - tx0)) for 6 pings, then +$((tx2 - tx1)) in 2 s"
	[ $((tx1 - tx0)) -ge 6 ] || fail "the looping packets were not sent at all"
	[ $((tx1 - tx0)) -le 6000 ] || fail "tx_packets rose by $((tx1 - tx0)) for 6 pings"
	expect_eq "packets still looping 2 s later" 0 $((tx2 - tx1))
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" endpoint 192.0.2.2:$TUN_PORT_B
	ping_ok a 10.0.0.2
}

# The same loop on a device without a qdisc (noqueue, as the kernel
# WireGuard selftest's nested case runs it): a marked small ping that finds
# its lane empty must not be sent by wgt0's ndo_start_xmit itself, whose
# send would re-enter wgt0's own transmit on the same CPU, where the core
# drops it as a "Dead loop on virtual device".  It goes to the lane's
# worker instead and makes its rounds like an unmarked packet: many sent
# messages per ping, no dead loop in the kernel log.
test_outer_route_through_itself_noqueue_no_dead_loop() {
	local tx0 tx1 dl0 dl1 inl0 inl1
	# One tx queue, CPU 0's: marked pings from CPU 0 try the inline send.
	TUN_LINK_ARGS="numtxqueues 1" tunnel_setup wgx
	n a tc qdisc replace dev wgt0 root noqueue
	ping_ok a 10.0.0.2
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" endpoint 10.0.0.2:$TUN_PORT_B
	dl0=$(dmesg | grep -c 'Dead loop on virtual device' || true)
	tx0=$(wgt0_stat a tx_packets)
	inl0=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.tx_lane_inline')
	must_fail n a taskset -c 0 ping -c 3 -i 0.3 -W 1 -Q 0xb8 10.0.0.2
	sleep 2
	tx1=$(wgt0_stat a tx_packets)
	dl1=$(dmesg | grep -c 'Dead loop on virtual device' || true)
	inl1=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.tx_lane_inline')
	echo "3 marked pings: tx_packets +$((tx1 - tx0)), tx_lane_inline +$((inl1 - inl0)), dead loops logged +$((dl1 - dl0))"
	expect_eq "dead loops logged" 0 $((dl1 - dl0))
	expect_eq "marked pings sent inline through the device itself" 0 $((inl1 - inl0))
	# Each round adds outer headers: about 20 rounds per ping before it no
	# longer fits; one message per ping is the dead loop's drop.
	[ $((tx1 - tx0)) -ge 9 ] || fail "the marked pings made $((tx1 - tx0)) rounds in all"
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" endpoint 192.0.2.2:$TUN_PORT_B
	ping_ok a 10.0.0.2
}
