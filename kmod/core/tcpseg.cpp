// SPDX-License-Identifier: GPL-2.0
//
// tcpseg.cpp - the inner TCP segment reader of the telemetry
// (<wgx/tcpseg.h>).  Layouts: IPv4 RFC 791 section 3.1, IPv6 RFC 8200
// section 3, TCP RFC 9293 section 3.1, the timestamps option RFC 7323
// section 3.2.  A peer chooses every byte, so each length is checked
// against both the IP length and the bytes at hand before it is used.

#include <wgx/tcpseg.h>

#include "bytes.hpp"

namespace wgx {
namespace {

constexpr u8 IPPROTO_TCP_NUMBER = 6;
constexpr usize IPV4_MIN = 20;
constexpr usize IPV6_LEN = 40;
constexpr usize TCP_MIN = 20;
constexpr u8 OPT_EOL = 0;
constexpr u8 OPT_NOP = 1;
constexpr u8 OPT_TIMESTAMPS = 8;
constexpr u8 OPT_TIMESTAMPS_LEN = 10;
constexpr u16 IPV4_MF = 0x2000;
constexpr u16 IPV4_OFFSET_MASK = 0x1fff;

// The IP header: where TCP starts (@tcp_off) and how many bytes the IP
// length gives it and its payload (@tcp_len).
bool parse_ip(const u8 *pkt, usize len, int family, usize &tcp_off, usize &tcp_len, wgx_tcp_segment &seg)
{
    if (family == WGX_AF_INET) {
        if (len < IPV4_MIN || pkt[0] >> 4 != 4)
            return false;
        const usize ihl = usize(pkt[0] & 0x0f) * 4;
        const usize total = load_be16(pkt + 2);
        const u16 frag = load_be16(pkt + 6);
        if (ihl < IPV4_MIN || pkt[9] != IPPROTO_TCP_NUMBER || (frag & (IPV4_MF | IPV4_OFFSET_MASK)) ||
            total < ihl)
            return false;
        tcp_off = ihl;
        tcp_len = total - ihl;
        seg.addr_off = 12;
        seg.addr_len = 8;
        return true;
    }
    if (family == WGX_AF_INET6) {
        if (len < IPV6_LEN || pkt[0] >> 4 != 6 || pkt[6] != IPPROTO_TCP_NUMBER)
            return false;
        tcp_off = IPV6_LEN;
        tcp_len = load_be16(pkt + 4);
        seg.addr_off = 8;
        seg.addr_len = 32;
        return true;
    }
    return false;
}

// Walk @n bytes of options at @opt for the timestamps option.
void parse_options(const u8 *opt, usize n, wgx_tcp_segment &seg)
{
    for (usize i = 0; i < n;) {
        const u8 kind = opt[i];
        if (kind == OPT_EOL)
            return;
        if (kind == OPT_NOP) {
            ++i;
            continue;
        }
        if (i + 1 >= n)
            return;
        const usize olen = opt[i + 1];
        if (olen < 2 || olen > n - i)
            return;
        if (kind == OPT_TIMESTAMPS && olen == OPT_TIMESTAMPS_LEN) {
            seg.tsval = load_be32(opt + i + 2);
            seg.tsecr = load_be32(opt + i + 6);
            seg.has_ts = true;
            return;
        }
        i += olen;
    }
}

}  // namespace

// See wgx_tcp_segment_parse() in <wgx/tcpseg.h>.
bool tcp_segment_parse(const u8 *pkt, usize len, int family, wgx_tcp_segment &seg)
{
    usize tcp_off = 0, tcp_len = 0;
    wgx_tcp_segment s{};

    if (!parse_ip(pkt, len, family, tcp_off, tcp_len, s))
        return false;
    if (tcp_len < TCP_MIN || len < tcp_off || len - tcp_off < TCP_MIN)
        return false;
    const u8 *th = pkt + tcp_off;
    const usize thlen = usize(th[12] >> 4) * 4;
    if (thlen < TCP_MIN || thlen > tcp_len || thlen > len - tcp_off)
        return false;
    s.sport = load_be16(th);
    s.dport = load_be16(th + 2);
    s.seq = load_be32(th + 4);
    s.payload = u32(tcp_len - thlen);
    parse_options(th + TCP_MIN, thlen - TCP_MIN, s);
    seg = s;
    return true;
}

}  // namespace wgx

extern "C" {

bool wgx_tcp_segment_parse(const wgx_u8 *pkt, wgx_size len, int family, struct wgx_tcp_segment *seg)
{
    return wgx::tcp_segment_parse(pkt, len, family, *seg);
}

}  // extern "C"
