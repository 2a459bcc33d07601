// SPDX-License-Identifier: GPL-2.0
/*
 * noise_kunit.c - KUnit suite "wgx_noise": the C++ core's Noise_IKpsk2
 * handshake, cookies and transport messages (kmod/core/{noise,cookie,
 * transport}.cpp, whitepaper 5.3-5.4) running inside the kernel over the
 * lib/crypto backend: two core instances ("a" initiates, "b" responds)
 * complete handshakes with and without a preshared key, exchange transport
 * data both ways, and reject replays, floods, corrupted messages and
 * mismatched keys; under load the cookie reply round trip works.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include <wgx/core.h>
#include <wgx/core_test.h>

#include "kunit_util.h"

#define SEC 1000000000ULL
#define T0 (1000 * SEC)			/* monotonic base, ns */
#define WALL0 1700000000ULL		/* real time base, s */
#define LOCAL_A 0x11223344U
#define LOCAL_B 0xa0b0c0d0U

struct wgx_noise_node {
	struct wgx_noise_identity *id;
	struct wgx_cookie_checker *checker;
	u8 priv[WGX_KEY_LEN], pub[WGX_KEY_LEN];
};

struct wgx_noise_pair {
	struct wgx_noise_node a, b;
	struct wgx_noise_handshake *a_hs;	/* a's state for peer b */
	struct wgx_noise_handshake *b_hs;	/* b's state for peer a */
};

static void wgx_noise_node_init(struct kunit *test, struct wgx_noise_node *n)
{
	n->id = wgx_noise_identity_create(true);
	n->checker = wgx_cookie_checker_create(true);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, n->id);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, n->checker);
	wgx_platform_curve25519_generate_secret(n->priv);
	KUNIT_ASSERT_EQ(test, wgx_noise_identity_set_private_key(n->id, n->priv), 0);
	KUNIT_ASSERT_TRUE(test, wgx_noise_identity_get_keys(n->id, n->pub, NULL));
	wgx_cookie_checker_set_identity(n->checker, n->id);
}

static int wgx_noise_init(struct kunit *test)
{
	struct wgx_noise_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	test->priv = p;
	wgx_noise_node_init(test, &p->a);
	wgx_noise_node_init(test, &p->b);
	return 0;
}

static void wgx_noise_exit(struct kunit *test)
{
	struct wgx_noise_pair *p = test->priv;

	if (!p)
		return;
	wgx_noise_handshake_destroy(p->a_hs);
	wgx_noise_handshake_destroy(p->b_hs);
	wgx_cookie_checker_destroy(p->a.checker);
	wgx_cookie_checker_destroy(p->b.checker);
	wgx_noise_identity_destroy(p->a.id);
	wgx_noise_identity_destroy(p->b.id);
}

static void wgx_noise_peers(struct kunit *test, const u8 *psk_a, const u8 *psk_b)
{
	struct wgx_noise_pair *p = test->priv;

	p->a_hs = wgx_noise_handshake_create(p->a.id, p->b.pub, psk_a, true);
	p->b_hs = wgx_noise_handshake_create(p->b.id, p->a.pub, psk_b, true);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->a_hs);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->b_hs);
}

/* b's receive path for an initiation: MACs, then both phases.  -1000: MAC drop. */
static int wgx_noise_test_consume_initiation(struct wgx_noise_pair *p, const u8 *msg, size_t len,
					     u64 now)
{
	struct wgx_noise_initiation_scratch s;
	int ret;

	if (wgx_cookie_checker_validate(p->b.checker, msg, len, NULL, 0, false, now) !=
	    WGX_COOKIE_ACCEPT)
		return -1000;
	ret = wgx_noise_consume_initiation_begin(p->b.id, msg, len, &s);
	if (ret)
		return ret;
	if (memcmp(s.remote_static, p->a.pub, WGX_KEY_LEN)) {
		wgx_noise_initiation_scratch_wipe(&s);
		return -2000;
	}
	return wgx_noise_consume_initiation_finish(p->b_hs, &s, now);
}

