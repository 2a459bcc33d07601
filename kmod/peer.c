// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - peer and keypair lifecycle.  See peer.h for the rules.
 */
#include <linux/slab.h>
#include <linux/rcupdate.h>

#include "device.h"
#include "handshake.h"
#include "hsworker.h"
#include "peer.h"
#include "precompute.h"
#include "socket.h"
#include "queueing.h"
#include "send.h"
#include "timers.h"

/*
 * Ids of peers and keypairs, unique across devices and namespaces, for the
 * "<dev>: Peer N created/destroyed" debug lines (dynamic debug), which the
 * kernel's WireGuard selftest pairs up to check that every object goes.
 */
static atomic64_t wgx_peer_ids = ATOMIC64_INIT(0);
static atomic64_t wgx_keypair_ids = ATOMIC64_INIT(0);

/*
 * Peers come from a cache of their own: exactly their size with their
 * handshake state behind them (a kmalloc would round the peer up to 2 KiB
 * and the handshake state to 512 bytes), accounted to the memory cgroup of
 * whoever configures them.
 */
static struct kmem_cache *wgx_peer_cache;

int wgx_peer_init(void)
{
	wgx_peer_cache = kmem_cache_create("wgx_peer",
					   sizeof(struct wgx_peer) + wgx_noise_handshake_size(),
					   __alignof__(struct wgx_peer), SLAB_ACCOUNT, NULL);
	return wgx_peer_cache ? 0 : -ENOMEM;
}

void wgx_peer_exit(void)
{
	kmem_cache_destroy(wgx_peer_cache);
}

struct wgx_peer *wgx_peer_create(struct wgx_device *wgx, const u8 *public_key, const u8 *psk)
{
	struct wgx_peer *peer;
	int ret = -ENOMEM;

	lockdep_assert_held(&wgx->device_update_lock);
	if (wgx->num_peers >= WGX_MAX_PEERS_PER_DEVICE)
		return ERR_PTR(-E2BIG);

	peer = kmem_cache_zalloc(wgx_peer_cache, GFP_KERNEL);
	if (unlikely(!peer))
		return ERR_PTR(-ENOMEM);
	if (dst_cache_init(&peer->endpoint_cache, GFP_KERNEL_ACCOUNT))
		goto err_free;
	down_read(&wgx->identity_lock);
	peer->handshake = wgx_noise_handshake_init(peer->handshake_mem, wgx->identity, public_key, psk);
	up_read(&wgx->identity_lock);
	if (unlikely(!peer->handshake))
		goto err_dst_cache;

	peer->wgx = wgx;
	memcpy(peer->public_key, public_key, WGX_KEY_LEN);
	++wgx->peer_ids;	/* the dump's change generation */
	peer->internal_id = atomic64_inc_return(&wgx_peer_ids);
	mutex_init(&peer->handshake_lock);
	peer->handshake_entry.peer = peer;
	peer->handshake_entry.type = WGX_INDEX_HANDSHAKE;
	INIT_HLIST_NODE(&peer->handshake_entry.index_hash);
	kthread_init_delayed_work(&peer->initiation_work, wgx_handshake_initiation_worker);
	peer->initiation_worker = wgx_hsworker_get(wgx_hsworker_slot_for_id(peer->internal_id));
	atomic64_set(&peer->initiation_asked_ns, 0);
	INIT_WORK(&peer->zero_keys_work, wgx_peer_zero_keys_worker);
	spin_lock_init(&peer->keypairs_lock);
	rwlock_init(&peer->endpoint_lock);
	skb_queue_head_init(&peer->staged);
	wgx_timers_peer_init(peer);
	wgx_telemetry_init(&peer->telemetry);
	kref_init(&peer->refcount);
	INIT_LIST_HEAD(&peer->peer_list);
	if (wgx->rx_spread == WGX_RX_SPREAD_ON && wgx_rxspread_peer_init(peer, true))
		goto err_handshake;

	wgx_pubkey_hashtable_add(wgx->peer_hashtable, peer);
	list_add_tail(&peer->peer_list, &wgx->peer_list);
	++wgx->num_peers;
	wgx_ports_peer_set(peer, wgx_ports_peer_wanted(peer));
	pr_debug("%s: Peer %llu created\n", wgx->dev->name, peer->internal_id);
	/* No prepared ephemeral yet: its first handshake message asks for one. */
	return peer;

err_handshake:
	wgx_noise_handshake_wipe(peer->handshake);
err_dst_cache:
	dst_cache_destroy(&peer->endpoint_cache);
err_free:
	kmem_cache_free(wgx_peer_cache, peer);
	return ERR_PTR(ret);
}

