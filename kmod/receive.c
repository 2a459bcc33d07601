// SPDX-License-Identifier: GPL-2.0
/*
 * receive.c - the receive path.
 *
 * Transport data is handled entirely in the UDP socket's encap_rcv, i.e. in
 * the softirq of the CPU that RSS/RPS chose for the outer flow: look up the
 * keypair by receiver index (RCU), decrypt in place with scatter-gather
 * ChaCha20-Poly1305, check the counter against the keypair's replay window
 * under its short spinlock, check the inner source against the peer's
 * allowed IPs, and deliver through this CPU's GRO cell.  No packet changes
 * CPU on the way in.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/scatterlist.h>
#include <linux/timekeeping.h>
#include <net/gro_cells.h>
#include <net/inet_ecn.h>
#include <net/ip_tunnels.h>
#include <crypto/chacha20poly1305.h>

#include "device.h"
#include "endpoint.h"
#include "handshake.h"
#include "peer.h"
#include "queueing.h"
#include "receive.h"
#include "rxspread.h"
#include "send.h"
#include "socket.h"
#include "timers.h"

/*
 * Strip the outer IP and UDP headers, leaving skb->data at the WireGuard
 * message with at least its header linear.  Returns the message type, or 0
 * for anything that is not a well-formed message.
 */
static int wgx_receive_prepare(struct sk_buff *skb)
{
	unsigned int data_offset, data_len, linear;
	struct udphdr *udp;
	int type;

	if (unlikely(skb->protocol != htons(ETH_P_IP) && skb->protocol != htons(ETH_P_IPV6)))
		return 0;
	if (unlikely(skb_transport_header(skb) < skb->head ||
		     skb_transport_header(skb) + sizeof(struct udphdr) > skb_tail_pointer(skb)))
		return 0;
	udp = udp_hdr(skb);
	data_offset = (u8 *)udp - skb->data;
	if (unlikely(data_offset > U16_MAX || data_offset + sizeof(struct udphdr) > skb->len))
		return 0;
	data_len = ntohs(udp->len);
	if (unlikely(data_len < sizeof(struct udphdr) || data_len > skb->len - data_offset))
		return 0;
	data_len -= sizeof(struct udphdr);
	data_offset += sizeof(struct udphdr);
	if (unlikely(data_len < sizeof(struct wgx_msg_header) ||
		     !pskb_may_pull(skb, data_offset + sizeof(struct wgx_msg_header)) ||
		     pskb_trim(skb, data_offset + data_len) < 0))
		return 0;
	skb_pull(skb, data_offset);
	if (unlikely(skb->len != data_len))
		return 0;

	/*
	 * Handshake messages are parsed whole, and each has one size: any
	 * other is refused before anything is pulled, so a large datagram from
	 * anyone never costs a linearization.  Transport data only by header.
	 */
	switch (skb->data[0]) {
	case WGX_MSG_INITIATION:
		linear = WGX_MSG_INITIATION_LEN;
		break;
	case WGX_MSG_RESPONSE:
		linear = WGX_MSG_RESPONSE_LEN;
		break;
	case WGX_MSG_COOKIE_REPLY:
		linear = WGX_MSG_COOKIE_REPLY_LEN;
		break;
	case WGX_MSG_TRANSPORT:
		linear = WGX_MSG_TRANSPORT_HEADER_LEN;
		break;
	default:
		return 0;
	}
	if (unlikely(data_len < linear ||
		     (linear != WGX_MSG_TRANSPORT_HEADER_LEN && data_len != linear) ||
		     !pskb_may_pull(skb, linear)))
		return 0;
	type = wgx_msg_classify(skb->data, skb->len);
	return type;
}

/* ---- transport data ---- */

