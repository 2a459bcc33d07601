# tests/integration/lib.sh — helpers for the integration suites, sourced by
# tests/integration/run inside the VM (scripts/vm).  Each suite file defines
# functions named test_<name>; the runner calls each in a subshell with
# `set -e`, prints "<suite>/<name>: ok|FAIL", and closes with one
# "N passed, N failed" line.

WGX_REPO=${WGX_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
WGX_TOOL=${WGX_TOOL:-$WGX_REPO/build/tools/wgx}
# The wgx.ko the suites (re)load: the 6.1 build, or another kernel's
# (scripts/kernel612 sets it to its 6.12 build).
WGX_MODULE_KO=${WGX_MODULE_KO:-$WGX_REPO/kmod/wgx.ko}

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

# capture_start NS FILE TCPDUMP-ARG... — run `tcpdump -l TCPDUMP-ARG...' in
# NS, its output to FILE, and return once it is listening (at most 20 s):
# a capture window that starts and ends with the traffic, not a fixed
# timeout that a slow guest outruns.  Its pid is in CAPTURE_PID;
# capture_stop ends it.
capture_start() {
	local ns=$1 file=$2 i
	shift 2
	# Not through n(): `func &' forks a shell whose pid $! would be, and
	# a signal to that shell never reaches tcpdump.  ip netns exec execs.
	ip netns exec "$ns" tcpdump -l "$@" >"$file" 2>"$file.err" &
	CAPTURE_PID=$!
	for ((i = 0; i < 200; i++)); do
		grep -q "listening on" "$file.err" 2>/dev/null && return 0
		kill -0 "$CAPTURE_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "tcpdump $* did not start: $(cat "$file.err")"
}

# capture_stop — end the capture capture_start began, after 0.5 s for the
# packets still on their way; FILE is complete when it returns (SIGINT, so
# tcpdump flushes; SIGKILL after 5 s, so a case can never hang here).
capture_stop() {
	local i
	sleep 0.5
	kill -INT "$CAPTURE_PID" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$CAPTURE_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$CAPTURE_PID" 2>/dev/null || true
	wait "$CAPTURE_PID" 2>/dev/null || true
}

# netns_pair A B — two namespaces joined by a veth pair vA (in A) <-> vB (in B)
# with 192.0.2.1/24, 2001:db8::1/64 in A and .2/::2 in B (documentation ranges).
# The topology of the integration suites and of the benchmark; a few `ip`
# runs only (under TCG each costs a good fraction of a second).
netns_pair() {
	local a=$1 b=$2
	ip netns add "$a" && ip netns add "$b" &&
		ip link add "v$a" netns "$a" type veth peer "v$b" netns "$b" &&
		printf '%s\n' "link set lo up" "addr add 192.0.2.1/24 dev v$a" \
			"addr add 2001:db8::1/64 dev v$a nodad" "link set v$a up" | ip -n "$a" -batch - &&
		printf '%s\n' "link set lo up" "addr add 192.0.2.2/24 dev v$b" \
			"addr add 2001:db8::2/64 dev v$b nodad" "link set v$b up" | ip -n "$b" -batch -
}

# netns_routed A R B — namespaces A and B joined through R, which forwards
# between them (a gateway's hop): vA (in A: 192.0.2.1/24, 2001:db8::1/64) <->
# rA (in R: .254, ::fe); rB (in R: 198.51.100.254/24, 2001:db8:1::fe/64) <->
# vB (in B: 198.51.100.2/24, 2001:db8:1::2/64); A and B route everything
# through R.  No RPS anywhere: R and B receive on the CPU that sent.
netns_routed() {
	local a=$1 r=$2 b=$3
	ip netns add "$a" && ip netns add "$r" && ip netns add "$b" &&
		ip link add "v$a" netns "$a" type veth peer "r$a" netns "$r" &&
		ip link add "v$b" netns "$b" type veth peer "r$b" netns "$r" &&
		printf '%s\n' "link set lo up" "addr add 192.0.2.1/24 dev v$a" \
			"addr add 2001:db8::1/64 dev v$a nodad" "link set v$a up" \
			"route add default via 192.0.2.254" "route add default via 2001:db8::fe" |
		ip -n "$a" -batch - &&
		printf '%s\n' "link set lo up" "addr add 192.0.2.254/24 dev r$a" \
			"addr add 2001:db8::fe/64 dev r$a nodad" "link set r$a up" \
			"addr add 198.51.100.254/24 dev r$b" "addr add 2001:db8:1::fe/64 dev r$b nodad" \
			"link set r$b up" | ip -n "$r" -batch - &&
		printf '%s\n' "link set lo up" "addr add 198.51.100.2/24 dev v$b" \
			"addr add 2001:db8:1::2/64 dev v$b nodad" "link set v$b up" \
			"route add default via 198.51.100.254" "route add default via 2001:db8:1::fe" |
		ip -n "$b" -batch - &&
		ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
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
	module_loaded || insmod "$WGX_MODULE_KO"
}

# ---- tunnels between two namespaces ----
# Namespace "a" always runs wgx; namespace "b" runs the peer of kind
# wgx | wireguard (in-tree wireguard.ko, configured with wg) | wireguard-go.
# Inner addresses: 10.0.0.1/24 + fd00::1/64 in a, .2 / ::2 in b.  The tunnel
# interface is called wgt0 on both sides.

TUN_PORT_A=51820
TUN_PORT_B=51821

# key_pair VAR — store a fresh private key in $VAR and its public key in ${VAR}_pub.
key_pair() {
	local priv
	priv=$(wg genkey)
	printf -v "$1" '%s' "$priv"
	printf -v "${1}_pub" '%s' "$(printf '%s' "$priv" | wg pubkey)"
}

# conf_tool KIND — the configuration tool for a tunnel of KIND.
conf_tool() {
	if [ "$1" = wgx ]; then echo "$WGX_TOOL"; else echo wg; fi
}

# tunnel_dev NS KIND — create interface wgt0 of KIND in NS (not yet up);
# a wgx one with the `ip link add` arguments in TUN_LINK_ARGS (e.g.
# "numtxqueues 1").
tunnel_dev() {
	local ns=$1 kind=$2 i
	case "$kind" in
	wgx) n "$ns" ip link add wgt0 ${TUN_LINK_ARGS:-} type wgx ;;
	wireguard)
		modprobe wireguard
		n "$ns" ip link add wgt0 type wireguard
		;;
	wireguard-go)
		# No udev in the VM: loading tun creates /dev/net/tun in devtmpfs.
		modprobe tun
		mkdir -p /var/run/wireguard
		n "$ns" env WG_PROCESS_FOREGROUND=1 LOG_LEVEL=error wireguard-go wgt0 >"/tmp/wireguard-go-$ns.log" 2>&1 &
		for i in $(seq 200); do
			n "$ns" ip link show wgt0 >/dev/null 2>&1 && [ -S /var/run/wireguard/wgt0.sock ] && break
			sleep 0.1
		done
		if ! n "$ns" ip link show wgt0 >/dev/null 2>&1; then
			cat "/tmp/wireguard-go-$ns.log" >&2
			fail "wireguard-go did not create wgt0"
		fi
		;;
	*) fail "unknown tunnel kind $kind" ;;
	esac
}

