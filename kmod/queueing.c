// SPDX-License-Identifier: GPL-2.0
/*
 * queueing.c - per-queue transmit rings and workers.
 * See queueing.h for the design.
 */
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/codel.h>
#include <net/codel_impl.h>

#include "device.h"
#include "peer.h"
#include "queueing.h"
#include "send.h"

/*
 * bql (debugfs wgx/bql, off): charge packets ndo_start_xmit queues to the tx
 * queue's byte queue limit (see queueing.h).  The module leaves it off: under
 * qemu TCG (the only bed measured so far) the backlog BQL moves into fq_codel
 * waits longer than CoDel's 5 ms target and CoDel's drops cost a one-port
 * bulk transfer 21-44 % of its goodput (docs/datapath.md), while unmarked
 * small messages get the lane without it.  A switch for the bench's A/B only;
 * writable at run time: each skb records whether it was charged (bql_len), so
 * packets in flight across a change are credited exactly as charged.
 */
bool wgx_queueing_bql;

/*
 * lane_inline (debugfs wgx/lane_inline, on): a priority packet with nothing
 * ahead of it in its queue's lane is sent from ndo_start_xmit at once instead
 * of waiting for the queue's worker to be scheduled (docs/datapath.md, "The
 * priority lane").  Off only for tests and the bench's A/B.
 */
bool wgx_queueing_lane_inline = true;

/*
 * tx_codel (debugfs wgx/tx_codel, on): the bulk ring's delay control (see
 * "The bulk ring's delay" in docs/datapath.md).  Off only for the bench's
 * A/B; a change takes effect at the worker's next packet.
 */
bool wgx_queueing_tx_codel = true;

/*
 * The bulk ring's CoDel target (ms).  Above RFC 8289's 5 ms: a worker is a
 * thread that competes for its CPU with the applications it serves, and a
 * sojourn of a few scheduler slices is service jitter, not a standing
 * queue (mac80211 chose 20 ms for its CoDel queues for the same reason).
 */
#define WGX_TXQ_CODEL_TARGET_MS 20

/*
 * Largest inner packet sent inline (bytes): small messages, what the lane is
 * for, whose encryption is a few ChaCha20 blocks; ndo_start_xmit runs with
 * BHs off, so a marked bulk transfer's MTU-sized segments wait for the worker.
 */
#define WGX_LANE_INLINE_MAX_LEN 512

/* Workers yield the CPU after this many packets so one queue cannot hog it. */
#define WGX_WORKER_BATCH 64

/* Wake the stopped net_device queue once the ring drained below half. */
static void wgx_txq_maybe_wake(struct wgx_txq *txq)
{
	struct netdev_queue *q = netdev_get_tx_queue(txq->wgx->dev, txq->index);

	/* Pairs with the barrier in wgx_send_txq_full(). */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(q)) && atomic_read(&txq->len) < WGX_TXQ_RING_SIZE / 2)
		netif_tx_wake_queue(q);
}

/* Count one sent packet; every WGX_WORKER_BATCH, wake the queue and yield. */
static void wgx_txq_sent_one(struct wgx_txq *txq, unsigned int *n)
{
	if (++*n % WGX_WORKER_BATCH == 0) {
		wgx_txq_maybe_wake(txq);
		cond_resched();
	}
}

/*
 * Encrypt and send @skb (or drop or stage it: it leaves wgx either way) and
 * credit the bytes ndo_start_xmit charged for it to this queue's byte queue
 * limit.  Only @txq's work item calls this, and a work item never runs on
 * two CPUs at once, so BQL's completion side has the single caller it needs;
 * the bytes go back to the queue they were charged to, whichever CPU the
 * worker runs on.  May wake the queue if BQL stopped it.
 */
static void wgx_txq_send_and_credit(struct wgx_txq *txq, struct sk_buff *skb)
{
	u32 bql_len = WGX_SKB_CB(skb)->bql_len;

	wgx_send_encrypt_and_send(skb, false);
	if (bql_len) {
		/*
		 * The charge happened before the skb was published; the
		 * ptr_ring's smp_wmb there pairs with this read barrier, so
		 * BQL's queued count covers what is completed here.
		 */
		smp_rmb();
		netdev_tx_completed_queue(netdev_get_tx_queue(txq->wgx->dev, txq->index), 1,
					  bql_len);
	}
}

