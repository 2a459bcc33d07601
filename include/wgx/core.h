/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/core.h - the extern "C" boundary between the kernel glue (the C files
 * in kmod/) and the freestanding C++ protocol core (the C++ files in kmod/core/).
 *
 * Only opaque handles, plain C structs, byte buffers, int (0 or -errno) and
 * bool cross this line.  The core is single-threaded logic: every function
 * below is called with whatever lock the glue documents for that object held,
 * never sleeps, and takes time as an argument (nanoseconds of a monotonic
 * clock unless stated).  Protocol terms and constants follow the WireGuard
 * whitepaper (Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s); section numbers refer
 * to it.
 */
#ifndef WGX_CORE_H
#define WGX_CORE_H

#include "types.h"
#include "platform.h"

WGX_EXTERN_C_BEGIN

/* ==== messages, noise handshake, cookies, transport (kmod/core/{messages,noise,cookie,transport}) ==== */

/*
 * Error convention of this section: functions returning int give 0 on success
 * or one of these negated values:
 *   -WGX_EINVAL        malformed message (length, type, reserved bytes) or bad argument
 *   -WGX_ENOKEY        no private key on the identity, or no usable static-static DH
 *   -WGX_EKEYREJECTED  a Diffie-Hellman result was all zero (low-order point), or a
 *                      transport counter >= WGX_TRANSPORT_REJECT_AFTER_MESSAGES
 *   -WGX_EBADMSG       authentication (AEAD tag) failed
 *   -WGX_EALREADY      replayed initiation: TAI64N timestamp not newer than the last accepted
 *   -WGX_EBUSY         initiation flood: less than 1/50 s after the last accepted one
 *   -WGX_ESTALE        handshake not in the state the call needs (or wrong receiver index)
 *   -WGX_EMSGSIZE      output buffer too small
 * No function here sleeps or allocates, except *_create() (see @may_sleep).
 */

/* ---- message layout (whitepaper 5.4) ---- */

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

/* Times and rates of the handshake and cookie layers (whitepaper 5.3, 5.4.4, 6.1). */
enum {
	WGX_COOKIE_SECRET_MAX_AGE_S = 120,	/* responder's cookie secret rotates after this */
	WGX_COOKIE_SECRET_LATENCY_S = 5,	/* a received cookie is used for mac2 for 120 - 5 s */
	WGX_INITIATIONS_PER_SECOND = 50,	/* per-peer accepted initiation rate (flood limit) */
};

/* Transport counters at or above this are never sent nor accepted: 2^64 - 2^13 - 1 (6.1). */
#define WGX_TRANSPORT_REJECT_AFTER_MESSAGES (~0ULL - (1ULL << 13))

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

/* ---- keys and handshake state (whitepaper 5.4, Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s) ---- */

/**
 * struct wgx_keypair_keys - result of a completed handshake, a plain struct the
 * glue copies into its own RCU-managed keypair.  Contains secrets: wipe it
 * (wgx_platform_memzero_explicit) when done.
 * @sending_key, @receiving_key: ChaCha20-Poly1305 keys (32 bytes) for transport data.
 * @local_index: our index; received transport messages carry it as receiver index.
 * @remote_index: the peer's index, written into the messages we send.
 * @initiator: true on the side that sent the initiation.
 * @birth_ns: monotonic time the keys were derived (for REKEY/REJECT_AFTER_TIME).
 */
struct wgx_keypair_keys {
	wgx_u8 sending_key[32];
	wgx_u8 receiving_key[32];
	wgx_u32 local_index;
	wgx_u32 remote_index;
	bool initiator;
	wgx_u64 birth_ns;
};

/** State of a per-peer handshake (mirrors the in-tree driver's states). */
enum wgx_handshake_state {
	WGX_HANDSHAKE_ZEROED = 0,
	WGX_HANDSHAKE_CREATED_INITIATION,
	WGX_HANDSHAKE_CONSUMED_INITIATION,
	WGX_HANDSHAKE_CREATED_RESPONSE,
	WGX_HANDSHAKE_CONSUMED_RESPONSE,
};

/**
 * struct wgx_noise_identity - opaque: the device's static key pair and the
 * values derived from it.  Locking: wgx_noise_identity_set_private_key()
 * needs the device's identity lock held for writing; every other function of
 * this section that takes an identity, or a handshake (which points to its
 * identity), needs it held at least for reading.
 */
struct wgx_noise_identity;

/**
 * struct wgx_noise_handshake - opaque per-peer handshake state: the peer's
 * static public key, preshared key, precomputed static-static DH, chaining
 * key, hash, ephemeral keys, indices, last accepted TAI64N timestamp, last
 * initiation time, and the peer's cookie state (last mac1 sent, cookie
 * received).  Locking: the glue holds that peer's handshake lock (a spinlock
 * or mutex of its own) across every call that takes a handshake, plus the
 * identity lock for reading.  The handshake keeps a pointer to its identity:
 * destroy every handshake before the identity.
 */
