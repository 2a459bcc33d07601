// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink family "wgx": WGX_CMD_GET_DEVICE (a dump of
 * one device's configuration, peers, allowed IPs and counters) and
 * WGX_CMD_SET_DEVICE (configuration).  include/uapi/linux/wgx.h is the
 * specification of both; the behaviour of a valid request is WireGuard's.
 *
 * SET_DEVICE works in three phases under rtnl_lock and device_update_lock:
 *   1. parse: every attribute of the message (device, each peer, each
 *      allowed IP) is checked and copied into a request, nothing changes;
 *   2. plan: the peers the message names are looked up and the outcome of
 *      every peer entry (create, update, remove, skip) is decided, including
 *      the peer limit and the device's own public key; nothing changes;
 *   3. apply: peers the device does not know yet are created first and the
 *      listen port is bound (both undone if either fails), then the changes
 *      are made in the order the uapi defines.  After that point only an
 *      allocation failure of the allowed-IPs trie or of a peer re-created
 *      after REPLACE_PEERS can fail, which the extack message reports.
 *
 * GET_DEVICE dumps resume exactly: the context remembers the next peer (with a
 * reference) and the index of its next allowed IP, so a peer whose allowed
 * IPs do not fit continues in the next message.  A change of the peer list or
 * of the allowed IPs between two messages marks the first message built after
 * it NLM_F_DUMP_INTR (nl_dump_check_consistent()); the reader starts over.
 */
#include <linux/if.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/time_types.h>
#include <crypto/algapi.h>
#include <crypto/curve25519.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include <uapi/linux/wgx.h>
#include <wgx/core.h>

#include "device.h"
#include "netlink.h"
#include "peer.h"
#include "peerlookup.h"
#include "send.h"
#include "socket.h"
#include "timers.h"

static struct genl_family wgx_genl_family;

/* ---- attribute policies (strict validation by the genetlink core) ---- */

/* WGX_PEER_A_ENDPOINT: a whole sockaddr_in or sockaddr_in6 of the matching family. */
static int wgx_nl_validate_endpoint(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	const struct sockaddr *addr = nla_data(attr);
	int len = nla_len(attr);

	if (len == sizeof(struct sockaddr_in) && addr->sa_family == AF_INET)
		return 0;
	if (len == sizeof(struct sockaddr_in6) && addr->sa_family == AF_INET6)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "endpoint must be a struct sockaddr_in (16 bytes, AF_INET) or sockaddr_in6 (28 bytes, AF_INET6)");
	return -EINVAL;
}

/*
 * Length checks are done by these functions rather than NLA_POLICY_EXACT_LEN,
 * which fails with -ERANGE: the uapi promises -EINVAL for every malformed
 * attribute, with a message naming what was expected.
 */
static int wgx_nl_validate_key(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	if (nla_len(attr) == WGX_NL_KEY_LEN)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr, "key must be exactly 32 bytes");
	return -EINVAL;
}

static int wgx_nl_validate_timespec(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	if (nla_len(attr) == sizeof(struct __kernel_timespec))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr, "last handshake time must be a struct __kernel_timespec");
	return -EINVAL;
}

/* WGX_ALLOWEDIP_A_IPADDR: an in_addr or in6_addr; the family is checked against it later. */
static int wgx_nl_validate_ipaddr(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	int len = nla_len(attr);

	if (len == sizeof(struct in_addr) || len == sizeof(struct in6_addr))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr, "allowed IP address must be 4 (IPv4) or 16 (IPv6) bytes");
	return -EINVAL;
}

/*
 * Binary attributes get no maximum length in the policy (a too long one
 * would fail with -ERANGE there); their validation functions check the
 * exact length.
 */
#define WGX_NL_BINARY(fn) NLA_POLICY_VALIDATE_FN(NLA_BINARY, fn)
#define WGX_NL_KEY_POLICY WGX_NL_BINARY(wgx_nl_validate_key)

/*
 * Values are checked where the policy cannot express them (range policies
 * fail with -ERANGE, the uapi says -EINVAL): the family (AF_INET or
 * AF_INET6 only) and the CIDR mask against the family in
 * wgx_nl_parse_allowedip(), flag bits (-EOPNOTSUPP, as in WireGuard) in the
 * parse functions.  All of it before any change.
 */
static const struct nla_policy wgx_allowedip_policy[WGX_ALLOWEDIP_A_MAX + 1] = {
	[WGX_ALLOWEDIP_A_FAMILY]	= { .type = NLA_U16 },
	[WGX_ALLOWEDIP_A_IPADDR]	= WGX_NL_BINARY(wgx_nl_validate_ipaddr),
	[WGX_ALLOWEDIP_A_CIDR_MASK]	= { .type = NLA_U8 },
	[WGX_ALLOWEDIP_A_FLAGS]		= { .type = NLA_U32 },
};

