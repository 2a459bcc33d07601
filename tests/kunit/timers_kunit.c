// SPDX-License-Identifier: GPL-2.0
/*
 * timers_kunit.c - KUnit suite "wgx_timers": the timer glue (kmod/timers.c)
 * over the core's timer state machine (kmod/core/timers.cpp, whitepaper 6),
 * driven through its public functions on a stand-alone peer (a real
 * net_device that is never registered, marked running by hand).  Each event
 * must leave exactly the kernel timers armed that the core has deadlines
 * for, at the right jiffies; nothing may be armed for a stopped device or a
 * dead peer; and a kernel timer that fires reaches the core's expiry logic.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include <wgx/core.h>

#include "device.h"
#include "handshake.h"
#include "peer.h"
#include "timers.h"

#include "kunit_util.h"

struct wgx_timers_fixture {
	struct wgx_device wgx;
	struct wgx_peer peer;
	bool stopped;
};

static int wgx_timers_test_init(struct kunit *test)
{
	struct wgx_timers_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	f->wgx.dev = alloc_netdev(0, "wgxkunit%d", NET_NAME_UNKNOWN, ether_setup);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->wgx.dev);
	/* netif_running() without registering: the glue only reads this bit. */
	set_bit(__LINK_STATE_START, &f->wgx.dev->state);
	f->peer.wgx = &f->wgx;
	f->peer.internal_id = 1;
	f->peer.stats = alloc_percpu(struct wgx_peer_stats);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->peer.stats);
	wgx_timers_peer_init(&f->peer);
	test->priv = f;
	return 0;
}

static void wgx_timers_test_exit(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;

	if (!f)
		return;
	/* Always disarm before the memory goes (DEBUG_OBJECTS_TIMERS checks). */
	wgx_timers_peer_stop(&f->peer);
	free_percpu(f->peer.stats);
	kfree(f->peer.stats_rare);
	clear_bit(__LINK_STATE_START, &f->wgx.dev->state);
	free_netdev(f->wgx.dev);
}

static u64 wgx_timers_deadline(struct wgx_peer *peer, enum wgx_timer_id id)
{
	u64 d;

	spin_lock_bh(&peer->timers_lock);
	d = peer->timer_state.deadline[id];
	spin_unlock_bh(&peer->timers_lock);
	return d;
}

/*
 * Timer @id must be armed (kernel timer pending, core deadline set) to fire
 * between @min_ms and @max_ms after an event that happened between jiffies
 * @j0 and @j1.
 */
static void wgx_timers_expect_armed(struct kunit *test, struct wgx_peer *peer, enum wgx_timer_id id,
				    unsigned int min_ms, unsigned int max_ms, unsigned long j0,
				    unsigned long j1)
{
	unsigned long expires = READ_ONCE(peer->timers[id].expires);

	KUNIT_EXPECT_TRUE_MSG(test, timer_pending(&peer->timers[id]), "timer %d not pending", id);
	KUNIT_EXPECT_NE_MSG(test, wgx_timers_deadline(peer, id), 0ULL, "timer %d: no core deadline", id);
	KUNIT_EXPECT_TRUE_MSG(test, time_after_eq(expires, j0 + msecs_to_jiffies(min_ms)),
			      "timer %d fires %ld jiffies after the event, expected >= %u ms", id,
			      (long)(expires - j0), min_ms);
	KUNIT_EXPECT_TRUE_MSG(test, time_before_eq(expires, j1 + msecs_to_jiffies(max_ms) + 2),
			      "timer %d fires %ld jiffies after the event, expected <= %u ms", id,
			      (long)(expires - j1), max_ms);
}

static void wgx_timers_expect_disarmed(struct kunit *test, struct wgx_peer *peer, enum wgx_timer_id id)
{
	KUNIT_EXPECT_FALSE_MSG(test, timer_pending(&peer->timers[id]), "timer %d still pending", id);
}

#define EVENT(call) ({ unsigned long __j0 = jiffies; call; j0 = __j0; j1 = jiffies; })

