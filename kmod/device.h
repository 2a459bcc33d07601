/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device.h - the wgx network device: rtnl link kind "wgx" (and "wireguard" in
 * drop-in mode), and the state a device owns (identity, peers, lookup
 * tables, sockets, queues).
 *
 * Locks, in the order they nest:
 *   device_update_lock (mutex): configuration (netlink SET_DEVICE), peer
 *       creation/removal, socket replacement, open/stop.
 *   identity_lock (rwsem): the static identity; written by private key
 *       changes, read by handshake processing (process context).
 *   peer->handshake_lock (mutex): one peer's core handshake state; held
 *       across Curve25519 operations, so never with BHs off (process context).
 *   cookie_lock (spinlock, BH): the cookie checker.
 *   peer->keypairs_lock, peer->timers_lock, peer->endpoint_lock, the index
 *       table lock, ratelimiter_lock: leaves, BH-safe.
 * Readers of peers, keypairs, allowed IPs and sockets use RCU (BH flavour).
 */
#ifndef WGX_DEVICE_H
#define WGX_DEVICE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/ptr_ring.h>
#include <linux/xarray.h>
#include <linux/rwsem.h>
#include <linux/siphash.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>
#include <net/gro_cells.h>

#include <wgx/core.h>

#include "queueing.h"
#include "rxspread.h"
#include "socket.h"

/* Outer headers the tunnel adds beyond the IP header: UDP (8), the transport
 * data header (16) and the Poly1305 tag (16).  Whitepaper section 5.4.6. */
#define WGX_MESSAGE_OVERHEAD	(8 + 16 + 16)
/* Default MTU (bytes): 1500 minus the IPv6 worst case, as WireGuard uses. */
#define WGX_DEFAULT_MTU		(ETH_DATA_LEN - 40 - WGX_MESSAGE_OVERHEAD)
/* DSCP/ECN byte of handshake messages: AF41, as WireGuard sends them. */
#define WGX_HANDSHAKE_DSFIELD	0x88
/* Maximum number of peers per device. */
#define WGX_MAX_PEERS_PER_DEVICE (1U << 20)

/** Per-device counters; mirror enum wgx_device_stats_attribute (minus one). */
enum wgx_device_stat {
	WGX_DEVICE_STAT_RX_HANDSHAKE_PACKETS = 0,
	WGX_DEVICE_STAT_RX_DROP_MALFORMED,
	WGX_DEVICE_STAT_RX_DROP_MAC1,
	WGX_DEVICE_STAT_RX_DROP_MAC2,
	WGX_DEVICE_STAT_RX_DROP_UNKNOWN_PEER,
	WGX_DEVICE_STAT_RX_DROP_UNKNOWN_INDEX,
	WGX_DEVICE_STAT_RX_DROP_RATELIMITED,
	WGX_DEVICE_STAT_RX_DROP_HANDSHAKE_QUEUE,
	WGX_DEVICE_STAT_COOKIE_REPLIES_TX,
	WGX_DEVICE_STAT_TX_DROP_NO_PEER,
	WGX_DEVICE_STAT_UNDER_LOAD_ENTERED,
	WGX_DEVICE_STAT_HANDSHAKES_PACED,
	WGX_DEVICE_STAT_TX_LANE,
	WGX_DEVICE_STAT_TX_LANE_INLINE,
	WGX_DEVICE_STAT_RX_DROP_DELAY,
	WGX_DEVICE_STAT_PMTU_ICMP_IGNORED,
	WGX_DEVICE_STAT_TX_EXPRESS,
	WGX_DEVICE_STAT_RX_EXPRESS,
	WGX_DEVICE_STAT_TX_DROP_DELAY,
	WGX_DEVICE_STAT_RX_MARK_DELAY,
	WGX_DEVICE_STAT_TX_MARK_DELAY,
	WGX_DEVICE_STAT_COUNT
};

struct wgx_device_stats {
	u64 v[WGX_DEVICE_STAT_COUNT];
};

/** Handshake ring work item number @slot, always queued on wgx-hs thread @slot (hsworker.h). */
struct wgx_handshake_worker {
	struct kthread_work work;
	struct wgx_device *wgx;
	unsigned int slot;
};

