/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer.h - peers and keypairs: lifecycle, reference counting and RCU.
 *
 * Lifetime rules:
 *  - A peer is created and removed under the device's device_update_lock.
 *    Removal unpublishes it (allowed IPs, pubkey table, index table, peer
 *    list), marks it dead, stops its timers and work, waits for an RCU grace
 *    period and drops the list's reference; the memory goes when the last
 *    reference does (kref; freed after another grace period).
 *  - Packets in flight hold a peer reference (skb cb) and a keypair reference.
 *  - Keypairs (current/previous/next) are RCU pointers changed under
 *    keypairs_lock; a keypair holds a reference to its peer and is freed
 *    after a grace period when its last reference goes.
 *  - The handshake state (core) is guarded by handshake_lock, a mutex: every
 *    user is in process context (handshake and initiation workers, netlink,
 *    open/stop), and the Curve25519 operations done under it (up to three per
 *    message) must not run with bottom halves disabled, which would hold up
 *    the CPU's packet processing for their whole duration.  Take
 *    identity_lock (read) before it.
 */
#ifndef WGX_PEER_H
#define WGX_PEER_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>

#include <wgx/core.h>
#include <uapi/linux/wgx.h>

#include "peerlookup.h"
#include "peerstats.h"
#include "pmtu.h"
#include "socket.h"
#include "telemetry.h"

struct wgx_device;

/**
 * struct wgx_keypair - one session's keys (whitepaper 5.4.5) and its state.
 * @entry: our receiver index in the device's index table.
 * @keys: keys, indices, role and birth time from the core (secret).
 * @sending_counter: next nonce to send; atomic, shared by all tx queues.
 * @replay_lock: serializes @replay (receive on many CPUs).
 * @sending_valid/@receiving_valid: cleared when the keypair expires or is zeroed.
 * @local_gen: the device's identity generation (wgx_device.identity_gen)
 *	whose static key made the session: the current one or, during a key
 *	change's grace period, the previous one.
 * @remote_gen: the peer's public key generation (wgx_peer.remote_gen) the
 *	session was made with; an in-place re-key makes it the previous one.
 *	Both set once before the keypair is installed, read-only after.
 */
struct wgx_keypair {
	struct wgx_index_entry entry;
	struct wgx_keypair_keys keys;
	atomic64_t sending_counter;
	spinlock_t replay_lock;
	struct wgx_replay replay;
	bool sending_valid;
	bool receiving_valid;
	u32 local_gen;
	u32 remote_gen;
	u64 internal_id;
	struct kref refcount;
	struct rcu_head rcu;
};

/**
 * struct wgx_peer - a remote WireGuard peer.
 * @public_key: its static public key (32 bytes); changed only by
 *	wgx_peer_set_public_key(), under device_update_lock and the pubkey
 *	table's lock while the peer is out of the table.
 * @handshake: core handshake state, under @handshake_lock.
 * @prev_handshake: handshake state for the device's previous identity while
 *	a key change's grace period runs, else NULL (docs/rotation.md).  Read
 *	and used under @handshake_lock (with identity_lock read, as
 *	@handshake); allocated and freed with identity_lock held for writing
 *	and @handshake_lock, so either lock keeps the pointer stable.
 * @init_prev: during a grace period, the next initiation is made with the
 *	previous identity (the peer was last heard under it); under
 *	@handshake_lock.
 * @remote_gen: generation of @public_key, incremented by each in-place
 *	re-key, under @handshake_lock (keypairs record it).
 * @handshake_entry: index of the initiation/response in progress.
 * @initiation_work: makes and sends an initiation on @initiation_worker
 *	(handshake_initiate.c); delayed when the device's handshake budget defers it.
 * @initiation_worker: the wgx-hs thread @initiation_work always goes to
 *	(hsworker.h), chosen by @internal_id at creation.  @initiation_is_retry: the pending request is a retransmit.
 * @initiation_paced: the pending initiation was deferred by the budget and
 *	holds a slot of it; read and written by the initiation worker (a work
 *	item never runs twice at once), and cleared by the device's down once
 *	it cancelled the work: a slot does not survive the down.  @initiation_asked_ns: when an
 *	initiation was last asked for (wgx_clock_ns()): a deferred one
 *	is dropped at its slot if a keypair was derived after that.
 * @endpoint: where it is (see socket.h), under @endpoint_lock.
 * @endpoint_heard: when the endpoint's own port last sent us a message (endpoint.h).
 * @endpoint_given: the endpoint's address is one we were given (netlink),
 *	not learned from a packet from another address: the peer takes
 *	packets from any port of ours there, so automatic listen ports spread
 *	to it (socket.h).  One known only from its own packets may sit behind
 *	a NAT or stateful firewall that admits only the replies to what it
 *	sent: from the port it sent to.  Written under @endpoint_lock, read
 *	locklessly.
 * @endpoint_local: which of our ports its messages arrive at, and whether
 *	it follows our source port (endpoint.h); automatic ports send to such
 *	a peer from the listen port only.
 * @rx: ordered queue and NAPI while the device spreads receive work (rxspread.h).
 * @rx_load: the load that decides spreading in the auto mode (rxspread.h).
 * @staged: packets waiting for a keypair (bounded by WGX_STAGED_MAX, oldest dropped).
 * @ports_heartbeat: the low 32 bits of jiffies when a keepalive was last
 *	sent from the first port because data left from another
 *	(WGX_PORTS_HEARTBEAT, send.c); claimed with cmpxchg.
 * @tx_bulk_jiffies: when (jiffies) a packet larger than a small
 *	one was last encrypted for the peer: its small packets carry the
 *	express mark only while it carries bulk too (send.c).
 * @timer_state/@timers: core timer state machine and its kernel timers, under @timers_lock.
 * @stats: per-CPU counters (enum wgx_peer_stat below WGX_PEER_STAT_PERCPU),
 *	summed on read; NULL until the first keypair (wgx_peer_stats_percpu()).
 * @stats_rare: the other counters, one atomic each, and the hot ones while
 *	@stats is NULL; NULL until the first count.  Both set once (cmpxchg)
 *	and freed with the peer.
 * @walltime_last_handshake: real time of the last completed handshake (netlink), under @timers_lock.
 * @telemetry: handshake and TCP RTT, TCP retransmission estimate (telemetry.h), under its own lock.
 * @pmtu: the outer path MTU and its blackhole state (pmtu.h), lockless.
 * @precompute: the ephemeral made ahead for this peer's next handshake
 *	message (precompute.h), allocated at its first handshake message, or
 *	NULL; under the precompute unit's lock.
 */