static int wgx_noise_test_consume_response(struct wgx_noise_pair *p, const u8 *msg, size_t len,
					   u64 now)
{
	if (wgx_cookie_checker_validate(p->a.checker, msg, len, NULL, 0, false, now) !=
	    WGX_COOKIE_ACCEPT)
		return -1000;
	return wgx_noise_consume_response(p->a_hs, msg, len, now);
}

/* A whole handshake at @now / @wall; the two sides' keys in @ka / @kb. */
static void wgx_noise_handshake(struct kunit *test, struct wgx_keypair_keys *ka,
				struct wgx_keypair_keys *kb, u64 now, u64 wall)
{
	struct wgx_noise_pair *p = test->priv;
	u8 init[WGX_MSG_INITIATION_LEN], resp[WGX_MSG_RESPONSE_LEN];
	u32 index;

	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, now, wall, 0), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->a_hs), WGX_HANDSHAKE_CREATED_INITIATION);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_local_index(p->a_hs), LOCAL_A);
	KUNIT_EXPECT_EQ(test, wgx_msg_classify(init, sizeof(init)), WGX_MSG_INITIATION);
	KUNIT_ASSERT_EQ(test, wgx_noise_test_consume_initiation(p, init, sizeof(init), now), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->b_hs), WGX_HANDSHAKE_CONSUMED_INITIATION);

	KUNIT_ASSERT_EQ(test, wgx_noise_create_response(p->b_hs, resp, LOCAL_B, now), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->b_hs), WGX_HANDSHAKE_CREATED_RESPONSE);
	KUNIT_EXPECT_EQ(test, wgx_msg_classify(resp, sizeof(resp)), WGX_MSG_RESPONSE);
	KUNIT_ASSERT_TRUE(test, wgx_msg_receiver_index(resp, sizeof(resp), &index));
	KUNIT_EXPECT_EQ(test, index, LOCAL_A);
	KUNIT_ASSERT_EQ(test, wgx_noise_test_consume_response(p, resp, sizeof(resp), now), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->a_hs), WGX_HANDSHAKE_CONSUMED_RESPONSE);

	KUNIT_ASSERT_EQ(test, wgx_noise_begin_session(p->a_hs, ka, now), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_begin_session(p->b_hs, kb, now), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->a_hs), WGX_HANDSHAKE_ZEROED);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->b_hs), WGX_HANDSHAKE_ZEROED);
}

static void wgx_noise_expect_session(struct kunit *test, const struct wgx_keypair_keys *ka,
				     const struct wgx_keypair_keys *kb)
{
	WGX_KUNIT_EXPECT_MEMEQ(test, ka->sending_key, kb->receiving_key, WGX_KEY_LEN);
	WGX_KUNIT_EXPECT_MEMEQ(test, ka->receiving_key, kb->sending_key, WGX_KEY_LEN);
	KUNIT_EXPECT_NE(test, memcmp(ka->sending_key, ka->receiving_key, WGX_KEY_LEN), 0);
	KUNIT_EXPECT_FALSE(test, wgx_kunit_all_zero(ka->sending_key, WGX_KEY_LEN));
	KUNIT_EXPECT_FALSE(test, wgx_kunit_all_zero(ka->receiving_key, WGX_KEY_LEN));
	KUNIT_EXPECT_TRUE(test, ka->initiator);
	KUNIT_EXPECT_FALSE(test, kb->initiator);
	KUNIT_EXPECT_EQ(test, ka->local_index, LOCAL_A);
	KUNIT_EXPECT_EQ(test, ka->remote_index, LOCAL_B);
	KUNIT_EXPECT_EQ(test, kb->local_index, LOCAL_B);
	KUNIT_EXPECT_EQ(test, kb->remote_index, LOCAL_A);
}

