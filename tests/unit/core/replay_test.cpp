// SPDX-License-Identifier: GPL-2.0
//
// Replay window (RFC 6479, whitepaper 5.4.6/6.1): explicit edge cases and
// randomized sweeps against a naive reference (set of accepted counters + max).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include <wgx/core.h>

namespace {

constexpr uint64_t W = WGX_REPLAY_WINDOW;                         // 8128
constexpr uint64_t REJECT = WGX_TRANSPORT_REJECT_AFTER_MESSAGES;  // 2^64 - 2^13 - 1

struct Replay {
    wgx_replay r;
    Replay() { wgx_replay_init(&r); }
    bool check(uint64_t c) { return wgx_replay_check(&r, c); }
};

// Naive model: accept iff below the limit, not older than max - W, and never accepted.
struct Reference {
    std::set<uint64_t> seen;
    bool any = false;
    uint64_t max = 0;
    bool check(uint64_t c)
    {
        if (c >= REJECT)
            return false;
        if (any && c + W < max)
            return false;
        if (!seen.insert(c).second)
            return false;
        if (!any || c > max) {
            max = c;
            any = true;
            // Forget what can never matter again, to keep the set small.
            if (max > W)
                seen.erase(seen.begin(), seen.lower_bound(max - W));
        }
        return true;
    }
};

TEST(Replay, Constants)
{
    EXPECT_EQ(W, 8128u);
    EXPECT_EQ(REJECT, UINT64_MAX - 8192u);  // 2^64 - 2^13 - 1
    EXPECT_EQ(WGX_REKEY_AFTER_MESSAGES, uint64_t(1) << 60);
    EXPECT_EQ(sizeof(wgx_replay), 8u + 1024u);
}

TEST(Replay, ZeroAndDuplicate)
{
    Replay r;
    EXPECT_TRUE(r.check(0));
    EXPECT_FALSE(r.check(0));
    EXPECT_TRUE(r.check(1));
    EXPECT_FALSE(r.check(1));
    EXPECT_FALSE(r.check(0));
}

TEST(Replay, FirstCounterNeedNotBeZero)
{
    Replay r;
    EXPECT_TRUE(r.check(100000));
    EXPECT_TRUE(r.check(100000 - W));
    EXPECT_FALSE(r.check(100000 - W - 1));
    EXPECT_FALSE(r.check(0));
}

TEST(Replay, InOrderLongRun)
{
    Replay r;
    for (uint64_t c = 0; c < 50000; ++c)
        ASSERT_TRUE(r.check(c)) << c;
    for (uint64_t c = 50000 - W; c < 50000; ++c)
        ASSERT_FALSE(r.check(c)) << c;  // duplicates inside the window
    for (uint64_t c = 0; c < 50000 - W; c += 97)
        ASSERT_FALSE(r.check(c)) << c;  // outside the window
}

TEST(Replay, WindowEdge)
{
    Replay r;
    const uint64_t top = 20000;
    EXPECT_TRUE(r.check(top));
    EXPECT_FALSE(r.check(top - W - 1));  // just outside
    EXPECT_TRUE(r.check(top - W));       // oldest acceptable
    EXPECT_FALSE(r.check(top - W));      // only once
    EXPECT_TRUE(r.check(top - 1));
    EXPECT_TRUE(r.check(top - W + 1));
    // Moving the top by one pushes the old edge out.
    EXPECT_TRUE(r.check(top + 1));
    EXPECT_FALSE(r.check(top - W));
    EXPECT_TRUE(r.check(top + 1 - W + 1));  // still inside (not seen yet)
}

TEST(Replay, EveryCounterOfTheWindowOnceInReverse)
{
    Replay r;
    const uint64_t top = 3 * 8192 + 17;
    ASSERT_TRUE(r.check(top));
    for (uint64_t c = top - 1; c + W >= top; --c)
        ASSERT_TRUE(r.check(c)) << c;
    for (uint64_t c = top - W; c <= top; ++c)
        ASSERT_FALSE(r.check(c)) << c;
    EXPECT_FALSE(r.check(top - W - 1));
}

TEST(Replay, FarAheadClearsOldBits)
{
    Replay r;
    for (uint64_t c = 0; c < 9000; ++c)
        ASSERT_TRUE(r.check(c));
    const uint64_t far = 1000000007ULL;
    EXPECT_TRUE(r.check(far));
    EXPECT_FALSE(r.check(far));
    EXPECT_FALSE(r.check(8999));
    // Positions sharing bitmap bits with the old counters must read as unseen.
    for (uint64_t c = far - W; c < far; ++c)
        ASSERT_TRUE(r.check(c)) << c;
}

TEST(Replay, JumpsOfRingMultiples)
{
    // A counter exactly one ring (8192) ahead uses the same bit as one already seen.
    for (uint64_t jump : {64u, 8191u, 8192u, 8193u, 8256u, 16384u}) {
        Replay r;
        for (uint64_t c = 0; c < 200; ++c)
            ASSERT_TRUE(r.check(c));
        for (uint64_t c = 0; c < 200; ++c) {
            const uint64_t n = c + jump;
            if (n < 200)
                continue;
            ASSERT_TRUE(r.check(n)) << "jump " << jump << " c " << c;
        }
    }
}

TEST(Replay, ReorderingInsideWindow)
{
    std::mt19937_64 rng(1);
    Replay r;
    std::vector<uint64_t> v(W);
    for (uint64_t i = 0; i < W; ++i)
        v[i] = 5000 + i;
    std::shuffle(v.begin(), v.end(), rng);
    for (uint64_t c : v)
        ASSERT_TRUE(r.check(c)) << c;
    std::shuffle(v.begin(), v.end(), rng);
    for (uint64_t c : v)
        ASSERT_FALSE(r.check(c)) << c;
}

TEST(Replay, NearRejectAfterMessages)
{
    Replay r;
    EXPECT_FALSE(r.check(REJECT));
    EXPECT_FALSE(r.check(UINT64_MAX));
    EXPECT_FALSE(r.check(REJECT + 1));
    EXPECT_TRUE(r.check(REJECT - 1));
    EXPECT_FALSE(r.check(REJECT - 1));
    EXPECT_TRUE(r.check(REJECT - 2));
    EXPECT_TRUE(r.check(REJECT - 1 - W));
    EXPECT_FALSE(r.check(REJECT - 2 - W));
    EXPECT_FALSE(r.check(REJECT));
    EXPECT_FALSE(r.check(0));
}

TEST(Replay, RejectedCounterLeavesStateUnchanged)
{
    Replay a, b;
    for (uint64_t c : {5u, 7u, 9000u, 8990u})
        ASSERT_EQ(a.check(c), b.check(c));
    EXPECT_FALSE(a.check(REJECT));
    EXPECT_FALSE(a.check(5));
    EXPECT_FALSE(a.check(0));  // too old
    EXPECT_EQ(0, memcmp(&a.r, &b.r, sizeof(a.r)));
}

// Randomized sweeps: counters drawn around the current maximum with mixed
// distributions (small steps, reordering, window-edge probes, big jumps,
// duplicates), compared call by call with the reference.
void sweep(uint64_t seed, uint64_t start, int ops)
{
    std::mt19937_64 rng(seed);
    Replay r;
    Reference ref;
    std::vector<uint64_t> recent;
    uint64_t base = start;
    for (int i = 0; i < ops; ++i) {
        uint64_t c;
        const uint64_t m = ref.any ? ref.max : base;
        switch (rng() % 8) {
        case 0:
            c = m + 1;
            break;
        case 1:
            c = m + rng() % 64;
            break;
        case 2:
            c = m - std::min<uint64_t>(m, rng() % (W + 200));
            break;  // behind, around the edge
        case 3:
            c = m - std::min<uint64_t>(m, W - 3 + rng() % 6);
            break;  // exactly at the edge
        case 4:
            c = m + rng() % 20000;
            break;  // jump, sometimes > ring
        case 5:
            c = recent.empty() ? m : recent[rng() % recent.size()];
            break;  // duplicate
        case 6:
            c = (rng() % 1000 == 0) ? m + (rng() >> 8) : m + rng() % 8192;
            break;
        default:
            c = m - std::min<uint64_t>(m, rng() % 128);
            break;
        }
        const bool want = ref.check(c);
        ASSERT_EQ(r.check(c), want) << "seed " << seed << " op " << i << " counter " << c << " max " << m;
        if (want) {
            recent.push_back(c);
            if (recent.size() > 64)
                recent.erase(recent.begin());
        }
    }
}

TEST(Replay, RandomizedSweepFromZero)
{
    for (uint64_t seed = 1; seed <= 8; ++seed)
        sweep(seed, 0, 40000);
}

TEST(Replay, RandomizedSweepNearLimit)
{
    for (uint64_t seed = 100; seed <= 104; ++seed)
        sweep(seed, REJECT - 200000, 40000);
}

// ---- loss and reordering (wgx_replay_check_loss, wgx_replay_flush) ----

struct Counting {
    wgx_replay r;
    wgx_replay_loss loss{0, 0};
    Counting() { wgx_replay_init(&r); }
    bool check(uint64_t c) { return wgx_replay_check_loss(&r, c, &loss); }
    uint64_t flush() const { return wgx_replay_flush(&r); }
};

TEST(ReplayLoss, InOrderCountsNothing)
{
    Counting r;
    for (uint64_t c = 0; c < 50000; ++c)
        ASSERT_TRUE(r.check(c));
    EXPECT_EQ(r.loss.lost, 0u);
    EXPECT_EQ(r.loss.reordered, 0u);
    EXPECT_EQ(r.flush(), 0u);
}

TEST(ReplayLoss, GapCountedWhenItLeavesTheWindow)
{
    Counting r;
    for (uint64_t c = 0; c < 100; ++c)
        ASSERT_TRUE(r.check(c));
    // 100..104 never arrive.
    for (uint64_t c = 105; c < 105 + W; ++c)
        ASSERT_TRUE(r.check(c));
    // Greatest is 104 + W: the window still holds counters 104.. , so 100..103 left it.
    EXPECT_EQ(r.loss.lost, 4u);
    EXPECT_EQ(r.flush(), 1u);  // 104, inside the window, can still arrive
    ASSERT_TRUE(r.check(105 + W));
    EXPECT_EQ(r.loss.lost, 5u);
    EXPECT_EQ(r.flush(), 0u);
    // A late arrival of a counter already counted lost is refused and changes nothing.
    EXPECT_FALSE(r.check(101));
    EXPECT_EQ(r.loss.lost, 5u);
    EXPECT_EQ(r.loss.reordered, 0u);
}

TEST(ReplayLoss, LateArrivalInsideTheWindowIsReorderedNotLost)
{
    Counting r;
    ASSERT_TRUE(r.check(0));
    ASSERT_TRUE(r.check(2));
    ASSERT_TRUE(r.check(3));
    EXPECT_EQ(r.flush(), 1u);  // 1 missing so far
    ASSERT_TRUE(r.check(1));
    EXPECT_EQ(r.loss.reordered, 1u);
    EXPECT_EQ(r.flush(), 0u);
    for (uint64_t c = 4; c < 3 * W; ++c)
        ASSERT_TRUE(r.check(c));
    EXPECT_EQ(r.loss.lost, 0u);
    EXPECT_EQ(r.loss.reordered, 1u);
    EXPECT_FALSE(r.check(1));  // duplicate: neither
    EXPECT_FALSE(r.check(3 * W - 1));
    EXPECT_EQ(r.loss.reordered, 1u);
    EXPECT_EQ(r.loss.lost, 0u);
}

TEST(ReplayLoss, SwappedPairsAreReordered)
{
    Counting r;
    for (uint64_t c = 0; c < 20000; c += 2) {
        ASSERT_TRUE(r.check(c + 1));
        ASSERT_TRUE(r.check(c));
    }
    EXPECT_EQ(r.loss.reordered, 10000u);
    EXPECT_EQ(r.loss.lost, 0u);
    EXPECT_EQ(r.flush(), 0u);
}

TEST(ReplayLoss, EveryTenthMissingOverManyWindowSlides)
{
    Counting r;
    const uint64_t n = 100000;
    for (uint64_t c = 0; c < n; ++c) {
        if (c % 10 != 3) {
            ASSERT_TRUE(r.check(c));
        }
    }
    // Lost and still-in-window gaps add up to every missing counter.
    EXPECT_EQ(r.loss.lost + r.flush(), n / 10);
    // Counters below n - 1 - W left the window: 0..(n-1-W-1).
    uint64_t left = 0;
    for (uint64_t c = 0; c < n - 1 - W; ++c)
        left += c % 10 == 3;
    EXPECT_EQ(r.loss.lost, left);
    EXPECT_EQ(r.loss.reordered, 0u);
}

TEST(ReplayLoss, JumpFarAheadCountsTheWholeGap)
{
    Counting r;
    for (uint64_t c = 0; c < 1000; ++c) {
        if (c != 500) {
            ASSERT_TRUE(r.check(c));
        }
    }
    const uint64_t far = 1000000;
    ASSERT_TRUE(r.check(far));
    // Left the window: every counter below far - W except the 999 received.
    EXPECT_EQ(r.loss.lost, far - W - 999);
    EXPECT_EQ(r.flush(), W);  // far - W .. far - 1, none received
    // Jumps of exactly a ring, and just under the window, slide correctly too.
    Counting a;
    ASSERT_TRUE(a.check(10));
    ASSERT_TRUE(a.check(10 + 8192));
    EXPECT_EQ(a.loss.lost, 10u + 8192 - W - 1);  // 0..9 and 11..(10+8192-W-1)
    EXPECT_EQ(a.flush(), W);                     // 10+8192-W .. 10+8191, none received
}

TEST(ReplayLoss, FirstCounterFarFromZero)
{
    Counting r;
    ASSERT_TRUE(r.check(5 * W));
    EXPECT_EQ(r.loss.lost, 4 * W);  // counters 0 .. 4W-1 can no longer arrive
    EXPECT_EQ(r.flush(), W);
}

TEST(ReplayLoss, PlainCheckCountsLikeTheCountingOne)
{
    // Same acceptance with and without counting.
    std::mt19937_64 rng(7);
    Replay plain;
    Counting counting;
    for (int i = 0; i < 20000; ++i) {
        const uint64_t c = rng() % 30000;
        ASSERT_EQ(plain.check(c), counting.check(c)) << c;
    }
    EXPECT_EQ(0, memcmp(&plain.r, &counting.r, sizeof(plain.r)));
}

// Against a model that remembers every accepted counter: lost = counters
// below max - W never accepted, flush = those in [max - W, max) never
// accepted, reordered = accepted while below the max.
void loss_sweep(uint64_t seed, uint64_t start)
{
    std::mt19937_64 rng(seed);
    Counting r;
    std::set<uint64_t> accepted;
    uint64_t max = 0, reordered = 0;
    bool any = false;
    for (int i = 0; i < 30000; ++i) {
        const uint64_t m = any ? max : start;
        uint64_t c;
        switch (rng() % 6) {
        case 0:
            c = m + 1;
            break;
        case 1:
            c = m + 2 + rng() % 4;
            break;  // small gap
        case 2:
            c = m - std::min<uint64_t>(m, rng() % (W + 200));
            break;  // late, near the edge
        case 3:
            c = m + rng() % 9000;
            break;  // slide by up to a ring
        case 4:
            c = m - std::min<uint64_t>(m, rng() % 16);
            break;
        default:
            c = m + 1 + (rng() % 50 == 0 ? rng() % 40000 : 0);
            break;  // rare long jump
        }
        const bool ok = r.check(c);
        const bool want = c < REJECT && (!any || c + W >= max) && !accepted.count(c);
        ASSERT_EQ(ok, want) << "seed " << seed << " op " << i << " counter " << c;
        if (!ok)
            continue;
        accepted.insert(c);
        if (any && c < max)
            ++reordered;
        if (!any || c > max)
            max = c;
        any = true;
        ASSERT_EQ(r.loss.reordered, reordered) << "seed " << seed << " op " << i;
    }
    const uint64_t edge = max > W ? max - W : 0;
    const uint64_t below = std::distance(accepted.begin(), accepted.lower_bound(edge));
    const uint64_t inside = std::distance(accepted.lower_bound(edge), accepted.lower_bound(max));
    EXPECT_EQ(r.loss.lost, edge - below) << "seed " << seed;
    EXPECT_EQ(r.flush(), (max - edge) - inside) << "seed " << seed;
}

TEST(ReplayLoss, RandomizedAgainstModel)
{
    for (uint64_t seed = 1; seed <= 6; ++seed)
        loss_sweep(seed, seed == 1 ? 0 : seed * 1000003);
}

}  // namespace
