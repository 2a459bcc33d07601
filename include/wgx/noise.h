/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/noise.h - the Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s handshake of
 * WireGuard (whitepaper 5.4): the device identity, per-peer handshake state,
 * creating and consuming initiations and responses, and the transport keys
 * of a completed handshake (kmod/core/noise.cpp).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_NOISE_H
#define WGX_CORE_NOISE_H

#include "types.h"
#include "messages.h"

WGX_EXTERN_C_BEGIN

/* Per-peer flood limit of accepted initiations (whitepaper 5.1). */
enum {
	WGX_INITIATIONS_PER_SECOND = 50,	/* per-peer accepted initiation rate (flood limit) */
};

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
 * none, i.e. all zero).  Derives the peer's mac1 and cookie keys; the
 * static-static DH is computed by the first handshake message that needs it
 * (an initiation made or consumed; one X25519), not here, so a peer that
 * never handshakes never costs one.  Returns NULL when out of memory or on
 * NULL arguments.  A low-order @remote_static is accepted here but every
 * handshake with it fails with -WGX_ENOKEY (as in the in-tree driver).
 */
struct wgx_noise_handshake *wgx_noise_handshake_create(const struct wgx_noise_identity *id,
						       const wgx_u8 *remote_static,
						       const wgx_u8 *preshared_key, bool may_sleep);
/** wgx_noise_handshake_destroy - wipe and free.  NULL is ignored. */
void wgx_noise_handshake_destroy(struct wgx_noise_handshake *hs);

/**
 * wgx_noise_handshake_size - bytes of a handshake state, for a caller that
 * embeds it in an object of its own (wgx_noise_handshake_init()).
 */
wgx_size wgx_noise_handshake_size(void);

/**
 * wgx_noise_handshake_init - wgx_noise_handshake_create() in the caller's
 * memory @mem: wgx_noise_handshake_size() bytes, 8-byte aligned, owned by
 * the caller (no allocation here).  Returns the handle at @mem, or NULL on
 * NULL arguments.  Undo with wgx_noise_handshake_wipe(), never _destroy().
 */
struct wgx_noise_handshake *wgx_noise_handshake_init(void *mem, const struct wgx_noise_identity *id,
						     const wgx_u8 *remote_static,
						     const wgx_u8 *preshared_key);

/** wgx_noise_handshake_wipe - wipe an embedded handle's secrets (it stays the caller's memory). */
void wgx_noise_handshake_wipe(struct wgx_noise_handshake *hs);

/**
 * wgx_noise_handshake_precompute - compute the static-static DH now (after
 * the identity's private key changed, or ahead of a handshake).  Returns true
 * when the DH is usable (the identity has a key and the result is not all
 * zero).
 */
bool wgx_noise_handshake_precompute(struct wgx_noise_handshake *hs);

/**
 * wgx_noise_handshake_set_remote_static - re-key the handshake in place to the
 * peer's new static public key @remote_static (32 bytes): forget the handshake
 * in progress (the glue drops its index first), the last accepted TAI64N
 * timestamp and flood-limit time (they belonged to the old key) and the
 * cookie the peer sent, derive the mac1/cookie keys from the new key and
 * recompute the static-static DH.  The preshared key stays.  Returns true
 * when the DH is usable, as wgx_noise_handshake_precompute() does; false also
 * for NULL arguments (nothing changed then).
 */
bool wgx_noise_handshake_set_remote_static(struct wgx_noise_handshake *hs, const wgx_u8 *remote_static);

/**
 * wgx_noise_handshake_create_twin - a handle for @id for the same peer as @src:
 * its remote static key, preshared key and replay state (as
 * wgx_noise_handshake_copy_replay_state()), no handshake in progress.  When
 * @id holds the private key @src's identity holds, @src's static-static DH
 * is copied instead of computed again (or left to the first use, as @src's) (a key change's grace period gives
 * each peer such a handle for the key being replaced, with the identity
 * lock held for writing: no DH there).  Returns NULL when out of memory or
 * on NULL arguments.  Locking: @src's peer's handshake lock, @id and @src's
 * identity not changing.
 */
struct wgx_noise_handshake *wgx_noise_handshake_create_twin(const struct wgx_noise_identity *id,
							     const struct wgx_noise_handshake *src,
							     bool may_sleep);

/**
 * wgx_noise_handshake_copy_replay_state - give @dst the replay and flood
 * protection state of @src (the last accepted TAI64N timestamp and the time of
 * the last accepted initiation, whitepaper 5.1), nothing else.  Used when a
 * peer gets a second handshake handle for the device's previous identity
 * (key rotation with a grace period, docs/rotation.md): an initiation the
 * peer made before the rotation must not be accepted again by the new
 * handle.  Both handles must be for the same peer.  NULL arguments are
 * ignored.  Locking: the peer's handshake lock.
 */
