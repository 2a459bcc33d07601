// SPDX-License-Identifier: GPL-2.0
//
// noise.cpp - the Noise_IKpsk2 handshake of WireGuard (whitepaper 5.4.2-5.4.5):
// identity, per-peer handshake state, initiation and response creation and
// consumption, session key derivation.
//
// Every secret that lives on the stack is a noise::Secret, which wipes itself
// on every return path; handshake state is only written (committed) once a
// message has been fully built or verified, so a failure leaves it unchanged.
#include "noise.hpp"

#include <wgx/core_test.h>

namespace wgx::noise {

void hmac(u8 *out, const u8 *key, const void *a, usize alen, const void *b, usize blen)
{
    Secret<BLAKE2S_BLOCK_LEN> pad;
    Secret<HASH_LEN> inner;

    for (usize i = 0; i < BLAKE2S_BLOCK_LEN; ++i)
        pad.b[i] = u8((i < KEY_LEN ? key[i] : 0) ^ 0x36);
    const wgx_iov in[3] = {{pad.b, BLAKE2S_BLOCK_LEN}, {a, alen}, {b, blen}};
    wgx_platform_blake2s(inner.b, HASH_LEN, nullptr, 0, in, b ? 3 : 2);

    for (usize i = 0; i < BLAKE2S_BLOCK_LEN; ++i)
        pad.b[i] ^= 0x36 ^ 0x5c;
    const wgx_iov outer[2] = {{pad.b, BLAKE2S_BLOCK_LEN}, {inner.b, HASH_LEN}};
    wgx_platform_blake2s(out, HASH_LEN, nullptr, 0, outer, 2);
}

void kdf(u8 *t1, u8 *t2, u8 *t3, const u8 *ck, const u8 *input, usize input_len)
{
    Secret<HASH_LEN> prk, o1, o2, o3;
    const u8 one = 1, two = 2, three = 3;

    hmac(prk.b, ck, input, input_len);
    hmac(o1.b, prk.b, &one, 1);
    if (t2 || t3)
        hmac(o2.b, prk.b, o1.b, HASH_LEN, &two, 1);
    if (t3)
        hmac(o3.b, prk.b, o2.b, HASH_LEN, &three, 1);
    if (t1)
        copy_bytes(t1, o1.b, HASH_LEN);
    if (t2)
        copy_bytes(t2, o2.b, HASH_LEN);
    if (t3)
        copy_bytes(t3, o3.b, HASH_LEN);
}

void tai64n(u8 *out, u64 wall_sec, u32 wall_nsec)
{
    if (wall_nsec >= NSEC_PER_SEC)
        wall_nsec = u32(NSEC_PER_SEC - 1);
    wall_nsec -= wall_nsec % TAI64N_NSEC_GRANULE;
    store_be64(out, TAI64_EPOCH + wall_sec);
    store_be32(out + 8, wall_nsec);
}

namespace {

constexpr u8 ZERO_KEY[KEY_LEN] = {};

/// Initial chaining key and hash, with the responder's static key mixed in:
/// C = HASH(CONSTRUCTION), H = HASH(HASH(C || IDENTIFIER) || S_pub_responder).
void init_symmetric(u8 *ck, u8 *h, const u8 *responder_static)
{
    Secret<HASH_LEN> t;
    hash(ck, CONSTRUCTION, sizeof(CONSTRUCTION) - 1);
    hash(t.b, ck, HASH_LEN, IDENTIFIER, sizeof(IDENTIFIER) - 1);
    hash(h, t.b, HASH_LEN, responder_static, KEY_LEN);
}

/// H = HASH(H || data).
void mix_hash(u8 *h, const void *data, usize len)
{
    Secret<HASH_LEN> t;
    hash(t.b, h, HASH_LEN, data, len);
    copy_bytes(h, t.b, HASH_LEN);
}

/// Keep the chaining key @ck and hash @h a message left, for the next
/// message or the session keys (5.4.5).
void keep_chain(u8 *ck_dst, u8 *h_dst, const u8 *ck, const u8 *h)
{
    copy_bytes(ck_dst, ck, HASH_LEN);
    copy_bytes(h_dst, h, HASH_LEN);
}

/// (C, key) = KDF2(C, DH(priv, pub)), or C = KDF1(...) when @key is null.
/// False, with C unchanged, when the DH result is all zero.
[[nodiscard]] bool mix_dh(u8 *ck, u8 *key, const u8 *priv, const u8 *pub)
{
    Secret<KEY_LEN> dh;
    if (!wgx_platform_curve25519(dh.b, priv, pub) || !wgx_platform_memneq(dh.b, ZERO_KEY, KEY_LEN))
        return false;
    kdf(ck, key, nullptr, ck, dh.b, KEY_LEN);
    return true;
}

/// (C, key) = KDF2(C, @dh), or C = KDF1(...) when @key is null: a DH made
/// ahead (struct wgx_noise_prepared), checked non-zero when it was made.
void mix_dh_result(u8 *ck, u8 *key, const u8 *dh)
{
    kdf(ck, key, nullptr, ck, dh, KEY_LEN);
}

/// What a message to @hs's peer takes of @prep: nothing (none, invalid, or
/// made for another key: a re-key in place since makes it useless, and it is
/// then wiped unused), its pair alone (made for no peer), or its pair and DH.
enum class PreparedUse { none, pair, pair_and_dh };

PreparedUse prepared_use(const wgx_noise_handshake *hs, const wgx_noise_prepared *prep)
{
    if (!prep || !prep->valid)
        return PreparedUse::none;
    if (!prep->has_dh)
        return PreparedUse::pair;
    if (wgx_platform_memneq(prep->remote_static, hs->remote_static, KEY_LEN))
        return PreparedUse::none;
    return PreparedUse::pair_and_dh;
}

/// The static-static DH of @hs, computed at the first message that needs it
/// (creation defers it): true when usable.  Caller holds the handshake's lock.
bool static_static_ready(wgx_noise_handshake *hs)
{
    if (hs->static_static_due)
        wgx_noise_handshake_precompute(hs);
    return hs->static_static_ok;
}

/// (C, key) = KDF2(C, precomputed DH(S_priv_i, S_pub_r)).
[[nodiscard]] bool mix_static_static(u8 *ck, u8 *key, const wgx_noise_handshake *hs)
{
    if (!hs->static_static_ok)
        return false;
    kdf(ck, key, nullptr, ck, hs->precomputed_static_static, KEY_LEN);
    return true;
}

/// (C, tau, key) = KDF3(C, Q); H = HASH(H || tau).
void mix_psk(u8 *ck, u8 *h, u8 *key, const u8 *psk)
{
    Secret<HASH_LEN> tau;
    kdf(ck, tau.b, key, ck, psk, KEY_LEN);
    mix_hash(h, tau.b, HASH_LEN);
}

/// dst = AEAD(key, 0, src, H); H = HASH(H || dst).  @dst gets @len + 16 bytes.
void encrypt_and_hash(u8 *dst, const u8 *src, usize len, const u8 *key, u8 *h)
{
    wgx_platform_chacha20poly1305_encrypt(dst, src, len, h, HASH_LEN, 0, key);
    mix_hash(h, dst, len + msg::TAG_LEN);
}

/// dst = AEAD-open(key, 0, src, H); H = HASH(H || src).  @src_len includes the tag.
[[nodiscard]] bool decrypt_and_hash(u8 *dst, const u8 *src, usize src_len, const u8 *key, u8 *h)
{
    if (!wgx_platform_chacha20poly1305_decrypt(dst, src, src_len, h, HASH_LEN, 0, key))
        return false;
    mix_hash(h, src, src_len);
    return true;
}

/// A fresh ephemeral key pair; false if no public key could be derived.
[[nodiscard]] bool generate_ephemeral(u8 *priv, u8 *pub)
{
    wgx_platform_curve25519_generate_secret(priv);
    return wgx_platform_curve25519_generate_public(pub, priv);
}

/// The message's ephemeral pair: @prep's when @use says it has one for the
/// peer, else a fresh one; false if no public key could be derived.
[[nodiscard]] bool take_ephemeral(PreparedUse use, const wgx_noise_prepared *prep, u8 *priv, u8 *pub)
{
    if (use == PreparedUse::none)
        return generate_ephemeral(priv, pub);
    copy_bytes(priv, prep->ephemeral_private, KEY_LEN);
    copy_bytes(pub, prep->ephemeral_public, KEY_LEN);
    return true;
}

/// The "e" token of a message we send (5.4.2, 5.4.3): @e_pub into the
/// message at @dst, then H = HASH(H || e) and C = KDF1(C, e).
void put_ephemeral(u8 *dst, const u8 *e_pub, u8 *ck, u8 *h)
{
    copy_bytes(dst, e_pub, KEY_LEN);
    mix_hash(h, e_pub, KEY_LEN);
    kdf(ck, nullptr, nullptr, ck, e_pub, KEY_LEN);
}

/// DH(@e_priv, @hs's peer static key) mixed in as mix_dh() does: @prep's
/// result when @use says it has one; false when a computed DH is all zero.
[[nodiscard]] bool mix_dh_prepared(u8 *ck, u8 *key, PreparedUse use, const wgx_noise_prepared *prep,
                                   const u8 *e_priv, const wgx_noise_handshake *hs)
{
    if (use == PreparedUse::pair_and_dh) {
        mix_dh_result(ck, key, prep->dh);
        return true;
    }
    return mix_dh(ck, key, e_priv, hs->remote_static);
}

bool identity_usable(const wgx_noise_identity *id)
{
    return id && id->has_key;
}

void wipe(void *p, usize len)
{
    wgx_platform_memzero_explicit(p, len);
}

/// Wipes a prepared ephemeral when it goes out of scope, on every return path:
/// the create calls consume theirs, used or not.
struct Wiper {
    wgx_noise_prepared *p;
    explicit Wiper(wgx_noise_prepared *prep) : p(prep) {}
    Wiper(const Wiper &) = delete;
    Wiper &operator=(const Wiper &) = delete;
    ~Wiper()
    {
        if (p)
            wipe(p, sizeof(*p));
    }
};

void clear_in_progress(wgx_noise_handshake *hs)
{
    wipe(hs->ephemeral_private, sizeof(hs->ephemeral_private));
    wipe(hs->remote_ephemeral, sizeof(hs->remote_ephemeral));
    wipe(hs->chaining_key, sizeof(hs->chaining_key));
    wipe(hs->hash, sizeof(hs->hash));
    hs->local_index = 0;
    hs->remote_index = 0;
    hs->state = WGX_HANDSHAKE_ZEROED;
}

int consume_initiation_finish(wgx_noise_handshake *hs, const wgx_noise_initiation_scratch *s, u64 now_ns)
{
    if (!hs || !s->valid || wgx_platform_memneq(s->remote_static, hs->remote_static, KEY_LEN))
        return -WGX_EINVAL;
    if (!identity_usable(hs->identity) || !static_static_ready(hs))
        return -WGX_ENOKEY;

    Secret<HASH_LEN> ck, h;
    Secret<KEY_LEN> key;
    Secret<msg::TAI64N_LEN> timestamp;
    copy_bytes(ck.b, s->chaining_key, HASH_LEN);
    copy_bytes(h.b, s->hash, HASH_LEN);

    if (!mix_static_static(ck.b, key.b, hs))
        return -WGX_ENOKEY;
    if (!decrypt_and_hash(timestamp.b, s->encrypted_timestamp, sizeof(s->encrypted_timestamp), key.b, h.b))
        return -WGX_EBADMSG;

    // TAI64N is big-endian, so byte order is time order (5.1).
    if (__builtin_memcmp(timestamp.b, hs->latest_timestamp, msg::TAI64N_LEN) <= 0)
        return -WGX_EALREADY;
    if (hs->have_consumed_initiation &&
        s64(now_ns - hs->last_initiation_consumption_ns) < s64(INITIATION_MIN_INTERVAL_NS))
        return -WGX_EBUSY;

    clear_in_progress(hs);
    copy_bytes(hs->remote_ephemeral, s->remote_ephemeral, KEY_LEN);
    keep_chain(hs->chaining_key, hs->hash, ck.b, h.b);
    copy_bytes(hs->latest_timestamp, timestamp.b, msg::TAI64N_LEN);
    hs->remote_index = s->sender_index;
    hs->last_initiation_consumption_ns = now_ns;
    hs->have_consumed_initiation = true;
    hs->state = WGX_HANDSHAKE_CONSUMED_INITIATION;
    return 0;
}

}  // namespace
}  // namespace wgx::noise

