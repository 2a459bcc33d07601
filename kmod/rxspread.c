// SPDX-License-Identifier: GPL-2.0
/*
 * rxspread.c - receive spreading: per-CPU decrypt workers and per-peer
 * in-order delivery.  See rxspread.h for the design and the lifetime rules.
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "device.h"
#include "peer.h"
#include "receive.h"
#include "rxspread.h"

/* Workers yield the CPU after this many messages. */
#define WGX_RXSPREAD_BATCH 64

#ifdef WGX_DEBUG
/*
 * rx_worker_delay_ms, TESTS ONLY: every run of a decrypt worker starts this
 * many milliseconds late, so a spread peer's messages stay pending in its
 * ordered queue that long: a test can switch the spreading mode while
 * messages wait there.
 */
static unsigned int wgx_rxspread_worker_delay_ms;
module_param_named(rx_worker_delay_ms, wgx_rxspread_worker_delay_ms, uint, 0644);
MODULE_PARM_DESC(rx_worker_delay_ms,
		 "TESTS ONLY: every decrypt worker run starts this many ms late");
#endif

/*
 * The head of @rx's ordered queue, unlinked, if its decryption is done
 * (whatever its verdict); NULL when the queue is empty or its head is still
 * pending, though later messages may be done: they wait behind it.  A small
 * message stays counted in small_queued; it adds one to *@small, for
 * wgx_rxspread_small_left() once it has left the NAPI.
 */
static struct sk_buff *wgx_rxspread_dequeue_ready(struct wgx_peer_rx *rx, unsigned int *small)
{
	struct sk_buff *skb;

	spin_lock_bh(&rx->queue.lock);
	skb = skb_peek(&rx->queue);
	/* Pairs with the release in wgx_receive_decrypt_stage(). */
	if (skb && atomic_read_acquire(&WGX_RX_CB(skb)->state) != WGX_RX_PENDING) {
		__skb_unlink(skb, &rx->queue);
		if (WGX_RX_CB(skb)->small)
			++*small;
	} else {
		skb = NULL;
	}
	spin_unlock_bh(&rx->queue.lock);
	return skb;
}

/* @n small messages taken by wgx_rxspread_dequeue_ready() are gone up the stack. */
static void wgx_rxspread_small_left(struct wgx_peer_rx *rx, unsigned int n)
{
	spin_lock_bh(&rx->queue.lock);
	rx->small_queued -= n;
	spin_unlock_bh(&rx->queue.lock);
}

/*
 * The peer's NAPI: deliver from the head of the ordered queue every message
 * whose decryption is done, stop at the first that is still pending (its
 * worker schedules the NAPI again when done).  Small messages it delivered
 * stay counted until GRO has handed them to the stack (an express message
 * going up through a GRO cell on another CPU meanwhile would pass them):
 * when the poll completes, napi_complete_done() has; when the budget ran
 * out, the NAPI core hands them up after this poll returns (GRO flushed
 * here first), and the next poll, which must follow, uncounts them.
 */
static int wgx_rxspread_poll(struct napi_struct *napi, int budget)
{
	struct wgx_peer_rx *rx = container_of(napi, struct wgx_peer_rx, napi);
	unsigned int small = 0;
	struct sk_buff *skb;
	int done = 0;

	if (rx->small_held) {
		wgx_rxspread_small_left(rx, rx->small_held);
		rx->small_held = 0;
	}
	while (done < budget && (skb = wgx_rxspread_dequeue_ready(rx, &small)) != NULL) {
		wgx_receive_finish(skb, napi);
		++done;
	}
	if (done < budget && napi_complete_done(napi, done)) {
		if (small)
			wgx_rxspread_small_left(rx, small);
	} else if (small) {
		napi_gro_flush(napi, false);
		rx->small_held = small;
	}
	return done;
}

static void wgx_rxspread_worker(struct work_struct *work)
{
	struct wgx_rx_worker *worker = container_of(work, struct wgx_rx_worker, work);
	struct sk_buff *skb;
	unsigned int n = 0;
#ifdef WGX_DEBUG
	unsigned int delay_ms = READ_ONCE(wgx_rxspread_worker_delay_ms);

	if (delay_ms)
		msleep(delay_ms);
#endif
	while ((skb = ptr_ring_consume_bh(&worker->ring)) != NULL) {
		struct wgx_peer_rx *rx = READ_ONCE(WGX_RX_CB(skb)->peer->rx);

		wgx_receive_decrypt_stage(skb);
		/*
		 * After the state is published the skb belongs to the NAPI: only
		 * the peer's rx (alive until this workqueue is flushed) is used.
		 * BHs off so that the NAPI runs here, at local_bh_enable().
		 */
		local_bh_disable();
		napi_schedule(&rx->napi);
		local_bh_enable();
		if (++n % WGX_RXSPREAD_BATCH == 0)
			cond_resched();
	}
}

