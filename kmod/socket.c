// SPDX-License-Identifier: GPL-2.0
/*
 * socket.c - UDP sockets through the kernel's udp_tunnel helpers and
 * routing with a per-peer dst_cache (per listen port with several); the
 * peer's endpoint, its stickiness and roaming are endpoint.c's.
 *
 * Locking: the sockets are RCU pointers in struct wgx_device, replaced under
 * device_update_lock; senders read them under rcu_read_lock_bh().  A peer's
 * endpoint is guarded by its endpoint_lock (rwlock, BH-safe).  The send path
 * holds it for reading and may clear a stale source address in place: that
 * store races only with other senders making the same decision, and the next
 * route lookup corrects whatever it sees, as WireGuard's does.  The receive
 * path compares the endpoint without the lock (a torn read at worst delays
 * one roaming step to the next packet) and writes only when it changes.
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
#include "endpoint.h"
#include "send.h"
#include "peer.h"
#include "pmtu.h"
#include "queueing.h"
#include "receive.h"
#include "socket.h"

/* Picks of a random first port before giving up on -EADDRINUSE (as WireGuard). */
#define WGX_SOCKET_PICK_TRIES 100

static void wgx_endpoint_clear_src4(struct wgx_endpoint *endpoint, struct dst_cache *cache)
{
	endpoint->src4.s_addr = 0;
	endpoint->src_if4 = 0;
	if (cache)
		dst_cache_reset(cache);
}

/*
 * A route whose device is a wgx device (another one, or this one: onion
 * routing) makes the send re-enter a wgx ndo_start_xmit.  From a worker that
 * is fine; from inside an ndo_start_xmit (@direct: the priority lane's
 * inline send, holding our tx queue's lock) it would take the lower device's
 * tx lock inside ours, the same lock class (lockdep: recursive locking), or
 * our own again ("Dead loop on virtual device").  The check is on the dst
 * the send looked up anyway.
 */
static bool wgx_socket_must_defer(const struct dst_entry *dst, bool direct)
{
	return unlikely(direct) && wgx_device_is_wgx(dst->dev);
}

/*
 * Send @skb from @sock (the device's socket that wgx_socket_send() picked,
 * under its rcu_read_lock_bh()) to @endpoint; wgx_send6() is the same for
 * IPv6.  @df: outer IPv4 DF set, and no local fragmentation (IPv6 too): a
 * packet over the route's MTU is dropped and the route's ICMP teaches the
 * peer's MTU (pmtu.h).  *@route_mtu: the MTU of the route taken.
 */
static int wgx_send4(struct wgx_device *wgx, struct sock *sock, struct sk_buff *skb,
		     struct wgx_endpoint *endpoint, u8 ds, struct dst_cache *cache, bool direct,
		     bool df, u32 *route_mtu)
{
	struct flowi4 fl = {
		.saddr = endpoint->src4.s_addr,
		.daddr = endpoint->addr4.sin_addr.s_addr,
		.fl4_dport = endpoint->addr4.sin_port,
		.fl4_sport = inet_sk(sock)->inet_sport,
		.flowi4_mark = wgx->fwmark,
		.flowi4_proto = IPPROTO_UDP,
	};
	struct rtable *rt = NULL;
	int ret = 0;

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
	if (wgx_socket_must_defer(&rt->dst, direct)) {
		/* @skb is the caller's still. */
		ip_rt_put(rt);
		return WGX_SOCKET_VIA_WGX;
	}

	*route_mtu = wgx_pmtu_route_mtu(&rt->dst);
	skb->ignore_df = !df;
	udp_tunnel_xmit_skb(rt, sock, skb, fl.saddr, fl.daddr, ds, ip4_dst_hoplimit(&rt->dst),
			    df ? htons(IP_DF) : 0, fl.fl4_sport, fl.fl4_dport, false, false);
	return 0;

err:
	kfree_skb(skb);
	return ret;
}

