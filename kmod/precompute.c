// SPDX-License-Identifier: GPL-2.0
/*
 * precompute.c - the handshake X25519 work made ahead of time: the module
 * parameter, the pool of ephemeral pairs, the one thread and the statistics
 * (precompute.h says what and why; the per-peer slots are in
 * precompute_peer.c).
 */
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "param.h"
#include "precompute.h"

/* Largest precompute accepted: 65,536 slots cost 2 X25519 each per 120 s. */
#define WGX_PRECOMPUTE_MAX 65536

static unsigned int wgx_precompute_param = 4096;

static struct wgx_param_uint_max wgx_precompute_param_max = {
	.value = &wgx_precompute_param,
	.max = WGX_PRECOMPUTE_MAX,
	.unit = "peers",
};

module_param_cb(precompute, &wgx_param_uint_max_ops, &wgx_precompute_param_max, 0444);
MODULE_PARM_DESC(precompute,
		 "peers whose next handshake message has its ephemeral and its DH with the peer's key made ahead, plus a pool of min(N, 256) ephemerals for first messages; each wiped unused after 120 s (0: off, every X25519 at its handshake as WireGuard does; default 4096, at most 65536)");

/*
 * The two parameters this one replaced, ephemeral_pool and ephemeral_peers:
 * 0 in either turned the work made ahead off for forward secrecy, and a
 * modprobe.d file that still says so must not be ignored (an unknown
 * parameter would be, with a line in the log).  0 sets precompute to 0;
 * any other value leaves it, with a warning either way.  Load time only.
 */
static int wgx_precompute_legacy_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (!n) {
		wgx_precompute_param = 0;
		pr_warn("wgx: %s=0 is precompute=0 now; nothing is made ahead\n", kp->name);
	} else {
		pr_warn("wgx: %s is replaced by precompute; %s=%u ignored\n", kp->name, kp->name, n);
	}
	return 0;
}

static const struct kernel_param_ops wgx_precompute_legacy_ops = {
	.set = wgx_precompute_legacy_set,
};

module_param_cb(ephemeral_pool, &wgx_precompute_legacy_ops, NULL, 0);
MODULE_PARM_DESC(ephemeral_pool, "replaced by precompute; 0 still turns it off");
module_param_cb(ephemeral_peers, &wgx_precompute_legacy_ops, NULL, 0);
MODULE_PARM_DESC(ephemeral_peers, "replaced by precompute; 0 still turns it off");

/* Initialised statically: peers of the KUnit suites, which run before the module's init, use it. */
struct wgx_precompute wgx_precompute_module = {
	.lock = __SPIN_LOCK_UNLOCKED(wgx_precompute_module.lock),
	.slots.pending = LIST_HEAD_INIT(wgx_precompute_module.slots.pending),
	.slots.held = LIST_HEAD_INIT(wgx_precompute_module.slots.held),
	.work_mutex = __MUTEX_INITIALIZER(wgx_precompute_module.work_mutex),
	.wait = __WAIT_QUEUE_HEAD_INITIALIZER(wgx_precompute_module.wait),
};

int wgx_precompute_stats_show(struct seq_file *m, void *v)
{
	struct wgx_precompute *pc = &wgx_precompute_module;
	typeof(pc->pool) pool;
	typeof(pc->slots) slots;
	unsigned int slots_pending;

	spin_lock_bh(&pc->lock);
	pool = pc->pool;
	slots = pc->slots;
	spin_unlock_bh(&pc->lock);
	slots_pending = slots.npending + slots.making;
	seq_printf(m,
		   "pool_held %u pool_made %llu pool_taken %llu pool_missed %llu pool_expired %llu pool_wiped %llu ",
		   pool.count, pool.made, pool.taken, pool.missed, pool.expired, pool.wiped);
	seq_printf(m,
		   "slots_held %u slots_pending %u slots_made %llu slots_used %llu slots_expired %llu slots_stale %llu slots_wiped %llu slots_full %llu slots_deferred %llu slots_allocated %llu slots_freed %llu slots_nomem %llu\n",
		   slots.in_use - slots_pending, slots_pending, slots.made, slots.used,
		   slots.expired, slots.stale, slots.wiped, slots.full, slots.deferred,
		   slots.allocated, slots.freed, slots.nomem);
	return 0;
}

