// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - the wgx net_device and its rtnl_link_ops ("ip link add wgx0 type wgx";
 * in drop-in mode also "ip link add wg0 type wireguard", docs/dropin.md).
 *
 * The device is a layer-3 point-to-point interface without ARP, like
 * WireGuard's.  It is multi-queue: one tx queue per possible CPU, whose
 * encryption worker runs on that CPU (queueing.h); a packet's inner flow
 * picks its queue (wgx_send_select_queue()).  It keeps a qdisc, so a full
 * worker ring stops its queue instead of dropping.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/if_arp.h>
#include <linux/inetdevice.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <linux/rtnetlink.h>
#include <linux/random.h>
#include <linux/suspend.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/rtnetlink.h>

#include "device.h"
#include "endpoint.h"
#include "handshake.h"
#include "keygrace.h"
#include "devmtu.h"
#include "peer.h"
#include "peerlookup.h"
#include "precompute.h"
#include "queueing.h"
#include "send.h"
#include "socket.h"
#include "timers.h"

LIST_HEAD(wgx_device_list);

/*
 * Buckets of each device's handshake ratelimiter: fixed, not sized from RAM
 * like the in-tree module's single table (up to 65,536 entries shared by every
 * device and namespace).  176 KiB allocated with the device, so an attack
 * allocates nothing and cannot exhaust another device's table.  With its
 * quotas and pressure rules (<wgx/ratelimiter.h>) filling it takes 2,048
 * distinct IPv4 /16s or IPv6 /32s at once, and 4,096 buckets already admit
 * 81,920 handshakes/s; a larger table would admit more, not protect better
 * (docs/datapath.md, the handshake step of receive).
 */
#define WGX_RATELIMITER_CAPACITY 4096

u64 wgx_device_stats_read(struct wgx_device *wgx, enum wgx_device_stat stat)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(wgx->stats, cpu)->v[stat]);
	return sum;
}

/*
 * A tunnel with cryptokey routing has no neighbours: no IPv6 link-local
 * address (and so no router solicitations or MLD reports, which would only
 * be dropped for want of a peer) and no ICMP redirects, which would point
 * senders at a "better" next hop that must not exist.  send_redirects
 * applies when the device's or the namespace's "all" value is set, so both
 * go off, as WireGuard does.  RTNL held (ndo_open).
 */
static void wgx_device_quiet_addrconf(struct net_device *dev)
{
	struct in_device *dev_v4 = __in_dev_get_rtnl(dev);
	struct inet6_dev *dev_v6 = __in6_dev_get(dev);

	if (dev_v4) {
		IN_DEV_CONF_SET(dev_v4, SEND_REDIRECTS, false);
		IPV4_DEVCONF_ALL(dev_net(dev), SEND_REDIRECTS) = false;
	}
	if (dev_v6)
		dev_v6->cnf.addr_gen_mode = IN6_ADDR_GEN_MODE_NONE;
}

static int wgx_open(struct net_device *dev)
{
	struct wgx_device *wgx = netdev_priv(dev);
	struct wgx_peer *peer;
	int ret;

	mutex_lock(&wgx->device_update_lock);
	if (!rcu_access_pointer(wgx->creating_net)) {
		/* The namespace holding our sockets is gone. */
		ret = -ENONET;
		goto out;
	}
	ret = wgx_socket_init(wgx, wgx->incoming_port, wgx->listen_ports);
	/*
	 * A port the kernel picked at an earlier up is nobody's choice: when
	 * something took it meanwhile (with automatic ports every device holds
	 * eight ports the kernel picked, so another device's may be it), the
	 * kernel picks again.  A port the user set stays theirs (WireGuard's
	 * behaviour: the up fails).
	 */
	if (ret == -EADDRINUSE && !wgx->port_set && wgx->incoming_port) {
		netdev_info(dev, "listen port %u, picked at an earlier up, is taken: picking another\n",
			    wgx->incoming_port);
		ret = wgx_socket_init(wgx, 0, wgx->listen_ports);
	}
	if (ret < 0)
		goto out;
	wgx_handshake_open(wgx);
	wgx_device_quiet_addrconf(dev);
	/* Slots reserved before the device went down say nothing about now. */
	wgx_handshake_budget_reset(wgx);
	netif_tx_start_all_queues(dev);
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		/* Automatic ports are new ones at each up: their routes too (sport rules). */
		if (!wgx->listen_ports)
			wgx_ports_peer_caches_reset(peer, false);
		if (READ_ONCE(peer->timer_state.persistent_keepalive_s))
			wgx_send_keepalive(peer);
	}
