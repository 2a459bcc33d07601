// SPDX-License-Identifier: GPL-2.0
/*
 * ephemeral.c - handshake ephemeral key pairs made ahead of time on a
 * nice-19 kernel thread (ephemeral.h says why; docs/rotation.md, "Ephemeral
 * keys made ahead", what it means for a key compromise).
 */
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ephemeral.h"
#include "param.h"

/* Largest ephemeral_pool accepted: 4,096 pairs are 288 KiB. */
#define WGX_EPHEMERAL_POOL_MAX 4096

static unsigned int wgx_ephemeral_pool_size = 256;

static struct wgx_param_uint_max wgx_ephemeral_pool_param = {
	.value = &wgx_ephemeral_pool_size,
	.max = WGX_EPHEMERAL_POOL_MAX,
	.unit = "key pairs",
};

module_param_cb(ephemeral_pool, &wgx_param_uint_max_ops, &wgx_ephemeral_pool_param, 0444);
MODULE_PARM_DESC(ephemeral_pool,
		 "handshake ephemeral key pairs made ahead of time, each wiped unused after 120 s (0: off, every pair is made at its handshake as WireGuard does; default 256, at most 4096)");

static struct wgx_ephemeral_pool wgx_ephemeral_module_pool;
/*
 * Set once the module's pool and its thread exist; cleared at module exit,
 * after the last device (and so the last taker) is gone.  The pool's memory
 * is static, so a reader of the counters racing with exit reads a valid lock.
 */
static struct wgx_ephemeral_pool *wgx_ephemeral_live;

int wgx_ephemeral_stats_show(struct seq_file *m, void *v)
{
	struct wgx_ephemeral_pool *pool = smp_load_acquire(&wgx_ephemeral_live);
	u64 made, taken, missed, expired, wiped;
	unsigned int held;

	if (!pool) {
		seq_puts(m, "held 0 made 0 taken 0 missed 0 expired 0 wiped 0\n");
		return 0;
	}
	spin_lock_bh(&pool->lock);
	held = pool->count;
	made = pool->made;
	taken = pool->taken;
	missed = pool->missed;
	expired = pool->expired;
	wiped = pool->wiped;
	spin_unlock_bh(&pool->lock);
	seq_printf(m, "held %u made %llu taken %llu missed %llu expired %llu wiped %llu\n",
		   held, made, taken, missed, expired, wiped);
	return 0;
}



/*
 * The refill thread wakes when a take leaves at most this many pairs: three
 * quarters of the pool, and always below its size (a pool of 1-3 pairs would
 * otherwise "need" a refill while full, and its thread never sleep).
 */
static unsigned int wgx_ephemeral_low_mark(const struct wgx_ephemeral_pool *pool)
{
	return pool->size - max(1u, pool->size / 4);
}

/* Caller holds pool->lock.  Wipes the slot at the head and drops it. */
static void wgx_ephemeral_drop_head(struct wgx_ephemeral_pool *pool)
{
	memzero_explicit(&pool->slots[pool->head], sizeof(pool->slots[0]));
	pool->head = (pool->head + 1) % pool->size;
	pool->count--;
}

/*
 * Caller holds pool->lock.  Boottime nanoseconds do not wrap (584 years), so
 * a plain comparison; a pair born a little after @now (a clock read on
 * another CPU before the pair was added) is simply young.
 */
static void wgx_ephemeral_expire_locked(struct wgx_ephemeral_pool *pool, u64 now)
{
	while (pool->count && now >= pool->slots[pool->head].born + pool->lifetime) {
		wgx_ephemeral_drop_head(pool);
		pool->expired++;
	}
}

int wgx_ephemeral_pool_init(struct wgx_ephemeral_pool *pool, unsigned int size, u64 lifetime)
{
	memset(pool, 0, sizeof(*pool));
	spin_lock_init(&pool->lock);
	init_waitqueue_head(&pool->refill_wait);
	pool->lifetime = lifetime;
	if (!size)
		return 0;
	/* 4,096 pairs are 288 KiB: not one contiguous high-order allocation. */
	pool->slots = kvcalloc(size, sizeof(pool->slots[0]), GFP_KERNEL);
	if (!pool->slots)
		return -ENOMEM;
	pool->size = size;
	return 0;
}

