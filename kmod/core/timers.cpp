// SPDX-License-Identifier: GPL-2.0
//
// timers.cpp - the WireGuard timer state machine (whitepaper 6.2-6.5) as pure
// functions of (state, event, now), following the behaviour of the in-tree
// wireguard timers.c: each of the five per-peer timers is a deadline in the
// state (0 = not armed), events arm or disarm them, and wgx_timers_core_expire()
// turns a fired timer into actions for the glue.  Nothing here reads a clock,
// draws randomness or takes a lock; the glue passes time and jitter in and
// serializes calls per peer.

#include "timers.hpp"

using namespace wgx;

namespace {

constexpr u32 bit(wgx_timer_id id)
{
    return u32(1) << id;
}

/// Set timer @id to @deadline (0 = disarm); returns its bit when that changed it.
u32 set_deadline(wgx_timers *t, wgx_timer_id id, u64 deadline)
{
    if (t->deadline[id] == deadline)
        return 0;
    t->deadline[id] = deadline;
    return bit(id);
}

/// Arm timer @id at @now + @delay (never 0, which means "not armed").
u32 arm(wgx_timers *t, wgx_timer_id id, u64 now, u64 delay)
{
    u64 d = now + delay;
    if (d < now)
        d = ~u64(0);  // saturate instead of wrapping
    return set_deadline(t, id, d ? d : 1);
}

u64 jitter(const wgx_timers *t, u64 jitter_ns)
{
    const u64 max = t->params.rekey_timeout_jitter_max_ns;
    return max ? jitter_ns % max : 0;
}

u64 age(u64 birth_ns, u64 now_ns)
{
    return now_ns > birth_ns ? now_ns - birth_ns : 0;
}

}  // namespace