out:
	mutex_unlock(&wgx->device_update_lock);
	return ret;
}

static int wgx_stop(struct net_device *dev)
{
	struct wgx_device *wgx = netdev_priv(dev);
	struct wgx_peer *peer;

	/* Under each queue's lock: no ndo_start_xmit is left running or to come. */
	netif_tx_disable(dev);
	/* Let the workers finish what was queued and credit its bytes; reset BQL. */
	wgx_queueing_down(wgx);
	/* Received handshake messages still queued would make sessions after the wipe. */
	wgx_handshake_close(wgx);
	mutex_lock(&wgx->device_update_lock);
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		wgx_timers_peer_stop(peer);
		/*
		 * An initiation deferred by the budget must not outlive the
		 * down, nor its slot: the next one after the up takes a new one
		 * (the work is neither pending nor running now, so the flags,
		 * which only it reads, are ours).
		 */
		if (kthread_cancel_delayed_work_sync(&peer->initiation_work))
			wgx_peer_put(peer);
		peer->initiation_paced = false;
		atomic_set(&peer->initiation_is_retry, 0);
		wgx_peer_clear_keypairs(peer);
		wgx_peer_clear_handshake(peer);
		wgx_peer_purge_staged(peer);
	}
	wgx_socket_uninit(wgx);
	mutex_unlock(&wgx->device_update_lock);
	return 0;
}

static netdev_tx_t wgx_xmit(struct sk_buff *skb, struct net_device *dev)
{
	return wgx_send_xmit(skb, dev);
}

static const struct net_device_ops wgx_netdev_ops = {
	.ndo_open		= wgx_open,
	.ndo_stop		= wgx_stop,
	.ndo_start_xmit		= wgx_xmit,
	.ndo_select_queue	= wgx_send_select_queue,
	.ndo_get_stats64	= dev_get_tstats64,
	.ndo_change_mtu		= wgx_devmtu_change_mtu,
};

int wgx_device_set_listen_port(struct wgx_device *wgx, u16 port, unsigned int nports)
{
	struct wgx_peer *peer;
	int ret;

	lockdep_assert_held(&wgx->device_update_lock);
	/* Automatic ports left out at the up are not retried before the next up. */
	if (port == wgx->incoming_port && nports == wgx->listen_ports &&
	    (!netif_running(wgx->dev) || (!nports && READ_ONCE(wgx->bound_ports)) ||
	     READ_ONCE(wgx->bound_ports) == nports))
		return 0;
	if (netif_running(wgx->dev)) {
		ret = wgx_socket_init(wgx, port, nports);
		if (ret)
			return ret;
	} else {
		WRITE_ONCE(wgx->incoming_port, port);
	}
	WRITE_ONCE(wgx->listen_ports, nports);
	/* Replies may now leave from other ports: pick the sources anew. */
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		wgx_ports_peer_set(peer, wgx_ports_peer_wanted(peer));
		wgx_endpoint_clear_src(peer);
		/*
		 * A peer may be sending to a port we just closed (the one we
		 * last sent from), and we would never hear it again unless we
		 * send first: a keepalive, from the first port, tells it where
		 * we are now (socket.c: a keepalive moves the endpoint).
		 */
		if (netif_running(wgx->dev) && wgx_peer_has_sending_keypair(peer))
			wgx_send_keepalive(peer);
	}
	return 0;
}

static void wgx_ratelimiter_gc_worker(struct work_struct *work)
{
	struct wgx_device *wgx = container_of(work, struct wgx_device, ratelimiter_gc.work);

	spin_lock_bh(&wgx->ratelimiter_lock);
	wgx_ratelimiter_gc(wgx->ratelimiter, wgx_clock_ns());
	spin_unlock_bh(&wgx->ratelimiter_lock);
	queue_delayed_work(system_power_efficient_wq, &wgx->ratelimiter_gc, HZ);
}

