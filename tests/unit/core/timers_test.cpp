// SPDX-License-Identifier: GPL-2.0
//
// Timer state machine (whitepaper 6.1-6.5, in-tree wireguard timers.c
// behaviour) driven by a fake clock: handshake retransmission with jitter,
// giving up after REKEY_ATTEMPT_TIME, passive keepalive, new handshake when
// data gets no reply, persistent keepalive, key zeroing, rekey helpers.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include <wgx/core.h>

namespace {

constexpr uint64_t SEC = 1000000000ULL;
constexpr uint32_t B(wgx_timer_id id)
{
    return 1u << id;
}

struct Timers {
    wgx_timers t;
    Timers() { wgx_timers_core_init(&t, nullptr); }
    uint64_t deadline(wgx_timer_id id) const { return t.deadline[id]; }
    uint32_t expire(wgx_timer_id id, uint64_t now, uint32_t *changed_out = nullptr)
    {
        uint32_t changed = 0xdead;
        const uint32_t a = wgx_timers_core_expire(&t, id, now, &changed);
        if (changed_out)
            *changed_out = changed;
        return a;
    }
};

TEST(Timers, DefaultParamsAreTheProtocolValues)
{
    wgx_timer_params p;
    wgx_timer_params_init(&p, 1);
    EXPECT_EQ(p.rekey_after_time_ns, 120 * SEC);
    EXPECT_EQ(p.reject_after_time_ns, 180 * SEC);
    EXPECT_EQ(p.rekey_attempt_time_ns, 90 * SEC);
    EXPECT_EQ(p.rekey_timeout_ns, 5 * SEC);
    EXPECT_EQ(p.rekey_timeout_jitter_max_ns, SEC / 3);
    EXPECT_EQ(p.keepalive_timeout_ns, 10 * SEC);
    EXPECT_EQ(p.second_ns, SEC);
    EXPECT_EQ(p.rekey_after_messages, uint64_t(1) << 60);
    EXPECT_EQ(p.max_timer_handshakes, 18u);
    EXPECT_EQ(WGX_MAX_TIMER_HANDSHAKES, 18);

    Timers t;
    EXPECT_EQ(0, memcmp(&t.t.params, &p, sizeof(p)));
    for (int id = 0; id < WGX_TIMER_COUNT; ++id)
        EXPECT_EQ(t.t.deadline[id], 0u);

    wgx_timer_params zero;
    wgx_timer_params_init(&zero, 0);
    EXPECT_EQ(0, memcmp(&zero, &p, sizeof(p)));
}

TEST(Timers, ScaledParams)
{
    wgx_timer_params p;
    wgx_timer_params_init(&p, 10);
    EXPECT_EQ(p.rekey_after_time_ns, 12 * SEC);
    EXPECT_EQ(p.reject_after_time_ns, 18 * SEC);
    EXPECT_EQ(p.rekey_timeout_ns, SEC / 2);
    EXPECT_EQ(p.keepalive_timeout_ns, SEC);
    EXPECT_EQ(p.second_ns, SEC / 10);
    EXPECT_EQ(p.max_timer_handshakes, 18u);
    EXPECT_EQ(p.rekey_after_messages, uint64_t(1) << 60);
    wgx_timer_params big;
    wgx_timer_params_init(&big, 1000000);
    EXPECT_EQ(big.rekey_timeout_ns, 5 * SEC / 1000);  // clamped divisor
    EXPECT_GT(big.rekey_timeout_jitter_max_ns, 0u);

    // A scaled state machine uses the scaled values.
    wgx_timers t;
    wgx_timers_core_init(&t, &p);
    EXPECT_EQ(wgx_timers_core_handshake_initiated(&t, 100 * SEC, 0), B(WGX_TIMER_RETRANSMIT_HANDSHAKE));
    EXPECT_EQ(t.deadline[WGX_TIMER_RETRANSMIT_HANDSHAKE], 100 * SEC + SEC / 2);
    wgx_timers_core_set_persistent_keepalive(&t, 25);
    wgx_timers_core_any_authenticated_packet_traversal(&t, 100 * SEC);
    EXPECT_EQ(t.deadline[WGX_TIMER_PERSISTENT_KEEPALIVE], 100 * SEC + 25 * SEC / 10);
}

TEST(Timers, RetransmitWithJitter)
{
    Timers t;
    const uint64_t t0 = 1000 * SEC;
    const uint64_t jitter = 123456789;  // < 1/3 s
    EXPECT_EQ(wgx_timers_core_handshake_initiated(&t.t, t0, jitter), B(WGX_TIMER_RETRANSMIT_HANDSHAKE));
    const uint64_t d = t0 + 5 * SEC + jitter;
    EXPECT_EQ(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), d);

