// SPDX-License-Identifier: GPL-2.0
/*
 * pmtu.c - per-peer outer path MTU: ICMP validation (the encapsulation
 * sockets' encap_err_lookup), the blackhole state machine, and the inner
 * packet check of the transmit path.  See pmtu.h.
 */
#include <linux/hashtable.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/icmp.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/sock.h>
#include <uapi/linux/wgx.h>

#include "compat.h"
#include "device.h"
#include "peer.h"
#include "pmtu.h"
#include "clock.h"

/* Outer IP + UDP header bytes of a family. */
static u32 wgx_pmtu_ip_udp_len(int family)
{
	return (family == AF_INET6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
	       sizeof(struct udphdr);
}

enum wgx_pmtu_icmp_verdict wgx_pmtu_icmp_check(int family, u32 mtu, u32 quoted_len, const u8 *msg)
{
	if (mtu < (family == AF_INET6 ? WGX_PMTU_FLOOR6 : WGX_PMTU_FLOOR4))
		return WGX_PMTU_ICMP_BELOW_FLOOR;
	/* A router complains only about a packet it could not forward. */
	if (quoted_len <= mtu)
		return WGX_PMTU_ICMP_FITS;
	/* Message type 1..4, three reserved zero bytes (whitepaper 5.4). */
	if (msg && (msg[0] < 1 || msg[0] > 4 || msg[1] || msg[2] || msg[3]))
		return WGX_PMTU_ICMP_NOT_WIREGUARD;
	return WGX_PMTU_ICMP_ACCEPT;
}

static bool wgx_pmtu_icmp_budget(unsigned long now)
{
	static unsigned long window;
	static atomic_t left;

	if (time_after_eq(now, READ_ONCE(window) + HZ)) {
		WRITE_ONCE(window, now);
		atomic_set(&left, WGX_PMTU_ICMP_PER_S);
	}
	return atomic_dec_return(&left) >= 0;
}

/* Whether the quoted packet (addresses @skb's, ports @uh's) went to @peer's endpoint. */
static bool wgx_pmtu_is_endpoint(struct wgx_peer *peer, int family, const struct sk_buff *skb,
				 const struct udphdr *uh)
{
	const struct wgx_endpoint *e = &peer->endpoint;
	bool match = false;

	read_lock_bh(&peer->endpoint_lock);
	if (family == AF_INET && e->addr.sa_family == AF_INET)
		match = e->addr4.sin_addr.s_addr == ip_hdr(skb)->daddr &&
			e->addr4.sin_port == uh->dest &&
			(!e->src4.s_addr || e->src4.s_addr == ip_hdr(skb)->saddr);
	else if (family == AF_INET6 && e->addr.sa_family == AF_INET6)
		match = ipv6_addr_equal(&e->addr6.sin6_addr, &ipv6_hdr(skb)->daddr) &&
			e->addr6.sin6_port == uh->dest &&
			(ipv6_addr_any(&e->src6) || ipv6_addr_equal(&e->src6, &ipv6_hdr(skb)->saddr));
	read_unlock_bh(&peer->endpoint_lock);
	return match;
}

int wgx_pmtu_icmp_lookup(struct sock *sk, struct sk_buff *skb)
{
	struct wgx_device *wgx = rcu_dereference_sk_user_data(sk);
	unsigned int udp_off = skb_transport_offset(skb);
	enum wgx_pmtu_icmp_verdict verdict;
	int family = sk->sk_family;
	const struct udphdr *uh;
	struct wgx_peer *peer;
	unsigned long now = jiffies;
	u32 mtu, quoted_len;
	const u8 *msg;
	u8 buf[4];
	int bkt;

	if (unlikely(!wgx))
		return 0;
	/* The ICMP header lies right before the quoted packet, pulled already. */
	if (family == AF_INET) {
		const struct icmphdr *ih = (const void *)(skb_network_header(skb) - sizeof(*ih));

		if (ih->type != ICMP_DEST_UNREACH || ih->code != ICMP_FRAG_NEEDED)
			return 0;
		mtu = ntohs(ih->un.frag.mtu);
		quoted_len = ntohs(ip_hdr(skb)->tot_len);
	} else if (family == AF_INET6) {
		const struct icmp6hdr *ih = (const void *)(skb_network_header(skb) - sizeof(*ih));

		if (ih->icmp6_type != ICMPV6_PKT_TOOBIG)
			return 0;
		mtu = ntohl(ih->icmp6_mtu);
		quoted_len = ntohs(ipv6_hdr(skb)->payload_len) + sizeof(struct ipv6hdr);
	} else {
		return 0;
	}
	uh = udp_hdr(skb);
	msg = skb_header_pointer(skb, udp_off + sizeof(*uh), sizeof(buf), buf);
	verdict = wgx_pmtu_icmp_check(family, mtu, quoted_len, msg);
	if (verdict == WGX_PMTU_ICMP_ACCEPT && !wgx_pmtu_icmp_budget(now))
		verdict = WGX_PMTU_ICMP_FLOOD;
	if (verdict != WGX_PMTU_ICMP_ACCEPT)
		goto refuse;
	/* A bucket scan under the budget: ICMP is rare, peers by endpoint have no table. */
	hash_for_each_rcu(wgx->peer_hashtable->hashtable, bkt, peer, pubkey_hash) {
		if (!wgx_pmtu_is_endpoint(peer, family, skb, uh))
			continue;
		if (!wgx_pmtu_learn(&peer->pmtu, mtu, now)) {
			verdict = WGX_PMTU_ICMP_FIXED;
			goto refuse;
		}
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_PMTU_ICMP);
		return 0;
	}
	verdict = WGX_PMTU_ICMP_NO_PEER;
refuse:
	wgx_device_stats_inc(wgx, WGX_DEVICE_STAT_PMTU_ICMP_IGNORED);
	net_dbg_ratelimited("%s: ICMP path MTU %u ignored (reason %d)\n", wgx->dev->name, mtu,
			    verdict);
	return 1;
}

