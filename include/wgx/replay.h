/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/replay.h - the sliding-window replay filter of a receiving key
 * (whitepaper 5.4.6, RFC 6479), a plain struct the glue embeds in its keypair
 * (kmod/core/replay.cpp).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_REPLAY_H
#define WGX_CORE_REPLAY_H

#include "types.h"
#include "transport.h"

WGX_EXTERN_C_BEGIN

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
 * Returns true, and marks @counter seen, when @counter < WGX_TRANSPORT_REJECT_AFTER_MESSAGES,
 * it is not more than WGX_REPLAY_WINDOW below the greatest accepted counter, and it
 * was not accepted before; false otherwise (state unchanged).  O(1) amortized; a
 * jump ahead clears at most WGX_REPLAY_WORDS words.  Caller holds the keypair's lock.
 */
bool wgx_replay_check(struct wgx_replay *r, wgx_u64 counter);

/**
 * struct wgx_replay_loss - what the window saw about the sender's counters
 * (telemetry); the functions below add to it, the caller zeroes it.
 * @lost: counters that left the window (fell more than WGX_REPLAY_WINDOW
 *	below the greatest accepted one) without having been accepted, i.e.
 *	never received in time; also the gaps counted by wgx_replay_flush().
 * @reordered: counters accepted while below the greatest accepted counter.
 */
struct wgx_replay_loss {
	wgx_u64 lost;
	wgx_u64 reordered;
};

/**
 * wgx_replay_check_loss - wgx_replay_check(), and count into @loss what the
 * call reveals: when it accepts a counter below the greatest accepted one,
 * one reordered message; when it accepts a counter that moves the window,
 * every position that leaves the window without having been accepted (a
 * jump far ahead counts the whole gap, in O(WGX_REPLAY_WORDS)).  A counter
 * refused changes nothing.  Each counter is counted lost at most once, and
 * never both lost and received.  Caller holds the keypair's lock.
 */
bool wgx_replay_check_loss(struct wgx_replay *r, wgx_u64 counter, struct wgx_replay_loss *loss);

/**
 * wgx_replay_flush - the key is being discarded: return the counters still
 * inside the window, below the greatest accepted one, that were never
 * accepted (they can no longer arrive).  Does not change @r.  O(WGX_REPLAY_WORDS).
 * Caller holds the keypair's lock or the last reference.
 */
wgx_u64 wgx_replay_flush(const struct wgx_replay *r);

WGX_EXTERN_C_END

#endif /* WGX_CORE_REPLAY_H */
