// SPDX-License-Identifier: GPL-2.0
/*
 * prepare.c - per-peer handshake ephemerals made ahead of time on a nice-19
 * kernel thread (prepare.h says what and why; docs/rotation.md, "Ephemeral
 * keys made ahead", what it means for a key compromise).
 */
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/wait.h>
#include <crypto/algapi.h>

#include "device.h"
#include "ephemeral.h"
#include "param.h"
#include "peer.h"
#include "prepare.h"

/* Largest ephemeral_peers accepted: 65,536 slots cost 2 X25519 each per 120 s. */
#define WGX_PREPARE_PEERS_MAX 65536

static unsigned int wgx_prepare_max = 4096;

static struct wgx_param_uint_max wgx_prepare_max_param = {
	.value = &wgx_prepare_max,
	.max = WGX_PREPARE_PEERS_MAX,
	.unit = "peers",
};

module_param_cb(ephemeral_peers, &wgx_param_uint_max_ops, &wgx_prepare_max_param, 0444);
MODULE_PARM_DESC(ephemeral_peers,
		 "peers whose next handshake message has its ephemeral and its DH with the peer's key made ahead, each remade after use or 120 s (0: off; off too with ephemeral_pool=0; default 4096, at most 65536)");

/**
 * struct wgx_prepare - the module's slots and their thread.
 * @lock: guards every field below it but @work_mutex, @wait and @thread,
 *	and every peer's struct wgx_prepare_slot; bottom halves off.
 * @pending: slots to make, oldest request first.
 * @held: slots with material, oldest first (each is appended when made, so
 *	the list is sorted by born).
 * @in_use: slots in state PENDING, WORKING, FORGOTTEN or HELD (at most
 *	wgx_prepare_max).
 * @npending: entries of @pending, read without the lock by the thread's wait.
 * @making: the thread is making a slot (WORKING or FORGOTTEN).
 * @paused: a suspend is under way: nothing is made.
 * @last_take: jiffies of the last wgx_prepare_take() that found a held slot;
 *	read by the thread without the lock.
 * @live: the thread runs; requests are taken.  Written at init and exit only.
 * @work_mutex: held by the thread while it works on one peer, so that
 *	wgx_prepare_sync() can wait for it to let go of that peer.
 * @wait: the thread sleeps here; woken by requests, takes and the resume
 *	(while it waits for the takes to go quiet it sleeps elsewhere: a
 *	request then waits up to WGX_PREPARE_QUIET).
 * @thread: the "wgx-prepare" thread, or NULL (off).
 * @made: slots made (counters since load, ephemeral_peers_stats).
 * @used: slots handed to a handshake message.
 * @expired: slots wiped unused at 120 s.
 * @stale: slots wiped because the peer's key changed.
 * @wiped: slots wiped by a suspend.
 * @full: requests refused because ephemeral_peers slots were in use.
 * @deferred: waits of the thread for the takes to go quiet (WGX_PREPARE_QUIET).
 * @allocated: slots allocated (a peer's first handshake message, or its
 *	first after its slot was freed).
 * @freed: slots freed (idle WGX_PREPARE_IDLE_MAX lifetimes, peer removed,
 *	no usable DH).
 * @nomem: requests that could not allocate a slot.
 */
static struct wgx_prepare {
	spinlock_t lock;
	struct list_head pending;
	struct list_head held;
	unsigned int in_use;
	unsigned int npending;
	bool making;
	bool paused;
	bool live;
	unsigned long last_take;
	struct mutex work_mutex;
	wait_queue_head_t wait;
	struct task_struct *thread;
	u64 made, used, expired, stale, wiped, full, deferred, allocated, freed, nomem;
} wgx_prepare = {
	.lock = __SPIN_LOCK_UNLOCKED(wgx_prepare.lock),
	.pending = LIST_HEAD_INIT(wgx_prepare.pending),
	.held = LIST_HEAD_INIT(wgx_prepare.held),
	.work_mutex = __MUTEX_INITIALIZER(wgx_prepare.work_mutex),
	.wait = __WAIT_QUEUE_HEAD_INITIALIZER(wgx_prepare.wait),
};

static const u64 wgx_prepare_lifetime = WGX_EPHEMERAL_LIFETIME_SECONDS * NSEC_PER_SEC;