static void wgx_timers_data_sent_arms_new_handshake(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_peer *peer = &f->peer;
	unsigned long j0, j1, first;
	unsigned int id;

	for (id = 0; id < WGX_TIMER_COUNT; id++)
		wgx_timers_expect_disarmed(test, peer, id);
	/* KEEPALIVE_TIMEOUT + REKEY_TIMEOUT + jitter in [0, 1/3 s). */
	EVENT(wgx_timers_data_sent(peer));
	wgx_timers_expect_armed(test, peer, WGX_TIMER_NEW_HANDSHAKE, 15000, 15334, j0, j1);
	first = peer->timers[WGX_TIMER_NEW_HANDSHAKE].expires;
	/* Already armed: more data does not push it back. */
	wgx_timers_data_sent(peer);
	KUNIT_EXPECT_EQ(test, peer->timers[WGX_TIMER_NEW_HANDSHAKE].expires, first);
	/* Any authenticated packet from the peer disarms it. */
	wgx_timers_any_authenticated_packet_received(peer);
	wgx_timers_expect_disarmed(test, peer, WGX_TIMER_NEW_HANDSHAKE);
	KUNIT_EXPECT_EQ(test, wgx_timers_deadline(peer, WGX_TIMER_NEW_HANDSHAKE), 0ULL);
	for (id = 0; id < WGX_TIMER_COUNT; id++)
		if (id != WGX_TIMER_NEW_HANDSHAKE)
			wgx_timers_expect_disarmed(test, peer, id);
}

static void wgx_timers_data_received_arms_keepalive(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_peer *peer = &f->peer;
	unsigned long j0, j1;

	EVENT(wgx_timers_data_received(peer));
	wgx_timers_expect_armed(test, peer, WGX_TIMER_SEND_KEEPALIVE, 10000, 10000, j0, j1);
	/* Sending anything authenticated makes the keepalive unnecessary. */
	wgx_timers_any_authenticated_packet_sent(peer);
	wgx_timers_expect_disarmed(test, peer, WGX_TIMER_SEND_KEEPALIVE);
	wgx_timers_expect_disarmed(test, peer, WGX_TIMER_NEW_HANDSHAKE);
}

/* wgx_timers_initiation_begin() as the initiation worker calls it. */
static enum wgx_initiation_verdict wgx_timers_begin(struct wgx_peer *peer, bool is_retry,
						    bool has_slot)
{
	u32 interval_ns;
	u64 delay_ns;

	/* Asked for just now: no session can have been derived since. */
	return wgx_timers_initiation_begin(peer, is_retry, has_slot, wgx_clock_ns(),
					   &delay_ns, &interval_ns);
}

static void wgx_timers_handshake_retransmit_and_complete(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_peer *peer = &f->peer;
	unsigned long j0, j1;
	u64 before = wgx_peer_stats_read(peer, WGX_PEER_STAT_HANDSHAKES_COMPLETED);

	KUNIT_EXPECT_EQ(test, wgx_timers_begin(peer, false, false), WGX_INITIATION_SEND);
	/* A second initiation within REKEY_TIMEOUT is refused, retry or not. */
	KUNIT_EXPECT_EQ(test, wgx_timers_begin(peer, false, false), WGX_INITIATION_NOT_DUE);
	KUNIT_EXPECT_EQ(test, wgx_timers_begin(peer, true, false), WGX_INITIATION_NOT_DUE);
	EVENT(wgx_timers_handshake_initiated(peer));
	wgx_timers_expect_armed(test, peer, WGX_TIMER_RETRANSMIT_HANDSHAKE, 5000, 5334, j0, j1);

	wgx_timers_handshake_complete(peer);
	wgx_timers_expect_disarmed(test, peer, WGX_TIMER_RETRANSMIT_HANDSHAKE);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_HANDSHAKES_COMPLETED), before + 1);
	KUNIT_EXPECT_NE(test, (long long)peer->walltime_last_handshake.tv_sec, 0LL);

	EVENT(wgx_timers_session_derived(peer));
	/* Keys are zeroed after 3 x REJECT_AFTER_TIME = 540 s. */
	wgx_timers_expect_armed(test, peer, WGX_TIMER_ZERO_KEY_MATERIAL, 540000, 540000, j0, j1);
}

