// SPDX-License-Identifier: GPL-2.0
/*
 * send.c - the transmit path.
 *
 * ndo_select_queue (wgx_send_select_queue) picks the tx queue by a keyed
 * hash of the inner flow.  ndo_start_xmit (wgx_send_xmit) runs with that
 * queue's lock held: it finds the peer by the inner destination (allowed
 * IPs, RCU), segments GSO packets in software before encryption, and puts
 * the segments on the queue's ring.  The queue's worker (queueing.c) then,
 * per packet and in ring order, takes a nonce from the keypair's atomic
 * counter, pads, encrypts in place with scatter-gather ChaCha20-Poly1305
 * and sends.  A flow always takes the same queue, so its packets keep their
 * order; different flows of one peer encrypt in parallel on different CPUs,
 * and the receiver's 8128-counter replay window absorbs the interleaving of
 * their nonces.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/scatterlist.h>
#include <linux/timekeeping.h>
#include <linux/pkt_sched.h>
#include <net/dsfield.h>
#include <net/icmp.h>
#include <net/ip_tunnels.h>
#include <net/dst.h>
#include <net/dst_metadata.h>
#include <crypto/chacha20poly1305.h>

#include "compat.h"
#include "device.h"
#include "handshake.h"
#include "peer.h"
#include "ports.h"
#include "queueing.h"
#include "send.h"
#include "socket.h"
#include "timers.h"

void wgx_skb_cb_release(struct sk_buff *skb)
{
	struct wgx_skb_cb *cb = WGX_SKB_CB(skb);

	wgx_keypair_put(cb->keypair, false);
	cb->keypair = NULL;
	wgx_peer_put(cb->peer);
	cb->peer = NULL;
}

/* The peer that owns the inner destination of @skb, with a reference, or NULL. */
static struct wgx_peer *wgx_send_lookup_peer(struct wgx_device *wgx, struct sk_buff *skb)
{
	struct wgx_peer *peer = NULL;

	rcu_read_lock_bh();
	if (skb->protocol == htons(ETH_P_IP) && pskb_network_may_pull(skb, sizeof(struct iphdr)))
		peer = wgx_allowedips_lookup(wgx->allowedips, WGX_AF_INET,
					     (const u8 *)&ip_hdr(skb)->daddr);
	else if (skb->protocol == htons(ETH_P_IPV6) &&
		 pskb_network_may_pull(skb, sizeof(struct ipv6hdr)))
		peer = wgx_allowedips_lookup(wgx->allowedips, WGX_AF_INET6,
					     (const u8 *)&ipv6_hdr(skb)->daddr);
	peer = wgx_peer_get_maybe_zero(peer);
	rcu_read_unlock_bh();
	return peer;
}

static void wgx_send_unreachable(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_HOST_UNREACH, 0);
	else if (skb->protocol == htons(ETH_P_IPV6))
		icmpv6_ndo_send(skb, ICMPV6_DEST_UNREACH, ICMPV6_ADDR_UNREACH, 0);
}

/* Stop the queue when its ring might not take a whole GSO burst; see queueing.h. */
static bool wgx_send_txq_full(struct wgx_txq *txq, struct netdev_queue *q)
{
	if (likely(atomic_read(&txq->len) <= WGX_TXQ_RING_SIZE - WGX_TXQ_BURST))
		return false;
	netif_tx_stop_queue(q);
	/* Pairs with the barrier in the worker: either it sees the stop, or we see its progress. */
	smp_mb__after_atomic();
	if (atomic_read(&txq->len) <= WGX_TXQ_RING_SIZE - WGX_TXQ_BURST) {
		netif_tx_start_queue(q);
		return false;
	}
	return true;
}

/* The inner DSCP/ECN byte of @skb (its network header is linear); 0 if not IP. */
static u8 wgx_send_inner_dsfield(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_get_dsfield(ip_hdr(skb));
	if (skb->protocol == htons(ETH_P_IPV6))
		return ipv6_get_dsfield(ipv6_hdr(skb));
	return 0;
}