/*
 * The thread refills the pool when a take leaves at most this many pairs:
 * three quarters of it, and always below its size (a pool of 1-3 pairs would
 * otherwise "need" a refill while full, and the thread never sleep).
 */
static unsigned int wgx_precompute_low_mark(const struct wgx_precompute *pc)
{
	return pc->pool.size - max(1u, pc->pool.size / 4);
}

/* Caller holds the lock.  Wipes the pair at the head and drops it. */
static void wgx_precompute_drop_head(struct wgx_precompute *pc)
{
	memzero_explicit(&pc->pool.pairs[pc->pool.head], sizeof(pc->pool.pairs[0]));
	pc->pool.head = (pc->pool.head + 1) % pc->pool.size;
	pc->pool.count--;
}

/*
 * Caller holds the lock.  Boottime ns do not wrap (584 years): a plain
 * comparison; a pair born a little after @now (a clock read on another CPU
 * before the pair was added) is simply young.
 */
static void wgx_precompute_pool_expire_locked(struct wgx_precompute *pc, u64 now)
{
	while (pc->pool.count && now >= pc->pool.pairs[pc->pool.head].born + pc->lifetime) {
		wgx_precompute_drop_head(pc);
		pc->pool.expired++;
	}
}

/* Size @pc, whose locks and lists are initialised and which holds nothing. */
static int wgx_precompute_configure(struct wgx_precompute *pc, unsigned int pool_size,
				    unsigned int max_slots, u64 lifetime)
{
	pc->lifetime = lifetime;
	pc->slots.max = max_slots;
	pc->slots.last_take = jiffies - WGX_PRECOMPUTE_QUIET;
	if (!pool_size)
		return 0;
	/* Not one contiguous high-order allocation. */
	pc->pool.pairs = kvcalloc(pool_size, sizeof(pc->pool.pairs[0]), GFP_KERNEL);
	if (!pc->pool.pairs)
		return -ENOMEM;
	pc->pool.size = pool_size;
	return 0;
}

int wgx_precompute_setup(struct wgx_precompute *pc, unsigned int pool_size,
			 unsigned int max_slots, u64 lifetime)
{
	memset(pc, 0, sizeof(*pc));
	spin_lock_init(&pc->lock);
	INIT_LIST_HEAD(&pc->slots.pending);
	INIT_LIST_HEAD(&pc->slots.held);
	mutex_init(&pc->work_mutex);
	init_waitqueue_head(&pc->wait);
	return wgx_precompute_configure(pc, pool_size, max_slots, lifetime);
}

void wgx_precompute_teardown(struct wgx_precompute *pc)
{
	WRITE_ONCE(pc->live, false);
	if (pc->thread)
		kthread_stop(pc->thread);
	pc->thread = NULL;
	/* Every peer was forgotten at its removal. */
	WARN_ON(pc->slots.in_use);
	if (pc->pool.pairs)
		memzero_explicit(pc->pool.pairs, pc->pool.size * sizeof(pc->pool.pairs[0]));
	kvfree(pc->pool.pairs);
	pc->pool.pairs = NULL;
	pc->pool.size = 0;
	pc->pool.count = 0;
}

bool wgx_precompute_pool_take(struct wgx_precompute *pc, u8 private_key[WGX_KEY_LEN],
			      u8 public_key[WGX_KEY_LEN], u64 now)
{
	struct wgx_precompute_pair *e;
	bool wake;

	spin_lock_bh(&pc->lock);
	wgx_precompute_pool_expire_locked(pc, now);
	if (!pc->pool.count) {
		pc->pool.missed++;
		wake = pc->pool.size && !pc->paused;
		spin_unlock_bh(&pc->lock);
		if (wake)
			wake_up(&pc->wait);
		return false;
	}
	e = &pc->pool.pairs[pc->pool.head];
	memcpy(private_key, e->private_key, WGX_KEY_LEN);
	memcpy(public_key, e->public_key, WGX_KEY_LEN);
	wgx_precompute_drop_head(pc);
	pc->pool.taken++;
	wake = pc->pool.count <= wgx_precompute_low_mark(pc);
	spin_unlock_bh(&pc->lock);
	if (wake)
		wake_up(&pc->wait);
	return true;
}