u32 wgx_pmtu_route_mtu(const struct dst_entry *dst)
{
	u32 mtu = 0;

	/* IPv4 keeps exceptions apart (rt_pmtu); an IPv6 exception is a clone (RTF_CACHE). */
	if (dst->ops->family == AF_INET ||
	    (dst->ops->family == AF_INET6 && !(((const struct rt6_info *)dst)->rt6i_flags & RTF_CACHE)))
		mtu = dst_metric_raw(dst, RTAX_MTU);
	return mtu ?: READ_ONCE(dst->dev->mtu);
}

void wgx_pmtu_sock_init(struct sock *sk)
{
	if (sk->sk_family == AF_INET)
		ip_sock_set_mtu_discover(sk, IP_PMTUDISC_INTERFACE);
#if IS_ENABLED(CONFIG_IPV6)
	else if (sk->sk_family == AF_INET6)
		inet6_sk(sk)->pmtudisc = IPV6_PMTUDISC_INTERFACE;
#endif
}

/* WGX_PMTU_RAISE, divided by the test-only timer_scale (clock.h). */
#define WGX_PMTU_RAISE_SCALED	(WGX_PMTU_RAISE / wgx_timer_scale)

/* The ICMP-learned MTU while it is fresh, else 0. */
static u32 wgx_pmtu_icmp(const struct wgx_pmtu *p, unsigned long now)
{
	u32 icmp = READ_ONCE(p->icmp);

	if (icmp && time_after(now, READ_ONCE(p->icmp_at) + WGX_PMTU_RAISE_SCALED))
		return 0;
	return icmp;
}

