/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxspread.h - receive spreading: decrypt one peer's transport data on every
 * online CPU and deliver it in arrival order.
 *
 * By default a transport data message is decrypted where it arrives, on the
 * CPU the receiver's RSS/RPS picked from its outer headers: one CPU per outer
 * flow.  A peer that sends from one UDP port (the in-tree module,
 * wireguard-go, wgx with listen-ports 1) is then decrypted on one CPU however
 * many inner flows it carries.  With the device option rx-spread on, the
 * arriving CPU only looks the keypair up and queues the message twice: on the
 * peer's ordered queue (arrival order) and on a decrypt worker's ring, chosen
 * round robin among the online CPUs.  Workers decrypt in parallel; the peer's
 * NAPI delivers from the head of its ordered queue, each message once it is
 * decrypted, so every inner flow (indeed the whole peer) keeps the order it
 * arrived in.  The price is a hand-off to another CPU and back per message;
 * docs/datapath.md and docs/performance.md say when it pays.
 *
 * Locking and lifetime: the option changes under device_update_lock.  A
 * peer's struct wgx_peer_rx exists while the option is on (made for every
 * peer when it is switched on and at peer creation) and goes at removal or
 * when the option goes off, after every message that could reach it has:
 * encap_rcv readers are waited for with synchronize_net(), the workers with
 * flush_workqueue(), the NAPI with napi_disable().
 */
#ifndef WGX_RXSPREAD_H
#define WGX_RXSPREAD_H

#include <linux/netdevice.h>
#include <linux/ptr_ring.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

struct wgx_device;
struct wgx_peer;

enum {
	WGX_RXSPREAD_RING_SIZE = 4096,	/* messages waiting for one CPU's decrypt worker */
	WGX_RXSPREAD_PEER_MAX = 4096,	/* messages of one peer between arrival and delivery */
};

/** struct wgx_peer_rx - a peer's ordered queue and the NAPI that delivers from it. */
struct wgx_peer_rx {
	struct napi_struct napi;
	struct sk_buff_head queue;
	struct wgx_peer *peer;
	struct rcu_head rcu;
};

/** struct wgx_rx_worker - one CPU's decrypt worker. */
struct wgx_rx_worker {
	struct ptr_ring ring;
	struct work_struct work;
	struct wgx_device *wgx;
	int next_cpu;	/* round robin of the messages this CPU receives */
} ____cacheline_aligned_in_smp;

/** wgx_rxspread_init - the device's decrypt workqueue and per-CPU workers.  Process context; 0 or -ENOMEM. */
int wgx_rxspread_init(struct wgx_device *wgx);
/** wgx_rxspread_uninit - wait for the workers and free them; every peer is gone.  Process context. */
void wgx_rxspread_uninit(struct wgx_device *wgx);

/**
 * wgx_rxspread_set - switch receive spreading of @wgx on or off.  On: every
 * peer gets its ordered queue and NAPI (-ENOMEM leaves the option off).  Off:
 * messages in flight are delivered or dropped, then the queues go.
 * Process context, device_update_lock held.
 */
int wgx_rxspread_set(struct wgx_device *wgx, bool on);

/**
 * wgx_rxspread_peer_init - a new peer of a device with rx-spread on gets its
 * queue and NAPI.  Process context, device_update_lock held; 0 or -ENOMEM.
 */
int wgx_rxspread_peer_init(struct wgx_peer *peer);
/**
 * wgx_rxspread_peer_uninit - a dead peer's queue and NAPI go (no-op without
 * them); messages still queued are dropped and counted.  @flush: wait for
 * the decrypt workers first (false when the caller just did, for many peers
 * at once).  Process context, after the peer was marked dead (or the option
 * switched off) and an RCU grace period passed; sleeps.
 */
void wgx_rxspread_peer_uninit(struct wgx_peer *peer, bool flush);

/**
 * wgx_rxspread_enqueue - queue a transport message (cb filled by the receive
 * path, state pending) for a decrypt worker and its peer's in-order delivery.
 * Returns false, owning nothing, when the peer has no queue (option off, peer
 * dead): the caller then handles @skb itself.  When a queue is full the
 * message is dropped (it could not keep its place in the order) and true
 * returned.  Softirq.
 */
bool wgx_rxspread_enqueue(struct wgx_peer *peer, struct sk_buff *skb);

#endif /* WGX_RXSPREAD_H */
