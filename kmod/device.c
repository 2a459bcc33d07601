// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - the wgx net_device and its rtnl_link_ops ("ip link add wgx0 type wgx").
 *
 * The device is a layer-3 point-to-point interface without ARP, like
 * WireGuard's.  It is multi-queue: one tx queue per possible CPU, so that the
 * stack's XPS keeps each flow on the queue (and the worker) of one CPU.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/if_arp.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/icmp.h>
#include <net/rtnetlink.h>
#include <net/net_namespace.h>

#include "device.h"

static int wgx_open(struct net_device *dev)
{
	netif_tx_start_all_queues(dev);
	return 0;
}

static int wgx_stop(struct net_device *dev)
{
	netif_tx_stop_all_queues(dev);
	return 0;
}

/*
 * Tell the sender its packet had nowhere to go, as WireGuard does when no peer
 * owns the destination: ICMP host unreachable (v4) / address unreachable (v6).
 */
static void wgx_xmit_unreachable(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_HOST_UNREACH, 0);
	else if (skb->protocol == htons(ETH_P_IPV6))
		icmpv6_ndo_send(skb, ICMPV6_DEST_UNREACH, ICMPV6_ADDR_UNREACH, 0);
}

static netdev_tx_t wgx_xmit(struct sk_buff *skb, struct net_device *dev)
{
	/* No peer owns any destination yet: the datapath adds peer lookup here. */
	wgx_xmit_unreachable(skb);
	DEV_STATS_INC(dev, tx_errors);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops wgx_netdev_ops = {
	.ndo_open		= wgx_open,
	.ndo_stop		= wgx_stop,
	.ndo_start_xmit		= wgx_xmit,
	.ndo_get_stats64	= dev_get_tstats64,
};

static void wgx_destruct(struct net_device *dev)
{
	struct wgx_device *wgx = netdev_priv(dev);

	put_net(wgx->creating_net);
	free_percpu(dev->tstats);
}

static void wgx_setup(struct net_device *dev)
{
	struct wgx_device *wgx = netdev_priv(dev);
	enum { WGX_FEATURES = NETIF_F_HW_CSUM | NETIF_F_RXCSUM | NETIF_F_SG |
			      NETIF_F_GSO | NETIF_F_GSO_SOFTWARE | NETIF_F_HIGHDMA };

	dev->netdev_ops = &wgx_netdev_ops;
	dev->header_ops = NULL;
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->needed_headroom = sizeof(struct ipv6hdr) + WGX_MESSAGE_OVERHEAD - 16;
	dev->needed_tailroom = 16 + 15; /* Poly1305 tag + padding to 16 */
	dev->type = ARPHRD_NONE;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP;
	dev->priv_flags |= IFF_NO_QUEUE;
	dev->features |= NETIF_F_LLTX;
	dev->features |= WGX_FEATURES;
	dev->hw_features |= WGX_FEATURES;
	dev->hw_enc_features |= WGX_FEATURES;
	dev->mtu = WGX_DEFAULT_MTU;
	dev->min_mtu = IPV4_MIN_MTU;
	dev->max_mtu = IP_MAX_MTU - sizeof(struct ipv6hdr) - WGX_MESSAGE_OVERHEAD;
	dev->needs_free_netdev = true;
	dev->priv_destructor = wgx_destruct;
	netif_keep_dst(dev);

	memset(wgx, 0, sizeof(*wgx));
	wgx->dev = dev;
}

static int wgx_newlink(struct net *src_net, struct net_device *dev, struct nlattr *tb[],
		       struct nlattr *data[], struct netlink_ext_ack *extack)
{
	struct wgx_device *wgx = netdev_priv(dev);
	int ret;

	wgx->creating_net = get_net(src_net);
	mutex_init(&wgx->device_update_lock);

	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats) {
		ret = -ENOMEM;
		goto err_put_net;
	}

	ret = register_netdevice(dev);
	if (ret < 0)
		goto err_free_tstats;
	return 0;

err_free_tstats:
	free_percpu(dev->tstats);
	dev->tstats = NULL;
err_put_net:
	put_net(wgx->creating_net);
	wgx->creating_net = NULL;
	return ret;
}

/* One tx and one rx queue per possible CPU: a flow's queue is its CPU's. */
static unsigned int wgx_get_num_queues(void)
{
	return num_possible_cpus();
}

static struct rtnl_link_ops wgx_link_ops __read_mostly = {
	.kind			= KBUILD_MODNAME,
	.priv_size		= sizeof(struct wgx_device),
	.setup			= wgx_setup,
	.newlink		= wgx_newlink,
	.get_num_tx_queues	= wgx_get_num_queues,
	.get_num_rx_queues	= wgx_get_num_queues,
};

int __init wgx_device_init(void)
{
	return rtnl_link_register(&wgx_link_ops);
}

/* Deletes every remaining wgx device in every namespace, then the link kind. */
void wgx_device_exit(void)
{
	rtnl_link_unregister(&wgx_link_ops);
}
