/* SPDX-License-Identifier: GPL-2.0 */
/*
 * send.h - the transmit path: xmit, staging, the encryption workers'
 * per-packet step and keepalives.
 */
#ifndef WGX_SEND_H
#define WGX_SEND_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

struct wgx_peer;

/* Headroom for outer IPv6 + UDP + transport header (bytes). */
#define WGX_SEND_HEADROOM	(40 + 8 + 16)
#define WGX_SOCKET_HEADROOM	(LL_MAX_HEADER + 40 + 8)

/**
 * wgx_send_select_queue - ndo_select_queue: the tx queue of @skb's inner
 * flow, by its flow hash (wgx_ports_flow_hash(), which it also stores as
 * @skb's hash for ndo_start_xmit), so all of a flow's packets take one queue
 * and one worker, whichever CPU sends them: TCP moving a socket to the
 * sending CPU's queue (XPS, once its packets left the host) could reorder
 * the flow against packets still on their way from the old queue's CPU.
 * Softirq or process context, BHs off.
 */
u16 wgx_send_select_queue(struct net_device *dev, struct sk_buff *skb,
			  struct net_device *sb_dev);
/** wgx_send_xmit - ndo_start_xmit: route by allowed IPs, segment GSO, queue on the skb's tx queue. */
netdev_tx_t wgx_send_xmit(struct sk_buff *skb, struct net_device *dev);

/**
 * enum wgx_send_result - what wgx_send_encrypt_and_send() did with the skb.
 * @WGX_SEND_SENT: encrypted and handed to the UDP socket.
 * @WGX_SEND_GONE: dropped (counted), or staged for a handshake.
 * @WGX_SEND_SEALED: only with @direct: encrypted, but its outer route
 *                   leaves through a wgx device, so not sent; the caller
 *                   still owns the skb and its cb's references (cb->sealed
 *                   is set: the next call sends it without encrypting).
 */
enum wgx_send_result {
	WGX_SEND_SENT,
	WGX_SEND_GONE,
	WGX_SEND_SEALED,
};

/**
 * wgx_send_encrypt_and_send - the tx worker's per-packet step: pick the peer's
 * current keypair and a nonce, pad and encrypt in place, send (a sealed skb,
 * cb->sealed, is only sent).  Stages the packet and asks for a handshake
 * when no usable keypair exists.  @direct: the caller is ndo_start_xmit
 * (the priority lane's inline send), which must not transmit through
 * another wgx device or its own (wgx_socket_send_skb_to_peer()).  Consumes
 * @skb and the references in its cb, except for WGX_SEND_SEALED.  Process
 * context (tx worker), or ndo_start_xmit with BHs off for @direct.
 */
enum wgx_send_result wgx_send_encrypt_and_send(struct sk_buff *skb, bool direct);

/**
 * wgx_send_staged - move the peer's staged packets to the tx queues (a keypair
 * is ready).  Call it after installing the keypair: it takes staged.lock,
 * which orders the keypair against a packet staged meanwhile (see
 * wgx_send_stage() in send.c).  Returns true if there was any packet.  Any
 * context; the caller holds a reference on @peer.
 */
bool wgx_send_staged(struct wgx_peer *peer);

/** wgx_send_keepalive - send staged packets, or an empty transport message if none. Any context. */
void wgx_send_keepalive(struct wgx_peer *peer);

/** wgx_skb_cb_release - drop the keypair and peer references an skb's cb holds. */
void wgx_skb_cb_release(struct sk_buff *skb);

#endif /* WGX_SEND_H */
