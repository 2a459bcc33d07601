#!/bin/bash
# bench/storm-trace.sh start|stop — the storm's --storm-trace diagnostic
# (scripts/bench): ftrace's function tracer on the handshake functions of
# wgx.ko and wireguard.ko, whichever are loaded.  "start" clears the buffer,
# sets the filter, turns tracing on and writes the marker "wgx-bench wave
# start" that bench/trace_summary.py times everything from; "stop" turns it
# off, prints the buffer and puts the tracer back to nop.  Exit status 1
# (with a message on stderr) when the kernel has no function tracer.
set -u
T=/sys/kernel/tracing
# Per message or per event, on both ends (names from kmod/ and from the
# in-tree drivers/net/wireguard of 6.1); a name that is not traceable (not
# loaded, inlined, or renamed by the compiler) is skipped and named on
# stderr.
FUNCS=(
	wgx_handshake_initiation_worker wgx_handshake_send_initiation wgx_handshake_process
	wgx_handshake_enqueue wgx_timers_handshake_complete wgx_send_keepalive wgx_send_staged
	wg_packet_handshake_send_worker wg_packet_send_handshake_initiation
	wg_packet_handshake_receive_worker wg_noise_handshake_consume_initiation
	wg_noise_handshake_create_response wg_noise_handshake_consume_response
	wg_timers_handshake_complete wg_packet_send_keepalive wg_packet_send_staged_packets
)

case "${1:-}" in
start)
	mountpoint -q "$T" || mount -t tracefs nodev "$T" 2>/dev/null
	[ -w "$T/current_tracer" ] && grep -qw function "$T/available_tracers" ||
		{ echo "storm-trace: no function tracer in $T" >&2; exit 1; }
	echo 0 >"$T/tracing_on"
	echo nop >"$T/current_tracer"
	: >"$T/trace"
	: >"$T/set_ftrace_filter"
	n=0
	for f in "${FUNCS[@]}"; do
		if echo "$f" >>"$T/set_ftrace_filter" 2>/dev/null; then
			n=$((n + 1))
		else
			echo "storm-trace: $f is not traceable, skipped" >&2
		fi
	done
	[ "$n" -gt 0 ] || { echo "storm-trace: none of the functions is traceable" >&2; exit 1; }
	echo 4096 >"$T/buffer_size_kb"
	echo function >"$T/current_tracer"
	echo 1 >"$T/tracing_on"
	echo "wgx-bench wave start" >"$T/trace_marker" ||
		{ echo "storm-trace: cannot write the marker" >&2; exit 1; }
	;;
stop)
	echo 0 >"$T/tracing_on"
	cat "$T/trace"
	echo nop >"$T/current_tracer"
	: >"$T/set_ftrace_filter"
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