static bool wgx_receive_decrypt(struct sk_buff *skb, struct wgx_keypair *keypair, u64 *nonce)
{
	struct scatterlist sg[MAX_SKB_FRAGS + 8];
	struct sk_buff *trailer;
	unsigned int offset;
	int num_frags;

	*nonce = le64_to_cpu(((struct wgx_msg_transport *)skb->data)->counter);
	if (unlikely(*nonce >= WGX_TRANSPORT_REJECT_AFTER_MESSAGES))
		return false;

	/* Keep the outer headers inside the skb while skb_cow_data may copy it:
	 * the endpoint and ECN bits are read from them afterwards. */
	offset = -skb_network_offset(skb);
	skb_push(skb, offset);
	num_frags = skb_cow_data(skb, 0, &trailer);
	offset += WGX_MSG_TRANSPORT_HEADER_LEN;
	skb_pull(skb, offset);
	if (unlikely(num_frags < 0 || num_frags > ARRAY_SIZE(sg)))
		return false;

	sg_init_table(sg, num_frags);
	if (skb_to_sgvec(skb, sg, 0, skb->len) <= 0)
		return false;
	if (!chacha20poly1305_decrypt_sg_inplace(sg, skb->len, NULL, 0, *nonce,
						 keypair->keys.receiving_key))
		return false;

	/* Drop the tag, keeping the outer headers valid across the trim. */
	skb_push(skb, offset);
	if (pskb_trim(skb, skb->len - WGX_AEAD_TAG_LEN))
		return false;
	skb_pull(skb, offset);
	return true;
}

/*
 * Replay check under the keypair's replay_lock; what the window reveals about
 * the sender's counters (lost, reordered: uapi RX_LOST, RX_REORDERED) goes to
 * the peer's per-CPU counters after the lock.
 */
static bool wgx_receive_replay_ok(struct wgx_peer *peer, struct wgx_keypair *keypair, u64 nonce)
{
	struct wgx_replay_loss loss = { 0, 0 };
	bool ok;

	spin_lock_bh(&keypair->replay_lock);
	ok = wgx_replay_check_loss(&keypair->replay, nonce, &loss);
	spin_unlock_bh(&keypair->replay_lock);
	if (unlikely(loss.lost))
		wgx_peer_stats_add(peer, WGX_PEER_STAT_RX_LOST, loss.lost);
	if (unlikely(loss.reordered))
		wgx_peer_stats_add(peer, WGX_PEER_STAT_RX_REORDERED, loss.reordered);
	return ok;
}

/* Timer events of an authenticated transport message; cheap when nothing changes. */
static void wgx_receive_timer_events(struct wgx_peer *peer, struct wgx_keypair *keypair,
				     bool keepalive)
{
	struct wgx_timers *t = &peer->timer_state;

	if (READ_ONCE(t->persistent_keepalive_s))
		wgx_timers_any_authenticated_packet_traversal(peer);
	if (READ_ONCE(t->deadline[WGX_TIMER_NEW_HANDSHAKE]))
		wgx_timers_any_authenticated_packet_received(peer);
	if (!keepalive && (!READ_ONCE(t->deadline[WGX_TIMER_SEND_KEEPALIVE]) ||
			   !READ_ONCE(t->need_another_keepalive)))
		wgx_timers_data_received(peer);
	if (unlikely(wgx_timers_core_want_rekey_on_receive(t, keypair->keys.birth_ns,
						      keypair->keys.initiator,
						      wgx_clock_ns())))
		wgx_handshake_send_initiation(peer, false);
}

/* Inner packet length from its IP header, or 0 when it is not a sane IP packet. */
static unsigned int wgx_receive_inner_len(struct sk_buff *skb, __be16 *protocol)
{
	if (skb->len >= sizeof(struct iphdr) && ip_hdr(skb)->version == 4) {
		unsigned int len = ntohs(ip_hdr(skb)->tot_len);

		*protocol = htons(ETH_P_IP);
		if (unlikely(len < ip_hdr(skb)->ihl * 4 || ip_hdr(skb)->ihl < 5))
			return 0;
		return len;
	}
	if (skb->len >= sizeof(struct ipv6hdr) && ipv6_hdr(skb)->version == 6) {
		*protocol = htons(ETH_P_IPV6);
		return ntohs(ipv6_hdr(skb)->payload_len) + sizeof(struct ipv6hdr);
	}
	return 0;
}

