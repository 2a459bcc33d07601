/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/platform.h - what the freestanding C++ core needs from its host.
 *
 * Two backends implement this interface:
 *   kernel: kmod/platform.c over lib/crypto (chacha20poly1305, xchacha20poly1305,
 *           curve25519, blake2s), get_random_bytes, kzalloc/kfree, call_rcu;
 *   host:   host/platform.cpp over libsodium (AEADs, X25519) and OpenSSL
 *           (BLAKE2s, keyed BLAKE2s), for GoogleTest, the fuzzers and the host
 *           tools (bench/nl.cpp, the adversary).
 *
 * Every function here may be called in any context the core is called in
 * (process or softirq, with spinlocks held) and never sleeps, with the single
 * exception of wgx_platform_zalloc(), whose @may_sleep argument says whether
 * the caller can sleep.  Buffers may not overlap unless stated.
 */
#ifndef WGX_PLATFORM_H
#define WGX_PLATFORM_H

#include "types.h"

WGX_EXTERN_C_BEGIN

/* Sizes in bytes. */
enum {
	WGX_KEY_LEN = 32,		/* ChaCha20 key, X25519 key, BLAKE2s-256 */
	WGX_AEAD_TAG_LEN = 16,		/* Poly1305 tag */
	WGX_XNONCE_LEN = 24,		/* XChaCha20 nonce */
	WGX_BLAKE2S_HASH_LEN = 32,	/* unkeyed BLAKE2s output used by Noise */
	WGX_BLAKE2S_MAC_LEN = 16,	/* keyed BLAKE2s output used by MAC1/MAC2 */
};

/** One piece of a hashed message; pieces are hashed in order, as if concatenated. */
struct wgx_iov {
	const void *base;
	wgx_size len;
};

/**
 * wgx_platform_chacha20poly1305_encrypt - RFC 8439 AEAD with WireGuard's nonce.
 * @dst: @src_len + WGX_AEAD_TAG_LEN bytes; may equal @src (in place).
 * @nonce: 64-bit counter; the 96-bit nonce is 32 zero bits || little-endian @nonce
 *         (whitepaper section 5.4.6).
 */
void wgx_platform_chacha20poly1305_encrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					   const wgx_u8 *ad, wgx_size ad_len, wgx_u64 nonce,
					   const wgx_u8 key[WGX_KEY_LEN]);

/**
 * wgx_platform_chacha20poly1305_decrypt - inverse of the above.
 * @src_len includes the 16-byte tag (>= WGX_AEAD_TAG_LEN); @dst gets
 * @src_len - 16 bytes and may equal @src.  Returns false, and leaves @dst
 * unspecified, when authentication fails.
 */
bool wgx_platform_chacha20poly1305_decrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					   const wgx_u8 *ad, wgx_size ad_len, wgx_u64 nonce,
					   const wgx_u8 key[WGX_KEY_LEN]);

/** XChaCha20-Poly1305 with a 24-byte nonce (cookie replies, whitepaper 5.4.7). Same buffer rules. */
void wgx_platform_xchacha20poly1305_encrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					    const wgx_u8 *ad, wgx_size ad_len,
					    const wgx_u8 nonce[WGX_XNONCE_LEN],
					    const wgx_u8 key[WGX_KEY_LEN]);
bool wgx_platform_xchacha20poly1305_decrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					    const wgx_u8 *ad, wgx_size ad_len,
					    const wgx_u8 nonce[WGX_XNONCE_LEN],
					    const wgx_u8 key[WGX_KEY_LEN]);

/**
 * wgx_platform_curve25519 - X25519 (RFC 7748): @out = @secret * @basepoint.
 * Returns false when the result is all zero (low-order point); @out is then zeroed.
 */
bool wgx_platform_curve25519(wgx_u8 out[WGX_KEY_LEN], const wgx_u8 secret[WGX_KEY_LEN],
			     const wgx_u8 basepoint[WGX_KEY_LEN]);
/** X25519 public key of @secret (clamped internally).  Returns false for an all-zero result. */
bool wgx_platform_curve25519_generate_public(wgx_u8 pub[WGX_KEY_LEN],
					     const wgx_u8 secret[WGX_KEY_LEN]);
/** A fresh clamped X25519 private key from the platform CSPRNG. */
void wgx_platform_curve25519_generate_secret(wgx_u8 secret[WGX_KEY_LEN]);
/**
 * wgx_platform_blake2s - BLAKE2s (RFC 7693) over the concatenation of @iov[0..@n).
 * @out_len: 1..32 bytes.  @key may be NULL (unkeyed, @key_len 0) or 1..32 bytes.
 */
void wgx_platform_blake2s(wgx_u8 *out, wgx_size out_len, const wgx_u8 *key, wgx_size key_len,
			  const struct wgx_iov *iov, wgx_size n);

/** Fill @buf with @len bytes from the CSPRNG. */
void wgx_platform_get_random_bytes(void *buf, wgx_size len);
/** Zero @len bytes at @p in a way the compiler may not elide (secret wiping). */
void wgx_platform_memzero_explicit(void *p, wgx_size len);
/** Constant-time comparison: returns 0 iff the @len bytes at @a and @b are equal. */
int wgx_platform_memneq(const void *a, const void *b, wgx_size len);

/**
 * wgx_platform_zalloc - zeroed memory of @size bytes, or NULL.
 * @may_sleep: true only in process context without spinlocks (GFP_KERNEL),
 *             else the allocation is atomic (GFP_ATOMIC).
 */
void *wgx_platform_zalloc(wgx_size size, bool may_sleep);
/** Free memory from wgx_platform_zalloc() now.  NULL is ignored. */
void wgx_platform_free(void *p);

/**
 * struct wgx_rcu_head - space the core embeds in objects that lock-free readers
 * may still see.  Opaque; the kernel backend overlays a struct rcu_head.
 */
struct wgx_rcu_head {
	void *opaque[3];
};

/**
 * wgx_platform_free_deferred - free @p after every reader that may hold it is gone
 * (after an RCU grace period in the kernel; at once on the host).  @head must lie
 * inside the object at @p.  Callable in any context.
 */
void wgx_platform_free_deferred(void *p, struct wgx_rcu_head *head);

/**
 * WGX_PLATFORM_NODE_SIZE - bytes of one allowed-IPs trie node, the core's most
 * numerous object (one or two per allowed IP): the kernel backend keeps them
 * in a slab cache of exactly this size, where a kmalloc would round 72 up to 96.
 */
enum { WGX_PLATFORM_NODE_SIZE = 72 };

/**
 * wgx_platform_init - set the backend up (the kernel's node cache): 0 or
 * -ENOMEM.  Process context, before the first node is allocated.
 * wgx_platform_exit - undo it, after every deferred free has run (the caller's
 * rcu_barrier()).
 */
int wgx_platform_init(void);
void wgx_platform_exit(void);

/**
 * wgx_platform_node_zalloc - a zeroed WGX_PLATFORM_NODE_SIZE-byte object, or
 * NULL.  @may_sleep as for wgx_platform_zalloc().  Between
 * wgx_platform_init() and wgx_platform_exit() only.
 */
void *wgx_platform_node_zalloc(bool may_sleep);
/** Free a node from wgx_platform_node_zalloc() now.  NULL is ignored. */
void wgx_platform_node_free(void *p);
/** wgx_platform_node_free_deferred - wgx_platform_free_deferred() for a node. */
void wgx_platform_node_free_deferred(void *p, struct wgx_rcu_head *head);

WGX_EXTERN_C_END

#endif /* WGX_PLATFORM_H */
