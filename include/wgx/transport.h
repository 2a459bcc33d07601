/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/transport.h - transport data messages (whitepaper 5.4.6): the counter
 * limits of a keypair (6.1), the padding rule and the header for glue that
 * encrypts scatter-gather itself (kmod/core/transport.cpp).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_TRANSPORT_H
#define WGX_CORE_TRANSPORT_H

#include "types.h"
#include "messages.h"

WGX_EXTERN_C_BEGIN

/*
 * Counter limits of a keypair (whitepaper 6.1), used by the transport path,
 * the replay window and the timers alike.
 */
/* A keypair that has sent this many messages should be renewed (whitepaper 6.1). */
#define WGX_REKEY_AFTER_MESSAGES (1ULL << 60)
/* Transport counters at or above this are never sent nor accepted: 2^64 - 2^13 - 1. */
#define WGX_TRANSPORT_REJECT_AFTER_MESSAGES (~0ULL - (1ULL << 13))

/**
 * wgx_transport_padded_len - plaintext length after padding @len bytes with
 * zeros to a multiple of WGX_MSG_PADDING_MULTIPLE, but never beyond @mtu
 * (0 = no limit); for @len > @mtu (GSO) the last @mtu-sized unit is padded.
 * A keepalive (@len 0) stays 0.  The message is this + 32 bytes.
 */
wgx_size wgx_transport_padded_len(wgx_size len, wgx_u32 mtu);

/*
 * Express mark between wgx peers: a sender pads a small packet of a sparse
 * flow with this many zero bytes beyond the padding rule above, which never
 * pads by as much; a wgx receiver that finds at least this much padding
 * after the inner packet may deliver it ahead of the peer's earlier messages
 * (docs/datapath.md, "Express delivery").  Every WireGuard receiver trims
 * the padding by the inner IP length, so it sees an ordinary packet.
 */
enum { WGX_TRANSPORT_EXPRESS_PAD = 16 };

/**
 * wgx_transport_write_header - write the 16-byte transport header (type 4,
 * @receiver_index, @counter) for glue that encrypts scatter-gather itself.
 * Returns 0 or -WGX_EKEYREJECTED when @counter >= WGX_TRANSPORT_REJECT_AFTER_MESSAGES.
 */
int wgx_transport_write_header(wgx_u8 *hdr, wgx_u32 receiver_index, wgx_u64 counter);

WGX_EXTERN_C_END

#endif /* WGX_CORE_TRANSPORT_H */
