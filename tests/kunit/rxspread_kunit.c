// SPDX-License-Identifier: GPL-2.0
/*
 * rxspread_kunit.c - KUnit suite "wgx_rxspread": the auto mode's decision,
 * wgx_rxspread_want() (kmod/rxspread.h): a peer is spread once its
 * decryption took more than a quarter of a CPU in a window, stays spread
 * until it took less than an eighth, and is never spread with one CPU.
 * Times are passed in.
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

static struct kunit_case wgx_rxspread_cases[] = {
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
