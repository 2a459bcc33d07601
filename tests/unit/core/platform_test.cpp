// SPDX-License-Identifier: GPL-2.0
//
// Known-answer tests of the host platform backend through <wgx/platform.h>:
// ChaCha20-Poly1305 (RFC 8439 appendix A.5), XChaCha20-Poly1305
// (draft-irtf-cfrg-xchacha-03 appendix A.3.1), X25519 (RFC 7748 5.2 and 6.1),
// BLAKE2s (RFC 7693 appendix B "abc", the official BLAKE2 keyed KAT).
//
// RFC 8439 section 2.8.2's AEAD vector uses the nonce 07 00 00 00 || 40..47,
// which WireGuard's nonce layout (4 zero bytes || le64 counter, the only one
// the platform interface expresses) cannot represent; appendix A.5 of the same
// RFC has a zero prefix and is used instead.
//
// The vectors come from tests/kunit/vectors.h, which the KUnit suite of the
// kernel backend (tests/kunit/platform_kunit.c) reads too: one copy of the
// data holds both backends to the same answers.
#include <gtest/gtest.h>

#include <wgx/platform.h>

#include "../../kunit/vectors.h"
#include "core_test_util.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<wgx_u8>;

Bytes hex(const std::string &s)
{
    Bytes out;
    for (size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<wgx_u8>(std::stoi(s.substr(i, 2), nullptr, 16)));
    return out;
}

Bytes seq(size_t n)
{
    Bytes b(n);
    for (size_t i = 0; i < n; ++i)
        b[i] = static_cast<wgx_u8>(i);
    return b;
}

Bytes blake2s(const Bytes &in, const Bytes &key, size_t out_len = 32)
{
    Bytes out(out_len);
    wgx_iov iov{in.data(), in.size()};
    wgx_platform_blake2s(out.data(), out_len, key.empty() ? nullptr : key.data(), key.size(), &iov, 1);
    return out;
}

// ---- ChaCha20-Poly1305, RFC 8439 appendix A.5 ----

const char *A5_KEY = WGX_VEC_A5_KEY;
const wgx_u64 A5_NONCE = WGX_VEC_A5_NONCE;  // nonce bytes 00000000 0102030405060708
const char *A5_AAD = WGX_VEC_A5_AAD;
const char *A5_PLAIN = WGX_VEC_A5_PLAIN;
const char *A5_CIPHER = WGX_VEC_A5_CIPHER;  // ciphertext || 16-byte tag

TEST(Platform, ChaCha20Poly1305Rfc8439A5Decrypt)
{
    const Bytes key = hex(A5_KEY), aad = hex(A5_AAD), plain = hex(A5_PLAIN), cipher = hex(A5_CIPHER);
    ASSERT_EQ(cipher.size(), plain.size() + WGX_AEAD_TAG_LEN);
    Bytes out(plain.size());
    ASSERT_TRUE(wgx_platform_chacha20poly1305_decrypt(out.data(), cipher.data(), cipher.size(), aad.data(), aad.size(),
                                                      A5_NONCE, key.data()));
    EXPECT_EQ(out, plain);
}

TEST(Platform, ChaCha20Poly1305Rfc8439A5Encrypt)
{
    const Bytes key = hex(A5_KEY), aad = hex(A5_AAD), plain = hex(A5_PLAIN), cipher = hex(A5_CIPHER);
    Bytes out(cipher.size());
    wgx_platform_chacha20poly1305_encrypt(out.data(), plain.data(), plain.size(), aad.data(), aad.size(), A5_NONCE,
                                          key.data());
    EXPECT_EQ(out, cipher);

    // In place, both directions.
    Bytes buf = plain;
    buf.resize(cipher.size());
    wgx_platform_chacha20poly1305_encrypt(buf.data(), buf.data(), plain.size(), aad.data(), aad.size(), A5_NONCE,
                                          key.data());
    EXPECT_EQ(buf, cipher);
    ASSERT_TRUE(wgx_platform_chacha20poly1305_decrypt(buf.data(), buf.data(), buf.size(), aad.data(), aad.size(),
                                                      A5_NONCE, key.data()));
    EXPECT_EQ(Bytes(buf.begin(), buf.begin() + plain.size()), plain);
}