int wgx_prepare_stats_show(struct seq_file *m, void *v)
{
	struct wgx_prepare *p = &wgx_prepare;
	u64 made, used, expired, stale, wiped, full, deferred, allocated, freed, nomem;
	unsigned int held, pending;

	spin_lock_bh(&p->lock);
	pending = p->npending + p->making;
	held = p->in_use - pending;
	made = p->made;
	used = p->used;
	expired = p->expired;
	stale = p->stale;
	wiped = p->wiped;
	full = p->full;
	deferred = p->deferred;
	allocated = p->allocated;
	freed = p->freed;
	nomem = p->nomem;
	spin_unlock_bh(&p->lock);
	seq_printf(m,
		   "held %u pending %u made %llu used %llu expired %llu stale %llu wiped %llu full %llu deferred %llu allocated %llu freed %llu nomem %llu\n",
		   held, pending, made, used, expired, stale, wiped, full, deferred, allocated,
		   freed, nomem);
	return 0;
}



static u64 wgx_prepare_expire(u64 now);

/* Caller holds the lock; @slot is on no list. */
static void wgx_prepare_queue_locked(struct wgx_prepare_slot *slot)
{
	WRITE_ONCE(slot->state, WGX_PREPARE_PENDING);
	list_add_tail(&slot->node, &wgx_prepare.pending);
	WRITE_ONCE(wgx_prepare.npending, wgx_prepare.npending + 1);
}

/* Caller holds the lock; @slot is HELD: wipe it and queue it again. */
static void wgx_prepare_requeue_held_locked(struct wgx_prepare_slot *slot)
{
	list_del_init(&slot->node);
	memzero_explicit(&slot->material, sizeof(slot->material));
	wgx_prepare_queue_locked(slot);
}

/*
 * Caller holds the lock; @slot is on no list and its peer no longer points
 * to it: it stops counting.  The caller frees it with wgx_prepare_free()
 * after dropping the lock.
 */
static void wgx_prepare_detach_locked(struct wgx_prepare_slot *slot)
{
	wgx_prepare.in_use--;
	wgx_prepare.freed++;
}

/* Wipe and free a detached slot and drop its peer reference (perhaps the last). */
static void wgx_prepare_free(struct wgx_prepare_slot *slot)
{
	struct wgx_peer *peer = slot->peer;

	kfree_sensitive(slot);
	wgx_peer_put(peer);
}

void wgx_prepare_request(struct wgx_peer *peer)
{
	struct wgx_prepare *p = &wgx_prepare;
	struct wgx_prepare_slot *slot;
	bool wake = false;

	might_sleep();
	if (!READ_ONCE(p->live) || READ_ONCE(peer->prepare) || READ_ONCE(peer->is_dead))
		return;
	if (READ_ONCE(p->in_use) >= READ_ONCE(wgx_prepare_max)) {
		spin_lock_bh(&p->lock);
		p->full++;
		spin_unlock_bh(&p->lock);
		return;
	}
	slot = kzalloc(sizeof(*slot), GFP_KERNEL | __GFP_NOWARN);
	spin_lock_bh(&p->lock);
	if (!slot) {
		p->nomem++;
	} else if (!peer->prepare && !READ_ONCE(peer->is_dead)) {
		if (p->in_use < READ_ONCE(wgx_prepare_max)) {
			slot->peer = wgx_peer_get(peer);	/* the slot's */
			INIT_LIST_HEAD(&slot->node);
			p->in_use++;
			p->allocated++;
			WRITE_ONCE(peer->prepare, slot);
			wgx_prepare_queue_locked(slot);
			slot = NULL;
			wake = !p->paused;
		} else {
			p->full++;
		}
	}
	spin_unlock_bh(&p->lock);
	kfree(slot);	/* not used: never held material */
	if (wake)
		wake_up(&p->wait);
}

void wgx_prepare_refresh(struct wgx_peer *peer)
{
	struct wgx_prepare *p = &wgx_prepare;
	struct wgx_prepare_slot *slot;
	bool wake = false;

	if (!READ_ONCE(p->live))
		return;
	spin_lock_bh(&p->lock);
	slot = peer->prepare;
	if (slot && slot->state == WGX_PREPARE_HELD) {
		wgx_prepare_requeue_held_locked(slot);
		p->stale++;
		wake = !p->paused;
	}
	spin_unlock_bh(&p->lock);
	if (wake)
		wake_up(&p->wait);
}