    // Fired a little early (jiffies rounding): nothing happens, re-arm at the same deadline.
    uint32_t changed;
    EXPECT_EQ(t.expire(WGX_TIMER_RETRANSMIT_HANDSHAKE, d - 1, &changed), 0u);
    EXPECT_EQ(changed, B(WGX_TIMER_RETRANSMIT_HANDSHAKE));
    EXPECT_EQ(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), d);

    EXPECT_EQ(t.expire(WGX_TIMER_RETRANSMIT_HANDSHAKE, d, &changed), uint32_t(WGX_TIMER_ACT_RETRY_INITIATION));
    EXPECT_EQ(changed, B(WGX_TIMER_RETRANSMIT_HANDSHAKE));
    EXPECT_EQ(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), 0u);
    EXPECT_EQ(t.t.handshake_attempts, 1u);

    // A stale callback of a disarmed timer does nothing.
    EXPECT_EQ(t.expire(WGX_TIMER_RETRANSMIT_HANDSHAKE, d + SEC, &changed), 0u);
    EXPECT_EQ(changed, 0u);

    // Jitter is reduced below 1/3 s: a raw 32-bit random value is fine.
    wgx_timers_core_handshake_initiated(&t.t, t0, SEC / 3 + 7);
    EXPECT_EQ(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), t0 + 5 * SEC + 7);
    wgx_timers_core_handshake_initiated(&t.t, t0, 0xffffffffu);
    EXPECT_LT(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), t0 + 5 * SEC + SEC / 3);
    EXPECT_GE(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), t0 + 5 * SEC);
}

TEST(Timers, HandshakeCompleteStopsRetransmission)
{
    Timers t;
    wgx_timers_core_handshake_initiated(&t.t, SEC, 0);
    ASSERT_EQ(t.expire(WGX_TIMER_RETRANSMIT_HANDSHAKE, 6 * SEC), uint32_t(WGX_TIMER_ACT_RETRY_INITIATION));
    wgx_timers_core_handshake_initiated(&t.t, 6 * SEC, 0);
    EXPECT_EQ(wgx_timers_core_handshake_complete(&t.t, 7 * SEC), B(WGX_TIMER_RETRANSMIT_HANDSHAKE));
    EXPECT_EQ(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), 0u);
    EXPECT_EQ(t.t.handshake_attempts, 0u);
    EXPECT_EQ(t.t.last_handshake_ns, 7 * SEC);
    EXPECT_EQ(t.expire(WGX_TIMER_RETRANSMIT_HANDSHAKE, 11 * SEC), 0u);
}