static int wgx_send6(struct wgx_device *wgx, struct sock *sock, struct sk_buff *skb,
		     struct wgx_endpoint *endpoint, u8 ds, struct dst_cache *cache, bool direct,
		     bool df, u32 *route_mtu)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct flowi6 fl = {
		.saddr = endpoint->src6,
		.daddr = endpoint->addr6.sin6_addr,
		.fl6_dport = endpoint->addr6.sin6_port,
		.fl6_sport = inet_sk(sock)->inet_sport,
		.flowi6_mark = wgx->fwmark,
		.flowi6_oif = endpoint->addr6.sin6_scope_id,
		.flowi6_proto = IPPROTO_UDP,
	};
	struct dst_entry *dst = NULL;
	int ret = 0;

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
	if (wgx_socket_must_defer(dst, direct)) {
		dst_release(dst);
		return WGX_SOCKET_VIA_WGX;
	}

	*route_mtu = wgx_pmtu_route_mtu(dst);
	skb->ignore_df = !df;
	udp_tunnel6_xmit_skb(dst, sock, skb, skb->dev, &fl.saddr, &fl.daddr, ds,
			     ip6_dst_hoplimit(dst), 0, fl.fl6_sport, fl.fl6_dport, false);
	return 0;

err:
	kfree_skb(skb);
	return ret;
#else
	kfree_skb(skb);
	return -EAFNOSUPPORT;
#endif
}

/*
 * Send @skb to @endpoint from the device's socket of port @index (the
 * first port's when @index has none) of the endpoint's family, through
 * wgx_send4() or wgx_send6(); the same returns, -EAFNOSUPPORT for an
 * endpoint of neither family and -ENONET when the device has no socket of
 * it.  @skb is consumed but on WGX_SOCKET_VIA_WGX.  Bottom halves may be on.
 */
static int wgx_socket_send(struct wgx_device *wgx, struct sk_buff *skb,
			   struct wgx_endpoint *endpoint, u8 ds, struct dst_cache *cache,
			   unsigned int index, bool direct, bool df, u32 *route_mtu)
{
	sa_family_t family = endpoint->addr.sa_family;
	struct sock __rcu *const *socks = family == AF_INET ? wgx->sock4 : wgx->sock6;
	struct sock *sock;
	int ret;

	if (unlikely(family != AF_INET && (family != AF_INET6 || !IS_ENABLED(CONFIG_IPV6)))) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	skb_mark_not_on_list(skb);
	skb->dev = wgx->dev;
	skb->mark = wgx->fwmark;
	rcu_read_lock_bh();
	sock = rcu_dereference_bh(socks[index < WGX_MAX_LISTEN_PORTS ? index : 0]);
	if (unlikely(!sock) && index)
		sock = rcu_dereference_bh(socks[0]);
	if (unlikely(!sock)) {
		kfree_skb(skb);
		ret = -ENONET;
	} else if (family == AF_INET) {
		ret = wgx_send4(wgx, sock, skb, endpoint, ds, cache, direct, df, route_mtu);
	} else {
		ret = wgx_send6(wgx, sock, skb, endpoint, ds, cache, direct, df, route_mtu);
	}
	rcu_read_unlock_bh();
	return ret;
}

int wgx_socket_send_skb_to_peer(struct wgx_peer *peer, struct sk_buff *skb, u8 ds,
				unsigned int index, bool direct)
{
	bool df = wgx_pmtu_df(&peer->pmtu) && !WGX_SKB_CB(skb)->frag;
	size_t skb_len = skb->len;
	struct dst_cache *cache;
	u32 route_mtu = 0, ip_len;
	int ret;

	read_lock_bh(&peer->endpoint_lock);
	rcu_read_lock_bh();
	cache = wgx_ports_peer_cache(peer, index);
	ip_len = peer->endpoint.addr.sa_family == AF_INET6 ? sizeof(struct ipv6hdr) :
							      sizeof(struct iphdr);
	ret = wgx_socket_send(peer->wgx, skb, &peer->endpoint, ds, cache, index, direct, df,
			      &route_mtu);
	if (likely(!ret)) {
		wgx_peer_count_tx(peer, skb_len);
		if (unlikely(wgx_pmtu_sent(&peer->pmtu, skb_len + ip_len + sizeof(struct udphdr),
					   route_mtu, df, jiffies)))
			wgx_peer_stats_inc(peer, WGX_PEER_STAT_PMTU_BLACKHOLES);
	}
	rcu_read_unlock_bh();
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
	return wgx_socket_send_skb_to_peer(peer, skb, ds, 0, false);
}

