/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxspread.h - receive spreading: decrypt one peer's transport data on every
 * online CPU and deliver it in arrival order.
 *
 * Without it a transport data message is decrypted where it arrives, on the
 * CPU the receiver's RSS/RPS picked from its outer headers: one CPU per outer
 * flow.  A peer that sends from one UDP port (the in-tree module,
 * wireguard-go, wgx with listen-ports 1) is then decrypted on one CPU however
 * many inner flows it carries.  A spread peer's messages are only looked up
 * by the arriving CPU, which queues each one twice: on the peer's ordered
 * queue (arrival order) and on a decrypt worker's ring, chosen round robin
 * among the online CPUs.  Workers decrypt in parallel; the peer's NAPI
 * delivers from the head of its ordered queue, each message once it is
 * decrypted, so every inner flow (indeed the whole peer) keeps the order it
 * arrived in.  The NAPI also checks each counter against the replay window
 * (wgx_receive_finish()), in that order: the workers finish in any order,
 * and a window fed by them would count messages that arrived in order as
 * reordered.  A message the express mark lets pass the queue is checked as
 * it passes, so the ones it passed count as reordered: they are, on their
 * way up.  The price is a hand-off to another CPU and back per message.
 *
 * Which peers are spread: the device option rx-spread (enum
 * wgx_rx_spread_mode).  on: every peer; off: none; auto (the default): the
 * module decides per peer from its load.  In auto mode the time spent
 * decrypting each peer's messages is summed over windows of
 * WGX_RXSPREAD_WINDOW_NS; a peer whose decryption took more than a quarter
 * of a CPU in a window is spread from then on, one that took less than an
 * eighth goes back to its arriving CPU (wgx_rxspread_want()).  A single-CPU
 * machine never spreads.  So a peer that one CPU serves easily pays
 * nothing but two clock reads per message, and a busy one gets every CPU.
 *
 * Order across a switch: once a peer has its queue, every message of it is
 * delivered by its NAPI from the ordered queue, whether a worker decrypted
 * it (spread) or the arriving CPU did (not spread now), so switching either
 * way never lets a message overtake another.  Before the queue exists a
 * peer's messages are delivered through the arriving CPU's GRO cell, and a
 * message decrypted just before the queue was made may still wait there
 * when the queue's first messages are delivered.  So a new queue settles
 * first: for WGX_RXSPREAD_SETTLE_NS nothing of it is spread, whatever the
 * mode; the arriving CPU decrypts and schedules the NAPI, which then runs
 * behind the GRO cell on that CPU, and by the end of it the cell has long
 * delivered what it held.
 *
 * Locking and lifetime: the option changes under device_update_lock.  The
 * device's decrypt workqueue and per-CPU workers are made with the device,
 * but the workers' rings (WGX_RXSPREAD_RING_SIZE pointers per possible CPU,
 * the bulk of the cost) only when the device's first ordered queue is made,
 * before that queue is published: most devices never spread.  They stay
 * until the device goes (wgx_rxspread_uninit()).  A
 * peer's struct wgx_peer_rx is made for every peer when the option is
 * switched on and at peer creation while it is on, and in auto mode by the
 * device's grow work (process context, rtnl and device_update_lock) for a
 * peer whose load asked for it.  It goes only at the peer's removal, after
 * every message that could reach it has: encap_rcv readers are waited for
 * with synchronize_net(), the workers with flush_workqueue(), the NAPI with
 * napi_disable().  Not when the option goes off: messages that arrive then
 * still go through the queue (decrypted where they arrive), since messages
 * delivered around it could overtake the ones the workers still hold.
 */
#ifndef WGX_RXSPREAD_H
#define WGX_RXSPREAD_H

#include <linux/atomic.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/ptr_ring.h>
#include <linux/time64.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

struct wgx_device;
struct wgx_peer;

enum {
	WGX_RXSPREAD_RING_SIZE = 4096,	/* messages waiting for one CPU's decrypt worker */
	WGX_RXSPREAD_PEER_MAX = 4096,	/* messages of one peer between arrival and delivery */
};

/* The auto mode's load window (ns): a peer's decrypt time is judged per window. */
#define WGX_RXSPREAD_WINDOW_NS (100 * NSEC_PER_MSEC)
/*
 * How long a new ordered queue delivers only what the arriving CPU decrypted
 * (ns): far longer than a GRO cell holds a message (one NAPI poll of at
 * most netdev_max_backlog of them).
 */
#define WGX_RXSPREAD_SETTLE_NS (100 * NSEC_PER_MSEC)

/*
 * Delay control of a peer's ordered queue: CoDel's target and interval
 * (RFC 8289 section 4.2, the values fq_codel uses).  A queue whose head has
 * waited longer than the target for a whole interval drops arriving
 * messages at CoDel's rate until it is back below.
 */
