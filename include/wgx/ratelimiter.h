/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/ratelimiter.h - the per-source token bucket for handshake messages
 * under load, as the in-tree wireguard ratelimiter (kmod/core/ratelimiter.cpp).
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

WGX_EXTERN_C_END

#endif /* WGX_CORE_RATELIMITER_H */