struct wgx_noise_handshake;

/** wgx_noise_identity_create - identity without a private key; NULL when out of memory. */
struct wgx_noise_identity *wgx_noise_identity_create(bool may_sleep);
/** wgx_noise_identity_destroy - wipe and free.  NULL is ignored. */
void wgx_noise_identity_destroy(struct wgx_noise_identity *id);

/**
 * wgx_noise_identity_set_private_key - set (clamping it, RFC 7748) or clear the
 * static private key (32 bytes).  NULL or all-zero @private_key clears it.
 * Afterwards the glue must call wgx_noise_handshake_precompute() for every
 * peer and wgx_cookie_checker_set_identity().  Returns 0, or -WGX_EKEYREJECTED
 * if no public key can be derived (identity left cleared).
 */
int wgx_noise_identity_set_private_key(struct wgx_noise_identity *id, const wgx_u8 *private_key);

/**
 * wgx_noise_identity_get_keys - copy the (clamped) private key and the public key,
 * 32 bytes each; either pointer may be NULL.  Returns false, zeroing the outputs,
 * when the identity has no private key.
 */
bool wgx_noise_identity_get_keys(const struct wgx_noise_identity *id, wgx_u8 *public_key,
				 wgx_u8 *private_key);

/**
 * wgx_noise_handshake_create - handshake state for the peer with static public
 * key @remote_static (32 bytes) and optional @preshared_key (32 bytes, NULL =
 * none, i.e. all zero).  Precomputes the static-static DH and the peer's mac1
 * and cookie keys.  Returns NULL when out of memory or on NULL arguments.  A
 * low-order @remote_static is accepted here but every handshake with it fails
 * with -WGX_ENOKEY (as in the in-tree driver).
 */
struct wgx_noise_handshake *wgx_noise_handshake_create(const struct wgx_noise_identity *id,
						       const wgx_u8 *remote_static,
						       const wgx_u8 *preshared_key, bool may_sleep);
/** wgx_noise_handshake_destroy - wipe and free.  NULL is ignored. */
void wgx_noise_handshake_destroy(struct wgx_noise_handshake *hs);

/**
 * wgx_noise_handshake_precompute - recompute the static-static DH after the
 * identity's private key changed.  Returns true when the DH is usable (the
 * identity has a key and the result is not all zero).
 */
bool wgx_noise_handshake_precompute(struct wgx_noise_handshake *hs);

/** wgx_noise_handshake_set_preshared_key - 32 bytes, or NULL for none (all zero). */
void wgx_noise_handshake_set_preshared_key(struct wgx_noise_handshake *hs, const wgx_u8 *preshared_key);
/** Copy the preshared key (32 bytes, all zero when none). */
void wgx_noise_handshake_get_preshared_key(const struct wgx_noise_handshake *hs, wgx_u8 *out);
/** Copy the peer's static public key (32 bytes). */
void wgx_noise_handshake_get_remote_static(const struct wgx_noise_handshake *hs, wgx_u8 *out);
/** Current state. */
enum wgx_handshake_state wgx_noise_handshake_state(const struct wgx_noise_handshake *hs);
/**
 * Our index of the handshake in progress: the one passed to the create call,
 * in the CREATED_INITIATION, CREATED_RESPONSE and CONSUMED_RESPONSE states; 0
 * otherwise.  The glue removes it from its index table (or hands it to the
 * keypair) before the handshake is cleared or replaced.
 */
wgx_u32 wgx_noise_handshake_local_index(const struct wgx_noise_handshake *hs);

/**
 * wgx_noise_handshake_clear - forget the handshake in progress: wipe the
 * ephemeral key, chaining key and hash and go to WGX_HANDSHAKE_ZEROED.  The
 * static keys, last accepted timestamp, flood-limit time and cookie stay.
 */
void wgx_noise_handshake_clear(struct wgx_noise_handshake *hs);

/**
 * wgx_noise_create_initiation - build a complete initiation message (5.4.2)
 * into @msg (WGX_MSG_INITIATION_LEN bytes), mac1 and mac2 included (mac2 only
 * with a cookie younger than 120 - 5 s), with @local_index as sender index
 * (allocated by the glue).  @now_ns: monotonic ns; @wall_sec/@wall_nsec: real
 * time for the TAI64N timestamp (5.1; nanoseconds rounded down to 2^24 ns).
 * On success the handshake is CREATED_INITIATION; a handshake in progress is
 * replaced, so the glue drops its old index (wgx_noise_handshake_local_index())
 * first.  Returns 0, -WGX_ENOKEY or -WGX_EKEYREJECTED; on error @msg is zeroed
 * and the handshake unchanged.
 */
