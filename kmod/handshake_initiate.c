// SPDX-License-Identifier: GPL-2.0
/*
 * handshake_initiate.c - making and sending handshake initiations
 * (whitepaper 5.4.2) within the device's handshake budget: a lockless token
 * bucket (any context) and the per-peer initiation work, which runs on the
 * wgx-hs thread the peer's id picks (hsworker.h), defers an initiation
 * beyond the budget to a later slot, and otherwise creates the message
 * with an ephemeral made ahead (precompute.h) and sends it.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/timekeeping.h>

#include "device.h"
#include "handshake.h"
#include "peer.h"
#include "precompute.h"
#include "socket.h"
#include "timers.h"

/* ---- the handshake budget (any context, lockless) ---- */

u32 wgx_handshake_budget_rate(const struct wgx_device *wgx)
{
	u32 rate = READ_ONCE(wgx->handshake_budget);

	return rate ?: WGX_HANDSHAKE_BUDGET_PER_CPU * num_online_cpus();
}

u64 wgx_handshake_budget_take(struct wgx_device *wgx, u64 now_ns, u32 *interval_ns)
{
	u32 rate = wgx_handshake_budget_rate(wgx);
	u32 interval = NSEC_PER_SEC / rate;
	u64 burst = (u64)clamp_t(u32, rate / 10, 1, WGX_HANDSHAKE_BURST_MAX) * interval;
	s64 old = atomic64_read(&wgx->handshake_budget_tat);
	u64 tat;

	/*
	 * tat: when the bucket will be full again.  This initiation's slot ends
	 * one interval after max(tat, now); it may go now while that is at most
	 * a burst ahead of now.
	 */
	do {
		tat = max_t(u64, old, now_ns) + interval;
	} while (!atomic64_try_cmpxchg(&wgx->handshake_budget_tat, &old, tat));
	*interval_ns = interval;
	return tat - now_ns > burst ? tat - now_ns - burst : 0;
}

void wgx_handshake_budget_reset(struct wgx_device *wgx)
{
	atomic64_set(&wgx->handshake_budget_tat, 0);
}

/* ---- initiations (process context, the peer's wgx-hs thread) ---- */

void wgx_handshake_send_initiation(struct wgx_peer *peer, bool is_retry)
{
	if (unlikely(READ_ONCE(peer->is_dead)))
		return;
	if (is_retry)
		atomic_set(&peer->initiation_is_retry, 1);
	atomic64_set(&peer->initiation_asked_ns, wgx_clock_ns());
	wgx_peer_get(peer);
	/* Pending (perhaps deferred by the budget): this request joins it. */
	if (!kthread_queue_delayed_work(peer->initiation_worker, &peer->initiation_work, 0))
		wgx_peer_put(peer);
}

/*
 * Defer the initiation to @peer to its budget slot, @delay_ns from now, plus
 * jitter of up to one @interval_ns so deferred peers do not line up on
 * jiffies, and count it as paced.  Called by the running initiation work
 * with its peer reference.  A request that queued the work meanwhile is
 * moved to the slot too (else it would run at once, past the budget): then
 * the pending work holds its own reference and ours is dropped; otherwise
 * ours goes with the queued work.  False for a dying peer: nothing is
 * deferred and the caller keeps (and drops) its reference.
 */
static bool wgx_handshake_defer_initiation(struct wgx_peer *peer, bool is_retry, u64 delay_ns,
					   u32 interval_ns)
{
	if (unlikely(READ_ONCE(peer->is_dead)))
		return false;
	delay_ns += ((u64)get_random_u32() * interval_ns) >> 32;
	peer->initiation_paced = true;
	if (is_retry)
		atomic_set(&peer->initiation_is_retry, 1);
	wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKES_PACED);
	wgx_device_stats_inc(peer->wgx, WGX_DEVICE_STAT_HANDSHAKES_PACED);
	/* True: it was pending (or is being cancelled), with its own reference. */
	if (kthread_mod_delayed_work(peer->initiation_worker, &peer->initiation_work,
				     nsecs_to_jiffies(delay_ns) + 1))
		wgx_peer_put(peer);
	return true;
}

