// SPDX-License-Identifier: GPL-2.0
/*
 * allowedips_kunit.c - KUnit suite "wgx_allowedips": the core's allowed-IPs
 * trie (kmod/core/allowedips.cpp, "cryptokey routing", whitepaper 2) in the
 * kernel, where its concurrency contract matters: lookups are lock-free
 * under RCU while one writer inserts, moves and removes prefixes, and
 * unlinked nodes are freed only after a grace period (KASAN reports a reader
 * touching freed memory; kmemleak a node never freed).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include <wgx/core.h>

#include "kunit_util.h"

/* Peers are opaque to the table: any distinct non-NULL pointers do. */
static char wgx_aip_peer_a, wgx_aip_peer_b, wgx_aip_peer_c;
#define PA ((void *)&wgx_aip_peer_a)
#define PB ((void *)&wgx_aip_peer_b)
#define PC ((void *)&wgx_aip_peer_c)

static int wgx_aip_insert4(struct wgx_allowedips *t, u8 a, u8 b, u8 c, u8 d, u8 cidr, void *peer)
{
	const u8 addr[4] = { a, b, c, d };

	return wgx_allowedips_insert(t, WGX_AF_INET, addr, cidr, peer, true);
}

static void *wgx_aip_lookup4(struct wgx_allowedips *t, u8 a, u8 b, u8 c, u8 d)
{
	const u8 addr[4] = { a, b, c, d };
	void *peer;

	rcu_read_lock_bh();
	peer = wgx_allowedips_lookup(t, WGX_AF_INET, addr);
	rcu_read_unlock_bh();
	return peer;
}

static void *wgx_aip_lookup6(struct wgx_allowedips *t, u16 first, u16 last)
{
	u8 addr[16] = {};
	void *peer;

	addr[0] = first >> 8;
	addr[1] = first & 0xff;
	addr[14] = last >> 8;
	addr[15] = last & 0xff;
	rcu_read_lock();
	peer = wgx_allowedips_lookup(t, WGX_AF_INET6, addr);
	rcu_read_unlock();
	return peer;
}

static void wgx_allowedips_longest_prefix(struct kunit *test)
{
	struct wgx_allowedips *t = wgx_allowedips_create();
	u8 v6[16] = { 0xfd, 0x00 };

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_EXPECT_EQ(test, wgx_aip_insert4(t, 10, 0, 0, 0, 8, PA), 0);
	KUNIT_EXPECT_EQ(test, wgx_aip_insert4(t, 10, 1, 0, 0, 16, PB), 0);
	/* Host bits beyond the cidr are ignored: stored as 10.1.2.0/24. */
	KUNIT_EXPECT_EQ(test, wgx_aip_insert4(t, 10, 1, 2, 99, 24, PC), 0);
	KUNIT_EXPECT_EQ(test, wgx_aip_insert4(t, 10, 1, 2, 3, 32, PA), 0);
	KUNIT_EXPECT_EQ(test, wgx_allowedips_insert(t, WGX_AF_INET6, v6, 16, PB, true), 0);

	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup4(t, 10, 9, 9, 9), PA);
	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup4(t, 10, 1, 9, 9), PB);
	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup4(t, 10, 1, 2, 4), PC);
	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup4(t, 10, 1, 2, 3), PA);
	KUNIT_EXPECT_NULL(test, wgx_aip_lookup4(t, 11, 0, 0, 1));
	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup6(t, 0xfd00, 1), PB);
	KUNIT_EXPECT_NULL(test, wgx_aip_lookup6(t, 0xfd01, 1));
	KUNIT_EXPECT_EQ(test, wgx_allowedips_count(t, NULL), (size_t)5);
	KUNIT_EXPECT_EQ(test, wgx_allowedips_count(t, PA), (size_t)2);

	/* The same prefix again moves it to the new peer. */
	KUNIT_EXPECT_EQ(test, wgx_aip_insert4(t, 10, 1, 0, 0, 16, PA), 0);
	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup4(t, 10, 1, 9, 9), PA);
	KUNIT_EXPECT_EQ(test, wgx_allowedips_count(t, NULL), (size_t)5);

	/* Removal only by the owner. */
	{
		const u8 p24[4] = { 10, 1, 2, 0 };

		KUNIT_EXPECT_EQ(test, wgx_allowedips_remove(t, WGX_AF_INET, p24, 24, PA), -WGX_ENOENT);
		KUNIT_EXPECT_EQ(test, wgx_allowedips_remove(t, WGX_AF_INET, p24, 24, PC), 0);
		KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup4(t, 10, 1, 2, 4), PA);
	}
	KUNIT_EXPECT_EQ(test, wgx_allowedips_remove_by_peer(t, PA), (size_t)3);
	KUNIT_EXPECT_NULL(test, wgx_aip_lookup4(t, 10, 1, 2, 3));
	KUNIT_EXPECT_EQ(test, wgx_allowedips_count(t, NULL), (size_t)1);

	/* Bad input is refused, not a crash. */
	KUNIT_EXPECT_EQ(test, wgx_aip_insert4(t, 10, 0, 0, 0, 33, PA), -WGX_EINVAL);
	KUNIT_EXPECT_EQ(test, wgx_allowedips_insert(t, 7, v6, 8, PA, true), -WGX_EINVAL);
	KUNIT_EXPECT_EQ(test, wgx_aip_insert4(t, 10, 0, 0, 0, 8, NULL), -WGX_EINVAL);
	KUNIT_EXPECT_NULL(test, wgx_allowedips_lookup(t, 7, v6));

	wgx_allowedips_destroy(t);
	rcu_barrier();
}

