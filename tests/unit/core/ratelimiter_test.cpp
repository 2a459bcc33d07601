// SPDX-License-Identifier: GPL-2.0
//
// Handshake ratelimiter with a fake clock: burst of 5 then 20 packets/s per
// source, IPv4 /32 and IPv6 /64 keys, caller cookies, a bounded table that
// refuses new sources when full, and garbage collection of idle entries.
// Then the defence against an attacker who owns many addresses: per-prefix quotas and aggregation under table pressure, so one
// /48 or /16 can neither fill the table nor rotate its way to an unbounded
// rate, while a source elsewhere still gets its burst.  Two randomized runs
// compare with straightforward models (std::map of buckets): the old
// per-source model where it still applies (few sources), and a model of the
// documented aggregation rules everywhere else.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <random>
#include <tuple>

#include <wgx/core.h>
#include <wgx/core_test.h>

namespace {

constexpr uint64_t SEC = 1000000000ULL;
constexpr uint64_t COST = SEC / 20;  // 50 ms of credit per packet
constexpr int BURST = WGX_RATELIMIT_BURST;
constexpr int RATE = WGX_RATELIMIT_PACKETS_PER_SECOND;
constexpr size_t PER_PREFIX = WGX_RATELIMIT_SOURCES_PER_PREFIX;
constexpr size_t PER_BLOCK = WGX_RATELIMIT_ENTRIES_PER_BLOCK;
constexpr size_t DEVICE_CAPACITY = 4096;  // kmod/device.c WGX_RATELIMITER_CAPACITY

using Addr = std::array<uint8_t, 16>;

/// An IPv6 address from up to eight 16-bit groups (the rest zero).
Addr v6(std::initializer_list<uint16_t> groups)
{
    Addr a{};
    size_t i = 0;
    for (uint16_t g : groups) {
        a[i++] = uint8_t(g >> 8);
        a[i++] = uint8_t(g);
    }
    return a;
}

struct Limiter {
    wgx_ratelimiter *rl;
    explicit Limiter(size_t cap = 1024) : rl(wgx_ratelimiter_create(cap)) {}
    ~Limiter() { wgx_ratelimiter_destroy(rl); }
    Limiter(const Limiter &) = delete;
    Limiter &operator=(const Limiter &) = delete;
    bool allow4(uint32_t ip, uint64_t now, uint64_t cookie = 0)
    {
        const uint8_t a[4] = {uint8_t(ip >> 24), uint8_t(ip >> 16), uint8_t(ip >> 8), uint8_t(ip)};
        return wgx_ratelimiter_allow(rl, WGX_AF_INET, a, cookie, now);
    }
    bool allow6(const Addr &a, uint64_t now, uint64_t cookie = 0)
    {
        return wgx_ratelimiter_allow(rl, WGX_AF_INET6, a.data(), cookie, now);
    }
    size_t count() const { return wgx_ratelimiter_count(rl); }
};

int burst_at(Limiter &l, uint32_t ip, uint64_t now)
{
    int n = 0;
    while (l.allow4(ip, now) && n < 100)
        ++n;
    return n;
}

int burst6_at(Limiter &l, const Addr &a, uint64_t now)
{
    int n = 0;
    while (l.allow6(a, now) && n < 100)
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
    EXPECT_EQ(burst_at(l, 0xc0000202, t), 5);  // neighbouring /32 is its own source
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
        a[15] = uint8_t(i);  // different interface identifiers, same /64
        a[8] = uint8_t(i * 37);
        ASSERT_TRUE(l.allow6(a, t)) << i;
    }
    a[15] = 99;
    EXPECT_FALSE(l.allow6(a, t));
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 1u);
    Addr b = a;
    b[7] ^= 1;  // another /64
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
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t), 0u);  // empty: nothing scanned, nothing dropped
    ASSERT_TRUE(l.allow4(1, t));
    ASSERT_TRUE(l.allow4(2, t + SEC / 2));
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + SEC), 0u);  // idle exactly 1 s: kept
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + SEC + 1), 1u);
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 1u);
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + 2 * SEC), 1u);
    EXPECT_EQ(wgx_ratelimiter_count(l.rl), 0u);
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + 3 * SEC), 0u);
    // A dropped source starts with a full burst again.
    EXPECT_EQ(burst_at(l, 1, t + 3 * SEC), 5);
}