int wgx_noise_create_initiation(struct wgx_noise_handshake *hs, wgx_u8 *msg, wgx_u32 local_index,
				wgx_u64 now_ns, wgx_u64 wall_sec, wgx_u32 wall_nsec);

/**
 * struct wgx_noise_initiation_scratch - state between the two phases of
 * consuming an initiation; lives on the glue's stack.  Only @remote_static is
 * meant to be read by the glue; the rest is secret.  Both phases wipe it on
 * every failure, phase 2 on every exit; if the glue stops between the phases
 * (no such peer) it calls wgx_noise_initiation_scratch_wipe().
 */
struct wgx_noise_initiation_scratch {
	wgx_u8 remote_static[32];	/* the initiator's static public key: find the peer by it */
	wgx_u8 remote_ephemeral[32];
	wgx_u8 chaining_key[32];
	wgx_u8 hash[32];
	wgx_u8 encrypted_timestamp[WGX_TAI64N_LEN + 16];
	wgx_u32 sender_index;
	bool valid;
};

/**
 * wgx_noise_consume_initiation_begin - phase 1 of consuming an initiation
 * (5.4.2): check the layout, run the ephemeral-static DH and decrypt the
 * initiator's static public key into @scratch->remote_static.  MAC1/MAC2 must
 * have been checked before (wgx_cookie_checker_validate()).  Needs only the
 * identity lock (read).  The glue then looks the peer up by
 * @scratch->remote_static and, holding that peer's handshake lock, calls phase 2.
 * Returns 0, -WGX_EINVAL, -WGX_ENOKEY, -WGX_EKEYREJECTED or -WGX_EBADMSG.
 */
int wgx_noise_consume_initiation_begin(const struct wgx_noise_identity *id, const wgx_u8 *msg,
				       wgx_size len, struct wgx_noise_initiation_scratch *scratch);

/**
 * wgx_noise_consume_initiation_finish - phase 2: mix the precomputed
 * static-static DH, decrypt the TAI64N timestamp, reject it unless strictly
 * newer than the last accepted one (-WGX_EALREADY) and reject initiations less
 * than 1/WGX_INITIATIONS_PER_SECOND s after the last accepted one
 * (-WGX_EBUSY).  On success the handshake is CONSUMED_INITIATION (replacing
 * any handshake in progress: drop its index first, as for create_initiation)
 * and the glue answers with wgx_noise_create_response().  @scratch->remote_static must be @hs's peer
 * (-WGX_EINVAL otherwise).  Wipes @scratch always.  Returns 0, -WGX_EINVAL,
 * -WGX_ENOKEY, -WGX_EBADMSG, -WGX_EALREADY or -WGX_EBUSY; on error @hs is unchanged.
 */
int wgx_noise_consume_initiation_finish(struct wgx_noise_handshake *hs,
					struct wgx_noise_initiation_scratch *scratch, wgx_u64 now_ns);

/** wgx_noise_initiation_scratch_wipe - wipe @scratch (it holds secrets). */
void wgx_noise_initiation_scratch_wipe(struct wgx_noise_initiation_scratch *scratch);

/**
 * wgx_noise_create_response - build a complete response (5.4.3) into @msg
 * (WGX_MSG_RESPONSE_LEN bytes) for the initiation just consumed, with
 * @local_index as sender index, mac1 and mac2 included.  Needs state
 * CONSUMED_INITIATION (-WGX_ESTALE otherwise); afterwards CREATED_RESPONSE and
 * the glue calls wgx_noise_begin_session().  Returns 0, -WGX_ESTALE,
 * -WGX_ENOKEY or -WGX_EKEYREJECTED; on error @msg is zeroed, @hs unchanged.
 */
int wgx_noise_create_response(struct wgx_noise_handshake *hs, wgx_u8 *msg, wgx_u32 local_index,
			      wgx_u64 now_ns);

/**
 * wgx_noise_consume_response - consume a response (5.4.3) addressed to @hs:
 * the glue found @hs by the message's receiver index (wgx_msg_receiver_index())
 * and checked MAC1/MAC2 first.  Needs state CREATED_INITIATION and a matching
 * receiver index (-WGX_ESTALE otherwise).  On success CONSUMED_RESPONSE; the
 * glue calls wgx_noise_begin_session().  Returns 0, -WGX_EINVAL, -WGX_ESTALE,
 * -WGX_ENOKEY, -WGX_EKEYREJECTED or -WGX_EBADMSG; on error @hs is unchanged.
 */
