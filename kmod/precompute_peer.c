// SPDX-License-Identifier: GPL-2.0
/*
 * precompute_peer.c - the per-peer slots of the precompute unit: for each
 * peer that handshakes, its next message's ephemeral and DH with its key,
 * made by the unit's thread (precompute.c) under the unit's lock
 * (precompute.h says what and why).
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <crypto/algapi.h>

#include "device.h"
#include "peer.h"
#include "precompute.h"

/* Caller holds the lock; @slot is on no list. */
static void wgx_precompute_queue_locked(struct wgx_precompute *pc, struct wgx_precompute_slot *slot)
{
	WRITE_ONCE(slot->state, WGX_PRECOMPUTE_PENDING);
	list_add_tail(&slot->node, &pc->slots.pending);
	WRITE_ONCE(pc->slots.npending, pc->slots.npending + 1);
}

/* Caller holds the lock; @slot is HELD: wipe it and queue it again. */
static void wgx_precompute_requeue_held_locked(struct wgx_precompute *pc,
					       struct wgx_precompute_slot *slot)
{
	list_del_init(&slot->node);
	memzero_explicit(&slot->material, sizeof(slot->material));
	wgx_precompute_queue_locked(pc, slot);
}

/*
 * Caller holds the lock; @slot is on no list and its peer no longer points
 * to it: it stops counting.  The caller frees it with wgx_precompute_free()
 * after dropping the lock.
 */
static void wgx_precompute_detach_locked(struct wgx_precompute *pc)
{
	pc->slots.in_use--;
	pc->slots.freed++;
}

/* Wipe and free a detached slot and drop its peer reference (perhaps the last). */
static void wgx_precompute_free(struct wgx_precompute_slot *slot)
{
	struct wgx_peer *peer = slot->peer;

	kfree_sensitive(slot);
	wgx_peer_put(peer);
}

/*
 * Allocate a slot for @peer and queue it to be made, unless it has one, the
 * unit's slots are all in use (counted "full"), the allocation fails
 * (counted "nomem") or the peer is dead.  Process context (GFP_KERNEL).
 */
static void wgx_precompute_request(struct wgx_precompute *pc, struct wgx_peer *peer)
{
	struct wgx_precompute_slot *slot;
	bool wake = false;

	might_sleep();
	if (READ_ONCE(peer->precompute) || READ_ONCE(peer->is_dead))
		return;
	if (READ_ONCE(pc->slots.in_use) >= pc->slots.max) {
		spin_lock_bh(&pc->lock);
		pc->slots.full++;
		spin_unlock_bh(&pc->lock);
		return;
	}
	slot = kzalloc(sizeof(*slot), GFP_KERNEL | __GFP_NOWARN);
	spin_lock_bh(&pc->lock);
	if (!slot) {
		pc->slots.nomem++;
	} else if (!peer->precompute && !READ_ONCE(peer->is_dead)) {
		if (pc->slots.in_use < pc->slots.max) {
			slot->peer = wgx_peer_get(peer);	/* the slot's */
			INIT_LIST_HEAD(&slot->node);
			pc->slots.in_use++;
			pc->slots.allocated++;
			WRITE_ONCE(peer->precompute, slot);
			wgx_precompute_queue_locked(pc, slot);
			slot = NULL;
			wake = !pc->paused;
		} else {
			pc->slots.full++;
		}
	}
	spin_unlock_bh(&pc->lock);
	kfree(slot);	/* not used: never held material */
	if (wake)
		wake_up(&pc->wait);
}

void wgx_precompute_refresh(struct wgx_peer *peer)
{
	struct wgx_precompute *pc = &wgx_precompute_module;
	struct wgx_precompute_slot *slot;
	bool wake = false;

	if (!READ_ONCE(pc->live))
		return;
	spin_lock_bh(&pc->lock);
	slot = peer->precompute;
	if (slot && slot->state == WGX_PRECOMPUTE_HELD) {
		wgx_precompute_requeue_held_locked(pc, slot);
		pc->slots.stale++;
		wake = !pc->paused;
	}
	spin_unlock_bh(&pc->lock);
	if (wake)
		wake_up(&pc->wait);
}

/* The slot half of wgx_precompute_take(): @peer's held material, or false. */
static bool wgx_precompute_slot_take(struct wgx_precompute *pc, struct wgx_peer *peer,
				     const struct wgx_noise_handshake *hs,
				     struct wgx_noise_prepared *out)
{
	struct wgx_precompute_slot *slot;
	u8 key[WGX_KEY_LEN];
	bool got = false, wake = false, none;
	u64 now;