int wgx_socket_send_buffer_as_reply_to_skb(struct wgx_device *wgx, struct sk_buff *in_skb,
					   const void *buffer, size_t len)
{
	struct wgx_endpoint endpoint;
	unsigned int index = 0, bound, i;
	struct sk_buff *skb;
	u32 route_mtu;
	__be16 dport;
	int ret;

	ret = wgx_endpoint_from_skb(&endpoint, in_skb);
	if (unlikely(ret < 0))
		return ret;
	skb = wgx_socket_alloc_skb(buffer, len);
	if (unlikely(!skb))
		return -ENOMEM;
	/*
	 * Answer from the port the message came to.  The ports may change under
	 * us (no lock held here): one read of each, and the senders clamp the
	 * index anyway.
	 */
	dport = udp_hdr(in_skb)->dest;
	bound = min_t(unsigned int, READ_ONCE(wgx->bound_ports), WGX_MAX_LISTEN_PORTS);
	rcu_read_lock_bh();
	for (i = 0; i < bound; ++i) {
		/* Automatic ports are not consecutive: look for the socket's port. */
		struct sock *sock = rcu_dereference_bh(wgx->sock4[i]);

		if (sock && inet_sk(sock)->inet_sport == dport) {
			index = i;
			break;
		}
	}
	rcu_read_unlock_bh();
	/*
	 * No dst_cache: a reply goes to a stranger, once.  DSCP 0, as the
	 * in-tree module sends its cookie replies (only initiations and
	 * responses carry AF41).
	 */
	return wgx_socket_send(wgx, skb, &endpoint, 0, NULL, index, false, true, &route_mtu);
}

static void wgx_sock_free(struct sock *sock)
{
	if (unlikely(!sock))
		return;
	sk_clear_memalloc(sock);
	udp_tunnel_sock_release(sock->sk_socket);
}

/*
 * udp_tunnel_sock_release() in two halves, so that the sockets of a swap or
 * a down share one grace period instead of one each (16 synchronize_rcu()
 * per device down with 8 ports, 2 with one): first unhook @sock from
 * receive (encap_rcv and the ICMP lookup see a NULL device and drop), then,
 * after the caller's synchronize_net(), wgx_sock_release() shuts it down
 * and frees it.  Process context, under the device update lock.
 */
static void wgx_sock_unhook(struct sock *sock)
{
	if (!sock)
		return;
	sk_clear_memalloc(sock);
	rcu_assign_sk_user_data(sock, NULL);
}

static void wgx_sock_release(struct sock *sock)
{
	struct socket *s;

	if (!sock)
		return;
	s = sock->sk_socket;
	kernel_sock_shutdown(s, SHUT_RDWR);
	sock_release(s);
}

static void wgx_set_sock_opts(struct socket *sock)
{
	sock->sk->sk_allocation = GFP_ATOMIC;
	sock->sk->sk_sndbuf = INT_MAX;
	sk_set_memalloc(sock->sk);
	wgx_pmtu_sock_init(sock->sk);
}

/* An IPv4 and, when IPv6 is up, an IPv6 socket bound to @port (0 = any free one). */
static int wgx_socket_create(struct wgx_device *wgx, struct net *net, u16 port,
			     struct sock **new4, struct sock **new6)
{
	struct udp_tunnel_sock_cfg cfg = {
		.sk_user_data = wgx,
		.encap_type = 1,
		.encap_rcv = wgx_receive,
		.encap_err_lookup = wgx_pmtu_icmp_lookup,
	};
	struct udp_port_cfg port4 = {
		.family = AF_INET,
		.local_ip.s_addr = htonl(INADDR_ANY),
		.local_udp_port = htons(port),
		.use_udp_checksums = true,
	};
	struct socket *s4 = NULL, *s6 = NULL;
	int ret;

	ret = udp_sock_create(net, &port4, &s4);
	if (ret < 0)
		return ret;
	wgx_set_sock_opts(s4);
	setup_udp_tunnel_sock(net, s4, &cfg);

#if IS_ENABLED(CONFIG_IPV6)
	if (ipv6_mod_enabled()) {
		struct udp_port_cfg port6 = {
			.family = AF_INET6,
			.local_ip6 = IN6ADDR_ANY_INIT,
			.use_udp6_tx_checksums = true,
			.use_udp6_rx_checksums = true,
			.ipv6_v6only = true,
		};

		/* Same port for both families; with port 0 the kernel chose it for v4. */
		port6.local_udp_port = inet_sk(s4->sk)->inet_sport;
		ret = udp_sock_create(net, &port6, &s6);
		if (ret < 0) {
			wgx_sock_free(s4->sk);
			return ret;
		}
		wgx_set_sock_opts(s6);
		setup_udp_tunnel_sock(net, s6, &cfg);
	}
#endif
	*new4 = s4->sk;
	*new6 = s6 ? s6->sk : NULL;
	return 0;
}

