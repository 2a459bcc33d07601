#!/usr/bin/env bash
# bench/probes/hs-profile.sh [DIR] — issue #16 (c): where handshake time goes,
# wgx vs wireguard.ko.  Run in the VM: scripts/vm --smp 2 -- bash bench/probes/hs-profile.sh
# after `bench/probes/hs-keys.py build/hsprof` on the host; output in DIR/out
# (wgx-bench-nl JSON per wave, /proc/softirqs, traces: bench/probes/trace-sum.py).
# 100 single-peer initiator devices in a, one responder in b (as bench hs).
# Per kind: wave 1 untraced (poll 5 ms), wave 2 untraced (poll 200 ms),
# wave 3 with function_graph on the handshake functions + workqueue events,
# wave 4 with the function tracer (call counts only).
. "$(dirname "$0")/common.sh" out "${1:-}"
for kind in wireguard wgx; do
	if [ $kind = wgx ]; then pre=hx tool=$WGX_TOOL; else pre=hk tool=wg; fi
	resp=${pre}r0
	ip -n b link add $resp type $kind
	n b $tool setconf $resp $D/resp-$kind.conf
	ip -n a -batch $D/add-$kind.batch
	ip netns exec a $NL setup $kind $D/setup-$kind.txt
	for w in 1 2 3 4; do
		ip -n a -batch $D/down-$kind.batch
		ip -n b link set $resp down; ip -n b link set $resp up
		poll=5; [ $w = 2 ] && poll=200
		cat /proc/softirqs > $OUT/$kind-$w.softirq0
		if [ $w -ge 3 ]; then
			echo 0 > $T/tracing_on; echo > $T/trace
			echo nop > $T/current_tracer
			echo 16384 > $T/buffer_size_kb
			: > $T/set_ftrace_filter
			for f in curve25519_arch curve25519_generic blake2s_compress blake2s_compress_generic blake2s_update blake2s_final \
				chacha20poly1305_encrypt chacha20poly1305_decrypt \
				wg_packet_handshake_receive_worker wg_packet_handshake_send_worker wg_noise_handshake_consume_initiation \
				wg_noise_handshake_create_response wg_noise_handshake_consume_response wg_noise_handshake_create_initiation \
				wg_noise_handshake_begin_session wg_cookie_validate_packet wg_get_device_dump wg_get_device_start \
				wgx_handshake_worker wgx_handshake_process wgx_handshake_consume_initiation wgx_handshake_consume_response \
				wgx_handshake_initiation_worker wgx_noise_consume_initiation_begin wgx_noise_consume_initiation_finish \
				wgx_noise_create_response wgx_noise_consume_response wgx_noise_create_initiation wgx_noise_begin_session \
				wgx_netlink_get_dumpit wgx_cookie_checker_validate wgx_platform_curve25519 wgx_platform_curve25519_generate_public \
				wgx_index_hashtable_insert wgx_pubkey_hashtable_lookup wgx_keypair_create wgx_peer_keypair_install \
				wgx_socket_send_buffer_to_peer wg_socket_send_buffer_to_peer wgx_send_keepalive wg_packet_send_keepalive; do
				echo $f >> $T/set_ftrace_filter 2>/dev/null
			done
			wc -l < $T/set_ftrace_filter > $OUT/$kind-$w.nfilter
			if [ $w = 3 ]; then
				echo function_graph > $T/current_tracer
				echo 1 > $T/options/funcgraph-tail 2>/dev/null
			else
				echo function > $T/current_tracer   # call counts only (cheaper)
			fi
			echo 1 > $T/events/workqueue/workqueue_queue_work/enable
			echo 1 > $T/tracing_on
		fi
		WGX_BENCH_POLL_MS=$poll ip netns exec b $NL wait $kind $resp 100 60 ip -n a -batch $D/up-$kind.batch > $OUT/$kind-$w.json 2>$OUT/$kind-$w.err
		cat /proc/softirqs > $OUT/$kind-$w.softirq1
		if [ $w -ge 3 ]; then
			echo 0 > $T/tracing_on
			echo 0 > $T/events/workqueue/workqueue_queue_work/enable
			cat $T/trace > $OUT/$kind-$w.trace
			echo nop > $T/current_tracer
		fi
		cat $OUT/$kind-$w.json
	done
	ip -n a -batch $D/down-$kind.batch
	ip -n b link set $resp down
done
grep -m1 -o "curve25519[a-z_]*" /proc/kallsyms | head -3 > $OUT/curve.txt
grep -w "curve25519_arch\|curve25519_generic" /proc/kallsyms >> $OUT/curve.txt
echo PROBE-DONE
