// SPDX-License-Identifier: GPL-2.0
//
// Allowed IPs (cryptokey routing, whitepaper section 2): explicit cases and a
// randomized comparison with a naive linear reference, IPv4 and IPv6, with
// thousands of peers and routes and insert/remove/remove_by_peer mutations.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <list>
#include <map>
#include <random>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <wgx/core.h>

namespace {

using Addr = std::array<uint8_t, 16>;

Addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    return Addr{a, b, c, d};
}
Addr v6(std::initializer_list<uint16_t> groups)
{
    Addr a{};
    int i = 0;
    for (uint16_t g : groups) {
        a[i++] = uint8_t(g >> 8);
        a[i++] = uint8_t(g);
    }
    return a;
}

void *P(uintptr_t n)
{
    return reinterpret_cast<void *>(n * 16);
}

size_t len_of(int family)
{
    return family == WGX_AF_INET ? 4 : 16;
}

Addr mask(const Addr &a, int family, unsigned cidr)
{
    Addr m{};
    const size_t len = len_of(family);
    for (size_t i = 0; i < len; ++i) {
        if (cidr >= (i + 1) * 8)
            m[i] = a[i];
        else if (cidr > i * 8)
            m[i] = uint8_t(a[i] & (0xff << (8 - (cidr - i * 8))));
    }
    return m;
}

struct Entry {
    int family;
    Addr addr;  // masked
    unsigned cidr;
    bool operator==(const Entry &o) const { return family == o.family && addr == o.addr && cidr == o.cidr; }
    bool operator<(const Entry &o) const { return std::tie(family, addr, cidr) < std::tie(o.family, o.addr, o.cidr); }
};

// Naive reference: an exact-match dictionary of prefixes (lookup probes every
// prefix length from the longest down) plus per-peer lists in insertion order.
struct Reference {
    std::map<Entry, void *> owner;
    std::map<void *, std::list<Entry>> by_peer;

    void insert(const Entry &e, void *peer)
    {
        auto it = owner.find(e);
        if (it != owner.end()) {
            if (it->second == peer)
                return;
            unlist(it->second, e);
        }
        owner[e] = peer;
        by_peer[peer].push_back(e);
    }
    void unlist(void *peer, const Entry &e)
    {
        auto it = by_peer.find(peer);
        it->second.remove(e);
        if (it->second.empty())
            by_peer.erase(it);
    }
    bool remove(const Entry &e, void *peer)
    {
        auto it = owner.find(e);
        if (it == owner.end() || it->second != peer)
            return false;
        owner.erase(it);
        unlist(peer, e);
        return true;
    }
    size_t remove_by_peer(void *peer)
    {
        auto it = by_peer.find(peer);
        if (it == by_peer.end())
            return 0;
        for (auto &e : it->second)
            owner.erase(e);
        size_t n = it->second.size();
        by_peer.erase(it);
        return n;
    }
    void *lookup(int family, const Addr &a) const
    {
        for (int cidr = int(len_of(family) * 8); cidr >= 0; --cidr) {
            auto it = owner.find(Entry{family, mask(a, family, unsigned(cidr)), unsigned(cidr)});
            if (it != owner.end())
                return it->second;
        }
        return nullptr;
    }
    size_t total() const { return owner.size(); }
};

struct Table {
    wgx_allowedips *t = wgx_allowedips_create();
    ~Table() { wgx_allowedips_destroy(t); }
    int insert(int family, const Addr &a, unsigned cidr, void *peer)
    {
        return wgx_allowedips_insert(t, family, a.data(), uint8_t(cidr), peer, true);
    }
    int remove(int family, const Addr &a, unsigned cidr, void *peer)
    {
        return wgx_allowedips_remove(t, family, a.data(), uint8_t(cidr), peer);
    }
    void *lookup(int family, const Addr &a) { return wgx_allowedips_lookup(t, family, a.data()); }
};

std::vector<Entry> walk_all(wgx_allowedips *t, void *peer)
{
    std::vector<Entry> out;
    size_t next = wgx_allowedips_walk(
        t, peer, 0,
        [](void *ctx, int family, const uint8_t *addr, uint8_t cidr) {
            Entry e{family, {}, cidr};
            memcpy(e.addr.data(), addr, family == WGX_AF_INET ? 4 : 16);
            static_cast<std::vector<Entry> *>(ctx)->push_back(e);
            return 0;
        },
        &out);
    EXPECT_EQ(next, out.size());
    return out;
}

