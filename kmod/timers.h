/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.h - kernel timers driving the core's per-peer timer state machine
 * (kmod/core/timers.cpp; whitepaper section 6).
 *
 * Every event function may be called in any context (process or softirq);
 * each takes the peer's timers_lock (spin_lock_bh) around the core call and
 * mirrors the deadlines the core changed onto kernel timers.  Nothing is armed
 * for a dead peer or a device that is down.
 */
#ifndef WGX_TIMERS_H
#define WGX_TIMERS_H

#include <linux/types.h>

struct wgx_peer;

/** wgx_timers_clock_ns - the monotonic clock of the core: boot time in ns. */
u64 wgx_timers_clock_ns(void);

void wgx_timers_peer_init(struct wgx_peer *peer);
/** wgx_timers_peer_stop - disarm and wait for running callbacks.  Process context. */
void wgx_timers_peer_stop(struct wgx_peer *peer);

void wgx_timers_data_sent(struct wgx_peer *peer);
void wgx_timers_data_received(struct wgx_peer *peer);
void wgx_timers_any_authenticated_packet_sent(struct wgx_peer *peer);
void wgx_timers_any_authenticated_packet_received(struct wgx_peer *peer);
void wgx_timers_any_authenticated_packet_traversal(struct wgx_peer *peer);
void wgx_timers_handshake_initiated(struct wgx_peer *peer);
void wgx_timers_handshake_complete(struct wgx_peer *peer);
void wgx_timers_session_derived(struct wgx_peer *peer);
/** wgx_timers_set_persistent_keepalive - @interval in seconds, 0 = off. */
void wgx_timers_set_persistent_keepalive(struct wgx_peer *peer, u16 interval);
/** wgx_timers_initiation_begin - rate limit for initiations (REKEY_TIMEOUT); see core. */
bool wgx_timers_initiation_begin(struct wgx_peer *peer, bool is_retry);
/** wgx_timers_initiation_forget - the next initiation may go at once (our key changed). */
void wgx_timers_initiation_forget(struct wgx_peer *peer);

/** Test-only divisor of every protocol time (module parameter timer_scale; 1 = real). */
extern unsigned int wgx_timer_scale;

#endif /* WGX_TIMERS_H */
