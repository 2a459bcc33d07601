# bench/lib.sh — helpers of the benchmark's guest side (bench/run-guest.sh),
# sourced after tests/integration/lib.sh (n, netns_pair, netns_cleanup, ...).
#
# Topology (one VM boot): namespaces a and b joined by veth va <-> vb
# (192.0.2.1 / .2; BED=routed: through a third namespace r that forwards,
# va <-> ra, rb <-> vb, a 192.0.2.1/24 via r's .254, b 198.51.100.2/24 via
# r's 198.51.100.254: tests/integration/lib.sh netns_routed).  b's outer
# address is $OUTER_B (params.sh).  Over it, the tunnels exist side by side
# so the paths can be interleaved without reconfiguring:
#   path       device  inner a / b     first port a / b  wgx options, both ends
#   bare       va/vb   192.0.2.1 / .2  -                 -
#   wireguard  wgk0    10.1.0.1 / .2   51830 / 51831     - (wireguard.ko, wg)
#   wgx        wgx0    10.2.0.1 / .2   51840 / 51841     none: the default configuration
#   wgx_p2     wgxp2   10.3.0.1 / .2   51850 / 51850     listen-ports 2
#   wgx_p4     wgxp4   10.4.0.1 / .2   51860 / 51860     listen-ports 4
#   wgx_p8     wgxp8   10.5.0.1 / .2   51870 / 51870     listen-ports 8
#   wgx_rs     wgxrs   10.6.0.1 / .2   51880 / 51880     listen-ports 1, rx-spread on
#   wgx_r0     wgxrs0  10.9.0.1 / .2   51900 / 51900     listen-ports 1, rx-spread off
#   wgx_wg     wgm0    10.10.0.1 / .2  51910 / 51911     a: wgx, none; b: wireguard.ko
#   wg_wgx     wgm1    10.11.0.1 / .2  51920 / 51921     a: wireguard.ko; b: wgx, none
# wgx devices are configured with $WGX_TOOL, wireguard.ko's with wg.
# (10.7, 10.8 and ports 51890-51893 are the rotation workload's own
# tunnels, run-guest.sh rot_kind.)  wgx_wg and wg_wgx are the mixed pairs:
# one end of each is wgx.ko in its default configuration, the other
# wireguard.ko, so the link kind and the tool depend on the namespace
# (path_kind, path_tool).  bare's b address is $OUTER_B
# (198.51.100.2 on the routed bed).  All tunnels use MTU $TUNNEL_MTU (1420),
# IPv4 inside and outside, no preshared key.  With BED=nic both ends of the
# veth receive like a NIC, with BED=routed all four veth ends
# (tests/integration/lib.sh: nic_like).

# Helpers used per measurement store their result in a variable named by the
# first argument (printf -v) instead of printing it: under TCG every $(...)
# fork costs around 0.1 s, a dozen per measurement add up to minutes.

# path_dev PATH — the tunnel interface of PATH (same name in a and b).
path_dev() {
	case $1 in
	wireguard) echo wgk0 ;;
	wgx) echo wgx0 ;;
	wgx_p*) echo "wgxp${1#wgx_p}" ;;
	wgx_rs) echo wgxrs ;;
	wgx_r0) echo wgxrs0 ;;
	wgx_wg) echo wgm0 ;;
	wg_wgx) echo wgm1 ;;
	esac
}

# path_opts PATH — the wgx options of a tunnel path's devices beyond key,
# port and peer, one a line; none for wgx (the default configuration), the
# mixed pairs (their wgx end too) and wireguard.  wgx_rs and wgx_r0 are
# one-port paths whatever the default number of listen ports is.
path_opts() {
	case $1 in
	wgx_p*) printf '%s\n' listen-ports "${1#wgx_p}" ;;
	wgx_rs) printf '%s\n' listen-ports 1 rx-spread on ;;
	wgx_r0) printf '%s\n' listen-ports 1 rx-spread off ;;
	esac
}