/* The next online CPU after the last one this CPU handed a message to. */
static int wgx_rxspread_next_cpu(struct wgx_rx_worker *local)
{
	int cpu = cpumask_next(local->next_cpu, cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	local->next_cpu = cpu;
	return cpu;
}

/*
 * Auto mode: when @peer's load window is over, judge it (one CPU wins the
 * cmpxchg that starts the next) and switch the peer's spreading; a peer
 * without a queue yet asks the device's grow work for one.
 */
static void wgx_rxspread_judge(struct wgx_peer *peer)
{
	struct wgx_rxspread_load *load = &peer->rx_load;
	u64 now = ktime_get_mono_fast_ns();
	u64 start = READ_ONCE(load->window_start);
	struct wgx_peer_rx *rx;
	bool spreading, want;

	if (likely(now - start < WGX_RXSPREAD_WINDOW_NS))
		return;
	if (cmpxchg64(&load->window_start, start, now) != start)
		return;
	rx = smp_load_acquire(&peer->rx);
	spreading = rx && READ_ONCE(rx->active);
	want = wgx_rxspread_want(spreading, atomic64_xchg(&load->busy, 0), now - start,
				 num_online_cpus());
	if (want == spreading)
		return;
	if (rx) {
		WRITE_ONCE(rx->active, want);
		return;
	}
	WRITE_ONCE(load->wanted, true);
	queue_work(system_unbound_wq, &peer->wgx->rx_grow_work);
}

/*
 * Whether @skb may join @rx's ordered queue: not when the queue is full, nor
 * when the queue's delay control drops it (a message longer than
 * WGX_RXSPREAD_SMALL, while the head has stood too long) and it is not
 * ECN-capable: an ECN-capable one is marked CE instead and joins
 * (wgx_receive_delay_mark()), as CoDel on the transmit side marks rather
 * than drops.  Stamps its arrival.  Under the queue's lock.
 */
static bool wgx_rxspread_admit(struct wgx_peer_rx *rx, struct sk_buff *skb)
{
	unsigned int queued = skb_queue_len(&rx->queue);
	u64 now = ktime_get_mono_fast_ns();
	struct sk_buff *head;

	WGX_RX_CB(skb)->queued_ns = now;
	if (unlikely(queued >= WGX_RXSPREAD_PEER_MAX))
		return false;
	/* The message is the header, the padded plaintext and the tag. */
	if (WGX_RX_CB(skb)->message_len <= WGX_RXSPREAD_SMALL + WGX_MSG_TRANSPORT_MIN_LEN)
		return true;
	head = skb_peek(&rx->queue);
	if (likely(!wgx_rxspread_delay_drop(&rx->delay, now,
					    head ? now - WGX_RX_CB(head)->queued_ns : 0, queued)))
		return true;
	if (wgx_receive_delay_mark(skb)) {
		wgx_device_stats_inc(rx->peer->wgx, WGX_DEVICE_STAT_RX_MARK_DELAY);
		return true;
	}
	wgx_device_stats_inc(rx->peer->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY);
	return false;
}

/*
 * Whether @rx is new and still settles: nothing of it is spread yet.  The
 * clock is read only until the settling is over, then the mark is cleared
 * (by whichever CPU sees it first; they all write 0).
 */
static bool wgx_rxspread_settling(struct wgx_peer_rx *rx)
{
	u64 until = READ_ONCE(rx->settled_ns);

	if (likely(!until))
		return false;
	if (ktime_get_mono_fast_ns() < until)
		return true;
	WRITE_ONCE(rx->settled_ns, 0);
	return false;
}

/*
 * Whether a small message, queued on @rx and decrypted, with the express
 * mark, may leave ahead of the queue at @now (ns): no other small message
 * is queued (one that came earlier may still be decrypting on another CPU)
 * and the queue's head has waited less than WGX_RXSPREAD_EXPRESS_HEAD_NS.
 * Under the queue's lock.
 */
static bool wgx_rxspread_may_pass(struct wgx_peer_rx *rx, u64 now)
{
	struct sk_buff *head = skb_peek(&rx->queue);

	return rx->small_queued == 1 && head &&
	       now - WGX_RX_CB(head)->queued_ns < WGX_RXSPREAD_EXPRESS_HEAD_NS;
}

/*
 * A small message, queued (and counted in small_queued) on @rx and
 * decrypted here, its state not yet published, so the NAPI leaves it where
 * it is: delivered at once through this CPU's GRO cell when it has the
 * express mark and wgx_rxspread_may_pass(); otherwise its state is
 * published and it waits its turn.
 */
static void wgx_rxspread_express(struct wgx_peer_rx *rx, struct sk_buff *skb, int state)
{
	struct wgx_rx_cb *cb = WGX_RX_CB(skb);
	bool marked = state == WGX_RX_OK && wgx_receive_express_marked(skb);
	bool now_out;

	spin_lock_bh(&rx->queue.lock);
	now_out = marked && wgx_rxspread_may_pass(rx, ktime_get_mono_fast_ns());
	if (now_out) {
		__skb_unlink(skb, &rx->queue);
		--rx->small_queued;
	} else {
		/* Pairs with the acquire in wgx_rxspread_dequeue_ready(). */
		atomic_set_release(&cb->state, state);
	}
	spin_unlock_bh(&rx->queue.lock);
	if (now_out) {
		wgx_device_stats_inc(rx->peer->wgx, WGX_DEVICE_STAT_RX_EXPRESS);
		atomic_set(&cb->state, state);
		wgx_receive_finish(skb, NULL);
	}
}

/* Where a message that joins a peer's ordered queue is decrypted. */
enum wgx_rxspread_where {
	WGX_RXSPREAD_REFUSED,	/* not admitted: the caller drops it */
	WGX_RXSPREAD_HERE,	/* on the arriving CPU */
	WGX_RXSPREAD_WORKER,	/* by a decrypt worker */
};

/*
 * Admit @skb to @rx's ordered queue (wgx_rxspread_admit()) at its tail and
 * say where it is decrypted: by a worker when @spread, except a small
 * message, which is decrypted here (it costs a few ChaCha20 blocks, and it
 * may be express) and counted in small_queued as it joins, so that a marked
 * message behind it, decrypted sooner on another CPU, does not pass it.
 * Under the queue's lock.
 */
static enum wgx_rxspread_where wgx_rxspread_join(struct wgx_peer_rx *rx, struct sk_buff *skb,
						 bool spread)
{
	struct wgx_rx_cb *cb = WGX_RX_CB(skb);

	if (unlikely(!wgx_rxspread_admit(rx, skb)))
		return WGX_RXSPREAD_REFUSED;
	__skb_queue_tail(&rx->queue, skb);
	if (cb->message_len <= WGX_RXSPREAD_SMALL + WGX_MSG_TRANSPORT_MIN_LEN) {
		cb->small = true;
		++rx->small_queued;
		spread = false;
	}
	return spread ? WGX_RXSPREAD_WORKER : WGX_RXSPREAD_HERE;
}

bool wgx_rxspread_enqueue(struct wgx_peer *peer, struct sk_buff *skb, u8 mode)
{
	struct wgx_device *wgx = peer->wgx;
	struct wgx_rx_cb *cb = WGX_RX_CB(skb);
	struct wgx_rx_worker *worker;
	enum wgx_rxspread_where where;
	struct wgx_peer_rx *rx;
	bool spread;
	int cpu;

	if (mode == WGX_RX_SPREAD_AUTO)
		wgx_rxspread_judge(peer);
	/* Pairs with the release in wgx_rxspread_peer_init(): the queue is set up. */
	rx = smp_load_acquire(&peer->rx);
	/* A dead peer's queue is going away (see wgx_peer_shutdown()). */
	if (!rx || unlikely(READ_ONCE(peer->is_dead)))
		return false;
	/*
	 * Not spread now (mode off; auto while the load does not ask for it;
	 * mode on spreads every peer, whatever a late judgement of auto
	 * wrote), nor while a new queue settles: decrypted here, but delivered
	 * by the peer's NAPI from its ordered queue like a spread message, so
	 * a switch either way never lets a message overtake another.  We are
	 * in encap_rcv: @rx lives until we return (synchronize_net() at its
	 * end).
	 */
	spread = mode == WGX_RX_SPREAD_ON || (mode == WGX_RX_SPREAD_AUTO && READ_ONCE(rx->active));
	spread = spread && !unlikely(wgx_rxspread_settling(rx));
	cpu = spread ? wgx_rxspread_next_cpu(this_cpu_ptr(wgx->rx_workers)) : 0;
	worker = per_cpu_ptr(wgx->rx_workers, cpu);

	spin_lock_bh(&rx->queue.lock);
	where = wgx_rxspread_join(rx, skb, spread);
	/*
	 * Into the worker's ring under the queue's lock: otherwise the NAPI could
	 * deliver (or the worker decrypt) before both queues hold it.
	 */
	if (where == WGX_RXSPREAD_WORKER && unlikely(ptr_ring_produce_bh(&worker->ring, skb))) {
		__skb_unlink(skb, &rx->queue);
		if (cb->small)
			--rx->small_queued;
		where = WGX_RXSPREAD_REFUSED;
	}
	spin_unlock_bh(&rx->queue.lock);

	switch (where) {
	case WGX_RXSPREAD_REFUSED:
		DEV_STATS_INC(wgx->dev, rx_dropped);
		wgx_keypair_put(cb->keypair, false);
		wgx_peer_put(peer);
		kfree_skb(skb);
		return true;
	case WGX_RXSPREAD_WORKER:
		queue_work_on(cpu, wgx->rx_wq, &worker->work);
		return true;
	case WGX_RXSPREAD_HERE:
		break;
	}
	if (cb->small)
		wgx_rxspread_express(rx, skb, wgx_receive_decrypt_verdict(skb));
	else
		wgx_receive_decrypt_stage(skb);
	/* Also after an express delivery: what it held up may be ready. */
	napi_schedule(&rx->napi);
	return true;
}

/* Free the workers' rings; a zeroed ring (never made) is freed harmlessly. */
static void wgx_rxspread_rings_free(struct wgx_device *wgx)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct wgx_rx_worker *worker = per_cpu_ptr(wgx->rx_workers, cpu);

		ptr_ring_cleanup(&worker->ring, NULL);
		memset(&worker->ring, 0, sizeof(worker->ring));
	}
	wgx->rx_rings = false;
}

