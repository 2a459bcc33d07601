// SPDX-License-Identifier: GPL-2.0
/*
 * keygrace_kunit.c - KUnit suite "wgx_keygrace": private key changes and the
 * key grace period (kmod/keygrace.c, which this file compiles itself:
 * tests/kunit/Kbuild drops kmod/keygrace.o from the KUnit build, so the grace
 * worker and the period helpers are reachable).
 *
 * The device is the part of one wgx_newlink() makes that a key change
 * touches, with real peers (wgx_peer_create(), removed with
 * wgx_peer_remove() / wgx_peer_remove_all() as wgx_destruct() does).  Each
 * peer has a remote side: a core identity of its own that makes real
 * initiations to one of the device's public keys.  The test answers them
 * the way kmod/handshake.c does (MAC1 against the current, then the
 * previous cookie checker; the initiation consumed with the matching
 * identity and the peer's handle for it; a response the remote side must
 * accept), so "answered under the old key" means a session both sides
 * derived.  Times the grace depends on are moved, never waited for.
 */
#include "../../kmod/keygrace.c"

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/random.h>

#include "handshake.h"
#include "hsworker.h"
#include "kunit_util.h"

#define WGX_KEYGRACE_TEST_REMOTES 2

/* How the device answered an initiation. */
enum { WGX_KT_DROPPED = -1, WGX_KT_CURRENT = 0, WGX_KT_PREVIOUS = 1 };

/* A peer's own side: its static key, and our peer object for it. */
struct wgx_keygrace_remote {
	struct wgx_noise_identity *id;
	u8 pub[WGX_KEY_LEN];
	struct wgx_peer *peer;
};

struct wgx_keygrace_fixture {
	struct wgx_device *wgx;
	struct wgx_keygrace_remote r[WGX_KEYGRACE_TEST_REMOTES];
	u64 now_ns;	/* both sides' handshake clock, one second per message */
};

/* Module-wide state a peer needs (the module's init runs after the suites). */
static int wgx_keygrace_suite_init(struct kunit_suite *suite)
{
	int ret = wgx_platform_init();

	if (ret)
		return ret;
	ret = wgx_peer_init();
	if (ret)
		goto err_platform;
	ret = wgx_hsworker_init();
	if (ret)
		goto err_peer;
	return 0;

err_peer:
	wgx_peer_exit();
err_platform:
	wgx_platform_exit();
	return ret;
}

static void wgx_keygrace_suite_exit(struct kunit_suite *suite)
{
	rcu_barrier();		/* the peers' and keypairs' RCU frees */
	wgx_hsworker_exit();
	wgx_peer_exit();
	wgx_platform_exit();
}