static const struct nla_policy wgx_peer_policy[WGX_PEER_A_MAX + 1] = {
	[WGX_PEER_A_PUBLIC_KEY]		= WGX_NL_KEY_POLICY,
	[WGX_PEER_A_PRESHARED_KEY]	= WGX_NL_KEY_POLICY,
	[WGX_PEER_A_FLAGS]		= { .type = NLA_U32 },
	[WGX_PEER_A_ENDPOINT]		= WGX_NL_BINARY(wgx_nl_validate_endpoint),
	[WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL] = { .type = NLA_U16 },
	/* Read-only attributes: accepted (so a dump can be sent back) and ignored. */
	[WGX_PEER_A_LAST_HANDSHAKE_TIME] = WGX_NL_BINARY(wgx_nl_validate_timespec),
	[WGX_PEER_A_RX_BYTES]		= { .type = NLA_U64 },
	[WGX_PEER_A_TX_BYTES]		= { .type = NLA_U64 },
	[WGX_PEER_A_ALLOWEDIPS]		= NLA_POLICY_NESTED_ARRAY(wgx_allowedip_policy),
	[WGX_PEER_A_PROTOCOL_VERSION]	= { .type = NLA_U32 },
	[WGX_PEER_A_STATS]		= { .type = NLA_NESTED },
};

static const struct nla_policy wgx_device_policy[WGX_DEVICE_A_MAX + 1] = {
	[WGX_DEVICE_A_IFINDEX]		= { .type = NLA_U32 },
	[WGX_DEVICE_A_IFNAME]		= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[WGX_DEVICE_A_PRIVATE_KEY]	= WGX_NL_KEY_POLICY,
	[WGX_DEVICE_A_PUBLIC_KEY]	= WGX_NL_KEY_POLICY,
	[WGX_DEVICE_A_FLAGS]		= { .type = NLA_U32 },
	[WGX_DEVICE_A_LISTEN_PORT]	= { .type = NLA_U16 },
	[WGX_DEVICE_A_FWMARK]		= { .type = NLA_U32 },
	[WGX_DEVICE_A_PEERS]		= NLA_POLICY_NESTED_ARRAY(wgx_peer_policy),
	[WGX_DEVICE_A_STATS]		= { .type = NLA_NESTED },
	[WGX_DEVICE_A_LISTEN_PORTS]	= NLA_POLICY_RANGE(NLA_U16, 1, WGX_MAX_LISTEN_PORTS),
};

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
};

/* ---- device lookup ---- */

/*
 * wgx_device_lookup - the wgx device named by @attrs (exactly one of
 * WGX_DEVICE_A_IFINDEX and WGX_DEVICE_A_IFNAME) in @net, with a reference on
 * its net_device (dev_put(wgx->dev) when done).  Returns ERR_PTR(-EBADR)
 * without exactly one of them, -ENODEV when there is no such device,
 * -EOPNOTSUPP when it is not of link kind "wgx" (its rtnl_link_ops are not
 * ours).  Process context.
 */
static struct wgx_device *wgx_device_lookup(struct net *net, struct nlattr **attrs,
					    struct netlink_ext_ack *extack)
{
	struct nlattr *ifindex = attrs[WGX_DEVICE_A_IFINDEX];
	struct nlattr *ifname = attrs[WGX_DEVICE_A_IFNAME];
	struct net_device *dev;

