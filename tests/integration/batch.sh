# Integration suite: outer UDP segmentation on transmit (kmod/txbatch.h).
# wgx in namespace a sends the encrypted datagrams of each inner GSO packet
# as one UDP GSO packet; the receiver (wireguard.ko, or wgx) must get
# ordinary WireGuard datagrams: TCP moves data in order, no outer IP
# fragments appear, and wgx's device counters show that batches were sent.

# batch_stat NS NAME — device counter NAME of wgt0 in NS (wgx show --json).
batch_stat() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -r ".interfaces[0].stats.$2"
}

# frag_counters NS — "created reassembled" outer fragments of NS, IPv4 and
# IPv6 summed (FragCreates, ReasmReqds of /proc/net/snmp and snmp6).
frag_counters() {
	n "$1" awk '$1 == "Ip:" { if (!c) { for (i = 2; i <= NF; i++) { if ($i == "FragCreates") f = i; if ($i == "ReasmReqds") r = i } c = 1 } else { fc += $f; rr += $r } }
		$1 == "Ip6FragCreates" { fc += $2 } $1 == "Ip6ReasmReqds" { rr += $2 }
		END { print fc + 0, rr + 0 }' /proc/net/snmp /proc/net/snmp6
}

# batched_tcp_ok SENDER_NS ADDR [-R] — one TCP flow (tcp_order_ok: data moves,
# the sender sees no reordering); the wgx sending the data (SENDER_NS, or the
# other end with -R) sent batches of at least two datagrams; neither end
# created or reassembled an outer fragment.
batched_tcp_ok() {
	local ns=$1 addr=$2 rev=${3:-} tx b0 s0 b1 s1 fa fb fa1 fb1
	tx=$ns
	[ -n "$rev" ] && tx=$([ "$ns" = a ] && echo b || echo a)
	b0=$(batch_stat "$tx" tx_batches)
	s0=$(batch_stat "$tx" tx_batched)
	fa=$(frag_counters a)
	fb=$(frag_counters b)
	tcp_order_ok "$ns" "$addr" $rev
	b1=$(batch_stat "$tx" tx_batches)
	s1=$(batch_stat "$tx" tx_batched)
	fa1=$(frag_counters a)
	fb1=$(frag_counters b)
	echo "$tx sent $((b1 - b0)) batches of $((s1 - s0)) datagrams; fragments a: $fa -> $fa1, b: $fb -> $fb1"
	[ "$((b1 - b0))" -gt 0 ] || fail "$tx sent no batch"
	[ "$((s1 - s0))" -ge "$((2 * (b1 - b0)))" ] || fail "a batch of fewer than two datagrams"
	expect_eq "outer fragments in a" "$fa" "$fa1"
	expect_eq "outer fragments in b" "$fb" "$fb1"
}

test_wgx_to_wireguard_outer4() {
	tunnel_setup wireguard 4 0
	ping_ok a 10.0.0.2
	batched_tcp_ok a 10.0.0.2
	# wireguard.ko sends as before; wgx receives it.
	tcp_order_ok a 10.0.0.2 -R
}

test_wgx_to_wireguard_outer6() {
	tunnel_setup wireguard 6 0
	ping_ok a fd00::2
	batched_tcp_ok a fd00::2
	tcp_order_ok a fd00::2 -R
}

test_wgx_wgx_outer4_both_ways() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	batched_tcp_ok a 10.0.0.2
	batched_tcp_ok a 10.0.0.2 -R
}

test_wgx_wgx_outer6_both_ways() {
	tunnel_setup wgx 6 0
	ping_ok a fd00::2
	batched_tcp_ok a fd00::2
	batched_tcp_ok a fd00::2 -R
}

# The underlay without UDP segmentation offload: the stack segments the
# batch in software when it reaches the device.
test_underlay_without_udp_segmentation() {
	tunnel_setup wireguard 4 0
	n a ethtool -K va tx-udp-segmentation off
	n a ethtool -k va | grep -q '^tx-udp-segmentation: off' || fail "offload still on"
	ping_ok a 10.0.0.2
	batched_tcp_ok a 10.0.0.2
}

# Through a forwarding hop: the batch crosses r's routing as datagrams.
test_routed_wgx_to_wireguard() {
	TUN_ROUTED=1 tunnel_setup wireguard 4 0
	ping_ok a 10.0.0.2
	batched_tcp_ok a 10.0.0.2
}
