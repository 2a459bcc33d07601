// SPDX-License-Identifier: GPL-2.0
//
// Tests of the Noise_IKpsk2 handshake (kmod/core/noise.cpp) through the C API
// of <wgx/core.h>, two core instances talking to each other; internals are
// inspected through noise.hpp only to check that secrets are wiped.
#include <gtest/gtest.h>

#include <wgx/core.h>
#include <wgx/core_test.h>

#include "core_test_util.hpp"
#include "noise.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using wgx::test::all_zero;
using wgx::test::Bytes;
using wgx::test::Key;
using wgx::test::Node;

constexpr wgx_u64 SEC = 1000000000ULL;
constexpr wgx_u64 T0 = 1000 * SEC;        // monotonic base
constexpr wgx_u64 WALL0 = 1700000000ULL;  // real time base, seconds
constexpr wgx_u32 LOCAL_A = 0x11223344, LOCAL_B = 0xa0b0c0d0;

// b's old key during a rotation with a grace period (docs/rotation.md), as
// the glue keeps it: a second identity and cookie checker holding the old key
// (@pub its public half) and a handle for peer a; destroyed at scope exit.
struct Grace {
    wgx_noise_identity *id = wgx_noise_identity_create(true);
    wgx_cookie_checker *checker = wgx_cookie_checker_create(true);
    wgx_noise_handshake *hs = nullptr;
    Key pub{};

    Grace() = default;
    Grace(const Grace &) = delete;
    Grace &operator=(const Grace &) = delete;
    ~Grace()
    {
        wgx_noise_handshake_destroy(hs);
        wgx_cookie_checker_destroy(checker);
        wgx_noise_identity_destroy(id);
    }
};

struct Pair : wgx::test::NodePair {
    using NodePair::NodePair;

    Bytes initiation(wgx_u64 now = T0, wgx_u64 wall = WALL0)
    {
        Bytes m(WGX_MSG_INITIATION_LEN);
        EXPECT_EQ(wgx_noise_create_initiation(a_hs, m.data(), LOCAL_A, now, wall, 0), 0);
        return m;
    }

    // b's full receive path for an initiation: MAC check, both phases.
    int consume_initiation(const Bytes &m, wgx_u64 now = T0)
    {
        if (wgx_cookie_checker_validate(b.checker, m.data(), m.size(), nullptr, 0, false, now) != WGX_COOKIE_ACCEPT)
            return -1000;
        wgx_noise_initiation_scratch s;
        int ret = wgx_noise_consume_initiation_begin(b.id, m.data(), m.size(), &s);
        if (ret)
            return ret;
        if (std::memcmp(s.remote_static, a.pub.data(), 32) != 0) {
            wgx_noise_initiation_scratch_wipe(&s);
            return -2000;
        }
        return wgx_noise_consume_initiation_finish(b_hs, &s, now);
    }

    Bytes response(wgx_u64 now = T0)
    {
        Bytes m(WGX_MSG_RESPONSE_LEN);
        EXPECT_EQ(wgx_noise_create_response(b_hs, m.data(), LOCAL_B, now), 0);
        return m;
    }

    int consume_response(const Bytes &m, wgx_u64 now = T0)
    {
        if (wgx_cookie_checker_validate(a.checker, m.data(), m.size(), nullptr, 0, false, now) != WGX_COOKIE_ACCEPT)
            return -1000;
        return wgx_noise_consume_response(a_hs, m.data(), m.size(), now);
    }

    // Complete handshake; returns the two sides' keys.
    void handshake(wgx_keypair_keys &ka, wgx_keypair_keys &kb, wgx_u64 now = T0, wgx_u64 wall = WALL0)
    {
        Bytes init = initiation(now, wall);
        ASSERT_EQ(consume_initiation(init, now), 0);
        Bytes resp = response(now);
        ASSERT_EQ(consume_response(resp, now), 0);
        ASSERT_EQ(wgx_noise_begin_session(a_hs, &ka, now), 0);
        ASSERT_EQ(wgx_noise_begin_session(b_hs, &kb, now), 0);
    }

    // Rotates b's static key to @n's with a grace period, as the glue does:
    // b's old key goes to @g, whose handle for a takes the replay state of
    // b's handle, then b's identity, handle and checker take the new key.
    // Fatal failures: wrap the call in ASSERT_NO_FATAL_FAILURE.
    void rotate_b(Grace &g, const Node &n)
    {
        ASSERT_EQ(wgx_noise_identity_set_private_key(g.id, b.priv.data()), 0);
        wgx_cookie_checker_set_identity(g.checker, g.id);
        g.pub = b.pub;
        g.hs = wgx_noise_handshake_create(g.id, a.pub.data(), nullptr, true);
        ASSERT_NE(g.hs, nullptr);
        wgx_noise_handshake_copy_replay_state(g.hs, b_hs);
        ASSERT_NO_FATAL_FAILURE(b.take_key(n, b_hs));
    }
};

void expect_session(const wgx_keypair_keys &ka, const wgx_keypair_keys &kb)
{
    EXPECT_EQ(0, std::memcmp(ka.sending_key, kb.receiving_key, 32));
    EXPECT_EQ(0, std::memcmp(ka.receiving_key, kb.sending_key, 32));
    EXPECT_NE(0, std::memcmp(ka.sending_key, ka.receiving_key, 32));
    EXPECT_FALSE(all_zero(ka.sending_key, 32));
    EXPECT_FALSE(all_zero(ka.receiving_key, 32));
    EXPECT_TRUE(ka.initiator);
    EXPECT_FALSE(kb.initiator);
    EXPECT_EQ(ka.local_index, LOCAL_A);
    EXPECT_EQ(ka.remote_index, LOCAL_B);
    EXPECT_EQ(kb.local_index, LOCAL_B);
    EXPECT_EQ(kb.remote_index, LOCAL_A);
}

// One transport message each way with the derived keys.
void expect_transport(const wgx_keypair_keys &ka, const wgx_keypair_keys &kb)
{
    const std::string text = "a packet from the initiator";
    Bytes buf(text.size() + 64);
    size_t len = 0, plain_len = 0;
    wgx_u64 counter = ~0ULL;
    ASSERT_EQ(wgx_transport_encrypt(buf.data(), buf.size(), &len, reinterpret_cast<const wgx_u8 *>(text.data()),
                                    text.size(), 1420, ka.sending_key, ka.remote_index, 7),
              0);
    wgx_u32 idx = 0;
    ASSERT_TRUE(wgx_msg_receiver_index(buf.data(), len, &idx));
    EXPECT_EQ(idx, kb.local_index);
    ASSERT_EQ(wgx_transport_decrypt(buf.data(), len, kb.receiving_key, &counter, &plain_len), 0);
    EXPECT_EQ(counter, 7u);
    EXPECT_EQ(std::string(reinterpret_cast<char *>(buf.data()) + 16, text.size()), text);

    ASSERT_EQ(wgx_transport_encrypt(buf.data(), buf.size(), &len, nullptr, 0, 1420, kb.sending_key, kb.remote_index, 0),
              0);
    EXPECT_EQ(len, 32u);
    ASSERT_EQ(wgx_transport_decrypt(buf.data(), len, ka.receiving_key, &counter, &plain_len), 0);
    EXPECT_EQ(plain_len, 0u);
    // Keys of one direction do not open the other.
    ASSERT_EQ(wgx_transport_encrypt(buf.data(), buf.size(), &len, nullptr, 0, 1420, kb.sending_key, kb.remote_index, 1),
              0);
    EXPECT_EQ(wgx_transport_decrypt(buf.data(), len, kb.receiving_key, &counter, &plain_len), -WGX_EBADMSG);
}