	if (!ifindex == !ifname) {
		NL_SET_ERR_MSG(extack,
			       "exactly one of WGX_DEVICE_A_IFINDEX and WGX_DEVICE_A_IFNAME is required");
		return ERR_PTR(-EBADR);
	}
	if (ifindex) {
		dev = dev_get_by_index(net, nla_get_u32(ifindex));
	} else {
		char name[IFNAMSIZ];

		nla_strscpy(name, ifname, sizeof(name));
		dev = dev_get_by_name(net, name);
	}
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, ifindex ?: ifname,
				    "no such network device in this namespace");
		return ERR_PTR(-ENODEV);
	}
	if (!wgx_device_is_wgx(dev)) {
		dev_put(dev);
		NL_SET_ERR_MSG_ATTR(extack, ifindex ?: ifname, "not a wgx device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return netdev_priv(dev);
}

/* ==== WGX_CMD_GET_DEVICE ==== */

/*
 * struct wgx_dump_ctx - state of one dump, kept in netlink_callback::ctx.
 * @wgx: the device (its net_device referenced from start to done).
 * @next_peer: the peer the next message starts with (referenced), or NULL
 *             for the first peer of the list.
 * @next_allowedip: index of @next_peer's first allowed IP not sent yet; 0
 *                  when the peer has not been started.
 * @started: the device attributes were sent.
 * @done: every peer was sent; the next call ends the dump.
 */
struct wgx_dump_ctx {
	struct wgx_device *wgx;
	struct wgx_peer *next_peer;
	u64 next_allowedip;
	bool started;
	bool done;
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

static int wgx_nl_get_device_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct wgx_dump_ctx *ctx = wgx_dump_ctx(cb);
	struct wgx_device *wgx;

	wgx = wgx_device_lookup(sock_net(cb->skb->sk), info->attrs, cb->extack);
	if (IS_ERR(wgx))
		return PTR_ERR(wgx);
	memset(ctx, 0, sizeof(*ctx));
	ctx->wgx = wgx;
	return 0;
}

static int wgx_nl_get_device_done(struct netlink_callback *cb)
{
	struct wgx_dump_ctx *ctx = wgx_dump_ctx(cb);

	if (ctx->next_peer)
		wgx_peer_put(ctx->next_peer);
	if (ctx->wgx)
		dev_put(ctx->wgx->dev);
	memset(ctx, 0, sizeof(*ctx));
	return 0;
}

/* Device attributes of the first message (after ifindex and ifname). */
static int wgx_nl_put_device(struct sk_buff *skb, struct wgx_device *wgx)
{
	u8 private_key[WGX_KEY_LEN], public_key[WGX_KEY_LEN];
	struct nlattr *nest;
	bool has_key;
	size_t i;
	int ret = -EMSGSIZE;

	down_read(&wgx->identity_lock);
	has_key = wgx_noise_identity_get_keys(wgx->identity, public_key, private_key);
	up_read(&wgx->identity_lock);
	if (has_key && (nla_put(skb, WGX_DEVICE_A_PRIVATE_KEY, WGX_KEY_LEN, private_key) ||
			nla_put(skb, WGX_DEVICE_A_PUBLIC_KEY, WGX_KEY_LEN, public_key)))
		goto out;
	if (nla_put_u16(skb, WGX_DEVICE_A_LISTEN_PORT, READ_ONCE(wgx->incoming_port)) ||
	    nla_put_u16(skb, WGX_DEVICE_A_LISTEN_PORTS, wgx->listen_ports) ||
	    nla_put_u32(skb, WGX_DEVICE_A_FWMARK, READ_ONCE(wgx->fwmark)))
		goto out;

	nest = nla_nest_start(skb, WGX_DEVICE_A_STATS);
	if (!nest)
		goto out;
	for (i = 0; i < ARRAY_SIZE(wgx_nl_device_stats); ++i) {
		if (nla_put_u64_64bit(skb, wgx_nl_device_stats[i].attr,
				      wgx_device_stats_read(wgx, wgx_nl_device_stats[i].stat),
				      WGX_DEVICE_STATS_A_UNSPEC)) {
			nla_nest_cancel(skb, nest);
			goto out;
		}
	}
	nla_nest_end(skb, nest);
	ret = 0;
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

/* Everything of a peer except its public key and allowed IPs. */
static int wgx_nl_put_peer_state(struct sk_buff *skb, struct wgx_peer *peer)
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
	nla_nest_end(skb, nest);
	return 0;
}

/* wgx_allowedips_walk() callback: one allowed IP as an element of WGX_PEER_A_ALLOWEDIPS. */
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
 * One peer element of WGX_DEVICE_A_PEERS, starting at allowed IP *@next_ip.
 * A peer not begun yet (*@next_ip == 0) gets every attribute; a continued one
 * only its public key and the remaining allowed IPs (uapi "Splitting").
 * Returns 0 when the peer is complete (*@next_ip reset to 0), 1 when it was
 * cut after at least one allowed IP (*@next_ip = the first one left out), or
 * -EMSGSIZE when nothing of it fits (the message is unchanged).
 */
static int wgx_nl_put_peer(struct sk_buff *skb, struct wgx_peer *peer, u64 *next_ip)
{
	struct wgx_allowedips *table = peer->wgx->allowedips;
	u64 count = wgx_allowedips_count(table, peer);
	struct nlattr *nest, *ips;
	u64 next;

	if (*next_ip && *next_ip >= count) {
		/*
		 * Allowed IPs vanished since the last message (this one is marked
		 * NLM_F_DUMP_INTR): nothing of this peer is left to send.
		 */
		*next_ip = 0;
		return 0;
	}

	nest = nla_nest_start(skb, 0);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put(skb, WGX_PEER_A_PUBLIC_KEY, WGX_KEY_LEN, peer->public_key))
		goto cancel;
	if (!*next_ip && wgx_nl_put_peer_state(skb, peer))
		goto cancel;

	if (*next_ip < count) {
		ips = nla_nest_start(skb, WGX_PEER_A_ALLOWEDIPS);
		if (!ips)
			goto cancel;
		next = wgx_allowedips_walk(table, peer, *next_ip, wgx_nl_put_allowedip, skb);
		if (next == *next_ip)
			goto cancel; /* not even one allowed IP fits: start the peer afresh */
		nla_nest_end(skb, ips);
		if (next < count) {
			nla_nest_end(skb, nest);
			*next_ip = next;
			return 1;
		}
	}
	nla_nest_end(skb, nest);
	*next_ip = 0;
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int wgx_nl_get_device_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct wgx_dump_ctx *ctx = wgx_dump_ctx(cb);
	struct wgx_device *wgx = ctx->wgx;
	struct wgx_peer *peer, *next_peer = NULL;
	struct nlattr *peers;
	bool progress = false;
	void *hdr;
	int ret = -EMSGSIZE;

	if (!wgx || ctx->done)
		return 0;

	mutex_lock(&wgx->device_update_lock);
	cb->seq = wgx_nl_dump_generation(wgx);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, &wgx_genl_family,
			  NLM_F_MULTI, WGX_CMD_GET_DEVICE);
	if (!hdr)
		goto out_unlock;
	genl_dump_check_consistent(cb, hdr);

	if (nla_put_u32(skb, WGX_DEVICE_A_IFINDEX, wgx->dev->ifindex) ||
	    nla_put_string(skb, WGX_DEVICE_A_IFNAME, wgx->dev->name))
		goto out_cancel;
	if (!ctx->started) {
		if (wgx_nl_put_device(skb, wgx))
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
		ret = wgx_nl_put_peer(skb, peer, &ctx->next_allowedip);
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

/* ==== WGX_CMD_SET_DEVICE ==== */

/* One allowed IP of the message, validated. */
struct wgx_nl_allowedip {
	const struct nlattr *attr;
	u8 addr[16];
	u16 family;
	u8 cidr;
	bool remove;
};

/* What applying one peer entry of the message does, decided before any change. */
enum wgx_nl_peer_action {
	WGX_NL_PEER_SKIP,	/* own public key, or UPDATE_ONLY/REMOVE_ME of an absent peer */
	WGX_NL_PEER_REMOVE,
	WGX_NL_PEER_CREATE,
	WGX_NL_PEER_UPDATE,
};

/*
 * One peer entry of the message.  Entries with the same public key form a
 * group; @group is the index of the group's first entry, which also holds the
 * group's state: @live (the peer with that key, referenced, or NULL),
 * @exists/@existed/@created_once (used while planning).
 */
struct wgx_nl_peer {
	const struct nlattr *attr;
	u8 *public_key;			/* in the message */
	u8 *preshared_key;		/* in the message; NULL when absent */
	const struct nlattr *endpoint;	/* validated sockaddr_in/in6, or NULL */
	const struct nlattr *allowedips;
	u32 flags;
	int keepalive;			/* seconds, -1 when absent */
	u32 first_ip, nr_ips;		/* in wgx_nl_set::ips */
	u32 group;
	enum wgx_nl_peer_action action;
	bool precreate;			/* created before any change is made */

	struct wgx_peer *live;
	bool exists, existed, created_once;
};

struct wgx_nl_set {
	struct wgx_device *wgx;
	struct genl_info *info;
	u32 flags;

	bool key_change, key_clear;
	u8 new_public_key[WGX_KEY_LEN];
	bool port_change;
	u16 port;
	u16 nports;
	bool fwmark_change;
	u32 fwmark;

	struct wgx_nl_peer *peers;
	u32 nr_peers;
	struct wgx_nl_allowedip *ips;
	u32 nr_ips;
};

static int wgx_nl_parse_allowedip(struct wgx_nl_allowedip *ip, const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[WGX_ALLOWEDIP_A_MAX + 1];
	unsigned int addr_len, max_cidr;
	int ret;

	ret = nla_parse_nested(tb, WGX_ALLOWEDIP_A_MAX, attr, wgx_allowedip_policy, extack);
	if (ret)
		return ret;
	if (!tb[WGX_ALLOWEDIP_A_FAMILY] || !tb[WGX_ALLOWEDIP_A_IPADDR] ||
	    !tb[WGX_ALLOWEDIP_A_CIDR_MASK]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "allowed IP needs WGX_ALLOWEDIP_A_FAMILY, _IPADDR and _CIDR_MASK");
		return -EINVAL;
	}
	ip->attr = attr;
	ip->family = nla_get_u16(tb[WGX_ALLOWEDIP_A_FAMILY]);
	if (ip->family == AF_INET) {
		addr_len = sizeof(struct in_addr);
		max_cidr = 32;
	} else if (ip->family == AF_INET6) {
		addr_len = sizeof(struct in6_addr);
		max_cidr = 128;
	} else {
		NL_SET_ERR_MSG_ATTR(extack, tb[WGX_ALLOWEDIP_A_FAMILY],
				    "allowed IP family must be AF_INET or AF_INET6");
		return -EINVAL;
	}
	if (nla_len(tb[WGX_ALLOWEDIP_A_IPADDR]) != addr_len) {
		NL_SET_ERR_MSG_ATTR(extack, tb[WGX_ALLOWEDIP_A_IPADDR],
				    "allowed IP address length does not match its family");
		return -EINVAL;
	}
	ip->cidr = nla_get_u8(tb[WGX_ALLOWEDIP_A_CIDR_MASK]);
	if (ip->cidr > max_cidr) {
		NL_SET_ERR_MSG_ATTR(extack, tb[WGX_ALLOWEDIP_A_CIDR_MASK],
				    "CIDR mask longer than the address (32 for IPv4, 128 for IPv6)");
		return -EINVAL;
	}
	memcpy(ip->addr, nla_data(tb[WGX_ALLOWEDIP_A_IPADDR]), addr_len);
	if (tb[WGX_ALLOWEDIP_A_FLAGS]) {
		u32 flags = nla_get_u32(tb[WGX_ALLOWEDIP_A_FLAGS]);

		if (flags & ~WGX_ALLOWEDIP_F_ALL) {
			NL_SET_ERR_MSG_ATTR(extack, tb[WGX_ALLOWEDIP_A_FLAGS],
					    "unknown allowed IP flag");
			return -EOPNOTSUPP;
		}
		ip->remove = flags & WGX_ALLOWEDIP_F_REMOVE_ME;
	}
	return 0;
}