int wgx_noise_consume_response(struct wgx_noise_handshake *hs, const wgx_u8 *msg, wgx_size len,
			       wgx_u64 now_ns);

/**
 * wgx_noise_begin_session - derive the transport keys (5.4.5) from a handshake
 * in state CONSUMED_RESPONSE (initiator) or CREATED_RESPONSE (responder) into
 * @keys, with birth time @now_ns, then clear the handshake (ZEROED).  Returns 0
 * or -WGX_ESTALE (wrong state; @keys zeroed).
 */
int wgx_noise_begin_session(struct wgx_noise_handshake *hs, struct wgx_keypair_keys *keys,
			    wgx_u64 now_ns);

/* ---- cookies: MAC1, MAC2, cookie replies (whitepaper 5.3, 5.4.4, 5.4.7) ---- */

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

/* ---- transport data (whitepaper 5.4.6) ---- */

/**
 * wgx_transport_padded_len - plaintext length after padding @len bytes with
 * zeros to a multiple of WGX_MSG_PADDING_MULTIPLE, but never beyond @mtu
 * (0 = no limit); for @len > @mtu (GSO) the last @mtu-sized unit is padded.
 * A keepalive (@len 0) stays 0.  The message is this + 32 bytes.
 */
wgx_size wgx_transport_padded_len(wgx_size len, wgx_u32 mtu);

/**
 * wgx_transport_write_header - write the 16-byte transport header (type 4,
 * @receiver_index, @counter) for glue that encrypts scatter-gather itself.
 * Returns 0 or -WGX_EKEYREJECTED when @counter >= WGX_TRANSPORT_REJECT_AFTER_MESSAGES.
 */
int wgx_transport_write_header(wgx_u8 *hdr, wgx_u32 receiver_index, wgx_u64 counter);

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

/* ==== end messages/noise/cookie/transport ==== */

/* ==== replay window, allowed IPs, ratelimiter, timers (kmod/core/{replay,allowedips,ratelimiter,timers}) ==== */

/*
 * Address families for the allowed-IPs trie and the ratelimiter.  The values
 * equal Linux AF_INET / AF_INET6, so the glue can pass them through unchanged.
 * Addresses are always raw network-order bytes: 4 for IPv4, 16 for IPv6.
 */
enum {
	WGX_AF_INET = 2,
	WGX_AF_INET6 = 10,
};

/* ---- message counters and replay window (whitepaper 5.4.6, 6.1; RFC 6479) ---- */

/* A keypair that has sent this many messages should be renewed (whitepaper 6.1). */
#define WGX_REKEY_AFTER_MESSAGES (1ULL << 60)
/* Counters >= this are never used nor accepted: 2^64 - 2^13 - 1 (whitepaper 6.1). */
#define WGX_REJECT_AFTER_MESSAGES (~0ULL - (1ULL << 13))

enum {
	WGX_REPLAY_BITS_TOTAL = 8192,	/* bitmap size in bits */
	WGX_REPLAY_WORD_BITS = 64,
	WGX_REPLAY_WORDS = WGX_REPLAY_BITS_TOTAL / WGX_REPLAY_WORD_BITS,
	/* Usable window: a counter up to this far below the greatest accepted one is still accepted once. */
	WGX_REPLAY_WINDOW = WGX_REPLAY_BITS_TOTAL - WGX_REPLAY_WORD_BITS, /* 8128 */
};

/**
 * struct wgx_replay - RFC 6479 sliding-window replay state of one receiving key
 * (1032 bytes, fixed layout).  The glue embeds it in its keypair and serializes
 * wgx_replay_check() calls with a per-keypair spinlock; the core takes no lock.
 * @top: greatest accepted counter + 1; 0 while nothing has been accepted.
 * @bitmap: ring of WGX_REPLAY_WORDS words, bit (n % 8192) for position n = counter + 1.
 */
struct wgx_replay {
	wgx_u64 top;
	wgx_u64 bitmap[WGX_REPLAY_WORDS];
};

/** wgx_replay_init - empty window (no counter seen).  Any context. */
void wgx_replay_init(struct wgx_replay *r);

/**
 * wgx_replay_check - check @counter against the window and, if acceptable, record it.
 * Call only after the transport data message authenticated (whitepaper 5.4.6).
 * Returns true, and marks @counter seen, when @counter < WGX_REJECT_AFTER_MESSAGES,
 * it is not more than WGX_REPLAY_WINDOW below the greatest accepted counter, and it
 * was not accepted before; false otherwise (state unchanged).  O(1) amortized; a
 * jump ahead clears at most WGX_REPLAY_WORDS words.  Caller holds the keypair's lock.
 */
bool wgx_replay_check(struct wgx_replay *r, wgx_u64 counter);