	/* No slot yet (or it was freed unused): this message pays for the next. */
	if (!READ_ONCE(peer->precompute)) {
		wgx_precompute_request(pc, peer);
		return false;
	}
	wgx_noise_handshake_get_remote_static(hs, key);
	now = wgx_precompute_now();
	spin_lock_bh(&pc->lock);
	slot = peer->precompute;
	none = !slot;
	if (slot && slot->state == WGX_PRECOMPUTE_HELD) {
		if (now >= slot->born + pc->lifetime) {
			pc->slots.expired++;
		} else if (crypto_memneq(slot->material.remote_static, key, WGX_KEY_LEN)) {
			pc->slots.stale++;
		} else {
			*out = slot->material;
			pc->slots.used++;
			got = true;
		}
		slot->idle = 0;
		wgx_precompute_requeue_held_locked(pc, slot);
		WRITE_ONCE(pc->slots.last_take, jiffies);
		wake = !pc->paused;
	} else if (slot) {
		/* Pending or being made: the peer is handshaking, keep it. */
		slot->idle = 0;
	}
	spin_unlock_bh(&pc->lock);
	memzero_explicit(key, sizeof(key));
	if (wake)
		wake_up(&pc->wait);
	if (none)
		wgx_precompute_request(pc, peer);	/* freed since the first look */
	return got;
}

bool wgx_precompute_take(struct wgx_peer *peer, const struct wgx_noise_handshake *hs,
			 struct wgx_noise_prepared *out)
{
	struct wgx_precompute *pc = &wgx_precompute_module;

	lockdep_assert_held(&peer->handshake_lock);
	if (!READ_ONCE(pc->live))
		return false;
	if (wgx_precompute_slot_take(pc, peer, hs, out))
		return true;
	/* A pair alone: the message computes its DH with the peer's key itself. */
	memset(out, 0, sizeof(*out));
	out->valid = wgx_precompute_pool_take(pc, out->ephemeral_private, out->ephemeral_public,
					      wgx_precompute_now());
	return out->valid;
}

void wgx_precompute_forget(struct wgx_peer *peer)
{
	struct wgx_precompute *pc = &wgx_precompute_module;
	struct wgx_precompute_slot *slot, *free = NULL;

	spin_lock_bh(&pc->lock);
	slot = peer->precompute;
	if (!slot) {
		spin_unlock_bh(&pc->lock);
		return;
	}
	WRITE_ONCE(peer->precompute, NULL);
	switch (slot->state) {
	case WGX_PRECOMPUTE_PENDING:
		WRITE_ONCE(pc->slots.npending, pc->slots.npending - 1);
		fallthrough;
	case WGX_PRECOMPUTE_HELD:
		list_del_init(&slot->node);
		wgx_precompute_detach_locked(pc);
		free = slot;
		break;
	case WGX_PRECOMPUTE_WORKING:
		/*
		 * The thread sees FORGOTTEN when it is done, frees the slot and
		 * drops the reference, perhaps the last: wgx_precompute_sync()
		 * at the device's destruction waits for that.  No wait here,
		 * where the caller may hold rtnl, for a nice-19 thread.
		 */
		WRITE_ONCE(slot->state, WGX_PRECOMPUTE_FORGOTTEN);
		break;
	}
	spin_unlock_bh(&pc->lock);
	if (free)
		wgx_precompute_free(free);
}

void wgx_precompute_sync(void)
{
	might_sleep();
	/* The thread holds this while it has a peer (_make_one(), _expire()). */
	mutex_lock(&wgx_precompute_module.work_mutex);
	mutex_unlock(&wgx_precompute_module.work_mutex);
}

void wgx_precompute_slots_wipe_locked(struct wgx_precompute *pc)
{
	struct wgx_precompute_slot *slot, *tmp;

	lockdep_assert_held(&pc->lock);
	list_for_each_entry_safe(slot, tmp, &pc->slots.held, node) {
		wgx_precompute_requeue_held_locked(pc, slot);
		pc->slots.wiped++;
	}
}

/*
 * Wipes the held slots older than the lifetime at @now: each is queued
 * again, or freed when it reached the lifetime unused
 * WGX_PRECOMPUTE_IDLE_MAX times in a row.
 */
u64 wgx_precompute_slots_expire(struct wgx_precompute *pc, u64 now)
{
	struct wgx_precompute_slot *slot, *tmp;
	LIST_HEAD(idle);
	u64 left = U64_MAX;

	/* A freed slot's put may be its peer's last: wgx_precompute_sync() waits. */
	mutex_lock(&pc->work_mutex);
	spin_lock_bh(&pc->lock);
	while ((slot = list_first_entry_or_null(&pc->slots.held, struct wgx_precompute_slot, node))) {
		if (now < slot->born + pc->lifetime) {
			left = slot->born + pc->lifetime - now;
			break;
		}
		pc->slots.expired++;
		if (++slot->idle < WGX_PRECOMPUTE_IDLE_MAX) {
			wgx_precompute_requeue_held_locked(pc, slot);
			continue;
		}
		list_move_tail(&slot->node, &idle);
		WRITE_ONCE(slot->peer->precompute, NULL);
		wgx_precompute_detach_locked(pc);
	}
	spin_unlock_bh(&pc->lock);
	list_for_each_entry_safe(slot, tmp, &idle, node)
		wgx_precompute_free(slot);
	mutex_unlock(&pc->work_mutex);
	return left;
}