static int wgx_nl_parse_peer(struct wgx_nl_peer *p, const struct nlattr *attr,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[WGX_PEER_A_MAX + 1], *ip;
	int ret, rem;

	ret = nla_parse_nested(tb, WGX_PEER_A_MAX, attr, wgx_peer_policy, extack);
	if (ret)
		return ret;
	p->attr = attr;
	if (!tb[WGX_PEER_A_PUBLIC_KEY]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "peer without WGX_PEER_A_PUBLIC_KEY");
		return -EINVAL;
	}
	p->public_key = nla_data(tb[WGX_PEER_A_PUBLIC_KEY]);
	if (tb[WGX_PEER_A_FLAGS]) {
		p->flags = nla_get_u32(tb[WGX_PEER_A_FLAGS]);
		if (p->flags & ~WGX_PEER_F_ALL) {
			NL_SET_ERR_MSG_ATTR(extack, tb[WGX_PEER_A_FLAGS], "unknown peer flag");
			return -EOPNOTSUPP;
		}
	}
	if (tb[WGX_PEER_A_PROTOCOL_VERSION] && nla_get_u32(tb[WGX_PEER_A_PROTOCOL_VERSION]) != 1) {
		NL_SET_ERR_MSG_ATTR(extack, tb[WGX_PEER_A_PROTOCOL_VERSION],
				    "only protocol version 1 is supported");
		return -EPFNOSUPPORT;
	}
	if (tb[WGX_PEER_A_PRESHARED_KEY])
		p->preshared_key = nla_data(tb[WGX_PEER_A_PRESHARED_KEY]);
	p->endpoint = tb[WGX_PEER_A_ENDPOINT];
	p->keepalive = tb[WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL] ?
		       nla_get_u16(tb[WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL]) : -1;
	p->allowedips = tb[WGX_PEER_A_ALLOWEDIPS];
	if (p->allowedips)
		nla_for_each_nested(ip, p->allowedips, rem)
			++p->nr_ips;
	return 0;
}

