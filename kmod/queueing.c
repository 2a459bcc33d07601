// SPDX-License-Identifier: GPL-2.0
/*
 * queueing.c - per-queue transmit rings and workers, and the handshake queue.
 * See queueing.h for the design.
 */
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "device.h"
#include "peer.h"
#include "queueing.h"
#include "receive.h"
#include "send.h"

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

static void wgx_txq_worker(struct work_struct *work)
{
	struct wgx_txq *txq = container_of(work, struct wgx_txq, work);
	struct sk_buff *skb;
	unsigned int n = 0;

	while ((skb = ptr_ring_consume_bh(&txq->ring)) != NULL) {
		atomic_dec(&txq->len);
		wgx_send_encrypt_and_send(skb);
		if (++n % WGX_WORKER_BATCH == 0) {
			wgx_txq_maybe_wake(txq);
			cond_resched();
		}
	}
	wgx_txq_maybe_wake(txq);
}

bool wgx_queueing_tx_enqueue(struct wgx_txq *txq, struct sk_buff *skb)
{
	if (unlikely(ptr_ring_produce_bh(&txq->ring, skb)))
		return false;
	atomic_inc(&txq->len);
	queue_work_on(txq->cpu, txq->wgx->tx_wq, &txq->work);
	return true;
}

static void wgx_handshake_worker(struct work_struct *work)
{
	struct wgx_handshake_worker *worker = container_of(work, struct wgx_handshake_worker, work);
	struct wgx_device *wgx = worker->wgx;
	struct sk_buff *skb;
	unsigned int n = 0;

	while ((skb = ptr_ring_consume_bh(&wgx->handshake_ring)) != NULL) {
		atomic_dec(&wgx->handshake_ring_len);
		wgx_receive_handshake(wgx, skb);
		if (++n % WGX_WORKER_BATCH == 0)
			cond_resched();
	}
}

bool wgx_queueing_handshake_enqueue(struct wgx_device *wgx, struct sk_buff *skb)
{
	int cpu, len;

	if (unlikely(ptr_ring_produce_bh(&wgx->handshake_ring, skb)))
		return false;
	len = atomic_inc_return(&wgx->handshake_ring_len);
	if (len > WGX_HANDSHAKE_RING_SIZE / 8) {
		if (len == WGX_HANDSHAKE_RING_SIZE / 8 + 1 && !wgx_queueing_under_load(wgx))
			wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_UNDER_LOAD_ENTERED);
		WRITE_ONCE(wgx->last_under_load, jiffies);
	}
	/* Spread handshake work over the online CPUs, round robin. */
	cpu = cpumask_next(READ_ONCE(wgx->handshake_cpu), cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	WRITE_ONCE(wgx->handshake_cpu, cpu);
	queue_work_on(cpu, wgx->handshake_wq, &per_cpu_ptr(wgx->handshake_workers, cpu)->work);
	return true;
}

bool wgx_queueing_under_load(struct wgx_device *wgx)
{
	unsigned long last = READ_ONCE(wgx->last_under_load);

	return atomic_read(&wgx->handshake_ring_len) > WGX_HANDSHAKE_RING_SIZE / 8 ||
	       (last && time_before(jiffies, last + HZ));
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
	int cpu, ret = -ENOMEM;

	wgx->tx_wq = alloc_workqueue("wgx-tx-%s", WQ_CPU_INTENSIVE | WQ_MEM_RECLAIM, 0,
				     wgx->dev->name);
	if (!wgx->tx_wq)
		goto err;
	wgx->handshake_wq = alloc_workqueue("wgx-hs-%s", WQ_CPU_INTENSIVE | WQ_FREEZABLE, 0,
					    wgx->dev->name);
	if (!wgx->handshake_wq)
		goto err_tx_wq;
	wgx->kex_wq = alloc_workqueue("wgx-kex-%s", WQ_UNBOUND | WQ_FREEZABLE, 0, wgx->dev->name);
	if (!wgx->kex_wq)
		goto err_hs_wq;

	wgx->txqs = kcalloc(nq, sizeof(*wgx->txqs), GFP_KERNEL);
	if (!wgx->txqs)
		goto err_kex_wq;
	for (i = 0; i < nq; ++i) {
		struct wgx_txq *txq = &wgx->txqs[i];

		ret = ptr_ring_init(&txq->ring, WGX_TXQ_RING_SIZE, GFP_KERNEL);
		if (ret)
			goto err_rings;
		INIT_WORK(&txq->work, wgx_txq_worker);
		txq->wgx = wgx;
		txq->index = i;
		/* Queue i belongs to the i-th possible CPU (the XPS map says the same). */
		txq->cpu = cpumask_nth(i % num_possible_cpus(), cpu_possible_mask);
	}

	ret = ptr_ring_init(&wgx->handshake_ring, WGX_HANDSHAKE_RING_SIZE, GFP_KERNEL);
	if (ret)
		goto err_rings;
	atomic_set(&wgx->handshake_ring_len, 0);
	wgx->handshake_workers = alloc_percpu(struct wgx_handshake_worker);
	if (!wgx->handshake_workers) {
		ret = -ENOMEM;
		goto err_hs_ring;
	}
	for_each_possible_cpu(cpu) {
		struct wgx_handshake_worker *worker = per_cpu_ptr(wgx->handshake_workers, cpu);

		worker->wgx = wgx;
		INIT_WORK(&worker->work, wgx_handshake_worker);
	}
	return 0;

err_hs_ring:
	ptr_ring_cleanup(&wgx->handshake_ring, NULL);
err_rings:
	while (i--)
		ptr_ring_cleanup(&wgx->txqs[i].ring, NULL);
	kfree(wgx->txqs);
	wgx->txqs = NULL;
err_kex_wq:
	destroy_workqueue(wgx->kex_wq);
err_hs_wq:
	destroy_workqueue(wgx->handshake_wq);
err_tx_wq:
	destroy_workqueue(wgx->tx_wq);
err:
	return ret;
}

void wgx_queueing_uninit(struct wgx_device *wgx)
{
	unsigned int i;

	/*
	 * Workers may still be running: drain_workqueue waits and forbids
	 * requeueing.  Every peer is gone by now (wgx_peer_remove_all()), so
	 * nothing queues initiations any more.
	 */
	drain_workqueue(wgx->handshake_wq);
	drain_workqueue(wgx->tx_wq);
	drain_workqueue(wgx->kex_wq);
	ptr_ring_cleanup(&wgx->handshake_ring, wgx_queueing_drop_skb);
	free_percpu(wgx->handshake_workers);
	for (i = 0; i < wgx->dev->num_tx_queues; ++i)
		ptr_ring_cleanup(&wgx->txqs[i].ring, wgx_queueing_drop_skb);
	kfree(wgx->txqs);
	destroy_workqueue(wgx->kex_wq);
	destroy_workqueue(wgx->handshake_wq);
	destroy_workqueue(wgx->tx_wq);
}
