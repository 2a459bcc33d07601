// SPDX-License-Identifier: GPL-2.0
/*
 * handshake.c - the handshake messages of the protocol (whitepaper 5.4.2-5.4.7):
 * consuming initiations, responses and cookie replies, and the device's
 * handshake ring with its workers and the under-load state that decides when
 * to answer with cookie replies (5.3).  Initiations are made and sent by
 * handshake_initiate.c.
 *
 * Everything here runs in process context, off the data path: received
 * handshake messages wait in a bounded ring (filled by encap_rcv in
 * softirq) drained by the device's ring work items, round robin over the
 * module's wgx-hs threads (one per online CPU, unbound); initiations are
 * made by a per-peer work item on the wgx-hs thread the peer's id picks,
 * so a burst of them spreads over the threads.  The
 * threads run at a positive nice (hsworker.h): a storm yields the CPU to
 * the transport workers of established sessions.
 * Curve25519 runs under the peer's handshake_lock (a mutex) with bottom
 * halves enabled.
 */
#include <linux/cpumask.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/timekeeping.h>
#include <linux/udp.h>

#include "device.h"
#include "keygrace.h"
#include "endpoint.h"
#include "handshake.h"
#include "hsworker.h"
#include "precompute.h"
#include "peer.h"
#include "queueing.h"
#include "send.h"
#include "socket.h"
#include "timers.h"

/* Source address and port of a received datagram: the cookie's "source" (whitepaper 5.4.7). */
static size_t wgx_handshake_cookie_source(const struct sk_buff *skb, u8 src[WGX_COOKIE_SOURCE_MAX_LEN])
{
	if (skb->protocol == htons(ETH_P_IP)) {
		memcpy(src, &ip_hdr(skb)->saddr, 4);
		memcpy(src + 4, &udp_hdr(skb)->source, 2);
		return 6;
	}
	memcpy(src, &ipv6_hdr(skb)->saddr, 16);
	memcpy(src + 16, &udp_hdr(skb)->source, 2);
	return 18;
}

static void wgx_handshake_refused(struct wgx_peer *peer, struct wgx_keypair *keypair,
					  const char *what, int err)
{
	wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_DROP_INVALID);
	net_dbg_ratelimited("%s: peer %llu: %s refused: %d\n", peer->wgx->dev->name,
			    peer->internal_id, what, err);
	wgx_keypair_put(keypair, true);
}

/*
 * @skb, a handshake message from @peer, authenticated and gave @keypair:
 * count it as @stat, roam to its source, feed the timers, install the keypair.
 */
static bool wgx_handshake_session_derived(struct wgx_peer *peer, struct sk_buff *skb,
					  struct wgx_keypair *keypair, enum wgx_peer_stat stat)
{
	WRITE_ONCE(keypair->sending_valid, true);
	WRITE_ONCE(keypair->receiving_valid, true);
	/* A peer removed meanwhile keeps nothing (see wgx_peer_keypair_install()). */
	if (unlikely(!wgx_peer_keypair_install(peer, keypair))) {
		wgx_keypair_put(keypair, true);
		return false;
	}
	wgx_peer_stats_inc(peer, stat);
	wgx_peer_count_rx(peer, skb->len);
	wgx_endpoint_set_from_skb(peer, skb, true);
	wgx_timers_any_authenticated_packet_received(peer);
	wgx_timers_any_authenticated_packet_traversal(peer);
	wgx_timers_session_derived(peer);
	return true;
}

struct wgx_noise_handshake *wgx_handshake_handle(struct wgx_peer *peer, bool prev)
{
	lockdep_assert_held(&peer->handshake_lock);
	return prev ? peer->prev_handshake : peer->handshake;
}

/*
 * A session was made with @hs (@prev: the previous identity's handle):
 * record which keys made it, forget a handshake in progress on the other
 * handle (one handshake in progress per peer, as without grace), and make
 * the next initiation use the identity the peer answered to.  identity_lock
 * (read) and the peer's handshake_lock held.
 */