# tunnel_setup KIND_B [OUTER=4|6] [PSK=0|1] [KEEPALIVE=seconds|off] — namespaces
# a and b over veth, wgx in a, KIND_B in b, each the other's only peer.  With
# TUN_ROUTED=1 a and b are joined through the forwarding namespace r instead
# (netns_routed).
tunnel_setup() {
	local kind_b=$1 outer=${2:-4} psk=${3:-0} keepalive=${4:-off}
	local ep_a ep_b psk_args=() b4=192.0.2.2 b6=2001:db8::2
	if [ "${TUN_ROUTED:-0}" = 1 ]; then
		netns_routed a r b
		b4=198.51.100.2 b6=2001:db8:1::2
	else
		netns_pair a b
	fi
	key_pair KA
	key_pair KB
	if [ "$outer" = 6 ]; then
		ep_a="[2001:db8::1]:$TUN_PORT_A"
		ep_b="[$b6]:$TUN_PORT_B"
	else
		ep_a="192.0.2.1:$TUN_PORT_A"
		ep_b="$b4:$TUN_PORT_B"
	fi
	umask 077
	printf '%s\n' "$KA" >/tmp/ka.key
	printf '%s\n' "$KB" >/tmp/kb.key
	if [ "$psk" = 1 ]; then
		wg genpsk >/tmp/psk.key
		psk_args=(preshared-key /tmp/psk.key)
	fi
	tunnel_dev a wgx
	tunnel_dev b "$kind_b"
	n a "$WGX_TOOL" set wgt0 private-key /tmp/ka.key listen-port $TUN_PORT_A \
		peer "$KB_pub" "${psk_args[@]}" endpoint "$ep_b" persistent-keepalive "$keepalive" \
		allowed-ips 10.0.0.2/32,fd00::2/128
	n b "$(conf_tool "$kind_b")" set wgt0 private-key /tmp/kb.key listen-port $TUN_PORT_B \
		peer "$KA_pub" "${psk_args[@]}" endpoint "$ep_a" \
		allowed-ips 10.0.0.1/32,fd00::1/128
	n a ip addr add 10.0.0.1/24 dev wgt0
	n b ip addr add 10.0.0.2/24 dev wgt0
	n a ip addr add fd00::1/64 dev wgt0 nodad
	n b ip addr add fd00::2/64 dev wgt0 nodad
	n a ip link set wgt0 up
	n b ip link set wgt0 up
}

