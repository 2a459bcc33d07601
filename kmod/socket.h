/* SPDX-License-Identifier: GPL-2.0 */
/*
 * socket.h - the device's UDP sockets (IPv4 and IPv6, one listen port) and
 * sending to a peer's endpoint.
 */
#ifndef WGX_SOCKET_H
#define WGX_SOCKET_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/skbuff.h>

struct wgx_device;
struct wgx_peer;
struct sock;

/**
 * struct wgx_endpoint - where a peer is, and which of our addresses it talks to.
 * @addr: the peer's address and port (sa_family AF_INET or AF_INET6, or 0 = none).
 * @src4/@src_if4: our IPv4 address the peer last sent to, and its interface;
 *                 replies leave from it (source-address stickiness).
 * @src6: the same for IPv6.
 */
struct wgx_endpoint {
	union {
		struct sockaddr addr;
		struct sockaddr_in addr4;
		struct sockaddr_in6 addr6;
	};
	union {
		struct {
			struct in_addr src4;
			int src_if4;
		};
		struct in6_addr src6;
	};
};

/**
 * wgx_socket_init - bind the device's sockets to @port (0 = any free port) in
 * the namespace that created the device, and install them.
 * Context: process, device_update_lock held.  Returns 0, -EADDRINUSE, -ENOMEM, ...
 */
int wgx_socket_init(struct wgx_device *wgx, u16 port);

/**
 * wgx_socket_reinit - replace the installed sockets by @new4/@new6 (either may
 * be NULL) and release the old ones after an RCU grace period.
 * Context: process, device_update_lock held; may sleep.
 */
void wgx_socket_reinit(struct wgx_device *wgx, struct sock *new4, struct sock *new6);

/**
 * wgx_socket_send_skb_to_peer - send a fully built UDP payload @skb (a wire
 * message) to @peer's endpoint with DSCP/ECN byte @ds.  Consumes @skb.
 * Returns 0, -EHOSTUNREACH without an endpoint, -ENONET without sockets, or
 * a routing error.  Context: any; takes the peer's endpoint_lock for reading.
 */
int wgx_socket_send_skb_to_peer(struct wgx_peer *peer, struct sk_buff *skb, u8 ds);

/** wgx_socket_send_buffer_to_peer - copy @len bytes at @buffer into a new skb and send it. */
int wgx_socket_send_buffer_to_peer(struct wgx_peer *peer, const void *buffer, size_t len, u8 ds);

/**
 * wgx_socket_send_buffer_as_reply_to_skb - send @len bytes to the source of
 * @in_skb from the address it was sent to (cookie replies, no peer needed).
 */
int wgx_socket_send_buffer_as_reply_to_skb(struct wgx_device *wgx, struct sk_buff *in_skb,
					   const void *buffer, size_t len);

/**
 * wgx_socket_endpoint_from_skb - fill @endpoint from a received UDP @skb:
 * the sender as the address, our destination address as the source.
 * Returns 0 or -EINVAL for a packet that is neither IPv4 nor IPv6.
 */
int wgx_socket_endpoint_from_skb(struct wgx_endpoint *endpoint, const struct sk_buff *skb);

/**
 * wgx_socket_set_peer_endpoint - roam: make @endpoint the peer's endpoint when
 * it differs (address, port or our source).  Context: any; takes endpoint_lock.
 */
void wgx_socket_set_peer_endpoint(struct wgx_peer *peer, const struct wgx_endpoint *endpoint);
void wgx_socket_set_peer_endpoint_from_skb(struct wgx_peer *peer, const struct sk_buff *skb);

/** wgx_socket_clear_peer_endpoint_src - forget the source address (e.g. after the route changed). */
void wgx_socket_clear_peer_endpoint_src(struct wgx_peer *peer);

#endif /* WGX_SOCKET_H */
