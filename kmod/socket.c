// SPDX-License-Identifier: GPL-2.0
/*
 * socket.c - UDP sockets through the kernel's udp_tunnel helpers, routing
 * with a per-peer dst_cache, endpoint stickiness and roaming.
 *
 * Locking: the sockets are RCU pointers in struct wgx_device, replaced under
 * device_update_lock; senders read them under rcu_read_lock_bh().  A peer's
 * endpoint is guarded by its endpoint_lock (rwlock, BH-safe).  The send path
 * holds it for reading and may clear a stale source address in place: that
 * store races only with other senders making the same decision, and the next
 * route lookup corrects whatever it sees, as WireGuard's does.
 */
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/if_ether.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/dst_cache.h>
#include <net/inet_common.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "device.h"
#include "send.h"
#include "peer.h"
#include "receive.h"
#include "socket.h"

static void wgx_endpoint_clear_src4(struct wgx_endpoint *endpoint, struct dst_cache *cache)
{
	endpoint->src4.s_addr = 0;
	endpoint->src_if4 = 0;
	if (cache)
		dst_cache_reset(cache);
}

static int wgx_send4(struct wgx_device *wgx, struct sk_buff *skb, struct wgx_endpoint *endpoint,
		     u8 ds, struct dst_cache *cache)
{
	struct flowi4 fl = {
		.saddr = endpoint->src4.s_addr,
		.daddr = endpoint->addr4.sin_addr.s_addr,
		.fl4_dport = endpoint->addr4.sin_port,
		.flowi4_mark = wgx->fwmark,
		.flowi4_proto = IPPROTO_UDP,
	};
	struct rtable *rt = NULL;
	struct sock *sock;
	int ret = 0;

	skb_mark_not_on_list(skb);
	skb->dev = wgx->dev;
	skb->mark = wgx->fwmark;

	rcu_read_lock_bh();
	sock = rcu_dereference_bh(wgx->sock4);
	if (unlikely(!sock)) {
		ret = -ENONET;
		goto err;
	}
	fl.fl4_sport = inet_sk(sock)->inet_sport;

	if (cache)
		rt = dst_cache_get_ip4(cache, &fl.saddr);
	if (!rt) {
		security_sk_classify_flow(sock, flowi4_to_flowi_common(&fl));
		/* Our remembered source address went away: pick a new one. */
		if (fl.saddr && !inet_confirm_addr(sock_net(sock), NULL, 0, fl.saddr, RT_SCOPE_HOST)) {
			wgx_endpoint_clear_src4(endpoint, cache);
			fl.saddr = 0;
		}
		rt = ip_route_output_flow(sock_net(sock), &fl, sock);
		/* The source is still ours but now routes through another interface. */
		if (unlikely(endpoint->src_if4 &&
			     ((IS_ERR(rt) && PTR_ERR(rt) == -EINVAL) ||
			      (!IS_ERR(rt) && rt->dst.dev->ifindex != endpoint->src_if4)))) {
			wgx_endpoint_clear_src4(endpoint, cache);
			fl.saddr = 0;
			if (!IS_ERR(rt))
				ip_rt_put(rt);
			rt = ip_route_output_flow(sock_net(sock), &fl, sock);
		}
		if (IS_ERR(rt)) {
			ret = PTR_ERR(rt);
			net_dbg_ratelimited("%s: no route to %pISpfsc, error %d\n",
					    wgx->dev->name, &endpoint->addr, ret);
			goto err;
		}
		if (cache)
			dst_cache_set_ip4(cache, &rt->dst, fl.saddr);
	}

	skb->ignore_df = 1;
	udp_tunnel_xmit_skb(rt, sock, skb, fl.saddr, fl.daddr, ds, ip4_dst_hoplimit(&rt->dst), 0,
			    fl.fl4_sport, fl.fl4_dport, false, false);
	goto out;

err:
	kfree_skb(skb);
out:
	rcu_read_unlock_bh();
	return ret;
}

