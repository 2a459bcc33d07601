# Integration suite: several listen ports per device (a wgx extension; by
# default automatic, 8 ports on a machine of several CPUs, or `listen-ports
# N`): one peer's traffic travels as up to N outer UDP flows, each inner flow
# on one of them.  Interop with wgx, wireguard.ko and wireguard-go both ways,
# binding rules (collisions, random ports, netns moves, automatic ports that
# cannot be had), and the receive spread on a NIC-like bed.  See lib.sh.

# listen_ports NS N — set wgt0's listen ports in NS (wgx).
listen_ports() {
	n "$1" "$WGX_TOOL" set wgt0 listen-ports "$2"
}

# hold_udp_ports VAR NS PORT... — a process in NS that binds UDP PORT... on
# every IPv4 address for 120 s; VAR := its pid.  Returns once ss lists them.
hold_udp_ports() {
	local -n _hold_pid=$1
	local _ns=$2 _i _p _held
	shift 2
	ip netns exec "$_ns" python3 -c 'import socket, sys, time
ss = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in sys.argv[1:]]
for s, p in zip(ss, sys.argv[1:]): s.bind(("0.0.0.0", int(p)))
time.sleep(120)' "$@" &
	_hold_pid=$!
	for ((_i = 0; _i < 50; _i++)); do
		_held=" $(udp_ports "$_ns") "
		for _p in "$@"; do
			[[ $_held == *" $_p "* ]] || break
		done
		[[ $_held == *" $_p "* ]] && return 0
		sleep 0.2
	done
	fail "ports $* not held in $_ns"
}

# json_field NS FIELD — FIELD of wgt0's interface in `wgx show --json` (jq syntax, ".listen_ports").
json_field() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -c ".interfaces[0]$2"
}

# both_ways — ping and TCP both directions.
both_ways() {
	ping_ok a 10.0.0.2
	ping_ok b 10.0.0.1
	iperf_ok a 10.0.0.2 8
	iperf_ok a 10.0.0.2 8 -R
}

test_wgx_wgx_four_ports() {
	tunnel_setup wgx 4 0
	listen_ports a 4
	listen_ports b 4
	expect_eq "ports bound in a" "51820 51821 51822 51823" "$(udp_ports a)"
	expect_eq "ports bound in b" "51821 51822 51823 51824" "$(udp_ports b)"
	expect_eq "json listen_ports" 4 "$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].listen_ports')"
	n a "$WGX_TOOL" showconf wgt0 | grep -qx 'ListenPorts = 4' || fail "showconf lacks ListenPorts = 4"
	capture_start b /tmp/a-ports -n -i vb -c 400 "udp and src host 192.0.2.1"
	both_ways
	capture_stop
	# 8 flows over 4 ports: a sends from more than one of its ports.
	local used
	used=$(sed -n 's/.* 192\.0\.2\.1\.\([0-9]*\) > .*/\1/p' /tmp/a-ports | sort -u | tr '\n' ' ')
	echo "a sent from ports: $used"
	[ "$(echo "$used" | wc -w)" -ge 2 ] || fail "a sent from one port only: $used"
	for p in $used; do
		[ "$p" -ge 51820 ] && [ "$p" -le 51823 ] || fail "a sent from unexpected port $p"
	done
	# b's endpoint for a stayed on one of a's ports.
	local ep
	ep=$(wgx_peer_field b 3)
	[[ $ep =~ ^192\.0\.2\.1:5182[0-3]$ ]] || fail "b's endpoint for a is $ep"
}

# With no option set, a wgx device listens on its listen port and 7 ports the
# kernel picks, and one peer's 8 TCP flows leave from at least 2 of them
# (all on one with the chance 8 x (1/8)^8, and both_ways runs two such sets:
# see data_ports_check); b's endpoint for a is one of a's ports.
test_default_spreads_one_peer_over_ports() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	tunnel_setup wgx 4 0
	local ports used p ep
	ports=$(udp_ports a)
	echo "a listens on: $ports"
	expect_eq "ports bound in a" 8 "$(wc -w <<<"$ports")"
	[[ " $ports " == *" 51820 "* ]] || fail "a does not listen on its listen port 51820: $ports"
	expect_eq "json listen_ports, listen_ports_auto" "8 true" \
		"$(json_field a .listen_ports) $(json_field a .listen_ports_auto)"
	n a "$WGX_TOOL" show wgt0 | grep -q 'listening ports: auto (8)' ||
		fail "show lacks 'listening ports: auto (8)': $(n a "$WGX_TOOL" show wgt0)"
	if n a "$WGX_TOOL" showconf wgt0 | grep -q ListenPorts; then
		fail "showconf prints ListenPorts for automatic ports"
	fi
	data_ports_start 4
	both_ways
	capture_stop
	used=$(tcpdump -n -r /tmp/a-data.pcap 2>/dev/null | awk '{ n = split($3, a, "."); print a[n] }' |
		sort -nu | xargs)
	echo "a sent transport data from ports: ${used:-none}"
	[ "$(wc -w <<<"$used")" -ge 2 ] || fail "a sent its transport data from ${used:-no port} only"
	for p in $used; do
		[[ " $ports " == *" $p "* ]] || fail "a sent from port $p, which it does not listen on"
	done
	ep=$(wgx_peer_field b 3)
	echo "b's endpoint for a: $ep"
	[[ $ep == 192.0.2.1:* && " $ports " == *" ${ep##*:} "* ]] || fail "b's endpoint for a is $ep"
}

# A peer that spreads its flows over its ports does not move our endpoint
# for it: each move re-steers every outer flow we send it (another CPU at
# each hop and at the receiver), so the packets still queued on the old CPU
# get overtaken.  b's endpoint for a stays a's listen port (where a sends
# its handshakes) while a's 8 TCP flows leave from several of a's ports for
# 6 s, three times the 2 s after which a silent endpoint port is given up:
# a's listen port may carry none of the flows, so a keeps it live.  On the
# way back nothing hops either: b's data to a (the ACKs, captured) went to
# that one port; b's endpoint is sampled too (each sample takes ~1 s under
# TCG).
test_endpoint_stays_while_peer_spreads() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	expect_eq "b's endpoint for a before" "192.0.2.1:$TUN_PORT_A" "$(wgx_peer_field b 3)"
	rm -f /tmp/spread.pcap
	capture_start b /tmp/spread -n -i vb -s 96 -U -w /tmp/spread.pcap "udp and udp[8] = 4"
	n b iperf3 -s -1 -D -I /tmp/iperf3-b.pid >/dev/null
	sleep 0.3
	iperf_client a 10.0.0.2 6 -P 8 -J >/tmp/iperf-spread.json &
	local load=$! samples=() i ep used dsts bytes
	for ((i = 0; i < 60; i++)); do
		kill -0 "$load" 2>/dev/null || break
		samples+=("$(wgx_peer_field b 3)")
		sleep 0.1
	done
	wait "$load" || fail "iperf3 a -> b failed"
	capture_stop
	bytes=$(jq '.end.sum_received.bytes' /tmp/iperf-spread.json)
	echo "iperf3 a -> b: $bytes bytes, ${#samples[@]} samples of b's endpoint"
	[ "${bytes:-0}" -gt 1000000 ] || fail "the load moved ${bytes:-0} bytes"
	[ "${#samples[@]}" -ge 3 ] || fail "only ${#samples[@]} samples during the load"
	tcpdump -n -r /tmp/spread.pcap 2>/dev/null >/tmp/spread.txt
	used=$(awk '$3 ~ /^192\.0\.2\.1\./ { n = split($3, a, "."); print a[n] }' /tmp/spread.txt | sort -nu | xargs)
	echo "a sent transport data from ports: ${used:-none}"
	[ "$(wc -w <<<"$used")" -ge 2 ] || fail "a sent its transport data from ${used:-no port} only"
	printf '%s\n' "${samples[@]}" | sort | uniq -c
	for ep in "${samples[@]}"; do
		[ "$ep" = "192.0.2.1:$TUN_PORT_A" ] || fail "b's endpoint for a moved to $ep under a's spread"
	done
	dsts=$(awk '$5 ~ /^192\.0\.2\.1\./ { n = split($5, a, "."); sub(":", "", a[n]); print a[n] }' /tmp/spread.txt |
		sort -nu | xargs)
	echo "b sent transport data to a's ports: ${dsts:-none}"
	expect_eq "a's ports b sent transport data to" "$TUN_PORT_A" "$dsts"
}

