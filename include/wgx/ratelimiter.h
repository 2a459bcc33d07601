/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/ratelimiter.h - the token buckets that limit handshake messages under
 * load (kmod/core/ratelimiter.cpp).  The glue charges a handshake message
 * that carries a valid MAC2 (so its sender can receive at its source address)
 * while the device is under load (docs/datapath.md); a refused one is dropped
 * before any Curve25519 work.
 *
 * For ordinary traffic it is the in-tree wireguard ratelimiter: one bucket per
 * source (IPv4 /32, IPv6 /64: a host freely varies the rest of its /64), a
 * burst of 5 and 20 packets/s.  It differs where the in-tree one can be
 * defeated: a table of fixed size that refuses new sources when full can be
 * filled by anyone who can receive at many addresses - a single IPv6 /48
 * (free from tunnel brokers) has 65,536 /64s - and then every legitimate
 * initiator is refused; and while filling it the attacker gets a bucket,
 * hence 20 handshakes/s, per /64, with the table and not the attacker's own
 * resources as the only bound.  So a bucket's key has three levels:
 *
 *   level    IPv4  IPv6   is about
 *   source   /32   /64    one host
 *   prefix   /24   /48    one site or customer
 *   block    /16   /32    one network operator
 *
 * A packet is charged to the finest bucket that exists for it: its source's,
 * else its prefix's, else its block's.  When none exists a new bucket is made
 * at the source level, raised
 *   - to the prefix level when the prefix already holds
 *     WGX_RATELIMIT_SOURCES_PER_PREFIX source buckets, or the table is at
 *     least a quarter full;
 *   - to the block level when the block already holds
 *     WGX_RATELIMIT_ENTRIES_PER_BLOCK buckets of any level, or the table is at
 *     least half full.
 * A full table refuses packets that have no bucket, as before.  Buckets idle
 * for more than WGX_RATELIMIT_IDLE_SEC are dropped by gc.
 *
 * What this guarantees (per cookie):
 *   - Whoever sends from one /24 (/48) owns at most 17 buckets: at most
 *     17 * 20 = 340 handshakes/s after 17 * 5 back to back, however it
 *     rotates its sources - a rotating sender meets the prefix's bucket, which
 *     stays until the whole prefix is quiet for a second.  One /16 (/32): at
 *     most 129 buckets.
 *   - A source whose block holds no bucket gets one of its own, with its
 *     burst, unless the table is full; filling the table takes at least
 *     capacity / 2 distinct blocks active within a second (in the last half
 *     every block adds one bucket at most).
 *   - Below a quarter full, and with at most 16 sources per prefix and 128
 *     per block, every source has its own bucket: the in-tree behaviour.
 *   - The price: a legitimate source inside an attacker's prefix or block (or
 *     any source once the table is under pressure) may share a bucket; it is
 *     slowed to its share of 20/s, not locked out, and a handshake needs one
 *     message per attempt.
 * Alternatives rejected: aggregation under table pressure alone (the attacker
 * still gets one bucket per /64 until the threshold: a rate that grows with
 * the table); quotas alone (many blocks still fill the table); eviction of
 * old buckets (a rotating attacker evicts and gets a fresh burst each time,
 * which is exactly the unbounded rate this table exists to prevent).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_RATELIMITER_H
#define WGX_CORE_RATELIMITER_H

#include "types.h"

WGX_EXTERN_C_BEGIN

enum {
	WGX_RATELIMIT_PACKETS_PER_SECOND = 20,	/* sustained rate per bucket */
	WGX_RATELIMIT_BURST = 5,		/* packets allowed back to back */
	WGX_RATELIMIT_IDLE_SEC = 1,		/* gc drops entries idle longer than this */
	WGX_RATELIMIT_SOURCES_PER_PREFIX = 16,	/* source buckets per IPv4 /24, IPv6 /48 */
	WGX_RATELIMIT_ENTRIES_PER_BLOCK = 128,	/* buckets per IPv4 /16, IPv6 /32 */
	WGX_RATELIMIT_MAX_CAPACITY = 1 << 20,
};

/**
 * struct wgx_ratelimiter - opaque table of token buckets keyed by source,
 * prefix or block (above) plus a caller cookie (e.g. a net namespace id; 0 if
 * unused).  Not thread-safe: the glue holds one spinlock (spin_lock_bh) around
 * every call.  All memory is allocated at create; the hot path never
 * allocates.  A look-up walks the buckets of one block (at most
 * WGX_RATELIMIT_ENTRIES_PER_BLOCK + 1 per cookie, plus random hash
 * neighbours).
 */
struct wgx_ratelimiter;

/**
 * wgx_ratelimiter_create - table for at most @capacity buckets (1..WGX_RATELIMIT_MAX_CAPACITY);
 * one allocation of 40 * @capacity + 4 * (@capacity rounded up to a power of two)
 * bytes plus a small header.  The pressure rules above use @capacity; when the
 * table is full, packets without a bucket are refused until
 * wgx_ratelimiter_gc() frees entries.
 * Returns NULL for a bad @capacity or when out of memory.  Process context (may sleep).
 */
struct wgx_ratelimiter *wgx_ratelimiter_create(wgx_size capacity);
/** wgx_ratelimiter_destroy - free the table.  NULL is ignored.  Any context. */
void wgx_ratelimiter_destroy(struct wgx_ratelimiter *rl);

/**
 * wgx_ratelimiter_allow - charge one handshake packet from @addr.
 * @addr: 4 or 16 bytes (by @family), the packet's source address; only the
 *        first 64 bits of an IPv6 address count.
 * @cookie: extra key chosen by the caller (namespace / device), 0 if unused;
 *          quotas and buckets are per cookie.
 * @now_ns: monotonic time in ns.
 * Returns true when the packet may be processed: the bucket it is charged to
 * (above) gives a burst of WGX_RATELIMIT_BURST, then
 * WGX_RATELIMIT_PACKETS_PER_SECOND (a token bucket in ns).  Returns false when
 * that bucket is empty, when the table is full and no bucket applies, or for a
 * bad family / NULL @addr.
 */
bool wgx_ratelimiter_allow(struct wgx_ratelimiter *rl, int family, const wgx_u8 *addr, wgx_u64 cookie,
			   wgx_u64 now_ns);

/** wgx_ratelimiter_gc - drop buckets idle for more than WGX_RATELIMIT_IDLE_SEC at @now_ns; returns how many. */
wgx_size wgx_ratelimiter_gc(struct wgx_ratelimiter *rl, wgx_u64 now_ns);

WGX_EXTERN_C_END

#endif /* WGX_CORE_RATELIMITER_H */