// Sources in distinct /16s, so that every one has a bucket of its own at any
// fill level (in a table of 3 the pressure rules start at the second entry).
TEST(Ratelimiter, FullTableRefusesNewSources)
{
    Limiter l(3);
    const uint64_t t = 7 * SEC;
    const uint32_t s1 = 0x01000001, s2 = 0x02000001, s3 = 0x03000001, s4 = 0x04000001, s5 = 0x05000001;
    ASSERT_TRUE(l.allow4(s1, t));
    ASSERT_TRUE(l.allow4(s2, t));
    ASSERT_TRUE(l.allow4(s3, t + SEC));
    EXPECT_FALSE(l.allow4(s4, t + SEC));  // new source, no room
    EXPECT_TRUE(l.allow4(s1, t + SEC));   // known sources keep their rate
    EXPECT_EQ(l.count(), 3u);
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + SEC + SEC / 2), 1u);  // source 2 idle 1.5 s
    EXPECT_TRUE(l.allow4(s4, t + SEC + SEC / 2));
    EXPECT_FALSE(l.allow4(s5, t + SEC + SEC / 2));
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

// ---- an attacker with many addresses (the table could be filled) ----

// The finding: an attacker owning one IPv6 /48 sends from every one of its
// 65,536 /64s, then again from the first 34,464 (100,000 packets within a
// second, before any gc).  It must not fill the device's table: a peer from
// another prefix still gets its whole burst, over IPv6 and IPv4.
TEST(Ratelimiter, OneSlash48CannotLockOthersOut)
{
    Limiter l(DEVICE_CAPACITY);
    const uint64_t t = 100 * SEC;
    int allowed = 0;
    for (uint32_t i = 0; i < 100000; ++i) {
        const Addr a = v6({0x2001, 0x0db8, 0xaaaa, uint16_t(i), uint16_t(i * 7), 0, 0, uint16_t(i >> 3)});
        allowed += l.allow6(a, t + i * 10000);  // 10 us apart: 1 s in all
    }
    // Its own /64s up to the quota, then one bucket for the whole /48.
    EXPECT_EQ(l.count(), PER_PREFIX + 1);
    EXPECT_LE(allowed, int(PER_PREFIX + 1) * (BURST + RATE * 1) + BURST);
    const uint64_t t1 = t + SEC;
    EXPECT_EQ(burst6_at(l, v6({0x2001, 0x0db8, 0xbbbb, 1, 0, 0, 0, 1}), t1), BURST);
    EXPECT_EQ(burst6_at(l, v6({0x2a00, 0x1450, 0x4001, 0x81b, 0, 0, 0, 0x200e}), t1), BURST);
    EXPECT_EQ(burst_at(l, 0xc0000201, t1), BURST);
}

// The same with the attacker's 100,000 /64s spread over all 65,536 /48s of one
// /32 (an ISP-sized holding): at most one block's worth of buckets.
TEST(Ratelimiter, OneSlash32CannotLockOthersOut)
{
    Limiter l(DEVICE_CAPACITY);
    const uint64_t t = 100 * SEC;
    for (uint32_t i = 0; i < 100000; ++i) {
        const Addr a = v6({0x2001, 0x0db8, uint16_t(i), uint16_t(i >> 16), 0, 0, 0, 1});
        l.allow6(a, t + i * 10000);
    }
    EXPECT_EQ(l.count(), PER_BLOCK + 1);
    const uint64_t t1 = t + SEC;
    EXPECT_EQ(burst6_at(l, v6({0x2001, 0x0db9, 0, 0, 0, 0, 0, 1}), t1), BURST);
    EXPECT_EQ(burst_at(l, 0xc0000201, t1), BURST);
}