# path_vars PATH — set PV_ADDR_A, PV_ADDR_B (PATH's addresses in a and b) and
# PV_DEV_A, PV_DEV_B (its interfaces there).
path_vars() {
	case $1 in
	bare) PV_ADDR_A=192.0.2.1 PV_ADDR_B=$OUTER_B PV_DEV_A=va PV_DEV_B=vb ;;
	wireguard) PV_ADDR_A=10.1.0.1 PV_ADDR_B=10.1.0.2 PV_DEV_A=wgk0 PV_DEV_B=wgk0 ;;
	wgx) PV_ADDR_A=10.2.0.1 PV_ADDR_B=10.2.0.2 PV_DEV_A=wgx0 PV_DEV_B=wgx0 ;;
	wgx_p2) PV_ADDR_A=10.3.0.1 PV_ADDR_B=10.3.0.2 PV_DEV_A=wgxp2 PV_DEV_B=wgxp2 ;;
	wgx_p4) PV_ADDR_A=10.4.0.1 PV_ADDR_B=10.4.0.2 PV_DEV_A=wgxp4 PV_DEV_B=wgxp4 ;;
	wgx_p8) PV_ADDR_A=10.5.0.1 PV_ADDR_B=10.5.0.2 PV_DEV_A=wgxp8 PV_DEV_B=wgxp8 ;;
	wgx_rs) PV_ADDR_A=10.6.0.1 PV_ADDR_B=10.6.0.2 PV_DEV_A=wgxrs PV_DEV_B=wgxrs ;;
	wgx_r0) PV_ADDR_A=10.9.0.1 PV_ADDR_B=10.9.0.2 PV_DEV_A=wgxrs0 PV_DEV_B=wgxrs0 ;;
	wgx_wg) PV_ADDR_A=10.10.0.1 PV_ADDR_B=10.10.0.2 PV_DEV_A=wgm0 PV_DEV_B=wgm0 ;;
	wg_wgx) PV_ADDR_A=10.11.0.1 PV_ADDR_B=10.11.0.2 PV_DEV_A=wgm1 PV_DEV_B=wgm1 ;;
	*) return 1 ;;
	esac
}

# path_kind PATH [NS] — the rtnetlink link kind of a tunnel path's device
# in namespace NS (a or b; the mixed pairs differ per namespace, the others
# do not and need no NS).
path_kind() {
	case $1:${2:-} in
	wireguard:* | wgx_wg:b | wg_wgx:a) echo wireguard ;;
	*) echo wgx ;;
	esac
}

# path_tool PATH [NS] — the configuration tool of a tunnel path's device in
# namespace NS (as path_kind).
path_tool() {
	if [ "$(path_kind "$@")" = wireguard ]; then echo wg; else echo "$WGX_TOOL"; fi
}

# link_kind NS DEV — the rtnetlink link kind DEV really has in NS (from
# `ip -d link`), or "none".
link_kind() {
	ip -n "$1" -d -j link show dev "$2" 2>/dev/null | jq -r '.[0].linkinfo.info_kind // "none"' 2>/dev/null ||
		echo none
}

