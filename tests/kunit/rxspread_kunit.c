// SPDX-License-Identifier: GPL-2.0
/*
 * rxspread_kunit.c - KUnit suite "wgx_rxspread": receive spreading
 * (kmod/rxspread.c).  This file compiles rxspread.c itself
 * (tests/kunit/Kbuild drops kmod/rxspread.o from the KUnit build) so the
 * static parts are reachable:
 *
 *   wgx_rxspread_want()           the auto mode's decision: a peer is spread
 *                                 once its decryption took more than a
 *                                 quarter of a CPU in a window, stays spread
 *                                 until it took less than an eighth, and is
 *                                 never spread with one CPU (times passed in);
 *   wgx_rxspread_delay_drop()     CoDel's rule (RFC 8289) judged on arrival;
 *   wgx_rxspread_admit()          a peer's ordered queue: its limit, and the
 *                                 delay control that spares small messages
 *                                 and marks ECN-capable ones CE;
 *   wgx_rxspread_join()           where a message is decrypted, and the count
 *                                 of small messages express delivery obeys
 *                                 (wgx_rxspread_may_pass());
 *   wgx_rxspread_dequeue_ready()  what the peer's NAPI delivers: the head,
 *                                 once decrypted, so messages decrypted out
 *                                 of order leave in arrival order;
 *   wgx_rxspread_peer_init()      the workers' rings come with the device's
 *                                 first ordered queue, not with the device.
 *
 * The queues are driven directly: messages are empty skbs whose cb state
 * the case sets as a decrypt worker would.
 */
#include "../../kmod/rxspread.c"

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/time64.h>

static const u64 wgx_rxspread_w = WGX_RXSPREAD_WINDOW_NS;

static void wgx_rxspread_on_above_a_quarter(struct kunit *test)
{
	const u64 w = wgx_rxspread_w;

	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(false, 0, w, 2));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(false, w / 4, w, 2));
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_want(false, w / 4 + 1, w, 2));
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_want(false, w, w, 2));
	/* Busy on several CPUs at once: more than the window. */
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_want(false, 3 * w, w, 4));
}

static void wgx_rxspread_off_below_an_eighth(struct kunit *test)
{
	const u64 w = wgx_rxspread_w;

	/* Between an eighth and a quarter: whatever it is, it stays. */
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_want(true, w / 4, w, 2));
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_want(true, w / 8, w, 2));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(false, w / 5, w, 2));
	/* Below an eighth: back to the arriving CPU. */
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(true, w / 8 - 1, w, 2));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(true, 0, w, 2));
}

static void wgx_rxspread_long_idle_window(struct kunit *test)
{
	/*
	 * The first message after an hour of silence closes a window of an
	 * hour: whatever it cost, the peer is not busy.
	 */
	const u64 hour = 3600ULL * NSEC_PER_SEC;

	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(true, wgx_rxspread_w, hour, 2));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(false, wgx_rxspread_w, hour, 2));
	/* A window of nothing (two CPUs closing it at once) judges nothing. */
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(false, 5, 0, 2));
}

static void wgx_rxspread_never_with_one_cpu(struct kunit *test)
{
	const u64 w = wgx_rxspread_w;

	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(false, w, w, 1));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(true, w, w, 1));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_want(true, w, w, 0));
}

static const u64 wgx_rxspread_t = WGX_RXSPREAD_TARGET_NS;
static const u64 wgx_rxspread_i = WGX_RXSPREAD_INTERVAL_NS;

static void wgx_rxspread_delay_below_target_never_drops(struct kunit *test)
{
	struct wgx_rxspread_delay d = {};
	u64 now = 1000 * wgx_rxspread_i;
	int i;

	/* A queue of thousands that moves within the target drops nothing. */
	for (i = 0; i < 10000; i++, now += wgx_rxspread_t / 10)
		KUNIT_EXPECT_FALSE(test, wgx_rxspread_delay_drop(&d, now, wgx_rxspread_t - 1, 4000));
	/* Nor does one message, however long it has waited. */
	for (i = 0; i < 100; i++, now += wgx_rxspread_i)
		KUNIT_EXPECT_FALSE(test, wgx_rxspread_delay_drop(&d, now, 10 * wgx_rxspread_i, 1));
}

