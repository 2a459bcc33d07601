// SPDX-License-Identifier: GPL-2.0
//
// platform.cpp - host backend of <wgx/platform.h> for GoogleTest and the
// fuzzers:
//   libsodium: ChaCha20-Poly1305 (IETF, 96-bit nonce = 4 zero bytes || le64
//              counter), XChaCha20-Poly1305, X25519, CSPRNG, memzero, memcmp;
//   OpenSSL 3: BLAKE2s (EVP "BLAKE2S-256" unkeyed, EVP_MAC "BLAKE2SMAC" keyed
//              with its "size" parameter for 1..32-byte outputs).
// OpenSSL 3.0 offers unkeyed BLAKE2s only with a 32-byte output (its MAC
// refuses empty keys and its digest has no size parameter), and libsodium has
// no BLAKE2s at all; the core never asks for an unkeyed hash shorter than 32
// bytes, so that request aborts with a message instead of returning a wrong
// value.  Allocation is calloc/free; deferred free frees at once (no readers
// outlive a call on the host).
#include <wgx/platform.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

[[noreturn]] void die(const char *what)
{
    std::fprintf(stderr, "wgx host platform: %s\n", what);
    std::abort();
}

void ensure_sodium()
{
    static const bool ok = sodium_init() >= 0;
    if (!ok)
        die("sodium_init failed");
}

EVP_MD *blake2s_md()
{
    static EVP_MD *md = EVP_MD_fetch(nullptr, "BLAKE2S-256", nullptr);
    if (!md)
        die("OpenSSL has no BLAKE2S-256 digest");
    return md;
}

EVP_MAC *blake2s_mac()
{
    static EVP_MAC *mac = EVP_MAC_fetch(nullptr, "BLAKE2SMAC", nullptr);
    if (!mac)
        die("OpenSSL has no BLAKE2SMAC");
    return mac;
}

void wg_nonce(unsigned char out[crypto_aead_chacha20poly1305_IETF_NPUBBYTES], wgx_u64 counter)
{
    static_assert(crypto_aead_chacha20poly1305_IETF_NPUBBYTES == 12);
    std::memset(out, 0, 4);
    for (int i = 0; i < 8; ++i)
        out[4 + i] = static_cast<unsigned char>(counter >> (8 * i));
}

// libsodium wants a valid pointer even for empty inputs.
const unsigned char *nonnull(const wgx_u8 *p)
{
    static const unsigned char empty[1] = {0};
    return p ? p : empty;
}

}  // namespace

extern "C" {

void wgx_platform_chacha20poly1305_encrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len, const wgx_u8 *ad,
                                           wgx_size ad_len, wgx_u64 nonce, const wgx_u8 key[WGX_KEY_LEN])
{
    ensure_sodium();
    unsigned char n[12];
    wg_nonce(n, nonce);
    crypto_aead_chacha20poly1305_ietf_encrypt(dst, nullptr, nonnull(src), src_len, nonnull(ad), ad_len, nullptr, n,
                                              key);
}

bool wgx_platform_chacha20poly1305_decrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len, const wgx_u8 *ad,
                                           wgx_size ad_len, wgx_u64 nonce, const wgx_u8 key[WGX_KEY_LEN])
{
    ensure_sodium();
    if (src_len < WGX_AEAD_TAG_LEN)
        return false;
    unsigned char n[12];
    wg_nonce(n, nonce);
    unsigned char scratch[1];
    return crypto_aead_chacha20poly1305_ietf_decrypt(src_len == WGX_AEAD_TAG_LEN && !dst ? scratch : dst, nullptr,
                                                     nullptr, src, src_len, nonnull(ad), ad_len, n, key) == 0;
}

void wgx_platform_xchacha20poly1305_encrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len, const wgx_u8 *ad,
                                            wgx_size ad_len, const wgx_u8 nonce[WGX_XNONCE_LEN],
                                            const wgx_u8 key[WGX_KEY_LEN])
{
    ensure_sodium();
    static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == WGX_XNONCE_LEN);
    crypto_aead_xchacha20poly1305_ietf_encrypt(dst, nullptr, nonnull(src), src_len, nonnull(ad), ad_len, nullptr, nonce,
                                               key);
}

bool wgx_platform_xchacha20poly1305_decrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len, const wgx_u8 *ad,
                                            wgx_size ad_len, const wgx_u8 nonce[WGX_XNONCE_LEN],
                                            const wgx_u8 key[WGX_KEY_LEN])
{
    ensure_sodium();
    if (src_len < WGX_AEAD_TAG_LEN)
        return false;
    unsigned char scratch[1];
    return crypto_aead_xchacha20poly1305_ietf_decrypt(src_len == WGX_AEAD_TAG_LEN && !dst ? scratch : dst, nullptr,
                                                      nullptr, src, src_len, nonnull(ad), ad_len, nonce, key) == 0;
}