// ---- the sending side of the cookie mechanism (declared in cookie.hpp) ----
// Defined here, next to the handshake messages it signs, so that each core
// object only needs the platform interface.

namespace wgx::cookie {

void peer_init(PeerCookie &pc, const u8 *remote_static)
{
    peer_wipe(pc);
    noise::hash(pc.mac1_key, LABEL_MAC1, LABEL_LEN, remote_static, msg::KEY_LEN);
    noise::hash(pc.decryption_key, LABEL_COOKIE, LABEL_LEN, remote_static, msg::KEY_LEN);
}

void peer_wipe(PeerCookie &pc)
{
    wgx_platform_memzero_explicit(&pc, sizeof(pc));
}

void add_macs(PeerCookie &pc, u8 *m, usize len, u64 now_ns)
{
    const usize mac1 = len - msg::MACS_TAIL, mac2 = len - msg::MAC_LEN;

    noise::mac(m + mac1, pc.mac1_key, msg::KEY_LEN, m, mac1);
    copy_bytes(pc.last_mac1_sent, m + mac1, msg::MAC_LEN);
    pc.have_sent_mac1 = true;

    if (pc.cookie_valid && s64(now_ns - pc.cookie_birth_ns) < s64(SECRET_MAX_AGE_NS - SECRET_LATENCY_NS))
        noise::mac(m + mac2, pc.cookie, msg::COOKIE_LEN, m, mac2);
    else
        zero_bytes(m + mac2, msg::MAC_LEN);
}

}  // namespace wgx::cookie