static void wgx_handshake_note_keys(struct wgx_device *wgx, struct wgx_peer *peer,
				    struct wgx_keypair *keypair, bool prev)
{
	keypair->local_gen = prev ? wgx->identity_gen - 1 : wgx->identity_gen;
	keypair->remote_gen = peer->remote_gen;
	wgx_noise_handshake_clear(wgx_handshake_handle(peer, !prev));
	peer->init_prev = prev;
}

static void wgx_handshake_consume_initiation(struct wgx_device *wgx, struct sk_buff *skb, bool prev)
{
	struct wgx_noise_initiation_scratch scratch;
	struct wgx_noise_prepared prepared;
	struct wgx_noise_handshake *hs;
	bool have_prepared;
	u8 msg[WGX_MSG_RESPONSE_LEN];
	struct wgx_keypair *keypair;
	struct wgx_peer *peer;
	__le32 index;
	u64 now = wgx_clock_ns();
	u64 keypair_id;
	int ret;

	down_read(&wgx->identity_lock);
	ret = wgx_noise_consume_initiation_begin(prev ? wgx->prev_identity : wgx->identity,
						 skb->data, skb->len, &scratch);
	if (ret) {
		up_read(&wgx->identity_lock);
		net_dbg_ratelimited("%s: invalid initiation: %d\n", wgx->dev->name, ret);
		return;
	}
	peer = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, scratch.remote_static);
	if (!peer) {
		wgx_noise_initiation_scratch_wipe(&scratch);
		up_read(&wgx->identity_lock);
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_UNKNOWN_PEER);
		return;
	}
	keypair = wgx_keypair_create(peer, NULL);
	if (!keypair) {
		wgx_noise_initiation_scratch_wipe(&scratch);
		up_read(&wgx->identity_lock);
		wgx_peer_put(peer);
		return;
	}

	mutex_lock(&peer->handshake_lock);
	hs = wgx_handshake_handle(peer, prev);
	/*
	 * Removal marks the peer dead before it clears the handshake under this
	 * lock: a dead peer must not get a new index (it would outlive the peer).
	 */
	if (unlikely(READ_ONCE(peer->is_dead)))
		ret = -ESHUTDOWN;
	else if (unlikely(!hs))
		ret = -ENOKEY;	/* no handle for the previous key: no grace for this peer */
	else
		ret = wgx_noise_consume_initiation_finish(hs, &scratch, now);
	wgx_noise_initiation_scratch_wipe(&scratch);
	if (!ret) {
		/*
		 * One replay state per peer, whichever of our keys it used:
		 * an initiation held back and replayed to the other key must
		 * not be accepted after this later one (whitepaper 5.1).
		 */
		wgx_noise_handshake_copy_replay_state(wgx_handshake_handle(peer, !prev), hs);
		index = wgx_index_hashtable_insert(wgx->index_hashtable, &peer->handshake_entry);
		have_prepared = wgx_precompute_take(peer, hs, &prepared);
		ret = wgx_noise_create_response_prepared(hs, msg, le32_to_cpu(index), now,
							 have_prepared ? &prepared : NULL);
		if (!ret)
			ret = wgx_noise_begin_session(hs, &keypair->keys, now);
		if (!ret) {
			wgx_index_hashtable_replace(wgx->index_hashtable, &peer->handshake_entry,
						    &keypair->entry);
			wgx_handshake_note_keys(wgx, peer, keypair, prev);
		} else {
			wgx_index_hashtable_remove(wgx->index_hashtable, &peer->handshake_entry);
		}
	}
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);

	if (ret) {
		wgx_handshake_refused(peer, keypair, "initiation", ret);
		goto out;
	}
	/* The keypair may be replaced and freed once installed: keep its id. */
	keypair_id = keypair->internal_id;
	if (prev)
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKES_PREVIOUS_KEY);
	if (!wgx_handshake_session_derived(peer, skb, keypair, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_RX))
		goto out;
	wgx_keygrace_expire_stale_sessions(wgx, peer);

	wgx_timers_any_authenticated_packet_sent(peer);
	wgx_telemetry_response_sent(&peer->telemetry, keypair_id);
	if (!wgx_socket_send_buffer_to_peer(peer, msg, sizeof(msg), WGX_HANDSHAKE_DSFIELD))
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_RESPONSES_TX);
out:
	memzero_explicit(msg, sizeof(msg));
	wgx_peer_put(peer);
}