/* ---- allowed IPs: longest-prefix match, IPv4 and IPv6 (whitepaper 2, "cryptokey routing") ---- */

/**
 * struct wgx_allowedips - opaque table mapping IP prefixes to an opaque peer
 * pointer, one binary path-compressed trie per family.
 *
 * Concurrency contract:
 *  - wgx_allowedips_lookup() is lock-free and may run on any number of CPUs at
 *    once inside rcu_read_lock() / rcu_read_lock_bh(), concurrently with ONE writer.
 *  - Every other function is a writer (or reads writer-only state) and must be
 *    serialized by the caller (the glue's per-device mutex).
 *  - Writers never modify a node a reader may be looking at in a way the reader
 *    could see half done: new nodes are fully initialized and then published
 *    with a release store of the pointer to them; readers load child and peer
 *    pointers with acquire loads.  A prefix moving to another peer is one
 *    atomic store of the peer pointer.  Unlinked nodes, and the table itself on
 *    destroy, are freed with wgx_platform_free_deferred() (after an RCU grace
 *    period in the kernel), so a reader that still holds one stays safe.
 *  - A peer pointer returned by lookup is only a value: keeping the peer object
 *    alive for the reader (RCU-freeing peers after wgx_allowedips_remove_by_peer())
 *    is the glue's job.
 */
struct wgx_allowedips;

/** Callback of wgx_allowedips_walk(): return 0 to go on, non-zero to stop before this entry. */
typedef int (*wgx_allowedips_walk_fn)(void *ctx, int family, const wgx_u8 *addr, wgx_u8 cidr);

/** wgx_allowedips_create - empty table, or NULL when out of memory.  Process context (may sleep). */
struct wgx_allowedips *wgx_allowedips_create(void);

/**
 * wgx_allowedips_destroy - drop every entry and the table.  Writer; the caller
 * must have unpublished @t so no new lookup starts; running lookups stay safe
 * (deferred free).  NULL is ignored.  Never sleeps.
 */
void wgx_allowedips_destroy(struct wgx_allowedips *t);

/**
 * wgx_allowedips_insert - route @family prefix @addr/@cidr to @peer.
 * @addr: 4 (WGX_AF_INET) or 16 (WGX_AF_INET6) bytes, network order; bits beyond
 *        @cidr are ignored (10.0.0.1/8 is stored as 10.0.0.0/8).
 * @cidr: 0..32 or 0..128.
 * @peer: non-NULL.  An existing identical prefix moves to @peer (the newest peer
 *        wins, as in WireGuard) and goes to the end of @peer's walk order.
 * @may_sleep: true in process context without spinlocks (allocation may sleep).
 * Returns 0, -WGX_EINVAL (bad family, cidr, NULL addr/peer) or -WGX_ENOMEM
 * (table unchanged).  Writer.
 */
int wgx_allowedips_insert(struct wgx_allowedips *t, int family, const wgx_u8 *addr, wgx_u8 cidr,
			  void *peer, bool may_sleep);

/**
 * wgx_allowedips_remove - delete prefix @addr/@cidr (masked as for insert) if it
 * is routed to @peer.  Returns 0, -WGX_ENOENT (absent or owned by another peer)
 * or -WGX_EINVAL.  Writer; never allocates.
 */
int wgx_allowedips_remove(struct wgx_allowedips *t, int family, const wgx_u8 *addr, wgx_u8 cidr,
			  const void *peer);

/** wgx_allowedips_remove_by_peer - delete every prefix of @peer; returns how many.  Writer. */
wgx_size wgx_allowedips_remove_by_peer(struct wgx_allowedips *t, const void *peer);

/**
 * wgx_allowedips_lookup - the peer of the longest prefix containing @addr
 * (4 or 16 bytes by @family), or NULL (no match, bad family, NULL @t).
 * Reader: lock-free, call under rcu_read_lock(); any context.
 */
void *wgx_allowedips_lookup(const struct wgx_allowedips *t, int family, const wgx_u8 *addr);

/** wgx_allowedips_count - number of prefixes of @peer, or of all peers when @peer is NULL.  O(1).  Writer side. */
wgx_size wgx_allowedips_count(const struct wgx_allowedips *t, const void *peer);

/**
 * wgx_allowedips_walk - call @fn for @peer's prefixes in a stable order
 * (insertion order; a prefix moved to @peer counts as inserted then), starting
 * at index @start (0-based).  @addr passed to @fn is masked, 4 or 16 bytes, and
 * only valid during the call.  Stops at the first entry for which @fn returns
 * non-zero.  Returns the index to resume from: the index of that entry, or
 * wgx_allowedips_count(@t, @peer) when the walk finished.  Resuming is exact as
 * long as wgx_allowedips_seq() did not change in between (netlink dumps split
 * across messages).  O(start + visited).  Writer side (caller's mutex held).
 */
