/* SPDX-License-Identifier: GPL-2.0 */
/*
 * precompute.h - the X25519 work of handshakes made ahead of time.
 *
 * Every handshake message wgx creates (initiation or response, whitepaper
 * 5.4.2/5.4.3) needs a fresh ephemeral key pair (one fixed-base X25519) and
 * its DH with the peer's static key ("es" of an initiation, "se" of a
 * response).  One nice-19 kernel thread, "wgx-precompute", makes both ahead,
 * so a burst of handshakes (a storm) finds them ready:
 *
 *   the pool      ephemeral pairs for no peer in particular, for the first
 *                 message to a peer (precompute.c);
 *   the slots     per peer that handshakes, one pair and its DH with the
 *                 peer's key (struct wgx_noise_prepared), for its next
 *                 message of either kind (precompute_peer.c).
 *
 * The glue hands what it took down to the core
 * (wgx_noise_create_*_prepared()); the platform layer knows nothing of it.
 * Nothing changes on the wire.  What it means for a key compromise:
 * docs/rotation.md, "Ephemeral keys made ahead".
 *
 * One module parameter, precompute=N (default 4096, at most 65536): at most
 * N peers have a slot, and the pool holds min(N, 256) pairs.  0 turns both
 * off: every X25519 is done at its handshake, as WireGuard does.
 *
 * Lifetimes, by CLOCK_BOOTTIME (which counts suspended time): a pool pair is
 * used once and wiped unused WGX_PRECOMPUTE_LIFETIME_SECONDS (120 s) after
 * it was made; a slot is used once, remade after its use or at 120 s, and
 * freed after two lifetimes unused in a row (240 s).  A slot is allocated at
 * its peer's first handshake message (which is made without one, from the
 * pool), so an idle peer costs a pointer and no X25519.  Before a suspend
 * or hibernation every pair and slot is wiped and nothing is made until the
 * resume: a hibernation image holds none of them.
 *
 * Locking: one spinlock per unit (struct wgx_precompute.lock, bottom halves
 * off) guards the pool, every slot's state, list membership and material,
 * and each peer's pointer to its slot; a slot owns one reference to its peer
 * from its allocation to its free.  The module has one unit
 * (wgx_precompute_module); KUnit makes its own.
 */
#ifndef WGX_PRECOMPUTE_H
#define WGX_PRECOMPUTE_H

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <wgx/noise.h>
#include <wgx/platform.h>
#include <wgx/timers.h>

struct seq_file;
struct task_struct;
struct wgx_peer;

/* A pair or slot is wiped unused after this long (seconds): REKEY_AFTER_TIME. */
#define WGX_PRECOMPUTE_LIFETIME_SECONDS WGX_REKEY_AFTER_TIME_S

/* The pool's size is the parameter's value, at most this many pairs. */
#define WGX_PRECOMPUTE_POOL_MAX 256

/*
 * Slots used by a burst of handshakes are remade once no slot has been taken
 * for WGX_PRECOMPUTE_QUIET (jiffies, 100 ms), so that the remaking does not
 * compete with the burst for the CPU.  A steady stream of takes never goes
 * quiet: after WGX_PRECOMPUTE_DEFER_MAX (1 s) of waiting the thread makes the
 * slots pending then regardless, and waits again.
 */
#define WGX_PRECOMPUTE_QUIET (HZ / 10)
#define WGX_PRECOMPUTE_DEFER_MAX HZ

/* Unused lifetimes in a row after which a slot is freed, not remade. */
#define WGX_PRECOMPUTE_IDLE_MAX 2

/**
 * struct wgx_precompute_pair - one pooled key pair and when it was made
 * (boottime ns).  @private_key is clamped (RFC 7748 section 5).
 */
struct wgx_precompute_pair {
	u8 private_key[WGX_KEY_LEN];
	u8 public_key[WGX_KEY_LEN];
	u64 born;
};

/** Where a peer's slot is (struct wgx_precompute_slot.state). */
enum wgx_precompute_state {
	WGX_PRECOMPUTE_PENDING = 1,	/* waiting for the thread to make its material */
	WGX_PRECOMPUTE_WORKING,		/* the thread is making it (off every list) */
	WGX_PRECOMPUTE_HELD,		/* material ready, on the held list (oldest first) */
	WGX_PRECOMPUTE_FORGOTTEN,	/* removed while WORKING: the thread frees it */
};

/**
 * struct wgx_precompute_slot - one peer's prepared ephemeral, allocated on
 * demand (wgx_peer.precompute points to it); every field under the unit's
 * lock.
 * @node: on the pending or the held list.
 * @peer: its peer (the slot holds a reference).
 * @material: valid in state HELD only, zero otherwise.
 * @born: when @material was made (boottime ns).
 * @state: enum wgx_precompute_state.
 * @idle: lifetimes it reached unused in a row (WGX_PRECOMPUTE_IDLE_MAX frees it).
 */
struct wgx_precompute_slot {
	struct list_head node;
	struct wgx_peer *peer;
	struct wgx_noise_prepared material;
	u64 born;
	u8 state;
	u8 idle;
};

