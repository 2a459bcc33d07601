/* SPDX-License-Identifier: GPL-2.0 */
/*
 * telemetry.h - per-peer handshake RTT (issue 15; uapi WGX_PEER_STATS_A_
 * HANDSHAKE_RTT_LAST_US .. HANDSHAKE_RTT_SAMPLES).
 *
 * One sample per completed handshake:
 *  - initiator: the initiation sent -> its response received.  Only the
 *    latest initiation can be answered (a new one replaces the handshake's
 *    index, and the core refuses a response naming another), so its sender
 *    index and send time are all that is kept;
 *  - responder: the response sent -> the first transport data received on
 *    the keypair it created (the keypair's internal id is kept).
 * Samples above REKEY_TIMEOUT are skipped (an idle initiator's keepalive
 * delay, a stale clock).  Last, min, RFC 6298 SRTT and the count restart
 * when the peer's endpoint moves to another host.
 *
 * Locking: @lock is taken with bottom halves off (spin_lock_bh), because the
 * responder's sample is taken in the receive softirq and an endpoint change
 * comes from there too, while the handshake side runs in process context.
 * It nests inside endpoint_lock and handshake_lock and takes nothing else.
 */
#ifndef WGX_TELEMETRY_H
#define WGX_TELEMETRY_H

#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * struct wgx_telemetry - a peer's handshake RTT state, under @lock.
 * @init_index: sender index (host order) of the latest initiation sent.
 * @init_sent_ns: when it was sent (wgx_timers_clock_ns()); 0 = none pending.
 * @resp_keypair: internal id of the keypair of the latest response sent.
 * @resp_sent_ns: when that response was sent; 0 = none pending.
 * @rtt_last_us/@rtt_min_us/@srtt_us: latest, lowest, smoothed sample (us).
 * @rtt_samples: samples since the peer was created or its endpoint moved.
 */
struct wgx_telemetry {
	spinlock_t lock;
	u32 init_index;
	u64 init_sent_ns;
	u64 resp_keypair;
	u64 resp_sent_ns;
	u64 rtt_last_us;
	u64 rtt_min_us;
	u64 srtt_us;
	u64 rtt_samples;
};

/** struct wgx_telemetry_rtt - a consistent copy of the RTT figures (us). */
struct wgx_telemetry_rtt {
	u64 last_us, min_us, srtt_us, samples;
};

/** wgx_telemetry_init - no sample, nothing pending.  Any context. */
void wgx_telemetry_init(struct wgx_telemetry *t);

/**
 * wgx_telemetry_initiation_sent - an initiation with sender index @index
 * (host order) is about to be sent; call just before sending.  Process context.
 */
void wgx_telemetry_initiation_sent(struct wgx_telemetry *t, u32 index);

/**
 * wgx_telemetry_response_received - the response naming @index (our sender
 * index, host order) was consumed at @now_ns: one initiator sample when it
 * answers the initiation recorded last.  Process context.
 */
void wgx_telemetry_response_received(struct wgx_telemetry *t, u32 index, u64 now_ns);

/**
 * wgx_telemetry_response_sent - a response creating keypair @keypair_id
 * (struct wgx_keypair's internal_id) is about to be sent.  Process context.
 */
void wgx_telemetry_response_sent(struct wgx_telemetry *t, u64 keypair_id);

/**
 * wgx_telemetry_confirmed - the first transport data arrived on keypair
 * @keypair_id (it became current): one responder sample when the response
 * recorded last created it.  Receive softirq (or the rx-spread NAPI).
 */
void wgx_telemetry_confirmed(struct wgx_telemetry *t, u64 keypair_id);

/** wgx_telemetry_endpoint_moved - a new path: restart the RTT figures.  Any context. */
void wgx_telemetry_endpoint_moved(struct wgx_telemetry *t);

/** wgx_telemetry_read - copy the RTT figures (samples == 0: none yet).  Any context. */
void wgx_telemetry_read(struct wgx_telemetry *t, struct wgx_telemetry_rtt *out);

#endif /* WGX_TELEMETRY_H */
