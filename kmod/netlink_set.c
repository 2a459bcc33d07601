// SPDX-License-Identifier: GPL-2.0
/*
 * netlink_set.c - SET_DEVICE of the generic netlink families (netlink.c):
 * configuration of a device and its peers, as include/uapi/linux/wgx.h
 * specifies it.  Through the "wireguard" family (drop-in mode) the request
 * is parsed with WireGuard's policies and knows only WireGuard's attributes
 * (netlink_internal.h, struct wgx_nl_flavour); what a valid request does is
 * the same in both.
 *
 * It works in three phases under rtnl_lock and device_update_lock:
 *   1. parse (netlink_parse.c): every attribute of the message (device,
 *      each peer, each allowed IP) is checked and copied into a request,
 *      nothing changes;
 *   2. plan: the peers the message names are looked up and the outcome of
 *      every peer entry (create, update, remove, skip) is decided, including
 *      the peer limit and the device's own public key; nothing changes;
 *   3. apply: peers the device does not know yet are created first and the
 *      listen port is bound (both undone if either fails), then the changes
 *      are made in the order the uapi defines.  After that point only an
 *      allocation failure of the allowed-IPs trie or of a peer re-created
 *      after REPLACE_PEERS can fail, which the extack message reports.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <crypto/algapi.h>
#include <crypto/curve25519.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/wgx.h>
#include <wgx/core.h>

#include "devmtu.h"
#include "device.h"
#include "keygrace.h"
#include "endpoint.h"
#include "handshake.h"
#include "netlink_internal.h"
#include "netlink_set.h"
#include "peer.h"
#include "peerlookup.h"
#include "send.h"
#include "socket.h"
#include "timers.h"

struct wgx_nl_key_index {
	const u8 *key;
	u32 index;
};

static int wgx_nl_key_index_cmp(const void *a, const void *b)
{
	const struct wgx_nl_key_index *x = a, *y = b;
	int c = memcmp(x->key, y->key, WGX_KEY_LEN);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Set every entry's @group to the index of the first entry with the same public key. */
static int wgx_nl_group_peers(struct wgx_nl_set *req)
{
	struct wgx_nl_key_index *order;
	u32 i, first = 0;

	order = kvmalloc_array(req->nr_peers, sizeof(*order), GFP_KERNEL);
	if (!order)
		return -ENOMEM;
	for (i = 0; i < req->nr_peers; ++i) {
		order[i].key = req->peers[i].public_key;
		order[i].index = i;
	}
	sort(order, req->nr_peers, sizeof(*order), wgx_nl_key_index_cmp, NULL);
	for (i = 0; i < req->nr_peers; ++i) {
		if (i == 0 || memcmp(order[i].key, order[i - 1].key, WGX_KEY_LEN))
			first = order[i].index;
		req->peers[order[i].index].group = first;
	}
	kvfree(order);
	return 0;
}

/*
 * Phase 2, re-keys in place (WGX_PEER_A_NEW_PUBLIC_KEY): each must name a
 * peer that exists when its entry applies, and its new key must be nobody's:
 * not the device's own (@own_public, after this message's private key), not
 * a live peer's, not named by any entry of the message; and no later entry
 * may name the old key (it would address a peer that no longer has it).
 */
