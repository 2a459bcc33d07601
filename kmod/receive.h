/* SPDX-License-Identifier: GPL-2.0 */
/*
 * receive.h - the receive path.
 */
#ifndef WGX_RECEIVE_H
#define WGX_RECEIVE_H

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/inet_ecn.h>

struct sock;
struct wgx_device;
struct wgx_keypair;
struct wgx_peer;

/** Where a transport data message is between the receive stages. */
enum wgx_rx_state {
	WGX_RX_PENDING,		/* not decrypted yet */
	WGX_RX_OK,		/* decrypted and authenticated */
	WGX_RX_DROP_AUTH,	/* failed authentication */
	WGX_RX_DROP_REPLAY,	/* counter replayed or left of the window (finish) */
};

/**
 * struct wgx_rx_cb - skb->cb of a transport data message between the stages
 * of the receive path: lookup (encap_rcv), decrypt (wgx_receive_decrypt_stage,
 * maybe on another CPU), finish (wgx_receive_finish, maybe in the peer's NAPI).
 * @peer/@keypair: references held until finish.
 * @nonce: the message's counter (set by the decrypt stage).
 * @message_len: UDP payload length (bytes) as received, for the counters.
 * @state: enum wgx_rx_state; written with release by the decrypt stage.
 * @queued_ns: when it joined its peer's ordered queue (rxspread.c; ns,
 *             ktime_get_mono_fast_ns()).
 * @outer_ds: outer DSCP/ECN byte, for ECN decapsulation.
 * @small: a small message counted in its peer's ordered queue's
 *         small_queued while it is there (rxspread.c).
 * @delay_marked: the ordered queue's delay control marked it CE in
 *                @outer_ds in place of a drop (wgx_receive_delay_mark()).
 */
struct wgx_rx_cb {
	struct wgx_peer *peer;
	struct wgx_keypair *keypair;
	u64 nonce;
	unsigned int message_len;
	atomic_t state;
	u64 queued_ns;
	u8 outer_ds;
	bool small;
	bool delay_marked;
};

static inline struct wgx_rx_cb *WGX_RX_CB(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct wgx_rx_cb) > sizeof(skb->cb));
	return (struct wgx_rx_cb *)skb->cb;
}

/**
 * wgx_receive_delay_mark - a receive queue's delay control signals
 * congestion with @skb, a queued transport data message (still encrypted):
 * when its outer ECN field is ECN-capable (ECT(0), ECT(1) or CE: the sender
 * copied the inner packet's ECT there, RFC 6040 encapsulation), the outer
 * field becomes CE, which decapsulation copies to the inner packet, and the
 * message is kept; a Not-ECT message is left as it is.  Returns whether it
 * was marked; if not, the caller drops it.  Should the inner packet turn out
 * not to be ECN-capable, the delivery drops it then (the drop the mark
 * stood for).  Any context; the caller owns @skb.
 */
static inline bool wgx_receive_delay_mark(struct sk_buff *skb)
{
	struct wgx_rx_cb *cb = WGX_RX_CB(skb);

	if ((cb->outer_ds & INET_ECN_MASK) == INET_ECN_NOT_ECT)
		return false;
	cb->outer_ds |= INET_ECN_CE;
	cb->delay_marked = true;
	return true;
}

/**
 * wgx_receive - encap_rcv of the device's UDP sockets: classify the message;
 * transport data is decrypted right here, on the CPU RSS/RPS delivered it to,
 * and handed to this CPU's GRO cell; handshake messages go to the handshake
 * queue.  Always consumes @skb and returns 0.  Softirq, RCU read side.
 */
int wgx_receive(struct sock *sk, struct sk_buff *skb);

/**
 * wgx_receive_decrypt_stage - decrypt @skb in place with its cb's keypair;
 * sets the cb's state (release).  The counter is checked against the replay
 * window by wgx_receive_finish(), which runs in arrival order.
 * Any context with BHs enabled or disabled (softirq inline, or a rx worker).
 */
void wgx_receive_decrypt_stage(struct sk_buff *skb);

/**
 * wgx_receive_decrypt_verdict - what wgx_receive_decrypt_stage() does, but
 * returns the state (enum wgx_rx_state) instead of publishing it: the caller
 * publishes it (atomic_set_release() of the cb's state) or keeps the skb
 * out of every queue.  Same context.
 */
int wgx_receive_decrypt_verdict(struct sk_buff *skb);

/**
 * wgx_receive_express_marked - whether the decrypted @skb carries the
 * express mark: at least WGX_TRANSPORT_EXPRESS_PAD bytes of padding after
 * the inner IPv4 or IPv6 packet.  Reads only the linear head (false when
 * the inner header is not there).  Any context.
 */
bool wgx_receive_express_marked(const struct sk_buff *skb);

/**
 * wgx_receive_finish - the rest of a decrypted message's way: drop it by its
 * state or its counter (the replay window, checked here so that it, and the
 * loss and reordering it counts, sees the peer's messages in the order they
 * arrived, as WireGuard checks them in its NAPI), or roam, count, confirm the
 * keypair, feed the timers and deliver the inner packet (through @napi when
 * not NULL, else this CPU's GRO cell).  Consumes @skb and the cb's
 * references.  Softirq context.
 */
void wgx_receive_finish(struct sk_buff *skb, struct napi_struct *napi);

#endif /* WGX_RECEIVE_H */