static int wgx_send6(struct wgx_device *wgx, struct sk_buff *skb, struct wgx_endpoint *endpoint,
		     u8 ds, struct dst_cache *cache)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct flowi6 fl = {
		.saddr = endpoint->src6,
		.daddr = endpoint->addr6.sin6_addr,
		.fl6_dport = endpoint->addr6.sin6_port,
		.flowi6_mark = wgx->fwmark,
		.flowi6_oif = endpoint->addr6.sin6_scope_id,
		.flowi6_proto = IPPROTO_UDP,
	};
	struct dst_entry *dst = NULL;
	struct sock *sock;
	int ret = 0;

	skb_mark_not_on_list(skb);
	skb->dev = wgx->dev;
	skb->mark = wgx->fwmark;

	rcu_read_lock_bh();
	sock = rcu_dereference_bh(wgx->sock6);
	if (unlikely(!sock)) {
		ret = -ENONET;
		goto err;
	}
	fl.fl6_sport = inet_sk(sock)->inet_sport;

	if (cache)
		dst = dst_cache_get_ip6(cache, &fl.saddr);
	if (!dst) {
		security_sk_classify_flow(sock, flowi6_to_flowi_common(&fl));
		if (!ipv6_addr_any(&fl.saddr) &&
		    !ipv6_chk_addr(sock_net(sock), &fl.saddr, NULL, 0)) {
			endpoint->src6 = fl.saddr = in6addr_any;
			if (cache)
				dst_cache_reset(cache);
		}
		dst = ipv6_stub->ipv6_dst_lookup_flow(sock_net(sock), sock, &fl, NULL);
		if (IS_ERR(dst)) {
			ret = PTR_ERR(dst);
			net_dbg_ratelimited("%s: no route to %pISpfsc, error %d\n",
					    wgx->dev->name, &endpoint->addr, ret);
			goto err;
		}
		if (cache)
			dst_cache_set_ip6(cache, dst, &fl.saddr);
	}

	skb->ignore_df = 1;
	udp_tunnel6_xmit_skb(dst, sock, skb, skb->dev, &fl.saddr, &fl.daddr, ds,
			     ip6_dst_hoplimit(dst), 0, fl.fl6_sport, fl.fl6_dport, false);
	goto out;

err:
	kfree_skb(skb);
out:
	rcu_read_unlock_bh();
	return ret;
#else
	kfree_skb(skb);
	return -EAFNOSUPPORT;
#endif
}

int wgx_socket_send_skb_to_peer(struct wgx_peer *peer, struct sk_buff *skb, u8 ds)
{
	size_t skb_len = skb->len;
	int ret = -EAFNOSUPPORT;

	read_lock_bh(&peer->endpoint_lock);
	if (peer->endpoint.addr.sa_family == AF_INET)
		ret = wgx_send4(peer->wgx, skb, &peer->endpoint, ds, &peer->endpoint_cache);
	else if (peer->endpoint.addr.sa_family == AF_INET6)
		ret = wgx_send6(peer->wgx, skb, &peer->endpoint, ds, &peer->endpoint_cache);
	else
		kfree_skb(skb);
	if (likely(!ret))
		wgx_peer_count_tx(peer, skb_len);
	read_unlock_bh(&peer->endpoint_lock);
	return ret == -EAFNOSUPPORT ? -EHOSTUNREACH : ret;
}

static struct sk_buff *wgx_socket_alloc_skb(const void *buffer, size_t len)
{
	struct sk_buff *skb = alloc_skb(len + WGX_SOCKET_HEADROOM, GFP_ATOMIC);

	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, WGX_SOCKET_HEADROOM);
	skb_set_inner_network_header(skb, 0);
	skb_put_data(skb, buffer, len);
	return skb;
}

int wgx_socket_send_buffer_to_peer(struct wgx_peer *peer, const void *buffer, size_t len, u8 ds)
{
	struct sk_buff *skb = wgx_socket_alloc_skb(buffer, len);

	if (unlikely(!skb))
		return -ENOMEM;
	return wgx_socket_send_skb_to_peer(peer, skb, ds);
}

