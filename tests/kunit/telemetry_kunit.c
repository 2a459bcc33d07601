// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry_kunit.c - KUnit suite "wgx_telemetry": a peer's telemetry state
 * exists only once something was recorded (kmod/telemetry.c).  Before, every
 * reader sees no sample and the records that only end a pending one
 * allocate nothing; an initiation sent allocates it, and its response gives
 * one handshake RTT sample.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "telemetry.h"

static void wgx_telemetry_nothing_until_recorded(struct kunit *test)
{
	struct wgx_telemetry t;
	struct wgx_telemetry_rtt rtt;
	struct wgx_telemetry_tcpstat tcp;

	wgx_telemetry_init(&t);
	KUNIT_EXPECT_NULL(test, t.s);
	memset(&rtt, 0xff, sizeof(rtt));
	memset(&tcp, 0xff, sizeof(tcp));
	wgx_telemetry_read(&t, &rtt);
	wgx_telemetry_tcp_read(&t, &tcp);
	KUNIT_EXPECT_EQ(test, rtt.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, rtt.last_us, 0ULL);
	KUNIT_EXPECT_EQ(test, tcp.rtt.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, tcp.retransmits, 0ULL);
	/* Ending, restarting: nothing to end, nothing allocated. */
	wgx_telemetry_response_received(&t, 7, 1000);
	wgx_telemetry_confirmed(&t, 7);
	wgx_telemetry_endpoint_moved(&t);
	KUNIT_EXPECT_NULL(test, t.s);
	wgx_telemetry_destroy(&t);
}

static void wgx_telemetry_allocated_at_first_record(struct kunit *test)
{
	struct wgx_telemetry t;
	struct wgx_telemetry_state *s;
	struct wgx_telemetry_rtt rtt;

	wgx_telemetry_init(&t);
	wgx_telemetry_initiation_sent(&t, 42);
	s = t.s;
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* The answer to that initiation: one sample, in the same state. */
	wgx_telemetry_response_received(&t, 42, s->init_sent_ns + 3 * NSEC_PER_MSEC);
	KUNIT_EXPECT_PTR_EQ(test, t.s, s);
	wgx_telemetry_read(&t, &rtt);
	KUNIT_EXPECT_EQ(test, rtt.samples, 1ULL);
	KUNIT_EXPECT_EQ(test, rtt.last_us, 3000ULL);
	/* A second record keeps the state it has. */
	wgx_telemetry_response_sent(&t, 9);
	KUNIT_EXPECT_PTR_EQ(test, t.s, s);
	wgx_telemetry_destroy(&t);
	KUNIT_EXPECT_NULL(test, t.s);
}

static struct kunit_case wgx_telemetry_cases[] = {
	KUNIT_CASE(wgx_telemetry_nothing_until_recorded),
	KUNIT_CASE(wgx_telemetry_allocated_at_first_record),
	{}
};

static struct kunit_suite wgx_telemetry_suite = {
	.name = "wgx_telemetry",
	.test_cases = wgx_telemetry_cases,
};

kunit_test_suites(&wgx_telemetry_suite);
