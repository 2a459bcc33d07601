/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/core.h - the extern "C" boundary between the kernel glue (kmod/*.c) and
 * the freestanding C++ protocol core (kmod/core/*.cpp).
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
