/* SPDX-License-Identifier: GPL-2.0 */
/*
 * endpoint.h - where a peer is and which of our addresses it talks to, its
 * port kept while it is heard (stickiness), and roaming.
 */
#ifndef WGX_ENDPOINT_H
#define WGX_ENDPOINT_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <linux/socket.h>

struct wgx_peer;

/**
 * struct wgx_endpoint - where a peer is, and which of our addresses it talks to.
 * @addr: the peer's address and port (sa_family AF_INET or AF_INET6, or 0 = none).
 * @src4/@src_if4: our IPv4 address the peer last sent to, and its interface;
 *                 replies leave from it (source-address stickiness).
 * @src6: the same for IPv6.
 */
struct wgx_endpoint {
	union {
		struct sockaddr addr;
		struct sockaddr_in addr4;
		struct sockaddr_in6 addr6;
	};
	union {
		struct {
			struct in_addr src4;
			int src_if4;
		};
		struct in6_addr src6;
	};
};

/**
 * struct wgx_endpoint_heard - when the endpoint's own port last sent us a
 * message, to tell a peer that still uses it from one that left it.
 * @port: the endpoint's port (network order), beside @seen so that one
 *        lockless compare tells a packet from it.
 * @seen: the low 32 bits of jiffies at its last message, refreshed at most
 *        every WGX_PORT_TOUCH and compared as an age modulo 2^32 (a port
 *        silent for a multiple of 2^32 jiffies, 49.7 days at HZ=1000, looks
 *        heard for the 2 s of WGX_PORT_STALE).
 * @other: when (low 32 bits of jiffies, | 1; 0 none) transport data first
 *         came from another port while the endpoint's was silent; cleared
 *         when the endpoint's port is heard again.
 * A peer's transport data from another port of the endpoint's address
 * moves the endpoint only once its own port has been silent for
 * WGX_PORT_STALE and stays so for WGX_PORT_GRACE after that data: a wgx
 * sender spreads its flows over several ports and keeps its first port
 * heard with keepalives, and each move would re-steer every outer flow we
 * send it (endpoint.c).  Written under the peer's endpoint_lock (write),
 * and @seen and @other also locklessly by the receive path (racing writers
 * only blur the times); read locklessly.
 */
struct wgx_endpoint_heard {
	__be16 port;
	u32 seen;
	u32 other;
};

/*
 * A peer's messages follow our source port when they change the port of
 * ours they arrive at more than WGX_ENDPOINT_FOLLOW_MOVES times in each of
 * WGX_ENDPOINT_FOLLOW_WINDOWS consecutive windows of
 * WGX_ENDPOINT_FOLLOW_WINDOW jiffies.  A wgx peer moves its endpoint for us
 * to another port of ours only when the one it sends to has been silent
 * for 2 s, and back at our next keepalive from the listen port: a few moves,
 * each of which messages in flight to the old port, finished on other
 * CPUs, can make count a few times.  WireGuard moves it whenever our
 * packets come from another port, tens to thousands of times a second
 * under load, for as long as the load lasts.
 */
#define WGX_ENDPOINT_FOLLOW_MOVES	16
#define WGX_ENDPOINT_FOLLOW_WINDOWS	2
#define WGX_ENDPOINT_FOLLOW_WINDOW	HZ

/**
 * struct wgx_endpoint_local - which of our ports a peer's authenticated
 * messages arrive at, to tell a peer that follows our source port.
 * @window: when (the low 32 bits of jiffies) the current window began.
 * @port: our port its last message arrived at (network order).
 * @moves: changes of @port within @window (saturating).
 * @hopping: consecutive windows before @window with more than
 *           WGX_ENDPOINT_FOLLOW_MOVES changes.  WGX_ENDPOINT_FOLLOW_WINDOWS
 *           of them: the peer follows our source port (it sets its endpoint
 *           from each packet, as WireGuard does), and stops counting; reset
 *           when its endpoint moves to another host (netlink or roaming).
 * Lockless: racing writers only blur the count.
 */
struct wgx_endpoint_local {
	u32 window;
	__be16 port;
	u8 moves;
	u8 hopping;
};

/**
 * wgx_endpoint_from_skb - fill @endpoint from a received UDP @skb:
 * the sender as the address, our destination address as the source.
 * Returns 0 or -EINVAL for a packet that is neither IPv4 nor IPv6.
 */
int wgx_endpoint_from_skb(struct wgx_endpoint *endpoint, const struct sk_buff *skb);

/**
 * wgx_endpoint_same_dest - whether @a and @b name the same remote address
 * (family, address, IPv6 scope) and port: the same outer route.  Our source
 * address is not compared.  The caller keeps both stable.
 */
bool wgx_endpoint_same_dest(const struct wgx_endpoint *a, const struct wgx_endpoint *b);

/**
 * wgx_endpoint_set - make @endpoint @peer's endpoint (a configured
 * endpoint), its port heard now.
 * Context: any; takes endpoint_lock.
 */
void wgx_endpoint_set(struct wgx_peer *peer, const struct wgx_endpoint *endpoint);
/**
 * wgx_endpoint_set_from_skb - roaming (whitepaper 6.5): the sender of the
 * authenticated message @skb becomes @peer's endpoint when it is at another
 * address (or reached another of our addresses), or at another source port
 * of the same address once the endpoint's port has been silent for
 * WGX_PORT_STALE, and still is WGX_PORT_GRACE later (struct
 * wgx_endpoint_heard).  The common case costs a lockless compare and no
 * write, or one write per WGX_PORT_TOUCH.
 * @first_port: @skb is a message a wgx sender sends from its first listen
 * port only (handshake messages, keepalives; WireGuard sends everything
 * from its one port): its source port becomes the endpoint's at once, so a
 * sender that closed the port we were replying to, or whose NAT mapping
 * changed, is followed at its next keepalive.  Context: any (softirq on
 * receive).
 */
void wgx_endpoint_set_from_skb(struct wgx_peer *peer, const struct sk_buff *skb, bool first_port);

/**
 * wgx_endpoint_follows - whether a peer's messages followed our source port
 * (@local: its struct wgx_endpoint_local): automatic listen ports send to it from the
 * listen port only (wgx_ports_flow_port()), since our flows spread over
 * several ports would make its own traffic to us hop between them, and a
 * receiver that steers by the outer ports (RSS) would take one of its
 * inner flows on several CPUs and reorder it.  Lockless; inline, for the
 * listen ports below the endpoint (ports.c).
 */
static inline bool wgx_endpoint_follows(const struct wgx_endpoint_local *local)
{
	return READ_ONCE(local->hopping) >= WGX_ENDPOINT_FOLLOW_WINDOWS;
}

/**
 * wgx_endpoint_clear_src - forget our source address for @peer (e.g. after
 * the route changed) and release its cached routes.  Process or softirq
 * context; takes endpoint_lock.
 */
void wgx_endpoint_clear_src(struct wgx_peer *peer);

#endif /* WGX_ENDPOINT_H */