/* The outer MTU and its source (enum wgx_path_mtu_source). */
static u32 wgx_pmtu_current(const struct wgx_pmtu *p, int family, unsigned long now, u8 *source)
{
	u32 mtu = READ_ONCE(p->route), icmp = wgx_pmtu_icmp(p, now), fixed = wgx_pmtu_fixed(p);
	u8 state = READ_ONCE(p->state);

	if (fixed) {
		if (family != AF_INET && family != AF_INET6) {
			*source = WGX_PATH_MTU_SOURCE_NONE;
			return 0;
		}
		*source = WGX_PATH_MTU_SOURCE_FIXED;
		return fixed + wgx_pmtu_ip_udp_len(family) + WGX_PMTU_MSG_OVERHEAD;
	}
	*source = mtu ? WGX_PATH_MTU_SOURCE_ROUTE : WGX_PATH_MTU_SOURCE_NONE;
	if (icmp && (!mtu || icmp < mtu)) {
		mtu = icmp;
		*source = WGX_PATH_MTU_SOURCE_ICMP;
	}
	if (state == WGX_PMTU_LOWERED && (!mtu || WGX_PMTU_BASE < mtu)) {
		mtu = WGX_PMTU_BASE;
		*source = WGX_PATH_MTU_SOURCE_PROBE;
	}
	if (state == WGX_PMTU_FRAGMENTING)
		*source = WGX_PATH_MTU_SOURCE_FRAGMENTING;
	return mtu;
}

u32 wgx_pmtu_outer(const struct wgx_pmtu *p, int family, unsigned long now)
{
	u8 source;

	return wgx_pmtu_current(p, family, now, &source);
}

u8 wgx_pmtu_source(const struct wgx_pmtu *p, int family, unsigned long now)
{
	u8 source;

	wgx_pmtu_current(p, family, now, &source);
	return source;
}

static void wgx_pmtu_enter(struct wgx_pmtu *p, u8 state, unsigned long now)
{
	WRITE_ONCE(p->state, state);
	WRITE_ONCE(p->state_at, now);
	WRITE_ONCE(p->big_at, 0);
	WRITE_ONCE(p->fast, 0);
}

/* How long the peer may be silent after a packet that probes (jiffies); see pmtu.h. */
static unsigned long wgx_pmtu_silence(const struct wgx_pmtu *p)
{
	unsigned long gap = READ_ONCE(p->rx_gap);

	return gap && gap <= WGX_PMTU_PROMPT ? WGX_PMTU_SILENCE_FAST : WGX_PMTU_SILENCE;
}

/* The pending probes (@state's) went unanswered for the silence at @now: the next state. */
static bool wgx_pmtu_overdue(struct wgx_pmtu *p, u8 state, unsigned long now)
{
	unsigned long big_at = READ_ONCE(p->big_at), silence = wgx_pmtu_silence(p);

	if (!big_at || time_after_eq(READ_ONCE(p->rx_at), big_at) ||
	    time_before(now, big_at + silence))
		return false;
	wgx_pmtu_enter(p, state == WGX_PMTU_DF ? WGX_PMTU_LOWERED : WGX_PMTU_FRAGMENTING, now);
	if (state == WGX_PMTU_DF && silence == WGX_PMTU_SILENCE_FAST)
		WRITE_ONCE(p->fast, 1);
	return true;
}

void wgx_pmtu_confirm(struct wgx_pmtu *p, bool keepalive, unsigned long now)
{
	if (keepalive && READ_ONCE(p->state) == WGX_PMTU_LOWERED)
		wgx_pmtu_enter(p, WGX_PMTU_DF, now);
	WRITE_ONCE(p->fast, 0);
}

bool wgx_pmtu_poll(struct wgx_pmtu *p, unsigned long now)
{
	u8 state = READ_ONCE(p->state);

	if (wgx_pmtu_fixed(p) || state == WGX_PMTU_FRAGMENTING)
		return false;
	return wgx_pmtu_overdue(p, state, now);
}

