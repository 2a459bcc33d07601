// SPDX-License-Identifier: GPL-2.0
/*
 * replay_kunit.c - KUnit suite "wgx_replay": the RFC 6479 replay window of
 * the core (kmod/core/replay.cpp, whitepaper 5.4.6 and 6.1) in the kernel:
 * edge cases, a pseudo-random sweep against a naive bitmap model, and the
 * way the receive path uses it - many CPUs checking counters of one keypair
 * under its replay spinlock, each counter accepted exactly once.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <wgx/core.h>

#include "kunit_util.h"

#define W ((u64)WGX_REPLAY_WINDOW)	/* 8128 */

static void wgx_replay_constants(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, W, 8128ULL);
	KUNIT_EXPECT_EQ(test, WGX_TRANSPORT_REJECT_AFTER_MESSAGES, U64_MAX - 8192);
	KUNIT_EXPECT_EQ(test, sizeof(struct wgx_replay), (size_t)(8 + 1024));
}

static void wgx_replay_zero_and_duplicates(struct kunit *test)
{
	struct wgx_replay r;

	wgx_replay_init(&r);
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, 0));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, 0));
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, 1));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, 1));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, 0));
}

static void wgx_replay_window_edges(struct kunit *test)
{
	struct wgx_replay r;
	u64 top = 100000;

	wgx_replay_init(&r);
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, top));
	/* Exactly WINDOW behind is still accepted once; one more is too old. */
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, top - W));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, top - W));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, top - W - 1));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, 0));
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, top - 1));
	/* A jump far ahead forgets everything behind the new window. */
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, top + 3 * W));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, top));
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, top + 3 * W - 1));
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, top + 2 * W));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, top + 2 * W - 1));
}

static void wgx_replay_limit(struct kunit *test)
{
	struct wgx_replay r;

	wgx_replay_init(&r);
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, WGX_TRANSPORT_REJECT_AFTER_MESSAGES));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, U64_MAX));
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, WGX_TRANSPORT_REJECT_AFTER_MESSAGES - 1));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, WGX_TRANSPORT_REJECT_AFTER_MESSAGES - 1));
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&r, WGX_TRANSPORT_REJECT_AFTER_MESSAGES - 1 - W));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&r, WGX_TRANSPORT_REJECT_AFTER_MESSAGES - 2 - W));
}

/*
 * Pseudo-random counters around a moving top, against a model: a bitmap of
 * 4 * W counters and the greatest accepted one.
 */
static void wgx_replay_random_against_model(struct kunit *test)
{
	const u64 span = 4 * W;
	unsigned long *seen = kunit_kzalloc(test, BITS_TO_LONGS(span) * sizeof(long), GFP_KERNEL);
	struct rnd_state rnd;
	struct wgx_replay r;
	u64 max = 0, c;
	bool any = false, expect;
	unsigned int i, mismatches = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, seen);
	prandom_seed_state(&rnd, 0x7265706c6179ULL);
	wgx_replay_init(&r);
	for (i = 0; i < 200000; i++) {
		u32 x = prandom_u32_state(&rnd);

		/* Mostly near the top, sometimes far behind or ahead. */
		if (x % 64 == 0)
			c = max + (x >> 8) % (2 * W);
		else if (max > 2 * W)
			c = max - (x >> 8) % (W + W / 8) + 16;
		else
			c = (x >> 8) % (W + 64);
		/*
		 * Model: anything above the greatest accepted counter is new; at or
		 * below it, within the window, the bitmap says whether it was seen.
		 * Slot c % span is cleared when the top moves past c, so it only
		 * ever holds c itself once c is at or below the top.
		 */
		if (!any || c > max)
			expect = true;
		else
			expect = c + W >= max && !test_bit(c % span, seen);
		if (expect) {
			if (!any || c > max) {
				u64 j, from = any ? max + 1 : c;

				for (j = from; j <= c && j - from < span; j++)
					clear_bit(j % span, seen);
				max = c;
				any = true;
			}
			set_bit(c % span, seen);
		}
		if (wgx_replay_check(&r, c) != expect && mismatches++ < 5)
			KUNIT_FAIL(test, "step %u counter %llu: expected %s (max %llu)", i, c,
				   expect ? "accept" : "reject", max);
	}
	KUNIT_EXPECT_EQ(test, mismatches, 0U);
}

