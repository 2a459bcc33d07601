/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handshake.h - handshake messages (initiation, response, cookie reply;
 * whitepaper 5.4.2-5.4.7), the device's handshake ring and the under-load
 * state (whitepaper 5.3).  Everything that runs Curve25519 lives behind this
 * header, in process context, never in the data path.
 */
#ifndef WGX_HANDSHAKE_H
#define WGX_HANDSHAKE_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct wgx_device;
struct wgx_peer;

/* Handshake messages a device queues for its workers. */
#define WGX_HANDSHAKE_RING_SIZE 4096

/**
 * wgx_handshake_init - the handshake and kex workqueues, the handshake ring
 * (WGX_HANDSHAKE_RING_SIZE messages) and one ring worker per possible CPU.
 * Process context.  Returns 0 or -ENOMEM.
 */
int wgx_handshake_init(struct wgx_device *wgx);
/**
 * wgx_handshake_uninit - wait for the workers and drop queued messages.
 * Process context; the sockets must be closed and every peer removed.
 */
void wgx_handshake_uninit(struct wgx_device *wgx);

/**
 * wgx_handshake_enqueue - queue a received handshake message (skb->data at
 * the message, linear, outer headers still in the skb) for a ring worker.
 * Returns false when the ring is full: the caller still owns @skb.
 * Softirq context (encap_rcv).
 */
bool wgx_handshake_enqueue(struct wgx_device *wgx, struct sk_buff *skb);

/**
 * wgx_handshake_under_load - true while the handshake ring is more than 1/8
 * full, and for one second (HZ jiffies) after: initiations and responses
 * then need a valid MAC2 (cookie) and pass the per-source ratelimiter.
 * Any context.
 */
bool wgx_handshake_under_load(struct wgx_device *wgx);

/**
 * wgx_handshake_send_initiation - ask for a handshake initiation to @peer, made
 * and sent by the peer's initiation work on the device's kex workqueue; at
 * most one per REKEY_TIMEOUT unless @is_retry (whitepaper 6.1, 6.4).  Does
 * nothing for a dead peer.  Any context.
 */
void wgx_handshake_send_initiation(struct wgx_peer *peer, bool is_retry);
/** wgx_handshake_initiation_worker - work function of peer->initiation_work (holds a peer reference). */
void wgx_handshake_initiation_worker(struct work_struct *work);

#endif /* WGX_HANDSHAKE_H */