/* ---- concurrent readers, one writer ---- */

struct wgx_aip_shared {
	struct wgx_allowedips *t;
	atomic_long_t lookups;
	atomic_t bad;		/* invariant violations seen by readers */
	char bad_what[96];
};

struct wgx_aip_reader {
	struct wgx_aip_shared *sh;
	struct task_struct *task;
	u64 seed;
	bool bh;
};

static void wgx_aip_reader_bad(struct wgx_aip_shared *sh, const char *what, u32 x)
{
	if (atomic_inc_return(&sh->bad) == 1)
		snprintf(sh->bad_what, sizeof(sh->bad_what), "%s (x=%08x)", what, x);
}

/*
 * Invariants a reader must see at every moment, whatever the writer does:
 * 10.0.0.0/8 and fd00::/8 always belong to A, and the writer only adds or
 * removes longer prefixes inside them for B and C; nothing ever routes
 * 11.0.0.0/8 or fe00::/8.
 */
static int wgx_aip_reader_fn(void *arg)
{
	struct wgx_aip_reader *r = arg;
	struct wgx_aip_shared *sh = r->sh;
	struct rnd_state rnd;
	unsigned long n = 0;

	prandom_seed_state(&rnd, r->seed);
	while (!kthread_should_stop()) {
		u32 x = prandom_u32_state(&rnd);
		u8 v4[4] = { 10, x >> 24, x >> 16, x >> 8 };
		u8 v6[16] = { 0xfd, x >> 24, x >> 16, x >> 8, x, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (u8)n };
		void *p4, *p6, *none4, *none6;

		if (r->bh)
			rcu_read_lock_bh();
		else
			rcu_read_lock();
		p4 = wgx_allowedips_lookup(sh->t, WGX_AF_INET, v4);
		p6 = wgx_allowedips_lookup(sh->t, WGX_AF_INET6, v6);
		v4[0] = 11;
		v6[0] = 0xfe;
		none4 = wgx_allowedips_lookup(sh->t, WGX_AF_INET, v4);
		none6 = wgx_allowedips_lookup(sh->t, WGX_AF_INET6, v6);
		if (r->bh)
			rcu_read_unlock_bh();
		else
			rcu_read_unlock();

		if (p4 != PA && p4 != PB && p4 != PC)
			wgx_aip_reader_bad(sh, "IPv4 lookup inside 10/8 gave no valid peer", x);
		if (p6 != PA && p6 != PB && p6 != PC)
			wgx_aip_reader_bad(sh, "IPv6 lookup inside fd00::/8 gave no valid peer", x);
		if (none4 || none6)
			wgx_aip_reader_bad(sh, "lookup outside every prefix gave a peer", x);
		if (!(++n % 64))
			cond_resched();
	}
	atomic_long_add(n, &sh->lookups);
	return 0;
}