// An IPv4 attacker with a /10 (64 /16s, 4 million addresses) sending from
// 100,000 random addresses: the table fills to half with its /32s and /24s,
// then each /16 gets one bucket; it is never full, and a source from another
// /16 gets its burst.
TEST(Ratelimiter, OneSlash10CannotLockOthersOut)
{
    Limiter l(DEVICE_CAPACITY);
    std::mt19937 rng(7);
    const uint64_t t = 100 * SEC;
    for (uint32_t i = 0; i < 100000; ++i)
        l.allow4(0x64400000 | (rng() & 0x003fffff), t + i * 10000);  // 100.64.0.0/10
    EXPECT_LT(l.count(), DEVICE_CAPACITY / 2 + 64 + 1);
    EXPECT_EQ(burst_at(l, 0xc0000201, t + SEC), BURST);
}

// The protection itself: an attacker rotating through new sources gets a rate
// bounded by the quota, not by the table.  The glue runs gc every second;
// so does this loop.  10 s at 10,000 packets/s.
struct Attack {
    int allowed = 0;
    int seconds = 10;
    template <typename Send> void run(Limiter &l, Send send)
    {
        uint64_t now = 1000 * SEC;
        uint32_t n = 0;
        for (int s = 0; s < seconds; ++s) {
            for (int i = 0; i < 10000; ++i, ++n)
                allowed += send(l, n, now + uint64_t(i) * 100000);
            now += SEC;
            wgx_ratelimiter_gc(l.rl, now);
        }
    }
    /// The documented bound for @buckets buckets: each gives its burst, then
    /// 20 packets a second.
    int bound(size_t buckets) const { return int(buckets) * (BURST + RATE * seconds); }
};

TEST(Ratelimiter, RotatingSlash64sOfOneSlash48GetABoundedRate)
{
    Limiter l(DEVICE_CAPACITY);
    Attack a;
    a.run(l, [](Limiter &l, uint32_t n, uint64_t now) {
        return l.allow6(v6({0x2001, 0x0db8, 0xaaaa, uint16_t(n), 0, 0, 0, uint16_t(n >> 16)}), now);
    });
    EXPECT_LE(a.allowed, a.bound(PER_PREFIX + 1));
    // The /48's bucket still passes its 20/s: a legitimate peer inside it is slowed, not locked out.
    EXPECT_GE(a.allowed, RATE * a.seconds);
}

TEST(Ratelimiter, HammeringEveryAddressOfASlash24GetsABoundedRate)
{
    Limiter l(DEVICE_CAPACITY);
    Attack a;
    a.run(l, [](Limiter &l, uint32_t n, uint64_t now) { return l.allow4(0xcb007100 | (n & 0xff), now); });
    EXPECT_LE(a.allowed, a.bound(PER_PREFIX + 1));
    EXPECT_GE(a.allowed, int(PER_PREFIX + 1) * RATE * (a.seconds - 1));
}

// A /16 sending from 4,096 of its addresses in turn (each about twice a
// second): before, every one had a bucket and every packet passed.
TEST(Ratelimiter, CyclingThroughASlash16GetsABoundedRate)
{
    Limiter l(DEVICE_CAPACITY);
    Attack a;
    a.run(l, [](Limiter &l, uint32_t n, uint64_t now) {
        return l.allow4(0xc6120000 | (((n % 4096) * 40503u) & 0xffff), now);  // in 198.18.0.0/16, scattered
    });
    EXPECT_LE(a.allowed, a.bound(PER_BLOCK + 1));
    EXPECT_LE(l.count(), PER_BLOCK + 1);
}