# elapsed_s VAR START — VAR := seconds since START (an $EPOCHREALTIME value),
# 6 decimals.
elapsed_s() {
	local a=${2/./} b=${EPOCHREALTIME/./} d
	d=$((10#$b - 10#$a))
	printf -v "$1" '%d.%06d' $((d / 1000000)) $((d % 1000000))
}

# stop_bulk PID — stop a background bulk load: alive := 1 if it was still
# running (it covered the whole measurement), stop := seconds it took to stop.
stop_bulk() {
	local t0
	alive=0
	kill -0 "$1" 2>/dev/null && alive=1
	t0=$EPOCHREALTIME
	kill -TERM "$1" 2>/dev/null
	wait "$1"
	elapsed_s stop "$t0"
}

# blog MSG... — progress line on stderr with seconds since the guest script began.
blog() {
	local el
	elapsed_s el "$BENCH_T0"
	printf '[bench %6ss] %s\n' "${el%.*}" "$*" >&2
}

# jstr VAR STRING — VAR := STRING as a JSON string literal (quotes,
# backslashes, control characters escaped).
jstr() {
	local s=$2
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/ }
	s=${s//$'\r'/}
	printf -v "$1" '"%s"' "$s"
}

# record KEY=VALUE... — append one JSON object to $BENCH_OUT/samples.jsonl.
# Values that look like numbers are written as numbers, others as strings.
record() {
	local kv k v j sep= line='{'
	for kv in "$@"; do
		k=${kv%%=*}
		v=${kv#*=}
		if [[ $v =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then
			line+="$sep\"$k\":$v"
		else
			jstr j "$v"
			line+="$sep\"$k\":$j"
		fi
		sep=,
	done
	printf '%s}\n' "$line" >>"$BENCH_OUT/samples.jsonl"
}

# anchor NS — start a sleeping process in NS; its pid (ANCHOR_<NS>) lets us
# read NS's /proc/net/dev without entering the namespace.
anchor() {
	ip netns exec "$1" sleep 1000000 &
	printf -v "ANCHOR_$1" '%s' "$!"
}

# dev_rx_bytes VAR NS DEV — VAR := DEV's received bytes in NS (0 if absent),
# read through NS's anchor.
dev_rx_bytes() {
	local pid_var="ANCHOR_$2" name rx rest
	printf -v "$1" 0
	while read -r name rx rest; do
		if [ "$name" = "$3:" ]; then
			printf -v "$1" '%s' "$rx"
			return 0
		fi
	done <"/proc/${!pid_var}/net/dev"
}

# tcp_stats VAR NS — VAR := "RETRANS REORDER DSACK OFO", NS's TCP counters
# read through its anchor with builtins only (no fork): Tcp RetransSegs
# (/proc/net/snmp: segments retransmitted), and from /proc/net/netstat
# TcpExt TCPSACKReorder + TCPTSReorder (reordering the sender detected),
# TCPDSACKRecv (duplicate SACKs received: a segment sent twice that had
# arrived) and TCPOFOQueue (segments the receiver queued out of order).
# Namespace-wide: nothing else moves TCP data there during a run.
tcp_stats() {
	local pid_var="ANCHOR_$2" ts_f ts_i ts_rt=0 ts_ro=0 ts_ds=0 ts_ofo=0
	local -a ts_k ts_v
	for ts_f in snmp netstat; do
		while read -r -a ts_k && read -r -a ts_v; do
			case ${ts_k[0]} in Tcp: | TcpExt:) ;; *) continue ;; esac
			for ((ts_i = 1; ts_i < ${#ts_k[@]}; ts_i++)); do
				case ${ts_k[ts_i]} in
				RetransSegs) ts_rt=${ts_v[ts_i]} ;;
				TCPSACKReorder | TCPTSReorder) ts_ro=$((ts_ro + ts_v[ts_i])) ;;
				TCPDSACKRecv) ts_ds=${ts_v[ts_i]} ;;
				TCPOFOQueue) ts_ofo=${ts_v[ts_i]} ;;
				esac
			done
			break # one line pair of each file is TCP's
		done <"/proc/${!pid_var}/net/$ts_f"
	done
	printf -v "$1" '%s %s %s %s' "$ts_rt" "$ts_ro" "$ts_ds" "$ts_ofo"
}

# ip_forwarded VAR NS — VAR := the IPv4 datagrams NS forwarded so far (Ip
# ForwDatagrams, /proc/net/snmp, through NS's anchor).
ip_forwarded() {
	local pid_var="ANCHOR_$2" ipf_i
	local -a ipf_k ipf_v
	printf -v "$1" 0
	while read -r -a ipf_k && read -r -a ipf_v; do
		[ "${ipf_k[0]}" = Ip: ] || continue
		for ((ipf_i = 1; ipf_i < ${#ipf_k[@]}; ipf_i++)); do
			[ "${ipf_k[ipf_i]}" = ForwDatagrams ] && printf -v "$1" '%s' "${ipf_v[ipf_i]}"
		done
		break
	done <"/proc/${!pid_var}/net/snmp"
}

# tcp_delta SENDER S0 S1 R0 R1 — TCP_D := record arguments for one TCP run
# whose sender is namespace SENDER: the sender's retransmissions,
# reordering and DSACKs from its tcp_stats S0 to S1, the receiver's
# out-of-order segments from R0 to R1.
tcp_delta() {
	# shellcheck disable=SC2206 # numbers, split on purpose
	local -a s0=($2) s1=($3) r0=($4) r1=($5)
	# shellcheck disable=SC2034 # TCP_D: read by the caller
	TCP_D=("tcp_sender=$1" "tcp_retrans=$((s1[0] - s0[0]))" "tcp_reorder=$((s1[1] - s0[1]))"
		"tcp_dsack=$((s1[2] - s0[2]))" "tcp_ofo=$((r1[3] - r0[3]))")
}

# bench_tunnel PATH — create and configure PATH's tunnel between a and b with
# the keys scripts/bench made ($WORK/keys/PATH-{a,b}.{key,pub}).  Returns
# non-zero with a reason on stderr when any step fails or the tunnel passes
# no traffic.
bench_tunnel() {
	local path=$1 dev kind_a kind_b tool_a tool_b port_a port_b keys=$WORK/keys ns addr opts=()
	path_vars "$path"
	dev=$(path_dev "$path")
	kind_a=$(path_kind "$path" a) kind_b=$(path_kind "$path" b)
	tool_a=$(path_tool "$path" a) tool_b=$(path_tool "$path" b)
	case $path in
	wireguard) port_a=51830 port_b=51831 ;;
	wgx) port_a=51840 port_b=51841 ;;
	wgx_p2) port_a=51850 port_b=51850 ;;
	wgx_p4) port_a=51860 port_b=51860 ;;
	wgx_p8) port_a=51870 port_b=51870 ;;
	wgx_rs) port_a=51880 port_b=51880 ;;
	wgx_r0) port_a=51900 port_b=51900 ;;
	wgx_wg) port_a=51910 port_b=51911 ;;
	wg_wgx) port_a=51920 port_b=51921 ;;
	*) echo "bench_tunnel: $path is not a tunnel" >&2; return 1 ;;
	esac
	# Options of the wgx-only paths (both ends are wgx there).
	mapfile -t opts < <(path_opts "$path")
	if [ "$kind_a" = wireguard ] || [ "$kind_b" = wireguard ]; then
		modprobe wireguard || { echo "modprobe wireguard failed" >&2; return 1; }
	fi
	ip -n a link add "$dev" type "$kind_a" && ip -n b link add "$dev" type "$kind_b" || {
		echo "ip link add $dev type $kind_a (a) / $kind_b (b) failed" >&2
		return 1
	}
	n a "$tool_a" set "$dev" private-key "$keys/$path-a.key" listen-port "$port_a" "${opts[@]}" \
		peer "$(<"$keys/$path-b.pub")" endpoint "$OUTER_B:$port_b" \
		allowed-ips "$PV_ADDR_B/32" || {
		echo "$tool_a set $dev failed in a" >&2
		return 1
	}
	n b "$tool_b" set "$dev" private-key "$keys/$path-b.key" listen-port "$port_b" "${opts[@]}" \
		peer "$(<"$keys/$path-a.pub")" endpoint "192.0.2.1:$port_a" \
		allowed-ips "$PV_ADDR_A/32" || {
		echo "$tool_b set $dev failed in b" >&2
		return 1
	}
	for ns in a b; do
		addr=$PV_ADDR_A
		[ $ns = b ] && addr=$PV_ADDR_B
		printf '%s\n' "addr add $addr/24 dev $dev" \
			"link set $dev mtu $TUNNEL_MTU up" | ip -n "$ns" -batch - || {
			echo "cannot address or bring up $dev in $ns" >&2
			return 1
		}
	done
	# The first packet waits for the handshake; then it must really pass.
	if ! n a ping -c 5 -i 0.2 -W 3 "$PV_ADDR_B" >/dev/null; then
		echo "$path tunnel $dev passes no traffic (ping $PV_ADDR_A -> $PV_ADDR_B failed)" >&2
		return 1
	fi
}