static int wgx_nl_plan_rekeys(struct wgx_nl_set *req, const u8 *own_public)
{
	struct netlink_ext_ack *extack = req->info->extack;
	struct wgx_device *wgx = req->wgx;
	u32 i, j;

	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i];
		const u8 *new_key;
		struct wgx_peer *other;

		if (!p->new_key)
			continue;
		new_key = nla_data(p->new_key);
		if (p->action != WGX_NL_PEER_UPDATE) {
			NL_SET_ERR_MSG_ATTR(extack, p->new_key,
					    "WGX_PEER_A_NEW_PUBLIC_KEY: no peer with this WGX_PEER_A_PUBLIC_KEY to re-key");
			return -ENOENT;
		}
		if (own_public && !memcmp(new_key, own_public, WGX_KEY_LEN)) {
			NL_SET_ERR_MSG_ATTR(extack, p->new_key,
					    "WGX_PEER_A_NEW_PUBLIC_KEY is the device's own public key");
			return -EINVAL;
		}
		for (j = 0; j < req->nr_peers; ++j) {
			if (!memcmp(req->peers[j].public_key, new_key, WGX_KEY_LEN)) {
				if (j == i)
					NL_SET_ERR_MSG_ATTR(extack, p->new_key,
							    "WGX_PEER_A_NEW_PUBLIC_KEY equals WGX_PEER_A_PUBLIC_KEY");
				else
					NL_SET_ERR_MSG_ATTR(extack, p->new_key,
							    "WGX_PEER_A_NEW_PUBLIC_KEY is named by another peer entry of the message");
				return -EINVAL;
			}
			if (j > i && req->peers[j].group == p->group) {
				NL_SET_ERR_MSG_ATTR(extack, p->new_key,
						    "WGX_PEER_A_NEW_PUBLIC_KEY: a later peer entry names the old key");
				return -EINVAL;
			}
			if (j != i && req->peers[j].new_key &&
			    !memcmp(nla_data(req->peers[j].new_key), new_key, WGX_KEY_LEN)) {
				NL_SET_ERR_MSG_ATTR(extack, p->new_key,
						    "WGX_PEER_A_NEW_PUBLIC_KEY is given to two peers");
				return -EINVAL;
			}
		}
		other = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, new_key);
		if (other) {
			wgx_peer_put(other);
			/* REPLACE_PEERS would remove it, but then no peer is left to re-key. */
			NL_SET_ERR_MSG_ATTR(extack, p->new_key,
					    "WGX_PEER_A_NEW_PUBLIC_KEY is already a peer's public key");
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * Phase 2: decide what every entry does, as applying them in order would.
 * Looks peers up (taking references kept in the groups) but changes nothing.
 */
static int wgx_nl_set_plan(struct wgx_nl_set *req)
{
	struct netlink_ext_ack *extack = req->info->extack;
	struct nlattr *key_attr = req->info->attrs[WGX_DEVICE_A_PRIVATE_KEY];
	struct wgx_device *wgx = req->wgx;
	const bool replace = req->flags & WGX_DEVICE_F_REPLACE_PEERS;
	u8 cur_private[WGX_KEY_LEN], cur_public[WGX_KEY_LEN], new_private[WGX_KEY_LEN];
	const u8 *own_public = NULL;
	u32 i, count, nr_creates = 0;
	bool has_cur;
	int ret = 0;

	down_read(&wgx->identity_lock);
	has_cur = wgx_noise_identity_get_keys(wgx->identity, cur_public, cur_private);
	up_read(&wgx->identity_lock);

	if (key_attr) {
		bool clear;

		memcpy(new_private, nla_data(key_attr), WGX_KEY_LEN);
		clear = !memchr_inv(new_private, 0, WGX_KEY_LEN);
		if (!clear)
			curve25519_clamp_secret(new_private);
		if (clear)
			req->key_change = has_cur;
		else
			req->key_change = !has_cur ||
					  crypto_memneq(new_private, cur_private, WGX_KEY_LEN);
		req->key_clear = clear;
		if (req->key_change && !clear &&
		    !curve25519_generate_public(req->new_public_key, new_private)) {
			NL_SET_ERR_MSG_ATTR(extack, key_attr, "private key yields no public key");
			ret = -EINVAL;
		}
		memzero_explicit(new_private, sizeof(new_private));
	}
	memzero_explicit(cur_private, sizeof(cur_private));
	if (ret)
		return ret;

	if (req->key_change)
		own_public = req->key_clear ? NULL : req->new_public_key;
	else if (has_cur)
		own_public = cur_public;

	/*
	 * Peers left when the entries start: wgx_keygrace_set_private_key()
	 * removes the peer whose key becomes our own.
	 */
	count = replace ? 0 : wgx->num_peers;
	if (!replace && req->key_change && own_public) {
		struct wgx_peer *self;

		self = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, own_public);
		if (self) {
			--count;
			wgx_peer_put(self);
		}
	}

	if (!req->nr_peers)
		return 0;
	ret = wgx_nl_group_peers(req);
	if (ret)
		return ret;

	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i], *g = &req->peers[p->group];

		if (own_public && !memcmp(p->public_key, own_public, WGX_KEY_LEN)) {
			p->action = WGX_NL_PEER_SKIP; /* silently, as WireGuard */
			continue;
		}
		if (p->group == i && !replace) {
			g->live = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, p->public_key);
			g->existed = !!g->live;
			g->exists = g->existed;
		}
		if (p->flags & WGX_PEER_F_REMOVE_ME) {
			p->action = g->exists ? WGX_NL_PEER_REMOVE : WGX_NL_PEER_SKIP;
			if (g->exists) {
				g->exists = false;
				--count;
			}
			continue;
		}
		if (g->exists) {
			p->action = WGX_NL_PEER_UPDATE;
			continue;
		}
		if (p->flags & WGX_PEER_F_UPDATE_ONLY) {
			p->action = WGX_NL_PEER_SKIP;
			continue;
		}
		if (count >= WGX_MAX_PEERS_PER_DEVICE) {
			NL_SET_ERR_MSG_ATTR(extack, p->attr,
					    "the device would have too many peers");
			return -E2BIG;
		}
		++count;
		++nr_creates;
		g->exists = true;
		p->action = WGX_NL_PEER_CREATE;
		/*
		 * A key the device does not know yet: the peer can be created
		 * before anything else changes.  Not with REPLACE_PEERS, whose
		 * removal of every peer must come first.
		 */
		p->precreate = !replace && !g->existed && !g->created_once;
		g->created_once = true;
	}

	ret = wgx_nl_plan_rekeys(req, own_public);
	if (ret)
		return ret;

	/*
	 * Creating early changes when peers exist: only do it if the device
	 * stays within the limit even before any removal makes room.
	 */
	if (wgx->num_peers + nr_creates > WGX_MAX_PEERS_PER_DEVICE) {
		for (i = 0; i < req->nr_peers; ++i)
			req->peers[i].precreate = false;
	}
	return 0;
}