/* Phase 1: check and copy every attribute; no state changes, no lookups. */
static int wgx_nl_set_parse(struct wgx_nl_set *req)
{
	struct nlattr **attrs = req->info->attrs;
	struct netlink_ext_ack *extack = req->info->extack;
	struct wgx_device *wgx = req->wgx;
	struct nlattr *attr, *ip;
	u32 i, k;
	int ret, rem, rem_ip;

	if (attrs[WGX_DEVICE_A_FLAGS]) {
		req->flags = nla_get_u32(attrs[WGX_DEVICE_A_FLAGS]);
		if (req->flags & ~WGX_DEVICE_F_ALL) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[WGX_DEVICE_A_FLAGS],
					    "unknown device flag");
			return -EOPNOTSUPP;
		}
	}

	if (attrs[WGX_DEVICE_A_LISTEN_PORT] || attrs[WGX_DEVICE_A_LISTEN_PORTS] ||
	    attrs[WGX_DEVICE_A_FWMARK]) {
		struct nlattr *which = attrs[WGX_DEVICE_A_LISTEN_PORT] ?:
				       attrs[WGX_DEVICE_A_LISTEN_PORTS] ?:
				       attrs[WGX_DEVICE_A_FWMARK];
		struct net *net;
		bool allowed;

		/* The sockets live in the creating namespace: its admin decides. */
		rcu_read_lock();
		net = rcu_dereference(wgx->creating_net);
		allowed = net && ns_capable(net->user_ns, CAP_NET_ADMIN);
		rcu_read_unlock();
		if (!allowed) {
			NL_SET_ERR_MSG_ATTR(extack, which,
					    "listen port and fwmark need CAP_NET_ADMIN in the namespace that created the device");
			return -EPERM;
		}
	}
	req->port = wgx->incoming_port;
	req->nports = wgx->listen_ports;
	if (attrs[WGX_DEVICE_A_LISTEN_PORT]) {
		req->port = nla_get_u16(attrs[WGX_DEVICE_A_LISTEN_PORT]);
		req->port_change = true;
	}
	if (attrs[WGX_DEVICE_A_LISTEN_PORTS]) {
		req->nports = nla_get_u16(attrs[WGX_DEVICE_A_LISTEN_PORTS]);
		req->port_change = true;
	}
	if (req->port_change && (u32)req->port + req->nports - 1 > U16_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[WGX_DEVICE_A_LISTEN_PORTS] ?:
				    attrs[WGX_DEVICE_A_LISTEN_PORT],
				    "listen port + listen ports - 1 exceeds 65535");
		return -EINVAL;
	}
	if (attrs[WGX_DEVICE_A_FWMARK]) {
		req->fwmark = nla_get_u32(attrs[WGX_DEVICE_A_FWMARK]);
		req->fwmark_change = req->fwmark != READ_ONCE(wgx->fwmark);
	}

	if (!attrs[WGX_DEVICE_A_PEERS])
		return 0;

	nla_for_each_nested(attr, attrs[WGX_DEVICE_A_PEERS], rem)
		++req->nr_peers;
	if (!req->nr_peers)
		return 0;
	req->peers = kvcalloc(req->nr_peers, sizeof(*req->peers), GFP_KERNEL);
	if (!req->peers)
		return -ENOMEM;
	i = 0;
	nla_for_each_nested(attr, attrs[WGX_DEVICE_A_PEERS], rem) {
		ret = wgx_nl_parse_peer(&req->peers[i], attr, extack);
		if (ret)
			return ret;
		req->peers[i].first_ip = req->nr_ips;
		req->nr_ips += req->peers[i].nr_ips;
		++i;
	}

	if (!req->nr_ips)
		return 0;
	req->ips = kvcalloc(req->nr_ips, sizeof(*req->ips), GFP_KERNEL);
	if (!req->ips)
		return -ENOMEM;
	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i];

		if (!p->allowedips)
			continue;
		k = p->first_ip;
		nla_for_each_nested(ip, p->allowedips, rem_ip) {
			ret = wgx_nl_parse_allowedip(&req->ips[k++], ip, extack);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct wgx_nl_key_index {
	const u8 *key;
	u32 index;
};

static int wgx_nl_key_index_cmp(const void *a, const void *b)
{
	const struct wgx_nl_key_index *x = a, *y = b;
	int c = memcmp(x->key, y->key, WGX_KEY_LEN);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Set every entry's @group to the index of the first entry with the same public key. */
static int wgx_nl_group_peers(struct wgx_nl_set *req)
{
	struct wgx_nl_key_index *order;
	u32 i, first = 0;

	order = kvmalloc_array(req->nr_peers, sizeof(*order), GFP_KERNEL);
	if (!order)
		return -ENOMEM;
	for (i = 0; i < req->nr_peers; ++i) {
		order[i].key = req->peers[i].public_key;
		order[i].index = i;
	}
	sort(order, req->nr_peers, sizeof(*order), wgx_nl_key_index_cmp, NULL);
	for (i = 0; i < req->nr_peers; ++i) {
		if (i == 0 || memcmp(order[i].key, order[i - 1].key, WGX_KEY_LEN))
			first = order[i].index;
		req->peers[order[i].index].group = first;
	}
	kvfree(order);
	return 0;
}

/*
 * Phase 2: decide what every entry does, as applying them in order would.
 * Looks peers up (taking references kept in the groups) but changes nothing.
 */
static int wgx_nl_set_plan(struct wgx_nl_set *req)
{
	struct netlink_ext_ack *extack = req->info->extack;
	struct nlattr *key_attr = req->info->attrs[WGX_DEVICE_A_PRIVATE_KEY];
	struct wgx_device *wgx = req->wgx;
	const bool replace = req->flags & WGX_DEVICE_F_REPLACE_PEERS;
	u8 cur_private[WGX_KEY_LEN], cur_public[WGX_KEY_LEN], new_private[WGX_KEY_LEN];
	const u8 *own_public = NULL;
	u32 i, count, nr_creates = 0;
	bool has_cur;
	int ret = 0;

	down_read(&wgx->identity_lock);
	has_cur = wgx_noise_identity_get_keys(wgx->identity, cur_public, cur_private);
	up_read(&wgx->identity_lock);

	if (key_attr) {
		bool clear;

		memcpy(new_private, nla_data(key_attr), WGX_KEY_LEN);
		clear = !memchr_inv(new_private, 0, WGX_KEY_LEN);
		if (!clear)
			curve25519_clamp_secret(new_private);
		if (clear)
			req->key_change = has_cur;
		else
			req->key_change = !has_cur ||
					  crypto_memneq(new_private, cur_private, WGX_KEY_LEN);
		req->key_clear = clear;
		if (req->key_change && !clear &&
		    !curve25519_generate_public(req->new_public_key, new_private)) {
			NL_SET_ERR_MSG_ATTR(extack, key_attr, "private key yields no public key");
			ret = -EINVAL;
		}
		memzero_explicit(new_private, sizeof(new_private));
	}
	memzero_explicit(cur_private, sizeof(cur_private));
	if (ret)
		return ret;

	if (req->key_change)
		own_public = req->key_clear ? NULL : req->new_public_key;
	else if (has_cur)
		own_public = cur_public;

	/*
	 * Peers left when the entries start: wgx_device_set_private_key()
	 * removes the peer whose key becomes our own.
	 */
	count = replace ? 0 : wgx->num_peers;
	if (!replace && req->key_change && own_public) {
		struct wgx_peer *self;

		self = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, own_public);
		if (self) {
			--count;
			wgx_peer_put(self);
		}
	}

	if (!req->nr_peers)
		return 0;
	ret = wgx_nl_group_peers(req);
	if (ret)
		return ret;

	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i], *g = &req->peers[p->group];

		if (own_public && !memcmp(p->public_key, own_public, WGX_KEY_LEN)) {
			p->action = WGX_NL_PEER_SKIP; /* silently, as WireGuard */
			continue;
		}
		if (p->group == i && !replace) {
			g->live = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, p->public_key);
			g->existed = !!g->live;
			g->exists = g->existed;
		}
		if (p->flags & WGX_PEER_F_REMOVE_ME) {
			p->action = g->exists ? WGX_NL_PEER_REMOVE : WGX_NL_PEER_SKIP;
			if (g->exists) {
				g->exists = false;
				--count;
			}
			continue;
		}
		if (g->exists) {
			p->action = WGX_NL_PEER_UPDATE;
			continue;
		}
		if (p->flags & WGX_PEER_F_UPDATE_ONLY) {
			p->action = WGX_NL_PEER_SKIP;
			continue;
		}
		if (count >= WGX_MAX_PEERS_PER_DEVICE) {
			NL_SET_ERR_MSG_ATTR(extack, p->attr,
					    "the device would have too many peers");
			return -E2BIG;
		}
		++count;
		++nr_creates;
		g->exists = true;
		p->action = WGX_NL_PEER_CREATE;
		/*
		 * A key the device does not know yet: the peer can be created
		 * before anything else changes.  Not with REPLACE_PEERS, whose
		 * removal of every peer must come first.
		 */
		p->precreate = !replace && !g->existed && !g->created_once;
		g->created_once = true;
	}

	/*
	 * Creating early changes when peers exist: only do it if the device
	 * stays within the limit even before any removal makes room.
	 */
	if (wgx->num_peers + nr_creates > WGX_MAX_PEERS_PER_DEVICE) {
		for (i = 0; i < req->nr_peers; ++i)
			req->peers[i].precreate = false;
	}
	return 0;
}