void wgx_peer_set_public_key(struct wgx_peer *peer, const u8 *new_key)
{
	struct wgx_device *wgx = peer->wgx;

	lockdep_assert_held(&wgx->device_update_lock);
	wgx_pubkey_hashtable_rekey(wgx->peer_hashtable, peer, new_key);
	++wgx->peer_ids;	/* the dump's change generation: a peer changed its name */
	netdev_dbg(wgx->dev, "peer %llu re-keyed in place\n", peer->internal_id);
	/* A prepared ephemeral's DH is with the old key: make it again. */
	wgx_precompute_refresh(peer);
	if (netif_running(wgx->dev)) {
		/* The first initiation under the new key need not wait for the old one's. */
		wgx_timers_initiation_forget(peer);
		wgx_handshake_send_initiation(peer, false);
	}
}

struct wgx_peer *wgx_peer_get(struct wgx_peer *peer)
{
	kref_get(&peer->refcount);
	return peer;
}

static void wgx_peer_free_rcu(struct rcu_head *rcu)
{
	struct wgx_peer *peer = container_of(rcu, struct wgx_peer, rcu);

	dst_cache_destroy(&peer->endpoint_cache);
	wgx_telemetry_destroy(&peer->telemetry);
	wgx_noise_handshake_wipe(peer->handshake);
	wgx_noise_handshake_destroy(peer->prev_handshake);
	free_percpu(peer->stats);
	kfree(peer->stats_rare);
	/* Its keys (the psk in the handshake went above) and endpoint. */
	memzero_explicit(peer, sizeof(*peer));
	kmem_cache_free(wgx_peer_cache, peer);
}

static void wgx_peer_release(struct kref *refcount)
{
	struct wgx_peer *peer = container_of(refcount, struct wgx_peer, refcount);

	pr_debug("%s: Peer %llu destroyed\n", peer->wgx->dev->name, peer->internal_id);
	/*
	 * Removal cleared these already; they are repeated here, where nothing
	 * else can use the peer, so that no race with removal can leave an
	 * index naming a freed peer or a staged packet nobody frees.
	 */
	wgx_index_hashtable_remove(peer->wgx->index_hashtable, &peer->handshake_entry);
	skb_queue_purge(&peer->staged);

	/* Nothing can find the peer any more; readers that still hold a pointer
	 * obtained it under RCU, so free after a grace period. */
	call_rcu(&peer->rcu, wgx_peer_free_rcu);
}

void wgx_peer_put(struct wgx_peer *peer)
{
	if (unlikely(!peer))
		return;
	kref_put(&peer->refcount, wgx_peer_release);
}

void wgx_peer_purge_staged(struct wgx_peer *peer)
{
	struct sk_buff *skb;

	/* Staged packets hold no references (see wgx_send_stage()). */
	while ((skb = skb_dequeue(&peer->staged)) != NULL) {
		DEV_STATS_INC(peer->wgx->dev, tx_dropped);
		kfree_skb(skb);
	}
}

/* ---- keypairs ---- */

struct wgx_keypair *wgx_keypair_create(struct wgx_peer *peer, const struct wgx_keypair_keys *keys)
{
	struct wgx_keypair *keypair = kzalloc(sizeof(*keypair), GFP_KERNEL);

	if (unlikely(!keypair))
		return NULL;
	if (keys)
		keypair->keys = *keys;
	keypair->entry.peer = peer;
	keypair->entry.type = WGX_INDEX_KEYPAIR;
	INIT_HLIST_NODE(&keypair->entry.index_hash);
	spin_lock_init(&keypair->replay_lock);
	wgx_replay_init(&keypair->replay);
	keypair->internal_id = atomic64_inc_return(&wgx_keypair_ids);
	kref_init(&keypair->refcount);
	pr_debug("%s: Keypair %llu created for peer %llu\n", peer->wgx->dev->name,
		 keypair->internal_id, peer->internal_id);
	return keypair;
}

struct wgx_keypair *wgx_keypair_get(struct wgx_keypair *keypair)
{
	if (unlikely(!keypair || !kref_get_unless_zero(&keypair->refcount)))
		return NULL;
	return keypair;
}

static void wgx_keypair_free_rcu(struct rcu_head *rcu)
{
	kfree_sensitive(container_of(rcu, struct wgx_keypair, rcu));
}

