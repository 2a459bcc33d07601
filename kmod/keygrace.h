/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keygrace.h - private key changes and the key grace period (keygrace.c).
 */
#ifndef WGX_KEYGRACE_H
#define WGX_KEYGRACE_H

#include <linux/types.h>

struct wgx_device;
struct wgx_peer;

/**
 * wgx_keygrace_expire_stale_sessions - stop @peer's current and next sessions
 * from sending if they were made with a key the device no longer holds (a
 * handshake under the previous key finished while its grace ended, or under
 * the old key while a key change ran: it installs its keypair after the
 * sweep).  Call after installing a keypair.  Takes identity_lock (read);
 * process context.
 */
void wgx_keygrace_expire_stale_sessions(struct wgx_device *wgx, struct wgx_peer *peer);

/** wgx_keygrace_set_private_key - install (or clear with NULL) the static private key and
 * redo everything that depends on it.  Process context, device_update_lock held. */
int wgx_keygrace_set_private_key(struct wgx_device *wgx, const u8 *private_key);

/** wgx_keygrace_init - set the grace period's worker up.  At device creation. */
void wgx_keygrace_init(struct wgx_device *wgx);
/** wgx_keygrace_cancel_sync - stop the grace worker, waiting for a run in progress.  Process context. */
void wgx_keygrace_cancel_sync(struct wgx_device *wgx);

#endif /* WGX_KEYGRACE_H */