static const u8 *wgx_nl_psk_or_null(const u8 *psk)
{
	return psk && memchr_inv(psk, 0, WGX_KEY_LEN) ? psk : NULL;
}

static int wgx_nl_create_peer(struct wgx_nl_set *req, struct wgx_nl_peer *p)
{
	struct wgx_nl_peer *g = &req->peers[p->group];
	struct wgx_peer *peer;

	peer = wgx_peer_create(req->wgx, p->public_key, wgx_nl_psk_or_null(p->preshared_key));
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	g->live = wgx_peer_get(peer);
	return 0;
}

/* Apply one peer entry (phase 3).  Only allocation failures are possible. */
static int wgx_nl_apply_peer(struct wgx_nl_set *req, struct wgx_nl_peer *p)
{
	struct netlink_ext_ack *extack = req->info->extack;
	struct wgx_nl_peer *g = &req->peers[p->group];
	struct wgx_device *wgx = req->wgx;
	struct wgx_allowedips *table = wgx->allowedips;
	struct wgx_peer *peer;
	bool is_new = false;
	u32 i;
	int ret;

	switch (p->action) {
	case WGX_NL_PEER_SKIP:
		return 0;
	case WGX_NL_PEER_REMOVE:
		wgx_peer_remove(g->live);
		wgx_peer_put(g->live);
		g->live = NULL;
		return 0;
	case WGX_NL_PEER_CREATE:
		if (!p->precreate) {
			ret = wgx_nl_create_peer(req, p);
			if (ret) {
				NL_SET_ERR_MSG_ATTR(extack, p->attr,
						    "cannot create the peer; earlier changes of this message stay applied");
				return ret;
			}
		}
		is_new = true;
		break;
	case WGX_NL_PEER_UPDATE:
		break;
	}
	peer = g->live;

	/* A new peer got its preshared key at creation. */
	if (p->preshared_key && !is_new) {
		down_read(&wgx->identity_lock);
		mutex_lock(&peer->handshake_lock);
		wgx_noise_handshake_set_preshared_key(peer->handshake,
						      wgx_nl_psk_or_null(p->preshared_key));
		mutex_unlock(&peer->handshake_lock);
		up_read(&wgx->identity_lock);
	}

	if (p->endpoint) {
		struct wgx_endpoint ep;

		memset(&ep, 0, sizeof(ep));
		if (nla_len(p->endpoint) == sizeof(struct sockaddr_in))
			memcpy(&ep.addr4, nla_data(p->endpoint), sizeof(ep.addr4));
		else
			memcpy(&ep.addr6, nla_data(p->endpoint), sizeof(ep.addr6));
		wgx_socket_set_peer_endpoint(peer, &ep);
	}

	if ((p->flags & WGX_PEER_F_REPLACE_ALLOWEDIPS) && !is_new)
		wgx_allowedips_remove_by_peer(table, peer);

	for (i = p->first_ip; i < p->first_ip + p->nr_ips; ++i) {
		const struct wgx_nl_allowedip *ip = &req->ips[i];

		if (ip->remove) {
			/* -ENOENT (absent, or another peer's) is not an error. */
			wgx_allowedips_remove(table, ip->family, ip->addr, ip->cidr, peer);
			continue;
		}
		ret = wgx_allowedips_insert(table, ip->family, ip->addr, ip->cidr, peer, true);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, ip->attr,
					    "cannot insert the allowed IP; earlier changes of this message stay applied");
			return ret;
		}
	}

	if (p->keepalive >= 0) {
		u16 old = READ_ONCE(peer->timer_state.persistent_keepalive_s);

		wgx_timers_set_persistent_keepalive(peer, p->keepalive);
		/* Turned on or changed while up: one keepalive now starts the cycle. */
		if (p->keepalive && p->keepalive != old && netif_running(wgx->dev))
			wgx_send_keepalive(peer);
	}
	return 0;
}