# udp_ports NS — the UDP ports bound in NS, sorted, one line ("51820 51821 ...").
udp_ports() {
	n "$1" ss -Hunl | awk '{n = split($4, a, ":"); print a[n]}' | sort -nu | tr '\n' ' ' | sed 's/ $//'
}

# ping_ok NS ADDR — a few pings get through (the first may wait for the handshake).
ping_ok() {
	n "$1" ping -c 3 -i 0.2 -W 3 "$2" >/dev/null || n "$1" ping -c 2 -W 3 "$2"
}

# iperf_client NS ADDR SECONDS [IPERF3-ARG...] — `iperf3 -c ADDR -t SECONDS
# IPERF3-ARG...` in NS, bounded: its control connection must open within
# 10 s, and a client still running 60 s after its SECONDS is stopped (TERM,
# KILL 5 s later), so that a slow guest or a broken path fails the case
# instead of hanging it.  Its output comes when it ends.  A client stopped
# so prints nothing on stdout (its partial results must not count), says
# so on stderr and returns 1, as a failed client does.
iperf_client() {
	local ns=$1 addr=$2 secs=$3 out rc=0
	shift 3
	# --foreground: iperf3 stays in the case's process group, which the
	# runner's own timeout signals.
	out=$(n "$ns" timeout --foreground --kill-after=5 $((secs + 60)) \
		iperf3 -c "$addr" -t "$secs" --connect-timeout 10000 "$@") || rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "iperf3 -c $addr -t $secs $* in $ns: still running after $((secs + 60)) s, stopped" >&2
		return 1
	fi
	[ -z "$out" ] || printf '%s\n' "$out"
	return $rc
}

# iperf_ok CLIENT_NS SERVER_ADDR FLOWS [-R] — a short TCP iperf3 run moves data.
iperf_ok() {
	local ns=$1 addr=$2 flows=$3 rev=${4:-} srv bytes
	srv=$([ "$ns" = a ] && echo b || echo a)
	n "$srv" iperf3 -s -1 -D -I "/tmp/iperf3-$srv.pid" >/dev/null
	sleep 0.3
	bytes=$(iperf_client "$ns" "$addr" 2 -P "$flows" $rev -J | jq '.end.sum_received.bytes')
	echo "iperf3 $ns -> $addr -P $flows $rev: $bytes bytes received"
	[ "${bytes:-0}" -gt 100000 ]
}