TEST(AllowedIps, EmptyAndBadArguments)
{
    Table t;
    ASSERT_NE(t.t, nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(1, 2, 3, 4)), nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET6, Addr{}), nullptr);
    EXPECT_EQ(t.insert(WGX_AF_INET, v4(1, 2, 3, 4), 33, P(1)), -WGX_EINVAL);
    EXPECT_EQ(t.insert(WGX_AF_INET6, Addr{}, 129, P(1)), -WGX_EINVAL);
    EXPECT_EQ(t.insert(7, Addr{}, 8, P(1)), -WGX_EINVAL);
    EXPECT_EQ(t.insert(WGX_AF_INET, v4(1, 2, 3, 4), 32, nullptr), -WGX_EINVAL);
    EXPECT_EQ(wgx_allowedips_insert(t.t, WGX_AF_INET, nullptr, 8, P(1), true), -WGX_EINVAL);
    EXPECT_EQ(t.remove(7, Addr{}, 8, P(1)), -WGX_EINVAL);
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(1, 2, 3, 4), 40, P(1)), -WGX_EINVAL);
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(1, 2, 3, 4), 32, P(1)), -WGX_ENOENT);
    EXPECT_EQ(t.lookup(7, Addr{}), nullptr);
    EXPECT_EQ(wgx_allowedips_lookup(nullptr, WGX_AF_INET, Addr{}.data()), nullptr);
    EXPECT_EQ(wgx_allowedips_count(t.t, nullptr), 0u);
    EXPECT_EQ(wgx_allowedips_seq(t.t), 0u);
    wgx_allowedips_destroy(nullptr);
}

TEST(AllowedIps, LongestPrefixWins)
{
    Table t;
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 0), 8, P(1)), 0);
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 1, 0, 0), 16, P(2)), 0);
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 1, 2, 0), 24, P(3)), 0);
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 1, 2, 3), 32, P(4)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 9, 9, 9)), P(1));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 1, 9, 9)), P(2));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 1, 2, 9)), P(3));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 1, 2, 3)), P(4));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(11, 1, 2, 3)), nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(9, 255, 255, 255)), nullptr);
    // The IPv6 trie is separate.
    EXPECT_EQ(t.lookup(WGX_AF_INET6, v6({0x0a01, 0x0203})), nullptr);
    EXPECT_EQ(wgx_allowedips_count(t.t, nullptr), 4u);
}

TEST(AllowedIps, HostBitsAreMasked)
{
    Table t;
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 1), 8, P(1)), 0);
    auto w = walk_all(t.t, P(1));
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].addr, v4(10, 0, 0, 0));
    EXPECT_EQ(w[0].cidr, 8u);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 200, 1, 1)), P(1));
    // Same prefix spelled differently is the same entry.
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 99, 98, 97), 8, P(1)), 0);
    EXPECT_EQ(wgx_allowedips_count(t.t, P(1)), 1u);
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(10, 1, 1, 1), 8, P(1)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 1)), nullptr);

    ASSERT_EQ(t.insert(WGX_AF_INET6, v6({0x2001, 0xdb8, 0x1234, 0x5678, 0xffff}), 35, P(2)), 0);
    w = walk_all(t.t, P(2));
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].addr, v6({0x2001, 0xdb8, 0x0000}));
    EXPECT_EQ(w[0].family, WGX_AF_INET6);
}

TEST(AllowedIps, DefaultRoutes)
{
    Table t;
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(1, 2, 3, 4), 0, P(1)), 0);
    ASSERT_EQ(t.insert(WGX_AF_INET6, v6({0xffff}), 0, P(2)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(0, 0, 0, 0)), P(1));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(255, 255, 255, 255)), P(1));
    EXPECT_EQ(t.lookup(WGX_AF_INET6, Addr{}), P(2));
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(192, 168, 0, 0), 16, P(3)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 168, 7, 7)), P(3));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 169, 7, 7)), P(1));
    EXPECT_EQ(walk_all(t.t, P(1))[0].addr, Addr{});
    EXPECT_EQ(t.remove(WGX_AF_INET, Addr{}, 0, P(1)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 169, 7, 7)), nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 168, 7, 7)), P(3));
}

