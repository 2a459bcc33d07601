#!/usr/bin/env bash
# bench/probes/up-profile.sh [DIR] — issue #16 (c), part 2: what `ip link set up` of 100 single-peer
# devices costs, wgx vs wireguard.ko (the handshake wave tracks it).
. "$(dirname "$0")/common.sh" up "${1:-}"
for kind in wireguard wgx; do
	if [ $kind = wgx ]; then pre=hx; else pre=hk; fi
	ip -n a -batch $D/add-$kind.batch
	ip netns exec a $NL setup $kind $D/setup-$kind.txt >/dev/null
	for w in 1 2; do
		t0=$EPOCHREALTIME; ip -n a -batch $D/up-$kind.batch; t1=$EPOCHREALTIME
		sleep 2
		ip -n a -batch $D/down-$kind.batch; t2=$EPOCHREALTIME
		echo "$kind wave $w: up $(echo "$t1 - $t0" | bc) s, down $(echo "$t2 - $t1 - 2" | bc) s" | tee -a $OUT/times.txt
		sleep 1
	done
	echo 0 > $T/tracing_on; echo > $T/trace; echo nop > $T/current_tracer
	echo 16384 > $T/buffer_size_kb
	: > $T/set_ftrace_filter
	for f in dev_change_flags __dev_open __dev_close_many wgx_open wg_open dev_activate qdisc_create_dflt fq_codel_init mq_init \
		synchronize_net synchronize_rcu_expedited synchronize_rcu udp_sock_create4 udp_sock_create6 setup_udp_tunnel_sock \
		call_netdevice_notifiers_info rtmsg_ifinfo __dev_notify_flags dev_set_rx_mode netdev_state_change \
		wgx_send_keepalive wg_packet_send_keepalive wgx_socket_init wg_socket_init addrconf_notify inetdev_event \
		linkwatch_fire_event dev_deactivate_many wgx_socket_create wg_socket_reinit wgx_socket_install \
		udp_tunnel_push_rx_port udp_tunnel_notify_add_rx_port ipv6_mod_enabled sock_create_kern udp_sock_create \
		kernel_bind inet_bind inet6_bind; do
		echo $f >> $T/set_ftrace_filter 2>/dev/null
	done
	wc -l < $T/set_ftrace_filter > $OUT/$kind.nfilter
	echo function_graph > $T/current_tracer
	echo 1 > $T/options/funcgraph-tail 2>/dev/null
	echo 1 > $T/tracing_on
	ip -n a -batch $D/up-$kind.batch
	echo 0 > $T/tracing_on
	cat $T/trace > $OUT/$kind-up.trace
	echo nop > $T/current_tracer
	ip -n a -batch $D/down-$kind.batch
done
echo UPPROF-DONE
