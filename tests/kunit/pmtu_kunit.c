// SPDX-License-Identifier: GPL-2.0
/*
 * pmtu_kunit.c - KUnit suite "wgx_pmtu": a peer's outer path MTU state
 * (kmod/pmtu.h) with times passed in:
 *
 *   wgx_pmtu_icmp_check()   an ICMP naming an MTU below the floor (576 for
 *                           IPv4, 1280 for IPv6), quoting a packet that fit,
 *                           or quoting a payload that is no WireGuard
 *                           message is refused; one quoting only the UDP
 *                           header is judged by the rest;
 *   wgx_pmtu_learn()        an ICMP only lowers, and expires after
 *                           WGX_PMTU_RAISE;
 *   wgx_pmtu_outer/source() the lowest of route, ICMP and the blackhole's
 *                           base size, and where it came from;
 *   wgx_pmtu_sent()         the blackhole detector: DF packets above the base
 *                           size unanswered for WGX_PMTU_SILENCE lower the
 *                           MTU, unanswered again clear DF, the full size is
 *                           tried again after WGX_PMTU_RAISE; a packet from
 *                           the peer, small or non-DF packets never trigger;
 *                           after prompt answers WGX_PMTU_SILENCE_FAST is
 *                           enough, and wgx_pmtu_poll() finds it before the
 *                           next packet is sized; gaps shorter than that
 *                           (random loss) and a one-way flow answered by
 *                           keepalives never trigger;
 *   wgx_pmtu_set_fixed()    a fixed MTU is the inner size plus the outer
 *                           family's headers, ICMP is refused and the
 *                           detector never fires; auto again learns afresh.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <uapi/linux/wgx.h>

#include "pmtu.h"

/* WireGuard's KEEPALIVE_TIMEOUT (jiffies): a one-way flow's receiver answers this often. */
#define WGX_PMTU_TEST_KEEPALIVE	(10 * HZ)

static const u8 wgx_pmtu_test_data[4] = { 4, 0, 0, 0 };	/* transport data */

static void wgx_pmtu_icmp_floor(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 575, 1500, wgx_pmtu_test_data),
			WGX_PMTU_ICMP_BELOW_FLOOR);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 68, 1500, NULL),
			WGX_PMTU_ICMP_BELOW_FLOOR);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 576, 1500, wgx_pmtu_test_data),
			WGX_PMTU_ICMP_ACCEPT);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET6, 1279, 1500, wgx_pmtu_test_data),
			WGX_PMTU_ICMP_BELOW_FLOOR);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET6, 1280, 1500, wgx_pmtu_test_data),
			WGX_PMTU_ICMP_ACCEPT);
}

static void wgx_pmtu_icmp_quoted(struct kunit *test)
{
	static const u8 handshake[4] = { 1, 0, 0, 0 }, bad_type[4] = { 5, 0, 0, 0 },
			reserved[4] = { 4, 0, 1, 0 }, zero[4] = { };

	/* The quoted packet must have been too big for the MTU named. */
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 1400, 1400, wgx_pmtu_test_data),
			WGX_PMTU_ICMP_FITS);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 1400, 1401, wgx_pmtu_test_data),
			WGX_PMTU_ICMP_ACCEPT);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 1400, 1401, handshake),
			WGX_PMTU_ICMP_ACCEPT);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 1400, 1500, bad_type),
			WGX_PMTU_ICMP_NOT_WIREGUARD);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 1400, 1500, reserved),
			WGX_PMTU_ICMP_NOT_WIREGUARD);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 1400, 1500, zero),
			WGX_PMTU_ICMP_NOT_WIREGUARD);
	/* RFC 792 quotes only 8 bytes past the IP header: the UDP header. */
	KUNIT_EXPECT_EQ(test, wgx_pmtu_icmp_check(AF_INET, 1400, 1500, NULL), WGX_PMTU_ICMP_ACCEPT);
}