# tcp_counters NS — set TCPC (an associative array the caller declares) to
# NS's TCP counters: RetransSegs (/proc/net/snmp) and every TcpExt field
# (/proc/net/netstat), e.g. TCPSACKReorder, TCPDSACKRecv, TCPOFOQueue.
tcp_counters() {
	local -a names values
	local i
	TCPC=()
	while read -r -a names && read -r -a values; do
		case ${names[0]} in
		Tcp: | TcpExt:) ;;
		*) continue ;;
		esac
		for ((i = 1; i < ${#names[@]}; i++)); do
			TCPC[${names[i]}]=${values[i]}
		done
	done < <(n "$1" cat /proc/net/snmp /proc/net/netstat)
}

# tcp_order_ok CLIENT_NS SERVER_ADDR [-R] — one TCP flow for 4 s must move
# data and arrive in order: the sender detects no reordering (TCPSACKReorder,
# TCPTSReorder).  Printed, not failed: DSACKs (a tail loss probe at the end
# of the flow earns one without any reordering), retransmissions and the
# receiver's out-of-order queue (loss fills them too).
tcp_order_ok() {
	local ns=$1 addr=$2 rev=${3:-} srv snd rcv bytes
	local -A TCPC s0 r0
	srv=$([ "$ns" = a ] && echo b || echo a)
	snd=$ns rcv=$srv
	[ -n "$rev" ] && snd=$srv rcv=$ns
	n "$srv" iperf3 -s -1 -D -I "/tmp/iperf3-$srv.pid" >/dev/null
	sleep 0.3
	tcp_counters "$snd"
	for k in "${!TCPC[@]}"; do s0[$k]=${TCPC[$k]}; done
	tcp_counters "$rcv"
	for k in "${!TCPC[@]}"; do r0[$k]=${TCPC[$k]}; done
	bytes=$(iperf_client "$ns" "$addr" 4 $rev -J | jq '.end.sum_received.bytes')
	local reorder dsack retrans ofo
	tcp_counters "$snd"
	reorder=$((TCPC[TCPSACKReorder] - s0[TCPSACKReorder] + TCPC[TCPTSReorder] - s0[TCPTSReorder]))
	dsack=$((TCPC[TCPDSACKRecv] - s0[TCPDSACKRecv]))
	retrans=$((TCPC[RetransSegs] - s0[RetransSegs]))
	tcp_counters "$rcv"
	ofo=$((TCPC[TCPOFOQueue] - r0[TCPOFOQueue]))
	echo "TCP $snd -> $rcv: ${bytes:-0} bytes; sender: reordering $reorder, DSACKs $dsack," \
		"retransmissions $retrans; receiver: out-of-order queued $ofo"
	[ "${bytes:-0}" -gt 1000000 ] || fail "the flow moved ${bytes:-0} bytes"
	[ "$reorder" = 0 ] || fail "the flow was reordered"
}

# wgx_peer_field NS FIELD — one column of `wgx show wgt0 dump` for the only peer
# (fields as wg: 1 public-key 2 psk 3 endpoint 4 allowed-ips 5 latest-handshake
# 6 rx 7 tx 8 keepalive).
wgx_peer_field() {
	n "$1" "$WGX_TOOL" show wgt0 dump | sed -n 2p | cut -f "$2"
}

# ---- a veth that receives like a NIC (RSS on the outer headers) ----
# On a veth the receive softirq runs on the sending CPU and the skb keeps the
# hash the sender computed from the *inner* flow (it survives tunnel
# encapsulation), so RPS on a veth spreads a tunnel peer's packets by inner
# flow, which no NIC can do.  nic_like NS DEV makes DEV (in NS) behave like a
# NIC port in both directions: what DEV sends loses its skb hash (tc egress
# program build/bpf/hash_invalid.bpf.o, `make bpf`), so the far end hashes
# the outer IP/UDP headers; what DEV receives is steered by RPS over every
# CPU.  Apply it to both ends of the veth.
WGX_BPF_HASH_INVALID=${WGX_BPF_HASH_INVALID:-$WGX_REPO/build/bpf/hash_invalid.bpf.o}
nic_like() {
	local ns=$1 dev=$2 mask
	[ -r "$WGX_BPF_HASH_INVALID" ] || fail "$WGX_BPF_HASH_INVALID missing (make bpf)" || return
	mask=$(printf '%x' $(((1 << $(nproc)) - 1)))
	n "$ns" tc qdisc add dev "$dev" clsact &&
		n "$ns" tc filter add dev "$dev" egress bpf direct-action obj "$WGX_BPF_HASH_INVALID" sec tc &&
		n "$ns" sh -c "echo $mask > /sys/class/net/$dev/queues/rx-0/rps_cpus"
}

# netstamp_hold — keep the kernel's receive timestamps on for the life of
# the guest: a background process holds a socket with SO_TIMESTAMP.  Every
# ping (iputils asks for SO_TIMESTAMP) otherwise switches the static key
# netstamp_needed_key on at its start and off after its end, and each switch
# patches the receive path's code (netif_receive_skb_list_internal) while
# traffic runs through it; under TCG that live patching has hung both vCPUs
# in that function (an int3 on one, the other spinning), in the loaded
# latency workloads of the bench.  Held, the key is switched once, here.
netstamp_hold() {
	python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_TIMESTAMP, 1)
while True: time.sleep(3600)' </dev/null >/dev/null 2>&1 &
	disown $! 2>/dev/null || true
}

# ---- which CPU does the work: per-CPU histograms from tracefs ----
# decrypt_cpus_*: a kprobe on chacha20poly1305_decrypt_sg_inplace (the kernel
# library call of both wgx.ko's and wireguard.ko's transport path) counting
# ciphertexts longer than 256 bytes per CPU: data segments, not ACKs or
# keepalives.  Both ends of a tunnel share the guest, so the histogram is
# keyed by the key argument too (one receiving keypair per direction) and
# decrypt_cpus_read reports the keypair that decrypted most: the measured
# direction.  The few large packets of the other direction (iperf3's results
# exchange on its control connection) land on any CPU and would otherwise
# count as spread; CPUS_OTHER says how many there were.  rx_cpus_*: the net:netif_receive_skb tracepoint for packets
# over 256 bytes arriving on the veths va/vb: on which CPU the stack
# received them (after RPS).  *_start arms or clears the histogram; *_read
# sets CPUS_TOTAL, CPUS_MAX (the busiest CPU's count) and CPUS_LIST
# ("cpu:count ..."), without forking.
WGX_TRACEFS=/sys/kernel/tracing
tracefs_mount() {
	[ -d "$WGX_TRACEFS/events" ] || mount -t tracefs nodev "$WGX_TRACEFS" || fail "cannot mount tracefs"
}
# cpu_hist_arm TRIGGER_FILE FILTER — add the per-CPU histogram, or clear it.
cpu_hist_arm() {
	if grep -q '^hist:' "$1" 2>/dev/null; then
		echo "hist:keys=common_cpu:vals=hitcount:clear if $2" >>"$1"
	else
		echo "hist:keys=common_cpu:vals=hitcount if $2" >"$1" || fail "cannot add a histogram to $1"
	fi
}
cpu_hist_read() {
	local line cpu count
	CPUS_TOTAL=0 CPUS_MAX=0 CPUS_LIST=
	while read -r line; do
		[[ $line =~ common_cpu:\ *([0-9]+)\ *\}\ *hitcount:\ *([0-9]+) ]] || continue
		cpu=${BASH_REMATCH[1]} count=${BASH_REMATCH[2]}
		CPUS_TOTAL=$((CPUS_TOTAL + count))
		((count > CPUS_MAX)) && CPUS_MAX=$count
		CPUS_LIST+="$cpu:$count "
	done <"$1"
	CPUS_LIST=${CPUS_LIST% }
}
decrypt_cpus_start() {
	local trigger=$WGX_TRACEFS/events/kprobes/wgx_decrypt/trigger
	tracefs_mount || return
	# x86-64: src_len is the 2nd argument (%si), key the 6th (%r9).
	if [ ! -d "$WGX_TRACEFS/events/kprobes/wgx_decrypt" ]; then
		echo 'p:wgx_decrypt chacha20poly1305_decrypt_sg_inplace len=%si:u64 k=%r9:u64' \
			>>"$WGX_TRACEFS/kprobe_events" || fail "cannot add the decrypt kprobe" || return
	fi
	if grep -q '^hist:' "$trigger" 2>/dev/null; then
		echo 'hist:keys=k,common_cpu:vals=hitcount:clear if len > 256' >>"$trigger"
	else
		echo 'hist:keys=k,common_cpu:vals=hitcount if len > 256' >"$trigger" ||
			fail "cannot add a histogram to $trigger"
	fi
}
decrypt_cpus_read() {
	local line k cpu count best= best_total=0 all=0
	local -A per_key=() lists=() maxes=()
	while read -r line; do
		[[ $line =~ k:\ *([0-9]+).*common_cpu:\ *([0-9]+)\ *\}\ *hitcount:\ *([0-9]+) ]] || continue
		k=${BASH_REMATCH[1]} cpu=${BASH_REMATCH[2]} count=${BASH_REMATCH[3]}
		per_key[$k]=$((${per_key[$k]:-0} + count))
		lists[$k]+="$cpu:$count "
		((count > ${maxes[$k]:-0})) && maxes[$k]=$count
		all=$((all + count))
	done <"$WGX_TRACEFS/events/kprobes/wgx_decrypt/hist"
	for k in "${!per_key[@]}"; do
		((per_key[$k] > best_total)) && best=$k best_total=${per_key[$k]}
	done
	CPUS_TOTAL=$best_total CPUS_MAX=${maxes[$best]:-0} CPUS_OTHER=$((all - best_total))
	CPUS_LIST=${lists[$best]:-}
	CPUS_LIST=${CPUS_LIST% }
}
rx_cpus_start() {
	tracefs_mount || return
	cpu_hist_arm "$WGX_TRACEFS/events/net/netif_receive_skb/trigger" \
		'len > 256 && (name == "va" || name == "vb")'
}
rx_cpus_read() {
	cpu_hist_read "$WGX_TRACEFS/events/net/netif_receive_skb/hist"
}
