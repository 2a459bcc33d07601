// SPDX-License-Identifier: GPL-2.0
/*
 * endpoint.c - where a peer is: its endpoint from a received packet, the
 * configured one, roaming (whitepaper 6.5) that sticks to the endpoint's
 * port while it is heard (endpoint.h), and forgetting our source address.
 *
 * Locking: a peer's endpoint is guarded by its endpoint_lock (rwlock,
 * BH-safe).  The receive path compares the endpoint without the lock (a
 * torn read at worst delays one roaming step to the next packet) and
 * writes only when it changes.  Every change of the endpoint makes the
 * peer's cached routes stale (socket.c).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/udp.h>
#include <net/addrconf.h>

#include "device.h"
#include "endpoint.h"
#include "peer.h"
#include "pmtu.h"
#include "ports.h"
#include "socket.h"

/* Refresh the endpoint port's timestamp at most this often (jiffies). */
#define WGX_PORT_TOUCH	(HZ / 4)
/* The endpoint's port silent for this long lets another port take over (jiffies). */
#define WGX_PORT_STALE	(2 * HZ)
/*
 * ... once it is still silent this long after the other port's first packet
 * (jiffies): a spreading wgx sender back from an idle period sends its
 * first port's keepalive right after its first data (ports.h).
 */
#define WGX_PORT_GRACE	(HZ / 4)

int wgx_endpoint_from_skb(struct wgx_endpoint *endpoint, const struct sk_buff *skb)
{
	memset(endpoint, 0, sizeof(*endpoint));
	if (skb->protocol == htons(ETH_P_IP)) {
		endpoint->addr4.sin_family = AF_INET;
		endpoint->addr4.sin_port = udp_hdr(skb)->source;
		endpoint->addr4.sin_addr.s_addr = ip_hdr(skb)->saddr;
		endpoint->src4.s_addr = ip_hdr(skb)->daddr;
		endpoint->src_if4 = skb->skb_iif;
	} else if (IS_ENABLED(CONFIG_IPV6) && skb->protocol == htons(ETH_P_IPV6)) {
		endpoint->addr6.sin6_family = AF_INET6;
		endpoint->addr6.sin6_port = udp_hdr(skb)->source;
		endpoint->addr6.sin6_addr = ipv6_hdr(skb)->saddr;
		endpoint->addr6.sin6_scope_id = ipv6_iface_scope_id(&ipv6_hdr(skb)->saddr,
								    skb->skb_iif);
		endpoint->src6 = ipv6_hdr(skb)->daddr;
	} else {
		return -EINVAL;
	}
	return 0;
}

/* Same address, family and our source address; ports not compared. */
static bool wgx_endpoint_same_host(const struct wgx_endpoint *a, const struct wgx_endpoint *b)
{
	if (a->addr.sa_family != b->addr.sa_family)
		return false;
	if (a->addr.sa_family == AF_INET)
		return a->addr4.sin_addr.s_addr == b->addr4.sin_addr.s_addr &&
		       a->src4.s_addr == b->src4.s_addr && a->src_if4 == b->src_if4;
	if (a->addr.sa_family == AF_INET6)
		return ipv6_addr_equal(&a->addr6.sin6_addr, &b->addr6.sin6_addr) &&
		       a->addr6.sin6_scope_id == b->addr6.sin6_scope_id &&
		       ipv6_addr_equal(&a->src6, &b->src6);
	return true;
}

/*
 * Same remote address (family, address, IPv6 scope): the same path for the
 * RTT figures (telemetry.h).  Our source address is not compared: an endpoint
 * set over netlink has none, and the next packet fills it in.
 */
static bool wgx_endpoint_same_remote(const struct wgx_endpoint *a, const struct wgx_endpoint *b)
{
	if (a->addr.sa_family != b->addr.sa_family)
		return false;
	if (a->addr.sa_family == AF_INET)
		return a->addr4.sin_addr.s_addr == b->addr4.sin_addr.s_addr;
	if (a->addr.sa_family == AF_INET6)
		return ipv6_addr_equal(&a->addr6.sin6_addr, &b->addr6.sin6_addr) &&
		       a->addr6.sin6_scope_id == b->addr6.sin6_scope_id;
	return true;
}

/* The source port of an endpoint (network order); 0 for none. */
static __be16 wgx_endpoint_port(const struct wgx_endpoint *e)
{
	return e->addr.sa_family == AF_INET ? e->addr4.sin_port :
	       e->addr.sa_family == AF_INET6 ? e->addr6.sin6_port : 0;
}