static void wgx_handshake_consume_response(struct wgx_device *wgx, struct sk_buff *skb, bool prev)
{
	struct wgx_noise_handshake *hs;
	struct wgx_index_entry *entry;
	struct wgx_keypair *keypair;
	struct wgx_peer *peer = NULL;
	u64 now = wgx_clock_ns();
	u32 index;
	int ret = -ESTALE;

	if (!wgx_msg_receiver_index(skb->data, skb->len, &index))
		return;
	entry = wgx_index_hashtable_lookup(wgx->index_hashtable, WGX_INDEX_HANDSHAKE,
					   cpu_to_le32(index), &peer);
	if (!entry) {
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_UNKNOWN_INDEX);
		return;
	}
	keypair = wgx_keypair_create(peer, NULL);
	if (!keypair)
		goto out;

	down_read(&wgx->identity_lock);
	mutex_lock(&peer->handshake_lock);
	/* The index may have been re-used for a newer initiation meanwhile:
	 * the core checks the receiver index against the one it sent. */
	/* The MAC1 told which of our keys the responder answered: that handle sent it. */
	hs = wgx_handshake_handle(peer, prev);
	if (unlikely(READ_ONCE(peer->is_dead)))
		ret = -ESHUTDOWN;
	else if (unlikely(!hs))
		ret = -ESTALE;
	else
		ret = wgx_noise_consume_response(hs, skb->data, skb->len, now);
	if (!ret)
		ret = wgx_noise_begin_session(hs, &keypair->keys, now);
	if (!ret && !wgx_index_hashtable_replace(wgx->index_hashtable, &peer->handshake_entry,
						 &keypair->entry))
		ret = -ESTALE;
	if (!ret)
		wgx_handshake_note_keys(wgx, peer, keypair, prev);
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);

	if (ret) {
		wgx_handshake_refused(peer, keypair, "response", ret);
		goto out;
	}
	if (prev)
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKES_PREVIOUS_KEY);
	if (!wgx_handshake_session_derived(peer, skb, keypair, WGX_PEER_STAT_HANDSHAKE_RESPONSES_RX))
		goto out;
	wgx_keygrace_expire_stale_sessions(wgx, peer);
	/* After the roaming above, so a sample on a new path is the new path's first. */
	wgx_telemetry_response_received(&peer->telemetry, index, now);
	wgx_timers_handshake_complete(peer);
	/* Confirm the session to the responder: staged data, or a keepalive. */
	wgx_send_keepalive(peer);
out:
	wgx_peer_put(peer);
}

