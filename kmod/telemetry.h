/* SPDX-License-Identifier: GPL-2.0 */
/*
 * telemetry.h - per-peer RTT and TCP retransmission telemetry (docs/telemetry.md;
 * uapi WGX_PEER_STATS_A_HANDSHAKE_RTT_LAST_US .. TCP_RTT_SAMPLES and
 * TX_TCP_RETRANSMITS, TX_TCP_SEGMENTS).
 *
 * Handshake RTT, one sample per completed handshake:
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
 *
 * Passive TCP RTT (RFC 7323 timestamps of the inner flows, sampled):
 *  - transmit: one packet in WGX_TELEMETRY_TCP_EVERY (a per-CPU tick over
 *    every packet the device sends) is looked at.  If it is TCP with the
 *    timestamp option and no sample is pending (or the pending one is past
 *    its deadline: its echo was lost or never comes), its TSval, its ports
 *    and the send time become the pending sample;
 *  - receive (decrypted, allowed IPs checked): while a sample is pending,
 *    a TCP packet from the peer whose ports are the pending one's reversed
 *    and whose TSecr equals the pending TSval ends it with one sample; one
 *    echoing a later TSval of that flow ends it without (the peer's TCP
 *    echoes the earliest unacknowledged segment's TSval, RFC 7323 4.3, and
 *    has moved past the pending one).
 *  The deadline is an RTO-like 2 SRTT + 4 RTTVAR, clamped to 20 ms..1 s
 *  (1 s before the first sample); samples above REKEY_TIMEOUT are skipped.
 *  Last, min, RFC 6298 SRTT/RTTVAR and the count restart with the endpoint
 *  as the handshake RTT does.
 *
 * TCP retransmissions (approximate): the same sampled transmit packets, when
 * TCP with payload, are checked against a table of WGX_TELEMETRY_TCP_FLOWS
 * flows (slot by a hash of the addresses and ports, a colliding flow
 * replaces the entry):
 * a segment whose end is not after the highest end seen on its flow counts
 * as a retransmission.  A flow's first sampled segment only seeds its entry;
 * every segment compared counts in tx_tcp_segments.
 *
 * Only IPv4 (not fragments) and IPv6 whose first next header is TCP are
 * parsed; headers are read with skb_header_pointer(), the option walk stops
 * at the header's end.  The module parameter tcp_telemetry (default on,
 * writable at run time) switches the TCP samplers off.
 *
 * Locking: the state's @lock is taken with bottom halves off (spin_lock_bh), because the
 * responder's sample is taken in the receive softirq and an endpoint change
 * comes from there too, while the handshake side runs in process context.
 * It nests inside endpoint_lock and handshake_lock and takes nothing else.
 * The TCP samplers take it only for a sampled transmit packet and for a
 * received TSecr that matches; the receive path's test "is a sample
 * pending, does this packet match" reads @tcp_pending, @tcp_tsval and
 * @tcp_ports without it (READ_ONCE) and is repeated under the lock.
 */
#ifndef WGX_TELEMETRY_H
#define WGX_TELEMETRY_H

#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* One transmitted packet in this many is looked at by the TCP samplers (a power of 2). */
#define WGX_TELEMETRY_TCP_EVERY 16
/* Inner TCP flows whose highest sequence sent is remembered, per peer. */
#define WGX_TELEMETRY_TCP_FLOWS 8

/**
 * struct wgx_telemetry_flow - the highest sequence sent on one inner TCP flow.
 * @hash: hash of the flow's addresses and ports (0: empty slot).
 * @seq_end: highest sequence number + payload length seen (host order).
 */
struct wgx_telemetry_flow {
	u32 hash;
	u32 seq_end;
};

/** struct wgx_telemetry_rttstat - RTT figures in us; samples == 0: none yet. */
struct wgx_telemetry_rttstat {
	u64 last_us, min_us, srtt_us, rttvar_us, samples;
};

/**
 * struct wgx_telemetry_state - a peer's RTT state, under @lock.
 * @init_index: sender index (host order) of the latest initiation sent.
 * @init_sent_ns: when it was sent (wgx_clock_ns()); 0 = none pending.
 * @resp_keypair: internal id of the keypair of the latest response sent.
 * @resp_sent_ns: when that response was sent; 0 = none pending.
 * @rtt_last_us/@rtt_min_us/@srtt_us: latest, lowest, smoothed sample (us).
 * @rtt_samples: samples since the peer was created or its endpoint moved.
 * @tcp_pending: a passive TCP RTT sample is pending (READ_ONCE without @lock).
 * @tcp_tsval: its TSval, host order (READ_ONCE without @lock).
 * @tcp_ports: its source port << 16 | destination port, host order
 *	(READ_ONCE without @lock).
 * @tcp_sent_ns: when it was sent (wgx_clock_ns()).
 * @tcp_deadline_ns: after this a new sample may replace it.
 * @tcp: passive TCP RTT figures.
 * @tcp_retransmits/@tcp_segments: uapi TX_TCP_RETRANSMITS, TX_TCP_SEGMENTS.
 * @flows: the retransmission check's flow table.
 */
