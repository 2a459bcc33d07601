/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/types.h - fixed-width types shared by the C glue and the C++ core.
 *
 * The core is freestanding and may not include libc or kernel headers, so the
 * types come from the compiler's own predefined macros.  In kernel C they are
 * the same types as u8..u64, size_t and bool from <linux/types.h>.
 */
#ifndef WGX_TYPES_H
#define WGX_TYPES_H

typedef __UINT8_TYPE__ wgx_u8;
typedef __UINT16_TYPE__ wgx_u16;
typedef __UINT32_TYPE__ wgx_u32;
typedef __UINT64_TYPE__ wgx_u64;
typedef __INT64_TYPE__ wgx_s64;
typedef __SIZE_TYPE__ wgx_size;

/*
 * Error numbers returned (negated) across the boundary.  They are the Linux
 * errno values, spelled out because the core cannot include <errno.h>.
 *
 * Functions returning int give 0 on success or one of these negated values.
 * In the protocol modules (messages.h, noise.h, cookie.h, transport.h):
 *   -WGX_EINVAL        malformed message (length, type, reserved bytes) or bad argument
 *   -WGX_ENOKEY        no private key on the identity, or no usable static-static DH
 *   -WGX_EKEYREJECTED  a Diffie-Hellman result was all zero (low-order point), or a
 *                      transport counter >= WGX_TRANSPORT_REJECT_AFTER_MESSAGES
 *   -WGX_EBADMSG       authentication (AEAD tag) failed
 *   -WGX_EALREADY      replayed initiation: TAI64N timestamp not newer than the last accepted
 *   -WGX_EBUSY         initiation flood: less than 1/50 s after the last accepted one
 *   -WGX_ESTALE        handshake not in the state the call needs (or wrong receiver index)
 *   -WGX_EMSGSIZE      output buffer too small
 * None of those sleeps or allocates, except *_create() (see @may_sleep).
 */
enum wgx_errno {
	WGX_EPERM = 1,
	WGX_ENOENT = 2,
	WGX_EAGAIN = 11,
	WGX_ENOMEM = 12,
	WGX_EBUSY = 16,
	WGX_EEXIST = 17,
	WGX_EINVAL = 22,
	WGX_ENOSPC = 28,
	WGX_EMSGSIZE = 90,
	WGX_EPROTO = 71,
	WGX_EBADMSG = 74,
	WGX_EOVERFLOW = 75,
	WGX_ENOKEY = 126,
	WGX_EKEYREJECTED = 129,
	WGX_ETIMEDOUT = 110,
	WGX_EALREADY = 114,
	WGX_ESTALE = 116,
};

/*
 * Address families for the allowed-IPs trie and the ratelimiter.  The values
 * equal Linux AF_INET / AF_INET6, so the glue can pass them through unchanged.
 * Addresses are always raw network-order bytes: 4 for IPv4, 16 for IPv6.
 */
enum {
	WGX_AF_INET = 2,
	WGX_AF_INET6 = 10,
};

#ifdef __cplusplus
#define WGX_EXTERN_C_BEGIN extern "C" {
#define WGX_EXTERN_C_END }
#else
#define WGX_EXTERN_C_BEGIN
#define WGX_EXTERN_C_END
#if defined(__KERNEL__)
#include <linux/types.h> /* bool */
#else
#include <stdbool.h>
#endif
#endif

#endif /* WGX_TYPES_H */
