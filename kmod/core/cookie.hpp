// SPDX-License-Identifier: GPL-2.0
//
// cookie.hpp - the cookie mechanism inside the core (whitepaper 5.3, 5.4.4,
// 5.4.7): the per-peer sending side (mac1/mac2 of our handshake messages,
// the cookie a peer gave us) and the device's checker (mac1/mac2 validation,
// cookie replies).  The extern "C" entry points are declared in <wgx/cookie.h>.
#pragma once

#include <wgx/cookie.h>

#include "bytes.hpp"
#include "messages.hpp"

namespace wgx::cookie {

constexpr char LABEL_MAC1[] = "mac1----";    // whitepaper 5.4.4, without the NUL
constexpr char LABEL_COOKIE[] = "cookie--";  // whitepaper 5.4.7, without the NUL
constexpr usize LABEL_LEN = 8;
static_assert(sizeof(LABEL_MAC1) - 1 == LABEL_LEN && sizeof(LABEL_COOKIE) - 1 == LABEL_LEN);

constexpr u64 SECRET_MAX_AGE_NS = u64(WGX_COOKIE_SECRET_MAX_AGE_S) * NSEC_PER_SEC;
constexpr u64 SECRET_LATENCY_NS = u64(WGX_COOKIE_SECRET_LATENCY_S) * NSEC_PER_SEC;

/// Cookie state of one peer, kept inside its handshake (same lock).
struct PeerCookie {
    u8 mac1_key[msg::KEY_LEN];        // HASH(LABEL_MAC1 || peer's static public key)
    u8 decryption_key[msg::KEY_LEN];  // HASH(LABEL_COOKIE || peer's static public key)
    u8 cookie[msg::COOKIE_LEN];       // last cookie the peer sent us
    u64 cookie_birth_ns;
    bool cookie_valid;
    u8 last_mac1_sent[msg::MAC_LEN];  // AD of the cookie reply we may receive
    bool have_sent_mac1;
};

/// peer_init(), add_macs() and peer_wipe() are defined in noise.cpp, which
/// builds the handshake messages they sign.

/// Derive @pc's keys from the peer's static public key (32 bytes); forgets any cookie.
void peer_init(PeerCookie &pc, const u8 *remote_static);

/// Fill mac1 and mac2 of our handshake message @m (@len = 148 or 92); mac2 is
/// zero unless the peer's cookie is younger than 120 - 5 s at @now_ns.
void add_macs(PeerCookie &pc, u8 *m, usize len, u64 now_ns);

/// Wipe everything secret in @pc.
void peer_wipe(PeerCookie &pc);

}  // namespace wgx::cookie

/// The device's cookie checker (opaque in C).
struct wgx_cookie_checker {
    wgx::u8 mac1_key[32];        // HASH(LABEL_MAC1 || our static public key)
    wgx::u8 encryption_key[32];  // HASH(LABEL_COOKIE || our static public key)
    wgx::u8 secret[32];          // random, rotated every 120 s
    wgx::u64 secret_birth_ns;
    bool have_secret;
    bool have_identity;
};
