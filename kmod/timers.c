// SPDX-License-Identifier: GPL-2.0
/*
 * timers.c - per-peer kernel timers over the core's timer state machine.
 *
 * The core keeps the deadlines (struct wgx_timers, ns of boot time); this file
 * owns five struct timer_list per peer and keeps each one armed exactly when
 * the core says its deadline is set.  Timer callbacks run in softirq context:
 * they ask the core which actions are due and perform them after dropping
 * timers_lock (sending may take other locks and queue work).
 */
#include <linux/ktime.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/timekeeping.h>
#include <linux/netdevice.h>

#include <wgx/core.h>

#include "device.h"
#include "endpoint.h"
#include "handshake.h"
#include "peer.h"
#include "send.h"
#include "socket.h"
#include "timers.h"

static u64 wgx_jitter(void)
{
	return get_random_u32();
}

/* Mirror the core's deadlines of the timers in @changed onto kernel timers.  timers_lock held. */
static void wgx_timers_apply(struct wgx_peer *peer, u32 changed, u64 now)
{
	bool live = !READ_ONCE(peer->is_dead) && netif_running(peer->wgx->dev);
	unsigned int id;

	lockdep_assert_held(&peer->timers_lock);
	for (id = 0; id < WGX_TIMER_COUNT; ++id) {
		u64 deadline = peer->timer_state.deadline[id];

		if (!(changed & (1U << id)))
			continue;
		if (deadline && live) {
			u64 delta = deadline > now ? deadline - now : 0;

			/* Round up so a timer never fires before its deadline. */
			mod_timer(&peer->timers[id], jiffies + nsecs_to_jiffies(delta) + 1);
		} else {
			del_timer(&peer->timers[id]);
		}
	}
}

#define WGX_TIMERS_EVENT(name, ...)						\
	do {									\
		u64 now = wgx_clock_ns();				\
		u32 changed;							\
										\
		spin_lock_bh(&peer->timers_lock);				\
		changed = name(&peer->timer_state, ##__VA_ARGS__);		\
		wgx_timers_apply(peer, changed, now);				\
		spin_unlock_bh(&peer->timers_lock);				\
	} while (0)

void wgx_timers_data_sent(struct wgx_peer *peer)
{
	WGX_TIMERS_EVENT(wgx_timers_core_data_sent, now, wgx_jitter());
}

void wgx_timers_data_received(struct wgx_peer *peer)
{
	WGX_TIMERS_EVENT(wgx_timers_core_data_received, now);
}

void wgx_timers_any_authenticated_packet_sent(struct wgx_peer *peer)
{
	WGX_TIMERS_EVENT(wgx_timers_core_any_authenticated_packet_sent);
}

void wgx_timers_any_authenticated_packet_received(struct wgx_peer *peer)
{
	WGX_TIMERS_EVENT(wgx_timers_core_any_authenticated_packet_received);
}

void wgx_timers_any_authenticated_packet_traversal(struct wgx_peer *peer)
{
	WGX_TIMERS_EVENT(wgx_timers_core_any_authenticated_packet_traversal, now);
}

void wgx_timers_handshake_initiated(struct wgx_peer *peer)
{
	WGX_TIMERS_EVENT(wgx_timers_core_handshake_initiated, now, wgx_jitter());
}

void wgx_timers_handshake_complete(struct wgx_peer *peer)
{
	struct timespec64 walltime;

	ktime_get_real_ts64(&walltime);
	WGX_TIMERS_EVENT(wgx_timers_core_handshake_complete, now);
	wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKES_COMPLETED);
	/* Under timers_lock so that a netlink dump never reads a torn timespec. */
	spin_lock_bh(&peer->timers_lock);
	peer->walltime_last_handshake = walltime;
	spin_unlock_bh(&peer->timers_lock);
}

void wgx_timers_session_derived(struct wgx_peer *peer)
{
	WGX_TIMERS_EVENT(wgx_timers_core_session_derived, now);
}

void wgx_timers_set_persistent_keepalive(struct wgx_peer *peer, u16 interval)
{
	WGX_TIMERS_EVENT(wgx_timers_core_set_persistent_keepalive, interval);
}

enum wgx_initiation_verdict wgx_timers_initiation_begin(struct wgx_peer *peer, bool is_retry,
							 bool has_slot, u64 asked_ns,
							 u64 *delay_ns, u32 *interval_ns)
{
	enum wgx_initiation_verdict verdict = WGX_INITIATION_NOT_DUE;
	u64 now = wgx_clock_ns();

	*delay_ns = 0;
	spin_lock_bh(&peer->timers_lock);
	if (has_slot && wgx_timers_core_initiation_superseded(&peer->timer_state, asked_ns)) {
		verdict = WGX_INITIATION_SUPERSEDED;
		goto out;
	}
	/* Only an initiation that would really go takes from the budget. */
	if (!has_slot && wgx_timers_core_initiation_due(&peer->timer_state, now)) {
		*delay_ns = wgx_handshake_budget_take(peer->wgx, now, interval_ns);
		if (*delay_ns)
			verdict = WGX_INITIATION_PACED;
	}
	if (verdict != WGX_INITIATION_PACED &&
	    wgx_timers_core_initiation_begin(&peer->timer_state, is_retry, now))
		verdict = WGX_INITIATION_SEND;
out:
	spin_unlock_bh(&peer->timers_lock);
	return verdict;
}