/* The same, then count it (and perhaps yield): not under a lock. */
static void wgx_txq_send(struct wgx_txq *txq, struct sk_buff *skb, unsigned int *n)
{
	wgx_txq_send_and_credit(txq, skb);
	wgx_txq_sent_one(txq, n);
}

/*
 * Send everything on the priority lane, each packet taken and sent under
 * the lane lock, so ndo_start_xmit cannot send a later lane packet inline
 * meanwhile.  The lane has two consumers, the bulk worker and the lane
 * worker (both on @txq's CPU while it is online, else wherever they were
 * queued), and each takes under the lane lock: an emptiness test outside
 * it could see a slot the other consumer is clearing and stop while a lane
 * packet older than the bulk packet the caller is about to send is still
 * queued.  The yield (wgx_txq_sent_one) comes after the lock.
 */
static void wgx_txq_drain_lane(struct wgx_txq *txq, unsigned int *n)
{
	struct sk_buff *skb;

	for (;;) {
		spin_lock_bh(&txq->lane_lock);
		skb = __ptr_ring_consume(&txq->lane);
		if (skb)
			wgx_txq_send_and_credit(txq, skb);
		spin_unlock_bh(&txq->lane_lock);
		if (!skb)
			break;
		wgx_txq_sent_one(txq, n);
	}
}

/* CoDel's view of a bulk packet: its length and when it joined the ring. */
static u32 wgx_txq_codel_len(const struct sk_buff *skb)
{
	return skb->len;
}

static codel_time_t wgx_txq_codel_time(const struct sk_buff *skb)
{
	return ((const struct wgx_skb_cb *)skb->cb)->enqueued;
}

/* The next bulk packet (the worker is the ring's only consumer), or NULL. */
static struct sk_buff *wgx_txq_codel_take(struct codel_vars *vars, void *ctx)
{
	struct wgx_txq *txq = ctx;
	struct sk_buff *skb = ptr_ring_consume_bh(&txq->ring);

	if (skb)
		txq->codel_backlog = atomic_dec_return(&txq->len);
	return skb;
}

/*
 * A bulk packet CoDel drops: it leaves wgx like a sent one (its bucket
 * uncounted, its bytes credited to BQL), with its references, counted as a
 * tx drop of the device.  A keepalive (no payload) is sent instead: its loss
 * slows no flow down, and it is what keeps a NAT mapping open or confirms a
 * new session to the responder.
 */
static void wgx_txq_codel_drop(struct sk_buff *skb, void *ctx)
{
	struct wgx_txq *txq = ctx;
	struct wgx_skb_cb *cb = WGX_SKB_CB(skb);
	u32 bql_len = cb->bql_len;
	u8 bucket = cb->bucket;

	if (unlikely(!skb->len)) {
		wgx_txq_send_and_credit(txq, skb);
		atomic_dec(&txq->bulk_pending[bucket]);
		return;
	}
	atomic_dec(&txq->bulk_pending[bucket]);
	wgx_skb_cb_release(skb);
	DEV_STATS_INC(txq->wgx->dev, tx_dropped);
	wgx_device_stats_inc(txq->wgx, WGX_DEVICE_STAT_TX_DROP_DELAY);
	kfree_skb(skb);
	if (bql_len) {
		smp_rmb();
		netdev_tx_completed_queue(netdev_get_tx_queue(txq->wgx->dev, txq->index), 1,
					  bql_len);
	}
}

/*
 * The lane first, then one bulk packet, and so on.  A lane packet queued
 * before a bulk packet of its own flow must leave first: after taking a
 * bulk packet the lane is drained again (the read barrier makes every lane
 * packet queued before it visible).  A lane packet queued after it is of
 * another flow bucket: the bulk packet's bucket stays counted until it is
 * sent, so its flow's packets go to the bulk ring meanwhile.
 */