TEST(AllowedIps, HostRoutes)
{
    Table t;
    const Addr a6 = v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1});
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(192, 0, 2, 1), 32, P(1)), 0);
    ASSERT_EQ(t.insert(WGX_AF_INET6, a6, 128, P(2)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 0, 2, 1)), P(1));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 0, 2, 0)), nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 0, 2, 3)), nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET6, a6), P(2));
    Addr other = a6;
    other[15] ^= 1;
    EXPECT_EQ(t.lookup(WGX_AF_INET6, other), nullptr);
    other = a6;
    other[0] ^= 0x80;
    EXPECT_EQ(t.lookup(WGX_AF_INET6, other), nullptr);
    // Siblings at /32 and /128 that differ only in the last bit.
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(192, 0, 2, 0), 32, P(3)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 0, 2, 0)), P(3));
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(192, 0, 2, 1)), P(1));
    other = a6;
    other[15] ^= 1;
    ASSERT_EQ(t.insert(WGX_AF_INET6, other, 128, P(4)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET6, other), P(4));
    EXPECT_EQ(t.lookup(WGX_AF_INET6, a6), P(2));
}

TEST(AllowedIps, IdenticalPrefixMovesToNewestPeer)
{
    Table t;
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 0), 24, P(1)), 0);
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 1, 0), 24, P(1)), 0);
    const uint64_t seq = wgx_allowedips_seq(t.t);
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 0), 24, P(2)), 0);
    EXPECT_GT(wgx_allowedips_seq(t.t), seq);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 5)), P(2));
    EXPECT_EQ(wgx_allowedips_count(t.t, P(1)), 1u);
    EXPECT_EQ(wgx_allowedips_count(t.t, P(2)), 1u);
    EXPECT_EQ(wgx_allowedips_count(t.t, nullptr), 2u);
    // The old owner can no longer remove it.
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(10, 0, 0, 0), 24, P(1)), -WGX_ENOENT);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 5)), P(2));
    // Re-inserting for the same peer changes nothing.
    const uint64_t seq2 = wgx_allowedips_seq(t.t);
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 0), 24, P(2)), 0);
    EXPECT_EQ(wgx_allowedips_seq(t.t), seq2);
    EXPECT_EQ(wgx_allowedips_remove_by_peer(t.t, P(1)), 1u);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 1, 5)), nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 5)), P(2));
    // Moving the last prefix of a peer drops that peer's bookkeeping.
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 0), 24, P(3)), 0);
    EXPECT_EQ(wgx_allowedips_count(t.t, P(2)), 0u);
    EXPECT_EQ(wgx_allowedips_walk(
                  t.t, P(2), 0, [](void *, int, const uint8_t *, uint8_t) { return 0; }, nullptr),
              0u);
}

TEST(AllowedIps, BranchPointGetsAndLosesARoute)
{
    Table t;
    // 10.0.0.0/24 and 10.0.1.0/24 create a branch point at 10.0.0.0/23.
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 0), 24, P(1)), 0);
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 1, 0), 24, P(2)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 9)), P(1));
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(10, 0, 0, 0), 23, P(1)), -WGX_ENOENT);  // branch point has no peer
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 0, 0, 0), 23, P(3)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 9)), P(1));
    EXPECT_EQ(wgx_allowedips_count(t.t, nullptr), 3u);
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(10, 0, 0, 0), 24, P(1)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 9)), P(3));
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(10, 0, 0, 0), 23, P(3)), 0);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 0, 9)), nullptr);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 1, 9)), P(2));
    EXPECT_EQ(t.remove(WGX_AF_INET, v4(10, 0, 1, 0), 24, P(2)), 0);
    EXPECT_EQ(wgx_allowedips_count(t.t, nullptr), 0u);
    EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, 0, 1, 9)), nullptr);
}

