// SPDX-License-Identifier: GPL-2.0
/*
 * netlink_get.c - GET_DEVICE of the generic netlink families (netlink.c): a
 * dump of one device's configuration, peers, allowed IPs and counters, as
 * include/uapi/linux/wgx.h specifies it.  The "wireguard" family (drop-in
 * mode) sends the same tree without wgx's extension attributes (the
 * counters, LISTEN_PORTS, RX_SPREAD), which is exactly WireGuard's.  A "wgx"
 * request may ask for its tree without the counters (WGX_GET_F_NO_STATS).
 *
 * Dumps resume exactly: the context remembers the next peer (with a
 * reference) and a cursor at its next allowed IP, so a peer whose allowed IPs
 * do not fit continues in the next message, in O(1) per message however many
 * it has (the kernel selftest's 130,560 on one peer take over a hundred
 * messages; re-walking the peer's list from its start for each would be
 * quadratic, under device_update_lock).  A change of the peer list or of the allowed IPs
 * between two messages marks the first message built after it NLM_F_DUMP_INTR
 * (nl_dump_check_consistent()); the reader starts over, and the cursor goes on
 * by position instead.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/time_types.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include <uapi/linux/wgx.h>
#include <wgx/core.h>

#include "compat.h"
#include "device.h"
#include "socket.h"
#include "netlink_internal.h"
#include "peer.h"

/* ---- counters: uapi attribute <-> kernel counter ---- */

static const struct {
	u16 attr;
	u16 stat;
} wgx_nl_peer_stats[] = {
	{ WGX_PEER_STATS_A_RX_PACKETS, WGX_PEER_STAT_RX_PACKETS },
	{ WGX_PEER_STATS_A_TX_PACKETS, WGX_PEER_STAT_TX_PACKETS },
	{ WGX_PEER_STATS_A_RX_DROP_AUTH, WGX_PEER_STAT_RX_DROP_AUTH },
	{ WGX_PEER_STATS_A_RX_DROP_REPLAY, WGX_PEER_STAT_RX_DROP_REPLAY },
	{ WGX_PEER_STATS_A_RX_DROP_ALLOWEDIPS, WGX_PEER_STAT_RX_DROP_ALLOWEDIPS },
	{ WGX_PEER_STATS_A_RX_DROP_NO_KEYPAIR, WGX_PEER_STAT_RX_DROP_NO_KEYPAIR },
	{ WGX_PEER_STATS_A_RX_DROP_MALFORMED, WGX_PEER_STAT_RX_DROP_MALFORMED },
	{ WGX_PEER_STATS_A_TX_DROP_STAGED_OVERFLOW, WGX_PEER_STAT_TX_DROP_STAGED_OVERFLOW },
	{ WGX_PEER_STATS_A_TX_DROP_NO_ENDPOINT, WGX_PEER_STAT_TX_DROP_NO_ENDPOINT },
	{ WGX_PEER_STATS_A_TX_DROP_ERROR, WGX_PEER_STAT_TX_DROP_ERROR },
	{ WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_TX, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_TX },
	{ WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_RX, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_RX },
	{ WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_TX, WGX_PEER_STAT_HANDSHAKE_RESPONSES_TX },
	{ WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_RX, WGX_PEER_STAT_HANDSHAKE_RESPONSES_RX },
	{ WGX_PEER_STATS_A_COOKIE_REPLIES_RX, WGX_PEER_STAT_COOKIE_REPLIES_RX },
	{ WGX_PEER_STATS_A_HANDSHAKES_COMPLETED, WGX_PEER_STAT_HANDSHAKES_COMPLETED },
	{ WGX_PEER_STATS_A_HANDSHAKE_TIMEOUTS, WGX_PEER_STAT_HANDSHAKE_TIMEOUTS },
	{ WGX_PEER_STATS_A_HANDSHAKE_DROP_INVALID, WGX_PEER_STAT_HANDSHAKE_DROP_INVALID },
	{ WGX_PEER_STATS_A_KEEPALIVES_TX, WGX_PEER_STAT_KEEPALIVES_TX },
	{ WGX_PEER_STATS_A_KEEPALIVES_RX, WGX_PEER_STAT_KEEPALIVES_RX },
	{ WGX_PEER_STATS_A_RX_LOST, WGX_PEER_STAT_RX_LOST },
	{ WGX_PEER_STATS_A_RX_REORDERED, WGX_PEER_STAT_RX_REORDERED },
	{ WGX_PEER_STATS_A_HANDSHAKES_PACED, WGX_PEER_STAT_HANDSHAKES_PACED },
	{ WGX_PEER_STATS_A_HANDSHAKES_PREVIOUS_KEY, WGX_PEER_STAT_HANDSHAKES_PREVIOUS_KEY },
	{ WGX_PEER_STATS_A_PMTU_ICMP, WGX_PEER_STAT_PMTU_ICMP },
	{ WGX_PEER_STATS_A_TX_DROP_TOO_BIG, WGX_PEER_STAT_TX_DROP_TOO_BIG },
	{ WGX_PEER_STATS_A_PMTU_BLACKHOLES, WGX_PEER_STAT_PMTU_BLACKHOLES },
};

