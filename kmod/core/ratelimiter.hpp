// SPDX-License-Identifier: GPL-2.0
//
// ratelimiter.hpp - handshake ratelimiter constants: the token bucket (as the
// in-tree wireguard ratelimiter: 20 packets/s, burst 5) and the levels of a
// bucket's key with the table fill at which new buckets are aggregated.  The
// C API and the reasoning are in <wgx/ratelimiter.h>.
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

/// What a bucket is keyed by, finest first.
enum class RlLevel : u8 {
    source = 0,  ///< IPv4 /32, IPv6 /64: one sender
    prefix = 1,  ///< IPv4 /24, IPv6 /48: one site
    block = 2,   ///< IPv4 /16, IPv6 /32: one network operator
};

/// Prefix length of @level for @family (WGX_AF_INET or WGX_AF_INET6), in bits
/// of the address; the keys hold at most the first 64 bits of an address.
constexpr unsigned ratelimit_level_bits(int family, RlLevel level)
{
    return family == WGX_AF_INET ? 32 - 8 * unsigned(level) : 64 - 16 * unsigned(level);
}

/// From this fill (count >= capacity / N) new buckets are keyed by at least
/// their prefix, and from the second one by their block.
constexpr usize RATELIMIT_PREFIX_PRESSURE_DIVISOR = 4;  // a quarter full
constexpr usize RATELIMIT_BLOCK_PRESSURE_DIVISOR = 2;   // half full

}  // namespace wgx