static void wgx_txq_worker(struct work_struct *work)
{
	struct wgx_txq *txq = container_of(work, struct wgx_txq, work);
	struct sk_buff *skb;
	unsigned int n = 0;
	u8 bucket;

	for (;;) {
		wgx_txq_drain_lane(txq, &n);
		if (READ_ONCE(wgx_queueing_tx_codel)) {
			u32 marks = txq->codel_stats.ecn_mark;

			skb = codel_dequeue(txq, &txq->codel_backlog, &txq->codel_params,
					    &txq->codel_vars, &txq->codel_stats,
					    wgx_txq_codel_len, wgx_txq_codel_time,
					    wgx_txq_codel_drop, wgx_txq_codel_take);
			/* At most one mark per dequeue: the packet returned. */
			if (unlikely(txq->codel_stats.ecn_mark != marks))
				wgx_device_stats_inc(txq->wgx, WGX_DEVICE_STAT_TX_MARK_DELAY);
		} else
			skb = wgx_txq_codel_take(&txq->codel_vars, txq);
		if (!skb)
			break;
		bucket = WGX_SKB_CB(skb)->bucket;
		/* Lane entries produced before @skb are visible from here on. */
		smp_rmb();
		wgx_txq_drain_lane(txq, &n);
		wgx_txq_send(txq, skb, &n);
		atomic_dec(&txq->bulk_pending[bucket]);
	}
	wgx_txq_maybe_wake(txq);
}

/*
 * The lane alone, on the device's lane workqueue: a lane packet that could
 * not be sent inline waits for a worker of its own on its queue's CPU, not
 * for the bulk worker to finish its batch.  Not a high-priority one: a
 * marked bulk flood fills the lane, and a nice -20 worker encrypting it
 * would run ahead of the applications (with one, a receiver lost three
 * quarters of such a flood in one test run; the likely cause, not proven).
 * The bulk worker drains the lane too (its order rule), under the same
 * lane lock.
 */
static void wgx_txq_lane_worker(struct work_struct *work)
{
	struct wgx_txq *txq = container_of(work, struct wgx_txq, lane_work);
	unsigned int n = 0;

	wgx_txq_drain_lane(txq, &n);
}

/*
 * The CPU that drains @txq: its own, while online.  A queue can belong to a
 * possible CPU that is not (or never was) online, whose per-CPU worker pool
 * has no worker: its packets would wait forever (and device deletion, which
 * drains the workqueue, with them).  The enqueuing CPU takes over then.
 */
static int wgx_txq_worker_cpu(const struct wgx_txq *txq)
{
	if (likely(cpu_online(txq->cpu)))
		return txq->cpu;
	return raw_smp_processor_id();
}

/*
 * Put @skb on @r, and with @q charge its length to @q's byte queue limit
 * first.  The charge must come before the worker can see the skb (else it
 * could credit bytes BQL never counted as queued) and must not happen for an
 * skb the ring refuses: both under the ring's producer lock, where no other
 * producer can take the free slot between the test and the store (the
 * consumer only frees slots).  False when @r is full.
 */
static bool wgx_txq_produce(struct ptr_ring *r, struct sk_buff *skb, struct netdev_queue *q)
{
	bool ok;

	spin_lock_bh(&r->producer_lock);
	ok = !__ptr_ring_full(r);
	if (ok) {
		WGX_SKB_CB(skb)->bql_len = q ? skb->len : 0;
		if (q)
			netdev_tx_sent_queue(q, skb->len);
		/* Cannot fail: the slot is free.  Its smp_wmb orders the charge before. */
		__ptr_ring_produce(r, skb);
	}
	spin_unlock_bh(&r->producer_lock);
	return ok;
}

/*
 * Send @skb, a lane packet of ndo_start_xmit of at most
 * WGX_LANE_INLINE_MAX_LEN bytes, at once if nothing of the lane is ahead of
 * it: the lane empty and no lane packet being sent (the lane lock free; the
 * worker holds it from taking a lane packet to handing it to the socket).
 * Only on @txq's own CPU: there the packet takes the underlay queue (XPS)
 * the worker's packets take, as the worker would have sent it.  We hold the
 * tx queue's lock, the lane's only producer, so the emptiness test holds
 * while we send.  BHs are off (ndo_start_xmit).
 *
 * Never through a wgx device: when the route the send looks up leaves
 * through one (a wgx below this one, or this one itself), transmitting from
 * here would take that device's tx lock inside ours (one lock class:
 * lockdep reports recursion) or ours again (a dead loop on noqueue).  The
 * packet, encrypted by then, goes on the lane, still empty and ours to
 * fill, so it is the lane's first and leaves before every later lane
 * packet, sent by the worker as it is.  True when @skb left our hands.
 */
