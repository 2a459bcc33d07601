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
 * A slot is allocated when it pays: at a peer's first handshake message
 * (which is made without one), not when the peer is configured, so an idle
 * peer costs a pointer and no X25519.  At most ephemeral_peers (module
 * parameter, default 4096; 0 = off) slots in the module; off too when
 * ephemeral_pool is 0, so that one parameter still gives WireGuard's exact
 * forward-secrecy property.  A slot is used at most once, remade after its
 * use, wiped unused WGX_EPHEMERAL_LIFETIME_SECONDS (120 s) after it was
 * made, by the boottime clock, and remade once; a slot that reaches its
 * lifetime unused twice in a row (a peer without a handshake for 240 s) is
 * freed, and the peer's next handshake asks for one again.  Wiped at a
 * suspend or hibernation (remade after the resume).
 * What it means for a key compromise: docs/rotation.md, "Ephemeral keys made
 * ahead".
 *
 * Locking: one module-wide spinlock (bottom halves off) guards every slot's
 * state, list membership and material, and each peer's pointer to its slot;
 * a slot owns one reference to its peer from its allocation to its free.
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
 * the thread had as many samples as the busiest handshake thread).  A steady stream of takes (many peers, each re-keying every
 * 120 s) never goes quiet: after WGX_PREPARE_DEFER_MAX (1 s) of waiting the
 * thread makes the slots pending then regardless, and waits again.
 */
#define WGX_PREPARE_QUIET (HZ / 10)
#define WGX_PREPARE_DEFER_MAX HZ

/* Unused lifetimes in a row after which a slot is freed, not remade. */
#define WGX_PREPARE_IDLE_MAX 2

/** Where a peer's slot is (struct wgx_prepare_slot.state). */
enum wgx_prepare_state {
	WGX_PREPARE_PENDING = 1,	/* waiting for the thread to make its material */
	WGX_PREPARE_WORKING,	/* the thread is making it (off every list) */
	WGX_PREPARE_HELD,	/* material ready, on the held list (oldest first) */
	WGX_PREPARE_FORGOTTEN,	/* removed while WORKING: the thread frees it */
};

/**
 * struct wgx_prepare_slot - one peer's prepared ephemeral, allocated on
 * demand (wgx_peer.prepare points to it); every field under the module's
 * prepare lock.
 * @node: on the pending or the held list.
 * @peer: its peer (the slot holds a reference).
 * @material: valid in state HELD only, zero otherwise.
 * @born: when @material was made (boottime ns, wgx_ephemeral_now()).
 * @state: enum wgx_prepare_state.
 * @idle: lifetimes it reached unused in a row (WGX_PREPARE_IDLE_MAX frees it).
 */
struct wgx_prepare_slot {
	struct list_head node;
	struct wgx_peer *peer;
	struct wgx_noise_prepared material;
	u64 born;
	u8 state;
	u8 idle;
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
 * wgx_prepare_request - allocate a slot for @peer and queue it to be made,
 * unless it has one, the module's ephemeral_peers slots are all in use
 * (counted as "full"), the allocation fails (counted as "nomem"), the peer
 * is dead or preparation is off.  The slot takes a reference to the peer.
 * Process context (allocates with GFP_KERNEL; takes the prepare lock, bh
 * off).
 */
void wgx_prepare_request(struct wgx_peer *peer);

/**
 * wgx_prepare_refresh - the peer's static key changed (re-key in place): a
 * held slot is wiped and queued again; a peer without one gets none until
 * its next handshake message.  Any context.
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
 * wgx_prepare_forget - peer removal: take @peer's slot off its list, wipe and
 * free it and drop its reference.  If the thread is making it right now, the
 * thread frees it and drops the reference when it is done (its put may be the peer's last, so
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

struct seq_file;
/**
 * wgx_prepare_stats_show - print the per-peer slots' statistics as one line,
 * "held H pending P made M used U expired E stale S wiped W full F deferred D
 * allocated A freed R nomem N": slots with material and slots queued or being
 * made now, then counters since load.  New counters go at the end.  The show
 * of debugfs wgx/ephemeral_peers_stats; process context, takes the lock.
 */
int wgx_prepare_stats_show(struct seq_file *m, void *v);

#endif /* WGX_PREPARE_H */
