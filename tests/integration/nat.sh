# Integration suite: a wgx sender with several listen ports (`listen-ports
# N`; the default, automatic ports, spreads the same way) behind a
# masquerading NAT or a stateful firewall whose UDP state
# expires after 4 s, talking to wireguard.ko, wireguard-go or wgx on the far
# side.  The far peer has no keepalive and no endpoint for a: it learns a's
# (translated) address from a's packets, as a server does.  Each bed runs
# with 4 listen ports and, as the control, with 1.  See lib.sh.

# UDP state on r lives this long after the last packet (s); the idle periods
# are longer.  Without a persistent keepalive the idle period also outlasts
# the keepalive that a peer sends 10 s after data it received without
# answering (the last segment of a TCP close, say) and the state that
# keepalive makes: r has forgotten a then, whatever the last packet was.
NAT_CT_TIMEOUT=4
NAT_IDLE=7
NAT_IDLE_QUIET=$((10 + NAT_CT_TIMEOUT + 1))
# Under TCG a peer's 10 s timer can fire seconds late (once a wireguard-go
# peer's passive keepalive kept a mapping past 15 s): the quiet idle goes
# on, a second at a time, up to this long in all, until r holds nothing.
# Without a persistent keepalive nothing may hold a mapping longer.
NAT_IDLE_QUIET_MAX=45

# nat_bed MODE KIND PORTS — a behind r, KIND in b, a with PORTS listen ports.
# r forwards a -> b, and b -> a only for connections a opened (ct state
# established,related); MODE nat also masquerades a behind r's address
# 198.51.100.254, MODE firewall forwards a's address unchanged.  b forgets
# a's endpoint (the peer is added again without one).  a has no keepalive.
nat_bed() {
	local mode=$1 kind=$2 ports=$3 tool
	TUN_ROUTED=1 tunnel_setup "$kind" 4 0
	modprobe nf_conntrack
	n r sysctl -qw net.netfilter.nf_conntrack_udp_timeout=$NAT_CT_TIMEOUT \
		net.netfilter.nf_conntrack_udp_timeout_stream=$NAT_CT_TIMEOUT
	n r iptables -P FORWARD DROP
	n r iptables -A FORWARD -i ra -o rb -j ACCEPT
	n r iptables -A FORWARD -i rb -o ra -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
	[ "$mode" = firewall ] || n r iptables -t nat -A POSTROUTING -o rb -j MASQUERADE
	NAT_TOOL_B=$(conf_tool "$kind")
	tool=$NAT_TOOL_B
	n b "$tool" set wgt0 peer "$KA_pub" remove
	n b "$tool" set wgt0 peer "$KA_pub" allowed-ips 10.0.0.1/32,fd00::1/128
	n a "$WGX_TOOL" set wgt0 listen-ports "$ports"
	[ -z "$(b_endpoint)" ] || fail "b still has an endpoint for a: $(b_endpoint)"
}

# b_endpoint — b's endpoint for a (empty while it has none).
b_endpoint() {
	local ep
	ep=$(n b "${NAT_TOOL_B:-wg}" show wgt0 endpoints | cut -f2)
	[ "$ep" = "(none)" ] || echo "$ep"
}

# mappings — r's UDP connections towards b's port, one "a-port>port-b-sees"
# word each (the same number twice without NAT), sorted; expired ones are
# not listed.
mappings() {
	n r cat /proc/net/nf_conntrack |
		sed -n "s/.* udp .* sport=\([0-9]*\) dport=$TUN_PORT_B .* sport=$TUN_PORT_B dport=\([0-9]*\).*/\1>\2/p" |
		sort -n | xargs
}

# pings_from NS ADDR — how many of 3 pings (2 s apart at most) got replies.
pings_from() {
	n "$1" ping -c 3 -i 0.5 -W 2 "$2" 2>/dev/null | sed -n 's/.* \([0-9]*\) received.*/\1/p'
}

# ports_start — capture in r, on a's side before any translation, the
# transport data messages a sends (headers only).
ports_start() {
	rm -f /tmp/nat-ports.pcap
	capture_start r /tmp/nat-ports -n -i ra -s 96 -U -w /tmp/nat-ports.pcap \
		"src host 192.0.2.1 and udp and udp[8] = 4"
}