void wgx_ephemeral_pool_destroy(struct wgx_ephemeral_pool *pool)
{
	if (pool->thread)
		kthread_stop(pool->thread);
	pool->thread = NULL;
	if (pool->slots)
		memzero_explicit(pool->slots, pool->size * sizeof(pool->slots[0]));
	kvfree(pool->slots);
	pool->slots = NULL;
	pool->size = 0;
	pool->count = 0;
}

bool wgx_ephemeral_pool_take(struct wgx_ephemeral_pool *pool, u8 private_key[WGX_KEY_LEN],
			     u8 public_key[WGX_KEY_LEN], u64 now)
{
	struct wgx_ephemeral *e;
	bool wake;

	spin_lock_bh(&pool->lock);
	wgx_ephemeral_expire_locked(pool, now);
	if (!pool->count) {
		pool->missed++;
		wake = pool->size != 0;
		spin_unlock_bh(&pool->lock);
		if (wake)
			wake_up(&pool->refill_wait);
		return false;
	}
	e = &pool->slots[pool->head];
	memcpy(private_key, e->private_key, WGX_KEY_LEN);
	memcpy(public_key, e->public_key, WGX_KEY_LEN);
	wgx_ephemeral_drop_head(pool);
	pool->taken++;
	wake = pool->count <= wgx_ephemeral_low_mark(pool);
	spin_unlock_bh(&pool->lock);
	if (wake)
		wake_up(&pool->refill_wait);
	return true;
}

bool wgx_ephemeral_pool_add(struct wgx_ephemeral_pool *pool, u64 now)
{
	struct wgx_ephemeral e;
	bool added = false;

	/* Made as a handshake would make it (kmod/platform.c). */
	wgx_platform_curve25519_generate_secret(e.private_key);
	if (!wgx_platform_curve25519_generate_public(e.public_key, e.private_key))
		goto out;
	e.born = now;
	spin_lock_bh(&pool->lock);
	/* A pause wiped the pool: a pair made across it must not get in. */
	if (!pool->paused && pool->count < pool->size) {
		pool->slots[(pool->head + pool->count) % pool->size] = e;
		pool->count++;
		pool->made++;
		added = true;
	}
	spin_unlock_bh(&pool->lock);
out:
	memzero_explicit(&e, sizeof(e));
	return added;
}

u64 wgx_ephemeral_pool_expire(struct wgx_ephemeral_pool *pool, u64 now)
{
	u64 left = U64_MAX;

	spin_lock_bh(&pool->lock);
	wgx_ephemeral_expire_locked(pool, now);
	if (pool->count)
		left = pool->slots[pool->head].born + pool->lifetime - now;
	spin_unlock_bh(&pool->lock);
	return left;
}

void wgx_ephemeral_pool_pause(struct wgx_ephemeral_pool *pool)
{
	spin_lock_bh(&pool->lock);
	WRITE_ONCE(pool->paused, true);
	pool->wiped += pool->count;
	while (pool->count)
		wgx_ephemeral_drop_head(pool);
	spin_unlock_bh(&pool->lock);
}

void wgx_ephemeral_pool_resume(struct wgx_ephemeral_pool *pool)
{
	spin_lock_bh(&pool->lock);
	WRITE_ONCE(pool->paused, false);
	spin_unlock_bh(&pool->lock);
	/*
	 * Under CONFIG_PM_AUTOSLEEP nothing was wiped before the suspend, and
	 * the thread's jiffies timeout stood still during it: wipe here what
	 * the boottime clock says expired (the wake-up alone would not, with
	 * the pool full: the thread's condition is a refill).
	 */
	wgx_ephemeral_pool_expire(pool, wgx_ephemeral_now());
	wake_up(&pool->refill_wait);
}

unsigned int wgx_ephemeral_pool_count(struct wgx_ephemeral_pool *pool)
{
	return READ_ONCE(pool->count);
}

/* Not paused and not full: room for the refill thread to add a pair. */
static bool wgx_ephemeral_room(const struct wgx_ephemeral_pool *pool)
{
	return !READ_ONCE(pool->paused) && READ_ONCE(pool->count) < pool->size;
}

/* Not paused and at or below the low mark: the refill thread's wake-up. */
static bool wgx_ephemeral_refill_due(const struct wgx_ephemeral_pool *pool)
{
	return !READ_ONCE(pool->paused) && READ_ONCE(pool->count) <= wgx_ephemeral_low_mark(pool);
}

