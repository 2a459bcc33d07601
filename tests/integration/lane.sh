# Integration suite: the priority lane and DSCP on the outer header.
# `dscp copy|clear' on the wire, AF41 on handshake messages, per-flow order
# of packets mixing the lane and the bulk ring, and the tool's round trip.
# See lib.sh.

LANE_PY=$WGX_REPO/tests/integration/lane_order.py

# outer_tos NS FILE — from `tcpdump -v' output in FILE, "TOS LEN" per datagram
# (LEN: the UDP payload length, 148 initiation, 92 response, 64 cookie reply).
outer_tos() {
	awk 'match($0, /IP \(tos 0x[0-9a-f]+/) { tos = substr($0, RSTART + 8, RLENGTH - 8) }
	     /UDP, length/ { print tos, $NF }' "$2"
}

test_dscp_copy_clear_and_handshakes() {
	tunnel_setup wgx
	capture_start b /tmp/lane-clear -n -v -i vb "udp and src host 192.0.2.1"
	ping_ok a 10.0.0.2
	n a ping -c 3 -i 0.2 -Q 0xb8 10.0.0.2 >/dev/null || fail "ping -Q 0xb8 failed"
	capture_stop
	expect_eq "dscp default" '"clear"' "$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].dscp')"
	n a "$WGX_TOOL" set wgt0 dscp copy
	capture_start b /tmp/lane-copy -n -v -i vb "udp and src host 192.0.2.1"
	n a ping -c 3 -i 0.2 -Q 0xb8 10.0.0.2 >/dev/null || fail "ping -Q 0xb8 failed (copy)"
	n a ping -c 2 -i 0.2 -Q 0x28 10.0.0.2 >/dev/null || fail "ping -Q 0x28 failed (copy)"
	# ECN stays WireGuard's: ECT(0) of the inner packet shows on the outer one.
	n a ping -c 2 -i 0.2 -Q 0xba 10.0.0.2 >/dev/null || fail "ping -Q 0xba failed (copy)"
	capture_stop
	echo "clear:"; outer_tos b /tmp/lane-clear | sort | uniq -c
	echo "copy:"; outer_tos b /tmp/lane-copy | sort | uniq -c
	# The initiation (a is the initiator: its ping came first) carries AF41.
	outer_tos b /tmp/lane-clear | grep -qx '0x88 148' || fail "no initiation with tos 0x88"
	[ -z "$(outer_tos b /tmp/lane-clear | awk '$2 == 148 && $1 != "0x88"')" ] ||
		fail "an initiation without tos 0x88"
	# clear: every data packet 0 (a ping is a 128-byte message, 144 with
	# the express mark: WGX_TRANSPORT_EXPRESS_PAD more bytes of padding).
	outer_tos b /tmp/lane-clear | grep -qxE '0x0 (128|144)' || fail "no data packet with tos 0 under clear"
	[ -z "$(outer_tos b /tmp/lane-clear | awk '($2 == 128 || $2 == 144) && $1 != "0x0"')" ] ||
		fail "a data packet with a DSCP under clear"
	outer_tos b /tmp/lane-copy | grep -qxE '0xb8 (128|144)' || fail "no data packet with tos 0xb8 under copy"
	outer_tos b /tmp/lane-copy | grep -qxE '0x28 (128|144)' || fail "no data packet with tos 0x28 under copy"
	outer_tos b /tmp/lane-copy | grep -qxE '0xba (128|144)' || fail "no data packet with tos 0xba under copy"
	# b's response (b is wgx too) carries AF41 as well: a forgets its
	# session, so its next packet starts a handshake.
	capture_start a /tmp/lane-resp -n -v -i va -c 1 "udp and src host 192.0.2.2 and udp[8] = 2"
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" remove
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" endpoint 192.0.2.2:$TUN_PORT_B allowed-ips 10.0.0.2/32
	ping_ok a 10.0.0.2
	capture_stop
	outer_tos a /tmp/lane-resp
	expect_eq "response tos" "0x88 92" "$(outer_tos a /tmp/lane-resp)"
}

