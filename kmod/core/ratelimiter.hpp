// SPDX-License-Identifier: GPL-2.0
//
// ratelimiter.hpp - handshake ratelimiter constants (token bucket per source,
// as the in-tree wireguard ratelimiter: 20 packets/s, burst 5, IPv4 /32 and
// IPv6 /64).  The C API is in <wgx/ratelimiter.h>.
#pragma once

#include <wgx/ratelimiter.h>

#include "bytes.hpp"

namespace wgx {

/// Token cost of one packet in ns of accumulated time: 1 s / 20.
constexpr u64 RATELIMIT_PACKET_COST_NS = NSEC_PER_SEC / WGX_RATELIMIT_PACKETS_PER_SECOND;
/// Bucket size: a burst of 5 packets.
constexpr u64 RATELIMIT_TOKEN_MAX_NS = RATELIMIT_PACKET_COST_NS * WGX_RATELIMIT_BURST;
/// Entries idle for longer than this are dropped by wgx_ratelimiter_gc().
constexpr u64 RATELIMIT_IDLE_NS = WGX_RATELIMIT_IDLE_SEC * NSEC_PER_SEC;

} // namespace wgx