/*
 * Largest inner packet (bytes) that takes the lane unmarked: TCP ACKs (with
 * SACK and timestamps under 100), pings, small requests and replies.
 */
#define WGX_SEND_SMALL_LEN 256

/*
 * Candidate for the priority lane, while the lane is on (a non-empty
 * priority set, the default): the inner DSCP is in the device's priority
 * set, the sender asked for interactive priority (SO_PRIORITY, or IP_TOS
 * "low delay"), or the packet is small.  A small packet takes the lane only
 * when no bulk packet of its flow bucket is pending (the enqueue checks), so
 * what it gets is fq's sparse-flow priority: a request, a reply or an ACK
 * of a flow that has nothing queued goes ahead of bulk without any marking,
 * while a flow with a backlog stays behind its own packets.
 */
static bool wgx_send_is_priority(const struct sk_buff *skb, u8 dsfield, u64 priority_dscp)
{
	if (!priority_dscp)
		return false;
	/* Above TC_PRIO_MAX, skb->priority is a tc class id (skbedit, CLASSIFY), not a band. */
	return (priority_dscp & BIT_ULL(dsfield >> 2)) || skb->len <= WGX_SEND_SMALL_LEN ||
	       (skb->priority >= TC_PRIO_INTERACTIVE && skb->priority <= TC_PRIO_MAX);
}

u16 wgx_send_select_queue(struct net_device *dev, struct sk_buff *skb,
			  struct net_device *sb_dev)
{
	bool ports;
	u32 hash = wgx_ports_flow_hash(netdev_priv(dev), skb, &ports);

	/*
	 * ndo_start_xmit takes the lane bucket and the listen port from it, and
	 * from l4_hash whether the flow has ports.  A software hash: the stack
	 * never computes another over it (skb_get_hash()).
	 */
	__skb_set_sw_hash(skb, hash, ports);
	return reciprocal_scale(hash, dev->real_num_tx_queues);
}