void wgx_handshake_initiation_worker(struct kthread_work *work)
{
	struct wgx_peer *peer = container_of(work, struct wgx_peer, initiation_work.work);
	struct wgx_device *wgx = peer->wgx;
	bool is_retry = atomic_xchg(&peer->initiation_is_retry, 0);
	bool has_slot = peer->initiation_paced;
	u8 msg[WGX_MSG_INITIATION_LEN];
	struct wgx_noise_prepared prepared;
	struct wgx_noise_handshake *hs;
	bool have_prepared;
	bool has_identity, prev = false;
	struct timespec64 wall;
	u32 interval_ns;
	u64 delay_ns;
	__le32 index;
	int ret;

	peer->initiation_paced = false;
	if (unlikely(READ_ONCE(peer->is_dead)))
		goto out;
	/*
	 * A deferred initiation whose slot comes after the device went down:
	 * the down cleared the peer's handshake and timers, leave them so.
	 */
	if (has_slot && !netif_running(wgx->dev))
		goto out;
	/* No handshake state while the device takes no handshake messages. */
	if (READ_ONCE(wgx->handshake_closed))
		goto out;
	/*
	 * Without a private key nothing can be sent: do not spend the
	 * REKEY_TIMEOUT allowance on it, or the first initiation after the key
	 * arrives would wait for it.
	 */
	down_read(&wgx->identity_lock);
	has_identity = wgx_noise_identity_get_keys(wgx->identity, NULL, NULL);
	up_read(&wgx->identity_lock);
	if (!has_identity)
		goto out;
	switch (wgx_timers_initiation_begin(peer, is_retry, has_slot,
					    atomic64_read(&peer->initiation_asked_ns), &delay_ns,
					    &interval_ns)) {
	case WGX_INITIATION_SEND:
		break;
	case WGX_INITIATION_NOT_DUE:
		goto out;
	case WGX_INITIATION_SUPERSEDED:
		/*
		 * The peer initiated (or a response to an earlier initiation
		 * came) while this one waited: the session it was for exists.
		 * Counted when deferred (handshakes_paced), not sent.
		 */
		net_dbg_ratelimited("%s: peer %llu: deferred initiation dropped, session derived meanwhile\n",
				    wgx->dev->name, peer->internal_id);
		goto out;
	case WGX_INITIATION_PACED:
		if (wgx_handshake_defer_initiation(peer, is_retry, delay_ns, interval_ns))
			return;	/* our reference: handed on or dropped */
		goto out;
	}

	ktime_get_real_ts64(&wall);
	down_read(&wgx->identity_lock);
	mutex_lock(&peer->handshake_lock);
	/*
	 * As in wgx_handshake_consume_initiation(): no new index for a dead
	 * peer, and no handshake state while the device takes no handshake
	 * messages (down, or a suspend's wipe: that wipe takes this lock
	 * after closing, so an initiation either ran before it and is wiped,
	 * or sees the close here).
	 */
	if (unlikely(READ_ONCE(peer->is_dead) || READ_ONCE(wgx->handshake_closed))) {
		ret = -ESHUTDOWN;
	} else {
		/*
		 * Grace period: initiate with the key the peer was last heard
		 * under; a retransmission (no answer within REKEY_TIMEOUT)
		 * tries the other one, so a peer that does not know our new
		 * key yet, or no longer knows the old one, is found either way.
		 */
		if (peer->prev_handshake) {
			if (is_retry)
				peer->init_prev = !peer->init_prev;
			prev = peer->init_prev;
		}
		hs = wgx_handshake_handle(peer, prev);
		/* One handshake in progress per peer: the other handle's goes. */
		wgx_noise_handshake_clear(wgx_handshake_handle(peer, !prev));
		index = wgx_index_hashtable_insert(wgx->index_hashtable, &peer->handshake_entry);
		have_prepared = wgx_precompute_take(peer, hs, &prepared);
		ret = wgx_noise_create_initiation_prepared(hs, msg, le32_to_cpu(index),
							   wgx_clock_ns(), wall.tv_sec,
							   wall.tv_nsec,
							   have_prepared ? &prepared : NULL);
		if (ret)
			wgx_index_hashtable_remove(wgx->index_hashtable, &peer->handshake_entry);
	}
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);
	/* Nothing went out: the next initiation need not wait for this one. */
	if (ret == -ESHUTDOWN)
		wgx_timers_initiation_forget(peer);
	if (ret) {
		net_dbg_ratelimited("%s: peer %llu: cannot create initiation: %d\n",
				    wgx->dev->name, peer->internal_id, ret);
		goto out;
	}

	wgx_timers_any_authenticated_packet_traversal(peer);
	wgx_timers_any_authenticated_packet_sent(peer);
	wgx_telemetry_initiation_sent(&peer->telemetry, le32_to_cpu(index));
	if (!wgx_socket_send_buffer_to_peer(peer, msg, sizeof(msg), WGX_HANDSHAKE_DSFIELD))
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_TX);
	wgx_timers_handshake_initiated(peer);
out:
	memzero_explicit(msg, sizeof(msg));
	wgx_peer_put(peer);
}