#define WGX_RXSPREAD_TARGET_NS (5 * NSEC_PER_MSEC)
#define WGX_RXSPREAD_INTERVAL_NS (100 * NSEC_PER_MSEC)
/*
 * Messages whose plaintext is at most this long (bytes: the priority lane's
 * small packets, TCP ACKs, pings, keepalives) are never dropped for delay:
 * dropping them would not drain the queue, and they are what waits.
 */
#define WGX_RXSPREAD_SMALL 256
/*
 * Express delivery: a small message with the sender's express mark
 * (WGX_TRANSPORT_EXPRESS_PAD) is delivered at once, ahead of the ordered
 * queue, while the queue's head has waited less than this (ns) and no small
 * message waits in the queue.  The sender marks a flow's packets only after
 * it sent nothing unmarked for WGX_SEND_EXPRESS_GAP (1 s) while busy, so
 * what the flow sent before has left a queue this short long ago, or is a
 * small message, which it does not pass.
 */
#define WGX_RXSPREAD_EXPRESS_HEAD_NS (500 * NSEC_PER_MSEC)

/**
 * struct wgx_rxspread_delay - CoDel's state for one ordered queue.
 * @first_above: when the head's wait may be judged standing (ns; the first
 *               arrival that saw it above target, plus an interval); 0 below.
 * @drop_next: when the next drop is due while dropping (ns).
 * @count: drops in this dropping state; @lastcount: at its start.
 * @dropping: in the dropping state.
 */
struct wgx_rxspread_delay {
	u64 first_above;
	u64 drop_next;
	u32 count;
	u32 lastcount;
	bool dropping;
};

/* CoDel's control law: the interval shrinks with the square root of the drops. */
static inline u64 wgx_rxspread_delay_next(u64 t, u32 count)
{
	/* int_sqrt(count << 16) is 256 * sqrt(count). */
	return t + div64_ul((u64)WGX_RXSPREAD_INTERVAL_NS << 8, int_sqrt((unsigned long)count << 16));
}

/**
 * wgx_rxspread_delay_drop - CoDel's drop decision (RFC 8289), taken when a
 * droppable message arrives instead of when the head leaves: a spread
 * queue's head is often still being decrypted, and a dequeue that finds
 * nothing ready must not read as an empty queue.  @now (ns); @sojourn_ns:
 * how long the queue's head has waited; @queued: messages queued.  Returns
 * true when the arriving message is to be dropped.  Pure except for @d;
 * the caller serialises calls (the queue's lock).
 */
static inline bool wgx_rxspread_delay_drop(struct wgx_rxspread_delay *d, u64 now,
					   u64 sojourn_ns, unsigned int queued)
{
	u32 delta;

	if (sojourn_ns < WGX_RXSPREAD_TARGET_NS || queued < 2) {
		d->first_above = 0;
		d->dropping = false;
		return false;
	}
	if (!d->first_above) {
		d->first_above = now + WGX_RXSPREAD_INTERVAL_NS;
		return false;
	}
	if (d->dropping) {
		if (now < d->drop_next)
			return false;
		d->count++;
		d->drop_next = wgx_rxspread_delay_next(d->drop_next, d->count);
		return true;
	}
	if (now < d->first_above)
		return false;
	/* Back above soon after the last dropping state: resume near its rate. */
	delta = d->count - d->lastcount;
	if (delta > 1 && now - d->drop_next < 16 * WGX_RXSPREAD_INTERVAL_NS)
		d->count = delta;
	else
		d->count = 1;
	d->lastcount = d->count;
	d->dropping = true;
	d->drop_next = wgx_rxspread_delay_next(now, d->count);
	return true;
}

/**
 * struct wgx_peer_rx - a peer's ordered queue and the NAPI that delivers from it.
 * @delay: the queue's delay control (under the queue's lock).
 * @small_queued: small messages in @queue, counted as they join it
 *                (wgx_rxspread_enqueue()), whether decrypted on arrival or
 *                by a worker, marked or not, until the NAPI has handed them
 *                to the stack.  While another is counted, a marked one
 *                queues too, so a marked message only ever passes long
 *                ones.  Under the queue's lock.
 * @small_held: of those, the ones the last poll handed to the NAPI core to
 *              pass up after it returned; uncounted by the next poll.  Only
 *              the NAPI's poll touches it.
 * @settled_ns: until then (ns, ktime_get_mono_fast_ns()) nothing is spread,
 *              whatever the mode: the new queue settles (see "Order across a
 *              switch").  Set before the queue is published, 0 once passed.
 * @active: in auto mode, arriving messages are spread (mode on spreads
 *          every peer with a queue regardless).  Written under
 *          device_update_lock or by the CPU closing a load window; read
 *          locklessly.
 */