static bool wgx_txq_send_inline(struct wgx_txq *txq, struct sk_buff *skb)
{
	enum wgx_send_result res;
	bool queued;

	if (!READ_ONCE(wgx_queueing_lane_inline) || skb->len > WGX_LANE_INLINE_MAX_LEN ||
	    txq->cpu != smp_processor_id())
		return false;
	if (!spin_trylock(&txq->lane_lock))
		return false;
	if (!__ptr_ring_empty(&txq->lane)) {
		spin_unlock(&txq->lane_lock);
		return false;
	}
	WGX_SKB_CB(skb)->bql_len = 0;
	res = wgx_send_encrypt_and_send(skb, true);
	if (likely(res != WGX_SEND_SEALED)) {
		spin_unlock(&txq->lane_lock);
		if (res == WGX_SEND_SENT)
			wgx_device_stats_inc(txq->wgx, WGX_DEVICE_STAT_TX_LANE_INLINE);
		return true;
	}
	/* Cannot be full: it was empty and we are its only producer. */
	queued = wgx_txq_produce(&txq->lane, skb, NULL);
	spin_unlock(&txq->lane_lock);
	if (unlikely(!queued)) {
		wgx_skb_cb_release(skb);
		DEV_STATS_INC(txq->wgx->dev, tx_dropped);
		kfree_skb(skb);
		return true;
	}
	wgx_device_stats_inc(txq->wgx, WGX_DEVICE_STAT_TX_LANE);
	queue_work_on(wgx_txq_worker_cpu(txq), txq->wgx->lane_wq, &txq->lane_work);
	return true;
}

bool wgx_queueing_tx_enqueue(struct wgx_txq *txq, struct sk_buff *skb, bool priority, bool charge)
{
	atomic_t *pending = &txq->bulk_pending[WGX_SKB_CB(skb)->bucket];
	struct netdev_queue *q = NULL;

	if (charge && READ_ONCE(wgx_queueing_bql))
		q = netdev_get_tx_queue(txq->wgx->dev, txq->index);

	/*
	 * The lane only while no earlier packet of the bucket can still be in
	 * the bulk ring: a zero count was uncounted after the send.  A full
	 * lane sends the packet to the bulk ring, counted, like any other.
	 * Inline only from ndo_start_xmit (@charge), which holds the tx
	 * queue's lock.
	 */
	if (priority && !atomic_read(pending)) {
		WGX_SKB_CB(skb)->lane = 1;
		if (charge && wgx_txq_send_inline(txq, skb))
			return true;
		/* Not charged: only the bulk worker may complete BQL bytes. */
		if (wgx_txq_produce(&txq->lane, skb, NULL)) {
			wgx_device_stats_inc(txq->wgx, WGX_DEVICE_STAT_TX_LANE);
			queue_work_on(wgx_txq_worker_cpu(txq), txq->wgx->lane_wq, &txq->lane_work);
			return true;
		}
	}
	/*
	 * Counted before it becomes visible to the worker, which uncounts it
	 * (the bucket and the ring's length alike: never below zero).
	 */
	WGX_SKB_CB(skb)->lane = 0;
	atomic_inc(pending);
	atomic_inc(&txq->len);
	WGX_SKB_CB(skb)->enqueued = codel_get_time();
	if (unlikely(!wgx_txq_produce(&txq->ring, skb, q))) {
		atomic_dec(&txq->len);
		atomic_dec(pending);
		return false;
	}
	queue_work_on(wgx_txq_worker_cpu(txq), txq->wgx->tx_wq, &txq->work);
	return true;
}

/* Drop an skb still queued at teardown, with the references the cb holds. */
static void wgx_queueing_drop_skb(void *ptr)
{
	struct sk_buff *skb = ptr;

	wgx_skb_cb_release(skb);
	kfree_skb(skb);
}