# Automatic ports spread only to a peer whose endpoint was given: b, which
# learns a's endpoint from a's packets (as a server does; a NAT or stateful
# firewall in front of a would admit only b's replies from the port a sent
# to), sends all of its transport data from its listen port 51821, while a,
# which was given b's endpoint, spreads over its ports.
test_default_learned_peer_gets_one_port() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	tunnel_setup wgx 4 0
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" remove
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" allowed-ips 10.0.0.1/32,fd00::1/128
	expect_eq "b's ports" 8 "$(udp_ports b | wc -w)"
	rm -f /tmp/ab-data.pcap
	capture_start b /tmp/ab-data -n -i vb -s 96 -U -w /tmp/ab-data.pcap "udp and udp[8] = 4"
	both_ways
	capture_stop
	local used_b used_a
	# "IP 192.0.2.2.51821 > 192.0.2.1.51820: UDP ...": the sender's port, by sender.
	used_b=$(tcpdump -n -r /tmp/ab-data.pcap 2>/dev/null | awk '$3 ~ /^192\.0\.2\.2\./ { n = split($3, a, "."); print a[n] }' |
		sort -nu | xargs)
	used_a=$(tcpdump -n -r /tmp/ab-data.pcap 2>/dev/null | awk '$3 ~ /^192\.0\.2\.1\./ { n = split($3, a, "."); print a[n] }' |
		sort -nu | xargs)
	echo "b (a's endpoint learned) sent transport data from: ${used_b:-none}; a (b's given) from: ${used_a:-none}"
	expect_eq "b's source ports towards a peer it learned" 51821 "$used_b"
	[ "$(wc -w <<<"$used_a")" -ge 2 ] || fail "a sent its transport data from ${used_a:-no port} only"
}

# Automatic ports stop spreading to a peer that follows our source port.
# wireguard.ko (and wireguard-go) set a peer's endpoint from every packet,
# so our flows spread over 8 ports make its own messages to us hop between
# those ports; a receiver that steers by the outer ports (RSS, the NIC-like
# bed here) then takes one inner flow on several CPUs and reorders it.
# b (wireguard.ko) sends 8 TCP flows to a (wgx, no option), whose ACKs
# leave from its 8 ports until a sees two seconds of hopping.  A first run
# of 4 s lets a find out; in a second one, on the wire: b's messages change
# a's port a few times at most (a few hundred without the rule), b's
# endpoint for a is a's listen port, a's last messages leave from it, and
# b's TCP detects no reordering.
test_default_wireguard_peer_gets_one_port() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	local -A TCPC
	local changes dports bytes r0 r1 ep last
	tunnel_setup wireguard 4 0
	nic_like a va
	nic_like b vb
	expect_eq "a's ports" 8 "$(udp_ports a | wc -w)"
	ping_ok b 10.0.0.1
	n a iperf3 -s -1 -D -I /tmp/iperf3-a.pid >/dev/null
	sleep 0.3
	bytes=$(iperf_client b 10.0.0.1 4 -P 8 -J | jq '.end.sum_received.bytes')
	echo "first run, 8 flows b -> a: $bytes bytes"
	tcp_counters b
	r0=$((TCPC[TCPSACKReorder] + TCPC[TCPTSReorder]))
	n a iperf3 -s -1 -D -I /tmp/iperf3-a.pid >/dev/null
	sleep 0.3
	rm -f /tmp/wg-ports.pcap
	capture_start b /tmp/wg-ports -n -i vb -s 96 -U -w /tmp/wg-ports.pcap "udp and udp[8] = 4"
	bytes=$(iperf_client b 10.0.0.1 4 -P 8 -J | jq '.end.sum_received.bytes')
	capture_stop
	tcp_counters b
	r1=$((TCPC[TCPSACKReorder] + TCPC[TCPTSReorder]))
	# "IP 192.0.2.2.51821 > 192.0.2.1.40123: UDP ...": b's messages by a's port.
	tcpdump -n -r /tmp/wg-ports.pcap 2>/dev/null |
		awk '$3 ~ /^192\.0\.2\.2\./ { n = split($5, a, "."); print a[n] + 0 }' >/tmp/wg-dports
	changes=$(uniq /tmp/wg-dports | wc -l)
	changes=$((changes > 0 ? changes - 1 : 0))
	dports=$(sort -n /tmp/wg-dports | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
	last=$(tcpdump -n -r /tmp/wg-ports.pcap 2>/dev/null | awk '$3 ~ /^192\.0\.2\.1\./ { n = split($3, a, "."); print a[n] }' |
		tail -n 100 | sort -nu | xargs)
	ep=$(n b wg show wgt0 endpoints | cut -f2)
	echo "second run, 8 flows b -> a: $bytes bytes; b's messages to a by a's port: ${dports% };" \
		"$changes changes of port; a's last 100 messages from port(s) $last;" \
		"b's endpoint for a $ep; b's sender-detected reordering $((r1 - r0))"
	[ "${bytes:-0}" -gt 100000 ] || fail "8 flows moved ${bytes:-no} bytes"
	[ "$changes" -le 10 ] || fail "b's messages changed a's port $changes times"
	expect_eq "b's endpoint for a" 192.0.2.1:51820 "$ep"
	expect_eq "a's source port, last 100 messages" 51820 "$last"
	expect_eq "reordering b's TCP detected" 0 $((r1 - r0))
}