/* A wait of @ns as a schedule timeout (jiffies, rounded up). */
static long wgx_ephemeral_timeout(u64 ns)
{
	if (ns == U64_MAX)
		return MAX_SCHEDULE_TIMEOUT;
	return min_t(u64, nsecs_to_jiffies64(ns) + 1, MAX_SCHEDULE_TIMEOUT - 1);
}

/*
 * Keeps the pool full: fills it whenever a take leaves it at or below its
 * low mark, and replaces pairs as they expire (so a full idle pool costs
 * size / lifetime fixed-base multiplications per second: about 2 at the
 * default).  Nice 19, so during a storm the handshakes themselves get the
 * CPU and this thread only what is left.  No pair is made before the CRNG
 * is initialised, nor while the pool is paused for a suspend.  Freezable:
 * it stops with the other tasks before a suspend or hibernation (the PM
 * notifier has wiped and paused the pool by then) and waits after the thaw
 * until the resume notification ends the pause.  Its sleeps are jiffies,
 * which stand still during a suspend; the resume wakes it, so pairs that
 * expired meanwhile by the boottime clock go at once.
 */
static int wgx_ephemeral_refill(void *data)
{
	struct wgx_ephemeral_pool *pool = data;
	u64 left;

	set_freezable();
	while (!kthread_should_stop()) {
		try_to_freeze();
		if (!rng_is_initialized()) {
			schedule_timeout_interruptible(HZ);
			continue;
		}
		left = wgx_ephemeral_pool_expire(pool, wgx_ephemeral_now());
		if (wgx_ephemeral_room(pool)) {
			while (!kthread_should_stop() && !freezing(current) &&
			       wgx_ephemeral_pool_add(pool, wgx_ephemeral_now()))
				cond_resched();
			/* Room, yet nothing added: no public key (cannot happen
			 * for a clamped secret); do not spin on it. */
			if (!kthread_should_stop() && !freezing(current) && wgx_ephemeral_room(pool))
				schedule_timeout_interruptible(HZ / 10);
			continue;
		}
		wait_event_freezable_timeout(pool->refill_wait,
					     kthread_should_stop() || wgx_ephemeral_refill_due(pool),
					     wgx_ephemeral_timeout(left));
	}
	return 0;
}

int wgx_ephemeral_pool_start(struct wgx_ephemeral_pool *pool)
{
	struct task_struct *t;

	if (!pool->size)
		return 0;
	t = kthread_create(wgx_ephemeral_refill, pool, "wgx-ephemeral");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Nice 19 from its first instruction on: it may fill the pool at once. */
	sched_set_normal(t, MAX_NICE);
	pool->thread = t;
	wake_up_process(t);
	return 0;
}

int wgx_ephemeral_init(void)
{
	struct wgx_ephemeral_pool *pool = &wgx_ephemeral_module_pool;
	int ret;

	ret = wgx_ephemeral_pool_init(pool, wgx_ephemeral_pool_size,
				      WGX_EPHEMERAL_LIFETIME_SECONDS * NSEC_PER_SEC);
	if (ret < 0)
		return ret;
	if (!pool->size)
		return 0;
	ret = wgx_ephemeral_pool_start(pool);
	if (ret < 0) {
		wgx_ephemeral_pool_destroy(pool);
		return ret;
	}
	smp_store_release(&wgx_ephemeral_live, pool);
	return 0;
}

bool wgx_ephemeral_enabled(void)
{
	return READ_ONCE(wgx_ephemeral_pool_size) != 0;
}

void wgx_ephemeral_exit(void)
{
	WRITE_ONCE(wgx_ephemeral_live, NULL);
	wgx_ephemeral_pool_destroy(&wgx_ephemeral_module_pool);
}

void wgx_ephemeral_suspend(void)
{
	struct wgx_ephemeral_pool *pool = smp_load_acquire(&wgx_ephemeral_live);

	if (pool)
		wgx_ephemeral_pool_pause(pool);
}

void wgx_ephemeral_resume(void)
{
	struct wgx_ephemeral_pool *pool = smp_load_acquire(&wgx_ephemeral_live);

	if (pool)
		wgx_ephemeral_pool_resume(pool);
}

bool wgx_ephemeral_take(u8 private_key[WGX_KEY_LEN], u8 public_key[WGX_KEY_LEN])
{
	struct wgx_ephemeral_pool *pool = smp_load_acquire(&wgx_ephemeral_live);

	return pool && wgx_ephemeral_pool_take(pool, private_key, public_key, wgx_ephemeral_now());
}
