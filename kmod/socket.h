/* SPDX-License-Identifier: GPL-2.0 */
/*
 * socket.h - the device's UDP sockets and sending to a peer's endpoint.
 *
 * A device listens on N UDP ports, an IPv4 and an IPv6 socket on each; which
 * port a packet leaves from, and the route cache of each, is ports.h's.
 */
#ifndef WGX_SOCKET_H
#define WGX_SOCKET_H

#include <linux/skbuff.h>
#include <uapi/linux/wgx.h>	/* WGX_MAX_LISTEN_PORTS */

#include "endpoint.h"
#include "ports.h"

struct wgx_device;
struct wgx_peer;
struct sock;

/**
 * wgx_socket_init - bind @nports (1..WGX_MAX_LISTEN_PORTS) consecutive UDP
 * ports from @port (0 = any free run of ports) in the namespace that created
 * the device, IPv4 and (when available) IPv6 on each, and install them in
 * place of the old ones.  @nports 0 (automatic): @port (0 = any free one)
 * as with one port, and wgx_ports_wanted(0) - 1 more ports the kernel
 * chooses, each left out when it cannot be bound.  On error the installed
 * sockets are unchanged.
 * Context: process, device_update_lock held.
 * Returns 0, -EADDRINUSE (a port is taken, or the run would pass 65535),
 * -ENOMEM, or another error of udp_sock_create().
 */
int wgx_socket_init(struct wgx_device *wgx, u16 port, unsigned int nports);

/**
 * wgx_socket_uninit - close every socket of @wgx (device down, namespace gone,
 * device destroyed), after an RCU grace period.  Process context,
 * device_update_lock held; sleeps.
 */
void wgx_socket_uninit(struct wgx_device *wgx);

/**
 * wgx_socket_send_skb_to_peer - send a fully built UDP payload @skb (a wire
 * message) to @peer's endpoint with DSCP/ECN byte @ds, from listen port
 * @index (wgx_ports_flow_port(); 0 for our own messages).  @direct: the
 * caller is a wgx ndo_start_xmit (the priority lane's inline send), which
 * must not re-enter a wgx device's transmit: when the outer route leaves
 * through a wgx device (this one or another) nothing is sent, and
 * WGX_SOCKET_VIA_WGX returns @skb to the caller.  Otherwise consumes @skb.
 * Returns 0, WGX_SOCKET_VIA_WGX (only with @direct), -EHOSTUNREACH without
 * an endpoint, -ENONET without sockets, or a routing error.  Context: any;
 * takes the peer's endpoint_lock for reading.
 */
/* Positive, so no errno of the routing code can be mistaken for it. */
#define WGX_SOCKET_VIA_WGX 1

int wgx_socket_send_skb_to_peer(struct wgx_peer *peer, struct sk_buff *skb, u8 ds,
				unsigned int index, bool direct);

/** wgx_socket_send_buffer_to_peer - copy @len bytes at @buffer into a new skb and send it. */
int wgx_socket_send_buffer_to_peer(struct wgx_peer *peer, const void *buffer, size_t len, u8 ds);

/**
 * wgx_socket_send_buffer_as_reply_to_skb - send @len bytes to the source of
 * @in_skb from the address and port it was sent to (cookie replies, no peer
 * needed), with DSCP 0 as the in-tree module sends them.
 */
int wgx_socket_send_buffer_as_reply_to_skb(struct wgx_device *wgx, struct sk_buff *in_skb,
					   const void *buffer, size_t len);

#endif /* WGX_SOCKET_H */
