/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prepare.h - per-peer handshake ephemerals made ahead of time.
 *
 * The ephemeral pool (ephemeral.h) takes the fixed-base multiplication out
 * of a handshake message; this takes out the Diffie-Hellman with the peer's
 * static key as well.  For each peer, a nice-19 kernel thread ("wgx-prepare")
 * makes one ephemeral pair and DH(e, S_peer) (struct wgx_noise_prepared):
 * that value is the "es" of an initiation to the peer and the "se" of a
 * response to it (whitepaper 5.4.2, 5.4.3), so the next message of either
 * kind for that peer uses it, once.  What is left at the message: no X25519
 * for an initiation (the static-static DH is precomputed), one ("ee") for a
 * response, two at the initiator for the response it consumes.  Nothing
 * changes on the wire.
 *
 * One slot per peer, at most ephemeral_peers (module parameter, default
 * 4096; 0 = off) slots in the module; off too when ephemeral_pool is 0, so
 * that one parameter still gives WireGuard's exact forward-secrecy property.
 * A slot is used at most once, remade after its use, wiped unused and remade
 * WGX_EPHEMERAL_LIFETIME_SECONDS (120 s) after it was made, by the boottime
 * clock, and wiped at a suspend or hibernation (remade after the resume).
 * What it means for a key compromise: docs/rotation.md, "Ephemeral keys made
 * ahead".
 *
 * Locking: one module-wide spinlock (bottom halves off) guards every slot's
 * state, list membership and material; a slot on a list (pending, being
 * made, held) owns one reference to its peer.
 */
#ifndef WGX_PREPARE_H
#define WGX_PREPARE_H

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/types.h>

#include <wgx/noise.h>

struct wgx_peer;

/*
 * Slots used by a burst of handshakes are remade once no slot has been taken
 * for WGX_PREPARE_QUIET (jiffies, 100 ms), so that the remaking does not
 * compete with the burst for the CPU (in a profiled wave of 100 handshakes
 * the thread had as many samples as the busiest handshake thread,
 * 2026-12-04).  A steady stream of takes (many peers, each re-keying every
 * 120 s) never goes quiet: after WGX_PREPARE_DEFER_MAX (1 s) of waiting the
 * thread makes the slots pending then regardless, and waits again.
 */
#define WGX_PREPARE_QUIET (HZ / 10)
#define WGX_PREPARE_DEFER_MAX HZ

/** Where a peer's slot is (struct wgx_prepare_slot.state). */
enum wgx_prepare_state {
	WGX_PREPARE_NONE = 0,	/* on no list; holds no reference */
	WGX_PREPARE_PENDING,	/* waiting for the thread to make its material */
	WGX_PREPARE_WORKING,	/* the thread is making it (off every list) */
	WGX_PREPARE_HELD,	/* material ready, on the held list (oldest first) */
	WGX_PREPARE_FORGOTTEN,	/* removed while WORKING: the thread drops it */
};

/**
 * struct wgx_prepare_slot - one peer's prepared ephemeral, embedded in
 * struct wgx_peer; every field under the module's prepare lock.
 * @node: on the pending or the held list.
 * @material: valid in state HELD only, zero otherwise.
 * @born: when @material was made (boottime ns, wgx_ephemeral_now()).
 * @state: enum wgx_prepare_state.
 */
struct wgx_prepare_slot {
	struct list_head node;
	struct wgx_noise_prepared material;
	u64 born;
	u8 state;
};

/**
 * wgx_prepare_quiet_wait - how long the thread waits before it makes a
 * pending slot, at jiffies @now, the last take at jiffies @last_take.
 * *@since is the start of the current wait (jiffies, 0 = none): set here
 * when a wait begins, cleared when the takes went quiet (@last_take at
 * least WGX_PREPARE_QUIET old, of any age up to ULONG_MAX - QUIET).
 * Returns the jiffies to wait (until @last_take + WGX_PREPARE_QUIET, but
 * not past *@since + WGX_PREPARE_DEFER_MAX), or 0: make it now.  Pure but
 * for *@since; wraps as jiffies do.  The thread's (and KUnit's) only.
 */
long wgx_prepare_quiet_wait(unsigned long now, unsigned long last_take, unsigned long *since);

/**
 * wgx_prepare_init - start the "wgx-prepare" thread (nice 19, freezable)
 * unless ephemeral_peers or ephemeral_pool is 0.  Module init only.  Returns
 * 0 or the error of kthread_create().
 */
int wgx_prepare_init(void);

/**
 * wgx_prepare_exit - stop the thread.  Module exit only, after every device
 * (and so every peer) is gone.
 */
void wgx_prepare_exit(void);

/**
 * wgx_prepare_request - queue @peer for a prepared ephemeral, unless its slot
 * is already queued or held, the module's ephemeral_peers slots are all in
 * use (counted as "full"), the peer is dead or preparation is off.  Takes a
 * reference for the slot.  Any context (takes the prepare lock, bh off).
 */
void wgx_prepare_request(struct wgx_peer *peer);

/**
 * wgx_prepare_refresh - the peer's static key changed (re-key in place): a
 * held slot is wiped and queued again, any other is requested.  Any context.
 */
void wgx_prepare_refresh(struct wgx_peer *peer);

/**
 * wgx_prepare_take - move @peer's held material into @out (32-byte keys and
 * DH, see struct wgx_noise_prepared) when it is younger than 120 s and was
 * made for @hs's current peer key, and queue the slot to be made again.  A
 * held slot that fails either test is wiped (counted "expired" or "stale")
 * and queued again.  Returns false, leaving @out untouched, when nothing
 * usable was held.  Caller holds @peer->handshake_lock (and identity_lock
 * for reading), as for the create call @out is for; any context.
 */
bool wgx_prepare_take(struct wgx_peer *peer, const struct wgx_noise_handshake *hs,
		      struct wgx_noise_prepared *out);

/**
 * wgx_prepare_forget - peer removal: take @peer's slot off its list, wipe it
 * and drop its reference.  If the thread is making it right now, the thread
 * drops the reference when it is done (its put may be the peer's last, so
 * the device must call wgx_prepare_sync() before it frees what a peer's
 * release uses).  Does not sleep; any context (takes the prepare lock, bh
 * off).
 */
void wgx_prepare_forget(struct wgx_peer *peer);

/**
 * wgx_prepare_sync - wait until the thread holds no peer it took before the
 * call; after every peer of a device was forgotten, no reference of the
 * thread to them remains.  Process context, may sleep (at most the making of
 * one slot, two X25519 at nice 19); call with no rtnl, handshake_lock or
 * device_update_lock held (a device's destruction, wgx_destruct()).
 */
void wgx_prepare_sync(void);

/**
 * wgx_prepare_suspend - before a suspend or hibernation: wipe every held
 * slot (counted "wiped") and make none until wgx_prepare_resume(); the wiped
 * slots wait on the pending list.  Process context (PM notifier).
 */
void wgx_prepare_suspend(void);

/** wgx_prepare_resume - after the resume: make the pending slots again.  Process context. */
void wgx_prepare_resume(void);

#endif /* WGX_PREPARE_H */