static int wgx_keygrace_test_init(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct wgx_device *wgx;

	KUNIT_ASSERT_NOT_NULL(test, f);
	test->priv = f;
	f->now_ns = 1000ULL * NSEC_PER_SEC;
	wgx = kunit_kzalloc(test, sizeof(*wgx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wgx);
	f->wgx = wgx;
	/* As wgx_setup() and wgx_newlink(); never registered, so never up. */
	mutex_init(&wgx->device_update_lock);
	init_rwsem(&wgx->identity_lock);
	spin_lock_init(&wgx->cookie_lock);
	INIT_LIST_HEAD(&wgx->peer_list);
	xa_init(&wgx->port_caches);
	wgx->listen_ports = 1;
	wgx_keygrace_init(wgx);
	wgx->dev = alloc_netdev(0, "wgxk%d", NET_NAME_UNKNOWN, ether_setup);
	wgx->identity = wgx_noise_identity_create(true);
	wgx->prev_identity = wgx_noise_identity_create(true);
	wgx->cookie_checker = wgx_cookie_checker_create(true);
	wgx->prev_cookie_checker = wgx_cookie_checker_create(true);
	wgx->allowedips = wgx_allowedips_create();
	wgx->peer_hashtable = wgx_pubkey_hashtable_alloc();
	wgx->index_hashtable = wgx_index_hashtable_alloc();
	wgx->rx_wq = alloc_workqueue("wgx-kunit-rx", 0, 0);
	KUNIT_ASSERT_TRUE(test, wgx->dev && wgx->identity && wgx->prev_identity &&
			  wgx->cookie_checker && wgx->prev_cookie_checker && wgx->allowedips &&
			  wgx->peer_hashtable && wgx->index_hashtable && wgx->rx_wq);
	return 0;
}

/* The device's destruction, in wgx_destruct()'s order (a grace may still run). */
static void wgx_keygrace_test_exit(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f ? f->wgx : NULL;
	int i;

	if (!wgx)
		return;
	wgx_keygrace_cancel_sync(wgx);
	mutex_lock(&wgx->device_update_lock);
	wgx_peer_remove_all(wgx);
	mutex_unlock(&wgx->device_update_lock);
	rcu_barrier();
	if (wgx->allowedips)
		wgx_allowedips_destroy(wgx->allowedips);
	xa_destroy(&wgx->port_caches);
	wgx_cookie_checker_destroy(wgx->cookie_checker);
	wgx_noise_identity_destroy(wgx->identity);
	wgx_cookie_checker_destroy(wgx->prev_cookie_checker);
	wgx_noise_identity_destroy(wgx->prev_identity);
	kvfree(wgx->index_hashtable);
	kvfree(wgx->peer_hashtable);
	if (wgx->rx_wq)
		destroy_workqueue(wgx->rx_wq);
	if (wgx->dev)
		free_netdev(wgx->dev);
	for (i = 0; i < WGX_KEYGRACE_TEST_REMOTES; i++)
		wgx_noise_identity_destroy(f->r[i].id);
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
	memzero_explicit(priv, sizeof(priv));
	KUNIT_ASSERT_EQ(test, ret, 0);
	down_read(&wgx->identity_lock);
	KUNIT_ASSERT_TRUE(test, wgx_noise_identity_get_keys(wgx->identity, pub, NULL));
	up_read(&wgx->identity_lock);
}

/* Whether a grace runs with a previous key, and which (@pub, may be NULL). */
static bool wgx_keygrace_test_prev(struct wgx_device *wgx, u8 *pub)
{
	bool has;

	down_read(&wgx->identity_lock);
	has = wgx->grace_active && wgx_noise_identity_get_keys(wgx->prev_identity, pub, NULL);
	up_read(&wgx->identity_lock);
	return has;
}

/* Run the grace's worker now, with the grace's end moved to @end (jiffies). */
static void wgx_keygrace_test_worker_at(struct wgx_device *wgx, unsigned long end)
{
	down_write(&wgx->identity_lock);
	wgx->grace_end = end;
	up_write(&wgx->identity_lock);
	wgx_keygrace_end_worker(&wgx->grace_work.work);
}

/* Remote side number @i with a random key, and a peer for it on the device. */
static struct wgx_peer *wgx_keygrace_test_add_peer(struct kunit *test,
						   struct wgx_keygrace_fixture *f, int i)
{
	struct wgx_keygrace_remote *r = &f->r[i];
	u8 priv[WGX_KEY_LEN];
	struct wgx_peer *peer;

	r->id = wgx_noise_identity_create(true);
	KUNIT_ASSERT_NOT_NULL(test, r->id);
	get_random_bytes(priv, sizeof(priv));
	KUNIT_ASSERT_EQ(test, wgx_noise_identity_set_private_key(r->id, priv), 0);
	memzero_explicit(priv, sizeof(priv));
	KUNIT_ASSERT_TRUE(test, wgx_noise_identity_get_keys(r->id, r->pub, NULL));
	mutex_lock(&f->wgx->device_update_lock);
	peer = wgx_peer_create(f->wgx, r->pub, NULL);
	mutex_unlock(&f->wgx->device_update_lock);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, peer);
	r->peer = peer;
	return peer;
}

/*
 * The peer whose handshake holds receiver index @index, or NULL; only to
 * compare (the reference the lookup took is dropped).
 */
static struct wgx_peer *wgx_keygrace_test_index_owner(struct wgx_device *wgx, __le32 index)
{
	struct wgx_index_entry *entry;
	struct wgx_peer *peer = NULL;

	rcu_read_lock_bh();
	entry = wgx_index_hashtable_lookup(wgx->index_hashtable, WGX_INDEX_HANDSHAKE, index, &peer);
	rcu_read_unlock_bh();
	wgx_peer_put(peer);
	return entry ? peer : NULL;
}

