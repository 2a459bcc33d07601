// SPDX-License-Identifier: GPL-2.0
/*
 * platform_kunit.c - KUnit suite "wgx_platform": the kernel backend of
 * <wgx/platform.h> (kmod/platform.c, over lib/crypto) against the published
 * known-answer vectors of tests/kunit/vectors.h, the same ones the host
 * backend is tested with; plus deferred free under RCU.
 */
#include <kunit/test.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include <wgx/platform.h>

#include "kunit_util.h"
#include "vectors.h"

static void wgx_platform_chacha20poly1305_rfc8439_a5(struct kunit *test)
{
	size_t key_len, aad_len, plain_len, cipher_len;
	u8 *key = wgx_kunit_hex(test, WGX_VEC_A5_KEY, &key_len);
	u8 *aad = wgx_kunit_hex(test, WGX_VEC_A5_AAD, &aad_len);
	u8 *plain = wgx_kunit_hex(test, WGX_VEC_A5_PLAIN, &plain_len);
	u8 *cipher = wgx_kunit_hex(test, WGX_VEC_A5_CIPHER, &cipher_len);
	u8 *out, *buf;

	KUNIT_ASSERT_TRUE(test, key && aad && plain && cipher);
	KUNIT_ASSERT_EQ(test, key_len, (size_t)WGX_KEY_LEN);
	KUNIT_ASSERT_EQ(test, cipher_len, plain_len + WGX_AEAD_TAG_LEN);
	out = kunit_kzalloc(test, cipher_len, GFP_KERNEL);
	buf = kunit_kzalloc(test, cipher_len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, out && buf);

	wgx_platform_chacha20poly1305_encrypt(out, plain, plain_len, aad, aad_len,
					      WGX_VEC_A5_NONCE, key);
	WGX_KUNIT_EXPECT_MEMEQ(test, out, cipher, cipher_len);

	KUNIT_EXPECT_TRUE(test, wgx_platform_chacha20poly1305_decrypt(out, cipher, cipher_len, aad,
								      aad_len, WGX_VEC_A5_NONCE, key));
	WGX_KUNIT_EXPECT_MEMEQ(test, out, plain, plain_len);

	/* In place, both directions. */
	memcpy(buf, plain, plain_len);
	wgx_platform_chacha20poly1305_encrypt(buf, buf, plain_len, aad, aad_len, WGX_VEC_A5_NONCE, key);
	WGX_KUNIT_EXPECT_MEMEQ(test, buf, cipher, cipher_len);
	KUNIT_EXPECT_TRUE(test, wgx_platform_chacha20poly1305_decrypt(buf, buf, cipher_len, aad, aad_len,
								      WGX_VEC_A5_NONCE, key));
	WGX_KUNIT_EXPECT_MEMEQ(test, buf, plain, plain_len);
}

static void wgx_platform_chacha20poly1305_rejects_changes(struct kunit *test)
{
	size_t key_len, aad_len, cipher_len, i;
	u8 *key = wgx_kunit_hex(test, WGX_VEC_A5_KEY, &key_len);
	u8 *aad = wgx_kunit_hex(test, WGX_VEC_A5_AAD, &aad_len);
	u8 *cipher = wgx_kunit_hex(test, WGX_VEC_A5_CIPHER, &cipher_len);
	u8 *out, *bad;

	KUNIT_ASSERT_TRUE(test, key && aad && cipher);
	out = kunit_kzalloc(test, cipher_len, GFP_KERNEL);
	bad = kunit_kzalloc(test, cipher_len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, out && bad);

	for (i = 0; i < cipher_len; i += 7) {
		memcpy(bad, cipher, cipher_len);
		bad[i] ^= 0x01;
		KUNIT_EXPECT_FALSE_MSG(test, wgx_platform_chacha20poly1305_decrypt(out, bad, cipher_len,
				       aad, aad_len, WGX_VEC_A5_NONCE, key), "byte %zu flipped", i);
	}
	aad[0] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, wgx_platform_chacha20poly1305_decrypt(out, cipher, cipher_len, aad,
								       aad_len, WGX_VEC_A5_NONCE, key));
	aad[0] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, wgx_platform_chacha20poly1305_decrypt(out, cipher, cipher_len, aad,
								       aad_len, WGX_VEC_A5_NONCE + 1, key));
	/* Shorter than a tag: refused, not read out of bounds (KASAN watches). */
	KUNIT_EXPECT_FALSE(test, wgx_platform_chacha20poly1305_decrypt(out, cipher, WGX_AEAD_TAG_LEN - 1,
								       aad, aad_len, WGX_VEC_A5_NONCE, key));
	KUNIT_EXPECT_TRUE(test, wgx_platform_chacha20poly1305_decrypt(out, cipher, cipher_len, aad,
								      aad_len, WGX_VEC_A5_NONCE, key));
}