wgx_size wgx_allowedips_walk(const struct wgx_allowedips *t, const void *peer, wgx_size start,
			     wgx_allowedips_walk_fn fn, void *ctx);

/** wgx_allowedips_seq - counter bumped by every change of the table.  Writer side. */
wgx_u64 wgx_allowedips_seq(const struct wgx_allowedips *t);

/* ---- handshake ratelimiter (in-tree wireguard ratelimiter behaviour) ---- */

enum {
	WGX_RATELIMIT_PACKETS_PER_SECOND = 20,	/* sustained rate per source */
	WGX_RATELIMIT_BURST = 5,		/* packets allowed back to back */
	WGX_RATELIMIT_IDLE_SEC = 1,		/* gc drops entries idle longer than this */
	WGX_RATELIMIT_MAX_CAPACITY = 1 << 20,
};

/**
 * struct wgx_ratelimiter - opaque token-bucket table keyed by source (IPv4 /32,
 * IPv6 /64) plus a caller cookie (e.g. a net namespace id; 0 if unused).
 * Not thread-safe: the glue holds one spinlock (spin_lock_bh) around every call.
 * All memory is allocated at create; the hot path never allocates.
 */
struct wgx_ratelimiter;

/**
 * wgx_ratelimiter_create - table for at most @capacity sources (1..WGX_RATELIMIT_MAX_CAPACITY);
 * one allocation of 40 * @capacity + 4 * (@capacity rounded up to a power of two)
 * bytes plus a small header.  When the table is full, packets
 * from new sources are refused until wgx_ratelimiter_gc() frees entries.
 * Returns NULL for a bad @capacity or when out of memory.  Process context (may sleep).
 */
struct wgx_ratelimiter *wgx_ratelimiter_create(wgx_size capacity);
/** wgx_ratelimiter_destroy - free the table.  NULL is ignored.  Any context. */
void wgx_ratelimiter_destroy(struct wgx_ratelimiter *rl);

/**
 * wgx_ratelimiter_allow - charge one handshake packet from @addr.
 * @addr: 4 or 16 bytes (by @family), the packet's source address; IPv6 sources
 *        are grouped by their first 64 bits.
 * @cookie: extra key chosen by the caller (namespace / device), 0 if unused.
 * @now_ns: monotonic time in ns.
 * Returns true when the packet may be processed: a source gets a burst of
 * WGX_RATELIMIT_BURST, then WGX_RATELIMIT_PACKETS_PER_SECOND (a token bucket
 * in ns).  Returns false when over the rate, when the table is full and
 * @addr's source is new, or for a bad family / NULL @addr.
 */
bool wgx_ratelimiter_allow(struct wgx_ratelimiter *rl, int family, const wgx_u8 *addr, wgx_u64 cookie,
			   wgx_u64 now_ns);

/** wgx_ratelimiter_gc - drop entries idle for more than WGX_RATELIMIT_IDLE_SEC at @now_ns; returns how many. */
wgx_size wgx_ratelimiter_gc(struct wgx_ratelimiter *rl, wgx_u64 now_ns);
/** wgx_ratelimiter_forget_cookie - drop every entry keyed with @cookie (namespace going away); returns how many. */
wgx_size wgx_ratelimiter_forget_cookie(struct wgx_ratelimiter *rl, wgx_u64 cookie);
/** wgx_ratelimiter_count - number of sources currently tracked. */
wgx_size wgx_ratelimiter_count(const struct wgx_ratelimiter *rl);

/* ---- timer state machine (whitepaper 6.1-6.5, in-tree wireguard timers.c) ---- */

/* Protocol times in seconds (whitepaper 6.1). */
enum {
	WGX_REKEY_AFTER_TIME_S = 120,
	WGX_REJECT_AFTER_TIME_S = 180,
	WGX_REKEY_ATTEMPT_TIME_S = 90,
	WGX_REKEY_TIMEOUT_S = 5,
	WGX_KEEPALIVE_TIMEOUT_S = 10,
	WGX_MAX_TIMER_HANDSHAKES = WGX_REKEY_ATTEMPT_TIME_S / WGX_REKEY_TIMEOUT_S, /* 18 */
};

/** The five per-peer timers; bit (1u << id) of a "changed" mask refers to timer id. */
enum wgx_timer_id {
	WGX_TIMER_RETRANSMIT_HANDSHAKE = 0,
	WGX_TIMER_SEND_KEEPALIVE = 1,
	WGX_TIMER_NEW_HANDSHAKE = 2,
	WGX_TIMER_ZERO_KEY_MATERIAL = 3,
	WGX_TIMER_PERSISTENT_KEEPALIVE = 4,
	WGX_TIMER_COUNT = 5,
};

