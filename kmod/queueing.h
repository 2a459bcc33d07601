/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queueing.h - the per-queue transmit rings and workers, and the per-skb
 * control block of the datapath.
 *
 * Transmit: tx queue i of the net_device has a ptr_ring and a work item bound
 * to CPU i, so a flow, which its hash keeps on one queue
 * (wgx_send_select_queue()), is encrypted in order by one worker, while
 * flows on different queues, even of the same peer, are encrypted in
 * parallel.  When a ring
 * fills, its tx queue is stopped (the qdisc holds further packets) and woken
 * by the worker once the ring drained below half.
 *
 * Byte queue limits (module parameter bql, off by default): a packet
 * ndo_start_xmit accepts onto the bulk ring is charged
 * to its tx queue's BQL (netdev_tx_sent_queue) and credited back
 * (netdev_tx_completed_queue) by the queue's worker when it leaves wgx:
 * sent, dropped, or staged for a handshake.  BQL stops the tx queue once
 * the bytes in the rings exceed what the worker drains between two looks,
 * so the backlog stays in the device's qdisc (fq_codel), which schedules
 * flows, rather than in the FIFO ring.  Keepalives and re-queued staged
 * packets (enqueued outside ndo_start_xmit, without the tx queue's lock)
 * are not charged.
 *
 * Priority lane: each queue also has a small ring for latency-sensitive
 * packets (wgx_send_xmit() classifies them), which its worker drains before
 * every bulk packet, and a lane work item on the device's lane workqueue
 * drains on its own.  Per-flow order: a packet goes to the lane only while no
 * packet of its flow bucket (flow hash, WGX_TXQ_BUCKETS buckets) waits in or
 * is being sent from the bulk ring; otherwise it queues behind them in the
 * bulk ring.  See docs/datapath.md, "The priority lane".
 */
#ifndef WGX_QUEUEING_H
#define WGX_QUEUEING_H

#include <linux/ptr_ring.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <net/codel.h>

struct wgx_device;
struct wgx_peer;
struct wgx_keypair;

enum {
	WGX_TXQ_RING_SIZE = 1024,		/* skbs per tx queue */
	WGX_TXQ_BURST = 128,			/* free slots needed to accept a packet (GSO) */
	WGX_STAGED_MAX = 128,			/* packets kept per peer while no keypair exists */
	WGX_TXQ_LANE_SIZE = 256,		/* skbs in the priority lane per tx queue */
	WGX_TXQ_BUCKETS = 256,			/* flow buckets counting bulk packets in flight */
};

/**
 * struct wgx_skb_cb - skb->cb while a packet is in the datapath.
 * @peer: the peer it goes to or came from (a reference is held while queued).
 * @keypair: the keypair it is encrypted with (a reference is held), or NULL.
 * @nonce: transport counter assigned at encryption.
 * @mtu: the device MTU when the packet was queued (padding bound, bytes).
 * @ds: outer DSCP/ECN byte.
 * @port: index of the listen port the datagram leaves from (wgx_ports_flow_port()).
 * @bucket: flow bucket (the inner flow hash modulo WGX_TXQ_BUCKETS) for the
 *          lane's order rule.
 * @sealed: encrypted already (with @keypair at @nonce) by an inline send that
 *          could not send it (its outer route leaves through a wgx device);
 *          the worker sends it as it is.
 * @frag: larger than the peer's path MTU but the sender allows fragments
 *        (pmtu.h): the outer packet leaves with DF clear.
 * @lane: it went to the priority lane (or was sent inline from it).
 * @bql_len: bytes charged to the tx queue's byte queue limit at enqueue, 0 if
 *           none (set by wgx_queueing_tx_enqueue(), credited by the worker).
 * @enqueued: when it joined the bulk ring (codel_get_time(), 1024 ns units):
 *            its sojourn for the ring's delay control.
 */
struct wgx_skb_cb {
	struct wgx_peer *peer;
	struct wgx_keypair *keypair;
	u64 nonce;
	u32 mtu;
	u8 ds;
	u8 port;
	u8 bucket;
	u8 sealed;
	u8 frag;
	u8 lane;
	u32 bql_len;
	codel_time_t enqueued;
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
 * @lane: the priority lane, drained before @ring (same producers).
 * @lane_lock: held by whoever sends a lane packet: the worker, for each
 *             one it takes from @lane, or ndo_start_xmit sending one at
 *             once (wgx_queueing_tx_enqueue()); so no lane packet overtakes
 *             another.  A BH spinlock.
 * @work: drains @lane and @ring on @cpu.
 * @lane_work: drains @lane alone on @cpu, from the device's lane workqueue
 *             (lane packets not sent inline).
 * @len: skbs in @ring (for stopping and waking the net_device queue).
 * @bulk_pending: per flow bucket, the skbs of @ring not yet sent (counted
 *                at enqueue, uncounted by the worker after sending).
 * @codel_params, @codel_vars, @codel_stats: the delay control of @ring
 *                (CoDel, RFC 8289, the kernel's <net/codel_impl.h>), run by
 *                the worker as it takes packets: see "The bulk ring's
 *                delay" in docs/datapath.md.  Only the worker touches them.
 * @codel_backlog: packets in @ring as the worker last counted them, CoDel's
 *                 backlog (in packets: @codel_params.mtu is 1, so a ring
 *                 holding one packet is never judged standing).
 */
struct wgx_txq {
	struct ptr_ring ring;
	struct ptr_ring lane;
	spinlock_t lane_lock;
	struct work_struct work;
	struct work_struct lane_work;
	struct wgx_device *wgx;
	atomic_t len;
	unsigned int index;
	int cpu;
	atomic_t bulk_pending[WGX_TXQ_BUCKETS];
	struct codel_params codel_params;
	struct codel_vars codel_vars;
	struct codel_stats codel_stats;
	u32 codel_backlog;
} ____cacheline_aligned_in_smp;

/** wgx_queueing_init - rings and workers for every tx queue.  Process context; 0 or -ENOMEM. */
int wgx_queueing_init(struct wgx_device *wgx);
/** wgx_queueing_uninit - stop workers, drop queued skbs (releasing their refs).  Process context. */
void wgx_queueing_uninit(struct wgx_device *wgx);
/**
 * wgx_queueing_down - with every tx queue disabled (netif_tx_disable(), so
 * no ndo_start_xmit runs or follows), wait until the workers have sent or
 * dropped every packet queued before, whose bytes they credited, and reset
 * each queue's byte queue limit for the next up.  Process context, sleeps;
 * the caller may hold RTNL (workers take neither RTNL nor device_update_lock).
 */
void wgx_queueing_down(struct wgx_device *wgx);

/**
 * wgx_queueing_flush - wait for every tx worker run queued so far (bulk and
 * lane).  Process context, sleeps.
 */
void wgx_queueing_flush(struct wgx_device *wgx);

/**
 * wgx_queueing_tx_enqueue - queue @skb (cb filled, including cb->bucket; peer
 * ref held) for encryption on tx queue @txq: on the priority lane when
 * @priority is set, the lane has room and no bulk packet of the skb's flow
 * bucket is pending, else on the bulk ring.  A priority packet of at most
 * 512 bytes that could take the lane is instead encrypted and sent at once,
 * in the caller's context, when wgx_queueing_lane_inline is on, the caller runs on
 * @txq's CPU (so the packet leaves on the underlay queue the worker's
 * packets take), the lane is empty and no lane packet is being sent; it is
 * never charged to BQL then.  Never through a wgx device: when its outer
 * route leaves through one, the packet, encrypted by then, goes on the lane
 * as its first entry for the worker to send.  With @charge and
 * wgx_queueing_bql on, a bulk packet's skb->len is charged to the tx queue's
 * byte queue limit (which may stop the queue; lane packets never are);
 * only ndo_start_xmit may charge, since BQL's enqueue side is serialised by
 * the tx queue's lock.  Returns false when the bulk ring is full: nothing is
 * charged and the caller still owns @skb.  Producers hold the tx queue's
 * lock (ndo_start_xmit) or take the rings' producer locks (staged packets,
 * keepalives); softirqs may be enabled or not.
 */
bool wgx_queueing_tx_enqueue(struct wgx_txq *txq, struct sk_buff *skb, bool priority,
			     bool charge);

/*
 * Switches the module decides (defaults: bql off, lane_inline on, tx_codel
 * on), writable in debugfs (wgx/bql, wgx/lane_inline, wgx/tx_codel) for tests
 * and the bench's A/B; read with READ_ONCE() per packet.
 */
extern bool wgx_queueing_bql;
extern bool wgx_queueing_lane_inline;
extern bool wgx_queueing_tx_codel;

#endif /* WGX_QUEUEING_H */
