/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/tcpseg.h - the reader of an inner TCP segment's headers that the
 * TCP telemetry uses (kmod/core/tcpseg.cpp): sequence number, payload
 * length, ports and the timestamps option (RFC 9293 section 3.1, RFC 7323
 * section 3).  The bytes come from a peer, so every length is checked.
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions are in docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_TCPSEG_H
#define WGX_CORE_TCPSEG_H

#include "types.h"

WGX_EXTERN_C_BEGIN

enum {
	/* Bytes of a packet that hold any IPv4 or IPv6 header and a TCP header with options. */
	WGX_TCPSEG_HEADERS_MAX = 60 + 60,
};

/**
 * struct wgx_tcp_segment - what wgx_tcp_segment_parse() read.
 * @seq: the sequence number.
 * @payload: TCP payload bytes by the IP header's length (the payload itself
 *           need not be in the buffer).
 * @sport: source port; @dport: destination port (host order).
 * @addr_off: offset in the buffer of the source address, which the
 *            destination address follows; @addr_len: both together (bytes:
 *            8 for IPv4, 32 for IPv6).
 * @has_ts: a timestamps option was found; then @tsval and @tsecr hold it
 *          (host order).
 */
struct wgx_tcp_segment {
	wgx_u32 seq;
	wgx_u32 payload;
	wgx_u16 sport;
	wgx_u16 dport;
	wgx_u8 addr_off;
	wgx_u8 addr_len;
	bool has_ts;
	wgx_u32 tsval;
	wgx_u32 tsecr;
};

/**
 * wgx_tcp_segment_parse - read the TCP segment in the IP packet at @pkt.
 * @pkt: the packet from its IP header on; only @pkt[0..@len) is read.
 * @len: bytes at @pkt (at most WGX_TCPSEG_HEADERS_MAX are needed).
 * @family: WGX_AF_INET or WGX_AF_INET6, what the glue's protocol field
 *          says; the header's version must agree.
 * @seg: filled when true is returned.
 *
 * False when the packet is not TCP, is an IPv4 fragment, is IPv6 with an
 * extension header before TCP, or when a header is shorter than its minimum,
 * claims more than the IP length holds or does not fit in @len.  Options
 * are walked up to an end-of-list, the first malformed length or the
 * timestamps option.  Pure; any context.
 */
bool wgx_tcp_segment_parse(const wgx_u8 *pkt, wgx_size len, int family,
			   struct wgx_tcp_segment *seg);

WGX_EXTERN_C_END

#endif /* WGX_CORE_TCPSEG_H */
