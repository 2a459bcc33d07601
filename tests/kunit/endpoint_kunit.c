// SPDX-License-Identifier: GPL-2.0
/*
 * endpoint_kunit.c - KUnit suite "wgx_endpoint": what a received
 * authenticated message means for a peer's endpoint (kmod/endpoint.c,
 * wgx_endpoint_classify()), with times passed in:
 *
 *   the endpoint's own port           nothing moves; its timestamp is
 *                                     refreshed once WGX_PORT_TOUCH old;
 *   another port, endpoint heard      nothing moves (a sender spreading its
 *                                     flows over its ports), however many
 *                                     ports appear;
 *   another port, endpoint silent     port roaming once the endpoint's port
 *                                     has been silent for WGX_PORT_STALE
 *                                     and still is WGX_PORT_GRACE after the
 *                                     other port's first data (the locked
 *                                     re-check agrees); heard within the
 *                                     grace, nothing moves;
 *   a first-port message              port roaming at once (handshake
 *                                     messages and keepalives leave from
 *                                     the sender's first port);
 *   another address or local address  host roaming at once;
 *   jiffies wrapping                  ages are taken modulo 2^32.
 */
#include "../../kmod/endpoint.c"

#include <kunit/test.h>

#define WGX_ENDPOINT_TEST_ADDR	0xc0000201	/* 192.0.2.1 */
#define WGX_ENDPOINT_TEST_SRC	0xc0000202	/* 192.0.2.2 */

static void wgx_endpoint_test_v4(struct wgx_endpoint *e, u32 addr, u16 port)
{
	memset(e, 0, sizeof(*e));
	e->addr4.sin_family = AF_INET;
	e->addr4.sin_addr.s_addr = htonl(addr);
	e->addr4.sin_port = htons(port);
	e->src4.s_addr = htonl(WGX_ENDPOINT_TEST_SRC);
	e->src_if4 = 2;
}

/* A peer whose endpoint is 192.0.2.1:@port, that port last heard at @heard. */
static struct wgx_peer *wgx_endpoint_test_peer(struct kunit *test, u16 port, unsigned long heard)
{
	struct wgx_peer *peer = kunit_kzalloc(test, sizeof(*peer), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, peer);
	wgx_endpoint_test_v4(&peer->endpoint, WGX_ENDPOINT_TEST_ADDR, port);
	wgx_endpoint_heard_reset(&peer->endpoint_heard, htons(port), heard);
	return peer;
}

static void wgx_endpoint_own_port_stays(struct kunit *test)
{
	unsigned long t0 = 1000000;
	struct wgx_peer *peer = wgx_endpoint_test_peer(test, 51820, t0);
	struct wgx_endpoint from;

	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 51820);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + 1, true, false), WGX_ROAM_NONE);
	/* Younger than WGX_PORT_TOUCH: no write. */
	KUNIT_EXPECT_EQ(test, peer->endpoint_heard.seen, (u32)t0);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + WGX_PORT_TOUCH, true, false),
			WGX_ROAM_NONE);
	KUNIT_EXPECT_EQ(test, peer->endpoint_heard.seen, (u32)(t0 + WGX_PORT_TOUCH));
	/* Long silent, then heard: still nothing to move, and heard again. */
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + 100 * HZ, true, true),
			WGX_ROAM_NONE);
	KUNIT_EXPECT_EQ(test, peer->endpoint_heard.seen, (u32)(t0 + 100 * HZ));
}

static void wgx_endpoint_other_ports_stay_while_heard(struct kunit *test)
{
	unsigned long t0 = 2000000;
	struct wgx_peer *peer = wgx_endpoint_test_peer(test, 51820, t0);
	struct wgx_endpoint from;
	unsigned int i;

	/* A wgx sender's 7 other ports, each new, all within the 2 s. */
	for (i = 1; i < 8; i++) {
		wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 40000 + i);
		KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + i * HZ / 8, true, false),
				WGX_ROAM_NONE);
	}
	/* Just under WGX_PORT_STALE since the endpoint's port was heard. */
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + WGX_PORT_STALE - 1, true, false),
			WGX_ROAM_NONE);
	/* The endpoint's port heard again: the other ports stay harmless. */
	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 51820);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + WGX_PORT_STALE - 1, true, false),
			WGX_ROAM_NONE);
	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 40001);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + 2 * WGX_PORT_STALE - 2, true, false),
			WGX_ROAM_NONE);
}