static void wgx_rxspread_delay_drops_after_an_interval(struct kunit *test)
{
	struct wgx_rxspread_delay d = {};
	u64 start = 1000 * wgx_rxspread_i, now = start;

	/* Above target: not before a whole interval has passed. */
	for (; now < start + wgx_rxspread_i; now += wgx_rxspread_t)
		KUNIT_EXPECT_FALSE(test, wgx_rxspread_delay_drop(&d, now, 2 * wgx_rxspread_t, 100));
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_delay_drop(&d, now, 2 * wgx_rxspread_t, 100));
	/* The next drop is an interval later (count 1), not at once. */
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_delay_drop(&d, now + 1, 2 * wgx_rxspread_t, 100));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_delay_drop(&d, now + wgx_rxspread_i - 1,
							 2 * wgx_rxspread_t, 100));
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_delay_drop(&d, now + wgx_rxspread_i,
							2 * wgx_rxspread_t, 100));
	KUNIT_EXPECT_EQ(test, d.count, 2U);
	/* Below target once: out of the dropping state. */
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_delay_drop(&d, now + 2 * wgx_rxspread_i, 0, 100));
	KUNIT_EXPECT_FALSE(test, d.dropping);
}

static void wgx_rxspread_delay_rate_grows_with_sqrt(struct kunit *test)
{
	struct wgx_rxspread_delay d = {};
	u64 now = 1000 * wgx_rxspread_i, last = 0, gap, prev_gap = wgx_rxspread_i;
	unsigned int drops = 0;

	/* A standing queue: arrivals every 100 us for 2 s. */
	for (; now < 1020 * wgx_rxspread_i; now += 100 * NSEC_PER_USEC) {
		if (!wgx_rxspread_delay_drop(&d, now, 3 * wgx_rxspread_t, 500))
			continue;
		if (last) {
			gap = now - last;
			/* interval / sqrt(count): never longer than the one before. */
			KUNIT_EXPECT_LE(test, gap, prev_gap + 100 * NSEC_PER_USEC);
			prev_gap = gap;
		}
		last = now;
		drops++;
	}
	/* After n drops the gap is interval / sqrt(n): 2 s hold about 70. */
	KUNIT_EXPECT_GE(test, drops, 40U);
	KUNIT_EXPECT_LE(test, drops, 120U);
	KUNIT_EXPECT_LT(test, prev_gap, wgx_rxspread_i / 5);
}

static void wgx_rxspread_delay_resumes_near_last_rate(struct kunit *test)
{
	struct wgx_rxspread_delay d = {};
	u64 now = 1000 * wgx_rxspread_i;
	u32 count;

	for (; now < 1010 * wgx_rxspread_i; now += 100 * NSEC_PER_USEC)
		wgx_rxspread_delay_drop(&d, now, 3 * wgx_rxspread_t, 500);
	count = d.count;
	KUNIT_ASSERT_GT(test, count, 4U);
	/* Briefly below, then above again for an interval. */
	wgx_rxspread_delay_drop(&d, now, 0, 500);
	now += wgx_rxspread_i / 10;
	wgx_rxspread_delay_drop(&d, now, 3 * wgx_rxspread_t, 500);
	now += wgx_rxspread_i;
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_delay_drop(&d, now, 3 * wgx_rxspread_t, 500));
	/* It resumes at the drops the last state added, not at one. */
	KUNIT_EXPECT_EQ(test, d.count, count - 1);
}

/* A device with counters and one peer whose ordered queue exists (no NAPI, no workers). */
struct wgx_rxspread_fixture {
	struct wgx_device *wgx;
	struct wgx_peer *peer;
	struct wgx_peer_rx *rx;
};

static int wgx_rxspread_test_init(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->wgx = kunit_kzalloc(test, sizeof(*f->wgx), GFP_KERNEL);
	f->peer = kunit_kzalloc(test, sizeof(*f->peer), GFP_KERNEL);
	f->rx = kunit_kzalloc(test, sizeof(*f->rx), GFP_KERNEL);
	if (!f->wgx || !f->peer || !f->rx)
		return -ENOMEM;
	f->wgx->stats = alloc_percpu(struct wgx_device_stats);
	if (!f->wgx->stats)
		return -ENOMEM;
	mutex_init(&f->wgx->device_update_lock);
	f->peer->wgx = f->wgx;
	f->rx->peer = f->peer;
	skb_queue_head_init(&f->rx->queue);
	test->priv = f;
	return 0;
}

static void wgx_rxspread_test_exit(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = test->priv;

	if (!f)
		return;
	skb_queue_purge(&f->rx->queue);
	free_percpu(f->wgx->stats);
}