/*
 * The device's handshake budget (handshake_initiate.c): a burst, then one slot per
 * interval; an initiation beyond it is paced without touching the peer's
 * timer state, and goes with its slot without asking again.
 */
static void wgx_timers_handshake_budget(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_device *wgx = &f->wgx;
	struct wgx_peer *peer = &f->peer;
	u64 now = wgx_clock_ns(), delay_ns;
	u32 interval_ns = 0;
	unsigned int id;
	s64 tat;

	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_rate(wgx), 1000U * num_online_cpus());
	/* 20 per second: a burst of 2, then a slot every 50 ms. */
	wgx->handshake_budget = 20;
	wgx_handshake_budget_reset(wgx);
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, now, &interval_ns), 0ULL);
	KUNIT_EXPECT_EQ(test, interval_ns, 50000000U);
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, now, &interval_ns), 0ULL);
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, now, &interval_ns), 50000000ULL);
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, now, &interval_ns), 100000000ULL);
	/* 200 ms on, the four slots are past: a burst of 2 again, then 50 ms. */
	now += 200000000ULL;
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, now, &interval_ns), 0ULL);
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, now, &interval_ns), 0ULL);
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, now, &interval_ns), 50000000ULL);

	/* The bucket is empty for the next 350 ms: a due initiation is paced. */
	KUNIT_EXPECT_EQ(test, wgx_timers_initiation_begin(peer, false, false, now, &delay_ns,
							  &interval_ns),
			WGX_INITIATION_PACED);
	KUNIT_EXPECT_GT(test, delay_ns, 0ULL);
	KUNIT_EXPECT_LE(test, delay_ns, 400000000ULL);
	KUNIT_EXPECT_EQ(test, interval_ns, 50000000U);
	/* No attempt: nothing recorded, nothing armed. */
	KUNIT_EXPECT_EQ(test, (unsigned int)peer->timer_state.initiation_sent, 0U);
	for (id = 0; id < WGX_TIMER_COUNT; id++)
		wgx_timers_expect_disarmed(test, peer, id);
	/* With its slot it goes, and the budget is not asked again. */
	tat = atomic64_read(&wgx->handshake_budget_tat);
	KUNIT_EXPECT_EQ(test, wgx_timers_begin(peer, true, true), WGX_INITIATION_SEND);
	KUNIT_EXPECT_EQ(test, atomic64_read(&wgx->handshake_budget_tat), tat);
	/* Not due (REKEY_TIMEOUT): refused before the budget is asked. */
	KUNIT_EXPECT_EQ(test, wgx_timers_begin(peer, false, false), WGX_INITIATION_NOT_DUE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&wgx->handshake_budget_tat), tat);
	/* A new budget starts with a full burst. */
	wgx_handshake_budget_reset(wgx);
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, wgx_clock_ns(), &interval_ns), 0ULL);
}

/*
 * A deferred initiation whose peer initiated meanwhile (a keypair derived
 * after it was asked for) is dropped at its slot: not sent, no attempt, no
 * retransmission armed; one asked for after that session still goes.
 */