/** Actions wgx_timers_core_expire() asks the glue to perform (a bit mask). */
enum wgx_timer_action {
	/* Retransmit: clear the cached source address and send an initiation as a retry. */
	WGX_TIMER_ACT_RETRY_INITIATION = 1u << 0,
	/* Gave up after WGX_MAX_TIMER_HANDSHAKES + 2 initiations: drop staged packets. */
	WGX_TIMER_ACT_GIVE_UP = 1u << 1,
	/* Send a keepalive (empty transport data message). */
	WGX_TIMER_ACT_SEND_KEEPALIVE = 1u << 2,
	/* No reply to data: clear the cached source address, send a fresh (non-retry) initiation. */
	WGX_TIMER_ACT_NEW_HANDSHAKE = 1u << 3,
	/* Zero all keypairs and the handshake state of the peer. */
	WGX_TIMER_ACT_ZERO_KEYS = 1u << 4,
};

/**
 * struct wgx_timer_params - protocol durations in ns.  wgx_timer_params_init()
 * fills the real values; a divisor > 1 shrinks every duration (a test hook:
 * the module may expose it as a parameter for rekey tests).  Immutable once
 * copied into a struct wgx_timers.
 */
struct wgx_timer_params {
	wgx_u64 rekey_after_time_ns;		/* 120 s */
	wgx_u64 reject_after_time_ns;		/* 180 s */
	wgx_u64 rekey_attempt_time_ns;		/* 90 s */
	wgx_u64 rekey_timeout_ns;		/* 5 s */
	wgx_u64 rekey_timeout_jitter_max_ns;	/* 1/3 s; jitter is in [0, this) */
	wgx_u64 keepalive_timeout_ns;		/* 10 s */
	wgx_u64 second_ns;			/* unit of the persistent keepalive interval */
	wgx_u64 rekey_after_messages;		/* WGX_REKEY_AFTER_MESSAGES (not scaled) */
	wgx_u32 max_timer_handshakes;		/* rekey_attempt_time / rekey_timeout = 18 */
	wgx_u32 reserved;
};

/**
 * struct wgx_timers - timer state of one peer.  Each deadline is a monotonic
 * time in ns, 0 = not armed.  After every call that returns a "changed" mask,
 * the glue mirrors each changed timer onto its kernel timer: mod_timer() to the
 * new deadline (rounding up to whole jiffies) or del_timer() when it is 0.
 * Calls are serialized by a per-peer lock held by the glue, except the
 * read-only helpers and wgx_timers_core_want_rekey_on_receive(), which are lock-free.
 */
struct wgx_timers {
	struct wgx_timer_params params;
	wgx_u64 deadline[WGX_TIMER_COUNT];
	wgx_u64 last_initiation_ns;	/* when wgx_timers_core_initiation_begin() last allowed one */
	wgx_u64 last_handshake_ns;	/* monotonic time of the last completed handshake, 0 = never */
	wgx_u32 handshake_attempts;	/* retries since the last non-retry initiation */
	wgx_u16 persistent_keepalive_s;	/* 0 = off, else 1..65535 s */
	wgx_u8 need_another_keepalive;
	wgx_u8 sent_lastminute_handshake; /* accessed atomically */
	wgx_u8 initiation_sent;		/* last_initiation_ns is valid */
	wgx_u8 reserved[7];
};

/** wgx_timer_params_init - real protocol values with every duration divided by @divisor (0 or 1 = real). */
void wgx_timer_params_init(struct wgx_timer_params *p, wgx_u32 divisor);
/** wgx_timers_core_init - nothing armed; @params NULL means the real values.  Persistent keepalive off. */
void wgx_timers_core_init(struct wgx_timers *t, const struct wgx_timer_params *params);

/*
 * Events (whitepaper 6.2-6.5).  Each returns the mask of timers whose deadline
 * changed.  @jitter_ns is a random value from the caller (e.g. get_random_u32());
 * it is reduced modulo params.rekey_timeout_jitter_max_ns.
 */