/**
 * struct wgx_precompute - one unit: the pool, the slots and their thread.
 * @lock: guards every field but @work_mutex, @wait, @thread and @live, and
 *	every slot of @slots; bottom halves off.
 * @paused: a suspend is under way: nothing is added, nothing handed out.
 * @lifetime: ns a pair or slot may wait unused.
 * @pool.pairs: @pool.size entries (kvcalloc); the @pool.count used ones
 *	start at @pool.head, wrapping, oldest first.
 * @pool.made, .taken, .missed, .expired, .wiped: pairs added, handed out,
 *	takes that found none (the message then makes its own), pairs wiped
 *	unused at their lifetime, pairs wiped by a pause.
 * @slots.pending: slots to make, oldest request first.
 * @slots.held: slots with material, oldest first (sorted by born).
 * @slots.max: at most this many slots (the parameter).
 * @slots.in_use: slots in any state; @slots.npending: entries of
 *	@slots.pending, read without the lock by the thread's wait.
 * @slots.making: the thread is making a slot (WORKING or FORGOTTEN).
 * @slots.last_take: jiffies of the last take that found a held slot.
 * @slots.made .. .nomem: counters since load (wgx_precompute_stats_show()).
 * @work_mutex: held by the thread while it has a peer (making a slot,
 *	freeing expired ones), so that wgx_precompute_sync() can wait for it.
 * @wait: the thread sleeps here; woken by takes, requests and the resume.
 * @thread: "wgx-precompute", or NULL.
 * @live: the thread runs; takes and requests are served.
 */
struct wgx_precompute {
	spinlock_t lock;
	bool paused;
	u64 lifetime;
	struct {
		struct wgx_precompute_pair *pairs;
		unsigned int size, head, count;
		u64 made, taken, missed, expired, wiped;
	} pool;
	struct {
		struct list_head pending, held;
		unsigned int max, in_use, npending;
		bool making;
		unsigned long last_take;
		u64 made, used, expired, stale, wiped, full, deferred, allocated, freed, nomem;
	} slots;
	struct mutex work_mutex;
	wait_queue_head_t wait;
	struct task_struct *thread;
	bool live;
};

/* The module's unit (precompute.c). */
extern struct wgx_precompute wgx_precompute_module;

/** wgx_precompute_now - the unit's clock: CLOCK_BOOTTIME in ns.  Any context. */
static inline u64 wgx_precompute_now(void)
{
	return ktime_get_boottime_ns();
}

/* ---- the module's unit: what the rest of the glue calls ---- */

/**
 * wgx_precompute_init - set up the module's unit and, unless precompute is
 * 0, start its thread, which begins once the kernel's CRNG is initialised.
 * Module init only.  Returns 0, -ENOMEM or the error of kthread_create().
 */
int wgx_precompute_init(void);

/**
 * wgx_precompute_exit - stop the thread, wipe and free the pool.  Module
 * exit only, after every device (and so every peer and taker) is gone.
 */
void wgx_precompute_exit(void);

/**
 * wgx_precompute_take - what the next handshake message to @peer can use:
 * the peer's held slot, when younger than 120 s and made for @hs's current
 * peer key (queued to be made again), else a pool pair alone (@out->has_dh
 * false).  A peer without a slot asks for one here.  Returns false, with
 * @out zeroed or untouched, when nothing was there: the message makes its
 * own.  Caller holds @peer->handshake_lock (and identity_lock for reading),
 * as for the create call @out is for; process context.
 */
bool wgx_precompute_take(struct wgx_peer *peer, const struct wgx_noise_handshake *hs,
			 struct wgx_noise_prepared *out);

/**
 * wgx_precompute_refresh - the peer's static key changed (re-key in place):
 * a held slot is wiped and queued again.  Any context.
 */
void wgx_precompute_refresh(struct wgx_peer *peer);

/**
 * wgx_precompute_forget - peer removal: take @peer's slot off its list, wipe
 * and free it and drop its reference.  If the thread is making it right now,
 * the thread frees it and drops the reference when it is done (perhaps the
 * peer's last: the device calls wgx_precompute_sync() before it frees what a
 * peer's release uses).  Does not sleep; any context.
 */
void wgx_precompute_forget(struct wgx_peer *peer);

/**
 * wgx_precompute_sync - wait until the thread holds no peer it took before
 * the call.  Process context, may sleep (at most the making of one slot, two
 * X25519 at nice 19); call with no rtnl, handshake_lock or
 * device_update_lock held (a device's destruction).
 */
void wgx_precompute_sync(void);

/**
 * wgx_precompute_suspend - before a suspend or hibernation: wipe every pair
 * and held slot and make none until wgx_precompute_resume().  Process
 * context (PM notifier).
 */
void wgx_precompute_suspend(void);

/** wgx_precompute_resume - after the resume: make them again.  Process context (PM notifier). */
void wgx_precompute_resume(void);

