// SPDX-License-Identifier: GPL-2.0
//
// encoding.hpp - base64 encoding of 32-byte keys exactly as wg(8) prints and
// accepts them (RFC 4648 alphabet, padded, 44 characters).
#pragma once

#include <string>
#include <string_view>

#include "model.hpp"

namespace wgx {

/** The 44-character padded base64 form of @key. */
std::string key_to_base64(const Key &key);

/**
 * key_from_base64 - parse a key as wg does: exactly 44 characters of the
 * standard alphabet, the last one '=', and the 43rd character's two low bits
 * zero (so that each key has exactly one spelling).  Runs in time independent
 * of the key bytes.  On failure returns false and zeroes @out.
 */
bool key_from_base64(Key &out, std::string_view text);

}  // namespace wgx
