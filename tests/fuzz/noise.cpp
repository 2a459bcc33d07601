// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer harness for handshake message consumption (kmod/core/noise.cpp):
// wgx_noise_consume_initiation_begin/_finish and wgx_noise_consume_response,
// fed either raw input or a genuine message with the input XORed into it (so
// that most runs reach the Diffie-Hellman and AEAD steps).  Any crash,
// sanitizer report or broken invariant (a forged message accepted, a scratch
// left unwiped) is a finding.
//
//   build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DWGX_FUZZ=ON && cmake --build build-fuzz
//   run:   build-fuzz/fuzz/fuzz_noise -max_total_time=60
#include <wgx/core.h>
#include <wgx/core_test.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct State {
    wgx_noise_identity *a = nullptr, *b = nullptr;
    wgx_u8 a_pub[32], b_pub[32];
    wgx_u8 init[WGX_MSG_INITIATION_LEN];  // a genuine initiation a -> b
    wgx_u8 resp[WGX_MSG_RESPONSE_LEN];    // a genuine response b -> a (for another handshake)
};

State *st;

void fail(const char *why)
{
    __builtin_printf("fuzz_noise: %s\n", why);
    __builtin_trap();
}

wgx_noise_identity *identity(wgx_u8 seed, wgx_u8 *pub)
{
    wgx_u8 priv[32];
    for (int i = 0; i < 32; ++i)
        priv[i] = wgx_u8(seed * 31 + i);
    wgx_noise_identity *id = wgx_noise_identity_create(true);
    if (!id || wgx_noise_identity_set_private_key(id, priv) != 0 || !wgx_noise_identity_get_keys(id, pub, nullptr))
        fail("setup");
    return id;
}

bool all_zero(const void *p, size_t n)
{
    const wgx_u8 *b = static_cast<const wgx_u8 *>(p);
    for (size_t i = 0; i < n; ++i)
        if (b[i])
            return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    st = new State;
    st->a = identity(1, st->a_pub);
    st->b = identity(2, st->b_pub);
    wgx_noise_handshake *ha = wgx_noise_handshake_create(st->a, st->b_pub, nullptr, true);
    wgx_noise_handshake *hb = wgx_noise_handshake_create(st->b, st->a_pub, nullptr, true);
    wgx_noise_initiation_scratch s;
    if (wgx_noise_create_initiation(ha, st->init, 7, 1, 1700000000, 0) ||
        wgx_noise_consume_initiation_begin(st->b, st->init, sizeof(st->init), &s) ||
        wgx_noise_consume_initiation_finish(hb, &s, 1) || wgx_noise_create_response(hb, st->resp, 9, 1))
        fail("setup handshake");
    wgx_noise_handshake_destroy(ha);
    wgx_noise_handshake_destroy(hb);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t mode = data[0] % 4;
    ++data, --size;
    const bool overlay = mode & 1;  // XOR the input into a genuine message

    if (mode < 2) {
        // Initiation, consumed by b.
        std::vector<wgx_u8> m;
        if (overlay) {
            m.assign(st->init, st->init + sizeof(st->init));
            for (size_t i = 0; i < size && i < m.size(); ++i)
                m[i] ^= data[i];
        } else {
            m.assign(data, data + size);
        }
        wgx_noise_initiation_scratch s;
        std::memset(&s, 0xa5, sizeof(s));
        const int ret = wgx_noise_consume_initiation_begin(st->b, m.data(), m.size(), &s);
        if (ret) {
            if (!all_zero(&s, sizeof(s)))
                fail("scratch not wiped after a failed phase 1");
            return 0;
        }
        wgx_noise_handshake *hb = wgx_noise_handshake_create(st->b, s.remote_static, nullptr, true);
        const int ret2 = wgx_noise_consume_initiation_finish(hb, &s, 1);
        if (!all_zero(&s, sizeof(s)))
            fail("scratch not wiped after phase 2");
        // Only the genuine initiation (or one differing in the sender index or
        // the MACs, which Noise does not cover) may pass both phases.
        if (ret2 == 0) {
            for (size_t i = 0; i < WGX_MSG_INITIATION_LEN - 32; ++i)
                if ((i < 4 || i >= 8) && m.size() == sizeof(st->init) && m[i] != st->init[i])
                    fail("a modified initiation was accepted");
            wgx_u8 out[WGX_MSG_RESPONSE_LEN];
            if (wgx_noise_create_response(hb, out, 3, 2) != 0)
                fail("no response to an accepted initiation");
        }
        wgx_noise_handshake_destroy(hb);
        return 0;
    }

    // Response, consumed by a handshake of a that just sent an initiation.
    wgx_noise_handshake *ha = wgx_noise_handshake_create(st->a, st->b_pub, nullptr, true);
    wgx_u8 init[WGX_MSG_INITIATION_LEN];
    if (wgx_noise_create_initiation(ha, init, 9, 1, 1700000000, 0))
        fail("create initiation");
    std::vector<wgx_u8> m;
    if (overlay) {
        m.assign(st->resp, st->resp + sizeof(st->resp));
        for (size_t i = 0; i < size && i < m.size(); ++i)
            m[i] ^= data[i];
    } else {
        m.assign(data, data + size);
    }
    // The response was made for another initiation: it must never be accepted.
    if (wgx_noise_consume_response(ha, m.data(), m.size(), 2) == 0)
        fail("a response for another handshake was accepted");
    if (wgx_noise_handshake_state(ha) != WGX_HANDSHAKE_CREATED_INITIATION)
        fail("a failed response changed the handshake state");
    wgx_noise_handshake_destroy(ha);
    return 0;
}