/*
 * Hand the decrypted inner packet to the stack: through the peer's NAPI
 * (@napi, rx spreading: the peer's packets in arrival order) or this CPU's
 * GRO cell.
 */
static void wgx_receive_deliver(struct wgx_device *wgx, struct wgx_peer *peer,
				struct sk_buff *skb, u8 outer_ds, bool delay_marked,
				struct napi_struct *napi)
{
	struct net_device *dev = wgx->dev;
	unsigned int inner_len;
	struct wgx_peer *routed;
	__be16 protocol = 0;
	int ecn;

	/* The plaintext is now the inner packet: make it look like one. */
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb->csum_level = ~0;
	skb->dev = dev;
	skb->mark = 0;
	skb->pkt_type = PACKET_HOST;
	skb->encapsulation = 0;
	skb_scrub_packet(skb, true);
	skb_reset_network_header(skb);
	skb_reset_mac_header(skb);

	if (unlikely(!pskb_may_pull(skb, min_t(unsigned int, skb->len, sizeof(struct ipv6hdr)))))
		goto malformed;
	inner_len = wgx_receive_inner_len(skb, &protocol);
	if (unlikely(!inner_len || inner_len > skb->len || pskb_trim(skb, inner_len)))
		goto malformed;
	skb->protocol = protocol;
	if (unlikely(!pskb_network_may_pull(skb, protocol == htons(ETH_P_IP) ?
						 sizeof(struct iphdr) : sizeof(struct ipv6hdr))))
		goto malformed;

	/* Cryptokey routing: the source must be one of the sender's allowed IPs. */
	routed = protocol == htons(ETH_P_IP) ?
		 wgx_allowedips_lookup(wgx->allowedips, WGX_AF_INET, (const u8 *)&ip_hdr(skb)->saddr) :
		 wgx_allowedips_lookup(wgx->allowedips, WGX_AF_INET6,
				       (const u8 *)&ipv6_hdr(skb)->saddr);
	if (unlikely(routed != peer)) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_RX_DROP_ALLOWEDIPS);
		DEV_STATS_INC(dev, rx_errors);
		DEV_STATS_INC(dev, rx_frame_errors);
		net_dbg_ratelimited("%s: peer %llu sent a packet from a source outside its allowed IPs\n",
				    dev->name, peer->internal_id);
		goto drop;
	}
	if (protocol == htons(ETH_P_IP))
		ecn = INET_ECN_decapsulate(skb, outer_ds, ip_hdr(skb)->tos);
	else
		ecn = INET_ECN_decapsulate(skb, outer_ds, ipv6_get_dsfield(ipv6_hdr(skb)));
	/*
	 * CE outside, Not-ECT inside: a packet the path marked is delivered,
	 * as WireGuard does; one our own delay control marked (its outer ECT
	 * was not the inner's) is the drop the mark stood for.
	 */
	if (unlikely(ecn > 1 && delay_marked)) {
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_DELAY);
		DEV_STATS_INC(dev, rx_dropped);
		goto drop;
	}
	skb_probe_transport_header(skb);
	/* Passive TCP RTT: does it echo the pending sample's TSval (telemetry.h)? */
	wgx_telemetry_tcp_received(&peer->telemetry, skb);

	if (napi) {
		napi_gro_receive(napi, skb);
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_RX_PACKETS);
	} else if (likely(gro_cells_receive(&wgx->gro_cells, skb) == NET_RX_SUCCESS)) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_RX_PACKETS);
	} else {
		DEV_STATS_INC(dev, rx_dropped);
	}
	return;

malformed:
	wgx_peer_stats_inc(peer, WGX_PEER_STAT_RX_DROP_MALFORMED);
	DEV_STATS_INC(dev, rx_errors);
	DEV_STATS_INC(dev, rx_length_errors);
