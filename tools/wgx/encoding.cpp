// SPDX-License-Identifier: GPL-2.0
//
// Branch-free base64 for keys: the table lookups are replaced by range masks
// so that decoding a private key leaks nothing through timing or caches.
#include "encoding.hpp"

namespace wgx {
namespace {

// -1 (all ones) when lo <= c <= hi, else 0; valid for |c|, lo, hi < 2^23.
constexpr int in_range(int c, int lo, int hi)
{
    return ((lo - 1 - c) & (c - hi - 1)) >> 8;
}

// 0..63 -> alphabet character.
constexpr char encode6(int v)
{
    int c = v + 'A';
    c += in_range(v, 26, 63) & ('a' - 'A' - 26);
    c += in_range(v, 52, 63) & ('0' - 52 - ('a' - 26));
    c += in_range(v, 62, 63) & ('+' - ('0' + 10));
    c += in_range(v, 63, 63) & ('/' - ('+' + 1));
    return static_cast<char>(c);
}

// alphabet character -> 0..63, or -1.
constexpr int decode6(unsigned char ch)
{
    int c = ch;
    int v = -1;
    v += in_range(c, 'A', 'Z') & (c - 'A' + 1);
    v += in_range(c, 'a', 'z') & (c - 'a' + 27);
    v += in_range(c, '0', '9') & (c - '0' + 53);
    v += in_range(c, '+', '+') & 63;
    v += in_range(c, '/', '/') & 64;
    return v;
}

constexpr bool self_check()
{
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i)
        if (encode6(i) != alphabet[i] || decode6(static_cast<unsigned char>(alphabet[i])) != i)
            return false;
    return decode6('=') == -1 && decode6('-') == -1 && decode6(0) == -1 && decode6(0xff) == -1;
}
static_assert(self_check(), "base64 range arithmetic");

}  // namespace

std::string key_to_base64(const Key &key)
{
    std::string out(kKeyBase64Len, '=');
    std::size_t o = 0;
    for (std::size_t i = 0; i + 3 <= kKeyLen; i += 3) {
        unsigned v = (unsigned)key[i] << 16 | (unsigned)key[i + 1] << 8 | key[i + 2];
        out[o++] = encode6((v >> 18) & 63);
        out[o++] = encode6((v >> 12) & 63);
        out[o++] = encode6((v >> 6) & 63);
        out[o++] = encode6(v & 63);
    }
    // 32 = 10 * 3 + 2: two bytes left, three characters and one '='.
    unsigned v = (unsigned)key[30] << 16 | (unsigned)key[31] << 8;
    out[o++] = encode6((v >> 18) & 63);
    out[o++] = encode6((v >> 12) & 63);
    out[o++] = encode6((v >> 6) & 63);
    return out;
}

bool key_from_base64(Key &out, std::string_view text)
{
    if (text.size() != kKeyBase64Len || text[kKeyBase64Len - 1] != '=') {
        out.fill(0);
        return false;
    }
    int bad = 0;
    std::size_t o = 0;
    for (std::size_t i = 0; i < 40; i += 4) {
        int a = decode6(text[i]), b = decode6(text[i + 1]);
        int c = decode6(text[i + 2]), d = decode6(text[i + 3]);
        bad |= a | b | c | d;
        unsigned v = (unsigned)(a & 63) << 18 | (unsigned)(b & 63) << 12 | (unsigned)(c & 63) << 6 | (unsigned)(d & 63);
        out[o++] = static_cast<std::uint8_t>(v >> 16);
        out[o++] = static_cast<std::uint8_t>(v >> 8);
        out[o++] = static_cast<std::uint8_t>(v);
    }
    int a = decode6(text[40]), b = decode6(text[41]), c = decode6(text[42]);
    bad |= a | b | c;
    bad |= -(c & 3);  // the two bits beyond the 256th must be zero
    unsigned v = (unsigned)(a & 63) << 18 | (unsigned)(b & 63) << 12 | (unsigned)(c & 63) << 6;
    out[o++] = static_cast<std::uint8_t>(v >> 16);
    out[o++] = static_cast<std::uint8_t>(v >> 8);
    if (bad < 0) {
        out.fill(0);
        return false;
    }
    return true;
}

}  // namespace wgx