static void wgx_pmtu_learn_lowers_and_expires(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 1000;

	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 0U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t), WGX_PATH_MTU_SOURCE_NONE);
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 100, 1500, true, t));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1500U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t), WGX_PATH_MTU_SOURCE_ROUTE);

	wgx_pmtu_learn(&p, 1400, t);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1400U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t), WGX_PATH_MTU_SOURCE_ICMP);
	/* A higher one does not raise it. */
	wgx_pmtu_learn(&p, 1450, t + 1);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 1), 1400U);
	wgx_pmtu_learn(&p, 1300, t + 2);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 2), 1300U);
	/* The route says less (its own exception): the route wins. */
	wgx_pmtu_sent(&p, 100, 1280, true, t + 3);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 3), 1280U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t + 3), WGX_PATH_MTU_SOURCE_ROUTE);
	wgx_pmtu_sent(&p, 100, 1500, true, t + 4);
	/* Expired: the route's again. */
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 2 + WGX_PMTU_RAISE), 1300U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 3 + WGX_PMTU_RAISE), 1500U);
	wgx_pmtu_learn(&p, 1450, t + 3 + WGX_PMTU_RAISE);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 3 + WGX_PMTU_RAISE), 1450U);

	wgx_pmtu_reset(&p);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 4 + WGX_PMTU_RAISE), 0U);
}

/* Send full-size DF packets from @t to @t + WGX_PMTU_SILENCE, nothing heard; true if it fired. */
static bool wgx_pmtu_test_silence(struct wgx_pmtu *p, u32 len, unsigned long t)
{
	bool fired = false;
	unsigned long i;

	for (i = 0; i <= WGX_PMTU_SILENCE; i += HZ / 2)
		fired |= wgx_pmtu_sent(p, len, 1500, true, t + i);
	return fired;
}

static void wgx_pmtu_blackhole_lowers_then_fragments(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 5000;

	KUNIT_EXPECT_TRUE(test, wgx_pmtu_df(&p));
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_test_silence(&p, 1500, t));
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_LOWERED);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + WGX_PMTU_SILENCE), (u32)WGX_PMTU_BASE);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t + WGX_PMTU_SILENCE), WGX_PATH_MTU_SOURCE_PROBE);
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_df(&p));

	/* The lowered size unanswered too: DF clear, the underlay may fragment. */
	t += WGX_PMTU_SILENCE + 1;
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_test_silence(&p, WGX_PMTU_BASE, t));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_df(&p));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t + WGX_PMTU_SILENCE),
			WGX_PATH_MTU_SOURCE_FRAGMENTING);
	/* Nothing more to find while fragmenting. */
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_test_silence(&p, 1500, t + WGX_PMTU_SILENCE + 1));

	/* The full size is tried again after WGX_PMTU_RAISE. */
	t += WGX_PMTU_SILENCE + WGX_PMTU_RAISE + 1;
	wgx_pmtu_sent(&p, 100, 1500, true, t);
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_df(&p));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1500U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t), WGX_PATH_MTU_SOURCE_ROUTE);
}

static void wgx_pmtu_blackhole_confirmed_stays_lowered(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 5000, i;

	KUNIT_EXPECT_TRUE(test, wgx_pmtu_test_silence(&p, 1500, t));
	t += WGX_PMTU_SILENCE + 1;
	/* The lowered size is answered: LOWERED holds until the raise. */
	for (i = 0; i < 4 * WGX_PMTU_SILENCE; i += HZ / 2) {
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, WGX_PMTU_BASE, 1500, true, t + i));
		wgx_pmtu_heard(&p, false, t + i);
	}
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_LOWERED);
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_df(&p));
}