/* A message of @message_len bytes on the wire, not decrypted yet. */
static struct sk_buff *wgx_rxspread_test_msg(struct kunit *test, unsigned int message_len)
{
	struct sk_buff *skb = alloc_skb(0, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	WGX_RX_CB(skb)->message_len = message_len;
	atomic_set(&WGX_RX_CB(skb)->state, WGX_RX_PENDING);
	return skb;
}

/*
 * Queue a message as wgx_rxspread_enqueue() does (@spread: the peer is
 * spread now); where it is decrypted, or WGX_RXSPREAD_REFUSED (freed).
 */
static enum wgx_rxspread_where wgx_rxspread_test_join(struct wgx_peer_rx *rx, struct sk_buff *skb,
						      bool spread)
{
	enum wgx_rxspread_where where;

	spin_lock_bh(&rx->queue.lock);
	where = wgx_rxspread_join(rx, skb, spread);
	spin_unlock_bh(&rx->queue.lock);
	if (where == WGX_RXSPREAD_REFUSED)
		kfree_skb(skb);
	return where;
}

/* The same for a peer that is not spread; false when refused. */
static bool wgx_rxspread_test_arrive(struct wgx_peer_rx *rx, struct sk_buff *skb)
{
	return wgx_rxspread_test_join(rx, skb, false) != WGX_RXSPREAD_REFUSED;
}

/*
 * Publish @skb's verdict as a decrypt does; then deliver what is ready,
 * freed, as the NAPI does; how many.
 */
static int wgx_rxspread_test_deliver(struct wgx_peer_rx *rx, struct sk_buff *skb)
{
	unsigned int small = 0;
	int n = 0;

	if (skb)
		atomic_set_release(&WGX_RX_CB(skb)->state, WGX_RX_OK);
	while ((skb = wgx_rxspread_dequeue_ready(rx, &small)) != NULL) {
		kfree_skb(skb);
		++n;
	}
	wgx_rxspread_small_left(rx, small);
	return n;
}

/* Messages decrypted in the order 3, 1, 2, 0 leave in the order they arrived: 0, 1, 2, 3. */
static void wgx_rxspread_delivers_in_arrival_order(struct kunit *test)
{
	static const int done_order[] = { 3, 1, 2, 0 };
	static const int verdicts[] = { WGX_RX_OK, WGX_RX_DROP_AUTH, WGX_RX_OK, WGX_RX_DROP_REPLAY };
	struct wgx_rxspread_fixture *f = test->priv;
	struct sk_buff *msgs[4], *skb;
	int i, j, delivered = 0;
	unsigned int small = 0;

	for (i = 0; i < 4; i++) {
		msgs[i] = wgx_rxspread_test_msg(test, 1400);
		KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, msgs[i]));
	}
	for (i = 0; i < 4; i++) {
		j = done_order[i];
		/* As wgx_receive_decrypt_stage() publishes its verdict. */
		atomic_set_release(&WGX_RX_CB(msgs[j])->state, verdicts[j]);
		while ((skb = wgx_rxspread_dequeue_ready(f->rx, &small)) != NULL) {
			KUNIT_EXPECT_PTR_EQ(test, skb, msgs[delivered]);
			/* Nothing leaves before the first arrival is decrypted. */
			KUNIT_EXPECT_EQ(test, i, 3);
			++delivered;
			kfree_skb(skb);
		}
	}
	KUNIT_EXPECT_EQ(test, delivered, 4);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->rx->queue), 0U);
}

/* A pending head holds back the decrypted messages behind it, and only them. */
static void wgx_rxspread_pending_head_blocks(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = test->priv;
	struct sk_buff *a = wgx_rxspread_test_msg(test, 1400);
	struct sk_buff *b = wgx_rxspread_test_msg(test, 1400);
	struct sk_buff *c = wgx_rxspread_test_msg(test, 1400);
	unsigned int small = 0;

	KUNIT_EXPECT_PTR_EQ(test, wgx_rxspread_dequeue_ready(f->rx, &small), NULL);
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, a));
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, b));
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, c));
	atomic_set_release(&WGX_RX_CB(b)->state, WGX_RX_OK);
	KUNIT_EXPECT_PTR_EQ(test, wgx_rxspread_dequeue_ready(f->rx, &small), NULL);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->rx->queue), 3U);
	atomic_set_release(&WGX_RX_CB(a)->state, WGX_RX_OK);
	KUNIT_EXPECT_PTR_EQ(test, wgx_rxspread_dequeue_ready(f->rx, &small), a);
	KUNIT_EXPECT_PTR_EQ(test, wgx_rxspread_dequeue_ready(f->rx, &small), b);
	/* c is still being decrypted: it is the head now, and it blocks. */
	KUNIT_EXPECT_PTR_EQ(test, wgx_rxspread_dequeue_ready(f->rx, &small), NULL);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->rx->queue), 1U);
	kfree_skb(a);
	kfree_skb(b);
}