TEST(Platform, ChaCha20Poly1305RejectsAnyChange)
{
    const Bytes key = hex(A5_KEY), aad = hex(A5_AAD), cipher = hex(A5_CIPHER);
    Bytes out(cipher.size());
    for (size_t i = 0; i < cipher.size(); i += 7) {
        Bytes bad = cipher;
        bad[i] ^= 0x01;
        EXPECT_FALSE(wgx_platform_chacha20poly1305_decrypt(out.data(), bad.data(), bad.size(), aad.data(), aad.size(),
                                                           A5_NONCE, key.data()))
            << "byte " << i;
    }
    Bytes bad_aad = aad;
    bad_aad[0] ^= 0x80;
    EXPECT_FALSE(wgx_platform_chacha20poly1305_decrypt(out.data(), cipher.data(), cipher.size(), bad_aad.data(),
                                                       bad_aad.size(), A5_NONCE, key.data()));
    EXPECT_FALSE(wgx_platform_chacha20poly1305_decrypt(out.data(), cipher.data(), cipher.size(), aad.data(), aad.size(),
                                                       A5_NONCE + 1, key.data()));
    EXPECT_FALSE(wgx_platform_chacha20poly1305_decrypt(out.data(), cipher.data(), WGX_AEAD_TAG_LEN - 1, aad.data(),
                                                       aad.size(), A5_NONCE, key.data()));
}

// ---- XChaCha20-Poly1305, draft-irtf-cfrg-xchacha-03 appendix A.3.1 ----

TEST(Platform, XChaCha20Poly1305DraftA31)
{
    const Bytes key = hex(WGX_VEC_XC_KEY), nonce = hex(WGX_VEC_XC_NONCE), aad = hex(WGX_VEC_XC_AAD);
    const std::string text = WGX_VEC_XC_PLAIN;
    const Bytes plain(text.begin(), text.end());
    const Bytes expected = hex(WGX_VEC_XC_CIPHER);
    ASSERT_EQ(plain.size(), 114u);
    Bytes out(plain.size() + WGX_AEAD_TAG_LEN);
    wgx_platform_xchacha20poly1305_encrypt(out.data(), plain.data(), plain.size(), aad.data(), aad.size(), nonce.data(),
                                           key.data());
    EXPECT_EQ(out, expected);

    Bytes back(plain.size());
    ASSERT_TRUE(wgx_platform_xchacha20poly1305_decrypt(back.data(), expected.data(), expected.size(), aad.data(),
                                                       aad.size(), nonce.data(), key.data()));
    EXPECT_EQ(back, plain);

    Bytes bad_nonce = nonce;
    bad_nonce[23] ^= 1;
    EXPECT_FALSE(wgx_platform_xchacha20poly1305_decrypt(back.data(), expected.data(), expected.size(), aad.data(),
                                                        aad.size(), bad_nonce.data(), key.data()));
    Bytes bad = expected;
    bad[bad.size() - 1] ^= 1;
    EXPECT_FALSE(wgx_platform_xchacha20poly1305_decrypt(back.data(), bad.data(), bad.size(), aad.data(), aad.size(),
                                                        nonce.data(), key.data()));
}

// ---- X25519, RFC 7748 ----

TEST(Platform, X25519Rfc7748Section52)
{
    const wgx_vec_x25519 vectors[] = WGX_VEC_X25519_52;
    for (const auto &v : vectors) {
        const Bytes k = hex(v.scalar), u = hex(v.u);
        Bytes out(32);
        ASSERT_TRUE(wgx_platform_curve25519(out.data(), k.data(), u.data()));
        EXPECT_EQ(out, hex(v.out));
    }
}