# drop_caches — flush reclaimable slab so slab deltas show the allocations.
drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# quiet_wait MAX — wait, one second at a time and at most MAX seconds, until
# the guest's CPUs were at least 95 % idle over a second (what a timed
# command measures is then its own work, not what earlier workloads left
# running); QUIET_IDLE := that second's idle share in percent, QUIET_WAITED
# := the seconds waited.
quiet_wait() {
	local max=$1 a b i idle total
	QUIET_WAITED=0 QUIET_IDLE=0
	for ((i = 0; i < max; i++)); do
		read -r _ a </proc/stat
		sleep 1
		read -r _ b </proc/stat
		read -r -a a <<<"$a"
		read -r -a b <<<"$b"
		idle=$(((b[3] + b[4]) - (a[3] + a[4])))
		total=$(((b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + b[7]) -
			(a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7])))
		QUIET_IDLE=$((total > 0 ? 100 * idle / total : 0))
		QUIET_WAITED=$((i + 1))
		[ "$QUIET_IDLE" -ge 95 ] && return 0
	done
	return 1
}

# meminfo_kb FIELD — a /proc/meminfo field in kB.
meminfo_kb() {
	local k v rest
	while read -r k v rest; do
		if [ "$k" = "$1:" ]; then
			echo "$v"
			return 0
		fi
	done </proc/meminfo
	echo 0
}

# softnet_drops VAR — VAR := packets dropped by every CPU's receive backlog
# so far (/proc/net/softnet_stat, 2nd column, hex): a receiving CPU's
# backlog (RPS, netif_rx) was full, netdev_max_backlog packets deep.
softnet_drops() {
	local processed dropped rest sum=0
	while read -r processed dropped rest; do
		sum=$((sum + 16#$dropped))
	done </proc/net/softnet_stat
	printf -v "$1" '%s' "$sum"
}
