// SPDX-License-Identifier: GPL-2.0
/*
 * ratelimiter_kunit.c - KUnit suite "wgx_ratelimiter": the core's handshake
 * ratelimiter (kmod/core/ratelimiter.cpp) used the way the glue uses it
 * (kmod/device.c, kmod/receive.c): one table per device behind a BH
 * spinlock, garbage-collected by a delayed work on the boot-time clock.
 * Covers the token bucket, the full-table rule, gc of idle entries, the
 * largest table (which needs vmalloc in the kernel), many CPUs charging one
 * source at once, and an attacker with a whole IPv6 /48 who must neither fill
 * the device's table nor lock out a peer from elsewhere.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <wgx/core.h>
#include <wgx/core_test.h>

#include "kunit_util.h"

#define SEC 1000000000ULL
#define COST (SEC / WGX_RATELIMIT_PACKETS_PER_SECOND)	/* 50 ms of credit per packet */

static bool wgx_rl_allow4(struct wgx_ratelimiter *rl, u32 ip, u64 cookie, u64 now)
{
	const u8 a[4] = { ip >> 24, ip >> 16, ip >> 8, ip };

	return wgx_ratelimiter_allow(rl, WGX_AF_INET, a, cookie, now);
}

static int wgx_rl_burst(struct wgx_ratelimiter *rl, u32 ip, u64 now)
{
	int n = 0;

	while (n < 100 && wgx_rl_allow4(rl, ip, 0, now))
		n++;
	return n;
}

static void wgx_ratelimiter_bucket(struct kunit *test)
{
	struct wgx_ratelimiter *rl = wgx_ratelimiter_create(4096);
	const u64 t0 = 5 * SEC;
	u8 v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 };
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rl);
	KUNIT_EXPECT_EQ(test, wgx_rl_burst(rl, 0x0a000001, t0), WGX_RATELIMIT_BURST);
	KUNIT_EXPECT_FALSE(test, wgx_rl_allow4(rl, 0x0a000001, 0, t0 + COST - 1));
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, 0x0a000001, 0, t0 + COST));
	KUNIT_EXPECT_FALSE(test, wgx_rl_allow4(rl, 0x0a000001, 0, t0 + COST));
	/* After a long pause: the burst again, not more. */
	KUNIT_EXPECT_EQ(test, wgx_rl_burst(rl, 0x0a000001, t0 + 100 * SEC), WGX_RATELIMIT_BURST);
	/* Other sources, and the same address under another cookie, are independent. */
	KUNIT_EXPECT_EQ(test, wgx_rl_burst(rl, 0x0a000002, t0), WGX_RATELIMIT_BURST);
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, 0x0a000001, 77, t0 + 100 * SEC));
	/* IPv6 sources are grouped by /64. */
	for (i = 0; i < WGX_RATELIMIT_BURST; i++) {
		v6[15] = i;
		KUNIT_EXPECT_TRUE(test, wgx_ratelimiter_allow(rl, WGX_AF_INET6, v6, 0, t0));
	}
	v6[15] = 99;
	KUNIT_EXPECT_FALSE(test, wgx_ratelimiter_allow(rl, WGX_AF_INET6, v6, 0, t0));
	v6[7] ^= 1;
	KUNIT_EXPECT_TRUE(test, wgx_ratelimiter_allow(rl, WGX_AF_INET6, v6, 0, t0));
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(rl), (size_t)5);
	/* Bad input is refused. */
	KUNIT_EXPECT_FALSE(test, wgx_ratelimiter_allow(rl, 17, v6, 0, t0));
	KUNIT_EXPECT_FALSE(test, wgx_ratelimiter_allow(rl, WGX_AF_INET, NULL, 0, t0));
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_forget_cookie(rl, 77), (size_t)1);
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(rl), (size_t)4);
	wgx_ratelimiter_destroy(rl);
}

/* Sources N.0.0.1: each in a /16 of its own, so each has a bucket of its own. */
#define WGX_RL_BLOCK(n) ((u32)(n) << 24 | 1)

