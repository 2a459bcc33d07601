// SPDX-License-Identifier: GPL-2.0
/*
 * txbatch.c - one outer UDP GSO packet for the encrypted datagrams of one
 * inner GSO packet.  See txbatch.h.
 */
#include <linux/mm.h>
#include <linux/netdevice.h>

#include "queueing.h"
#include "send.h"
#include "txbatch.h"

void wgx_txbatch_init(struct wgx_txbatch *b, atomic_t *bulk_pending)
{
	__skb_queue_head_init(&b->list);
	b->bulk_pending = bulk_pending;
	b->seg_len = 0;
	b->len = 0;
}

bool wgx_txbatch_may_start(struct sk_buff *skb)
{
	return WGX_SKB_CB(skb)->gso == WGX_SKB_GSO_SEG;
}

/* Closed: a shorter datagram ended it, or a limit is reached. */
static bool wgx_txbatch_closed(const struct wgx_txbatch *b)
{
	const struct sk_buff *last = skb_peek_tail(&b->list);

	return last->len < b->seg_len || skb_queue_len(&b->list) >= WGX_TXBATCH_MAX_SEGS ||
	       b->len + b->seg_len > WGX_TXBATCH_MAX_LEN;
}

bool wgx_txbatch_fits(const struct wgx_txbatch *b, struct sk_buff *skb)
{
	struct sk_buff *first = skb_peek(&b->list);
	const struct wgx_skb_cb *cb = WGX_SKB_CB(skb), *fcb;

	if (!first || !cb->gso || skb->len > b->seg_len || wgx_txbatch_closed(b) ||
	    b->len + skb->len > WGX_TXBATCH_MAX_LEN)
		return false;
	fcb = WGX_SKB_CB(first);
	return cb->peer == fcb->peer && cb->keypair == fcb->keypair && cb->port == fcb->port &&
	       cb->ds == fcb->ds && cb->frag == fcb->frag && cb->bucket == fcb->bucket;
}

bool wgx_txbatch_add(struct wgx_txbatch *b, struct sk_buff *skb)
{
	if (skb_queue_empty(&b->list))
		b->seg_len = skb->len;
	__skb_queue_tail(&b->list, skb);
	b->len += skb->len;
	return WGX_SKB_CB(skb)->gso & WGX_SKB_GSO_LAST || wgx_txbatch_closed(b);
}

/* @len bytes of zero-order pages as @skb's fragments, counted in its length. */
static bool wgx_txbatch_fill_pages(struct sk_buff *skb, unsigned int len)
{
	unsigned int i, chunk;
	struct page *page;

	for (i = 0; len; ++i, len -= chunk) {
		page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
		if (unlikely(!page))
			return false;
		chunk = min_t(unsigned int, len, PAGE_SIZE);
		skb_fill_page_desc(skb, i, page, 0, chunk);
		skb->len += chunk;
		skb->data_len += chunk;
		skb->truesize += PAGE_SIZE;
	}
	return true;
}

struct sk_buff *wgx_txbatch_build(struct wgx_txbatch *b)
{
	struct sk_buff *first = skb_peek(&b->list), *gso, *skb;
	unsigned int off = 0;

	if (DIV_ROUND_UP(b->len, PAGE_SIZE) > MAX_SKB_FRAGS)
		return NULL;
	gso = alloc_skb(WGX_SOCKET_HEADROOM, GFP_ATOMIC);
	if (unlikely(!gso))
		return NULL;
	skb_reserve(gso, WGX_SOCKET_HEADROOM);
	if (unlikely(!wgx_txbatch_fill_pages(gso, b->len)))
		goto err;
	skb_queue_walk(&b->list, skb) {
		/* Encryption leaves a datagram linear but for a rare frag_list trailer. */
		if (unlikely(skb_linearize(skb)) || skb_store_bits(gso, off, skb->data, skb->len))
			goto err;
		off += skb->len;
	}
	skb_shinfo(gso)->gso_size = b->seg_len;
	skb_shinfo(gso)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(gso)->gso_segs = skb_queue_len(&b->list);
	/*
	 * As the UDP socket's segmentation sends it: the checksum completed per
	 * segment from the UDP header, which the tunnel transmit pushes right
	 * in front of the data (and seeds with the pseudo header).
	 */
	gso->ip_summed = CHECKSUM_PARTIAL;
	gso->csum_start = skb_headroom(gso) - sizeof(struct udphdr);
	gso->csum_offset = offsetof(struct udphdr, check);
	/* The tunnel's tx byte count starts at the messages (see wgx_send_encrypt_skb()). */
	skb_set_inner_network_header(gso, 0);
	gso->priority = first->priority;
	skb_copy_hash(gso, first);
	skb_copy_queue_mapping(gso, first);
	memcpy(gso->cb, first->cb, sizeof(gso->cb));
	return gso;

err:
	kfree_skb(gso);
	return NULL;
}