# ports_check PORTS — end the capture of ports_start: with 1 listen port a
# sent its transport data from 51820 only, with more from at least 2 of its
# ports (8 TCP flows spread over 4 ports: all on one with the chance 1/16384,
# see multiport.sh) and none other.
ports_check() {
	local used p
	capture_stop
	used=$(tcpdump -n -r /tmp/nat-ports.pcap 2>/dev/null | awk '{ n = split($3, a, "."); print a[n] }' |
		sort -nu | xargs)
	echo "a sent transport data from ports: ${used:-none}"
	if [ "$1" = 1 ]; then
		expect_eq "a's source ports with one listen port" 51820 "$used"
		return
	fi
	[ "$(wc -w <<<"$used")" -ge 2 ] || fail "a sent its transport data from ${used:-no port} only"
	for p in $used; do
		[ "$p" -ge 51820 ] && [ "$p" -lt $((51820 + $1)) ] || fail "a sent from unexpected port $p"
	done
}

# traffic PORTS [BOTH] — ping both ways and 8 TCP flows b -> a (a's ACKs
# spread over its ports), with BOTH also a -> b; a's source ports checked.
traffic() {
	local m
	ports_start
	ping_ok a 10.0.0.2
	ping_ok b 10.0.0.1
	[ -z "${2:-}" ] || iperf_ok a 10.0.0.2 8
	iperf_ok a 10.0.0.2 8 -R
	# Read at once: under TCG the capture's end can outlast the timeout.
	m=$(mappings)
	ports_check "$1"
	echo "b's endpoint for a: $(b_endpoint); r's mappings: $m"
}

# idle SECONDS — nothing to send for SECONDS; r's mappings then.
idle() {
	sleep "$1"
	echo "after $1 s idle: r's mappings: $(mappings)"
}

# nat_log — with WGX_NAT_LOG_DIR set, the case's output goes to a file there
# too (the runner shows a passing case's output to no one).
nat_log() {
	local f
	[ -n "${WGX_NAT_LOG_DIR:-}" ] || return 0
	for f in "${FUNCNAME[@]}"; do
		[[ $f == test_* ]] && break
	done
	exec > >(tee "$WGX_NAT_LOG_DIR/$f.log") 2>&1
}

# nat_case MODE KIND PORTS — the procedure of every case:
#  1. no keepalive: traffic both ways (8 TCP flows each way); idle past the
#     timeout and any passive keepalive (r must have forgotten every
#     mapping: the bed works); b -> a first (printed: the
#     mapping is gone, nothing can carry it, for WireGuard as for us); then
#     a -> b must work and make b -> a work again;
#  2. a's persistent keepalive 2 s: traffic both ways (8 TCP flows b -> a);
#     idle past the timeout (a mapping must stay); b -> a first must work
#     (pings, then 8 TCP flows), then a -> b.
nat_case() {
	local mode=$1 kind=$2 ports=$3 got m
	nat_log
	nat_bed "$mode" "$kind" "$ports"
	echo "== $mode, a with $ports listen port(s), b $kind, no keepalive"
	traffic "$ports" both
	idle $NAT_IDLE_QUIET
	local waited=$NAT_IDLE_QUIET
	while [ -n "$(mappings)" ] && [ "$waited" -lt "$NAT_IDLE_QUIET_MAX" ]; do
		sleep 1
		waited=$((waited + 1))
	done
	echo "r forgot a after $waited s idle"
	expect_eq "r's mappings after $waited s idle (timeout $NAT_CT_TIMEOUT s)" "" "$(mappings)"
	got=$(pings_from b 10.0.0.1)
	echo "b -> a after idle: ${got:-0} of 3 pings answered (b's endpoint $(b_endpoint))"
	ping_ok a 10.0.0.2 || fail "a -> b after idle failed"
	ping_ok b 10.0.0.1 || fail "b -> a after a -> b failed"
	m=$(mappings)
	echo "after a -> b: b's endpoint $(b_endpoint); r's mappings: $m"

	echo "== $mode, a with $ports listen port(s), b $kind, a's persistent keepalive 2 s"
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" persistent-keepalive 2
	traffic "$ports"
	idle $NAT_IDLE
	[ -n "$(mappings)" ] || fail "no mapping left on r though a sends keepalives every 2 s"
	got=$(pings_from b 10.0.0.1)
	echo "b -> a after idle: ${got:-0} of 3 pings answered (b's endpoint $(b_endpoint))"
	[ "${got:-0}" -ge 1 ] || fail "b -> a after idle with a's keepalive: no ping answered"
	iperf_ok a 10.0.0.2 8 -R
	ping_ok a 10.0.0.2
}