static int wgx_aip_insert6(struct wgx_allowedips *t, u32 x, u8 cidr, void *peer)
{
	const u8 addr[16] = { 0xfd, x >> 24, x >> 16, x >> 8, x };

	return wgx_allowedips_insert(t, WGX_AF_INET6, addr, cidr, peer, true);
}

static void wgx_allowedips_concurrent_readers_and_writer(struct kunit *test)
{
	enum { NREADERS = 3, ROUNDS = 3000, LIVE = 64 };
	struct wgx_aip_shared *sh = kunit_kzalloc(test, sizeof(*sh), GFP_KERNEL);
	struct wgx_aip_reader *readers = kunit_kcalloc(test, NREADERS, sizeof(*readers), GFP_KERNEL);
	u32 *ring = kunit_kcalloc(test, LIVE, sizeof(*ring), GFP_KERNEL);
	const u8 ten[4] = { 10 }, fd[16] = { 0xfd };
	struct rnd_state rnd;
	unsigned int i, started = 0, errors = 0, moves = 0;
	size_t removed;

	KUNIT_ASSERT_TRUE(test, sh && readers && ring);
	sh->t = wgx_allowedips_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sh->t);
	KUNIT_ASSERT_EQ(test, wgx_allowedips_insert(sh->t, WGX_AF_INET, ten, 8, PA, true), 0);
	KUNIT_ASSERT_EQ(test, wgx_allowedips_insert(sh->t, WGX_AF_INET6, fd, 8, PA, true), 0);

	for (i = 0; i < NREADERS; i++) {
		readers[i].sh = sh;
		readers[i].seed = 0x616970ULL + i;
		readers[i].bh = i & 1;
		readers[i].task = kthread_run(wgx_aip_reader_fn, &readers[i], "wgx-kunit-aip/%u", i);
		if (IS_ERR(readers[i].task)) {
			readers[i].task = NULL;
			KUNIT_FAIL(test, "cannot start reader %u", i);
			break;
		}
		started++;
	}

	/*
	 * The writer: keep LIVE random longer prefixes (/9../32 and /9../128) for B
	 * or C, replacing the oldest each round; sometimes move one to the other
	 * peer, sometimes drop all of C at once.  No assertion may abort the test
	 * while readers run, so failures are only counted here.
	 */
	prandom_seed_state(&rnd, 0x777269746572ULL);
	for (i = 0; i < ROUNDS; i++) {
		u32 x = prandom_u32_state(&rnd), old = ring[i % LIVE];
		u8 cidr4 = 9 + x % 24, cidr6 = 9 + x % 120;
		void *peer = (x >> 7) & 1 ? PB : PC;
		u8 v4[4] = { 10, x >> 24, x >> 16, x >> 8 };

		if (i >= LIVE) {
			u8 o4[4] = { 10, old >> 24, old >> 16, old >> 8 };
			u8 o6[16] = { 0xfd, old >> 24, old >> 16, old >> 8, old };
			void *op = (old >> 7) & 1 ? PB : PC;

			/* May be gone already (remove_by_peer, or a newer identical prefix). */
			wgx_allowedips_remove(sh->t, WGX_AF_INET, o4, 9 + old % 24, op);
			wgx_allowedips_remove(sh->t, WGX_AF_INET6, o6, 9 + old % 120, op);
		}
		errors += wgx_allowedips_insert(sh->t, WGX_AF_INET, v4, cidr4, peer, true) != 0;
		errors += wgx_aip_insert6(sh->t, x, cidr6, peer) != 0;
		ring[i % LIVE] = x;
		if (x % 97 == 0) {
			/* Moved away from the peer its ring slot names: may outlive the slot. */
			errors += wgx_allowedips_insert(sh->t, WGX_AF_INET, v4, cidr4,
							peer == PB ? PC : PB, true) != 0;
			moves++;
		}
		if (x % 499 == 0)
			wgx_allowedips_remove_by_peer(sh->t, PC);
		if (!(i % 16))
			cond_resched();
	}

	for (i = 0; i < started; i++)
		kthread_stop(readers[i].task);

	KUNIT_EXPECT_EQ(test, errors, 0U);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sh->bad), 0, "first: %s", sh->bad_what);
	KUNIT_EXPECT_GT(test, atomic_long_read(&sh->lookups), 0L);
	kunit_info(test, "%u writer rounds, %ld reader lookups\n", ROUNDS,
		   atomic_long_read(&sh->lookups));

	/* Quiescent: without B's and C's prefixes, only the stable ones are left. */
	KUNIT_EXPECT_NULL(test, wgx_aip_lookup4(sh->t, 11, 0, 0, 0));
	removed = wgx_allowedips_remove_by_peer(sh->t, PB);
	removed += wgx_allowedips_remove_by_peer(sh->t, PC);
	KUNIT_EXPECT_LE(test, removed, (size_t)(2 * LIVE + moves));
	KUNIT_EXPECT_EQ(test, wgx_allowedips_count(sh->t, NULL), (size_t)2);
	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup4(sh->t, 10, 255, 255, 255), PA);
	KUNIT_EXPECT_PTR_EQ(test, wgx_aip_lookup6(sh->t, 0xfd12, 0x3456), PA);
	KUNIT_EXPECT_EQ(test, wgx_allowedips_remove_by_peer(sh->t, PA), (size_t)2);
	KUNIT_EXPECT_EQ(test, wgx_allowedips_count(sh->t, NULL), (size_t)0);
	wgx_allowedips_destroy(sh->t);
	rcu_barrier();
}