# order_run FLOWS COUNT [CPU] — send through the tunnel a -> b from CPU
# (default 0), check per-flow order.
order_run() {
	local flows=$1 count=$2 cpu=${3:-0} out recv_pid
	n b python3 "$LANE_PY" recv 10.0.0.2 5000 >/tmp/lane-order &
	recv_pid=$!
	sleep 1
	n a taskset -c "$cpu" python3 "$LANE_PY" send 10.0.0.2 5000 "$flows" "$count"
	wait "$recv_pid"
	out=$(cat /tmp/lane-order)
	echo "$flows flow(s) x $count: $out"
	local received reordered
	read -r _ received _ reordered _ _ <<<"$out"
	[ "${received:-0}" -ge $((flows * count / 4)) ] || fail "too few datagrams arrived: $out"
	expect_eq "reordered datagrams ($flows flows)" 0 "$reordered"
}

# lane_stat NS FIELD — device counter FIELD of wgt0 in NS (show --json).
lane_stat() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -r ".interfaces[0].stats.$2 // 0"
}

# Per-flow order with the lane's both ways of sending: marked packets that
# find their lane empty are sent by ndo_start_xmit at once (module
# parameter lane_inline, the default), the others wait on the lane for the
# queue's worker; with lane_inline=0 all wait.  Either way no flow may be
# reordered, and the counters must show which way was taken.
test_lane_keeps_flow_order() {
	local i0 i1 l0 orig
	orig=$(cat /sys/kernel/debug/wgx/lane_inline)
	trap 'echo '"$orig"' >/sys/kernel/debug/wgx/lane_inline' EXIT
	tunnel_setup wgx
	ping_ok a 10.0.0.2
	# fq_codel keeps a flow in one queue whatever its TOS (pfifo_fast's
	# bands would reorder it before wgx sees it).
	n a tc qdisc replace dev wgt0 root fq_codel
	expect_eq "lane_inline by default" Y "$(cat /sys/kernel/debug/wgx/lane_inline)"
	i0=$(lane_stat a tx_lane_inline)
	# Inline sends happen on the CPU of the flow's queue, which its hash
	# picks: eight flows from each of two CPUs take both ways.
	order_run 1 6000
	order_run 8 1500 0
	order_run 8 1500 1
	i1=$(lane_stat a tx_lane_inline)
	echo "sent inline: $((i1 - i0)), queued on the lane: $(lane_stat a tx_lane)"
	[ "$i1" -gt "$i0" ] || fail "no marked packet was sent inline"

	echo 0 >/sys/kernel/debug/wgx/lane_inline
	l0=$(lane_stat a tx_lane)
	order_run 1 6000
	order_run 8 1500
	expect_eq "sent inline with lane_inline=0" "$i1" "$(lane_stat a tx_lane_inline)"
	[ "$(lane_stat a tx_lane)" -gt "$l0" ] || fail "no marked packet was queued on the lane"
}

# lane_total NS — packets that took wgt0's lane in NS, queued or sent inline.
lane_total() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -r '.interfaces[0].stats | .tx_lane + .tx_lane_inline'
}

# Small packets take the lane without any marking (fq's sparse-flow
# priority): unmarked pings of 84 bytes do, unmarked pings of 1028 bytes do
# not, and with the lane off (priority-dscp none) nothing does.
test_small_unmarked_packets_take_the_lane() {
	local l0 l1 l2 l3
	tunnel_setup wgx
	ping_ok a 10.0.0.2
	l0=$(lane_total a)
	n a ping -c 20 -i 0.05 -W 2 10.0.0.2 >/dev/null
	l1=$(lane_total a)
	n a ping -c 20 -i 0.05 -W 2 -s 1000 10.0.0.2 >/dev/null
	l2=$(lane_total a)
	n a "$WGX_TOOL" set wgt0 priority-dscp none
	n a ping -c 20 -i 0.05 -W 2 10.0.0.2 >/dev/null
	l3=$(lane_total a)
	echo "lane: +$((l1 - l0)) for 20 small pings, +$((l2 - l1)) for 20 large, +$((l3 - l2)) for 20 small with the lane off"
	[ $((l1 - l0)) -ge 20 ] || fail "small unmarked pings did not take the lane"
	expect_eq "large unmarked pings on the lane" 0 $((l2 - l1))
	expect_eq "small pings on the lane with priority-dscp none" 0 $((l3 - l2))
}

