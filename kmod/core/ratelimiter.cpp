// SPDX-License-Identifier: GPL-2.0
//
// ratelimiter.cpp - token buckets for handshake packets under load, behaving
// like the in-tree wireguard ratelimiter for ordinary traffic: tokens are
// nanoseconds of elapsed time, capped at 5 packets' worth, a packet costs
// 1/20 s, and a new bucket starts full minus the packet that created it.
// Unlike it, a bucket's key is not always one source (IPv4 /32, IPv6 /64):
// per-prefix quotas and aggregation under table pressure key it by the
// source's /24 or /16 (IPv6 /48 or /32) instead, so an attacker with many
// addresses can neither fill the table nor multiply its rate (the rules and
// why are in <wgx/ratelimiter.h>).
//
// Memory: one allocation at create, holding a fixed pool of entries and a
// bucket array of chain heads (next power of two >= capacity).  A chain is
// chosen by keyed BLAKE2s-64 over (family, block, cookie), with a random key
// from create: remote senders cannot aim their blocks at one chain, and every
// entry of a block lies in one chain, so one walk of it finds the finest
// bucket of a source and counts what its prefix and block already hold.  The
// quotas bound such a walk: a block holds at most
// WGX_RATELIMIT_ENTRIES_PER_BLOCK + 1 entries per cookie.

#include "ratelimiter.hpp"

#include <wgx/core_test.h>
#include <wgx/platform.h>

namespace wgx::rl {

struct Entry {
    u64 ip;       // key: the address left-aligned in 64 bits (IPv4 in the top 32, IPv6's
                  // first 64), masked to the prefix length of @level
    u64 cookie;   // caller's key (namespace / device)
    u64 last_ns;  // time of the last packet
    u64 tokens;   // ns of credit, <= RATELIMIT_TOKEN_MAX_NS
    u32 next;     // next entry in the chain or free list, as index + 1; 0 = end
    u8 family;    // WGX_AF_INET / WGX_AF_INET6 (u8 fits both values)
    RlLevel level;
};
static_assert(sizeof(Entry) == 40, "documented in <wgx/ratelimiter.h>");

}  // namespace wgx::rl

struct wgx_ratelimiter {
    wgx::rl::Entry *entries;  // capacity entries
    wgx::u32 *buckets;        // nbuckets chain heads (index + 1; 0 = empty)
    wgx::u32 nbuckets_mask;
    wgx::u32 free_head;  // free list (index + 1; 0 = pool exhausted)
    wgx::usize capacity;
    wgx::usize count;
    wgx::u8 hash_key[16];
};

using namespace wgx;
using namespace wgx::rl;

namespace {

/// The first ratelimit_level_bits(@family, @level) bits of a left-aligned key.
constexpr u64 level_mask(int family, RlLevel level)
{
    return ~u64(0) << (64 - ratelimit_level_bits(family, level));
}

u32 chain_of(const wgx_ratelimiter *rl, u8 family, u64 block, u64 cookie)
{
    u8 in[17];
    in[0] = family;
    store_le64(in + 1, block);
    store_le64(in + 9, cookie);
    const wgx_iov iov = {in, sizeof(in)};
    u8 out[8];
    wgx_platform_blake2s(out, sizeof(out), rl->hash_key, sizeof(rl->hash_key), &iov, 1);
    return u32(load_le64(out)) & rl->nbuckets_mask;
}

/// Charge one packet to @e at @now_ns; true when it may pass.
bool charge(Entry &e, u64 now_ns)
{
    u64 tokens = e.tokens;
    if (now_ns > e.last_ns) {
        const u64 elapsed = now_ns - e.last_ns;
        tokens = elapsed >= RATELIMIT_TOKEN_MAX_NS - tokens ? RATELIMIT_TOKEN_MAX_NS : tokens + elapsed;
        e.last_ns = now_ns;
    }
    const bool ok = tokens >= RATELIMIT_PACKET_COST_NS;
    e.tokens = ok ? tokens - RATELIMIT_PACKET_COST_NS : tokens;
    return ok;
}

/// The level of a new bucket: the quotas of the source's prefix and block
/// (@in_prefix source buckets in its prefix, @in_block buckets of any level in
/// its block), raised by the table's fill.
RlLevel new_level(const wgx_ratelimiter *rl, usize in_prefix, usize in_block)
{
    if (in_block >= WGX_RATELIMIT_ENTRIES_PER_BLOCK || rl->count * RATELIMIT_BLOCK_PRESSURE_DIVISOR >= rl->capacity)
        return RlLevel::block;
    if (in_prefix >= WGX_RATELIMIT_SOURCES_PER_PREFIX || rl->count * RATELIMIT_PREFIX_PRESSURE_DIVISOR >= rl->capacity)
        return RlLevel::prefix;
    return RlLevel::source;
}

/// Unlink every entry for which @pred(entry) holds; returns how many.
template <typename Pred> usize remove_if(wgx_ratelimiter *rl, Pred pred)
{
    usize removed = 0;
    for (u32 b = 0; b <= rl->nbuckets_mask; ++b) {
        u32 *link = &rl->buckets[b];
        while (*link) {
            const u32 idx = *link;
            Entry &e = rl->entries[idx - 1];
            if (pred(e)) {
                *link = e.next;
                e = Entry{};
                e.next = rl->free_head;
                rl->free_head = idx;
                ++removed;
            } else {
                link = &e.next;
            }
        }
    }
    rl->count -= removed;
    return removed;
}

}  // namespace

