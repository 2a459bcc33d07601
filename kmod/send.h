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

/** wgx_send_xmit - ndo_start_xmit: route by allowed IPs, segment GSO, queue on the skb's tx queue. */
netdev_tx_t wgx_send_xmit(struct sk_buff *skb, struct net_device *dev);

/**
 * wgx_send_encrypt_and_send - the tx worker's per-packet step: pick the peer's
 * current keypair and a nonce, pad and encrypt in place, send.  Stages the
 * packet and asks for a handshake when no usable keypair exists.  Consumes
 * @skb and the references in its cb.  Process context (tx worker).
 */
void wgx_send_encrypt_and_send(struct sk_buff *skb);

/** wgx_send_staged - move the peer's staged packets to the tx queues (a keypair is ready). */
void wgx_send_staged(struct wgx_peer *peer);

/** wgx_send_keepalive - send staged packets, or an empty transport message if none. Any context. */
void wgx_send_keepalive(struct wgx_peer *peer);

/** wgx_skb_cb_release - drop the keypair and peer references an skb's cb holds. */
void wgx_skb_cb_release(struct sk_buff *skb);

#endif /* WGX_SEND_H */
