// SPDX-License-Identifier: GPL-2.0
/*
 * peerlookup.c - peers by public key, handshakes and keypairs by index.
 */
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "device.h"
#include "peer.h"
#include "peerlookup.h"

static struct hlist_head *wgx_pubkey_bucket(struct wgx_pubkey_hashtable *table,
					    const u8 pubkey[WGX_KEY_LEN])
{
	/* siphash with a secret key: remote peers cannot aim at one bucket. */
	const u64 hash = siphash(pubkey, WGX_KEY_LEN, &table->key);

	return &table->hashtable[hash & (HASH_SIZE(table->hashtable) - 1)];
}

struct wgx_pubkey_hashtable *wgx_pubkey_hashtable_alloc(void)
{
	struct wgx_pubkey_hashtable *table = kvmalloc(sizeof(*table), GFP_KERNEL_ACCOUNT);

	if (!table)
		return NULL;
	get_random_bytes(&table->key, sizeof(table->key));
	hash_init(table->hashtable);
	mutex_init(&table->lock);
	return table;
}

void wgx_pubkey_hashtable_add(struct wgx_pubkey_hashtable *table, struct wgx_peer *peer)
{
	mutex_lock(&table->lock);
	hlist_add_head_rcu(&peer->pubkey_hash, wgx_pubkey_bucket(table, peer->public_key));
	mutex_unlock(&table->lock);
}

void wgx_pubkey_hashtable_remove(struct wgx_pubkey_hashtable *table, struct wgx_peer *peer)
{
	mutex_lock(&table->lock);
	hlist_del_init_rcu(&peer->pubkey_hash);
	mutex_unlock(&table->lock);
}

void wgx_pubkey_hashtable_rekey(struct wgx_pubkey_hashtable *table, struct wgx_peer *peer,
				const u8 new_key[WGX_KEY_LEN])
{
	struct wgx_device *wgx = peer->wgx;

	mutex_lock(&table->lock);
	hlist_del_init_rcu(&peer->pubkey_hash);
	/*
	 * A reader may stand on the node (its next pointer leads through the
	 * old bucket) or be comparing peer->public_key: let every one finish
	 * before the node moves to another bucket and the key changes.  Until
	 * the node is back, lookups of either key miss: an initiation arriving
	 * in this window is dropped, and its sender retries (REKEY_TIMEOUT).
	 */
	synchronize_net();
	memcpy(peer->public_key, new_key, WGX_KEY_LEN);

	down_read(&wgx->identity_lock);
	mutex_lock(&peer->handshake_lock);
	/* A handshake in progress was made for the old key: drop its index too. */
	wgx_index_hashtable_remove(wgx->index_hashtable, &peer->handshake_entry);
	wgx_noise_handshake_set_remote_static(peer->handshake, new_key);
	/* NULL (no grace period running) is ignored. */
	wgx_noise_handshake_set_remote_static(peer->prev_handshake, new_key);
	++peer->remote_gen;
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);

	hlist_add_head_rcu(&peer->pubkey_hash, wgx_pubkey_bucket(table, peer->public_key));
	mutex_unlock(&table->lock);
}

struct wgx_peer *wgx_pubkey_hashtable_lookup(struct wgx_pubkey_hashtable *table,
					     const u8 pubkey[WGX_KEY_LEN])
{
	struct wgx_peer *iter, *peer = NULL;

	rcu_read_lock_bh();
	hlist_for_each_entry_rcu_bh(iter, wgx_pubkey_bucket(table, pubkey), pubkey_hash) {
		if (!memcmp(pubkey, iter->public_key, WGX_KEY_LEN)) {
			peer = iter;
			break;
		}
	}
	peer = wgx_peer_get_maybe_zero(peer);
	rcu_read_unlock_bh();
	return peer;
}

static struct hlist_head *wgx_index_bucket(struct wgx_index_hashtable *table, __le32 index)
{
	/* Indices are random: their low bits spread evenly already. */
	return &table->hashtable[(__force u32)index & (HASH_SIZE(table->hashtable) - 1)];
}

struct wgx_index_hashtable *wgx_index_hashtable_alloc(void)
{
	struct wgx_index_hashtable *table = kvmalloc(sizeof(*table), GFP_KERNEL_ACCOUNT);

	if (!table)
		return NULL;
	hash_init(table->hashtable);
	spin_lock_init(&table->lock);
	return table;
}

static bool wgx_index_in_use(struct wgx_index_hashtable *table, __le32 index)
{
	struct wgx_index_entry *existing;

	hlist_for_each_entry_rcu_bh(existing, wgx_index_bucket(table, index), index_hash) {
		if (existing->index == index)
			return true;
	}
	return false;
}

__le32 wgx_index_hashtable_insert(struct wgx_index_hashtable *table, struct wgx_index_entry *entry)
{
	spin_lock_bh(&table->lock);
	hlist_del_init_rcu(&entry->index_hash);
	spin_unlock_bh(&table->lock);

	rcu_read_lock_bh();
	for (;;) {
		/* Search without the lock, then confirm under it: collisions are rare. */
		entry->index = (__force __le32)get_random_u32();
		if (wgx_index_in_use(table, entry->index))
			continue;
		spin_lock_bh(&table->lock);
		if (!wgx_index_in_use(table, entry->index)) {
			hlist_add_head_rcu(&entry->index_hash, wgx_index_bucket(table, entry->index));
			spin_unlock_bh(&table->lock);
			break;
		}
		spin_unlock_bh(&table->lock);
	}
	rcu_read_unlock_bh();
	return entry->index;
}

bool wgx_index_hashtable_replace(struct wgx_index_hashtable *table, struct wgx_index_entry *old,
				 struct wgx_index_entry *new)
{
	bool replaced = false;

	spin_lock_bh(&table->lock);
	if (!hlist_unhashed(&old->index_hash)) {
		new->index = old->index;
		hlist_replace_rcu(&old->index_hash, &new->index_hash);
		/* Unhashed so that a later insert or remove of @old is a no-op on
		 * the table.  A reader standing on @old right now ends its bucket
		 * walk early and misses the packet's entry: a dropped packet, never
		 * a wrong one. */
		INIT_HLIST_NODE(&old->index_hash);
		replaced = true;
	}
	spin_unlock_bh(&table->lock);
	return replaced;
}

void wgx_index_hashtable_remove(struct wgx_index_hashtable *table, struct wgx_index_entry *entry)
{
	spin_lock_bh(&table->lock);
	hlist_del_init_rcu(&entry->index_hash);
	spin_unlock_bh(&table->lock);
}

struct wgx_index_entry *wgx_index_hashtable_lookup(struct wgx_index_hashtable *table,
						   enum wgx_index_type type_mask, __le32 index,
						   struct wgx_peer **peer)
{
	struct wgx_index_entry *iter, *entry = NULL;

	rcu_read_lock_bh();
	hlist_for_each_entry_rcu_bh(iter, wgx_index_bucket(table, index), index_hash) {
		if (iter->index == index) {
			if (likely(iter->type & type_mask))
				entry = iter;
			break;
		}
	}
	if (entry) {
		*peer = wgx_peer_get_maybe_zero(entry->peer);
		if (unlikely(!*peer))
			entry = NULL;
	}
	rcu_read_unlock_bh();
	return entry;
}