static void wgx_platform_xchacha20poly1305_draft_a31(struct kunit *test)
{
	static const char text[] = WGX_VEC_XC_PLAIN;
	const size_t plain_len = sizeof(text) - 1;
	size_t key_len, nonce_len, aad_len, cipher_len;
	u8 *key = wgx_kunit_hex(test, WGX_VEC_XC_KEY, &key_len);
	u8 *nonce = wgx_kunit_hex(test, WGX_VEC_XC_NONCE, &nonce_len);
	u8 *aad = wgx_kunit_hex(test, WGX_VEC_XC_AAD, &aad_len);
	u8 *cipher = wgx_kunit_hex(test, WGX_VEC_XC_CIPHER, &cipher_len);
	u8 *out;

	KUNIT_ASSERT_TRUE(test, key && nonce && aad && cipher);
	KUNIT_ASSERT_EQ(test, nonce_len, (size_t)WGX_XNONCE_LEN);
	KUNIT_ASSERT_EQ(test, cipher_len, plain_len + WGX_AEAD_TAG_LEN);
	out = kunit_kzalloc(test, cipher_len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);

	wgx_platform_xchacha20poly1305_encrypt(out, (const u8 *)text, plain_len, aad, aad_len, nonce, key);
	WGX_KUNIT_EXPECT_MEMEQ(test, out, cipher, cipher_len);

	memset(out, 0, cipher_len);
	KUNIT_EXPECT_TRUE(test, wgx_platform_xchacha20poly1305_decrypt(out, cipher, cipher_len, aad,
								       aad_len, nonce, key));
	WGX_KUNIT_EXPECT_MEMEQ(test, out, text, plain_len);

	nonce[WGX_XNONCE_LEN - 1] ^= 1;
	KUNIT_EXPECT_FALSE(test, wgx_platform_xchacha20poly1305_decrypt(out, cipher, cipher_len, aad,
									aad_len, nonce, key));
	nonce[WGX_XNONCE_LEN - 1] ^= 1;
	cipher[cipher_len - 1] ^= 1;
	KUNIT_EXPECT_FALSE(test, wgx_platform_xchacha20poly1305_decrypt(out, cipher, cipher_len, aad,
									aad_len, nonce, key));
}

static void wgx_platform_x25519_rfc7748(struct kunit *test)
{
	static const struct wgx_vec_x25519 vectors[] = WGX_VEC_X25519_52;
	u8 out[WGX_KEY_LEN];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		u8 *k = wgx_kunit_hex(test, vectors[i].scalar, &len);
		u8 *u = wgx_kunit_hex(test, vectors[i].u, &len);
		u8 *expected = wgx_kunit_hex(test, vectors[i].out, &len);

		KUNIT_ASSERT_TRUE(test, k && u && expected);
		KUNIT_EXPECT_TRUE(test, wgx_platform_curve25519(out, k, u));
		WGX_KUNIT_EXPECT_MEMEQ(test, out, expected, WGX_KEY_LEN);
	}
}

static void wgx_platform_x25519_rfc7748_dh(struct kunit *test)
{
	size_t len;
	u8 *a_priv = wgx_kunit_hex(test, WGX_VEC_X25519_61_A_PRIV, &len);
	u8 *a_pub = wgx_kunit_hex(test, WGX_VEC_X25519_61_A_PUB, &len);
	u8 *b_priv = wgx_kunit_hex(test, WGX_VEC_X25519_61_B_PRIV, &len);
	u8 *b_pub = wgx_kunit_hex(test, WGX_VEC_X25519_61_B_PUB, &len);
	u8 *shared = wgx_kunit_hex(test, WGX_VEC_X25519_61_SHARED, &len);
	u8 pub[WGX_KEY_LEN], k[WGX_KEY_LEN];

	KUNIT_ASSERT_TRUE(test, a_priv && a_pub && b_priv && b_pub && shared);
	KUNIT_EXPECT_TRUE(test, wgx_platform_curve25519_generate_public(pub, a_priv));
	WGX_KUNIT_EXPECT_MEMEQ(test, pub, a_pub, WGX_KEY_LEN);
	KUNIT_EXPECT_TRUE(test, wgx_platform_curve25519_generate_public(pub, b_priv));
	WGX_KUNIT_EXPECT_MEMEQ(test, pub, b_pub, WGX_KEY_LEN);
	KUNIT_EXPECT_TRUE(test, wgx_platform_curve25519(k, a_priv, b_pub));
	WGX_KUNIT_EXPECT_MEMEQ(test, k, shared, WGX_KEY_LEN);
	KUNIT_EXPECT_TRUE(test, wgx_platform_curve25519(k, b_priv, a_pub));
	WGX_KUNIT_EXPECT_MEMEQ(test, k, shared, WGX_KEY_LEN);
}