using namespace wgx;
using namespace wgx::noise;

// ---- identity ----

wgx_noise_identity *wgx_noise_identity_create(bool may_sleep)
{
    return static_cast<wgx_noise_identity *>(wgx_platform_zalloc(sizeof(wgx_noise_identity), may_sleep));
}

void wgx_noise_identity_destroy(wgx_noise_identity *id)
{
    if (!id)
        return;
    wipe(id, sizeof(*id));
    wgx_platform_free(id);
}

int wgx_noise_identity_set_private_key(wgx_noise_identity *id, const u8 *private_key)
{
    if (!id)
        return -WGX_EINVAL;
    Secret<KEY_LEN> priv;
    if (private_key)
        copy_bytes(priv.b, private_key, KEY_LEN);  // may alias id->static_private

    wipe(id->static_private, KEY_LEN);
    wipe(id->static_public, KEY_LEN);
    id->has_key = false;
    if (!private_key || !wgx_platform_memneq(priv.b, ZERO_KEY, KEY_LEN))
        return 0;

    // Clamp as RFC 7748 5 does, so the stored key is the one in use.
    priv.b[0] &= 248;
    priv.b[31] = u8((priv.b[31] & 127) | 64);
    if (!wgx_platform_curve25519_generate_public(id->static_public, priv.b)) {
        wipe(id->static_public, KEY_LEN);
        return -WGX_EKEYREJECTED;
    }
    copy_bytes(id->static_private, priv.b, KEY_LEN);
    id->has_key = true;
    return 0;
}

