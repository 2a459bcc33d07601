// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer harness for the cookie layer (kmod/core/cookie.cpp): MAC
// validation (wgx_cookie_checker_validate, under load or not, any source
// bytes), cookie reply creation for arbitrary messages, and cookie reply
// consumption (wgx_cookie_consume_reply), raw or XORed into a genuine reply.
//
//   build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DWGX_FUZZ=ON && cmake --build build-fuzz
//   run:   build-fuzz/fuzz/fuzz_cookie -max_total_time=60
#include <wgx/core.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

struct State {
    wgx_noise_identity *a = nullptr, *b = nullptr;
    wgx_cookie_checker *checker_b = nullptr;
    wgx_noise_handshake *ha = nullptr;  // a's handshake towards b
    wgx_u8 a_pub[32], b_pub[32];
    wgx_u8 init[WGX_MSG_INITIATION_LEN];
    wgx_u8 reply[WGX_MSG_COOKIE_REPLY_LEN];
};

State *st;

void fail(const char *why)
{
    __builtin_printf("fuzz_cookie: %s\n", why);
    __builtin_trap();
}

wgx_noise_identity *identity(wgx_u8 seed, wgx_u8 *pub)
{
    wgx_u8 priv[32];
    for (int i = 0; i < 32; ++i)
        priv[i] = wgx_u8(seed * 17 + i);
    wgx_noise_identity *id = wgx_noise_identity_create(true);
    if (!id || wgx_noise_identity_set_private_key(id, priv) != 0 || !wgx_noise_identity_get_keys(id, pub, nullptr))
        fail("setup");
    return id;
}

const wgx_u8 SRC[6] = {192, 0, 2, 1, 0xca, 0x6c};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    st = new State;
    st->a = identity(1, st->a_pub);
    st->b = identity(2, st->b_pub);
    st->checker_b = wgx_cookie_checker_create(true);
    wgx_cookie_checker_set_identity(st->checker_b, st->b);
    st->ha = wgx_noise_handshake_create(st->a, st->b_pub, nullptr, true);
    if (wgx_noise_create_initiation(st->ha, st->init, 5, 1, 1700000000, 0) ||
        wgx_cookie_checker_create_reply(st->checker_b, st->reply, st->init, sizeof(st->init), SRC, sizeof(SRC), 1))
        fail("setup messages");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const uint8_t mode = data[0] % 4, arg = data[1];
    data += 2, size -= 2;
    const wgx_u64 now = 1 + wgx_u64(arg) * 1000000000ULL;  // 0..255 s: crosses the 120 s secret rotation

    switch (mode) {
    case 0: {  // validate arbitrary bytes, source = a prefix of the input
        const size_t src_len = arg % 40;
        const wgx_u8 *src = size >= src_len ? data : SRC;
        const wgx_cookie_verdict v = wgx_cookie_checker_validate(st->checker_b, data, size, src, src_len, arg & 1, now);
        if (v != WGX_COOKIE_DROP && !(size == WGX_MSG_INITIATION_LEN || size == WGX_MSG_RESPONSE_LEN))
            fail("a message of the wrong size passed the MAC check");
        wgx_u8 out[WGX_MSG_COOKIE_REPLY_LEN];
        wgx_cookie_checker_create_reply(st->checker_b, out, data, size, src, src_len, now);
        break;
    }
    case 1: {  // the genuine initiation with the input XORed in
        wgx_u8 m[WGX_MSG_INITIATION_LEN];
        std::memcpy(m, st->init, sizeof(m));
        bool changed = false;
        for (size_t i = 0; i < size && i < sizeof(m) - 16; ++i) {
            m[i] ^= data[i];
            changed |= data[i] != 0;
        }
        const wgx_cookie_verdict v =
            wgx_cookie_checker_validate(st->checker_b, m, sizeof(m), SRC, sizeof(SRC), false, now);
        if (changed && v != WGX_COOKIE_DROP)
            fail("a modified initiation passed mac1");
        if (!changed && v != WGX_COOKIE_ACCEPT)
            fail("the genuine initiation failed mac1");
        break;
    }
    default: {  // cookie reply consumption, raw (2) or XORed into the genuine reply (3)
        std::vector<wgx_u8> m;
        if (mode == 3) {
            m.assign(st->reply, st->reply + sizeof(st->reply));
            for (size_t i = 0; i < size && i < m.size(); ++i)
                m[i] ^= (i >= 4 && i < 8) ? 0 : data[i];  // keep the receiver index (the glue's lookup)
        } else {
            m.assign(data, data + size);
        }
        const bool genuine = m.size() == sizeof(st->reply) && std::memcmp(m.data(), st->reply, m.size()) == 0;
        const int ret = wgx_cookie_consume_reply(st->ha, m.data(), m.size(), now);
        if (ret == 0 && !genuine)
            fail("a forged cookie reply was accepted");
        if (ret == 0) {
            // Make the handshake wait for a cookie again (same mac1: same message).
            wgx_u8 again[WGX_MSG_INITIATION_LEN];
            if (wgx_noise_create_initiation(st->ha, again, 5, now, 1700000000, 0))
                fail("create initiation");
            // The reply was for the older mac1; it must no longer decrypt.
            if (wgx_cookie_consume_reply(st->ha, st->reply, sizeof(st->reply), now) == 0)
                fail("a cookie reply for an older mac1 was accepted");
        }
        break;
    }
    }
    return 0;
}
