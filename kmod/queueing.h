/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queueing.h - the per-queue transmit rings and workers, and the per-skb
 * control block of the datapath.
 *
 * Transmit: tx queue i of the net_device has a ptr_ring and a work item bound
 * to CPU i (XPS maps CPU i to queue i), so a flow, which the stack keeps on
 * one queue, is encrypted in order by one worker, while flows on different
 * queues, even of the same peer, are encrypted in parallel.  When a ring
 * fills, its tx queue is stopped (the qdisc holds further packets) and woken
 * by the worker once the ring drained below half.
 */
#ifndef WGX_QUEUEING_H
#define WGX_QUEUEING_H

#include <linux/ptr_ring.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

struct wgx_device;
struct wgx_peer;
struct wgx_keypair;

enum {
	WGX_TXQ_RING_SIZE = 1024,		/* skbs per tx queue */
	WGX_TXQ_BURST = 128,			/* free slots needed to accept a packet (GSO) */
	WGX_STAGED_MAX = 128,			/* packets kept per peer while no keypair exists */
};

/**
 * struct wgx_skb_cb - skb->cb while a packet is in the datapath.
 * @peer: the peer it goes to or came from (a reference is held while queued).
 * @keypair: the keypair it is encrypted with (a reference is held), or NULL.
 * @nonce: transport counter assigned at encryption.
 * @mtu: the device MTU when the packet was queued (padding bound, bytes).
 * @ds: outer DSCP/ECN byte.
 * @port: index of the listen port the datagram leaves from (wgx_socket_flow_port()).
 */
struct wgx_skb_cb {
	struct wgx_peer *peer;
	struct wgx_keypair *keypair;
	u64 nonce;
	u32 mtu;
	u8 ds;
	u8 port;
};

static inline struct wgx_skb_cb *WGX_SKB_CB(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct wgx_skb_cb) > sizeof(skb->cb));
	return (struct wgx_skb_cb *)skb->cb;
}

/**
 * struct wgx_txq - one transmit queue's ring and worker.
 * @ring: skbs awaiting encryption, in queue order (single producer: the
 *        stack holds the tx queue's lock in ndo_start_xmit; plus the staged
 *        packet flush, which takes the producer lock too).
 * @work: drains @ring on @cpu.
 * @len: skbs in @ring (for stopping and waking the net_device queue).
 */
struct wgx_txq {
	struct ptr_ring ring;
	struct work_struct work;
	struct wgx_device *wgx;
	atomic_t len;
	unsigned int index;
	int cpu;
} ____cacheline_aligned_in_smp;

/** wgx_queueing_init - rings and workers for every tx queue.  Process context; 0 or -ENOMEM. */
int wgx_queueing_init(struct wgx_device *wgx);
/** wgx_queueing_uninit - stop workers, drop queued skbs (releasing their refs).  Process context. */
void wgx_queueing_uninit(struct wgx_device *wgx);

/**
 * wgx_queueing_tx_enqueue - queue @skb (cb filled, peer ref held) for encryption
 * on tx queue @txq.  Returns false when the ring is full: the caller still owns
 * @skb.  Stops the net_device queue when the ring becomes full.
 */
bool wgx_queueing_tx_enqueue(struct wgx_txq *txq, struct sk_buff *skb);

#endif /* WGX_QUEUEING_H */
