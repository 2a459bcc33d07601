/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ephemeral.h - handshake ephemeral key pairs made ahead of time.
 *
 * Every handshake message wgx creates (initiation or response, whitepaper
 * section 5.4.2/5.4.3) needs a fresh X25519 key pair, whose public half is
 * one fixed-base scalar multiplication: a third of the X25519 work of a
 * handshake.  The pool computes such pairs in advance on a nice-19 kernel
 * thread, so a burst of handshakes (a storm) finds them ready and spends its
 * CPU on the Diffie-Hellman operations only.  Each pair is used once, then
 * wiped; a pair not used within WGX_EPHEMERAL_LIFETIME_SECONDS is wiped
 * unused.  Nothing changes on the wire: a pooled pair is as random as one
 * made at the handshake.  What it changes for a key compromise:
 * docs/rotation.md, "Ephemeral keys made ahead".
 *
 * The module has one pool (module parameter ephemeral_pool, its size in
 * pairs, 0 = off: every pair is made at its handshake, as WireGuard does).
 *
 * Time is CLOCK_BOOTTIME in nanoseconds, which goes on while the machine is
 * suspended, so a pair's lifetime counts suspended time (under
 * CONFIG_PM_AUTOSLEEP, where nothing is wiped at suspend).  Before a suspend
 * or hibernation every held pair is wiped and the pool is paused (nothing is
 * added) until the resume: a hibernation image holds none of them.
 */
#ifndef WGX_EPHEMERAL_H
#define WGX_EPHEMERAL_H

#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <wgx/platform.h>
#include <wgx/timers.h>

/* A pooled pair is wiped unused after this long (seconds): REKEY_AFTER_TIME. */
#define WGX_EPHEMERAL_LIFETIME_SECONDS WGX_REKEY_AFTER_TIME_S

/**
 * struct wgx_ephemeral - one key pair and when it was made (boottime, ns).
 * @private_key is clamped (RFC 7748 section 5).
 */
struct wgx_ephemeral {
	u8 private_key[WGX_KEY_LEN];
	u8 public_key[WGX_KEY_LEN];
	u64 born;
};

/**
 * struct wgx_ephemeral_pool - a FIFO of key pairs, oldest first.
 * @lock: protects every field below it; taken with softirqs disabled (takers
 *        may run in softirq).
 * @slots: @size entries (kvcalloc); the @count used ones start at @head,
 *         wrapping.
 * @lifetime: nanoseconds a pair may wait before it is wiped unused.
 * @paused: set by wgx_ephemeral_pool_pause() (a suspend): no pair is added
 *          until wgx_ephemeral_pool_resume().
 * @refill_wait: the refill thread sleeps here; woken when a take leaves the
 *               pool at or below its low mark (three quarters of @size),
 *               and at a resume.
 * @thread: the refill thread (wgx_ephemeral_pool_start()), or NULL.
 * @taken, @missed, @expired, @made, @wiped: counters since the pool was
 *        made: pairs handed out, takes that found the pool empty (the caller
 *        then makes its own pair), pairs wiped unused at their lifetime,
 *        pairs added, pairs wiped unused by a pause (suspend, hibernation).
 */
struct wgx_ephemeral_pool {
	spinlock_t lock;
	struct wgx_ephemeral *slots;
	unsigned int size;
	unsigned int head;
	unsigned int count;
	u64 lifetime;
	bool paused;
	wait_queue_head_t refill_wait;
	struct task_struct *thread;
	u64 taken;
	u64 missed;
	u64 expired;
	u64 made;
	u64 wiped;
};

/** wgx_ephemeral_now - the pool's clock: CLOCK_BOOTTIME in ns.  Any context. */
static inline u64 wgx_ephemeral_now(void)
{
	return ktime_get_boottime_ns();
}

/**
 * wgx_ephemeral_pool_init - an empty pool of @size pairs (0: a pool that is
 * always empty), each kept at most @lifetime ns, without a refill thread.
 * Process context (allocates with GFP_KERNEL).  Returns 0 or -ENOMEM.
 */
int wgx_ephemeral_pool_init(struct wgx_ephemeral_pool *pool, unsigned int size, u64 lifetime);

/**
 * wgx_ephemeral_pool_destroy - stop the refill thread if started, wipe every
 * pair and free the slots.  Process context; no taker may be running.
 */
void wgx_ephemeral_pool_destroy(struct wgx_ephemeral_pool *pool);

/**
 * wgx_ephemeral_pool_start - start @pool's refill thread "wgx-ephemeral"
 * (nice 19, freezable), which fills the pool once the kernel's CRNG is
 * initialised and keeps it full.  A pool of size 0 gets no thread.  Process
 * context.  Returns 0 or the error of kthread_create().
 */
