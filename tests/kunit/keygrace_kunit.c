// SPDX-License-Identifier: GPL-2.0
/*
 * keygrace_kunit.c - KUnit suite "wgx_keygrace": the key grace period
 * (kmod/keygrace.c) on a device without peers.  This file compiles
 * keygrace.c itself (tests/kunit/Kbuild drops kmod/keygrace.o from the
 * KUnit build) so the grace worker is reachable.  A private key change
 * with key_grace_s set keeps the old key as the previous identity, which
 * the handshake path answers with, until the grace's delayed work ends it;
 * a worker that runs before the grace's end leaves it; a second change
 * during the grace drops the oldest key at once; key_grace_s 0 keeps
 * nothing.
 */
#include "../../kmod/keygrace.c"

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/random.h>

#include "kunit_util.h"

/* The parts of a device a key change touches, as wgx_newlink() makes them. */
static int wgx_keygrace_test_init(struct kunit *test)
{
	struct wgx_device *wgx = kunit_kzalloc(test, sizeof(*wgx), GFP_KERNEL);

	if (!wgx)
		return -ENOMEM;
	wgx->dev = alloc_netdev(0, "wgxk%d", NET_NAME_UNKNOWN, ether_setup);
	if (!wgx->dev)
		return -ENOMEM;
	mutex_init(&wgx->device_update_lock);
	init_rwsem(&wgx->identity_lock);
	spin_lock_init(&wgx->cookie_lock);
	INIT_LIST_HEAD(&wgx->peer_list);
	wgx_keygrace_init(wgx);
	wgx->identity = wgx_noise_identity_create(true);
	wgx->prev_identity = wgx_noise_identity_create(true);
	wgx->cookie_checker = wgx_cookie_checker_create(true);
	wgx->prev_cookie_checker = wgx_cookie_checker_create(true);
	wgx->peer_hashtable = wgx_pubkey_hashtable_alloc();
	test->priv = wgx;
	if (!wgx->identity || !wgx->prev_identity || !wgx->cookie_checker ||
	    !wgx->prev_cookie_checker || !wgx->peer_hashtable)
		return -ENOMEM;
	return 0;
}

static void wgx_keygrace_test_exit(struct kunit *test)
{
	struct wgx_device *wgx = test->priv;

	if (!wgx)
		return;
	wgx_keygrace_cancel_sync(wgx);
	wgx_cookie_checker_destroy(wgx->cookie_checker);
	wgx_cookie_checker_destroy(wgx->prev_cookie_checker);
	wgx_noise_identity_destroy(wgx->identity);
	wgx_noise_identity_destroy(wgx->prev_identity);
	kvfree(wgx->peer_hashtable);
	free_netdev(wgx->dev);
}

/* Install a random private key (under device_update_lock); its public key into @pub. */
static void wgx_keygrace_test_set(struct kunit *test, struct wgx_device *wgx, u8 pub[WGX_KEY_LEN])
{
	u8 priv[WGX_KEY_LEN];
	int ret;

	get_random_bytes(priv, sizeof(priv));
	mutex_lock(&wgx->device_update_lock);
	ret = wgx_keygrace_set_private_key(wgx, priv);
	mutex_unlock(&wgx->device_update_lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	down_read(&wgx->identity_lock);
	KUNIT_ASSERT_TRUE(test, wgx_noise_identity_get_keys(wgx->identity, pub, NULL));
	up_read(&wgx->identity_lock);
	memzero_explicit(priv, sizeof(priv));
}

/* Whether the previous identity holds a key, and which (@pub, may be NULL). */
static bool wgx_keygrace_test_prev(struct wgx_device *wgx, u8 *pub)
{
	bool has;

	down_read(&wgx->identity_lock);
	has = wgx->grace_active && wgx_noise_identity_get_keys(wgx->prev_identity, pub, NULL);
	up_read(&wgx->identity_lock);
	return has;
}

/* During the grace the old key is the previous identity; a worker run early changes nothing. */
static void wgx_keygrace_old_key_answers_during_grace(struct kunit *test)
{
	struct wgx_device *wgx = test->priv;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN], prev[WGX_KEY_LEN];

	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	/* The first key replaces none: no grace. */
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&wgx->grace_work));
	wgx_keygrace_test_set(test, wgx, b);
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, prev));
	KUNIT_EXPECT_EQ(test, memcmp(prev, a, WGX_KEY_LEN), 0);
	KUNIT_EXPECT_EQ(test, wgx->identity_gen, 2U);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&wgx->grace_work));
	KUNIT_EXPECT_TRUE(test, time_after(wgx->grace_end, jiffies + 50 * HZ));
	/* A run before the end (one that waited for the lock) leaves the grace. */
	wgx_keygrace_end_worker(&wgx->grace_work.work);
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, prev));
	KUNIT_EXPECT_EQ(test, memcmp(prev, a, WGX_KEY_LEN), 0);
	/* Past the end (moved back rather than waited for): the old key is wiped. */
	wgx->grace_end = jiffies - 1;
	wgx_keygrace_end_worker(&wgx->grace_work.work);
	KUNIT_EXPECT_FALSE(test, wgx->grace_active);
	KUNIT_EXPECT_FALSE(test, wgx_noise_identity_get_keys(wgx->prev_identity, NULL, NULL));
	/* The current key is untouched. */
	down_read(&wgx->identity_lock);
	KUNIT_EXPECT_TRUE(test, wgx_noise_identity_get_keys(wgx->identity, prev, NULL));
	up_read(&wgx->identity_lock);
	KUNIT_EXPECT_EQ(test, memcmp(prev, b, WGX_KEY_LEN), 0);
}

