/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/messages.h - WireGuard message layout (whitepaper 5.4): message types,
 * sizes and the packed wire structs shared by the glue and the core, and the
 * classification of a received UDP payload (kmod/core/messages.hpp,
 * kmod/core/transport.cpp).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_MESSAGES_H
#define WGX_CORE_MESSAGES_H

#include "types.h"

WGX_EXTERN_C_BEGIN

/* Message types: byte 0 of every message; bytes 1..3 are reserved and must be zero. */
enum wgx_msg_type {
	WGX_MSG_INITIATION = 1,
	WGX_MSG_RESPONSE = 2,
	WGX_MSG_COOKIE_REPLY = 3,
	WGX_MSG_TRANSPORT = 4,
};

/* Sizes in bytes. */
enum {
	WGX_MSG_INITIATION_LEN = 148,
	WGX_MSG_RESPONSE_LEN = 92,
	WGX_MSG_COOKIE_REPLY_LEN = 64,
	WGX_MSG_TRANSPORT_HEADER_LEN = 16,	/* type/reserved, receiver index, counter */
	WGX_MSG_TRANSPORT_MIN_LEN = 32,		/* header + tag: a keepalive */
	WGX_MSG_PADDING_MULTIPLE = 16,		/* transport plaintext padding (5.4.6) */
	WGX_TAI64N_LEN = 12,
	WGX_COOKIE_LEN = 16,
	WGX_COOKIE_NONCE_LEN = 24,
	WGX_COOKIE_SOURCE_MAX_LEN = 32,		/* max bytes identifying a source (IP || port) */
};

/*
 * Wire layouts.  Multi-byte integers are little-endian on the wire (the
 * *_index and counter fields); use le32_to_cpu()/le64_to_cpu() in C.  Every
 * struct is packed (alignment 1), so it may overlay any received buffer.
 */
struct wgx_msg_header {
	wgx_u8 type;			/* enum wgx_msg_type */
	wgx_u8 reserved_zero[3];
} __attribute__((__packed__));

struct wgx_msg_macs {
	wgx_u8 mac1[16];		/* keyed BLAKE2s-128 over everything before mac1 */
	wgx_u8 mac2[16];		/* keyed by a cookie over everything before mac2, or zero */
} __attribute__((__packed__));

/* Handshake initiation, 148 bytes (5.4.2). */
struct wgx_msg_initiation {
	struct wgx_msg_header header;
	wgx_u32 sender_index;				/* le32 */
	wgx_u8 unencrypted_ephemeral[32];
	wgx_u8 encrypted_static[32 + 16];
	wgx_u8 encrypted_timestamp[WGX_TAI64N_LEN + 16];
	struct wgx_msg_macs macs;
} __attribute__((__packed__));

/* Handshake response, 92 bytes (5.4.3). */
struct wgx_msg_response {
	struct wgx_msg_header header;
	wgx_u32 sender_index;				/* le32 */
	wgx_u32 receiver_index;				/* le32 */
	wgx_u8 unencrypted_ephemeral[32];
	wgx_u8 encrypted_nothing[16];
	struct wgx_msg_macs macs;
} __attribute__((__packed__));

/* Cookie reply, 64 bytes (5.4.7). */
struct wgx_msg_cookie_reply {
	struct wgx_msg_header header;
	wgx_u32 receiver_index;				/* le32 */
	wgx_u8 nonce[WGX_COOKIE_NONCE_LEN];
	wgx_u8 encrypted_cookie[WGX_COOKIE_LEN + 16];
} __attribute__((__packed__));

/* Transport data header, 16 bytes, followed by the encrypted packet and its 16-byte tag (5.4.6). */
struct wgx_msg_transport {
	struct wgx_msg_header header;
	wgx_u32 receiver_index;				/* le32 */
	wgx_u64 counter;				/* le64, also the AEAD nonce */
} __attribute__((__packed__));

#ifdef __cplusplus
#define WGX_MSG_STATIC_ASSERT(expr, msg) static_assert(expr, msg)
#else
#define WGX_MSG_STATIC_ASSERT(expr, msg) _Static_assert(expr, msg)
#endif
WGX_MSG_STATIC_ASSERT(sizeof(struct wgx_msg_header) == 4, "message header is 4 bytes");
WGX_MSG_STATIC_ASSERT(sizeof(struct wgx_msg_initiation) == WGX_MSG_INITIATION_LEN, "initiation is 148 bytes");
WGX_MSG_STATIC_ASSERT(sizeof(struct wgx_msg_response) == WGX_MSG_RESPONSE_LEN, "response is 92 bytes");
WGX_MSG_STATIC_ASSERT(sizeof(struct wgx_msg_cookie_reply) == WGX_MSG_COOKIE_REPLY_LEN, "cookie reply is 64 bytes");
WGX_MSG_STATIC_ASSERT(sizeof(struct wgx_msg_transport) == WGX_MSG_TRANSPORT_HEADER_LEN, "transport header is 16 bytes");
WGX_MSG_STATIC_ASSERT(__builtin_offsetof(struct wgx_msg_initiation, macs) == WGX_MSG_INITIATION_LEN - 32,
		      "initiation macs are its last 32 bytes");
WGX_MSG_STATIC_ASSERT(__builtin_offsetof(struct wgx_msg_response, macs) == WGX_MSG_RESPONSE_LEN - 32,
		      "response macs are its last 32 bytes");

/**
 * wgx_msg_classify - the type of a received UDP payload, checked for exact
 * length (initiation 148, response 92, cookie reply 64, transport >= 32) and
 * zero reserved bytes.  Returns the enum wgx_msg_type value, or 0 when the
 * payload is not a well-formed WireGuard message (drop it).  Any context.
 */
int wgx_msg_classify(const wgx_u8 *data, wgx_size len);

/**
 * wgx_msg_receiver_index - the receiver index of a response, cookie reply or
 * transport message (after wgx_msg_classify() accepted it), for the glue's
 * index table lookup.  Returns false, leaving *@index untouched, for an
 * initiation (which has none) or a malformed message.
 */
bool wgx_msg_receiver_index(const wgx_u8 *data, wgx_size len, wgx_u32 *index);

WGX_EXTERN_C_END

#endif /* WGX_CORE_MESSAGES_H */
