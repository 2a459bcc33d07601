// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink family "wgx": its registration, the
 * attribute policies and the device lookup both commands share.  The
 * commands are in netlink_get.c (WGX_CMD_GET_DEVICE, a dump of one device's
 * configuration, peers, allowed IPs and counters) and netlink_set.c
 * (WGX_CMD_SET_DEVICE, configuration).  include/uapi/linux/wgx.h is the
 * specification of both; the behaviour of a valid request is WireGuard's.
 */
#include <linux/if.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/time_types.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/wgx.h>
#include <wgx/core.h>

#include "device.h"
#include "netlink.h"
#include "netlink_internal.h"

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
 * wgx_nl_parse_allowedip() of netlink_set.c, flag bits (-EOPNOTSUPP, as in
 * WireGuard) in the parse functions there.  All of it before any change.
 */
const struct nla_policy wgx_netlink_allowedip_policy[WGX_ALLOWEDIP_A_MAX + 1] = {
	[WGX_ALLOWEDIP_A_FAMILY]	= { .type = NLA_U16 },
	[WGX_ALLOWEDIP_A_IPADDR]	= WGX_NL_BINARY(wgx_nl_validate_ipaddr),
	[WGX_ALLOWEDIP_A_CIDR_MASK]	= { .type = NLA_U8 },
	[WGX_ALLOWEDIP_A_FLAGS]		= { .type = NLA_U32 },
};

const struct nla_policy wgx_netlink_peer_policy[WGX_PEER_A_MAX + 1] = {
	[WGX_PEER_A_PUBLIC_KEY]		= WGX_NL_KEY_POLICY,
	[WGX_PEER_A_PRESHARED_KEY]	= WGX_NL_KEY_POLICY,
	[WGX_PEER_A_FLAGS]		= { .type = NLA_U32 },
	[WGX_PEER_A_ENDPOINT]		= WGX_NL_BINARY(wgx_nl_validate_endpoint),
	[WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL] = { .type = NLA_U16 },
	/* Read-only attributes: accepted (so a dump can be sent back) and ignored. */
	[WGX_PEER_A_LAST_HANDSHAKE_TIME] = WGX_NL_BINARY(wgx_nl_validate_timespec),
	[WGX_PEER_A_RX_BYTES]		= { .type = NLA_U64 },
	[WGX_PEER_A_TX_BYTES]		= { .type = NLA_U64 },
	[WGX_PEER_A_ALLOWEDIPS]		= NLA_POLICY_NESTED_ARRAY(wgx_netlink_allowedip_policy),
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
	[WGX_DEVICE_A_PEERS]		= NLA_POLICY_NESTED_ARRAY(wgx_netlink_peer_policy),
	[WGX_DEVICE_A_STATS]		= { .type = NLA_NESTED },
	[WGX_DEVICE_A_LISTEN_PORTS]	= NLA_POLICY_RANGE(NLA_U16, 1, WGX_MAX_LISTEN_PORTS),
	[WGX_DEVICE_A_RX_SPREAD]	= NLA_POLICY_MAX(NLA_U8, 1),
};

/* ---- device lookup (netlink_internal.h) ---- */

struct wgx_device *wgx_netlink_lookup_device(struct net *net, struct nlattr **attrs,
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

/* ==== family ==== */

static const struct genl_ops wgx_genl_ops[] = {
	{
		.cmd = WGX_CMD_GET_DEVICE,
		.start = wgx_netlink_get_start,
		.dumpit = wgx_netlink_get_dumpit,
		.done = wgx_netlink_get_done,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = WGX_CMD_SET_DEVICE,
		.doit = wgx_netlink_set_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

/*
 * resv_start_op stays 0: every command gets strict validation (unknown
 * attributes, wrong lengths, missing NLA_F_NESTED, reserved header bits and
 * unexpected nlmsg_flags are refused by the genetlink core).
 */
struct genl_family wgx_netlink_family __ro_after_init = {
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
	BUILD_BUG_ON(WGX_NL_KEY_LEN != WGX_KEY_LEN);
	return genl_register_family(&wgx_netlink_family);
}

void wgx_genetlink_uninit(void)
{
	genl_unregister_family(&wgx_netlink_family);
}