static const struct {
	u16 attr;
	u16 stat;
} wgx_nl_device_stats[] = {
	{ WGX_DEVICE_STATS_A_RX_HANDSHAKE_PACKETS, WGX_DEVICE_STAT_RX_HANDSHAKE_PACKETS },
	{ WGX_DEVICE_STATS_A_RX_DROP_MALFORMED, WGX_DEVICE_STAT_RX_DROP_MALFORMED },
	{ WGX_DEVICE_STATS_A_RX_DROP_MAC1, WGX_DEVICE_STAT_RX_DROP_MAC1 },
	{ WGX_DEVICE_STATS_A_RX_DROP_MAC2, WGX_DEVICE_STAT_RX_DROP_MAC2 },
	{ WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_PEER, WGX_DEVICE_STAT_RX_DROP_UNKNOWN_PEER },
	{ WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_INDEX, WGX_DEVICE_STAT_RX_DROP_UNKNOWN_INDEX },
	{ WGX_DEVICE_STATS_A_RX_DROP_RATELIMITED, WGX_DEVICE_STAT_RX_DROP_RATELIMITED },
	{ WGX_DEVICE_STATS_A_RX_DROP_HANDSHAKE_QUEUE, WGX_DEVICE_STAT_RX_DROP_HANDSHAKE_QUEUE },
	{ WGX_DEVICE_STATS_A_COOKIE_REPLIES_TX, WGX_DEVICE_STAT_COOKIE_REPLIES_TX },
	{ WGX_DEVICE_STATS_A_TX_DROP_NO_PEER, WGX_DEVICE_STAT_TX_DROP_NO_PEER },
	{ WGX_DEVICE_STATS_A_UNDER_LOAD_ENTERED, WGX_DEVICE_STAT_UNDER_LOAD_ENTERED },
	{ WGX_DEVICE_STATS_A_HANDSHAKES_PACED, WGX_DEVICE_STAT_HANDSHAKES_PACED },
	{ WGX_DEVICE_STATS_A_TX_LANE, WGX_DEVICE_STAT_TX_LANE },
	{ WGX_DEVICE_STATS_A_TX_LANE_INLINE, WGX_DEVICE_STAT_TX_LANE_INLINE },
	{ WGX_DEVICE_STATS_A_RX_DROP_DELAY, WGX_DEVICE_STAT_RX_DROP_DELAY },
	{ WGX_DEVICE_STATS_A_PMTU_ICMP_IGNORED, WGX_DEVICE_STAT_PMTU_ICMP_IGNORED },
	{ WGX_DEVICE_STATS_A_TX_EXPRESS, WGX_DEVICE_STAT_TX_EXPRESS },
	{ WGX_DEVICE_STATS_A_RX_EXPRESS, WGX_DEVICE_STAT_RX_EXPRESS },
	{ WGX_DEVICE_STATS_A_TX_DROP_DELAY, WGX_DEVICE_STAT_TX_DROP_DELAY },
	{ WGX_DEVICE_STATS_A_RX_MARK_DELAY, WGX_DEVICE_STAT_RX_MARK_DELAY },
	{ WGX_DEVICE_STATS_A_TX_MARK_DELAY, WGX_DEVICE_STAT_TX_MARK_DELAY },
};