// No response ever: the glue retries on every RETRY action; the core gives up
// after MAX_TIMER_HANDSHAKES + 2 initiations, i.e. after REKEY_ATTEMPT_TIME.
TEST(Timers, GiveUpAfterRekeyAttemptTime)
{
    Timers t;
    const uint64_t t0 = 50 * SEC;
    uint64_t now = t0;
    ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, now));
    wgx_timers_core_handshake_initiated(&t.t, now, 0);
    wgx_timers_core_data_received(&t.t, now);  // a keepalive is pending: giving up cancels it
    int initiations = 1, retries = 0;
    uint32_t actions = 0, changed = 0;
    for (int guard = 0; guard < 100; ++guard) {
        now = t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE);
        ASSERT_NE(now, 0u);
        actions = t.expire(WGX_TIMER_RETRANSMIT_HANDSHAKE, now, &changed);
        if (actions != WGX_TIMER_ACT_RETRY_INITIATION)
            break;
        ++retries;
        ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, true, now));
        wgx_timers_core_handshake_initiated(&t.t, now, 0);
        ++initiations;
    }
    EXPECT_EQ(actions, uint32_t(WGX_TIMER_ACT_GIVE_UP));
    EXPECT_EQ(retries, WGX_MAX_TIMER_HANDSHAKES + 1);
    EXPECT_EQ(initiations, WGX_MAX_TIMER_HANDSHAKES + 2);
    EXPECT_GE(now - t0, 90 * SEC);                         // REKEY_ATTEMPT_TIME
    EXPECT_EQ(now - t0, uint64_t(initiations) * 5 * SEC);  // every try waited REKEY_TIMEOUT
    EXPECT_EQ(changed,
              B(WGX_TIMER_RETRANSMIT_HANDSHAKE) | B(WGX_TIMER_SEND_KEEPALIVE) | B(WGX_TIMER_ZERO_KEY_MATERIAL));
    EXPECT_EQ(t.deadline(WGX_TIMER_SEND_KEEPALIVE), 0u);
    EXPECT_EQ(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), 0u);
    EXPECT_EQ(t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL), now + 3 * 180 * SEC);

    // A fresh (non-retry) initiation starts counting again.
    ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, now + 10 * SEC));
    EXPECT_EQ(t.t.handshake_attempts, 0u);
}

TEST(Timers, GiveUpKeepsAnEarlierZeroKeyDeadline)
{
    Timers t;
    wgx_timers_core_session_derived(&t.t, SEC);
    const uint64_t zero_at = t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL);
    t.t.handshake_attempts = WGX_MAX_TIMER_HANDSHAKES + 1;
    wgx_timers_core_handshake_initiated(&t.t, 100 * SEC, 0);
    uint32_t changed;
    EXPECT_EQ(t.expire(WGX_TIMER_RETRANSMIT_HANDSHAKE, 105 * SEC, &changed), uint32_t(WGX_TIMER_ACT_GIVE_UP));
    EXPECT_EQ(t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL), zero_at);
    EXPECT_EQ(changed & B(WGX_TIMER_ZERO_KEY_MATERIAL), 0u);
}

TEST(Timers, KeepaliveAfterDataReceivedWithoutSend)
{
    Timers t;
    const uint64_t t0 = 10 * SEC;
    EXPECT_EQ(wgx_timers_core_data_received(&t.t, t0), B(WGX_TIMER_SEND_KEEPALIVE));
    EXPECT_EQ(t.deadline(WGX_TIMER_SEND_KEEPALIVE), t0 + 10 * SEC);
    // More data does not move the deadline.
    EXPECT_EQ(wgx_timers_core_data_received(&t.t, t0 + 3 * SEC), 0u);
    EXPECT_EQ(t.deadline(WGX_TIMER_SEND_KEEPALIVE), t0 + 10 * SEC);
    uint32_t changed;
    EXPECT_EQ(t.expire(WGX_TIMER_SEND_KEEPALIVE, t0 + 10 * SEC, &changed), uint32_t(WGX_TIMER_ACT_SEND_KEEPALIVE));
    // Data arrived while it was pending, so another keepalive is scheduled.
    EXPECT_EQ(changed, B(WGX_TIMER_SEND_KEEPALIVE));
    EXPECT_EQ(t.deadline(WGX_TIMER_SEND_KEEPALIVE), t0 + 20 * SEC);
    EXPECT_EQ(t.expire(WGX_TIMER_SEND_KEEPALIVE, t0 + 20 * SEC, &changed), uint32_t(WGX_TIMER_ACT_SEND_KEEPALIVE));
    EXPECT_EQ(t.deadline(WGX_TIMER_SEND_KEEPALIVE), 0u);  // no data since: done

    // Sending anything authenticated in the meantime cancels the keepalive.
    wgx_timers_core_data_received(&t.t, t0 + 30 * SEC);
    EXPECT_EQ(wgx_timers_core_any_authenticated_packet_sent(&t.t), B(WGX_TIMER_SEND_KEEPALIVE));
    EXPECT_EQ(t.expire(WGX_TIMER_SEND_KEEPALIVE, t0 + 40 * SEC), 0u);
    EXPECT_EQ(wgx_timers_core_any_authenticated_packet_sent(&t.t), 0u);
}