static void wgx_handshake_consume_cookie_reply(struct wgx_device *wgx, struct sk_buff *skb)
{
	struct wgx_index_entry *entry;
	struct wgx_peer *peer = NULL;
	bool initiating = false;
	u32 index;
	int ret;

	if (!wgx_msg_receiver_index(skb->data, skb->len, &index))
		return;
	entry = wgx_index_hashtable_lookup(wgx->index_hashtable,
					   WGX_INDEX_HANDSHAKE | WGX_INDEX_KEYPAIR,
					   cpu_to_le32(index), &peer);
	if (!entry) {
		wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_UNKNOWN_INDEX);
		return;
	}
	down_read(&wgx->identity_lock);
	mutex_lock(&peer->handshake_lock);
	ret = wgx_cookie_consume_reply(peer->handshake, skb->data, skb->len,
				       wgx_clock_ns());
	if (!ret)
		initiating = wgx_noise_handshake_state(peer->handshake) ==
			     WGX_HANDSHAKE_CREATED_INITIATION;
	/* An answer to a message sent under the previous key (grace period). */
	if (ret && peer->prev_handshake)
		ret = wgx_cookie_consume_reply(peer->prev_handshake, skb->data, skb->len,
					       wgx_clock_ns());
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);
	if (ret) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_DROP_INVALID);
	} else {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_COOKIE_REPLIES_RX);
		/*
		 * The responder is under load and answered our initiation with a
		 * cookie: retry now, with it as mac2, rather than after
		 * REKEY_TIMEOUT, once per initiation the timers started
		 * (wgx_timers_core_cookie_retry() bounds it).
		 */
		if (initiating && wgx_timers_cookie_retry(peer))
			wgx_handshake_send_initiation(peer, true);
	}
	wgx_peer_put(peer);
}

static void wgx_handshake_process(struct wgx_device *wgx, struct sk_buff *skb)
{
	u8 src[WGX_COOKIE_SOURCE_MAX_LEN];
	u8 reply[WGX_MSG_COOKIE_REPLY_LEN];
	enum wgx_cookie_verdict verdict = WGX_COOKIE_ACCEPT;
	u64 now = wgx_clock_ns();
	bool under_load, allowed, prev = false;
	size_t src_len;
	int type = skb->data[0];
	int ret;

	src_len = wgx_handshake_cookie_source(skb, src);
	if (type != WGX_MSG_COOKIE_REPLY) {
		under_load = wgx_handshake_under_load(wgx);
		spin_lock_bh(&wgx->cookie_lock);
		verdict = wgx_cookie_checker_validate(wgx->cookie_checker, skb->data, skb->len, src,
						      src_len, under_load, now);
		/*
		 * MAC1 keyed to our previous public key: the sender still knows
		 * us by it.  Outside a grace period the previous checker has no
		 * key and drops everything.
		 */
		if (verdict == WGX_COOKIE_DROP) {
			verdict = wgx_cookie_checker_validate(wgx->prev_cookie_checker, skb->data,
							      skb->len, src, src_len, under_load, now);
			prev = verdict != WGX_COOKIE_DROP;
		}
		if (verdict == WGX_COOKIE_SEND_REPLY)
			ret = wgx_cookie_checker_create_reply(prev ? wgx->prev_cookie_checker :
							      wgx->cookie_checker, reply, skb->data,
							      skb->len, src, src_len, now);
		spin_unlock_bh(&wgx->cookie_lock);

		switch (verdict) {
		case WGX_COOKIE_DROP:
			wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_MAC1);
			goto out;
		case WGX_COOKIE_SEND_REPLY:
			wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_MAC2);
			if (!ret && !wgx_socket_send_buffer_as_reply_to_skb(wgx, skb, reply,
									    sizeof(reply)))
				wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_COOKIE_REPLIES_TX);
			goto out;
		case WGX_COOKIE_ACCEPT_RATELIMIT:
			spin_lock_bh(&wgx->ratelimiter_lock);
			allowed = wgx_ratelimiter_allow(wgx->ratelimiter,
							skb->protocol == htons(ETH_P_IP) ?
							WGX_AF_INET : WGX_AF_INET6,
							src, 0, now);
			spin_unlock_bh(&wgx->ratelimiter_lock);
			if (!allowed) {
				wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_RX_DROP_RATELIMITED);
				goto out;
			}
			break;
		case WGX_COOKIE_ACCEPT:
			break;
		}
	}

	switch (type) {
	case WGX_MSG_INITIATION:
		wgx_handshake_consume_initiation(wgx, skb, prev);
		break;
	case WGX_MSG_RESPONSE:
		wgx_handshake_consume_response(wgx, skb, prev);
		break;
	case WGX_MSG_COOKIE_REPLY:
		wgx_handshake_consume_cookie_reply(wgx, skb);
		break;
	}