void wgx_noise_handshake_copy_replay_state(struct wgx_noise_handshake *dst,
					   const struct wgx_noise_handshake *src);

/** wgx_noise_handshake_set_preshared_key - 32 bytes, or NULL for none (all zero). */
void wgx_noise_handshake_set_preshared_key(struct wgx_noise_handshake *hs, const wgx_u8 *preshared_key);
/** Copy the preshared key (32 bytes, all zero when none). */
void wgx_noise_handshake_get_preshared_key(const struct wgx_noise_handshake *hs, wgx_u8 *out);
/**
 * wgx_noise_handshake_get_remote_static - copy the peer's static public key
 * (32 bytes) into @out: the key its handshakes are made with now.  Needs
 * the peer's handshake lock only, not the identity lock: it reads nothing of
 * the identity.
 */
void wgx_noise_handshake_get_remote_static(const struct wgx_noise_handshake *hs, wgx_u8 *out);

/**
 * wgx_noise_handshake_state - the handshake's state now (ZEROED for NULL),
 * e.g. CREATED_INITIATION while our initiation awaits its response.  Needs
 * the peer's handshake lock.
 */
enum wgx_handshake_state wgx_noise_handshake_state(const struct wgx_noise_handshake *hs);

/**
 * wgx_noise_handshake_clear - forget the handshake in progress: wipe the
 * ephemeral key, chaining key and hash and go to WGX_HANDSHAKE_ZEROED.  The
 * static keys, last accepted timestamp, flood-limit time and cookie stay.
 */
void wgx_noise_handshake_clear(struct wgx_noise_handshake *hs);

/**
 * struct wgx_noise_prepared - an ephemeral X25519 key pair made ahead of time,
 * and, when it was made for one peer, its Diffie-Hellman result against that
 * peer's static public key.  DH(e, S_peer) is the "es" of an initiation we
 * send (5.4.2) and the "se" of a response we send (5.4.3), so either message
 * can use it, once: the X25519 operations left at the message are none
 * (initiation) or one (response: "ee").  A pair alone (@has_dh false, made
 * for no peer) spares the message its fixed-base multiplication only.  Holds
 * secrets; the create calls wipe it, used or not.
 * @ephemeral_private: clamped (RFC 7748 section 5); @ephemeral_public: its
 * public key; @remote_static: the peer key @dh was made with; @dh: 32 bytes,
 * never all zero; @valid: the pair is usable; @has_dh: @remote_static and
 * @dh are too.  wgx_noise_prepare() sets both flags; a glue that fills in a
 * pair alone sets @valid and leaves the rest zero.
 */
struct wgx_noise_prepared {
	wgx_u8 ephemeral_private[32];
	wgx_u8 ephemeral_public[32];
	wgx_u8 remote_static[32];
	wgx_u8 dh[32];
	bool valid;
	bool has_dh;
};

/**
 * wgx_noise_prepare - make a fresh ephemeral pair and DH(e, @remote_static)
 * (two X25519 operations: one fixed-base, one variable-base) into @prep.
 * Touches no handshake state and takes no lock: the glue calls it outside
 * the peer's handshake lock, on a low-priority thread.  Returns false (with
 * @prep wiped) when @remote_static is NULL or of low order (all-zero DH).
 * Process context (the kernel's X25519 may use the FPU).
 */
bool wgx_noise_prepare(struct wgx_noise_prepared *prep, const wgx_u8 *remote_static);

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
 * wgx_noise_create_initiation_prepared - wgx_noise_create_initiation() with
 * the ephemeral and "es" of @prep when @prep (may be NULL) is valid and was
 * made for @hs's current peer key, with its ephemeral alone when it is a pair
 * without a DH; otherwise the ephemeral and its DH are made here.  Same
 * bytes on the wire either way.  @prep is wiped on return.
 */
int wgx_noise_create_initiation_prepared(struct wgx_noise_handshake *hs, wgx_u8 *msg,
					 wgx_u32 local_index, wgx_u64 now_ns, wgx_u64 wall_sec,
					 wgx_u32 wall_nsec, struct wgx_noise_prepared *prep);

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
 * wgx_noise_create_response_prepared - wgx_noise_create_response() with the
 * ephemeral and "se" of @prep when @prep (may be NULL) is valid and was made
 * for @hs's current peer key, with its ephemeral alone when it is a pair
 * without a DH; "ee" is computed here either way.  @prep is
 * wiped on return.
 */
int wgx_noise_create_response_prepared(struct wgx_noise_handshake *hs, wgx_u8 *msg,
				       wgx_u32 local_index, wgx_u64 now_ns,
				       struct wgx_noise_prepared *prep);

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

WGX_EXTERN_C_END

#endif /* WGX_CORE_NOISE_H */