static void wgx_timers_deferred_initiation_superseded(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_device *wgx = &f->wgx;
	struct wgx_peer *peer = &f->peer;
	u64 asked, delay_ns;
	u32 interval_ns;
	unsigned int id;

	wgx->handshake_budget = 1;
	wgx_handshake_budget_reset(wgx);
	asked = wgx_clock_ns();
	KUNIT_EXPECT_EQ(test, wgx_handshake_budget_take(wgx, asked, &interval_ns), 0ULL);
	KUNIT_EXPECT_EQ(test, wgx_timers_initiation_begin(peer, false, false, asked, &delay_ns,
							  &interval_ns),
			WGX_INITIATION_PACED);
	/* Its slot is a second away; the peer's initiation is consumed meanwhile. */
	msleep(2);
	wgx_timers_session_derived(peer);
	KUNIT_EXPECT_EQ(test, wgx_timers_initiation_begin(peer, false, true, asked, &delay_ns,
							  &interval_ns),
			WGX_INITIATION_SUPERSEDED);
	KUNIT_EXPECT_EQ(test, (unsigned int)peer->timer_state.initiation_sent, 0U);
	KUNIT_EXPECT_EQ(test, peer->timer_state.handshake_attempts, 0U);
	for (id = 0; id < WGX_TIMER_COUNT; id++)
		if (id != WGX_TIMER_ZERO_KEY_MATERIAL)
			wgx_timers_expect_disarmed(test, peer, id);
	/* Asked for again after the session (e.g. it is unconfirmed): it goes. */
	msleep(2);
	KUNIT_EXPECT_EQ(test, wgx_timers_begin(peer, false, true), WGX_INITIATION_SEND);
}

static void wgx_timers_persistent_keepalive(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_peer *peer = &f->peer;
	unsigned long j0, j1;

	/* Off: traversal arms nothing. */
	wgx_timers_any_authenticated_packet_traversal(peer);
	wgx_timers_expect_disarmed(test, peer, WGX_TIMER_PERSISTENT_KEEPALIVE);

	wgx_timers_set_persistent_keepalive(peer, 25);
	EVENT(wgx_timers_any_authenticated_packet_traversal(peer));
	wgx_timers_expect_armed(test, peer, WGX_TIMER_PERSISTENT_KEEPALIVE, 25000, 25000, j0, j1);
	/* Re-armed from the newest traversal. */
	msleep(30);
	EVENT(wgx_timers_any_authenticated_packet_traversal(peer));
	wgx_timers_expect_armed(test, peer, WGX_TIMER_PERSISTENT_KEEPALIVE, 25000, 25000, j0, j1);
	/* Turning it off disarms it. */
	wgx_timers_set_persistent_keepalive(peer, 0);
	wgx_timers_expect_disarmed(test, peer, WGX_TIMER_PERSISTENT_KEEPALIVE);
	KUNIT_EXPECT_EQ(test, wgx_timers_deadline(peer, WGX_TIMER_PERSISTENT_KEEPALIVE), 0ULL);
}

static void wgx_timers_nothing_armed_when_down_or_dead(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_peer *peer = &f->peer;
	unsigned int id;

	clear_bit(__LINK_STATE_START, &f->wgx.dev->state);
	wgx_timers_data_sent(peer);
	wgx_timers_data_received(peer);
	wgx_timers_handshake_initiated(peer);
	wgx_timers_session_derived(peer);
	for (id = 0; id < WGX_TIMER_COUNT; id++)
		wgx_timers_expect_disarmed(test, peer, id);

	wgx_timers_peer_stop(peer);
	set_bit(__LINK_STATE_START, &f->wgx.dev->state);
	WRITE_ONCE(peer->is_dead, true);
	wgx_timers_data_sent(peer);
	wgx_timers_data_received(peer);
	wgx_timers_handshake_initiated(peer);
	for (id = 0; id < WGX_TIMER_COUNT; id++)
		wgx_timers_expect_disarmed(test, peer, id);
}

static void wgx_timers_stop_disarms_everything(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_peer *peer = &f->peer;
	unsigned int id;

	/* Long enough that nothing fires on this stand-alone peer meanwhile. */
	wgx_timers_set_persistent_keepalive(peer, 3600);
	wgx_timers_data_sent(peer);
	wgx_timers_data_received(peer);
	wgx_timers_handshake_initiated(peer);
	wgx_timers_session_derived(peer);
	wgx_timers_any_authenticated_packet_traversal(peer);
	for (id = 0; id < WGX_TIMER_COUNT; id++)
		KUNIT_EXPECT_TRUE_MSG(test, timer_pending(&peer->timers[id]), "timer %u", id);
	wgx_timers_peer_stop(peer);
	for (id = 0; id < WGX_TIMER_COUNT; id++) {
		wgx_timers_expect_disarmed(test, peer, id);
		KUNIT_EXPECT_EQ(test, wgx_timers_deadline(peer, id), 0ULL);
	}
}