netdev_tx_t wgx_send_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct wgx_device *wgx = netdev_priv(dev);
	u16 qidx = skb_get_queue_mapping(skb);
	struct wgx_txq *txq = &wgx->txqs[qidx];
	struct netdev_queue *q = netdev_get_tx_queue(dev, qidx);
	struct sk_buff *segs, *next;
	u64 priority_dscp = READ_ONCE(wgx->priority_dscp);
	bool dscp_copy = READ_ONCE(wgx->dscp_copy);
	struct wgx_peer *peer;
	unsigned int port;
	u32 mtu, hash;
	bool frag, ports;

	if (unlikely(wgx_send_txq_full(txq, q)))
		return NETDEV_TX_BUSY;

	peer = wgx_send_lookup_peer(wgx, skb);
	if (unlikely(!peer)) {
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_TX_DROP_NO_PEER);
		net_dbg_ratelimited("%s: no peer for the destination of a packet\n", dev->name);
		goto err_unreachable;
	}
	if (unlikely(!READ_ONCE(peer->endpoint.addr.sa_family))) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_TX_DROP_NO_ENDPOINT);
		net_dbg_ratelimited("%s: peer %llu has no endpoint\n", dev->name, peer->internal_id);
		goto err_peer;
	}

	mtu = skb_valid_dst(skb) ? dst_mtu(skb_dst(skb)) : dev->mtu;
	/* The peer's path: an inner packet that does not fit goes back as ICMP. */
	frag = false;
	if (unlikely(!wgx_pmtu_check_inner(peer, skb, &mtu, &frag))) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_TX_DROP_TOO_BIG);
		DEV_STATS_INC(dev, tx_dropped);
		wgx_peer_put(peer);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	/*
	 * The flow hash wgx_send_select_queue() stored; with one tx queue the
	 * stack does not ask it.  Its segments share it, and after encryption
	 * nobody can tell the flow.
	 */
	if (dev->real_num_tx_queues > 1 && skb->sw_hash &&
	    reciprocal_scale(skb->hash, dev->real_num_tx_queues) == qidx) {
		hash = skb->hash;
		ports = skb->l4_hash;
	} else {
		/* One queue, or a queue chosen elsewhere (tc skbedit, pktgen). */
		hash = wgx_ports_flow_hash(wgx, skb, &ports);
	}
	port = wgx_ports_flow_port(peer, hash, ports);
	if (skb_is_gso(skb)) {
		segs = skb_gso_segment(skb, 0);
		if (IS_ERR_OR_NULL(segs)) {
			DEV_STATS_INC(dev, tx_errors);
			wgx_peer_put(peer);
			kfree_skb(skb);
			return NETDEV_TX_OK;
		}
		consume_skb(skb);
		skb = segs;
	}

	skb_list_walk_safe(skb, skb, next) {
		struct wgx_skb_cb *cb;
		u8 dsfield;
		bool prio;

		skb_mark_not_on_list(skb);
		skb = skb_share_check(skb, GFP_ATOMIC);
		if (unlikely(!skb)) {
			DEV_STATS_INC(dev, tx_dropped);
			continue;
		}
		cb = WGX_SKB_CB(skb);
		memset(cb, 0, sizeof(*cb));
		dsfield = wgx_send_inner_dsfield(skb);
		/* DSCP: the inner one with `dscp copy', else 0; ECN as WireGuard does. */
		cb->ds = ip_tunnel_ecn_encap(dscp_copy ? dsfield & ~INET_ECN_MASK : 0, ip_hdr(skb), skb);
		cb->mtu = mtu;
		cb->frag = frag;
		cb->bucket = hash % WGX_TXQ_BUCKETS;
		cb->port = port;
		/*
		 * Passive TCP RTT and retransmissions: one packet in 16
		 * (telemetry.h), when a session can send it without waiting.
		 */
		if (wgx_telemetry_tcp_due() && wgx_peer_has_sending_keypair(peer))
			wgx_telemetry_tcp_sample_sent(&peer->telemetry, skb);
		/* The inner route means nothing on the outer path. */
		skb_dst_drop(skb);
		cb->peer = wgx_peer_get(peer);
		prio = wgx_send_is_priority(skb, dsfield, priority_dscp);
		/* Charged to the queue's BQL: we hold its lock. */
		if (unlikely(!wgx_queueing_tx_enqueue(txq, skb, prio, true))) {
			wgx_skb_cb_release(skb);
			DEV_STATS_INC(dev, tx_dropped);
			kfree_skb(skb);
		}
	}
	wgx_peer_put(peer);
	return NETDEV_TX_OK;

err_peer:
	wgx_peer_put(peer);
err_unreachable:
	wgx_send_unreachable(skb);
	DEV_STATS_INC(dev, tx_errors);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

/*
 * How long a flow bucket must have sent nothing but express packets before
 * its small lane packets are marked express (jiffies): far longer than a
 * message waits in a receiver's ordered queue while express delivery is
 * allowed there (WGX_RXSPREAD_EXPRESS_HEAD_NS), so nothing an express packet
 * could overtake is still waiting when it arrives.
 */
#define WGX_SEND_EXPRESS_GAP HZ

/*
 * Whether @skb, about to be encrypted for @peer, gets the express mark
 * (WGX_TRANSPORT_EXPRESS_PAD): a small lane packet whose flow bucket sent no
 * unmarked packet for WGX_SEND_EXPRESS_GAP, while the peer carries bulk (a
 * larger packet within the same time).  An idle peer's packets stay byte
 * for byte WireGuard's (the kernel's selftest counts them): its small ones
 * are not marked and do not restart their bucket's gap, because a wgx
 * receiver never lets a marked message pass a small one (small_queued in
 * rxspread.h).  Every other unmarked packet records its bucket's time, a
 * larger one the peer's too; so does a packet the MTU leaves no room for
 * the mark.  Flows of two tx queues may share a bucket: a race between
 * their writes leaves a recent time, which can only withhold a mark.
 */