TEST(AllowedIps, WalkIsInsertionOrderAndResumes)
{
    Table t;
    std::vector<Entry> want;
    for (unsigned i = 0; i < 50; ++i) {
        const Addr a = (i % 2) ? v4(10, uint8_t(i), 0, 0) : v6({0xfd00, uint16_t(i)});
        const int fam = (i % 2) ? WGX_AF_INET : WGX_AF_INET6;
        const unsigned cidr = (i % 2) ? 16 : 32;
        ASSERT_EQ(t.insert(fam, a, cidr, P(7)), 0);
        ASSERT_EQ(t.insert(WGX_AF_INET, v4(172, 16, uint8_t(i), 0), 24, P(8)), 0);  // another peer in between
        want.push_back(Entry{fam, mask(a, fam, cidr), cidr});
    }
    EXPECT_EQ(walk_all(t.t, P(7)), want);
    EXPECT_EQ(wgx_allowedips_count(t.t, P(7)), 50u);

    // Dump in chunks of 7 entries, as a netlink dump split across messages.
    struct Ctx {
        std::vector<Entry> got;
        size_t room;
    } ctx;
    size_t pos = 0, rounds = 0;
    const uint64_t seq = wgx_allowedips_seq(t.t);
    while (pos < wgx_allowedips_count(t.t, P(7))) {
        ctx.room = 7;
        const size_t before = ctx.got.size();
        pos = wgx_allowedips_walk(
            t.t, P(7), pos,
            [](void *c, int family, const uint8_t *addr, uint8_t cidr) {
                auto *x = static_cast<Ctx *>(c);
                if (!x->room)
                    return 1;
                --x->room;
                Entry e{family, {}, cidr};
                memcpy(e.addr.data(), addr, family == WGX_AF_INET ? 4 : 16);
                x->got.push_back(e);
                return 0;
            },
            &ctx);
        ASSERT_EQ(pos, ctx.got.size());
        ASSERT_LE(ctx.got.size() - before, 7u);
        ASSERT_LT(++rounds, 100u);
    }
    EXPECT_EQ(rounds, 8u);
    EXPECT_EQ(ctx.got, want);
    EXPECT_EQ(wgx_allowedips_seq(t.t), seq);
    // Starting past the end visits nothing.
    EXPECT_EQ(wgx_allowedips_walk(
                  t.t, P(7), 1000, [](void *, int, const uint8_t *, uint8_t) { return 1; }, nullptr),
              50u);
    // A moved prefix goes to the end of its new peer's order.
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(172, 16, 0, 0), 24, P(7)), 0);
    auto w = walk_all(t.t, P(7));
    ASSERT_EQ(w.size(), 51u);
    EXPECT_EQ(w.back(), (Entry{WGX_AF_INET, v4(172, 16, 0, 0), 24}));
}

// ---- the cursor of a resumable walk (netlink dumps: kmod/netlink_get.c) ----

// Walks @peer from @cur, accepting at most @room entries; appends them to @got.
struct CursorWalk {
    std::vector<Entry> got;
    size_t room = 0;
    size_t calls = 0;  // calls of the callback, the refused one included
    bool done = false;
    bool step(wgx_allowedips *t, void *peer, wgx_allowedips_cursor &cur, size_t n)
    {
        room = n;
        done = wgx_allowedips_walk_from(
            t, peer, &cur,
            [](void *c, int family, const uint8_t *addr, uint8_t cidr) {
                auto *x = static_cast<CursorWalk *>(c);
                ++x->calls;
                if (!x->room)
                    return 1;
                --x->room;
                Entry e{family, {}, cidr};
                memcpy(e.addr.data(), addr, family == WGX_AF_INET ? 4 : 16);
                x->got.push_back(e);
                return 0;
            },
            this);
        return done;
    }
};

// 60 prefixes of P(7) in both families, interleaved with another peer's.
std::vector<Entry> fill_cursor_table(Table &t)
{
    std::vector<Entry> want;
    for (unsigned i = 0; i < 60; ++i) {
        const int fam = (i % 3) ? WGX_AF_INET : WGX_AF_INET6;
        const Addr a = fam == WGX_AF_INET ? v4(10, uint8_t(i), 0, 0) : v6({0xfd00, uint16_t(i)});
        const unsigned cidr = fam == WGX_AF_INET ? 16 : 32;
        EXPECT_EQ(t.insert(fam, a, cidr, P(7)), 0);
        EXPECT_EQ(t.insert(WGX_AF_INET, v4(172, 16, uint8_t(i), 0), 24, P(8)), 0);
        want.push_back(Entry{fam, mask(a, fam, cidr), cidr});
    }
    return want;
}