/*
 * struct wgx_dump_ctx - state of one dump, kept in netlink_callback::ctx.
 * @wgx: the device (its net_device referenced from the first dumpit call,
 *       which looks it up, to done); NULL before.
 * @next_peer: the peer the next message starts with (referenced), or NULL
 *             for the first peer of the list.
 * @next_allowedip: where @next_peer's allowed IPs go on
 *                  (wgx_allowedips_walk_from()); its index is the number
 *                  already sent, 0 (the cursor zeroed) when the peer has not
 *                  been started.
 * @wireguard: the dump was asked through the "wireguard" family (drop-in
 *             mode): WireGuard's tree, without wgx's extensions.
 * @no_stats: the request's WGX_DEVICE_A_GET_FLAGS had WGX_GET_F_NO_STATS:
 *            no WGX_DEVICE_A_STATS or WGX_PEER_A_STATS.
 * @started: the device attributes were sent.
 * @done: every peer was sent; the next call ends the dump.
 */
struct wgx_dump_ctx {
	struct wgx_device *wgx;
	struct wgx_peer *next_peer;
	struct wgx_allowedips_cursor next_allowedip;
	bool wireguard;
	bool no_stats;
	bool started;
	bool done;
};

/*
 * What a dump sends beyond WireGuard's tree: wgx's extension attributes
 * (family "wgx"), and of them the counter nests unless the request asked for
 * WGX_GET_F_NO_STATS.
 */
enum wgx_nl_detail {
	WGX_NL_EXTENSIONS = 1U << 0,
	WGX_NL_STATS = 1U << 1,
};

static struct wgx_dump_ctx *wgx_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct wgx_dump_ctx) > sizeof(cb->ctx));
	return (struct wgx_dump_ctx *)cb->ctx;
}

/*
 * A value that changes whenever the peer list or the allowed IPs change: a
 * peer creation bumps peer_ids, a removal lowers num_peers, the trie bumps
 * its own sequence on every change.  Never 0, which would disable the
 * consistency check.  device_update_lock held.
 */
static unsigned int wgx_nl_dump_generation(struct wgx_device *wgx)
{
	u64 ips = wgx_allowedips_seq(wgx->allowedips);
	u32 gen = jhash_3words((u32)ips ^ (u32)(ips >> 32),
			       (u32)wgx->peer_ids ^ (u32)(wgx->peer_ids >> 32),
			       wgx->num_peers, 0);

	return gen ?: 1;
}

static int wgx_nl_get_start(struct netlink_callback *cb, const struct wgx_nl_flavour *flavour)
{
	struct wgx_dump_ctx *ctx = wgx_dump_ctx(cb);
	struct wgx_device *wgx;

	/*
	 * Every counter 1..20 is emitted, and of the telemetry (21..) the loss
	 * counters 30 and 31, HANDSHAKES_PACED (34) and HANDSHAKES_PREVIOUS_KEY (35); the handshake RTT
	 * gauges 21..24 and the passive TCP RTT gauges 25..29 once sampled,
	 * the TCP retransmission counters 32 and 33 while the TCP samplers are
	 * on (wgx_nl_put_peer_rtt()), and the path MTU counters 36..38.
	 * Every device counter 1..16.
	 */
	BUILD_BUG_ON(ARRAY_SIZE(wgx_nl_peer_stats) != WGX_PEER_STATS_A_KEEPALIVES_RX + 7);
	BUILD_BUG_ON(ARRAY_SIZE(wgx_nl_device_stats) != WGX_DEVICE_STATS_A_MAX);
	memset(ctx, 0, sizeof(*ctx));
	ctx->wireguard = flavour->wireguard;
	/*
	 * "wgx": the request is checked and the device looked up in the first
	 * dumpit call, as a start callback has no extack on 6.1 (cb->extack is
	 * set only around dumpit) and a refused request must say why; its
	 * error then ends the dump in NLMSG_DONE (whose extack carries the
	 * message, which names the attribute, but no attribute offset).  "wireguard"
	 * does it here, as WireGuard does: wg(8) expects a failed lookup as an
	 * NLMSG_ERROR.
	 */
	if (!flavour->wireguard)
		return 0;
	wgx = wgx_netlink_lookup_device(flavour, sock_net(cb->skb->sk),
					wgx_compat_genl_dump_attrs(cb), cb->extack);
	if (IS_ERR(wgx))
		return PTR_ERR(wgx);
	ctx->wgx = wgx;
	return 0;
}

