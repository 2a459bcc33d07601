// SPDX-License-Identifier: GPL-2.0
//
// Handshake ratelimiter with a fake clock: burst of 5 then 20 packets/s per
// source, IPv4 /32 and IPv6 /64 keys, caller cookies, a bounded table that
// refuses new sources when full, and garbage collection of idle entries.
// A randomized run compares with a straightforward model (std::map of buckets).

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>

#include <wgx/core.h>
#include <wgx/core_test.h>

namespace {

constexpr uint64_t SEC = 1000000000ULL;
constexpr uint64_t COST = SEC / 20; // 50 ms of credit per packet

using Addr = std::array<uint8_t, 16>;

struct Limiter {
    wgx_ratelimiter *rl;
    explicit Limiter(size_t cap = 1024) : rl(wgx_ratelimiter_create(cap)) {}
    ~Limiter() { wgx_ratelimiter_destroy(rl); }
    bool allow4(uint32_t ip, uint64_t now, uint64_t cookie = 0)
    {
        const uint8_t a[4] = {uint8_t(ip >> 24), uint8_t(ip >> 16), uint8_t(ip >> 8), uint8_t(ip)};
        return wgx_ratelimiter_allow(rl, WGX_AF_INET, a, cookie, now);
    }
    bool allow6(const Addr &a, uint64_t now, uint64_t cookie = 0)
    {
        return wgx_ratelimiter_allow(rl, WGX_AF_INET6, a.data(), cookie, now);
    }
};

int burst_at(Limiter &l, uint32_t ip, uint64_t now)
{
    int n = 0;
    while (l.allow4(ip, now) && n < 100)
        ++n;
    return n;
}

TEST(Ratelimiter, CreateBounds)
{
    EXPECT_EQ(wgx_ratelimiter_create(0), nullptr);
    EXPECT_EQ(wgx_ratelimiter_create(size_t(WGX_RATELIMIT_MAX_CAPACITY) + 1), nullptr);
    wgx_ratelimiter *rl = wgx_ratelimiter_create(1);
    ASSERT_NE(rl, nullptr);
    EXPECT_EQ(wgx_ratelimiter_count(rl), 0u);
    wgx_ratelimiter_destroy(rl);
    wgx_ratelimiter_destroy(nullptr);
}

TEST(Ratelimiter, BurstOfFiveThenRefused)
{
    Limiter l;
    const uint64_t t0 = 1000 * SEC;
    EXPECT_EQ(burst_at(l, 0x0a000001, t0), 5);
    EXPECT_FALSE(l.allow4(0x0a000001, t0));
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 1u);
}

TEST(Ratelimiter, RefillsOnePacketPer50ms)
{
    Limiter l;
    const uint64_t t0 = 5 * SEC;
    ASSERT_EQ(burst_at(l, 1, t0), 5);
    EXPECT_FALSE(l.allow4(1, t0 + COST - 1));
    EXPECT_TRUE(l.allow4(1, t0 + COST));  // the 1 ns short was credited above
    EXPECT_FALSE(l.allow4(1, t0 + COST));
    EXPECT_TRUE(l.allow4(1, t0 + 2 * COST));
    // After a long pause the bucket holds at most the burst again.
    EXPECT_EQ(burst_at(l, 1, t0 + 100 * SEC), 5);
}

TEST(Ratelimiter, SustainedTwentyPerSecond)
{
    Limiter l;
    uint64_t now = 10 * SEC;
    ASSERT_EQ(burst_at(l, 2, now), 5);
    // At exactly 20/s every packet passes.
    for (int i = 0; i < 200; ++i) {
        now += COST;
        ASSERT_TRUE(l.allow4(2, now)) << i;
    }
    // At 40/s half of them pass over 10 s (200 of 400).
    int passed = 0;
    for (int i = 0; i < 400; ++i) {
        now += COST / 2;
        passed += l.allow4(2, now);
    }
    EXPECT_EQ(passed, 200);
}

TEST(Ratelimiter, SourcesAreIndependent)
{
    Limiter l;
    const uint64_t t = SEC;
    ASSERT_EQ(burst_at(l, 0xc0000201, t), 5);
    EXPECT_EQ(burst_at(l, 0xc0000202, t), 5); // neighbouring /32 is its own source
    EXPECT_EQ(burst_at(l, 0x02c00000, t), 5);
    // The cookie (namespace) separates identical addresses.
    const uint8_t a[4] = {192, 0, 2, 1};
    EXPECT_TRUE(wgx_ratelimiter_allow(l.rl, WGX_AF_INET, a, 77, t));
    EXPECT_FALSE(l.allow4(0xc0000201, t));
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 4u);
}

TEST(Ratelimiter, Ipv6GroupedBySlash64)
{
    Limiter l;
    const uint64_t t = 3 * SEC;
    Addr a{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1};
    for (int i = 0; i < 5; ++i) {
        a[15] = uint8_t(i); // different interface identifiers, same /64
        a[8] = uint8_t(i * 37);
        ASSERT_TRUE(l.allow6(a, t)) << i;
    }
    a[15] = 99;
    EXPECT_FALSE(l.allow6(a, t));
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 1u);
    Addr b = a;
    b[7] ^= 1; // another /64
    EXPECT_TRUE(l.allow6(b, t));
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 2u);
    // An IPv4 address equal to the first bytes of an IPv6 one is a different source.
    const uint8_t v4[4] = {0x20, 0x01, 0x0d, 0xb8};
    EXPECT_TRUE(wgx_ratelimiter_allow(l.rl, WGX_AF_INET, v4, 0, t));
}