TEST(Timers, NewHandshakeWhenDataGetsNoReply)
{
    Timers t;
    const uint64_t t0 = 30 * SEC;
    const uint64_t jitter = SEC / 4;
    EXPECT_EQ(wgx_timers_core_data_sent(&t.t, t0, jitter), B(WGX_TIMER_NEW_HANDSHAKE));
    const uint64_t d = t0 + 15 * SEC + jitter;  // KEEPALIVE_TIMEOUT + REKEY_TIMEOUT + jitter
    EXPECT_EQ(t.deadline(WGX_TIMER_NEW_HANDSHAKE), d);
    EXPECT_EQ(wgx_timers_core_data_sent(&t.t, t0 + 5 * SEC, 0), 0u);  // not pushed back
    EXPECT_EQ(t.deadline(WGX_TIMER_NEW_HANDSHAKE), d);

    // Any authenticated reply cancels it; the next data re-arms from then.
    EXPECT_EQ(wgx_timers_core_any_authenticated_packet_received(&t.t), B(WGX_TIMER_NEW_HANDSHAKE));
    EXPECT_EQ(t.expire(WGX_TIMER_NEW_HANDSHAKE, d), 0u);
    wgx_timers_core_data_sent(&t.t, t0 + 20 * SEC, 0);
    EXPECT_EQ(t.deadline(WGX_TIMER_NEW_HANDSHAKE), t0 + 35 * SEC);

    // No reply this time.
    EXPECT_EQ(t.expire(WGX_TIMER_NEW_HANDSHAKE, t0 + 35 * SEC - 1), 0u);
    uint32_t changed;
    EXPECT_EQ(t.expire(WGX_TIMER_NEW_HANDSHAKE, t0 + 35 * SEC, &changed), uint32_t(WGX_TIMER_ACT_NEW_HANDSHAKE));
    EXPECT_EQ(changed, B(WGX_TIMER_NEW_HANDSHAKE));
    EXPECT_EQ(t.deadline(WGX_TIMER_NEW_HANDSHAKE), 0u);
}