/** A transport data packet (not a keepalive) was sent: arm new_handshake at KEEPALIVE + REKEY_TIMEOUT + jitter unless armed. */
wgx_u32 wgx_timers_core_data_sent(struct wgx_timers *t, wgx_u64 now_ns, wgx_u64 jitter_ns);
/** A transport data packet (not a keepalive) was received: arm send_keepalive at KEEPALIVE_TIMEOUT, or note that another one is needed. */
wgx_u32 wgx_timers_core_data_received(struct wgx_timers *t, wgx_u64 now_ns);
/** Any authenticated packet (handshake or data, keepalive included) was sent: disarm send_keepalive. */
wgx_u32 wgx_timers_core_any_authenticated_packet_sent(struct wgx_timers *t);
/** Any authenticated packet was received: disarm new_handshake. */
wgx_u32 wgx_timers_core_any_authenticated_packet_received(struct wgx_timers *t);
/** Any authenticated packet was sent or received: re-arm persistent_keepalive if enabled. */
wgx_u32 wgx_timers_core_any_authenticated_packet_traversal(struct wgx_timers *t, wgx_u64 now_ns);
/** A handshake initiation was sent: arm retransmit_handshake at REKEY_TIMEOUT + jitter. */
wgx_u32 wgx_timers_core_handshake_initiated(struct wgx_timers *t, wgx_u64 now_ns, wgx_u64 jitter_ns);
/** A handshake completed (response consumed, or first data on a responder keypair): disarm retransmit, reset attempts. */
wgx_u32 wgx_timers_core_handshake_complete(struct wgx_timers *t, wgx_u64 now_ns);
/** A keypair was derived: arm zero_key_material at 3 x REJECT_AFTER_TIME. */
wgx_u32 wgx_timers_core_session_derived(struct wgx_timers *t, wgx_u64 now_ns);
/**
 * Set the persistent keepalive interval (0 = off).  Turning it off disarms the
 * timer; the glue then sends one keepalive when it was turned on or changed
 * while the device is up (in-tree behaviour), which re-arms it via traversal.
 */
wgx_u32 wgx_timers_core_set_persistent_keepalive(struct wgx_timers *t, wgx_u16 interval_s);
/** Disarm everything (device down, peer removal); attempts and flags reset. */
wgx_u32 wgx_timers_core_stop(struct wgx_timers *t);

/**
 * wgx_timers_core_expire - the kernel timer @id fired at @now_ns.  Returns the
 * actions to perform (enum wgx_timer_action mask, perform them after dropping
 * the timer lock) and stores in *@changed the timers whose deadline changed.
 * A timer that is not armed (stale callback) yields no action; one fired
 * before its deadline yields no action and is reported changed, to be re-armed.
 * retransmit_handshake: attempts <= max -> attempts++, RETRY_INITIATION; else
 *   GIVE_UP, disarm send_keepalive, arm zero_key_material (3 x REJECT) unless armed.
 * send_keepalive: SEND_KEEPALIVE; re-armed if data arrived meanwhile.
 * new_handshake: NEW_HANDSHAKE.  zero_key_material: ZERO_KEYS.
 * persistent_keepalive: SEND_KEEPALIVE if the interval is non-zero.
 */
wgx_u32 wgx_timers_core_expire(struct wgx_timers *t, enum wgx_timer_id id, wgx_u64 now_ns, wgx_u32 *changed);

/**
 * wgx_timers_core_initiation_begin - may a handshake initiation be sent now?  A
 * non-retry request resets the attempt counter.  Returns false when one was
 * sent less than REKEY_TIMEOUT ago (whitepaper 6.3); true records @now_ns.
 */
bool wgx_timers_core_initiation_begin(struct wgx_timers *t, bool is_retry, wgx_u64 now_ns);

/*
 * Send/receive path helpers (lock-free: they read only immutable params and
 * their arguments).  @birth_ns: when the keypair was derived; @counter: messages
 * already sent with it (next nonce) or the greatest received counter + 1.
 */
/** Rekey on send: counter >= REKEY_AFTER_MESSAGES, or initiator and age >= REKEY_AFTER_TIME (whitepaper 6.2). */
bool wgx_timers_core_want_rekey_on_send(const struct wgx_timers *t, wgx_u64 birth_ns, wgx_u64 counter,
				   bool i_am_initiator, wgx_u64 now_ns);
/**
 * Rekey on receive: initiator and age >= REJECT_AFTER_TIME - KEEPALIVE_TIMEOUT -
 * REKEY_TIMEOUT (whitepaper 6.2).  True at most once until the next
 * wgx_timers_core_handshake_complete() (atomic flag; lock-free).
 */
bool wgx_timers_core_want_rekey_on_receive(struct wgx_timers *t, wgx_u64 birth_ns, bool i_am_initiator,
				      wgx_u64 now_ns);
/** Keypair usable: age < REJECT_AFTER_TIME and @counter < WGX_REJECT_AFTER_MESSAGES (whitepaper 6.1). */
bool wgx_timers_core_keypair_usable(const struct wgx_timers *t, wgx_u64 birth_ns, wgx_u64 counter, wgx_u64 now_ns);

/* ==== end replay/allowedips/ratelimiter/timers ==== */

WGX_EXTERN_C_END

#endif /* WGX_CORE_H */