/*
 * Remote @r sends an initiation to our public key @to; the device answers it
 * as handshake.c does.  Returns WGX_KT_DROPPED (MAC1 valid for no key we
 * hold, or refused), or which of our keys answered (then the remote side
 * took the response and both derived the same session).
 */
static int wgx_keygrace_test_answer(struct kunit *test, struct wgx_keygrace_fixture *f,
				    struct wgx_keygrace_remote *r, const u8 to[WGX_KEY_LEN])
{
	static const u8 src[6] = { 192, 0, 2, 1, 0xca, 0x6c };
	struct wgx_noise_initiation_scratch scratch;
	u8 init[WGX_MSG_INITIATION_LEN], resp[WGX_MSG_RESPONSE_LEN];
	struct wgx_keypair_keys ours = {}, theirs = {};
	struct wgx_noise_handshake *rhs, *hs;
	struct wgx_device *wgx = f->wgx;
	int answer = WGX_KT_DROPPED;
	struct wgx_peer *peer;
	u64 now;
	int ret;

	f->now_ns += NSEC_PER_SEC;
	now = f->now_ns;
	rhs = wgx_noise_handshake_create(r->id, to, NULL, true);
	KUNIT_ASSERT_NOT_NULL(test, rhs);
	ret = wgx_noise_create_initiation(rhs, init, 1, now, 1700000000ULL + now / NSEC_PER_SEC, 0);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret)
		goto out;

	spin_lock_bh(&wgx->cookie_lock);
	if (wgx_cookie_checker_validate(wgx->cookie_checker, init, sizeof(init), src, sizeof(src),
					false, now) == WGX_COOKIE_ACCEPT)
		answer = WGX_KT_CURRENT;
	else if (wgx_cookie_checker_validate(wgx->prev_cookie_checker, init, sizeof(init), src,
					     sizeof(src), false, now) == WGX_COOKIE_ACCEPT)
		answer = WGX_KT_PREVIOUS;
	spin_unlock_bh(&wgx->cookie_lock);
	if (answer == WGX_KT_DROPPED)
		goto out;

	down_read(&wgx->identity_lock);
	ret = wgx_noise_consume_initiation_begin(answer == WGX_KT_PREVIOUS ? wgx->prev_identity :
						 wgx->identity, init, sizeof(init), &scratch);
	if (ret) {
		up_read(&wgx->identity_lock);
		goto refused;
	}
	peer = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, scratch.remote_static);
	KUNIT_EXPECT_PTR_EQ(test, peer, r->peer);
	if (!peer) {
		wgx_noise_initiation_scratch_wipe(&scratch);
		up_read(&wgx->identity_lock);
		goto refused;
	}
	mutex_lock(&peer->handshake_lock);
	hs = wgx_handshake_handle(peer, answer == WGX_KT_PREVIOUS);
	ret = hs ? wgx_noise_consume_initiation_finish(hs, &scratch, now) : -ENOKEY;
	wgx_noise_initiation_scratch_wipe(&scratch);
	if (!ret)
		ret = wgx_noise_create_response(hs, resp, 2, now);
	if (!ret)
		ret = wgx_noise_begin_session(hs, &ours, now);
	mutex_unlock(&peer->handshake_lock);
	up_read(&wgx->identity_lock);
	wgx_peer_put(peer);
	if (ret)
		goto refused;

	KUNIT_EXPECT_EQ(test, wgx_noise_consume_response(rhs, resp, sizeof(resp), now), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_begin_session(rhs, &theirs, now), 0);
	WGX_KUNIT_EXPECT_MEMEQ(test, ours.receiving_key, theirs.sending_key, WGX_KEY_LEN);
	memzero_explicit(&ours, sizeof(ours));
	memzero_explicit(&theirs, sizeof(theirs));
	goto out;

refused:
	answer = WGX_KT_DROPPED;
out:
	wgx_noise_handshake_destroy(rhs);
	return answer;
}

