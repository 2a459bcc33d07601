/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink_set.h - the SET_DEVICE request as netlink_parse.c builds it and
 * netlink_set.c plans and applies it.  Private to those two files.
 */
#ifndef WGX_NETLINK_SET_H
#define WGX_NETLINK_SET_H

#include <linux/types.h>
#include <net/genetlink.h>

#include <wgx/core.h>

#include "netlink_internal.h"

struct wgx_device;
struct wgx_peer;

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
	const struct nlattr *new_key;	/* WGX_PEER_A_NEW_PUBLIC_KEY (32 bytes), or NULL */
	const struct nlattr *endpoint;	/* validated sockaddr_in/in6, or NULL */
	const struct nlattr *allowedips;
	u32 flags;
	int keepalive;			/* seconds, -1 when absent */
	s32 mtu;			/* WGX_PEER_A_MTU: inner bytes, 0 = auto, -1 when absent */
	u32 first_ip, nr_ips;		/* in wgx_nl_set::ips */
	u32 group;
	enum wgx_nl_peer_action action;
	bool precreate;			/* created before any change is made */
	bool endpoint_moved;		/* an existing peer's endpoint changed (phase 3) */

	struct wgx_peer *live;
	bool exists, existed, created_once;
};

struct wgx_nl_set {
	const struct wgx_nl_flavour *flavour;
	struct wgx_device *wgx;
	struct genl_info *info;
	u32 flags;

	bool key_change, key_clear;
	u8 new_public_key[WGX_KEY_LEN];
	bool port_change;
	bool port_given;	/* WGX_DEVICE_A_LISTEN_PORT present: @port is the user's */
	u16 port;
	u16 nports;
	bool rx_spread_change;
	u8 rx_spread;
	bool dscp_change;
	bool dscp_copy;
	bool priority_dscp_change;
	u64 priority_dscp;
	bool handshake_budget_change;
	u32 handshake_budget;
	bool key_grace_change;
	u32 key_grace_s;		/* WGX_DEVICE_A_KEY_GRACE, seconds */
	bool fwmark_change;
	u32 fwmark;
	bool mtu_auto_change;
	bool mtu_auto;			/* WGX_DEVICE_A_MTU_AUTO */

	struct wgx_nl_peer *peers;
	u32 nr_peers;
	struct wgx_nl_allowedip *ips;
	u32 nr_ips;
};

/**
 * wgx_netlink_parse_set - phase 1 of SET_DEVICE: check every attribute of
 * @req->info (device, each peer, each allowed IP) against the uapi and copy
 * what the later phases need into @req (peers[], ips[], allocated here and
 * freed by the caller with kvfree() whatever the result).  Reads the
 * message and, for the permission check, the device's creating namespace:
 * no peer lookups, no state changes.
 * Context: process, under rtnl_lock and the device's device_update_lock.
 * Return: 0, or a negative errno with an extack message naming the
 * attribute (-EINVAL, -ERANGE (also a handshake budget above
 * WGX_MAX_HANDSHAKE_BUDGET), -EAFNOSUPPORT, -EPFNOSUPPORT, -ENOMEM; -EPERM
 * for a listen port or fwmark without CAP_NET_ADMIN in the namespace that
 * created the device).
 */
int wgx_netlink_parse_set(struct wgx_nl_set *req);

#endif /* WGX_NETLINK_SET_H */
