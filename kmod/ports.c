// SPDX-License-Identifier: GPL-2.0
/*
 * ports.c - the listen ports a peer's traffic leaves from: how many a device
 * binds, the inner flow's hash and the port it picks, and a route cache per
 * port for each peer (ports.h).
 *
 * Locking: a peer's port caches are replaced under device_update_lock and
 * freed after an RCU grace period; senders read them under
 * rcu_read_lock_bh().  The port choice reads the device's and the peer's
 * settings with READ_ONCE and takes no lock.
 */
#include <linux/kernel.h>
#include <linux/reciprocal_div.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <net/dst_cache.h>
#include <net/flow_dissector.h>

#include "device.h"
#include "endpoint.h"
#include "peer.h"
#include "ports.h"

/*
 * The route caches of listen ports 1 .. @n of one peer while the device has
 * more than one port (port 0's is the peer's endpoint_cache): each port's
 * datagrams carry its own source port, which policy routing (ip rule
 * sport), L4 multipath hashing and xfrm policies may route differently.
 * In the device's port_caches, by the peer's id, so that a peer of a
 * one-port device carries nothing for them.  Replaced and removed under
 * device_update_lock, freed after an RCU grace period; senders read them
 * under rcu_read_lock_bh() with the peer's endpoint_lock held for reading.
 */
struct wgx_ports_caches {
	struct rcu_head rcu;
	unsigned int n;
	struct dst_cache cache[];
};

static void wgx_ports_caches_free_rcu(struct rcu_head *rcu)
{
	struct wgx_ports_caches *pc = container_of(rcu, struct wgx_ports_caches, rcu);
	unsigned int i;

	for (i = 0; i < pc->n; i++)
		dst_cache_destroy(&pc->cache[i]);
	kfree(pc);
}

static struct wgx_ports_caches *wgx_ports_caches_alloc(unsigned int n)
{
	struct wgx_ports_caches *pc;
	unsigned int i;

	pc = kzalloc(struct_size(pc, cache, n), GFP_KERNEL_ACCOUNT);
	if (!pc)
		return NULL;
	for (i = 0; i < n; i++) {
		if (dst_cache_init(&pc->cache[i], GFP_KERNEL_ACCOUNT)) {
			while (i--)
				dst_cache_destroy(&pc->cache[i]);
			kfree(pc);
			return NULL;
		}
	}
	pc->n = n;
	return pc;
}

void wgx_ports_peer_set(struct wgx_peer *peer, unsigned int nports)
{
	struct wgx_device *wgx = peer->wgx;
	struct wgx_ports_caches *pc = NULL, *old;
	unsigned long id = peer->internal_id;

	lockdep_assert_held(&wgx->device_update_lock);
	old = xa_load(&wgx->port_caches, id);
	if (nports > 1 && old && old->n == nports - 1)
		return;
	if (nports > 1)
		pc = wgx_ports_caches_alloc(nports - 1);
	if (pc) {
		old = xa_store(&wgx->port_caches, id, pc, GFP_KERNEL_ACCOUNT);
		if (xa_is_err(old)) {
			wgx_ports_caches_free_rcu(&pc->rcu);
			pc = NULL;
		}
	}
	/* Without caches (none wanted, or no memory) the ports' routes are looked up each time. */
	if (!pc)
		old = xa_erase(&wgx->port_caches, id);
	if (old && !xa_is_err(old))
		call_rcu(&old->rcu, wgx_ports_caches_free_rcu);
}

struct dst_cache *wgx_ports_peer_cache(struct wgx_peer *peer, unsigned int index)
{
	struct wgx_ports_caches *pc;

	if (likely(!index))
		return &peer->endpoint_cache;
	pc = xa_load(&peer->wgx->port_caches, peer->internal_id);
	return pc && index <= pc->n ? &pc->cache[index - 1] : NULL;
}

void wgx_ports_peer_caches_reset(struct wgx_peer *peer, bool now)
{
	struct wgx_ports_caches *pc;
	unsigned int i;

	rcu_read_lock_bh();
	pc = xa_load(&peer->wgx->port_caches, peer->internal_id);
	for (i = 0; i <= (pc ? pc->n : 0); i++) {
		struct dst_cache *cache = i ? &pc->cache[i - 1] : &peer->endpoint_cache;

		if (now)
			dst_cache_reset_now(cache);
		else
			dst_cache_reset(cache);
	}
	rcu_read_unlock_bh();
}

u32 wgx_ports_flow_hash(struct wgx_device *wgx, const struct sk_buff *skb, bool *ports)
{
	struct flow_keys keys;
	struct {
		struct flow_dissector_key_addrs addrs;
		__be32 ports;
		u8 proto;
	} __packed flow = { };
	u8 proto;

	*ports = false;
	if (!skb->len || !skb_flow_dissect_flow_keys(skb, &keys, 0))
		return 0;
	/*
	 * Addresses, protocol and ports, keyed.  Not skb->hash (for a local TCP
	 * socket that is its txhash, which TCP re-randomises after a timeout),
	 * and not the IPv6 flow label (derived from that txhash): the flow
	 * would hop queues and ports, and could be reordered across them.
	 * Fragments carry no ports; all of a datagram's fragments go together.
	 */
	proto = keys.basic.ip_proto;
	flow.addrs = keys.addrs;
	flow.proto = proto;
	if (!(keys.control.flags & FLOW_DIS_IS_FRAGMENT)) {
		flow.ports = keys.ports.ports;
		/*
		 * Only a flow with ports is one that a port of its own can
		 * spread; an echo request or a tunnel protocol between two
		 * hosts (IPIP, GRE: the dissector walks into them) is one
		 * flow whatever it carries.
		 */
		*ports = !(keys.control.flags & FLOW_DIS_ENCAPSULATION) &&
			 (proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE ||
			  proto == IPPROTO_SCTP || proto == IPPROTO_DCCP);
	}
	return (u32)siphash(&flow, sizeof(flow), &wgx->flow_hash_key);
}

unsigned int wgx_ports_flow_port(struct wgx_peer *peer, u32 hash, bool ports)
{
	struct wgx_device *wgx = peer->wgx;
	unsigned int n = READ_ONCE(wgx->bound_ports);

	if (likely(n <= 1))
		return 0;
	/*
	 * Automatic ports: only to a peer that takes packets from any of them
	 * and does not follow our source port (a WireGuard peer would make its
	 * own traffic to us hop between them), and only flows with ports: the
	 * rest (pings among them) leave from the listen port, so what a peer
	 * sees of us for them is what it would see of WireGuard.
	 */
	if (!READ_ONCE(wgx->listen_ports) &&
	    (!ports || !READ_ONCE(peer->endpoint_given) || wgx_endpoint_follows(&peer->endpoint_local)))
		return 0;
	return reciprocal_scale(hash, n);
}

unsigned int wgx_ports_wanted(unsigned int listen_ports)
{
	if (listen_ports)
		return listen_ports;
	return num_possible_cpus() > 1 ? WGX_AUTO_LISTEN_PORTS : 1;
}

unsigned int wgx_ports_peer_wanted(struct wgx_peer *peer)
{
	unsigned int listen_ports = peer->wgx->listen_ports;

	if (!listen_ports && !READ_ONCE(peer->endpoint_given))
		return 1;
	return wgx_ports_wanted(listen_ports);
}

unsigned int wgx_ports_count(struct wgx_device *wgx)
{
	return READ_ONCE(wgx->bound_ports) ?: wgx_ports_wanted(READ_ONCE(wgx->listen_ports));
}