/* Give @peer a current session (as its initiator) made with our identity generation @gen. */
static void wgx_keygrace_test_session(struct kunit *test, struct wgx_peer *peer, u32 gen)
{
	struct wgx_keypair *kp = wgx_keypair_create(peer, NULL);

	KUNIT_ASSERT_NOT_NULL(test, kp);
	kp->keys.initiator = true;
	kp->local_gen = gen;
	WRITE_ONCE(kp->sending_valid, true);
	WRITE_ONCE(kp->receiving_valid, true);
	KUNIT_ASSERT_TRUE(test, wgx_peer_keypair_install(peer, kp));
}

/*
 * With key_grace_s @grace_s: our key @a, peer 0 added with a session made
 * under it, then our key changed to @b.  Returns the peer.
 */
static struct wgx_peer *wgx_keygrace_test_rotate_with_session(struct kunit *test,
							      struct wgx_keygrace_fixture *f,
							      u32 grace_s, u8 a[WGX_KEY_LEN],
							      u8 b[WGX_KEY_LEN])
{
	struct wgx_peer *peer;

	f->wgx->key_grace_s = grace_s;
	wgx_keygrace_test_set(test, f->wgx, a);
	peer = wgx_keygrace_test_add_peer(test, f, 0);
	wgx_keygrace_test_session(test, peer, 1);
	wgx_keygrace_test_set(test, f->wgx, b);
	return peer;
}

/* The old key answers initiations during the grace, the new one too; not the old after it. */
static void wgx_keygrace_old_key_answers_during_grace(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN], prev[WGX_KEY_LEN];
	struct wgx_peer *peer;

	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	peer = wgx_keygrace_test_add_peer(test, f, 0);
	/* The first key replaces none: no grace. */
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&wgx->grace_work));
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_CURRENT);

	wgx_keygrace_test_set(test, wgx, b);
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, prev));
	WGX_KUNIT_EXPECT_MEMEQ(test, prev, a, WGX_KEY_LEN);
	KUNIT_EXPECT_EQ(test, wgx->identity_gen, 2U);
	KUNIT_EXPECT_NOT_NULL(test, peer->prev_handshake);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&wgx->grace_work));
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_PREVIOUS);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], b), WGX_KT_CURRENT);

	/* A run before the end (one that waited for the lock) leaves the grace. */
	wgx_keygrace_test_worker_at(wgx, jiffies + HZ);
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_PREVIOUS);

	/* At its end: the old key is wiped and dropped, the new one answers. */
	wgx_keygrace_test_worker_at(wgx, jiffies);
	KUNIT_EXPECT_FALSE(test, wgx->grace_active);
	KUNIT_EXPECT_FALSE(test, wgx_noise_identity_get_keys(wgx->prev_identity, NULL, NULL));
	KUNIT_EXPECT_NULL(test, peer->prev_handshake);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_DROPPED);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], b), WGX_KT_CURRENT);
	down_read(&wgx->identity_lock);
	KUNIT_EXPECT_TRUE(test, wgx_noise_identity_get_keys(wgx->identity, prev, NULL));
	up_read(&wgx->identity_lock);
	WGX_KUNIT_EXPECT_MEMEQ(test, prev, b, WGX_KEY_LEN);
}

/*
 * Sessions made with the old key keep sending through the grace and stop at
 * its end; one installed after the end by a handshake that raced it stops at
 * the check after installing, one made with the new key does not.
 */
static void wgx_keygrace_old_sessions_send_until_the_end(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN];
	struct wgx_peer *peer;

	peer = wgx_keygrace_test_rotate_with_session(test, f, 60, a, b);
	KUNIT_EXPECT_TRUE(test, wgx_peer_has_sending_keypair(peer));
	/* A handshake finishing now with either key keeps the session. */
	wgx_keygrace_expire_stale_sessions(wgx, peer);
	KUNIT_EXPECT_TRUE(test, wgx_peer_has_sending_keypair(peer));
	wgx_keygrace_test_worker_at(wgx, jiffies + HZ);
	KUNIT_EXPECT_TRUE(test, wgx_peer_has_sending_keypair(peer));

	wgx_keygrace_test_worker_at(wgx, jiffies);
	KUNIT_EXPECT_FALSE(test, wgx_peer_has_sending_keypair(peer));

	/* Made with the old key, installed after the grace ended. */
	wgx_keygrace_test_session(test, peer, 1);
	KUNIT_EXPECT_TRUE(test, wgx_peer_has_sending_keypair(peer));
	wgx_keygrace_expire_stale_sessions(wgx, peer);
	KUNIT_EXPECT_FALSE(test, wgx_peer_has_sending_keypair(peer));
	/* Made with the new key. */
	wgx_keygrace_test_session(test, peer, 2);
	wgx_keygrace_expire_stale_sessions(wgx, peer);
	KUNIT_EXPECT_TRUE(test, wgx_peer_has_sending_keypair(peer));
}