TEST(AllowedIps, CursorResumesFromEveryPosition)
{
    Table t;
    const std::vector<Entry> want = fill_cursor_table(t);
    for (size_t k = 0; k <= want.size(); ++k) {
        wgx_allowedips_cursor cur{};
        CursorWalk w;
        EXPECT_EQ(w.step(t.t, P(7), cur, k), k == want.size()) << k;
        ASSERT_EQ(w.got.size(), k);
        EXPECT_EQ(cur.index, k);
        // Resuming yields exactly the rest, in order, visiting nothing else.
        CursorWalk rest;
        EXPECT_TRUE(rest.step(t.t, P(7), cur, want.size()));
        EXPECT_EQ(rest.got, std::vector<Entry>(want.begin() + long(k), want.end())) << k;
        EXPECT_EQ(rest.calls, want.size() - k) << k;
        EXPECT_EQ(cur.index, want.size());
        EXPECT_EQ(cur.node, nullptr);
        // At the end it stays there.
        CursorWalk none;
        EXPECT_TRUE(none.step(t.t, P(7), cur, 5));
        EXPECT_EQ(none.calls, 0u);
    }
}

// A dump in chunks of every size: each resume goes on where the last stopped.
TEST(AllowedIps, CursorChunkedWalkIsComplete)
{
    Table t;
    const std::vector<Entry> want = fill_cursor_table(t);
    const uint64_t seq = wgx_allowedips_seq(t.t);
    for (size_t chunk = 1; chunk <= want.size() + 1; ++chunk) {
        wgx_allowedips_cursor cur{};
        CursorWalk w;
        size_t rounds = 0;
        while (!w.step(t.t, P(7), cur, chunk))
            ASSERT_LT(++rounds, want.size() + 2);
        EXPECT_EQ(w.got, want) << chunk;
        // Every entry visited once, plus the one refused per stop.
        EXPECT_EQ(w.calls, want.size() + rounds) << chunk;
        EXPECT_EQ(rounds, (want.size() - 1) / chunk) << chunk;
    }
    EXPECT_EQ(wgx_allowedips_seq(t.t), seq);
    // A peer without prefixes is at its end at once.
    wgx_allowedips_cursor cur{};
    CursorWalk w;
    EXPECT_TRUE(w.step(t.t, P(9), cur, 3));
    EXPECT_EQ(w.calls, 0u);
}

// Any change invalidates the cursor's position: it goes on by index, never
// through the node it held (the host platform frees removed nodes at once, so
// the ASan build would catch a use after free).
TEST(AllowedIps, CursorIsInvalidatedByAChange)
{
    Table t;
    std::vector<Entry> want = fill_cursor_table(t);
    wgx_allowedips_cursor cur{};
    CursorWalk w;
    ASSERT_FALSE(w.step(t.t, P(7), cur, 10));
    // Remove the very prefix the cursor points at: the walk goes on at index 10.
    const Entry gone = want[10];
    ASSERT_EQ(t.remove(gone.family, gone.addr, gone.cidr, P(7)), 0);
    want.erase(want.begin() + 10);
    ASSERT_FALSE(w.step(t.t, P(7), cur, 10));
    EXPECT_EQ(std::vector<Entry>(w.got.begin() + 10, w.got.end()),
              std::vector<Entry>(want.begin() + 10, want.begin() + 20));
    EXPECT_EQ(cur.index, 20u);
    // Move the cursor's prefix to another peer: index 20 of what is left.
    const Entry moved = want[20];
    ASSERT_EQ(t.insert(moved.family, moved.addr, moved.cidr, P(8)), 0);
    want.erase(want.begin() + 20);
    ASSERT_FALSE(w.step(t.t, P(7), cur, 5));
    EXPECT_EQ(std::vector<Entry>(w.got.end() - 5, w.got.end()),
              std::vector<Entry>(want.begin() + 20, want.begin() + 25));
    // An unrelated insertion also invalidates (by index, same result).
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(192, 168, 0, 0), 16, P(8)), 0);
    ASSERT_TRUE(w.step(t.t, P(7), cur, 1000));
    EXPECT_EQ(std::vector<Entry>(w.got.end() - long(want.size() - 25), w.got.end()),
              std::vector<Entry>(want.begin() + 25, want.end()));
    // Everything removed under a cursor in the middle: it ends at once.
    wgx_allowedips_cursor mid{};
    CursorWalk w2;
    ASSERT_FALSE(w2.step(t.t, P(7), mid, 30));
    EXPECT_EQ(wgx_allowedips_remove_by_peer(t.t, P(7)), want.size());
    CursorWalk w3;
    EXPECT_TRUE(w3.step(t.t, P(7), mid, 1000));
    EXPECT_EQ(w3.calls, 0u);
}

