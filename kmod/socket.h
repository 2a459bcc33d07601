/* SPDX-License-Identifier: GPL-2.0 */
/*
 * socket.h - the device's UDP sockets and sending to a peer's endpoint.
 *
 * A device listens on N UDP ports, an IPv4 and an IPv6 socket on each:
 * by default (listen_ports 0, automatic) on its listen port and, with more
 * than one possible CPU, WGX_AUTO_LISTEN_PORTS - 1 ports more that the
 * kernel picks, best effort, used towards peers whose endpoint we were
 * given; with listen_ports N on N consecutive ports towards every peer
 * (1 is WireGuard's behaviour).  Transport
 * data leaves from the port the inner flow's hash selects, so one peer's
 * traffic travels as up to N outer flows that the receiver's RSS can spread
 * over its CPUs, while each inner flow keeps exactly one outer flow (and so
 * its order).  Handshake messages and keepalives leave from the first port.
 * All of it is ordinary WireGuard on the wire: a peer simply sees us send
 * from several source ports, and any of them reaches us.
 */
#ifndef WGX_SOCKET_H
#define WGX_SOCKET_H

#include <linux/skbuff.h>
#include <uapi/linux/wgx.h>	/* WGX_MAX_LISTEN_PORTS */

#include "endpoint.h"

struct wgx_device;
struct wgx_peer;
struct sock;

/**
 * wgx_socket_init - bind @nports (1..WGX_MAX_LISTEN_PORTS) consecutive UDP
 * ports from @port (0 = any free run of ports) in the namespace that created
 * the device, IPv4 and (when available) IPv6 on each, and install them in
 * place of the old ones.  @nports 0 (automatic): @port (0 = any free one)
 * as with one port, and wgx_socket_ports_wanted(0) - 1 more ports the kernel
 * chooses, each left out when it cannot be bound.  On error the installed
 * sockets are unchanged.
 * Context: process, device_update_lock held.
 * Returns 0, -EADDRINUSE (a port is taken, or the run would pass 65535),
 * -ENOMEM, or another error of udp_sock_create().
 */
int wgx_socket_init(struct wgx_device *wgx, u16 port, unsigned int nports);

/**
 * wgx_socket_ports_wanted - the number of ports the listen_ports setting
 * @listen_ports asks for: itself, or for 0 (automatic)
 * WGX_AUTO_LISTEN_PORTS with more than one possible CPU, else 1.
 */
unsigned int wgx_socket_ports_wanted(unsigned int listen_ports);

/**
 * wgx_socket_listen_ports - the number of listen ports of @wgx: those bound
 * while it is up, else those its next up asks for.  Any context.
 */
unsigned int wgx_socket_listen_ports(struct wgx_device *wgx);

/**
 * wgx_socket_uninit - close every socket of @wgx (device down, namespace gone,
 * device destroyed), after an RCU grace period.  Process context,
 * device_update_lock held; sleeps.
 */
void wgx_socket_uninit(struct wgx_device *wgx);

/**
 * wgx_socket_flow_hash - the flow hash of the inner packet @skb (linear IP
 * header; before encryption): siphash under the device's key of its
 * addresses, protocol and ports (no ports for a fragment), so it is the
 * same for every packet of a flow, whichever socket, CPU or forwarding path
 * it comes from, and for the flow's whole life.  It picks the flow's tx
 * queue (wgx_send_select_queue()), its lane bucket and its listen port
 * (wgx_socket_flow_port()).  *@ports := whether the flow has ports (TCP,
 * UDP, UDP-Lite, SCTP or DCCP, not a fragment; IPv6 extension headers
 * walked), the flows a listen port of their own can spread.  0 (and no
 * ports) for an empty packet or one that does not dissect.  Any context.
 */
u32 wgx_socket_flow_hash(struct wgx_device *wgx, const struct sk_buff *skb, bool *ports);

/**
 * wgx_socket_flow_port - the listen port (index 0..bound ports - 1) that an
 * inner packet to @peer, of flow hash @hash and with @ports
 * (wgx_socket_flow_hash()), leaves from; 0 with one port, and with
 * automatic ports for a peer whose endpoint was learned from its packets
 * rather than given (peer.h, @endpoint_given: a NAT or stateful firewall in
 * front of it admits only the replies from the port it sent to), for a
 * peer that follows our source port (endpoint.h) and for a flow without
 * ports (a ping: what a peer sees as our endpoint then stays our listen
 * port, as with WireGuard).  Any context.
 */
unsigned int wgx_socket_flow_port(struct wgx_peer *peer, u32 hash, bool ports);

/**
 * wgx_socket_send_skb_to_peer - send a fully built UDP payload @skb (a wire
 * message) to @peer's endpoint with DSCP/ECN byte @ds, from listen port
 * @index (wgx_socket_flow_port(); 0 for our own messages).  @direct: the
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

/**
 * wgx_socket_peer_set_ports - give @peer a route cache for each listen port
 * beyond the first of @nports (the device's listen ports; port 0 uses the
 * peer's endpoint_cache), or none with @nports <= 1: each port's route is
 * looked up with its own source port and cached for it alone.  Without
 * memory the ports beyond the first look their route up for every packet.
 * Process context; device_update_lock held.  @nports 0 frees them (the
 * peer's removal).
 */
void wgx_socket_peer_set_ports(struct wgx_peer *peer, unsigned int nports);

/**
 * wgx_socket_peer_ports_wanted - the @nports of wgx_socket_peer_set_ports()
 * for @peer: a fixed listen_ports N, or with automatic ports as many as
 * they are for a peer whose endpoint was given, and 1 (no caches) for one
 * it is not: such a peer gets everything from the first port
 * (wgx_socket_flow_port()), and a device of many such peers (a server's
 * clients) pays nothing for the ports.  Process context;
 * device_update_lock held.
 */
unsigned int wgx_socket_peer_ports_wanted(struct wgx_peer *peer);

/** wgx_socket_send_buffer_to_peer - copy @len bytes at @buffer into a new skb and send it. */
int wgx_socket_send_buffer_to_peer(struct wgx_peer *peer, const void *buffer, size_t len, u8 ds);

/**
 * wgx_socket_send_buffer_as_reply_to_skb - send @len bytes to the source of
 * @in_skb from the address and port it was sent to (cookie replies, no peer
 * needed), with DSCP 0 as the in-tree module sends them.
 */
int wgx_socket_send_buffer_as_reply_to_skb(struct wgx_device *wgx, struct sk_buff *in_skb,
					   const void *buffer, size_t len);

/**
 * wgx_socket_peer_caches_reset - every cached route of @peer (each listen
 * port's) goes stale; @now: the routes are released at once
 * (dst_cache_reset_now(), no sender may use them: the peer's endpoint_lock
 * held for writing).  Any context.
 */
void wgx_socket_peer_caches_reset(struct wgx_peer *peer, bool now);

#endif /* WGX_SOCKET_H */
