// SPDX-License-Identifier: GPL-2.0
/*
 * precompute_kunit.c - KUnit suite "wgx_precompute": the pool of handshake
 * ephemeral key pairs and the one thread of the precompute unit
 * (kmod/precompute.c).  Every pair the pool hands out is a real clamped
 * X25519 pair, handed out once, oldest first, never after its lifetime, and
 * its entry is wiped; concurrent takers never get the same pair; a pause
 * (suspend) wipes every pair and lets none in until the resume; the thread
 * fills, pauses and refills a pool of its own.  The units here are the
 * tests' own (the module's does not exist yet when the suites run), with
 * time passed in as nanoseconds.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <crypto/curve25519.h>

#include "precompute.h"
#include "kunit_util.h"

static void wgx_precompute_expect_pair(struct kunit *test, const u8 *priv, const u8 *pub)
{
	u8 want[CURVE25519_KEY_SIZE];

	/* Clamped (RFC 7748 section 5) and @pub its public key. */
	KUNIT_EXPECT_EQ(test, priv[0] & 7, 0);
	KUNIT_EXPECT_EQ(test, priv[31] & 0xc0, 0x40);
	KUNIT_ASSERT_TRUE(test, curve25519_generate_public(want, priv));
	KUNIT_EXPECT_EQ(test, memcmp(want, pub, sizeof(want)), 0);
}

static bool wgx_precompute_slots_zero(const struct wgx_precompute *pc)
{
	return !memchr_inv(pc->pool.pairs, 0, pc->pool.size * sizeof(pc->pool.pairs[0]));
}

static void wgx_precompute_pairs_are_real_and_used_once(struct kunit *test)
{
	struct wgx_precompute pc;
	u8 priv[4][WGX_KEY_LEN], pub[4][WGX_KEY_LEN], x[WGX_KEY_LEN], y[WGX_KEY_LEN];
	int i, j;

	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 4, 0, 100), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_TRUE(test, wgx_precompute_pool_add(&pc, 1000));
	/* Full: the fifth is refused (and wiped inside add). */
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_add(&pc, 1000));
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_count(&pc), 4u);
	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_take(&pc, priv[i], pub[i], 1010));
		wgx_precompute_expect_pair(test, priv[i], pub[i]);
		for (j = 0; j < i; j++) {
			KUNIT_EXPECT_NE(test, memcmp(priv[i], priv[j], WGX_KEY_LEN), 0);
			KUNIT_EXPECT_NE(test, memcmp(pub[i], pub[j], WGX_KEY_LEN), 0);
		}
	}
	/* Empty: nothing is written, the miss is counted. */
	memset(x, 0xa5, sizeof(x));
	memset(y, 0xa5, sizeof(y));
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_take(&pc, x, y, 1010));
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(x, 0xa5, sizeof(x)), (void *)NULL);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(y, 0xa5, sizeof(y)), (void *)NULL);
	/* Every slot a pair left is wiped. */
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));
	KUNIT_EXPECT_EQ(test, pc.pool.made, 4ull);
	KUNIT_EXPECT_EQ(test, pc.pool.taken, 4ull);
	KUNIT_EXPECT_EQ(test, pc.pool.missed, 1ull);
	KUNIT_EXPECT_EQ(test, pc.pool.expired, 0ull);
	wgx_precompute_teardown(&pc);
}

/* Oldest first, across the ring's wrap. */
static void wgx_precompute_fifo_across_wrap(struct kunit *test)
{
	struct wgx_precompute pc;
	u8 want[5][WGX_KEY_LEN], priv[WGX_KEY_LEN], pub[WGX_KEY_LEN];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 3, 0, 100), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1000 + i));
	for (i = 0; i < 3; i++)
		memcpy(want[i], pc.pool.pairs[i].public_key, WGX_KEY_LEN);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_take(&pc, priv, pub, 1005));
		KUNIT_EXPECT_EQ(test, memcmp(pub, want[i], WGX_KEY_LEN), 0);
	}
	/* Two more go into slots 0 and 1, behind slot 2. */
	for (i = 3; i < 5; i++) {
		KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1005 + i));
		memcpy(want[i], pc.pool.pairs[i - 3].public_key, WGX_KEY_LEN);
	}
	for (i = 2; i < 5; i++) {
		KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_take(&pc, priv, pub, 1010));
		KUNIT_EXPECT_EQ(test, memcmp(pub, want[i], WGX_KEY_LEN), 0);
		wgx_precompute_expect_pair(test, priv, pub);
	}
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_count(&pc), 0u);
	wgx_precompute_teardown(&pc);
}

