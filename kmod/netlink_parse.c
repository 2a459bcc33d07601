// SPDX-License-Identifier: GPL-2.0
/*
 * netlink_parse.c - phase 1 of SET_DEVICE (netlink_set.c has the whole
 * story): every attribute of the message is checked against
 * include/uapi/linux/wgx.h and copied into a struct wgx_nl_set; nothing is
 * looked up and nothing changes.  Through the "wireguard" family only
 * WireGuard's attributes exist (struct wgx_nl_flavour, wgx_nl_attr()).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/wgx.h>
#include <wgx/core.h>

#include "device.h"
#include "netlink_set.h"

static int wgx_nl_parse_allowedip(const struct wgx_nl_flavour *flavour, struct wgx_nl_allowedip *ip,
				  const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	/* Zeroed: nla_parse_nested() fills only up to the flavour's maxattr. */
	struct nlattr *tb[WGX_ALLOWEDIP_A_MAX + 1] = {};
	unsigned int addr_len, max_cidr;
	int ret;

	ret = nla_parse_nested(tb, flavour->allowedip_maxattr, attr, flavour->allowedip_policy,
			       extack);
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

/*
 * A WGX_PEER_A_ENDPOINT that is a whole sockaddr_in or sockaddr_in6 of its
 * family.  The "wgx" family's policy refuses any other; the "wireguard"
 * family's accepts every one of at least 16 bytes, and WireGuard then
 * ignores one it cannot use, so that family ignores it too.
 */
static bool wgx_nl_endpoint_usable(const struct nlattr *attr)
{
	const struct sockaddr *addr = nla_data(attr);

	return (nla_len(attr) == sizeof(struct sockaddr_in) && addr->sa_family == AF_INET) ||
	       (nla_len(attr) == sizeof(struct sockaddr_in6) && addr->sa_family == AF_INET6);
}

static int wgx_nl_parse_peer(const struct wgx_nl_flavour *flavour, struct wgx_nl_peer *p,
			     const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	/* Zeroed: nla_parse_nested() fills only up to the flavour's maxattr. */
	struct nlattr *tb[WGX_PEER_A_MAX + 1] = {}, *ip;
	int ret, rem;

	ret = nla_parse_nested(tb, flavour->peer_maxattr, attr, flavour->peer_policy, extack);
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
	/* Not an attribute of the "wireguard" family (its tb[] ends before). */
	if (flavour->peer_maxattr >= WGX_PEER_A_NEW_PUBLIC_KEY)
		p->new_key = tb[WGX_PEER_A_NEW_PUBLIC_KEY];
	p->endpoint = tb[WGX_PEER_A_ENDPOINT];
	if (p->endpoint && !wgx_nl_endpoint_usable(p->endpoint))
		p->endpoint = NULL; /* only the "wireguard" policy lets one through */
	p->keepalive = tb[WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL] ?
		       nla_get_u16(tb[WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL]) : -1;
	p->mtu = -1;
	if (flavour->peer_maxattr >= WGX_PEER_A_MTU && tb[WGX_PEER_A_MTU]) {
		u32 mtu = nla_get_u32(tb[WGX_PEER_A_MTU]);

		if (mtu && (mtu < WGX_MIN_PEER_MTU || mtu > WGX_MAX_PEER_MTU)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[WGX_PEER_A_MTU],
					    "WGX_PEER_A_MTU: 0 (auto) or 576..65455 inner bytes");
			return -ERANGE;
		}
		p->mtu = mtu;
	}
	p->allowedips = tb[WGX_PEER_A_ALLOWEDIPS];
	if (p->allowedips)
		nla_for_each_nested(ip, p->allowedips, rem)
			++p->nr_ips;
	return 0;
}

/* Phase 1 of SET_DEVICE (netlink_set.h). */
int wgx_netlink_parse_set(struct wgx_nl_set *req)
{
	struct nlattr **attrs = req->info->attrs;
	/* Not an attribute of the "wireguard" family (its attrs[] ends before). */
	struct nlattr *listen_ports = wgx_nl_attr(req->flavour, attrs, WGX_DEVICE_A_LISTEN_PORTS);
	struct nlattr *rx_spread = wgx_nl_attr(req->flavour, attrs, WGX_DEVICE_A_RX_SPREAD);
	struct nlattr *dscp = wgx_nl_attr(req->flavour, attrs, WGX_DEVICE_A_DSCP);
	struct nlattr *priority_dscp = wgx_nl_attr(req->flavour, attrs, WGX_DEVICE_A_PRIORITY_DSCP);
	struct nlattr *budget = wgx_nl_attr(req->flavour, attrs, WGX_DEVICE_A_HANDSHAKE_BUDGET);
	struct nlattr *grace = wgx_nl_attr(req->flavour, attrs, WGX_DEVICE_A_KEY_GRACE);
	struct nlattr *mtu_auto = wgx_nl_attr(req->flavour, attrs, WGX_DEVICE_A_MTU_AUTO);
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

	if (attrs[WGX_DEVICE_A_LISTEN_PORT] || listen_ports || attrs[WGX_DEVICE_A_FWMARK]) {
		struct nlattr *which = attrs[WGX_DEVICE_A_LISTEN_PORT] ?: listen_ports ?:
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
		req->port_given = true;
	}
	if (listen_ports) {
		req->nports = nla_get_u16(listen_ports);
		req->port_change = true;
	}
	if (rx_spread) {
		req->rx_spread = nla_get_u8(rx_spread);
		req->rx_spread_change = req->rx_spread != READ_ONCE(wgx->rx_spread);
	}
	/* The policy bounds DSCP to enum wgx_dscp_mode; any u64 is a DSCP set. */
	if (dscp) {
		req->dscp_copy = nla_get_u8(dscp) == WGX_DSCP_COPY;
		req->dscp_change = true;
	}
	if (priority_dscp) {
		req->priority_dscp = nla_get_u64(priority_dscp);
		req->priority_dscp_change = true;
	}
	if (budget) {
		req->handshake_budget = nla_get_u32(budget);
		if (req->handshake_budget > WGX_MAX_HANDSHAKE_BUDGET) {
			NL_SET_ERR_MSG_ATTR(extack, budget,
					    "WGX_DEVICE_A_HANDSHAKE_BUDGET above 1000000 initiations per second (0 = automatic)");
			return -ERANGE;
		}
		req->handshake_budget_change = true;
	}
	if (mtu_auto) {
		req->mtu_auto = nla_get_u8(mtu_auto);
		req->mtu_auto_change = true;
	}
	if (grace) {
		req->key_grace_s = nla_get_u32(grace);
		if (req->key_grace_s > WGX_MAX_KEY_GRACE) {
			NL_SET_ERR_MSG_ATTR(extack, grace,
					    "WGX_DEVICE_A_KEY_GRACE above 86400 seconds");
			return -ERANGE;
		}
		req->key_grace_change = true;
	}
	/* Automatic ports (0) past the first are wherever the kernel puts them. */
	if (req->port_change && req->nports && (u32)req->port + req->nports - 1 > U16_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, listen_ports ?: attrs[WGX_DEVICE_A_LISTEN_PORT],
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
		ret = wgx_nl_parse_peer(req->flavour, &req->peers[i], attr, extack);
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
			ret = wgx_nl_parse_allowedip(req->flavour, &req->ips[k++], ip, extack);
			if (ret)
				return ret;
		}
	}
	return 0;
}