void wgx_timers_initiation_forget(struct wgx_peer *peer)
{
	spin_lock_bh(&peer->timers_lock);
	wgx_timers_core_initiation_forget(&peer->timer_state);
	spin_unlock_bh(&peer->timers_lock);
}

bool wgx_timers_cookie_retry(struct wgx_peer *peer)
{
	bool retry;

	spin_lock_bh(&peer->timers_lock);
	retry = wgx_timers_core_cookie_retry(&peer->timer_state);
	spin_unlock_bh(&peer->timers_lock);
	return retry;
}

static void wgx_timers_perform(struct wgx_peer *peer, u32 actions)
{
	if (actions & WGX_TIMER_ACT_GIVE_UP) {
		net_dbg_ratelimited("%s: peer %llu: handshake did not complete, giving up\n",
				    peer->wgx->dev->name, peer->internal_id);
		wgx_peer_purge_staged(peer);
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_TIMEOUTS);
	}
	if (actions & WGX_TIMER_ACT_RETRY_INITIATION) {
		wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_TIMEOUTS);
		wgx_endpoint_clear_src(peer);
		wgx_handshake_send_initiation(peer, true);
	}
	if (actions & WGX_TIMER_ACT_NEW_HANDSHAKE) {
		wgx_endpoint_clear_src(peer);
		wgx_handshake_send_initiation(peer, false);
	}
	if (actions & WGX_TIMER_ACT_SEND_KEEPALIVE)
		wgx_send_keepalive(peer);
	if (actions & WGX_TIMER_ACT_ZERO_KEYS)
		wgx_peer_schedule_zero_keys(peer);
}

static void wgx_timers_expired(struct wgx_peer *peer, enum wgx_timer_id id)
{
	u64 now = wgx_clock_ns();
	u32 changed = 0, actions;

	spin_lock_bh(&peer->timers_lock);
	actions = wgx_timers_core_expire(&peer->timer_state, id, now, &changed);
	wgx_timers_apply(peer, changed, now);
	spin_unlock_bh(&peer->timers_lock);
	if (actions && !READ_ONCE(peer->is_dead))
		wgx_timers_perform(peer, actions);
}

/* One callback per timer, so each knows its slot in peer->timers. */
#define WGX_DEFINE_TIMER_CALLBACK(name, id)					\
	static void name(struct timer_list *timer)				\
	{									\
		wgx_timers_expired(container_of(timer, struct wgx_peer, timers[id]), id); \
	}

WGX_DEFINE_TIMER_CALLBACK(wgx_expired_retransmit_handshake, WGX_TIMER_RETRANSMIT_HANDSHAKE)
WGX_DEFINE_TIMER_CALLBACK(wgx_expired_send_keepalive, WGX_TIMER_SEND_KEEPALIVE)
WGX_DEFINE_TIMER_CALLBACK(wgx_expired_new_handshake, WGX_TIMER_NEW_HANDSHAKE)
WGX_DEFINE_TIMER_CALLBACK(wgx_expired_zero_key_material, WGX_TIMER_ZERO_KEY_MATERIAL)
WGX_DEFINE_TIMER_CALLBACK(wgx_expired_persistent_keepalive, WGX_TIMER_PERSISTENT_KEEPALIVE)

static void (*const wgx_timer_callbacks[WGX_TIMER_COUNT])(struct timer_list *) = {
	[WGX_TIMER_RETRANSMIT_HANDSHAKE] = wgx_expired_retransmit_handshake,
	[WGX_TIMER_SEND_KEEPALIVE] = wgx_expired_send_keepalive,
	[WGX_TIMER_NEW_HANDSHAKE] = wgx_expired_new_handshake,
	[WGX_TIMER_ZERO_KEY_MATERIAL] = wgx_expired_zero_key_material,
	[WGX_TIMER_PERSISTENT_KEEPALIVE] = wgx_expired_persistent_keepalive,
};

void wgx_timers_peer_init(struct wgx_peer *peer)
{
	struct wgx_timer_params params;
	unsigned int id;

	spin_lock_init(&peer->timers_lock);
	wgx_timer_params_init(&params, wgx_timer_scale);
	wgx_timers_core_init(&peer->timer_state, &params);
	for (id = 0; id < WGX_TIMER_COUNT; ++id)
		timer_setup(&peer->timers[id], wgx_timer_callbacks[id], 0);
}

void wgx_timers_peer_stop(struct wgx_peer *peer)
{
	unsigned int id;

	spin_lock_bh(&peer->timers_lock);
	wgx_timers_core_stop(&peer->timer_state);
	spin_unlock_bh(&peer->timers_lock);
	for (id = 0; id < WGX_TIMER_COUNT; ++id)
		del_timer_sync(&peer->timers[id]);
}
