// SPDX-License-Identifier: GPL-2.0
//
// Shared helpers for the kmod/core unit tests: core instances with a fresh
// static key, a pair of them with a handshake handle each for the other, and
// the output of a python3 one-liner for tests that compare against an
// independent implementation.
#pragma once

#include <gtest/gtest.h>

#include <wgx/core.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace wgx::test {

using Bytes = std::vector<wgx_u8>;
using Key = std::array<wgx_u8, 32>;

// True if the @n bytes at @p are all zero.
inline bool all_zero(const void *p, size_t n)
{
    auto *b = static_cast<const wgx_u8 *>(p);
    for (size_t i = 0; i < n; ++i)
        if (b[i])
            return false;
    return true;
}

// One core instance: an identity holding a random static key (@priv, @pub)
// and a cookie checker for it; both destroyed with the Node.
struct Node {
    wgx_noise_identity *id = wgx_noise_identity_create(true);
    wgx_cookie_checker *checker = wgx_cookie_checker_create(true);
    Key priv{}, pub{};

    Node()
    {
        wgx_platform_curve25519_generate_secret(priv.data());
        EXPECT_EQ(wgx_noise_identity_set_private_key(id, priv.data()), 0);
        EXPECT_TRUE(wgx_noise_identity_get_keys(id, pub.data(), nullptr));
        wgx_cookie_checker_set_identity(checker, id);
    }
    ~Node()
    {
        wgx_cookie_checker_destroy(checker);
        wgx_noise_identity_destroy(id);
    }
    Node(const Node &) = delete;
    Node &operator=(const Node &) = delete;

    // Takes the static key of @n as a key change does in the glue: the
    // identity, @hs (this node's handle for its peer) and the cookie checker
    // follow, and so do @priv and @pub.  Fatal failures: wrap the call in
    // ASSERT_NO_FATAL_FAILURE.
    void take_key(const Node &n, wgx_noise_handshake *hs)
    {
        ASSERT_EQ(wgx_noise_identity_set_private_key(id, n.priv.data()), 0);
        EXPECT_TRUE(wgx_noise_handshake_precompute(hs));
        wgx_cookie_checker_set_identity(checker, id);
        priv = n.priv;
        pub = n.pub;
    }
};

// Two core instances a and b, each with a handshake handle for the other
// (@psk_a, @psk_b: the preshared key each side uses, nullptr for none); the
// handles are destroyed with the pair.  The tests derive their Pair from it
// with the message helpers they need.
struct NodePair {
    Node a, b;
    wgx_noise_handshake *a_hs = nullptr;  // a's state for peer b
    wgx_noise_handshake *b_hs = nullptr;  // b's state for peer a

    explicit NodePair(const wgx_u8 *psk_a = nullptr, const wgx_u8 *psk_b = nullptr)
    {
        a_hs = wgx_noise_handshake_create(a.id, b.pub.data(), psk_a, true);
        b_hs = wgx_noise_handshake_create(b.id, a.pub.data(), psk_b, true);
    }
    ~NodePair()
    {
        wgx_noise_handshake_destroy(a_hs);
        wgx_noise_handshake_destroy(b_hs);
    }
    NodePair(const NodePair &) = delete;
    NodePair &operator=(const NodePair &) = delete;
};

// The lines `python3 -c @script` prints (stderr discarded), without their
// line ends; nullopt when python3 cannot be run or exits with an error (the
// caller skips its test).
inline std::optional<std::vector<std::string>> python3_lines(const std::string &script)
{
    FILE *p = popen(("python3 -c '" + script + "' 2>/dev/null").c_str(), "r");
    if (!p)
        return std::nullopt;
    std::vector<std::string> lines;
    char buf[128];
    while (fgets(buf, sizeof(buf), p)) {
        std::string s(buf);
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
            s.pop_back();
        lines.push_back(s);
    }
    if (pclose(p) != 0)
        return std::nullopt;
    return lines;
}

}  // namespace wgx::test