/* One transport data message from @from to @to, checked byte for byte. */
static void wgx_noise_expect_transport(struct kunit *test, const struct wgx_keypair_keys *from,
				       const struct wgx_keypair_keys *to, u64 counter)
{
	static const char text[] = "a packet through the tunnel, not a multiple of 16";
	const size_t len = sizeof(text) - 1;
	size_t padded = wgx_transport_padded_len(len, 1420), msg_len = 0, plain_len = 0;
	wgx_u64 got_counter = ~0ULL;
	u32 index;
	u8 *msg = kunit_kzalloc(test, padded + 32, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, msg);
	KUNIT_EXPECT_EQ(test, padded, ALIGN(len, 16));
	KUNIT_ASSERT_EQ(test, wgx_transport_encrypt(msg, padded + 32, &msg_len, (const u8 *)text, len,
						    1420, from->sending_key, from->remote_index,
						    counter), 0);
	KUNIT_EXPECT_EQ(test, msg_len, padded + 32);
	KUNIT_EXPECT_EQ(test, wgx_msg_classify(msg, msg_len), WGX_MSG_TRANSPORT);
	KUNIT_ASSERT_TRUE(test, wgx_msg_receiver_index(msg, msg_len, &index));
	KUNIT_EXPECT_EQ(test, index, to->local_index);
	/* The plaintext is not on the wire. */
	KUNIT_EXPECT_EQ(test, memcmp(msg + 16, text, 16) == 0, false);

	KUNIT_ASSERT_EQ(test, wgx_transport_decrypt(msg, msg_len, to->receiving_key, &got_counter,
						    &plain_len), 0);
	KUNIT_EXPECT_EQ(test, got_counter, counter);
	KUNIT_EXPECT_EQ(test, plain_len, padded);
	WGX_KUNIT_EXPECT_MEMEQ(test, msg + 16, text, len);
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(msg + 16 + len, padded - len));
}

static void wgx_noise_full_handshake_without_psk(struct kunit *test)
{
	struct wgx_keypair_keys ka, kb;

	wgx_noise_peers(test, NULL, NULL);
	wgx_noise_handshake(test, &ka, &kb, T0, WALL0);
	wgx_noise_expect_session(test, &ka, &kb);
	KUNIT_EXPECT_EQ(test, ka.birth_ns, T0);
	wgx_noise_expect_transport(test, &ka, &kb, 0);
	wgx_noise_expect_transport(test, &kb, &ka, 0);
	wgx_noise_expect_transport(test, &ka, &kb, 12345);
	wgx_platform_memzero_explicit(&ka, sizeof(ka));
	wgx_platform_memzero_explicit(&kb, sizeof(kb));
}

static void wgx_noise_full_handshake_with_psk(struct kunit *test)
{
	const u8 *psk = wgx_kunit_seq(test, 32, 0x40);
	struct wgx_keypair_keys ka, kb, ka2, kb2;
	struct wgx_noise_pair *p = test->priv;
	u8 got[WGX_KEY_LEN];

	wgx_noise_peers(test, psk, psk);
	wgx_noise_handshake_get_preshared_key(p->a_hs, got);
	WGX_KUNIT_EXPECT_MEMEQ(test, got, psk, WGX_KEY_LEN);
	wgx_noise_handshake_get_remote_static(p->a_hs, got);
	WGX_KUNIT_EXPECT_MEMEQ(test, got, p->b.pub, WGX_KEY_LEN);
	wgx_noise_handshake(test, &ka, &kb, T0, WALL0);
	wgx_noise_expect_session(test, &ka, &kb);
	wgx_noise_expect_transport(test, &kb, &ka, 7);

	/* A second handshake gives fresh keys (new ephemerals). */
	wgx_noise_handshake(test, &ka2, &kb2, T0 + SEC, WALL0 + 1);
	wgx_noise_expect_session(test, &ka2, &kb2);
	KUNIT_EXPECT_NE(test, memcmp(ka.sending_key, ka2.sending_key, WGX_KEY_LEN), 0);
}