static const u8 *wgx_nl_psk_or_null(const u8 *psk)
{
	return psk && memchr_inv(psk, 0, WGX_KEY_LEN) ? psk : NULL;
}

static int wgx_nl_create_peer(struct wgx_nl_set *req, struct wgx_nl_peer *p)
{
	struct wgx_nl_peer *g = &req->peers[p->group];
	struct wgx_peer *peer;

	peer = wgx_peer_create(req->wgx, p->public_key, wgx_nl_psk_or_null(p->preshared_key));
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	g->live = wgx_peer_get(peer);
	return 0;
}

/* Whether @peer's endpoint has @ep's address and port already: its route stays. */
static bool wgx_nl_endpoint_same(struct wgx_peer *peer, const struct wgx_endpoint *ep)
{
	bool same;

	read_lock_bh(&peer->endpoint_lock);
	same = wgx_endpoint_same_dest(&peer->endpoint, ep);
	read_unlock_bh(&peer->endpoint_lock);
	return same;
}

/* Apply one peer entry (phase 3).  Only allocation failures are possible. */
static int wgx_nl_apply_peer(struct wgx_nl_set *req, struct wgx_nl_peer *p)
{
	struct netlink_ext_ack *extack = req->info->extack;
	struct wgx_nl_peer *g = &req->peers[p->group];
	struct wgx_device *wgx = req->wgx;
	struct wgx_allowedips *table = wgx->allowedips;
	struct wgx_peer *peer;
	bool is_new = false;
	u32 i;
	int ret;

	switch (p->action) {
	case WGX_NL_PEER_SKIP:
		return 0;
	case WGX_NL_PEER_REMOVE:
		wgx_peer_remove(g->live);
		wgx_peer_put(g->live);
		g->live = NULL;
		return 0;
	case WGX_NL_PEER_CREATE:
		if (!p->precreate) {
			ret = wgx_nl_create_peer(req, p);
			if (ret) {
				NL_SET_ERR_MSG_ATTR(extack, p->attr,
						    "cannot create the peer; earlier changes of this message stay applied");
				return ret;
			}
		}
		is_new = true;
		break;
	case WGX_NL_PEER_UPDATE:
		break;
	}
	peer = g->live;

	/* A new peer got its preshared key at creation. */
	if (p->preshared_key && !is_new) {
		down_read(&wgx->identity_lock);
		mutex_lock(&peer->handshake_lock);
		wgx_noise_handshake_set_preshared_key(peer->handshake,
						      wgx_nl_psk_or_null(p->preshared_key));
		wgx_noise_handshake_set_preshared_key(peer->prev_handshake,
						      wgx_nl_psk_or_null(p->preshared_key));
		mutex_unlock(&peer->handshake_lock);
		up_read(&wgx->identity_lock);
	}

	if (p->endpoint) {
		struct wgx_endpoint ep;

		memset(&ep, 0, sizeof(ep));
		if (nla_len(p->endpoint) == sizeof(struct sockaddr_in))
			memcpy(&ep.addr4, nla_data(p->endpoint), sizeof(ep.addr4));
		else
			memcpy(&ep.addr6, nla_data(p->endpoint), sizeof(ep.addr6));
		p->endpoint_moved = !is_new && !wgx_nl_endpoint_same(peer, &ep);
		wgx_endpoint_set(peer, &ep);
		/* Given: automatic ports now spread to it (route caches for them). */
		wgx_ports_peer_set(peer, wgx_ports_peer_wanted(peer));
	}

	if ((p->flags & WGX_PEER_F_REPLACE_ALLOWEDIPS) && !is_new)
		wgx_allowedips_remove_by_peer(table, peer);

	for (i = p->first_ip; i < p->first_ip + p->nr_ips; ++i) {
		const struct wgx_nl_allowedip *ip = &req->ips[i];

		if (ip->remove) {
			/* -ENOENT (absent, or another peer's) is not an error. */
			wgx_allowedips_remove(table, ip->family, ip->addr, ip->cidr, peer);
			continue;
		}
		ret = wgx_allowedips_insert(table, ip->family, ip->addr, ip->cidr, peer, true);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, ip->attr,
					    "cannot insert the allowed IP; earlier changes of this message stay applied");
			return ret;
		}
	}

	if (p->keepalive >= 0) {
		u16 old = READ_ONCE(peer->timer_state.persistent_keepalive_s);

		wgx_timers_set_persistent_keepalive(peer, p->keepalive);
		/* Turned on or changed while up: one keepalive now starts the cycle. */
		if (p->keepalive && p->keepalive != old && netif_running(wgx->dev))
			wgx_send_keepalive(peer);
	}

	if (p->mtu >= 0)
		wgx_pmtu_set_fixed(&peer->pmtu, p->mtu);

	/* Last: the entry's other attributes addressed the peer by its old key. */
	if (p->new_key)
		wgx_peer_set_public_key(peer, nla_data(p->new_key));
	return 0;
}

