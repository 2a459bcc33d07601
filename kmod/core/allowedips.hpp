// SPDX-License-Identifier: GPL-2.0
//
// allowedips.hpp - cryptokey routing table (whitepaper section 2): longest-prefix
// match from IPv4/IPv6 prefixes to an opaque peer pointer.  The C API and the
// concurrency contract (lock-free RCU readers, one serialized writer) are in
// <wgx/allowedips.h>; this header holds what the C++ side shares.
#pragma once

#include <wgx/allowedips.h>

#include "bytes.hpp"

namespace wgx {

/// Address length in bytes and in bits of @family; 0 for an unknown family.
constexpr usize family_addr_len(int family)
{
    return family == WGX_AF_INET ? 4 : family == WGX_AF_INET6 ? 16 : 0;
}
constexpr unsigned family_addr_bits(int family)
{
    return unsigned(family_addr_len(family)) * 8;
}

}  // namespace wgx