static void wgx_noise_mismatched_psk_fails(struct kunit *test)
{
	struct wgx_noise_pair *p = test->priv;
	const u8 *psk = wgx_kunit_seq(test, 32, 1);
	u8 init[WGX_MSG_INITIATION_LEN], resp[WGX_MSG_RESPONSE_LEN];

	wgx_noise_peers(test, psk, NULL);
	/* The psk enters only after the initiation: b accepts it and answers... */
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, WALL0, 0), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_test_consume_initiation(p, init, sizeof(init), T0), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_response(p->b_hs, resp, LOCAL_B, T0), 0);
	/* ...but a cannot authenticate the response. */
	KUNIT_EXPECT_EQ(test, wgx_noise_test_consume_response(p, resp, sizeof(resp), T0), -WGX_EBADMSG);
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->a_hs), WGX_HANDSHAKE_CREATED_INITIATION);
}

static void wgx_noise_replayed_initiation_rejected(struct kunit *test)
{
	struct wgx_noise_pair *p = test->priv;
	u8 first[WGX_MSG_INITIATION_LEN], older[WGX_MSG_INITIATION_LEN];

	wgx_noise_peers(test, NULL, NULL);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, older, LOCAL_A, T0, WALL0 - 5, 0), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, first, LOCAL_A, T0, WALL0, 0), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_test_consume_initiation(p, first, sizeof(first), T0), 0);
	/* The same message again, long after the flood interval. */
	KUNIT_EXPECT_EQ(test, wgx_noise_test_consume_initiation(p, first, sizeof(first), T0 + 10 * SEC),
			-WGX_EALREADY);
	/* An older timestamp. */
	KUNIT_EXPECT_EQ(test, wgx_noise_test_consume_initiation(p, older, sizeof(older), T0 + 11 * SEC),
			-WGX_EALREADY);
}

static void wgx_noise_initiation_flood_limit(struct kunit *test)
{
	struct wgx_noise_pair *p = test->priv;
	const u64 interval = SEC / WGX_INITIATIONS_PER_SECOND;
	u8 init[WGX_MSG_INITIATION_LEN];
	u64 wall = WALL0;

	wgx_noise_peers(test, NULL, NULL);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, wall++, 0), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_test_consume_initiation(p, init, sizeof(init), T0), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, wall++, 0), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_test_consume_initiation(p, init, sizeof(init), T0 + interval - 1),
			-WGX_EBUSY);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, wall++, 0), 0);
	KUNIT_EXPECT_EQ(test, wgx_noise_test_consume_initiation(p, init, sizeof(init), T0 + interval + 1), 0);
}

/*
 * Flip one bit in each byte of @msg (@len bytes, at most an initiation's) in
 * turn: a change before mac2 must make @consume refuse the message, a change
 * of mac2 (last 16 bytes; it counts only under load) must make @checker
 * answer with a cookie reply when under load.
 */
static void wgx_noise_test_flip_each_byte(struct kunit *test, struct wgx_noise_pair *p,
					  const u8 *msg, size_t len,
					  int (*consume)(struct wgx_noise_pair *p, const u8 *msg,
							 size_t len, u64 now),
					  struct wgx_cookie_checker *checker, const char *what)
{
	u8 bad[WGX_MSG_INITIATION_LEN];
	size_t i;

	KUNIT_ASSERT_LE(test, len, sizeof(bad));
	for (i = 0; i < len; i++) {
		memcpy(bad, msg, len);
		bad[i] ^= 1 << (i % 8);
		if (i < len - 16)
			KUNIT_EXPECT_NE_MSG(test, consume(p, bad, len, T0), 0, "%s byte %zu", what, i);
		else
			KUNIT_EXPECT_EQ_MSG(test, wgx_cookie_checker_validate(checker, bad, len, NULL, 0,
					    true, T0), WGX_COOKIE_SEND_REPLY, "%s byte %zu", what, i);
	}
}