/*
 * Make the decrypt workers' rings, one per possible CPU (a CPU that comes
 * online later may be handed messages at once), unless the device has them:
 * most devices never spread, and the rings are the bulk of what spreading
 * costs (WGX_RXSPREAD_RING_SIZE pointers per CPU).  They stay until the
 * device goes.  Process context, device_update_lock held; 0 or -ENOMEM
 * (nothing made).
 */
static int wgx_rxspread_rings_init(struct wgx_device *wgx)
{
	int cpu, ret;

	lockdep_assert_held(&wgx->device_update_lock);
	if (wgx->rx_rings)
		return 0;
	for_each_possible_cpu(cpu) {
		struct wgx_rx_worker *worker = per_cpu_ptr(wgx->rx_workers, cpu);

		ret = ptr_ring_init(&worker->ring, WGX_RXSPREAD_RING_SIZE, GFP_KERNEL_ACCOUNT);
		if (ret) {
			wgx_rxspread_rings_free(wgx);
			return ret;
		}
	}
	wgx->rx_rings = true;
	return 0;
}

int wgx_rxspread_peer_init(struct wgx_peer *peer, bool active)
{
	struct wgx_peer_rx *rx;

	lockdep_assert_held(&peer->wgx->device_update_lock);
	if (peer->rx) {
		WRITE_ONCE(peer->rx->active, active || READ_ONCE(peer->rx->active));
		return 0;
	}
	/* Before the queue is published: whoever finds it uses the rings. */
	if (wgx_rxspread_rings_init(peer->wgx))
		return -ENOMEM;
	rx = kzalloc(sizeof(*rx), GFP_KERNEL_ACCOUNT);
	if (!rx)
		return -ENOMEM;
	rx->peer = peer;
	rx->settled_ns = ktime_get_mono_fast_ns() + WGX_RXSPREAD_SETTLE_NS;
	rx->active = active;
	skb_queue_head_init(&rx->queue);
	netif_napi_add(peer->wgx->dev, &rx->napi, wgx_rxspread_poll);
	napi_enable(&rx->napi);
	smp_store_release(&peer->rx, rx);
	return 0;
}