/*
 * Destroying a table while a reader is inside a read section: the roots are
 * unlinked at once (a lookup that starts after the destroy finds nothing),
 * and the table and its nodes are freed only after the grace period, so the
 * reader may still read them.  An immediate free is a use after free here,
 * which KASAN (the debug test kernel) reports, failing the case.
 */
static void wgx_allowedips_destroy_under_reader(struct kunit *test)
{
	struct wgx_allowedips *t = wgx_allowedips_create();
	const u8 addr[4] = { 192, 0, 2, 0 };
	void *before, *after;
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	for (i = 0; i < 64; i++) {
		const u8 a[4] = { 192, 0, 2, i * 4 };

		KUNIT_ASSERT_EQ(test, wgx_allowedips_insert(t, WGX_AF_INET, a, 30, i & 1 ? PA : PB, true), 0);
	}
	rcu_read_lock();
	before = wgx_allowedips_lookup(t, WGX_AF_INET, addr);
	wgx_allowedips_destroy(t);
	after = wgx_allowedips_lookup(t, WGX_AF_INET, addr);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, before, PB);	/* 192.0.2.0/30, i = 0 */
	KUNIT_EXPECT_NULL(test, after);
	rcu_barrier();
}

static struct kunit_case wgx_allowedips_cases[] = {
	KUNIT_CASE(wgx_allowedips_longest_prefix),
	KUNIT_CASE(wgx_allowedips_concurrent_readers_and_writer),
	KUNIT_CASE(wgx_allowedips_destroy_under_reader),
	{}
};

static struct kunit_suite wgx_allowedips_suite = {
	.name = "wgx_allowedips",
	.suite_init = wgx_kunit_platform_init,
	.suite_exit = wgx_kunit_platform_exit,
	.test_cases = wgx_allowedips_cases,
};

kunit_test_suites(&wgx_allowedips_suite);
