// SPDX-License-Identifier: GPL-2.0
/*
 * peerstats.c - a peer's counters (peerstats.h).
 */
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "device.h"
#include "peer.h"
#include "peerstats.h"

void wgx_peer_stats_add_rare(struct wgx_peer *peer, enum wgx_peer_stat stat, u64 n)
{
	struct wgx_peer_stats_rare *r = READ_ONCE(peer->stats_rare), *old;

	if (unlikely(!r)) {
		r = kzalloc(sizeof(*r), GFP_ATOMIC | __GFP_NOWARN);
		if (!r)
			return;
		old = cmpxchg(&peer->stats_rare, NULL, r);
		if (old) {
			kfree(r);
			r = old;
		}
	}
	atomic64_add(n, &r->v[stat]);
}

void wgx_peer_stats_percpu(struct wgx_peer *peer)
{
	struct wgx_peer_stats __percpu *s;

	might_sleep();
	if (READ_ONCE(peer->stats))
		return;
	s = alloc_percpu_gfp(struct wgx_peer_stats, GFP_KERNEL | __GFP_NOWARN);
	if (s && cmpxchg(&peer->stats, NULL, s))
		free_percpu(s);
}

u64 wgx_peer_stats_read(struct wgx_peer *peer, enum wgx_peer_stat stat)
{
	struct wgx_peer_stats __percpu *s = READ_ONCE(peer->stats);
	struct wgx_peer_stats_rare *r = READ_ONCE(peer->stats_rare);
	u64 sum = r ? atomic64_read(&r->v[stat]) : 0;
	int cpu;

	if (stat >= WGX_PEER_STAT_PERCPU || !s)
		return sum;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(s, cpu)->v[stat]);
	return sum;
}

void wgx_peer_count_rx(struct wgx_peer *peer, size_t len)
{
	wgx_peer_stats_add(peer, WGX_PEER_STAT_RX_BYTES, len);
	/* BHs off: the handshake worker counts from process context, the receive softirq too. */
	local_bh_disable();
	dev_sw_netstats_rx_add(peer->wgx->dev, len);
	local_bh_enable();
}