struct wgx_telemetry_state {
	spinlock_t lock;
	u32 init_index;
	u64 init_sent_ns;
	u64 resp_keypair;
	u64 resp_sent_ns;
	u64 rtt_last_us;
	u64 rtt_min_us;
	u64 srtt_us;
	u64 rtt_samples;
	bool tcp_pending;
	u32 tcp_tsval;
	u32 tcp_ports;
	u64 tcp_sent_ns;
	u64 tcp_deadline_ns;
	struct wgx_telemetry_rttstat tcp;
	u64 tcp_retransmits;
	u64 tcp_segments;
	struct wgx_telemetry_flow flows[WGX_TELEMETRY_TCP_FLOWS];
};

/**
 * struct wgx_telemetry - what a peer embeds: its state, allocated when the
 * first thing is recorded (an initiation or a response sent, a TCP sample
 * taken), so a peer that never handshakes pays a pointer.  @s is set once
 * (cmpxchg) and stays until wgx_telemetry_destroy(); NULL reads as "no
 * sample".  An allocation that fails loses that record only (counted in no
 * figure: the next record tries again).
 */
struct wgx_telemetry {
	struct wgx_telemetry_state *s;
};

/** struct wgx_telemetry_rtt - a consistent copy of the RTT figures (us). */
struct wgx_telemetry_rtt {
	u64 last_us, min_us, srtt_us, samples;
};

/** wgx_telemetry_init - no state yet: no sample, nothing pending.  Any context. */
void wgx_telemetry_init(struct wgx_telemetry *t);

/** wgx_telemetry_destroy - free the state, when nothing can record or read any more. */
void wgx_telemetry_destroy(struct wgx_telemetry *t);

/** wgx_telemetry_state_init - @s empty (no sample, nothing pending), its lock ready. */
void wgx_telemetry_state_init(struct wgx_telemetry_state *s);

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

/**
 * struct wgx_telemetry_tcpstat - a consistent copy of the TCP figures.
 * @rtt: passive TCP RTT (us); @retransmits/@segments: the retransmission check.
 */
struct wgx_telemetry_tcpstat {
	struct wgx_telemetry_rttstat rtt;
	u64 retransmits, segments;
};

/* Switch tcp_telemetry (debugfs wgx/tcp_telemetry, on); the per-CPU sampling tick. */
extern bool wgx_telemetry_tcp_enabled;
DECLARE_PER_CPU(unsigned int, wgx_telemetry_tcp_tick);

void wgx_telemetry_tcp_sample_sent(struct wgx_telemetry *t, const struct sk_buff *skb);
void wgx_telemetry_tcp_check_received(struct wgx_telemetry *t, const struct sk_buff *skb);

/**
 * wgx_telemetry_tcp_due - whether the inner packet about to be queued for a
 * peer is one of the one in WGX_TELEMETRY_TCP_EVERY that go to the TCP
 * samplers (wgx_telemetry_tcp_sample_sent(); the caller skips packets that
 * would wait for a handshake: their echo would time the handshake too).
 * Cost: a per-CPU increment and a branch.  Softirq or xmit context (BHs off).
 */
static inline bool wgx_telemetry_tcp_due(void)
{
	return READ_ONCE(wgx_telemetry_tcp_enabled) &&
	       unlikely(!(this_cpu_inc_return(wgx_telemetry_tcp_tick) & (WGX_TELEMETRY_TCP_EVERY - 1)));
}

/**
 * wgx_telemetry_tcp_received - a decrypted inner packet @skb (network header
 * at skb->data's network offset, source checked against the peer's allowed
 * IPs) arrived from the peer: ends the pending TCP RTT sample when it echoes
 * its TSval.  Cost when no sample is pending: one load and a branch.
 * Receive softirq (or the rx-spread NAPI).
 */
static inline void wgx_telemetry_tcp_received(struct wgx_telemetry *t, const struct sk_buff *skb)
{
	struct wgx_telemetry_state *s = READ_ONCE(t->s);

	if (!s || !READ_ONCE(s->tcp_pending) || !READ_ONCE(wgx_telemetry_tcp_enabled))
		return;
	wgx_telemetry_tcp_check_received(t, skb);
}

/** wgx_telemetry_tcp_read - copy the TCP figures.  Any context. */
void wgx_telemetry_tcp_read(struct wgx_telemetry *t, struct wgx_telemetry_tcpstat *out);

#endif /* WGX_TELEMETRY_H */