bool wgx_noise_identity_get_keys(const wgx_noise_identity *id, u8 *public_key, u8 *private_key)
{
    const bool ok = identity_usable(id);
    if (public_key) {
        if (ok)
            copy_bytes(public_key, id->static_public, KEY_LEN);
        else
            zero_bytes(public_key, KEY_LEN);
    }
    if (private_key) {
        if (ok)
            copy_bytes(private_key, id->static_private, KEY_LEN);
        else
            wipe(private_key, KEY_LEN);
    }
    return ok;
}

// ---- handshake handle ----

namespace {

wgx_noise_handshake *handshake_setup(wgx_noise_handshake *hs, const wgx_noise_identity *id, const u8 *remote_static);

// A zeroed handle of @id for the peer @remote_static (KEY_LEN bytes), its
// cookie state keyed to that peer; nullptr when out of memory.
wgx_noise_handshake *handshake_alloc(const wgx_noise_identity *id, const u8 *remote_static, bool may_sleep)
{
    auto *hs = static_cast<wgx_noise_handshake *>(wgx_platform_zalloc(sizeof(wgx_noise_handshake), may_sleep));
    if (!hs)
        return nullptr;
    return handshake_setup(hs, id, remote_static);
}

}  // namespace

wgx_size wgx_noise_handshake_size(void)
{
    return sizeof(wgx_noise_handshake);
}

wgx_noise_handshake *wgx_noise_handshake_init(void *mem, const wgx_noise_identity *id, const u8 *remote_static,
                                              const u8 *preshared_key)
{
    if (!mem || !id || !remote_static)
        return nullptr;
    zero_bytes(mem, sizeof(wgx_noise_handshake));
    auto *hs = handshake_setup(static_cast<wgx_noise_handshake *>(mem), id, remote_static);
    wgx_noise_handshake_set_preshared_key(hs, preshared_key);
    // A peer that never handshakes never needs it (static_static_ready()).
    hs->static_static_due = true;
    return hs;
}