static void wgx_platform_x25519_rejects_zero_results(struct kunit *test)
{
	size_t len;
	u8 *a_priv = wgx_kunit_hex(test, WGX_VEC_X25519_61_A_PRIV, &len);
	u8 zero[WGX_KEY_LEN] = {}, one[WGX_KEY_LEN] = { 1 }, out[WGX_KEY_LEN];

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a_priv);
	/* u = 0 and u = 1 are small-order points: the clamped product is zero. */
	memset(out, 0xaa, sizeof(out));
	KUNIT_EXPECT_FALSE(test, wgx_platform_curve25519(out, a_priv, zero));
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(out, sizeof(out)));
	memset(out, 0xaa, sizeof(out));
	KUNIT_EXPECT_FALSE(test, wgx_platform_curve25519(out, a_priv, one));
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(out, sizeof(out)));
	memset(out, 0xaa, sizeof(out));
	KUNIT_EXPECT_FALSE(test, wgx_platform_curve25519_generate_public(out, zero));
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(out, sizeof(out)));
}

static void wgx_platform_generated_secrets(struct kunit *test)
{
	u8 a[WGX_KEY_LEN], b[WGX_KEY_LEN], pa[WGX_KEY_LEN], pb[WGX_KEY_LEN];
	u8 ka[WGX_KEY_LEN], kb[WGX_KEY_LEN];

	wgx_platform_curve25519_generate_secret(a);
	wgx_platform_curve25519_generate_secret(b);
	KUNIT_EXPECT_NE(test, memcmp(a, b, WGX_KEY_LEN), 0);
	/* Clamped (RFC 7748 section 5). */
	KUNIT_EXPECT_EQ(test, a[0] & 7, 0);
	KUNIT_EXPECT_EQ(test, a[31] & 0xc0, 0x40);
	KUNIT_EXPECT_EQ(test, b[0] & 7, 0);
	KUNIT_EXPECT_EQ(test, b[31] & 0xc0, 0x40);
	KUNIT_ASSERT_TRUE(test, wgx_platform_curve25519_generate_public(pa, a));
	KUNIT_ASSERT_TRUE(test, wgx_platform_curve25519_generate_public(pb, b));
	KUNIT_ASSERT_TRUE(test, wgx_platform_curve25519(ka, a, pb));
	KUNIT_ASSERT_TRUE(test, wgx_platform_curve25519(kb, b, pa));
	WGX_KUNIT_EXPECT_MEMEQ(test, ka, kb, WGX_KEY_LEN);
}

static void wgx_platform_blake2s_rfc7693(struct kunit *test)
{
	static const u8 abc[] = "abc";
	struct wgx_iov iov = { .base = abc, .len = 3 };
	size_t len;
	u8 *expected_abc = wgx_kunit_hex(test, WGX_VEC_BLAKE2S_ABC, &len);
	u8 *expected_empty = wgx_kunit_hex(test, WGX_VEC_BLAKE2S_EMPTY, &len);
	u8 out[WGX_BLAKE2S_HASH_LEN];

	KUNIT_ASSERT_TRUE(test, expected_abc && expected_empty);
	wgx_platform_blake2s(out, sizeof(out), NULL, 0, &iov, 1);
	WGX_KUNIT_EXPECT_MEMEQ(test, out, expected_abc, sizeof(out));
	wgx_platform_blake2s(out, sizeof(out), NULL, 0, NULL, 0);
	WGX_KUNIT_EXPECT_MEMEQ(test, out, expected_empty, sizeof(out));
}

static void wgx_platform_blake2s_keyed_kat(struct kunit *test)
{
	static const struct wgx_vec_blake2s_keyed vectors[] = WGX_VEC_BLAKE2S_KEYED;
	const u8 *key = wgx_kunit_seq(test, 32, 0);
	const u8 *data = wgx_kunit_seq(test, 256, 0);
	u8 out[WGX_BLAKE2S_HASH_LEN];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		struct wgx_iov iov = { .base = data, .len = vectors[i].n };
		u8 *expected = wgx_kunit_hex(test, vectors[i].out, &len);

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, expected);
		wgx_platform_blake2s(out, sizeof(out), key, 32, &iov, 1);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(out, expected, sizeof(out)), 0, "n = %u", vectors[i].n);
	}
}

