#!/usr/bin/env bash
# bench/run-guest.sh WORKDIR — the guest side of `make bench` (scripts/bench),
# run as root inside one scripts/vm boot with wgx.ko loaded.
#
# WORKDIR (shared with the host) holds params.sh (written by scripts/bench:
# rounds, durations, which paths, ...), the handshake key material (hs/) and
# the many-peers configuration (peers.conf).  This script only runs the
# workloads and stores their raw output under WORKDIR/raw plus one JSON object
# per measurement in WORKDIR/samples.jsonl; bench/report on the host turns
# them into figures.  Nothing is parsed here and few processes are started:
# under TCG every fork+exec costs a good fraction of a second.
#
# Phase 1 (root namespace): topology, tunnels, servers, crypto ceiling.
# Phase 2 (`run-guest.sh --in-a WORKDIR PATH...`, inside namespace a, so the
# clients run without an `ip netns exec` each): the traffic rounds, then
# handshakes and many-peers configuration.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../tests/integration/lib.sh"
. "$here/lib.sh"

if [ "${WGX_IN_VM:-0}" != 1 ]; then
	echo "bench/run-guest.sh: must run inside scripts/vm (it loads kernel modules)" >&2
	exit 2
fi
phase=1
if [ "${1:-}" = --in-a ]; then
	phase=2
	shift
	# ip netns exec mounted a fresh /sys for namespace a, without debugfs
	# under it: wgx's switches and statistics (/sys/kernel/debug/wgx).
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
fi
[ $# -ge 1 ] && [ -r "$1/params.sh" ] || {
	echo "usage: bench/run-guest.sh WORKDIR (with WORKDIR/params.sh)" >&2
	exit 2
}
WORK=$(cd "$1" && pwd)
shift
. "$WORK/params.sh"
# b's outer address: 198.51.100.2 behind r on the routed bed.
OUTER_B=${OUTER_B:-192.0.2.2}
BENCH_OUT=$WORK
RAW=$WORK/raw
BENCH_T0=${BENCH_T0:-$EPOCHREALTIME}

# mtu_run KIND MODE ROUND — the path MTU figure: wgx in a sends TCP to KIND
# (wgx or wireguard: the wgx_wg pair) in b through r, the integration mtu
# suite's topology (tests/integration/mtu.sh): MTU_SECONDS of goodput on the
# clean path, then r's link to b shrinks to 1400 bytes and MODE (fragments:
# r may fragment; nofrag: b drops fragments; blackhole: fragments dropped
# and r's ICMP "fragmentation needed" filtered) holds for MTU_AFTER
# seconds of goodput, the transfer starting at the full size.  Records the
# goodput of each second, the outer fragments made or reassembled on the
# way, and the path MTU a learned and how.
mtu_run() {
	local kind=$1 mode=$2 round=$3 out rc err=$RAW/mtu-$1-$2-$3.err
	blog "mtu: wgx -> $kind, $mode path, round $round"
	out=$(
		exec 2>"$err"
		set -e
		# shellcheck source=/dev/null
		. "$here/../tests/integration/mtu.sh"
		TUN_ROUTED=1 tunnel_setup "$kind" 4 0 >&2
		ping_ok a 10.0.0.2 >&2
		mtu_goodput "$MTU_SECONDS"
		echo "clean=${GOODPUT[*]}"
		mtu_hop "$mode" >&2
		ping_ok a 10.0.0.2 >&2
		F0=$(outer_frags)
		mtu_goodput "$MTU_AFTER"
		echo "after=${GOODPUT[*]}"
		echo "frags=$(($(outer_frags) - F0))"
		echo "path_mtu=$(mtu_peer a path_mtu)"
		echo "source=$(mtu_peer a path_mtu_source)"
	)
	rc=$?
	netns_cleanup
	if [ $rc -ne 0 ]; then
		record type=mtu receiver="$kind" mode="$mode" round="$round" \
			error="exit $rc: $(tail -n 3 "$err" | tr '\n' ' ')"
		return
	fi
	local -A v=()
	local line
	while IFS= read -r line; do
		v[${line%%=*}]=${line#*=}
	done <<<"$out"
	record type=mtu receiver="$kind" mode="$mode" round="$round" clean="${v[clean]}" \
		after="${v[after]}" frags="${v[frags]}" path_mtu="${v[path_mtu]}" source="${v[source]}"
}

# ================================================================ phase 1
if [ $phase = 1 ]; then
	BENCH_TMP=$(mktemp -d)
	mkdir -p "$RAW"
	netstamp_hold
	: >"$WORK/samples.jsonl"
	cpus=0 model=
	while IFS=: read -r k v; do
		case $k in
		processor*) cpus=$((cpus + 1)) ;;
		"model name"*) model=${v# } ;;
		esac
	done </proc/cpuinfo
	[ -n "${RX_BACKLOG:-}" ] && echo "$RX_BACKLOG" >/proc/sys/net/core/netdev_max_backlog
	record type=meta kernel="$(</proc/sys/kernel/osrelease)" cpus="$cpus" cpu_model="$model" \
		netdev_max_backlog="$(</proc/sys/net/core/netdev_max_backlog)"

	cleanup() {
		local ns
		for ns in a b r; do
			ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		done
		sleep 0.2
		for ns in a b r; do
			ip netns del "$ns" 2>/dev/null
		done
		rm -rf "$BENCH_TMP"
	}
	trap cleanup EXIT

	netns_cleanup
	# First: the path MTU figure, in namespaces of its own, before the bed
	# (whose many-peer devices would take minutes to tear down).
	if [ "${MTU_SECONDS:-0}" -gt 0 ]; then
		for ((round = 1; round <= ROUNDS; round++)); do
			for kind in wgx wireguard; do
				for mode in fragments nofrag blackhole; do
					mtu_run "$kind" "$mode" "$round"
				done
			done
		done
	fi
	if [ "$BED" = routed ]; then
		# a -- va/ra -- r (forwards) -- rb/vb -- b; every veth end
		# receives like a NIC, so each receiving namespace hashes outer headers.
		netns_routed a r b ||
			{ echo "bench: cannot create namespaces a/r/b (routed bed)" >&2; exit 1; }
		(nic_like a va && nic_like r ra && nic_like r rb && nic_like b vb) 2>&1 ||
			{ echo "bench: cannot make the veths NIC-like (tc/bpf, rps_cpus)" >&2; exit 1; }
	else
		netns_pair a b || { echo "bench: cannot create namespaces a/b over veth" >&2; exit 1; }
	fi
	if [ "$TCP_ECN" = 1 ]; then
		ip netns exec a sysctl -qw net.ipv4.tcp_ecn=1 && ip netns exec b sysctl -qw net.ipv4.tcp_ecn=1 ||
			{ echo "bench: cannot set net.ipv4.tcp_ecn in a and b" >&2; exit 1; }
	fi
	if [ "$BED" = nic ]; then
		# Both ends receive like a NIC: RPS on a hash of the outer headers.
		(nic_like a va && nic_like b vb) 2>&1 ||
			{ echo "bench: cannot make the veth NIC-like (tc/bpf, rps_cpus)" >&2; exit 1; }
	fi
	record type=bed bed="$BED" outer_b="$OUTER_B" tcp_ecn="$(ip netns exec a cat /proc/sys/net/ipv4/tcp_ecn)"
	anchor a
	anchor b
	[ "$BED" = routed ] && anchor r
	active=()
	for p in $PATHS; do
		case $p in
		bare) active+=(bare) ;;
		wireguard | wgx | wgx_p* | wgx_rs | wgx_r0 | wgx_wg | wg_wgx)
			blog "setting up the $p tunnel"
			if err=$(bench_tunnel "$p" 2>&1); then
				active+=("$p")
				# Bed check: which module each end really runs.
				dev=$(path_dev "$p")
				record type=path path="$p" mtu="$TUNNEL_MTU" \
					kind_a="$(link_kind a "$dev")" kind_b="$(link_kind b "$dev")"
			else
				blog "$p: $err"
				record type=path path="$p" error="$err"
			fi
			;;
		*) echo "bench: unknown path $p" >&2; exit 2 ;;
		esac
	done

	n b iperf3 -s -D -p 5201 >/dev/null &&
		n b iperf3 -s -D -p 5202 >/dev/null ||
		{ echo "bench: cannot start iperf3 servers in b" >&2; exit 1; }
	ip netns exec b "$RR_BIN" server 7777 &
	# The lane's probes: marked in both directions (the echo too).
	[ "$LANE" = 1 ] && ip netns exec b "$RR_BIN" server 7778 "$LANE_TOS" &
	# Which qdisc each device has (the lane runs under wgx's mq/fq_codel).
	[ "$LANE" = 1 ] && tc -n a qdisc show >"$RAW/qdisc-a.txt" 2>&1

	CEIL=/sys/kernel/debug/wgx/crypto_ceiling
	if [ "$CEILING_SECONDS" -gt 0 ]; then
		if [ -w "$CEIL" ]; then
			blog "crypto ceiling: ${CEILING_SECONDS} s on every CPU"
			if err=$(echo "$CEILING_SECONDS" 2>&1 >"$CEIL"); then
				cp "$CEIL" "$RAW/ceiling.txt"
				record type=ceiling file=raw/ceiling.txt
			else
				record type=ceiling error="write to $CEIL failed: $err"
			fi
		else
			record type=ceiling error="$CEIL not present (wgx.ko built without kmod/bench.o, or no debugfs)"
		fi
	fi

	# The per-packet cost of the TCP telemetry hooks (kmod/telemetry_bench.h),
	# with tcp_telemetry on, then off (the sanity check: the hooks then cost
	# what the empty loop costs).
	if [ "$TELEMETRY" = 1 ]; then
		TCOST=/sys/kernel/debug/wgx/telemetry_cost
		if [ -w "$TCOST" ] && [ -w "$TELEM_PARAM" ]; then
			for s in 1 0; do
				blog "telemetry cost micro-benchmark: tcp_telemetry=$s, $TELEM_ITERS iterations"
				echo "$s" >"$TELEM_PARAM"
				if err=$(echo "$TELEM_ITERS" 2>&1 >"$TCOST"); then
					cp "$TCOST" "$RAW/telemetry_cost_$s.txt"
					record type=telemcost setting="$s" file="raw/telemetry_cost_$s.txt"
				else
					record type=telemcost setting="$s" error="write to $TCOST failed: $err"
				fi
			done
			echo 1 >"$TELEM_PARAM"
		else
			record type=telemcost setting=1 error="$TCOST or $TELEM_PARAM not present (wgx.ko without kmod/telemetry_bench.o, or no debugfs)"
		fi
	fi

	export BENCH_T0 ANCHOR_a ANCHOR_b
	[ "$BED" = routed ] && ip_forwarded fwd0 r
	ip netns exec a bash "$0" --in-a "$WORK" "${active[@]}"
	rc=$?
	# The routed bed's check: everything between a and b crossed r.
	[ "$BED" = routed ] && ip_forwarded fwd1 r &&
		record type=routed forwarded=$((fwd1 - fwd0))
	exit $rc