static void wgx_pmtu_blackhole_needs_silence(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 5000, i;

	/* Answered now and then: never a blackhole. */
	for (i = 0; i < 4 * WGX_PMTU_SILENCE; i += HZ / 2) {
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + i));
		if (!(i % (WGX_PMTU_SILENCE / 2)))
			wgx_pmtu_heard(&p, false, t + i);
	}
	/* Small packets, or packets sent without DF, probe nothing. */
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_test_silence(&p, WGX_PMTU_BASE, t + 5 * WGX_PMTU_SILENCE));
	for (i = 0; i <= 2 * WGX_PMTU_SILENCE; i += HZ / 2)
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, false,
						       t + 7 * WGX_PMTU_SILENCE + i));
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_DF);
	/* Heard, then one packet short of the silence: not yet. */
	t += 10 * WGX_PMTU_SILENCE;
	wgx_pmtu_heard(&p, false, t - 1);
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + WGX_PMTU_SILENCE - 1));
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + WGX_PMTU_SILENCE));
}

/* A conversation from @t to @t + @len: each jiffy the peer is heard and a full-size DF packet sent. */
static void wgx_pmtu_test_talk(struct wgx_pmtu *p, unsigned long t, unsigned long len)
{
	unsigned long i;

	for (i = 0; i < len; i++) {
		wgx_pmtu_heard(p, false, t + i);
		wgx_pmtu_sent(p, 1500, 1500, true, t + i);
	}
}

static void wgx_pmtu_blackhole_fast_after_prompt_answers(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 5000, i;

	wgx_pmtu_test_talk(&p, t, HZ);
	t += HZ;
	/* Cut off: full-size packets (a TCP retransmission's doubling times), nothing back. */
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t));
	for (i = HZ / 5; i < WGX_PMTU_SILENCE_FAST; i *= 2)
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + i));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + WGX_PMTU_SILENCE_FAST - 1));
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_DF);
	/* An accepted ICMP explains the loss: the silence starts again. */
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_learn(&p, 1450, t + HZ));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + WGX_PMTU_SILENCE_FAST));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1450, 1500, true, t + HZ + 1));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + HZ + WGX_PMTU_SILENCE_FAST));
	t += HZ + 1;
	/* The next packet, before it is sized, sees the lowered MTU. */
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_poll(&p, t + WGX_PMTU_SILENCE_FAST));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + WGX_PMTU_SILENCE_FAST),
			(u32)WGX_PMTU_BASE);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t + WGX_PMTU_SILENCE_FAST),
			WGX_PATH_MTU_SOURCE_PROBE);
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + WGX_PMTU_SILENCE_FAST + 1));
	/* Answered at the lowered size: confirmed. */
	t += WGX_PMTU_SILENCE_FAST + 1;
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, WGX_PMTU_BASE, 1500, true, t));
	wgx_pmtu_heard(&p, false, t + 1);
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + 10 * WGX_PMTU_SILENCE));
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_LOWERED);
}

static void wgx_pmtu_blackhole_not_random_loss(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 5000, i, gap;

	/* Prompt answers with pauses just short of the fast silence (lost retransmissions). */
	for (i = 0; i < 20; i++) {
		wgx_pmtu_test_talk(&p, t, HZ / 10);
		t += HZ / 10;
		gap = WGX_PMTU_SILENCE_FAST - 1 - (i % 3) * HZ / 2;
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t));
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + gap / 2));
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + gap));
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + gap));
		t += gap + 1;
	}
	/* A one-way flow: answered by the peer's keepalive every 10 s only. */
	for (i = 0; i < 6 * WGX_PMTU_TEST_KEEPALIVE; i += HZ / 10) {
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + i));
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + i));
		if (!(i % WGX_PMTU_TEST_KEEPALIVE))
			wgx_pmtu_heard(&p, true, t + i);
	}
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_DF);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + i), 1500U);
}