/*
 * The first dumpit call of a "wgx" dump: the request's GET flags and the
 * device.  On error the dump ends with it in NLMSG_DONE, with extack.
 */
static int wgx_nl_get_begin(struct netlink_callback *cb)
{
	struct wgx_dump_ctx *ctx = wgx_dump_ctx(cb);
	struct nlattr **attrs = wgx_compat_genl_dump_attrs(cb);
	struct nlattr *flags_attr;
	struct wgx_device *wgx;
	u32 flags;

	/* "wireguard" dumps look up in start; their table ends at WGDEVICE_A_MAX. */
	if (WARN_ON_ONCE(ctx->wireguard))
		return -EINVAL;
	flags_attr = attrs[WGX_DEVICE_A_GET_FLAGS];
	flags = flags_attr ? nla_get_u32(flags_attr) : 0;
	if (flags & ~WGX_GET_F_ALL) {
		NL_SET_ERR_MSG_ATTR(cb->extack, flags_attr, "unknown flag in WGX_DEVICE_A_GET_FLAGS");
		return -EOPNOTSUPP;
	}
	wgx = wgx_netlink_lookup_device(&wgx_nl_flavour_wgx, sock_net(cb->skb->sk), attrs, cb->extack);
	if (IS_ERR(wgx))
		return PTR_ERR(wgx);
	ctx->wgx = wgx;
	ctx->no_stats = flags & WGX_GET_F_NO_STATS;
	return 0;
}

int wgx_netlink_get_start(struct netlink_callback *cb)
{
	return wgx_nl_get_start(cb, &wgx_nl_flavour_wgx);
}

int wgx_netlink_wg_get_start(struct netlink_callback *cb)
{
	return wgx_nl_get_start(cb, &wgx_nl_flavour_wireguard);
}

int wgx_netlink_get_done(struct netlink_callback *cb)
{
	struct wgx_dump_ctx *ctx = wgx_dump_ctx(cb);

	if (ctx->next_peer)
		wgx_peer_put(ctx->next_peer);
	if (ctx->wgx)
		dev_put(ctx->wgx->dev);
	memset(ctx, 0, sizeof(*ctx));
	return 0;
}

/*
 * wgx's device attributes: listen ports, rx-spread, DSCP, lane, handshake
 * budget, and with WGX_NL_STATS in @detail the counters (not in the
 * "wireguard" family).
 */