bool wgx_prepare_take(struct wgx_peer *peer, const struct wgx_noise_handshake *hs,
		      struct wgx_noise_prepared *out)
{
	struct wgx_prepare *p = &wgx_prepare;
	struct wgx_prepare_slot *slot;
	u8 key[WGX_KEY_LEN];
	bool got = false, wake = false, none;
	u64 now;

	lockdep_assert_held(&peer->handshake_lock);
	if (!READ_ONCE(p->live))
		return false;
	/* No slot yet (or it was freed unused): this message pays for the next. */
	if (!READ_ONCE(peer->prepare)) {
		wgx_prepare_request(peer);
		return false;
	}
	wgx_noise_handshake_get_remote_static(hs, key);
	now = wgx_ephemeral_now();
	spin_lock_bh(&p->lock);
	slot = peer->prepare;
	none = !slot;
	if (slot && slot->state == WGX_PREPARE_HELD) {
		if (now >= slot->born + wgx_prepare_lifetime) {
			p->expired++;
		} else if (crypto_memneq(slot->material.remote_static, key, WGX_KEY_LEN)) {
			p->stale++;
		} else {
			*out = slot->material;
			p->used++;
			got = true;
		}
		slot->idle = 0;
		wgx_prepare_requeue_held_locked(slot);
		WRITE_ONCE(p->last_take, jiffies);
		wake = !p->paused;
	} else if (slot) {
		/* Pending or being made: the peer is handshaking, keep it. */
		slot->idle = 0;
	}
	spin_unlock_bh(&p->lock);
	memzero_explicit(key, sizeof(key));
	if (wake)
		wake_up(&p->wait);
	if (none)
		wgx_prepare_request(peer);	/* freed since the first look */
	return got;
}

void wgx_prepare_forget(struct wgx_peer *peer)
{
	struct wgx_prepare *p = &wgx_prepare;
	struct wgx_prepare_slot *slot, *free = NULL;

	spin_lock_bh(&p->lock);
	slot = peer->prepare;
	if (!slot) {
		spin_unlock_bh(&p->lock);
		return;
	}
	WRITE_ONCE(peer->prepare, NULL);
	switch (slot->state) {
	case WGX_PREPARE_PENDING:
		WRITE_ONCE(p->npending, p->npending - 1);
		fallthrough;
	case WGX_PREPARE_HELD:
		list_del_init(&slot->node);
		wgx_prepare_detach_locked(slot);
		free = slot;
		break;
	case WGX_PREPARE_WORKING:
		/*
		 * The thread sees FORGOTTEN when it is done, frees the slot and
		 * drops the reference, perhaps the last: wgx_prepare_sync() at
		 * the device's destruction waits for that.  No wait here, where
		 * the caller may hold rtnl, for a nice-19 thread.
		 */
		WRITE_ONCE(slot->state, WGX_PREPARE_FORGOTTEN);
		break;
	}
	spin_unlock_bh(&p->lock);
	if (free)
		wgx_prepare_free(free);
}

void wgx_prepare_sync(void)
{
	might_sleep();
	/* The thread holds this while it has a peer (wgx_prepare_one(), _expire()). */
	mutex_lock(&wgx_prepare.work_mutex);
	mutex_unlock(&wgx_prepare.work_mutex);
}

void wgx_prepare_suspend(void)
{
	struct wgx_prepare *p = &wgx_prepare;
	struct wgx_prepare_slot *slot, *tmp;

	spin_lock_bh(&p->lock);
	WRITE_ONCE(p->paused, true);
	list_for_each_entry_safe(slot, tmp, &p->held, node) {
		wgx_prepare_requeue_held_locked(slot);
		p->wiped++;
	}
	spin_unlock_bh(&p->lock);
}

void wgx_prepare_resume(void)
{
	struct wgx_prepare *p = &wgx_prepare;

	spin_lock_bh(&p->lock);
	WRITE_ONCE(p->paused, false);
	spin_unlock_bh(&p->lock);
	/*
	 * Under CONFIG_PM_AUTOSLEEP nothing was wiped before the suspend, and
	 * the thread's jiffies timeout did not run during it: wipe what the
	 * boottime clock says expired now (queued, so the thread wakes).
	 */
	wgx_prepare_expire(wgx_ephemeral_now());
	wake_up(&p->wait);
}

/*
 * Wipes the held slots older than the lifetime at @now: each is queued
 * again, or freed when it reached the lifetime unused WGX_PREPARE_IDLE_MAX
 * times in a row.  Returns the nanoseconds until the oldest remaining one
 * expires, or U64_MAX.
 */
