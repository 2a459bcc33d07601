// SPDX-License-Identifier: GPL-2.0
//
// The inner TCP segment reader of the telemetry (wgx_tcp_segment_parse):
// packets built here byte by byte, IPv4 with and without options, IPv6,
// fragments, extension headers, truncation and malformed option lists.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <wgx/core.h>

namespace {

using Bytes = std::vector<uint8_t>;

void put16(Bytes &b, size_t at, unsigned v)
{
    b[at] = uint8_t(v >> 8);
    b[at + 1] = uint8_t(v);
}

void put32(Bytes &b, size_t at, uint32_t v)
{
    put16(b, at, v >> 16);
    put16(b, at + 2, v & 0xffff);
}

// A TCP header of 20 bytes plus @options (padded with EOL to a multiple of 4),
// sequence 0x01020304, ports 40000 -> 5201.
Bytes tcp_header(const Bytes &options)
{
    Bytes t(20, 0);
    put16(t, 0, 40000);
    put16(t, 2, 5201);
    put32(t, 4, 0x01020304);
    t.insert(t.end(), options.begin(), options.end());
    while (t.size() % 4)
        t.push_back(0);
    t[12] = uint8_t(t.size() / 4 << 4);
    return t;
}

// NOP, NOP, timestamps TSval/TSecr: what Linux sends on every segment.
Bytes ts_option(uint32_t tsval, uint32_t tsecr)
{
    Bytes o = {1, 1, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) {
        o[4 + i] = uint8_t(tsval >> (24 - 8 * i));
        o[8 + i] = uint8_t(tsecr >> (24 - 8 * i));
    }
    return o;
}

// IPv4 (with @ip_options bytes of options) carrying @tcp and @payload bytes.
Bytes ipv4(const Bytes &tcp, size_t payload, size_t ip_options = 0)
{
    Bytes p(20 + ip_options, 0);
    p[0] = uint8_t(0x40 | (20 + ip_options) / 4);
    put16(p, 2, unsigned(p.size() + tcp.size() + payload));
    p[8] = 64;
    p[9] = 6;
    put32(p, 12, 0xc0000201);
    put32(p, 16, 0xc0000202);
    for (size_t i = 20; i < p.size(); ++i)
        p[i] = 1;  // NOP options
    p.insert(p.end(), tcp.begin(), tcp.end());
    p.resize(p.size() + payload, 0xab);
    return p;
}

Bytes ipv6(const Bytes &tcp, size_t payload, uint8_t next = 6)
{
    Bytes p(40, 0);
    p[0] = 0x60;
    put16(p, 4, unsigned(tcp.size() + payload));
    p[6] = next;
    p[7] = 64;
    p[8] = 0x20;
    p[24] = 0x20;
    p[39] = 2;
    p.insert(p.end(), tcp.begin(), tcp.end());
    p.resize(p.size() + payload, 0xab);
    return p;
}

bool parse(const Bytes &p, int family, wgx_tcp_segment &s, size_t len = SIZE_MAX)
{
    return wgx_tcp_segment_parse(p.data(), len == SIZE_MAX ? p.size() : len, family, &s);
}

}  // namespace

TEST(TcpSegment, Ipv4WithTimestamps)
{
    wgx_tcp_segment s{};
    const Bytes p = ipv4(tcp_header(ts_option(1000, 999)), 1368);
    ASSERT_TRUE(parse(p, WGX_AF_INET, s));
    EXPECT_EQ(s.seq, 0x01020304u);
    EXPECT_EQ(s.payload, 1368u);
    EXPECT_EQ(s.sport, 40000);
    EXPECT_EQ(s.dport, 5201);
    EXPECT_EQ(s.addr_off, 12);
    EXPECT_EQ(s.addr_len, 8);
    ASSERT_TRUE(s.has_ts);
    EXPECT_EQ(s.tsval, 1000u);
    EXPECT_EQ(s.tsecr, 999u);
}

TEST(TcpSegment, OnlyTheHeadersNeedToBeAtHand)
{
    wgx_tcp_segment s{};
    const Bytes p = ipv4(tcp_header(ts_option(7, 8)), 1368);
    ASSERT_TRUE(parse(p, WGX_AF_INET, s, 20 + 32));
    EXPECT_EQ(s.payload, 1368u);
    EXPECT_TRUE(s.has_ts);
    // One byte short of the TCP header's options: refused, not read past.
    EXPECT_FALSE(parse(p, WGX_AF_INET, s, 20 + 31));
    EXPECT_FALSE(parse(p, WGX_AF_INET, s, 20 + 19));
    EXPECT_FALSE(parse(p, WGX_AF_INET, s, 19));
    EXPECT_FALSE(parse(p, WGX_AF_INET, s, 0));
}

TEST(TcpSegment, Ipv4OptionsAreSkipped)
{
    wgx_tcp_segment s{};
    const Bytes p = ipv4(tcp_header(ts_option(5, 6)), 100, 40);
    ASSERT_TRUE(parse(p, WGX_AF_INET, s));
    EXPECT_EQ(s.payload, 100u);
    EXPECT_EQ(s.sport, 40000);
    EXPECT_EQ(s.tsval, 5u);
    // IHL beyond the bytes at hand.
    EXPECT_FALSE(parse(p, WGX_AF_INET, s, 50));
}