/* The queue holds WGX_RXSPREAD_PEER_MAX messages, small or not; one more is refused. */
static void wgx_rxspread_admit_refuses_a_full_queue(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = test->priv;
	int i;

	for (i = 0; i < WGX_RXSPREAD_PEER_MAX; i++)
		KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 64)));
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 64)));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->rx->queue), (u32)WGX_RXSPREAD_PEER_MAX);
	/* Not a delay drop. */
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY), 0ULL);
}

/*
 * Behind a head that has stood above CoDel's target for an interval, a bulk
 * message is dropped on arrival (and counted), a small one never is.
 */
static void wgx_rxspread_admit_drops_bulk_spares_small(struct kunit *test)
{
	const unsigned int small = WGX_RXSPREAD_SMALL + WGX_MSG_TRANSPORT_MIN_LEN;
	struct wgx_rxspread_fixture *f = test->priv;
	struct sk_buff *head = wgx_rxspread_test_msg(test, 1400);

	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, head));
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	/* The head has waited four targets (it is still being decrypted). */
	WGX_RX_CB(head)->queued_ns = ktime_get_mono_fast_ns() - 4 * WGX_RXSPREAD_TARGET_NS;
	/* First seen above target: judged only an interval later. */
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	KUNIT_EXPECT_NE(test, f->rx->delay.first_above, 0ULL);
	KUNIT_EXPECT_FALSE(test, f->rx->delay.dropping);
	/* That interval is over (moved back rather than waited for). */
	f->rx->delay.first_above -= 2 * WGX_RXSPREAD_INTERVAL_NS;
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	KUNIT_EXPECT_TRUE(test, f->rx->delay.dropping);
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY), 1ULL);
	/* Small messages join the standing queue all the same. */
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, small)));
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 60)));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->rx->queue), 5U);
	/* One byte more is bulk, and the dropping state's next drop is not due yet. */
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, small + 1)));
	/* Once the head is served quickly again, the dropping state ends. */
	WGX_RX_CB(head)->queued_ns = ktime_get_mono_fast_ns();
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	KUNIT_EXPECT_FALSE(test, f->rx->delay.dropping);
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY), 1ULL);
}

/*
 * Where the delay control drops, an ECN-capable bulk message (outer ECN
 * field ECT(0) or ECT(1): the inner packet's, RFC 6040) is marked CE and
 * joins instead, the control law counting the mark as it counts a drop; a
 * message before the next due time joins unmarked; a Not-ECT one at a due
 * time is dropped.
 */
static void wgx_rxspread_admit_marks_ecn_capable(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = test->priv;
	struct sk_buff *head = wgx_rxspread_test_msg(test, 1400);
	struct sk_buff *ect0 = wgx_rxspread_test_msg(test, 1400);
	struct sk_buff *early = wgx_rxspread_test_msg(test, 1400);
	struct sk_buff *ect1 = wgx_rxspread_test_msg(test, 1400);
	u32 count;

	WGX_RX_CB(ect0)->outer_ds = 0xb8 | INET_ECN_ECT_0;
	WGX_RX_CB(early)->outer_ds = INET_ECN_ECT_0;
	WGX_RX_CB(ect1)->outer_ds = INET_ECN_ECT_1;
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, head));
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	WGX_RX_CB(head)->queued_ns = ktime_get_mono_fast_ns() - 4 * WGX_RXSPREAD_TARGET_NS;
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	f->rx->delay.first_above -= 2 * WGX_RXSPREAD_INTERVAL_NS;
	/* The drop that enters the dropping state is a mark. */
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, ect0));
	KUNIT_EXPECT_TRUE(test, f->rx->delay.dropping);
	KUNIT_EXPECT_EQ(test, WGX_RX_CB(ect0)->outer_ds, 0xb8 | INET_ECN_CE);
	KUNIT_EXPECT_TRUE(test, WGX_RX_CB(ect0)->delay_marked);
	count = f->rx->delay.count;
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, early));
	KUNIT_EXPECT_EQ(test, WGX_RX_CB(early)->outer_ds, INET_ECN_ECT_0);
	KUNIT_EXPECT_FALSE(test, WGX_RX_CB(early)->delay_marked);
	/* The next one is due (moved back rather than waited for): ECT(1) too. */
	f->rx->delay.drop_next = ktime_get_mono_fast_ns() - 1;
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_test_arrive(f->rx, ect1));
	KUNIT_EXPECT_EQ(test, WGX_RX_CB(ect1)->outer_ds, INET_ECN_CE);
	KUNIT_EXPECT_EQ(test, f->rx->delay.count, count + 1);
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY), 0ULL);
	f->rx->delay.drop_next = ktime_get_mono_fast_ns() - 1;
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY), 1ULL);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->rx->queue), 6U);
}

