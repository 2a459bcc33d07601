/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/cookie.h - the cookie mechanism (whitepaper 5.3, 5.4.4, 5.4.7): MAC1
 * and MAC2 of received handshake messages, cookie replies under load, and
 * the cookie a peer sends us (kmod/core/cookie.cpp).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_COOKIE_H
#define WGX_CORE_COOKIE_H

#include "types.h"
#include "messages.h"
#include "noise.h"

WGX_EXTERN_C_BEGIN

/* Times of the cookie mechanism (whitepaper 5.3, 5.4.7). */
enum {
	WGX_COOKIE_SECRET_MAX_AGE_S = 120,	/* responder's cookie secret rotates after this */
	WGX_COOKIE_SECRET_LATENCY_S = 5,	/* a received cookie is used for mac2 for 120 - 5 s */
};

/**
 * struct wgx_cookie_checker - opaque: the receiving side of the cookie
 * mechanism (the device's mac1 key, cookie encryption key, and the random
 * cookie secret that rotates every WGX_COOKIE_SECRET_MAX_AGE_S).
 * Locking: wgx_cookie_checker_validate() with @under_load true,
 * wgx_cookie_checker_create_reply() and wgx_cookie_checker_set_identity()
 * may modify the checker and need its lock exclusively; validate() with
 * @under_load false only reads and may share a read lock.
 */
struct wgx_cookie_checker;

/** Verdict on the MACs of a received initiation or response. */
enum wgx_cookie_verdict {
	WGX_COOKIE_DROP = 0,		/* bad mac1, not a handshake message, or no identity */
	WGX_COOKIE_ACCEPT,		/* not under load and mac1 valid: process it */
	WGX_COOKIE_ACCEPT_RATELIMIT,	/* under load, mac1 and mac2 valid: process it if the
					 * per-source handshake ratelimiter allows it */
	WGX_COOKIE_SEND_REPLY,		/* under load and no valid mac2: answer with
					 * wgx_cookie_checker_create_reply(), do not process */
};

/** wgx_cookie_checker_create - checker without an identity (drops everything); NULL when out of memory. */
struct wgx_cookie_checker *wgx_cookie_checker_create(bool may_sleep);
/** wgx_cookie_checker_destroy - wipe and free.  NULL is ignored. */
void wgx_cookie_checker_destroy(struct wgx_cookie_checker *checker);
/**
 * wgx_cookie_checker_set_identity - derive the mac1 and cookie keys from the
 * identity's public key (call after every private key change); an identity
 * without key (or NULL) makes the checker drop everything.
 */
void wgx_cookie_checker_set_identity(struct wgx_cookie_checker *checker,
				     const struct wgx_noise_identity *id);

/**
 * wgx_cookie_checker_validate - check mac1 of an initiation or response
 * (@msg, @len as received) and, when @under_load, mac2 against the cookie of
 * its source.  @src/@src_len: bytes identifying the source, conventionally the
 * IP address (4 or 16 bytes, network order) followed by the UDP port (2 bytes,
 * network order); at most WGX_COOKIE_SOURCE_MAX_LEN.  @under_load is the
 * glue's decision (e.g. its handshake queue is more than 1/8 full, 5.3).
 * @now_ns: monotonic ns (cookie secret rotation).
 */
enum wgx_cookie_verdict wgx_cookie_checker_validate(struct wgx_cookie_checker *checker,
						    const wgx_u8 *msg, wgx_size len,
						    const wgx_u8 *src, wgx_size src_len,
						    bool under_load, wgx_u64 now_ns);

/**
 * wgx_cookie_checker_create_reply - build a cookie reply (5.4.7) into @out
 * (WGX_MSG_COOKIE_REPLY_LEN bytes) answering the initiation or response @msg
 * from source @src (as for validate): receiver index = the message's sender
 * index, a random 24-byte nonce, the source's cookie encrypted with
 * XChaCha20-Poly1305 under the cookie key with the message's mac1 as AD.
 * Returns 0, -WGX_EINVAL (not a handshake message, bad @src_len) or -WGX_ENOKEY.
 */
int wgx_cookie_checker_create_reply(struct wgx_cookie_checker *checker, wgx_u8 *out,
				    const wgx_u8 *msg, wgx_size len, const wgx_u8 *src,
				    wgx_size src_len, wgx_u64 now_ns);

/**
 * wgx_cookie_consume_reply - decrypt a cookie reply addressed to @hs's peer
 * (the glue found the peer by the receiver index, which may be a handshake's
 * or a keypair's index) and store the cookie for mac2 of the next handshake
 * messages.  Accepted only once per mac1 we sent.  Holds @hs's lock.
 * Returns 0, -WGX_EINVAL, -WGX_ESTALE (no message of ours awaits a cookie) or
 * -WGX_EBADMSG.
 */
int wgx_cookie_consume_reply(struct wgx_noise_handshake *hs, const wgx_u8 *msg, wgx_size len,
			     wgx_u64 now_ns);

WGX_EXTERN_C_END

#endif /* WGX_CORE_COOKIE_H */
