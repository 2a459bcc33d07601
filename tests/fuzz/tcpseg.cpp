// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer harness for the inner TCP segment reader of the telemetry
// (wgx_tcp_segment_parse), whose input a peer controls: IPv4 with options
// and fragments, IPv6 with extension headers, truncated headers, malformed
// TCP option lists.  The first input byte picks the family and which
// fix-ups make the rest look like IPv4/IPv6 TCP (so the fuzzer reaches the
// option walk); the parser reads an exactly-sized copy (ASan catches any
// read past it) and its answer is checked field by field against a naive
// reference written with bounds-checked vector access.
//
//   build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DWGX_FUZZ=ON && cmake --build build-fuzz
//   run:   build-fuzz/fuzz/fuzz_tcpseg -max_total_time=60
// fuzz-long: -max_len=160

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <wgx/core.h>

namespace {

using Bytes = std::vector<uint8_t>;

unsigned be16(const Bytes &b, size_t at)
{
    return unsigned(b.at(at)) << 8 | b.at(at + 1);
}

uint32_t be32(const Bytes &b, size_t at)
{
    return uint32_t(be16(b, at)) << 16 | be16(b, at + 2);
}

// The reference: every access through at(), which throws past the end.
bool reference(const Bytes &b, int family, wgx_tcp_segment &s)
{
    s = wgx_tcp_segment{};
    try {
        size_t tcp, avail;
        if (family == WGX_AF_INET) {
            if ((b.at(0) >> 4) != 4 || b.at(9) != 6)
                return false;
            size_t ihl = (b.at(0) & 15u) * 4;
            if (ihl < 20)
                return false;
            b.at(19);
            unsigned flags_offset = be16(b, 6);
            if ((flags_offset & 0x2000) || (flags_offset & 0x1fff))
                return false;
            size_t total = be16(b, 2);
            if (total < ihl)
                return false;
            tcp = ihl;
            avail = total - ihl;
            s.addr_off = 12;
            s.addr_len = 8;
        } else if (family == WGX_AF_INET6) {
            b.at(39);
            if ((b.at(0) >> 4) != 6 || b.at(6) != 6)
                return false;
            tcp = 40;
            avail = be16(b, 4);
            s.addr_off = 8;
            s.addr_len = 32;
        } else {
            return false;
        }
        if (avail < 20)
            return false;
        size_t doff = (b.at(tcp + 12) >> 4) * 4u;
        if (doff < 20 || doff > avail)
            return false;
        b.at(tcp + doff - 1);  // the whole header at hand
        s.sport = uint16_t(be16(b, tcp));
        s.dport = uint16_t(be16(b, tcp + 2));
        s.seq = be32(b, tcp + 4);
        s.payload = uint32_t(avail - doff);
        size_t i = tcp + 20, end = tcp + doff;
        while (i < end) {
            uint8_t kind = b.at(i);
            if (kind == 0)
                break;
            if (kind == 1) {
                i += 1;
                continue;
            }
            if (i + 1 >= end)
                break;
            size_t olen = b.at(i + 1);
            if (olen < 2 || i + olen > end)
                break;
            if (kind == 8 && olen == 10) {
                s.has_ts = true;
                s.tsval = be32(b, i + 2);
                s.tsecr = be32(b, i + 6);
                break;
            }
            i += olen;
        }
        return true;
    } catch (const std::out_of_range &) {
        return false;
    }
}

[[noreturn]] void mismatch(const char *what, unsigned long got, unsigned long want)
{
    fprintf(stderr, "tcpseg: %s: parser %lu, reference %lu\n", what, got, want);
    abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t mode = data[0];
    const int family = (mode & 1) ? WGX_AF_INET6 : WGX_AF_INET;
    Bytes b(data + 1, data + size);
    // Fix-ups, each optional, so that most inputs get past the IP header.
    if ((mode & 2) && !b.empty())
        b[0] = uint8_t((family == WGX_AF_INET ? 0x40 : 0x60) | (b[0] & 0x0f));
    if (mode & 4) {
        if (family == WGX_AF_INET && b.size() > 9)
            b[9] = 6;
        if (family == WGX_AF_INET6 && b.size() > 6)
            b[6] = 6;
    }
    if ((mode & 8) && family == WGX_AF_INET && b.size() > 7)
        b[6] = b[7] = 0;
    if ((mode & 16) && b.size() > 5) {
        size_t at = family == WGX_AF_INET ? 2 : 4;
        size_t v = family == WGX_AF_INET ? b.size() : (b.size() > 40 ? b.size() - 40 : 0);
        b[at] = uint8_t(v >> 8);
        b[at + 1] = uint8_t(v);
    }
    // Exactly b.size() bytes on the heap: a read past them is an ASan error.
    uint8_t *pkt = static_cast<uint8_t *>(malloc(b.size() ? b.size() : 1));
    for (size_t i = 0; i < b.size(); ++i)
        pkt[i] = b[i];
    wgx_tcp_segment got{}, want{};
    const bool ok = wgx_tcp_segment_parse(pkt, b.size(), family, &got);
    free(pkt);
    const bool ref = reference(b, family, want);
    if (ok != ref)
        mismatch("accepted", ok, ref);
    if (!ok)
        return 0;
    if (got.seq != want.seq)
        mismatch("seq", got.seq, want.seq);
    if (got.payload != want.payload)
        mismatch("payload", got.payload, want.payload);
    if (got.sport != want.sport || got.dport != want.dport)
        mismatch("ports", got.sport << 16 | got.dport, want.sport << 16 | want.dport);
    if (got.addr_off != want.addr_off || got.addr_len != want.addr_len ||
        size_t(got.addr_off) + got.addr_len > b.size())
        mismatch("addresses", got.addr_off << 8 | got.addr_len, want.addr_off << 8 | want.addr_len);
    if (got.has_ts != want.has_ts)
        mismatch("has_ts", got.has_ts, want.has_ts);
    if (got.has_ts && (got.tsval != want.tsval || got.tsecr != want.tsecr))
        mismatch("timestamps", got.tsval, want.tsval);
    return 0;
}
