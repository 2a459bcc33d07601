// SPDX-License-Identifier: GPL-2.0
/*
 * precompute_peer_kunit.c - KUnit suite "wgx_precompute_peer": when the
 * precompute thread may remake a peer's slot after a take
 * (kmod/precompute_peer.c), wgx_precompute_quiet_wait().
 * It waits until WGX_PRECOMPUTE_QUIET after the last take, never more than
 * WGX_PRECOMPUTE_DEFER_MAX in one wait, starts a new wait only once the takes
 * went quiet, and does all of that across the wrap of jiffies and for a
 * last take of any age.  Times are
 * passed in, so nothing here sleeps.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>

#include "precompute.h"

/* Base times: an ordinary one and one a little before jiffies wraps. */
static const unsigned long wgx_precompute_peer_bases[] = { 1000000, ULONG_MAX - HZ / 20 };

static void wgx_precompute_peer_quiet_after_last_take(struct kunit *test)
{
	const unsigned long q = WGX_PRECOMPUTE_QUIET;
	unsigned long since, t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wgx_precompute_peer_bases); i++) {
		t = wgx_precompute_peer_bases[i];
		/* Taken exactly one quiet time ago: make now, no wait begins. */
		since = 0;
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t + q, t, &since), 0);
		KUNIT_EXPECT_EQ(test, since, 0UL);
		/* Taken just now: wait the whole quiet time; the wait begins now. */
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t, t, &since), (long)q);
		KUNIT_EXPECT_EQ(test, since, t ?: 1);
		/* Three jiffies later, the rest of it; the same wait. */
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t + 3, t, &since),
				(long)q - 3);
		KUNIT_EXPECT_EQ(test, since, t ?: 1);
		/* Quiet at last: make now, and the wait is over. */
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t + q, t, &since), 0);
		KUNIT_EXPECT_EQ(test, since, 0UL);
	}
}

static void wgx_precompute_quiet_wait_is_bounded(struct kunit *test)
{
	const unsigned long q = WGX_PRECOMPUTE_QUIET;
	unsigned long since = 0, t, now, take;
	size_t i;
	long left;

	for (i = 0; i < ARRAY_SIZE(wgx_precompute_peer_bases); i++) {
		t = wgx_precompute_peer_bases[i];
		since = 0;
		/* A take every jiffy: each call waits, but never past the bound. */
		for (now = t; time_before(now, t + WGX_PRECOMPUTE_DEFER_MAX); now++) {
			take = now;
			left = wgx_precompute_quiet_wait(now, take, &since);
			KUNIT_EXPECT_GT(test, left, 0L);
			KUNIT_EXPECT_LE(test, left, (long)(t + WGX_PRECOMPUTE_DEFER_MAX - now));
			KUNIT_EXPECT_LE(test, left, (long)q);
		}
		/* At the bound: make now although the takes go on, and keep making. */
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(now, now, &since), 0);
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(now + 5, now + 5, &since), 0);
		/* The takes went quiet: the next take starts a new, full wait. */
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(now + 5 + q, now + 5, &since), 0);
		KUNIT_EXPECT_EQ(test, since, 0UL);
		now += 5 + q;
		KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(now, now, &since), (long)q);
	}
}

static void wgx_precompute_quiet_wait_near_the_bound(struct kunit *test)
{
	const unsigned long q = WGX_PRECOMPUTE_QUIET;
	unsigned long since = 0, t = wgx_precompute_peer_bases[1];

	/* A wait begun at t, a take 2 jiffies before its bound: wait only to the bound. */
	KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t, t, &since), (long)q);
	KUNIT_EXPECT_EQ(test,
			wgx_precompute_quiet_wait(t + WGX_PRECOMPUTE_DEFER_MAX - 2,
					       t + WGX_PRECOMPUTE_DEFER_MAX - 2, &since),
			2L);
}

static void wgx_precompute_quiet_wait_any_age(struct kunit *test)
{
	const unsigned long q = WGX_PRECOMPUTE_QUIET;
	unsigned long since = 0, t = wgx_precompute_peer_bases[0];

	/*
	 * A take more than LONG_MAX jiffies old (about 25 days at HZ=1000 on
	 * 32 bits) is quiet: a signed comparison would see it in the future.
	 */
	KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t, t - LONG_MAX - q - 10, &since), 0);
	KUNIT_EXPECT_EQ(test, since, 0UL);
	KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t, t - (ULONG_MAX - q), &since), 0);
	/* A take stamped just after now was read is fresh: wait one quiet time. */
	KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t, t + 2, &since), (long)q);
	KUNIT_EXPECT_EQ(test, since, t);
	/* Within the wait, now just before it is quiet: one jiffy left. */
	KUNIT_EXPECT_EQ(test, wgx_precompute_quiet_wait(t + q - 1, t, &since), 1L);
}

static struct kunit_case wgx_precompute_peer_cases[] = {
	KUNIT_CASE(wgx_precompute_peer_quiet_after_last_take),
	KUNIT_CASE(wgx_precompute_quiet_wait_is_bounded),
	KUNIT_CASE(wgx_precompute_quiet_wait_near_the_bound),
	KUNIT_CASE(wgx_precompute_quiet_wait_any_age),
	{}
};

static struct kunit_suite wgx_precompute_peer_suite = {
	.name = "wgx_precompute_peer",
	.test_cases = wgx_precompute_peer_cases,
};

kunit_test_suites(&wgx_precompute_peer_suite);