static u64 wgx_prepare_expire(u64 now)
{
	struct wgx_prepare *p = &wgx_prepare;
	struct wgx_prepare_slot *slot, *tmp;
	LIST_HEAD(idle);
	u64 left = U64_MAX;

	/* A freed slot's put may be its peer's last: wgx_prepare_sync() waits. */
	mutex_lock(&p->work_mutex);
	spin_lock_bh(&p->lock);
	while ((slot = list_first_entry_or_null(&p->held, struct wgx_prepare_slot, node))) {
		if (now < slot->born + wgx_prepare_lifetime) {
			left = slot->born + wgx_prepare_lifetime - now;
			break;
		}
		p->expired++;
		if (++slot->idle < WGX_PREPARE_IDLE_MAX) {
			wgx_prepare_requeue_held_locked(slot);
			continue;
		}
		list_move_tail(&slot->node, &idle);
		WRITE_ONCE(slot->peer->prepare, NULL);
		wgx_prepare_detach_locked(slot);
	}
	spin_unlock_bh(&p->lock);
	list_for_each_entry_safe(slot, tmp, &idle, node)
		wgx_prepare_free(slot);
	mutex_unlock(&p->work_mutex);
	return left;
}

/*
 * Makes the material of the oldest pending slot.  Returns false when there
 * was none to make (or a suspend is under way).  Runs under no lock but
 * @work_mutex, the peer's key read without one (below).
 */
static bool wgx_prepare_one(void)
{
	struct wgx_prepare *p = &wgx_prepare;
	struct wgx_noise_prepared material;
	struct wgx_prepare_slot *slot, *free = NULL;
	struct wgx_peer *peer;
	u8 key[WGX_KEY_LEN];
	bool ok = false;

	mutex_lock(&p->work_mutex);
	spin_lock_bh(&p->lock);
	slot = p->paused ? NULL :
	       list_first_entry_or_null(&p->pending, struct wgx_prepare_slot, node);
	if (!slot) {
		spin_unlock_bh(&p->lock);
		mutex_unlock(&p->work_mutex);
		return false;
	}
	list_del_init(&slot->node);
	WRITE_ONCE(p->npending, p->npending - 1);
	WRITE_ONCE(slot->state, WGX_PREPARE_WORKING);
	p->making = true;
	spin_unlock_bh(&p->lock);

	/*
	 * The slot's reference keeps the peer alive, and its device's
	 * destruction waits for @work_mutex (wgx_prepare_sync()); only this
	 * thread frees a WORKING or FORGOTTEN slot.
	 */
	peer = slot->peer;
	/*
	 * No lock: a nice-19 thread preempted while holding the peer's
	 * handshake_lock would stall a handshake worker that waits for it
	 * with identity_lock held for reading, a key change queued behind
	 * that reader, and every handshake of the device behind the key
	 * change.  A copy torn by a concurrent re-key in place is harmless:
	 * wgx_prepare_take() and the core compare the slot's key with the
	 * handshake's under handshake_lock and wipe a mismatch unused.
	 */
	if (!READ_ONCE(peer->is_dead)) {
		data_race(memcpy(key, peer->public_key, WGX_KEY_LEN));
		ok = true;
	}
	if (ok)
		ok = wgx_noise_prepare(&material, key);

	spin_lock_bh(&p->lock);
	p->making = false;
	if (slot->state != WGX_PREPARE_WORKING || !ok) {
		/* Forgotten meanwhile, dead, or a key with no usable DH. */
		if (slot->state == WGX_PREPARE_WORKING)
			WRITE_ONCE(peer->prepare, NULL);
		wgx_prepare_detach_locked(slot);
		free = slot;
	} else if (p->paused) {
		/* A suspend began meanwhile: nothing made across it is kept. */
		wgx_prepare_queue_locked(slot);
	} else {
		slot->material = material;
		slot->born = wgx_ephemeral_now();
		WRITE_ONCE(slot->state, WGX_PREPARE_HELD);
		list_add_tail(&slot->node, &p->held);
		p->made++;
	}
	spin_unlock_bh(&p->lock);
	memzero_explicit(&material, sizeof(material));
	memzero_explicit(key, sizeof(key));
	if (free)
		wgx_prepare_free(free);
	mutex_unlock(&p->work_mutex);
	return true;
}

static bool wgx_prepare_due(void)
{
	return !READ_ONCE(wgx_prepare.paused) && READ_ONCE(wgx_prepare.npending);
}

