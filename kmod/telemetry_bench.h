/* SPDX-License-Identifier: GPL-2.0 */
/*
 * telemetry_bench.h - the per-packet cost of the TCP telemetry hooks
 * (telemetry.h) against the cipher the packet pays for anyway: an on-demand
 * micro-benchmark in debugfs, so the cost can be told apart from the noise
 * of end-to-end runs (docs/telemetry.md, "Cost").
 *
 * Off by default: nothing runs until a number is written to
 * /sys/kernel/debug/wgx/telemetry_cost.  Only in the debug build (WGX_DEBUG,
 * kmod/Kbuild); a release module has no such file.
 *
 *   echo N > telemetry_cost   time every case below over N iterations
 *                             (1,000..10,000,000; the cipher cases over
 *                             max(N/64, 16)), five runs interleaved, on the
 *                             writer's CPU with bottom halves off (as the
 *                             datapath runs); the write returns when done
 *                             (-EBUSY if a run is going, -EINVAL for bad N,
 *                             -ENOMEM, -EINTR on a signal)
 *   cat telemetry_cost        the last run: "key value" header lines, then
 *                             one line a case: "<case> <median_ps> <min_ps>
 *                             <max_ps>", picoseconds per iteration over the
 *                             five runs, loop overhead INCLUDED (case "loop"
 *                             is the empty loop, to subtract)
 *
 * The cases (skbs built once: an IPv4 TCP segment of 1420 bytes with the
 * timestamp option, 1368 bytes of payload; an IPv4 UDP datagram with 64
 * bytes of payload, 92 bytes):
 *   loop            the loop alone
 *   tx_due          wgx_telemetry_tcp_due(): the per-packet transmit test
 *   tx_tcp_hook     send.c's hook on the TCP segment: due(), and for one
 *                   packet in WGX_TELEMETRY_TCP_EVERY (the real per-CPU tick)
 *                   wgx_telemetry_tcp_sample_sent(); not included: send.c's
 *                   wgx_peer_has_sending_keypair() on those sampled packets
 *   tx_tcp_sampled  wgx_telemetry_tcp_sample_sent() on every iteration (the
 *                   sampled path: parse, lock, flow table; a sample pending)
 *   tx_udp_hook, tx_udp_sampled   the same on the UDP datagram
 *   rx_idle         receive.c's hook, no sample pending (one load, a branch)
 *   rx_tcp_pending  the hook while a sample is pending, on a segment of the
 *                   sampled flow echoing an earlier TSval (parse, compare,
 *                   no lock): what every received TCP packet of the peer
 *                   pays while a sample waits for its echo
 *   rx_tcp_echo     the echo that ends the sample (parse, lock, RTT update),
 *                   the sample re-armed by one store each iteration
 *   rx_udp_pending  the hook while a TCP sample is pending, on the datagram
 *   enc_tcp, dec_tcp   chacha20poly1305_encrypt()/_decrypt() of 1420 bytes
 *   enc_udp, dec_udp   the same of 96 bytes (92 padded to 16, as the
 *                   WireGuard transport data message pads)
 * The switch tcp_telemetry is read as the datapath reads it: with it off,
 * the *_hook and rx_* cases should cost what "loop" costs (the sampled
 * cases call the sampler directly and do not look at it).
 */
#ifndef WGX_TELEMETRY_BENCH_H
#define WGX_TELEMETRY_BENCH_H

#ifdef WGX_DEBUG

/**
 * wgx_telemetry_bench_init - create /sys/kernel/debug/wgx/telemetry_cost.
 *
 * Process context (module init), after wgx_bench_init() (which creates
 * debugfs wgx/).  Cannot fail: without debugfs there is simply no file.
 */
void wgx_telemetry_bench_init(void);

/**
 * wgx_telemetry_bench_uninit - remove the file; waits for a run in progress.
 * Process context (module exit), before wgx_bench_uninit().
 */
void wgx_telemetry_bench_uninit(void);

#else /* release build: no telemetry cost benchmark */

static inline void wgx_telemetry_bench_init(void)
{
}

static inline void wgx_telemetry_bench_uninit(void)
{
}

#endif /* WGX_DEBUG */

#endif /* WGX_TELEMETRY_BENCH_H */
