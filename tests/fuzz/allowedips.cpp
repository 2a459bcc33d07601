// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer harness for the allowed-IPs trie: the input is a program of
// insert / remove / remove_by_peer / lookup operations over IPv4 and IPv6
// prefixes near a few base addresses (so they nest and collide), checked after
// every step against a naive model (exact-match dictionary probed at every
// prefix length, per-peer lists in insertion order).  A walk cursor lives
// across the program and is advanced by its own operation, so it is resumed
// after every kind of change (the host platform frees at once: ASan catches a
// cursor that follows a freed node).  Any mismatch aborts.
//
//   build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DWGX_FUZZ=ON && cmake --build build-fuzz
//   run:   build-fuzz/fuzz/fuzz_allowedips -max_total_time=60
//
// Every step is checked against the whole model, so an input's cost grows
// with the square of its length: 128 bytes (up to ~40 operations) keep the
// 10-million-execution run of scripts/fuzz --long near 5000 exec/s, where
// libFuzzer's growing length limit alone fell below 2000 exec/s within
// minutes on this project's machine.
// fuzz-long: -max_len=128

#include <algorithm>
#include <array>
#include <iterator>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <tuple>
#include <vector>

#include <wgx/core.h>

namespace {

using Addr = std::array<uint8_t, 16>;

struct Reader {
    const uint8_t *p;
    size_t n;
    uint8_t byte()
    {
        if (!n)
            return 0;
        --n;
        return *p++;
    }
};

size_t len_of(int fam)
{
    return fam == WGX_AF_INET ? 4 : 16;
}

Addr mask(const Addr &a, int fam, unsigned cidr)
{
    Addr m{};
    for (size_t i = 0; i < len_of(fam); ++i) {
        if (cidr >= (i + 1) * 8)
            m[i] = a[i];
        else if (cidr > i * 8)
            m[i] = uint8_t(a[i] & (0xff << (8 - (cidr - i * 8))));
    }
    return m;
}

struct Key {
    int fam;
    Addr addr;
    unsigned cidr;
    bool operator<(const Key &o) const { return std::tie(fam, addr, cidr) < std::tie(o.fam, o.addr, o.cidr); }
    bool operator==(const Key &o) const { return fam == o.fam && addr == o.addr && cidr == o.cidr; }
};

struct Model {
    std::map<Key, void *> owner;
    std::map<void *, std::list<Key>> lists;
    void unlist(void *p, const Key &k)
    {
        auto it = lists.find(p);
        it->second.remove(k);
        if (it->second.empty())
            lists.erase(it);
    }
    void *lookup(int fam, const Addr &a) const
    {
        for (int c = int(len_of(fam) * 8); c >= 0; --c) {
            auto it = owner.find(Key{fam, mask(a, fam, unsigned(c)), unsigned(c)});
            if (it != owner.end())
                return it->second;
        }
        return nullptr;
    }
};

[[noreturn]] void fail(const char *what)
{
    fprintf(stderr, "allowedips mismatch: %s\n", what);
    abort();
}

void *peer_of(uint8_t b)
{
    return reinterpret_cast<void *>(uintptr_t(0x1000 + 16 * (b % 24)));
}

const Addr BASES[4] = {
    {10, 0, 0, 0},
    {192, 168, 77, 1},
    {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    {0xfd, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88},
};

struct WalkCtx {
    const std::list<Key> *want;
    std::list<Key>::const_iterator it;
};

/// Advance @cur over @peer's prefixes by at most @room entries; they must be
/// the model's list from the cursor's position (kept, or by index after a change).
void check_cursor_step(wgx_allowedips *t, const Model &m, void *peer, wgx_allowedips_cursor &cur, size_t room)
{
    auto li = m.lists.find(peer);
    static const std::list<Key> empty;
    const std::list<Key> &want = li == m.lists.end() ? empty : li->second;
    const size_t start = cur.index < want.size() ? cur.index : want.size();
    struct Ctx {
        std::list<Key>::const_iterator it, end;
        size_t room, taken;
    } ctx{std::next(want.begin(), long(start)), want.end(), room, 0};
    const bool done = wgx_allowedips_walk_from(
        t, peer, &cur,
        [](void *c, int fam, const uint8_t *addr, uint8_t cidr) {
            auto *x = static_cast<Ctx *>(c);
            if (!x->room)
                return 1;
            if (x->it == x->end)
                fail("cursor walk too long");
            Key k{fam, {}, cidr};
            memcpy(k.addr.data(), addr, len_of(fam));
            if (!(k == *x->it))
                fail("cursor walk order");
            ++x->it;
            --x->room;
            ++x->taken;
            return 0;
        },
        &ctx);
    if (done != (want.size() - start <= room) || cur.index != start + ctx.taken ||
        ctx.taken != std::min(room, want.size() - start))
        fail("cursor position");
}

void check_walk(wgx_allowedips *t, const Model &m, void *peer)
{
    auto li = m.lists.find(peer);
    static const std::list<Key> empty;
    const std::list<Key> &want = li == m.lists.end() ? empty : li->second;
    if (wgx_allowedips_count(t, peer) != want.size())
        fail("count");
    WalkCtx ctx{&want, want.begin()};
    const size_t end = wgx_allowedips_walk(
        t, peer, 0,
        [](void *c, int fam, const uint8_t *addr, uint8_t cidr) {
            auto *x = static_cast<WalkCtx *>(c);
            if (x->it == x->want->end())
                fail("walk too long");
            Key k{fam, {}, cidr};
            memcpy(k.addr.data(), addr, len_of(fam));
            if (!(k == *x->it))
                fail("walk order");
            ++x->it;
            return 0;
        },
        &ctx);
    if (end != want.size() || ctx.it != want.end())
        fail("walk length");
    // The same in chunks of 3 with a fresh cursor.
    wgx_allowedips_cursor cur{};
    for (size_t i = 0; i <= want.size() / 3; ++i)
        check_cursor_step(t, m, peer, cur, 3);
    if (cur.index != want.size() || cur.node)
        fail("cursor end");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reader in{data, size};
    wgx_allowedips *t = wgx_allowedips_create();
    if (!t)
        return 0;
    Model m;
    wgx_allowedips_cursor cur{};
    void *cur_peer = nullptr;
    while (in.n) {
        const uint8_t op = in.byte();
        const uint8_t sel = in.byte();
        const int fam = (sel & 2) ? WGX_AF_INET6 : WGX_AF_INET;
        Addr a = BASES[sel & 3];
        if (fam == WGX_AF_INET)
            a = BASES[sel & 1];
        // Perturb up to two bytes of the address.
        for (int i = 0; i < (sel >> 2) % 3; ++i) {
            const uint8_t pos = in.byte();
            a[pos % len_of(fam)] ^= in.byte();
        }
        const unsigned max_bits = unsigned(len_of(fam) * 8);
        switch (op % 6) {
        case 0:
        case 1: {  // insert
            const uint8_t cb = in.byte();
            const unsigned cidr = cb % (max_bits + 1);
            void *p = peer_of(in.byte());
            if (wgx_allowedips_insert(t, fam, a.data(), uint8_t(cidr), p, false) != 0)
                fail("insert");
            const Key k{fam, mask(a, fam, cidr), cidr};
            auto it = m.owner.find(k);
            if (it == m.owner.end() || it->second != p) {
                if (it != m.owner.end())
                    m.unlist(it->second, k);
                m.owner[k] = p;
                m.lists[p].push_back(k);
            }
            break;
        }
        case 2: {  // remove, with an arbitrary (possibly wrong) peer
            const unsigned cidr = in.byte() % (max_bits + 1);
            void *p = peer_of(in.byte());
            const Key k{fam, mask(a, fam, cidr), cidr};
            auto it = m.owner.find(k);
            const bool ok = it != m.owner.end() && it->second == p;
            if (wgx_allowedips_remove(t, fam, a.data(), uint8_t(cidr), p) != (ok ? 0 : -WGX_ENOENT))
                fail("remove");
            if (ok) {
                m.owner.erase(it);
                m.unlist(p, k);
            }
            break;
        }
        case 3: {  // remove_by_peer
            void *p = peer_of(in.byte());
            auto li = m.lists.find(p);
            size_t n = 0;
            if (li != m.lists.end()) {
                for (auto &k : li->second)
                    m.owner.erase(k);
                n = li->second.size();
                m.lists.erase(li);
            }
            if (wgx_allowedips_remove_by_peer(t, p) != n)
                fail("remove_by_peer");
            break;
        }
        case 5: {  // advance the long-lived cursor (restarted for another peer)
            void *p = peer_of(in.byte());
            if (p != cur_peer) {
                cur = wgx_allowedips_cursor{};
                cur_peer = p;
            }
            check_cursor_step(t, m, p, cur, in.byte() % 8);
            break;
        }
        default:  // out-of-range arguments must be refused without side effects
            if (wgx_allowedips_insert(t, fam, a.data(), uint8_t(max_bits + 1 + in.byte() % 100), peer_of(1), false) !=
                -WGX_EINVAL)
                fail("bad cidr accepted");
            break;
        }
        if (wgx_allowedips_lookup(t, fam, a.data()) != m.lookup(fam, a))
            fail("lookup");
        if (wgx_allowedips_count(t, nullptr) != m.owner.size())
            fail("total");
    }
    // Every stored prefix and its last address resolve like the model; walks match.
    for (auto &[k, p] : m.owner) {
        Addr last = k.addr;
        for (unsigned b = k.cidr; b < len_of(k.fam) * 8; ++b)
            last[b / 8] |= uint8_t(0x80 >> (b % 8));
        if (wgx_allowedips_lookup(t, k.fam, k.addr.data()) != m.lookup(k.fam, k.addr) ||
            wgx_allowedips_lookup(t, k.fam, last.data()) != m.lookup(k.fam, last))
            fail("final lookup");
    }
    for (unsigned b = 0; b < 24; ++b)
        check_walk(t, m, peer_of(uint8_t(b)));
    wgx_allowedips_destroy(t);
    return 0;
}
