// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink families: their registration, the
 * attribute policies and the device lookup both commands share.  The
 * commands are in netlink_get.c (GET_DEVICE, a dump of one device's
 * configuration, peers, allowed IPs and counters) and netlink_set.c
 * (SET_DEVICE, configuration).
 *
 * Two families run on the same handlers (struct wgx_nl_flavour):
 *   "wgx"        always; include/uapi/linux/wgx.h is its specification.
 *   "wireguard"  only in drop-in mode (module parameter compat=wireguard,
 *                docs/dropin.md): WireGuard's family, with the command
 *                numbers, attribute numbers, policies and so the errors of
 *                the in-tree module's <linux/wireguard.h> of the kernel wgx
 *                is built for, so wg(8), wg-quick(8) and systemd-networkd
 *                configure wgx devices of link kind "wireguard" unchanged.
 */
#include <linux/if.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <linux/time_types.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/wgx.h>
#include <uapi/linux/wireguard.h>
#include <wgx/core.h>

#include "compat.h"
#include "device.h"
#include "netlink.h"
#include "netlink_internal.h"

/* ---- "wgx": attribute policies (strict validation by the genetlink core) ---- */

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
	[WGX_PEER_A_NEW_PUBLIC_KEY]	= WGX_NL_KEY_POLICY,
	[WGX_PEER_A_SESSION_KEYS]	= { .type = NLA_U32 },	/* read-only, ignored */
	[WGX_PEER_A_PATH_MTU]		= { .type = NLA_U32 },	/* read-only, ignored */
	[WGX_PEER_A_PATH_MTU_SOURCE]	= { .type = NLA_U32 },	/* read-only, ignored */
	[WGX_PEER_A_MTU]		= { .type = NLA_U32 },	/* range: wgx_nl_parse_peer() */
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
	[WGX_DEVICE_A_LISTEN_PORTS]	= NLA_POLICY_MAX(NLA_U16, WGX_MAX_LISTEN_PORTS),
	[WGX_DEVICE_A_RX_SPREAD]	= NLA_POLICY_MAX(NLA_U8, WGX_RX_SPREAD_AUTO),
	[WGX_DEVICE_A_DSCP]		= NLA_POLICY_MAX(NLA_U8, WGX_DSCP_COPY),
	[WGX_DEVICE_A_PRIORITY_DSCP]	= { .type = NLA_U64 },
	/* Range-checked in netlink_parse.c, whose extack names the attribute. */
	[WGX_DEVICE_A_HANDSHAKE_BUDGET]	= { .type = NLA_U32 },
	[WGX_DEVICE_A_KEY_GRACE]	= { .type = NLA_U32 },
	[WGX_DEVICE_A_PREVIOUS_PUBLIC_KEY] = WGX_NL_KEY_POLICY,	/* read-only, ignored */
	[WGX_DEVICE_A_GET_FLAGS]	= { .type = NLA_U32 },	/* GET request only; ignored by SET */
	[WGX_DEVICE_A_MTU_AUTO]		= NLA_POLICY_MAX(NLA_U8, 1),
	[WGX_DEVICE_A_LISTEN_PORTS_AUTO] = { .type = NLA_U16 },	/* read-only, ignored */
};

/* ---- "wireguard": WireGuard's policies ---- */

/*
 * The in-tree module's policies (drivers/net/wireguard/netlink.c), by its
 * names: the same types and lengths give the same verdicts and errors (a key
 * of the wrong length fails with -ERANGE here, where the "wgx" family says
 * -EINVAL).  The nested peers and allowed IPs are parsed one by one with
 * nla_parse_nested() as there, strictly: an attribute type the family does
 * not know, such as wgx's WGX_PEER_A_STATS or WGX_ALLOWEDIP_A_FLAGS, fails
 * with -EINVAL, as does WGX_DEVICE_A_STATS or WGX_DEVICE_A_LISTEN_PORTS at
 * the top level (the genetlink core validates strictly against maxattr).
 */
static const struct nla_policy wg_allowedip_policy[WGALLOWEDIP_A_MAX + 1] = {
	[WGALLOWEDIP_A_FAMILY]		= { .type = NLA_U16 },
	[WGALLOWEDIP_A_IPADDR]		= NLA_POLICY_MIN_LEN(sizeof(struct in_addr)),
	[WGALLOWEDIP_A_CIDR_MASK]	= { .type = NLA_U8 },
};

static const struct nla_policy wg_peer_policy[WGPEER_A_MAX + 1] = {
	[WGPEER_A_PUBLIC_KEY]		= NLA_POLICY_EXACT_LEN(WGX_NL_KEY_LEN),
	[WGPEER_A_PRESHARED_KEY]	= NLA_POLICY_EXACT_LEN(WGX_NL_KEY_LEN),
	[WGPEER_A_FLAGS]		= { .type = NLA_U32 },
	[WGPEER_A_ENDPOINT]		= NLA_POLICY_MIN_LEN(sizeof(struct sockaddr)),
	[WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL] = { .type = NLA_U16 },
	[WGPEER_A_LAST_HANDSHAKE_TIME]	= NLA_POLICY_EXACT_LEN(sizeof(struct __kernel_timespec)),
	[WGPEER_A_RX_BYTES]		= { .type = NLA_U64 },
	[WGPEER_A_TX_BYTES]		= { .type = NLA_U64 },
	[WGPEER_A_ALLOWEDIPS]		= { .type = NLA_NESTED },
	[WGPEER_A_PROTOCOL_VERSION]	= { .type = NLA_U32 },
};

