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
 */
#ifndef WGX_EPHEMERAL_H
#define WGX_EPHEMERAL_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <wgx/platform.h>
#include <wgx/timers.h>

/* A pooled pair is wiped unused after this long (seconds): REKEY_AFTER_TIME. */
#define WGX_EPHEMERAL_LIFETIME_SECONDS WGX_REKEY_AFTER_TIME_S

/**
 * struct wgx_ephemeral - one key pair and when it was made (jiffies).
 * @private_key is clamped (RFC 7748 section 5).
 */
struct wgx_ephemeral {
	u8 private_key[WGX_KEY_LEN];
	u8 public_key[WGX_KEY_LEN];
	unsigned long born;
};

/**
 * struct wgx_ephemeral_pool - a FIFO of key pairs, oldest first.
 * @lock: protects every field below it; taken with softirqs disabled (takers
 *        may run in softirq).
 * @slots: @size entries; the @count used ones start at @head, wrapping.
 * @lifetime: jiffies a pair may wait before it is wiped unused.
 * @refill_wait: the refill thread sleeps here; woken when a take leaves the
 *               pool at or below its low mark (three quarters of @size).
 * @taken, @missed, @expired, @made: counters since the pool was made: pairs
 *        handed out, takes that found the pool empty (the caller then makes
 *        its own pair), pairs wiped unused, pairs added.
 */
struct wgx_ephemeral_pool {
	spinlock_t lock;
	struct wgx_ephemeral *slots;
	unsigned int size;
	unsigned int head;
	unsigned int count;
	unsigned long lifetime;
	wait_queue_head_t refill_wait;
	u64 taken;
	u64 missed;
	u64 expired;
	u64 made;
};

/**
 * wgx_ephemeral_pool_init - an empty pool of @size pairs (0: a pool that is
 * always empty), each kept at most @lifetime jiffies.  Process context
 * (allocates with GFP_KERNEL).  Returns 0 or -ENOMEM.
 */
int wgx_ephemeral_pool_init(struct wgx_ephemeral_pool *pool, unsigned int size,
			    unsigned long lifetime);

/** wgx_ephemeral_pool_destroy - wipe every pair and free the slots.  No taker may be running. */
void wgx_ephemeral_pool_destroy(struct wgx_ephemeral_pool *pool);

/**
 * wgx_ephemeral_pool_take - move the oldest pair younger than the lifetime at
 * @now (jiffies) into @private_key/@public_key and wipe its slot; older pairs
 * met on the way are wiped (counted as expired).  Returns false, writing
 * nothing, when no such pair is left.  Any context; takes @pool->lock.
 */
bool wgx_ephemeral_pool_take(struct wgx_ephemeral_pool *pool, u8 private_key[WGX_KEY_LEN],
			     u8 public_key[WGX_KEY_LEN], unsigned long now);

/**
 * wgx_ephemeral_pool_add - make one fresh pair (get_random_bytes, then
 * curve25519_generate_public: one fixed-base X25519, outside the lock) and
 * add it, born at @now.  Returns false when the pool was full (the pair is
 * wiped) or no public key could be derived.  Process context, may be slow
 * (hundreds of microseconds under emulation).
 */
bool wgx_ephemeral_pool_add(struct wgx_ephemeral_pool *pool, unsigned long now);

/**
 * wgx_ephemeral_pool_expire - wipe the pairs older than the lifetime at @now.
 * Returns the jiffies until the oldest remaining pair expires, or
 * MAX_SCHEDULE_TIMEOUT when the pool is empty.  Any context.
 */
long wgx_ephemeral_pool_expire(struct wgx_ephemeral_pool *pool, unsigned long now);

/** wgx_ephemeral_pool_count - pairs held now (a snapshot).  Any context. */
unsigned int wgx_ephemeral_pool_count(struct wgx_ephemeral_pool *pool);

/**
 * wgx_ephemeral_init - make the module's pool (ephemeral_pool pairs) and
 * start its refill thread, which fills it once the kernel's CRNG is
 * initialised.  Module init only.  Returns 0, -ENOMEM or the error of
 * kthread_run().
 */
int wgx_ephemeral_init(void);

/** wgx_ephemeral_exit - stop the refill thread, wipe and free the pool.  Module exit only. */
void wgx_ephemeral_exit(void);

/**
 * wgx_ephemeral_take - a pair from the module's pool, or false (pool off,
 * empty, not made yet or already gone): the caller makes its own.  Any
 * context; wgx_platform_curve25519_generate_ephemeral() is its one caller.
 */
bool wgx_ephemeral_take(u8 private_key[WGX_KEY_LEN], u8 public_key[WGX_KEY_LEN]);

#endif /* WGX_EPHEMERAL_H */