static void wgx_keypair_release(struct kref *kref)
{
	struct wgx_keypair *keypair = container_of(kref, struct wgx_keypair, refcount);
	u64 lost;

	/*
	 * Gaps still inside the window can no longer arrive (uapi RX_LOST).  The
	 * last reference: nobody checks the window any more.  The peer outlives
	 * its keypairs (packets drop the keypair before the peer; removal clears
	 * the keypairs before dropping the list's reference).
	 */
	lost = wgx_replay_flush(&keypair->replay);
	if (lost)
		wgx_peer_stats_add(keypair->entry.peer, WGX_PEER_STAT_RX_LOST, lost);

	pr_debug("%s: Keypair %llu destroyed for peer %llu\n", keypair->entry.peer->wgx->dev->name,
		 keypair->internal_id, keypair->entry.peer->internal_id);
	wgx_index_hashtable_remove(keypair->entry.peer->wgx->index_hashtable, &keypair->entry);
	call_rcu(&keypair->rcu, wgx_keypair_free_rcu);
}

void wgx_keypair_put(struct wgx_keypair *keypair, bool unreference_now)
{
	if (unlikely(!keypair))
		return;
	/* Stop matching received packets at once, even if senders still hold it. */
	if (unreference_now)
		wgx_index_hashtable_remove(keypair->entry.peer->wgx->index_hashtable, &keypair->entry);
	kref_put(&keypair->refcount, wgx_keypair_release);
}

#define wgx_keypair_deref(peer, slot) \
	rcu_dereference_protected((peer)->slot, lockdep_is_held(&(peer)->keypairs_lock))

bool wgx_peer_keypair_install(struct wgx_peer *peer, struct wgx_keypair *keypair)
{
	struct wgx_keypair *previous, *current_kp, *next;

	/* A session: from now on packets move the hot counters. */
	wgx_peer_stats_percpu(peer);
	spin_lock_bh(&peer->keypairs_lock);
	if (unlikely(READ_ONCE(peer->is_dead))) {
		spin_unlock_bh(&peer->keypairs_lock);
		return false;
	}
	previous = wgx_keypair_deref(peer, keypair_previous);
	current_kp = wgx_keypair_deref(peer, keypair_current);
	next = wgx_keypair_deref(peer, keypair_next);

	if (keypair->keys.initiator) {
		/* The initiator uses the new keys at once (whitepaper 5.4.5). */
		if (next) {
			/* An unconfirmed responder keypair: it becomes previous, so
			 * packets the peer sent with it still decrypt. */
			RCU_INIT_POINTER(peer->keypair_next, NULL);
			rcu_assign_pointer(peer->keypair_previous, next);
			wgx_keypair_put(current_kp, true);
		} else {
			rcu_assign_pointer(peer->keypair_previous, current_kp);
		}
		wgx_keypair_put(previous, true);
		rcu_assign_pointer(peer->keypair_current, keypair);
	} else {
		/* The responder waits for the initiator's first data packet. */
		rcu_assign_pointer(peer->keypair_next, keypair);
		wgx_keypair_put(next, true);
		RCU_INIT_POINTER(peer->keypair_previous, NULL);
		wgx_keypair_put(previous, true);
	}
	spin_unlock_bh(&peer->keypairs_lock);
	return true;
}

bool wgx_peer_has_sending_keypair(struct wgx_peer *peer)
{
	struct wgx_keypair *keypair;
	bool ret;

	rcu_read_lock_bh();
	keypair = rcu_dereference_bh(peer->keypair_current);
	ret = keypair && READ_ONCE(keypair->sending_valid);
	rcu_read_unlock_bh();
	return ret;
}

bool wgx_peer_keypair_received_with(struct wgx_peer *peer, struct wgx_keypair *keypair)
{
	struct wgx_keypair *previous;
	bool confirmed = false;

	if (likely(keypair != rcu_access_pointer(peer->keypair_next)))
		return false;
	spin_lock_bh(&peer->keypairs_lock);
	if (keypair == wgx_keypair_deref(peer, keypair_next)) {
		previous = wgx_keypair_deref(peer, keypair_previous);
		rcu_assign_pointer(peer->keypair_previous, wgx_keypair_deref(peer, keypair_current));
		wgx_keypair_put(previous, true);
		rcu_assign_pointer(peer->keypair_current, keypair);
		RCU_INIT_POINTER(peer->keypair_next, NULL);
		confirmed = true;
	}
	spin_unlock_bh(&peer->keypairs_lock);
	return confirmed;
}

void wgx_peer_clear_keypairs(struct wgx_peer *peer)
{
	struct wgx_keypair *kp[3];
	int i;

	spin_lock_bh(&peer->keypairs_lock);
	kp[0] = wgx_keypair_deref(peer, keypair_previous);
	kp[1] = wgx_keypair_deref(peer, keypair_current);
	kp[2] = wgx_keypair_deref(peer, keypair_next);
	RCU_INIT_POINTER(peer->keypair_previous, NULL);
	RCU_INIT_POINTER(peer->keypair_current, NULL);
	RCU_INIT_POINTER(peer->keypair_next, NULL);
	for (i = 0; i < 3; ++i) {
		if (kp[i]) {
			WRITE_ONCE(kp[i]->sending_valid, false);
			WRITE_ONCE(kp[i]->receiving_valid, false);
		}
		wgx_keypair_put(kp[i], true);
	}
	spin_unlock_bh(&peer->keypairs_lock);
}