bool wgx_pmtu_sent(struct wgx_pmtu *p, u32 outer_len, u32 route_mtu, bool df, unsigned long now)
{
	u8 state = READ_ONCE(p->state);
	unsigned long big_at;

	route_mtu = min_t(u32, route_mtu, U16_MAX);
	if (route_mtu && READ_ONCE(p->route) != route_mtu)
		WRITE_ONCE(p->route, route_mtu);
	if (state != WGX_PMTU_DF && time_after(now, READ_ONCE(p->state_at) + WGX_PMTU_RAISE_SCALED)) {
		state = WGX_PMTU_DF;
		wgx_pmtu_enter(p, state, now);
	}
	/* Only DF packets probe; in DF state only those above the base size; never when fixed. */
	if (!df || wgx_pmtu_fixed(p) || state == WGX_PMTU_FRAGMENTING ||
	    (state == WGX_PMTU_DF && outer_len <= WGX_PMTU_BASE))
		return false;
	big_at = READ_ONCE(p->big_at);
	/* Nothing pending, or the peer was heard since: a new window starts. */
	if (!big_at || time_after_eq(READ_ONCE(p->rx_at), big_at)) {
		WRITE_ONCE(p->big_at, now ?: 1);
		return false;
	}
	return wgx_pmtu_overdue(p, state, now);
}

bool wgx_pmtu_learn(struct wgx_pmtu *p, u32 mtu, unsigned long now)
{
	u32 icmp = wgx_pmtu_icmp(p, now);

	if (wgx_pmtu_fixed(p))
		return false;
	/* The path answered: what was lost so far is explained, the silence starts again. */
	WRITE_ONCE(p->big_at, 0);
	if (icmp && mtu >= icmp)
		return true;
	WRITE_ONCE(p->icmp, min_t(u32, mtu, U16_MAX));
	WRITE_ONCE(p->icmp_at, now);
	return true;
}

void wgx_pmtu_reset(struct wgx_pmtu *p)
{
	WRITE_ONCE(p->route, 0);
	WRITE_ONCE(p->icmp, 0);
	wgx_pmtu_enter(p, WGX_PMTU_DF, jiffies);
}

void wgx_pmtu_set_fixed(struct wgx_pmtu *p, u32 mtu)
{
	if (READ_ONCE(p->fixed) == mtu)
		return;
	WRITE_ONCE(p->fixed, mtu);
	WRITE_ONCE(p->icmp, 0);
	wgx_pmtu_enter(p, WGX_PMTU_DF, jiffies);
}

bool wgx_pmtu_check_inner(struct wgx_peer *peer, struct sk_buff *skb, u32 *mtu, bool *frag)
{
	int family = READ_ONCE(peer->endpoint.addr.sa_family);
	unsigned long now = jiffies;
	u32 outer, overhead, inner;
	bool fits;

	if (unlikely(wgx_pmtu_poll(&peer->pmtu, now)))
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_PMTU_BLACKHOLES);
	outer = wgx_pmtu_outer(&peer->pmtu, family, now);

	overhead = wgx_pmtu_ip_udp_len(family) + WGX_PMTU_MSG_OVERHEAD;
	if (!outer || outer <= overhead)
		return true;
	inner = outer - overhead;
	if (inner >= *mtu)
		return true;
	*mtu = inner;
	fits = skb_is_gso(skb) ? skb_gso_validate_network_len(skb, inner) : skb->len <= inner;
	if (fits)
		return true;
	if (skb->protocol == htons(ETH_P_IP)) {
		if (!(ip_hdr(skb)->frag_off & htons(IP_DF))) {
			*frag = true;
			return true;
		}
		skb_dst_update_pmtu_no_confirm(skb, inner);
		icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, htonl(inner));
		return false;
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		/* IPv6 links carry 1280 bytes (RFC 8200 5): below that the underlay fragments. */
		if (inner < IPV6_MIN_MTU) {
			*mtu = IPV6_MIN_MTU;
			*frag = true;
			return true;
		}
		skb_dst_update_pmtu_no_confirm(skb, inner);
		icmpv6_ndo_send(skb, ICMPV6_PKT_TOOBIG, 0, inner);
		return false;
	}
	return true;
}
