/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handshake.h - handshake messages (initiation, response, cookie reply;
 * whitepaper 5.4.2-5.4.7), the device's handshake ring and the under-load
 * state (whitepaper 5.3).  Everything that runs Curve25519 lives behind this
 * header, in process context, never in the data path.
 */
#ifndef WGX_HANDSHAKE_H
#define WGX_HANDSHAKE_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>

struct wgx_device;
struct wgx_peer;

/* Handshake messages a device queues for its workers. */
#define WGX_HANDSHAKE_RING_SIZE 4096

/**
 * wgx_handshake_init - the handshake workqueue (zero_keys_work), the handshake ring
 * (WGX_HANDSHAKE_RING_SIZE messages) and one ring work item per possible wgx-hs thread.
 * Process context.  Returns 0 or -ENOMEM.
 */
int wgx_handshake_init(struct wgx_device *wgx);
/**
 * wgx_handshake_uninit - wait for the workers and drop queued messages.
 * Process context; the sockets must be closed and every peer removed.
 */
void wgx_handshake_uninit(struct wgx_device *wgx);

/**
 * wgx_handshake_close - the device takes no more handshake work until
 * wgx_handshake_open(): the ring refuses new messages and the messages
 * queued are dropped unprocessed.  Returns once no ring work of the device runs any more, so a
 * wipe of the peers' sessions and handshakes after it is final: called
 * before that wipe by the down (ndo_stop) and before a suspend or
 * hibernation (PM notifier).  Process context, may sleep; not on a wgx-hs
 * thread.  RTNL held (it orders close and open).
 */
void wgx_handshake_close(struct wgx_device *wgx);

/**
 * wgx_handshake_open - the device takes handshake work again (the up, the
 * resume of a device that is up).  Any context; RTNL held.
 */
void wgx_handshake_open(struct wgx_device *wgx);

/**
 * wgx_handshake_enqueue - queue a received handshake message (skb->data at
 * the message, linear, outer headers still in the skb) for a ring worker.
 * Returns false when the ring is full or closed (wgx_handshake_close()):
 * the caller still owns @skb.  Softirq context (encap_rcv).
 */
bool wgx_handshake_enqueue(struct wgx_device *wgx, struct sk_buff *skb);

/**
 * wgx_handshake_under_load - true while the handshake ring is more than 1/8
 * full, and for one second (HZ jiffies) after: initiations and responses
 * then need a valid MAC2 (cookie) and pass the per-source ratelimiter.
 * Any context.
 */
bool wgx_handshake_under_load(struct wgx_device *wgx);

/*
 * The handshake budget: how many initiations per second a device sends, all
 * peers together, so that a storm (device up with thousands of peers, a new
 * private key, a partition healing, a mass join) does not send them all at
 * once.  Automatic (budget 0): WGX_HANDSHAKE_BUDGET_PER_CPU per online CPU.
 * Making an initiation and consuming its response cost the initiator about
 * four Curve25519 scalar multiplications plus hashing, some 0.1-0.3 ms of
 * one CPU on current x86 (docs/rotation.md, "Handshake storms"), so 1000
 * per second and CPU is generous: at most about a third of the machine,
 * and no ordinary configuration reaches it.  The burst is a tenth of a
 * second's worth, at least 1 and at most WGX_HANDSHAKE_BURST_MAX.
 */
#define WGX_HANDSHAKE_BUDGET_PER_CPU 1000
#define WGX_HANDSHAKE_BURST_MAX 64

/**
 * wgx_handshake_budget_rate - the device's budget in initiations per second:
 * the configured one, or the automatic one (per online CPU) when that is 0.
 * Any context.
 */
u32 wgx_handshake_budget_rate(const struct wgx_device *wgx);

/**
 * wgx_handshake_budget_take - take one initiation from the device's budget
 * at @now_ns (boot time): a token bucket kept as its "theoretical arrival
 * time" (GCRA), in one atomic64 (lockless; any context).  Every call takes a
 * slot: the next free one, or a future one when the bucket is empty.
 * Returns 0 when the initiation may go now, else the ns until its slot (the
 * caller defers the initiation by at least that and sends it then without
 * asking again).  *@interval_ns: ns between two slots (1 s / rate).
 */
u64 wgx_handshake_budget_take(struct wgx_device *wgx, u64 now_ns, u32 *interval_ns);

/**
 * wgx_handshake_budget_reset - forget reserved slots (budget changed, device
 * up): the next initiation finds a full burst.  Initiations already deferred
 * keep their times.  Any context.
 */
void wgx_handshake_budget_reset(struct wgx_device *wgx);

/**
 * wgx_handshake_send_initiation - ask for a handshake initiation to @peer, made
 * and sent by the peer's initiation work on its wgx-hs thread (hsworker.h); at
 * most one per REKEY_TIMEOUT unless @is_retry (whitepaper 6.1, 6.4), and
 * within the device's handshake budget: one beyond it is deferred to a
 * later slot plus random jitter of up to one slot, never dropped, and
 * counted once in the peer's and the device's HANDSHAKES_PACED.  A request
 * while one is pending or deferred joins it.  Does nothing for a dead peer.
 * Any context.
 */
void wgx_handshake_send_initiation(struct wgx_peer *peer, bool is_retry);
/** wgx_handshake_initiation_worker - work function of peer->initiation_work (holds a peer reference). */
void wgx_handshake_initiation_worker(struct kthread_work *work);

/**
 * wgx_handshake_handle - the handshake state @peer uses with the device's
 * current identity (@prev false) or with the previous one during a key grace
 * (@prev true; NULL when the peer has none).  identity_lock (read) and the
 * peer's handshake_lock held.
 */
struct wgx_noise_handshake *wgx_handshake_handle(struct wgx_peer *peer, bool prev);

#endif /* WGX_HANDSHAKE_H */