// The quota of a prefix: 16 sources of a /24 have buckets of their own, the
// 17th opens the /24's bucket with a fresh burst, every later one shares it.
// The quota of a block: 128 buckets per /16, then one for the whole /16.
TEST(Ratelimiter, QuotasPerPrefixAndPerBlock)
{
    Limiter l(DEVICE_CAPACITY);
    const uint64_t t = 20 * SEC;
    for (uint32_t h = 1; h <= PER_PREFIX; ++h)
        ASSERT_EQ(burst_at(l, 0x0a010200 | h, t), BURST) << h;
    EXPECT_EQ(burst_at(l, 0x0a010200 | 200, t), BURST);
    for (uint32_t h = 201; h < 256; ++h)
        EXPECT_EQ(burst_at(l, 0x0a010200 | h, t), 0) << h;
    EXPECT_EQ(l.count(), PER_PREFIX + 1);
    // Sources with buckets of their own keep them (finest key first).
    EXPECT_EQ(burst_at(l, 0x0a010201, t + COST), 1);
    // Everything idle: gc frees the /24, which starts afresh.
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + 2 * SEC), PER_PREFIX + 1);
    EXPECT_EQ(burst_at(l, 0x0a010200 | 250, t + 2 * SEC), BURST);
    EXPECT_EQ(wgx_ratelimiter_gc(l.rl, t + 4 * SEC), 1u);

    // A /16: 128 buckets over eight /24s of 16 sources, then the /16's bucket.
    const uint64_t t2 = t + 4 * SEC;
    for (uint32_t n = 0; n < PER_BLOCK; ++n)
        ASSERT_EQ(burst_at(l, 0x0a090000 | uint32_t(n / PER_PREFIX) << 8 | uint32_t(n % PER_PREFIX + 1), t2), BURST)
            << n;
    EXPECT_EQ(l.count(), PER_BLOCK);
    EXPECT_EQ(burst_at(l, 0x0a09ff01, t2), BURST);
    EXPECT_EQ(burst_at(l, 0x0a09fe01, t2), 0);
    EXPECT_EQ(burst_at(l, 0x0a090011, t2), 0);  // a 17th source of the first /24 too
    EXPECT_EQ(l.count(), PER_BLOCK + 1);
    // Another /16 is untouched.
    EXPECT_EQ(burst_at(l, 0x0a0a0001, t2), BURST);
}

// Pressure: from a quarter full, a source without a bucket is keyed by its
// /24 (/48); from half full by its /16 (/32); full refuses.  Every source
// below is in a /16 of its own, so the quotas never apply.
TEST(Ratelimiter, AggregationUnderTablePressure)
{
    const size_t cap = 1024;
    Limiter l(cap);
    const uint64_t t = 30 * SEC;
    uint32_t next_block = 0x0100;
    auto fresh = [&]() { return (next_block++) << 16 | 0x0101; };
    auto fill_to = [&](size_t n) {
        while (l.count() < n)
            ASSERT_TRUE(l.allow4(fresh(), t));
    };
    const uint32_t early = fresh();
    ASSERT_EQ(burst_at(l, early, t), BURST);
    fill_to(cap / 4);

    // A quarter full: /24s.
    const uint32_t a = fresh();
    EXPECT_EQ(burst_at(l, a, t), BURST);
    EXPECT_EQ(burst_at(l, a + 1, t), 0);          // same /24: shares the drained bucket
    EXPECT_EQ(burst_at(l, a + 0x100, t), BURST);  // another /24 of the /16
    EXPECT_EQ(l.count(), cap / 4 + 2);
    // A source of the same /24 as one with its own bucket is charged to the /24,
    // while that one keeps its own (finest key first).
    EXPECT_EQ(burst_at(l, early + 1, t), BURST);
    EXPECT_EQ(burst_at(l, early, t + COST), 1);

    // Half full: /16s.
    fill_to(cap / 2);
    const uint32_t b = fresh();
    EXPECT_EQ(burst_at(l, b, t), BURST);
    EXPECT_EQ(burst_at(l, b + 0x3300, t), 0);  // another /24 of the same /16
    EXPECT_EQ(l.count(), cap / 2 + 1);

    // Full: only as many distinct /16s as half the table fill it; then new
    // sources are refused and known ones keep their rate.
    fill_to(cap);
    EXPECT_FALSE(l.allow4(fresh(), t));
    EXPECT_EQ(burst_at(l, a, t + SEC), BURST);
    EXPECT_EQ(l.count(), cap);
}