TEST(Timers, PersistentKeepalive)
{
    Timers t;
    // Off: traversal arms nothing.
    EXPECT_EQ(wgx_timers_core_any_authenticated_packet_traversal(&t.t, SEC), 0u);
    EXPECT_EQ(t.deadline(WGX_TIMER_PERSISTENT_KEEPALIVE), 0u);

    EXPECT_EQ(wgx_timers_core_set_persistent_keepalive(&t.t, 25), 0u);
    EXPECT_EQ(wgx_timers_core_any_authenticated_packet_traversal(&t.t, 2 * SEC), B(WGX_TIMER_PERSISTENT_KEEPALIVE));
    EXPECT_EQ(t.deadline(WGX_TIMER_PERSISTENT_KEEPALIVE), 27 * SEC);
    // Every authenticated packet pushes it back.
    wgx_timers_core_any_authenticated_packet_traversal(&t.t, 20 * SEC);
    EXPECT_EQ(t.deadline(WGX_TIMER_PERSISTENT_KEEPALIVE), 45 * SEC);
    EXPECT_EQ(t.expire(WGX_TIMER_PERSISTENT_KEEPALIVE, 45 * SEC), uint32_t(WGX_TIMER_ACT_SEND_KEEPALIVE));
    EXPECT_EQ(t.deadline(WGX_TIMER_PERSISTENT_KEEPALIVE), 0u);
    // The keepalive's own traversal re-arms it.
    wgx_timers_core_any_authenticated_packet_traversal(&t.t, 45 * SEC);
    EXPECT_EQ(t.deadline(WGX_TIMER_PERSISTENT_KEEPALIVE), 70 * SEC);

    // Maximum interval.
    wgx_timers_core_set_persistent_keepalive(&t.t, 65535);
    wgx_timers_core_any_authenticated_packet_traversal(&t.t, 50 * SEC);
    EXPECT_EQ(t.deadline(WGX_TIMER_PERSISTENT_KEEPALIVE), 50 * SEC + 65535 * SEC);

    // Turning it off disarms it, and a late callback does nothing.
    EXPECT_EQ(wgx_timers_core_set_persistent_keepalive(&t.t, 0), B(WGX_TIMER_PERSISTENT_KEEPALIVE));
    EXPECT_EQ(t.deadline(WGX_TIMER_PERSISTENT_KEEPALIVE), 0u);
    EXPECT_EQ(t.expire(WGX_TIMER_PERSISTENT_KEEPALIVE, 70 * SEC), 0u);
}

TEST(Timers, ZeroKeyMaterialAfterThreeRejectAfterTime)
{
    Timers t;
    EXPECT_EQ(wgx_timers_core_session_derived(&t.t, 100 * SEC), B(WGX_TIMER_ZERO_KEY_MATERIAL));
    EXPECT_EQ(t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL), 100 * SEC + 540 * SEC);
    // A newer session pushes zeroing back.
    wgx_timers_core_session_derived(&t.t, 200 * SEC);
    EXPECT_EQ(t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL), 740 * SEC);
    EXPECT_EQ(t.expire(WGX_TIMER_ZERO_KEY_MATERIAL, 739 * SEC), 0u);
    EXPECT_EQ(t.expire(WGX_TIMER_ZERO_KEY_MATERIAL, 740 * SEC), uint32_t(WGX_TIMER_ACT_ZERO_KEYS));
    EXPECT_EQ(t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL), 0u);
}

TEST(Timers, InitiationRateLimit)
{
    Timers t;
    const uint64_t t0 = 3 * SEC;  // small times are fine: "never sent" is a flag, not time 0
    EXPECT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, t0));
    EXPECT_FALSE(wgx_timers_core_initiation_begin(&t.t, false, t0 + 5 * SEC - 1));
    EXPECT_TRUE(wgx_timers_core_initiation_begin(&t.t, true, t0 + 5 * SEC));
    t.t.handshake_attempts = 4;
    EXPECT_FALSE(wgx_timers_core_initiation_begin(&t.t, true, t0 + 6 * SEC));
    EXPECT_EQ(t.t.handshake_attempts, 4u);  // a retry keeps the count
    EXPECT_FALSE(wgx_timers_core_initiation_begin(&t.t, false, t0 + 6 * SEC));
    EXPECT_EQ(t.t.handshake_attempts, 0u);  // a fresh request resets it even when limited

    Timers z;
    EXPECT_TRUE(wgx_timers_core_initiation_begin(&z.t, false, 0));
    EXPECT_FALSE(wgx_timers_core_initiation_begin(&z.t, false, 1));
}