void wgx_noise_handshake_wipe(wgx_noise_handshake *hs)
{
    if (hs)
        wipe(hs, sizeof(*hs));
}

namespace {

// @hs (zeroed) as a handle of @id for the peer @remote_static (KEY_LEN
// bytes), its cookie state keyed to that peer.
wgx_noise_handshake *handshake_setup(wgx_noise_handshake *hs, const wgx_noise_identity *id, const u8 *remote_static)
{
    hs->identity = id;
    hs->state = WGX_HANDSHAKE_ZEROED;
    copy_bytes(hs->remote_static, remote_static, KEY_LEN);
    cookie::peer_init(hs->cookie, remote_static);
    return hs;
}

}  // namespace

wgx_noise_handshake *wgx_noise_handshake_create(const wgx_noise_identity *id, const u8 *remote_static,
                                                const u8 *preshared_key, bool may_sleep)
{
    if (!id || !remote_static)
        return nullptr;
    auto *hs = handshake_alloc(id, remote_static, may_sleep);
    if (!hs)
        return nullptr;
    wgx_noise_handshake_set_preshared_key(hs, preshared_key);
    // A peer that never handshakes never needs it (static_static_ready()).
    hs->static_static_due = true;
    return hs;
}

void wgx_noise_handshake_destroy(wgx_noise_handshake *hs)
{
    if (!hs)
        return;
    wipe(hs, sizeof(*hs));
    wgx_platform_free(hs);
}

bool wgx_noise_handshake_precompute(wgx_noise_handshake *hs)
{
    if (!hs)
        return false;
    hs->static_static_ok = false;
    hs->static_static_due = false;
    wipe(hs->precomputed_static_static, KEY_LEN);
    if (!identity_usable(hs->identity))
        return false;
    if (!wgx_platform_curve25519(hs->precomputed_static_static, hs->identity->static_private, hs->remote_static) ||
        !wgx_platform_memneq(hs->precomputed_static_static, ZERO_KEY, KEY_LEN)) {
        wipe(hs->precomputed_static_static, KEY_LEN);
        return false;
    }
    hs->static_static_ok = true;
    return true;
}

bool wgx_noise_handshake_set_remote_static(wgx_noise_handshake *hs, const u8 *remote_static)
{
    if (!hs || !remote_static)
        return false;
    wgx_noise_handshake_clear(hs);
    // Replay and flood state belonged to the old key: a new key starts fresh,
    // as a new peer would.
    zero_bytes(hs->latest_timestamp, sizeof(hs->latest_timestamp));
    hs->last_initiation_consumption_ns = 0;
    hs->have_consumed_initiation = false;
    copy_bytes(hs->remote_static, remote_static, KEY_LEN);
    cookie::peer_init(hs->cookie, remote_static);
    return wgx_noise_handshake_precompute(hs);
}

wgx_noise_handshake *wgx_noise_handshake_create_twin(const wgx_noise_identity *id, const wgx_noise_handshake *src,
                                                     bool may_sleep)
{
    if (!id || !src)
        return nullptr;
    auto *hs = handshake_alloc(id, src->remote_static, may_sleep);
    if (!hs)
        return nullptr;
    copy_bytes(hs->preshared_key, src->preshared_key, KEY_LEN);
    wgx_noise_handshake_copy_replay_state(hs, src);
    const bool same_key = identity_usable(id) && identity_usable(src->identity) &&
                          !wgx_platform_memneq(id->static_private, src->identity->static_private, KEY_LEN);
    if (same_key && src->static_static_due) {
        hs->static_static_due = true;  // as @src: at its first use
    } else if (same_key && src->static_static_ok) {
        copy_bytes(hs->precomputed_static_static, src->precomputed_static_static, KEY_LEN);
        hs->static_static_ok = true;
    } else {
        wgx_noise_handshake_precompute(hs);
    }
    return hs;
}

void wgx_noise_handshake_copy_replay_state(wgx_noise_handshake *dst, const wgx_noise_handshake *src)
{
    if (!dst || !src || dst == src)
        return;
    copy_bytes(dst->latest_timestamp, src->latest_timestamp, sizeof(dst->latest_timestamp));
    dst->last_initiation_consumption_ns = src->last_initiation_consumption_ns;
    dst->have_consumed_initiation = src->have_consumed_initiation;
}