bool wgx_endpoint_same_dest(const struct wgx_endpoint *a, const struct wgx_endpoint *b)
{
	return wgx_endpoint_same_remote(a, b) && wgx_endpoint_port(a) == wgx_endpoint_port(b);
}

/* Jiffies since the endpoint's port was last heard, modulo 2^32 (struct wgx_endpoint_heard). */
static u32 wgx_endpoint_heard_age(const struct wgx_endpoint_heard *heard, unsigned long now)
{
	return (u32)now - READ_ONCE(heard->seen);
}

/*
 * Note a message from the endpoint's port: a write at most every
 * WGX_PORT_TOUCH, and one to forget another port's data noted meanwhile.
 */
static void wgx_endpoint_heard_touch(struct wgx_endpoint_heard *heard, unsigned long now)
{
	if (unlikely(wgx_endpoint_heard_age(heard, now) >= WGX_PORT_TOUCH))
		WRITE_ONCE(heard->seen, (u32)now);
	if (unlikely(READ_ONCE(heard->other)))
		WRITE_ONCE(heard->other, 0);
}

/* The endpoint's port is now @port, heard at @now (endpoint_lock held for writing). */
static void wgx_endpoint_heard_reset(struct wgx_endpoint_heard *heard, __be16 port, unsigned long now)
{
	WRITE_ONCE(heard->port, port);
	WRITE_ONCE(heard->seen, (u32)now);
	WRITE_ONCE(heard->other, 0);
}

/*
 * Copy @endpoint into the peer, its port heard at @now (endpoint_lock held
 * for writing).
 */
static void wgx_endpoint_store(struct wgx_peer *peer, const struct wgx_endpoint *endpoint,
			       unsigned long now)
{
	if (endpoint->addr.sa_family == AF_INET) {
		peer->endpoint.addr4 = endpoint->addr4;
		peer->endpoint.src4 = endpoint->src4;
		peer->endpoint.src_if4 = endpoint->src_if4;
	} else {
		peer->endpoint.addr6 = endpoint->addr6;
		peer->endpoint.src6 = endpoint->src6;
	}
	wgx_endpoint_heard_reset(&peer->endpoint_heard, wgx_endpoint_port(endpoint), now);
	wgx_ports_peer_caches_reset(peer, false);
}

/* Forget what the peer's messages told of our ports (endpoint_lock held for writing). */
static void wgx_endpoint_local_reset(struct wgx_endpoint_local *local)
{
	WRITE_ONCE(local->port, 0);
	WRITE_ONCE(local->moves, 0);
	WRITE_ONCE(local->hopping, 0);
}

/*
 * Note the port of ours an authenticated message from @peer arrived at: a
 * compare per message, a few writes per change of port.
 */
static void wgx_endpoint_local_note(struct wgx_peer *peer, const struct sk_buff *skb,
				    unsigned long now)
{
	struct wgx_endpoint_local *local = &peer->endpoint_local;
	__be16 port = udp_hdr(skb)->dest;
	u32 age;
	u8 moves, hopping;

	if (likely(READ_ONCE(local->port) == port) ||
	    wgx_endpoint_follows(local))
		return;
	WRITE_ONCE(local->port, port);
	moves = READ_ONCE(local->moves);
	age = (u32)now - READ_ONCE(local->window);
	if (age < WGX_ENDPOINT_FOLLOW_WINDOW) {
		if (moves < U8_MAX)
			WRITE_ONCE(local->moves, moves + 1);
		return;
	}
	/* A new window; the one that just ended counts if it hopped. */
	hopping = READ_ONCE(local->hopping);
	hopping = moves > WGX_ENDPOINT_FOLLOW_MOVES && age < 2 * WGX_ENDPOINT_FOLLOW_WINDOW ?
		  hopping + 1 : 0;
	WRITE_ONCE(local->window, (u32)now);
	WRITE_ONCE(local->moves, 1);
	WRITE_ONCE(local->hopping, hopping);
	if (hopping >= WGX_ENDPOINT_FOLLOW_WINDOWS)
		net_dbg_ratelimited("%s: peer %llu follows our source port: sending to it from the listen port\n",
				    peer->wgx->dev->name, peer->internal_id);
}