static void wgx_destruct(struct net_device *dev)
{
	struct wgx_device *wgx = netdev_priv(dev);

	rtnl_lock();
	list_del(&wgx->device_list);
	rtnl_unlock();

	/*
	 * First: the grace worker takes device_update_lock and walks the
	 * peers, so it must be gone before they are removed.
	 */
	wgx_keygrace_cancel_sync(wgx);
	mutex_lock(&wgx->device_update_lock);
	rcu_assign_pointer(wgx->creating_net, NULL);
	wgx_socket_uninit(wgx);
	wgx_peer_remove_all(wgx);
	mutex_unlock(&wgx->device_update_lock);

	/*
	 * A tx worker that saw its peer alive may be about to queue an
	 * initiation on a wgx-hs thread: let every one finish before
	 * wgx_handshake_uninit() flushes those threads (work queued later
	 * finds the peers dead).
	 */
	wgx_queueing_flush(wgx);
	cancel_delayed_work_sync(&wgx->ratelimiter_gc);
	wgx_handshake_uninit(wgx);
	wgx_queueing_uninit(wgx);
	wgx_rxspread_uninit(wgx);
	/*
	 * The wgx-precompute thread may still hold a removed peer; its put
	 * can be the last, and the release uses the index table.
	 */
	wgx_precompute_sync();
	/* Keypair and peer frees are RCU callbacks that use the index table. */
	rcu_barrier();
	wgx_ratelimiter_destroy(wgx->ratelimiter);
	wgx_allowedips_destroy(wgx->allowedips);
	/* Empty: every peer's went with it. */
	xa_destroy(&wgx->port_caches);
	wgx_cookie_checker_destroy(wgx->cookie_checker);
	wgx_noise_identity_destroy(wgx->identity);
	wgx_cookie_checker_destroy(wgx->prev_cookie_checker);
	wgx_noise_identity_destroy(wgx->prev_identity);
	kvfree(wgx->index_hashtable);
	kvfree(wgx->peer_hashtable);
	gro_cells_destroy(&wgx->gro_cells);
	free_percpu(wgx->stats);
	free_percpu(dev->tstats);
	netdev_dbg(dev, "destroyed\n");
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
	dev->needed_headroom = WGX_SEND_HEADROOM;
	dev->needed_tailroom = WGX_AEAD_TAG_LEN + WGX_MSG_PADDING_MULTIPLE;
	dev->type = ARPHRD_NONE;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP;
	dev->features |= WGX_FEATURES;
	dev->hw_features |= WGX_FEATURES;
	dev->hw_enc_features |= WGX_FEATURES;
	dev->mtu = WGX_DEFAULT_MTU;
	dev->min_mtu = IPV4_MIN_MTU;
	dev->max_mtu = IP_MAX_MTU - sizeof(struct ipv6hdr) - WGX_MESSAGE_OVERHEAD;
	dev->tx_queue_len = 1000;
	dev->needs_free_netdev = true;
	/* dev->priv_destructor is set by wgx_newlink() once registration succeeded. */
	netif_keep_dst(dev);

	memset(wgx, 0, sizeof(*wgx));
	wgx->dev = dev;
	/* Automatic: several ports on a machine of several CPUs (socket.h). */
	wgx->listen_ports = 0;
	wgx->priority_dscp = WGX_PRIORITY_DSCP_DEFAULT;
	wgx->rx_spread = WGX_RX_SPREAD_AUTO;
	/* Down: no handshake work until the up (wgx_handshake_open()). */
	wgx->handshake_closed = true;
}

static int wgx_newlink(struct net *src_net, struct net_device *dev, struct nlattr *tb[],
		       struct nlattr *data[], struct netlink_ext_ack *extack)
{
	struct wgx_device *wgx = netdev_priv(dev);
	int ret = -ENOMEM;

