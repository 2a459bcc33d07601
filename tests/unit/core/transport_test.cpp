// SPDX-License-Identifier: GPL-2.0
//
// Tests of transport data messages (kmod/core/transport.cpp, whitepaper
// 5.4.6): padding rule, layout, round trips, keepalives, corruption, counter
// limit, buffer sizes.
#include <gtest/gtest.h>

#include <wgx/core.h>
#include <wgx/core_test.h>

#include <array>
#include <cstring>
#include <vector>

namespace {

using Bytes = std::vector<wgx_u8>;

std::array<wgx_u8, 32> random_key()
{
    std::array<wgx_u8, 32> k;
    wgx_platform_get_random_bytes(k.data(), k.size());
    return k;
}

Bytes pattern(size_t n)
{
    Bytes b(n);
    for (size_t i = 0; i < n; ++i)
        b[i] = static_cast<wgx_u8>(i * 7 + 3);
    return b;
}

TEST(Transport, PaddedLength)
{
    struct {
        size_t len;
        wgx_u32 mtu;
        size_t padded;
    } const cases[] = {
        {0, 1420, 0},  // keepalive stays empty
        {1, 1420, 16},      {15, 1420, 16},     {16, 1420, 16},  {17, 1420, 32},
        {1408, 1420, 1408}, {1409, 1420, 1420},                   // 1424 would exceed the MTU
        {1419, 1420, 1420}, {1420, 1420, 1420}, {1419, 0, 1424},  // mtu 0: no limit
        {1421, 1420, 1436},                                       // GSO-sized: the last 1-byte unit is padded
        {2840, 1420, 2840}, {100, 50, 100},     {1, 8, 8},       {20, 18, 34},
    };
    for (const auto &c : cases)
        EXPECT_EQ(wgx_transport_padded_len(c.len, c.mtu), c.padded) << c.len << "/" << c.mtu;
    for (size_t len = 0; len < 3000; ++len) {
        for (wgx_u32 mtu : {0u, 576u, 1280u, 1420u, 9000u}) {
            const size_t padded = wgx_transport_padded_len(len, mtu);
            EXPECT_GE(padded, len);
            EXPECT_LT(padded - len, 16u);
            if (!mtu || len <= mtu) {
                EXPECT_TRUE(padded % 16 == 0 || padded == mtu) << len << "/" << mtu;
                if (mtu) {
                    EXPECT_LE(padded, mtu);
                }
            }
        }
    }
}

TEST(Transport, LayoutAndRoundTrip)
{
    const auto key = random_key();
    for (size_t len : {0ul, 1ul, 15ul, 16ul, 17ul, 100ul, 1407ul, 1419ul, 1420ul}) {
        const Bytes plain = pattern(len);
        const size_t padded = wgx_transport_padded_len(len, 1420);
        Bytes out(padded + 32 + 5, 0xcc);
        size_t out_len = 0;
        const wgx_u64 counter = 0x0102030405060708ULL + len;
        ASSERT_EQ(wgx_transport_encrypt(out.data(), out.size(), &out_len, plain.data(), len, 1420, key.data(),
                                        0xa1b2c3d4, counter),
                  0);
        ASSERT_EQ(out_len, padded + 32);
        // Header: type 4, zero reserved bytes, le32 receiver index, le64 counter.
        EXPECT_EQ(Bytes(out.begin(), out.begin() + 8), (Bytes{4, 0, 0, 0, 0xd4, 0xc3, 0xb2, 0xa1}));
        wgx_u64 c = 0;
        for (int i = 7; i >= 0; --i)
            c = c << 8 | out[8 + i];
        EXPECT_EQ(c, counter);
        // The payload is the platform AEAD of the zero-padded plaintext, nonce = counter, no AD.
        Bytes expect_plain = plain;
        expect_plain.resize(padded, 0);
        Bytes expect(padded + 16);
        wgx_platform_chacha20poly1305_encrypt(expect.data(), expect_plain.data(), padded, nullptr, 0, counter,
                                              key.data());
        EXPECT_EQ(Bytes(out.begin() + 16, out.begin() + out_len), expect);
        EXPECT_EQ(out[out_len], 0xcc);  // nothing written past the message

        size_t plain_len = 99;
        wgx_u64 got = 0;
        ASSERT_EQ(wgx_transport_decrypt(out.data(), out_len, key.data(), &got, &plain_len), 0);
        EXPECT_EQ(got, counter);
        EXPECT_EQ(plain_len, padded);
        EXPECT_EQ(Bytes(out.begin() + 16, out.begin() + 16 + padded), expect_plain);
    }
}

TEST(Transport, InPlaceEncryption)
{
    const auto key = random_key();
    const Bytes plain = pattern(50);
    Bytes buf(16 + 64 + 16);
    std::memcpy(buf.data() + 16, plain.data(), plain.size());
    size_t out_len = 0;
    ASSERT_EQ(
        wgx_transport_encrypt(buf.data(), buf.size(), &out_len, buf.data() + 16, plain.size(), 1420, key.data(), 1, 2),
        0);
    EXPECT_EQ(out_len, 16u + 64u + 16u);
    size_t plain_len = 0;
    wgx_u64 counter = 0;
    ASSERT_EQ(wgx_transport_decrypt(buf.data(), out_len, key.data(), &counter, &plain_len), 0);
    EXPECT_EQ(Bytes(buf.begin() + 16, buf.begin() + 16 + plain.size()), plain);
    // Plaintext overlapping the header region (starting at the buffer) works too.
    Bytes buf2(16 + 64 + 16);
    std::memcpy(buf2.data(), plain.data(), plain.size());
    ASSERT_EQ(
        wgx_transport_encrypt(buf2.data(), buf2.size(), &out_len, buf2.data(), plain.size(), 1420, key.data(), 1, 3),
        0);
    ASSERT_EQ(wgx_transport_decrypt(buf2.data(), out_len, key.data(), &counter, &plain_len), 0);
    EXPECT_EQ(Bytes(buf2.begin() + 16, buf2.begin() + 16 + plain.size()), plain);
}

TEST(Transport, Keepalive)
{
    const auto key = random_key();
    Bytes out(32);
    size_t out_len = 0, plain_len = 1;
    wgx_u64 counter = 0;
    ASSERT_EQ(wgx_transport_encrypt(out.data(), out.size(), &out_len, nullptr, 0, 1420, key.data(), 9, 0), 0);
    EXPECT_EQ(out_len, size_t(WGX_MSG_TRANSPORT_MIN_LEN));
    ASSERT_EQ(wgx_transport_decrypt(out.data(), out_len, key.data(), &counter, &plain_len), 0);
    EXPECT_EQ(plain_len, 0u);
}

TEST(Transport, EveryCorruptedByteIsRejected)
{
    const auto key = random_key();
    Bytes good(16 + 48 + 16);
    size_t len = 0;
    const Bytes plain = pattern(40);
    ASSERT_EQ(wgx_transport_encrypt(good.data(), good.size(), &len, plain.data(), plain.size(), 1420, key.data(),
                                    0x55667788, 1234),
              0);
    wgx_u32 good_idx = 0;
    ASSERT_TRUE(wgx_msg_receiver_index(good.data(), len, &good_idx));
    for (size_t i = 0; i < len; ++i) {
        for (wgx_u8 flip : {0x01, 0x40}) {
            Bytes bad(good.begin(), good.begin() + len);
            bad[i] ^= flip;
            if (i >= 4 && i < 8) {
                // Not covered by the AEAD: a changed receiver index makes the
                // glue's keypair lookup miss (or find a key that fails).
                wgx_u32 idx = 0;
                ASSERT_TRUE(wgx_msg_receiver_index(bad.data(), bad.size(), &idx));
                EXPECT_NE(idx, good_idx);
                continue;
            }
            size_t plain_len = 0;
            wgx_u64 counter = 0;
            const int ret = wgx_transport_decrypt(bad.data(), bad.size(), key.data(), &counter, &plain_len);
            EXPECT_NE(ret, 0) << "byte " << i;
            EXPECT_EQ(ret, i < 4 ? -WGX_EINVAL : -WGX_EBADMSG) << "byte " << i;
        }
    }
    // Truncated or extended messages fail authentication; too short ones are malformed.
    for (size_t l : {len - 1, len - 16, size_t(32)}) {
        Bytes bad(good.begin(), good.begin() + l);
        size_t plain_len = 0;
        wgx_u64 counter = 0;
        EXPECT_EQ(wgx_transport_decrypt(bad.data(), bad.size(), key.data(), &counter, &plain_len), -WGX_EBADMSG);
    }
    Bytes longer(good.begin(), good.begin() + len);
    longer.push_back(0);
    size_t plain_len = 0;
    wgx_u64 counter = 0;
    EXPECT_EQ(wgx_transport_decrypt(longer.data(), longer.size(), key.data(), &counter, &plain_len), -WGX_EBADMSG);
    EXPECT_EQ(wgx_transport_decrypt(good.data(), 31, key.data(), &counter, &plain_len), -WGX_EINVAL);
    const auto other = random_key();
    Bytes copy(good.begin(), good.begin() + len);
    EXPECT_EQ(wgx_transport_decrypt(copy.data(), copy.size(), other.data(), &counter, &plain_len), -WGX_EBADMSG);
    // The genuine message still decrypts.
    EXPECT_EQ(wgx_transport_decrypt(good.data(), len, key.data(), &counter, &plain_len), 0);
}

TEST(Transport, CounterLimit)
{
    const auto key = random_key();
    const wgx_u64 limit = WGX_TRANSPORT_REJECT_AFTER_MESSAGES;
    EXPECT_EQ(limit, 0xffffffffffffffffULL - (1ULL << 13));  // 2^64 - 2^13 - 1
    Bytes out(64);
    size_t len = 0, plain_len = 0;
    wgx_u64 counter = 0;
    EXPECT_EQ(wgx_transport_encrypt(out.data(), out.size(), &len, nullptr, 0, 1420, key.data(), 1, limit),
              -WGX_EKEYREJECTED);
    EXPECT_EQ(len, 0u);
    EXPECT_EQ(wgx_transport_encrypt(out.data(), out.size(), &len, nullptr, 0, 1420, key.data(), 1, ~0ULL),
              -WGX_EKEYREJECTED);
    ASSERT_EQ(wgx_transport_encrypt(out.data(), out.size(), &len, nullptr, 0, 1420, key.data(), 1, limit - 1), 0);
    ASSERT_EQ(wgx_transport_decrypt(out.data(), len, key.data(), &counter, &plain_len), 0);
    EXPECT_EQ(counter, limit - 1);

    // A received message claiming a counter at the limit is refused before decryption.
    Bytes hdr(16);
    EXPECT_EQ(wgx_transport_write_header(hdr.data(), 1, limit), -WGX_EKEYREJECTED);
    ASSERT_EQ(wgx_transport_write_header(hdr.data(), 1, limit - 1), 0);
    EXPECT_EQ(Bytes(hdr.begin(), hdr.begin() + 8), (Bytes{4, 0, 0, 0, 1, 0, 0, 0}));
    Bytes forged(32, 0);
    forged[0] = 4;
    for (int i = 0; i < 8; ++i)
        forged[8 + i] = static_cast<wgx_u8>(limit >> (8 * i));
    EXPECT_EQ(wgx_transport_decrypt(forged.data(), forged.size(), key.data(), &counter, &plain_len), -WGX_EKEYREJECTED);
}

TEST(Transport, BufferTooSmallAndBadArguments)
{
    const auto key = random_key();
    const Bytes plain = pattern(17);  // pads to 32, message 64
    Bytes out(64);
    size_t len = 7;
    EXPECT_EQ(wgx_transport_encrypt(out.data(), 63, &len, plain.data(), plain.size(), 1420, key.data(), 1, 1),
              -WGX_EMSGSIZE);
    EXPECT_EQ(len, 0u);
    EXPECT_EQ(wgx_transport_encrypt(out.data(), 20, &len, nullptr, 0, 1420, key.data(), 1, 1), -WGX_EMSGSIZE);
    EXPECT_EQ(wgx_transport_encrypt(out.data(), 64, &len, plain.data(), plain.size(), 1420, key.data(), 1, 1), 0);
    EXPECT_EQ(len, 64u);
    EXPECT_EQ(wgx_transport_encrypt(out.data(), 64, &len, nullptr, 5, 1420, key.data(), 1, 1), -WGX_EINVAL);
    EXPECT_EQ(wgx_transport_encrypt(out.data(), 64, nullptr, plain.data(), 1, 1420, key.data(), 1, 1), -WGX_EINVAL);
    EXPECT_EQ(wgx_transport_encrypt(out.data(), 64, &len, plain.data(), 1, 1420, nullptr, 1, 1), -WGX_EINVAL);
    wgx_u64 counter;
    size_t plain_len;
    EXPECT_EQ(wgx_transport_decrypt(out.data(), 64, nullptr, &counter, &plain_len), -WGX_EINVAL);
    EXPECT_EQ(wgx_transport_decrypt(nullptr, 64, key.data(), &counter, &plain_len), -WGX_EINVAL);
    EXPECT_EQ(wgx_transport_write_header(nullptr, 1, 1), -WGX_EINVAL);
}

}  // namespace
