/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink_internal.h - what the three files of the generic netlink family
 * "wgx" share: netlink.c (registration, policies, device lookup),
 * netlink_get.c (WGX_CMD_GET_DEVICE) and netlink_set.c (WGX_CMD_SET_DEVICE).
 * Nothing else includes it; the module's entry points are in netlink.h.
 */
#ifndef WGX_NETLINK_INTERNAL_H
#define WGX_NETLINK_INTERNAL_H

#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/wgx.h>

struct net;
struct wgx_device;

/* The family, for genlmsg_put() of dump messages. */
extern struct genl_family wgx_netlink_family;

/*
 * Policies of the nested attributes, for nla_parse_nested() of SET_DEVICE
 * (the genetlink core validated them already; parsing fills the table).
 */
extern const struct nla_policy wgx_netlink_peer_policy[WGX_PEER_A_MAX + 1];
extern const struct nla_policy wgx_netlink_allowedip_policy[WGX_ALLOWEDIP_A_MAX + 1];

/**
 * wgx_netlink_lookup_device - the wgx device named by @attrs (exactly one of
 * WGX_DEVICE_A_IFINDEX and WGX_DEVICE_A_IFNAME) in @net, with a reference on
 * its net_device (dev_put(wgx->dev) when done).  Returns ERR_PTR(-EBADR)
 * without exactly one of them, -ENODEV when there is no such device,
 * -EOPNOTSUPP when it is not of link kind "wgx" (its rtnl_link_ops are not
 * ours).  Process context.
 */
struct wgx_device *wgx_netlink_lookup_device(struct net *net, struct nlattr **attrs,
					     struct netlink_ext_ack *extack);

/*
 * WGX_CMD_GET_DEVICE (netlink_get.c), the start/dumpit/done callbacks of a
 * dump.  start looks the device up (errors as wgx_netlink_lookup_device());
 * dumpit takes device_update_lock per message; done drops the references.
 */
int wgx_netlink_get_start(struct netlink_callback *cb);
int wgx_netlink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int wgx_netlink_get_done(struct netlink_callback *cb);

/*
 * WGX_CMD_SET_DEVICE (netlink_set.c): parse, plan and apply one message
 * under rtnl_lock and device_update_lock.  Returns 0 or the negative errno
 * the uapi documents, with an extack message naming the attribute.
 */
int wgx_netlink_set_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* WGX_NETLINK_INTERNAL_H */