/* key_grace_s 0: the old key goes at once, and so does sending on its sessions. */
static void wgx_keygrace_zero_drops_old_key_at_once(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN];
	struct wgx_peer *peer;

	peer = wgx_keygrace_test_rotate_with_session(test, f, 0, a, b);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_FALSE(test, wgx_noise_identity_get_keys(wgx->prev_identity, NULL, NULL));
	KUNIT_EXPECT_NULL(test, peer->prev_handshake);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&wgx->grace_work));
	KUNIT_EXPECT_FALSE(test, wgx_peer_has_sending_keypair(peer));
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_DROPPED);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], b), WGX_KT_CURRENT);

	/* Clearing the key during a grace ends it. */
	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));
	mutex_lock(&wgx->device_update_lock);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_set_private_key(wgx, NULL), 0);
	mutex_unlock(&wgx->device_update_lock);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_FALSE(test, wgx_noise_identity_get_keys(wgx->prev_identity, NULL, NULL));
	KUNIT_EXPECT_NULL(test, peer->prev_handshake);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&wgx->grace_work));
}

/*
 * A second change during a grace (A, B, C): B is the previous key now, A is
 * dropped at once and so is sending on A's sessions; B's sessions go on.
 */
static void wgx_keygrace_second_change_keeps_the_newer_old_key(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN], c[WGX_KEY_LEN], prev[WGX_KEY_LEN];
	struct wgx_peer *pa, *pb;

	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	pa = wgx_keygrace_test_add_peer(test, f, 0);
	pb = wgx_keygrace_test_add_peer(test, f, 1);
	wgx_keygrace_test_session(test, pa, 1);
	wgx_keygrace_test_set(test, wgx, b);
	wgx_keygrace_test_session(test, pb, 2);
	wgx_keygrace_test_set(test, wgx, c);

	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, prev));
	WGX_KUNIT_EXPECT_MEMEQ(test, prev, b, WGX_KEY_LEN);
	KUNIT_EXPECT_EQ(test, wgx->identity_gen, 3U);
	KUNIT_EXPECT_FALSE(test, wgx_peer_has_sending_keypair(pa));
	KUNIT_EXPECT_TRUE(test, wgx_peer_has_sending_keypair(pb));
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_DROPPED);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], b), WGX_KT_PREVIOUS);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[1], b), WGX_KT_PREVIOUS);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[1], c), WGX_KT_CURRENT);
	/* The second grace is a full one from the second change. */
	KUNIT_EXPECT_TRUE(test, time_after(wgx->grace_end, jiffies + 50 * HZ));
}

/*
 * Initiating: a peer heard before the change initiates under the old key;
 * its initiation in progress holds the peer's index, which the grace's end
 * drops with the old key's handle.
 */
static void wgx_keygrace_end_drops_initiation_in_progress(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN], msg[WGX_MSG_INITIATION_LEN];
	struct wgx_peer *heard, *silent;
	__le32 index;

	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	heard = wgx_keygrace_test_add_peer(test, f, 0);
	silent = wgx_keygrace_test_add_peer(test, f, 1);
	heard->walltime_last_handshake.tv_sec = 1700000000;
	wgx_keygrace_test_set(test, wgx, b);
	KUNIT_EXPECT_TRUE(test, heard->init_prev);
	KUNIT_EXPECT_FALSE(test, silent->init_prev);

	/* What the initiation work does with init_prev set. */
	down_read(&wgx->identity_lock);
	mutex_lock(&heard->handshake_lock);
	index = wgx_index_hashtable_insert(wgx->index_hashtable, &heard->handshake_entry);
	KUNIT_EXPECT_EQ(test, wgx_noise_create_initiation(wgx_handshake_handle(heard, true), msg,
							  le32_to_cpu(index), f->now_ns,
							  1700000100, 0), 0);
	mutex_unlock(&heard->handshake_lock);
	up_read(&wgx->identity_lock);

	KUNIT_EXPECT_PTR_EQ(test, wgx_keygrace_test_index_owner(wgx, index), heard);

	wgx_keygrace_test_worker_at(wgx, jiffies);
	KUNIT_EXPECT_NULL(test, heard->prev_handshake);
	KUNIT_EXPECT_FALSE(test, heard->init_prev);
	KUNIT_EXPECT_NULL(test, wgx_keygrace_test_index_owner(wgx, index));
}