int wgx_queueing_init(struct wgx_device *wgx)
{
	unsigned int i, nq = wgx->dev->num_tx_queues;
	int ret = -ENOMEM;

	wgx->tx_wq = alloc_workqueue("wgx-tx-%s", WQ_CPU_INTENSIVE | WQ_MEM_RECLAIM, 0,
				     wgx->dev->name);
	if (!wgx->tx_wq)
		goto err;
	wgx->lane_wq = alloc_workqueue("wgx-lane-%s", WQ_MEM_RECLAIM, 0, wgx->dev->name);
	if (!wgx->lane_wq)
		goto err_tx_wq;
	wgx->txqs = kcalloc(nq, sizeof(*wgx->txqs), GFP_KERNEL_ACCOUNT);
	if (!wgx->txqs)
		goto err_lane_wq;
	for (i = 0; i < nq; ++i) {
		struct wgx_txq *txq = &wgx->txqs[i];

		ret = ptr_ring_init(&txq->ring, WGX_TXQ_RING_SIZE, GFP_KERNEL_ACCOUNT);
		if (ret)
			goto err_rings;
		ret = ptr_ring_init(&txq->lane, WGX_TXQ_LANE_SIZE, GFP_KERNEL_ACCOUNT);
		if (ret) {
			ptr_ring_cleanup(&txq->ring, NULL);
			goto err_rings;
		}
		spin_lock_init(&txq->lane_lock);
		INIT_WORK(&txq->work, wgx_txq_worker);
		INIT_WORK(&txq->lane_work, wgx_txq_lane_worker);
		codel_params_init(&txq->codel_params);
		txq->codel_params.target = MS2TIME(WGX_TXQ_CODEL_TARGET_MS);
		txq->codel_params.mtu = 1;
		/* An ECN-capable inner packet is marked CE instead of dropped. */
		txq->codel_params.ecn = true;
		codel_vars_init(&txq->codel_vars);
		codel_stats_init(&txq->codel_stats);
		txq->wgx = wgx;
		txq->index = i;
		/* Queue i belongs to the i-th possible CPU. */
		txq->cpu = cpumask_nth(i % num_possible_cpus(), cpu_possible_mask);
	}
	return 0;

err_rings:
	while (i--) {
		ptr_ring_cleanup(&wgx->txqs[i].lane, NULL);
		ptr_ring_cleanup(&wgx->txqs[i].ring, NULL);
	}
	kfree(wgx->txqs);
	wgx->txqs = NULL;
err_lane_wq:
	destroy_workqueue(wgx->lane_wq);
err_tx_wq:
	destroy_workqueue(wgx->tx_wq);
err:
	return ret;
}

void wgx_queueing_down(struct wgx_device *wgx)
{
	unsigned int i;

	/*
	 * Every charged skb was queued, with its worker kicked, before the
	 * queues were disabled; a flush waits for those runs, which drain
	 * their rings empty.  Work queued later (keepalives, staged packets)
	 * credits nothing, so it cannot race with the reset.
	 */
	wgx_queueing_flush(wgx);
	for (i = 0; i < wgx->dev->num_tx_queues; ++i)
		netdev_tx_reset_queue(netdev_get_tx_queue(wgx->dev, i));
}

void wgx_queueing_flush(struct wgx_device *wgx)
{
	flush_workqueue(wgx->lane_wq);
	flush_workqueue(wgx->tx_wq);
}

void wgx_queueing_uninit(struct wgx_device *wgx)
{
	unsigned int i;

	/*
	 * Workers may still be running: drain_workqueue waits and forbids
	 * requeueing.  Every peer is gone by now (wgx_peer_remove_all()).
	 */
	drain_workqueue(wgx->lane_wq);
	drain_workqueue(wgx->tx_wq);
	for (i = 0; i < wgx->dev->num_tx_queues; ++i) {
		ptr_ring_cleanup(&wgx->txqs[i].lane, wgx_queueing_drop_skb);
		ptr_ring_cleanup(&wgx->txqs[i].ring, wgx_queueing_drop_skb);
		/* Nothing is in flight any more, credited or not. */
		netdev_tx_reset_queue(netdev_get_tx_queue(wgx->dev, i));
	}
	kfree(wgx->txqs);
	destroy_workqueue(wgx->lane_wq);
	destroy_workqueue(wgx->tx_wq);
}