int wgx_ephemeral_pool_start(struct wgx_ephemeral_pool *pool);

/**
 * wgx_ephemeral_pool_take - move the oldest pair younger than the lifetime at
 * @now (ns, wgx_ephemeral_now()) into @private_key/@public_key and wipe its
 * slot; older pairs met on the way are wiped (counted as expired).  Returns
 * false, writing nothing, when no such pair is left.  Any context; takes
 * @pool->lock.
 */
bool wgx_ephemeral_pool_take(struct wgx_ephemeral_pool *pool, u8 private_key[WGX_KEY_LEN],
			     u8 public_key[WGX_KEY_LEN], u64 now);

/**
 * wgx_ephemeral_pool_add - make one fresh pair (get_random_bytes, then
 * curve25519_generate_public: one fixed-base X25519, outside the lock) and
 * add it, born at @now (ns).  Returns false when the pool was full or
 * paused (the pair is wiped) or no public key could be derived.  Process
 * context, may be slow (hundreds of microseconds under emulation).
 */
bool wgx_ephemeral_pool_add(struct wgx_ephemeral_pool *pool, u64 now);

/**
 * wgx_ephemeral_pool_expire - wipe the pairs older than the lifetime at @now
 * (ns).  Returns the nanoseconds until the oldest remaining pair expires, or
 * U64_MAX when the pool is empty.  Any context.
 */
u64 wgx_ephemeral_pool_expire(struct wgx_ephemeral_pool *pool, u64 now);

/**
 * wgx_ephemeral_pool_pause - wipe every held pair (memzero_explicit, counted
 * in @pool->wiped) and add none until wgx_ephemeral_pool_resume(): a pair
 * the refill thread is making meanwhile is refused and wiped.  Takes find
 * the pool empty.  Any context; takes @pool->lock.
 */
void wgx_ephemeral_pool_pause(struct wgx_ephemeral_pool *pool);

/**
 * wgx_ephemeral_pool_resume - end a pause, wipe what expired meanwhile (by
 * the boottime clock: under CONFIG_PM_AUTOSLEEP the suspend wiped nothing)
 * and wake the refill thread.  Harmless without a pause.  Any context;
 * takes @pool->lock.
 */
void wgx_ephemeral_pool_resume(struct wgx_ephemeral_pool *pool);

/** wgx_ephemeral_pool_count - pairs held now (a snapshot).  Any context. */
unsigned int wgx_ephemeral_pool_count(struct wgx_ephemeral_pool *pool);

/**
 * wgx_ephemeral_init - make the module's pool (ephemeral_pool pairs) and
 * start its refill thread, which fills it once the kernel's CRNG is
 * initialised.  Module init only.  Returns 0, -ENOMEM or the error of
 * kthread_create().
 */
int wgx_ephemeral_init(void);

/**
 * wgx_ephemeral_enabled - whether pairs are made ahead at all (ephemeral_pool
 * is not 0): the per-peer preparation (prepare.h) follows it.  Any context.
 */
bool wgx_ephemeral_enabled(void);

/** wgx_ephemeral_exit - stop the refill thread, wipe and free the pool.  Module exit only. */
void wgx_ephemeral_exit(void);

/**
 * wgx_ephemeral_suspend - before a suspend or hibernation
 * (PM_SUSPEND_PREPARE, PM_HIBERNATION_PREPARE): wipe the module's pool and
 * pause it (wgx_ephemeral_pool_pause()).  Process context (PM notifier).
 */
void wgx_ephemeral_suspend(void);

/**
 * wgx_ephemeral_resume - after a suspend or hibernation (PM_POST_SUSPEND,
 * PM_POST_HIBERNATION): end the pause, so the refill thread fills the pool
 * again.  Process context (PM notifier).
 */
void wgx_ephemeral_resume(void);

/**
 * wgx_ephemeral_take - a pair from the module's pool, or false (pool off,
 * empty, not made yet or already gone): the caller makes its own.  Any
 * context; wgx_platform_curve25519_generate_ephemeral() is its one caller.
 */
bool wgx_ephemeral_take(u8 private_key[WGX_KEY_LEN], u8 public_key[WGX_KEY_LEN]);

struct seq_file;
/**
 * wgx_ephemeral_stats_show - print the pool's statistics as one line, "held H
 * made M taken T missed X expired E wiped W": pairs held now, counters since
 * load.  New counters go at the end (parsers read name/value pairs).  The
 * show of debugfs wgx/ephemeral_pool_stats; process context, takes the
 * pool's lock.
 */
int wgx_ephemeral_stats_show(struct seq_file *m, void *v);

#endif /* WGX_EPHEMERAL_H */