// The handshake budget asks initiation_due() first: it must agree with
// initiation_begin() and change nothing.
TEST(Timers, InitiationDueMatchesBeginWithoutSideEffects)
{
    Timers t;
    const uint64_t t0 = 3 * SEC;
    EXPECT_TRUE(wgx_timers_core_initiation_due(&t.t, 0));  // never sent
    t.t.handshake_attempts = 3;
    EXPECT_TRUE(wgx_timers_core_initiation_due(&t.t, t0));
    EXPECT_EQ(t.t.handshake_attempts, 3u);
    EXPECT_EQ(t.t.initiation_sent, 0u);
    ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, true, t0));
    EXPECT_FALSE(wgx_timers_core_initiation_due(&t.t, t0 + 5 * SEC - 1));
    EXPECT_FALSE(wgx_timers_core_initiation_due(&t.t, t0 - 1));  // clock went back: not due
    EXPECT_TRUE(wgx_timers_core_initiation_due(&t.t, t0 + 5 * SEC));
    EXPECT_EQ(t.t.last_initiation_ns, t0);
    EXPECT_EQ(t.t.handshake_attempts, 3u);
}

// A deferred initiation is superseded only by a keypair derived after the
// last request for it; checking changes nothing (no attempt, no timer).
TEST(Timers, InitiationSupersededOnlyByALaterSession)
{
    Timers t;
    EXPECT_FALSE(wgx_timers_core_initiation_superseded(&t.t, 0));  // no session ever
    EXPECT_FALSE(wgx_timers_core_initiation_superseded(&t.t, 2 * SEC));
    wgx_timers_core_session_derived(&t.t, 3 * SEC);
    EXPECT_TRUE(wgx_timers_core_initiation_superseded(&t.t, 2 * SEC));
    EXPECT_FALSE(wgx_timers_core_initiation_superseded(&t.t, 3 * SEC));  // not after
    EXPECT_FALSE(wgx_timers_core_initiation_superseded(&t.t, 4 * SEC));  // asked later
    t.t.handshake_attempts = 2;
    const uint64_t zero_keys = t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL);
    EXPECT_TRUE(wgx_timers_core_initiation_superseded(&t.t, SEC));
    EXPECT_EQ(t.t.handshake_attempts, 2u);
    EXPECT_EQ(t.t.initiation_sent, 0u);
    EXPECT_EQ(t.deadline(WGX_TIMER_RETRANSMIT_HANDSHAKE), 0u);
    EXPECT_EQ(t.deadline(WGX_TIMER_ZERO_KEY_MATERIAL), zero_keys);
}

// A new static key: its first initiation does not wait for the old key's.
TEST(Timers, InitiationForgetLiftsTheRateLimit)
{
    Timers t;
    const uint64_t t0 = 3 * SEC;
    EXPECT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, t0));
    EXPECT_FALSE(wgx_timers_core_initiation_begin(&t.t, false, t0 + SEC));
    wgx_timers_core_initiation_forget(&t.t);
    EXPECT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, t0 + SEC));
    EXPECT_FALSE(wgx_timers_core_initiation_begin(&t.t, false, t0 + 2 * SEC));
}

// A cookie reply lets the outstanding initiation go again at once, but only
// once per initiation the timers started: at most two per REKEY_TIMEOUT.
TEST(Timers, CookieRetryOncePerTimerInitiation)
{
    Timers t;
    const uint64_t t0 = 3 * SEC;
    EXPECT_FALSE(wgx_timers_core_cookie_retry(&t.t));  // nothing sent
    ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, t0));
    EXPECT_FALSE(wgx_timers_core_initiation_due(&t.t, t0 + SEC));
    EXPECT_TRUE(wgx_timers_core_cookie_retry(&t.t));
    EXPECT_TRUE(wgx_timers_core_initiation_due(&t.t, t0 + SEC));
    EXPECT_FALSE(wgx_timers_core_cookie_retry(&t.t));  // granted already
    ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, true, t0 + SEC));
    // Further replies (to the retry, or forged) grant nothing until the
    // timers start an initiation again.
    EXPECT_FALSE(wgx_timers_core_cookie_retry(&t.t));
    EXPECT_FALSE(wgx_timers_core_initiation_begin(&t.t, true, t0 + 2 * SEC));
    EXPECT_FALSE(wgx_timers_core_cookie_retry(&t.t));
    ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, true, t0 + 6 * SEC));
    EXPECT_TRUE(wgx_timers_core_cookie_retry(&t.t));
}