struct wgx_precompute_slot;

struct wgx_peer {
	struct wgx_device *wgx;
	u8 public_key[WGX_KEY_LEN];
	u64 internal_id;
	struct list_head peer_list;
	struct hlist_node pubkey_hash;

	struct mutex handshake_lock;
	struct wgx_noise_handshake *handshake;
	struct wgx_noise_handshake *prev_handshake;
	bool init_prev;
	bool initiation_paced;
	bool is_dead;
	u32 remote_gen;
	struct wgx_index_entry handshake_entry;
	struct kthread_delayed_work initiation_work;
	struct kthread_worker *initiation_worker;
	atomic_t initiation_is_retry;
	spinlock_t keypairs_lock;
	atomic64_t initiation_asked_ns;

	struct wgx_keypair __rcu *keypair_current;
	struct wgx_keypair __rcu *keypair_previous;
	struct wgx_keypair __rcu *keypair_next;

	rwlock_t endpoint_lock;
	struct wgx_endpoint endpoint;
	bool endpoint_given;
	struct wgx_endpoint_heard endpoint_heard;
	struct wgx_endpoint_local endpoint_local;
	struct wgx_peer_rx *rx;
	struct wgx_rxspread_load rx_load;
	struct dst_cache endpoint_cache;

	struct sk_buff_head staged;
	unsigned long tx_bulk_jiffies;
	u32 ports_heartbeat;
	struct work_struct zero_keys_work;

	spinlock_t timers_lock;
	struct kref refcount;
	struct wgx_timers timer_state;
	struct timer_list timers[WGX_TIMER_COUNT];

	struct wgx_peer_stats __percpu *stats;
	struct wgx_peer_stats_rare *stats_rare;
	struct timespec64 walltime_last_handshake;
	struct wgx_telemetry telemetry;
	struct wgx_pmtu pmtu;
	struct wgx_precompute_slot *precompute;

	struct rcu_head rcu;
	/* @handshake's storage (wgx_noise_handshake_size() bytes): one object, not two. */
	u8 handshake_mem[] __aligned(8);
};

/**
 * wgx_peer_init - make the peers' slab cache at module load (and for a KUnit suite
 * that makes peers, before it); 0 or -ENOMEM.
 * wgx_peer_exit - destroy it at unload, after every peer's RCU free ran.
 */
int wgx_peer_init(void);
void wgx_peer_exit(void);

/**
 * wgx_peer_create - a new peer with static public key @public_key (32 bytes) and
 * optional preshared key @psk (NULL = none), published in the device's peer
 * list and pubkey table.  Context: process, device_update_lock held.
 * Returns the peer (the list owns its reference) or ERR_PTR(-ENOMEM / -E2BIG).
 */
struct wgx_peer *wgx_peer_create(struct wgx_device *wgx, const u8 *public_key, const u8 *psk);
/**
 * wgx_peer_set_public_key - re-key @peer in place to @new_key (32 bytes; not
 * the device's own key nor another peer's: the caller checked), keeping its
 * endpoint, allowed IPs, counters, timers and keypairs, so the current
 * session carries traffic until the next handshake, which is made with the
 * new key.  When the device is up, that handshake is started now.
 * Context: process, device_update_lock held; sleeps (a grace period).
 */
