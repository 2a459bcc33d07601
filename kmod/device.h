/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device.h - the wgx network device: rtnl link kind "wgx".
 */
#ifndef WGX_DEVICE_H
#define WGX_DEVICE_H

#include <linux/netdevice.h>
#include <linux/mutex.h>

/* Outer headers the tunnel adds: IPv4 (20) or IPv6 (40), UDP (8), the transport data
 * header (16) and the Poly1305 tag (16).  Whitepaper section 5.4.6. */
#define WGX_MESSAGE_OVERHEAD	(8 + 16 + 16)
/* Default MTU (bytes): 1500 minus the IPv6 worst case, as WireGuard uses. */
#define WGX_DEFAULT_MTU		(ETH_DATA_LEN - 40 - WGX_MESSAGE_OVERHEAD)

/**
 * struct wgx_device - private area of a wgx net_device.
 * @dev: the net_device this area belongs to.
 * @creating_net: namespace that created the device; its UDP sockets live there
 *                even after the device moves to another namespace.
 * @device_update_lock: serializes configuration changes (netlink SET_DEVICE,
 *                      open/stop); may sleep.
 */
struct wgx_device {
	struct net_device *dev;
	struct net *creating_net;
	struct mutex device_update_lock;
};

int wgx_device_init(void);
void wgx_device_exit(void);

#endif /* WGX_DEVICE_H */
