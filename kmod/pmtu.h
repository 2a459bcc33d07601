/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmtu.h - each peer's outer path MTU: learned from the outer route, from
 * ICMP "fragmentation needed" / ICMPv6 "packet too big" for the outer flow
 * (validated against the peer's endpoint), and lowered when full-size
 * packets go unanswered (a blackhole: fragments or ICMP filtered).  Outer
 * IPv4 leaves with DF set, so the underlay never fragments; inner packets
 * larger than the peer's MTU get ICMP back (send.c), as the kernel's IP
 * tunnels answer them.  docs/mtu.md is the operator's view.
 *
 * The blackhole state machine (RFC 8899 in spirit, with the inner senders'
 * own retransmissions as the probes):
 *
 *   DF          DF set; MTU = min(route, ICMP).  Packets above
 *               WGX_PMTU_BASE sent for the silence (below) with nothing
 *               received from the peer -> LOWERED.
 *   LOWERED     MTU = min(route, ICMP, WGX_PMTU_BASE), DF set.  Anything
 *               received from the peer confirms it; packets sent for the
 *               silence with nothing received -> FRAGMENTING.
 *
 * The silence is WGX_PMTU_SILENCE_FAST while the peer answered promptly
 * (its last two messages at most WGX_PMTU_PROMPT apart: a conversation,
 * such as TCP's acknowledgements, that a blackhole cuts off), else
 * WGX_PMTU_SILENCE (a one-way flow, answered only by the peer's passive
 * keepalive).  Random loss of all sizes stops a conversation only as long
 * as every retransmission and its answer are lost.  A conversation that
 * turned into a one-way flow looks the same; its receiver answers only by
 * the passive keepalive, so LOWERED after the fast silence is confirmed by
 * a data message only: a keepalive first returns to DF (and, the peer's
 * answers no longer prompt, the next finding needs WGX_PMTU_SILENCE).  The detector also runs
 * before an inner packet is sized (wgx_pmtu_poll()), so the packet that
 * ends the silence, typically a TCP retransmission, already gets the ICMP
 * naming the lowered size.
 *   FRAGMENTING DF clear (what WireGuard always sends): the underlay
 *               fragments as it would without wgx.
 *
 * LOWERED and FRAGMENTING go back to DF after WGX_PMTU_RAISE (the full
 * size is tried again: the path may have healed).  An ICMP-learned MTU
 * expires after WGX_PMTU_RAISE too, as the kernel's route exception does.
 *
 * A peer with a fixed MTU (the peer's `mtu` setting, WGX_PEER_A_MTU) stays
 * in DF with that inner size: ICMP teaches it nothing and the detector
 * never runs.  Setting or clearing it starts learning afresh.
 *
 * Nothing here sends a packet: towards wireguard.ko or wireguard-go nothing
 * unusual is ever on the wire.
 *
 * Locking: none.  Every field is one word written with WRITE_ONCE() by the
 * send path (any CPU), the receive path or the ICMP handler (softirq) and
 * read with READ_ONCE(); racing writers make the same decision or the next
 * packet corrects it.
 */
#ifndef WGX_PMTU_H
#define WGX_PMTU_H

#include <linux/jiffies.h>
#include <linux/types.h>

struct dst_entry;
struct sk_buff;
struct sock;
struct wgx_peer;

/* Smallest outer path MTU an ICMP may teach (bytes): RFC 791 576, RFC 8200 1280. */
#define WGX_PMTU_FLOOR4		576
#define WGX_PMTU_FLOOR6		1280
/* Outer size a suspected blackhole lowers to (bytes): IPv6's minimum link MTU. */
#define WGX_PMTU_BASE		1280
/*
 * Silence that means loss (jiffies): longer than WireGuard's
 * KEEPALIVE_TIMEOUT (10 s), within which a live peer that receives data
 * always answers (its passive keepalive), and shorter than its
 * KEEPALIVE_TIMEOUT + REKEY_TIMEOUT, after which a new handshake (small
 * packets that pass) would hide the loss.
 */
#define WGX_PMTU_SILENCE	(12 * HZ)
/*
 * Silence that means loss after prompt answers (jiffies): TCP's
 * retransmissions at 0.2, 0.6, 1.4, 3.0, 6.2 s (its minimum RTO of 200 ms,
 * doubling) are five unanswered round trips, and the one at 6.2 s learns
 * the lowered size, within 10 s of the first loss.  Random loss of all
 * sizes must take every retransmission or its answer for as long: with an
 * RTO of 1 s (RTT variance makes it so, as in a loaded TCG guest) three in
 * a row.  At 3 s two sufficed, and 10 % loss each way lowered a tunnel in
 * 1 of 3 runs of mtu/wgx_lossy_path_keeps_mtu.
 */
#define WGX_PMTU_SILENCE_FAST	(6 * HZ)
/* Largest gap between the peer's last two messages that counts as prompt (jiffies). */
#define WGX_PMTU_PROMPT		(HZ / 4)
/*
 * When a lowered or learned MTU is given up for the full size again
 * (jiffies; divided by the test-only timer_scale, clock.h).
 */
#define WGX_PMTU_RAISE		(600 * HZ)
/* Outer bytes of a transport message around its padded plaintext: header and tag. */
#define WGX_PMTU_MSG_OVERHEAD	32
/* Validated ICMP messages per second, module-wide; more are ignored (and counted). */
#define WGX_PMTU_ICMP_PER_S	256

enum wgx_pmtu_state {
	WGX_PMTU_DF = 0,
	WGX_PMTU_LOWERED,
	WGX_PMTU_FRAGMENTING,
};

/**
 * struct wgx_pmtu - a peer's outer path MTU state (embedded in struct wgx_peer).
 * @route: dst_mtu() of the outer route the last packet took (bytes), 0 = none yet.
 * @icmp: MTU of the last accepted ICMP (bytes), 0 = none; @icmp_at its jiffies.
 * @state: enum wgx_pmtu_state; @state_at: jiffies it was entered.
 * @big_at: jiffies of the first packet sent since the peer was last heard
 *	that counts for the blackhole detector, 0 = none pending.
 * @rx_at: jiffies the peer was last heard (an authenticated transport message).
 * @rx_gap: jiffies between the last two times the peer was heard, 0 before
 *	the second.
 * @fast: LOWERED after WGX_PMTU_SILENCE_FAST, not yet confirmed.
 * @fixed: the configured inner MTU (bytes, WGX_PEER_A_MTU), 0 = auto (learned).
 */
struct wgx_pmtu {
	u16 route;
	u16 icmp;
	u16 fixed;
	u8 state;
	u8 fast;
	unsigned long icmp_at;
	unsigned long state_at;
	unsigned long big_at;
	unsigned long rx_at;
	unsigned long rx_gap;
};

/** Why an ICMP for the outer flow was refused (wgx_pmtu_icmp_check()). */
enum wgx_pmtu_icmp_verdict {
	WGX_PMTU_ICMP_ACCEPT = 0,
	WGX_PMTU_ICMP_NOT_PMTU,		/* another type: not ours to judge, the kernel's as before */
	WGX_PMTU_ICMP_BELOW_FLOOR,	/* MTU below WGX_PMTU_FLOOR4/6 */
	WGX_PMTU_ICMP_FITS,		/* the quoted packet was not larger than the MTU */
	WGX_PMTU_ICMP_NOT_WIREGUARD,	/* the quoted payload is no WireGuard message */
	WGX_PMTU_ICMP_NO_PEER,		/* no peer's endpoint is the quoted destination */
	WGX_PMTU_ICMP_FLOOD,		/* over WGX_PMTU_ICMP_PER_S */
	WGX_PMTU_ICMP_FIXED,		/* the peer's MTU is fixed by configuration */
};

/**
 * wgx_pmtu_icmp_check - judge an ICMP "fragmentation needed" (IPv4) or
 * "packet too big" (IPv6) by its content alone.  @family: AF_INET or
 * AF_INET6 of the outer flow; @mtu: the MTU it names (bytes); @quoted_len:
 * the total length of the quoted packet (bytes); @msg: the first 4 bytes of
 * the quoted UDP payload, or NULL when the ICMP quotes none.
 * Returns WGX_PMTU_ICMP_ACCEPT or the reason to refuse.  Pure; any context.
 */
enum wgx_pmtu_icmp_verdict wgx_pmtu_icmp_check(int family, u32 mtu, u32 quoted_len, const u8 *msg);

/**
 * wgx_pmtu_icmp_lookup - the encapsulation sockets' encap_err_lookup: an
 * ICMP error quoting a packet we sent.  Fragmentation-needed / packet-too-big
 * is validated (wgx_pmtu_icmp_check(), then the quoted destination address
 * and port and our source port must be a peer's endpoint) and, accepted,
 * lowers that peer's MTU (then the kernel updates the route exception as
 * for any socket).  Refused ones change nothing and are counted (device
 * counter PMTU_ICMP_IGNORED).  Other ICMP errors pass as before.
 * Context: softirq, RCU; @skb's network header is the quoted IP header, its
 * transport header the quoted UDP header, the ICMP header right before.
 * Returns 0 to let the kernel handle it, 1 to drop it.
 */
int wgx_pmtu_icmp_lookup(struct sock *sk, struct sk_buff *skb);

/**
 * wgx_pmtu_outer - the peer's outer path MTU (bytes) at jiffies @now, or 0
 * when nothing is known yet (no packet sent).  @family (AF_INET or
 * AF_INET6, the endpoint's) sizes the outer headers of a fixed MTU; with a
 * fixed MTU and another @family, 0.  Any context.
 */
u32 wgx_pmtu_outer(const struct wgx_pmtu *p, int family, unsigned long now);

/**
 * wgx_pmtu_source - how wgx_pmtu_outer() was learned: enum
 * wgx_path_mtu_source (uapi), WGX_PATH_MTU_SOURCE_NONE when unknown.
 */
u8 wgx_pmtu_source(const struct wgx_pmtu *p, int family, unsigned long now);

/**
 * wgx_pmtu_set_fixed - fix the peer's inner MTU at @mtu bytes, or 0 for
 * auto (learned).  A change forgets what ICMP and the detector learned.
 * The caller validated @mtu (0 or WGX_MIN_PEER_MTU..WGX_MAX_PEER_MTU).
 * Any context.
 */
void wgx_pmtu_set_fixed(struct wgx_pmtu *p, u32 mtu);

/** wgx_pmtu_fixed - the peer's fixed inner MTU (bytes), 0 = auto. */
static inline u32 wgx_pmtu_fixed(const struct wgx_pmtu *p)
{
	return READ_ONCE(p->fixed);
}

/**
 * wgx_pmtu_df - whether packets to the peer leave with DF (IPv4) / without
 * local fragmentation (IPv6): not in the FRAGMENTING fallback.
 */
static inline bool wgx_pmtu_df(const struct wgx_pmtu *p)
{
	return READ_ONCE(p->state) != WGX_PMTU_FRAGMENTING;
}

/**
 * wgx_pmtu_sent - the send path sent @outer_len bytes (IP packet) to the
 * peer over a route of MTU @route_mtu, with DF (@df) or not, at jiffies
 * @now: note the route's MTU and run the blackhole detector.  Returns true
 * when this send found a blackhole (the state moved to LOWERED or
 * FRAGMENTING; the caller counts it).  Any context.
 */
bool wgx_pmtu_sent(struct wgx_pmtu *p, u32 outer_len, u32 route_mtu, bool df, unsigned long now);

/**
 * wgx_pmtu_poll - before an inner packet to the peer is sized, at jiffies
 * @now: the blackhole detector's verdict on the silence so far, so that
 * this packet already sees the lowered MTU.  Returns true when it found a
 * blackhole (as wgx_pmtu_sent(); the caller counts it).  Any context.
 */
bool wgx_pmtu_poll(struct wgx_pmtu *p, unsigned long now);

/**
 * wgx_pmtu_confirm - the peer was heard while a fast finding waits for
 * confirmation (@p->fast): a data message confirms it, a keepalive
 * (@keepalive) returns to DF.  Any context.
 */
void wgx_pmtu_confirm(struct wgx_pmtu *p, bool keepalive, unsigned long now);

/**
 * wgx_pmtu_heard - the peer was heard at jiffies @now: a data message, or a
 * keepalive (@keepalive: an empty transport message).  Any context.
 */
static inline void wgx_pmtu_heard(struct wgx_pmtu *p, bool keepalive, unsigned long now)
{
	unsigned long last = READ_ONCE(p->rx_at);

	if (unlikely(READ_ONCE(p->fast)))
		wgx_pmtu_confirm(p, keepalive, now);
	if (last == now)
		return;
	WRITE_ONCE(p->rx_gap, last ? now - last : 0);
	WRITE_ONCE(p->rx_at, now);
}

/**
 * wgx_pmtu_received - the peer was heard (an authenticated transport
 * message; @keepalive: an empty one).  Any context.
 */
static inline void wgx_pmtu_received(struct wgx_pmtu *p, bool keepalive)
{
	wgx_pmtu_heard(p, keepalive, jiffies);
}

/**
 * wgx_pmtu_route_mtu - the MTU of the outer route @dst (bytes) as configured
 * (a route's mtu, else its device's), without the route exceptions the
 * kernel learns from ICMP: udp_err() records one for any ICMP that quotes a
 * UDP packet, forged or not, before a socket sees it.  Any context.
 */
u32 wgx_pmtu_route_mtu(const struct dst_entry *dst);

/**
 * wgx_pmtu_sock_init - make the encapsulation socket @sk (IPv4 or IPv6)
 * size its packets by the device MTU, not by route exceptions, and leave
 * ICMP for its flows to wgx_pmtu_icmp_lookup() (IP_PMTUDISC_INTERFACE).
 * Process context, before the socket is used.
 */
void wgx_pmtu_sock_init(struct sock *sk);

/**
 * wgx_pmtu_learn - an accepted ICMP names @mtu (bytes) for the peer's path,
 * at jiffies @now; it also restarts the blackhole detector's silence (the
 * loss so far is explained).  Ignored with a fixed MTU; returns whether it
 * was used.
 */
bool wgx_pmtu_learn(struct wgx_pmtu *p, u32 mtu, unsigned long now);

/**
 * wgx_pmtu_route_changed - the outer routes may have changed (an underlay
 * device's MTU): the route's MTU is noted again with the next packet sent,
 * not refused by the old one meanwhile.  Any context.
 */
static inline void wgx_pmtu_route_changed(struct wgx_pmtu *p)
{
	WRITE_ONCE(p->route, 0);
}

/** wgx_pmtu_reset - forget everything learned (a new endpoint is a new path); a fixed MTU stays. */
void wgx_pmtu_reset(struct wgx_pmtu *p);

/**
 * wgx_pmtu_check_inner - before encryption: does the inner packet @skb
 * (IPv4/IPv6, GSO or not) fit @peer's path?  Lowers *@mtu (the padding
 * bound, bytes) to the largest inner packet that fits.  A packet that does
 * not fit but may be fragmented (IPv4 without DF; IPv6 when the path
 * cannot carry 1280 inner bytes) sets *@frag: it leaves with DF clear.
 * Otherwise the sender gets ICMP "fragmentation needed" / "packet too big"
 * naming the MTU (and a local sender's route learns it), and false is
 * returned: the caller drops @skb.  Context: ndo_start_xmit.
 */
bool wgx_pmtu_check_inner(struct wgx_peer *peer, struct sk_buff *skb, u32 *mtu, bool *frag);

#endif /* WGX_PMTU_H */