bool wgx_precompute_pool_add(struct wgx_precompute *pc, u64 now)
{
	struct wgx_precompute_pair e;
	bool added = false;

	/* Made as a handshake would make it (kmod/platform.c). */
	wgx_platform_curve25519_generate_secret(e.private_key);
	if (!wgx_platform_curve25519_generate_public(e.public_key, e.private_key))
		goto out;
	e.born = now;
	spin_lock_bh(&pc->lock);
	/* A pause wiped the pool: a pair made across it must not get in. */
	if (!pc->paused && pc->pool.count < pc->pool.size) {
		pc->pool.pairs[(pc->pool.head + pc->pool.count) % pc->pool.size] = e;
		pc->pool.count++;
		pc->pool.made++;
		added = true;
	}
	spin_unlock_bh(&pc->lock);
out:
	memzero_explicit(&e, sizeof(e));
	return added;
}

u64 wgx_precompute_pool_expire(struct wgx_precompute *pc, u64 now)
{
	u64 left = U64_MAX;

	spin_lock_bh(&pc->lock);
	wgx_precompute_pool_expire_locked(pc, now);
	if (pc->pool.count)
		left = pc->pool.pairs[pc->pool.head].born + pc->lifetime - now;
	spin_unlock_bh(&pc->lock);
	return left;
}

unsigned int wgx_precompute_pool_count(struct wgx_precompute *pc)
{
	return READ_ONCE(pc->pool.count);
}

void wgx_precompute_pause(struct wgx_precompute *pc)
{
	spin_lock_bh(&pc->lock);
	WRITE_ONCE(pc->paused, true);
	pc->pool.wiped += pc->pool.count;
	while (pc->pool.count)
		wgx_precompute_drop_head(pc);
	wgx_precompute_slots_wipe_locked(pc);
	spin_unlock_bh(&pc->lock);
}

void wgx_precompute_unpause(struct wgx_precompute *pc)
{
	u64 now;

	spin_lock_bh(&pc->lock);
	WRITE_ONCE(pc->paused, false);
	spin_unlock_bh(&pc->lock);
	/*
	 * Under CONFIG_PM_AUTOSLEEP nothing was wiped before the suspend, and
	 * the thread's jiffies timeout stood still during it: wipe here what
	 * the boottime clock says expired (expired slots are queued again).
	 */
	now = wgx_precompute_now();
	wgx_precompute_pool_expire(pc, now);
	wgx_precompute_slots_expire(pc, now);
	wake_up(&pc->wait);
}

/* Not paused and not full: room for the thread to add a pair. */
static bool wgx_precompute_pool_room(const struct wgx_precompute *pc)
{
	return !READ_ONCE(pc->paused) && READ_ONCE(pc->pool.count) < pc->pool.size;
}

/* Not paused and at or below the low mark: a refill is due. */
static bool wgx_precompute_pool_due(const struct wgx_precompute *pc)
{
	return !READ_ONCE(pc->paused) && pc->pool.size &&
	       READ_ONCE(pc->pool.count) <= wgx_precompute_low_mark(pc);
}

/* Add a pair to the pool (the thread); room, yet nothing added: a pause, not a spin. */
static void wgx_precompute_refill(struct wgx_precompute *pc)
{
	if (!wgx_precompute_pool_add(pc, wgx_precompute_now()))
		schedule_timeout_interruptible(HZ / 10);
	cond_resched();
}

/* A wait of @ns as a schedule timeout (jiffies, rounded up). */
static long wgx_precompute_timeout(u64 ns)
{
	if (ns == U64_MAX)
		return MAX_SCHEDULE_TIMEOUT;
	return min_t(u64, nsecs_to_jiffies64(ns) + 1, MAX_SCHEDULE_TIMEOUT - 1);
}

/* wgx_precompute_quiet_wait() for the thread, counting each new wait. */
static long wgx_precompute_defer(struct wgx_precompute *pc, unsigned long *since)
{
	unsigned long was = *since;
	long left;

	left = wgx_precompute_quiet_wait(jiffies, READ_ONCE(pc->slots.last_take), since);
	if (!was && *since) {
		spin_lock_bh(&pc->lock);
		pc->slots.deferred++;
		spin_unlock_bh(&pc->lock);
	}
	return left;
}

