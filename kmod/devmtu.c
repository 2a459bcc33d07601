// SPDX-License-Identifier: GPL-2.0
/*
 * devmtu.c - the device MTU "auto", derived from the underlay and kept
 * current.  See devmtu.h.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/udp.h>
#include <net/ip_fib.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>

#include "device.h"
#include "devmtu.h"
#include "peer.h"
#include "pmtu.h"

/*
 * Outer bytes around an inner packet: IPv6's 40 + UDP's 8 + WireGuard's 32,
 * whatever the endpoints' family, as wg-quick: the device MTU serves every
 * peer, an endpoint may roam to the other family, and each peer's path MTU
 * (pmtu.h) is sized for its own family.
 */
#define WGX_DEVMTU_OVERHEAD	(sizeof(struct ipv6hdr) + sizeof(struct udphdr) + WGX_PMTU_MSG_OVERHEAD)

/* The MTU of the outer route to @peer's endpoint (bytes), 0 = none. */
static u32 wgx_devmtu_route(struct wgx_device *wgx, struct net *net, struct wgx_peer *peer)
{
	struct wgx_endpoint ep;
	u32 mtu = 0;

	read_lock_bh(&peer->endpoint_lock);
	ep = peer->endpoint;
	read_unlock_bh(&peer->endpoint_lock);
	if (ep.addr.sa_family == AF_INET) {
		struct flowi4 fl = {
			.daddr = ep.addr4.sin_addr.s_addr,
			.fl4_dport = ep.addr4.sin_port,
			.flowi4_mark = wgx->fwmark,
			.flowi4_proto = IPPROTO_UDP,
		};
		struct rtable *rt = ip_route_output_key(net, &fl);

		if (IS_ERR(rt))
			return 0;
		/* Through the device itself (a routing loop) is no underlay. */
		if (rt->dst.dev != wgx->dev)
			mtu = wgx_pmtu_route_mtu(&rt->dst);
		ip_rt_put(rt);
	}
#if IS_ENABLED(CONFIG_IPV6)
	else if (ep.addr.sa_family == AF_INET6 && ipv6_stub->ipv6_dst_lookup_flow) {
		struct flowi6 fl = {
			.daddr = ep.addr6.sin6_addr,
			.fl6_dport = ep.addr6.sin6_port,
			.flowi6_mark = wgx->fwmark,
			.flowi6_oif = ep.addr6.sin6_scope_id,
			.flowi6_proto = IPPROTO_UDP,
		};
		struct dst_entry *dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl, NULL);

		if (IS_ERR(dst))
			return 0;
		if (dst->dev != wgx->dev)
			mtu = wgx_pmtu_route_mtu(dst);
		dst_release(dst);
	}
#endif
	return mtu;
}

/*
 * The MTU of the IPv4 default route's device (bytes) for the device's
 * packets (its fwmark), 0 = none.  A default route through a wgx device
 * (this one, as wgx-quick routes everything) is no underlay.
 */
static u32 wgx_devmtu_default_route(struct wgx_device *wgx, struct net *net)
{
	struct flowi4 fl = { .flowi4_mark = wgx->fwmark, .flowi4_proto = IPPROTO_UDP };
	struct net_device *dev;
	struct fib_result res;
	u32 mtu = 0;

	rcu_read_lock();
	if (!fib_lookup(net, &fl, &res, 0) && res.type == RTN_UNICAST) {
		dev = FIB_RES_DEV(res);
		if (dev && !wgx_device_is_wgx(dev))
			mtu = READ_ONCE(dev->mtu);
	}
	rcu_read_unlock();
	return mtu;
}

/* Set @wgx's MTU from wgx->mtu_routes, else the default route, if auto and known. */
static void wgx_devmtu_apply(struct wgx_device *wgx, struct net *net)
{
	struct net_device *dev = wgx->dev;
	u32 mtu = wgx->mtu_routes ?: wgx_devmtu_default_route(wgx, net);

	mtu = mtu > WGX_DEVMTU_OVERHEAD ? mtu - WGX_DEVMTU_OVERHEAD : 0;
	mtu = min_t(u32, mtu, dev->max_mtu);
	if (mtu < dev->min_mtu || mtu == dev->mtu)
		return;
	wgx->mtu_setting = true;
	if (dev_set_mtu(dev, mtu))
		net_dbg_ratelimited("%s: cannot set the MTU %u from the underlay\n", dev->name, mtu);
	wgx->mtu_setting = false;
}

