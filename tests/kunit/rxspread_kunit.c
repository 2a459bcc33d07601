// SPDX-License-Identifier: GPL-2.0
/*
 * rxspread_kunit.c - KUnit suite "wgx_rxspread": the auto mode's decision,
 * wgx_rxspread_want() (kmod/rxspread.h): a peer is spread once its
 * decryption took more than a quarter of a CPU in a window, stays spread
 * until it took less than an eighth, and is never spread with one CPU.
 * Times are passed in.  And the delay control of a peer's ordered queue,
 * wgx_rxspread_delay_drop(): CoDel's rule (RFC 8289) judged on arrival.
 */
#include <kunit/test.h>
#include <linux/time64.h>

#include "rxspread.h"

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

static struct kunit_case wgx_rxspread_cases[] = {
	KUNIT_CASE(wgx_rxspread_delay_below_target_never_drops),
	KUNIT_CASE(wgx_rxspread_delay_drops_after_an_interval),
	KUNIT_CASE(wgx_rxspread_delay_rate_grows_with_sqrt),
	KUNIT_CASE(wgx_rxspread_delay_resumes_near_last_rate),
	KUNIT_CASE(wgx_rxspread_on_above_a_quarter),
	KUNIT_CASE(wgx_rxspread_off_below_an_eighth),
	KUNIT_CASE(wgx_rxspread_long_idle_window),
	KUNIT_CASE(wgx_rxspread_never_with_one_cpu),
	{}
};

static struct kunit_suite wgx_rxspread_suite = {
	.name = "wgx_rxspread",
	.test_cases = wgx_rxspread_cases,
};

kunit_test_suites(&wgx_rxspread_suite);