void wgx_noise_handshake_set_preshared_key(wgx_noise_handshake *hs, const u8 *preshared_key)
{
    if (!hs)
        return;
    if (preshared_key)
        copy_bytes(hs->preshared_key, preshared_key, KEY_LEN);
    else
        wipe(hs->preshared_key, KEY_LEN);
}

void wgx_noise_handshake_get_preshared_key(const wgx_noise_handshake *hs, u8 *out)
{
    if (hs && out)
        copy_bytes(out, hs->preshared_key, KEY_LEN);
}

void wgx_noise_handshake_get_remote_static(const wgx_noise_handshake *hs, u8 *out)
{
    if (hs && out)
        copy_bytes(out, hs->remote_static, KEY_LEN);
}

wgx_handshake_state wgx_noise_handshake_state(const wgx_noise_handshake *hs)
{
    return hs ? hs->state : WGX_HANDSHAKE_ZEROED;
}

u32 wgx_noise_handshake_local_index(const wgx_noise_handshake *hs)
{
    if (!hs || (hs->state != WGX_HANDSHAKE_CREATED_INITIATION && hs->state != WGX_HANDSHAKE_CREATED_RESPONSE &&
                hs->state != WGX_HANDSHAKE_CONSUMED_RESPONSE))
        return 0;
    return hs->local_index;
}

void wgx_noise_handshake_clear(wgx_noise_handshake *hs)
{
    if (hs)
        clear_in_progress(hs);
}

// ---- ephemerals prepared for one peer ----

bool wgx_noise_prepare(wgx_noise_prepared *prep, const u8 *remote_static)
{
    if (!prep)
        return false;
    wipe(prep, sizeof(*prep));
    if (!remote_static)
        return false;
    wgx_platform_curve25519_generate_secret(prep->ephemeral_private);
    if (!wgx_platform_curve25519_generate_public(prep->ephemeral_public, prep->ephemeral_private) ||
        !wgx_platform_curve25519(prep->dh, prep->ephemeral_private, remote_static) ||
        !wgx_platform_memneq(prep->dh, ZERO_KEY, KEY_LEN)) {
        wipe(prep, sizeof(*prep));
        return false;
    }
    copy_bytes(prep->remote_static, remote_static, KEY_LEN);
    prep->valid = true;
    prep->has_dh = true;
    return true;
}

// ---- initiation (5.4.2) ----

int wgx_noise_create_initiation(wgx_noise_handshake *hs, u8 *m, u32 local_index, u64 now_ns, u64 wall_sec,
                                u32 wall_nsec)
{
    return wgx_noise_create_initiation_prepared(hs, m, local_index, now_ns, wall_sec, wall_nsec, nullptr);
}

int wgx_noise_create_initiation_prepared(wgx_noise_handshake *hs, u8 *m, u32 local_index, u64 now_ns, u64 wall_sec,
                                         u32 wall_nsec, wgx_noise_prepared *prep)
{
    namespace off = msg::initiation;
    const Wiper prep_wiper(prep);
    if (!hs || !m)
        return -WGX_EINVAL;
    zero_bytes(m, msg::INITIATION_LEN);
    const wgx_noise_identity *id = hs->identity;
    if (!identity_usable(id) || !static_static_ready(hs))
        return -WGX_ENOKEY;

    Secret<HASH_LEN> ck, h;
    Secret<KEY_LEN> key, e_priv;
    Secret<msg::TAI64N_LEN> timestamp;
    u8 e_pub[KEY_LEN];

    init_symmetric(ck.b, h.b, hs->remote_static);
    const PreparedUse use = prepared_use(hs, prep);
    if (!take_ephemeral(use, prep, e_priv.b, e_pub))
        return -WGX_EKEYREJECTED;

    msg::put_header(m, msg::TYPE_INITIATION);
    store_le32(m + off::SENDER, local_index);
    put_ephemeral(m + off::EPHEMERAL, e_pub, ck.b, h.b);

    // es: ephemeral-static, then the initiator's static key, encrypted.
    if (!mix_dh_prepared(ck.b, key.b, use, prep, e_priv.b, hs)) {
        zero_bytes(m, msg::INITIATION_LEN);
        return -WGX_EKEYREJECTED;
    }
    encrypt_and_hash(m + off::STATIC, id->static_public, KEY_LEN, key.b, h.b);

    // ss: static-static (precomputed), then the encrypted timestamp.
    if (!mix_static_static(ck.b, key.b, hs)) {
        zero_bytes(m, msg::INITIATION_LEN);
        return -WGX_ENOKEY;
    }
    tai64n(timestamp.b, wall_sec, wall_nsec);
    encrypt_and_hash(m + off::TIMESTAMP, timestamp.b, msg::TAI64N_LEN, key.b, h.b);

    cookie::add_macs(hs->cookie, m, msg::INITIATION_LEN, now_ns);

    clear_in_progress(hs);
    copy_bytes(hs->ephemeral_private, e_priv.b, KEY_LEN);
    keep_chain(hs->chaining_key, hs->hash, ck.b, h.b);
    hs->local_index = local_index;
    hs->state = WGX_HANDSHAKE_CREATED_INITIATION;
    return 0;
}

