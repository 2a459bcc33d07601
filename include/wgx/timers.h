/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/timers.h - the per-peer timer state machine (whitepaper 6.1-6.5, the
 * in-tree wireguard timers.c) as pure state: the glue mirrors each deadline
 * onto a kernel timer and performs the actions an expiry returns
 * (kmod/core/timers.cpp, kmod/timers.c).
 *
 * Part of the extern "C" boundary between the kernel glue (kmod/) and
 * the freestanding C++ core (kmod/core/); <wgx/core.h> includes every
 * such header.  Conventions (time in ns, 0 or -errno, locking) are in
 * docs/architecture.md, "The boundary".
 */
#ifndef WGX_CORE_TIMERS_H
#define WGX_CORE_TIMERS_H

#include "types.h"
#include "transport.h"

WGX_EXTERN_C_BEGIN

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
	wgx_u64 last_session_ns;	/* monotonic time a keypair was last derived, 0 = never */
	wgx_u32 handshake_attempts;	/* retries since the last non-retry initiation */
	wgx_u16 persistent_keepalive_s;	/* 0 = off, else 1..65535 s */
	wgx_u8 need_another_keepalive;
	wgx_u8 sent_lastminute_handshake; /* accessed atomically */
	wgx_u8 initiation_sent;		/* last_initiation_ns is valid */
	wgx_u8 cookie_retry;		/* enum in timers.cpp: the early retry a cookie reply grants */
	wgx_u8 reserved[6];
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
/** A keypair was derived: arm zero_key_material at 3 x REJECT_AFTER_TIME; record @now_ns (see initiation_superseded). */
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

/**
 * wgx_timers_core_initiation_forget - forget when the last initiation was
 * sent, so the next one may go at once: after a change of our static key,
 * whose handshakes owe nothing to the old key's REKEY_TIMEOUT.
 */
void wgx_timers_core_initiation_forget(struct wgx_timers *t);

/**
 * wgx_timers_core_initiation_due - would wgx_timers_core_initiation_begin()
 * allow an initiation at @now_ns?  Read-only (the same REKEY_TIMEOUT test,
 * without recording anything or touching the attempt counter), so the glue
 * can ask the device's handshake budget only for initiations that would
 * really be sent.
 */
bool wgx_timers_core_initiation_due(const struct wgx_timers *t, wgx_u64 now_ns);

/**
 * wgx_timers_core_initiation_superseded - was a keypair derived after
 * @asked_ns (monotonic ns), the last time an initiation was asked for?  Then
 * a request still waiting (deferred by the glue's handshake budget) has
 * what it was for: a fresh session, made by the peer's initiation or by a
 * response to an earlier one of ours, and can be dropped.  Read-only:
 * dropping it is no attempt and changes no timer.
 */
bool wgx_timers_core_initiation_superseded(const struct wgx_timers *t, wgx_u64 asked_ns);

/**
 * wgx_timers_core_cookie_retry - a valid cookie reply answered our
 * outstanding initiation: may it be retried now, with the cookie as mac2,
 * instead of after REKEY_TIMEOUT?  Yes once per initiation that the timers
 * started (a first one or a REKEY_TIMEOUT retry): the granted retry is not
 * due-checked, the next initiation begun is that retry, and only a later
 * timer-started initiation opens another grant.  So a peer sends at most two
 * initiations per REKEY_TIMEOUT however many cookie replies arrive, and a
 * reply (which an on-path party who knows the responder's public key can
 * forge) moves a retry earlier but never adds one beyond that bound.  No
 * when no initiation is outstanding (none sent, or a keypair derived since).
 */
bool wgx_timers_core_cookie_retry(struct wgx_timers *t);

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
/** Keypair usable: age < REJECT_AFTER_TIME and @counter < WGX_TRANSPORT_REJECT_AFTER_MESSAGES (whitepaper 6.1). */
bool wgx_timers_core_keypair_usable(const struct wgx_timers *t, wgx_u64 birth_ns, wgx_u64 counter, wgx_u64 now_ns);

WGX_EXTERN_C_END

#endif /* WGX_CORE_TIMERS_H */