	rcu_assign_pointer(wgx->creating_net, src_net);
	get_random_bytes(&wgx->flow_hash_key, sizeof(wgx->flow_hash_key));
	mutex_init(&wgx->device_update_lock);
	init_rwsem(&wgx->identity_lock);
	spin_lock_init(&wgx->cookie_lock);
	spin_lock_init(&wgx->ratelimiter_lock);
	INIT_LIST_HEAD(&wgx->peer_list);
	xa_init(&wgx->port_caches);
	INIT_DELAYED_WORK(&wgx->ratelimiter_gc, wgx_ratelimiter_gc_worker);
	wgx_keygrace_init(wgx);

	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		goto err;
	wgx->stats = alloc_percpu_gfp(struct wgx_device_stats, GFP_KERNEL_ACCOUNT);
	if (!wgx->stats)
		goto err_tstats;
	wgx->identity = wgx_noise_identity_create(true);
	if (!wgx->identity)
		goto err_stats;
	wgx->cookie_checker = wgx_cookie_checker_create(true);
	if (!wgx->cookie_checker)
		goto err_identity;
	wgx->prev_identity = wgx_noise_identity_create(true);
	if (!wgx->prev_identity)
		goto err_cookie;
	wgx->prev_cookie_checker = wgx_cookie_checker_create(true);
	if (!wgx->prev_cookie_checker)
		goto err_prev_identity;
	wgx->allowedips = wgx_allowedips_create();
	if (!wgx->allowedips)
		goto err_prev_cookie;
	wgx->peer_hashtable = wgx_pubkey_hashtable_alloc();
	if (!wgx->peer_hashtable)
		goto err_allowedips;
	wgx->index_hashtable = wgx_index_hashtable_alloc();
	if (!wgx->index_hashtable)
		goto err_peer_hashtable;
	wgx->ratelimiter = wgx_ratelimiter_create(WGX_RATELIMITER_CAPACITY);
	if (!wgx->ratelimiter)
		goto err_index_hashtable;
	ret = gro_cells_init(&wgx->gro_cells, dev);
	if (ret < 0)
		goto err_ratelimiter;
	ret = wgx_queueing_init(wgx);
	if (ret < 0)
		goto err_gro;
	ret = wgx_handshake_init(wgx);
	if (ret < 0)
		goto err_queueing;
	ret = wgx_rxspread_init(wgx);
	if (ret < 0)
		goto err_handshake;