/* Undo the early creation of peers (phase 3 failed before any other change). */
static void wgx_nl_undo_precreate(struct wgx_nl_set *req)
{
	u32 i;

	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i], *g = &req->peers[p->group];

		if (p->precreate && g->live) {
			wgx_peer_remove(g->live);
			wgx_peer_put(g->live);
			g->live = NULL;
		}
	}
}

/* Phase 3. */
static int wgx_nl_set_apply(struct wgx_nl_set *req)
{
	struct netlink_ext_ack *extack = req->info->extack;
	struct nlattr **attrs = req->info->attrs;
	struct wgx_device *wgx = req->wgx;
	struct wgx_peer *peer;
	u32 i;
	int ret;

	/* Steps that can fail, and can be undone. */
	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i];

		if (!p->precreate)
			continue;
		ret = wgx_nl_create_peer(req, p);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, p->attr, "cannot create the peer");
			goto undo;
		}
	}
	if (req->port_change) {
		ret = wgx_device_set_listen_port(wgx, req->port, req->nports);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[WGX_DEVICE_A_LISTEN_PORT],
					    "cannot bind the UDP sockets to this port (or run of ports)");
			goto undo;
		}
	}

	/* From here on the device changes, in the order of the uapi. */
	if (req->flags & WGX_DEVICE_F_REPLACE_PEERS)
		wgx_peer_remove_all(wgx);

	if (req->key_change) {
		ret = wgx_device_set_private_key(wgx, req->key_clear ? NULL :
						 nla_data(attrs[WGX_DEVICE_A_PRIVATE_KEY]));
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[WGX_DEVICE_A_PRIVATE_KEY],
					    "cannot set the private key; earlier changes of this message stay applied");
			return ret;
		}
	}

	if (req->fwmark_change) {
		WRITE_ONCE(wgx->fwmark, req->fwmark);
		/* Routes may differ under the new mark: forget cached sources. */
		list_for_each_entry(peer, &wgx->peer_list, peer_list)
			wgx_socket_clear_peer_endpoint_src(peer);
	}

	for (i = 0; i < req->nr_peers; ++i) {
		ret = wgx_nl_apply_peer(req, &req->peers[i]);
		if (ret)
			return ret;
	}
	return 0;