static const struct nla_policy wg_device_policy[WGDEVICE_A_MAX + 1] = {
	[WGDEVICE_A_IFINDEX]		= { .type = NLA_U32 },
	[WGDEVICE_A_IFNAME]		= { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[WGDEVICE_A_PRIVATE_KEY]	= NLA_POLICY_EXACT_LEN(WGX_NL_KEY_LEN),
	[WGDEVICE_A_PUBLIC_KEY]		= NLA_POLICY_EXACT_LEN(WGX_NL_KEY_LEN),
	[WGDEVICE_A_FLAGS]		= { .type = NLA_U32 },
	[WGDEVICE_A_LISTEN_PORT]	= { .type = NLA_U16 },
	[WGDEVICE_A_FWMARK]		= { .type = NLA_U32 },
	[WGDEVICE_A_PEERS]		= { .type = NLA_NESTED },
};

/*
 * The handlers use the WGX_ names; the numbers they stand for must be
 * WireGuard's (include/uapi/linux/wgx.h promises it), checked here against
 * the kernel's own <linux/wireguard.h>.  The "wireguard" family's maxattrs
 * are that header's, so it knows exactly the attributes the in-tree module
 * of this kernel knows.  WGX_NL_SAME: two constants of different enums
 * (or defines) are equal.
 */
#define WGX_NL_SAME(a, b) BUILD_BUG_ON((int)(a) != (int)(b))

static void __init wgx_nl_check_wireguard_numbers(void)
{
	WGX_NL_SAME(WGX_CMD_GET_DEVICE, WG_CMD_GET_DEVICE);
	WGX_NL_SAME(WGX_CMD_SET_DEVICE, WG_CMD_SET_DEVICE);
	WGX_NL_SAME(WGX_GENL_VERSION, WG_GENL_VERSION);
	WGX_NL_SAME(WGX_NL_KEY_LEN, WG_KEY_LEN);
	WGX_NL_SAME(WGX_DEVICE_F_ALL, __WGDEVICE_F_ALL);
	WGX_NL_SAME(WGX_PEER_F_ALL, __WGPEER_F_ALL);
	WGX_NL_SAME(WGX_DEVICE_F_REPLACE_PEERS, WGDEVICE_F_REPLACE_PEERS);
	WGX_NL_SAME(WGX_PEER_F_REMOVE_ME, WGPEER_F_REMOVE_ME);
	WGX_NL_SAME(WGX_PEER_F_REPLACE_ALLOWEDIPS, WGPEER_F_REPLACE_ALLOWEDIPS);
	WGX_NL_SAME(WGX_PEER_F_UPDATE_ONLY, WGPEER_F_UPDATE_ONLY);
	WGX_NL_SAME(WGX_DEVICE_A_IFINDEX, WGDEVICE_A_IFINDEX);
	WGX_NL_SAME(WGX_DEVICE_A_IFNAME, WGDEVICE_A_IFNAME);
	WGX_NL_SAME(WGX_DEVICE_A_PRIVATE_KEY, WGDEVICE_A_PRIVATE_KEY);
	WGX_NL_SAME(WGX_DEVICE_A_PUBLIC_KEY, WGDEVICE_A_PUBLIC_KEY);
	WGX_NL_SAME(WGX_DEVICE_A_FLAGS, WGDEVICE_A_FLAGS);
	WGX_NL_SAME(WGX_DEVICE_A_LISTEN_PORT, WGDEVICE_A_LISTEN_PORT);
	WGX_NL_SAME(WGX_DEVICE_A_FWMARK, WGDEVICE_A_FWMARK);
	WGX_NL_SAME(WGX_DEVICE_A_PEERS, WGDEVICE_A_PEERS);
	WGX_NL_SAME(WGX_PEER_A_PUBLIC_KEY, WGPEER_A_PUBLIC_KEY);
	WGX_NL_SAME(WGX_PEER_A_PRESHARED_KEY, WGPEER_A_PRESHARED_KEY);
	WGX_NL_SAME(WGX_PEER_A_FLAGS, WGPEER_A_FLAGS);
	WGX_NL_SAME(WGX_PEER_A_ENDPOINT, WGPEER_A_ENDPOINT);
	WGX_NL_SAME(WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL,
		    WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL);
	WGX_NL_SAME(WGX_PEER_A_LAST_HANDSHAKE_TIME, WGPEER_A_LAST_HANDSHAKE_TIME);
	WGX_NL_SAME(WGX_PEER_A_RX_BYTES, WGPEER_A_RX_BYTES);
	WGX_NL_SAME(WGX_PEER_A_TX_BYTES, WGPEER_A_TX_BYTES);
	WGX_NL_SAME(WGX_PEER_A_ALLOWEDIPS, WGPEER_A_ALLOWEDIPS);
	WGX_NL_SAME(WGX_PEER_A_PROTOCOL_VERSION, WGPEER_A_PROTOCOL_VERSION);
	WGX_NL_SAME(WGX_ALLOWEDIP_A_FAMILY, WGALLOWEDIP_A_FAMILY);
	WGX_NL_SAME(WGX_ALLOWEDIP_A_IPADDR, WGALLOWEDIP_A_IPADDR);
	WGX_NL_SAME(WGX_ALLOWEDIP_A_CIDR_MASK, WGALLOWEDIP_A_CIDR_MASK);
	/* wgx's extensions come after WireGuard's last numbers. */
	BUILD_BUG_ON((int)WGX_DEVICE_A_STATS <= (int)WGDEVICE_A_MAX);
	BUILD_BUG_ON((int)WGX_PEER_A_STATS <= (int)WGPEER_A_MAX);
	/*
	 * WGX_ALLOWEDIP_A_FLAGS is WireGuard's too from Linux 6.16 on; the
	 * supported kernels (compat.h) do not know it, and neither does the
	 * "wireguard" family.  A kernel whose header has it needs it in
	 * wg_allowedip_policy.
	 */
	WGX_NL_SAME(WGALLOWEDIP_A_MAX, WGX_ALLOWEDIP_A_CIDR_MASK);
}

/* ---- the two flavours (netlink_internal.h) ---- */

static struct genl_family wgx_genl_family;
static struct genl_family wgx_wg_genl_family;

const struct wgx_nl_flavour wgx_nl_flavour_wgx = {
	.family			= &wgx_genl_family,
	.device_maxattr		= WGX_DEVICE_A_MAX,
	.peer_policy		= wgx_peer_policy,
	.peer_maxattr		= WGX_PEER_A_MAX,
	.allowedip_policy	= wgx_allowedip_policy,
	.allowedip_maxattr	= WGX_ALLOWEDIP_A_MAX,
	.wireguard		= false,
};

const struct wgx_nl_flavour wgx_nl_flavour_wireguard = {
	.family			= &wgx_wg_genl_family,
	.device_maxattr		= WGDEVICE_A_MAX,
	.peer_policy		= wg_peer_policy,
	.peer_maxattr		= WGPEER_A_MAX,
	.allowedip_policy	= wg_allowedip_policy,
	.allowedip_maxattr	= WGALLOWEDIP_A_MAX,
	.wireguard		= true,
};

/* ---- device lookup (netlink_internal.h) ---- */

struct wgx_device *wgx_netlink_lookup_device(const struct wgx_nl_flavour *flavour,
					     struct net *net, struct nlattr **attrs,
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
	if (flavour->wireguard && !wgx_device_is_wireguard_kind(dev)) {
		dev_put(dev);
		NL_SET_ERR_MSG_ATTR(extack, ifindex ?: ifname, "not a wireguard device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!wgx_device_is_wgx(dev)) {
		dev_put(dev);
		NL_SET_ERR_MSG_ATTR(extack, ifindex ?: ifname, "not a wgx device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return netdev_priv(dev);
}

/* ==== families ==== */

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

static const struct genl_ops wgx_wg_genl_ops[] = {
	{
		.cmd = WG_CMD_GET_DEVICE,
		.start = wgx_netlink_wg_get_start,
		.dumpit = wgx_netlink_get_dumpit,
		.done = wgx_netlink_get_done,
		.flags = GENL_UNS_ADMIN_PERM,
	}, {
		.cmd = WG_CMD_SET_DEVICE,
		.doit = wgx_netlink_wg_set_doit,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

/*
 * As the in-tree module registers its family: strict attribute validation
 * (no .validate flags), and resv_start_op after its two commands, so the
 * genetlink header's reserved byte and the nlmsg_flags are not checked for
 * them, exactly as there.
 */
static struct genl_family wgx_wg_genl_family __ro_after_init = {
	.ops = wgx_wg_genl_ops,
	.n_ops = ARRAY_SIZE(wgx_wg_genl_ops),
	.resv_start_op = WG_CMD_SET_DEVICE + 1,
	.name = WG_GENL_NAME,
	.version = WG_GENL_VERSION,
	.maxattr = WGDEVICE_A_MAX,
	.policy = wg_device_policy,
	.module = THIS_MODULE,
	.netnsok = true,
};

int __init wgx_genetlink_init(void)
{
	BUILD_BUG_ON(WGX_NL_KEY_LEN != WGX_KEY_LEN);
	wgx_nl_check_wireguard_numbers();
	return genl_register_family(&wgx_genl_family);
}

void wgx_genetlink_uninit(void)
{
	genl_unregister_family(&wgx_genl_family);
}

int __init wgx_genetlink_wg_init(void)
{
	return genl_register_family(&wgx_wg_genl_family);
}

void wgx_genetlink_wg_uninit(void)
{
	genl_unregister_family(&wgx_wg_genl_family);
}