/*
 * Makes the material of the oldest pending slot.  Runs under no lock but
 * @work_mutex, the peer's key read without one (below).
 */
bool wgx_precompute_slots_make_one(struct wgx_precompute *pc)
{
	struct wgx_noise_prepared material;
	struct wgx_precompute_slot *slot, *free = NULL;
	struct wgx_peer *peer;
	u8 key[WGX_KEY_LEN];
	bool ok = false;

	mutex_lock(&pc->work_mutex);
	spin_lock_bh(&pc->lock);
	slot = pc->paused ? NULL :
	       list_first_entry_or_null(&pc->slots.pending, struct wgx_precompute_slot, node);
	if (!slot) {
		spin_unlock_bh(&pc->lock);
		mutex_unlock(&pc->work_mutex);
		return false;
	}
	list_del_init(&slot->node);
	WRITE_ONCE(pc->slots.npending, pc->slots.npending - 1);
	WRITE_ONCE(slot->state, WGX_PRECOMPUTE_WORKING);
	pc->slots.making = true;
	spin_unlock_bh(&pc->lock);

	/*
	 * The slot's reference keeps the peer alive, and its device's
	 * destruction waits for @work_mutex (wgx_precompute_sync()); only this
	 * thread frees a WORKING or FORGOTTEN slot.
	 */
	peer = slot->peer;
	/*
	 * No lock: a nice-19 thread preempted while holding the peer's
	 * handshake_lock would stall a handshake worker that waits for it
	 * with identity_lock held for reading, a key change queued behind
	 * that reader, and every handshake of the device behind the key
	 * change.  A copy torn by a concurrent re-key in place is harmless:
	 * the take and the core compare the slot's key with the handshake's
	 * under handshake_lock and wipe a mismatch unused.
	 */
	if (!READ_ONCE(peer->is_dead)) {
		data_race(memcpy(key, peer->public_key, WGX_KEY_LEN));
		ok = true;
	}
	if (ok)
		ok = wgx_noise_prepare(&material, key);

	spin_lock_bh(&pc->lock);
	pc->slots.making = false;
	if (slot->state != WGX_PRECOMPUTE_WORKING || !ok) {
		/* Forgotten meanwhile, dead, or a key with no usable DH. */
		if (slot->state == WGX_PRECOMPUTE_WORKING)
			WRITE_ONCE(peer->precompute, NULL);
		wgx_precompute_detach_locked(pc);
		free = slot;
	} else if (pc->paused) {
		/* A suspend began meanwhile: nothing made across it is kept. */
		wgx_precompute_queue_locked(pc, slot);
	} else {
		slot->material = material;
		slot->born = wgx_precompute_now();
		WRITE_ONCE(slot->state, WGX_PRECOMPUTE_HELD);
		list_add_tail(&slot->node, &pc->slots.held);
		pc->slots.made++;
	}
	spin_unlock_bh(&pc->lock);
	memzero_explicit(&material, sizeof(material));
	memzero_explicit(key, sizeof(key));
	if (free)
		wgx_precompute_free(free);
	mutex_unlock(&pc->work_mutex);
	return true;
}

bool wgx_precompute_slots_due(struct wgx_precompute *pc)
{
	return !READ_ONCE(pc->paused) && READ_ONCE(pc->slots.npending);
}

long wgx_precompute_quiet_wait(unsigned long now, unsigned long last_take, unsigned long *since)
{
	unsigned long age = now - last_take, left, end;

	/*
	 * Unsigned, so a take of any age up to ULONG_MAX - QUIET jiffies is
	 * quiet (time_before() would wait again for half of every wrap on
	 * 32 bits); a take stamped just after @now was read is a fresh one.
	 */
	if (age >= WGX_PRECOMPUTE_QUIET && age <= ULONG_MAX - WGX_PRECOMPUTE_QUIET) {
		*since = 0;	/* quiet: the next wait is a new one */
		return 0;
	}
	left = age < WGX_PRECOMPUTE_QUIET ? WGX_PRECOMPUTE_QUIET - age : WGX_PRECOMPUTE_QUIET;
	if (!*since)
		*since = now ?: 1;
	end = *since + WGX_PRECOMPUTE_DEFER_MAX;
	if (!time_before(now, end))
		return 0;
	return min(left, end - now);
}