// ---- randomized comparisons with models ----

struct Bucket {
    uint64_t last, tokens;
};

/// Charge @b at @now as the documented token bucket does; true when allowed.
bool charge(Bucket &b, uint64_t now)
{
    uint64_t tokens = b.tokens;
    if (now > b.last) {
        tokens = std::min(5 * COST, tokens + (now - b.last));
        b.last = now;
    }
    const bool ok = tokens >= COST;
    b.tokens = ok ? tokens - COST : tokens;
    return ok;
}

template <typename Map> size_t model_gc(Map &m, uint64_t now)
{
    size_t removed = 0;
    for (auto it = m.begin(); it != m.end();)
        if (now > it->second.last && now - it->second.last > SEC) {
            it = m.erase(it);
            ++removed;
        } else {
            ++it;
        }
    return removed;
}

// Few sources (each in a /16 of its own, the table under a quarter full):
// exactly the per-source token buckets of before, one per IPv4 /32 or IPv6
// /64 and cookie, with gc.
TEST(Ratelimiter, FewSourcesBehaveAsBefore)
{
    using Key = std::tuple<int, uint64_t, uint64_t>;
    Limiter l(8192);
    std::map<Key, Bucket> model;
    std::mt19937_64 rng(42);
    uint64_t now = SEC;
    for (int i = 0; i < 200000; ++i) {
        now += rng() % (COST / 4);
        if (i % 100 == 99) {
            ASSERT_EQ(wgx_ratelimiter_gc(l.rl, now), model_gc(model, now));
        }
        const bool six = rng() % 2;
        const uint64_t src = rng() % 500;
        const uint64_t cookie = rng() % 2;
        Addr a{};
        uint64_t keyip;
        if (six) {
            a = v6({0x2001, uint16_t(src), 0, uint16_t(rng() % 3), uint16_t(rng())});
            keyip = a[0];
            for (int b = 1; b < 8; ++b)
                keyip = keyip << 8 | a[b];
        } else {
            keyip = (src + 1) << 16 | (rng() % 3);
            a = {uint8_t(keyip >> 24), uint8_t(keyip >> 16), uint8_t(keyip >> 8), uint8_t(keyip)};
        }
        const Key k{six ? 6 : 4, keyip, cookie};
        bool want;
        auto it = model.find(k);
        if (it == model.end()) {
            want = true;
            model[k] = Bucket{now, 4 * COST};
        } else {
            want = charge(it->second, now);
        }
        const bool got = wgx_ratelimiter_allow(l.rl, six ? WGX_AF_INET6 : WGX_AF_INET, a.data(), cookie, now);
        ASSERT_EQ(got, want) << "op " << i;
        ASSERT_EQ(l.count(), model.size());
        ASSERT_LT(model.size(), 8192u / 4);
    }
}

