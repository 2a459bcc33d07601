/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peerstats.h - a peer's counters: what they are, how they are kept, read
 * and allocated.  A leaf: peerstats.c calls nothing of wgx, so the lowest
 * files (socket, pmtu, timers) count into a peer without depending on the
 * peer's lifecycle in peer.c.  The fast inline adds are in peer.h, beside
 * the struct they reach into.
 */
#ifndef WGX_PEERSTATS_H
#define WGX_PEERSTATS_H

#include <linux/atomic.h>
#include <linux/types.h>

struct wgx_peer;

/*
 * Per-peer counters (netlink_get.c maps them to enum
 * wgx_peer_stats_attribute).  The first WGX_PEER_STAT_PERCPU move with every
 * packet and are per-CPU once the peer has a session; the others move with
 * handshakes and drops and are one atomic each.  Neither block exists until
 * it is used: the per-CPU one is allocated with the peer's first keypair
 * (before it, the hot counters count in the atomic block), the atomic one at
 * the first count, so a configured peer that never handshakes costs two
 * pointers, not 8 bytes per possible CPU per hot counter.
 */
enum wgx_peer_stat {
	WGX_PEER_STAT_RX_BYTES = 0,	/* UDP payload bytes received, authenticated */
	WGX_PEER_STAT_TX_BYTES,		/* UDP payload bytes sent */
	WGX_PEER_STAT_RX_PACKETS,
	WGX_PEER_STAT_TX_PACKETS,
	WGX_PEER_STAT_RX_LOST,		/* replay window: counters never received (wgx_replay_loss) */
	WGX_PEER_STAT_RX_REORDERED,	/* replay window: accepted below the greatest counter */
	WGX_PEER_STAT_PERCPU,
	WGX_PEER_STAT_RX_DROP_AUTH = WGX_PEER_STAT_PERCPU,
	WGX_PEER_STAT_RX_DROP_REPLAY,
	WGX_PEER_STAT_RX_DROP_ALLOWEDIPS,
	WGX_PEER_STAT_RX_DROP_NO_KEYPAIR,
	WGX_PEER_STAT_RX_DROP_MALFORMED,
	WGX_PEER_STAT_TX_DROP_STAGED_OVERFLOW,
	WGX_PEER_STAT_TX_DROP_NO_ENDPOINT,
	WGX_PEER_STAT_TX_DROP_ERROR,
	WGX_PEER_STAT_HANDSHAKE_INITIATIONS_TX,
	WGX_PEER_STAT_HANDSHAKE_INITIATIONS_RX,
	WGX_PEER_STAT_HANDSHAKE_RESPONSES_TX,
	WGX_PEER_STAT_HANDSHAKE_RESPONSES_RX,
	WGX_PEER_STAT_COOKIE_REPLIES_RX,
	WGX_PEER_STAT_HANDSHAKES_COMPLETED,
	WGX_PEER_STAT_HANDSHAKE_TIMEOUTS,
	WGX_PEER_STAT_HANDSHAKE_DROP_INVALID,
	WGX_PEER_STAT_KEEPALIVES_TX,
	WGX_PEER_STAT_KEEPALIVES_RX,
	WGX_PEER_STAT_HANDSHAKES_PACED,	/* initiations deferred by the device's handshake budget */
	WGX_PEER_STAT_HANDSHAKES_PREVIOUS_KEY,	/* sessions made with the device's previous key (grace) */
	WGX_PEER_STAT_PMTU_ICMP,	/* path MTU ICMP accepted (pmtu.h) */
	WGX_PEER_STAT_TX_DROP_TOO_BIG,	/* inner packets over the path MTU, ICMP sent back */
	WGX_PEER_STAT_PMTU_BLACKHOLES,	/* blackholes found (pmtu.h) */
	WGX_PEER_STAT_COUNT
};

/* The per-CPU counters of a peer. */
struct wgx_peer_stats {
	u64 v[WGX_PEER_STAT_PERCPU];
};

/* The atomic counters of a peer: every counter (the hot ones until @stats exists). */
struct wgx_peer_stats_rare {
	atomic64_t v[WGX_PEER_STAT_COUNT];
};

/**
 * wgx_peer_stats_add_rare - add @n to @stat in the atomic block, allocating
 * it (GFP_ATOMIC) at the first count; a count that finds no memory is lost.
 * Any context.
 */
void wgx_peer_stats_add_rare(struct wgx_peer *peer, enum wgx_peer_stat stat, u64 n);

/**
 * wgx_peer_stats_percpu - give @peer its per-CPU counters if it has none (at
 * its first installed keypair: from then on packets move them).  Process context;
 * when out of memory the hot counters go on counting in the atomic block.
 */
void wgx_peer_stats_percpu(struct wgx_peer *peer);

/** wgx_peer_stats_read - counter @stat (a per-CPU one summed over all CPUs). */
u64 wgx_peer_stats_read(struct wgx_peer *peer, enum wgx_peer_stat stat);

/**
 * wgx_peer_count_rx - account one authenticated message of @len bytes (UDP
 * payload: transport data, keepalive, initiation or response) from @peer, in
 * the peer's and the device's counters (WireGuard counts messages, not inner
 * bytes, in both).  Any context.
 */
void wgx_peer_count_rx(struct wgx_peer *peer, size_t len);

#endif /* WGX_PEERSTATS_H */
