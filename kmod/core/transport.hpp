// SPDX-License-Identifier: GPL-2.0
//
// transport.hpp - transport data messages (whitepaper 5.4.6): padding rule and
// counter limits.  The extern "C" entry points are declared in
// <wgx/transport.h> and <wgx/messages.h>.
#pragma once

#include <wgx/transport.h>

#include "bytes.hpp"
#include "messages.hpp"

namespace wgx::transport {

/// Counters at or above this are never sent nor accepted: 2^64 - 2^13 - 1 (whitepaper
/// 6.1); the replay window refuses them too.
constexpr u64 REJECT_AFTER_MESSAGES = WGX_TRANSPORT_REJECT_AFTER_MESSAGES;
static_assert(REJECT_AFTER_MESSAGES == 0xffffffffffffffffULL - 8192ULL);

/// Plaintext length after padding @len to a multiple of 16, never beyond @mtu
/// (0 = unlimited); see wgx_transport_padded_len().
constexpr usize padded_len(usize len, u32 mtu)
{
    usize last = len;
    if (mtu && last > mtu)
        last %= mtu;
    if (last > ~usize(0) - (msg::PADDING_MULTIPLE - 1))
        return len;
    usize padded = (last + msg::PADDING_MULTIPLE - 1) & ~usize(msg::PADDING_MULTIPLE - 1);
    if (mtu && padded > mtu)
        padded = mtu;
    return len + (padded - last);
}

}  // namespace wgx::transport