/* Drop what a queue still holds (counted), with the references of each message. */
static void wgx_rxspread_purge(struct net_device *dev, struct sk_buff_head *queue)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(queue)) != NULL) {
		DEV_STATS_INC(dev, rx_dropped);
		wgx_keypair_put(WGX_RX_CB(skb)->keypair, false);
		wgx_peer_put(WGX_RX_CB(skb)->peer);
		kfree_skb(skb);
	}
}

void wgx_rxspread_peer_uninit(struct wgx_peer *peer, bool flush)
{
	struct wgx_peer_rx *rx = peer->rx;

	if (!rx)
		return;
	/* Every worker is done with the peer's messages (and scheduled its NAPI). */
	if (flush)
		flush_workqueue(peer->wgx->rx_wq);
	napi_disable(&rx->napi);
	wgx_rxspread_purge(peer->wgx->dev, &rx->queue);
	netif_napi_del(&rx->napi);
	WRITE_ONCE(peer->rx, NULL);
	/* netif_napi_del() leaves the NAPI to RCU readers (netpoll, busy poll). */
	kfree_rcu(rx, rcu);
}

int wgx_rxspread_set(struct wgx_device *wgx, u8 mode)
{
	struct wgx_peer *peer;
	int ret;

	lockdep_assert_held(&wgx->device_update_lock);
	if (mode == READ_ONCE(wgx->rx_spread))
		return 0;
	if (mode == WGX_RX_SPREAD_ON) {
		list_for_each_entry(peer, &wgx->peer_list, peer_list) {
			ret = wgx_rxspread_peer_init(peer, true);
			if (ret)
				goto undo;
		}
		WRITE_ONCE(wgx->rx_spread, mode);
		return 0;
	}
	/*
	 * Auto: each peer is spread again when its next window asks for it.
	 * Off: no peer is.  Either way a peer keeps its queue until it goes:
	 * its messages keep arriving in it, decrypted where they arrive,
	 * behind the ones workers still hold, which messages delivered around
	 * the queue could overtake.
	 */
	WRITE_ONCE(wgx->rx_spread, mode);
	list_for_each_entry(peer, &wgx->peer_list, peer_list)
		if (peer->rx)
			WRITE_ONCE(peer->rx->active, false);
	return 0;

undo:
	/*
	 * The mode stays: queues made so far stay too (until their peers go),
	 * and only the load spreads a peer, as before.
	 */
	list_for_each_entry(peer, &wgx->peer_list, peer_list)
		if (peer->rx && READ_ONCE(wgx->rx_spread) != WGX_RX_SPREAD_ON)
			WRITE_ONCE(peer->rx->active, false);
	return ret;
}