// No retry for a cookie reply once a session was derived after the initiation.
TEST(Timers, CookieRetryNotAfterASession)
{
    Timers t;
    const uint64_t t0 = 3 * SEC;
    ASSERT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, t0));
    wgx_timers_core_session_derived(&t.t, t0 + SEC);
    EXPECT_FALSE(wgx_timers_core_cookie_retry(&t.t));
    EXPECT_FALSE(wgx_timers_core_initiation_due(&t.t, t0 + 2 * SEC));
}

TEST(Timers, StopDisarmsEverything)
{
    Timers t;
    wgx_timers_core_set_persistent_keepalive(&t.t, 5);
    wgx_timers_core_handshake_initiated(&t.t, SEC, 0);
    wgx_timers_core_data_received(&t.t, SEC);
    wgx_timers_core_data_received(&t.t, SEC);
    wgx_timers_core_data_sent(&t.t, SEC, 0);
    wgx_timers_core_session_derived(&t.t, SEC);
    wgx_timers_core_any_authenticated_packet_traversal(&t.t, SEC);
    wgx_timers_core_initiation_begin(&t.t, false, SEC);
    EXPECT_EQ(wgx_timers_core_stop(&t.t), (1u << WGX_TIMER_COUNT) - 1);
    for (int id = 0; id < WGX_TIMER_COUNT; ++id)
        EXPECT_EQ(t.t.deadline[id], 0u);
    EXPECT_EQ(t.t.need_another_keepalive, 0);
    EXPECT_TRUE(wgx_timers_core_initiation_begin(&t.t, false, SEC + 1));  // limit forgotten
    EXPECT_EQ(wgx_timers_core_stop(&t.t), 0u);
    uint32_t changed = 1;
    EXPECT_EQ(wgx_timers_core_expire(&t.t, wgx_timer_id(WGX_TIMER_COUNT), SEC, &changed), 0u);
    EXPECT_EQ(changed, 0u);
}

TEST(Timers, WantRekeyOnSend)
{
    Timers t;
    const uint64_t birth = 1000 * SEC;
    EXPECT_FALSE(wgx_timers_core_want_rekey_on_send(&t.t, birth, 0, true, birth + 120 * SEC - 1));
    EXPECT_TRUE(wgx_timers_core_want_rekey_on_send(&t.t, birth, 0, true, birth + 120 * SEC));
    // The responder does not rekey on age (it would race the initiator).
    EXPECT_FALSE(wgx_timers_core_want_rekey_on_send(&t.t, birth, 0, false, birth + 170 * SEC));
    // Counter limit, either role (as the in-tree send path does).
    const uint64_t rekey = uint64_t(1) << 60;
    EXPECT_FALSE(wgx_timers_core_want_rekey_on_send(&t.t, birth, rekey - 1, true, birth));
    EXPECT_TRUE(wgx_timers_core_want_rekey_on_send(&t.t, birth, rekey, true, birth));
    EXPECT_TRUE(wgx_timers_core_want_rekey_on_send(&t.t, birth, rekey, false, birth));
    // A birth in the future (clock skew between CPUs) counts as age 0.
    EXPECT_FALSE(wgx_timers_core_want_rekey_on_send(&t.t, birth, 0, true, birth - SEC));
}

TEST(Timers, WantRekeyOnReceiveOncePerSession)
{
    Timers t;
    const uint64_t birth = 10 * SEC;
    const uint64_t at = birth + (180 - 10 - 5) * SEC;  // REJECT - KEEPALIVE - REKEY_TIMEOUT
    EXPECT_FALSE(wgx_timers_core_want_rekey_on_receive(&t.t, birth, true, at - 1));
    EXPECT_FALSE(wgx_timers_core_want_rekey_on_receive(&t.t, birth, false, at));
    EXPECT_TRUE(wgx_timers_core_want_rekey_on_receive(&t.t, birth, true, at));
    EXPECT_FALSE(wgx_timers_core_want_rekey_on_receive(&t.t, birth, true, at + SEC));
    wgx_timers_core_handshake_complete(&t.t, at + 2 * SEC);
    EXPECT_TRUE(wgx_timers_core_want_rekey_on_receive(&t.t, birth, true, at + 3 * SEC));
}

