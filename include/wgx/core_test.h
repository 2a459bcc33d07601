/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/core_test.h - entry points of the core that only tests use: the
 * GoogleTest suites (tests/unit), the fuzzers (tests/fuzz) and the KUnit
 * suites (tests/kunit) check the wire format and the core's state with them.
 * The kernel glue (the C files of kmod/) never includes this header: the datapath
 * encrypts and decrypts scatter-gather itself (wgx_transport_write_header()),
 * and nothing in the module needs to read a handshake's internals.  The
 * functions are still compiled into every build of the core.
 *
 * Not included by <wgx/core.h>.
 */
#ifndef WGX_CORE_TEST_H
#define WGX_CORE_TEST_H

#include "types.h"
#include "noise.h"
#include "ratelimiter.h"
#include "transport.h"

#if defined(__KERNEL__) && !defined(WGX_KUNIT)
#error "wgx/core_test.h is for the test suites, not for the kernel glue (see the comment above)"
#endif

WGX_EXTERN_C_BEGIN

/* ---- handshake state (wgx/noise.h) ---- */

/**
 * Our index of the handshake in progress: the one passed to the create call,
 * in the CREATED_INITIATION, CREATED_RESPONSE and CONSUMED_RESPONSE states; 0
 * otherwise.  The glue removes it from its index table (or hands it to the
 * keypair) before the handshake is cleared or replaced.
 */
wgx_u32 wgx_noise_handshake_local_index(const struct wgx_noise_handshake *hs);

/* ---- transport data (wgx/transport.h) ---- */

/**
 * wgx_transport_encrypt - build one transport data message in a linear buffer:
 * header, then @plain (@plain_len bytes, may be empty for a keepalive, may lie
 * at @out + 16 for in-place use) padded to wgx_transport_padded_len(@plain_len,
 * @mtu) and encrypted with @key (32 bytes) and nonce @counter, then the tag.
 * Writes *@out_len; needs @out_cap >= padded + 32.  Returns 0, -WGX_EMSGSIZE
 * or -WGX_EKEYREJECTED (counter limit).
 */
int wgx_transport_encrypt(wgx_u8 *out, wgx_size out_cap, wgx_size *out_len, const wgx_u8 *plain,
			  wgx_size plain_len, wgx_u32 mtu, const wgx_u8 *key, wgx_u32 receiver_index,
			  wgx_u64 counter);

/**
 * wgx_transport_decrypt - authenticate and decrypt, in place, the transport
 * message @msg of @len bytes with @key (32 bytes; the glue found the keypair by
 * the receiver index).  On success the plaintext (still padded; 0 bytes =
 * keepalive) is at @msg + WGX_MSG_TRANSPORT_HEADER_LEN, *@plain_len holds its
 * length and *@counter the message counter, which the glue must then check
 * against its replay window.  Returns 0, -WGX_EINVAL (malformed),
 * -WGX_EKEYREJECTED (counter limit) or -WGX_EBADMSG (authentication failed;
 * the buffer content is then unspecified).
 */
int wgx_transport_decrypt(wgx_u8 *msg, wgx_size len, const wgx_u8 *key, wgx_u64 *counter,
			  wgx_size *plain_len);

/* ---- ratelimiter (wgx/ratelimiter.h) ---- */

/** wgx_ratelimiter_forget_cookie - drop every entry keyed with @cookie (namespace going away); returns how many. */
wgx_size wgx_ratelimiter_forget_cookie(struct wgx_ratelimiter *rl, wgx_u64 cookie);
/** wgx_ratelimiter_count - number of buckets (of every level: source, prefix, block) currently tracked. */
wgx_size wgx_ratelimiter_count(const struct wgx_ratelimiter *rl);

WGX_EXTERN_C_END

#endif /* WGX_CORE_TEST_H */
