/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peerlookup.h - the two lookup tables of a device: peers by static public
 * key (initiations name their sender that way) and handshakes/keypairs by
 * our receiver index (responses, cookie replies and transport data do).
 */
#ifndef WGX_PEERLOOKUP_H
#define WGX_PEERLOOKUP_H

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>

#include <wgx/platform.h>

struct wgx_peer;

/** struct wgx_pubkey_hashtable - peers by public key.  Writers hold @lock; readers use RCU. */
struct wgx_pubkey_hashtable {
	DECLARE_HASHTABLE(hashtable, 11);
	siphash_key_t key;
	struct mutex lock;
};

struct wgx_pubkey_hashtable *wgx_pubkey_hashtable_alloc(void);
void wgx_pubkey_hashtable_add(struct wgx_pubkey_hashtable *table, struct wgx_peer *peer);
void wgx_pubkey_hashtable_remove(struct wgx_pubkey_hashtable *table, struct wgx_peer *peer);
/**
 * wgx_pubkey_hashtable_rekey - give the published @peer the static public key
 * @new_key (32 bytes, not another peer's: the caller checked) in place: the
 * peer leaves its bucket, a grace period passes (synchronize_net()), then
 * peer->public_key and the core handshake state are re-keyed
 * (wgx_noise_handshake_set_remote_static(): static-static DH, mac1/cookie
 * keys; the handshake in progress and its index are dropped) and the peer
 * joins the new key's bucket.  Keypairs, endpoint, allowed IPs, timers and
 * counters are untouched.  Context: process, device_update_lock held; sleeps.
 * Lock order: @table->lock -> identity_lock (read) -> handshake_lock.
 */
void wgx_pubkey_hashtable_rekey(struct wgx_pubkey_hashtable *table, struct wgx_peer *peer,
				const u8 new_key[WGX_KEY_LEN]);
/**
 * wgx_pubkey_hashtable_lookup - the live peer with static public key @pubkey
 * (32 bytes), with a reference taken (release with wgx_peer_put()), or NULL.
 * Any context.
 */
struct wgx_peer *wgx_pubkey_hashtable_lookup(struct wgx_pubkey_hashtable *table,
					     const u8 pubkey[WGX_KEY_LEN]);

/** What a receiver index refers to. */
enum wgx_index_type {
	WGX_INDEX_HANDSHAKE = 1U << 0,	/* an initiation we sent, awaiting a response */
	WGX_INDEX_KEYPAIR = 1U << 1,	/* a session: transport data arrives with it */
};

/**
 * struct wgx_index_entry - embedded in a peer (its pending handshake) and in
 * each keypair.  @index is the little-endian wire value (whitepaper 5.4.2).
 */
struct wgx_index_entry {
	struct wgx_peer *peer;
	struct hlist_node index_hash;
	enum wgx_index_type type;
	__le32 index;
};

/** struct wgx_index_hashtable - entries by receiver index.  Writers hold @lock (BH); readers use RCU. */
struct wgx_index_hashtable {
	DECLARE_HASHTABLE(hashtable, 13);
	spinlock_t lock;
};

struct wgx_index_hashtable *wgx_index_hashtable_alloc(void);
/**
 * wgx_index_hashtable_insert - give @entry a fresh random index not in use
 * (replacing any index it had) and publish it.  Returns the new index.
 */
__le32 wgx_index_hashtable_insert(struct wgx_index_hashtable *table, struct wgx_index_entry *entry);
/** wgx_index_hashtable_replace - put @new in @old's place, same index (response -> keypair). */
bool wgx_index_hashtable_replace(struct wgx_index_hashtable *table, struct wgx_index_entry *old,
				 struct wgx_index_entry *new);
void wgx_index_hashtable_remove(struct wgx_index_hashtable *table, struct wgx_index_entry *entry);
/**
 * wgx_index_hashtable_lookup - the entry with @index whose type is in @type_mask,
 * and a reference to its peer in *@peer (wgx_peer_put() it), or NULL.  Call
 * under rcu_read_lock_bh(); the entry stays valid until it is dropped.
 */
struct wgx_index_entry *wgx_index_hashtable_lookup(struct wgx_index_hashtable *table,
						   enum wgx_index_type type_mask, __le32 index,
						   struct wgx_peer **peer);

#endif /* WGX_PEERLOOKUP_H */
