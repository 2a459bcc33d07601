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

#include "replay.hpp"

namespace wgx {

namespace {
constexpr u64 WORDS = WGX_REPLAY_WORDS;
constexpr u64 WORD_SHIFT = 6; // log2(64)
static_assert(u64(1) << WORD_SHIFT == WGX_REPLAY_WORD_BITS);
} // namespace

bool replay_check(wgx_replay &r, u64 counter)
{
    if (counter >= transport::REJECT_AFTER_MESSAGES)
        return false;
    // No overflow: counter + 1 + REPLAY_WINDOW < 2^64 because counter < transport::REJECT_AFTER_MESSAGES.
    const u64 n = counter + 1;
    if (n + REPLAY_WINDOW < r.top)
        return false; // too far behind the greatest accepted counter

    const u64 word = n >> WORD_SHIFT;
    if (n > r.top) {
        const u64 cur = r.top >> WORD_SHIFT;
        u64 advance = word - cur;
        if (advance > WORDS)
            advance = WORDS;
        for (u64 i = 1; i <= advance; ++i)
            r.bitmap[(cur + i) & (WORDS - 1)] = 0;
        r.top = n;
    }
    const u64 bit = u64(1) << (n & (WGX_REPLAY_WORD_BITS - 1));
    u64 &w = r.bitmap[word & (WORDS - 1)];
    if (w & bit)
        return false; // already accepted once
    w |= bit;
    return true;
}

} // namespace wgx

extern "C" {

void wgx_replay_init(struct wgx_replay *r)
{
    wgx::zero_bytes(r, sizeof(*r));
}

bool wgx_replay_check(struct wgx_replay *r, wgx_u64 counter)
{
    return wgx::replay_check(*r, counter);
}

} // extern "C"