test_wgx_four_ports_behind_nat_to_wireguard() { nat_case nat wireguard 4; }
test_wgx_four_ports_behind_nat_to_wireguard_go() { nat_case nat wireguard-go 4; }
test_wgx_four_ports_behind_nat_to_wgx() { nat_case nat wgx 4; }
test_wgx_four_ports_behind_stateful_firewall_to_wireguard() { nat_case firewall wireguard 4; }
test_wgx_four_ports_behind_stateful_firewall_to_wireguard_go() { nat_case firewall wireguard-go 4; }
test_wgx_four_ports_behind_stateful_firewall_to_wgx() { nat_case firewall wgx 4; }
# The controls: the same with one listen port (WireGuard's behaviour).
test_one_port_behind_nat_to_wireguard() { nat_case nat wireguard 1; }
test_one_port_behind_nat_to_wireguard_go() { nat_case nat wireguard-go 1; }
test_one_port_behind_nat_to_wgx() { nat_case nat wgx 1; }
test_one_port_behind_stateful_firewall_to_wireguard() { nat_case firewall wireguard 1; }
test_one_port_behind_stateful_firewall_to_wireguard_go() { nat_case firewall wireguard-go 1; }
test_one_port_behind_stateful_firewall_to_wgx() { nat_case firewall wgx 1; }

# What 4 ports cost a wireguard.ko receiver (printed, on the plain bed): it
# moves its endpoint for a to the source of every authenticated packet, so
# with a's 8 TCP flows over 4 ports its endpoint keeps changing (each change
# takes the peer's endpoint lock for writing and resets its route cache).
# Seen on the wire: the destination ports of b's messages to a (its ACKs)
# during 5 s of 8 flows a -> b, and how often consecutive ones differ (each
# difference is at least one endpoint change); and the goodput of that load
# with 1 and 4 ports, twice each, alternating (the capture runs in both).
test_four_ports_cost_to_wireguard() {
	local run ports bps sent changes dports
	nat_log
	tunnel_setup wireguard 4 0
	for run in 1 2; do
		for ports in 1 4; do
			n a "$WGX_TOOL" set wgt0 listen-ports $ports
			ping_ok a 10.0.0.2
			n b iperf3 -s -1 -D -I /tmp/iperf3-b.pid >/dev/null
			sleep 0.3
			rm -f /tmp/cost.pcap
			capture_start b /tmp/cost -n -i vb -s 96 -U -w /tmp/cost.pcap \
				"src host 192.0.2.2 and dst host 192.0.2.1 and udp and udp[8] = 4"
			iperf_client a 10.0.0.2 5 -P 8 -J >/tmp/cost.json || fail "iperf3 failed: $(head -c 300 /tmp/cost.json)"
			capture_stop
			tcpdump -n -r /tmp/cost.pcap 2>/dev/null | awk '{ n = split($5, a, "."); print a[n] + 0 }' >/tmp/cost-dports
			sent=$(wc -l </tmp/cost-dports)
			changes=$(uniq /tmp/cost-dports | wc -l)
			changes=$((changes > 0 ? changes - 1 : 0))
			dports=$(sort -n /tmp/cost-dports | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
			bps=$(jq '.end.sum_received.bits_per_second | floor' /tmp/cost.json)
			echo "run $run, $ports listen port(s): 8 flows a -> wireguard.ko: $((bps / 1000000)) Mbit/s;" \
				"b's $sent messages to a by destination port: ${dports% };" \
				"$changes changes of port between consecutive ones ($((changes / 5)) per second)"
			[ "$bps" -gt 1000000 ] || fail "8 flows moved $bps bit/s"
			if [ $ports = 1 ]; then
				expect_eq "b's changes of a's port with one listen port" 0 "$changes"
			else
				[ "$changes" -ge 1 ] || fail "b's endpoint for a never changed with 4 ports"
			fi
		done
	done
}
