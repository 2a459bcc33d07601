// SPDX-License-Identifier: GPL-2.0
//
// Tests of MAC1/MAC2 and cookie replies (kmod/core/cookie.cpp, whitepaper
// 5.3, 5.4.4, 5.4.7) between two core instances.
#include <gtest/gtest.h>

#include <wgx/core.h>

#include "core_test_util.hpp"
#include "noise.hpp"

#include <cstring>
#include <vector>

namespace {

using wgx::test::all_zero;
using wgx::test::Bytes;
using wgx::test::Node;

constexpr wgx_u64 SEC = 1000000000ULL;
constexpr wgx_u64 T0 = 5000 * SEC;
constexpr wgx_u64 WALL0 = 1700000000ULL;
constexpr wgx_u32 LOCAL_A = 0x01020304, LOCAL_B = 0x0a0b0c0d;

// IPv4 192.0.2.1, port 51820, as the glue passes it: address || port, network order.
const Bytes SRC_A = {192, 0, 2, 1, 0xca, 0x6c};
const Bytes SRC_OTHER = {192, 0, 2, 2, 0xca, 0x6c};

struct Pair : wgx::test::NodePair {
    wgx_u64 wall = WALL0;

    Bytes initiation(wgx_u64 now)
    {
        Bytes m(WGX_MSG_INITIATION_LEN);
        EXPECT_EQ(wgx_noise_create_initiation(a_hs, m.data(), LOCAL_A, now, wall++, 0), 0);
        return m;
    }
    wgx_cookie_verdict check_at_b(const Bytes &m, bool under_load, wgx_u64 now, const Bytes &src = SRC_A)
    {
        return wgx_cookie_checker_validate(b.checker, m.data(), m.size(), src.data(), src.size(), under_load, now);
    }
    Bytes cookie_reply_from_b(const Bytes &m, wgx_u64 now, const Bytes &src = SRC_A)
    {
        Bytes r(WGX_MSG_COOKIE_REPLY_LEN);
        EXPECT_EQ(wgx_cookie_checker_create_reply(b.checker, r.data(), m.data(), m.size(), src.data(), src.size(), now),
                  0);
        return r;
    }
};

TEST(Cookie, Mac1IsCheckedAndMac2IgnoredWhenNotUnderLoad)
{
    Pair p;
    Bytes m = p.initiation(T0);
    EXPECT_TRUE(all_zero(m.data() + 132, 16));  // no cookie yet: mac2 is zero
    EXPECT_EQ(p.check_at_b(m, false, T0), WGX_COOKIE_ACCEPT);
    // Only b's checker accepts it: mac1 is keyed with b's public key.
    EXPECT_EQ(wgx_cookie_checker_validate(p.a.checker, m.data(), m.size(), nullptr, 0, false, T0), WGX_COOKIE_DROP);
    Bytes bad = m;
    bad[116] ^= 1;
    EXPECT_EQ(p.check_at_b(bad, false, T0), WGX_COOKIE_DROP);
    bad = m;
    bad[140] ^= 1;  // mac2
    EXPECT_EQ(p.check_at_b(bad, false, T0), WGX_COOKIE_ACCEPT);
}

TEST(Cookie, RoundTripUnderLoad)
{
    Pair p;
    Bytes m = p.initiation(T0);
    // Under load, a message without a valid mac2 gets a cookie reply instead of being processed.
    ASSERT_EQ(p.check_at_b(m, true, T0), WGX_COOKIE_SEND_REPLY);
    Bytes reply = p.cookie_reply_from_b(m, T0);
    EXPECT_EQ(wgx_msg_classify(reply.data(), reply.size()), WGX_MSG_COOKIE_REPLY);
    wgx_u32 idx = 0;
    ASSERT_TRUE(wgx_msg_receiver_index(reply.data(), reply.size(), &idx));
    EXPECT_EQ(idx, LOCAL_A);  // the sender index of the message it answers

    ASSERT_EQ(wgx_cookie_consume_reply(p.a_hs, reply.data(), reply.size(), T0 + 1), 0);
    // The same reply again: no message of ours awaits a cookie any more.
    EXPECT_EQ(wgx_cookie_consume_reply(p.a_hs, reply.data(), reply.size(), T0 + 1), -WGX_ESTALE);

    // The retried initiation carries mac2 and passes under load.
    Bytes m2 = p.initiation(T0 + 2);
    EXPECT_FALSE(all_zero(m2.data() + 132, 16));
    EXPECT_EQ(p.check_at_b(m2, true, T0 + 2), WGX_COOKIE_ACCEPT_RATELIMIT);
    EXPECT_EQ(p.check_at_b(m2, false, T0 + 2), WGX_COOKIE_ACCEPT);
    // ... but only from the source address the cookie was made for.
    EXPECT_EQ(p.check_at_b(m2, true, T0 + 2, SRC_OTHER), WGX_COOKIE_SEND_REPLY);

    // And the handshake goes on from there.
    wgx_noise_initiation_scratch s;
    ASSERT_EQ(wgx_noise_consume_initiation_begin(p.b.id, m2.data(), m2.size(), &s), 0);
    ASSERT_EQ(wgx_noise_consume_initiation_finish(p.b_hs, &s, T0 + 2), 0);
}

TEST(Cookie, CookieReplyToAResponse)
{
    Pair p;
    Bytes init = p.initiation(T0);
    wgx_noise_initiation_scratch s;
    ASSERT_EQ(wgx_noise_consume_initiation_begin(p.b.id, init.data(), init.size(), &s), 0);
    ASSERT_EQ(wgx_noise_consume_initiation_finish(p.b_hs, &s, T0), 0);
    Bytes resp(WGX_MSG_RESPONSE_LEN);
    ASSERT_EQ(wgx_noise_create_response(p.b_hs, resp.data(), LOCAL_B, T0), 0);
    wgx_keypair_keys kb;
    ASSERT_EQ(wgx_noise_begin_session(p.b_hs, &kb, T0), 0);  // b's handshake is cleared, its cookie state is not

    // a is under load and answers the response with a cookie reply.
    ASSERT_EQ(wgx_cookie_checker_validate(p.a.checker, resp.data(), resp.size(), SRC_OTHER.data(), SRC_OTHER.size(),
                                          true, T0),
              WGX_COOKIE_SEND_REPLY);
    Bytes reply(WGX_MSG_COOKIE_REPLY_LEN);
    ASSERT_EQ(wgx_cookie_checker_create_reply(p.a.checker, reply.data(), resp.data(), resp.size(), SRC_OTHER.data(),
                                              SRC_OTHER.size(), T0),
              0);
    wgx_u32 idx = 0;
    ASSERT_TRUE(wgx_msg_receiver_index(reply.data(), reply.size(), &idx));
    EXPECT_EQ(idx, LOCAL_B);
    EXPECT_EQ(wgx_cookie_consume_reply(p.b_hs, reply.data(), reply.size(), T0), 0);
    EXPECT_TRUE(p.b_hs->cookie.cookie_valid);
}

TEST(Cookie, EveryCorruptedCookieReplyByteIsRejected)
{
    Pair p;
    Bytes m = p.initiation(T0);
    const Bytes good = p.cookie_reply_from_b(m, T0);
    wgx_u32 good_idx = 0;
    ASSERT_TRUE(wgx_msg_receiver_index(good.data(), good.size(), &good_idx));
    for (size_t i = 0; i < good.size(); ++i) {
        Bytes bad = good;
        bad[i] ^= 0x10;
        if (i >= 4 && i < 8) {
            // The receiver index is not encrypted; a changed one makes the
            // glue's index lookup miss this peer.
            wgx_u32 idx = 0;
            ASSERT_TRUE(wgx_msg_receiver_index(bad.data(), bad.size(), &idx));
            EXPECT_NE(idx, good_idx);
            continue;
        }
        EXPECT_NE(wgx_cookie_consume_reply(p.a_hs, bad.data(), bad.size(), T0), 0) << "byte " << i;
    }
    EXPECT_FALSE(p.a_hs->cookie.cookie_valid);
    EXPECT_EQ(wgx_cookie_consume_reply(p.a_hs, good.data(), good.size(), T0), 0);
    Bytes shorter(good.begin(), good.end() - 1);
    EXPECT_EQ(wgx_cookie_consume_reply(p.a_hs, shorter.data(), shorter.size(), T0), -WGX_EINVAL);
}

TEST(Cookie, ReplyForAnOlderMac1IsRejected)
{
    Pair p;
    Bytes m1 = p.initiation(T0);
    Bytes reply = p.cookie_reply_from_b(m1, T0);
    Bytes m2 = p.initiation(T0 + 1);  // a sent a newer message: the reply's AD no longer matches
    (void)m2;
    EXPECT_EQ(wgx_cookie_consume_reply(p.a_hs, reply.data(), reply.size(), T0 + 1), -WGX_EBADMSG);
    // A reply from someone else (another cookie key) fails as well.
    Node c;
    Bytes m3 = p.initiation(T0 + 2);
    Bytes forged(WGX_MSG_COOKIE_REPLY_LEN);
    ASSERT_EQ(wgx_cookie_checker_create_reply(c.checker, forged.data(), m3.data(), m3.size(), SRC_A.data(),
                                              SRC_A.size(), T0 + 2),
              0);
    EXPECT_EQ(wgx_cookie_consume_reply(p.a_hs, forged.data(), forged.size(), T0 + 2), -WGX_EBADMSG);
}

TEST(Cookie, ReceivedCookieExpiresAfter115Seconds)
{
    Pair p;
    Bytes reply = p.cookie_reply_from_b(p.initiation(T0), T0);
    ASSERT_EQ(wgx_cookie_consume_reply(p.a_hs, reply.data(), reply.size(), T0), 0);
    const wgx_u64 lifetime = (WGX_COOKIE_SECRET_MAX_AGE_S - WGX_COOKIE_SECRET_LATENCY_S) * SEC;
    Bytes before = p.initiation(T0 + lifetime - 1);
    EXPECT_FALSE(all_zero(before.data() + 132, 16));
    Bytes after = p.initiation(T0 + lifetime);
    EXPECT_TRUE(all_zero(after.data() + 132, 16));
    EXPECT_EQ(p.check_at_b(after, true, T0 + lifetime), WGX_COOKIE_SEND_REPLY);
}

TEST(Cookie, SecretRotatesEvery120Seconds)
{
    Pair p;
    Bytes reply = p.cookie_reply_from_b(p.initiation(T0), T0);
    ASSERT_EQ(wgx_cookie_consume_reply(p.a_hs, reply.data(), reply.size(), T0), 0);
    Bytes m = p.initiation(T0 + 100 * SEC);
    EXPECT_EQ(p.check_at_b(m, true, T0 + 100 * SEC), WGX_COOKIE_ACCEPT_RATELIMIT);
    EXPECT_EQ(p.check_at_b(m, true, T0 + 120 * SEC - 1), WGX_COOKIE_ACCEPT_RATELIMIT);
    // b's secret is 120 s old: a new one makes the old cookie worthless.
    EXPECT_EQ(p.check_at_b(m, true, T0 + 120 * SEC), WGX_COOKIE_SEND_REPLY);
    // A fresh cookie works again.
    Bytes reply2 = p.cookie_reply_from_b(m, T0 + 121 * SEC);
    ASSERT_EQ(wgx_cookie_consume_reply(p.a_hs, reply2.data(), reply2.size(), T0 + 121 * SEC), 0);
    Bytes m2 = p.initiation(T0 + 122 * SEC);
    EXPECT_EQ(p.check_at_b(m2, true, T0 + 122 * SEC), WGX_COOKIE_ACCEPT_RATELIMIT);
}

TEST(Cookie, BadInputs)
{
    Pair p;
    Bytes m = p.initiation(T0);
    Bytes out(WGX_MSG_COOKIE_REPLY_LEN, 0xee);

    // Not a handshake message.
    Bytes transport(32, 0);
    transport[0] = WGX_MSG_TRANSPORT;
    EXPECT_EQ(p.check_at_b(transport, false, T0), WGX_COOKIE_DROP);
    EXPECT_EQ(wgx_cookie_checker_create_reply(p.b.checker, out.data(), transport.data(), transport.size(), SRC_A.data(),
                                              SRC_A.size(), T0),
              -WGX_EINVAL);
    EXPECT_TRUE(all_zero(out.data(), out.size()));
    Bytes truncated(m.begin(), m.end() - 1);
    EXPECT_EQ(p.check_at_b(truncated, false, T0), WGX_COOKIE_DROP);

    // A source description longer than WGX_COOKIE_SOURCE_MAX_LEN.
    Bytes long_src(WGX_COOKIE_SOURCE_MAX_LEN + 1, 1);
    EXPECT_EQ(p.check_at_b(m, true, T0, long_src), WGX_COOKIE_DROP);
    EXPECT_EQ(wgx_cookie_checker_create_reply(p.b.checker, out.data(), m.data(), m.size(), long_src.data(),
                                              long_src.size(), T0),
              -WGX_EINVAL);

    // A checker without identity drops everything and cannot make replies.
    wgx_cookie_checker *empty = wgx_cookie_checker_create(true);
    EXPECT_EQ(wgx_cookie_checker_validate(empty, m.data(), m.size(), SRC_A.data(), SRC_A.size(), false, T0),
              WGX_COOKIE_DROP);
    EXPECT_EQ(wgx_cookie_checker_create_reply(empty, out.data(), m.data(), m.size(), SRC_A.data(), SRC_A.size(), T0),
              -WGX_ENOKEY);
    // Clearing the identity of a working checker does the same.
    wgx_cookie_checker_set_identity(p.b.checker, nullptr);
    EXPECT_EQ(p.check_at_b(m, false, T0), WGX_COOKIE_DROP);
    wgx_cookie_checker_destroy(empty);
    wgx_cookie_checker_destroy(nullptr);
    EXPECT_EQ(wgx_cookie_checker_validate(nullptr, m.data(), m.size(), nullptr, 0, false, T0), WGX_COOKIE_DROP);
    EXPECT_EQ(wgx_cookie_consume_reply(nullptr, out.data(), out.size(), T0), -WGX_EINVAL);
}

}  // namespace