/*
 * A peer removed during the grace (with the old key's handle and an index
 * of its own) takes both with it: the grace goes on for the others and ends
 * normally.  Leaks would be kmemleak's report after the run.
 */
static void wgx_keygrace_peer_removed_during_grace(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN];
	struct wgx_peer *gone, *kept;
	__le32 index;

	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	gone = wgx_keygrace_test_add_peer(test, f, 0);
	kept = wgx_keygrace_test_add_peer(test, f, 1);
	wgx_keygrace_test_set(test, wgx, b);
	KUNIT_ASSERT_NOT_NULL(test, gone->prev_handshake);
	mutex_lock(&gone->handshake_lock);
	index = wgx_index_hashtable_insert(wgx->index_hashtable, &gone->handshake_entry);
	mutex_unlock(&gone->handshake_lock);

	mutex_lock(&wgx->device_update_lock);
	wgx_peer_remove(gone);
	mutex_unlock(&wgx->device_update_lock);
	f->r[0].peer = NULL;
	KUNIT_EXPECT_NULL(test, wgx_keygrace_test_index_owner(wgx, index));
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_DROPPED);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[1], a), WGX_KT_PREVIOUS);

	wgx_keygrace_test_worker_at(wgx, jiffies);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_NULL(test, kept->prev_handshake);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[1], a), WGX_KT_DROPPED);
}

/*
 * Device down during the grace: the down's per-peer wipe (wgx_stop():
 * keypairs and both handshake handles cleared) leaves the grace, whose old
 * key answers again after it; the end then runs on the down device.  The
 * case then deletes the device during a second grace (the fixture's exit,
 * in wgx_destruct()'s order); kmemleak checks that nothing stays.
 */
static void wgx_keygrace_down_and_delete_during_grace(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN], c[WGX_KEY_LEN];
	struct wgx_peer *peer;

	wgx->key_grace_s = 60;
	wgx_keygrace_test_set(test, wgx, a);
	peer = wgx_keygrace_test_add_peer(test, f, 0);
	wgx_keygrace_test_add_peer(test, f, 1);
	wgx_keygrace_test_session(test, peer, 1);
	wgx_keygrace_test_set(test, wgx, b);

	mutex_lock(&wgx->device_update_lock);
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		wgx_timers_peer_stop(peer);
		wgx_peer_clear_keypairs(peer);
		wgx_peer_clear_handshake(peer);
	}
	mutex_unlock(&wgx->device_update_lock);
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_NOT_NULL(test, f->r[0].peer->prev_handshake);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_PREVIOUS);

	wgx_keygrace_test_worker_at(wgx, jiffies);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_EQ(test, wgx_keygrace_test_answer(test, f, &f->r[0], a), WGX_KT_DROPPED);

	/* A second grace, left running for the device's deletion. */
	wgx_keygrace_test_set(test, wgx, c);
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&wgx->grace_work));
}

/*
 * The period's units and limits (WGX_DEVICE_A_KEY_GRACE: u32 seconds, at
 * most WGX_MAX_KEY_GRACE): its end and the worker's delay are that many
 * seconds of jiffies from the change; the end holds across the wrap of
 * jiffies, the longest included; the grace's own work ends it when due.
 */