out:
	memzero_explicit(reply, sizeof(reply));
	consume_skb(skb);
}

/* ---- the handshake ring ---- */

/*
 * Messages one run of a device's ring work handles before it goes to the
 * back of its wgx-hs thread's queue (the thread serves every device).
 */
#define WGX_HANDSHAKE_WORKER_BATCH 8

static void wgx_handshake_worker(struct kthread_work *work)
{
	struct wgx_handshake_worker *worker = container_of(work, struct wgx_handshake_worker, work);
	struct wgx_device *wgx = worker->wgx;
	struct sk_buff *skb;
	int n;

	/*
	 * A message costs up to three X25519 operations.  Yield after each:
	 * under voluntary preemption (Debian's default) a transport worker
	 * woken on this CPU, e.g. for an established peer's packet, would
	 * otherwise wait for the whole batch of a storm.
	 */
	for (n = 0; n < WGX_HANDSHAKE_WORKER_BATCH; n++) {
		skb = ptr_ring_consume_bh(&wgx->handshake_ring);
		if (!skb)
			return;
		atomic_dec(&wgx->handshake_ring_len);
		/*
		 * Closed: a run that started after wgx_handshake_close()
		 * cancelled the work (queued by a message produced just
		 * before the close) drops what it takes, as the close does.
		 */
		if (unlikely(READ_ONCE(wgx->handshake_closed))) {
			kfree_skb(skb);
			continue;
		}
		wgx_handshake_process(wgx, skb);
		cond_resched();
	}
	/*
	 * The thread is shared by every device: a device whose ring stays
	 * full (a storm, a flood) goes to the back of the queue, so other
	 * devices' messages and every peer's initiations on this thread are
	 * not held up behind it.  A message produced after the check queues
	 * the work itself; kthread_queue_work() does nothing while the work
	 * is being cancelled (teardown).
	 */
	if (!ptr_ring_empty_bh(&wgx->handshake_ring))
		kthread_queue_work(wgx_hsworker_get(worker->slot), work);
}

bool wgx_handshake_enqueue(struct wgx_device *wgx, struct sk_buff *skb)
{
	unsigned int slot;
	int len, ret;

	spin_lock_bh(&wgx->handshake_ring.producer_lock);
	ret = wgx->handshake_closed ? -ESHUTDOWN : __ptr_ring_produce(&wgx->handshake_ring, skb);
	spin_unlock_bh(&wgx->handshake_ring.producer_lock);
	if (unlikely(ret))
		return false;
	len = atomic_inc_return(&wgx->handshake_ring_len);
	if (len > WGX_HANDSHAKE_RING_SIZE / 8) {
		unsigned long last = READ_ONCE(wgx->last_under_load), now = jiffies;
		/*
		 * Entered: not marked under load within the last second (the ring
		 * length cannot tell, it is already past the mark).  Of CPUs that
		 * race here, the one whose update lands counts.
		 */
		bool entered = !last || !time_before(now, last + HZ);

		if (last != now && cmpxchg(&wgx->last_under_load, last, now) == last && entered)
			wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_UNDER_LOAD_ENTERED);
	}
	/*
	 * Spread handshake work over the threads, round robin across every
	 * device (a per-device turn sent the one response of each of 100
	 * single-peer devices to the same thread); work item N always goes
	 * to thread N.
	 */
	slot = wgx_hsworker_next_slot();
	kthread_queue_work(wgx_hsworker_get(slot), &wgx->handshake_workers[slot].work);
	return true;
}