# Automatic ports never keep a device down: with a's ephemeral port range
# 40000-40003 and 40000 and 40002 held by another socket, a comes up with
# 51820, 40001 and 40003; with all four held, with 51820 alone, and the
# tunnel works either way.  The range is narrowed only for the up (ping's
# and TCP's own sockets need ports from it too).
test_default_ports_taken_device_comes_up() {
	local pid1 pid2 range
	tunnel_setup wgx 4 0
	n a ip link set wgt0 down
	range=$(n a sysctl -n net.ipv4.ip_local_port_range | xargs)
	n a sysctl -qw net.ipv4.ip_local_port_range="40000 40003"
	hold_udp_ports pid1 a 40000 40002
	expect_eq "ports held in a" "40000 40002" "$(udp_ports a)"
	n a ip link set wgt0 up
	n a sysctl -qw net.ipv4.ip_local_port_range="$range"
	expect_eq "ports of a and the holder" "40000 40001 40002 40003 51820" "$(udp_ports a)"
	expect_eq "json listen_ports, listen_ports_auto" "3 true" \
		"$(json_field a .listen_ports) $(json_field a .listen_ports_auto)"
	both_ways
	n a ip link set wgt0 down
	n a sysctl -qw net.ipv4.ip_local_port_range="40000 40003"
	hold_udp_ports pid2 a 40001 40003
	expect_eq "ports held in a" "40000 40001 40002 40003" "$(udp_ports a)"
	n a ip link set wgt0 up
	n a sysctl -qw net.ipv4.ip_local_port_range="$range"
	expect_eq "ports of a and the holders" "40000 40001 40002 40003 51820" "$(udp_ports a)"
	expect_eq "json listen_ports" 1 "$(json_field a .listen_ports)"
	n a "$WGX_TOOL" show wgt0 | grep -q 'listening ports: auto (1)' ||
		fail "show lacks 'listening ports: auto (1)'"
	ping_ok a 10.0.0.2
	ping_ok b 10.0.0.1
	kill "$pid1" "$pid2" 2>/dev/null || true
}

# A device with no listen port binds the port the kernel picks for its IPv4
# socket, then that number for IPv6; where the number's IPv6 half is taken
# (another program's or another device's IPv6-only socket), it picks again,
# with automatic ports as with a fixed count (WireGuard does the same).
# Here three of the four ports of the range have their IPv6 half taken, so
# one pick finds the free one 1 time in 4; six ups in a row must all work.
test_default_ports_v6_half_taken_device_comes_up() {
	local range pid i ports
	tunnel_setup wgx 4 0
	n a ip link set wgt0 down
	n a "$WGX_TOOL" set wgt0 listen-port 0
	range=$(n a sysctl -n net.ipv4.ip_local_port_range | xargs)
	n a python3 -c 'import socket, sys, time
ss = []
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind(("::", int(p)))
    ss.append(s)
time.sleep(120)' 40000 40001 40002 &
	pid=$!
	for ((i = 0; i < 50; i++)); do
		[ "$(n a ss -Hunl6 | grep -c ':4000[012] ')" -eq 3 ] && break
		sleep 0.2
	done
	[ "$i" -lt 50 ] || fail "IPv6 halves of 40000-40002 not held"
	n a sysctl -qw net.ipv4.ip_local_port_range="40000 40003"
	for ((i = 0; i < 6; i++)); do
		if ! n a ip link set wgt0 up; then
			n a sysctl -qw net.ipv4.ip_local_port_range="$range"
			kill "$pid" 2>/dev/null
			fail "up $((i + 1)) of 6 failed: $(n a dmesg 2>/dev/null | grep -a 'could not bind' | tail -n 1)"
		fi
		ports=$(json_field a .listen_port)
		[ "$ports" = 40003 ] || { kill "$pid" 2>/dev/null; fail "listen port $ports, expected 40003"; }
		n a ip link set wgt0 down
	done
	n a sysctl -qw net.ipv4.ip_local_port_range="$range"
	kill "$pid" 2>/dev/null || true
}

# A listen port the kernel picked at an up (none set) is nobody's choice:
# when another socket took it while the device was down (with automatic
# ports every device holds eight ports the kernel picked, so another
# device's may be it), the next up picks another.  A port the user set stays
# theirs: taken, the up fails, as WireGuard's does.
test_picked_port_taken_device_comes_up() {
	local pid1 pid2 p q
	tunnel_setup wgx 4 0
	n a ip link set wgt0 down
	n a "$WGX_TOOL" set wgt0 listen-port 0
	n a ip link set wgt0 up
	p=$(json_field a .listen_port)
	[ "$p" -gt 0 ] || fail "no port picked: $p"
	n a ip link set wgt0 down
	hold_udp_ports pid1 a "$p"
	n a ip link set wgt0 up || { kill "$pid1"; fail "up with the picked port $p taken failed"; }
	q=$(json_field a .listen_port)
	[ "$q" -gt 0 ] && [ "$q" != "$p" ] || { kill "$pid1"; fail "listen port $q after $p was taken"; }
	n a ip link set wgt0 down
	n a "$WGX_TOOL" set wgt0 listen-port "$q"
	hold_udp_ports pid2 a "$q"
	if n a ip link set wgt0 up 2>/dev/null; then
		kill "$pid1" "$pid2"
		fail "up on the user's port $q, taken, did not fail"
	fi
	kill "$pid1" "$pid2" 2>/dev/null || true
}