/* A pair is never handed out at or after born + lifetime, and is wiped then. */
static void wgx_precompute_lifetime(struct kunit *test)
{
	struct wgx_precompute pc;
	u8 young[WGX_KEY_LEN], priv[WGX_KEY_LEN], pub[WGX_KEY_LEN];

	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 4, 0, 100), 0);
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1000));
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1000));
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1050));
	memcpy(young, pc.pool.pairs[2].public_key, WGX_KEY_LEN);

	/* One ns before the oldest expires: all kept, 1 ns left. */
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_expire(&pc, 1099), 1ull);
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_count(&pc), 3u);

	/* At 1100 the two born at 1000 are gone, wiped; the one of 1050 comes out. */
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_take(&pc, priv, pub, 1100));
	KUNIT_EXPECT_EQ(test, memcmp(pub, young, WGX_KEY_LEN), 0);
	KUNIT_EXPECT_EQ(test, pc.pool.expired, 2ull);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));

	/* expire() alone wipes too, and says the empty pool has no deadline. */
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 2000));
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_expire(&pc, 2040), 60ull);
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_expire(&pc, 2100), U64_MAX);
	KUNIT_EXPECT_EQ(test, pc.pool.expired, 3ull);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_take(&pc, priv, pub, 2100));

	/*
	 * Born a little after the taker's clock read (the taker read the clock
	 * on another CPU before the pair went in): young, with a deadline
	 * beyond the lifetime, not an expired pair nor a wrapped deadline.
	 */
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 3010));
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_expire(&pc, 3000), 110ull);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_pool_take(&pc, priv, pub, 3000));
	wgx_precompute_teardown(&pc);
}

/*
 * The module's clock is CLOCK_BOOTTIME in ns with a 120 s lifetime: at a
 * real boottime (no wrap to care for in 584 years), a pair made lifetime
 * ago by that clock is gone, whether the time passed awake or suspended
 * (jiffies, the clock before, stand still during a suspend), and one made
 * just now is handed out.
 */
static void wgx_precompute_boottime_lifetime(struct kunit *test)
{
	const u64 lifetime = (u64)WGX_PRECOMPUTE_LIFETIME_SECONDS * NSEC_PER_SEC;
	struct wgx_precompute pc;
	u8 priv[WGX_KEY_LEN], pub[WGX_KEY_LEN];
	u64 now = wgx_precompute_now(), later;

	KUNIT_EXPECT_EQ(test, lifetime, 120ull * NSEC_PER_SEC);
	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 4, 0, lifetime), 0);
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, now));
	later = wgx_precompute_now();
	KUNIT_EXPECT_GE(test, later, now);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_pool_take(&pc, priv, pub, later));
	/* Made "before a suspend" of exactly the lifetime: expired. */
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, now));
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_take(&pc, priv, pub, now + lifetime));
	KUNIT_EXPECT_EQ(test, pc.pool.expired, 1ull);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));
	wgx_precompute_teardown(&pc);
}

/*
 * A resume without a pause (CONFIG_PM_AUTOSLEEP: nothing is wiped before the
 * suspend, and the thread's jiffies timeout stood still during it)
 * wipes at once the pairs the boottime clock says expired, and keeps the
 * young ones.
 */
static void wgx_precompute_resume_wipes_expired(struct kunit *test)
{
	/* A 1 us lifetime, so the test needs no guest up for 120 s. */
	const u64 lifetime = NSEC_PER_USEC;
	struct wgx_precompute pc;
	u64 now = wgx_precompute_now();

	KUNIT_ASSERT_GT(test, now, 3 * lifetime);
	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 4, 0, lifetime), 0);
	/*
	 * Two made "before a suspend" longer than the lifetime, one stamped a
	 * minute ahead (young whatever the clock reads at the resume).
	 */
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, now - 3 * lifetime));
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, now - 2 * lifetime));
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, now + 60 * NSEC_PER_SEC));
	wgx_precompute_unpause(&pc);
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_count(&pc), 1u);
	KUNIT_EXPECT_EQ(test, pc.pool.expired, 2ull);
	wgx_precompute_teardown(&pc);
}

/*
 * A pause (before a suspend or hibernation) wipes every held pair, counted
 * as wiped, and lets none in until the resume; after it the pool fills as
 * before.
 */