bool wgx_handshake_under_load(struct wgx_device *wgx)
{
	unsigned long last = READ_ONCE(wgx->last_under_load);

	return atomic_read(&wgx->handshake_ring_len) > WGX_HANDSHAKE_RING_SIZE / 8 ||
	       (last && time_before(jiffies, last + HZ));
}

int wgx_handshake_init(struct wgx_device *wgx)
{
	unsigned int slot;
	int ret = -ENOMEM;

	wgx->handshake_wq = alloc_workqueue("wgx-hs-%s", WQ_CPU_INTENSIVE | WQ_FREEZABLE, 0,
					    wgx->dev->name);
	if (!wgx->handshake_wq)
		goto err;
	ret = ptr_ring_init(&wgx->handshake_ring, WGX_HANDSHAKE_RING_SIZE, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_hs_wq;
	atomic_set(&wgx->handshake_ring_len, 0);
	wgx->handshake_workers = kcalloc(nr_cpu_ids, sizeof(*wgx->handshake_workers),
					GFP_KERNEL_ACCOUNT);
	if (!wgx->handshake_workers) {
		ret = -ENOMEM;
		goto err_ring;
	}
	for (slot = 0; slot < nr_cpu_ids; slot++) {
		struct wgx_handshake_worker *worker = &wgx->handshake_workers[slot];

		worker->wgx = wgx;
		worker->slot = slot;
		kthread_init_work(&worker->work, wgx_handshake_worker);
	}
	return 0;

err_ring:
	ptr_ring_cleanup(&wgx->handshake_ring, NULL);
err_hs_wq:
	destroy_workqueue(wgx->handshake_wq);
err:
	return ret;
}

/* A handshake message still queued at teardown: its cb holds nothing of ours. */
static void wgx_handshake_drop_skb(void *ptr)
{
	kfree_skb(ptr);
}

void wgx_handshake_close(struct wgx_device *wgx)
{
	struct sk_buff *skb;
	unsigned int slot;

	ASSERT_RTNL();
	/* Under the producer lock: no message gets in after this. */
	spin_lock_bh(&wgx->handshake_ring.producer_lock);
	WRITE_ONCE(wgx->handshake_closed, true);
	spin_unlock_bh(&wgx->handshake_ring.producer_lock);
	/*
	 * A ring work running now may be processing a message taken before
	 * the close: wait for it.  One queued later (by a message produced
	 * before the close) sees the flag and drops what it takes.
	 */
	for (slot = 0; slot < nr_cpu_ids; slot++)
		kthread_cancel_work_sync(&wgx->handshake_workers[slot].work);
	while ((skb = ptr_ring_consume_bh(&wgx->handshake_ring))) {
		atomic_dec(&wgx->handshake_ring_len);
		kfree_skb(skb);
	}
}

void wgx_handshake_open(struct wgx_device *wgx)
{
	ASSERT_RTNL();
	spin_lock_bh(&wgx->handshake_ring.producer_lock);
	WRITE_ONCE(wgx->handshake_closed, false);
	spin_unlock_bh(&wgx->handshake_ring.producer_lock);
}

void wgx_handshake_uninit(struct wgx_device *wgx)
{
	unsigned int slot;

	/*
	 * The sockets are closed and every peer is gone by now, so nothing
	 * fills the ring any more; a ring worker may still run.  An
	 * initiation asked for by a tx worker that saw its peer alive may
	 * still be queued (the caller flushed the tx workers): the flush of
	 * every wgx-hs thread lets it run, it finds the peer dead and drops
	 * the reference that keeps the peer, and so this device, alive.
	 */
	for (slot = 0; slot < nr_cpu_ids; slot++)
		kthread_cancel_work_sync(&wgx->handshake_workers[slot].work);
	wgx_hsworker_flush_all();
	drain_workqueue(wgx->handshake_wq);
	ptr_ring_cleanup(&wgx->handshake_ring, wgx_handshake_drop_skb);
	kfree(wgx->handshake_workers);
	destroy_workqueue(wgx->handshake_wq);
}