/* Lower wgx->mtu_routes to the MTU of the route to @peer's endpoint. */
static void wgx_devmtu_note(struct wgx_device *wgx, struct net *net, struct wgx_peer *peer)
{
	u32 mtu = wgx_devmtu_route(wgx, net, peer);

	if (mtu && (!wgx->mtu_routes || mtu < wgx->mtu_routes))
		wgx->mtu_routes = mtu;
}

/*
 * The namespace whose routes the automatic MTU follows, or NULL when the
 * device's MTU is not automatic (or the namespace is gone).  RTNL and
 * device_update_lock held.
 */
static struct net *wgx_devmtu_net(struct wgx_device *wgx)
{
	struct net *net;

	ASSERT_RTNL();
	lockdep_assert_held(&wgx->device_update_lock);
	net = rtnl_dereference(wgx->creating_net);
	return wgx->mtu_auto ? net : NULL;
}

void wgx_devmtu_update(struct wgx_device *wgx)
{
	struct net *net = wgx_devmtu_net(wgx);
	struct wgx_peer *peer;

	if (!net)
		return;
	wgx->mtu_routes = 0;
	list_for_each_entry(peer, &wgx->peer_list, peer_list)
		wgx_devmtu_note(wgx, net, peer);
	wgx_devmtu_apply(wgx, net);
}

void wgx_devmtu_add_peer(struct wgx_device *wgx, struct wgx_peer *peer)
{
	struct net *net = wgx_devmtu_net(wgx);

	if (!net)
		return;
	wgx_devmtu_note(wgx, net, peer);
	wgx_devmtu_apply(wgx, net);
}

void wgx_devmtu_set_auto(struct wgx_device *wgx, bool on)
{
	WRITE_ONCE(wgx->mtu_auto, on);	/* read by GET_DEVICE without RTNL */
	wgx_devmtu_update(wgx);
}

int wgx_devmtu_change_mtu(struct net_device *dev, int new_mtu)
{
	struct wgx_device *wgx = netdev_priv(dev);

	if (!wgx->mtu_setting)
		WRITE_ONCE(wgx->mtu_auto, false);
	WRITE_ONCE(dev->mtu, new_mtu);
	return 0;
}

/*
 * An underlay device of a namespace changed its MTU or came up: the
 * devices created there follow, and their peers' path MTUs look at the
 * route again.  A wgx device coming up looks itself.
 */
static int wgx_devmtu_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct wgx_device *wgx;

	if (event != NETDEV_CHANGEMTU && event != NETDEV_UP)
		return NOTIFY_DONE;
	if (wgx_device_is_wgx(dev)) {
		if (event == NETDEV_UP) {
			wgx = netdev_priv(dev);
			mutex_lock(&wgx->device_update_lock);
			wgx_devmtu_update(wgx);
			mutex_unlock(&wgx->device_update_lock);
		}
		return NOTIFY_DONE;
	}
	list_for_each_entry(wgx, &wgx_device_list, device_list) {
		struct wgx_peer *peer;

		if (rtnl_dereference(wgx->creating_net) != dev_net(dev))
			continue;
		mutex_lock(&wgx->device_update_lock);
		/* A peer's route MTU may have grown: not refused by the old one (pmtu.h). */
		list_for_each_entry(peer, &wgx->peer_list, peer_list)
			wgx_pmtu_route_changed(&peer->pmtu);
		wgx_devmtu_update(wgx);
		mutex_unlock(&wgx->device_update_lock);
	}
	return NOTIFY_DONE;
}

static struct notifier_block wgx_devmtu_notifier = {
	.notifier_call = wgx_devmtu_netdev_event,
};

int __init wgx_devmtu_init(void)
{
	return register_netdevice_notifier(&wgx_devmtu_notifier);
}

void wgx_devmtu_exit(void)
{
	unregister_netdevice_notifier(&wgx_devmtu_notifier);
}