// A cursor used with another peer than the one it walked: by index, within
// that peer's list (the node it holds is never followed into a foreign list).
TEST(AllowedIps, CursorOfAnotherPeerGoesByIndex)
{
    Table t;
    fill_cursor_table(t);
    wgx_allowedips_cursor cur{};
    CursorWalk w;
    ASSERT_FALSE(w.step(t.t, P(7), cur, 7));
    CursorWalk other;
    ASSERT_TRUE(other.step(t.t, P(8), cur, 1000));
    ASSERT_EQ(other.got.size(), 60u - 7);
    EXPECT_EQ(other.got.front(), (Entry{WGX_AF_INET, v4(172, 16, 7, 0), 24}));
}

TEST(AllowedIps, RemoveByPeerLeavesOthers)
{
    Table t;
    for (unsigned i = 0; i < 256; ++i)
        ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, uint8_t(i), 0, 0), 16 + i % 17, P(1 + i % 3)), 0);
    const size_t n1 = wgx_allowedips_count(t.t, P(1));
    EXPECT_EQ(wgx_allowedips_remove_by_peer(t.t, P(1)), n1);
    EXPECT_EQ(wgx_allowedips_remove_by_peer(t.t, P(1)), 0u);
    for (unsigned i = 0; i < 256; ++i)
        EXPECT_EQ(t.lookup(WGX_AF_INET, v4(10, uint8_t(i), 0, 0)), i % 3 == 0 ? nullptr : P(1 + i % 3)) << i;
    EXPECT_EQ(wgx_allowedips_count(t.t, nullptr), 256u - n1);
}

// Random prefixes clustered in a few regions so that they overlap and nest.
struct Gen {
    std::mt19937_64 rng;
    std::vector<std::pair<int, Addr>> seeds;
    explicit Gen(uint64_t s) : rng(s)
    {
        for (int i = 0; i < 24; ++i) {
            Addr a{};
            for (auto &b : a)
                b = uint8_t(rng());
            seeds.emplace_back(i % 2 ? WGX_AF_INET : WGX_AF_INET6, a);
        }
    }
    std::pair<int, Addr> addr()
    {
        auto [fam, a] = seeds[rng() % seeds.size()];
        const unsigned bits = unsigned(len_of(fam) * 8);
        // Flip a few bits, mostly low ones, to land near the seed.
        const int flips = int(rng() % 4);
        for (int i = 0; i < flips; ++i) {
            unsigned b = unsigned(rng() % bits);
            if (rng() % 2)
                b = bits - 1 - unsigned(rng() % std::min(bits, 24u));
            a[b / 8] ^= uint8_t(0x80 >> (b % 8));
        }
        if (rng() % 10 == 0)
            for (size_t i = 0; i < len_of(fam); ++i)
                a[i] = uint8_t(rng());
        return {fam, a};
    }
    unsigned cidr(int fam)
    {
        const unsigned bits = unsigned(len_of(fam) * 8);
        switch (rng() % 4) {
        case 0:
            return unsigned(rng() % (bits + 1));
        case 1:
            return bits - unsigned(rng() % 9);
        case 2:
            return std::min(bits, unsigned(8 + rng() % 25));
        default:
            return bits;
        }
    }
};

void check_all(Table &t, Reference &ref, Gen &g, int probes, const std::vector<void *> &peers)
{
    ASSERT_EQ(wgx_allowedips_count(t.t, nullptr), ref.total());
    for (int i = 0; i < probes; ++i) {
        auto [fam, a] = g.addr();
        ASSERT_EQ(t.lookup(fam, a), ref.lookup(fam, a)) << "probe " << i;
    }
    // Every stored prefix: lookup of its first, last and middle address.
    for (auto &[p, l] : ref.by_peer) {
        for (auto &e : l) {
            Addr last = e.addr;
            for (unsigned b = e.cidr; b < len_of(e.family) * 8; ++b)
                last[b / 8] |= uint8_t(0x80 >> (b % 8));
            ASSERT_EQ(t.lookup(e.family, e.addr), ref.lookup(e.family, e.addr));
            ASSERT_EQ(t.lookup(e.family, last), ref.lookup(e.family, last));
        }
    }
    for (size_t i = 0; i < peers.size(); i += 1 + peers.size() / 64) {
        void *p = peers[i];
        auto it = ref.by_peer.find(p);
        std::vector<Entry> want;
        if (it != ref.by_peer.end())
            want.assign(it->second.begin(), it->second.end());
        ASSERT_EQ(wgx_allowedips_count(t.t, p), want.size());
        ASSERT_EQ(walk_all(t.t, p), want);
    }
}