drop:
	kfree_skb(skb);
}

static void wgx_receive_release(struct sk_buff *skb)
{
	struct wgx_rx_cb *cb = WGX_RX_CB(skb);

	wgx_keypair_put(cb->keypair, false);
	wgx_peer_put(cb->peer);
}

bool wgx_receive_express_marked(const struct sk_buff *skb)
{
	const u8 *p = skb->data;
	unsigned int inner;

	if (skb_headlen(skb) < sizeof(struct ipv6hdr))
		return skb_headlen(skb) >= sizeof(struct iphdr) && p[0] >> 4 == 4 &&
		       skb->len >= ((p[2] << 8) | p[3]) + WGX_TRANSPORT_EXPRESS_PAD;
	if (p[0] >> 4 == 4)
		inner = (p[2] << 8) | p[3];
	else if (p[0] >> 4 == 6)
		inner = ((p[4] << 8) | p[5]) + sizeof(struct ipv6hdr);
	else
		return false;
	return skb->len >= inner + WGX_TRANSPORT_EXPRESS_PAD;
}

void wgx_receive_decrypt_stage(struct sk_buff *skb)
{
	/* Pairs with the acquire in wgx_rxspread_dequeue_ready(): the plaintext is ready. */
	atomic_set_release(&WGX_RX_CB(skb)->state, wgx_receive_decrypt_verdict(skb));
}

int wgx_receive_decrypt_verdict(struct sk_buff *skb)
{
	struct wgx_rx_cb *cb = WGX_RX_CB(skb);
	/* The auto mode of receive spreading weighs each peer's decryption. */
	bool timed = READ_ONCE(cb->peer->wgx->rx_spread) == WGX_RX_SPREAD_AUTO;
	u64 start = timed ? ktime_get_mono_fast_ns() : 0;
	int state = WGX_RX_OK;

	if (unlikely(!wgx_receive_decrypt(skb, cb->keypair, &cb->nonce)))
		state = WGX_RX_DROP_AUTH;
	if (timed)
		wgx_rxspread_account(&cb->peer->rx_load, ktime_get_mono_fast_ns() - start);
	return state;
}

void wgx_receive_finish(struct sk_buff *skb, struct napi_struct *napi)
{
	struct wgx_rx_cb *cb = WGX_RX_CB(skb);
	struct wgx_keypair *keypair = cb->keypair;
	struct wgx_peer *peer = cb->peer;
	struct wgx_device *wgx = peer->wgx;
	u8 outer_ds = cb->outer_ds;
	bool delay_marked = cb->delay_marked;
	int state = atomic_read(&cb->state);

	/* Here, in arrival order (a decrypt stage may run on any CPU). */
	if (likely(state == WGX_RX_OK) &&
	    unlikely(!wgx_receive_replay_ok(peer, keypair, cb->nonce)))
		state = WGX_RX_DROP_REPLAY;
	switch (state) {
	case WGX_RX_OK:
		break;
	case WGX_RX_DROP_AUTH:
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_RX_DROP_AUTH);
		DEV_STATS_INC(wgx->dev, rx_errors);
		DEV_STATS_INC(wgx->dev, rx_crc_errors);
		goto drop;
	default:
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_RX_DROP_REPLAY);
		DEV_STATS_INC(wgx->dev, rx_errors);
		net_dbg_ratelimited("%s: peer %llu: counter %llu replayed or too old\n",
				    wgx->dev->name, peer->internal_id, cb->nonce);
		goto drop;
	}

	/* Authenticated: the peer is where this came from (roaming). */
	wgx_endpoint_set_from_skb(peer, skb, skb->len == 0);
	wgx_peer_count_rx(peer, cb->message_len);
	wgx_pmtu_received(&peer->pmtu, skb->len == 0);
	if (unlikely(wgx_peer_keypair_received_with(peer, keypair))) {
		wgx_telemetry_confirmed(&peer->telemetry, keypair->internal_id);
		wgx_timers_handshake_complete(peer);
		wgx_send_staged(peer);
	}
	wgx_receive_timer_events(peer, keypair, skb->len == 0);

	/* Past here the cb is not ours any more (GRO uses it): keep the references. */
	if (skb->len == 0) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_KEEPALIVES_RX);
		consume_skb(skb);
	} else {
		wgx_receive_deliver(wgx, peer, skb, outer_ds, delay_marked, napi);
	}
	wgx_keypair_put(keypair, false);
	wgx_peer_put(peer);
	return;