// The documented rules (<wgx/ratelimiter.h>) as a model: levels 0/1/2 are the
// source (/32, /64), prefix (/24, /48) and block (/16, /32); dense addresses
// and a small table so that quotas, pressure and a full table all happen.
TEST(Ratelimiter, RandomizedAgainstModel)
{
    struct Key {
        int fam;
        uint64_t cookie;
        int level;
        uint64_t prefix;  // left-aligned in 64 bits, masked to the level
        bool operator<(const Key &o) const
        {
            return std::tie(fam, cookie, level, prefix) < std::tie(o.fam, o.cookie, o.level, o.prefix);
        }
    };
    auto mask = [](int fam, int level, uint64_t ip) {
        static const unsigned bits[2][3] = {{32, 24, 16}, {64, 48, 32}};
        return ip & (~0ULL << (64 - bits[fam == 6][level]));
    };
    const size_t cap = 1200;
    Limiter l(cap);
    std::map<Key, Bucket> model;
    std::mt19937_64 rng(4242);
    uint64_t now = SEC;
    size_t refused_full = 0, by_quota = 0, by_pressure = 0, block_by_quota = 0;
    for (int i = 0; i < 300000; ++i) {
        now += rng() % (COST / 32);
        if (i % 500 == 499) {
            ASSERT_EQ(wgx_ratelimiter_gc(l.rl, now), model_gc(model, now));
        }
        // Phases of 20,000 packets: from one block (its quotas apply before
        // the table fills), then from 1,024 blocks under two cookies
        // (pressure, a full table).  12 prefixes of 40 sources each in every
        // block; the rest of the address random.
        const bool wide = (i / 20000) % 2;
        const int fam = rng() % 2 ? 6 : 4;
        const uint64_t cookie = wide ? rng() % 2 : 0;
        const uint64_t block = wide ? rng() % 1024 : 0;
        const uint64_t prefix = rng() % 12, source = rng() % 40;
        Addr a{};
        uint64_t ip;
        if (fam == 6) {
            a = v6({0x2001, uint16_t(block), uint16_t(prefix), uint16_t(source), uint16_t(rng())});
            ip = 0x2001ULL << 48 | block << 32 | prefix << 16 | source;
        } else {
            ip = (0x0a00ULL | block) << 48 | prefix << 40 | source << 32;
            a = {uint8_t(ip >> 56), uint8_t(ip >> 48), uint8_t(ip >> 40), uint8_t(ip >> 32)};
        }
        bool want = false, found = false;
        for (int level = 0; level < 3 && !found; ++level) {
            auto it = model.find(Key{fam, cookie, level, mask(fam, level, ip)});
            if (it != model.end()) {
                found = true;
                want = charge(it->second, now);
            }
        }
        if (!found) {
            size_t in_prefix = 0, in_block = 0;
            for (const auto &[k, b] : model) {
                if (k.fam != fam || k.cookie != cookie)
                    continue;
                if (mask(fam, 2, k.prefix) == mask(fam, 2, ip))
                    ++in_block;
                if (k.level == 0 && mask(fam, 1, k.prefix) == mask(fam, 1, ip))
                    ++in_prefix;
            }
            const int quota = in_block >= PER_BLOCK ? 2 : in_prefix >= PER_PREFIX ? 1 : 0;
            const int pressure = 2 * model.size() >= cap ? 2 : 4 * model.size() >= cap ? 1 : 0;
            const int level = std::max(quota, pressure);
            if (model.size() < cap) {
                want = true;
                model[Key{fam, cookie, level, mask(fam, level, ip)}] = Bucket{now, 4 * COST};
                by_quota += quota > pressure;
                block_by_quota += quota == 2 && pressure < 2;
                by_pressure += pressure > quota;
            } else {
                ++refused_full;
            }
        }
        const bool got = wgx_ratelimiter_allow(l.rl, fam == 6 ? WGX_AF_INET6 : WGX_AF_INET, a.data(), cookie, now);
        ASSERT_EQ(got, want) << "op " << i;
        ASSERT_EQ(l.count(), model.size()) << "op " << i;
    }
    // The run went through every rule.
    EXPECT_GT(refused_full, 0u);
    EXPECT_GT(by_quota, 0u);
    EXPECT_GT(block_by_quota, 0u);
    EXPECT_GT(by_pressure, 0u);
}

}  // namespace