undo:
	wgx_nl_undo_precreate(req);
	return ret;
}

static void wgx_nl_set_release(struct wgx_nl_set *req)
{
	u32 i;

	for (i = 0; i < req->nr_peers; ++i) {
		if (req->peers[i].live)
			wgx_peer_put(req->peers[i].live);
	}
	kvfree(req->ips);
	kvfree(req->peers);
}

/* Key material must not linger in the request (nor in an echoed error). */
static void wgx_nl_wipe_keys(struct genl_info *info)
{
	struct nlattr *peer, *psk;
	int rem;

	if (info->attrs[WGX_DEVICE_A_PRIVATE_KEY])
		memzero_explicit(nla_data(info->attrs[WGX_DEVICE_A_PRIVATE_KEY]),
				 nla_len(info->attrs[WGX_DEVICE_A_PRIVATE_KEY]));
	if (!info->attrs[WGX_DEVICE_A_PEERS])
		return;
	nla_for_each_nested(peer, info->attrs[WGX_DEVICE_A_PEERS], rem) {
		psk = nla_find_nested(peer, WGX_PEER_A_PRESHARED_KEY);
		if (psk)
			memzero_explicit(nla_data(psk), nla_len(psk));
	}
}

static int wgx_nl_set_device_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct wgx_nl_set req = { .info = info };
	struct wgx_device *wgx;
	int ret;

	wgx = wgx_device_lookup(genl_info_net(info), info->attrs, info->extack);
	if (IS_ERR(wgx)) {
		ret = PTR_ERR(wgx);
		goto out;
	}
	req.wgx = wgx;

	rtnl_lock();
	mutex_lock(&wgx->device_update_lock);
	ret = wgx_nl_set_parse(&req);
	if (!ret)
		ret = wgx_nl_set_plan(&req);
	if (!ret)
		ret = wgx_nl_set_apply(&req);
	wgx_nl_set_release(&req);
	mutex_unlock(&wgx->device_update_lock);
	rtnl_unlock();
	dev_put(wgx->dev);
out:
	wgx_nl_wipe_keys(info);
	return ret;
}

/* ==== family ==== */

static const struct genl_ops wgx_genl_ops[] = {
	{
		.cmd = WGX_CMD_GET_DEVICE,
		.start = wgx_nl_get_device_start,
		.dumpit = wgx_nl_get_device_dumpit,
		.done = wgx_nl_get_device_done,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = WGX_CMD_SET_DEVICE,
		.doit = wgx_nl_set_device_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

/*
 * resv_start_op stays 0: every command gets strict validation (unknown
 * attributes, wrong lengths, missing NLA_F_NESTED, reserved header bits and
 * unexpected nlmsg_flags are refused by the genetlink core).
 */
static struct genl_family wgx_genl_family __ro_after_init = {
	.ops = wgx_genl_ops,
	.n_ops = ARRAY_SIZE(wgx_genl_ops),
	.name = WGX_GENL_NAME,
	.version = WGX_GENL_VERSION,
	.maxattr = WGX_DEVICE_A_MAX,
	.policy = wgx_device_policy,
	.module = THIS_MODULE,
	.netnsok = true,
};

int __init wgx_genetlink_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(wgx_nl_peer_stats) != WGX_PEER_STATS_A_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(wgx_nl_device_stats) != WGX_DEVICE_STATS_A_MAX);
	BUILD_BUG_ON(WGX_NL_KEY_LEN != WGX_KEY_LEN);
	return genl_register_family(&wgx_genl_family);
}

void wgx_genetlink_uninit(void)
{
	genl_unregister_family(&wgx_genl_family);
}