static int wgx_nl_put_device_extensions(struct sk_buff *skb, struct wgx_device *wgx,
					unsigned int detail)
{
	u8 prev_public[WGX_KEY_LEN];
	struct nlattr *nest;
	bool has_prev;
	size_t i;

	/*
	 * Automatic ports: LISTEN_PORTS says 1, what a parser that knows only
	 * consecutive ports read of a default device before (it would print
	 * the automatic ports as a run and save them as a fixed N); the count
	 * bound is in LISTEN_PORTS_AUTO.
	 */
	if (nla_put_u16(skb, WGX_DEVICE_A_LISTEN_PORTS,
			wgx->listen_ports ? wgx_ports_count(wgx) : 1) ||
	    (!wgx->listen_ports &&
	     nla_put_u16(skb, WGX_DEVICE_A_LISTEN_PORTS_AUTO, wgx_ports_count(wgx))) ||
	    nla_put_u8(skb, WGX_DEVICE_A_RX_SPREAD, READ_ONCE(wgx->rx_spread)) ||
	    nla_put_u8(skb, WGX_DEVICE_A_DSCP,
		       READ_ONCE(wgx->dscp_copy) ? WGX_DSCP_COPY : WGX_DSCP_CLEAR) ||
	    nla_put_u64_64bit(skb, WGX_DEVICE_A_PRIORITY_DSCP, READ_ONCE(wgx->priority_dscp),
			      WGX_DEVICE_A_UNSPEC) ||
	    nla_put_u32(skb, WGX_DEVICE_A_HANDSHAKE_BUDGET, READ_ONCE(wgx->handshake_budget)) ||
	    nla_put_u32(skb, WGX_DEVICE_A_KEY_GRACE, READ_ONCE(wgx->key_grace_s)) ||
	    nla_put_u8(skb, WGX_DEVICE_A_MTU_AUTO, READ_ONCE(wgx->mtu_auto)))
		return -EMSGSIZE;
	down_read(&wgx->identity_lock);
	has_prev = wgx->grace_active &&
		   wgx_noise_identity_get_keys(wgx->prev_identity, prev_public, NULL);
	up_read(&wgx->identity_lock);
	if (has_prev && nla_put(skb, WGX_DEVICE_A_PREVIOUS_PUBLIC_KEY, WGX_KEY_LEN, prev_public))
		return -EMSGSIZE;
	if (!(detail & WGX_NL_STATS))
		return 0;
	nest = nla_nest_start(skb, WGX_DEVICE_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(wgx_nl_device_stats); ++i) {
		if (nla_put_u64_64bit(skb, wgx_nl_device_stats[i].attr,
				      wgx_device_stats_read(wgx, wgx_nl_device_stats[i].stat),
				      WGX_DEVICE_STATS_A_UNSPEC)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Device attributes of the first message (after ifindex and ifname); with
 * WGX_NL_EXTENSIONS in @detail also wgx's own.
 */
static int wgx_nl_put_device(struct sk_buff *skb, struct wgx_device *wgx, unsigned int detail)
{
	u8 private_key[WGX_KEY_LEN], public_key[WGX_KEY_LEN];
	bool has_key;
	int ret = -EMSGSIZE;

	down_read(&wgx->identity_lock);
	has_key = wgx_noise_identity_get_keys(wgx->identity, public_key, private_key);
	up_read(&wgx->identity_lock);
	if (has_key && (nla_put(skb, WGX_DEVICE_A_PRIVATE_KEY, WGX_KEY_LEN, private_key) ||
			nla_put(skb, WGX_DEVICE_A_PUBLIC_KEY, WGX_KEY_LEN, public_key)))
		goto out;
	if (nla_put_u16(skb, WGX_DEVICE_A_LISTEN_PORT, READ_ONCE(wgx->incoming_port)) ||
	    nla_put_u32(skb, WGX_DEVICE_A_FWMARK, READ_ONCE(wgx->fwmark)))
		goto out;
	ret = detail & WGX_NL_EXTENSIONS ? wgx_nl_put_device_extensions(skb, wgx, detail) : 0;
out:
	memzero_explicit(private_key, sizeof(private_key));
	return ret;
}

/* Endpoint as a clean sockaddr (no stale padding bytes), if the peer has one. */
static int wgx_nl_put_endpoint(struct sk_buff *skb, struct wgx_peer *peer)
{
	struct wgx_endpoint ep;

	read_lock_bh(&peer->endpoint_lock);
	ep = peer->endpoint;
	read_unlock_bh(&peer->endpoint_lock);

	if (ep.addr.sa_family == AF_INET) {
		struct sockaddr_in sin = {
			.sin_family = AF_INET,
			.sin_port = ep.addr4.sin_port,
			.sin_addr = ep.addr4.sin_addr,
		};

		return nla_put(skb, WGX_PEER_A_ENDPOINT, sizeof(sin), &sin);
	}
	if (ep.addr.sa_family == AF_INET6) {
		struct sockaddr_in6 sin6 = {
			.sin6_family = AF_INET6,
			.sin6_port = ep.addr6.sin6_port,
			.sin6_flowinfo = ep.addr6.sin6_flowinfo,
			.sin6_addr = ep.addr6.sin6_addr,
			.sin6_scope_id = ep.addr6.sin6_scope_id,
		};

		return nla_put(skb, WGX_PEER_A_ENDPOINT, sizeof(sin6), &sin6);
	}
	return 0;
}

/*
 * The handshake RTT gauges (uapi 21..24) and the passive TCP RTT gauges
 * (25..29), each set absent while nothing was sampled; the TCP
 * retransmission counters (32, 33), absent while module parameter
 * tcp_telemetry is off (they would not move: unknown, not zero).
 */
static int wgx_nl_put_peer_rtt(struct sk_buff *skb, struct wgx_peer *peer)
{
	struct wgx_telemetry_tcpstat tcp;
	struct wgx_telemetry_rtt rtt;

	wgx_telemetry_read(&peer->telemetry, &rtt);
	if (rtt.samples &&
	    (nla_put_u64_64bit(skb, WGX_PEER_STATS_A_HANDSHAKE_RTT_LAST_US, rtt.last_us,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_HANDSHAKE_RTT_MIN_US, rtt.min_us,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_HANDSHAKE_SRTT_US, rtt.srtt_us,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES, rtt.samples,
			       WGX_PEER_STATS_A_UNSPEC)))
		return -EMSGSIZE;
	wgx_telemetry_tcp_read(&peer->telemetry, &tcp);
	if (tcp.rtt.samples &&
	    (nla_put_u64_64bit(skb, WGX_PEER_STATS_A_TCP_RTT_LAST_US, tcp.rtt.last_us,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_TCP_RTT_MIN_US, tcp.rtt.min_us,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_TCP_SRTT_US, tcp.rtt.srtt_us,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_TCP_RTTVAR_US, tcp.rtt.rttvar_us,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_TCP_RTT_SAMPLES, tcp.rtt.samples,
			       WGX_PEER_STATS_A_UNSPEC)))
		return -EMSGSIZE;
	if (READ_ONCE(wgx_telemetry_tcp_enabled) &&
	    (nla_put_u64_64bit(skb, WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, tcp.retransmits,
			       WGX_PEER_STATS_A_UNSPEC) ||
	     nla_put_u64_64bit(skb, WGX_PEER_STATS_A_TX_TCP_SEGMENTS, tcp.segments,
			       WGX_PEER_STATS_A_UNSPEC)))
		return -EMSGSIZE;
	return 0;
}

/* WGX_PEER_A_SESSION_KEYS: which keys made the current session (none: absent). */
static int wgx_nl_put_session_keys(struct sk_buff *skb, struct wgx_peer *peer)
{
	struct wgx_device *wgx = peer->wgx;
	u32 local_gen, remote_gen, flags = 0;
	struct wgx_keypair *kp;
	bool has;

	rcu_read_lock_bh();
	kp = rcu_dereference_bh(peer->keypair_current);
	has = kp;
	if (kp) {
		local_gen = kp->local_gen;
		remote_gen = kp->remote_gen;
	}
	rcu_read_unlock_bh();
	if (!has)
		return 0;
	down_read(&wgx->identity_lock);
	if (local_gen != wgx->identity_gen)
		flags |= WGX_SESSION_F_LOCAL_PREVIOUS;
	mutex_lock(&peer->handshake_lock);
	if (remote_gen != peer->remote_gen)
		flags |= WGX_SESSION_F_PEER_PREVIOUS;
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);
	return nla_put_u32(skb, WGX_PEER_A_SESSION_KEYS, flags);
}

/* WGX_PEER_A_MTU, WGX_PEER_A_PATH_MTU and its source (both absent while unknown). */
static int wgx_nl_put_path_mtu(struct sk_buff *skb, struct wgx_peer *peer)
{
	int family = READ_ONCE(peer->endpoint.addr.sa_family);
	unsigned long now = jiffies;
	u32 mtu = wgx_pmtu_outer(&peer->pmtu, family, now);

	if (nla_put_u32(skb, WGX_PEER_A_MTU, wgx_pmtu_fixed(&peer->pmtu)))
		return -EMSGSIZE;
	if (!mtu)
		return 0;
	if (nla_put_u32(skb, WGX_PEER_A_PATH_MTU, mtu) ||
	    nla_put_u32(skb, WGX_PEER_A_PATH_MTU_SOURCE, wgx_pmtu_source(&peer->pmtu, family, now)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Everything of a peer except its public key and allowed IPs; wgx's
 * attributes with WGX_NL_EXTENSIONS in @detail, its counters with
 * WGX_NL_STATS too.
 */
static int wgx_nl_put_peer_state(struct sk_buff *skb, struct wgx_peer *peer, unsigned int detail)
{
	struct wgx_device *wgx = peer->wgx;
	struct __kernel_timespec last_handshake;
	struct timespec64 walltime;
	u8 psk[WGX_KEY_LEN];
	struct nlattr *nest;
	size_t i;
	int ret;

	down_read(&wgx->identity_lock);
	mutex_lock(&peer->handshake_lock);
	wgx_noise_handshake_get_preshared_key(peer->handshake, psk);
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);
	ret = nla_put(skb, WGX_PEER_A_PRESHARED_KEY, sizeof(psk), psk);
	memzero_explicit(psk, sizeof(psk));
	if (ret)
		return ret;

	spin_lock_bh(&peer->timers_lock);
	walltime = peer->walltime_last_handshake;
	spin_unlock_bh(&peer->timers_lock);
	last_handshake.tv_sec = walltime.tv_sec;
	last_handshake.tv_nsec = walltime.tv_nsec;
	if (nla_put(skb, WGX_PEER_A_LAST_HANDSHAKE_TIME, sizeof(last_handshake), &last_handshake) ||
	    nla_put_u16(skb, WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL,
			READ_ONCE(peer->timer_state.persistent_keepalive_s)) ||
	    nla_put_u64_64bit(skb, WGX_PEER_A_RX_BYTES,
			      wgx_peer_stats_read(peer, WGX_PEER_STAT_RX_BYTES),
			      WGX_PEER_A_UNSPEC) ||
	    nla_put_u64_64bit(skb, WGX_PEER_A_TX_BYTES,
			      wgx_peer_stats_read(peer, WGX_PEER_STAT_TX_BYTES),
			      WGX_PEER_A_UNSPEC) ||
	    nla_put_u32(skb, WGX_PEER_A_PROTOCOL_VERSION, 1) ||
	    wgx_nl_put_endpoint(skb, peer))
		return -EMSGSIZE;
	if (!(detail & WGX_NL_EXTENSIONS))
		return 0;

	if (wgx_nl_put_session_keys(skb, peer) || wgx_nl_put_path_mtu(skb, peer))
		return -EMSGSIZE;
	if (!(detail & WGX_NL_STATS))
		return 0;
	nest = nla_nest_start(skb, WGX_PEER_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(wgx_nl_peer_stats); ++i) {
		if (nla_put_u64_64bit(skb, wgx_nl_peer_stats[i].attr,
				      wgx_peer_stats_read(peer, wgx_nl_peer_stats[i].stat),
				      WGX_PEER_STATS_A_UNSPEC)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	if (wgx_nl_put_peer_rtt(skb, peer)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* wgx_allowedips_walk_from() callback: one allowed IP as an element of WGX_PEER_A_ALLOWEDIPS. */
static int wgx_nl_put_allowedip(void *data, int family, const wgx_u8 *addr, wgx_u8 cidr)
{
	struct sk_buff *skb = data;
	struct nlattr *nest = nla_nest_start(skb, 0);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u16(skb, WGX_ALLOWEDIP_A_FAMILY, family) ||
	    nla_put(skb, WGX_ALLOWEDIP_A_IPADDR,
		    family == AF_INET6 ? sizeof(struct in6_addr) : sizeof(struct in_addr), addr) ||
	    nla_put_u8(skb, WGX_ALLOWEDIP_A_CIDR_MASK, cidr)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One peer element of WGX_DEVICE_A_PEERS, starting at the allowed IP @cur
 * points at.  A peer not begun yet (@cur->index == 0) gets every attribute
 * @detail asks for; a continued one only its public key and the remaining
 * allowed IPs (uapi "Splitting").  Returns 0 when the peer is complete (@cur zeroed), 1 when it
 * was cut after at least one allowed IP (@cur at the first one left out), or
 * -EMSGSIZE when nothing of it fits (the message is unchanged, @cur at the
 * same position).  device_update_lock held.
 */
static int wgx_nl_put_peer(struct sk_buff *skb, struct wgx_peer *peer,
			   struct wgx_allowedips_cursor *cur, unsigned int detail)
{
	struct wgx_allowedips *table = peer->wgx->allowedips;
	u64 count = wgx_allowedips_count(table, peer);
	u64 start = cur->index;
	struct nlattr *nest, *ips;
	bool complete;

	if (start && start >= count) {
		/*
		 * Allowed IPs vanished since the last message (this one is marked
		 * NLM_F_DUMP_INTR): nothing of this peer is left to send.
		 */
		memset(cur, 0, sizeof(*cur));
		return 0;
	}

	nest = nla_nest_start(skb, 0);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put(skb, WGX_PEER_A_PUBLIC_KEY, WGX_KEY_LEN, peer->public_key))
		goto cancel;
	if (!start && wgx_nl_put_peer_state(skb, peer, detail))
		goto cancel;

	if (start < count) {
		ips = nla_nest_start(skb, WGX_PEER_A_ALLOWEDIPS);
		if (!ips)
			goto cancel;
		complete = wgx_allowedips_walk_from(table, peer, cur, wgx_nl_put_allowedip, skb);
		if (cur->index == start)
			goto cancel; /* not even one allowed IP fits: start the peer afresh */
		nla_nest_end(skb, ips);
		if (!complete) {
			nla_nest_end(skb, nest);
			return 1;
		}
	}
	nla_nest_end(skb, nest);
	memset(cur, 0, sizeof(*cur));
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int wgx_netlink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct wgx_dump_ctx *ctx = wgx_dump_ctx(cb);
	struct wgx_device *wgx = ctx->wgx;
	const struct wgx_nl_flavour *flavour = ctx->wireguard ? &wgx_nl_flavour_wireguard :
								 &wgx_nl_flavour_wgx;
	struct wgx_peer *peer, *next_peer = NULL;
	unsigned int detail;
	struct nlattr *peers;
	bool progress = false;
	void *hdr;
	int ret;

	if (ctx->done)
		return 0;
	if (!wgx) {
		ret = wgx_nl_get_begin(cb);
		if (ret) {
			ctx->done = true;
			return ret;
		}
		wgx = ctx->wgx;
	}
	detail = ctx->wireguard ? 0 :
		 ctx->no_stats ? WGX_NL_EXTENSIONS : WGX_NL_EXTENSIONS | WGX_NL_STATS;
	ret = -EMSGSIZE;

	mutex_lock(&wgx->device_update_lock);
	cb->seq = wgx_nl_dump_generation(wgx);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, flavour->family,
			  NLM_F_MULTI, WGX_CMD_GET_DEVICE);
	if (!hdr)
		goto out_unlock;
	genl_dump_check_consistent(cb, hdr);

	if (nla_put_u32(skb, WGX_DEVICE_A_IFINDEX, wgx->dev->ifindex) ||
	    nla_put_string(skb, WGX_DEVICE_A_IFNAME, wgx->dev->name))
		goto out_cancel;
	if (!ctx->started) {
		if (wgx_nl_put_device(skb, wgx, detail))
			goto out_cancel;
		progress = true;
	}

	peers = nla_nest_start(skb, WGX_DEVICE_A_PEERS);
	if (!peers)
		goto out_cancel;

	peer = ctx->next_peer;
	if (peer && READ_ONCE(peer->is_dead)) {
		/*
		 * The peer to continue with was removed: the generation changed,
		 * so this message is marked NLM_F_DUMP_INTR and the reader
		 * starts over.  End here rather than guess where to go on.
		 */
		ctx->done = true;
		goto peers_end;
	}
	if (!peer)
		peer = list_first_entry(&wgx->peer_list, struct wgx_peer, peer_list);
	list_for_each_entry_from(peer, &wgx->peer_list, peer_list) {
		ret = wgx_nl_put_peer(skb, peer, &ctx->next_allowedip, detail);
		if (ret >= 0)
			progress = true;
		if (ret) {
			next_peer = peer; /* cut inside this peer, or it did not fit at all */
			break;
		}
	}
	if (!next_peer)
		ctx->done = true;
	if (!progress) {
		/*
		 * A single peer does not fit an empty message: cannot happen
		 * with the sizes involved, but never loop forever.
		 */
		ret = -EMSGSIZE;
		goto out_cancel;
	}

peers_end:
	/* nla_len() of an open nest is still 0: look at the tail instead. */
	if (skb_tail_pointer(skb) == (unsigned char *)peers + NLA_HDRLEN)
		nla_nest_cancel(skb, peers);
	else
		nla_nest_end(skb, peers);
	genlmsg_end(skb, hdr);
	ctx->started = true;

	if (next_peer != ctx->next_peer) {
		if (next_peer)
			wgx_peer_get(next_peer);
		if (ctx->next_peer)
			wgx_peer_put(ctx->next_peer);
		ctx->next_peer = next_peer;
	}
	mutex_unlock(&wgx->device_update_lock);
	return skb->len;

out_cancel:
	genlmsg_cancel(skb, hdr);
out_unlock:
	mutex_unlock(&wgx->device_update_lock);
	return ret;
}
