// SPDX-License-Identifier: GPL-2.0
//
// replay.hpp - the RFC 6479 sliding-window replay filter of a receiving key
// (whitepaper 5.4.6).  The state is the plain C struct wgx_replay from
// <wgx/replay.h>, so the kernel glue can embed it in its keypair and guard it
// with its own spinlock; this header gives the C++ core the same constants as
// constexpr values.  The counter limits are in transport.hpp.
#pragma once

#include <wgx/replay.h>

#include "bytes.hpp"
#include "transport.hpp"

namespace wgx {

/// Bitmap size and the usable window (8192 - 64 = 8128 counters below the greatest).
constexpr u64 REPLAY_BITS_TOTAL = WGX_REPLAY_BITS_TOTAL;
constexpr u64 REPLAY_WINDOW = WGX_REPLAY_WINDOW;

static_assert(REPLAY_WINDOW == 8128);
static_assert((WGX_REPLAY_WORDS & (WGX_REPLAY_WORDS - 1)) == 0, "ring index uses a mask");
static_assert(sizeof(wgx_replay) == 8 + WGX_REPLAY_BITS_TOTAL / 8);

/// See wgx_replay_check() and wgx_replay_check_loss() in <wgx/replay.h>.
bool replay_check(wgx_replay &r, u64 counter, wgx_replay_loss &loss);

/// See wgx_replay_flush() in <wgx/replay.h>.
u64 replay_flush(const wgx_replay &r);

}  // namespace wgx
