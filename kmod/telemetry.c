// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry.c - per-peer handshake RTT, passive TCP RTT and the TCP
 * retransmission estimate (see telemetry.h for what is measured and the
 * locking).  The smoothing is RFC 6298 section 2's: the first sample R sets
 * SRTT = R (and RTTVAR = R/2), later ones RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|,
 * then SRTT = 7/8 SRTT + 1/8 R.  The TCP timestamp option is RFC 7323's
 * (kind 8, length 10: TSval, TSecr).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/time64.h>
#include <net/ip.h>
#include <net/tcp.h>

#include <wgx/core.h>

#include "clock.h"
#include "telemetry.h"

/*
 * tcp_telemetry (debugfs wgx/tcp_telemetry, on): sample inner TCP packets for
 * the passive RTT and the retransmission estimate (per-peer stats 25-29,
 * 32-33).  Off only to measure what the hooks cost (the bench's telemetry
 * workload); the stats are then not reported.
 */
bool wgx_telemetry_tcp_enabled = true;

DEFINE_PER_CPU(unsigned int, wgx_telemetry_tcp_tick);

/* A pending TCP sample may be replaced after an RTO-like deadline within these bounds (us). */
#define WGX_TELEMETRY_TCP_DEADLINE_MIN_US 20000
#define WGX_TELEMETRY_TCP_DEADLINE_MAX_US 1000000

void wgx_telemetry_state_init(struct wgx_telemetry_state *s)
{
	memset(s, 0, sizeof(*s));
	spin_lock_init(&s->lock);
}

void wgx_telemetry_init(struct wgx_telemetry *t)
{
	t->s = NULL;
}

void wgx_telemetry_destroy(struct wgx_telemetry *t)
{
	kfree(t->s);
	t->s = NULL;
}

/*
 * The state to record into: allocated with @gfp when there is none yet (a
 * racing allocation that lost is freed).  NULL when out of memory.
 */
static struct wgx_telemetry_state *wgx_telemetry_state_get(struct wgx_telemetry *t, gfp_t gfp)
{
	struct wgx_telemetry_state *s = READ_ONCE(t->s), *old;

	if (likely(s))
		return s;
	s = kmalloc(sizeof(*s), gfp | __GFP_NOWARN);
	if (!s)
		return NULL;
	wgx_telemetry_state_init(s);
	old = cmpxchg(&t->s, NULL, s);
	if (old) {
		kfree(s);
		return old;
	}
	return s;
}

/* One sample of @rtt_ns, @lock held. */
static void wgx_telemetry_sample(struct wgx_telemetry_state *t, u64 rtt_ns)
{
	u64 us;

	if (rtt_ns > (u64)WGX_REKEY_TIMEOUT_S * NSEC_PER_SEC)
		return;
	us = div_u64(rtt_ns, NSEC_PER_USEC);
	t->rtt_last_us = us;
	if (!t->rtt_samples) {
		t->rtt_min_us = us;
		t->srtt_us = us;
	} else {
		if (us < t->rtt_min_us)
			t->rtt_min_us = us;
		t->srtt_us = t->srtt_us - (t->srtt_us >> 3) + (us >> 3);
	}
	++t->rtt_samples;
}