/* A wait of @ns as a schedule timeout (jiffies, rounded up). */
static long wgx_prepare_timeout(u64 ns)
{
	if (ns == U64_MAX)
		return MAX_SCHEDULE_TIMEOUT;
	return min_t(u64, nsecs_to_jiffies64(ns) + 1, MAX_SCHEDULE_TIMEOUT - 1);
}

long wgx_prepare_quiet_wait(unsigned long now, unsigned long last_take, unsigned long *since)
{
	unsigned long age = now - last_take, left, end;

	/*
	 * Unsigned, so a take of any age up to ULONG_MAX - QUIET jiffies is
	 * quiet (time_before() would wait again for half of every wrap on
	 * 32 bits); a take stamped just after @now was read is a fresh one.
	 */
	if (age >= WGX_PREPARE_QUIET && age <= ULONG_MAX - WGX_PREPARE_QUIET) {
		*since = 0;	/* quiet: the next wait is a new one */
		return 0;
	}
	left = age < WGX_PREPARE_QUIET ? WGX_PREPARE_QUIET - age : WGX_PREPARE_QUIET;
	if (!*since)
		*since = now ?: 1;
	end = *since + WGX_PREPARE_DEFER_MAX;
	if (!time_before(now, end))
		return 0;
	return min(left, end - now);
}

/* wgx_prepare_quiet_wait() for the thread, counting each new wait. */
static long wgx_prepare_defer(unsigned long *since)
{
	unsigned long was = *since;
	long left;

	left = wgx_prepare_quiet_wait(jiffies, READ_ONCE(wgx_prepare.last_take), since);
	if (!was && *since) {
		spin_lock_bh(&wgx_prepare.lock);
		wgx_prepare.deferred++;
		spin_unlock_bh(&wgx_prepare.lock);
	}
	return left;
}

/*
 * Makes pending slots one at a time, oldest request first, and remakes held
 * ones as they expire.  Nice 19, so during a storm the handshakes get the
 * CPU first, and slots taken by a burst are remade after it (above).
 * Nothing is made before the CRNG is initialised, nor during a suspend.
 * Freezable, as the pool's thread (ephemeral.c).
 */
static int wgx_prepare_thread(void *data)
{
	unsigned long since = 0, batch = 0;
	long defer;
	u64 left;

	set_freezable();
	while (!kthread_should_stop()) {
		try_to_freeze();
		if (!rng_is_initialized()) {
			schedule_timeout_interruptible(HZ);
			continue;
		}
		left = wgx_prepare_expire(wgx_ephemeral_now());
		if (!wgx_prepare_due()) {
			since = 0;	/* nothing to make: the next wait is a new one */
			batch = 0;
		} else if (!batch) {
			defer = wgx_prepare_defer(&since);
			if (defer > 0) {
				/* Takes wake p->wait, not this sleep; stop and freeze do. */
				schedule_timeout_interruptible(defer);
				continue;
			}
			if (since) {
				/*
				 * Waited WGX_PREPARE_DEFER_MAX and the takes go
				 * on: make what is pending now, then wait again.
				 */
				batch = READ_ONCE(wgx_prepare.npending);
				since = 0;
			}
		}
		if (!freezing(current) && wgx_prepare_one()) {
			if (batch)
				batch--;
			cond_resched();
			continue;
		}
		wait_event_freezable_timeout(wgx_prepare.wait,
					     kthread_should_stop() || wgx_prepare_due(),
					     wgx_prepare_timeout(left));
	}
	return 0;
}

int wgx_prepare_init(void)
{
	struct task_struct *t;

	if (!wgx_prepare_max || !wgx_ephemeral_enabled())
		return 0;
	t = kthread_create(wgx_prepare_thread, NULL, "wgx-prepare");
	if (IS_ERR(t))
		return PTR_ERR(t);
	sched_set_normal(t, MAX_NICE);
	wgx_prepare.last_take = jiffies - WGX_PREPARE_QUIET;
	wgx_prepare.thread = t;
	WRITE_ONCE(wgx_prepare.live, true);
	wake_up_process(t);
	return 0;
}

void wgx_prepare_exit(void)
{
	if (!wgx_prepare.thread)
		return;
	WRITE_ONCE(wgx_prepare.live, false);
	kthread_stop(wgx_prepare.thread);
	wgx_prepare.thread = NULL;
	/* Every peer was forgotten at its removal. */
	WARN_ON(wgx_prepare.in_use);
}