static void wgx_precompute_pause_wipes_and_blocks_refill(struct kunit *test)
{
	struct wgx_precompute pc;
	u8 priv[WGX_KEY_LEN], pub[WGX_KEY_LEN];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 4, 0, 100), 0);
	/* Across the ring's wrap: one taken, one more added. */
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1000));
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_take(&pc, priv, pub, 1000));
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1001));
	KUNIT_EXPECT_FALSE(test, wgx_precompute_slots_zero(&pc));

	wgx_precompute_pause(&pc);
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_count(&pc), 0u);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));
	KUNIT_EXPECT_EQ(test, pc.pool.wiped, 4ull);
	KUNIT_EXPECT_EQ(test, pc.pool.expired, 0ull);
	/* Paused: nothing gets in, nothing comes out. */
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_add(&pc, 1002));
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_take(&pc, priv, pub, 1002));
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_count(&pc), 0u);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));
	KUNIT_EXPECT_EQ(test, pc.pool.made, 5ull);
	/* A second pause of an empty pool wipes nothing more. */
	wgx_precompute_pause(&pc);
	KUNIT_EXPECT_EQ(test, pc.pool.wiped, 4ull);

	wgx_precompute_unpause(&pc);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_pool_add(&pc, 1003));
	KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_take(&pc, priv, pub, 1003));
	wgx_precompute_expect_pair(test, priv, pub);
	KUNIT_EXPECT_EQ(test, pc.pool.made, 6ull);
	wgx_precompute_teardown(&pc);
}

/* Poll (10 ms steps, at most 30 s) until @pool holds @n pairs. */
static bool wgx_precompute_wait_count(struct wgx_precompute *pc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 3000; i++) {
		if (wgx_precompute_pool_count(pc) == n)
			return true;
		msleep(10);
	}
	return false;
}

/*
 * The thread on a pool of its own: nice 19 and freezable (where the
 * kernel has a freezer: not the test kernel, so the stock kernel's
 * storms/ephemeral_pool_wiped_on_suspend checks that part), it fills
 * the pool, leaves it alone while paused (a suspend), refills it after the
 * resume, and refills what a take below the low mark took.
 */
static void wgx_precompute_refill_thread(struct kunit *test)
{
	const u64 lifetime = (u64)WGX_PRECOMPUTE_LIFETIME_SECONDS * NSEC_PER_SEC;
	struct wgx_precompute pc;
	u8 priv[WGX_KEY_LEN], pub[WGX_KEY_LEN];
	unsigned int i;
	u64 made;

	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 8, 0, lifetime), 0);
	KUNIT_ASSERT_EQ(test, wgx_precompute_start(&pc), 0);
	KUNIT_ASSERT_NOT_NULL(test, pc.thread);
	KUNIT_EXPECT_EQ(test, task_nice(pc.thread), MAX_NICE);
	if (!wgx_precompute_wait_count(&pc, 8)) {
		wgx_precompute_teardown(&pc);
		KUNIT_FAIL(test, "the thread did not fill the pool in 30 s");
		return;
	}
	/* set_freezable() ran before the first pair (a no-op without a freezer). */
	if (IS_ENABLED(CONFIG_FREEZER))
		KUNIT_EXPECT_FALSE(test, pc.thread->flags & PF_NOFREEZE);
	KUNIT_EXPECT_EQ(test, pc.pool.made, 8ull);

	wgx_precompute_pause(&pc);
	KUNIT_EXPECT_EQ(test, pc.pool.wiped, 8ull);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));
	/* Paused: a miss wakes the thread, which must still add nothing. */
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_take(&pc, priv, pub, wgx_precompute_now()));
	msleep(300);
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_count(&pc), 0u);
	KUNIT_EXPECT_EQ(test, pc.pool.made, 8ull);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));

	wgx_precompute_unpause(&pc);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_wait_count(&pc, 8));
	KUNIT_EXPECT_EQ(test, pc.pool.made, 16ull);

	/*
	 * Empty it (the thread may add meanwhile; the last take leaves 0, at
	 * or below the low mark of 6): the thread refills what was taken.
	 */
	for (i = 0; i < 1000 && wgx_precompute_pool_take(&pc, priv, pub, wgx_precompute_now()); i++)
		;
	KUNIT_EXPECT_GE(test, i, 8u);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_wait_count(&pc, 8));
	made = pc.pool.made;
	KUNIT_EXPECT_EQ(test, made, 16ull + i);
	wgx_precompute_teardown(&pc);
	KUNIT_EXPECT_NULL(test, pc.thread);
}