/*
 * The unit's one thread.  The pool first while it is at or below its low
 * mark (a take that leaves it there wakes the thread).  Then the pending
 * slots, one at a time, oldest request first, once no slot has been taken
 * for WGX_PRECOMPUTE_QUIET (a burst's slots are remade after it) or takes
 * went on for WGX_PRECOMPUTE_DEFER_MAX, and the held ones as they expire;
 * a slot that is due goes before the pool's top-up above its low mark, so
 * a storm that keeps taking pool pairs does not starve the slots.  The
 * pool is topped up as pairs expire (a full idle pool costs size / lifetime
 * fixed-base multiplications per second: about 2 at the default).
 * Nice 19, so during a storm the handshakes get the CPU first.  Nothing is
 * made before the CRNG is initialised, nor while paused for a suspend.
 * Freezable: it stops with the other tasks before a suspend or hibernation
 * (the PM notifier has wiped and paused the unit by then) and waits after
 * the thaw until the resume notification ends the pause.  Its sleeps are
 * jiffies, which stand still during a suspend; the resume wakes it.
 */
static int wgx_precompute_thread(void *data)
{
	struct wgx_precompute *pc = data;
	unsigned long since = 0, batch = 0;
	long defer, timeout;
	u64 left, now;

	set_freezable();
	while (!kthread_should_stop()) {
		try_to_freeze();
		if (!rng_is_initialized()) {
			schedule_timeout_interruptible(HZ);
			continue;
		}
		now = wgx_precompute_now();
		left = min(wgx_precompute_pool_expire(pc, now), wgx_precompute_slots_expire(pc, now));
		if (freezing(current))
			continue;
		/* At or below its low mark the pool goes first; above it, a due slot. */
		if (wgx_precompute_pool_due(pc)) {
			wgx_precompute_refill(pc);
			continue;
		}
		defer = 0;
		if (!wgx_precompute_slots_due(pc)) {
			since = 0;	/* nothing to make: the next wait is a new one */
			batch = 0;
		} else if (!batch) {
			defer = wgx_precompute_defer(pc, &since);
			if (defer <= 0 && since) {
				/*
				 * Waited WGX_PRECOMPUTE_DEFER_MAX and the takes go
				 * on: make what is pending now, then wait again.
				 */
				batch = READ_ONCE(pc->slots.npending);
				since = 0;
			}
		}
		if (defer <= 0 && wgx_precompute_slots_make_one(pc)) {
			if (batch)
				batch--;
			cond_resched();
			continue;
		}
		if (wgx_precompute_pool_room(pc)) {
			wgx_precompute_refill(pc);
			continue;
		}
		/* While deferring, slot takes wake @wait but not the thread. */
		timeout = wgx_precompute_timeout(left);
		if (defer > 0)
			timeout = min(timeout, defer);
		wait_event_freezable_timeout(pc->wait,
					     kthread_should_stop() || wgx_precompute_pool_due(pc) ||
					     (defer <= 0 && wgx_precompute_slots_due(pc)),
					     timeout);
	}
	return 0;
}

int wgx_precompute_start(struct wgx_precompute *pc)
{
	struct task_struct *t;

	if (!pc->pool.size && !pc->slots.max)
		return 0;
	t = kthread_create(wgx_precompute_thread, pc, "wgx-precompute");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Nice 19 from its first instruction on: it may fill the pool at once. */
	sched_set_normal(t, MAX_NICE);
	pc->thread = t;
	WRITE_ONCE(pc->live, true);
	wake_up_process(t);
	return 0;
}

int wgx_precompute_init(void)
{
	struct wgx_precompute *pc = &wgx_precompute_module;
	int ret;

	ret = wgx_precompute_configure(pc, min(wgx_precompute_param, WGX_PRECOMPUTE_POOL_MAX),
				       wgx_precompute_param,
				       (u64)WGX_PRECOMPUTE_LIFETIME_SECONDS * NSEC_PER_SEC);
	if (ret < 0)
		return ret;
	ret = wgx_precompute_start(pc);
	if (ret < 0)
		wgx_precompute_teardown(pc);
	return ret;
}

void wgx_precompute_exit(void)
{
	wgx_precompute_teardown(&wgx_precompute_module);
}

void wgx_precompute_suspend(void)
{
	wgx_precompute_pause(&wgx_precompute_module);
}

void wgx_precompute_resume(void)
{
	wgx_precompute_unpause(&wgx_precompute_module);
}
