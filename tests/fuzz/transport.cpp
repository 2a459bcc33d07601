// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer harness for transport data (kmod/core/transport.cpp):
// wgx_transport_decrypt on arbitrary bytes, wgx_msg_classify and
// wgx_msg_receiver_index on the same, and an encrypt/decrypt round trip of
// the input as plaintext with an input-chosen MTU and counter, which must
// reproduce it exactly with padding inside the rules.
//
//   build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DWGX_FUZZ=ON && cmake --build build-fuzz
//   run:   build-fuzz/fuzz/fuzz_transport -max_total_time=60
#include <wgx/core.h>
#include <wgx/core_test.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

void fail(const char *why)
{
    __builtin_printf("fuzz_transport: %s\n", why);
    __builtin_trap();
}

const wgx_u8 KEY[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // Arbitrary bytes as a received message.
    std::vector<wgx_u8> m(data, data + size);
    const int type = wgx_msg_classify(m.data(), m.size());
    wgx_u32 idx;
    const bool has_idx = wgx_msg_receiver_index(m.data(), m.size(), &idx);
    if (has_idx != (type == WGX_MSG_RESPONSE || type == WGX_MSG_COOKIE_REPLY || type == WGX_MSG_TRANSPORT))
        fail("receiver index and classification disagree");
    wgx_u64 counter = 0;
    size_t plain_len = 0;
    const int ret = wgx_transport_decrypt(m.data(), m.size(), KEY, &counter, &plain_len);
    if (ret == 0 && (type != WGX_MSG_TRANSPORT || plain_len != size - 32))
        fail("decrypt accepted a malformed message");

    // The input as plaintext: round trip.
    if (size < 12)
        return 0;
    wgx_u32 mtu;
    wgx_u64 ctr;
    std::memcpy(&mtu, data, 4);
    std::memcpy(&ctr, data + 4, 8);
    mtu %= 10000;
    const wgx_u8 *plain = data + 12;
    const size_t len = size - 12;
    const size_t padded = wgx_transport_padded_len(len, mtu);
    if (padded < len || padded - len >= 16 || (mtu && len <= mtu && padded > mtu))
        fail("padding outside the rules");
    std::vector<wgx_u8> out(padded + 32);
    size_t out_len = 0;
    const int e = wgx_transport_encrypt(out.data(), out.size(), &out_len, plain, len, mtu, KEY, 0x1234, ctr);
    if (ctr >= WGX_TRANSPORT_REJECT_AFTER_MESSAGES) {
        if (e != -WGX_EKEYREJECTED)
            fail("counter limit not enforced");
        return 0;
    }
    if (e != 0 || out_len != padded + 32)
        fail("encrypt failed");
    if (wgx_transport_decrypt(out.data(), out_len, KEY, &counter, &plain_len) != 0 || counter != ctr ||
        plain_len != padded || std::memcmp(out.data() + 16, plain, len) != 0)
        fail("round trip mismatch");
    for (size_t i = len; i < padded; ++i)
        if (out[16 + i])
            fail("padding not zero");
    return 0;
}
