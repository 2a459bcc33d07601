/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink.h - the generic netlink family "wgx" (WGX_GENL_NAME): configuration
 * (WGX_CMD_SET_DEVICE) and state dumps (WGX_CMD_GET_DEVICE) of wgx devices.
 * The message format, permissions and errors are specified in
 * include/uapi/linux/wgx.h.
 */
#ifndef WGX_NETLINK_H
#define WGX_NETLINK_H

/**
 * wgx_genetlink_init - register the "wgx" generic netlink family.
 *
 * Call once at module load, after the "wgx" link kind is registered (the
 * handlers look devices up by that kind).  Process context.
 * Returns 0, or the negative errno of genl_register_family() (-EEXIST when a
 * family of that name exists, -ENOMEM, -EINVAL).
 */
int wgx_genetlink_init(void);

/**
 * wgx_genetlink_uninit - unregister the family; returns once no handler of it
 * runs.  A dump in progress pins the module (netlink holds a module reference
 * until the dump is done), so this never races with one.  Process context, at
 * module unload, before the link kind is unregistered.
 */
void wgx_genetlink_uninit(void);

#endif /* WGX_NETLINK_H */