fi

# ================================================================ phase 2 (in a)
active=("$@")

# --codel-target MS (a diagnostic): a's wgx devices get fq_codel with CoDel's
# target MS and interval 20x that on every tx queue, instead of the default
# 5 ms / 100 ms, which the emulated CPU's per-packet times exceed.
if [ -n "${CODEL_TARGET_MS:-}" ]; then
	for d in /sys/class/net/wgx*; do
		d=${d##*/}
		[ -e "/sys/class/net/$d" ] || continue
		tc qdisc replace dev "$d" root handle 1: mq || continue
		i=0
		for q in /sys/class/net/"$d"/queues/tx-*; do
			i=$((i + 1))
			tc qdisc replace dev "$d" parent "1:$(printf '%x' "$i")" fq_codel \
				target "${CODEL_TARGET_MS}ms" interval "$((CODEL_TARGET_MS * 20))ms" || true
		done
	done
	tc qdisc show >"$RAW/qdisc-a-codel.txt" 2>&1
fi

# run_iperf NAME PATH ROUND SECONDS ARGS... — one iperf3 client run a -> b
# (ARGS may hold -R).  The receiving devices' byte counters are read around it
# so the report can check the payload really crossed the path's device, and
# per-CPU histograms say which CPUs did the receiving: data decryptions
# (tunnels) and data packets the veths received (after RPS).  For TCP (ARGS
# without -u) the sender's retransmissions, reordering and DSACKs and the
# receiver's out-of-order segments over the run (tcp_stats: the sender is b
# with -R), read by the shell itself through the namespaces' anchors.
run_iperf() {
	local name=$1 path=$2 round=$3 secs=$4 file rc rxa rxb rxa1 rxb1 t0 el try guard=()
	local dec_total dec_max dec_cpus tcp=1 snd=a rcv=b ts0='' ts1 tr0='' tr1 sd0 sd1
	TCP_D=()
	shift 4
	[[ " $* " == *" -u "* ]] && tcp=0
	[[ " $* " == *" -R "* ]] && snd=b rcv=a
	file=raw/r$round-$path-$name.json
	path_vars "$path"
	# A tunnel that dies mid-run must not hang the client: an idle timeout
	# where iperf3 accepts one (receiving side), a hard one around it all.
	[[ " $* " == *" -R "* ]] && guard=(--rcv-timeout 15000)
	for try in 1 2 3; do
		dev_rx_bytes rxa a "$PV_DEV_A"
		dev_rx_bytes rxb b "$PV_DEV_B"
		[ $tcp = 1 ] && tcp_stats ts0 "$snd" && tcp_stats tr0 "$rcv"
		softnet_drops sd0
		decrypt_cpus_start 2>/dev/null
		rx_cpus_start 2>/dev/null
		t0=$EPOCHREALTIME
		timeout -k 5 $((secs + 30)) iperf3 -c "$PV_ADDR_B" --connect-timeout 5000 "${guard[@]}" \
			-t "$secs" -J "$@" >"$WORK/$file" 2>&1
		rc=$?
		# The server may still be finishing the previous test ("busy") or
		# resetting after it ("Connection refused"): try again.
		[ $rc -ne 0 ] && [ $try -lt 3 ] && grep -qE 'busy|unable to connect' "$WORK/$file" &&
			{ sleep 1; continue; }
		break
	done
	elapsed_s el "$t0"
	softnet_drops sd1
	if [ -n "$ts0" ]; then
		tcp_stats ts1 "$snd"
		tcp_stats tr1 "$rcv"
		tcp_delta "$snd" "$ts0" "$ts1" "$tr0" "$tr1"
	fi
	decrypt_cpus_read 2>/dev/null
	dec_total=$CPUS_TOTAL dec_max=$CPUS_MAX dec_cpus=$CPUS_LIST
	rx_cpus_read 2>/dev/null
	dev_rx_bytes rxa1 a "$PV_DEV_A"
	dev_rx_bytes rxb1 b "$PV_DEV_B"
	record type=iperf metric="$name" path="$path" round="$round" file="$file" rc=$rc \
		rx_a=$((rxa1 - rxa)) rx_b=$((rxb1 - rxb)) wall="$el" \
		decrypt_total="$dec_total" decrypt_max="$dec_max" decrypt_cpus="$dec_cpus" \
		veth_rx_total="$CPUS_TOTAL" veth_rx_max="$CPUS_MAX" veth_rx_cpus="$CPUS_LIST" \
		softnet_drops=$((sd1 - sd0)) "${TCP_D[@]}"
	if [ "${lpath:-}" = wgx_nobql ]; then bql_min_set 0; fi
}

# run_latency NAME PATH ROUND — ping, then TCP request/response, a -> b.
run_latency() {
	local name=$1 path=$2 round=$3 addr file rc t0 el
	path_vars "$path"
	addr=$PV_ADDR_B
	file=raw/r$round-$path-ping_$name.txt
	t0=$EPOCHREALTIME
	ping -n -c "$PING_COUNT" -i "$PING_INTERVAL" -W 1 -w $((PING_COUNT / 10 + 10)) \
		-s "$PING_SIZE" "$addr" >"$WORK/$file" 2>&1
	rc=$?
	elapsed_s el "$t0"
	record type=ping metric="ping_$name" path="$path" round="$round" file="$file" rc=$rc wall="$el"
	file=raw/r$round-$path-rr_$name.json
	t0=$EPOCHREALTIME
	"$RR_BIN" client "$addr" 7777 "$RR_SECONDS" "$RR_SIZE" >"$WORK/$file" 2>&1
	rc=$?
	elapsed_s el "$t0"
	record type=rr metric="rr_$name" path="$path" round="$round" file="$file" rc=$rc wall="$el"
}

# run_loaded PATH ROUND — run_latency while LOAD_FLOWS TCP flows go a -> b.
# The bulk runs from before the probes until after them (then it is stopped);
# its goodput over the probes' window comes from b's device counter (for a
# tunnel: inner bytes).  covered=1 when the load was still running after the
# probes.
run_loaded() {
	local path=$1 round=$2 bulk file alive=0 rx0 rx1 t0 el stop try ts0 ts1 tr0 tr1
	file=raw/r$round-$path-bulk_loaded.json
	path_vars "$path"
	for try in 1 2 3; do
		iperf3 -c "$PV_ADDR_B" -p 5202 --connect-timeout 5000 \
			-P "$LOAD_FLOWS" -t 300 -J >"$WORK/$file" 2>&1 &
		bulk=$!
		sleep 1
		# The server may still be resetting after the previous bulk.
		kill -0 "$bulk" 2>/dev/null && break
		wait "$bulk"
	done
	dev_rx_bytes rx0 b "$PV_DEV_B"
	tcp_stats ts0 a
	tcp_stats tr0 b
	t0=$EPOCHREALTIME
	run_latency loaded "$path" "$round"
	dev_rx_bytes rx1 b "$PV_DEV_B"
	tcp_stats ts1 a
	tcp_stats tr1 b
	elapsed_s el "$t0"
	stop_bulk "$bulk"
	tcp_delta a "$ts0" "$ts1" "$tr0" "$tr1"
	record type=bulk metric=bulk_loaded path="$path" round="$round" covered="$alive" \
		rx_bytes=$((rx1 - rx0)) seconds="$el" stop_wall="$stop" "${TCP_D[@]}"
}

# lane_set STATE — wgx0's priority lane at both ends: off (priority-dscp
# none: marked packets take the bulk ring) or on (the default set).
lane_set() {
	local set=$LANE_DSCP_DEFAULT ns
	[ "$1" = off ] && set=none
	for ns in a b; do
		n "$ns" "$WGX_TOOL" set wgx0 priority-dscp "$set" || return 1
	done
}

# bql_min_set BYTES — limit_min of wgx0's byte queue limits on every tx
# queue at both ends.  1500000 (more than a full 1024-packet ring) takes BQL
# out of play: the wgx_nobql column, wgx as it was before BQL, in the same
# boot; 0 is the kernel's default.
bql_min_set() {
	local ns
	for ns in a b; do
		n "$ns" sh -c "for f in /sys/class/net/wgx0/queues/tx-*/byte_queue_limits/limit_min; do echo $1 >\$f; done" ||
			return 1
	done
}

# bql_param_set 0|1 — wgx's module parameter bql (byte queue limits on its
# transmit rings, off by default): the lane figure measures wgx with it on.
bql_param_set() {
	echo "$1" >/sys/kernel/debug/wgx/bql
}

# lane_inline_set 0|1 — module parameter lane_inline (a marked packet with an
# empty lane sent by ndo_start_xmit at once); 0 only for the wgx_noinline
# column.
lane_inline_set() {
	echo "$1" >/sys/kernel/debug/wgx/lane_inline
}

# lane_counters FILE DEV — a's and b's DEV device counters tx_lane and
# tx_lane_inline, one line "A_LANE A_INLINE B_LANE B_INLINE" (wgx only).
lane_counters() {
	local ja jb
	ja=$(n a "$WGX_TOOL" show "$2" --json 2>/dev/null) && jb=$(n b "$WGX_TOOL" show "$2" --json 2>/dev/null) &&
		printf '%s\n%s\n' "$ja" "$jb" | jq -rs '[.[].interfaces[0].stats | .tx_lane, .tx_lane_inline] | @tsv' >"$1" 2>&1
}

# sender_sampler DEV FILE — until killed, about every 0.2 s: the bytes BQL
# counts in flight over DEV's tx queues and their limits, summed ("b TIME
# INFLIGHT LIMIT"; for wgx the bytes waiting in or being sent from its
# encryption rings and lanes: everything ndo_start_xmit accepted and the
# workers have not sent yet), and every fifth time the root qdisc's backlog
# ("q TIME BYTES PACKETS", for mq the sum of its children).  Builtins only
# but for tc: under TCG a fork costs a good fraction of a second.
sender_sampler() {
	local dev=$1 i=0 f v inflight limit fd t q
	exec {fd}<> <(:)
	while :; do
		inflight=0 limit=0
		for f in /sys/class/net/"$dev"/queues/tx-*/byte_queue_limits; do
			read -r v <"$f/inflight" 2>/dev/null && inflight=$((inflight + v))
			read -r v <"$f/limit" 2>/dev/null && limit=$((limit + v))
		done
		t=$EPOCHREALTIME
		echo "b $t $inflight $limit"
		if ((i++ % 5 == 0)); then
			q=$(tc -s qdisc show dev "$dev" 2>/dev/null)
			[[ $q =~ backlog\ ([0-9]+)([KM]?)b\ ([0-9]+)p ]] &&
				echo "q $t ${BASH_REMATCH[1]}${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
		fi
		read -r -t 0.2 -u "$fd" _
	done >"$2"
}

# run_lane LPATH ROUND — the priority lane figure on one of bare, wireguard,
# wgx_nolane, wgx_lane (the last two: path wgx with its lane off or on), or a
# receive-scaling wgx path (wgx_pN, wgx_rs, wgx_r0: lane on, the default set).
# LANE_FLOWS TCP flows a -> b run from LANE_WARMUP s before the probes until
# after them; the probes are marked LANE_TOS (EF) in both directions: ping
# -Q, and wgx-bench-rr against the marking server on port 7778.  The bulk's
# goodput over the probes' window comes from b's device counter (for a
# tunnel: inner bytes), and per-CPU histograms of the bulk's receive work
# give the bed check (one outer flow on one CPU).
run_lane() {
	local lpath=$1 round=$2 path bulk file alive=0 rx0 rx1 t0 el stop try rc sd0 sd1 qfile lfile
	local sfile spid ts0 ts1 tr0 tr1
	local dec_total dec_max dec_cpus
	path=$lpath
	bql_param_set 1
	case $lpath in
	wgx_nolane) path=wgx; lane_set off ;;
	wgx_lane) path=wgx; lane_set on ;;
	wgx_nobql) path=wgx; lane_set on && bql_min_set 1500000 ;;
	wgx_noinline) path=wgx; lane_set on && lane_inline_set 0 ;;
	esac || { record type=bulk metric=bulk_lane path="$lpath" round="$round" error="wgx set priority-dscp failed"; return; }
	path_vars "$path"
	file=raw/r$round-$lpath-lane_bulk.json
	# Armed before the load, as in run_iperf: cleared while idle.
	decrypt_cpus_start 2>/dev/null
	rx_cpus_start 2>/dev/null
	for try in 1 2 3; do
		iperf3 -c "$PV_ADDR_B" -p 5202 --connect-timeout 5000 \
			-P "$LANE_FLOWS" -t 300 -J >"$WORK/$file" 2>&1 &
		bulk=$!
		sleep "$LANE_WARMUP"
		# The server may still be resetting after the previous bulk.
		kill -0 "$bulk" 2>/dev/null && break
		wait "$bulk"
	done
	# Which way the marked probes went (wgx): queued on the lane or sent inline.
	lfile=
	case $path in wgx*) lfile=raw/r$round-$lpath-lane_counters && lane_counters "$WORK/$lfile.0" "$PV_DEV_A" ;; esac
	dev_rx_bytes rx0 b "$PV_DEV_B"
	softnet_drops sd0
	tcp_stats ts0 a
	tcp_stats tr0 b
	# Where the probes could wait at the sender, sampled while they run.
	sfile=raw/r$round-$lpath-lane_sender.txt
	sender_sampler "$PV_DEV_A" "$WORK/$sfile" &
	spid=$!
	t0=$EPOCHREALTIME
	file=raw/r$round-$lpath-lane_ping.txt
	# No -w: with it ping stops at the COUNTth reply, and the requests still
	# in flight (tenths of a second of them under this load) would count as
	# lost.  -W: the wait for the last replies.
	ping -n -Q "$LANE_TOS" -c "$LANE_PING_COUNT" -i "$PING_INTERVAL" -W 2 \
		-s "$PING_SIZE" "$PV_ADDR_B" >"$WORK/$file" 2>&1
	record type=ping metric=ping_lane path="$lpath" round="$round" file="$file" rc=$?
	file=raw/r$round-$lpath-lane_rr.json
	"$RR_BIN" client "$PV_ADDR_B" 7778 "$LANE_RR_SECONDS" "$RR_SIZE" "$LANE_TOS" >"$WORK/$file" 2>&1
	rc=$?
	record type=rr metric=rr_lane path="$lpath" round="$round" file="$file" rc=$rc
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	dev_rx_bytes rx1 b "$PV_DEV_B"
	softnet_drops sd1
	tcp_stats ts1 a
	tcp_stats tr1 b
	elapsed_s el "$t0"
	[ -n "$lfile" ] && lane_counters "$WORK/$lfile.1" "$PV_DEV_A"
	# Where the bulk queues on the sending side: the qdisc of a's device
	# (wgx: mq with fq_codel per tx queue) while the load still runs.
	qfile=raw/r$round-$lpath-lane_qdisc.txt
	tc -s qdisc show dev "$PV_DEV_A" >"$WORK/$qfile" 2>&1
	decrypt_cpus_read 2>/dev/null
	dec_total=$CPUS_TOTAL dec_max=$CPUS_MAX dec_cpus=$CPUS_LIST
	rx_cpus_read 2>/dev/null
	stop_bulk "$bulk"
	tcp_delta a "$ts0" "$ts1" "$tr0" "$tr1"
	record type=bulk metric=bulk_lane path="$lpath" round="$round" covered="$alive" \
		rx_bytes=$((rx1 - rx0)) seconds="$el" stop_wall="$stop" \
		softnet_drops=$((sd1 - sd0)) qdisc_file="$qfile" sender_file="$sfile" \
		lane_counters_file="$lfile" \
		decrypt_total="$dec_total" decrypt_max="$dec_max" decrypt_cpus="$dec_cpus" \
		veth_rx_total="$CPUS_TOTAL" veth_rx_max="$CPUS_MAX" veth_rx_cpus="$CPUS_LIST" "${TCP_D[@]}"
	if [ "$lpath" = wgx_nobql ]; then bql_min_set 0; fi
	if [ "$lpath" = wgx_noinline ]; then lane_inline_set 1; fi
	bql_param_set 0
}

