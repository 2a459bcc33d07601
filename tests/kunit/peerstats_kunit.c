// SPDX-License-Identifier: GPL-2.0
/*
 * peerstats_kunit.c - KUnit suite "wgx_peerstats": a peer's counters cost nothing
 * until used (kmod/peerstats.c).  A new peer has neither counter block and reads
 * zero; the first count allocates the atomic block, which also takes the hot
 * counters until the per-CPU block exists (a peer's first keypair); then
 * packets count per CPU and a read sums both.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "device.h"
#include "peer.h"

static void wgx_peer_counters_on_demand(struct kunit *test)
{
	struct wgx_peer *peer = kunit_kzalloc(test, sizeof(*peer), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, peer);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_RX_BYTES), 0ULL);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_HANDSHAKE_TIMEOUTS), 0ULL);
	KUNIT_EXPECT_NULL(test, peer->stats_rare);
	KUNIT_EXPECT_NULL(test, peer->stats);

	/* Before a session: a handshake message's bytes and a rare counter. */
	wgx_peer_stats_add(peer, WGX_PEER_STAT_RX_BYTES, 148);
	wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_RX);
	KUNIT_ASSERT_NOT_NULL(test, peer->stats_rare);
	KUNIT_EXPECT_NULL(test, peer->stats);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_RX_BYTES), 148ULL);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_RX), 1ULL);

	/* A session: hot counters move per CPU, and the read adds what came before. */
	wgx_peer_stats_percpu(peer);
	KUNIT_ASSERT_NOT_NULL(test, peer->stats);
	wgx_peer_stats_add(peer, WGX_PEER_STAT_RX_BYTES, 1000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&peer->stats_rare->v[WGX_PEER_STAT_RX_BYTES]), 148LL);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_RX_BYTES), 1148ULL);
	wgx_peer_stats_inc(peer, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_RX);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_HANDSHAKE_INITIATIONS_RX), 2ULL);
	/* A second call keeps the block (and its counts). */
	wgx_peer_stats_percpu(peer);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(peer, WGX_PEER_STAT_RX_BYTES), 1148ULL);

	free_percpu(peer->stats);
	kfree(peer->stats_rare);
}

static struct kunit_case wgx_peerstats_cases[] = {
	KUNIT_CASE(wgx_peer_counters_on_demand),
	{}
};

static struct kunit_suite wgx_peerstats_suite = {
	.name = "wgx_peerstats",
	.test_cases = wgx_peerstats_cases,
};

kunit_test_suites(&wgx_peerstats_suite);