/* Every single-bit change of an initiation or response is caught somewhere. */
static void wgx_noise_corrupted_messages_rejected(struct kunit *test)
{
	struct wgx_noise_pair *p = test->priv;
	u8 init[WGX_MSG_INITIATION_LEN], resp[WGX_MSG_RESPONSE_LEN];

	wgx_noise_peers(test, NULL, NULL);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, WALL0, 0), 0);
	/* mac1 covers everything before mac2. */
	wgx_noise_test_flip_each_byte(test, p, init, sizeof(init), wgx_noise_test_consume_initiation,
				      p->b.checker, "initiation");
	/* A truncated or extended one is malformed. */
	KUNIT_EXPECT_EQ(test, wgx_msg_classify(init, sizeof(init) - 1), 0);
	KUNIT_EXPECT_NE(test, wgx_noise_consume_initiation_begin(p->b.id, init, sizeof(init) - 1,
			&(struct wgx_noise_initiation_scratch){}), 0);
	/* The original still works afterwards: nothing was changed by the failures. */
	KUNIT_ASSERT_EQ(test, wgx_noise_test_consume_initiation(p, init, sizeof(init), T0), 0);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_response(p->b_hs, resp, LOCAL_B, T0), 0);
	wgx_noise_test_flip_each_byte(test, p, resp, sizeof(resp), wgx_noise_test_consume_response,
				      p->a.checker, "response");
	KUNIT_EXPECT_EQ(test, wgx_noise_test_consume_response(p, resp, sizeof(resp), T0), 0);
}

/* Under load: no mac2 -> cookie reply; with the cookie -> accepted for the ratelimiter. */
static void wgx_noise_cookie_round_trip_under_load(struct kunit *test)
{
	static const u8 src[6] = { 192, 0, 2, 1, 0xca, 0x6c };	/* 192.0.2.1:51820 */
	static const u8 other_src[6] = { 192, 0, 2, 2, 0xca, 0x6c };
	struct wgx_noise_pair *p = test->priv;
	u8 init[WGX_MSG_INITIATION_LEN], reply[WGX_MSG_COOKIE_REPLY_LEN];
	u32 index;

	wgx_noise_peers(test, NULL, NULL);
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, WALL0, 0), 0);
	KUNIT_EXPECT_EQ(test, wgx_cookie_checker_validate(p->b.checker, init, sizeof(init), src,
							  sizeof(src), false, T0), WGX_COOKIE_ACCEPT);
	KUNIT_EXPECT_EQ(test, wgx_cookie_checker_validate(p->b.checker, init, sizeof(init), src,
							  sizeof(src), true, T0), WGX_COOKIE_SEND_REPLY);
	KUNIT_ASSERT_EQ(test, wgx_cookie_checker_create_reply(p->b.checker, reply, init, sizeof(init),
							      src, sizeof(src), T0), 0);
	KUNIT_EXPECT_EQ(test, wgx_msg_classify(reply, sizeof(reply)), WGX_MSG_COOKIE_REPLY);
	KUNIT_ASSERT_TRUE(test, wgx_msg_receiver_index(reply, sizeof(reply), &index));
	KUNIT_EXPECT_EQ(test, index, LOCAL_A);

	/* A corrupted reply is refused, the genuine one accepted once. */
	reply[20] ^= 1;
	KUNIT_EXPECT_EQ(test, wgx_cookie_consume_reply(p->a_hs, reply, sizeof(reply), T0), -WGX_EBADMSG);
	reply[20] ^= 1;
	KUNIT_ASSERT_EQ(test, wgx_cookie_consume_reply(p->a_hs, reply, sizeof(reply), T0), 0);
	KUNIT_EXPECT_NE(test, wgx_cookie_consume_reply(p->a_hs, reply, sizeof(reply), T0), 0);

	/* The next initiation carries mac2 for this source only. */
	KUNIT_ASSERT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0 + SEC, WALL0 + 1, 0), 0);
	KUNIT_EXPECT_FALSE(test, wgx_kunit_all_zero(init + WGX_MSG_INITIATION_LEN - 16, 16));
	KUNIT_EXPECT_EQ(test, wgx_cookie_checker_validate(p->b.checker, init, sizeof(init), src,
							  sizeof(src), true, T0 + SEC),
			WGX_COOKIE_ACCEPT_RATELIMIT);
	KUNIT_EXPECT_EQ(test, wgx_cookie_checker_validate(p->b.checker, init, sizeof(init), other_src,
							  sizeof(other_src), true, T0 + SEC),
			WGX_COOKIE_SEND_REPLY);
	KUNIT_EXPECT_EQ(test, wgx_noise_test_consume_initiation(p, init, sizeof(init), T0 + SEC), 0);
}

