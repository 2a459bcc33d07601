/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink_internal.h - what the files of the generic netlink families
 * share: netlink.c (registration, policies, device lookup), netlink_get.c
 * (GET_DEVICE), netlink_parse.c and netlink_set.c (SET_DEVICE).  Nothing else includes it;
 * the module's entry points are in netlink.h.
 *
 * The same handlers serve two families, each described by a struct
 * wgx_nl_flavour: "wgx" (include/uapi/linux/wgx.h, always registered) and,
 * with the module parameter compat=wireguard, "wireguard", which keeps the
 * in-tree module's contract exactly (docs/dropin.md).
 */
#ifndef WGX_NETLINK_INTERNAL_H
#define WGX_NETLINK_INTERNAL_H

#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/wgx.h>

struct net;
struct wgx_device;

/**
 * struct wgx_nl_flavour - what differs between the "wgx" and "wireguard" families.
 * @family: the family, for genlmsg_put() of dump messages.
 * @device_maxattr: the family's maxattr: info->attrs has this many + 1
 *                  entries, so an attribute above it must not be looked at.
 * @peer_policy, @peer_maxattr: policy and highest type of a peer (nested in
 *                  DEVICE_A_PEERS), for nla_parse_nested() in SET_DEVICE.
 * @allowedip_policy, @allowedip_maxattr: the same for one allowed IP.
 * @wireguard: the "wireguard" family, WireGuard's contract: it serves only
 *             devices of link kind "wireguard", replies carry no wgx
 *             extension attribute (counters, LISTEN_PORTS), requests
 *             carrying one fail as an unknown attribute does there (-EINVAL),
 *             and an endpoint of a size other than a sockaddr_in/in6 (at
 *             least 16 bytes) is ignored instead of refused.
 */
struct wgx_nl_flavour {
	struct genl_family *family;
	unsigned int device_maxattr;
	const struct nla_policy *peer_policy;
	unsigned int peer_maxattr;
	const struct nla_policy *allowedip_policy;
	unsigned int allowedip_maxattr;
	bool wireguard;
};

extern const struct wgx_nl_flavour wgx_nl_flavour_wgx;
extern const struct wgx_nl_flavour wgx_nl_flavour_wireguard;

/**
 * wgx_nl_attr - @attrs[@type] of a request of @flavour, or NULL when the
 * family does not know @type (the array ends at the family's maxattr).
 */
static inline struct nlattr *wgx_nl_attr(const struct wgx_nl_flavour *flavour,
					 struct nlattr **attrs, unsigned int type)
{
	return type <= flavour->device_maxattr ? attrs[type] : NULL;
}

/**
 * wgx_netlink_lookup_device - the device named by @attrs (exactly one of
 * DEVICE_A_IFINDEX and DEVICE_A_IFNAME) in @net, with a reference on its
 * net_device (dev_put(wgx->dev) when done).  Returns ERR_PTR(-EBADR)
 * without exactly one of them, -ENODEV when there is no such device,
 * -EOPNOTSUPP when @flavour does not serve it: the "wgx" family serves every
 * wgx device (link kind "wgx" or, in drop-in mode, "wireguard"), the
 * "wireguard" family only those of link kind "wireguard".  Process context.
 */
struct wgx_device *wgx_netlink_lookup_device(const struct wgx_nl_flavour *flavour,
					     struct net *net, struct nlattr **attrs,
					     struct netlink_ext_ack *extack);

/*
 * GET_DEVICE (netlink_get.c), the start/dumpit/done callbacks of a dump;
 * one start per family, which records the flavour for dumpit.  start looks
 * the device up (errors as wgx_netlink_lookup_device()); dumpit takes
 * device_update_lock per message; done drops the references.
 */
int wgx_netlink_get_start(struct netlink_callback *cb);
int wgx_netlink_wg_get_start(struct netlink_callback *cb);
int wgx_netlink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int wgx_netlink_get_done(struct netlink_callback *cb);

/*
 * SET_DEVICE (netlink_set.c), one doit per family: parse, plan and apply
 * one message under rtnl_lock and device_update_lock.  Returns 0 or the
 * negative errno the uapi documents, with an extack message naming the
 * attribute.
 */
int wgx_netlink_set_doit(struct sk_buff *skb, struct genl_info *info);
int wgx_netlink_wg_set_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* WGX_NETLINK_INTERNAL_H */