/* The grace's own delayed work ends it, not before its end. */
static void wgx_keygrace_timer_ends_grace(struct kunit *test)
{
	struct wgx_device *wgx = test->priv;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN];
	int i;

	wgx->key_grace_s = 1;
	wgx_keygrace_test_set(test, wgx, a);
	wgx_keygrace_test_set(test, wgx, b);
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));
	/* Up to 10 s for a 1 s grace: a slow guest may run the work late, never early. */
	for (i = 0; i < 200 && wgx_keygrace_test_prev(wgx, NULL); i++)
		msleep(50);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_FALSE(test, wgx_noise_identity_get_keys(wgx->prev_identity, NULL, NULL));
	KUNIT_EXPECT_TRUE(test, time_after_eq(jiffies, wgx->grace_end));
}

/* A second change during a grace: the oldest key goes at once, the second is the previous one. */
static void wgx_keygrace_second_change_drops_oldest(struct kunit *test)
{
	struct wgx_device *wgx = test->priv;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN], c[WGX_KEY_LEN], prev[WGX_KEY_LEN];

	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	wgx_keygrace_test_set(test, wgx, b);
	wgx_keygrace_test_set(test, wgx, c);
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, prev));
	KUNIT_EXPECT_EQ(test, memcmp(prev, b, WGX_KEY_LEN), 0);
	KUNIT_EXPECT_NE(test, memcmp(prev, a, WGX_KEY_LEN), 0);
	KUNIT_EXPECT_EQ(test, wgx->identity_gen, 3U);
}

/* key_grace_s 0, or a key cleared: no previous key is kept. */
static void wgx_keygrace_none_without_grace(struct kunit *test)
{
	struct wgx_device *wgx = test->priv;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN];

	wgx->key_grace_s = 0;
	wgx_keygrace_test_set(test, wgx, a);
	wgx_keygrace_test_set(test, wgx, b);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&wgx->grace_work));
	/* Cleared during a grace: the grace goes with it. */
	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));
	mutex_lock(&wgx->device_update_lock);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_set_private_key(wgx, NULL), 0);
	mutex_unlock(&wgx->device_update_lock);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_FALSE(test, wgx_noise_identity_get_keys(wgx->prev_identity, NULL, NULL));
}

static struct kunit_case wgx_keygrace_cases[] = {
	KUNIT_CASE(wgx_keygrace_old_key_answers_during_grace),
	KUNIT_CASE(wgx_keygrace_timer_ends_grace),
	KUNIT_CASE(wgx_keygrace_second_change_drops_oldest),
	KUNIT_CASE(wgx_keygrace_none_without_grace),
	{}
};

static struct kunit_suite wgx_keygrace_suite = {
	.name = "wgx_keygrace",
	.init = wgx_keygrace_test_init,
	.exit = wgx_keygrace_test_exit,
	.test_cases = wgx_keygrace_cases,
};

kunit_test_suites(&wgx_keygrace_suite);