/*
 * A small message is counted as it joins, decrypted or not: a marked one
 * behind it, decrypted sooner on another CPU, may not pass it; once it
 * is delivered, the marked one may.
 */
static void wgx_rxspread_small_counted_as_it_joins(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = test->priv;
	struct sk_buff *unmarked = wgx_rxspread_test_msg(test, 96);
	struct sk_buff *marked = wgx_rxspread_test_msg(test, 96);
	unsigned int small = 0;
	u64 now;

	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, unmarked));
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 1U);
	KUNIT_EXPECT_TRUE(test, WGX_RX_CB(unmarked)->small);
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, marked));
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 2U);
	/* The first is still being decrypted where it arrived. */
	now = ktime_get_mono_fast_ns();
	spin_lock_bh(&f->rx->queue.lock);
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_may_pass(f->rx, now));
	spin_unlock_bh(&f->rx->queue.lock);
	/* Taken by the NAPI, it counts until GRO has handed it to the stack. */
	atomic_set_release(&WGX_RX_CB(unmarked)->state, WGX_RX_OK);
	KUNIT_EXPECT_PTR_EQ(test, wgx_rxspread_dequeue_ready(f->rx, &small), unmarked);
	KUNIT_EXPECT_EQ(test, small, 1U);
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 2U);
	spin_lock_bh(&f->rx->queue.lock);
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_may_pass(f->rx, now));
	spin_unlock_bh(&f->rx->queue.lock);
	wgx_rxspread_small_left(f->rx, small);
	kfree_skb(unmarked);
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 1U);
	spin_lock_bh(&f->rx->queue.lock);
	KUNIT_EXPECT_TRUE(test, wgx_rxspread_may_pass(f->rx, now));
	/* Not once the queue's head has waited too long. */
	KUNIT_EXPECT_FALSE(test, wgx_rxspread_may_pass(f->rx, now + WGX_RXSPREAD_EXPRESS_HEAD_NS));
	spin_unlock_bh(&f->rx->queue.lock);
	/* Long messages are not counted. */
	KUNIT_ASSERT_TRUE(test, wgx_rxspread_test_arrive(f->rx, wgx_rxspread_test_msg(test, 1400)));
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 1U);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_deliver(f->rx, marked), 1);
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 0U);
}

/*
 * Spread, long messages go to the workers and small ones are decrypted
 * where they arrive, each counted; not spread, everything is decrypted
 * where it arrives.
 */
static void wgx_rxspread_small_decrypted_on_arrival(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = test->priv;
	struct sk_buff *skb;
	int i;

	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_join(f->rx, wgx_rxspread_test_msg(test, 1400), true),
			WGX_RXSPREAD_WORKER);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, wgx_rxspread_test_join(f->rx, wgx_rxspread_test_msg(test, 96), true),
				WGX_RXSPREAD_HERE);
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 4U);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_join(f->rx, wgx_rxspread_test_msg(test, 96), false),
			WGX_RXSPREAD_HERE);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_join(f->rx, wgx_rxspread_test_msg(test, 1400), false),
			WGX_RXSPREAD_HERE);
	/* Every one decrypted: all leave, and the count is back to zero. */
	skb_queue_walk(&f->rx->queue, skb)
		atomic_set_release(&WGX_RX_CB(skb)->state, WGX_RX_OK);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_deliver(f->rx, NULL), 7);
	KUNIT_EXPECT_EQ(test, f->rx->small_queued, 0U);
}