static bool wgx_send_express(struct wgx_peer *peer, struct sk_buff *skb)
{
	struct wgx_device *wgx = peer->wgx;
	struct wgx_skb_cb *cb = WGX_SKB_CB(skb);
	/*
	 * Full jiffies: a 0 (never) is then far in the past from the boot on
	 * (INITIAL_JIFFIES), where 32 bits wrap 300 s after the boot.
	 */
	unsigned long *last = &wgx->tx_ordered_last[cb->bucket];
	unsigned long now = jiffies;

	if (skb->len > WGX_SEND_SMALL_LEN) {
		if (READ_ONCE(peer->tx_bulk_jiffies) != now)
			WRITE_ONCE(peer->tx_bulk_jiffies, now);
	} else if (now - READ_ONCE(peer->tx_bulk_jiffies) >= WGX_SEND_EXPRESS_GAP) {
		/* Idle: unmarked, and a receiver holds it back (small_queued). */
		return false;
	} else if (cb->lane && now - READ_ONCE(*last) >= WGX_SEND_EXPRESS_GAP &&
		   (!cb->mtu || wgx_transport_padded_len(skb->len, cb->mtu) +
				WGX_TRANSPORT_EXPRESS_PAD <= cb->mtu)) {
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_TX_EXPRESS);
		return true;
	}
	/* Written once a jiffy at most: every tx queue shares the array. */
	if (READ_ONCE(*last) != now)
		WRITE_ONCE(*last, now);
	return false;
}

/*
 * Pad and encrypt @skb in place as transport data with @keypair and @nonce;
 * @express adds WGX_TRANSPORT_EXPRESS_PAD zero bytes (wgx_send_express()
 * chose it only where the MTU allows).
 */
static bool wgx_send_encrypt_skb(struct sk_buff *skb, struct wgx_keypair *keypair, u64 nonce,
				 u32 mtu, bool express)
{
	struct scatterlist sg[MAX_SKB_FRAGS + 8];
	unsigned int plaintext_len, padding_len, trailer_len;
	struct sk_buff *trailer;
	int num_frags;
	u8 *header;

	plaintext_len = wgx_transport_padded_len(skb->len, mtu);
	if (express && (!mtu || plaintext_len + WGX_TRANSPORT_EXPRESS_PAD <= mtu))
		plaintext_len += WGX_TRANSPORT_EXPRESS_PAD;
	padding_len = plaintext_len - skb->len;
	trailer_len = padding_len + WGX_AEAD_TAG_LEN;

	num_frags = skb_cow_data(skb, trailer_len, &trailer);
	if (unlikely(num_frags < 0 || num_frags > ARRAY_SIZE(sg)))
		return false;
	memset(skb_tail_pointer(trailer), 0, padding_len);

	if (unlikely(skb_cow_head(skb, WGX_SEND_HEADROOM) < 0))
		return false;
	/* Finish a pending inner checksum before padding and encryption. */
	if (unlikely(skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb)))
		return false;

	header = skb_push(skb, WGX_MSG_TRANSPORT_HEADER_LEN);
	/*
	 * The tunnel's tx statistics (iptunnel_xmit_stats) count from the inner
	 * network header: put it at the message, so the device counts the whole
	 * WireGuard message, as for handshake messages and as WireGuard does.
	 */
	skb_set_inner_network_header(skb, 0);
	if (unlikely(wgx_transport_write_header(header, keypair->keys.remote_index, nonce)))
		return false;
	pskb_put(skb, trailer, trailer_len);

	sg_init_table(sg, num_frags);
	if (skb_to_sgvec(skb, sg, WGX_MSG_TRANSPORT_HEADER_LEN,
			 plaintext_len + WGX_AEAD_TAG_LEN) <= 0)
		return false;
	return chacha20poly1305_encrypt_sg_inplace(sg, plaintext_len, NULL, 0, nonce,
						  keypair->keys.sending_key);
}

