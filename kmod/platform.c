// SPDX-License-Identifier: GPL-2.0
/*
 * platform.c - the kernel backend of include/wgx/platform.h: what the C++
 * protocol core needs, over lib/crypto and the core kernel API.
 *
 *   AEAD     chacha20poly1305_{en,de}crypt(), xchacha20poly1305_{en,de}crypt()
 *            (RFC 8439; WireGuard's 96-bit nonce is 32 zero bits || le64
 *            counter, which is how lib/crypto forms it from a u64)
 *   X25519   curve25519(), curve25519_generate_public(); secrets from
 *            get_random_bytes() + curve25519_clamp_secret() (the library's
 *            curve25519_generate_secret() may wait for the CRNG, i.e. sleep)
 *   BLAKE2s  blake2s_init{,_key}(), blake2s_update(), blake2s_final()
 *   memory   kvzalloc()/kzalloc()/kvfree(), a slab cache of 72-byte trie nodes,
 *            call_rcu() for deferred frees
 *
 * Nothing here sleeps except wgx_platform_zalloc() with @may_sleep.  Objects
 * freed with wgx_platform_free_deferred() are released from RCU callbacks:
 * module exit must call rcu_barrier() after the last such free.
 */
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <crypto/algapi.h>
#include <crypto/blake2s.h>
#include <crypto/chacha20poly1305.h>
#include <crypto/curve25519.h>

#include <wgx/platform.h>

static_assert((int)WGX_KEY_LEN == (int)CHACHA20POLY1305_KEY_SIZE);
static_assert((int)WGX_KEY_LEN == (int)CURVE25519_KEY_SIZE);
static_assert((int)WGX_AEAD_TAG_LEN == (int)CHACHA20POLY1305_AUTHTAG_SIZE);
static_assert((int)WGX_XNONCE_LEN == (int)XCHACHA20POLY1305_NONCE_SIZE);
static_assert((int)WGX_BLAKE2S_HASH_LEN == (int)BLAKE2S_HASH_SIZE);
static_assert((int)WGX_BLAKE2S_MAC_LEN == (int)BLAKE2S_128_HASH_SIZE);

void wgx_platform_chacha20poly1305_encrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					   const wgx_u8 *ad, wgx_size ad_len, wgx_u64 nonce,
					   const wgx_u8 key[WGX_KEY_LEN])
{
	chacha20poly1305_encrypt(dst, src, src_len, ad, ad_len, nonce, key);
}

bool wgx_platform_chacha20poly1305_decrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					   const wgx_u8 *ad, wgx_size ad_len, wgx_u64 nonce,
					   const wgx_u8 key[WGX_KEY_LEN])
{
	if (src_len < WGX_AEAD_TAG_LEN)
		return false;
	return chacha20poly1305_decrypt(dst, src, src_len, ad, ad_len, nonce, key);
}

void wgx_platform_xchacha20poly1305_encrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					    const wgx_u8 *ad, wgx_size ad_len,
					    const wgx_u8 nonce[WGX_XNONCE_LEN],
					    const wgx_u8 key[WGX_KEY_LEN])
{
	xchacha20poly1305_encrypt(dst, src, src_len, ad, ad_len, nonce, key);
}

bool wgx_platform_xchacha20poly1305_decrypt(wgx_u8 *dst, const wgx_u8 *src, wgx_size src_len,
					    const wgx_u8 *ad, wgx_size ad_len,
					    const wgx_u8 nonce[WGX_XNONCE_LEN],
					    const wgx_u8 key[WGX_KEY_LEN])
{
	if (src_len < WGX_AEAD_TAG_LEN)
		return false;
	return xchacha20poly1305_decrypt(dst, src, src_len, ad, ad_len, nonce, key);
}

bool wgx_platform_curve25519(wgx_u8 out[WGX_KEY_LEN], const wgx_u8 secret[WGX_KEY_LEN],
			     const wgx_u8 basepoint[WGX_KEY_LEN])
{
	/* false means the result is all zero, so @out is already zeroed. */
	return curve25519(out, secret, basepoint);
}

bool wgx_platform_curve25519_generate_public(wgx_u8 pub[WGX_KEY_LEN],
					     const wgx_u8 secret[WGX_KEY_LEN])
{
	if (curve25519_generate_public(pub, secret))
		return true;
	/* An all-zero secret leaves @pub untouched: zero it as documented. */
	memzero_explicit(pub, WGX_KEY_LEN);
	return false;
}

