/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ports.h - the listen ports a peer's traffic leaves from.
 *
 * A device listens on N UDP ports, an IPv4 and an IPv6 socket on each
 * (socket.h): by default (listen_ports 0, automatic) on its listen port and,
 * with more than one possible CPU, WGX_AUTO_LISTEN_PORTS - 1 ports more that
 * the kernel picks, best effort, used towards peers whose endpoint we were
 * given; with listen_ports N on N consecutive ports towards every peer (1 is
 * WireGuard's behaviour).  Transport data leaves from the port the inner
 * flow's hash selects, so one peer's traffic travels as up to N outer flows
 * that the receiver's RSS can spread over its CPUs, while each inner flow
 * keeps exactly one outer flow (and so its order).  Handshake messages and
 * keepalives leave from the first port.  All of it is ordinary WireGuard on
 * the wire: a peer simply sees us send from several source ports, and any
 * of them reaches us.
 */
#ifndef WGX_PORTS_H
#define WGX_PORTS_H

#include <linux/skbuff.h>

struct dst_cache;
struct wgx_device;
struct wgx_peer;

/*
 * While a peer's transport data leaves from ports beyond the first, a
 * keepalive leaves from the first port at least this often (jiffies): the
 * receiver keeps replying to the port it knows, and moves to another port
 * of ours only after 2 s without a message from it (endpoint.h); the
 * keepalive also keeps a NAT's or firewall's state of the first port.
 */
#define WGX_PORTS_HEARTBEAT	(HZ / 2)

/**
 * wgx_ports_wanted - the number of ports the listen_ports setting
 * @listen_ports asks for: itself, or for 0 (automatic)
 * WGX_AUTO_LISTEN_PORTS with more than one possible CPU, else 1.
 */
unsigned int wgx_ports_wanted(unsigned int listen_ports);

/**
 * wgx_ports_count - the number of listen ports of @wgx: those bound
 * while it is up, else those its next up asks for.  Any context.
 */
unsigned int wgx_ports_count(struct wgx_device *wgx);

/**
 * wgx_ports_flow_hash - the flow hash of the inner packet @skb (linear IP
 * header; before encryption): siphash under the device's key of its
 * addresses, protocol and ports (no ports for a fragment), so it is the
 * same for every packet of a flow, whichever socket, CPU or forwarding path
 * it comes from, and for the flow's whole life.  It picks the flow's tx
 * queue (wgx_send_select_queue()), its lane bucket and its listen port
 * (wgx_ports_flow_port()).  *@ports := whether the flow has ports (TCP,
 * UDP, UDP-Lite, SCTP or DCCP, not a fragment; IPv6 extension headers
 * walked), the flows a listen port of their own can spread.  0 (and no
 * ports) for an empty packet or one that does not dissect.  Any context.
 */
u32 wgx_ports_flow_hash(struct wgx_device *wgx, const struct sk_buff *skb, bool *ports);

/**
 * wgx_ports_flow_port - the listen port (index 0..bound ports - 1) that an
 * inner packet to @peer, of flow hash @hash and with @ports
 * (wgx_ports_flow_hash()), leaves from; 0 with one port, and with
 * automatic ports for a peer whose endpoint was learned from its packets
 * rather than given (peer.h, @endpoint_given: a NAT or stateful firewall in
 * front of it admits only the replies from the port it sent to), for a
 * peer that follows our source port (endpoint.h) and for a flow without
 * ports (a ping: what a peer sees as our endpoint then stays our listen
 * port, as with WireGuard).  Any context.
 */
unsigned int wgx_ports_flow_port(struct wgx_peer *peer, u32 hash, bool ports);

/**
 * wgx_ports_peer_set - give @peer a route cache for each listen port
 * beyond the first of @nports (the device's listen ports; port 0 uses the
 * peer's endpoint_cache), or none with @nports <= 1: each port's route is
 * looked up with its own source port and cached for it alone.  Without
 * memory the ports beyond the first look their route up for every packet.
 * Process context; device_update_lock held.  @nports 0 frees them (the
 * peer's removal).
 */
void wgx_ports_peer_set(struct wgx_peer *peer, unsigned int nports);

/**
 * wgx_ports_peer_wanted - the @nports of wgx_ports_peer_set()
 * for @peer: a fixed listen_ports N, or with automatic ports as many as
 * they are for a peer whose endpoint was given, and 1 (no caches) for one
 * it is not: such a peer gets everything from the first port
 * (wgx_ports_flow_port()), and a device of many such peers (a server's
 * clients) pays nothing for the ports.  Process context;
 * device_update_lock held.
 */
unsigned int wgx_ports_peer_wanted(struct wgx_peer *peer);

/**
 * wgx_ports_peer_caches_reset - every cached route of @peer (each listen
 * port's) goes stale; @now: the routes are released at once
 * (dst_cache_reset_now(), no sender may use them: the peer's endpoint_lock
 * held for writing).  Any context.
 */
void wgx_ports_peer_caches_reset(struct wgx_peer *peer, bool now);

/**
 * wgx_ports_peer_cache - the route cache of listen port @index for @peer
 * (port 0's is the peer's endpoint_cache), or NULL: no cache, a lookup each
 * time.  rcu_read_lock_bh() held.
 */
struct dst_cache *wgx_ports_peer_cache(struct wgx_peer *peer, unsigned int index);

#endif /* WGX_PORTS_H */