# Each listen port's datagrams take their own route: one port's source port
# gets another routing table through a rule (`ip rule ... sport`), whose
# route to b has hop limit 7; the datagrams a sends from that port must
# leave with TTL 7, those from the other port with the main table's 64.
# Checked on the data messages of 32 inner UDP flows spread over both ports
# (a route cached for one port and reused for the other gives every
# datagram the same TTL).
test_each_port_routes_by_its_rule() {
	tunnel_setup wgx 4 0
	listen_ports a 2
	n a ip rule add ipproto udp sport 51821 table 100
	n a ip route add 192.0.2.2/32 dev va hoplimit 7 table 100
	ping_ok a 10.0.0.2
	capture_start b /tmp/a-ttl -n -v -i vb -c 400 "src host 192.0.2.1 and udp and udp[8] = 4"
	local p
	for p in $(seq 40000 40031); do
		n a bash -c "echo x >/dev/udp/10.0.0.2/$p"
	done
	ping_ok a 10.0.0.2
	capture_stop
	# tcpdump -v: "IP (tos ..., ttl N, ...)" then "    192.0.2.1.PORT > ...".
	local seen
	seen=$(awk '/ttl [0-9]+/ { match($0, /ttl [0-9]+/); ttl = substr($0, RSTART + 4, RLENGTH - 4); next }
		/192\.0\.2\.1\.[0-9]+ >/ { split($1, f, "."); print f[5] " " ttl }' /tmp/a-ttl | sort -u | xargs)
	echo "a's data messages, port and TTL: $seen"
	[[ " $seen " == *" 51820 64 "* ]] || fail "no data message from port 51820 with the main table's TTL 64"
	[[ " $seen " == *" 51821 7 "* ]] || fail "no data message from port 51821 with its rule's TTL 7"
	[[ " $seen " != *" 51820 7 "* ]] || fail "port 51820 sent with port 51821's route (TTL 7)"
	[[ " $seen " != *" 51821 64 "* ]] || fail "port 51821 sent with port 51820's route (TTL 64)"
}

# data_ports_start OUTER — capture in b, on vb, the transport data messages
# (type 4) that a sends over outer IPv4 or IPv6 (OUTER 4|6): headers only,
# to a file, so the capture costs little under load.
data_ports_start() {
	local filter
	if [ "$1" = 6 ]; then
		# No extension headers here: UDP at ip6[40], its payload's type at ip6[48].
		filter="ip6 src 2001:db8::1 and ip6[6] = 17 and ip6[48] = 4"
	else
		filter="src host 192.0.2.1 and udp and udp[8] = 4"
	fi
	rm -f /tmp/a-data.pcap
	capture_start b /tmp/a-data -n -i vb -s 96 -U -w /tmp/a-data.pcap "$filter"
}

# data_ports_check — end the capture of data_ports_start; a must have sent
# its transport data from at least 2 of its 4 ports (51820-51823), and from
# none other.  Each inner flow takes one of the 4 ports by its hash: the 8
# TCP flows of one iperf3 run (fresh source ports each run) all land on one
# port with the chance 4 x (1/4)^8 = 1/16384 where the hash spreads them
# evenly, and both_ways runs two such sets (a -> b, and a's ACKs of b -> a)
# besides the pings: a working device fails this less than once in 16384
# runs; a device that sends from one port fails it every time.
data_ports_check() {
	local used p
	capture_stop
	used=$(tcpdump -n -r /tmp/a-data.pcap 2>/dev/null | awk '{ n = split($3, a, "."); print a[n] }' |
		sort -nu | tr '\n' ' ')
	used=${used% }
	echo "a sent transport data from ports: ${used:-none} ($(tcpdump -n -r /tmp/a-data.pcap 2>/dev/null | wc -l) messages captured)"
	[ "$(wc -w <<<"$used")" -ge 2 ] || fail "a sent its transport data from ${used:-no port} only"
	for p in $used; do
		[ "$p" -ge 51820 ] && [ "$p" -le 51823 ] || fail "a sent from unexpected port $p"
	done
}

test_wgx_to_wireguard_four_ports() {
	tunnel_setup wireguard 4 0
	listen_ports a 4
	data_ports_start 4
	both_ways
	data_ports_check
	# wireguard.ko follows our last source port; every one of them reaches us.
	local ep
	ep=$(n b wg show wgt0 endpoints | cut -f2)
	[[ $ep =~ ^192\.0\.2\.1:5182[0-3]$ ]] || fail "wireguard.ko's endpoint for a is $ep"
}

test_wgx_to_wireguard_four_ports_outer6() {
	tunnel_setup wireguard 6 1
	listen_ports a 4
	data_ports_start 6
	both_ways
	data_ports_check
}

test_wgx_to_wireguard_go_four_ports() {
	tunnel_setup wireguard-go 4 0
	listen_ports a 4
	data_ports_start 4
	both_ways
	data_ports_check
}

test_port_collision_leaves_device_unchanged() {
	tunnel_setup wgx 4 0
	listen_ports a 1
	ping_ok a 10.0.0.2
	# Something else holds a's port 51822: four ports from 51820 cannot be had.
	n a python3 -c 'import socket,time; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("0.0.0.0",51822)); time.sleep(60)' &
	local i
	for i in $(seq 50); do
		[ "$(udp_ports a)" = "51820 51822" ] && break
		sleep 0.2
	done
	local out
	out=$(listen_ports a 4 2>&1) && fail "listen-ports 4 over a taken port succeeded"
	echo "$out"
	echo "$out" | grep -q 'Address already in use' || fail "no EADDRINUSE: $out"
	expect_eq "ports after the failure" "51820 51822" "$(udp_ports a)"
	expect_eq "listen ports after the failure" 1 \
		"$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].listen_ports')"
	ping_ok a 10.0.0.2
	# A run that does not pass 65535, and port + count beyond it refused by the kernel.
	out=$(n a "$WGX_TOOL" set wgt0 listen-port 65534 listen-ports 3 2>&1) && fail "65534 + 3 ports accepted"
	echo "$out"
	expect_eq "listen port after the refusal" 51820 "$(n a "$WGX_TOOL" show wgt0 listen-port)"
	kill %1 2>/dev/null || true
}

test_random_run_of_ports() {
	tunnel_setup wgx 4 0
	n a "$WGX_TOOL" set wgt0 listen-port 0 listen-ports 8
	local first ports want i
	first=$(n a "$WGX_TOOL" show wgt0 listen-port)
	ports=$(udp_ports a)
	want=
	for ((i = 0; i < 8; i++)); do want+="$((first + i)) "; done
	expect_eq "a random run of 8 ports" "${want% }" "$ports"
	# b still knows a at 51820: its packets must now reach a new port of a's.
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" endpoint "192.0.2.1:$((first + 5))"
	ping_ok b 10.0.0.1
	# Down and up again: the same run is bound again.
	n a ip link set wgt0 down
	expect_eq "no ports while down" "" "$(udp_ports a)"
	n a ip link set wgt0 up
	expect_eq "the same run after up" "${want% }" "$(udp_ports a)"
	# Down cleared a's sessions: a initiates anew.
	ping_ok a 10.0.0.2
}

test_netns_move_keeps_ports() {
	tunnel_setup wgx 4 0
	listen_ports a 4
	ping_ok a 10.0.0.2
	ip netns add elsewhere
	n a ip link set wgt0 netns elsewhere
	# The sockets stay in the creating namespace, all four of them.
	n elsewhere ip addr add 10.0.0.1/24 dev wgt0
	n elsewhere ip link set wgt0 up
	expect_eq "ports in a after the move" "51820 51821 51822 51823" "$(udp_ports a)"
	expect_eq "ports in the new namespace" "" "$(udp_ports elsewhere)"
	n elsewhere ping -c 3 -W 3 10.0.0.2 >/dev/null
	n elsewhere "$WGX_TOOL" set wgt0 listen-ports 2
	expect_eq "ports in a after shrinking" "51820 51821" "$(udp_ports a)"
	n elsewhere ping -c 3 -W 3 10.0.0.2 >/dev/null
	ip netns del elsewhere
}

# On the NIC-like bed, a 16-flow transfer from a sender with 8 listen ports is
# decrypted by the receiver on more than one CPU (with one port: on one).
# Where a run's ports all hash to one CPU (chance 1 in 128 with 8 ports on 2
# CPUs), the next run's flows use other ports: up to three runs.
test_receive_spreads_on_nic_like_bed() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	tunnel_setup wgx 4 0
	nic_like a va
	nic_like b vb
	listen_ports a 8
	ping_ok a 10.0.0.2
	local try share
	for try in 1 2 3; do
		decrypt_cpus_start
		iperf_ok a 10.0.0.2 16
		decrypt_cpus_read
		echo "run $try: decryptions per CPU: $CPUS_LIST (total $CPUS_TOTAL; other direction $CPUS_OTHER)"
		[ "$CPUS_TOTAL" -gt 1000 ] || fail "only $CPUS_TOTAL data decryptions counted"
		share=$((100 * CPUS_MAX / CPUS_TOTAL))
		[ "$share" -le 90 ] && return 0
	done
	fail "the busiest CPU decrypted $share% in every run"
}