TEST(Platform, X25519Rfc7748Section61DiffieHellman)
{
    const Bytes a_priv = hex(WGX_VEC_X25519_61_A_PRIV), a_pub = hex(WGX_VEC_X25519_61_A_PUB);
    const Bytes b_priv = hex(WGX_VEC_X25519_61_B_PRIV), b_pub = hex(WGX_VEC_X25519_61_B_PUB);
    const Bytes shared = hex(WGX_VEC_X25519_61_SHARED);

    Bytes pub(32), k(32);
    ASSERT_TRUE(wgx_platform_curve25519_generate_public(pub.data(), a_priv.data()));
    EXPECT_EQ(pub, a_pub);
    ASSERT_TRUE(wgx_platform_curve25519_generate_public(pub.data(), b_priv.data()));
    EXPECT_EQ(pub, b_pub);
    ASSERT_TRUE(wgx_platform_curve25519(k.data(), a_priv.data(), b_pub.data()));
    EXPECT_EQ(k, shared);
    ASSERT_TRUE(wgx_platform_curve25519(k.data(), b_priv.data(), a_pub.data()));
    EXPECT_EQ(k, shared);
}

TEST(Platform, X25519RejectsAllZeroResults)
{
    const Bytes a_priv = hex(WGX_VEC_X25519_61_A_PRIV);
    // u = 0 and u = 1 are small-order points: the clamped product is zero.
    Bytes zero(32, 0), one(32, 0);
    one[0] = 1;
    for (const Bytes *p : {&zero, &one}) {
        Bytes out(32, 0xaa);
        EXPECT_FALSE(wgx_platform_curve25519(out.data(), a_priv.data(), p->data()));
        EXPECT_EQ(out, Bytes(32, 0));
    }
    Bytes pub(32, 0xaa);
    EXPECT_FALSE(wgx_platform_curve25519_generate_public(pub.data(), zero.data()));
    EXPECT_EQ(pub, Bytes(32, 0));
}

TEST(Platform, GeneratedSecretsAreClampedAndAgree)
{
    Bytes a(32), b(32), pa(32), pb(32), ka(32), kb(32);
    wgx_platform_curve25519_generate_secret(a.data());
    wgx_platform_curve25519_generate_secret(b.data());
    EXPECT_NE(a, b);
    for (const Bytes *s : {&a, &b}) {
        EXPECT_EQ((*s)[0] & 7, 0);
        EXPECT_EQ((*s)[31] & 0xc0, 0x40);
    }
    ASSERT_TRUE(wgx_platform_curve25519_generate_public(pa.data(), a.data()));
    ASSERT_TRUE(wgx_platform_curve25519_generate_public(pb.data(), b.data()));
    ASSERT_TRUE(wgx_platform_curve25519(ka.data(), a.data(), pb.data()));
    ASSERT_TRUE(wgx_platform_curve25519(kb.data(), b.data(), pa.data()));
    EXPECT_EQ(ka, kb);
}

// ---- BLAKE2s ----

TEST(Platform, Blake2sRfc7693AppendixB)
{
    const std::string abc = "abc";
    EXPECT_EQ(blake2s(Bytes(abc.begin(), abc.end()), {}), hex(WGX_VEC_BLAKE2S_ABC));
    // Official BLAKE2 KAT, unkeyed, empty input.
    EXPECT_EQ(blake2s({}, {}), hex(WGX_VEC_BLAKE2S_EMPTY));
}

TEST(Platform, Blake2sOfficialKeyedKat)
{
    // blake2s-kat.txt (BLAKE2 reference repository): key = 00..1f, in = 00..(n-1).
    const wgx_vec_blake2s_keyed vectors[] = WGX_VEC_BLAKE2S_KEYED;
    for (const auto &v : vectors)
        EXPECT_EQ(blake2s(seq(v.n), seq(32)), hex(v.out)) << "n = " << v.n;
}