void wgx_endpoint_set(struct wgx_peer *peer, const struct wgx_endpoint *endpoint)
{
	if (endpoint->addr.sa_family != AF_INET && endpoint->addr.sa_family != AF_INET6)
		return;
	write_lock_bh(&peer->endpoint_lock);
	if (!wgx_endpoint_same_remote(endpoint, &peer->endpoint)) {
		wgx_telemetry_endpoint_moved(&peer->telemetry);
		wgx_pmtu_reset(&peer->pmtu);
		/* Another host; the same one set again (syncconf) stays as it is. */
		wgx_endpoint_local_reset(&peer->endpoint_local);
	}
	wgx_endpoint_store(peer, endpoint, jiffies);
	WRITE_ONCE(peer->endpoint_given, true);
	write_unlock_bh(&peer->endpoint_lock);
}

/* What a received packet means for the endpoint. */
enum wgx_roam {
	WGX_ROAM_NONE,		/* the endpoint, or another port while it is heard */
	WGX_ROAM_PORT,		/* same host, another port: first port, or endpoint silent */
	WGX_ROAM_HOST,		/* another address, family or local address */
};

static enum wgx_roam wgx_endpoint_classify(struct wgx_peer *peer, const struct wgx_endpoint *endpoint,
					   unsigned long now, bool touch, bool first_port)
{
	struct wgx_endpoint_heard *heard = &peer->endpoint_heard;
	__be16 port = wgx_endpoint_port(endpoint);
	u32 other;

	if (!wgx_endpoint_same_host(endpoint, &peer->endpoint))
		return WGX_ROAM_HOST;
	if (likely(READ_ONCE(heard->port) == port && port == wgx_endpoint_port(&peer->endpoint))) {
		if (touch)
			wgx_endpoint_heard_touch(heard, now);
		return WGX_ROAM_NONE;
	}
	/* The sender's first port: where it surely listens. */
	if (first_port)
		return WGX_ROAM_PORT;
	/*
	 * Transport data from another port of the same host: a sender that
	 * spreads its flows over its ports (wgx), or one whose NAT mapping or
	 * listen port changed.  Followed only once the endpoint's port has
	 * been silent for WGX_PORT_STALE: a move re-steers every outer flow
	 * we send the peer (another CPU at each hop and at its end), and the
	 * packets still queued on the old CPUs get overtaken.  A wgx sender
	 * keeps its first port heard while it spreads (send.c), and after an
	 * idle period its keepalive follows its first data: WGX_PORT_GRACE.
	 */
	BUILD_BUG_ON(3 * WGX_PORTS_HEARTBEAT > WGX_PORT_STALE);
	if (wgx_endpoint_heard_age(heard, now) < WGX_PORT_STALE)
		return WGX_ROAM_NONE;
	other = READ_ONCE(heard->other);
	if (!other) {
		if (touch)
			WRITE_ONCE(heard->other, (u32)now | 1);
		return WGX_ROAM_NONE;
	}
	if ((u32)now - (other & ~1U) < WGX_PORT_GRACE)
		return WGX_ROAM_NONE;
	return WGX_ROAM_PORT;
}

void wgx_endpoint_set_from_skb(struct wgx_peer *peer, const struct sk_buff *skb, bool first_port)
{
	struct wgx_endpoint endpoint;
	unsigned long now = jiffies;
	enum wgx_roam roam;

	if (unlikely(wgx_endpoint_from_skb(&endpoint, skb)))
		return;
	wgx_endpoint_local_note(peer, skb, now);
	/* Lockless first: roaming is rare, every packet asks. */
	if (likely(data_race(wgx_endpoint_classify(peer, &endpoint, now, true, first_port)) ==
		   WGX_ROAM_NONE))
		return;

	write_lock_bh(&peer->endpoint_lock);
	roam = wgx_endpoint_classify(peer, &endpoint, now, false, first_port);
	/* Another remote host is another path (telemetry.h). */
	if (roam == WGX_ROAM_HOST && !wgx_endpoint_same_remote(&endpoint, &peer->endpoint)) {
		wgx_telemetry_endpoint_moved(&peer->telemetry);
		wgx_pmtu_reset(&peer->pmtu);
		/* Learned: perhaps a NAT's address (peer.h). */
		WRITE_ONCE(peer->endpoint_given, false);
		wgx_endpoint_local_reset(&peer->endpoint_local);
	}
	if (roam != WGX_ROAM_NONE)
		wgx_endpoint_store(peer, &endpoint, now);
	write_unlock_bh(&peer->endpoint_lock);
}

void wgx_endpoint_clear_src(struct wgx_peer *peer)
{
	write_lock_bh(&peer->endpoint_lock);
	memset(&peer->endpoint.src6, 0, sizeof(peer->endpoint.src6));
	wgx_ports_peer_caches_reset(peer, true);
	write_unlock_bh(&peer->endpoint_lock);
}