/* A unit without a pool: always empty, and no thread without slots either. */
static void wgx_precompute_size_zero(struct kunit *test)
{
	struct wgx_precompute pc;
	u8 priv[WGX_KEY_LEN], pub[WGX_KEY_LEN];

	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, 0, 0, 100), 0);
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_add(&pc, 1));
	KUNIT_EXPECT_FALSE(test, wgx_precompute_pool_take(&pc, priv, pub, 1));
	KUNIT_EXPECT_EQ(test, wgx_precompute_pool_expire(&pc, 1), U64_MAX);
	/* No thread for a pool of nothing. */
	KUNIT_EXPECT_EQ(test, wgx_precompute_start(&pc), 0);
	KUNIT_EXPECT_NULL(test, pc.thread);
	wgx_precompute_teardown(&pc);
}

#define WGX_PRECOMPUTE_TAKERS 4
#define WGX_PRECOMPUTE_PAIRS 64

struct wgx_precompute_taker {
	struct wgx_precompute *pc;
	struct completion *go;
	struct completion done;
	unsigned int n;
	u8 pub[WGX_PRECOMPUTE_PAIRS][WGX_KEY_LEN];
};

static int wgx_precompute_taker_fn(void *data)
{
	struct wgx_precompute_taker *t = data;
	u8 priv[WGX_KEY_LEN];

	wait_for_completion(t->go);
	while (t->n < WGX_PRECOMPUTE_PAIRS &&
	       wgx_precompute_pool_take(t->pc, priv, t->pub[t->n], 1000))
		t->n++;
	complete(&t->done);
	return 0;
}

/* Takers on several CPUs share out the pool: every pair goes to exactly one. */
static void wgx_precompute_concurrent_takers_get_distinct_pairs(struct kunit *test)
{
	struct wgx_precompute_taker *t;
	struct wgx_precompute pc;
	DECLARE_COMPLETION_ONSTACK(go);
	unsigned int i, j, a, b, started = 0, total = 0;
	struct task_struct *task;

	t = kunit_kcalloc(test, WGX_PRECOMPUTE_TAKERS, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, wgx_precompute_setup(&pc, WGX_PRECOMPUTE_PAIRS, 0, 100), 0);
	for (i = 0; i < WGX_PRECOMPUTE_PAIRS; i++)
		KUNIT_ASSERT_TRUE(test, wgx_precompute_pool_add(&pc, 1000));
	for (i = 0; i < WGX_PRECOMPUTE_TAKERS; i++) {
		t[i].pc = &pc;
		t[i].go = &go;
		init_completion(&t[i].done);
		task = kthread_run(wgx_precompute_taker_fn, &t[i], "wgx-pc-kunit%u", i);
		if (IS_ERR(task))
			break;
		started++;
	}
	/* No assertion before every started thread is done: they use this test's memory. */
	complete_all(&go);
	for (i = 0; i < started; i++)
		wait_for_completion(&t[i].done);
	KUNIT_ASSERT_EQ(test, started, (unsigned int)WGX_PRECOMPUTE_TAKERS);
	for (i = 0; i < started; i++)
		total += t[i].n;
	KUNIT_EXPECT_EQ(test, total, (unsigned int)WGX_PRECOMPUTE_PAIRS);
	KUNIT_EXPECT_EQ(test, pc.pool.taken, (u64)WGX_PRECOMPUTE_PAIRS);
	for (a = 0; a < started; a++)
		for (i = 0; i < t[a].n; i++)
			for (b = a; b < started; b++)
				for (j = (b == a ? i + 1 : 0); j < t[b].n; j++)
					KUNIT_EXPECT_NE(test, memcmp(t[a].pub[i], t[b].pub[j],
								     WGX_KEY_LEN), 0);
	KUNIT_EXPECT_TRUE(test, wgx_precompute_slots_zero(&pc));
	wgx_precompute_teardown(&pc);
}

static struct kunit_case wgx_precompute_cases[] = {
	KUNIT_CASE(wgx_precompute_pairs_are_real_and_used_once),
	KUNIT_CASE(wgx_precompute_fifo_across_wrap),
	KUNIT_CASE(wgx_precompute_lifetime),
	KUNIT_CASE(wgx_precompute_boottime_lifetime),
	KUNIT_CASE(wgx_precompute_resume_wipes_expired),
	KUNIT_CASE(wgx_precompute_pause_wipes_and_blocks_refill),
	KUNIT_CASE(wgx_precompute_refill_thread),
	KUNIT_CASE(wgx_precompute_size_zero),
	KUNIT_CASE(wgx_precompute_concurrent_takers_get_distinct_pairs),
	{}
};

static struct kunit_suite wgx_precompute_suite = {
	.name = "wgx_precompute",
	.test_cases = wgx_precompute_cases,
};

kunit_test_suites(&wgx_precompute_suite);