# The bed itself: one outer UDP flow lands on one CPU (what RSS does); the
# receiver's rx-spread is off, so its decryptions show where the bed put them.
test_nic_like_bed_steers_one_flow_to_one_cpu() {
	tunnel_setup wgx 4 0
	nic_like a va
	nic_like b vb
	n b "$WGX_TOOL" set wgt0 rx-spread off
	# One port at both ends: b's replies from automatic ports could move
	# a's endpoint among them, and a's data with it to another CPU.
	listen_ports a 1
	listen_ports b 1
	ping_ok a 10.0.0.2
	decrypt_cpus_start
	iperf_ok a 10.0.0.2 16
	decrypt_cpus_read
	echo "decryptions per CPU: $CPUS_LIST (total $CPUS_TOTAL; other direction $CPUS_OTHER)"
	[ "$CPUS_TOTAL" -gt 1000 ] || fail "only $CPUS_TOTAL data decryptions counted"
	expect_eq "share of the busiest CPU with one listen port" "$CPUS_TOTAL" "$CPUS_MAX"
}

# ---- rx-spread: a peer that sends from one port ----

# decrypt_share CMD... — run CMD (traffic towards a) with the decrypt
# histogram armed; SHARE is then the busiest CPU's percentage of a's data
# decryptions (CPUS_* as decrypt_cpus_read leaves them).
decrypt_share() {
	decrypt_cpus_start
	"$@"
	decrypt_cpus_read
	[ "$CPUS_TOTAL" -gt 0 ] || fail "no data decryptions counted"
	SHARE=$((100 * CPUS_MAX / CPUS_TOTAL))
	echo "decryptions per CPU: $CPUS_LIST (total $CPUS_TOTAL; other direction $CPUS_OTHER): busiest $SHARE%"
}

# udp_light — b sends a at 1 Mbit/s for 2 s (iperf3 -u, 1000-byte datagrams).
udp_light() {
	n b iperf3 -s -1 -D -I /tmp/iperf3-b.pid >/dev/null
	sleep 0.3
	iperf_client a 10.0.0.2 2 -u -b 1M -l 1000 -R >/dev/null
}

# With no option set (rx-spread auto), the receiver spreads a one-port peer
# whose decryption keeps a CPU busy: 16 TCP flows from a wireguard.ko sender
# and from a wgx one (`listen-ports 1`) land on one CPU of a
# NIC-like bed, and a decrypts them on both.  A light flow of the same peer
# costs a CPU far less than a quarter: it is decrypted where it arrives.
test_auto_spreads_a_busy_one_port_peer() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	local kind
	for kind in wireguard wgx; do
		netns_cleanup
		tunnel_setup "$kind" 4 0
		# A one-port peer: b sends from one port, to the one a replies from.
		listen_ports a 1
		[ "$kind" != wgx ] || listen_ports b 1
		nic_like a va
		nic_like b vb
		expect_eq "rx_spread_mode by default" '"auto"' \
			"$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].rx_spread_mode')"
		ping_ok a 10.0.0.2
		echo "sender $kind, 1 Mbit/s:"
		decrypt_share udp_light
		[ "$CPUS_TOTAL" -gt 100 ] || fail "only $CPUS_TOTAL data decryptions counted"
		expect_eq "busiest CPU's share of a light flow (%)" 100 "$SHARE"
		echo "sender $kind, 16 TCP flows:"
		decrypt_share iperf_ok a 10.0.0.2 16 -R
		[ "$CPUS_TOTAL" -gt 1000 ] || fail "only $CPUS_TOTAL data decryptions counted"
		[ "$SHARE" -le 75 ] || fail "sender $kind: the busiest CPU decrypted $SHARE%"
	done
}

# The ordered queue of a spread peer does not stand at its limit: a 16-flow
# bulk transfer that outruns decryption (16 flows b -> a, rx-spread on at a)
# meets CoDel's drops on arrival (rx_drop_delay), while small messages are
# never dropped for delay: b's pings to a, which join the same queue, get
# their replies, and the bulk goes on.
test_spread_queue_drops_bulk_for_delay() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	local d0 d1 r0 r1 lost pings=200
	declare -A TCPC
	tunnel_setup wgx 4 0
	nic_like a va
	nic_like b vb
	n a "$WGX_TOOL" set wgt0 rx-spread on
	ping_ok a 10.0.0.2
	d0=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.rx_drop_delay')
	tcp_counters b
	r0=${TCPC[RetransSegs]}
	n a iperf3 -s -1 -D -I /tmp/iperf3-a.pid >/dev/null
	sleep 0.3
	iperf_client b 10.0.0.1 6 -P 16 -J >/tmp/bulk.json &
	sleep 1
	# Small messages into the same queue while it stands: b's pings to a.
	lost=$(n b ping -q -n -c $pings -i 0.02 -W 2 10.0.0.1 | sed -n 's/.* \([0-9]*\)% packet loss.*/\1/p')
	wait
	d1=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.rx_drop_delay')
	tcp_counters b
	r1=${TCPC[RetransSegs]}
	echo "delay drops $((d1 - d0)), bulk retransmissions $((r1 - r0)), pings lost ${lost}%," \
		"bulk received $(jq '.end.sum_received.bytes' /tmp/bulk.json) bytes"
	[ "$((d1 - d0))" -gt 0 ] || fail "a standing queue under 16 flows, yet no delay drop"
	[ "$((r1 - r0))" -gt 0 ] || fail "delay drops, yet the bulk retransmitted nothing"
	[ "$(jq '.end.sum_received.bytes' /tmp/bulk.json)" -gt 1000000 ] || fail "the bulk stalled"
	[ "${lost:-100}" -le 5 ] || fail "${lost}% of the pings lost"
}