static void wgx_ratelimiter_full_table_and_gc(struct kunit *test)
{
	struct wgx_ratelimiter *rl = wgx_ratelimiter_create(3);
	const u64 t = 7 * SEC;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rl);
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, WGX_RL_BLOCK(1), 0, t));
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, WGX_RL_BLOCK(2), 0, t));
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, WGX_RL_BLOCK(3), 0, t + SEC / 2));
	/* Full: a new source is refused, known ones still charged normally. */
	KUNIT_EXPECT_FALSE(test, wgx_rl_allow4(rl, WGX_RL_BLOCK(4), 0, t + SEC / 2));
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, WGX_RL_BLOCK(1), 0, t + SEC / 2));
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(rl), (size_t)3);
	/* gc drops only entries idle for more than a second. */
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_gc(rl, t + SEC + 1), (size_t)1);
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, WGX_RL_BLOCK(4), 0, t + SEC + 2));
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_gc(rl, t + 10 * SEC), (size_t)3);
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(rl), (size_t)0);
	KUNIT_EXPECT_EQ(test, wgx_rl_burst(rl, WGX_RL_BLOCK(2), t + 10 * SEC), WGX_RATELIMIT_BURST);
	wgx_ratelimiter_destroy(rl);
	wgx_ratelimiter_destroy(NULL);
}

/* The bounds of create, including the largest table (44 MiB: vmalloc in the kernel). */
static void wgx_ratelimiter_capacity_bounds(struct kunit *test)
{
	struct wgx_ratelimiter *rl;

	KUNIT_EXPECT_NULL(test, wgx_ratelimiter_create(0));
	KUNIT_EXPECT_NULL(test, wgx_ratelimiter_create((size_t)WGX_RATELIMIT_MAX_CAPACITY + 1));
	rl = wgx_ratelimiter_create(WGX_RATELIMIT_MAX_CAPACITY);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rl);
	KUNIT_EXPECT_TRUE(test, wgx_rl_allow4(rl, 0xc0000201, 0, SEC));
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(rl), (size_t)1);
	wgx_ratelimiter_destroy(rl);
}

/*
 * The device's table (kmod/device.c, 4,096 buckets) and an attacker
 * sending from every /64 of 2001:db8:aaaa::/48, then 34,464 of them again,
 * within one second.  It gets its quota of /64 buckets and one for the /48;
 * a peer in another /48, and one over IPv4, still get their burst.
 */
static void wgx_ratelimiter_one_prefix_cannot_fill(struct kunit *test)
{
	struct wgx_ratelimiter *rl = wgx_ratelimiter_create(4096);
	u8 a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xaa, 0xaa };
	const u64 t = 100 * SEC;
	u32 i, allowed = 0;
	int n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rl);
	for (i = 0; i < 100000; i++) {
		a[6] = i >> 8;
		a[7] = i;
		a[15] = i >> 3;
		allowed += wgx_ratelimiter_allow(rl, WGX_AF_INET6, a, 0, t + (u64)i * 10000);
		if (!(i % 4096))
			cond_resched();
	}
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(rl), (size_t)WGX_RATELIMIT_SOURCES_PER_PREFIX + 1);
	KUNIT_EXPECT_LE(test, allowed, (WGX_RATELIMIT_SOURCES_PER_PREFIX + 1) *
			(WGX_RATELIMIT_BURST + WGX_RATELIMIT_PACKETS_PER_SECOND) + WGX_RATELIMIT_BURST);
	a[5] = 0xbb;
	for (n = 0; n < 100 && wgx_ratelimiter_allow(rl, WGX_AF_INET6, a, 0, t + SEC); n++)
		;
	KUNIT_EXPECT_EQ(test, n, WGX_RATELIMIT_BURST);
	KUNIT_EXPECT_EQ(test, wgx_rl_burst(rl, 0xc0000201, t + SEC), WGX_RATELIMIT_BURST);
	wgx_ratelimiter_destroy(rl);
}

/* ---- the glue's arrangement: a spinlock, a gc work on the real clock ---- */

struct wgx_rl_glue {
	spinlock_t lock;
	struct wgx_ratelimiter *rl;
	struct delayed_work gc;
	atomic_t gc_runs;
	size_t gc_dropped;
	bool stop;
};

static void wgx_rl_gc_worker(struct work_struct *work)
{
	struct wgx_rl_glue *g = container_of(work, struct wgx_rl_glue, gc.work);

	spin_lock_bh(&g->lock);
	g->gc_dropped += wgx_ratelimiter_gc(g->rl, ktime_get_boottime_ns());
	spin_unlock_bh(&g->lock);
	atomic_inc(&g->gc_runs);
	if (!READ_ONCE(g->stop))
		queue_delayed_work(system_power_efficient_wq, &g->gc, HZ / 4);
}