TEST(Timers, KeypairUsable)
{
    Timers t;
    const uint64_t birth = 77 * SEC;
    const uint64_t reject = WGX_TRANSPORT_REJECT_AFTER_MESSAGES;
    EXPECT_TRUE(wgx_timers_core_keypair_usable(&t.t, birth, 0, birth));
    EXPECT_TRUE(wgx_timers_core_keypair_usable(&t.t, birth, 0, birth + 180 * SEC - 1));
    EXPECT_FALSE(wgx_timers_core_keypair_usable(&t.t, birth, 0, birth + 180 * SEC));
    EXPECT_TRUE(wgx_timers_core_keypair_usable(&t.t, birth, reject - 1, birth));
    EXPECT_FALSE(wgx_timers_core_keypair_usable(&t.t, birth, reject, birth));
    EXPECT_FALSE(wgx_timers_core_keypair_usable(&t.t, birth, UINT64_MAX, birth));
}

// A simulated peer that sent some data once (with a valid keypair) and never
// hears back: the state machine asks for a new handshake after KEEPALIVE +
// REKEY_TIMEOUT, retries it every REKEY_TIMEOUT, gives up, and zeroes the keys
// 3 x REJECT_AFTER_TIME after giving up.  Deadlines always lie in the future.
TEST(Timers, SimulatedSilentPeer)
{
    Timers t;
    uint64_t first_new_handshake = 0, gave_up = 0, zeroed = 0;
    int sent_initiations = 0, other_actions = 0;
    for (uint64_t now = SEC; now < 1000 * SEC; now += SEC / 10) {
        if (now == SEC || now == SEC + SEC / 2)
            wgx_timers_core_data_sent(&t.t, now, 0);
        for (int id = 0; id < WGX_TIMER_COUNT; ++id) {
            const uint64_t d = t.t.deadline[id];
            if (!d || d > now)
                continue;
            uint32_t changed;
            const uint32_t a = wgx_timers_core_expire(&t.t, wgx_timer_id(id), now, &changed);
            for (int j = 0; j < WGX_TIMER_COUNT; ++j) {
                if (t.t.deadline[j]) {
                    ASSERT_GT(t.t.deadline[j], now);
                }
            }
            if (a & (WGX_TIMER_ACT_NEW_HANDSHAKE | WGX_TIMER_ACT_RETRY_INITIATION)) {
                if (!first_new_handshake)
                    first_new_handshake = now;
                if (wgx_timers_core_initiation_begin(&t.t, a & WGX_TIMER_ACT_RETRY_INITIATION, now)) {
                    ++sent_initiations;
                    wgx_timers_core_handshake_initiated(&t.t, now, 0);
                }
            } else if (a & WGX_TIMER_ACT_GIVE_UP) {
                gave_up = now;
            } else if (a & WGX_TIMER_ACT_ZERO_KEYS) {
                zeroed = now;
            } else if (a) {
                ++other_actions;
            }
        }
    }
    EXPECT_EQ(first_new_handshake, 16 * SEC);  // data at 1 s + 10 s + 5 s
    EXPECT_EQ(sent_initiations, WGX_MAX_TIMER_HANDSHAKES + 2);
    EXPECT_EQ(gave_up, first_new_handshake + uint64_t(sent_initiations) * 5 * SEC);
    EXPECT_EQ(zeroed, gave_up + 540 * SEC);
    EXPECT_EQ(other_actions, 0);
    for (int id = 0; id < WGX_TIMER_COUNT; ++id)
        EXPECT_EQ(t.t.deadline[id], 0u);
}

}  // namespace