/* ---- the receive path's use: one window, many CPUs, a spinlock ---- */

struct wgx_replay_shared {
	spinlock_t lock;
	struct wgx_replay r;
	atomic_t accepted;
	atomic_t rejected;
	atomic_t started;
	struct completion go;
	u64 count;
};

struct wgx_replay_worker {
	struct wgx_replay_shared *sh;
	struct task_struct *task;
	struct completion done;
	unsigned int id, nthreads;
};

static int wgx_replay_worker_fn(void *arg)
{
	struct wgx_replay_worker *w = arg;
	struct wgx_replay_shared *sh = w->sh;
	u64 c;

	atomic_inc(&sh->started);
	wait_for_completion(&sh->go);
	/*
	 * Every thread offers every counter (in a different interleaving), so each
	 * counter is offered nthreads times; only one offer may win.
	 */
	for (c = 0; c < sh->count; c++) {
		u64 counter = (c + w->id * 37) % sh->count;
		bool ok;

		spin_lock_bh(&sh->lock);
		ok = wgx_replay_check(&sh->r, counter);
		spin_unlock_bh(&sh->lock);
		atomic_inc(ok ? &sh->accepted : &sh->rejected);
		if (!(c % 256))
			cond_resched();
	}
	complete(&w->done);
	return 0;
}

static void wgx_replay_concurrent_checks_accept_once(struct kunit *test)
{
	const unsigned int nthreads = 4;
	struct wgx_replay_shared *sh = kunit_kzalloc(test, sizeof(*sh), GFP_KERNEL);
	struct wgx_replay_worker *w = kunit_kcalloc(test, nthreads, sizeof(*w), GFP_KERNEL);
	unsigned int i, started = 0;

	KUNIT_ASSERT_TRUE(test, sh && w);
	spin_lock_init(&sh->lock);
	wgx_replay_init(&sh->r);
	init_completion(&sh->go);
	/* Smaller than the window, so reordering never makes a counter too old. */
	sh->count = W / 2;
	for (i = 0; i < nthreads; i++) {
		w[i].sh = sh;
		w[i].id = i;
		w[i].nthreads = nthreads;
		init_completion(&w[i].done);
		w[i].task = kthread_run(wgx_replay_worker_fn, &w[i], "wgx-kunit-replay/%u", i);
		if (IS_ERR(w[i].task))
			break;
		started++;
	}
	/* No assertion before every started thread is done: they use this test's memory. */
	complete_all(&sh->go);
	for (i = 0; i < started; i++)
		wait_for_completion(&w[i].done);
	KUNIT_ASSERT_EQ_MSG(test, started, nthreads, "could not start every thread");
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&sh->accepted), sh->count);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&sh->rejected), sh->count * (nthreads - 1));
	/* And nothing more gets in afterwards. */
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&sh->r, 0));
	KUNIT_EXPECT_FALSE(test, wgx_replay_check(&sh->r, sh->count - 1));
	KUNIT_EXPECT_TRUE(test, wgx_replay_check(&sh->r, sh->count));
}

static struct kunit_case wgx_replay_cases[] = {
	KUNIT_CASE(wgx_replay_constants),
	KUNIT_CASE(wgx_replay_zero_and_duplicates),
	KUNIT_CASE(wgx_replay_window_edges),
	KUNIT_CASE(wgx_replay_limit),
	KUNIT_CASE(wgx_replay_random_against_model),
	KUNIT_CASE(wgx_replay_concurrent_checks_accept_once),
	{}
};

static struct kunit_suite wgx_replay_suite = {
	.name = "wgx_replay",
	.test_cases = wgx_replay_cases,
};

kunit_test_suites(&wgx_replay_suite);