struct wgx_peer_rx {
	struct napi_struct napi;
	struct sk_buff_head queue;
	struct wgx_rxspread_delay delay;
	unsigned int small_queued;
	unsigned int small_held;
	struct wgx_peer *peer;
	u64 settled_ns;
	bool active;
	struct rcu_head rcu;
};

/**
 * struct wgx_rxspread_load - a peer's receive load in auto mode.
 * @window_start: when the current window began (ns, ktime_get_mono_fast_ns());
 *                the CPU that moves it on (cmpxchg) judges the window.
 * @busy: ns spent decrypting the peer's messages in the window, all CPUs.
 * @wanted: spreading was asked for while the peer had no queue; the
 *          device's grow work makes it.
 */
struct wgx_rxspread_load {
	u64 window_start;
	atomic64_t busy;
	bool wanted;
};

/**
 * wgx_rxspread_want - whether a peer should be spread after a window of
 * @window_ns in which decrypting its messages took @busy_ns (all CPUs
 * together), given whether it is spread now (@spreading) and how many CPUs
 * are online.  On above a quarter of a CPU, off below an eighth; never with
 * one CPU.  Pure; any context.
 */
static inline bool wgx_rxspread_want(bool spreading, u64 busy_ns, u64 window_ns,
				     unsigned int cpus)
{
	if (cpus < 2 || !window_ns)
		return false;
	if (spreading)
		return busy_ns * 8 >= window_ns;
	return busy_ns * 4 > window_ns;
}

/** struct wgx_rx_worker - one CPU's decrypt worker. */
struct wgx_rx_worker {
	struct ptr_ring ring;
	struct work_struct work;
	struct wgx_device *wgx;
	int next_cpu;	/* round robin of the messages this CPU receives */
} ____cacheline_aligned_in_smp;

/**
 * wgx_rxspread_init - the device's decrypt workqueue and per-CPU workers,
 * without their rings (made with the first ordered queue).  Process
 * context; 0 or -ENOMEM.
 */
int wgx_rxspread_init(struct wgx_device *wgx);
/** wgx_rxspread_uninit - wait for the workers and free them and their rings; every peer is gone.  Process context. */
void wgx_rxspread_uninit(struct wgx_device *wgx);

/**
 * wgx_rxspread_set - set the receive spreading mode of @wgx (enum
 * wgx_rx_spread_mode).  On: every peer gets its ordered queue and NAPI and
 * is spread (-ENOMEM leaves the mode as it was).  Auto: peers keep the
 * queues they have and are spread again only when their load asks.  Off:
 * no peer is spread; peers keep their queues (see "Order across a switch").
 * Process context, rtnl and device_update_lock held.
 */
int wgx_rxspread_set(struct wgx_device *wgx, u8 mode);

/**
 * wgx_rxspread_peer_init - give @peer its queue and NAPI (nothing if it has
 * them), spread at once if @active; the device's first queue makes the
 * workers' rings.  Process context, device_update_lock held; 0 or -ENOMEM.
 */
int wgx_rxspread_peer_init(struct wgx_peer *peer, bool active);
/**
 * wgx_rxspread_peer_uninit - a dead peer's queue and NAPI go (no-op without
 * them); messages still queued are dropped and counted.  @flush: wait for
 * the decrypt workers first (false when the caller just did, for many peers
 * at once).  Process context, after the peer was marked dead and an RCU
 * grace period passed; sleeps.
 */
void wgx_rxspread_peer_uninit(struct wgx_peer *peer, bool flush);

/**
 * wgx_rxspread_enqueue - queue a transport message (cb filled by the receive
 * path, state pending) for a decrypt worker and its peer's in-order delivery,
 * if its peer has a queue; a peer that is not spread now (@mode, the
 * device's enum wgx_rx_spread_mode: off, or auto while its load does not ask
 * for it) has the message decrypted here and delivered through the same
 * queue.  In auto mode the peer's load window is judged first when it is
 * over.  Returns false, owning nothing, when the peer has no queue (or is
 * dead): the caller then handles @skb itself.  When a queue is full the
 * message is dropped (it could not keep its place in the order) and true
 * returned.  Softirq.
 */
bool wgx_rxspread_enqueue(struct wgx_peer *peer, struct sk_buff *skb, u8 mode);

/**
 * wgx_rxspread_account - add @ns of decryption to @peer's load window.
 * Any context.
 */
static inline void wgx_rxspread_account(struct wgx_rxspread_load *load, u64 ns)
{
	atomic64_add(ns, &load->busy);
}

#endif /* WGX_RXSPREAD_H */
