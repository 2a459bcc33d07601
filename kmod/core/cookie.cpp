// SPDX-License-Identifier: GPL-2.0
//
// cookie.cpp - MAC1/MAC2 and cookie replies (whitepaper 5.3, 5.4.4, 5.4.7).
//
// Sending side (per peer, inside its handshake): mac1 is keyed with
// HASH("mac1----" || receiver's static public key) over the message up to
// mac1; mac2 is keyed with the last cookie the receiver gave us (if younger
// than 120 - 5 s) over the message up to mac2, else zero.
// Receiving side (the device's checker): the cookie of a source is
// MAC(secret, source address bytes), the secret being 32 random bytes renewed
// every 120 s; a cookie reply carries it encrypted with XChaCha20-Poly1305
// under HASH("cookie--" || our static public key), with the mac1 of the
// message it answers as associated data.
#include "cookie.hpp"

#include "noise.hpp"

namespace wgx::cookie {
namespace {

using noise::Secret;

void wipe(void *p, usize len)
{
    wgx_platform_memzero_explicit(p, len);
}

bool source_ok(const u8 *src, usize src_len)
{
    return src_len <= WGX_COOKIE_SOURCE_MAX_LEN && (src || !src_len);
}

/// The cookie of source @src: MAC(secret, src), renewing the secret when it is
/// missing or older than 120 s (5.4.7).
void make_cookie(wgx_cookie_checker *c, u8 *out, const u8 *src, usize src_len, u64 now_ns)
{
    if (!c->have_secret || s64(now_ns - c->secret_birth_ns) >= s64(SECRET_MAX_AGE_NS)) {
        wgx_platform_get_random_bytes(c->secret, sizeof(c->secret));
        c->secret_birth_ns = now_ns;
        c->have_secret = true;
    }
    noise::mac(out, c->secret, sizeof(c->secret), src, src_len);
}

}  // namespace

}  // namespace wgx::cookie

using namespace wgx;
using namespace wgx::cookie;

wgx_cookie_checker *wgx_cookie_checker_create(bool may_sleep)
{
    return static_cast<wgx_cookie_checker *>(wgx_platform_zalloc(sizeof(wgx_cookie_checker), may_sleep));
}

void wgx_cookie_checker_destroy(wgx_cookie_checker *c)
{
    if (!c)
        return;
    wipe(c, sizeof(*c));
    wgx_platform_free(c);
}

void wgx_cookie_checker_set_identity(wgx_cookie_checker *c, const wgx_noise_identity *id)
{
    if (!c)
        return;
    wipe(c->mac1_key, sizeof(c->mac1_key));
    wipe(c->encryption_key, sizeof(c->encryption_key));
    c->have_identity = false;
    if (!id || !id->has_key)
        return;
    noise::hash(c->mac1_key, LABEL_MAC1, LABEL_LEN, id->static_public, msg::KEY_LEN);
    noise::hash(c->encryption_key, LABEL_COOKIE, LABEL_LEN, id->static_public, msg::KEY_LEN);
    c->have_identity = true;
}

wgx_cookie_verdict wgx_cookie_checker_validate(wgx_cookie_checker *c, const u8 *m, usize len, const u8 *src,
                                               usize src_len, bool under_load, u64 now_ns)
{
    if (!c || !c->have_identity || !msg::is_handshake(m, len))
        return WGX_COOKIE_DROP;

    const usize mac1 = len - msg::MACS_TAIL, mac2 = len - msg::MAC_LEN;
    u8 computed[msg::MAC_LEN];
    noise::mac(computed, c->mac1_key, msg::KEY_LEN, m, mac1);
    if (wgx_platform_memneq(computed, m + mac1, msg::MAC_LEN))
        return WGX_COOKIE_DROP;
    if (!under_load)
        return WGX_COOKIE_ACCEPT;
    if (!source_ok(src, src_len))
        return WGX_COOKIE_DROP;

    Secret<msg::COOKIE_LEN> cookie;
    make_cookie(c, cookie.b, src, src_len, now_ns);
    noise::mac(computed, cookie.b, msg::COOKIE_LEN, m, mac2);
    if (wgx_platform_memneq(computed, m + mac2, msg::MAC_LEN))
        return WGX_COOKIE_SEND_REPLY;
    return WGX_COOKIE_ACCEPT_RATELIMIT;
}

int wgx_cookie_checker_create_reply(wgx_cookie_checker *c, u8 *out, const u8 *m, usize len, const u8 *src,
                                    usize src_len, u64 now_ns)
{
    namespace off = msg::cookie_reply;
    if (!c || !out)
        return -WGX_EINVAL;
    zero_bytes(out, msg::COOKIE_REPLY_LEN);
    if (!msg::is_handshake(m, len) || !source_ok(src, src_len))
        return -WGX_EINVAL;
    if (!c->have_identity)
        return -WGX_ENOKEY;

    Secret<msg::COOKIE_LEN> cookie;
    msg::put_header(out, msg::TYPE_COOKIE_REPLY);
    copy_bytes(out + off::RECEIVER, m + msg::HANDSHAKE_SENDER, 4);
    wgx_platform_get_random_bytes(out + off::NONCE, msg::COOKIE_NONCE_LEN);
    make_cookie(c, cookie.b, src, src_len, now_ns);
    wgx_platform_xchacha20poly1305_encrypt(out + off::COOKIE, cookie.b, msg::COOKIE_LEN, m + len - msg::MACS_TAIL,
                                           msg::MAC_LEN, out + off::NONCE, c->encryption_key);
    return 0;
}

int wgx_cookie_consume_reply(wgx_noise_handshake *hs, const u8 *m, usize len, u64 now_ns)
{
    namespace off = msg::cookie_reply;
    if (!hs || msg::classify(m, len) != msg::TYPE_COOKIE_REPLY)
        return -WGX_EINVAL;
    PeerCookie &pc = hs->cookie;
    if (!pc.have_sent_mac1)
        return -WGX_ESTALE;

    Secret<msg::COOKIE_LEN> cookie;
    if (!wgx_platform_xchacha20poly1305_decrypt(cookie.b, m + off::COOKIE, msg::COOKIE_LEN + msg::TAG_LEN,
                                                pc.last_mac1_sent, msg::MAC_LEN, m + off::NONCE, pc.decryption_key))
        return -WGX_EBADMSG;
    copy_bytes(pc.cookie, cookie.b, msg::COOKIE_LEN);
    pc.cookie_birth_ns = now_ns;
    pc.cookie_valid = true;
    pc.have_sent_mac1 = false;
    return 0;
}