static void wgx_pmtu_blackhole_fast_needs_data(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 5000, i;

	/* Never heard twice: the answers are not known to be prompt. */
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + WGX_PMTU_SILENCE_FAST));
	wgx_pmtu_heard(&p, false, t + 1);
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + 2));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + 2 + WGX_PMTU_SILENCE_FAST));

	/* A conversation turns into a one-way flow: lowered after the fast silence... */
	t += WGX_PMTU_SILENCE;
	wgx_pmtu_test_talk(&p, t, HZ);
	t += HZ;
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t));
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_poll(&p, t + WGX_PMTU_SILENCE_FAST));
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_LOWERED);
	/* ...but the receiver's passive keepalive is no confirmation: back to DF. */
	t += WGX_PMTU_TEST_KEEPALIVE;
	wgx_pmtu_heard(&p, true, t);
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_DF);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1500U);
	/* The flow goes on, answered by keepalives: the slow silence, never reached. */
	for (i = 0; i < 6 * WGX_PMTU_TEST_KEEPALIVE; i += HZ / 10) {
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_poll(&p, t + i));
		KUNIT_EXPECT_FALSE(test, wgx_pmtu_sent(&p, 1500, 1500, true, t + i));
		if (!(i % WGX_PMTU_TEST_KEEPALIVE))
			wgx_pmtu_heard(&p, true, t + i);
	}
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_DF);
}

static void wgx_pmtu_fixed_ignores_icmp_and_silence(struct kunit *test)
{
	struct wgx_pmtu p = { };
	unsigned long t = 5000;

	wgx_pmtu_sent(&p, 100, 1500, true, t);
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_learn(&p, 1400, t));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1400U);

	/* Fixed: inner 1300 + 20 + 8 + 32 (IPv4), + 40 + 8 + 32 (IPv6); the ICMP is forgotten. */
	wgx_pmtu_set_fixed(&p, 1300);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_fixed(&p), 1300U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1360U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET6, t), 1380U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t), WGX_PATH_MTU_SOURCE_FIXED);
	/* No endpoint yet: no outer size to tell. */
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_UNSPEC, t), 0U);

	/* ICMP neither lowers nor raises it. */
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_learn(&p, 1200, t + 1));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_learn(&p, 1400, t + 1));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t + 1), 1360U);

	/* Unanswered full-size DF packets: no blackhole, no probe, DF stays. */
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_test_silence(&p, 1360, t + 2));
	KUNIT_EXPECT_FALSE(test, wgx_pmtu_test_silence(&p, 1360, t + 3 + WGX_PMTU_SILENCE));
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_DF);
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_df(&p));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t + 4 + 2 * WGX_PMTU_SILENCE),
			WGX_PATH_MTU_SOURCE_FIXED);

	/* Auto again: the route's MTU, and ICMP and silence teach again. */
	t += 4 + 2 * WGX_PMTU_SILENCE;
	wgx_pmtu_set_fixed(&p, 0);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1500U);
	KUNIT_EXPECT_EQ(test, wgx_pmtu_source(&p, AF_INET, t), WGX_PATH_MTU_SOURCE_ROUTE);
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_learn(&p, 1400, t));
	KUNIT_EXPECT_EQ(test, wgx_pmtu_outer(&p, AF_INET, t), 1400U);
	KUNIT_EXPECT_TRUE(test, wgx_pmtu_test_silence(&p, 1400, t + 1));
	KUNIT_EXPECT_EQ(test, p.state, (u8)WGX_PMTU_LOWERED);
}

static struct kunit_case wgx_pmtu_cases[] = {
	KUNIT_CASE(wgx_pmtu_icmp_floor),
	KUNIT_CASE(wgx_pmtu_icmp_quoted),
	KUNIT_CASE(wgx_pmtu_learn_lowers_and_expires),
	KUNIT_CASE(wgx_pmtu_blackhole_lowers_then_fragments),
	KUNIT_CASE(wgx_pmtu_blackhole_confirmed_stays_lowered),
	KUNIT_CASE(wgx_pmtu_blackhole_needs_silence),
	KUNIT_CASE(wgx_pmtu_blackhole_fast_after_prompt_answers),
	KUNIT_CASE(wgx_pmtu_blackhole_not_random_loss),
	KUNIT_CASE(wgx_pmtu_blackhole_fast_needs_data),
	KUNIT_CASE(wgx_pmtu_fixed_ignores_icmp_and_silence),
	{}
};

static struct kunit_suite wgx_pmtu_suite = {
	.name = "wgx_pmtu",
	.test_cases = wgx_pmtu_cases,
};

kunit_test_suites(&wgx_pmtu_suite);