void wgx_noise_initiation_scratch_wipe(wgx_noise_initiation_scratch *s)
{
    if (s)
        wipe(s, sizeof(*s));
}

int wgx_noise_consume_initiation_begin(const wgx_noise_identity *id, const u8 *m, usize len,
                                       wgx_noise_initiation_scratch *s)
{
    namespace off = msg::initiation;
    if (!s)
        return -WGX_EINVAL;
    wgx_noise_initiation_scratch_wipe(s);
    if (!id || msg::classify(m, len) != msg::TYPE_INITIATION)
        return -WGX_EINVAL;
    if (!identity_usable(id))
        return -WGX_ENOKEY;

    Secret<HASH_LEN> ck, h;
    Secret<KEY_LEN> key;
    const u8 *e = m + off::EPHEMERAL;

    init_symmetric(ck.b, h.b, id->static_public);
    mix_hash(h.b, e, KEY_LEN);
    kdf(ck.b, nullptr, nullptr, ck.b, e, KEY_LEN);
    if (!mix_dh(ck.b, key.b, id->static_private, e))
        return -WGX_EKEYREJECTED;
    if (!decrypt_and_hash(s->remote_static, m + off::STATIC, KEY_LEN + msg::TAG_LEN, key.b, h.b)) {
        wgx_noise_initiation_scratch_wipe(s);
        return -WGX_EBADMSG;
    }

    copy_bytes(s->remote_ephemeral, e, KEY_LEN);
    keep_chain(s->chaining_key, s->hash, ck.b, h.b);
    copy_bytes(s->encrypted_timestamp, m + off::TIMESTAMP, sizeof(s->encrypted_timestamp));
    s->sender_index = load_le32(m + off::SENDER);
    s->valid = true;
    return 0;
}

int wgx_noise_consume_initiation_finish(wgx_noise_handshake *hs, wgx_noise_initiation_scratch *s, u64 now_ns)
{
    if (!s)
        return -WGX_EINVAL;
    const int ret = consume_initiation_finish(hs, s, now_ns);
    wgx_noise_initiation_scratch_wipe(s);
    return ret;
}

// ---- response (5.4.3) ----

int wgx_noise_create_response(wgx_noise_handshake *hs, u8 *m, u32 local_index, u64 now_ns)
{
    return wgx_noise_create_response_prepared(hs, m, local_index, now_ns, nullptr);
}