static void wgx_endpoint_other_port_moves_once_silent(struct kunit *test)
{
	unsigned long t0 = 3000000, t1 = t0 + WGX_PORT_STALE;
	struct wgx_peer *peer = wgx_endpoint_test_peer(test, 51820, t0);
	struct wgx_endpoint from, own;

	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 40001);
	wgx_endpoint_test_v4(&own, WGX_ENDPOINT_TEST_ADDR, 51820);
	/* Silent for WGX_PORT_STALE: the other port's data is noted, not followed yet. */
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t1, true, false), WGX_ROAM_NONE);
	KUNIT_EXPECT_NE(test, peer->endpoint_heard.other, 0U);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t1 + WGX_PORT_GRACE - 1, true, false),
			WGX_ROAM_NONE);
	/* The endpoint's port speaks within the grace (a keepalive): nothing moves. */
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &own, t1 + WGX_PORT_GRACE - 1, true, false),
			WGX_ROAM_NONE);
	KUNIT_EXPECT_EQ(test, peer->endpoint_heard.other, 0U);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t1 + 2 * WGX_PORT_GRACE, true, false),
			WGX_ROAM_NONE);
	KUNIT_EXPECT_EQ(test, peer->endpoint_heard.other, 0U);
	/* Silent again; this time it stays silent for the grace: port roaming. */
	t1 = t1 + WGX_PORT_GRACE - 1 + WGX_PORT_STALE;
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t1, true, false), WGX_ROAM_NONE);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t1 + WGX_PORT_GRACE, true, false),
			WGX_ROAM_PORT);
	/* The locked re-check (no touch) agrees. */
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t1 + WGX_PORT_GRACE, false, false),
			WGX_ROAM_PORT);
	/* Classifying moves nothing itself; the move (under the lock) does. */
	KUNIT_EXPECT_EQ(test, ntohs(peer->endpoint_heard.port), 51820);
	wgx_endpoint_heard_reset(&peer->endpoint_heard, from.addr4.sin_port, t1 + WGX_PORT_GRACE);
	KUNIT_EXPECT_EQ(test, peer->endpoint_heard.other, 0U);
}

static void wgx_endpoint_first_port_moves_at_once(struct kunit *test)
{
	unsigned long t0 = 4000000;
	struct wgx_peer *peer = wgx_endpoint_test_peer(test, 40001, t0);
	struct wgx_endpoint from;

	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 51820);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + 1, true, true), WGX_ROAM_PORT);
	/* The same port as transport data: waits for the silence. */
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + 1, true, false), WGX_ROAM_NONE);
}

static void wgx_endpoint_other_host_moves_at_once(struct kunit *test)
{
	unsigned long t0 = 5000000;
	struct wgx_peer *peer = wgx_endpoint_test_peer(test, 51820, t0);
	struct wgx_endpoint from;

	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR + 1, 51820);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + 1, true, false), WGX_ROAM_HOST);
	/* Our other local address: another path too. */
	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 51820);
	from.src4.s_addr = htonl(WGX_ENDPOINT_TEST_SRC + 1);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + 1, true, false), WGX_ROAM_HOST);
}

static void wgx_endpoint_ages_wrap(struct kunit *test)
{
	/* Heard just before the low 32 bits of jiffies wrap, asked after. */
	unsigned long t0 = 0xffffffffUL - HZ / 2;
	struct wgx_peer *peer = wgx_endpoint_test_peer(test, 51820, t0);
	struct wgx_endpoint from;

	wgx_endpoint_test_v4(&from, WGX_ENDPOINT_TEST_ADDR, 40001);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + HZ, true, false), WGX_ROAM_NONE);
	KUNIT_EXPECT_EQ(test, peer->endpoint_heard.other, 0U);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + WGX_PORT_STALE, true, false),
			WGX_ROAM_NONE);
	KUNIT_EXPECT_EQ(test, wgx_endpoint_classify(peer, &from, t0 + WGX_PORT_STALE + WGX_PORT_GRACE,
						    true, false),
			WGX_ROAM_PORT);
}

static struct kunit_case wgx_endpoint_cases[] = {
	KUNIT_CASE(wgx_endpoint_own_port_stays),
	KUNIT_CASE(wgx_endpoint_other_ports_stay_while_heard),
	KUNIT_CASE(wgx_endpoint_other_port_moves_once_silent),
	KUNIT_CASE(wgx_endpoint_first_port_moves_at_once),
	KUNIT_CASE(wgx_endpoint_other_host_moves_at_once),
	KUNIT_CASE(wgx_endpoint_ages_wrap),
	{}
};

static struct kunit_suite wgx_endpoint_suite = {
	.name = "wgx_endpoint",
	.test_cases = wgx_endpoint_cases,
};

kunit_test_suites(&wgx_endpoint_suite);