void randomized(uint64_t seed, size_t npeers, int ops)
{
    Gen g(seed);
    Table t;
    Reference ref;
    std::vector<void *> peers;
    for (size_t i = 1; i <= npeers; ++i)
        peers.push_back(P(i));
    std::vector<std::pair<Entry, void *>> inserted;  // for targeted removals
    for (int op = 0; op < ops; ++op) {
        const unsigned kind = unsigned(g.rng() % 100);
        if (kind < 70) {
            auto [fam, a] = g.addr();
            const unsigned cidr = g.cidr(fam);
            void *p = peers[g.rng() % peers.size()];
            ASSERT_EQ(t.insert(fam, a, cidr, p), 0);
            Entry e{fam, mask(a, fam, cidr), cidr};
            ref.insert(e, p);
            inserted.emplace_back(e, p);
        } else if (kind < 92 && !inserted.empty()) {
            // Remove a prefix we inserted, sometimes naming a wrong peer.
            auto [e, p] = inserted[g.rng() % inserted.size()];
            if (g.rng() % 4 == 0)
                p = peers[g.rng() % peers.size()];
            const bool want = ref.remove(e, p);
            ASSERT_EQ(t.remove(e.family, e.addr, e.cidr, p), want ? 0 : -WGX_ENOENT);
        } else if (kind < 95) {
            void *p = peers[g.rng() % peers.size()];
            ASSERT_EQ(wgx_allowedips_remove_by_peer(t.t, p), ref.remove_by_peer(p));
        } else {
            auto [fam, a] = g.addr();
            ASSERT_EQ(t.lookup(fam, a), ref.lookup(fam, a));
        }
        if (op % 2000 == 1999) {
            ASSERT_NO_FATAL_FAILURE(check_all(t, ref, g, 200, peers));
        }
    }
    ASSERT_NO_FATAL_FAILURE(check_all(t, ref, g, 2000, peers));
    // Tear down peer by peer.
    for (void *p : peers)
        ASSERT_EQ(wgx_allowedips_remove_by_peer(t.t, p), ref.remove_by_peer(p));
    EXPECT_EQ(wgx_allowedips_count(t.t, nullptr), 0u);
    auto [fam, a] = g.addr();
    EXPECT_EQ(t.lookup(fam, a), nullptr);
}

TEST(AllowedIps, RandomizedAgainstReferenceFewPeers)
{
    randomized(1, 8, 6000);
}
TEST(AllowedIps, RandomizedAgainstReferenceManyPeers)
{
    randomized(2, 3000, 12000);
}
TEST(AllowedIps, RandomizedAgainstReferenceMoreSeeds)
{
    for (uint64_t seed = 10; seed < 14; ++seed)
        randomized(seed, 200, 4000);
}