static bool wgx_sock_in(const struct sock *sock, struct sock *const *socks, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; ++i)
		if (sock && socks[i] == sock)
			return true;
	return false;
}

/*
 * Put @n (0..WGX_MAX_LISTEN_PORTS) socket pairs in place of the installed ones
 * and free those after a grace period.  Senders that read a cleared slot
 * fall back to the first socket (see wgx_socket_send()).
 */
static void wgx_socket_install(struct wgx_device *wgx, struct sock **new4, struct sock **new6,
			       unsigned int n)
{
	struct sock *old4[WGX_MAX_LISTEN_PORTS], *old6[WGX_MAX_LISTEN_PORTS];
	unsigned int i;

	lockdep_assert_held(&wgx->device_update_lock);
	for (i = 0; i < WGX_MAX_LISTEN_PORTS; ++i) {
		old4[i] = rcu_replace_pointer(wgx->sock4[i], i < n ? new4[i] : NULL,
					      lockdep_is_held(&wgx->device_update_lock));
		old6[i] = rcu_replace_pointer(wgx->sock6[i], i < n ? new6[i] : NULL,
					      lockdep_is_held(&wgx->device_update_lock));
		/* A socket kept (same port, maybe another slot) is not old. */
		if (wgx_sock_in(old4[i], new4, n))
			old4[i] = NULL;
		if (wgx_sock_in(old6[i], new6, n))
			old6[i] = NULL;
		wgx_sock_unhook(old4[i]);
		wgx_sock_unhook(old6[i]);
	}
	WRITE_ONCE(wgx->bound_ports, n);
	if (n)
		WRITE_ONCE(wgx->incoming_port, ntohs(inet_sk(new4[0])->inet_sport));
	/* One grace period for the senders that read a slot and the receivers of every old socket. */
	synchronize_net();
	for (i = 0; i < WGX_MAX_LISTEN_PORTS; ++i) {
		wgx_sock_release(old4[i]);
		wgx_sock_release(old6[i]);
	}
}

/*
 * Automatic ports: @port (0 = any free one) exactly as a device with one
 * port binds it, then up to wgx_ports_wanted(0) - 1 sockets on ports
 * the kernel picks (port 0, as any client socket), so that no port a user
 * chose for something else is taken and no failure there keeps the device
 * down: a port that does not bind is left out.  With automatic ports already
 * (@wgx->listen_ports 0), the bound ones beyond the first are kept.
 */
static int wgx_socket_init_auto(struct wgx_device *wgx, struct net *net, u16 port)
{
	struct sock *new4[WGX_MAX_LISTEN_PORTS] = { }, *new6[WGX_MAX_LISTEN_PORTS] = { };
	unsigned int i, n = 1, bound = READ_ONCE(wgx->bound_ports);
	unsigned int first = WGX_MAX_LISTEN_PORTS, want = wgx_ports_wanted(0), tries;
	int ret;

	for (i = 0; port && i < bound; ++i) {
		struct sock *s4 = rcu_dereference_protected(wgx->sock4[i],
				lockdep_is_held(&wgx->device_update_lock));

		if (s4 && ntohs(inet_sk(s4)->inet_sport) == port) {
			new4[0] = s4;
			new6[0] = rcu_dereference_protected(wgx->sock6[i],
					lockdep_is_held(&wgx->device_update_lock));
			first = i;
			break;
		}
	}
	/*
	 * With @port 0 the kernel picks the IPv4 port, whose IPv6 half may be
	 * taken (an IPv6-only socket elsewhere): pick again, as a fixed run does.
	 */
	for (tries = 0; !new4[0]; ++tries) {
		ret = wgx_socket_create(wgx, net, port, &new4[0], &new6[0]);
		if (ret == -EADDRINUSE && !port && tries < WGX_SOCKET_PICK_TRIES)
			continue;
		if (ret < 0) {
			netdev_err(wgx->dev, "could not bind UDP port %u: %d\n", port, ret);
			return ret;
		}
	}
	/* The old first port is the user's; it is not kept as an extra one. */
	for (i = 1; !READ_ONCE(wgx->listen_ports) && i < bound && n < want; ++i) {
		if (i == first)
			continue;
		new4[n] = rcu_dereference_protected(wgx->sock4[i],
				lockdep_is_held(&wgx->device_update_lock));
		new6[n] = rcu_dereference_protected(wgx->sock6[i],
				lockdep_is_held(&wgx->device_update_lock));
		if (new4[n])
			++n;
	}
	for (tries = 0; n < want && tries < 2 * want; ++tries) {
		/* The v6 half of a pair may find the v4 half's port taken: try another. */
		if (!wgx_socket_create(wgx, net, 0, &new4[n], &new6[n]))
			++n;
	}
	if (n < want)
		netdev_info(wgx->dev, "listening on %u UDP ports of %u\n", n, want);
	/*
	 * Automatic before the ports are: a sender that sees the new ports
	 * must apply the automatic rules to them (only given endpoints, only
	 * flows with ports), not a fixed N's.  Nothing fails past here.
	 */
	WRITE_ONCE(wgx->listen_ports, 0);
	wgx_socket_install(wgx, new4, new6, n);
	return 0;
}