int wgx_socket_send_buffer_as_reply_to_skb(struct wgx_device *wgx, struct sk_buff *in_skb,
					   const void *buffer, size_t len)
{
	struct wgx_endpoint endpoint;
	struct sk_buff *skb;
	int ret;

	ret = wgx_socket_endpoint_from_skb(&endpoint, in_skb);
	if (unlikely(ret < 0))
		return ret;
	skb = wgx_socket_alloc_skb(buffer, len);
	if (unlikely(!skb))
		return -ENOMEM;
	/* No dst_cache: a reply goes to a stranger, once. */
	if (endpoint.addr.sa_family == AF_INET)
		return wgx_send4(wgx, skb, &endpoint, 0, NULL);
	if (endpoint.addr.sa_family == AF_INET6)
		return wgx_send6(wgx, skb, &endpoint, 0, NULL);
	kfree_skb(skb);
	return -EAFNOSUPPORT;
}

int wgx_socket_endpoint_from_skb(struct wgx_endpoint *endpoint, const struct sk_buff *skb)
{
	memset(endpoint, 0, sizeof(*endpoint));
	if (skb->protocol == htons(ETH_P_IP)) {
		endpoint->addr4.sin_family = AF_INET;
		endpoint->addr4.sin_port = udp_hdr(skb)->source;
		endpoint->addr4.sin_addr.s_addr = ip_hdr(skb)->saddr;
		endpoint->src4.s_addr = ip_hdr(skb)->daddr;
		endpoint->src_if4 = skb->skb_iif;
	} else if (IS_ENABLED(CONFIG_IPV6) && skb->protocol == htons(ETH_P_IPV6)) {
		endpoint->addr6.sin6_family = AF_INET6;
		endpoint->addr6.sin6_port = udp_hdr(skb)->source;
		endpoint->addr6.sin6_addr = ipv6_hdr(skb)->saddr;
		endpoint->addr6.sin6_scope_id = ipv6_iface_scope_id(&ipv6_hdr(skb)->saddr,
								    skb->skb_iif);
		endpoint->src6 = ipv6_hdr(skb)->daddr;
	} else {
		return -EINVAL;
	}
	return 0;
}

static bool wgx_endpoint_eq(const struct wgx_endpoint *a, const struct wgx_endpoint *b)
{
	if (a->addr.sa_family != b->addr.sa_family)
		return false;
	if (a->addr.sa_family == AF_INET)
		return a->addr4.sin_port == b->addr4.sin_port &&
		       a->addr4.sin_addr.s_addr == b->addr4.sin_addr.s_addr &&
		       a->src4.s_addr == b->src4.s_addr && a->src_if4 == b->src_if4;
	if (a->addr.sa_family == AF_INET6)
		return a->addr6.sin6_port == b->addr6.sin6_port &&
		       ipv6_addr_equal(&a->addr6.sin6_addr, &b->addr6.sin6_addr) &&
		       a->addr6.sin6_scope_id == b->addr6.sin6_scope_id &&
		       ipv6_addr_equal(&a->src6, &b->src6);
	return true;
}

void wgx_socket_set_peer_endpoint(struct wgx_peer *peer, const struct wgx_endpoint *endpoint)
{
	/* Cheap unlocked check first: roaming is rare, every packet asks. */
	read_lock_bh(&peer->endpoint_lock);
	if (likely(wgx_endpoint_eq(endpoint, &peer->endpoint))) {
		read_unlock_bh(&peer->endpoint_lock);
		return;
	}
	read_unlock_bh(&peer->endpoint_lock);

	write_lock_bh(&peer->endpoint_lock);
	if (endpoint->addr.sa_family == AF_INET) {
		peer->endpoint.addr4 = endpoint->addr4;
		peer->endpoint.src4 = endpoint->src4;
		peer->endpoint.src_if4 = endpoint->src_if4;
	} else if (endpoint->addr.sa_family == AF_INET6) {
		peer->endpoint.addr6 = endpoint->addr6;
		peer->endpoint.src6 = endpoint->src6;
	} else {
		goto out;
	}
	dst_cache_reset(&peer->endpoint_cache);
out:
	write_unlock_bh(&peer->endpoint_lock);
}