/* Undo the early creation of peers (phase 3 failed before any other change). */
static void wgx_nl_undo_precreate(struct wgx_nl_set *req)
{
	u32 i;

	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i], *g = &req->peers[p->group];

		if (p->precreate && g->live) {
			wgx_peer_remove(g->live);
			wgx_peer_put(g->live);
			g->live = NULL;
		}
	}
}

/* Phase 3. */
static int wgx_nl_set_apply(struct wgx_nl_set *req)
{
	struct netlink_ext_ack *extack = req->info->extack;
	struct nlattr **attrs = req->info->attrs;
	struct wgx_device *wgx = req->wgx;
	bool full;
	struct wgx_peer *peer;
	u32 i;
	int ret;

	/* Steps that can fail, and can be undone. */
	for (i = 0; i < req->nr_peers; ++i) {
		struct wgx_nl_peer *p = &req->peers[i];

		if (!p->precreate)
			continue;
		ret = wgx_nl_create_peer(req, p);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, p->attr, "cannot create the peer");
			goto undo;
		}
	}
	if (req->port_change) {
		ret = wgx_device_set_listen_port(wgx, req->port, req->nports);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[WGX_DEVICE_A_LISTEN_PORT],
					    "cannot bind the UDP sockets to this port");
			goto undo;
		}
		if (req->port_given)
			wgx->port_set = req->port;
	}
	if (req->rx_spread_change) {
		ret = wgx_rxspread_set(wgx, req->rx_spread);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, wgx_nl_attr(req->flavour, attrs,
								WGX_DEVICE_A_RX_SPREAD),
					    "cannot switch receive spreading on (a listen port change stays applied)");
			goto undo;
		}
	}

	/* From here on the device changes, in the order of the uapi. */
	if (req->flags & WGX_DEVICE_F_REPLACE_PEERS)
		wgx_peer_remove_all(wgx);

	/* Before the private key: "private-key NEW key-grace 30" rotates with grace. */
	if (req->key_grace_change)
		WRITE_ONCE(wgx->key_grace_s, req->key_grace_s);
	if (req->key_change) {
		ret = wgx_keygrace_set_private_key(wgx, req->key_clear ? NULL :
						 nla_data(attrs[WGX_DEVICE_A_PRIVATE_KEY]));
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[WGX_DEVICE_A_PRIVATE_KEY],
					    "cannot set the private key; earlier changes of this message stay applied");
			return ret;
		}
	}

	/* Read per packet by ndo_start_xmit; a packet sees the old or the new value. */
	if (req->dscp_change)
		WRITE_ONCE(wgx->dscp_copy, req->dscp_copy);
	if (req->priority_dscp_change)
		WRITE_ONCE(wgx->priority_dscp, req->priority_dscp);
	/* Read by the initiation workers; a new budget starts with a full burst. */
	if (req->handshake_budget_change) {
		WRITE_ONCE(wgx->handshake_budget, req->handshake_budget);
		wgx_handshake_budget_reset(wgx);
	}

	if (req->fwmark_change) {
		WRITE_ONCE(wgx->fwmark, req->fwmark);
		/* Routes may differ under the new mark: forget cached sources. */
		list_for_each_entry(peer, &wgx->peer_list, peer_list)
			wgx_endpoint_clear_src(peer);
	}

	for (i = 0; i < req->nr_peers; ++i) {
		ret = wgx_nl_apply_peer(req, &req->peers[i]);
		if (ret)
			return ret;
	}
	/* Last: the endpoints and the fwmark pick the underlay (devmtu.h). */
	if (req->mtu_auto_change) {
		wgx_devmtu_set_auto(wgx, req->mtu_auto);
		return 0;
	}
	/*
	 * New endpoints (new peers, or the same address again) only lower it,
	 * one route lookup each; a removed peer, a moved endpoint or another
	 * fwmark may raise it: all peers again (devmtu.h).
	 */
	full = req->fwmark_change || (req->flags & WGX_DEVICE_F_REPLACE_PEERS);
	for (i = 0; i < req->nr_peers && !full; ++i)
		full = req->peers[i].action == WGX_NL_PEER_REMOVE || req->peers[i].endpoint_moved;
	if (full) {
		wgx_devmtu_update(wgx);
		return 0;
	}
	for (i = 0; i < req->nr_peers; ++i) {
		const struct wgx_nl_peer *p = &req->peers[i];

		if (p->endpoint && p->action != WGX_NL_PEER_SKIP && req->peers[p->group].live)
			wgx_devmtu_add_peer(wgx, req->peers[p->group].live);
	}
	return 0;

