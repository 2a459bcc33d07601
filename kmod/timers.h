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

#include "clock.h"

struct wgx_peer;

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
enum wgx_initiation_verdict {
	WGX_INITIATION_SEND,	/* make and send it now */
	WGX_INITIATION_NOT_DUE,	/* one went less than REKEY_TIMEOUT ago: drop the request */
	WGX_INITIATION_PACED,	/* the device's handshake budget defers it */
	WGX_INITIATION_SUPERSEDED, /* deferred, and a session was derived since it was asked for: drop it */
};

/**
 * wgx_timers_initiation_begin - may an initiation to @peer go now?  First the
 * per-peer rule (at most one per REKEY_TIMEOUT, whitepaper 6.1; see
 * wgx_timers_core_initiation_begin(), which records the initiation when it
 * returns SEND), then, unless @has_slot (the request already holds a slot
 * of the budget, taken when it was deferred), the device's handshake budget
 * (wgx_handshake_budget_take()).  PACED sets *@delay_ns to when the slot the
 * budget reserved for this initiation comes (ns from now, > 0) and
 * *@interval_ns to the budget's interval; nothing of the peer's timer state
 * changes then, so the deferred initiation is no attempt (REKEY_ATTEMPT_TIME
 * counts initiations sent).  With @has_slot, first: SUPERSEDED when a
 * keypair was derived after @asked_ns (when the initiation was last asked
 * for, wgx_clock_ns()); nothing changes then either (no attempt, no
 * timer: the session's own timers take over).  Any context; takes @peer's
 * timers_lock (BH), inside which the budget is taken locklessly.
 */
enum wgx_initiation_verdict wgx_timers_initiation_begin(struct wgx_peer *peer, bool is_retry,
							 bool has_slot, u64 asked_ns,
							 u64 *delay_ns, u32 *interval_ns);
/** wgx_timers_initiation_forget - the next initiation may go at once (our key changed). */
void wgx_timers_initiation_forget(struct wgx_peer *peer);
/**
 * wgx_timers_cookie_retry - wgx_timers_core_cookie_retry() for @peer: true
 * when the caller may send the outstanding initiation again at once (as a
 * retry) because a cookie reply answered it.  Any context; takes @peer's
 * timers_lock (BH).
 */
bool wgx_timers_cookie_retry(struct wgx_peer *peer);

#endif /* WGX_TIMERS_H */