bool wgx_platform_curve25519(wgx_u8 out[WGX_KEY_LEN], const wgx_u8 secret[WGX_KEY_LEN],
                             const wgx_u8 basepoint[WGX_KEY_LEN])
{
    ensure_sodium();
    // libsodium returns -1 for an all-zero result (and for small-order points,
    // whose result is all zero with a clamped scalar).
    if (crypto_scalarmult(out, secret, basepoint) != 0 || sodium_is_zero(out, WGX_KEY_LEN)) {
        sodium_memzero(out, WGX_KEY_LEN);
        return false;
    }
    return true;
}

bool wgx_platform_curve25519_generate_public(wgx_u8 pub[WGX_KEY_LEN], const wgx_u8 secret[WGX_KEY_LEN])
{
    ensure_sodium();
    // Same contract as the kernel's curve25519_generate_public(): an all-zero
    // secret has no public key.
    if (sodium_is_zero(secret, WGX_KEY_LEN) || crypto_scalarmult_base(pub, secret) != 0 ||
        sodium_is_zero(pub, WGX_KEY_LEN)) {
        sodium_memzero(pub, WGX_KEY_LEN);
        return false;
    }
    return true;
}

void wgx_platform_curve25519_generate_secret(wgx_u8 secret[WGX_KEY_LEN])
{
    ensure_sodium();
    randombytes_buf(secret, WGX_KEY_LEN);
    secret[0] &= 248;
    secret[31] = static_cast<wgx_u8>((secret[31] & 127) | 64);
}

void wgx_platform_blake2s(wgx_u8 *out, wgx_size out_len, const wgx_u8 *key, wgx_size key_len, const struct wgx_iov *iov,
                          wgx_size n)
{
    if (!out || out_len < 1 || out_len > WGX_BLAKE2S_HASH_LEN || key_len > WGX_KEY_LEN || (!key && key_len) ||
        (!iov && n))
        die("wgx_platform_blake2s: invalid arguments");

    if (key_len == 0) {
        if (out_len != WGX_BLAKE2S_HASH_LEN)
            die("wgx_platform_blake2s: unkeyed BLAKE2s with an output shorter than 32 bytes is not available "
                "in OpenSSL 3.0");
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        unsigned int len = 0;
        bool ok = ctx && EVP_DigestInit_ex2(ctx, blake2s_md(), nullptr) == 1;
        for (wgx_size i = 0; ok && i < n; ++i)
            ok = iov[i].len == 0 || EVP_DigestUpdate(ctx, iov[i].base, iov[i].len) == 1;
        ok = ok && EVP_DigestFinal_ex(ctx, out, &len) == 1 && len == out_len;
        EVP_MD_CTX_free(ctx);
        if (!ok)
            die("BLAKE2S-256 digest failed");
        return;
    }

    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(blake2s_mac());
    size_t size = out_len, len = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_construct_end()};
    bool ok = ctx && EVP_MAC_init(ctx, key, key_len, params) == 1;
    for (wgx_size i = 0; ok && i < n; ++i)
        ok = iov[i].len == 0 || EVP_MAC_update(ctx, static_cast<const unsigned char *>(iov[i].base), iov[i].len) == 1;
    ok = ok && EVP_MAC_final(ctx, out, &len, out_len) == 1 && len == out_len;
    EVP_MAC_CTX_free(ctx);
    if (!ok)
        die("BLAKE2SMAC failed");
}

void wgx_platform_get_random_bytes(void *buf, wgx_size len)
{
    ensure_sodium();
    randombytes_buf(buf, len);
}

void wgx_platform_memzero_explicit(void *p, wgx_size len)
{
    if (p && len)
        sodium_memzero(p, len);
}

int wgx_platform_memneq(const void *a, const void *b, wgx_size len)
{
    ensure_sodium();
    return len && sodium_memcmp(a, b, len) != 0;
}

void *wgx_platform_zalloc(wgx_size size, bool may_sleep)
{
    (void)may_sleep;
    return std::calloc(1, size ? size : 1);
}

void wgx_platform_free(void *p)
{
    std::free(p);
}

void wgx_platform_free_deferred(void *p, struct wgx_rcu_head *head)
{
    (void)head;
    std::free(p);
}

int wgx_platform_init(void)
{
    return 0;
}

void wgx_platform_exit(void) {}

void *wgx_platform_node_zalloc(bool may_sleep)
{
    return wgx_platform_zalloc(WGX_PLATFORM_NODE_SIZE, may_sleep);
}

void wgx_platform_node_free(void *p)
{
    std::free(p);
}

void wgx_platform_node_free_deferred(void *p, struct wgx_rcu_head *head)
{
    wgx_platform_free_deferred(p, head);
}

}  // extern "C"