// Many routes (a dense /16 of /24s and /32s plus IPv6 /64s), lookups checked exhaustively.
TEST(AllowedIps, DenseTableExhaustive)
{
    Table t;
    Reference ref;
    std::mt19937_64 rng(5);
    for (unsigned i = 0; i < 256; ++i) {
        void *p = P(1 + rng() % 1000);
        ASSERT_EQ(t.insert(WGX_AF_INET, v4(10, 20, uint8_t(i), 0), 24, p), 0);
        ref.insert(Entry{WGX_AF_INET, v4(10, 20, uint8_t(i), 0), 24}, p);
    }
    for (unsigned i = 0; i < 2000; ++i) {
        const Addr a = v4(10, 20, uint8_t(rng()), uint8_t(rng()));
        void *p = P(1 + rng() % 1000);
        ASSERT_EQ(t.insert(WGX_AF_INET, a, 32, p), 0);
        ref.insert(Entry{WGX_AF_INET, a, 32}, p);
    }
    for (unsigned i = 0; i < 65536; ++i) {
        const Addr a = v4(10, 20, uint8_t(i >> 8), uint8_t(i));
        ASSERT_EQ(t.lookup(WGX_AF_INET, a), ref.lookup(WGX_AF_INET, a)) << i;
    }
    for (unsigned i = 0; i < 1000; ++i) {
        Addr a = v6({0x2001, 0xdb8, uint16_t(i), uint16_t(rng())});
        void *p = P(1 + i);
        ASSERT_EQ(t.insert(WGX_AF_INET6, a, 64, p), 0);
        ref.insert(Entry{WGX_AF_INET6, mask(a, WGX_AF_INET6, 64), 64}, p);
    }
    for (unsigned i = 0; i < 4000; ++i) {
        Addr a = v6({0x2001, 0xdb8, uint16_t(rng() % 1100), uint16_t(rng()), uint16_t(rng())});
        ASSERT_EQ(t.lookup(WGX_AF_INET6, a), ref.lookup(WGX_AF_INET6, a)) << i;
    }
}

// Lock-free readers concurrent with one writer.  The host platform frees at
// once (no RCU), so the writer here only inserts and moves prefixes, which
// never free a node (removal under readers needs the kernel's RCU-deferred frees).
// Readers check that (1) the /0 route means every lookup finds some valid peer,
// and (2) fixed /32 host routes keep resolving to their own peer while the
// writer keeps restructuring the trie above them (new branch points, new
// covering prefixes, peers moving).  Built with -fsanitize=thread this also
// checks the release/acquire publication contract.
TEST(AllowedIps, ConcurrentReadersDuringInsertsAndMoves)
{
    Table t;
    ASSERT_EQ(t.insert(WGX_AF_INET, v4(0, 0, 0, 0), 0, P(1)), 0);
    std::vector<Addr> hosts;
    std::mt19937_64 rng(9);
    for (unsigned i = 0; i < 64; ++i) {
        const Addr a = v4(10, uint8_t(rng() % 4), uint8_t(rng()), uint8_t(rng() | 1));  // odd last byte
        if (std::find(hosts.begin(), hosts.end(), a) != hosts.end())
            continue;
        hosts.push_back(a);
        ASSERT_EQ(t.insert(WGX_AF_INET, a, 32, P(1000 + hosts.size() - 1)), 0);
    }
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> reads{0};
    std::atomic<int> bad{0};
    std::atomic<int> started{0};  // readers that made their first lookups
    auto reader = [&](uint64_t seed) {
        std::mt19937_64 r(seed);
        uint64_t n = 0;
        while (!stop.load(std::memory_order_relaxed)) {
            const size_t h = r() % hosts.size();
            if (t.lookup(WGX_AF_INET, hosts[h]) != P(1000 + h))
                bad.fetch_add(1);
            const Addr a = v4(10, uint8_t(r() % 4), uint8_t(r()), uint8_t(r()));
            const uintptr_t p = reinterpret_cast<uintptr_t>(t.lookup(WGX_AF_INET, a));
            if (p < 16 || p > 16 * 1100 || p % 16)
                bad.fetch_add(1);
            if (++n == 1)
                started.fetch_add(1);
        }
        reads.fetch_add(n);
    };
    std::thread r1(reader, 1), r2(reader, 2);
    // The writes begin once both readers read: on a busy host the writer
    // could otherwise finish before either was scheduled.
    while (started.load() < 2)
        std::this_thread::yield();
    for (unsigned i = 0; i < 20000; ++i) {
        // Even last bytes or shorter prefixes: never the same as a fixed host route.
        const unsigned cidr = unsigned(rng() % 32);
        const Addr a = v4(10, uint8_t(rng() % 4), uint8_t(rng()), uint8_t(rng() & 0xfe));
        ASSERT_EQ(t.insert(WGX_AF_INET, a, cidr, P(2 + rng() % 900)), 0);
        if (i % 64 == 0)
            std::this_thread::yield();
    }
    stop = true;
    r1.join();
    r2.join();
    EXPECT_EQ(bad.load(), 0);
    EXPECT_GT(reads.load(), 0u);
    for (size_t h = 0; h < hosts.size(); ++h)
        EXPECT_EQ(t.lookup(WGX_AF_INET, hosts[h]), P(1000 + h));
}

}  // namespace