# Express delivery (docs/datapath.md): while a carries bulk to b (1000-byte
# UDP datagrams to a closed port, another flow), a's small pings carry the
# express mark a second after the handshake's unmarked packets, and b, whose
# peer has an ordered queue (rx-spread on), delivers them ahead of it.  Large
# pings are never marked; an idle tunnel's small pings neither (its messages
# stay WireGuard's to the byte); after rx-spread off the peer keeps its
# queue and marked pings still go ahead.  Any loss or duplicate fails.
# lane_bulk_start — in a, 1000-byte UDP datagrams to 10.0.0.2:9 every 10 ms
# for 15 s from a new socket (pid in $bulk), and wait until 20 were sent and
# the handshake's first packets, unmarked, are a gap (1.5 s) ago.  One
# process on an absolute schedule: a shell loop forking per datagram left
# gaps of over a second on a loaded host, and a second without bulk is idle.
lane_bulk_start() {
	local tx0 i
	n a python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t = time.monotonic()
end = t + 15
while t < end:
    try:
        s.sendto(bytes(1000), ("10.0.0.2", 9))
    except OSError:
        pass
    t += 0.01
    time.sleep(max(0.0, t - time.monotonic()))
' >/dev/null 2>&1 &
	bulk=$!
	tx0=$(n a cat /sys/class/net/wgt0/statistics/tx_bytes)
	for i in $(seq 100); do
		[ $(($(n a cat /sys/class/net/wgt0/statistics/tx_bytes) - tx0)) -ge 20000 ] && break
		sleep 0.1
	done
	sleep 1.5
}

test_small_messages_go_express() {
	local t0 t1 t2 t3 t4 t5 r0 r1 r2 r3 r4 out bulk idle
	tunnel_setup wgx
	n b "$WGX_TOOL" set wgt0 rx-spread on
	ping_ok a 10.0.0.2
	t0=$(lane_stat a tx_express)
	n a ping -c 10 -i 0.05 -W 2 10.0.0.2 >/dev/null || fail "small pings lost (idle)"
	idle=$(($(lane_stat a tx_express) - t0))
	# A flow bucket (256 per device, keyed by a random key) that the bulk
	# shares with the pings withholds every mark, as it should (the mark
	# needs a bucket that sent nothing unmarked for a second): 1 in 256 per
	# bulk socket.  A fresh bulk socket (a new source port) hashes anew, so
	# only a run with no mark at all is tried again, at most twice more.
	local attempt
	for attempt in 1 2 3; do
		lane_bulk_start
		t1=$(lane_stat a tx_express)
		r0=$(lane_stat b rx_express)
		out=$(n a ping -c 20 -i 0.05 -W 2 10.0.0.2) || { kill $bulk 2>/dev/null; fail "small pings lost: $out"; }
		t2=$(lane_stat a tx_express)
		r1=$(lane_stat b rx_express)
		[ $((t2 - t1)) -gt 0 ] && break
		echo "attempt $attempt: no small ping marked (a bucket shared with the bulk?)"
		[ "$attempt" -lt 3 ] || break
		kill $bulk 2>/dev/null || true
		wait $bulk 2>/dev/null || true
	done
	n a ping -c 20 -i 0.05 -W 2 -s 1000 10.0.0.2 >/dev/null || { kill $bulk 2>/dev/null; fail "large pings lost"; }
	t3=$(lane_stat a tx_express)
	r2=$(lane_stat b rx_express)
	n b "$WGX_TOOL" set wgt0 rx-spread off
	# The large pings were unmarked traffic in the pings' flow bucket: a
	# second without it before small pings are marked again.
	sleep 1.5
	t4=$(lane_stat a tx_express)
	r4=$(lane_stat b rx_express)
	n a ping -c 20 -i 0.05 -W 2 10.0.0.2 >/dev/null || { kill $bulk 2>/dev/null; fail "small pings lost with rx-spread off"; }
	t5=$(lane_stat a tx_express)
	r3=$(lane_stat b rx_express)
	kill $bulk 2>/dev/null || true
	wait $bulk 2>/dev/null || true
	echo "marked: +$idle for 10 small pings while idle, +$((t2 - t1)) for 20 small," \
		"+$((t3 - t2)) for 20 large, +$((t5 - t4)) for 20 small with rx-spread off;" \
		"delivered ahead: +$((r1 - r0)), +$((r2 - r1)), +$((r3 - r4)) with rx-spread off"
	if grep -q "DUP" <<<"$out"; then fail "ping saw duplicates: $out"; fi
	expect_eq "small pings marked while idle" 0 "$idle"
	[ $((t2 - t1)) -ge 20 ] || fail "only $((t2 - t1)) of 20 small pings marked"
	[ $((r1 - r0)) -ge 20 ] || fail "only $((r1 - r0)) of 20 marked pings delivered ahead"
	expect_eq "large pings marked" 0 $((t3 - t2))
	# Off stops spreading, but the peer keeps its ordered queue (rxspread.h),
	# so marked messages still go ahead of what waits in it.
	[ $((t5 - t4)) -ge 20 ] || fail "only $((t5 - t4)) of 20 small pings marked with rx-spread off"
	[ $((r3 - r4)) -ge 20 ] || fail "only $((r3 - r4)) of 20 marked pings delivered ahead with rx-spread off"
}