void wgx_peer_set_public_key(struct wgx_peer *peer, const u8 *new_key);
/** wgx_peer_remove - unpublish, stop and release a peer.  Process, device_update_lock held; sleeps. */
void wgx_peer_remove(struct wgx_peer *peer);
/** wgx_peer_remove_all - remove every peer of @wgx (batched grace periods). */
void wgx_peer_remove_all(struct wgx_device *wgx);

/**
 * wgx_peer_get_maybe_zero - take a reference unless @peer is NULL or dying
 * (its last reference gone, its memory waiting for a grace period): @peer,
 * or NULL.  RCU read side (either flavour), so the memory is still there.
 * Inline: the lookups below the peer (peerlookup.c) take it.
 */
static inline struct wgx_peer *wgx_peer_get_maybe_zero(struct wgx_peer *peer)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_bh_held() && !rcu_read_lock_held(),
			 "taking a peer reference without RCU");
	if (unlikely(!peer || !kref_get_unless_zero(&peer->refcount)))
		return NULL;
	return peer;
}
struct wgx_peer *wgx_peer_get(struct wgx_peer *peer);
void wgx_peer_put(struct wgx_peer *peer);

/** wgx_peer_stats_add - add @n to counter @stat.  Any context. */
static inline void wgx_peer_stats_add(struct wgx_peer *peer, enum wgx_peer_stat stat, u64 n)
{
	struct wgx_peer_stats __percpu *s;

	if (stat < WGX_PEER_STAT_PERCPU) {
		s = READ_ONCE(peer->stats);
		if (likely(s)) {
			this_cpu_add(s->v[stat], n);
			return;
		}
	}
	wgx_peer_stats_add_rare(peer, stat, n);
}

static inline void wgx_peer_stats_inc(struct wgx_peer *peer, enum wgx_peer_stat stat)
{
	wgx_peer_stats_add(peer, stat, 1);
}

/**
 * wgx_peer_count_tx - account one datagram of @len bytes sent to @peer (the
 * device's tx counters are kept by the tunnel transmit, iptunnel_xmit_stats).
 */
static inline void wgx_peer_count_tx(struct wgx_peer *peer, size_t len)
{
	wgx_peer_stats_add(peer, WGX_PEER_STAT_TX_BYTES, len);
}

/** wgx_peer_purge_staged - drop every staged packet (handshake gave up). */
void wgx_peer_purge_staged(struct wgx_peer *peer);
/** wgx_peer_zero_keys_worker - work function of zero_keys_work (holds a peer reference). */
void wgx_peer_zero_keys_worker(struct work_struct *work);
/** wgx_peer_schedule_zero_keys - zero keypairs and handshake soon, in process context. */
void wgx_peer_schedule_zero_keys(struct wgx_peer *peer);
/** wgx_peer_clear_keypairs - expire and drop every keypair now (key change, removal). */
void wgx_peer_clear_keypairs(struct wgx_peer *peer);
/**
 * wgx_peer_expire_sending - stop sending with the current and next keypairs
 * (private-key change, as WireGuard's wg_noise_expire_current_peer_keypairs):
 * the next packet is staged and starts a handshake, while packets the peer
 * still sends with them keep decrypting until that handshake replaces them.
 * Any context but hard IRQ; takes keypairs_lock.
 */
void wgx_peer_expire_sending(struct wgx_peer *peer);
/**
 * wgx_peer_clear_handshake - forget a handshake in progress (under the current
 * or the previous identity) and its index.
 */
void wgx_peer_clear_handshake(struct wgx_peer *peer);

/**
 * wgx_peer_keypair_install - install a freshly derived keypair (whitepaper 5.4.5,
 * 6.1): the initiator makes it current at once (previous <- current); the
 * responder keeps it as next until the first transport data confirms it.
 * Gives the peer its per-CPU counters (wgx_peer_stats_percpu()), then takes
 * keypairs_lock; process context.  @keypair's reference moves to the peer.  Returns
 * false, installing nothing, when the peer is dead (its removal cleared the
 * keypairs, or will under the same lock): the caller keeps the reference.
 */
bool wgx_peer_keypair_install(struct wgx_peer *peer, struct wgx_keypair *keypair);
/**
 * wgx_peer_has_sending_keypair - whether @peer has a current keypair that may
 * still send (a session: a keepalive would go out without a handshake).  A
 * snapshot; any context.
 */
bool wgx_peer_has_sending_keypair(struct wgx_peer *peer);
/**
 * wgx_peer_keypair_received_with - transport data arrived with @keypair: if it
 * is the peer's next keypair, it becomes current (responder confirmation).
 * Returns true when that happened.  Any context.
 */
bool wgx_peer_keypair_received_with(struct wgx_peer *peer, struct wgx_keypair *keypair);

/** wgx_keypair_create - a keypair around @keys for @peer (takes a peer ref); NULL on ENOMEM. */
struct wgx_keypair *wgx_keypair_create(struct wgx_peer *peer, const struct wgx_keypair_keys *keys);
struct wgx_keypair *wgx_keypair_get(struct wgx_keypair *keypair);
void wgx_keypair_put(struct wgx_keypair *keypair, bool unreference_now);

#endif /* WGX_PEER_H */