void wgx_platform_curve25519_generate_secret(wgx_u8 secret[WGX_KEY_LEN])
{
	get_random_bytes(secret, WGX_KEY_LEN);
	curve25519_clamp_secret(secret);
}

void wgx_platform_blake2s(wgx_u8 *out, wgx_size out_len, const wgx_u8 *key, wgx_size key_len,
			  const struct wgx_iov *iov, wgx_size n)
{
	struct blake2s_state state;
	wgx_size i;

	if (WARN_ON_ONCE(!out || !out_len || out_len > BLAKE2S_HASH_SIZE ||
			 key_len > BLAKE2S_KEY_SIZE || (!key && key_len) || (!iov && n))) {
		if (out && out_len <= BLAKE2S_HASH_SIZE)
			memset(out, 0, out_len);
		return;
	}
	if (key_len)
		blake2s_init_key(&state, out_len, key, key_len);
	else
		blake2s_init(&state, out_len);
	for (i = 0; i < n; i++)
		blake2s_update(&state, iov[i].base, iov[i].len);
	/* blake2s_final() wipes the state. */
	blake2s_final(&state, out);
}

void wgx_platform_get_random_bytes(void *buf, wgx_size len)
{
	get_random_bytes(buf, len);
}

void wgx_platform_memzero_explicit(void *p, wgx_size len)
{
	memzero_explicit(p, len);
}

int wgx_platform_memneq(const void *a, const void *b, wgx_size len)
{
	return crypto_memneq(a, b, len);
}

void *wgx_platform_zalloc(wgx_size size, bool may_sleep)
{
	/*
	 * Large tables (ratelimiter) may come from vmalloc when sleeping is
	 * allowed; those allocations are made for whoever configures (device
	 * creation, netlink) and charged to its memory cgroup.
	 */
	return may_sleep ? kvzalloc(size, GFP_KERNEL_ACCOUNT) : kzalloc(size, GFP_ATOMIC);
}

void wgx_platform_free(void *p)
{
	kvfree(p);
}

/*
 * struct wgx_rcu_head is three pointers: a struct rcu_head (two pointers)
 * overlays the first two, the third remembers the object to free, since the
 * head may sit anywhere inside it.
 */
struct wgx_platform_rcu {
	struct rcu_head rcu;
	void *object;
};

static void wgx_platform_rcu_free(struct rcu_head *rcu)
{
	struct wgx_platform_rcu *r = container_of(rcu, struct wgx_platform_rcu, rcu);

	kvfree(r->object);
}

void wgx_platform_free_deferred(void *p, struct wgx_rcu_head *head)
{
	struct wgx_platform_rcu *r = (struct wgx_platform_rcu *)head;

	BUILD_BUG_ON(sizeof(struct rcu_head) != 2 * sizeof(void *));
	BUILD_BUG_ON(sizeof(struct wgx_platform_rcu) != sizeof(struct wgx_rcu_head));
	BUILD_BUG_ON(__alignof__(struct wgx_platform_rcu) > __alignof__(struct wgx_rcu_head));

	if (!p)
		return;
	r->object = p;
	call_rcu(&r->rcu, wgx_platform_rcu_free);
}

static struct kmem_cache *wgx_platform_node_cache;

int wgx_platform_init(void)
{
	wgx_platform_node_cache = kmem_cache_create("wgx_allowedips_node", WGX_PLATFORM_NODE_SIZE,
						    0, SLAB_ACCOUNT, NULL);
	return wgx_platform_node_cache ? 0 : -ENOMEM;
}

void wgx_platform_exit(void)
{
	kmem_cache_destroy(wgx_platform_node_cache);
	wgx_platform_node_cache = NULL;
}

void *wgx_platform_node_zalloc(bool may_sleep)
{
	return kmem_cache_zalloc(wgx_platform_node_cache, may_sleep ? GFP_KERNEL : GFP_ATOMIC);
}

void wgx_platform_node_free(void *p)
{
	if (p)
		kmem_cache_free(wgx_platform_node_cache, p);
}

static void wgx_platform_node_rcu_free(struct rcu_head *rcu)
{
	struct wgx_platform_rcu *r = container_of(rcu, struct wgx_platform_rcu, rcu);

	kmem_cache_free(wgx_platform_node_cache, r->object);
}

void wgx_platform_node_free_deferred(void *p, struct wgx_rcu_head *head)
{
	struct wgx_platform_rcu *r = (struct wgx_platform_rcu *)head;

	if (!p)
		return;
	r->object = p;
	call_rcu(&r->rcu, wgx_platform_node_rcu_free);
}