test_set_get_round_trip() {
	tunnel_setup wgx
	local j
	j=$(n a "$WGX_TOOL" show wgt0 --json)
	expect_eq "default dscp" '"clear"' "$(jq -c '.interfaces[0].dscp' <<<"$j")"
	expect_eq "default priority set" '[34,36,38,40,46,48,56]' "$(jq -c '.interfaces[0].priority_dscp' <<<"$j")"
	n a "$WGX_TOOL" showconf wgt0 | grep -q DSCP && fail "showconf prints default DSCP settings"
	n a "$WGX_TOOL" set wgt0 dscp copy priority-dscp EF,cs1,10
	j=$(n a "$WGX_TOOL" show wgt0 --json)
	expect_eq "dscp" '"copy"' "$(jq -c '.interfaces[0].dscp' <<<"$j")"
	expect_eq "priority set" '[8,10,46]' "$(jq -c '.interfaces[0].priority_dscp' <<<"$j")"
	n a "$WGX_TOOL" show wgt0 | grep -qx '  dscp: copy' || fail "show lacks dscp: copy"
	n a "$WGX_TOOL" show wgt0 | grep -qx '  priority dscp: CS1,AF11,EF' || fail "show lacks the priority set"
	n a "$WGX_TOOL" showconf wgt0 >/tmp/lane.conf
	grep -qx 'DSCP = copy' /tmp/lane.conf || fail "showconf lacks DSCP = copy"
	grep -qx 'PriorityDSCP = CS1,AF11,EF' /tmp/lane.conf || fail "showconf lacks PriorityDSCP"
	n a "$WGX_TOOL" set wgt0 dscp clear priority-dscp none
	j=$(n a "$WGX_TOOL" show wgt0 --json)
	expect_eq "dscp cleared" '"clear"' "$(jq -c '.interfaces[0].dscp' <<<"$j")"
	expect_eq "empty priority set" '[]' "$(jq -c '.interfaces[0].priority_dscp' <<<"$j")"
	# setconf of the saved file restores both.
	n a "$WGX_TOOL" setconf wgt0 /tmp/lane.conf
	j=$(n a "$WGX_TOOL" show wgt0 --json)
	expect_eq "dscp after setconf" '"copy"' "$(jq -c '.interfaces[0].dscp' <<<"$j")"
	expect_eq "set after setconf" '[8,10,46]' "$(jq -c '.interfaces[0].priority_dscp' <<<"$j")"
	# A file without the keys resets them to the defaults.
	grep -v DSCP /tmp/lane.conf >/tmp/lane-plain.conf
	n a "$WGX_TOOL" setconf wgt0 /tmp/lane-plain.conf
	j=$(n a "$WGX_TOOL" show wgt0 --json)
	expect_eq "dscp after plain setconf" '"clear"' "$(jq -c '.interfaces[0].dscp' <<<"$j")"
	expect_eq "set after plain setconf" '[34,36,38,40,46,48,56]' "$(jq -c '.interfaces[0].priority_dscp' <<<"$j")"
	# Bad values name the argument; nothing changes.
	local err
	err=$(n a "$WGX_TOOL" set wgt0 dscp af41 2>&1) && fail "dscp af41 accepted"
	[[ $err == *"invalid dscp"* ]] || fail "unexpected error: $err"
	err=$(n a "$WGX_TOOL" set wgt0 priority-dscp 64 2>&1) && fail "priority-dscp 64 accepted"
	[[ $err == *"invalid priority-dscp"* ]] || fail "unexpected error: $err"
	ping_ok a 10.0.0.2
}