/*
 * Auto mode: make the queue of every peer whose load asked for spreading
 * while it had none, and spread it.  rtnl orders the NAPI's addition to the
 * device with the stack's users of its NAPI list.
 */
static void wgx_rxspread_grow(struct work_struct *work)
{
	struct wgx_device *wgx = container_of(work, struct wgx_device, rx_grow_work);
	struct wgx_peer *peer;

	rtnl_lock();
	mutex_lock(&wgx->device_update_lock);
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		if (!READ_ONCE(peer->rx_load.wanted))
			continue;
		WRITE_ONCE(peer->rx_load.wanted, false);
		if (READ_ONCE(wgx->rx_spread) == WGX_RX_SPREAD_AUTO &&
		    wgx_rxspread_peer_init(peer, true))
			net_dbg_ratelimited("%s: no memory to spread peer %llu\n", wgx->dev->name,
					    peer->internal_id);
	}
	mutex_unlock(&wgx->device_update_lock);
	rtnl_unlock();
}

int wgx_rxspread_init(struct wgx_device *wgx)
{
	int cpu;

	INIT_WORK(&wgx->rx_grow_work, wgx_rxspread_grow);
	wgx->rx_wq = alloc_workqueue("wgx-rx-%s", WQ_CPU_INTENSIVE | WQ_MEM_RECLAIM, 0,
				     wgx->dev->name);
	if (!wgx->rx_wq)
		return -ENOMEM;
	/* Zeroed: the rings come with the first ordered queue (wgx_rxspread_rings_init()). */
	wgx->rx_workers = alloc_percpu_gfp(struct wgx_rx_worker, GFP_KERNEL_ACCOUNT);
	if (!wgx->rx_workers) {
		destroy_workqueue(wgx->rx_wq);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct wgx_rx_worker *worker = per_cpu_ptr(wgx->rx_workers, cpu);

		INIT_WORK(&worker->work, wgx_rxspread_worker);
		worker->wgx = wgx;
		worker->next_cpu = cpu;
	}
	return 0;
}

void wgx_rxspread_uninit(struct wgx_device *wgx)
{
	/*
	 * Every peer is gone, and with it every message that was queued; no
	 * encap_rcv runs any more to ask for a queue.  Not under rtnl: the grow
	 * work takes it (a device that never registered never queued it).
	 */
	cancel_work_sync(&wgx->rx_grow_work);
	drain_workqueue(wgx->rx_wq);
	wgx_rxspread_rings_free(wgx);
	free_percpu(wgx->rx_workers);
	destroy_workqueue(wgx->rx_wq);
}
