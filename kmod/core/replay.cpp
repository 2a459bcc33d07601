// SPDX-License-Identifier: GPL-2.0
//
// replay.cpp - RFC 6479 sliding-window replay filter (whitepaper 5.4.6).
//
// Position n = counter + 1 is tracked, so that top == 0 means "nothing
// accepted yet" and counter 0 needs no special case.  The bitmap is a ring of
// 128 64-bit words; bit (n mod 8192) belongs to position n.  Moving the top
// forward clears the words between the old and the new top (at most the whole
// ring), so the word holding the oldest acceptable position is never one that
// was just recycled: with top in word w, words w-127..w are live, and the
// oldest acceptable position top - 8128 lies in word >= w - 127.
//
// Loss and reordering (telemetry): the window holds positions top - 8128 ..
// top.  When the top moves from t to t', the positions below t' - 8128 leave
// it.  Those up to t lie in the live words w-127..w, so their bits are still
// valid until this move clears words for the new top: they are counted
// first, a clear bit being a lost counter; those above t were never accepted
// at all.  Reordered: accepted below the top.

#include "replay.hpp"

namespace wgx {

namespace {
constexpr u64 WORDS = WGX_REPLAY_WORDS;
constexpr u64 WORD_SHIFT = 6;  // log2(64)
static_assert(u64(1) << WORD_SHIFT == WGX_REPLAY_WORD_BITS);

// Portable population count (no libgcc call in the freestanding core).
u64 popcount(u64 x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (x * 0x0101010101010101ull) >> 56;
}

// Positions in [from, to) whose bit is clear; every one of them must be live
// in the ring (to - from <= REPLAY_BITS_TOTAL - WGX_REPLAY_WORD_BITS + 1).
u64 count_clear(const wgx_replay &r, u64 from, u64 to)
{
    u64 clear = 0;

    while (from < to) {
        const u64 bit = from & (WGX_REPLAY_WORD_BITS - 1);
        u64 span = WGX_REPLAY_WORD_BITS - bit;
        if (span > to - from)
            span = to - from;
        const u64 mask = (span == WGX_REPLAY_WORD_BITS ? ~u64(0) : ((u64(1) << span) - 1)) << bit;
        clear += span - popcount(r.bitmap[(from >> WORD_SHIFT) & (WORDS - 1)] & mask);
        from += span;
    }
    return clear;
}

// Lowest position still inside the window of a top @top (positions start at 1).
u64 window_low(u64 top)
{
    return top > REPLAY_WINDOW + 1 ? top - REPLAY_WINDOW : 1;
}
}  // namespace

bool replay_check(wgx_replay &r, u64 counter, wgx_replay_loss &loss)
{
    if (counter >= transport::REJECT_AFTER_MESSAGES)
        return false;
    // No overflow: counter + 1 + REPLAY_WINDOW < 2^64 because counter < transport::REJECT_AFTER_MESSAGES.
    const u64 n = counter + 1;
    if (n + REPLAY_WINDOW < r.top)
        return false;  // too far behind the greatest accepted counter

    const u64 word = n >> WORD_SHIFT;
    const u64 bit = u64(1) << (n & (WGX_REPLAY_WORD_BITS - 1));
    u64 &w = r.bitmap[word & (WORDS - 1)];
    if (n <= r.top) {
        if (w & bit)
            return false;  // already accepted once
        w |= bit;
        ++loss.reordered;  // n == top is always set, so n < top here
        return true;
    }

    // Leaving the window: [window_low(top), window_low(n)); bits valid up to the old top.
    const u64 lo = window_low(r.top), hi = window_low(n);
    if (lo < hi) {
        const u64 seen_end = hi < r.top + 1 ? hi : r.top + 1;
        if (lo < seen_end)
            loss.lost += count_clear(r, lo, seen_end);
        const u64 unseen_from = lo > r.top + 1 ? lo : r.top + 1;
        if (unseen_from < hi)
            loss.lost += hi - unseen_from;
    }
    {
        const u64 cur = r.top >> WORD_SHIFT;
        u64 advance = word - cur;
        if (advance > WORDS)
            advance = WORDS;
        for (u64 i = 1; i <= advance; ++i)
            r.bitmap[(cur + i) & (WORDS - 1)] = 0;
        r.top = n;
    }
    w |= bit;  // a word just cleared, or one above the old top: the bit was clear
    return true;
}

u64 replay_flush(const wgx_replay &r)
{
    // Everything in [window_low(top), top) not accepted; top itself is (when top > 0).
    return r.top ? count_clear(r, window_low(r.top), r.top) : 0;
}

}  // namespace wgx

extern "C" {

void wgx_replay_init(struct wgx_replay *r)
{
    wgx::zero_bytes(r, sizeof(*r));
}

bool wgx_replay_check(struct wgx_replay *r, wgx_u64 counter)
{
    wgx_replay_loss ignored = {0, 0};

    return wgx::replay_check(*r, counter, ignored);
}

bool wgx_replay_check_loss(struct wgx_replay *r, wgx_u64 counter, struct wgx_replay_loss *loss)
{
    return wgx::replay_check(*r, counter, *loss);
}

wgx_u64 wgx_replay_flush(const struct wgx_replay *r)
{
    return wgx::replay_flush(*r);
}

}  // extern "C"