# bql_sum NS FIELD — FIELD (inflight, limit) of wgt0's byte queue limits,
# summed over its tx queues.
bql_sum() {
	n "$1" sh -c "cat /sys/class/net/wgt0/queues/tx-*/byte_queue_limits/$2" |
		awk '{ s += $1 } END { print s + 0 }'
}

# iperf_load PORT SECONDS — 4 TCP flows a->b (10.0.0.2:PORT) for SECONDS;
# prints the bytes b received, fails when the client did not run.
iperf_load() {
	local bytes
	bytes=$(iperf_client a 10.0.0.2 "$2" -p "$1" -P 4 -J | jq '.end.sum_received.bytes')
	echo "bulk load on port $1: ${bytes:-none} bytes received"
	[ "${bytes:-0}" -gt 100000 ]
}

# Byte queue limits on the encryption rings (module parameter bql): off by
# default, a bulk load charges nothing; on, a bulk load is charged to BQL
# (bytes in flight, a limit that grew from 0), every byte is credited back
# once the load stops, and a down with the rings full (which resets BQL)
# leaves a device that passes traffic again.
test_bql_charges_and_credits() {
	local param=/sys/kernel/debug/wgx/bql orig
	# Put back whatever happens: a case that fails midway must not leave
	# bql=1 to the cases after it.
	orig=$(cat $param)
	trap 'echo '"$orig"' >'"$param" EXIT
	tunnel_setup wgx
	ping_ok a 10.0.0.2
	expect_eq "bql parameter by default" N "$(cat $param)"
	# One server per load: a server still closing the last test refuses
	# the next client ("busy"), which would leave no load at all.
	n b iperf3 -s -D -p 5201 >/dev/null
	n b iperf3 -s -D -p 5202 >/dev/null
	sleep 0.3
	iperf_load 5201 2 || fail "the first bulk load did not run (bed)"
	expect_eq "limits after a load without bql" 0 "$(bql_sum a limit)"
	echo 1 >$param
	expect_eq "inflight when idle" 0 "$(bql_sum a inflight)"
	iperf_load 5202 4 &
	local load=$! i inflight=0 limit=0 v
	for i in $(seq 15); do
		sleep 0.2
		v=$(bql_sum a inflight)
		[ "$v" -gt "$inflight" ] && inflight=$v
	done
	limit=$(bql_sum a limit)
	wait $load || fail "the second bulk load did not run (bed)"
	echo "under load: BQL inflight up to $inflight bytes, limits summed $limit bytes"
	[ "$inflight" -gt 0 ] || fail "nothing charged to BQL under a bulk load"
	[ "$limit" -gt 0 ] || fail "BQL limit did not grow under a bulk load"
	sleep 1
	expect_eq "inflight after the load" 0 "$(bql_sum a inflight)"
	# Down in the middle of a load: the workers finish, BQL resets.
	iperf_client a 10.0.0.2 20 -P 4 >/dev/null 2>&1 &
	sleep 2
	n a ip link set wgt0 down
	expect_eq "inflight after down" 0 "$(bql_sum a inflight)"
	pkill -x iperf3 || true
	wait || true
	n a ip link set wgt0 up
	n a ip addr replace 10.0.0.1/24 dev wgt0
	ping_ok a 10.0.0.2
	iperf_ok a 10.0.0.2 4
	sleep 1
	expect_eq "inflight after up and a load" 0 "$(bql_sum a inflight)"
}

