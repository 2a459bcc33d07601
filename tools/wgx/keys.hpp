// SPDX-License-Identifier: GPL-2.0
//
// keys.hpp - key generation and derivation for genkey/genpsk/pubkey, over
// libsodium (never our own primitives).
#pragma once

#include "model.hpp"

namespace wgx {

/** Curve25519 clamping of a private key (RFC 7748 section 5, as wg genkey does). */
void clamp_private_key(Key &k);
/** 32 random bytes from libsodium's CSPRNG, clamped if @clamp.  False if libsodium fails to initialise. */
bool generate_key(Key &out, bool clamp);
/** X25519 public key of @priv (clamped internally).  False on libsodium failure. */
bool public_key_of(Key &pub, const Key &priv);

}  // namespace wgx