/* Whether every possible CPU's worker has a ring of WGX_RXSPREAD_RING_SIZE; all or none. */
static int wgx_rxspread_test_rings(struct kunit *test, struct wgx_device *wgx)
{
	int cpu, made = 0, none = 0;

	for_each_possible_cpu(cpu) {
		struct wgx_rx_worker *worker = per_cpu_ptr(wgx->rx_workers, cpu);

		if (worker->ring.queue && worker->ring.size == WGX_RXSPREAD_RING_SIZE)
			++made;
		else if (!worker->ring.queue)
			++none;
	}
	KUNIT_EXPECT_EQ(test, made + none, (int)num_possible_cpus());
	return made;
}

/*
 * A new device has decrypt workers but no rings; the first peer given an
 * ordered queue makes them for every possible CPU, a second peer's queue
 * reuses them, and they outlive the queues until the device goes.
 */
static void wgx_rxspread_rings_come_with_the_first_queue(struct kunit *test)
{
	struct wgx_rxspread_fixture *f = test->priv;
	struct wgx_peer *second = kunit_kzalloc(test, sizeof(*second), GFP_KERNEL);
	struct wgx_device *wgx = f->wgx;
	void **queue0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, second);
	second->wgx = wgx;
	wgx->dev = alloc_netdev(0, "wgxk%d", NET_NAME_UNKNOWN, ether_setup);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wgx->dev);
	if (wgx_rxspread_init(wgx)) {
		free_netdev(wgx->dev);
		KUNIT_FAIL(test, "wgx_rxspread_init: out of memory");
		return;
	}
	KUNIT_EXPECT_FALSE(test, wgx->rx_rings);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_rings(test, wgx), 0);

	mutex_lock(&wgx->device_update_lock);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_peer_init(f->peer, false), 0);
	mutex_unlock(&wgx->device_update_lock);
	KUNIT_EXPECT_TRUE(test, wgx->rx_rings);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, f->peer->rx);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_rings(test, wgx), (int)num_possible_cpus());
	queue0 = per_cpu_ptr(wgx->rx_workers, cpumask_first(cpu_possible_mask))->ring.queue;

	mutex_lock(&wgx->device_update_lock);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_peer_init(second, true), 0);
	mutex_unlock(&wgx->device_update_lock);
	KUNIT_EXPECT_PTR_EQ(test,
			    per_cpu_ptr(wgx->rx_workers, cpumask_first(cpu_possible_mask))->ring.queue,
			    queue0);

	wgx_rxspread_peer_uninit(f->peer, true);
	wgx_rxspread_peer_uninit(second, true);
	KUNIT_EXPECT_PTR_EQ(test, f->peer->rx, NULL);
	KUNIT_EXPECT_EQ(test, wgx_rxspread_test_rings(test, wgx), (int)num_possible_cpus());
	wgx_rxspread_uninit(wgx);
	rcu_barrier();		/* the queues' kfree_rcu() */
	free_netdev(wgx->dev);
}

static struct kunit_case wgx_rxspread_cases[] = {
	KUNIT_CASE(wgx_rxspread_delay_below_target_never_drops),
	KUNIT_CASE(wgx_rxspread_delay_drops_after_an_interval),
	KUNIT_CASE(wgx_rxspread_delay_rate_grows_with_sqrt),
	KUNIT_CASE(wgx_rxspread_delay_resumes_near_last_rate),
	KUNIT_CASE(wgx_rxspread_on_above_a_quarter),
	KUNIT_CASE(wgx_rxspread_off_below_an_eighth),
	KUNIT_CASE(wgx_rxspread_long_idle_window),
	KUNIT_CASE(wgx_rxspread_never_with_one_cpu),
	KUNIT_CASE(wgx_rxspread_delivers_in_arrival_order),
	KUNIT_CASE(wgx_rxspread_pending_head_blocks),
	KUNIT_CASE(wgx_rxspread_admit_refuses_a_full_queue),
	KUNIT_CASE(wgx_rxspread_admit_drops_bulk_spares_small),
	KUNIT_CASE(wgx_rxspread_admit_marks_ecn_capable),
	KUNIT_CASE(wgx_rxspread_small_counted_as_it_joins),
	KUNIT_CASE(wgx_rxspread_small_decrypted_on_arrival),
	KUNIT_CASE(wgx_rxspread_rings_come_with_the_first_queue),
	{}
};

static struct kunit_suite wgx_rxspread_suite = {
	.name = "wgx_rxspread",
	.init = wgx_rxspread_test_init,
	.exit = wgx_rxspread_test_exit,
	.test_cases = wgx_rxspread_cases,
};

kunit_test_suites(&wgx_rxspread_suite);