	ret = register_netdevice(dev);
	if (ret < 0)
		goto err_rxspread;
	/*
	 * Only now: a failing register_netdevice() calls priv_destructor, which
	 * would free (under an rtnl_lock we already hold) what the unwind below
	 * frees again.
	 */
	dev->priv_destructor = wgx_destruct;
	list_add(&wgx->device_list, &wgx_device_list);
	wgx->mtu_auto = !tb[IFLA_MTU];
	mutex_lock(&wgx->device_update_lock);
	wgx_devmtu_update(wgx);
	mutex_unlock(&wgx->device_update_lock);
	queue_delayed_work(system_power_efficient_wq, &wgx->ratelimiter_gc, HZ);
	return 0;

err_rxspread:
	wgx_rxspread_uninit(wgx);
err_handshake:
	wgx_handshake_uninit(wgx);
err_queueing:
	wgx_queueing_uninit(wgx);
err_gro:
	gro_cells_destroy(&wgx->gro_cells);
err_ratelimiter:
	wgx_ratelimiter_destroy(wgx->ratelimiter);
err_index_hashtable:
	kvfree(wgx->index_hashtable);
err_peer_hashtable:
	kvfree(wgx->peer_hashtable);
err_allowedips:
	wgx_allowedips_destroy(wgx->allowedips);
err_prev_cookie:
	wgx_cookie_checker_destroy(wgx->prev_cookie_checker);
err_prev_identity:
	wgx_noise_identity_destroy(wgx->prev_identity);
err_cookie:
	wgx_cookie_checker_destroy(wgx->cookie_checker);
err_identity:
	wgx_noise_identity_destroy(wgx->identity);
err_stats:
	free_percpu(wgx->stats);
err_tstats:
	free_percpu(dev->tstats);
err:
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

/*
 * Drop-in mode (compat=wireguard): the same device under WireGuard's link
 * kind.  Like the in-tree module's, it takes no IFLA_INFO_DATA.
 */
static struct rtnl_link_ops wgx_wg_link_ops __read_mostly = {
	.kind			= "wireguard",
	.priv_size		= sizeof(struct wgx_device),
	.setup			= wgx_setup,
	.newlink		= wgx_newlink,
	.get_num_tx_queues	= wgx_get_num_queues,
	.get_num_rx_queues	= wgx_get_num_queues,
};

bool wgx_device_is_wgx(const struct net_device *dev)
{
	return dev->rtnl_link_ops == &wgx_link_ops || dev->rtnl_link_ops == &wgx_wg_link_ops;
}

bool wgx_device_is_wireguard_kind(const struct net_device *dev)
{
	return dev->rtnl_link_ops == &wgx_wg_link_ops;
}

/*
 * The namespace that holds a device's sockets is going away while the device
 * lives on in another one: close the sockets and forget each peer's source
 * address and cached routes, which belong to that namespace (a cached route
 * would hold its device); the device stays down until it is deleted (there
 * is no namespace left to bind in).
 */
static void __net_exit wgx_netns_pre_exit(struct net *net)
{
	struct wgx_device *wgx;
	struct wgx_peer *peer;

	rtnl_lock();
	list_for_each_entry(wgx, &wgx_device_list, device_list) {
		if (rcu_access_pointer(wgx->creating_net) != net)
			continue;
		netif_carrier_off(wgx->dev);
		mutex_lock(&wgx->device_update_lock);
		rcu_assign_pointer(wgx->creating_net, NULL);
		wgx_socket_uninit(wgx);
		list_for_each_entry(peer, &wgx->peer_list, peer_list)
			wgx_endpoint_clear_src(peer);
		mutex_unlock(&wgx->device_update_lock);
	}
	rtnl_unlock();
}

static struct pernet_operations wgx_netns_ops = {
	.pre_exit = wgx_netns_pre_exit,
};

/*
 * Before the machine suspends or hibernates, every session key and handshake
 * state goes, and so do the handshake ephemerals made ahead (precompute.h:
 * paused until the resume, so its thread makes none meanwhile): a
 * hibernation image on disk must not hold them, and a machine that wakes up
 * hours later must not resume stale sessions.  Peers simply handshake again
 * on the next packet, as WireGuard does.  Not with CONFIG_PM_AUTOSLEEP,
 * where the system suspends whenever idle; there the boottime clock of the
 * ephemerals made ahead counts the suspended time, and the resume wipes
 * what expired meanwhile.
 */
static int wgx_device_pm_notification(struct notifier_block *nb, unsigned long action, void *data)
{
	struct wgx_device *wgx;
	struct wgx_peer *peer;

	/* Also after a failed prepare: the chain sends the post to every notifier. */
	if (action == PM_POST_SUSPEND || action == PM_POST_HIBERNATION) {
		wgx_precompute_resume();
		/* The devices that are up take handshake messages again. */
		rtnl_lock();
		list_for_each_entry(wgx, &wgx_device_list, device_list) {
			if (netif_running(wgx->dev))
				wgx_handshake_open(wgx);
		}
		rtnl_unlock();
		return NOTIFY_DONE;
	}
	if (IS_ENABLED(CONFIG_PM_AUTOSLEEP) ||
	    (action != PM_HIBERNATION_PREPARE && action != PM_SUSPEND_PREPARE))
		return NOTIFY_DONE;

	wgx_precompute_suspend();

	rtnl_lock();
	list_for_each_entry(wgx, &wgx_device_list, device_list) {
		/* No handshake message queued now may make a session after the wipe. */
		wgx_handshake_close(wgx);
		mutex_lock(&wgx->device_update_lock);
		list_for_each_entry(peer, &wgx->peer_list, peer_list) {
			wgx_peer_clear_keypairs(peer);
			wgx_peer_clear_handshake(peer);
			wgx_peer_purge_staged(peer);
		}
		mutex_unlock(&wgx->device_update_lock);
	}
	rtnl_unlock();
	/* The keypairs' memory is freed (and wiped) after a grace period: wait for it. */
	rcu_barrier();
	return NOTIFY_DONE;
}

static struct notifier_block wgx_device_pm_notifier = {
	.notifier_call = wgx_device_pm_notification,
};

int __init wgx_device_init(void)
{
	int ret;

	ret = register_pm_notifier(&wgx_device_pm_notifier);
	if (ret)
		return ret;
	ret = register_pernet_device(&wgx_netns_ops);
	if (ret)
		goto err_pm;
	ret = rtnl_link_register(&wgx_link_ops);
	if (ret)
		goto err_pernet;
	return 0;

err_pernet:
	unregister_pernet_device(&wgx_netns_ops);
err_pm:
	unregister_pm_notifier(&wgx_device_pm_notifier);
	return ret;
}

/* Deletes every remaining wgx device in every namespace, then the link kind. */
void wgx_device_exit(void)
{
	rtnl_link_unregister(&wgx_link_ops);
	unregister_pernet_device(&wgx_netns_ops);
	unregister_pm_notifier(&wgx_device_pm_notifier);
}

int __init wgx_device_wg_init(void)
{
	return rtnl_link_register(&wgx_wg_link_ops);
}

void wgx_device_wg_exit(void)
{
	rtnl_link_unregister(&wgx_wg_link_ops);
}