/**
 * struct wgx_device - private area of a wgx net_device.
 * @creating_net: namespace that created the device; its UDP sockets live there
 *                even after the device moves.  No reference is held: the pernet
 *                pre_exit hook clears it (and closes the sockets) when it dies.
 * @sock4/@sock6: UDP sockets (RCU), one pair per listen port (slots
 *                0..@bound_ports - 1), replaced under device_update_lock.
 * @incoming_port: first listen port (host order): the bound one while the
 *                 device is up, the configured one (0 = random) while down.
 * @port_set: the user set @incoming_port (not 0); otherwise the kernel
 *            picked it at an up, and an up that finds it taken picks
 *            another (wgx_open()).  Under device_update_lock.
 * @listen_ports: configured number of listen ports: 0 automatic (the
 *                default, socket.h), 1..16 consecutive ones (1 is
 *                WireGuard's behaviour); written under device_update_lock.
 * @bound_ports: socket pairs installed now (0 while down); read locklessly.
 * @flow_hash_key: key of the inner flow hash that picks a flow's tx queue,
 *                 lane bucket and listen port (wgx_ports_flow_hash()).
 * @rx_spread: receive spreading mode (enum wgx_rx_spread_mode, rxspread.h);
 *             changed under device_update_lock, read locklessly by encap_rcv.
 * @rx_wq/@rx_workers: the decrypt workers of receive spreading.
 * @rx_rings: the workers' rings are made (with the device's first ordered
 *            queue, under device_update_lock; rxspread.c).
 * @rx_grow_work: makes the queues of peers the auto mode spreads (rxspread.c).
 * @fwmark: mark of outgoing UDP packets (0 = none).
 * @dscp_copy: copy the inner DSCP to the outer header (else 0); written
 *             under device_update_lock, read locklessly by ndo_start_xmit.
 * @priority_dscp: bitmap of the inner DSCP values (bit n = DSCP n) whose
 *                 packets take the priority lane (queueing.h); same locking.
 * @identity: static keys (core), under identity_lock.
 * @cookie_checker: MAC1/MAC2 and cookie replies (core), under cookie_lock.
 * @prev_identity/@prev_cookie_checker: the previous static key and its
 *	MAC1/cookie keys while a key change's grace period runs (else keyless),
 *	docs/rotation.md; same locks as @identity and @cookie_checker, and
 *	changed only with identity_lock held for writing.  Allocated with the
 *	device, so the pointers never change.
 * @identity_gen: generation of @identity, incremented by every private key
 *	change; @prev_identity is generation @identity_gen - 1.  Under
 *	identity_lock (keypairs record it, netlink reads it).
 * @grace_active: @prev_identity holds a key; under identity_lock.
 * @grace_end: jiffies at which the running grace period ends; under
 *	identity_lock.  A grace worker that fires earlier (one that was waiting
 *	for device_update_lock while a second key change started a new grace)
 *	leaves the grace alone.
 * @key_grace_s: seconds a private key change keeps the previous key
 *	(WGX_DEVICE_A_KEY_GRACE; 0 = WireGuard's behaviour), under
 *	device_update_lock.
 * @grace_work: ends the grace period (keygrace.c,
 *	system_wq; takes device_update_lock).
 * @allowedips: cryptokey routing table (core); lookups under RCU, writes under
 *              device_update_lock.
 * @peer_list/@num_peers: all peers, under device_update_lock.
 * @handshake_budget: initiations per second the device may send (all peers
 *                    together), 0 = automatic (handshake.h); written under
 *                    device_update_lock, read locklessly by the initiation
 *                    workers.
 * @handshake_budget_tat: the budget's state, lockless (atomic64 cmpxchg):
 *                        boot time in ns at which the bucket is empty again
 *                        (handshake_initiate.c, wgx_handshake_budget_take()).
 */
struct wgx_device {
	struct net_device *dev;
	struct net __rcu *creating_net;
	struct list_head device_list;
	struct mutex device_update_lock;
	bool mtu_auto;		/* the MTU follows the underlay (devmtu.h); RTNL */
	bool mtu_setting;	/* devmtu.c is setting it; RTNL */
	u32 mtu_routes;		/* smallest endpoint route MTU (devmtu.h); device_update_lock */

	struct sock __rcu *sock4[WGX_MAX_LISTEN_PORTS];
	struct sock __rcu *sock6[WGX_MAX_LISTEN_PORTS];
	u16 incoming_port;
	bool port_set;
	u8 listen_ports;
	u8 bound_ports;
	siphash_key_t flow_hash_key;
	u32 fwmark;
	bool dscp_copy;
	u64 priority_dscp;

	struct rw_semaphore identity_lock;
	struct wgx_noise_identity *identity;
	spinlock_t cookie_lock;
	struct wgx_cookie_checker *cookie_checker;
	struct wgx_noise_identity *prev_identity;
	struct wgx_cookie_checker *prev_cookie_checker;
	u32 identity_gen;
	bool grace_active;
	unsigned long grace_end;
	u32 key_grace_s;
	struct delayed_work grace_work;