static void wgx_noise_low_order_peer_key_rejected(struct kunit *test)
{
	static const u8 zero_key[WGX_KEY_LEN];
	struct wgx_noise_pair *p = test->priv;
	u8 init[WGX_MSG_INITIATION_LEN];

	p->a_hs = wgx_noise_handshake_create(p->a.id, zero_key, NULL, true);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->a_hs);
	KUNIT_EXPECT_FALSE(test, wgx_noise_handshake_precompute(p->a_hs));
	KUNIT_EXPECT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, WALL0, 0),
			-WGX_ENOKEY);
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(init, sizeof(init)));
	KUNIT_EXPECT_EQ(test, wgx_noise_handshake_state(p->a_hs), WGX_HANDSHAKE_ZEROED);
}

/*
 * Handles in the caller's memory (a peer embeds its own), made without the
 * static-static DH: the first initiation computes it at the initiator, its
 * consumption at the responder, and the session is the same as ever.
 */
static void wgx_noise_embedded_handles_handshake(struct kunit *test)
{
	struct wgx_noise_pair *p = test->priv;
	struct wgx_keypair_keys ka, kb;
	void *mem_a = kunit_kzalloc(test, wgx_noise_handshake_size(), GFP_KERNEL);
	void *mem_b = kunit_kzalloc(test, wgx_noise_handshake_size(), GFP_KERNEL);
	struct wgx_noise_handshake *a, *b;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem_a);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem_b);
	KUNIT_EXPECT_NULL(test, wgx_noise_handshake_init(mem_a, NULL, p->b.pub, NULL));
	a = wgx_noise_handshake_init(mem_a, p->a.id, p->b.pub, NULL);
	b = wgx_noise_handshake_init(mem_b, p->b.id, p->a.pub, NULL);
	KUNIT_ASSERT_PTR_EQ(test, a, (struct wgx_noise_handshake *)mem_a);
	KUNIT_ASSERT_PTR_EQ(test, b, (struct wgx_noise_handshake *)mem_b);
	p->a_hs = a;
	p->b_hs = b;
	wgx_noise_handshake(test, &ka, &kb, T0, WALL0);
	wgx_noise_expect_session(test, &ka, &kb);
	/* A second handshake uses the DH computed by the first. */
	wgx_noise_handshake(test, &ka, &kb, T0 + SEC, WALL0 + 1);
	wgx_noise_expect_session(test, &ka, &kb);
	wgx_noise_handshake_wipe(a);
	wgx_noise_handshake_wipe(b);
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(mem_a, wgx_noise_handshake_size()));
	p->a_hs = NULL;	/* kunit memory: not for _destroy() */
	p->b_hs = NULL;
}

/* A low-order key fails at the first message that needs the deferred DH, not at creation. */
static void wgx_noise_deferred_dh_low_order_fails_at_first_use(struct kunit *test)
{
	static const u8 zero_key[WGX_KEY_LEN];
	struct wgx_noise_pair *p = test->priv;
	u8 init[WGX_MSG_INITIATION_LEN];

	p->a_hs = wgx_noise_handshake_create(p->a.id, zero_key, NULL, true);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p->a_hs);
	KUNIT_EXPECT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0, WALL0, 0),
			-WGX_ENOKEY);
	KUNIT_EXPECT_EQ(test, wgx_noise_create_initiation(p->a_hs, init, LOCAL_A, T0 + SEC,
							  WALL0 + 1, 0), -WGX_ENOKEY);
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(init, sizeof(init)));
}

