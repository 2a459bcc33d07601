/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/allowedips.h - the allowed-IPs table of cryptokey routing (whitepaper
 * section 2): longest-prefix match from IPv4/IPv6 prefixes to a peer, read
 * lock-free under RCU (kmod/core/allowedips.cpp).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_ALLOWEDIPS_H
#define WGX_CORE_ALLOWEDIPS_H

#include "types.h"

WGX_EXTERN_C_BEGIN

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
 * long as wgx_allowedips_seq() did not change in between.  O(start + visited):
 * to resume a walk many times (a netlink dump split across messages), use
 * wgx_allowedips_walk_from().  Writer side (caller's mutex held).
 */
wgx_size wgx_allowedips_walk(const struct wgx_allowedips *t, const void *peer, wgx_size start,
			     wgx_allowedips_walk_fn fn, void *ctx);

/**
 * struct wgx_allowedips_cursor - where a walk of one peer's prefixes goes on
 * (wgx_allowedips_walk_from()); the glue keeps it between netlink dump
 * messages.  Zero it to start at the peer's first prefix.  The members belong
 * to the core: @node is the next prefix to visit (NULL at the end), valid only
 * while the table's wgx_allowedips_seq() still equals @seq; @index is that
 * prefix's position in the peer's walk order, used after a change instead.
 */
struct wgx_allowedips_cursor {
	const void *node;
	wgx_u64 seq;
	wgx_size index;
};

/**
 * wgx_allowedips_walk_from - wgx_allowedips_walk() from @cur, in O(1) plus the
 * entries visited: call @fn for @peer's prefixes, in the same order, from the
 * one @cur points at, until @fn returns non-zero or the list ends, and leave
 * @cur at the entry @fn refused (or at the end).
 * If the table changed since @cur was last set (wgx_allowedips_seq() differs)
 * or @cur belongs to another peer, the walk goes on from position @cur->index
 * instead, in O(@cur->index): what a reader that started before the change
 * sees is then only as exact as wgx_allowedips_walk() with that index (a
 * netlink dump marks such a message NLM_F_DUMP_INTR anyway).
 * Returns true when the walk reached the end of @peer's prefixes (at once for
 * a peer without any), false when @fn stopped it.  @cur->index is then the
 * number of @peer's prefixes before the entry @cur points at.
 * Writer side (caller's mutex held, the same table every call).
 */
bool wgx_allowedips_walk_from(const struct wgx_allowedips *t, const void *peer,
			      struct wgx_allowedips_cursor *cur, wgx_allowedips_walk_fn fn, void *ctx);

/** wgx_allowedips_seq - counter bumped by every change of the table.  Writer side. */
wgx_u64 wgx_allowedips_seq(const struct wgx_allowedips *t);

WGX_EXTERN_C_END

#endif /* WGX_CORE_ALLOWEDIPS_H */
