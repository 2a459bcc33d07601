/* SPDX-License-Identifier: GPL-2.0 */
/*
 * txbatch.h - the encrypted datagrams of one inner GSO packet leave as one
 * outer UDP segmentation (GSO) packet.
 *
 * ndo_start_xmit segments an inner GSO packet and marks its segments
 * (struct wgx_skb_cb, @gso); a tx queue's worker encrypts them in ring order
 * and collects consecutive ones into a batch while they are for the same
 * peer, keypair, listen port, outer DSCP/ECN and DF, of one flow bucket, and
 * of the first one's size (the last may be shorter).  The batch is sent as
 * one skb: the datagrams' bytes copied, back to back and in nonce order,
 * into page fragments, with SKB_GSO_UDP_L4 and gso_size the first one's
 * length.  One udp_tunnel_xmit_skb() call then routes it and passes
 * netfilter, the qdisc and the driver once; the device segments it (UDP
 * segmentation offload) or the stack does in software when the packet
 * reaches the device (validate_xmit_skb()), each datagram with its own UDP
 * and IP header, lengths and checksum.  Nothing changes on the wire.
 *
 * Not the frag_list form (SKB_GSO_FRAGLIST): skb_segment_list() takes only
 * the MAC header from the head and expects each listed skb to carry its own
 * IP and UDP headers, as UDP GRO's frag_list packets being forwarded do.
 *
 * Nothing waits to fill a batch: it is sent when its inner packet's last
 * segment joined it, when a datagram does not fit, or when the worker finds
 * its ring empty or yields.  Priority lane packets are never batched.
 */
#ifndef WGX_TXBATCH_H
#define WGX_TXBATCH_H

#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

/* The most datagrams in one batch (the kernel's UDP_MAX_SEGMENTS on 6.1). */
#define WGX_TXBATCH_MAX_SEGS	64
/* The most UDP payload bytes in one batch: an outer IPv4 packet of at most 64 KiB. */
#define WGX_TXBATCH_MAX_LEN	(U16_MAX - sizeof(struct iphdr) - sizeof(struct udphdr))

/**
 * struct wgx_txbatch - encrypted datagrams collected by one tx worker.
 * @list: the datagrams, in nonce order; each holds the references its cb holds.
 * @bulk_pending: the tx queue's per-bucket counters of bulk packets not yet
 *                sent; a batched datagram stays counted until the batch is sent.
 * @seg_len: length of the first datagram (bytes), the segment size.
 * @len: bytes of all datagrams.
 */
struct wgx_txbatch {
	struct sk_buff_head list;
	atomic_t *bulk_pending;
	unsigned int seg_len;
	unsigned int len;
};

/** wgx_txbatch_init - an empty batch counting in @bulk_pending (the tx queue's). */
void wgx_txbatch_init(struct wgx_txbatch *b, atomic_t *bulk_pending);

/**
 * wgx_txbatch_fits - whether @skb, an encrypted datagram (cb filled, keypair
 * set), may join @b: @b not empty and still open (no shorter datagram, below
 * WGX_TXBATCH_MAX_SEGS and WGX_TXBATCH_MAX_LEN with @skb), @skb a segment of
 * an inner GSO packet of at most @b's segment size, with the same peer,
 * keypair, listen port, outer DSCP/ECN byte, DF choice and flow bucket.
 */
bool wgx_txbatch_fits(const struct wgx_txbatch *b, struct sk_buff *skb);

/** wgx_txbatch_may_start - whether @skb may start a batch: a segment of an inner GSO packet, not its last. */
bool wgx_txbatch_may_start(struct sk_buff *skb);

/**
 * wgx_txbatch_add - append @skb (wgx_txbatch_fits(), or @b empty and
 * wgx_txbatch_may_start()).  Returns true when @b is closed by it (its inner
 * packet's last segment, shorter than the segment size, or a limit reached):
 * the caller sends @b now.
 */
bool wgx_txbatch_add(struct wgx_txbatch *b, struct sk_buff *skb);

/**
 * wgx_txbatch_build - one UDP GSO skb holding @b's datagrams (at least two)
 * back to back in page fragments, with headroom for the outer headers, the
 * UDP checksum to be completed per segment (CHECKSUM_PARTIAL from the UDP
 * header udp_tunnel_xmit_skb() will push), gso_size @b->seg_len and
 * gso_segs the number of datagrams.  Its cb, hash, priority and queue
 * mapping are the first datagram's (no references taken).  @b is left as
 * it is.  NULL if memory is short.  Any context (GFP_ATOMIC).
 */
struct sk_buff *wgx_txbatch_build(struct wgx_txbatch *b);

#endif /* WGX_TXBATCH_H */
