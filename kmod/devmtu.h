/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmtu.h - the device MTU "auto": while the user has not set it, a wgx
 * device's MTU follows its underlay, as wg-quick sets it once: the smallest
 * MTU of the outer routes to the peers' endpoints, else, with no routable
 * endpoint, the MTU of the IPv4 default route's device, less 80 bytes (the
 * outer headers of IPv6, whatever the family: the device MTU serves every
 * peer, and each peer's path MTU is sized for its own family, pmtu.h).
 * Nothing known (no endpoint route, no default route): the MTU stays.  Kept current: recomputed when the
 * device goes up, when a SET_DEVICE changed its configuration, and when
 * a device of the creating namespace changes its MTU or goes up.
 *
 * Setting the MTU (ip link set mtu, IFLA_MTU at creation, `wgx set IF mtu
 * N`) turns auto off for the device; WGX_DEVICE_A_MTU_AUTO (`wgx set IF
 * mtu auto`) turns it on again.  docs/mtu.md is the operator's view.
 *
 * The smallest MTU of the endpoints' routes is kept (wgx->mtu_routes), so
 * that peers added with endpoints cost one route lookup each
 * (wgx_devmtu_add_peer()), not a walk of every peer: a configuration of N
 * peers sent in many messages stays linear.  Everything that can raise it
 * (a peer removed or its endpoint changed, the fwmark, an underlay change,
 * the device going up) walks all peers again (wgx_devmtu_update()).
 *
 * Locking: RTNL for everything here (the MTU is the device's); the peer
 * list is read under device_update_lock.
 */
#ifndef WGX_DEVMTU_H
#define WGX_DEVMTU_H

#include <linux/types.h>

struct net_device;
struct wgx_device;
struct wgx_peer;

/**
 * wgx_devmtu_update - set @wgx's MTU from its underlay now, if it is auto
 * and the underlay is known (a route to an endpoint or a default route).
 * Context: process, RTNL and @wgx->device_update_lock held.
 */
void wgx_devmtu_update(struct wgx_device *wgx);

/**
 * wgx_devmtu_add_peer - @peer's endpoint was set and nothing else changed
 * that could raise the underlay's MTU (a new peer): take its route into
 * account (one route lookup) and set @wgx's MTU if it is auto.
 * Context: process, RTNL and @wgx->device_update_lock held.
 */
void wgx_devmtu_add_peer(struct wgx_device *wgx, struct wgx_peer *peer);

/**
 * wgx_devmtu_set_auto - turn auto on (recomputed now) or off (the current
 * MTU stays).  Context: process, RTNL and device_update_lock held.
 */
void wgx_devmtu_set_auto(struct wgx_device *wgx, bool on);

/**
 * wgx_devmtu_change_mtu - the device's ndo_change_mtu: a change that is
 * not auto's own turns auto off.  Context: RTNL.  Returns 0.
 */
int wgx_devmtu_change_mtu(struct net_device *dev, int new_mtu);

/** wgx_devmtu_init / _exit - register the netdevice notifier (module load/unload). */
int wgx_devmtu_init(void);
void wgx_devmtu_exit(void);

#endif /* WGX_DEVMTU_H */