void wgx_telemetry_initiation_sent(struct wgx_telemetry *tel, u32 index)
{
	struct wgx_telemetry_state *t = wgx_telemetry_state_get(tel, GFP_KERNEL);
	u64 now = wgx_clock_ns();

	if (!t)
		return;
	spin_lock_bh(&t->lock);
	t->init_index = index;
	t->init_sent_ns = now;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_response_received(struct wgx_telemetry *tel, u32 index, u64 now_ns)
{
	struct wgx_telemetry_state *t = READ_ONCE(tel->s);

	if (!t)
		return;	/* no initiation recorded */
	spin_lock_bh(&t->lock);
	if (t->init_sent_ns && t->init_index == index && now_ns >= t->init_sent_ns)
		wgx_telemetry_sample(t, now_ns - t->init_sent_ns);
	t->init_sent_ns = 0;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_response_sent(struct wgx_telemetry *tel, u64 keypair_id)
{
	struct wgx_telemetry_state *t = wgx_telemetry_state_get(tel, GFP_KERNEL);
	u64 now = wgx_clock_ns();

	if (!t)
		return;
	spin_lock_bh(&t->lock);
	t->resp_keypair = keypair_id;
	t->resp_sent_ns = now;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_confirmed(struct wgx_telemetry *tel, u64 keypair_id)
{
	struct wgx_telemetry_state *t = READ_ONCE(tel->s);
	u64 now;

	if (!t)
		return;	/* no response recorded */
	now = wgx_clock_ns();
	spin_lock_bh(&t->lock);
	if (t->resp_sent_ns && t->resp_keypair == keypair_id && now >= t->resp_sent_ns)
		wgx_telemetry_sample(t, now - t->resp_sent_ns);
	t->resp_sent_ns = 0;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_endpoint_moved(struct wgx_telemetry *tel)
{
	struct wgx_telemetry_state *t = READ_ONCE(tel->s);

	if (!t)
		return;	/* nothing to restart */
	spin_lock_bh(&t->lock);
	t->rtt_last_us = 0;
	t->rtt_min_us = 0;
	t->srtt_us = 0;
	t->rtt_samples = 0;
	memset(&t->tcp, 0, sizeof(t->tcp));
	WRITE_ONCE(t->tcp_pending, false);
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_read(struct wgx_telemetry *tel, struct wgx_telemetry_rtt *out)
{
	struct wgx_telemetry_state *t = READ_ONCE(tel->s);

	if (!t) {
		memset(out, 0, sizeof(*out));
		return;
	}
	spin_lock_bh(&t->lock);
	out->last_us = t->rtt_last_us;
	out->min_us = t->rtt_min_us;
	out->srtt_us = t->srtt_us;
	out->samples = t->rtt_samples;
	spin_unlock_bh(&t->lock);
}

/**
 * struct wgx_telemetry_tcpinfo - what the samplers read of one TCP segment
 * (host order).
 * @flow: a hash of addresses and ports (never 0).
 * @seq: sequence number.
 * @payload: bytes of data (from the IP lengths).
 * @ports: source port << 16 | destination port.
 * @has_ts: the timestamp option is present.
 * @tsval: its TSval.
 * @tsecr: its TSecr.
 */
struct wgx_telemetry_tcpinfo {
	u32 flow;
	u32 seq;
	u32 payload;
	u32 ports;
	bool has_ts;
	u32 tsval;
	u32 tsecr;
};

/*
 * Read the TCP segment of @skb (its network header set) into @ti with the
 * core's reader, wgx_tcp_segment_parse(), over the packet's first
 * WGX_TCPSEG_HEADERS_MAX bytes (copied only when they are not linear).
 * False for anything but a well-formed TCP segment; never reads past the skb.
 */
static bool wgx_telemetry_parse_tcp(const struct sk_buff *skb, struct wgx_telemetry_tcpinfo *ti)
{
	u8 buf[WGX_TCPSEG_HEADERS_MAX];
	unsigned int off = skb_network_offset(skb), len;
	struct wgx_tcp_segment seg;
	u32 addr[8];
	const u8 *p;
	int family;

	if (skb->protocol == htons(ETH_P_IP))
		family = WGX_AF_INET;
	else if (skb->protocol == htons(ETH_P_IPV6))
		family = WGX_AF_INET6;
	else
		return false;
	if (skb->len <= off)
		return false;
	len = min_t(unsigned int, skb->len - off, sizeof(buf));
	p = skb_header_pointer(skb, off, len, buf);
	if (!p || !wgx_tcp_segment_parse(p, len, family, &seg))
		return false;
	memcpy(addr, p + seg.addr_off, seg.addr_len);
	ti->flow = seg.addr_len == 8 ? jhash_2words(addr[0], addr[1], 0) :
				       jhash2(addr, seg.addr_len / 4, 0);
	ti->seq = seg.seq;
	ti->payload = seg.payload;
	ti->ports = (u32)seg.sport << 16 | seg.dport;
	ti->flow = jhash_1word(ti->ports, ti->flow) ?: 1;
	ti->has_ts = seg.has_ts;
	ti->tsval = seg.tsval;
	ti->tsecr = seg.tsecr;
	return true;
}

/* One RTT sample of @us into @r (RFC 6298 section 2's estimator). */
static void wgx_telemetry_rtt_update(struct wgx_telemetry_rttstat *r, u64 us)
{
	r->last_us = us;
	if (!r->samples) {
		r->min_us = us;
		r->srtt_us = us;
		r->rttvar_us = us / 2;
	} else {
		u64 delta = r->srtt_us > us ? r->srtt_us - us : us - r->srtt_us;

		if (us < r->min_us)
			r->min_us = us;
		r->rttvar_us = r->rttvar_us - (r->rttvar_us >> 2) + (delta >> 2);
		r->srtt_us = r->srtt_us - (r->srtt_us >> 3) + (us >> 3);
	}
	++r->samples;
}

/* How long a new pending TCP sample waits for its echo before another may replace it (ns). */
static u64 wgx_telemetry_tcp_deadline(const struct wgx_telemetry_state *t)
{
	u64 us = WGX_TELEMETRY_TCP_DEADLINE_MAX_US;

	if (t->tcp.samples)
		us = clamp_t(u64, 2 * t->tcp.srtt_us + 4 * t->tcp.rttvar_us,
			     WGX_TELEMETRY_TCP_DEADLINE_MIN_US, WGX_TELEMETRY_TCP_DEADLINE_MAX_US);
	return us * NSEC_PER_USEC;
}

/*
 * wgx_telemetry_tcp_sample_sent - the sampled-packet half of
 * wgx_telemetry_tcp_due(): the retransmission check for a segment with
 * payload, and a new pending RTT sample from its TSval when none is pending.
 * Takes @t->lock.  BHs off.
 */
void wgx_telemetry_tcp_sample_sent(struct wgx_telemetry *tel, const struct sk_buff *skb)
{
	struct wgx_telemetry_state *t;
	struct wgx_telemetry_tcpinfo ti;
	u64 now;

	if (!wgx_telemetry_parse_tcp(skb, &ti) || (!ti.payload && !ti.has_ts))
		return;
	t = wgx_telemetry_state_get(tel, GFP_ATOMIC);
	if (!t)
		return;
	now = wgx_clock_ns();
	spin_lock_bh(&t->lock);
	if (ti.payload) {
		struct wgx_telemetry_flow *f = &t->flows[ti.flow % WGX_TELEMETRY_TCP_FLOWS];
		u32 end = ti.seq + ti.payload;

		if (f->hash != ti.flow) {
			f->hash = ti.flow;
			f->seq_end = end;
		} else {
			++t->tcp_segments;
			if (!after(end, f->seq_end))
				++t->tcp_retransmits;
			else
				f->seq_end = end;
		}
	}
	if (ti.has_ts && (!t->tcp_pending || now > t->tcp_deadline_ns)) {
		WRITE_ONCE(t->tcp_tsval, ti.tsval);
		WRITE_ONCE(t->tcp_ports, ti.ports);
		t->tcp_sent_ns = now;
		t->tcp_deadline_ns = now + wgx_telemetry_tcp_deadline(t);
		WRITE_ONCE(t->tcp_pending, true);
	}
	spin_unlock_bh(&t->lock);
}

/*
 * wgx_telemetry_tcp_check_received - the slow half of
 * wgx_telemetry_tcp_received(), while a sample is pending: one RTT sample
 * when @skb is TCP of the pending flow echoing its TSval; the pending sample
 * is dropped when the flow echoes a later TSval.  Takes @t->lock only then.
 * Receive softirq.
 */
void wgx_telemetry_tcp_check_received(struct wgx_telemetry *tel, const struct sk_buff *skb)
{
	struct wgx_telemetry_state *t = READ_ONCE(tel->s);
	struct wgx_telemetry_tcpinfo ti;
	u64 now;

	if (!t || !wgx_telemetry_parse_tcp(skb, &ti) || !ti.has_ts)
		return;
	/* The reverse flow: its source port is the sampled packet's destination. */
	ti.ports = ti.ports << 16 | ti.ports >> 16;
	/*
	 * The echo of the pending TSval, or of a later one of its flow: then
	 * the peer's TS.Recent has moved past it (RFC 7323 section 4.3: a
	 * delayed ACK echoes the earliest unacknowledged segment's TSval), so
	 * it will never be echoed and a new sample may start at once.
	 */
	if (ti.ports != READ_ONCE(t->tcp_ports) || before(ti.tsecr, READ_ONCE(t->tcp_tsval)))
		return;
	now = wgx_clock_ns();
	spin_lock_bh(&t->lock);
	if (t->tcp_pending && t->tcp_ports == ti.ports && !before(ti.tsecr, t->tcp_tsval)) {
		if (ti.tsecr == t->tcp_tsval && now >= t->tcp_sent_ns &&
		    now - t->tcp_sent_ns <= (u64)WGX_REKEY_TIMEOUT_S * NSEC_PER_SEC)
			wgx_telemetry_rtt_update(&t->tcp, div_u64(now - t->tcp_sent_ns,
								 NSEC_PER_USEC));
		WRITE_ONCE(t->tcp_pending, false);
	}
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_tcp_read(struct wgx_telemetry *tel, struct wgx_telemetry_tcpstat *out)
{
	struct wgx_telemetry_state *t = READ_ONCE(tel->s);

	if (!t) {
		memset(out, 0, sizeof(*out));
		return;
	}
	spin_lock_bh(&t->lock);
	out->rtt = t->tcp;
	out->retransmits = t->tcp_retransmits;
	out->segments = t->tcp_segments;
	spin_unlock_bh(&t->lock);
}