int wgx_noise_create_response_prepared(wgx_noise_handshake *hs, u8 *m, u32 local_index, u64 now_ns,
                                       wgx_noise_prepared *prep)
{
    namespace off = msg::response;
    const Wiper prep_wiper(prep);
    if (!hs || !m)
        return -WGX_EINVAL;
    zero_bytes(m, msg::RESPONSE_LEN);
    if (hs->state != WGX_HANDSHAKE_CONSUMED_INITIATION)
        return -WGX_ESTALE;
    if (!identity_usable(hs->identity))
        return -WGX_ENOKEY;

    Secret<HASH_LEN> ck, h;
    Secret<KEY_LEN> key, e_priv;
    u8 e_pub[KEY_LEN];

    copy_bytes(ck.b, hs->chaining_key, HASH_LEN);
    copy_bytes(h.b, hs->hash, HASH_LEN);
    const PreparedUse use = prepared_use(hs, prep);
    if (!take_ephemeral(use, prep, e_priv.b, e_pub))
        return -WGX_EKEYREJECTED;

    msg::put_header(m, msg::TYPE_RESPONSE);
    store_le32(m + off::SENDER, local_index);
    store_le32(m + off::RECEIVER, hs->remote_index);
    put_ephemeral(m + off::EPHEMERAL, e_pub, ck.b, h.b);

    // ee, then se.
    if (!mix_dh(ck.b, nullptr, e_priv.b, hs->remote_ephemeral)) {
        zero_bytes(m, msg::RESPONSE_LEN);
        return -WGX_EKEYREJECTED;
    }
    if (!mix_dh_prepared(ck.b, nullptr, use, prep, e_priv.b, hs)) {
        zero_bytes(m, msg::RESPONSE_LEN);
        return -WGX_EKEYREJECTED;
    }
    // psk, then the empty payload.
    mix_psk(ck.b, h.b, key.b, hs->preshared_key);
    encrypt_and_hash(m + off::EMPTY, m + off::EMPTY, 0, key.b, h.b);

    cookie::add_macs(hs->cookie, m, msg::RESPONSE_LEN, now_ns);

    copy_bytes(hs->ephemeral_private, e_priv.b, KEY_LEN);
    keep_chain(hs->chaining_key, hs->hash, ck.b, h.b);
    hs->local_index = local_index;
    hs->state = WGX_HANDSHAKE_CREATED_RESPONSE;
    return 0;
}

int wgx_noise_consume_response(wgx_noise_handshake *hs, const u8 *m, usize len, u64 now_ns)
{
    namespace off = msg::response;
    (void)now_ns;
    if (!hs || msg::classify(m, len) != msg::TYPE_RESPONSE)
        return -WGX_EINVAL;
    if (hs->state != WGX_HANDSHAKE_CREATED_INITIATION || load_le32(m + off::RECEIVER) != hs->local_index)
        return -WGX_ESTALE;
    const wgx_noise_identity *id = hs->identity;
    if (!identity_usable(id))
        return -WGX_ENOKEY;

    Secret<HASH_LEN> ck, h;
    Secret<KEY_LEN> key;
    u8 nothing[1];
    const u8 *e = m + off::EPHEMERAL;

    copy_bytes(ck.b, hs->chaining_key, HASH_LEN);
    copy_bytes(h.b, hs->hash, HASH_LEN);
    mix_hash(h.b, e, KEY_LEN);
    kdf(ck.b, nullptr, nullptr, ck.b, e, KEY_LEN);
    if (!mix_dh(ck.b, nullptr, hs->ephemeral_private, e) || !mix_dh(ck.b, nullptr, id->static_private, e))
        return -WGX_EKEYREJECTED;
    mix_psk(ck.b, h.b, key.b, hs->preshared_key);
    if (!decrypt_and_hash(nothing, m + off::EMPTY, msg::TAG_LEN, key.b, h.b))
        return -WGX_EBADMSG;

    copy_bytes(hs->remote_ephemeral, e, KEY_LEN);
    keep_chain(hs->chaining_key, hs->hash, ck.b, h.b);
    hs->remote_index = load_le32(m + off::SENDER);
    hs->state = WGX_HANDSHAKE_CONSUMED_RESPONSE;
    return 0;
}

// ---- session keys (5.4.5) ----

int wgx_noise_begin_session(wgx_noise_handshake *hs, wgx_keypair_keys *keys, u64 now_ns)
{
    if (!keys)
        return -WGX_EINVAL;
    wipe(keys, sizeof(*keys));
    if (!hs)
        return -WGX_EINVAL;

    // (T_send_i = T_recv_r, T_recv_i = T_send_r) = KDF2(C, empty)
    if (hs->state == WGX_HANDSHAKE_CONSUMED_RESPONSE) {
        kdf(keys->sending_key, keys->receiving_key, nullptr, hs->chaining_key, nullptr, 0);
        keys->initiator = true;
    } else if (hs->state == WGX_HANDSHAKE_CREATED_RESPONSE) {
        kdf(keys->receiving_key, keys->sending_key, nullptr, hs->chaining_key, nullptr, 0);
        keys->initiator = false;
    } else {
        return -WGX_ESTALE;
    }
    keys->local_index = hs->local_index;
    keys->remote_index = hs->remote_index;
    keys->birth_ns = now_ns;
    clear_in_progress(hs);
    return 0;
}
