// SPDX-License-Identifier: GPL-2.0
//
// timers.hpp - protocol durations of the WireGuard timer state machine
// (whitepaper section 6.1) in nanoseconds, for the C++ side.  The state
// (struct wgx_timers) and the event/expiry functions are in <wgx/timers.h>;
// the kernel glue maps each deadline onto a kernel timer.
#pragma once

#include <wgx/timers.h>

#include "bytes.hpp"

namespace wgx {

constexpr u64 REKEY_AFTER_TIME_NS = WGX_REKEY_AFTER_TIME_S * NSEC_PER_SEC;
constexpr u64 REJECT_AFTER_TIME_NS = WGX_REJECT_AFTER_TIME_S * NSEC_PER_SEC;
constexpr u64 REKEY_ATTEMPT_TIME_NS = WGX_REKEY_ATTEMPT_TIME_S * NSEC_PER_SEC;
constexpr u64 REKEY_TIMEOUT_NS = WGX_REKEY_TIMEOUT_S * NSEC_PER_SEC;
/// Retransmit and new-handshake deadlines get a random extra delay in [0, this).
constexpr u64 REKEY_TIMEOUT_JITTER_MAX_NS = NSEC_PER_SEC / 3;
constexpr u64 KEEPALIVE_TIMEOUT_NS = WGX_KEEPALIVE_TIMEOUT_S * NSEC_PER_SEC;
/// Keys are zeroed when no new session was derived for this long.
constexpr u64 ZERO_KEY_MATERIAL_NS = 3 * REJECT_AFTER_TIME_NS;
/// Largest accepted divisor of wgx_timer_params_init() (REKEY_TIMEOUT >= 5 ms).
constexpr u32 TIMER_MAX_DIVISOR = 1000;

static_assert(WGX_MAX_TIMER_HANDSHAKES == 18);
// The glue embeds these in its peer: keep the layout fixed and padding-free.
static_assert(sizeof(wgx_timer_params) == 9 * 8);
static_assert(sizeof(wgx_timers) == sizeof(wgx_timer_params) + WGX_TIMER_COUNT * 8 + 3 * 8 + 16);

}  // namespace wgx