	struct wgx_allowedips *allowedips;
	struct list_head peer_list;
	unsigned int num_peers;
	u64 peer_ids;
	struct wgx_pubkey_hashtable *peer_hashtable;
	/* Route caches of the listen ports beyond the first, by peer id (socket.c). */
	struct xarray port_caches;
	struct wgx_index_hashtable *index_hashtable;

	struct gro_cells gro_cells;
	struct wgx_txq *txqs;
	/*
	 * Per flow bucket, when (jiffies) a packet of it last left
	 * without the express mark: send.c's wgx_send_express() reads it
	 * as it encrypts and writes it at most once a jiffy.  Every tx
	 * queue's worker and inline send touch the array (a bucket is a
	 * flow hash, not a queue), so the writes are what it costs.
	 */
	unsigned long tx_ordered_last[WGX_TXQ_BUCKETS];
	struct workqueue_struct *tx_wq;
	struct workqueue_struct *lane_wq;	/* the tx queues' lanes (queueing.c) */
	struct workqueue_struct *handshake_wq;
	u32 handshake_budget;
	atomic64_t handshake_budget_tat;
	struct ptr_ring handshake_ring;
	atomic_t handshake_ring_len;
	/*
	 * Set and cleared under the ring's producer_lock (RTNL held), read
	 * under it by the producer and locklessly by the workers
	 * (wgx_handshake_close()) and by a peer's initiation, under its
	 * handshake_lock.
	 */
	bool handshake_closed;
	/* nr_cpu_ids ring work items, item N on wgx-hs thread N. */
	struct wgx_handshake_worker *handshake_workers;
	unsigned long last_under_load;

	spinlock_t ratelimiter_lock;
	struct wgx_ratelimiter *ratelimiter;
	struct delayed_work ratelimiter_gc;

	struct wgx_device_stats __percpu *stats;

	u8 rx_spread;
	struct workqueue_struct *rx_wq;
	struct wgx_rx_worker __percpu *rx_workers;
	bool rx_rings;
	struct work_struct rx_grow_work;
};

static inline void wgx_device_stats_inc(struct wgx_device *wgx, enum wgx_device_stat stat)
{
	this_cpu_inc(wgx->stats->v[stat]);
}

/** wgx_device_stats_read - sum of counter @stat over all CPUs. */
u64 wgx_device_stats_read(struct wgx_device *wgx, enum wgx_device_stat stat);

/**
 * wgx_device_set_listen_port - listen on @nports (1..WGX_MAX_LISTEN_PORTS)
 * consecutive UDP ports from @port (0 = any free run), or on automatic ports
 * from @port with @nports 0 (wgx_socket_init()): rebinds at once when
 * the device is up (on error nothing changes), else remembered for the next
 * up.  Cached source addresses of every peer are forgotten.  Process
 * context, device_update_lock held.  Returns 0 or an error of wgx_socket_init().
 */
int wgx_device_set_listen_port(struct wgx_device *wgx, u16 port, unsigned int nports);

/**
 * wgx_device_is_wgx - true when @dev is a wgx device, of link kind "wgx" or
 * (drop-in mode) "wireguard": netlink checks the kind this way.
 */
bool wgx_device_is_wgx(const struct net_device *dev);

/* Every wgx device (the namespace exit hook, devmtu.c).  Under RTNL. */
extern struct list_head wgx_device_list;

/** wgx_device_is_wireguard_kind - true when @dev is a wgx device of link kind "wireguard". */
bool wgx_device_is_wireguard_kind(const struct net_device *dev);

/**
 * wgx_device_init - register the namespace hooks and the link kind "wgx".
 * Module load, process context.  Returns 0 or a negative errno
 * (-EEXIST: the kind is taken).
 */
int wgx_device_init(void);

/** wgx_device_exit - delete every wgx device of kind "wgx", unregister the kind and the hooks. */
void wgx_device_exit(void);

/**
 * wgx_device_wg_init - register the link kind "wireguard" (drop-in mode),
 * after wgx_device_init().  Returns 0 or a negative errno: -EEXIST when the
 * kind is taken, which only WireGuard (wireguard.ko, or built in) does.
 */
int wgx_device_wg_init(void);

/** wgx_device_wg_exit - delete every wgx device of kind "wireguard" and unregister the kind;
 * before wgx_device_exit(). */
void wgx_device_wg_exit(void);

#endif /* WGX_DEVICE_H */