# The same standing queue with ECN on at both ends (net.ipv4.tcp_ecn 1): the
# delay controls mark the bulk CE instead of dropping it (the inner packet's
# ECT travels in the outer header, RFC 6040, so a's ordered queue can mark a
# message it has not decrypted yet), so a sees congestion marks and b
# retransmits next to nothing.
test_spread_queue_marks_ecn_bulk() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	local d0 d1 m0 m1 r0 r1 ce0 ce1
	declare -A TCPC
	tunnel_setup wgx 4 0
	nic_like a va
	nic_like b vb
	n a sysctl -qw net.ipv4.tcp_ecn=1
	n b sysctl -qw net.ipv4.tcp_ecn=1
	n a "$WGX_TOOL" set wgt0 rx-spread on
	ping_ok a 10.0.0.2
	d0=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.rx_drop_delay // 0')
	m0=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.rx_mark_delay // 0')
	tcp_counters b
	r0=${TCPC[RetransSegs]}
	ce0=$(n a nstat -az IpExtInCEPkts | awk '$1 == "IpExtInCEPkts" { print $2 }')
	n a iperf3 -s -1 -D -I /tmp/iperf3-a.pid >/dev/null
	sleep 0.3
	iperf_client b 10.0.0.1 6 -P 16 -J >/tmp/bulk.json || fail "iperf3 failed: $(tail -c 300 /tmp/bulk.json)"
	d1=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.rx_drop_delay // 0')
	m1=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.rx_mark_delay // 0')
	tcp_counters b
	r1=${TCPC[RetransSegs]}
	ce1=$(n a nstat -az IpExtInCEPkts | awk '$1 == "IpExtInCEPkts" { print $2 }')
	echo "delay drops $((d1 - d0)), delay marks $((m1 - m0)), CE received by a $((ce1 - ce0))," \
		"bulk retransmissions $((r1 - r0))," \
		"bulk received $(jq '.end.sum_received.bytes' /tmp/bulk.json) bytes"
	[ "$((m1 - m0))" -gt 0 ] || fail "a standing queue under 16 ECN flows, yet no delay mark"
	[ "$((ce1 - ce0))" -ge "$((m1 - m0))" ] || fail "$((m1 - m0)) delay marks, but a received $((ce1 - ce0)) CE packets"
	expect_eq "delay drops of ECN-capable bulk" 0 $((d1 - d0))
	[ "$((r1 - r0))" -le 20 ] || fail "$((r1 - r0)) retransmissions with every drop a mark"
	[ "$(jq '.end.sum_received.bytes' /tmp/bulk.json)" -gt 1000000 ] || fail "the bulk stalled"
}

# With rx-spread on, the transport data of a peer that sends from one UDP
# port (here the in-tree module) is decrypted on every CPU of the receiver,
# though the NIC-like bed delivers all of it to one.
test_rx_spread_decrypts_one_port_on_every_cpu() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	tunnel_setup wireguard 4 0
	# wireguard.ko sends to our last source port: a replies from one port.
	listen_ports a 1
	nic_like a va
	nic_like b vb
	n a "$WGX_TOOL" set wgt0 rx-spread on
	n a "$WGX_TOOL" show wgt0 | grep -q 'rx spread: on' || fail "wgx show lacks 'rx spread: on'"
	expect_eq "json rx_spread" true "$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].rx_spread')"
	ping_ok a 10.0.0.2
	decrypt_cpus_start
	iperf_ok a 10.0.0.2 4 -R
	decrypt_cpus_read
	echo "rx-spread on: decryptions per CPU: $CPUS_LIST (total $CPUS_TOTAL; other direction $CPUS_OTHER)"
	[ "$CPUS_TOTAL" -gt 1000 ] || fail "only $CPUS_TOTAL data decryptions counted"
	[ $((100 * CPUS_MAX / CPUS_TOTAL)) -le 75 ] || fail "the busiest CPU still decrypted $CPUS_MAX of $CPUS_TOTAL"
	# Off again: one CPU, as the bed steers it.
	n a "$WGX_TOOL" set wgt0 rx-spread off
	decrypt_cpus_start
	iperf_ok a 10.0.0.2 4 -R
	decrypt_cpus_read
	echo "rx-spread off: decryptions per CPU: $CPUS_LIST (total $CPUS_TOTAL; other direction $CPUS_OTHER)"
	expect_eq "decryptions on the busiest CPU with rx-spread off" "$CPUS_TOTAL" "$CPUS_MAX"
}

# udp_seq_recv TOTAL TIMEOUT — a receives TOTAL numbered datagrams over 8
# flows on port 9000 (tests/lib/udp_seq.py) in the background, ready when
# this returns; sets SEQ_PID.
udp_seq_recv() {
	local i
	n a python3 "$WGX_REPO/tests/lib/udp_seq.py" recv 9000 8 "$1" "$2" >/tmp/order &
	SEQ_PID=$!
	for i in $(seq 100); do grep -q ready /tmp/order && break; sleep 0.1; done
	grep -q ready /tmp/order || fail "the receiver did not start"
}

# SEQ_SEND_MAX: the seconds a case switches things while a sender runs in
# the background; udp_seq.py gives up after 300 s itself, this bounds one
# stuck elsewhere.
SEQ_SEND_MAX=320

# sender_runs PID WHAT — the condition of a loop that switches things while
# the background sender PID runs: true while it runs, false once it ended.
# SEQ_SEND_MAX seconds after its first call for PID, the case fails with
# "the sender still runs after ... (WHAT)", WHAT saying what the loop did so
# far.  It exits the case itself: `set -e` does not act in a loop's
# condition, and a false would only end the loop and wait for the sender.
sender_runs() {
	if [ "${SEQ_SEND_PID:-}" != "$1" ]; then
		SEQ_SEND_PID=$1
		SEQ_SEND_END=$((SECONDS + SEQ_SEND_MAX))
	fi
	kill -0 "$1" 2>/dev/null || return 1
	[ $SECONDS -ge "$SEQ_SEND_END" ] || return 0
	fail "the sender still runs after $SEQ_SEND_MAX s ($2)" || exit 1
}

# udp_seq_send TOTAL — b sends a's receiver its TOTAL datagrams.
udp_seq_send() {
	n b python3 "$WGX_REPO/tests/lib/udp_seq.py" send 10.0.0.1 9000 8 "$1"
}

# udp_seq_result TOTAL PART — wait for the receiver and print its verdict;
# at least TOTAL / PART datagrams must have arrived.  Sets RECEIVED,
# REORDERED and SEQ_RC (its exit status).
udp_seq_result() {
	SEQ_RC=0
	wait "$SEQ_PID" || SEQ_RC=$?
	cat /tmp/order
	read -r _ RECEIVED _ REORDERED _ < <(grep '^received ' /tmp/order) || true
	[ -n "${RECEIVED:-}" ] || fail "the receiver printed no result (exit status $SEQ_RC)"
	[ "$RECEIVED" -ge $(($1 / $2)) ] || fail "only $RECEIVED of $1 datagrams arrived"
}

# Order: 8 UDP flows from b (one outer flow) to a with rx-spread on, every
# flow arrives in order, though the receiver decrypts on every CPU.  The
# receiver's verdict counts (it fails on reordering and when fewer than half
# of the datagrams arrived), and so does what it received.
test_rx_spread_keeps_order() {
	local total=20000
	tunnel_setup wgx 4 0
	# One outer flow: b sends from one port, to one port of a's (b follows a's source port).
	listen_ports a 1
	listen_ports b 1
	n a "$WGX_TOOL" set wgt0 rx-spread on
	ping_ok b 10.0.0.1
	udp_seq_recv $total 60
	udp_seq_send $total
	udp_seq_result $total 2
	expect_eq "reordered datagrams" 0 "$REORDERED"
	expect_eq "the receiver's exit status" 0 "$SEQ_RC"
}