void wgx_peer_expire_sending(struct wgx_peer *peer)
{
	struct wgx_keypair *kp;

	spin_lock_bh(&peer->keypairs_lock);
	kp = wgx_keypair_deref(peer, keypair_current);
	if (kp)
		WRITE_ONCE(kp->sending_valid, false);
	kp = wgx_keypair_deref(peer, keypair_next);
	if (kp)
		WRITE_ONCE(kp->sending_valid, false);
	spin_unlock_bh(&peer->keypairs_lock);
}

void wgx_peer_clear_handshake(struct wgx_peer *peer)
{
	mutex_lock(&peer->handshake_lock);
	wgx_index_hashtable_remove(peer->wgx->index_hashtable, &peer->handshake_entry);
	wgx_noise_handshake_clear(peer->handshake);
	wgx_noise_handshake_clear(peer->prev_handshake);
	mutex_unlock(&peer->handshake_lock);
}

void wgx_peer_zero_keys_worker(struct work_struct *work)
{
	struct wgx_peer *peer = container_of(work, struct wgx_peer, zero_keys_work);

	netdev_dbg(peer->wgx->dev, "peer %llu: zeroing keys after 3 x REJECT_AFTER_TIME\n",
		   peer->internal_id);
	wgx_peer_clear_keypairs(peer);
	wgx_peer_clear_handshake(peer);
	wgx_peer_put(peer);
}

void wgx_peer_schedule_zero_keys(struct wgx_peer *peer)
{
	wgx_peer_get(peer);
	if (!queue_work(peer->wgx->handshake_wq, &peer->zero_keys_work))
		wgx_peer_put(peer);
}

/* ---- removal ---- */

/* Step 1 of removal: make the peer unreachable for new lookups. */
static void wgx_peer_unpublish(struct wgx_peer *peer)
{
	struct wgx_device *wgx = peer->wgx;

	wgx_allowedips_remove_by_peer(wgx->allowedips, peer);
	wgx_pubkey_hashtable_remove(wgx->peer_hashtable, peer);
	WRITE_ONCE(peer->is_dead, true);
	list_del_init(&peer->peer_list);
	--wgx->num_peers;
}

/*
 * Step 2, after a grace period: stop everything the peer still runs, drop the
 * list's reference.  Timers and works first, so none of them re-creates what
 * the clearing below removes; handshake workers that still hold a reference
 * see is_dead under handshake_lock / keypairs_lock and install nothing.
 */
static void wgx_peer_shutdown(struct wgx_peer *peer, bool flush_rx)
{
	wgx_rxspread_peer_uninit(peer, flush_rx);
	wgx_timers_peer_stop(peer);
	if (kthread_cancel_delayed_work_sync(&peer->initiation_work))
		wgx_peer_put(peer);
	if (cancel_work_sync(&peer->zero_keys_work))
		wgx_peer_put(peer);
	wgx_peer_clear_keypairs(peer);
	wgx_peer_clear_handshake(peer);
	wgx_peer_purge_staged(peer);
	wgx_ports_peer_set(peer, 0);
	/* Before the list's reference goes: the slot's may be the last but one. */
	wgx_precompute_forget(peer);
	netdev_dbg(peer->wgx->dev, "peer %llu removed\n", peer->internal_id);
	wgx_peer_put(peer);
}

void wgx_peer_remove(struct wgx_peer *peer)
{
	if (unlikely(!peer))
		return;
	lockdep_assert_held(&peer->wgx->device_update_lock);
	wgx_peer_unpublish(peer);
	/* Every RCU reader that found the peer before is done now. */
	synchronize_net();
	wgx_peer_shutdown(peer, true);
}

void wgx_peer_remove_all(struct wgx_device *wgx)
{
	struct wgx_peer *peer, *tmp;
	LIST_HEAD(dead);

	lockdep_assert_held(&wgx->device_update_lock);
	list_for_each_entry_safe(peer, tmp, &wgx->peer_list, peer_list) {
		wgx_peer_unpublish(peer);
		list_add_tail(&peer->peer_list, &dead);
	}
	/* One grace period, and one wait for the decrypt workers, for all of them. */
	synchronize_net();
	flush_workqueue(wgx->rx_wq);
	list_for_each_entry_safe(peer, tmp, &dead, peer_list) {
		list_del_init(&peer->peer_list);
		wgx_peer_shutdown(peer, false);
	}
}