undo:
	wgx_nl_undo_precreate(req);
	return ret;
}

static void wgx_nl_set_release(struct wgx_nl_set *req)
{
	u32 i;

	for (i = 0; i < req->nr_peers; ++i) {
		if (req->peers[i].live)
			wgx_peer_put(req->peers[i].live);
	}
	kvfree(req->ips);
	kvfree(req->peers);
}

/* Key material must not linger in the request (nor in an echoed error). */
static void wgx_nl_wipe_keys(struct genl_info *info)
{
	struct nlattr *peer, *psk;
	int rem;

	if (info->attrs[WGX_DEVICE_A_PRIVATE_KEY])
		memzero_explicit(nla_data(info->attrs[WGX_DEVICE_A_PRIVATE_KEY]),
				 nla_len(info->attrs[WGX_DEVICE_A_PRIVATE_KEY]));
	if (!info->attrs[WGX_DEVICE_A_PEERS])
		return;
	nla_for_each_nested(peer, info->attrs[WGX_DEVICE_A_PEERS], rem) {
		psk = nla_find_nested(peer, WGX_PEER_A_PRESHARED_KEY);
		if (psk)
			memzero_explicit(nla_data(psk), nla_len(psk));
	}
}

static int wgx_nl_set_doit(struct genl_info *info, const struct wgx_nl_flavour *flavour)
{
	struct wgx_nl_set req = { .flavour = flavour, .info = info };
	struct wgx_device *wgx;
	int ret;

	wgx = wgx_netlink_lookup_device(flavour, genl_info_net(info), info->attrs, info->extack);
	if (IS_ERR(wgx)) {
		ret = PTR_ERR(wgx);
		goto out;
	}
	req.wgx = wgx;

	rtnl_lock();
	mutex_lock(&wgx->device_update_lock);
	ret = wgx_netlink_parse_set(&req);
	if (!ret)
		ret = wgx_nl_set_plan(&req);
	if (!ret)
		ret = wgx_nl_set_apply(&req);
	wgx_nl_set_release(&req);
	mutex_unlock(&wgx->device_update_lock);
	rtnl_unlock();
	dev_put(wgx->dev);
out:
	wgx_nl_wipe_keys(info);
	return ret;
}

int wgx_netlink_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return wgx_nl_set_doit(info, &wgx_nl_flavour_wgx);
}

int wgx_netlink_wg_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return wgx_nl_set_doit(info, &wgx_nl_flavour_wireguard);
}