/*
 * A real expiry: with durations scaled down 10 times (REKEY_TIMEOUT 500 ms),
 * the retransmit timer fires and the core counts a retry.  The peer is marked
 * dead right after arming (the callback then performs nothing: this peer has
 * no device to send with), long before the deadline.
 */
static void wgx_timers_expiry_reaches_the_core(struct kunit *test)
{
	struct wgx_timers_fixture *f = test->priv;
	struct wgx_peer *peer = &f->peer;
	unsigned long deadline;
	u32 attempts;

	spin_lock_bh(&peer->timers_lock);
	wgx_timer_params_init(&peer->timer_state.params, 10);
	spin_unlock_bh(&peer->timers_lock);
	local_bh_disable();
	wgx_timers_handshake_initiated(peer);
	WRITE_ONCE(peer->is_dead, true);
	local_bh_enable();
	KUNIT_ASSERT_TRUE(test, timer_pending(&peer->timers[WGX_TIMER_RETRANSMIT_HANDSHAKE]));

	deadline = jiffies + 5 * HZ;
	while (timer_pending(&peer->timers[WGX_TIMER_RETRANSMIT_HANDSHAKE]) &&
	       time_before(jiffies, deadline))
		msleep(20);
	/* Let a callback that is running right now finish. */
	del_timer_sync(&peer->timers[WGX_TIMER_RETRANSMIT_HANDSHAKE]);

	spin_lock_bh(&peer->timers_lock);
	attempts = peer->timer_state.handshake_attempts;
	spin_unlock_bh(&peer->timers_lock);
	KUNIT_EXPECT_EQ(test, attempts, 1U);
	KUNIT_EXPECT_EQ(test, wgx_timers_deadline(peer, WGX_TIMER_RETRANSMIT_HANDSHAKE), 0ULL);
	/* Dead: the callback re-armed nothing. */
	wgx_timers_expect_disarmed(test, peer, WGX_TIMER_RETRANSMIT_HANDSHAKE);
}

static void wgx_timers_clock_is_boottime(struct kunit *test)
{
	u64 a = wgx_clock_ns(), b;

	msleep(20);
	b = wgx_clock_ns();
	KUNIT_EXPECT_GE(test, b - a, 20ULL * NSEC_PER_MSEC);
	KUNIT_EXPECT_LE(test, abs((s64)(wgx_clock_ns() - ktime_get_boottime_ns())),
			(s64)NSEC_PER_SEC);
}

static struct kunit_case wgx_timers_cases[] = {
	KUNIT_CASE(wgx_timers_data_sent_arms_new_handshake),
	KUNIT_CASE(wgx_timers_data_received_arms_keepalive),
	KUNIT_CASE(wgx_timers_handshake_retransmit_and_complete),
	KUNIT_CASE(wgx_timers_handshake_budget),
	KUNIT_CASE(wgx_timers_deferred_initiation_superseded),
	KUNIT_CASE(wgx_timers_persistent_keepalive),
	KUNIT_CASE(wgx_timers_nothing_armed_when_down_or_dead),
	KUNIT_CASE(wgx_timers_stop_disarms_everything),
	KUNIT_CASE(wgx_timers_expiry_reaches_the_core),
	KUNIT_CASE(wgx_timers_clock_is_boottime),
	{}
};

static struct kunit_suite wgx_timers_suite = {
	.name = "wgx_timers",
	.init = wgx_timers_test_init,
	.exit = wgx_timers_test_exit,
	.test_cases = wgx_timers_cases,
};

kunit_test_suites(&wgx_timers_suite);