int wgx_socket_init(struct wgx_device *wgx, u16 port, unsigned int nports)
{
	struct sock *new4[WGX_MAX_LISTEN_PORTS] = { }, *new6[WGX_MAX_LISTEN_PORTS] = { };
	struct net *net = rcu_dereference_protected(wgx->creating_net,
						    lockdep_is_held(&wgx->device_update_lock));
	unsigned int i, j, bound, retries = 0;
	bool kept[WGX_MAX_LISTEN_PORTS] = { };
	u16 base;
	int ret;

	lockdep_assert_held(&wgx->device_update_lock);
	if (!net)
		return -ENONET;
	if (!nports)
		return wgx_socket_init_auto(wgx, net, port);
	if (nports > WGX_MAX_LISTEN_PORTS || (u32)port + nports - 1 > U16_MAX)
		return -EINVAL;
	/*
	 * Ports of the new run that are bound already stay bound (they could not
	 * be bound twice): the same first port with another count, or a run
	 * moved by less than its length.  Only the difference is created or
	 * closed.
	 */
	bound = READ_ONCE(wgx->bound_ports);
	for (i = 0; port && i < nports; ++i) {
		for (j = 0; j < bound; ++j) {
			struct sock *s4 = rcu_dereference_protected(wgx->sock4[j],
					lockdep_is_held(&wgx->device_update_lock));

			if (s4 && ntohs(inet_sk(s4)->inet_sport) == port + i) {
				new4[i] = s4;
				new6[i] = rcu_dereference_protected(wgx->sock6[j],
					lockdep_is_held(&wgx->device_update_lock));
				kept[i] = true;
				break;
			}
		}
	}
retry:
	if (!kept[0]) {
		ret = wgx_socket_create(wgx, net, port, &new4[0], &new6[0]);
		if (ret < 0)
			goto err;
	}
	base = ntohs(inet_sk(new4[0])->inet_sport);
	for (i = 1; i < nports; ++i) {
		if (kept[i])
			continue;
		/* A randomly chosen first port may leave no room for the rest. */
		if ((u32)base + i > U16_MAX) {
			ret = -EADDRINUSE;
			goto err;
		}
		ret = wgx_socket_create(wgx, net, base + i, &new4[i], &new6[i]);
		if (ret < 0)
			goto err;
	}
	wgx_socket_install(wgx, new4, new6, nports);
	return 0;

err:
	for (i = 0; i < nports; ++i) {
		if (kept[i])
			continue;
		wgx_sock_free(new4[i]);
		wgx_sock_free(new6[i]);
		new4[i] = new6[i] = NULL;
	}
	if (ret == -EADDRINUSE && !port && retries++ < WGX_SOCKET_PICK_TRIES)
		goto retry;
	netdev_err(wgx->dev, "could not bind %u UDP port(s) from %u: %d\n", nports, port, ret);
	return ret;
}

void wgx_socket_uninit(struct wgx_device *wgx)
{
	wgx_socket_install(wgx, NULL, NULL, 0);
}
