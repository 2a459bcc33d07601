// SPDX-License-Identifier: GPL-2.0
// Base64 key encoding edge cases (as wg(8) enforces them) and key generation.
#include <sodium.h>

#include "../../../tools/wgx/keys.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

TEST(ToolBase64, KnownEncodings)
{
    Key zero{};
    EXPECT_EQ(key_to_base64(zero), std::string(43, 'A') + "=");
    Key ones;
    ones.fill(0xff);
    EXPECT_EQ(key_to_base64(ones), std::string(42, '/') + "8=");
    Key seq;
    for (std::size_t i = 0; i < seq.size(); ++i)
        seq[i] = static_cast<std::uint8_t>(i);
    EXPECT_EQ(key_to_base64(seq), "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");
}

TEST(ToolBase64, AgreesWithLibsodiumBothWays)
{
    ASSERT_GE(sodium_init(), 0);
    for (int i = 0; i < 2000; ++i) {
        Key k;
        randombytes_buf(k.data(), k.size());
        char ref[sodium_base64_ENCODED_LEN(32, sodium_base64_VARIANT_ORIGINAL)];
        sodium_bin2base64(ref, sizeof(ref), k.data(), k.size(), sodium_base64_VARIANT_ORIGINAL);
        ASSERT_EQ(key_to_base64(k), ref);
        Key back;
        ASSERT_TRUE(key_from_base64(back, ref));
        ASSERT_EQ(back, k);
    }
}

TEST(ToolBase64, EveryAlphabetCharacterInEveryPosition)
{
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t pos = 0; pos < 42; ++pos) {
        for (std::size_t v = 0; v < 64; ++v) {
            std::string s = std::string(43, 'A') + "=";
            s[pos] = alphabet[v];
            Key k;
            ASSERT_TRUE(key_from_base64(k, s)) << s;
            ASSERT_EQ(key_to_base64(k), s);
        }
    }
}

TEST(ToolBase64, LastCharacterMustHaveZeroLowBits)
{
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t v = 0; v < 64; ++v) {
        std::string s = std::string(42, 'A') + alphabet[v] + "=";
        Key k;
        EXPECT_EQ(key_from_base64(k, s), (v & 3) == 0) << s;
    }
    Key k;
    ASSERT_TRUE(key_from_base64(k, std::string(42, 'A') + "E="));
    EXPECT_EQ(k[31], 1);  // 'E' = 4 = 0b000100: the low byte's last bit
}

TEST(ToolBase64, RejectsMalformed)
{
    const std::string good = test::kPub2;
    Key k;
    ASSERT_TRUE(key_from_base64(k, good));
    const std::vector<std::string> bad = {
        "",
        good.substr(0, 43),             // 43 characters
        good + "=",                     // 45 characters
        good + " ",                     // trailing space is not part of a key
        " " + good.substr(0, 43),       // leading space
        good.substr(0, 43) + "A",       // no padding
        good.substr(0, 42) + "==",      // 43rd character '='
        std::string(40, 'A') + "A=A=",  // '=' inside
        std::string(42, '-') + "A=",    // base64url alphabet
        std::string(42, '_') + "A=",
        std::string(41, 'A') + ".A=",
        std::string(20, 'A') + std::string(1, '\0') + std::string(21, 'A') + "A=",
        std::string(20, 'A') + "\xc3\xa9" + std::string(20, 'A') + "A=",  // UTF-8
        "h9Jxalc2eCk71CoPBkl+YCgqMRNBBBVcd9p7h2j81DJ=",                   // low bits set in last character
    };
    for (const std::string &s : bad) {
        k.fill(0xaa);
        EXPECT_FALSE(key_from_base64(k, s)) << "accepted `" << s << "'";
        EXPECT_TRUE(key_is_zero(k)) << "output not cleared for `" << s << "'";
    }
}

TEST(ToolKeys, PublicKeyMatchesRfc7748Vector)
{
    // RFC 7748 section 6.1, Alice.
    const std::uint8_t priv[32] = {0x77, 0x07, 0x6d, 0x0a, 0x73, 0x18, 0xa5, 0x7d, 0x3c, 0x16, 0xc1,
                                   0x72, 0x51, 0xb2, 0x66, 0x45, 0xdf, 0x4c, 0x2f, 0x87, 0xeb, 0xc0,
                                   0x99, 0x2a, 0xb1, 0x77, 0xfb, 0xa5, 0x1d, 0xb9, 0x2c, 0x2a};
    const std::uint8_t pub[32] = {0x85, 0x20, 0xf0, 0x09, 0x89, 0x30, 0xa7, 0x54, 0x74, 0x8b, 0x7d,
                                  0xdc, 0xb4, 0x3e, 0xf7, 0x5a, 0x0d, 0xbf, 0x3a, 0x0d, 0x26, 0x38,
                                  0x1a, 0xf4, 0xeb, 0xa4, 0xa9, 0x8e, 0xaa, 0x9b, 0x4e, 0x6a};
    Key p, out, expect;
    std::memcpy(p.data(), priv, 32);
    std::memcpy(expect.data(), pub, 32);
    ASSERT_TRUE(public_key_of(out, p));
    EXPECT_EQ(out, expect);
    // The fixture keys were made by wg genkey/pubkey.
    ASSERT_TRUE(public_key_of(out, test::key(test::kPriv1)));
    EXPECT_EQ(key_to_base64(out), test::kPub1);
}

TEST(ToolKeys, GeneratedPrivateKeysAreClampedAndDistinct)
{
    Key a, b;
    ASSERT_TRUE(generate_key(a, true));
    ASSERT_TRUE(generate_key(b, true));
    EXPECT_NE(a, b);
    for (const Key &k : {a, b}) {
        EXPECT_EQ(k[0] & 7, 0);
        EXPECT_EQ(k[31] & 0x80, 0);
        EXPECT_EQ(k[31] & 0x40, 0x40);
    }
    Key c;
    c.fill(0xff);
    clamp_private_key(c);
    EXPECT_EQ(c[0], 0xf8);
    EXPECT_EQ(c[31], 0x7f);
}

}  // namespace
}  // namespace wgx