/*
 * Keep @skb until a keypair exists; the oldest staged packet goes when full.
 * Staged packets hold no references (the queue lives as long as the peer):
 * the caller keeps its own reference on @peer across this call.  Nothing is
 * staged for a dead peer: its removal purges the queue under the same lock
 * after marking it dead, so a packet staged later would never be freed.
 *
 * The caller found no keypair that may send, but one may have come since:
 * the handshake that made it flushes the staged queue (wgx_send_staged(),
 * under staged.lock) after installing it, and that flush may have run
 * before @skb was queued here.  So look again after queueing: either this
 * look sees the keypair, or that flush's lock came after ours and it takes
 * @skb.  Returns true if a keypair may send (the staged packets went to the
 * tx queues, by this flush or a concurrent one); false if they wait, and
 * the caller asks for a handshake.
 */
static bool wgx_send_stage(struct wgx_peer *peer, struct sk_buff *skb)
{
	struct net_device *dev = peer->wgx->dev;
	struct sk_buff *old = NULL;
	bool dead;

	WGX_SKB_CB(skb)->peer = NULL;
	WGX_SKB_CB(skb)->keypair = NULL;
	spin_lock_bh(&peer->staged.lock);
	dead = READ_ONCE(peer->is_dead);
	if (likely(!dead)) {
		if (skb_queue_len(&peer->staged) >= WGX_STAGED_MAX)
			old = __skb_dequeue(&peer->staged);
		__skb_queue_tail(&peer->staged, skb);
	}
	spin_unlock_bh(&peer->staged.lock);
	if (unlikely(dead)) {
		DEV_STATS_INC(dev, tx_dropped);
		kfree_skb(skb);
	}
	if (old) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_TX_DROP_STAGED_OVERFLOW);
		DEV_STATS_INC(dev, tx_dropped);
		kfree_skb(old);
	}
	if (likely(dead || !wgx_peer_has_sending_keypair(peer)))
		return false;
	wgx_send_staged(peer);
	return true;
}

/* The current keypair if it may send, with a reference, else NULL. */
static struct wgx_keypair *wgx_send_get_keypair(struct wgx_peer *peer)
{
	struct wgx_keypair *keypair;

	rcu_read_lock_bh();
	keypair = wgx_keypair_get(rcu_dereference_bh(peer->keypair_current));
	rcu_read_unlock_bh();
	if (keypair && unlikely(!READ_ONCE(keypair->sending_valid))) {
		wgx_keypair_put(keypair, false);
		keypair = NULL;
	}
	return keypair;
}

/* Timer events for a sent transport message; cheap when nothing changes. */
static void wgx_send_timer_events(struct wgx_peer *peer, bool keepalive)
{
	struct wgx_timers *t = &peer->timer_state;

	if (READ_ONCE(t->persistent_keepalive_s))
		wgx_timers_any_authenticated_packet_traversal(peer);
	if (READ_ONCE(t->deadline[WGX_TIMER_SEND_KEEPALIVE]))
		wgx_timers_any_authenticated_packet_sent(peer);
	if (!keepalive && !READ_ONCE(t->deadline[WGX_TIMER_NEW_HANDSHAKE]))
		wgx_timers_data_sent(peer);
}

/*
 * Data of @peer left from a port beyond the first: a keepalive from the
 * first port once per WGX_PORTS_HEARTBEAT, so the peer keeps that port as
 * our endpoint instead of moving it to each port it hears (every move would
 * re-steer all of its flows to us).  One sender wins the cmpxchg.  Any
 * context; no lock of ours held but a tx queue's and the lane's (the
 * keepalive takes the staged lock and a ring's producer lock).
 */