// Checks that every copy of the handshake message @good with one byte changed
// by @flip is refused: below mac2 by @consume (b's or a's full receive path:
// nonzero), in mac2 by @checker under load, which answers with a cookie.
template <typename Consume>
void expect_every_changed_byte_refused(const Bytes &good, wgx_u8 flip, wgx_cookie_checker *checker, Consume consume)
{
    for (size_t i = 0; i < good.size(); ++i) {
        Bytes bad = good;
        bad[i] ^= flip;
        // Bytes before mac2 are covered by mac1; mac2 is only checked under load.
        if (i < good.size() - 16)
            EXPECT_NE(consume(bad), 0) << "byte " << i << " flip " << unsigned(flip);
        else
            EXPECT_EQ(wgx_cookie_checker_validate(checker, bad.data(), bad.size(), nullptr, 0, true, T0),
                      WGX_COOKIE_SEND_REPLY)
                << "byte " << i << " flip " << unsigned(flip);
    }
}

// Calls @check(bad, i) for each byte i the Noise layer itself authenticates in
// the handshake message @good (all below the two MACs but the sender index,
// which only mac1 covers), @bad being @good with byte i changed by @flip.
template <typename Check> void for_each_noise_byte(const Bytes &good, wgx_u8 flip, Check check)
{
    for (size_t i = 0; i < good.size() - 32; ++i) {
        if (i >= 4 && i < 8)
            continue;
        Bytes bad = good;
        bad[i] ^= flip;
        check(bad, i);
    }
}

TEST(Noise, FullHandshakeWithoutPsk)
{
    Pair p;
    ASSERT_NE(p.a_hs, nullptr);
    ASSERT_NE(p.b_hs, nullptr);
    Bytes init = p.initiation();
    EXPECT_EQ(wgx_noise_handshake_state(p.a_hs), WGX_HANDSHAKE_CREATED_INITIATION);
    EXPECT_EQ(wgx_noise_handshake_local_index(p.a_hs), LOCAL_A);
    ASSERT_EQ(p.consume_initiation(init), 0);
    EXPECT_EQ(wgx_noise_handshake_state(p.b_hs), WGX_HANDSHAKE_CONSUMED_INITIATION);
    Bytes resp = p.response(T0 + 1);
    EXPECT_EQ(wgx_noise_handshake_state(p.b_hs), WGX_HANDSHAKE_CREATED_RESPONSE);
    EXPECT_EQ(wgx_noise_handshake_local_index(p.b_hs), LOCAL_B);
    ASSERT_EQ(p.consume_response(resp, T0 + 2), 0);
    EXPECT_EQ(wgx_noise_handshake_state(p.a_hs), WGX_HANDSHAKE_CONSUMED_RESPONSE);
    EXPECT_EQ(wgx_noise_handshake_local_index(p.a_hs), LOCAL_A);  // still in the glue's table until begin_session
    EXPECT_EQ(wgx_noise_handshake_local_index(p.b_hs), LOCAL_B);

    wgx_keypair_keys ka, kb;
    ASSERT_EQ(wgx_noise_begin_session(p.a_hs, &ka, T0 + 3), 0);
    ASSERT_EQ(wgx_noise_begin_session(p.b_hs, &kb, T0 + 4), 0);
    expect_session(ka, kb);
    EXPECT_EQ(ka.birth_ns, T0 + 3);
    EXPECT_EQ(kb.birth_ns, T0 + 4);
    expect_transport(ka, kb);

    // Both handshakes are cleared, their secrets wiped.
    for (wgx_noise_handshake *hs : {p.a_hs, p.b_hs}) {
        EXPECT_EQ(wgx_noise_handshake_state(hs), WGX_HANDSHAKE_ZEROED);
        EXPECT_EQ(wgx_noise_handshake_local_index(hs), 0u);
        EXPECT_TRUE(all_zero(hs->ephemeral_private, 32));
        EXPECT_TRUE(all_zero(hs->remote_ephemeral, 32));
        EXPECT_TRUE(all_zero(hs->chaining_key, 32));
        EXPECT_TRUE(all_zero(hs->hash, 32));
    }
    // A second session needs a new handshake.
    wgx_keypair_keys again;
    EXPECT_EQ(wgx_noise_begin_session(p.a_hs, &again, T0), -WGX_ESTALE);
    EXPECT_TRUE(all_zero(&again, sizeof(again)));
}

TEST(Noise, FullHandshakeWithPsk)
{
    Key psk;
    wgx_platform_get_random_bytes(psk.data(), psk.size());
    Pair p(psk.data(), psk.data());
    wgx_keypair_keys ka, kb;
    p.handshake(ka, kb);
    expect_session(ka, kb);
    expect_transport(ka, kb);

    // The PSK changes the keys: the same peers without it derive other keys.
    Pair q;
    Key out{};
    wgx_noise_handshake_get_preshared_key(p.a_hs, out.data());
    EXPECT_EQ(out, psk);
    wgx_noise_handshake_get_remote_static(p.a_hs, out.data());
    EXPECT_EQ(out, p.b.pub);
}

TEST(Noise, MismatchedPskFailsAtTheInitiator)
{
    Key psk_a, psk_b;
    wgx_platform_get_random_bytes(psk_a.data(), 32);
    wgx_platform_get_random_bytes(psk_b.data(), 32);
    for (int variant = 0; variant < 3; ++variant) {
        const wgx_u8 *pa = variant == 0 ? psk_a.data() : variant == 1 ? nullptr : psk_a.data();
        const wgx_u8 *pb = variant == 0 ? psk_b.data() : variant == 1 ? psk_b.data() : nullptr;
        Pair p(pa, pb);
        ASSERT_EQ(p.consume_initiation(p.initiation()), 0);  // the PSK is not used before the response
        Bytes resp = p.response();
        EXPECT_EQ(p.consume_response(resp), -WGX_EBADMSG) << variant;
        EXPECT_EQ(wgx_noise_handshake_state(p.a_hs), WGX_HANDSHAKE_CREATED_INITIATION);
    }
    // Setting the PSK afterwards fixes it.
    Pair p(psk_a.data(), nullptr);
    wgx_noise_handshake_set_preshared_key(p.b_hs, psk_a.data());
    wgx_keypair_keys ka, kb;
    p.handshake(ka, kb);
    expect_session(ka, kb);
}