static void wgx_keygrace_period_units_and_limits(struct kunit *test)
{
	struct wgx_keygrace_fixture *f = test->priv;
	struct wgx_device *wgx = f->wgx;
	const unsigned long max = wgx_keygrace_period(WGX_MAX_KEY_GRACE);
	unsigned long before, after, expires;
	u8 key[WGX_KEY_LEN];

	KUNIT_EXPECT_EQ(test, wgx_keygrace_period(0), 0UL);
	KUNIT_EXPECT_EQ(test, wgx_keygrace_period(1), (unsigned long)HZ);
	KUNIT_EXPECT_EQ(test, max, 86400UL * HZ);
	/* time_before() compares within half the range of jiffies. */
	KUNIT_EXPECT_LT(test, max, (unsigned long)LONG_MAX);

	wgx_keygrace_test_add_peer(test, f, 0);
	wgx->key_grace_s = WGX_MAX_KEY_GRACE;
	wgx_keygrace_test_set(test, wgx, key);
	before = jiffies;
	wgx_keygrace_test_set(test, wgx, key);
	after = jiffies;
	KUNIT_ASSERT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_TRUE(test, wgx->grace_end - before >= max &&
			  wgx->grace_end - before <= max + (after - before));
	KUNIT_ASSERT_TRUE(test, delayed_work_pending(&wgx->grace_work));
	expires = READ_ONCE(wgx->grace_work.timer.expires);
	KUNIT_EXPECT_TRUE(test, expires - before >= max &&
			  expires - before <= max + (after - before));
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_over(wgx, after));
	/* A run now leaves the longest grace. */
	wgx_keygrace_end_worker(&wgx->grace_work.work);
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_test_prev(wgx, NULL));

	/* The end, to the jiffy and across the wrap. */
	wgx->grace_end = 1000;
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_over(wgx, 999));
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_over(wgx, 1000));
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_over(wgx, 1000 + max));
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_over(wgx, 1000 - max));
	wgx->grace_end = max / 2;	/* set just before the wrap */
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_over(wgx, ULONG_MAX - max / 2));
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_over(wgx, max / 2 + 1));
	wgx->grace_end = ULONG_MAX - 10;	/* ends just before the wrap */
	KUNIT_EXPECT_TRUE(test, wgx_keygrace_over(wgx, 5));

	/* One second: HZ jiffies. */
	wgx->key_grace_s = 1;
	before = jiffies;
	wgx_keygrace_test_set(test, wgx, key);
	after = jiffies;
	KUNIT_EXPECT_TRUE(test, wgx->grace_end - before >= HZ &&
			  wgx->grace_end - before <= HZ + (after - before));

	/* The grace's own work, run by its workqueue once due, ends it. */
	down_write(&wgx->identity_lock);
	wgx->grace_end = jiffies;
	up_write(&wgx->identity_lock);
	mod_delayed_work(system_wq, &wgx->grace_work, 0);
	flush_delayed_work(&wgx->grace_work);
	KUNIT_EXPECT_FALSE(test, wgx_keygrace_test_prev(wgx, NULL));
	KUNIT_EXPECT_NULL(test, f->r[0].peer->prev_handshake);
}

static struct kunit_case wgx_keygrace_cases[] = {
	KUNIT_CASE(wgx_keygrace_old_key_answers_during_grace),
	KUNIT_CASE(wgx_keygrace_old_sessions_send_until_the_end),
	KUNIT_CASE(wgx_keygrace_zero_drops_old_key_at_once),
	KUNIT_CASE(wgx_keygrace_second_change_keeps_the_newer_old_key),
	KUNIT_CASE(wgx_keygrace_end_drops_initiation_in_progress),
	KUNIT_CASE(wgx_keygrace_peer_removed_during_grace),
	KUNIT_CASE(wgx_keygrace_down_and_delete_during_grace),
	KUNIT_CASE(wgx_keygrace_period_units_and_limits),
	{}
};

static struct kunit_suite wgx_keygrace_suite = {
	.name = "wgx_keygrace",
	.suite_init = wgx_keygrace_suite_init,
	.suite_exit = wgx_keygrace_suite_exit,
	.init = wgx_keygrace_test_init,
	.exit = wgx_keygrace_test_exit,
	.test_cases = wgx_keygrace_cases,
};

kunit_test_suites(&wgx_keygrace_suite);