drop:
	DEV_STATS_INC(wgx->dev, rx_dropped);
	wgx_receive_release(skb);
	kfree_skb(skb);
}

static void wgx_receive_data(struct wgx_device *wgx, struct sk_buff *skb)
{
	struct wgx_index_entry *entry;
	struct wgx_keypair *keypair = NULL;
	struct wgx_peer *peer = NULL;
	struct wgx_rx_cb *cb;
	__le32 index;
	u8 mode;

	index = ((struct wgx_msg_transport *)skb->data)->receiver_index;
	rcu_read_lock_bh();
	entry = wgx_index_hashtable_lookup(wgx->index_hashtable, WGX_INDEX_KEYPAIR, index, &peer);
	if (entry)
		keypair = wgx_keypair_get(container_of(entry, struct wgx_keypair, entry));
	rcu_read_unlock_bh();
	if (unlikely(!keypair)) {
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_UNKNOWN_INDEX);
		goto drop;
	}
	if (unlikely(!READ_ONCE(keypair->receiving_valid) ||
		     !wgx_timers_core_keypair_usable(&peer->timer_state, keypair->keys.birth_ns, 0,
						wgx_clock_ns()))) {
		WRITE_ONCE(keypair->receiving_valid, false);
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_RX_DROP_NO_KEYPAIR);
		goto drop;
	}

	cb = WGX_RX_CB(skb);
	cb->peer = peer;
	cb->keypair = keypair;
	cb->message_len = skb->len;
	cb->outer_ds = skb->protocol == htons(ETH_P_IP) ? ip_hdr(skb)->tos :
							  ipv6_get_dsfield(ipv6_hdr(skb));
	cb->small = false;
	cb->delay_marked = false;
	atomic_set(&cb->state, WGX_RX_PENDING);
	/* Decrypted on another CPU, delivered in arrival order (rxspread.c)? */
	mode = READ_ONCE(wgx->rx_spread);
	if (wgx_rxspread_enqueue(peer, skb, mode))
		return;
	wgx_receive_decrypt_stage(skb);
	wgx_receive_finish(skb, NULL);
	return;

drop:
	DEV_STATS_INC(wgx->dev, rx_dropped);
	kfree_skb(skb);
	wgx_keypair_put(keypair, false);
	wgx_peer_put(peer);
}

int wgx_receive(struct sock *sk, struct sk_buff *skb)
{
	struct wgx_device *wgx = rcu_dereference_sk_user_data(sk);
	int type;

	if (unlikely(!wgx))
		goto drop;
	skb_mark_not_on_list(skb);
	type = wgx_receive_prepare(skb);
	switch (type) {
	case WGX_MSG_TRANSPORT:
		wgx_receive_data(wgx, skb);
		return 0;
	case WGX_MSG_INITIATION:
	case WGX_MSG_RESPONSE:
	case WGX_MSG_COOKIE_REPLY:
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_HANDSHAKE_PACKETS);
		if (unlikely(!wgx_handshake_enqueue(wgx, skb))) {
			wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_HANDSHAKE_QUEUE);
			net_dbg_ratelimited("%s: handshake queue full, dropping\n", wgx->dev->name);
			goto drop;
		}
		return 0;
	default:
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_MALFORMED);
		DEV_STATS_INC(wgx->dev, rx_errors);
		DEV_STATS_INC(wgx->dev, rx_length_errors);
		goto drop;
	}
drop:
	kfree_skb(skb);
	return 0;
}