TEST(Noise, RepeatedHandshakesGiveFreshKeys)
{
    Pair p;
    wgx_keypair_keys k1a, k1b, k2a, k2b;
    p.handshake(k1a, k1b, T0, WALL0);
    p.handshake(k2a, k2b, T0 + SEC, WALL0 + 1);
    expect_session(k2a, k2b);
    EXPECT_NE(0, std::memcmp(k1a.sending_key, k2a.sending_key, 32));
    // Roles can swap: b initiates towards a.
    Bytes m(WGX_MSG_INITIATION_LEN);
    ASSERT_EQ(wgx_noise_create_initiation(p.b_hs, m.data(), 5, T0 + 2 * SEC, WALL0 + 2, 0), 0);
    wgx_noise_initiation_scratch s;
    ASSERT_EQ(wgx_noise_consume_initiation_begin(p.a.id, m.data(), m.size(), &s), 0);
    EXPECT_EQ(0, std::memcmp(s.remote_static, p.b.pub.data(), 32));
    ASSERT_EQ(wgx_noise_consume_initiation_finish(p.a_hs, &s, T0 + 2 * SEC), 0);
    Bytes r(WGX_MSG_RESPONSE_LEN);
    ASSERT_EQ(wgx_noise_create_response(p.a_hs, r.data(), 6, T0 + 2 * SEC), 0);
    ASSERT_EQ(wgx_noise_consume_response(p.b_hs, r.data(), r.size(), T0 + 2 * SEC), 0);
    wgx_keypair_keys ka, kb;
    ASSERT_EQ(wgx_noise_begin_session(p.a_hs, &ka, T0), 0);
    ASSERT_EQ(wgx_noise_begin_session(p.b_hs, &kb, T0), 0);
    EXPECT_FALSE(ka.initiator);
    EXPECT_TRUE(kb.initiator);
    EXPECT_EQ(0, std::memcmp(ka.sending_key, kb.receiving_key, 32));
    EXPECT_EQ(0, std::memcmp(ka.receiving_key, kb.sending_key, 32));
}

TEST(Noise, EveryCorruptedInitiationByteIsRejected)
{
    Pair p;
    const Bytes good = p.initiation();
    ASSERT_EQ(good.size(), WGX_MSG_INITIATION_LEN);
    for (wgx_u8 flip : {0x01, 0x80})
        expect_every_changed_byte_refused(good, flip, p.b.checker,
                                          [&](const Bytes &bad) { return p.consume_initiation(bad); });
    // Below the MACs, the Noise layer itself rejects a change of every byte it
    // authenticates (all but the sender index, which only mac1 covers).
    for_each_noise_byte(good, 0x04, [&](const Bytes &bad, size_t i) {
        wgx_noise_initiation_scratch s;
        int ret = wgx_noise_consume_initiation_begin(p.b.id, bad.data(), bad.size(), &s);
        if (ret == 0)
            ret = wgx_noise_consume_initiation_finish(p.b_hs, &s, T0);
        EXPECT_NE(ret, 0) << "byte " << i;
        EXPECT_TRUE(all_zero(&s, sizeof(s))) << "byte " << i;
    });
    // Nothing above changed b's state: the genuine message still goes through.
    EXPECT_EQ(wgx_noise_handshake_state(p.b_hs), WGX_HANDSHAKE_ZEROED);
    EXPECT_EQ(p.consume_initiation(good), 0);
}

TEST(Noise, EveryCorruptedResponseByteIsRejected)
{
    Pair p;
    ASSERT_EQ(p.consume_initiation(p.initiation()), 0);
    const Bytes good = p.response();
    ASSERT_EQ(good.size(), WGX_MSG_RESPONSE_LEN);
    expect_every_changed_byte_refused(good, 0x20, p.a.checker,
                                      [&](const Bytes &bad) { return p.consume_response(bad); });
    // The Noise layer alone: everything but the sender index (covered by mac1 only).
    for_each_noise_byte(good, 0x02, [&](const Bytes &bad, size_t i) {
        EXPECT_NE(wgx_noise_consume_response(p.a_hs, bad.data(), bad.size(), T0), 0) << "byte " << i;
    });
    EXPECT_EQ(wgx_noise_handshake_state(p.a_hs), WGX_HANDSHAKE_CREATED_INITIATION);
    EXPECT_EQ(p.consume_response(good), 0);
}

TEST(Noise, ReplayedInitiationIsRejected)
{
    Pair p;
    const Bytes first = p.initiation(T0, WALL0);
    ASSERT_EQ(p.consume_initiation(first, T0), 0);
    // The very same message later: its timestamp is not newer.
    EXPECT_EQ(p.consume_initiation(first, T0 + 10 * SEC), -WGX_EALREADY);

    // A newer one is accepted; then an older (but never seen) one is not.
    const Bytes older = p.initiation(T0, WALL0 - 5);
    const Bytes newer = p.initiation(T0, WALL0 + 5);
    EXPECT_EQ(p.consume_initiation(newer, T0 + 11 * SEC), 0);
    EXPECT_EQ(p.consume_initiation(older, T0 + 12 * SEC), -WGX_EALREADY);
    // Equal after the 2^24 ns rounding counts as a replay too.
    const Bytes same_slot = p.initiation(T0, WALL0 + 5);
    EXPECT_EQ(p.consume_initiation(same_slot, T0 + 13 * SEC), -WGX_EALREADY);
    // A rejected initiation does not disturb the accepted one's state.
    EXPECT_EQ(wgx_noise_handshake_state(p.b_hs), WGX_HANDSHAKE_CONSUMED_INITIATION);
    Bytes resp = p.response();
    EXPECT_EQ(p.consume_response(resp), -WGX_EBADMSG);  // a's latest initiation is same_slot, b answered newer
}

TEST(Noise, InitiationFloodLimit)
{
    Pair p;
    const wgx_u64 interval = SEC / WGX_INITIATIONS_PER_SECOND;  // 20 ms
    wgx_u64 wall = WALL0;
    ASSERT_EQ(p.consume_initiation(p.initiation(T0, wall++), T0), 0);
    EXPECT_EQ(p.consume_initiation(p.initiation(T0, wall++), T0 + 1), -WGX_EBUSY);
    EXPECT_EQ(p.consume_initiation(p.initiation(T0, wall++), T0 + interval - 1), -WGX_EBUSY);
    EXPECT_EQ(p.consume_initiation(p.initiation(T0, wall++), T0 + interval), 0);
    // Rejected floods do not move the window: 50 per second are accepted, not more.
    int accepted = 0;
    for (wgx_u64 t = T0 + 2 * interval; t < T0 + 2 * interval + SEC; t += interval / 4)
        accepted += p.consume_initiation(p.initiation(T0, wall++), t) == 0;
    EXPECT_EQ(accepted, WGX_INITIATIONS_PER_SECOND);
}