TEST(TcpSegment, Ipv4RefusesWhatIsNotOneTcpSegment)
{
    wgx_tcp_segment s{};
    const Bytes good = ipv4(tcp_header({}), 10);
    ASSERT_TRUE(parse(good, WGX_AF_INET, s));
    EXPECT_FALSE(s.has_ts);

    Bytes p = good;
    p[9] = 17;  // UDP
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    p = good;
    put16(p, 6, 0x2000);  // more fragments
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    p = good;
    put16(p, 6, 0x0010);  // a later fragment
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    p = good;
    put16(p, 6, 0x4000);  // DF alone is fine
    EXPECT_TRUE(parse(p, WGX_AF_INET, s));
    p = good;
    p[0] = 0x44;  // IHL 16 bytes
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    p = good;
    p[0] = 0x65;  // version 6 in an IPv4 packet
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    EXPECT_FALSE(parse(good, WGX_AF_INET6, s));
    EXPECT_FALSE(parse(good, 0, s));
    p = good;
    put16(p, 2, 20 + 19);  // the IP length leaves no room for the TCP header
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    p = good;
    put16(p, 2, 10);  // shorter than the IP header
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
}

TEST(TcpSegment, DataOffsetIsChecked)
{
    wgx_tcp_segment s{};
    Bytes p = ipv4(tcp_header({}), 0);
    p[20 + 12] = 0x40;  // 16 bytes: below the minimum
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    p = ipv4(tcp_header({}), 100);
    p[20 + 12] = 0xf0;  // 60 bytes: more than the bytes at hand hold as header
    EXPECT_TRUE(parse(p, WGX_AF_INET, s));  // 100 bytes of payload cover it
    EXPECT_EQ(s.payload, 60u);
    EXPECT_FALSE(parse(p, WGX_AF_INET, s, 20 + 59));
    p = ipv4(tcp_header({}), 10);
    p[20 + 12] = 0xf0;  // 60 bytes claimed, the IP length gives 30
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
}

TEST(TcpSegment, OptionWalk)
{
    wgx_tcp_segment s{};
    // A window scale option before the timestamps, then EOL.
    Bytes o = {3, 3, 7};
    Bytes ts = ts_option(11, 12);
    o.insert(o.end(), ts.begin(), ts.end());
    ASSERT_TRUE(parse(ipv4(tcp_header(o), 0), WGX_AF_INET, s));
    EXPECT_TRUE(s.has_ts);
    EXPECT_EQ(s.tsecr, 12u);

    // EOL before the timestamps ends the list.
    o = {0};
    o.insert(o.end(), ts.begin(), ts.end());
    ASSERT_TRUE(parse(ipv4(tcp_header(o), 0), WGX_AF_INET, s));
    EXPECT_FALSE(s.has_ts);

    // A length of 1, or one running past the header, ends the walk.
    for (uint8_t bad : {uint8_t(0), uint8_t(1), uint8_t(40)}) {
        o = {5, bad};
        o.insert(o.end(), ts.begin(), ts.end());
        ASSERT_TRUE(parse(ipv4(tcp_header(o), 0), WGX_AF_INET, s)) << int(bad);
        EXPECT_FALSE(s.has_ts) << int(bad);
    }

    // A timestamps kind with the wrong length is skipped, not read.
    o = {8, 6, 0, 0, 0, 0};
    o.insert(o.end(), ts.begin(), ts.end());
    ASSERT_TRUE(parse(ipv4(tcp_header(o), 0), WGX_AF_INET, s));
    EXPECT_TRUE(s.has_ts);
    EXPECT_EQ(s.tsval, 11u);

    // A kind byte last in the header, with no room for its length.
    o = {1, 1, 1, 4};
    ASSERT_TRUE(parse(ipv4(tcp_header(o), 0), WGX_AF_INET, s));
    EXPECT_FALSE(s.has_ts);
}

TEST(TcpSegment, Ipv6)
{
    wgx_tcp_segment s{};
    const Bytes p = ipv6(tcp_header(ts_option(21, 22)), 1000);
    ASSERT_TRUE(parse(p, WGX_AF_INET6, s));
    EXPECT_EQ(s.payload, 1000u);
    EXPECT_EQ(s.addr_off, 8);
    EXPECT_EQ(s.addr_len, 32);
    EXPECT_EQ(s.tsval, 21u);
    EXPECT_FALSE(parse(p, WGX_AF_INET, s));
    EXPECT_FALSE(parse(p, WGX_AF_INET6, s, 39));
    EXPECT_FALSE(parse(p, WGX_AF_INET6, s, 40 + 31));

    // A hop-by-hop header before TCP is not walked: refused.
    EXPECT_FALSE(parse(ipv6(tcp_header({}), 10, 0), WGX_AF_INET6, s));
    // A payload length too short for the TCP header.
    Bytes q = ipv6(tcp_header({}), 0);
    put16(q, 4, 19);
    EXPECT_FALSE(parse(q, WGX_AF_INET6, s));
}