# dev_stat NS DEV FIELD — device counter FIELD of DEV in NS (show --json).
dev_stat() {
	n "$1" "$WGX_TOOL" show "$2" --json | jq -r ".interfaces[0].stats.$3"
}

# wgx over wgx: the upper device wgt1's endpoint is reached through the lower
# wgt0.  A marked small packet on wgt1 that finds its lane empty must not be
# sent by wgt1's ndo_start_xmit itself: that send would take wgt0's tx queue
# lock inside wgt1's, one lock class (lockdep on the debug kernel: "possible
# recursive locking"; this case is in scripts/integration-debug's fixed
# selection).  It waits on the lane for the worker instead (tx_lane, not
# tx_lane_inline) and none is lost; wgt0, whose route leaves through the
# veth, still sends its marked packets (wgt1's, with `dscp copy') inline.
test_inline_not_through_stacked_wgx() {
	local up_i0 up_l0 low_i0 up_i1 up_l1 low_i1 out
	# One tx queue each, so both queues are CPU 0's: the upper's marked
	# pings from CPU 0 try the inline send, and the upper's worker, on CPU
	# 0, transmits into the lower's queue on its own CPU, where the lower
	# may send inline.
	TUN_LINK_ARGS="numtxqueues 1" tunnel_setup wgx
	ping_ok a 10.0.0.2
	expect_eq "lane_inline" Y "$(cat /sys/kernel/debug/wgx/lane_inline)"
	key_pair KC
	key_pair KD
	printf '%s\n' "$KC" >/tmp/kc.key
	printf '%s\n' "$KD" >/tmp/kd.key
	n a ip link add wgt1 numtxqueues 1 type wgx
	n b ip link add wgt1 type wgx
	n a "$WGX_TOOL" set wgt1 private-key /tmp/kc.key listen-port 51830 dscp copy \
		peer "$KD_pub" endpoint 10.0.0.2:51831 allowed-ips 10.1.0.2/32
	n b "$WGX_TOOL" set wgt1 private-key /tmp/kd.key listen-port 51831 \
		peer "$KC_pub" endpoint 10.0.0.1:51830 allowed-ips 10.1.0.1/32
	n a ip link set wgt1 mtu 1340
	n b ip link set wgt1 mtu 1340
	n a ip addr add 10.1.0.1/24 dev wgt1
	n b ip addr add 10.1.0.2/24 dev wgt1
	n a ip link set wgt1 up
	n b ip link set wgt1 up
	ping_ok a 10.1.0.2
	up_i0=$(dev_stat a wgt1 tx_lane_inline) up_l0=$(dev_stat a wgt1 tx_lane)
	low_i0=$(dev_stat a wgt0 tx_lane_inline)
	# EF-marked, small, from CPU 0 (the queue's CPU, where inline sends happen).
	out=$(n a taskset -c 0 ping -c 20 -i 0.05 -W 2 -Q 0xb8 10.1.0.2) ||
		fail "marked pings over wgx over wgx failed: $out"
	grep -q ' 0% packet loss' <<<"$out" || fail "marked pings lost: $(tail -n 2 <<<"$out")"
	up_i1=$(dev_stat a wgt1 tx_lane_inline) up_l1=$(dev_stat a wgt1 tx_lane)
	low_i1=$(dev_stat a wgt0 tx_lane_inline)
	echo "wgt1 (upper): inline +$((up_i1 - up_i0)), lane +$((up_l1 - up_l0));" \
		"wgt0 (lower): inline +$((low_i1 - low_i0))"
	expect_eq "upper's marked packets sent inline" 0 $((up_i1 - up_i0))
	[ $((up_l1 - up_l0)) -ge 20 ] || fail "upper's marked packets not on its lane: +$((up_l1 - up_l0))"
	[ $((low_i1 - low_i0)) -ge 1 ] || fail "the lower device sent nothing inline"
	# Bulk over both still works.
	n a ping -c 3 -i 0.2 -s 1200 10.1.0.2 >/dev/null || fail "large pings over wgx over wgx failed"
}