# The replay window of a spread peer sees its messages in arrival order:
# b (the in-tree module, which sends its counters in order from one port)
# sends 8 UDP flows of 600-byte datagrams (longer than a small message, so
# a's decrypt workers take them) over one outer flow that the NIC-like bed
# delivers in order to one CPU of a; a's workers finish them in any order,
# and a window fed in that order would count many as reordered (a's
# rx_reordered, the telemetry users read).  Nothing reorders them on the
# way, so a counts at most a few (a keepalive from the other CPU).  Not a
# wgx sender: its tx queues take counters from one sequence and send in
# parallel, so its counters do arrive out of order (docs/telemetry.md).
# The bed check: both CPUs decrypted.
test_rx_spread_counts_arrival_order() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	local total=30000 r0 r1 lost0 lost1
	tunnel_setup wireguard 4 0
	# One outer flow: wireguard.ko sends to our last source port, so a replies from one.
	listen_ports a 1
	nic_like a va
	nic_like b vb
	n a "$WGX_TOOL" set wgt0 rx-spread on
	ping_ok b 10.0.0.1
	r0=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.rx_reordered')
	lost0=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.rx_lost')
	decrypt_cpus_start
	udp_seq_recv $total 90
	n b python3 "$WGX_REPO/tests/lib/udp_seq.py" send 10.0.0.1 9000 8 $total 0 600
	udp_seq_result $total 2
	decrypt_cpus_read
	r1=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.rx_reordered')
	lost1=$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.rx_lost')
	echo "decryptions per CPU: $CPUS_LIST (total $CPUS_TOTAL); a counted $((r1 - r0)) reordered, $((lost1 - lost0)) lost"
	[ "$CPUS_TOTAL" -ge $((total / 2)) ] || fail "only $CPUS_TOTAL data decryptions counted (bed)"
	[ "$CPUS_MAX" -lt "$CPUS_TOTAL" ] || fail "one CPU decrypted all $CPUS_TOTAL: nothing was spread (bed)"
	expect_eq "reordered datagrams at the receiving socket" 0 "$REORDERED"
	[ $((r1 - r0)) -le 10 ] ||
		fail "a counted $((r1 - r0)) of b's messages reordered, which arrived in order (decrypted on CPUs $CPUS_LIST)"
}

# A peer's ordered queue made while its traffic flows takes over in order:
# the messages delivered through the GRO cells before it existed are not
# overtaken by the first ones its NAPI delivers, nor does any later switch
# between spread and not reorder.  8 UDP flows from b (one outer flow on a
# NIC-like bed) arrive at a, which makes the peer's queue at the first
# rx-spread on (a peer keeps it until it goes) and then switches again and
# again (off, then on; off, then auto, which spreads when the load asks).
# The receiver counts every datagram that came after a later one of its
# flow.
test_spread_start_keeps_order() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	local send_pid toggles=0 total=240000
	tunnel_setup wgx 4 0
	# One outer flow: b sends from one port, to one port of a's (b follows a's source port).
	listen_ports a 1
	listen_ports b 1
	nic_like a va
	nic_like b vb
	ping_ok b 10.0.0.1
	udp_seq_recv $total 120
	udp_seq_send $total &
	send_pid=$!
	while sender_runs "$send_pid" "$toggles switches"; do
		n a "$WGX_TOOL" set wgt0 rx-spread off
		sleep 0.2
		if [ $((toggles % 2)) = 0 ]; then
			n a "$WGX_TOOL" set wgt0 rx-spread on
		else
			n a "$WGX_TOOL" set wgt0 rx-spread auto
		fi
		toggles=$((toggles + 1))
		sleep 0.5
	done
	wait "$send_pid" || fail "the sender failed"
	udp_seq_result $total 2
	echo "spreading switched $toggles times while the flows ran"
	[ "$toggles" -ge 4 ] || fail "only $toggles switches under traffic"
	expect_eq "reordered datagrams" 0 "$REORDERED"
}

# Messages a decrypt worker still holds when spreading is switched off are
# not overtaken by the ones that arrive after the switch.  The debug
# module's rx_worker_delay_ms starts every worker run 20 ms late, so each
# switch finds messages pending; 8 UDP flows of 600-byte datagrams (longer
# than a small message, so the workers take them) from b to a, whose
# rx-spread goes on and off again and again.
test_spread_stop_keeps_order() {
	[ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
	local send_pid toggles=0 total=80000 hook=/sys/module/wgx/parameters/rx_worker_delay_ms
	tunnel_setup wgx 4 0
	# One outer flow: b sends from one port, to one port of a's (b follows a's source port).
	listen_ports a 1
	listen_ports b 1
	nic_like a va
	nic_like b vb
	ping_ok b 10.0.0.1
	echo 20 >"$hook"
	udp_seq_recv $total 120
	n b python3 "$WGX_REPO/tests/lib/udp_seq.py" send 10.0.0.1 9000 8 $total 0 600 &
	send_pid=$!
	while sender_runs "$send_pid" "$toggles switches"; do
		n a "$WGX_TOOL" set wgt0 rx-spread on
		sleep 0.3
		n a "$WGX_TOOL" set wgt0 rx-spread off
		toggles=$((toggles + 1))
		sleep 0.2
	done
	echo 0 >"$hook"
	wait "$send_pid" || fail "the sender failed"
	udp_seq_result $total 2
	echo "spreading switched off $toggles times while the flows ran"
	[ "$toggles" -ge 4 ] || fail "only $toggles switches under traffic"
	expect_eq "reordered datagrams" 0 "$REORDERED"
}

# Switching rx-spread on and off while traffic flows loses nothing but the
# packets in flight, and the tunnel keeps working.
test_rx_spread_toggled_under_load() {
	local i load_pid rc=0 bytes err
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	n b iperf3 -s -D >/dev/null
	sleep 0.3
	# b sends, a receives (and toggles): 8 s of 4 TCP flows.
	iperf_client a 10.0.0.2 8 -P 4 -R -J >/tmp/toggle.json 2>/tmp/toggle.err &
	load_pid=$!
	for i in 1 2 3 4; do
		sleep 1
		n a "$WGX_TOOL" set wgt0 rx-spread on
		sleep 0.5
		n a "$WGX_TOOL" set wgt0 rx-spread off
	done
	n a "$WGX_TOOL" set wgt0 rx-spread on
	wait "$load_pid" || rc=$?
	# iperf3 -J exits 0 even when it fails: its JSON's "error" tells.
	err=$(jq -r '.error // empty' /tmp/toggle.json 2>/dev/null) || err="no JSON: $(head -c 200 /tmp/toggle.json)"
	bytes=$(jq '.end.sum_received.bytes // 0' /tmp/toggle.json 2>/dev/null) || bytes=0
	echo "iperf3 b -> a across the toggles: exit status $rc, ${bytes:-0} bytes received${err:+, error: $err}"
	[ "$rc" = 0 ] && [ -z "$err" ] || fail "iperf3 failed ($rc): $err $(cat /tmp/toggle.err)"
	# A 4-flow run of 8 s moves tens of MB here; 1 MB is far below it.
	[ "${bytes:-0}" -gt 1000000 ] || fail "a received ${bytes:-0} bytes under the toggles"
	ping_ok a 10.0.0.2
	# A peer added and removed while it is on.
	key_pair KC
	n a "$WGX_TOOL" set wgt0 peer "$KC_pub" allowed-ips 10.9.9.9/32
	n a "$WGX_TOOL" set wgt0 peer "$KC_pub" remove
	ping_ok a 10.0.0.2
}

# Bytes a has received from its peer (0 without one).
peer_rx_bytes() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].rx_bytes // 0'
}