TEST(Ratelimiter, BadInputRefused)
{
    Limiter l;
    const uint8_t a[16] = {};
    EXPECT_FALSE(wgx_ratelimiter_allow(l.rl, 0, a, 0, SEC));
    EXPECT_FALSE(wgx_ratelimiter_allow(l.rl, 17, a, 0, SEC));
    EXPECT_FALSE(wgx_ratelimiter_allow(l.rl, WGX_AF_INET, nullptr, 0, SEC));
    EXPECT_FALSE(wgx_ratelimiter_allow(nullptr, WGX_AF_INET, a, 0, SEC));
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 0u);
}

TEST(Ratelimiter, GcDropsIdleEntries)
{
    Limiter l;
    const uint64_t t = 50 * SEC;
    ASSERT_TRUE(l.allow4(1, t));
    ASSERT_TRUE(l.allow4(2, t + SEC / 2));
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + SEC), 0u); // idle exactly 1 s: kept
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + SEC + 1), 1u);
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 1u);
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + 2 * SEC), 1u);
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 0u);
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + 3 * SEC), 0u);
    // A dropped source starts with a full burst again.
    EXPECT_EQ(burst_at(l, 1, t + 3 * SEC), 5);
}

TEST(Ratelimiter, FullTableRefusesNewSources)
{
    Limiter l(3);
    const uint64_t t = 7 * SEC;
    ASSERT_TRUE(l.allow4(1, t));
    ASSERT_TRUE(l.allow4(2, t));
    ASSERT_TRUE(l.allow4(3, t + SEC));
    EXPECT_FALSE(l.allow4(4, t + SEC)); // new source, no room
    EXPECT_TRUE(l.allow4(1, t + SEC));   // known sources keep their rate
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 3u);
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + SEC + SEC / 2), 1u); // source 2 idle 1.5 s
    EXPECT_TRUE(l.allow4(4, t + SEC + SEC / 2));
    EXPECT_FALSE(l.allow4(5, t + SEC + SEC / 2));
}

TEST(Ratelimiter, ForgetCookie)
{
    Limiter l;
    const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
    ASSERT_TRUE(wgx_ratelimiter_allow(l.rl, WGX_AF_INET, a, 1, SEC));
    ASSERT_TRUE(wgx_ratelimiter_allow(l.rl, WGX_AF_INET, b, 1, SEC));
    ASSERT_TRUE(wgx_ratelimiter_allow(l.rl, WGX_AF_INET, a, 2, SEC));
    EXPECT_EQ(wgx_ratelimiter_forget_cookie(l.rl, 1), 2u);
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 1u);
    EXPECT_EQ(wgx_ratelimiter_forget_cookie(l.rl, 1), 0u);
}

TEST(Ratelimiter, ClockGoingBackwardsGivesNoCredit)
{
    Limiter l;
    ASSERT_EQ(burst_at(l, 9, 10 * SEC), 5);
    EXPECT_FALSE(l.allow4(9, 9 * SEC));
    EXPECT_FALSE(l.allow4(9, 10 * SEC + COST - 1));
    EXPECT_TRUE(l.allow4(9, 10 * SEC + COST));
}

// Model of the documented behaviour, compared over random traffic from many
// sources, with periodic gc and a table small enough to fill up.
TEST(Ratelimiter, RandomizedAgainstModel)
{
    struct Bucket {
        uint64_t last, tokens;
    };
    using Key = std::tuple<int, uint64_t, uint64_t>;
    const size_t cap = 200;
    Limiter l(cap);
    std::map<Key, Bucket> model;
    std::mt19937_64 rng(42);
    uint64_t now = SEC;
    for (int i = 0; i < 200000; ++i) {
        now += rng() % (COST / 4);
        if (i % 5000 == 4999) {
            size_t removed = 0;
            for (auto it = model.begin(); it != model.end();)
                if (now - it->second.last > SEC) {
                    it = model.erase(it);
                    ++removed;
                } else {
                    ++it;
                }
            ASSERT_EQ(wgx_ratelimiter_gc(l.rl, now), removed);
        }
        const bool six = rng() % 2;
        const uint64_t src = rng() % 300;
        const uint64_t cookie = rng() % 2;
        Addr a{};
        uint64_t keyip;
        if (six) {
            a[0] = 0xfd;
            a[7] = uint8_t(src);
            a[6] = uint8_t(src >> 8);
            a[15] = uint8_t(rng()); // ignored part
            keyip = 0xfd00000000000000ULL | src;
        } else {
            a[0] = 10;
            a[2] = uint8_t(src >> 8);
            a[3] = uint8_t(src);
            keyip = 0x0a000000ULL | src;
        }
        const Key k{six ? 6 : 4, keyip, cookie};
        bool want;
        auto it = model.find(k);
        if (it == model.end()) {
            want = model.size() < cap;
            if (want)
                model[k] = Bucket{now, 4 * COST};
        } else {
            Bucket &b = it->second;
            const uint64_t tokens = std::min(5 * COST, b.tokens + (now - b.last));
            b.last = now;
            want = tokens >= COST;
            b.tokens = want ? tokens - COST : tokens;
        }
        const bool got = wgx_ratelimiter_allow(l.rl, six ? WGX_AF_INET6 : WGX_AF_INET, a.data(), cookie, now);
        ASSERT_EQ(got, want) << "op " << i;
        ASSERT_EQ(wgx_ratelimiter_count(l.rl), model.size());
    }
}

} // namespace