static void wgx_ratelimiter_gc_work_on_real_clock(struct kunit *test)
{
	struct wgx_rl_glue *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned long deadline;
	u32 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	spin_lock_init(&g->lock);
	g->rl = wgx_ratelimiter_create(4096);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g->rl);
	INIT_DELAYED_WORK(&g->gc, wgx_rl_gc_worker);

	spin_lock_bh(&g->lock);
	for (i = 0; i < 100; i++)
		wgx_rl_allow4(g->rl, WGX_RL_BLOCK(i + 1), 0, ktime_get_boottime_ns());
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(g->rl), (size_t)100);
	spin_unlock_bh(&g->lock);

	queue_delayed_work(system_power_efficient_wq, &g->gc, HZ / 4);
	/* Idle entries go after WGX_RATELIMIT_IDLE_SEC; allow generous slack for a slow VM. */
	deadline = jiffies + 10 * HZ;
	while (time_before(jiffies, deadline)) {
		size_t n;

		spin_lock_bh(&g->lock);
		n = wgx_ratelimiter_count(g->rl);
		spin_unlock_bh(&g->lock);
		if (!n)
			break;
		msleep(50);
	}
	WRITE_ONCE(g->stop, true);
	cancel_delayed_work_sync(&g->gc);
	KUNIT_EXPECT_EQ(test, wgx_ratelimiter_count(g->rl), (size_t)0);
	KUNIT_EXPECT_EQ(test, g->gc_dropped, (size_t)100);
	KUNIT_EXPECT_GE(test, atomic_read(&g->gc_runs), 2);
	wgx_ratelimiter_destroy(g->rl);
}

struct wgx_rl_racer {
	struct wgx_rl_glue *g;
	struct completion *go;
	struct completion done;
	atomic_t *allowed;
	u64 now;
};

static int wgx_rl_racer_fn(void *arg)
{
	struct wgx_rl_racer *r = arg;
	int i;

	wait_for_completion(r->go);
	for (i = 0; i < 2000; i++) {
		bool ok;

		spin_lock_bh(&r->g->lock);
		ok = wgx_rl_allow4(r->g->rl, 0xc6336401, 0, r->now);
		/* Many other sources at once, filling and churning the table. */
		wgx_rl_allow4(r->g->rl, 0x0a000000 + (i % 512), 0, r->now);
		spin_unlock_bh(&r->g->lock);
		if (ok)
			atomic_inc(r->allowed);
		if (!(i % 128))
			cond_resched();
	}
	complete(&r->done);
	return 0;
}

/* With the clock standing still, all CPUs together get exactly one burst. */
static void wgx_ratelimiter_concurrent_one_source(struct kunit *test)
{
	enum { N = 4 };
	struct wgx_rl_glue *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct wgx_rl_racer *r = kunit_kcalloc(test, N, sizeof(*r), GFP_KERNEL);
	struct completion go;
	atomic_t allowed = ATOMIC_INIT(0);
	struct task_struct *task;
	int i, started = 0;

	KUNIT_ASSERT_TRUE(test, g && r);
	spin_lock_init(&g->lock);
	g->rl = wgx_ratelimiter_create(256);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g->rl);
	init_completion(&go);
	for (i = 0; i < N; i++) {
		r[i].g = g;
		r[i].go = &go;
		r[i].allowed = &allowed;
		r[i].now = 42 * SEC;
		init_completion(&r[i].done);
		task = kthread_run(wgx_rl_racer_fn, &r[i], "wgx-kunit-rl/%d", i);
		if (IS_ERR(task)) {
			KUNIT_FAIL(test, "cannot start racer %d", i);
			break;
		}
		started++;
	}
	complete_all(&go);
	for (i = 0; i < started; i++)
		wait_for_completion(&r[i].done);
	KUNIT_EXPECT_EQ(test, started, (int)N);
	KUNIT_EXPECT_EQ(test, atomic_read(&allowed), (int)WGX_RATELIMIT_BURST);
	/* The table never grew past its capacity. */
	KUNIT_EXPECT_LE(test, wgx_ratelimiter_count(g->rl), (size_t)256);
	wgx_ratelimiter_destroy(g->rl);
}

static struct kunit_case wgx_ratelimiter_cases[] = {
	KUNIT_CASE(wgx_ratelimiter_bucket),
	KUNIT_CASE(wgx_ratelimiter_full_table_and_gc),
	KUNIT_CASE(wgx_ratelimiter_capacity_bounds),
	KUNIT_CASE(wgx_ratelimiter_one_prefix_cannot_fill),
	KUNIT_CASE(wgx_ratelimiter_gc_work_on_real_clock),
	KUNIT_CASE(wgx_ratelimiter_concurrent_one_source),
	{}
};

static struct kunit_suite wgx_ratelimiter_suite = {
	.name = "wgx_ratelimiter",
	.test_cases = wgx_ratelimiter_cases,
};

kunit_test_suites(&wgx_ratelimiter_suite);
