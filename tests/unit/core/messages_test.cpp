// SPDX-License-Identifier: GPL-2.0
//
// Tests of the message layouts (core.h, kmod/core/messages.hpp): sizes and
// offsets from the whitepaper (5.4), classification by exact length and zero
// reserved bytes, receiver index extraction, and that the header's C side
// compiles with its _Static_asserts.
#include <gtest/gtest.h>

#include <wgx/core.h>

#include "messages.hpp"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<wgx_u8>;

TEST(Messages, SizesAndOffsetsFollowTheWhitepaper)
{
    EXPECT_EQ(sizeof(wgx_msg_initiation), 148u);
    EXPECT_EQ(sizeof(wgx_msg_response), 92u);
    EXPECT_EQ(sizeof(wgx_msg_cookie_reply), 64u);
    EXPECT_EQ(sizeof(wgx_msg_transport), 16u);
    EXPECT_EQ(alignof(wgx_msg_initiation), 1u);
    EXPECT_EQ(alignof(wgx_msg_transport), 1u);

    EXPECT_EQ(offsetof(wgx_msg_initiation, sender_index), 4u);
    EXPECT_EQ(offsetof(wgx_msg_initiation, unencrypted_ephemeral), 8u);
    EXPECT_EQ(offsetof(wgx_msg_initiation, encrypted_static), 40u);
    EXPECT_EQ(offsetof(wgx_msg_initiation, encrypted_timestamp), 88u);
    EXPECT_EQ(offsetof(wgx_msg_initiation, macs), 116u);

    EXPECT_EQ(offsetof(wgx_msg_response, sender_index), 4u);
    EXPECT_EQ(offsetof(wgx_msg_response, receiver_index), 8u);
    EXPECT_EQ(offsetof(wgx_msg_response, unencrypted_ephemeral), 12u);
    EXPECT_EQ(offsetof(wgx_msg_response, encrypted_nothing), 44u);
    EXPECT_EQ(offsetof(wgx_msg_response, macs), 60u);

    EXPECT_EQ(offsetof(wgx_msg_cookie_reply, receiver_index), 4u);
    EXPECT_EQ(offsetof(wgx_msg_cookie_reply, nonce), 8u);
    EXPECT_EQ(offsetof(wgx_msg_cookie_reply, encrypted_cookie), 32u);

    EXPECT_EQ(offsetof(wgx_msg_transport, receiver_index), 4u);
    EXPECT_EQ(offsetof(wgx_msg_transport, counter), 8u);
}

Bytes msg(wgx_u8 type, size_t len)
{
    Bytes b(len, 0x5a);
    b[0] = type;
    b[1] = b[2] = b[3] = 0;
    return b;
}

TEST(Messages, ClassifyChecksExactLengthsAndReservedBytes)
{
    struct {
        wgx_u8 type;
        size_t len;
    } const ok[] = {{1, 148}, {2, 92}, {3, 64}, {4, 32}, {4, 33}, {4, 1500}, {4, 65535}};
    for (const auto &c : ok) {
        Bytes b = msg(c.type, c.len);
        EXPECT_EQ(wgx_msg_classify(b.data(), b.size()), c.type) << int(c.type) << "/" << c.len;
        for (size_t i = 1; i < 4; ++i) {
            for (wgx_u8 v : {0x01, 0x80, 0xff}) {
                Bytes bad = b;
                bad[i] = v;
                EXPECT_EQ(wgx_msg_classify(bad.data(), bad.size()), 0) << int(c.type) << " reserved " << i;
            }
        }
    }
    struct {
        wgx_u8 type;
        size_t len;
    } const bad[] = {{1, 147}, {1, 149}, {1, 92}, {2, 91},  {2, 93},  {2, 148},  {3, 63},
                     {3, 65},  {4, 31},  {4, 16}, {0, 148}, {5, 148}, {0xff, 64}};
    for (const auto &c : bad) {
        Bytes b = msg(c.type, c.len);
        EXPECT_EQ(wgx_msg_classify(b.data(), b.size()), 0) << int(c.type) << "/" << c.len;
    }
    EXPECT_EQ(wgx_msg_classify(nullptr, 148), 0);
    Bytes tiny = msg(1, 3);
    EXPECT_EQ(wgx_msg_classify(tiny.data(), tiny.size()), 0);
    EXPECT_EQ(wgx_msg_classify(tiny.data(), 0), 0);
}

TEST(Messages, ReceiverIndex)
{
    wgx_u32 idx = 0xdeadbeef;
    Bytes init = msg(1, 148);
    EXPECT_FALSE(wgx_msg_receiver_index(init.data(), init.size(), &idx));
    EXPECT_EQ(idx, 0xdeadbeefu);

    Bytes resp = msg(2, 92);
    resp[8] = 0x78, resp[9] = 0x56, resp[10] = 0x34, resp[11] = 0x12;  // little-endian
    ASSERT_TRUE(wgx_msg_receiver_index(resp.data(), resp.size(), &idx));
    EXPECT_EQ(idx, 0x12345678u);

    Bytes cookie = msg(3, 64);
    cookie[4] = 1, cookie[5] = 2, cookie[6] = 3, cookie[7] = 4;
    ASSERT_TRUE(wgx_msg_receiver_index(cookie.data(), cookie.size(), &idx));
    EXPECT_EQ(idx, 0x04030201u);

    Bytes data = msg(4, 32);
    data[4] = 0xff, data[5] = 0, data[6] = 0, data[7] = 0x80;
    ASSERT_TRUE(wgx_msg_receiver_index(data.data(), data.size(), &idx));
    EXPECT_EQ(idx, 0x800000ffu);

    Bytes truncated = msg(4, 31);
    EXPECT_FALSE(wgx_msg_receiver_index(truncated.data(), truncated.size(), &idx));
    EXPECT_FALSE(wgx_msg_receiver_index(data.data(), data.size(), nullptr));
}

TEST(Messages, PutHeaderZeroesReservedBytes)
{
    Bytes b(4, 0xff);
    wgx::msg::put_header(b.data(), WGX_MSG_COOKIE_REPLY);
    EXPECT_EQ(b, (Bytes{3, 0, 0, 0}));
}

// core.h is also compiled as C by the kernel glue; its _Static_asserts on the
// message sizes must hold there too.
TEST(Messages, HeaderCompilesAsCWithItsStaticAsserts)
{
    if (std::system("cc --version >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "no C compiler";
    const std::string cmd = std::string("printf '#include <wgx/core.h>\\n"
                                        "_Static_assert(sizeof(struct wgx_msg_initiation) == 148, \"i\");\\n"
                                        "_Static_assert(sizeof(struct wgx_msg_response) == 92, \"r\");\\n"
                                        "_Static_assert(sizeof(struct wgx_msg_cookie_reply) == 64, \"c\");\\n"
                                        "_Static_assert(sizeof(struct wgx_msg_transport) == 16, \"t\");\\n' | "
                                        "cc -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I") +
                            WGX_SOURCE_DIR + "/include -x c -";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