static void wgx_noise_transport_rejects_tampering(struct kunit *test)
{
	struct wgx_keypair_keys ka, kb;
	u8 msg[64 + 32], copy[sizeof(msg)];
	size_t msg_len = 0, plain_len;
	wgx_u64 counter;

	wgx_noise_peers(test, NULL, NULL);
	wgx_noise_handshake(test, &ka, &kb, T0, WALL0);
	memset(msg + 16, 0x33, 64);
	KUNIT_ASSERT_EQ(test, wgx_transport_encrypt(msg, sizeof(msg), &msg_len, msg + 16, 64, 0,
						    ka.sending_key, ka.remote_index, 99), 0);
	KUNIT_ASSERT_EQ(test, msg_len, sizeof(msg));
	memcpy(copy, msg, sizeof(msg));
	/* The counter is authenticated data: change it and decryption fails. */
	msg[8] ^= 1;
	KUNIT_EXPECT_EQ(test, wgx_transport_decrypt(msg, msg_len, kb.receiving_key, &counter,
						    &plain_len), -WGX_EBADMSG);
	memcpy(msg, copy, sizeof(msg));
	msg[msg_len - 1] ^= 0x80;
	KUNIT_EXPECT_EQ(test, wgx_transport_decrypt(msg, msg_len, kb.receiving_key, &counter,
						    &plain_len), -WGX_EBADMSG);
	memcpy(msg, copy, sizeof(msg));
	/* Wrong direction's key. */
	KUNIT_EXPECT_EQ(test, wgx_transport_decrypt(msg, msg_len, kb.sending_key, &counter,
						    &plain_len), -WGX_EBADMSG);
	memcpy(msg, copy, sizeof(msg));
	KUNIT_EXPECT_EQ(test, wgx_transport_decrypt(msg, msg_len, kb.receiving_key, &counter,
						    &plain_len), 0);
	KUNIT_EXPECT_EQ(test, counter, 99ULL);
	/* Counter limit (whitepaper 6.1). */
	KUNIT_EXPECT_EQ(test, wgx_transport_encrypt(msg, sizeof(msg), &msg_len, msg + 16, 64, 0,
						    ka.sending_key, ka.remote_index,
						    WGX_TRANSPORT_REJECT_AFTER_MESSAGES),
			-WGX_EKEYREJECTED);
}

static struct kunit_case wgx_noise_cases[] = {
	KUNIT_CASE(wgx_noise_full_handshake_without_psk),
	KUNIT_CASE(wgx_noise_full_handshake_with_psk),
	KUNIT_CASE(wgx_noise_mismatched_psk_fails),
	KUNIT_CASE(wgx_noise_replayed_initiation_rejected),
	KUNIT_CASE(wgx_noise_initiation_flood_limit),
	KUNIT_CASE(wgx_noise_corrupted_messages_rejected),
	KUNIT_CASE(wgx_noise_cookie_round_trip_under_load),
	KUNIT_CASE(wgx_noise_low_order_peer_key_rejected),
	KUNIT_CASE(wgx_noise_transport_rejects_tampering),
	KUNIT_CASE(wgx_noise_embedded_handles_handshake),
	KUNIT_CASE(wgx_noise_deferred_dh_low_order_fails_at_first_use),
	{}
};

static struct kunit_suite wgx_noise_suite = {
	.name = "wgx_noise",
	.init = wgx_noise_init,
	.exit = wgx_noise_exit,
	.test_cases = wgx_noise_cases,
};

kunit_test_suites(&wgx_noise_suite);