extern "C" {

void wgx_timer_params_init(struct wgx_timer_params *p, wgx_u32 divisor)
{
    if (divisor == 0)
        divisor = 1;
    if (divisor > TIMER_MAX_DIVISOR)
        divisor = TIMER_MAX_DIVISOR;
    zero_bytes(p, sizeof(*p));
    p->rekey_after_time_ns = REKEY_AFTER_TIME_NS / divisor;
    p->reject_after_time_ns = REJECT_AFTER_TIME_NS / divisor;
    p->rekey_attempt_time_ns = REKEY_ATTEMPT_TIME_NS / divisor;
    p->rekey_timeout_ns = REKEY_TIMEOUT_NS / divisor;
    p->rekey_timeout_jitter_max_ns = REKEY_TIMEOUT_JITTER_MAX_NS / divisor;
    p->keepalive_timeout_ns = KEEPALIVE_TIMEOUT_NS / divisor;
    p->second_ns = NSEC_PER_SEC / divisor;
    p->rekey_after_messages = WGX_REKEY_AFTER_MESSAGES;
    p->max_timer_handshakes = u32(p->rekey_attempt_time_ns / p->rekey_timeout_ns);
}

void wgx_timers_core_init(struct wgx_timers *t, const struct wgx_timer_params *params)
{
    zero_bytes(t, sizeof(*t));
    if (params)
        t->params = *params;
    else
        wgx_timer_params_init(&t->params, 1);
}

wgx_u32 wgx_timers_core_data_sent(struct wgx_timers *t, wgx_u64 now_ns, wgx_u64 jitter_ns)
{
    if (t->deadline[WGX_TIMER_NEW_HANDSHAKE])
        return 0;
    return arm(t, WGX_TIMER_NEW_HANDSHAKE, now_ns,
               t->params.keepalive_timeout_ns + t->params.rekey_timeout_ns + jitter(t, jitter_ns));
}

wgx_u32 wgx_timers_core_data_received(struct wgx_timers *t, wgx_u64 now_ns)
{
    if (t->deadline[WGX_TIMER_SEND_KEEPALIVE]) {
        t->need_another_keepalive = 1;
        return 0;
    }
    return arm(t, WGX_TIMER_SEND_KEEPALIVE, now_ns, t->params.keepalive_timeout_ns);
}

wgx_u32 wgx_timers_core_any_authenticated_packet_sent(struct wgx_timers *t)
{
    return set_deadline(t, WGX_TIMER_SEND_KEEPALIVE, 0);
}

wgx_u32 wgx_timers_core_any_authenticated_packet_received(struct wgx_timers *t)
{
    return set_deadline(t, WGX_TIMER_NEW_HANDSHAKE, 0);
}

wgx_u32 wgx_timers_core_any_authenticated_packet_traversal(struct wgx_timers *t, wgx_u64 now_ns)
{
    if (!t->persistent_keepalive_s)
        return 0;
    return arm(t, WGX_TIMER_PERSISTENT_KEEPALIVE, now_ns, u64(t->persistent_keepalive_s) * t->params.second_ns);
}

wgx_u32 wgx_timers_core_handshake_initiated(struct wgx_timers *t, wgx_u64 now_ns, wgx_u64 jitter_ns)
{
    return arm(t, WGX_TIMER_RETRANSMIT_HANDSHAKE, now_ns, t->params.rekey_timeout_ns + jitter(t, jitter_ns));
}

wgx_u32 wgx_timers_core_handshake_complete(struct wgx_timers *t, wgx_u64 now_ns)
{
    t->handshake_attempts = 0;
    __atomic_store_n(&t->sent_lastminute_handshake, u8(0), __ATOMIC_RELEASE);
    t->last_handshake_ns = now_ns;
    return set_deadline(t, WGX_TIMER_RETRANSMIT_HANDSHAKE, 0);
}

wgx_u32 wgx_timers_core_session_derived(struct wgx_timers *t, wgx_u64 now_ns)
{
    t->last_session_ns = now_ns;
    return arm(t, WGX_TIMER_ZERO_KEY_MATERIAL, now_ns, 3 * t->params.reject_after_time_ns);
}

wgx_u32 wgx_timers_core_set_persistent_keepalive(struct wgx_timers *t, wgx_u16 interval_s)
{
    t->persistent_keepalive_s = interval_s;
    return interval_s ? 0 : set_deadline(t, WGX_TIMER_PERSISTENT_KEEPALIVE, 0);
}

wgx_u32 wgx_timers_core_stop(struct wgx_timers *t)
{
    u32 changed = 0;
    for (int id = 0; id < WGX_TIMER_COUNT; ++id)
        changed |= set_deadline(t, wgx_timer_id(id), 0);
    t->handshake_attempts = 0;
    t->need_another_keepalive = 0;
    __atomic_store_n(&t->sent_lastminute_handshake, u8(0), __ATOMIC_RELEASE);
    t->initiation_sent = 0;
    return changed;
}

wgx_u32 wgx_timers_core_expire(struct wgx_timers *t, enum wgx_timer_id id, wgx_u64 now_ns, wgx_u32 *changed)
{
    *changed = 0;
    if (unsigned(id) >= WGX_TIMER_COUNT || !t->deadline[id])
        return 0;  // unknown id or stale callback of a disarmed timer
    if (now_ns < t->deadline[id]) {
        *changed = bit(id);  // fired early: the glue re-arms it at the same deadline
        return 0;
    }
    u32 ch = set_deadline(t, id, 0);
    u32 actions = 0;
    switch (id) {
    case WGX_TIMER_RETRANSMIT_HANDSHAKE:
        if (t->handshake_attempts > t->params.max_timer_handshakes) {
            // Did not complete after max + 2 initiations: give up until new data arrives.
            actions = WGX_TIMER_ACT_GIVE_UP;
            ch |= set_deadline(t, WGX_TIMER_SEND_KEEPALIVE, 0);
            if (!t->deadline[WGX_TIMER_ZERO_KEY_MATERIAL])
                ch |= arm(t, WGX_TIMER_ZERO_KEY_MATERIAL, now_ns, 3 * t->params.reject_after_time_ns);
        } else {
            ++t->handshake_attempts;
            actions = WGX_TIMER_ACT_RETRY_INITIATION;
        }
        break;
    case WGX_TIMER_SEND_KEEPALIVE:
        actions = WGX_TIMER_ACT_SEND_KEEPALIVE;
        if (t->need_another_keepalive) {
            t->need_another_keepalive = 0;
            ch |= arm(t, WGX_TIMER_SEND_KEEPALIVE, now_ns, t->params.keepalive_timeout_ns);
        }
        break;
    case WGX_TIMER_NEW_HANDSHAKE:
        actions = WGX_TIMER_ACT_NEW_HANDSHAKE;
        break;
    case WGX_TIMER_ZERO_KEY_MATERIAL:
        actions = WGX_TIMER_ACT_ZERO_KEYS;
        break;
    case WGX_TIMER_PERSISTENT_KEEPALIVE:
        if (t->persistent_keepalive_s)
            actions = WGX_TIMER_ACT_SEND_KEEPALIVE;
        break;
    default:
        break;
    }
    *changed = ch;
    return actions;
}

bool wgx_timers_core_initiation_due(const struct wgx_timers *t, wgx_u64 now_ns)
{
    return !t->initiation_sent ||
           (now_ns >= t->last_initiation_ns && now_ns - t->last_initiation_ns >= t->params.rekey_timeout_ns);
}

// wgx_timers::cookie_retry: whether the outstanding initiation may still be
// retried at once for a cookie reply.
enum : u8 {
    COOKIE_RETRY_ALLOWED = 0,  // a timer-started initiation is outstanding (or none)
    COOKIE_RETRY_GRANTED = 1,  // granted; the next initiation begun is the retry
    COOKIE_RETRY_USED = 2,     // the retry went: wait for the timers
};

bool wgx_timers_core_initiation_begin(struct wgx_timers *t, bool is_retry, wgx_u64 now_ns)
{
    if (!is_retry)
        t->handshake_attempts = 0;
    if (!wgx_timers_core_initiation_due(t, now_ns))
        return false;
    t->initiation_sent = 1;
    t->last_initiation_ns = now_ns;
    t->cookie_retry = t->cookie_retry == COOKIE_RETRY_GRANTED ? COOKIE_RETRY_USED : COOKIE_RETRY_ALLOWED;
    return true;
}

bool wgx_timers_core_cookie_retry(struct wgx_timers *t)
{
    if (!t->initiation_sent || t->cookie_retry != COOKIE_RETRY_ALLOWED)
        return false;
    if (t->last_session_ns && t->last_session_ns >= t->last_initiation_ns)
        return false;
    t->cookie_retry = COOKIE_RETRY_GRANTED;
    t->initiation_sent = 0;  // due at once: wgx_timers_core_initiation_due()
    return true;
}

bool wgx_timers_core_initiation_superseded(const struct wgx_timers *t, wgx_u64 asked_ns)
{
    return t->last_session_ns && t->last_session_ns > asked_ns;
}

void wgx_timers_core_initiation_forget(struct wgx_timers *t)
{
    t->initiation_sent = 0;
}

bool wgx_timers_core_want_rekey_on_send(const struct wgx_timers *t, wgx_u64 birth_ns, wgx_u64 counter,
                                        bool i_am_initiator, wgx_u64 now_ns)
{
    return counter >= t->params.rekey_after_messages ||
           (i_am_initiator && age(birth_ns, now_ns) >= t->params.rekey_after_time_ns);
}

bool wgx_timers_core_want_rekey_on_receive(struct wgx_timers *t, wgx_u64 birth_ns, bool i_am_initiator, wgx_u64 now_ns)
{
    if (!i_am_initiator)
        return false;
    const wgx_timer_params &p = t->params;
    if (age(birth_ns, now_ns) < p.reject_after_time_ns - p.keepalive_timeout_ns - p.rekey_timeout_ns)
        return false;
    // Only once per session: the first caller to flip the flag wins.
    return __atomic_exchange_n(&t->sent_lastminute_handshake, u8(1), __ATOMIC_ACQ_REL) == 0;
}

bool wgx_timers_core_keypair_usable(const struct wgx_timers *t, wgx_u64 birth_ns, wgx_u64 counter, wgx_u64 now_ns)
{
    return age(birth_ns, now_ns) < t->params.reject_after_time_ns && counter < WGX_TRANSPORT_REJECT_AFTER_MESSAGES;
}

}  // extern "C"