# rotated ROUND — the active paths, rotated by ROUND so no path always goes first.
rotated() {
	local r=$1 i k=${#active[@]}
	for ((i = 0; i < k; i++)); do
		echo "${active[$(((i + r) % k))]}"
	done
}

if [ ${#active[@]} -gt 0 ]; then
	for ((round = 1; round <= ROUNDS; round++)); do
		mapfile -t order < <(rotated "$round")
		[ -n "$TCP_FLOWS" ] && blog "round $round/$ROUNDS: tcp, paths in the order ${order[*]}"
		for flows in $TCP_FLOWS; do
			for dir in $TCP_DIRS; do
				for p in "${order[@]}"; do
					rev=()
					[ "$dir" = ba ] && rev=(-R)
					run_iperf "tcp_${flows}_$dir" "$p" "$round" "$TCP_SECONDS" -P "$flows" "${rev[@]}"
				done
			done
		done
		# The other workloads on the main paths only (wgx_pN, wgx_rs,
		# wgx_r0: TCP only; the mixed pairs wgx_wg, wg_wgx: TCP and UDP).
		main=() udp=()
		for p in "${order[@]}"; do
			case $p in
			wgx_p* | wgx_rs | wgx_r0) ;;
			wgx_wg | wg_wgx) udp+=("$p") ;;
			*) main+=("$p") udp+=("$p") ;;
			esac
		done
		[ -n "$UDP_SIZES" ] && blog "round $round: udp"
		for size in $UDP_SIZES; do
			for p in "${udp[@]}"; do
				run_iperf "udp_$size" "$p" "$round" "$UDP_SECONDS" -u -b 0 -l "$size"
			done
		done
		if [ "$LATENCY" = 1 ]; then
			blog "round $round: latency"
			for p in "${main[@]}"; do
				run_latency idle "$p" "$round"
			done
		fi
		if [ "$LOADED" = 1 ]; then
			for p in "${main[@]}"; do
				run_loaded "$p" "$round"
			done
		fi
		if [ "$LANE" = 1 ]; then
			# wgx twice: lane off, lane on; the order rotates with the rest.
			# The receive-scaling paths (lane on) only when the run has no
			# TCP figure, i.e. they were asked for the lane: `scripts/bench
			# --only lane --paths "... wgx_p8 wgx_rs"`.
			lanes=()
			for p in "${order[@]}"; do
				case $p in
				wgx)
					lanes+=(wgx_nolane wgx_lane)
					# Lane-only runs: also wgx with every marked packet
					# waiting for the worker, and with BQL out of play.
					# In this order: the rounds rotate the list, so the
					# column after wgx_nobql (whose BQL limit takes a
					# while to come down) is always bare's.
					[ -z "$TCP_FLOWS" ] && lanes+=(wgx_noinline wgx_nobql)
					;;
				wgx_p* | wgx_rs | wgx_r0) [ -z "$TCP_FLOWS" ] && lanes+=("$p") ;;
				wgx_wg | wg_wgx) ;;
				*) lanes+=("$p") ;;
				esac
			done
			lane_order=()
			for ((i = 0; i < ${#lanes[@]}; i++)); do
				lane_order+=("${lanes[$(((i + round) % ${#lanes[@]}))]}")
			done
			blog "round $round: priority lane, ${lane_order[*]}"
			for p in "${lane_order[@]}"; do
				run_lane "$p" "$round"
			done
			# Back to the default for what follows.
			[[ " ${main[*]} " == *" wgx "* ]] && lane_set on
		fi
	done
else
	blog "no path passes traffic: skipping the traffic workloads"
fi

# ---- telemetry on vs off, end to end ----------------------------------------------
# TELEM_ROUNDS rounds on path wgx; in each, TCP 1 flow a->b with tcp_telemetry
# on and off back to back, then UDP 64-byte payloads the same way; the order
# of the two settings alternates between rounds, so each on/off pair shares a
# moment of the host and neither setting always goes first.
if [ "$TELEMETRY" = 1 ] && [ "${TELEM_ROUNDS:-0}" -gt 0 ]; then
	if [[ " ${active[*]} " != *" wgx "* ]]; then
		record type=telem error="path wgx not measured (not in --paths, or its setup failed)"
	elif [ ! -w "$TELEM_PARAM" ]; then
		record type=telem error="$TELEM_PARAM not writable"
	else
		for ((round = 1; round <= TELEM_ROUNDS; round++)); do
			order="1 0"
			((round % 2)) || order="0 1"
			blog "round $round/$TELEM_ROUNDS: telemetry, tcp_telemetry $order"
			for s in $order; do
				echo "$s" >"$TELEM_PARAM"
				run_iperf "telem_tcp_1_$s" wgx "$round" "$TELEM_SECONDS" -P 1
			done
			for s in $order; do
				echo "$s" >"$TELEM_PARAM"
				run_iperf "telem_udp_64_$s" wgx "$round" "$TELEM_SECONDS" -u -b 0 -l 64
			done
		done
		echo 1 >"$TELEM_PARAM"
	fi
fi

# ---- the data-path gap during a key rotation ------------------------------------
# rot_kind PATH — a ROT_RATE packets/s UDP flow (bench/rotgap.py, 64
# bytes) from a to b through a tunnel of PATH's kind made for it alone
# (rot_dev: wgkr0 / wgxr0, 10.7/10.8.0.1 -> .2, so the traffic paths keep
# their keys), while b, the receiving node, rotates its static key:
# ROT_BEFORE s into the flow b sets its new private key (wgx: `key-grace
# ROT_GRACE` with it, docs/rotation.md "A grace period"), ROT_STEP s later a
# is told (wgx: `peer OLD public-key NEW`, the entry re-keyed in place;
# wireguard.ko: the new peer added with the same endpoint and allowed IPs
# and the old one removed, one `wg set`).  The flow runs ROT_SECONDS in all.
# The receiver (in b) timestamps each packet by sequence number; the
# sender reports its own longest stall.  Bed check: the devices' state
# before and after (`wgx show --json` / `wg show dump`, both ends) and the
# epoch times of the two steps, to place the longest gap.
rot_kind() {
	local path=$1 kind tool dev pa pb aa ab k=$WORK/keys base err t0 t1 t1e t2 t2e sp rp rc_s rc_1 rc_2 i
	kind=$(path_kind "$path")
	tool=$(path_tool "$path")
	if [ "$kind" = wgx ]; then dev=wgxr0 pa=51892 pb=51893 aa=10.8.0.1 ab=10.8.0.2
	else dev=wgkr0 pa=51890 pb=51891 aa=10.7.0.1 ab=10.7.0.2; fi
	base=raw/rot-$path
	blog "rotation: $path, ${ROT_RATE} pkt/s for ${ROT_SECONDS} s, b rotates at ${ROT_BEFORE} s, a told ${ROT_STEP} s later"
	if ! err=$({ ip link add "$dev" type "$kind" && ip -n b link add "$dev" type "$kind" &&
		"$tool" set "$dev" private-key "$k/rot-$kind-a.key" listen-port "$pa" \
			peer "$(<"$k/rot-$kind-b.pub")" endpoint "$OUTER_B:$pb" allowed-ips "$ab/32" &&
		n b "$tool" set "$dev" private-key "$k/rot-$kind-b.key" listen-port "$pb" \
			peer "$(<"$k/rot-$kind-a.pub")" endpoint "192.0.2.1:$pa" allowed-ips "$aa/32" &&
		printf '%s\n' "addr add $aa/24 dev $dev" "link set $dev mtu $TUNNEL_MTU up" | ip -batch - &&
		printf '%s\n' "addr add $ab/24 dev $dev" "link set $dev mtu $TUNNEL_MTU up" | ip -n b -batch - &&
		ping -c 3 -i 0.2 -W 3 "$ab" >/dev/null; } 2>&1); then
		record type=rot path="$path" error="rotation setup failed: ${err:-ping through $dev failed}"
		ip link del "$dev" 2>/dev/null
		ip -n b link del "$dev" 2>/dev/null
		return
	fi
	rm -f "$WORK/$base".*
	ip netns exec b python3 "$here/rotgap.py" recv "$ROT_PORT" "$WORK/$base.recv.json" \
		"$WORK/$base.ready" "$WORK/$base.send.json" $((ROT_SECONDS + 60)) 2>"$WORK/$base.recv.err" &
	rp=$!
	for ((i = 0; i < 200; i++)); do
		[ -e "$WORK/$base.ready" ] && break
		read -r -t 0.1 _ <> <(:)
	done
	if [ "$kind" = wgx ]; then
		"$tool" show "$dev" --json >"$WORK/$base.a0.json" 2>&1
		n b "$tool" show "$dev" --json >"$WORK/$base.b0.json" 2>&1
	fi
	# b's UDP counters and devices (through its anchor): where a packet
	# decrypted but not delivered went (RcvbufErrors, InErrors).
	cat "/proc/$ANCHOR_b/net/snmp" >"$WORK/$base.snmp0.txt"
	cat "/proc/$ANCHOR_b/net/dev" >"$WORK/$base.dev0.txt"
	t0=$EPOCHREALTIME
	python3 "$here/rotgap.py" send "$ab" "$ROT_PORT" "$ROT_RATE" "$ROT_SECONDS" \
		"$WORK/$base.send.json" 2>"$WORK/$base.send.err" &
	sp=$!
	sleep "$ROT_BEFORE"
	# Step 1, on b (the receiving node): its new private key.
	t1=$EPOCHREALTIME
	if [ "$kind" = wgx ]; then
		err=$(n b "$tool" set "$dev" private-key "$k/rot-$kind-b2.key" key-grace "$ROT_GRACE" 2>&1)
	else
		err=$(n b "$tool" set "$dev" private-key "$k/rot-$kind-b2.key" 2>&1)
	fi
	rc_1=$?
	t1e=$EPOCHREALTIME
	[ $rc_1 -ne 0 ] && blog "rotation: $path: step 1 failed: $err"
	sleep "$ROT_STEP"
	# Step 2, on a (the peer): told the new key.
	t2=$EPOCHREALTIME
	if [ "$kind" = wgx ]; then
		err=$("$tool" set "$dev" peer "$(<"$k/rot-$kind-b.pub")" public-key "$(<"$k/rot-$kind-b2.pub")" 2>&1)
	else
		err=$("$tool" set "$dev" peer "$(<"$k/rot-$kind-b2.pub")" endpoint "$OUTER_B:$pb" \
			allowed-ips "$ab/32" peer "$(<"$k/rot-$kind-b.pub")" remove 2>&1)
	fi
	rc_2=$?
	t2e=$EPOCHREALTIME
	[ $rc_2 -ne 0 ] && blog "rotation: $path: step 2 failed: $err"
	wait "$sp"
	rc_s=$?
	wait "$rp"
	cat "/proc/$ANCHOR_b/net/snmp" >"$WORK/$base.snmp1.txt"
	cat "/proc/$ANCHOR_b/net/dev" >"$WORK/$base.dev1.txt"
	if [ "$kind" = wgx ]; then
		"$tool" show "$dev" --json >"$WORK/$base.a1.json" 2>&1
		n b "$tool" show "$dev" --json >"$WORK/$base.b1.json" 2>&1
	else
		"$tool" show "$dev" dump >"$WORK/$base.a1.txt" 2>&1
		n b "$tool" show "$dev" dump >"$WORK/$base.b1.txt" 2>&1
	fi
	record type=rot path="$path" file="$base" kind="$kind" dev="$dev" rc_send=$rc_s rc_step1=$rc_1 rc_step2=$rc_2 \
		t_start="$t0" t_step1="$t1" t_step1_done="$t1e" t_step2="$t2" t_step2_done="$t2e" \
		new_pub="$(<"$k/rot-$kind-b2.pub")" old_pub="$(<"$k/rot-$kind-b.pub")"
	# Down: quiet for what follows (b keeps a grace timer running).
	ip link set "$dev" down
	ip -n b link set "$dev" down
}

if [ "${ROT_SECONDS:-0}" -gt 0 ]; then
	for p in $PATHS; do
		case $p in wireguard | wgx) rot_kind "$p" ;; esac
	done
fi

# ---- handshakes per second --------------------------------------------------------
# HS_PEERS initiator devices here in a (hki<n> for wireguard, hxi<n> for wgx;
# keys made by the host, one peer each: the responder, with persistent
# keepalive), one responder in b (hkr0 / hxr0) with all of them as peers.  A
# wave: every device down (which clears sessions and handshake state), the
# responder up, then every initiator up in one `ip -batch`, so each initiates
# at once; wgx-bench-nl times it from b until every peer's latest handshake
# on the responder is new.  Devices are made once per kind.  Handshake
# messages are not transport data, so this runs for every tunnel kind asked
# for, even one whose datapath failed.
hs_kind() {
	local path=$1 kind tool w err file resp
	kind=$(path_kind "$path")
	tool=$(path_tool "$path")
	resp=hkr0
	[ "$kind" = wgx ] && resp=hxr0
	blog "handshakes: $path, $HS_PEERS initiators, $HS_WAVES waves"
	if ! err=$(ip -n b link add "$resp" type "$kind" 2>&1); then
		err="ip link add $resp type $kind: $err"
	elif ! err=$(n b "$tool" setconf "$resp" "$WORK/hs/resp-$kind.conf" 2>&1); then
		err="$tool setconf $resp: ${err:-failed without a message}"
	elif ! err=$(ip -batch "$WORK/hs/add-$kind.batch" 2>&1); then
		err="ip -batch (creating the initiators): $err"
	elif ! err=$("$NL_BIN" setup "$kind" "$WORK/hs/setup-$kind.txt" 2>&1); then
		err="configuring the initiators: $err"
	else
		err=
	fi
	if [ -n "$err" ]; then
		record type=hs path="$path" round=0 error="handshake setup failed: $err"
		ip -batch "$WORK/hs/del-$kind.batch" 2>/dev/null
		ip -n b link del "$resp" 2>/dev/null
		return
	fi
	for ((w = 1; w <= HS_WAVES; w++)); do
		ip -batch "$WORK/hs/down-$kind.batch"
		ip -n b link set "$resp" down
		ip -n b link set "$resp" up
		file=raw/hs-$path-$w.json
		n b "$NL_BIN" wait "$kind" "$resp" "$HS_PEERS" "$HS_TIMEOUT" \
			ip -n a -batch "$WORK/hs/up-$kind.batch" >"$WORK/$file" 2>"$WORK/$file.err"
		record type=hs path="$path" round="$w" file="$file" rc=$?
	done
	# Down, not deleted (that takes a minute under TCG): quiet for what follows.
	ip -batch "$WORK/hs/down-$kind.batch"
	ip -n b link set "$resp" down
}

# eph_stat KIND — wgx.ko's counters of the X25519 work made ahead, one line
# ("pool_held H pool_made M pool_taken T pool_missed X ... slots_held H
# slots_pending P slots_made M slots_used U ...", kmod/precompute.c), for
# KIND wgx; nothing for others.  Read by the shell itself: a fork+exec
# would cost the window it measures.
eph_stat() {
	local line
	[ "$1" = wgx ] || return 0
	read -r line </sys/kernel/debug/wgx/precompute_stats && printf '%s\n' "$line"
}

# HS_PIDS: "PID NAME" lines of wgx.ko's handshake threads (wgx-hs/N) and
# its wgx-precompute thread, found once per storm (storm_kind); hs_stat KIND
# prints "NAME RUN_NS WAIT_NS SLICES" (/proc/PID/schedstat) for each, for
# KIND wgx only, read by the shell itself (no fork in the window).  Which
# threads did a wave's work is part of the bed check: ring work spread over
# the threads, or all of it on one.
HS_PIDS=
hs_stat() {
	local pid name line
	[ "$1" = wgx ] && [ -n "$HS_PIDS" ] || return 0
	while read -r pid name; do
		read -r line <"/proc/$pid/schedstat" && printf '%s %s\n' "$name" "$line"
	done <<<"$HS_PIDS"
}

# cpu_stat — one line: the wall clock (s) and /proc/stat's "cpu" line,
# read by the shell itself (a fork+exec would land in the window measured).
cpu_stat() {
	local line
	read -r line </proc/stat
	echo "$EPOCHREALTIME $line"
}

# ---- handshake storms ----------------------------------------------------------------
# storm_kind PATH — for each N of STORM_SIZES, ROUNDS waves of N initiators
# asking for a handshake at the same moment against one responder, while an established
# peer of that responder is pinged every STORM_PING_INTERVAL s.  Initiators:
# <p>i<n> devices in a, one peer each (the responder <p>r0 in b, which has
# all of them), no keepalive, allowed IP 10.<k>.x.y/32 routed to the device.
# A wave: everything down (clears sessions), the responder and the
# established peer <p>e0 up (10.25x.0.2 -> .1, session made by 3 pings,
# then STORM_IDLE_PINGS idle pings), the N initiators up and routed (not
# timed: bringing devices up is not handshaking, and at 1,000 devices it
# takes seconds), then `wgx-bench-nl kick` sends one datagram to each of the
# N addresses and `wgx-bench-nl wait` times the sessions from there, by the
# responder's own stamp of each completion (its last handshake time), so
# its poll only notices them: every 250 ms, since a dump of 1,000 peers
# costs tens of ms under TCG, CPU the handshakes need.  Bed check, both kinds alike:
# iptables counters on b's listen port by IP length count the initiations
# received (176 bytes), responses (120) and cookie replies (92) sent; for
# wgx also the responder's under-load and cookie counters and its handshake
# budget (`wgx show --json`); and the guest's CPU time while `wait` ran
# and, for the background (the ping, the devices' timers), while the idle
# pings ran (cpu_stat before and after each), which give the CPU cost of a
# handshake, both ends and the kick together.  The pings are
# wgx-bench-ping's (bench/ping.c), which sleeps between probes: iputils
# ping spins on sched_yield() between a
# reply and its next probe at a 10 ms interval, and under TCG that took
# 0.2-0.97 of the two vCPUs from the waves it shared them with.
storm_kind() {
	local path=$1 kind tool resp est pre port net n w err file ipt ping_pid rc poll traced
	kind=$(path_kind "$path")
	tool=$(path_tool "$path")
	if [ "$kind" = wgx ]; then pre=sx port=52011 net=253; else pre=sk port=52010 net=252; fi
	resp=${pre}r0 est=${pre}e0
	blog "storm: $path, $STORM_SIZES initiators, setting up"
	HS_PIDS=
	if [ "$kind" = wgx ]; then
		local pid
		for pid in $(pgrep -x 'wgx-hs/[0-9]+|wgx-precompute'); do
			HS_PIDS+="$pid $(cat "/proc/$pid/comm")"$'\n'
		done
		HS_PIDS=${HS_PIDS%$'\n'}
	fi
	if ! err=$(ip -n b link add "$resp" type "$kind" 2>&1); then
		err="ip link add $resp type $kind: $err"
	elif ! err=$(n b "$tool" setconf "$resp" "$WORK/storm/resp-$kind.conf" 2>&1); then
		err="$tool setconf $resp: ${err:-failed without a message}"
	elif ! err=$(ip link add "$est" type "$kind" 2>&1 && "$tool" setconf "$est" "$WORK/storm/est-$kind.conf" 2>&1 &&
		ip addr add "10.$net.0.2/24" dev "$est" && ip -n b addr add "10.$net.0.1/24" dev "$resp" 2>&1); then
		err="the established peer: ${err:-failed without a message}"
	elif ! err=$(ip -batch "$WORK/storm/add-$kind.batch" 2>&1); then
		err="ip -batch (creating the initiators): $err"
	elif ! err=$("$NL_BIN" setup "$kind" "$WORK/storm/setup-$kind.txt" 2>&1); then
		err="configuring the initiators: $err"
	else
		err=
	fi
	if [ -n "$err" ]; then
		for n in $STORM_SIZES; do
			record type=storm path="$path" size="$n" error="storm setup failed: $err"
		done
		return
	fi
	ipt=1
	n b iptables -w -A INPUT -p udp --dport "$port" -m length --length 176 -j ACCEPT 2>/dev/null &&
		n b iptables -w -A OUTPUT -p udp --sport "$port" -m length --length 120 -j ACCEPT &&
		n b iptables -w -A OUTPUT -p udp --sport "$port" -m length --length 92 -j ACCEPT || ipt=0
	for n in $STORM_SIZES; do
		for ((w = 1; w <= ROUNDS; w++)); do
			ip -batch "$WORK/storm/down-$kind.batch"
			ip link set "$est" down
			ip -n b link set "$resp" down
			ip -n b link set "$resp" up
			ip link set "$est" up
			file=raw/storm-$path-$n-$w
			if ! err=$(ip -batch "$WORK/storm/up$n-$kind.batch" 2>&1 && ip -batch "$WORK/storm/routes$n-$kind.batch" 2>&1); then
				record type=storm path="$path" size="$n" round="$w" error="bringing the initiators up: $err"
				continue
			fi
			"$PING_BIN" -c 3 -i 0.2 -W 2 "10.$net.0.1" >/dev/null 2>&1
			cpu_stat >"$WORK/$file.idlestat0.txt"
			"$PING_BIN" -c "$STORM_IDLE_PINGS" -i "$STORM_PING_INTERVAL" -W 1 "10.$net.0.1" >"$WORK/$file.idle.txt" 2>&1
			cpu_stat >"$WORK/$file.idlestat1.txt"
			# What the background is, once per size (the probe's start-up costs a second).
			[ "$w" = 1 ] && python3 "$here/cpu-tasks.py" 1 >"$WORK/$file.tasks.json" 2>&1
			[ "$ipt" = 1 ] && n b iptables-save -c >"$WORK/$file.ipt0.txt" 2>&1
			[ "$kind" = wgx ] && n b "$tool" show "$resp" --json >"$WORK/$file.show0.json" 2>&1
			eph_stat "$kind" >"$WORK/$file.eph0.txt"
			hs_stat "$kind" >"$WORK/$file.hs0.txt"
			poll=250
			blog "storm: $path, $n initiators at once, wave $w of $ROUNDS (poll every $poll ms)"
			# --storm-perf: the first wave of 100 under perf (a diagnostic).
			# perf starts first (under TCG it takes seconds to list every
			# task) and stops right after the wave; its report is made
			# after the wave's CPU reading.  The profile also holds the
			# 5 s of idle before the wave.
			perf_pid=
			if [ -n "${STORM_PERF:-}" ] && [ "$n" = 100 ] && [ "$w" = 1 ]; then
				perf record -q -a -g --no-buildid -F 999 -e cpu-clock -o "/tmp/$path.perf.data" &
				perf_pid=$!
				sleep 5
			fi
			"$PING_BIN" -i "$STORM_PING_INTERVAL" -W 1 -w "$STORM_TIMEOUT" "10.$net.0.1" >"$WORK/$file.ping.txt" 2>&1 &
			ping_pid=$!
			# --storm-trace: the first wave of 100 under the function tracer.
			traced=
			if [ -n "${STORM_TRACE:-}" ] && [ "$n" = 100 ] && [ "$w" = 1 ]; then
				# stop as well after a failed start: it may have turned tracing on.
				bash "$here/storm-trace.sh" start
				traced=1
			fi
			cpu_stat >"$WORK/$file.stat0.txt"
			WGX_BENCH_POLL_MS=$poll WGX_BENCH_CMD_NETNS=/var/run/netns/a n b "$NL_BIN" wait "$kind" "$resp" "$n" "$STORM_TIMEOUT" \
				"$NL_BIN" kick "10.$((net - 4)).0.1" "$n" 9 >"$WORK/$file.json" 2>"$WORK/$file.err"
			rc=$?
			[ -n "$perf_pid" ] && kill -INT "$perf_pid"
			cpu_stat >"$WORK/$file.stat1.txt"
			[ -n "$traced" ] && bash "$here/storm-trace.sh" stop >"$WORK/$file.trace.txt"
			kill -INT "$ping_pid" 2>/dev/null
			wait "$ping_pid" 2>/dev/null
			if [ -n "$perf_pid" ]; then
				wait "$perf_pid"
				{
					echo "# $path, wave $w of $n: by task"
					perf report -i "/tmp/$path.perf.data" --stdio --no-children -g none --sort comm --percent-limit 0.5 2>&1
					echo "# by symbol"
					perf report -i "/tmp/$path.perf.data" --stdio --no-children -g none --sort sym --percent-limit 0.3 2>&1
					echo "# by task and symbol"
					perf report -i "/tmp/$path.perf.data" --stdio --no-children -g none --sort comm,sym --percent-limit 0.3 2>&1
					echo "# by symbol, callers of the top ones"
					perf report -i "/tmp/$path.perf.data" --stdio --children -g caller,0.5,callee --sort sym --percent-limit 3 2>&1 | head -n 1500
				} >"$WORK/$file.perf.txt"
				rm -f "/tmp/$path.perf.data"
			fi
			[ "$ipt" = 1 ] && n b iptables-save -c >"$WORK/$file.ipt1.txt" 2>&1
			[ "$kind" = wgx ] && n b "$tool" show "$resp" --json >"$WORK/$file.show1.json" 2>&1
			eph_stat "$kind" >"$WORK/$file.eph1.txt"
			hs_stat "$kind" >"$WORK/$file.hs1.txt"
			record type=storm path="$path" size="$n" round="$w" file="$file" rc="$rc" iptables="$ipt" port="$port"
		done
	done
	# The responder alone: BURST_SIZES initiations made in advance by
	# `wgx-bench-nl burst` (the host build of the core) and sent back to
	# back, ROUNDS times each, a second apart (a peer's next initiation
	# must carry a later timestamp).  Nothing else runs meanwhile: the
	# initiator devices go down first.  Left up, each of them that had
	# sent the last wave's kick expected an answer within KEEPALIVE +
	# REKEY_TIMEOUT (15 s); a burst moves the responder's endpoint of its
	# peers to the burst's socket, so the responder's keepalive went there,
	# and 15 s after the kick the real initiators re-handshook, in the
	# middle of a burst whose older timestamps the responder then refused
	# (a burst of 400 was once answered 140 and 174 times, while the
	# module made about 800 other handshake messages).
	ip -batch "$WORK/storm/down-$kind.batch"
	for n in ${BURST_SIZES:-}; do
		for ((w = 1; w <= ROUNDS; w++)); do
			file=raw/burst-$path-$n-$w
			blog "storm: $path, responder alone: $n prepared initiations, burst $w of $ROUNDS"
			eph_stat "$kind" >"$WORK/$file.eph0.txt"
			n a "$NL_BIN" burst "$WORK/storm/setup-$kind.txt" "$n" 30 >"$WORK/$file.json" 2>&1
			rc=$?
			eph_stat "$kind" >"$WORK/$file.eph1.txt"
			record type=burst path="$path" size="$n" round="$w" file="$file" rc="$rc"
			sleep 1
		done
	done
	ip -batch "$WORK/storm/down-$kind.batch"
	ip link set "$est" down
	ip -n b link set "$resp" down
	[ "$ipt" = 1 ] && n b iptables -w -F
}

# ---- configuring many peers, memory per peer ----------------------------------------
# `<tool> setconf` of SETCONF_PEERS peers (random keys, one /32 each, private
# key set, so wireguard.ko computes every peer's static-static DH at creation;
# wgx leaves it to the peer's first handshake) into a fresh device;
# unreclaimable slab, per-CPU and vmalloc memory before and after
# (reclaimable caches dropped) give the memory per peer.
setconf_kind() {
	local path=$1 round=$2 kind tool su0 su1 pc0 pc1 sl0 sl1 vm0 vm1 t0 el rc seen err dev
	kind=$(path_kind "$path")
	tool=$(path_tool "$path")
	blog "setconf: $path, $SETCONF_PEERS peers"
	# The device is left in place when done: deleting 10,000 peers takes
	# minutes under TCG (per-peer teardown), and the VM is thrown away.
	# One device per round (at most 15 characters: pcf_wireguard_3).
	dev=pcf_${kind}_$round
	ip link add "$dev" type "$kind" || {
		record type=setconf path="$path" round="$round" error="ip link add type $kind failed"
		return
	}
	drop_caches
	# Bed check: a quiet guest, else the busiest threads, kept with the sample.
	quiet_wait 30 || python3 "$here/cpu-tasks.py" 1 4 >"$RAW/setconf-$path-$round.tasks.json" 2>&1
	su0=$(meminfo_kb SUnreclaim) pc0=$(meminfo_kb Percpu) sl0=$(meminfo_kb Slab) vm0=$(meminfo_kb VmallocUsed)
	t0=$EPOCHREALTIME
	err=$("$tool" setconf "$dev" "$WORK/peers.conf" 2>&1)
	rc=$?
	elapsed_s el "$t0"
	sleep 1
	drop_caches
	su1=$(meminfo_kb SUnreclaim) pc1=$(meminfo_kb Percpu) sl1=$(meminfo_kb Slab) vm1=$(meminfo_kb VmallocUsed)
	seen=$("$NL_BIN" count "$kind" "$dev")
	seen=${seen//[!0-9]/}
	if [ $rc -ne 0 ]; then
		record type=setconf path="$path" round="$round" error="$tool setconf failed (exit $rc): ${err:-no message}"
	else
		record type=setconf path="$path" round="$round" peers="$SETCONF_PEERS" seen="${seen:-0}" \
			seconds="$el" idle_before_pct="$QUIET_IDLE" quiet_waited_s="$QUIET_WAITED" \
			sunreclaim_kb="$((su1 - su0))" percpu_kb="$((pc1 - pc0))" \
			slab_kb="$((sl1 - sl0))" vmalloc_kb="$((vm1 - vm0))"
	fi
}

# Handshakes and configuration: one wgx path stands for all of them (the
# mixed pairs have no such workload of their own).
tunnels=()
for p in $PATHS; do
	case $p in bare | wgx_p* | wgx_rs | wgx_r0 | wgx_wg | wg_wgx) ;; *) tunnels+=("$p") ;; esac
done
if [ "$HS_PEERS" -gt 0 ]; then
	for p in "${tunnels[@]}"; do
		hs_kind "$p"
	done
fi
if [ -n "${STORM_SIZES:-}" ]; then
	for p in "${tunnels[@]}"; do
		storm_kind "$p"
	done
fi
if [ "$SETCONF_PEERS" -gt 0 ]; then
	for ((round = 1; round <= SETCONF_ROUNDS; round++)); do
		for ((i = 0; i < ${#tunnels[@]}; i++)); do
			setconf_kind "${tunnels[$(((i + round) % ${#tunnels[@]}))]}" "$round"
		done
	done
fi
blog "done"
