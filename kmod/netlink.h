/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink.h - the generic netlink families of wgx: "wgx" (WGX_GENL_NAME),
 * always, and "wireguard" (WG_GENL_NAME) in drop-in mode (module parameter
 * compat=wireguard).  Both configure (SET_DEVICE) and dump (GET_DEVICE) wgx
 * devices; the message format, permissions and errors of "wgx" are specified
 * in include/uapi/linux/wgx.h, those of "wireguard" are the in-tree
 * module's (docs/dropin.md).
 */
#ifndef WGX_NETLINK_H
#define WGX_NETLINK_H

/**
 * wgx_genetlink_init - register the "wgx" generic netlink family.
 *
 * Call once at module load, after the link kinds are registered (the
 * handlers look devices up by kind).  Process context.
 * Returns 0, or the negative errno of genl_register_family() (-EEXIST when a
 * family of that name exists, -ENOMEM, -EINVAL).
 */
int wgx_genetlink_init(void);

/**
 * wgx_genetlink_uninit - unregister the "wgx" family; returns once no
 * handler of it runs.  A dump in progress pins the module (netlink holds a
 * module reference until the dump is done), so this never races with one.
 * Process context, at module unload, before the link kinds are unregistered.
 */
void wgx_genetlink_uninit(void);

/**
 * wgx_genetlink_wg_init - register the "wireguard" family (drop-in mode), as
 * wgx_genetlink_init().  -EEXIST means the in-tree WireGuard registered it.
 */
int wgx_genetlink_wg_init(void);

/** wgx_genetlink_wg_uninit - unregister the "wireguard" family, as wgx_genetlink_uninit(). */
void wgx_genetlink_wg_uninit(void);

#endif /* WGX_NETLINK_H */