/* A message split over several iovecs hashes like the concatenation. */
static void wgx_platform_blake2s_pieces(struct kunit *test)
{
	static const size_t cuts[] = { 0, 1, 63, 64, 65, 200 };
	const u8 *key = wgx_kunit_seq(test, 32, 0);
	const u8 *data = wgx_kunit_seq(test, 255, 0);
	struct wgx_iov whole = { .base = data, .len = 255 };
	u8 ref_hash[32], ref_mac[16], hash[32], mac[16];
	size_t i, j;

	wgx_platform_blake2s(ref_hash, 32, NULL, 0, &whole, 1);
	wgx_platform_blake2s(ref_mac, 16, key, 32, &whole, 1);
	for (i = 0; i < ARRAY_SIZE(cuts); i++) {
		for (j = cuts[i]; j < 255; j += 97) {
			struct wgx_iov iov[3] = {
				{ .base = data, .len = cuts[i] },
				{ .base = data + cuts[i], .len = j - cuts[i] },
				{ .base = data + j, .len = 255 - j },
			};

			wgx_platform_blake2s(hash, 32, NULL, 0, iov, 3);
			wgx_platform_blake2s(mac, 16, key, 32, iov, 3);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(hash, ref_hash, 32), 0, "cuts %zu/%zu", cuts[i], j);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(mac, ref_mac, 16), 0, "cuts %zu/%zu", cuts[i], j);
		}
	}
}

static void wgx_platform_memory_and_random(struct kunit *test)
{
	u8 a[64], b[64], r1[32], r2[32];
	u8 *p;
	size_t i;

	for (i = 0; i < sizeof(a); i++)
		a[i] = b[i] = (u8)i;
	KUNIT_EXPECT_EQ(test, wgx_platform_memneq(a, b, 64), 0);
	b[63] ^= 1;
	KUNIT_EXPECT_NE(test, wgx_platform_memneq(a, b, 64), 0);
	KUNIT_EXPECT_EQ(test, wgx_platform_memneq(a, b, 63), 0);
	wgx_platform_memzero_explicit(a, sizeof(a));
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(a, sizeof(a)));

	wgx_platform_get_random_bytes(r1, sizeof(r1));
	wgx_platform_get_random_bytes(r2, sizeof(r2));
	KUNIT_EXPECT_NE(test, memcmp(r1, r2, sizeof(r1)), 0);

	p = wgx_platform_zalloc(100, true);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(p, 100));
	wgx_platform_free(p);
	wgx_platform_free(NULL);
	/* Atomic allocation from a BH-disabled section. */
	local_bh_disable();
	p = wgx_platform_zalloc(64, false);
	local_bh_enable();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	wgx_platform_free(p);
}

struct wgx_platform_deferred_obj {
	u8 payload[40];
	struct wgx_rcu_head rcu;
	u8 tail[8];
};

/*
 * Deferred frees really wait for readers: an RCU reader that loaded the
 * object before it was freed can still read it (KASAN would report a
 * use-after-free otherwise), and after rcu_barrier() the memory is gone
 * (kmemleak would report it otherwise, at the end of the run).
 */
static void wgx_platform_free_deferred_waits_for_readers(struct kunit *test)
{
	struct wgx_platform_deferred_obj *obj, *seen;
	struct wgx_platform_deferred_obj __rcu *slot;
	int i;

	for (i = 0; i < 64; i++) {
		obj = wgx_platform_zalloc(sizeof(*obj), i & 1);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
		memset(obj->payload, 0x5a, sizeof(obj->payload));
		rcu_assign_pointer(slot, obj);

		rcu_read_lock();
		seen = rcu_dereference(slot);
		RCU_INIT_POINTER(slot, NULL);
		wgx_platform_free_deferred(obj, &obj->rcu);
		/* Still ours to read until rcu_read_unlock(). */
		KUNIT_EXPECT_EQ(test, seen->payload[0], 0x5a);
		KUNIT_EXPECT_EQ(test, seen->payload[sizeof(seen->payload) - 1], 0x5a);
		rcu_read_unlock();
	}
	rcu_barrier();
}

static struct kunit_case wgx_platform_cases[] = {
	KUNIT_CASE(wgx_platform_chacha20poly1305_rfc8439_a5),
	KUNIT_CASE(wgx_platform_chacha20poly1305_rejects_changes),
	KUNIT_CASE(wgx_platform_xchacha20poly1305_draft_a31),
	KUNIT_CASE(wgx_platform_x25519_rfc7748),
	KUNIT_CASE(wgx_platform_x25519_rfc7748_dh),
	KUNIT_CASE(wgx_platform_x25519_rejects_zero_results),
	KUNIT_CASE(wgx_platform_generated_secrets),
	KUNIT_CASE(wgx_platform_blake2s_rfc7693),
	KUNIT_CASE(wgx_platform_blake2s_keyed_kat),
	KUNIT_CASE(wgx_platform_blake2s_pieces),
	KUNIT_CASE(wgx_platform_memory_and_random),
	KUNIT_CASE(wgx_platform_free_deferred_waits_for_readers),
	{}
};

static struct kunit_suite wgx_platform_suite = {
	.name = "wgx_platform",
	.test_cases = wgx_platform_cases,
};

kunit_test_suites(&wgx_platform_suite);