static void wgx_send_ports_heartbeat(struct wgx_peer *peer)
{
	u32 now = (u32)jiffies, last = READ_ONCE(peer->ports_heartbeat);

	if (likely(now - last < WGX_PORTS_HEARTBEAT) || READ_ONCE(peer->is_dead))
		return;
	if (cmpxchg(&peer->ports_heartbeat, last, now) != last)
		return;
	wgx_send_keepalive(peer);
}

/*
 * Send @skb, encrypted with cb->keypair at cb->nonce (references held in the
 * cb), and account for it.  Consumes @skb and the cb's references, except
 * when @direct and the outer route leaves through a wgx device: then
 * nothing is sent, the caller keeps @skb with its cb, and the result is
 * WGX_SEND_SEALED.
 */
static enum wgx_send_result wgx_send_sealed(struct sk_buff *skb, bool keepalive, u64 now,
					    bool direct)
{
	struct wgx_skb_cb *cb = WGX_SKB_CB(skb);
	struct wgx_peer *peer = cb->peer;
	struct wgx_keypair *keypair = cb->keypair;
	u64 nonce = cb->nonce;
	u8 port = cb->port;
	int ret;

	ret = wgx_socket_send_skb_to_peer(peer, skb, cb->ds, port, direct);
	if (ret == WGX_SOCKET_VIA_WGX) {
		cb->sealed = 1;
		return WGX_SEND_SEALED;
	}
	if (unlikely(ret)) {
		wgx_peer_stats_inc(peer, ret == -EHOSTUNREACH ? WGX_PEER_STAT_TX_DROP_NO_ENDPOINT :
								 WGX_PEER_STAT_TX_DROP_ERROR);
		DEV_STATS_INC(peer->wgx->dev, tx_errors);
	} else {
		wgx_peer_stats_inc(peer, keepalive ? WGX_PEER_STAT_KEEPALIVES_TX :
						     WGX_PEER_STAT_TX_PACKETS);
		wgx_send_timer_events(peer, keepalive);
		if (port)
			wgx_send_ports_heartbeat(peer);
		if (unlikely(wgx_timers_core_want_rekey_on_send(&peer->timer_state, keypair->keys.birth_ns,
							   nonce, keypair->keys.initiator, now)))
			wgx_handshake_send_initiation(peer, false);
	}
	/* @skb is gone; release what its cb held. */
	wgx_keypair_put(keypair, false);
	wgx_peer_put(peer);
	return ret ? WGX_SEND_GONE : WGX_SEND_SENT;
}

enum wgx_send_result wgx_send_encrypt_and_send(struct sk_buff *skb, bool direct)
{
	struct wgx_skb_cb *cb = WGX_SKB_CB(skb);
	struct wgx_peer *peer = cb->peer;
	struct net_device *dev;
	struct wgx_keypair *keypair;
	bool keepalive = skb->len == 0;
	u64 now, nonce;

	if (unlikely(READ_ONCE(peer->is_dead)))
		goto drop;
	/*
	 * Encrypted by an inline send whose outer route turned out to leave
	 * through a wgx device (only ndo_start_xmit sends inline, never a
	 * keepalive): the worker sends it as it is.
	 */
	if (unlikely(cb->sealed))
		return wgx_send_sealed(skb, false, wgx_clock_ns(), false);

	keypair = wgx_send_get_keypair(peer);
	if (unlikely(!keypair))
		goto stage;
	/*
	 * Packets staged before the keypair came wait for the handshake's
	 * flush; one of them may be of this packet's flow.  This one joins
	 * them, and staging, which sees the keypair, sends them all in order.
	 */
	if (unlikely(!skb_queue_empty_lockless(&peer->staged))) {
		wgx_keypair_put(keypair, false);
		goto stage;
	}
	now = wgx_clock_ns();
	nonce = atomic64_inc_return(&keypair->sending_counter) - 1;
	if (unlikely(!wgx_timers_core_keypair_usable(&peer->timer_state, keypair->keys.birth_ns, nonce,
						now))) {
		WRITE_ONCE(keypair->sending_valid, false);
		wgx_keypair_put(keypair, false);
		goto stage;
	}
	cb->keypair = keypair;
	cb->nonce = nonce;