void wgx_socket_set_peer_endpoint_from_skb(struct wgx_peer *peer, const struct sk_buff *skb)
{
	struct wgx_endpoint endpoint;

	if (!wgx_socket_endpoint_from_skb(&endpoint, skb))
		wgx_socket_set_peer_endpoint(peer, &endpoint);
}

void wgx_socket_clear_peer_endpoint_src(struct wgx_peer *peer)
{
	write_lock_bh(&peer->endpoint_lock);
	memset(&peer->endpoint.src6, 0, sizeof(peer->endpoint.src6));
	dst_cache_reset_now(&peer->endpoint_cache);
	write_unlock_bh(&peer->endpoint_lock);
}

static void wgx_sock_free(struct sock *sock)
{
	if (unlikely(!sock))
		return;
	sk_clear_memalloc(sock);
	udp_tunnel_sock_release(sock->sk_socket);
}

static void wgx_set_sock_opts(struct socket *sock)
{
	sock->sk->sk_allocation = GFP_ATOMIC;
	sock->sk->sk_sndbuf = INT_MAX;
	sk_set_memalloc(sock->sk);
}

int wgx_socket_init(struct wgx_device *wgx, u16 port)
{
	struct net *net = wgx->creating_net;
	struct udp_tunnel_sock_cfg cfg = {
		.sk_user_data = wgx,
		.encap_type = 1,
		.encap_rcv = wgx_receive,
	};
	struct socket *new4 = NULL, *new6 = NULL;
	struct udp_port_cfg port4 = {
		.family = AF_INET,
		.local_ip.s_addr = htonl(INADDR_ANY),
		.local_udp_port = htons(port),
		.use_udp_checksums = true,
	};
#if IS_ENABLED(CONFIG_IPV6)
	struct udp_port_cfg port6 = {
		.family = AF_INET6,
		.local_ip6 = IN6ADDR_ANY_INIT,
		.use_udp6_tx_checksums = true,
		.use_udp6_rx_checksums = true,
		.ipv6_v6only = true,
	};
	int retries = 0;
#endif
	int ret;

retry:
	ret = udp_sock_create(net, &port4, &new4);
	if (ret < 0) {
		netdev_err(wgx->dev, "could not create IPv4 socket on port %u: %d\n", port, ret);
		return ret;
	}
	wgx_set_sock_opts(new4);
	setup_udp_tunnel_sock(net, new4, &cfg);

#if IS_ENABLED(CONFIG_IPV6)
	if (ipv6_mod_enabled()) {
		/* Same port for both families; with port 0 the kernel chose it for v4. */
		port6.local_udp_port = inet_sk(new4->sk)->inet_sport;
		ret = udp_sock_create(net, &port6, &new6);
		if (ret < 0) {
			udp_tunnel_sock_release(new4);
			new4 = NULL;
			if (ret == -EADDRINUSE && !port && retries++ < 100)
				goto retry;
			netdev_err(wgx->dev, "could not create IPv6 socket on port %u: %d\n", port, ret);
			return ret;
		}
		wgx_set_sock_opts(new6);
		setup_udp_tunnel_sock(net, new6, &cfg);
	}
#endif

	wgx_socket_reinit(wgx, new4->sk, new6 ? new6->sk : NULL);
	return 0;
}

void wgx_socket_reinit(struct wgx_device *wgx, struct sock *new4, struct sock *new6)
{
	struct sock *old4, *old6;

	lockdep_assert_held(&wgx->device_update_lock);
	old4 = rcu_replace_pointer(wgx->sock4, new4, lockdep_is_held(&wgx->device_update_lock));
	old6 = rcu_replace_pointer(wgx->sock6, new6, lockdep_is_held(&wgx->device_update_lock));
	if (new4)
		wgx->incoming_port = ntohs(inet_sk(new4)->inet_sport);
	synchronize_net();
	wgx_sock_free(old4);
	wgx_sock_free(old6);
}