TEST(Platform, Blake2sPiecesHashAsConcatenation)
{
    const Bytes data = seq(255), key = seq(32);
    const Bytes whole_unkeyed = blake2s(data, {}), whole_keyed = blake2s(data, key, 16);
    for (size_t cut1 : {0u, 1u, 63u, 64u, 65u, 200u}) {
        for (size_t cut2 : {cut1, size_t(cut1 + 1), size_t(254)}) {
            if (cut2 < cut1)
                continue;
            wgx_iov iov[3] = {{data.data(), cut1}, {data.data() + cut1, cut2 - cut1}, {data.data() + cut2, 255 - cut2}};
            Bytes out(32), mac(16);
            wgx_platform_blake2s(out.data(), 32, nullptr, 0, iov, 3);
            wgx_platform_blake2s(mac.data(), 16, key.data(), 32, iov, 3);
            EXPECT_EQ(out, whole_unkeyed) << cut1 << "/" << cut2;
            EXPECT_EQ(mac, whole_keyed) << cut1 << "/" << cut2;
        }
    }
}

// Keyed BLAKE2s with outputs shorter than 32 bytes (WireGuard's MAC1/MAC2 use 16)
// has no published vectors of its own; compare against an independent
// implementation (Python's hashlib) when one is installed.  The interop test
// against wireguard-go checks the 16-byte MACs on the wire as well.
TEST(Platform, Blake2sKeyedShortOutputsMatchPythonHashlib)
{
    const auto py = wgx::test::python3_lines(
        "import hashlib\n"
        "for n in (1,16,20,28,31,32):\n"
        "  for klen in (1,16,32):\n"
        "    for mlen in (0,3,64,65,255):\n"
        "      print(hashlib.blake2s(bytes(range(mlen)), key=bytes(range(1,klen+1)), digest_size=n).hexdigest())\n");
    if (!py || py->empty())
        GTEST_SKIP() << "python3 with hashlib is not available";
    const std::vector<std::string> &lines = *py;
    ASSERT_EQ(lines.size(), 6u * 3u * 5u);
    size_t i = 0;
    for (size_t n : {1, 16, 20, 28, 31, 32})
        for (size_t klen : {1, 16, 32})
            for (size_t mlen : {0, 3, 64, 65, 255}) {
                Bytes key(klen);
                for (size_t j = 0; j < klen; ++j)
                    key[j] = static_cast<wgx_u8>(j + 1);
                EXPECT_EQ(blake2s(seq(mlen), key, n), hex(lines[i])) << n << " " << klen << " " << mlen;
                ++i;
            }
}

// ---- the rest of the interface ----

TEST(Platform, MemneqMemzeroRandomAlloc)
{
    Bytes a = seq(64), b = seq(64);
    EXPECT_EQ(wgx_platform_memneq(a.data(), b.data(), 64), 0);
    b[63] ^= 1;
    EXPECT_NE(wgx_platform_memneq(a.data(), b.data(), 64), 0);
    EXPECT_EQ(wgx_platform_memneq(a.data(), b.data(), 63), 0);

    wgx_platform_memzero_explicit(a.data(), a.size());
    EXPECT_EQ(a, Bytes(64, 0));

    Bytes r1(32), r2(32);
    wgx_platform_get_random_bytes(r1.data(), r1.size());
    wgx_platform_get_random_bytes(r2.data(), r2.size());
    EXPECT_NE(r1, r2);

    auto *p = static_cast<wgx_u8 *>(wgx_platform_zalloc(100, true));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(Bytes(p, p + 100), Bytes(100, 0));
    wgx_platform_free(p);
    wgx_platform_free(nullptr);

    struct Obj {
        int x;
        wgx_rcu_head rcu;
    };
    auto *o = static_cast<Obj *>(wgx_platform_zalloc(sizeof(Obj), false));
    ASSERT_NE(o, nullptr);
    wgx_platform_free_deferred(o, &o->rcu);
}

}  // namespace