TEST(Noise, AllZeroDiffieHellmanResultsAreRejected)
{
    Pair p;
    const Bytes zero(32, 0);
    Bytes one(32, 0);
    one[0] = 1;

    // An initiation whose ephemeral is a low-order point.
    for (const Bytes *point : {&zero, static_cast<const Bytes *>(&one)}) {
        Bytes init = p.initiation();
        std::memcpy(init.data() + 8, point->data(), 32);
        wgx_noise_initiation_scratch s;
        EXPECT_EQ(wgx_noise_consume_initiation_begin(p.b.id, init.data(), init.size(), &s), -WGX_EKEYREJECTED);
    }
    // A response whose ephemeral is a low-order point.
    ASSERT_EQ(p.consume_initiation(p.initiation()), 0);
    Bytes resp = p.response();
    std::memcpy(resp.data() + 12, zero.data(), 32);
    EXPECT_EQ(wgx_noise_consume_response(p.a_hs, resp.data(), resp.size(), T0), -WGX_EKEYREJECTED);

    // A peer whose static key is a low-order point: no static-static DH, no handshake.
    wgx_noise_handshake *hs = wgx_noise_handshake_create(p.a.id, zero.data(), nullptr, true);
    ASSERT_NE(hs, nullptr);
    EXPECT_FALSE(wgx_noise_handshake_precompute(hs));
    Bytes m(WGX_MSG_INITIATION_LEN, 0xee);
    EXPECT_EQ(wgx_noise_create_initiation(hs, m.data(), 1, T0, WALL0, 0), -WGX_ENOKEY);
    EXPECT_TRUE(all_zero(m.data(), m.size()));
    EXPECT_TRUE(all_zero(hs->precomputed_static_static, 32));
    wgx_noise_handshake_destroy(hs);
}

TEST(Noise, ReservedBytesAndLengthsAreChecked)
{
    Pair p;
    const Bytes good = p.initiation();
    for (size_t i = 1; i < 4; ++i) {
        Bytes bad = good;
        bad[i] = 1;
        wgx_noise_initiation_scratch s;
        EXPECT_EQ(wgx_noise_consume_initiation_begin(p.b.id, bad.data(), bad.size(), &s), -WGX_EINVAL);
    }
    for (size_t len : {0ul, 4ul, 147ul, 149ul}) {
        Bytes bad = good;
        bad.resize(len);
        wgx_noise_initiation_scratch s;
        EXPECT_EQ(wgx_noise_consume_initiation_begin(p.b.id, len ? bad.data() : nullptr, len, &s), -WGX_EINVAL);
    }
    ASSERT_EQ(p.consume_initiation(good), 0);
    Bytes resp = p.response();
    EXPECT_EQ(resp[0], WGX_MSG_RESPONSE);
    EXPECT_EQ(resp[1] | resp[2] | resp[3], 0);
    for (size_t i = 1; i < 4; ++i) {
        Bytes bad = resp;
        bad[i] = 0x80;
        EXPECT_EQ(wgx_noise_consume_response(p.a_hs, bad.data(), bad.size(), T0), -WGX_EINVAL);
    }
    Bytes shorter(resp.begin(), resp.end() - 1);
    EXPECT_EQ(wgx_noise_consume_response(p.a_hs, shorter.data(), shorter.size(), T0), -WGX_EINVAL);
}

TEST(Noise, StateMachineErrors)
{
    Pair p;
    Bytes r(WGX_MSG_RESPONSE_LEN);
    EXPECT_EQ(wgx_noise_create_response(p.b_hs, r.data(), 1, T0), -WGX_ESTALE);
    wgx_keypair_keys k;
    EXPECT_EQ(wgx_noise_begin_session(p.b_hs, &k, T0), -WGX_ESTALE);

    const Bytes init = p.initiation();
    ASSERT_EQ(p.consume_initiation(init), 0);
    // Before the response is created, b cannot begin a session.
    EXPECT_EQ(wgx_noise_begin_session(p.b_hs, &k, T0), -WGX_ESTALE);
    const Bytes resp = p.response();
    // a response whose receiver index is not a's handshake.
    Bytes wrong = resp;
    wrong[8] ^= 1;
    EXPECT_EQ(wgx_noise_consume_response(p.a_hs, wrong.data(), wrong.size(), T0), -WGX_ESTALE);
    // b, not having sent an initiation, cannot consume a response.
    EXPECT_EQ(wgx_noise_consume_response(p.b_hs, resp.data(), resp.size(), T0), -WGX_ESTALE);
    ASSERT_EQ(wgx_noise_consume_response(p.a_hs, resp.data(), resp.size(), T0), 0);
    // A second copy of the response finds the handshake already consumed.
    EXPECT_EQ(wgx_noise_consume_response(p.a_hs, resp.data(), resp.size(), T0), -WGX_ESTALE);

    // Clearing forgets a handshake in progress.
    Bytes i2 = p.initiation(T0 + SEC, WALL0 + 1);
    wgx_noise_handshake_clear(p.a_hs);
    EXPECT_EQ(wgx_noise_handshake_state(p.a_hs), WGX_HANDSHAKE_ZEROED);
    EXPECT_TRUE(all_zero(p.a_hs->ephemeral_private, 32));

    // Phase 2 with a scratch that phase 1 did not fill, or for another peer.
    wgx_noise_initiation_scratch s{};
    EXPECT_EQ(wgx_noise_consume_initiation_finish(p.b_hs, &s, T0 + SEC), -WGX_EINVAL);
    ASSERT_EQ(wgx_noise_consume_initiation_begin(p.b.id, i2.data(), i2.size(), &s), 0);
    Node other;
    wgx_noise_handshake *other_hs = wgx_noise_handshake_create(p.b.id, other.pub.data(), nullptr, true);
    EXPECT_EQ(wgx_noise_consume_initiation_finish(other_hs, &s, T0 + SEC), -WGX_EINVAL);
    EXPECT_TRUE(all_zero(&s, sizeof(s)));
    wgx_noise_handshake_destroy(other_hs);
}

TEST(Noise, InitiationToTheWrongResponderFails)
{
    Pair p;
    Node c;
    const Bytes init = p.initiation();  // meant for b
    EXPECT_EQ(wgx_cookie_checker_validate(c.checker, init.data(), init.size(), nullptr, 0, false, T0), WGX_COOKIE_DROP);
    wgx_noise_initiation_scratch s;
    EXPECT_EQ(wgx_noise_consume_initiation_begin(c.id, init.data(), init.size(), &s), -WGX_EBADMSG);
}

