// SPDX-License-Identifier: GPL-2.0
//
// noise.hpp - Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s as used by WireGuard
// (whitepaper 5.4): the symmetric helpers HASH, MAC, HMAC, KDF1..3 (5.4.1)
// over the platform's BLAKE2s, a self-wiping buffer for secrets, and the
// layouts of the opaque identity and handshake handles of <wgx/noise.h>.
#pragma once

#include <wgx/noise.h>
#include <wgx/platform.h>

#include "bytes.hpp"
#include "cookie.hpp"
#include "messages.hpp"

namespace wgx::noise {

constexpr char CONSTRUCTION[] = "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s";  // 5.4, without the NUL
constexpr char IDENTIFIER[] = "WireGuard v1 zx2c4 Jason@zx2c4.com";       // 5.4, without the NUL

constexpr usize KEY_LEN = 32;
constexpr usize HASH_LEN = 32;
constexpr usize BLAKE2S_BLOCK_LEN = 64;

/// Per-peer spacing of accepted initiations: 1 s / 50 = 20 ms (flood limit).
constexpr u64 INITIATION_MIN_INTERVAL_NS = NSEC_PER_SEC / WGX_INITIATIONS_PER_SECOND;

/// Largest power of two <= @v (v > 0).
constexpr u64 rounddown_pow2(u64 v)
{
    u64 p = 1;
    while (p <= v / 2)
        p <<= 1;
    return p;
}
/// TAI64N nanoseconds are rounded down to this (2^24 ns), so a timestamp does
/// not leak fine-grained clock information; it stays below the flood spacing.
constexpr u32 TAI64N_NSEC_GRANULE = u32(rounddown_pow2(INITIATION_MIN_INTERVAL_NS));
static_assert(TAI64N_NSEC_GRANULE == (1u << 24));
/// TAI64 label of the Unix epoch: 2^62 plus the 10 s TAI-UTC offset of 1970.
constexpr u64 TAI64_EPOCH = 0x400000000000000aULL;

/// A fixed-size secret buffer, zeroed on construction and wiped (in a way the
/// compiler cannot elide) when it goes out of scope, on every return path.
template <usize N> struct Secret {
    u8 b[N] = {};
    Secret() = default;
    Secret(const Secret &) = delete;
    Secret &operator=(const Secret &) = delete;
    ~Secret() { wgx_platform_memzero_explicit(b, N); }
    u8 *data() { return b; }
    const u8 *data() const { return b; }
    static constexpr usize size() { return N; }
};

/// HASH(a || b): unkeyed BLAKE2s-256.
inline void hash(u8 *out, const void *a, usize alen, const void *b = nullptr, usize blen = 0)
{
    const wgx_iov iov[2] = {{a, alen}, {b, blen}};
    wgx_platform_blake2s(out, HASH_LEN, nullptr, 0, iov, b ? 2 : 1);
}

/// MAC(key, a || b): keyed BLAKE2s with a 16-byte output.
inline void mac(u8 *out, const u8 *key, usize keylen, const void *a, usize alen, const void *b = nullptr,
                usize blen = 0)
{
    const wgx_iov iov[2] = {{a, alen}, {b, blen}};
    wgx_platform_blake2s(out, msg::MAC_LEN, key, keylen, iov, b ? 2 : 1);
}

/// HMAC-BLAKE2s-256(key, a || b) (RFC 2104 with BLAKE2s's 64-byte block). @key 32 bytes.
void hmac(u8 *out, const u8 *key, const void *a, usize alen, const void *b = nullptr, usize blen = 0);

/// KDF_n(key = @ck, input) (5.4.1): writes up to three 32-byte outputs; @t2/@t3
/// may be null.  Outputs may alias @ck.
void kdf(u8 *t1, u8 *t2, u8 *t3, const u8 *ck, const u8 *input, usize input_len);

/// TAI64N timestamp (12 bytes) of a wall-clock time.
void tai64n(u8 *out, u64 wall_sec, u32 wall_nsec);

}  // namespace wgx::noise

/// The device's static identity (opaque in C).
struct wgx_noise_identity {
    wgx::u8 static_private[32];  // clamped
    wgx::u8 static_public[32];
    bool has_key;
};

/// One peer's handshake state (opaque in C).
struct wgx_noise_handshake {
    const wgx_noise_identity *identity;
    wgx::u8 remote_static[32];
    wgx::u8 preshared_key[32];
    wgx::u8 precomputed_static_static[32];  // DH(our static private, remote static)
    bool static_static_ok;
    bool static_static_due;  // not computed yet: the first message that needs it does
    bool have_consumed_initiation;  // replay state (below), here to fill a hole

    // The handshake in progress.
    wgx_handshake_state state;
    wgx::u32 local_index;
    wgx::u32 remote_index;
    wgx::u8 ephemeral_private[32];
    wgx::u8 remote_ephemeral[32];
    wgx::u8 chaining_key[32];
    wgx::u8 hash[32];

    // Replay and flood protection of received initiations (5.1).
    wgx::u8 latest_timestamp[WGX_TAI64N_LEN];
    wgx::u64 last_initiation_consumption_ns;

    wgx::cookie::PeerCookie cookie;
};