/**
 * wgx_precompute_stats_show - the module unit's statistics as one line of
 * "key value" pairs: "pool_held H pool_made M pool_taken T pool_missed X
 * pool_expired E pool_wiped W slots_held H slots_pending P slots_made M
 * slots_used U slots_expired E slots_stale S slots_wiped W slots_full F
 * slots_deferred D slots_allocated A slots_freed R slots_nomem N": pairs and
 * slots held (and slots queued or being made) now, then counters since load.
 * New keys go at the end.  The show of debugfs wgx/precompute_stats; process
 * context, takes the lock.
 */
int wgx_precompute_stats_show(struct seq_file *m, void *v);

/* ---- one unit: the two files of the unit and KUnit ---- */

/**
 * wgx_precompute_setup - an empty unit of @pool_size pairs (0: a pool that
 * is always empty) and at most @max_slots slots, each kept at most @lifetime
 * ns, without a thread: KUnit's units (the module's is static, sized by
 * wgx_precompute_init()).  Process context (GFP_KERNEL).  Returns 0 or -ENOMEM.
 */
int wgx_precompute_setup(struct wgx_precompute *pc, unsigned int pool_size,
			 unsigned int max_slots, u64 lifetime);

/**
 * wgx_precompute_teardown - stop the thread if started, wipe every pair and
 * free the pool.  Process context; no taker may be running, no slot left.
 */
void wgx_precompute_teardown(struct wgx_precompute *pc);

/**
 * wgx_precompute_start - start @pc's thread (nice 19, freezable).  A unit
 * with no pool and no slots gets none.  Process context.  Returns 0 or the
 * error of kthread_create().
 */
int wgx_precompute_start(struct wgx_precompute *pc);

/**
 * wgx_precompute_pool_take - move the oldest pair younger than the lifetime
 * at @now (ns) into @private_key/@public_key (32 bytes each) and wipe its
 * entry; older pairs met on the way are wiped (counted as expired).  Returns
 * false, writing nothing, when none is left or @pc is paused.  Any context;
 * takes the lock.
 */
bool wgx_precompute_pool_take(struct wgx_precompute *pc, u8 private_key[WGX_KEY_LEN],
			      u8 public_key[WGX_KEY_LEN], u64 now);

/**
 * wgx_precompute_pool_add - make one pair (one fixed-base X25519, outside
 * the lock) and add it, born at @now (ns).  Returns false when the pool was
 * full or paused (the pair is wiped).  Process context.
 */
bool wgx_precompute_pool_add(struct wgx_precompute *pc, u64 now);

/**
 * wgx_precompute_pool_expire - wipe the pairs older than the lifetime at
 * @now (ns).  Returns the ns until the oldest remaining one expires, or
 * U64_MAX.  Any context.
 */
u64 wgx_precompute_pool_expire(struct wgx_precompute *pc, u64 now);

/** wgx_precompute_pool_count - pairs held now (a snapshot).  Any context. */
unsigned int wgx_precompute_pool_count(struct wgx_precompute *pc);

/**
 * wgx_precompute_pause - wipe every pair and held slot (memzero_explicit,
 * counted as wiped; the slots wait on the pending list) and add nothing
 * until wgx_precompute_unpause(); what the thread is making meanwhile is
 * refused.  Process context.
 */
void wgx_precompute_pause(struct wgx_precompute *pc);

/**
 * wgx_precompute_unpause - end a pause, wipe what expired meanwhile by the
 * boottime clock (under CONFIG_PM_AUTOSLEEP the suspend wiped nothing) and
 * wake the thread.  Harmless without a pause.  Process context.
 */
void wgx_precompute_unpause(struct wgx_precompute *pc);

/*
 * The slots (precompute_peer.c), for the thread and the pause: expire the
 * held slots at @now (returns ns until the next expiry, or U64_MAX); make
 * the oldest pending one (false: none to make); whether one is due; wipe the
 * held ones into pending (caller holds the lock).  Process context.
 */
u64 wgx_precompute_slots_expire(struct wgx_precompute *pc, u64 now);
bool wgx_precompute_slots_make_one(struct wgx_precompute *pc);
bool wgx_precompute_slots_due(struct wgx_precompute *pc);
void wgx_precompute_slots_wipe_locked(struct wgx_precompute *pc);

/**
 * wgx_precompute_quiet_wait - how long the thread waits before it makes a
 * pending slot, at jiffies @now, the last take at jiffies @last_take.
 * *@since is the start of the current wait (jiffies, 0 = none): set here
 * when a wait begins, cleared when the takes went quiet (@last_take at
 * least WGX_PRECOMPUTE_QUIET old, of any age up to ULONG_MAX - QUIET).
 * Returns the jiffies to wait (until @last_take + WGX_PRECOMPUTE_QUIET, but
 * not past *@since + WGX_PRECOMPUTE_DEFER_MAX), or 0: make it now.  Pure but
 * for *@since; wraps as jiffies do.
 */
long wgx_precompute_quiet_wait(unsigned long now, unsigned long last_take, unsigned long *since);

#endif /* WGX_PRECOMPUTE_H */