TEST(Noise, RekeyedPeerHandshakesUnderItsNewKey)
{
    Pair p;
    wgx_keypair_keys ka{}, kb{};
    p.handshake(ka, kb);
    // a rotates its static key; b still expects the old one.
    Node n;
    ASSERT_NO_FATAL_FAILURE(p.a.take_key(n, p.a_hs));
    EXPECT_EQ(p.consume_initiation(p.initiation(T0 + 1'000'000'000, WALL0 + 1), T0 + 1'000'000'000), -WGX_EINVAL);
    // b re-keys its peer a in place: the next handshake works under the new key.
    EXPECT_TRUE(wgx_noise_handshake_set_remote_static(p.b_hs, n.pub.data()));
    Key remote{};
    wgx_noise_handshake_get_remote_static(p.b_hs, remote.data());
    EXPECT_EQ(remote, n.pub);
    EXPECT_EQ(wgx_noise_handshake_state(p.b_hs), WGX_HANDSHAKE_ZEROED);
    // The old key's replay state is gone: an older timestamp is fine for the new key.
    p.handshake(ka, kb, T0 + 2'000'000'000, WALL0 - 10);
    expect_session(ka, kb);
    expect_transport(ka, kb);
    EXPECT_FALSE(wgx_noise_handshake_set_remote_static(nullptr, n.pub.data()));
    EXPECT_FALSE(wgx_noise_handshake_set_remote_static(p.b_hs, nullptr));
}

// A handshake whose initiation uses @pa and whose response uses @pb: each
// message carries the prepared public key, is wiped, and the other end,
// which computes every DH itself, completes the handshake.
void expect_handshake_with(Pair &p, wgx_noise_prepared &pa, wgx_noise_prepared &pb)
{
    const Bytes pa_pub(pa.ephemeral_public, pa.ephemeral_public + 32);
    const Bytes pb_pub(pb.ephemeral_public, pb.ephemeral_public + 32);

    Bytes init(WGX_MSG_INITIATION_LEN);
    ASSERT_EQ(wgx_noise_create_initiation_prepared(p.a_hs, init.data(), LOCAL_A, T0, WALL0, 0, &pa), 0);
    EXPECT_TRUE(all_zero(&pa, sizeof(pa)));  // consumed: wiped
    EXPECT_EQ(
        Bytes(init.begin() + wgx::msg::initiation::EPHEMERAL, init.begin() + wgx::msg::initiation::EPHEMERAL + 32),
        pa_pub);
    ASSERT_EQ(p.consume_initiation(init), 0);

    Bytes resp(WGX_MSG_RESPONSE_LEN);
    ASSERT_EQ(wgx_noise_create_response_prepared(p.b_hs, resp.data(), LOCAL_B, T0, &pb), 0);
    EXPECT_TRUE(all_zero(&pb, sizeof(pb)));
    EXPECT_EQ(Bytes(resp.begin() + wgx::msg::response::EPHEMERAL, resp.begin() + wgx::msg::response::EPHEMERAL + 32),
              pb_pub);
    ASSERT_EQ(p.consume_response(resp), 0);

    wgx_keypair_keys ka, kb;
    ASSERT_EQ(wgx_noise_begin_session(p.a_hs, &ka, T0), 0);
    ASSERT_EQ(wgx_noise_begin_session(p.b_hs, &kb, T0), 0);
    expect_session(ka, kb);
    expect_transport(ka, kb);
}

// Ephemerals prepared ahead for one peer (wgx_noise_prepare): the handshake
// completes, so the prepared "es" (initiation) and "se" (response) are the
// values the protocol asks for.
void expect_prepared_handshake(const wgx_u8 *psk)
{
    Pair p(psk, psk);
    wgx_noise_prepared pa, pb;
    ASSERT_TRUE(wgx_noise_prepare(&pa, p.b.pub.data()));  // a's, for peer b
    ASSERT_TRUE(wgx_noise_prepare(&pb, p.a.pub.data()));  // b's, for peer a
    EXPECT_TRUE(pa.valid);
    EXPECT_TRUE(pa.has_dh);
    EXPECT_EQ(0, std::memcmp(pa.remote_static, p.b.pub.data(), 32));
    expect_handshake_with(p, pa, pb);
}

TEST(Noise, PreparedEphemeralsMakeTheSameHandshake)
{
    expect_prepared_handshake(nullptr);
    Key psk;
    wgx_platform_get_random_bytes(psk.data(), psk.size());
    expect_prepared_handshake(psk.data());
}

// A pair made ahead for no peer (the glue's pool: @valid, no DH): both
// messages use its ephemeral and compute their DH with the peer's key
// themselves.
TEST(Noise, PreparedPairWithoutDhIsUsed)
{
    Pair p;
    wgx_noise_prepared pa{}, pb{};
    for (wgx_noise_prepared *prep : {&pa, &pb}) {
        wgx_platform_curve25519_generate_secret(prep->ephemeral_private);
        ASSERT_TRUE(wgx_platform_curve25519_generate_public(prep->ephemeral_public, prep->ephemeral_private));
        prep->valid = true;
    }
    expect_handshake_with(p, pa, pb);
}

// A prepared ephemeral is used only for the peer key it was made with: one
// made for another key (the peer was re-keyed in place since, or a wrong
// slot) is wiped unused and the message makes its own; either way the
// handshake completes.
TEST(Noise, PreparedEphemeralForAnotherKeyIsNotUsed)
{
    Pair p;
    Node other;
    wgx_noise_prepared pa, pb;
    ASSERT_TRUE(wgx_noise_prepare(&pa, other.pub.data()));
    ASSERT_TRUE(wgx_noise_prepare(&pb, p.a.pub.data()));
    const Bytes pa_pub(pa.ephemeral_public, pa.ephemeral_public + 32);
    const Bytes pb_pub(pb.ephemeral_public, pb.ephemeral_public + 32);

    Bytes init(WGX_MSG_INITIATION_LEN);
    ASSERT_EQ(wgx_noise_create_initiation_prepared(p.a_hs, init.data(), LOCAL_A, T0, WALL0, 0, &pa), 0);
    EXPECT_TRUE(all_zero(&pa, sizeof(pa)));
    EXPECT_NE(Bytes(init.begin() + 8, init.begin() + 40), pa_pub);
    ASSERT_EQ(p.consume_initiation(init), 0);

    // b's peer a is re-keyed in place after b prepared for a's old key.
    // (The state machine is reset by the re-key, so a fresh initiation is
    // consumed under the new key first.)
    ASSERT_NO_FATAL_FAILURE(p.a.take_key(other, p.a_hs));
    ASSERT_TRUE(wgx_noise_handshake_set_remote_static(p.b_hs, other.pub.data()));
    init = p.initiation(T0 + SEC, WALL0 + 1);
    wgx_noise_initiation_scratch s;
    ASSERT_EQ(wgx_noise_consume_initiation_begin(p.b.id, init.data(), init.size(), &s), 0);
    ASSERT_EQ(wgx_noise_consume_initiation_finish(p.b_hs, &s, T0 + SEC), 0);
    Bytes resp(WGX_MSG_RESPONSE_LEN);
    ASSERT_EQ(wgx_noise_create_response_prepared(p.b_hs, resp.data(), LOCAL_B, T0 + SEC, &pb), 0);
    EXPECT_TRUE(all_zero(&pb, sizeof(pb)));
    EXPECT_NE(Bytes(resp.begin() + 12, resp.begin() + 44), pb_pub);
    ASSERT_EQ(p.consume_response(resp, T0 + SEC), 0);
    wgx_keypair_keys ka, kb;
    ASSERT_EQ(wgx_noise_begin_session(p.a_hs, &ka, T0 + SEC), 0);
    ASSERT_EQ(wgx_noise_begin_session(p.b_hs, &kb, T0 + SEC), 0);
    expect_session(ka, kb);

    // A wiped (used) prepared value is never used again: the next
    // initiation carries a fresh ephemeral, not the all-zero one.
    init = p.initiation(T0 + 2 * SEC, WALL0 + 2);
    Bytes again(WGX_MSG_INITIATION_LEN);
    ASSERT_EQ(wgx_noise_create_initiation_prepared(p.a_hs, again.data(), LOCAL_A, T0 + 2 * SEC, WALL0 + 3, 0, &pa), 0);
    EXPECT_FALSE(all_zero(again.data() + 8, 32));
    EXPECT_NE(Bytes(again.begin() + 8, again.begin() + 40), Bytes(init.begin() + 8, init.begin() + 40));
}

TEST(Noise, PrepareRefusesLowOrderKeysAndNull)
{
    wgx_noise_prepared prep;
    std::memset(&prep, 0x5a, sizeof(prep));
    const Key zero{};
    EXPECT_FALSE(wgx_noise_prepare(&prep, zero.data()));  // DH with the zero point is all zero
    EXPECT_TRUE(all_zero(&prep, sizeof(prep)));
    Key one{};
    one[0] = 1;  // the point of order 1 (u = 1) is not all-zero bytes but gives a zero DH
    std::memset(&prep, 0x5a, sizeof(prep));
    EXPECT_FALSE(wgx_noise_prepare(&prep, one.data()));
    EXPECT_TRUE(all_zero(&prep, sizeof(prep)));
    EXPECT_FALSE(wgx_noise_prepare(&prep, nullptr));
    EXPECT_FALSE(wgx_noise_prepare(nullptr, zero.data()));
    // The create calls refuse null handshakes and still wipe what they were given.
    Node n;
    ASSERT_TRUE(wgx_noise_prepare(&prep, n.pub.data()));
    Bytes m(WGX_MSG_INITIATION_LEN);
    EXPECT_EQ(wgx_noise_create_initiation_prepared(nullptr, m.data(), LOCAL_A, T0, WALL0, 0, &prep), -WGX_EINVAL);
    EXPECT_TRUE(all_zero(&prep, sizeof(prep)));
    ASSERT_TRUE(wgx_noise_prepare(&prep, n.pub.data()));
    EXPECT_EQ(wgx_noise_create_response_prepared(nullptr, m.data(), LOCAL_B, T0, &prep), -WGX_EINVAL);
    EXPECT_TRUE(all_zero(&prep, sizeof(prep)));
}

// Key rotation with a grace period (docs/rotation.md), as the glue builds it:
// b keeps its old key in a second identity, cookie checker and per-peer
// handle, whose replay state is copied from the handle that knew the old key.
TEST(Noise, PreviousIdentityAnswersWithTheOldKeyAndKeepsReplayState)
{
    Pair p;
    wgx_keypair_keys ka{}, kb{};
    const Bytes before = p.initiation(T0, WALL0);
    ASSERT_EQ(p.consume_initiation(before, T0), 0);
    wgx_noise_handshake_clear(p.b_hs);

    // b's previous identity keeps the old key, its checker, a handle for
    // peer a; b takes a new key: its current handle and checker follow it.
    Grace prev;
    Node n;
    ASSERT_NO_FATAL_FAILURE(p.rotate_b(prev, n));

    // a still knows b's old key: the current checker drops it, the previous accepts.
    const Bytes init = p.initiation(T0 + SEC, WALL0 + 1);
    EXPECT_EQ(wgx_cookie_checker_validate(p.b.checker, init.data(), init.size(), nullptr, 0, false, T0 + SEC),
              WGX_COOKIE_DROP);
    ASSERT_EQ(wgx_cookie_checker_validate(prev.checker, init.data(), init.size(), nullptr, 0, false, T0 + SEC),
              WGX_COOKIE_ACCEPT);
    wgx_noise_initiation_scratch s;
    EXPECT_EQ(wgx_noise_consume_initiation_begin(p.b.id, init.data(), init.size(), &s), -WGX_EBADMSG);
    // The initiation made before the rotation is a replay for the previous handle too.
    ASSERT_EQ(wgx_noise_consume_initiation_begin(prev.id, before.data(), before.size(), &s), 0);
    EXPECT_EQ(wgx_noise_consume_initiation_finish(prev.hs, &s, T0 + SEC), -WGX_EALREADY);
    ASSERT_EQ(wgx_noise_consume_initiation_begin(prev.id, init.data(), init.size(), &s), 0);
    ASSERT_EQ(wgx_noise_consume_initiation_finish(prev.hs, &s, T0 + SEC), 0);
    Bytes resp(WGX_MSG_RESPONSE_LEN);
    ASSERT_EQ(wgx_noise_create_response(prev.hs, resp.data(), LOCAL_B, T0 + SEC), 0);
    ASSERT_EQ(p.consume_response(resp, T0 + SEC), 0);
    ASSERT_EQ(wgx_noise_begin_session(p.a_hs, &ka, T0 + SEC), 0);
    ASSERT_EQ(wgx_noise_begin_session(prev.hs, &kb, T0 + SEC), 0);
    expect_session(ka, kb);
    expect_transport(ka, kb);

    // The grace ends: the previous identity is cleared, nothing is accepted with it.
    ASSERT_EQ(wgx_noise_identity_set_private_key(prev.id, nullptr), 0);
    wgx_cookie_checker_set_identity(prev.checker, prev.id);
    EXPECT_FALSE(wgx_noise_handshake_precompute(prev.hs));
    const Bytes late = p.initiation(T0 + 2 * SEC, WALL0 + 2);
    EXPECT_EQ(wgx_cookie_checker_validate(prev.checker, late.data(), late.size(), nullptr, 0, false, T0 + 2 * SEC),
              WGX_COOKIE_DROP);
    EXPECT_EQ(wgx_noise_consume_initiation_begin(prev.id, late.data(), late.size(), &s), -WGX_ENOKEY);
    EXPECT_TRUE(all_zero(prev.hs->precomputed_static_static, 32));

    wgx_noise_handshake_copy_replay_state(nullptr, p.b_hs);  // ignored
    wgx_noise_handshake_copy_replay_state(prev.hs, nullptr);
}

// The device keeps one replay state per peer across its two handles
// (kmod/handshake.c copies it to the other handle after each accepted
// initiation): an initiation the peer made to the old key and an attacker
// held is refused once the peer has handshaken under the new key with a
// later timestamp (whitepaper 5.1).
TEST(Noise, ReplayStateFollowsAcrossCurrentAndPreviousHandles)
{
    Pair p;
    Grace prev;
    Node n;
    ASSERT_NO_FATAL_FAILURE(p.rotate_b(prev, n));

    // a initiates to the old key at T1; an attacker holds the message.
    const Bytes held = p.initiation(T0, WALL0 + 1);
    // a learns the new key and handshakes under it at T2 > T1.
    ASSERT_TRUE(wgx_noise_handshake_set_remote_static(p.a_hs, n.pub.data()));
    const Bytes fresh = p.initiation(T0 + SEC, WALL0 + 2);
    ASSERT_EQ(p.consume_initiation(fresh, T0 + SEC), 0);
    wgx_noise_handshake_copy_replay_state(prev.hs, p.b_hs);

    // The held initiation replayed to the old key: T1 is older than T2.
    wgx_noise_initiation_scratch s;
    ASSERT_EQ(wgx_noise_consume_initiation_begin(prev.id, held.data(), held.size(), &s), 0);
    EXPECT_EQ(wgx_noise_consume_initiation_finish(prev.hs, &s, T0 + 2 * SEC), -WGX_EALREADY);

    // And the other way: accepted by the previous handle, refused by the current one.
    ASSERT_TRUE(wgx_noise_handshake_set_remote_static(p.a_hs, prev.pub.data()));
    const Bytes old_key = p.initiation(T0 + 3 * SEC, WALL0 + 4);
    ASSERT_TRUE(wgx_noise_handshake_set_remote_static(p.a_hs, n.pub.data()));
    const Bytes held_new = p.initiation(T0 + 3 * SEC, WALL0 + 3);
    ASSERT_EQ(wgx_noise_consume_initiation_begin(prev.id, old_key.data(), old_key.size(), &s), 0);
    ASSERT_EQ(wgx_noise_consume_initiation_finish(prev.hs, &s, T0 + 3 * SEC), 0);
    wgx_noise_handshake_copy_replay_state(p.b_hs, prev.hs);
    EXPECT_EQ(p.consume_initiation(held_new, T0 + 4 * SEC), -WGX_EALREADY);
}

// A twin handle for an identity holding the same key copies the DH and
// replay state and works as the original; for another key it computes its own.
TEST(Noise, TwinHandleForTheSameKey)
{
    Pair p;
    const Bytes before = p.initiation(T0, WALL0);
    ASSERT_EQ(p.consume_initiation(before, T0), 0);
    wgx_noise_identity *prev_id = wgx_noise_identity_create(true);
    ASSERT_EQ(wgx_noise_identity_set_private_key(prev_id, p.b.priv.data()), 0);
    wgx_noise_handshake *twin = wgx_noise_handshake_create_twin(prev_id, p.b_hs, true);
    ASSERT_NE(twin, nullptr);
    EXPECT_TRUE(twin->static_static_ok);
    EXPECT_EQ(std::memcmp(twin->precomputed_static_static, p.b_hs->precomputed_static_static, 32), 0);
    wgx_noise_initiation_scratch s;
    ASSERT_EQ(wgx_noise_consume_initiation_begin(prev_id, before.data(), before.size(), &s), 0);
    EXPECT_EQ(wgx_noise_consume_initiation_finish(twin, &s, T0 + SEC), -WGX_EALREADY);
    const Bytes init = p.initiation(T0 + SEC, WALL0 + 1);
    ASSERT_EQ(wgx_noise_consume_initiation_begin(prev_id, init.data(), init.size(), &s), 0);
    ASSERT_EQ(wgx_noise_consume_initiation_finish(twin, &s, T0 + SEC), 0);
    Bytes resp(WGX_MSG_RESPONSE_LEN);
    ASSERT_EQ(wgx_noise_create_response(twin, resp.data(), LOCAL_B, T0 + SEC), 0);
    ASSERT_EQ(p.consume_response(resp, T0 + SEC), 0);
    wgx_keypair_keys ka{}, kb{};
    ASSERT_EQ(wgx_noise_begin_session(p.a_hs, &ka, T0 + SEC), 0);
    ASSERT_EQ(wgx_noise_begin_session(twin, &kb, T0 + SEC), 0);
    expect_session(ka, kb);
    wgx_noise_handshake_destroy(twin);

    // Another key: its own DH, the same one a fresh handle computes.
    Node n;
    ASSERT_EQ(wgx_noise_identity_set_private_key(prev_id, n.priv.data()), 0);
    twin = wgx_noise_handshake_create_twin(prev_id, p.b_hs, true);
    wgx_noise_handshake *fresh = wgx_noise_handshake_create(prev_id, p.a.pub.data(), nullptr, true);
    ASSERT_NE(twin, nullptr);
    ASSERT_NE(fresh, nullptr);
    EXPECT_TRUE(twin->static_static_ok);
    // A fresh handle leaves its DH to its first handshake; computed now, it is the twin's.
    EXPECT_TRUE(fresh->static_static_due);
    EXPECT_FALSE(fresh->static_static_ok);
    ASSERT_TRUE(wgx_noise_handshake_precompute(fresh));
    EXPECT_FALSE(fresh->static_static_due);
    EXPECT_EQ(std::memcmp(twin->precomputed_static_static, fresh->precomputed_static_static, 32), 0);
    EXPECT_NE(std::memcmp(twin->precomputed_static_static, p.b_hs->precomputed_static_static, 32), 0);
    EXPECT_EQ(wgx_noise_handshake_create_twin(nullptr, p.b_hs, true), nullptr);
    EXPECT_EQ(wgx_noise_handshake_create_twin(prev_id, nullptr, true), nullptr);
    wgx_noise_handshake_destroy(fresh);
    wgx_noise_handshake_destroy(twin);
    wgx_noise_identity_destroy(prev_id);
}

TEST(Noise, IdentityKeys)
{
    wgx_noise_identity *id = wgx_noise_identity_create(true);
    ASSERT_NE(id, nullptr);
    Key pub{}, priv{};
    EXPECT_FALSE(wgx_noise_identity_get_keys(id, pub.data(), priv.data()));

    // RFC 7748 6.1 Alice; the stored private key is clamped.
    Key alice{};
    const char *hexkey = "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a";
    for (int i = 0; i < 32; ++i)
        alice[i] = static_cast<wgx_u8>(std::stoi(std::string(hexkey + 2 * i, 2), nullptr, 16));
    ASSERT_EQ(wgx_noise_identity_set_private_key(id, alice.data()), 0);
    ASSERT_TRUE(wgx_noise_identity_get_keys(id, pub.data(), priv.data()));
    EXPECT_EQ(pub[0], 0x85);
    EXPECT_EQ(pub[31], 0x6a);
    Key clamped = alice;
    clamped[0] &= 248;
    clamped[31] = (clamped[31] & 127) | 64;
    EXPECT_EQ(priv, clamped);

    // All zero or NULL clears it.
    Key zero{};
    ASSERT_EQ(wgx_noise_identity_set_private_key(id, zero.data()), 0);
    EXPECT_FALSE(wgx_noise_identity_get_keys(id, pub.data(), nullptr));
    EXPECT_EQ(pub, zero);
    ASSERT_EQ(wgx_noise_identity_set_private_key(id, alice.data()), 0);
    ASSERT_EQ(wgx_noise_identity_set_private_key(id, nullptr), 0);
    EXPECT_FALSE(wgx_noise_identity_get_keys(id, nullptr, nullptr));
    wgx_noise_identity_destroy(id);
    wgx_noise_identity_destroy(nullptr);
}

TEST(Noise, NoPrivateKeyNoHandshake)
{
    Pair p;
    ASSERT_EQ(wgx_noise_identity_set_private_key(p.a.id, nullptr), 0);
    EXPECT_FALSE(wgx_noise_handshake_precompute(p.a_hs));
    Bytes m(WGX_MSG_INITIATION_LEN);
    EXPECT_EQ(wgx_noise_create_initiation(p.a_hs, m.data(), 1, T0, WALL0, 0), -WGX_ENOKEY);

    // b loses its key between the initiation and its consumption.
    ASSERT_EQ(wgx_noise_identity_set_private_key(p.a.id, p.a.priv.data()), 0);
    EXPECT_TRUE(wgx_noise_handshake_precompute(p.a_hs));
    const Bytes init = p.initiation();
    ASSERT_EQ(wgx_noise_identity_set_private_key(p.b.id, nullptr), 0);
    wgx_noise_initiation_scratch s;
    EXPECT_EQ(wgx_noise_consume_initiation_begin(p.b.id, init.data(), init.size(), &s), -WGX_ENOKEY);
    // With a new key, b cannot decrypt an initiation made for its old public key.
    Node fresh;
    ASSERT_NO_FATAL_FAILURE(p.b.take_key(fresh, p.b_hs));
    EXPECT_EQ(wgx_noise_consume_initiation_begin(p.b.id, init.data(), init.size(), &s), -WGX_EBADMSG);
}

TEST(Noise, Tai64nTimestamps)
{
    wgx_u8 ts[12];
    wgx::noise::tai64n(ts, 0, 0);
    const wgx_u8 epoch[12] = {0x40, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0};
    EXPECT_EQ(0, std::memcmp(ts, epoch, 12));
    // 2^24 ns granularity (largest power of two below 1 s / 50).
    wgx::noise::tai64n(ts, 1, (1u << 24) + 12345);
    const wgx_u8 one[12] = {0x40, 0, 0, 0, 0, 0, 0, 0x0b, 0x01, 0, 0, 0};
    EXPECT_EQ(0, std::memcmp(ts, one, 12));
    wgx::noise::tai64n(ts, 1, (1u << 24) - 1);
    EXPECT_EQ(ts[8] | ts[9] | ts[10] | ts[11], 0);
}

// HMAC-BLAKE2s has no published vectors; compare the core's HMAC and KDF with
// Python's hmac module (an independent implementation) when available.
TEST(Noise, HmacAndKdfMatchPython)
{
    const auto py =
        wgx::test::python3_lines("import hmac,hashlib\n"
                                 "k=bytes(range(32)); m=bytes(range(100))\n"
                                 "h=lambda k,m: hmac.new(k,m,hashlib.blake2s).digest()\n"
                                 "print(h(k,m).hex())\n"
                                 "t0=h(k,m); t1=h(t0,b\"\\x01\"); t2=h(t0,t1+b\"\\x02\"); t3=h(t0,t2+b\"\\x03\")\n"
                                 "print(t1.hex()); print(t2.hex()); print(t3.hex())\n");
    if (!py || py->size() != 4)
        GTEST_SKIP() << "python3 with hmac/hashlib is not available";
    const std::vector<std::string> &lines = *py;
    auto hexstr = [](const wgx_u8 *b) {
        std::string s;
        char t[3];
        for (int i = 0; i < 32; ++i) {
            std::snprintf(t, sizeof(t), "%02x", b[i]);
            s += t;
        }
        return s;
    };
    wgx_u8 key[32], msg[100], out[32], t1[32], t2[32], t3[32];
    for (int i = 0; i < 32; ++i)
        key[i] = static_cast<wgx_u8>(i);
    for (int i = 0; i < 100; ++i)
        msg[i] = static_cast<wgx_u8>(i);
    wgx::noise::hmac(out, key, msg, 100);
    EXPECT_EQ(hexstr(out), lines[0]);
    wgx::noise::kdf(t1, t2, t3, key, msg, 100);
    EXPECT_EQ(hexstr(t1), lines[1]);
    EXPECT_EQ(hexstr(t2), lines[2]);
    EXPECT_EQ(hexstr(t3), lines[3]);
    // KDF outputs may alias the chaining key.
    std::memcpy(out, key, 32);
    wgx::noise::kdf(out, nullptr, nullptr, out, msg, 100);
    EXPECT_EQ(hexstr(out), lines[1]);
}

TEST(Noise, NullArgumentsAreRefused)
{
    wgx_u8 m[WGX_MSG_INITIATION_LEN];
    wgx_keypair_keys k;
    EXPECT_EQ(wgx_noise_create_initiation(nullptr, m, 0, 0, 0, 0), -WGX_EINVAL);
    EXPECT_EQ(wgx_noise_create_response(nullptr, m, 0, 0), -WGX_EINVAL);
    EXPECT_EQ(wgx_noise_consume_response(nullptr, m, sizeof(m), 0), -WGX_EINVAL);
    EXPECT_EQ(wgx_noise_begin_session(nullptr, &k, 0), -WGX_EINVAL);
    EXPECT_EQ(wgx_noise_consume_initiation_begin(nullptr, m, sizeof(m), nullptr), -WGX_EINVAL);
    EXPECT_EQ(wgx_noise_consume_initiation_finish(nullptr, nullptr, 0), -WGX_EINVAL);
    EXPECT_EQ(wgx_noise_handshake_create(nullptr, m, nullptr, true), nullptr);
    EXPECT_EQ(wgx_noise_identity_set_private_key(nullptr, m), -WGX_EINVAL);
    wgx_noise_handshake_destroy(nullptr);
}

}  // namespace