extern "C" {

struct wgx_ratelimiter *wgx_ratelimiter_create(wgx_size capacity)
{
    if (capacity == 0 || capacity > WGX_RATELIMIT_MAX_CAPACITY)
        return nullptr;
    usize nbuckets = 1;
    while (nbuckets < capacity)
        nbuckets <<= 1;
    // One block: header, entries (8-byte aligned after the header), buckets.
    const usize head = (sizeof(wgx_ratelimiter) + 7) & ~usize(7);
    const usize size = head + capacity * sizeof(Entry) + nbuckets * sizeof(u32);
    auto *mem = static_cast<u8 *>(wgx_platform_zalloc(size, true));
    if (!mem)
        return nullptr;
    auto *rl = reinterpret_cast<wgx_ratelimiter *>(mem);
    rl->entries = reinterpret_cast<Entry *>(mem + head);
    rl->buckets = reinterpret_cast<u32 *>(mem + head + capacity * sizeof(Entry));
    rl->nbuckets_mask = u32(nbuckets - 1);
    rl->capacity = capacity;
    for (usize i = 0; i < capacity; ++i)
        rl->entries[i].next = i + 1 < capacity ? u32(i + 2) : 0;
    rl->free_head = 1;
    wgx_platform_get_random_bytes(rl->hash_key, sizeof(rl->hash_key));
    return rl;
}

void wgx_ratelimiter_destroy(struct wgx_ratelimiter *rl)
{
    if (rl)
        wgx_platform_memzero_explicit(rl->hash_key, sizeof(rl->hash_key));
    wgx_platform_free(rl);
}

bool wgx_ratelimiter_allow(struct wgx_ratelimiter *rl, int family, const wgx_u8 *addr, wgx_u64 cookie, wgx_u64 now_ns)
{
    if (!rl || !addr)
        return false;
    u64 key;
    if (family == WGX_AF_INET)
        key = u64(load_be32(addr)) << 32;
    else if (family == WGX_AF_INET6)
        key = load_be64(addr);  // the /64 the source can freely vary within is one key
    else
        return false;
    const u8 fam = u8(family);
    const u64 prefix = key & level_mask(family, RlLevel::prefix);
    const u64 block = key & level_mask(family, RlLevel::block);

    // One walk: the source's own bucket wins at once; otherwise remember the
    // aggregates of its prefix and block and count what they hold.
    u32 *head = &rl->buckets[chain_of(rl, fam, block, cookie)];
    Entry *prefix_bucket = nullptr, *block_bucket = nullptr;
    usize in_prefix = 0, in_block = 0;
    for (u32 idx = *head; idx; idx = rl->entries[idx - 1].next) {
        Entry &e = rl->entries[idx - 1];
        if (e.family != fam || e.cookie != cookie || (e.ip & level_mask(family, RlLevel::block)) != block)
            continue;
        ++in_block;
        switch (e.level) {
        case RlLevel::source:
            if (e.ip == key)
                return charge(e, now_ns);
            in_prefix += (e.ip & level_mask(family, RlLevel::prefix)) == prefix;
            break;
        case RlLevel::prefix:
            if (e.ip == prefix)
                prefix_bucket = &e;
            break;
        case RlLevel::block:
            block_bucket = &e;
            break;
        }
    }
    if (prefix_bucket)
        return charge(*prefix_bucket, now_ns);
    if (block_bucket)
        return charge(*block_bucket, now_ns);

    if (!rl->free_head)
        return false;  // table full: refuse new sources
    const RlLevel level = new_level(rl, in_prefix, in_block);
    const u32 idx = rl->free_head;
    Entry &e = rl->entries[idx - 1];
    rl->free_head = e.next;
    e.ip = key & level_mask(family, level);
    e.cookie = cookie;
    e.family = fam;
    e.level = level;
    e.last_ns = now_ns;
    e.tokens = RATELIMIT_TOKEN_MAX_NS - RATELIMIT_PACKET_COST_NS;
    e.next = *head;
    *head = idx;
    ++rl->count;
    return true;
}

wgx_size wgx_ratelimiter_gc(struct wgx_ratelimiter *rl, wgx_u64 now_ns)
{
    // Empty (no handshake from anyone under load lately, i.e. nearly
    // always): nothing to scan.  Every device runs this each second, and a
    // scan reads all 4,096 chain heads.
    if (!rl || !rl->count)
        return 0;
    return remove_if(rl,
                     [now_ns](const Entry &e) { return now_ns > e.last_ns && now_ns - e.last_ns > RATELIMIT_IDLE_NS; });
}

wgx_size wgx_ratelimiter_forget_cookie(struct wgx_ratelimiter *rl, wgx_u64 cookie)
{
    if (!rl)
        return 0;
    return remove_if(rl, [cookie](const Entry &e) { return e.cookie == cookie; });
}

wgx_size wgx_ratelimiter_count(const struct wgx_ratelimiter *rl)
{
    return rl ? rl->count : 0;
}

}  // extern "C"
