// SPDX-License-Identifier: GPL-2.0
//
// replay.hpp - message-counter limits and the RFC 6479 sliding-window replay
// filter of a receiving key (whitepaper 5.4.6 and 6.1).  The state is the plain
// C struct wgx_replay from <wgx/core.h>, so the kernel glue can embed it in its
// keypair and guard it with its own spinlock; this header gives the C++ core the
// same constants as constexpr values.
#pragma once

#include <wgx/core.h>

#include "bytes.hpp"

namespace wgx {

/// Renew a keypair after this many sent messages (whitepaper 6.1): 2^60.
constexpr u64 REKEY_AFTER_MESSAGES = u64(1) << 60;
/// Counters >= this are never sent nor accepted (whitepaper 6.1): 2^64 - 2^13 - 1.
constexpr u64 REJECT_AFTER_MESSAGES = ~u64(0) - (u64(1) << 13);
/// Bitmap size and the usable window (8192 - 64 = 8128 counters below the greatest).
constexpr u64 REPLAY_BITS_TOTAL = WGX_REPLAY_BITS_TOTAL;
constexpr u64 REPLAY_WINDOW = WGX_REPLAY_WINDOW;

static_assert(REKEY_AFTER_MESSAGES == WGX_REKEY_AFTER_MESSAGES);
static_assert(REJECT_AFTER_MESSAGES == WGX_REJECT_AFTER_MESSAGES);
static_assert(REJECT_AFTER_MESSAGES == 0xffffffffffffdfffULL);
static_assert(REPLAY_WINDOW == 8128);
static_assert((WGX_REPLAY_WORDS & (WGX_REPLAY_WORDS - 1)) == 0, "ring index uses a mask");
static_assert(sizeof(wgx_replay) == 8 + WGX_REPLAY_BITS_TOTAL / 8);

/// See wgx_replay_check() in <wgx/core.h>.
bool replay_check(wgx_replay &r, u64 counter);

} // namespace wgx