	if (unlikely(!wgx_send_encrypt_skb(skb, keypair, nonce, cb->mtu,
					  !keepalive && wgx_send_express(peer, skb)))) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_TX_DROP_ERROR);
		goto drop;
	}
	return wgx_send_sealed(skb, keepalive, now, direct);

stage:
	/* The cb's peer reference becomes ours until the initiation is asked for. */
	if (!wgx_send_stage(peer, skb))
		wgx_handshake_send_initiation(peer, false);
	wgx_peer_put(peer);
	return WGX_SEND_GONE;
drop:
	/* Read the device before the cb's reference, perhaps the peer's last, goes. */
	dev = peer->wgx->dev;
	wgx_skb_cb_release(skb);
	DEV_STATS_INC(dev, tx_dropped);
	kfree_skb(skb);
	return WGX_SEND_GONE;
}

static struct wgx_txq *wgx_send_local_txq(struct wgx_device *wgx, struct sk_buff *skb)
{
	u16 q = skb_get_queue_mapping(skb);

	if (q >= wgx->dev->real_num_tx_queues)
		q = raw_smp_processor_id() % wgx->dev->real_num_tx_queues;
	return &wgx->txqs[q];
}

bool wgx_send_staged(struct wgx_peer *peer)
{
	struct sk_buff *skb;
	bool any;

	/*
	 * Onto the rings under the staged queue's lock: two flushes (a
	 * handshake's and a tx worker's) must not interleave, or a later
	 * packet of a flow could reach its ring before an earlier one.
	 */
	spin_lock_bh(&peer->staged.lock);
	any = !skb_queue_empty(&peer->staged);
	while ((skb = __skb_dequeue(&peer->staged)) != NULL) {
		struct wgx_txq *txq = wgx_send_local_txq(peer->wgx, skb);

		WGX_SKB_CB(skb)->peer = wgx_peer_get(peer);
		WGX_SKB_CB(skb)->keypair = NULL;
		/* Bulk, uncharged: their order among themselves holds (cb->bucket is kept). */
		if (unlikely(!wgx_queueing_tx_enqueue(txq, skb, false, false))) {
			wgx_skb_cb_release(skb);
			DEV_STATS_INC(peer->wgx->dev, tx_dropped);
			kfree_skb(skb);
		}
	}
	spin_unlock_bh(&peer->staged.lock);
	return any;
}

void wgx_send_keepalive(struct wgx_peer *peer)
{
	struct sk_buff *skb;

	/*
	 * Under staged.lock, not a lockless look: after a handshake this is
	 * the flush wgx_send_stage() relies on, and only the lock orders the
	 * new keypair before this read against a packet staged meanwhile.
	 */
	if (wgx_send_staged(peer))
		return;
	skb = alloc_skb(WGX_SEND_HEADROOM + LL_MAX_HEADER + WGX_AEAD_TAG_LEN, GFP_ATOMIC);
	if (unlikely(!skb))
		return;
	skb_reserve(skb, WGX_SEND_HEADROOM + LL_MAX_HEADER);
	skb->dev = peer->wgx->dev;
	skb->protocol = 0;
	skb_set_queue_mapping(skb, raw_smp_processor_id() % peer->wgx->dev->real_num_tx_queues);
	memset(WGX_SKB_CB(skb), 0, sizeof(struct wgx_skb_cb));
	WGX_SKB_CB(skb)->peer = wgx_peer_get(peer);
	WGX_SKB_CB(skb)->mtu = peer->wgx->dev->mtu;
	/* Not charged to BQL: not under the tx queue's lock. */
	if (unlikely(!wgx_queueing_tx_enqueue(wgx_send_local_txq(peer->wgx, skb), skb, false,
					      false))) {
		wgx_skb_cb_release(skb);
		kfree_skb(skb);
	}
}