# Wait up to 15 s until a's peer has received $1 bytes more than $2.
peer_rx_grows() {
	local i
	for i in $(seq 150); do
		[ "$(peer_rx_bytes a)" -gt $(($2 + $1)) ] && return 0
		sleep 0.1
	done
	return 1
}

# A spread peer removed, and then the device deleted, while 16 TCP flows
# from that peer are decrypted on every CPU (rx-spread on at a): the peer's
# ordered queue and the workers' rings let go of every message in flight
# (no crash; on the debug kernel no KASAN, kmemleak or lockdep report).
# The peer added back is spread at once and receives the load again.
test_spread_peer_removed_and_device_deleted_under_load() {
	local rx0 load_pid
	tunnel_setup wgx 4 0
	n a "$WGX_TOOL" set wgt0 rx-spread on
	ping_ok b 10.0.0.1
	n a iperf3 -s -D >/dev/null
	sleep 0.3
	rx0=$(peer_rx_bytes a)
	iperf_client b 10.0.0.1 60 -P 16 >/dev/null 2>&1 &
	load_pid=$!
	peer_rx_grows 2000000 "$rx0" || fail "the load did not reach a: $(peer_rx_bytes a) bytes"
	echo "a received $(($(peer_rx_bytes a) - rx0)) bytes of the load before the peer's removal"
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" remove
	expect_eq "a's peers after the removal" 0 \
		"$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers | length')"
	n a "$WGX_TOOL" set wgt0 peer "$KB_pub" endpoint "192.0.2.2:$TUN_PORT_B" \
		allowed-ips 10.0.0.2/32,fd00::2/128
	# a's initiation gives b a session a knows; TCP's retransmissions follow.
	ping_ok a 10.0.0.2
	peer_rx_grows 200000 0 || fail "the load did not come back after the peer did: $(peer_rx_bytes a) bytes"
	echo "a received $(peer_rx_bytes a) bytes of the load from the peer added back"
	kill -0 "$load_pid" || fail "the load ended before the device's deletion"
	n a ip link del wgt0
	kill "$load_pid" 2>/dev/null || true
	wait "$load_pid" || true
	# The module still makes and runs devices.
	n a ip link add wgt0 type wgx
	n a "$WGX_TOOL" set wgt0 rx-spread on peer "$KB_pub" allowed-ips 10.0.0.2/32
	n a ip link del wgt0
}

# A CPU taken offline and brought back again and again while a spread peer
# receives 8 ordered UDP flows (rx-spread on at a): messages are handed only
# to online CPUs' workers, and what waited in the ring of a CPU going
# offline is still decrypted (its work runs on another CPU), so no message
# stays at the head of the peer's ordered queue: the flows keep arriving,
# and both ways work after it, also with the CPU offline.
test_spread_survives_cpu_offline() {
	local cpu=/sys/devices/system/cpu/cpu1/online send_pid
	local flips=0 total=60000
	trap 'echo 1 >'"$cpu"' 2>/dev/null || true' EXIT
	[ "$(nproc)" -eq 2 ] || fail "needs exactly 2 CPUs, has $(nproc)"
	[ -w "$cpu" ] || fail "$cpu cannot be written"
	tunnel_setup wgx 4 0
	n a "$WGX_TOOL" set wgt0 rx-spread on
	ping_ok b 10.0.0.1
	udp_seq_recv $total 120
	udp_seq_send $total &
	send_pid=$!
	sleep 0.3
	while sender_runs "$send_pid" "$flips offline cycles"; do
		echo 0 >"$cpu"
		expect_eq "CPUs online" 1 "$(nproc)"
		sleep 0.3
		echo 1 >"$cpu"
		flips=$((flips + 1))
		sleep 0.3
	done
	wait "$send_pid" || fail "the sender failed"
	udp_seq_result $total 10
	echo "CPU 1 taken offline $flips times while the flows ran"
	[ "$flips" -ge 2 ] || fail "only $flips CPU offline cycles under traffic"
	# Printed, not asserted: a CPU going offline hands its receive backlog
	# to another CPU's tail (dev_cpu_dead), behind datagrams that arrived
	# there later, so the outer flow is out of order before wgx sees it.
	echo "reordered datagrams (the backlog handed over included): $REORDERED"
	# A message stuck at the head would hold back everything after it.
	ping_ok b 10.0.0.1
	ping_ok a 10.0.0.2
	echo 0 >"$cpu"
	ping_ok b 10.0.0.1
	echo 1 >"$cpu"
}

# A run of ports moved by less than its length keeps the ports it shares
# (they could not be bound twice) and still passes traffic.
test_run_moves_over_itself() {
	tunnel_setup wgx 4 0
	listen_ports a 4
	ping_ok a 10.0.0.2
	n a "$WGX_TOOL" set wgt0 listen-port 51822 listen-ports 4
	expect_eq "ports after moving the run up by 2" "51822 51823 51824 51825" "$(udp_ports a)"
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" endpoint 192.0.2.1:51825
	ping_ok b 10.0.0.1
	n a "$WGX_TOOL" set wgt0 listen-port 51820 listen-ports 3
	expect_eq "ports after moving it back down" "51820 51821 51822" "$(udp_ports a)"
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" endpoint 192.0.2.1:51821
	ping_ok b 10.0.0.1
}

# Closing the port a peer sends to must not strand it: the device sends each
# peer with a session a keepalive from its (new) first port, and a keepalive
# moves the receiver's endpoint to its source port at once, though the
# receiver remembers the closed port as live.  Nothing is configured on b.
test_peer_follows_closed_ports() {
	tunnel_setup wgx 4 0
	listen_ports a 4
	local i ep
	# Eight ICMP flows (a ping each, its own id): b ends up replying to the
	# port the last of them hashed to, in three cases out of four not 51820.
	for i in $(seq 8); do
		n a ping -c 1 -W 3 10.0.0.2 >/dev/null
	done
	echo "b's endpoint for a with 4 ports: $(wgx_peer_field b 3)"
	listen_ports a 1
	ping_ok b 10.0.0.1
	ep=$(wgx_peer_field b 3)
	expect_eq "b's endpoint for a after shrinking to 1 port" 192.0.2.1:51820 "$ep"
	# A new first port: every port b knew is closed.
	n a "$WGX_TOOL" set wgt0 listen-port 51830
	ping_ok b 10.0.0.1
	expect_eq "b's endpoint for a after moving the port" 192.0.2.1:51830 "$(wgx_peer_field b 3)"
}
