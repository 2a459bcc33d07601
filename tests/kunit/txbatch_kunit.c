// SPDX-License-Identifier: GPL-2.0
/*
 * txbatch_kunit.c - KUnit suite "wgx_txbatch": the outer UDP GSO batch of
 * kmod/txbatch.c.
 *
 *   wgx_txbatch_fits()    what joins a batch: one peer, keypair, listen
 *                         port, DSCP/ECN byte, DF choice and flow bucket,
 *                         segments of an inner GSO packet no longer than
 *                         the first; a shorter one closes the batch, and
 *                         so do the segment and byte limits;
 *   wgx_txbatch_build()   the GSO skb, split again by the kernel's own UDP
 *                         segmentation (skb_gso_segment(), software, as
 *                         validate_xmit_skb() does for a device without
 *                         UDP segmentation offload): as many datagrams as
 *                         were batched, in order, each the batched bytes
 *                         with its own IPv4 and UDP header, lengths and
 *                         valid checksums; the last one shorter.
 */
#include <kunit/test.h>
#include <asm/unaligned.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <wgx/messages.h>
#include <wgx/transport.h>

#include "compat.h"
#include "kunit_util.h"
#include "queueing.h"
#include "send.h"
#include "txbatch.h"

#define WGX_KUNIT_SRC 0x0a000001	/* 10.0.0.1 */
#define WGX_KUNIT_DST 0x0a000002	/* 10.0.0.2 */

/* Stand-ins for the cb's peer and keypair: compared, never used. */
static u8 wgx_txbatch_test_peer[2], wgx_txbatch_test_keypair[2];

/*
 * A transport message of @len bytes (header with counter @nonce, then pattern
 * bytes) as the tx worker holds it after encryption: cb of peer 0, keypair
 * 0, port 1, bucket 7, ds 0, @gso flags.
 */
static struct sk_buff *wgx_txbatch_test_msg(struct kunit *test, unsigned int len, u64 nonce,
					    u8 gso)
{
	struct sk_buff *skb = alloc_skb(WGX_SEND_HEADROOM + len, GFP_KERNEL);
	struct wgx_skb_cb *cb;
	unsigned int i;
	u8 *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	skb_reserve(skb, WGX_SEND_HEADROOM);
	p = skb_put(skb, len);
	KUNIT_ASSERT_EQ(test, wgx_transport_write_header(p, 0x01020304, nonce), 0);
	for (i = WGX_MSG_TRANSPORT_HEADER_LEN; i < len; i++)
		p[i] = (u8)(i * 11 + nonce);
	cb = WGX_SKB_CB(skb);
	memset(cb, 0, sizeof(*cb));
	cb->peer = (struct wgx_peer *)&wgx_txbatch_test_peer[0];
	cb->keypair = (struct wgx_keypair *)&wgx_txbatch_test_keypair[0];
	cb->nonce = nonce;
	cb->port = 1;
	cb->bucket = 7;
	cb->gso = gso;
	return skb;
}

static void wgx_txbatch_test_purge(struct wgx_txbatch *b)
{
	__skb_queue_purge(&b->list);
}

static void wgx_txbatch_may_start_only_segments(struct kunit *test)
{
	struct sk_buff *seg = wgx_txbatch_test_msg(test, 100, 0, WGX_SKB_GSO_SEG);
	struct sk_buff *last = wgx_txbatch_test_msg(test, 100, 0, WGX_SKB_GSO_SEG | WGX_SKB_GSO_LAST);
	struct sk_buff *single = wgx_txbatch_test_msg(test, 100, 0, 0);

	KUNIT_EXPECT_TRUE(test, wgx_txbatch_may_start(seg));
	/* An inner packet's only (or last) segment has nothing to wait for. */
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_may_start(last));
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_may_start(single));
	kfree_skb(seg);
	kfree_skb(last);
	kfree_skb(single);
}

/* Each field that must match, changed in turn, keeps a datagram out. */
static void wgx_txbatch_fits_same_session_and_size(struct kunit *test)
{
	struct wgx_txbatch b;
	atomic_t pending[WGX_TXQ_BUCKETS] = { };
	struct sk_buff *skb;
	struct wgx_skb_cb *cb;
	int i;

	wgx_txbatch_init(&b, pending);
	skb = wgx_txbatch_test_msg(test, 1000, 0, WGX_SKB_GSO_SEG);
	/* An empty batch takes nothing by fitting: it is started (may_start). */
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_fits(&b, skb));
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_add(&b, skb));
	KUNIT_EXPECT_EQ(test, b.seg_len, 1000U);

	for (i = 0; i <= 8; i++) {
		skb = wgx_txbatch_test_msg(test, i == 7 ? 1001 : 1000, 1, WGX_SKB_GSO_SEG);
		cb = WGX_SKB_CB(skb);
		switch (i) {
		case 0: /* the same in everything: fits */
			break;
		case 1:
			cb->keypair = (struct wgx_keypair *)&wgx_txbatch_test_keypair[1];
			break;
		case 2:
			cb->peer = (struct wgx_peer *)&wgx_txbatch_test_peer[1];
			break;
		case 3:
			cb->port = 2;
			break;
		case 4:
			cb->ds = 2;
			break;
		case 5:
			cb->frag = 1;
			break;
		case 6:
			cb->bucket = 8;
			break;
		case 7: /* longer than the segment size */
			break;
		case 8: /* not a segment of an inner GSO packet */
			cb->gso = 0;
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, wgx_txbatch_fits(&b, skb), i == 0, "variant %d", i);
		kfree_skb(skb);
	}

	/* A shorter datagram joins as the last one and closes the batch. */
	skb = wgx_txbatch_test_msg(test, 600, 1, WGX_SKB_GSO_SEG);
	KUNIT_EXPECT_TRUE(test, wgx_txbatch_fits(&b, skb));
	KUNIT_EXPECT_TRUE(test, wgx_txbatch_add(&b, skb));
	skb = wgx_txbatch_test_msg(test, 600, 2, WGX_SKB_GSO_SEG);
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_fits(&b, skb));
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&b.list), 2U);
	KUNIT_EXPECT_EQ(test, b.len, 1600U);
	wgx_txbatch_test_purge(&b);
}

/* The inner packet's last segment closes the batch even at full size. */
static void wgx_txbatch_last_segment_closes(struct kunit *test)
{
	struct wgx_txbatch b;
	atomic_t pending[WGX_TXQ_BUCKETS] = { };

	wgx_txbatch_init(&b, pending);
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_add(&b, wgx_txbatch_test_msg(test, 500, 0,
									    WGX_SKB_GSO_SEG)));
	KUNIT_EXPECT_TRUE(test, wgx_txbatch_add(&b, wgx_txbatch_test_msg(test, 500, 1,
							WGX_SKB_GSO_SEG | WGX_SKB_GSO_LAST)));
	wgx_txbatch_test_purge(&b);
}

/* At most WGX_TXBATCH_MAX_SEGS datagrams and WGX_TXBATCH_MAX_LEN bytes. */
static void wgx_txbatch_limits(struct kunit *test)
{
	const unsigned int big = 1440, big_max = WGX_TXBATCH_MAX_LEN / big;
	struct wgx_txbatch b;
	atomic_t pending[WGX_TXQ_BUCKETS] = { };
	struct sk_buff *skb;
	unsigned int i;

	wgx_txbatch_init(&b, pending);
	for (i = 1; i <= WGX_TXBATCH_MAX_SEGS; i++) {
		skb = wgx_txbatch_test_msg(test, 100, i, WGX_SKB_GSO_SEG);
		if (i > 1)
			KUNIT_EXPECT_TRUE(test, wgx_txbatch_fits(&b, skb));
		KUNIT_EXPECT_EQ_MSG(test, wgx_txbatch_add(&b, skb), i == WGX_TXBATCH_MAX_SEGS,
				    "datagram %u", i);
	}
	skb = wgx_txbatch_test_msg(test, 100, i, WGX_SKB_GSO_SEG);
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_fits(&b, skb));
	kfree_skb(skb);
	wgx_txbatch_test_purge(&b);

	/* Full-size datagrams: the batch closes before the outer packet passes 64 KiB. */
	wgx_txbatch_init(&b, pending);
	for (i = 1; i <= big_max; i++)
		KUNIT_EXPECT_EQ_MSG(test, wgx_txbatch_add(&b, wgx_txbatch_test_msg(test, big, i,
										 WGX_SKB_GSO_SEG)),
				    i == big_max, "datagram %u", i);
	KUNIT_EXPECT_LE(test, b.len + sizeof(struct iphdr) + sizeof(struct udphdr), (size_t)U16_MAX);
	skb = wgx_txbatch_test_msg(test, big, i, WGX_SKB_GSO_SEG);
	KUNIT_EXPECT_FALSE(test, wgx_txbatch_fits(&b, skb));
	kfree_skb(skb);
	wgx_txbatch_test_purge(&b);
}

/*
 * Build a batch of @n datagrams (@seg bytes, the last @last bytes), give it
 * the outer IPv4 and UDP headers udp_tunnel_xmit_skb() gives it, and split
 * it with the kernel's software UDP segmentation.
 */
static void wgx_txbatch_test_split(struct kunit *test, unsigned int n, unsigned int seg,
				   unsigned int last)
{
	unsigned int total = (n - 1) * seg + last, i, udp_len, off = 0;
	struct sk_buff *gso, *segs, *s, *next;
	atomic_t pending[WGX_TXQ_BUCKETS] = { };
	struct wgx_txbatch b;
	struct udphdr *uh;
	struct iphdr *iph;
	u8 *want, *pkt;

	want = kunit_kzalloc(test, total, GFP_KERNEL);
	pkt = kunit_kzalloc(test, sizeof(*iph) + sizeof(*uh) + seg, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, want && pkt);
	wgx_txbatch_init(&b, pending);
	for (i = 0; i < n; i++) {
		struct sk_buff *m = wgx_txbatch_test_msg(test, i == n - 1 ? last : seg, 100 + i,
							 i == n - 1 ? WGX_SKB_GSO_SEG | WGX_SKB_GSO_LAST :
								      WGX_SKB_GSO_SEG);

		memcpy(want + off, m->data, m->len);
		off += m->len;
		KUNIT_EXPECT_TRUE(test, i == 0 || wgx_txbatch_fits(&b, m));
		KUNIT_EXPECT_EQ(test, wgx_txbatch_add(&b, m), i == n - 1);
	}
	gso = wgx_txbatch_build(&b);
	wgx_txbatch_test_purge(&b);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, gso);
	KUNIT_EXPECT_TRUE(test, skb_is_gso(gso));
	KUNIT_EXPECT_EQ(test, skb_shinfo(gso)->gso_type, (unsigned int)SKB_GSO_UDP_L4);
	KUNIT_EXPECT_EQ(test, skb_shinfo(gso)->gso_size, (unsigned short)seg);
	KUNIT_EXPECT_EQ(test, skb_shinfo(gso)->gso_segs, (unsigned short)n);
	KUNIT_EXPECT_EQ(test, gso->len, total);
	KUNIT_EXPECT_EQ(test, WGX_SKB_CB(gso)->bucket, 7);
	KUNIT_EXPECT_GE(test, skb_headroom(gso), (unsigned int)(sizeof(*iph) + sizeof(*uh)));

	/* What udp_tunnel_xmit_skb() and the IP output do to it. */
	udp_len = sizeof(*uh) + total;
	uh = skb_push(gso, sizeof(*uh));
	skb_reset_transport_header(gso);
	KUNIT_EXPECT_PTR_EQ(test, skb_checksum_start(gso), skb_transport_header(gso));
	uh->source = htons(51820);
	uh->dest = htons(51821);
	uh->len = htons(udp_len);
	uh->check = ~csum_tcpudp_magic(htonl(WGX_KUNIT_SRC), htonl(WGX_KUNIT_DST), udp_len,
				       IPPROTO_UDP, 0);
	iph = skb_push(gso, sizeof(*iph));
	skb_reset_network_header(gso);
	wgx_kunit_ipv4_header(iph, IPPROTO_UDP, 0, sizeof(*iph) + udp_len, WGX_KUNIT_SRC,
			      WGX_KUNIT_DST);
	gso->protocol = htons(ETH_P_IP);

	/* No device features: segmentation and checksums in software. */
	segs = skb_gso_segment(gso, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, segs);
	consume_skb(gso);
	off = 0;
	i = 0;
	skb_list_walk_safe(segs, s, next) {
		unsigned int len = i == n - 1 ? last : seg;
		const struct iphdr *ih = (const struct iphdr *)pkt;
		const struct udphdr *u = (const struct udphdr *)(pkt + sizeof(*ih));

		skb_mark_not_on_list(s);
		KUNIT_EXPECT_LT(test, i, n);
		KUNIT_EXPECT_EQ_MSG(test, s->len, (unsigned int)(sizeof(*ih) + sizeof(*u) + len),
				    "datagram %u", i);
		if (i < n && s->len == sizeof(*ih) + sizeof(*u) + len) {
			KUNIT_ASSERT_EQ(test, skb_copy_bits(s, 0, pkt, s->len), 0);
			KUNIT_EXPECT_EQ(test, ntohs(ih->tot_len), s->len);
			KUNIT_EXPECT_EQ(test, ip_fast_csum(ih, ih->ihl), 0);
			KUNIT_EXPECT_EQ(test, ntohs(u->len), sizeof(*u) + len);
			KUNIT_EXPECT_EQ(test, ntohs(u->dest), 51821);
			KUNIT_EXPECT_EQ_MSG(test, csum_tcpudp_magic(ih->saddr, ih->daddr,
								    sizeof(*u) + len, IPPROTO_UDP,
								    csum_partial(u, sizeof(*u) + len,
										 0)),
					    0, "datagram %u: bad UDP checksum", i);
			/* The batched message, whole and in order: its counter says which. */
			KUNIT_EXPECT_EQ(test, get_unaligned_le64(pkt + sizeof(*ih) + sizeof(*u) + 8),
					100ULL + i);
			WGX_KUNIT_EXPECT_MEMEQ(test, pkt + sizeof(*ih) + sizeof(*u), want + off, len);
		}
		off += len;
		i++;
		kfree_skb(s);
	}
	KUNIT_EXPECT_EQ(test, i, n);
}

static void wgx_txbatch_split_equal_and_short_last(struct kunit *test)
{
	/* 1420-byte inner packets: 1440-byte messages; a short last one. */
	wgx_txbatch_test_split(test, 5, 1440, 320);
}

static void wgx_txbatch_split_all_equal(struct kunit *test)
{
	wgx_txbatch_test_split(test, 3, 1440, 1440);
}

static void wgx_txbatch_split_largest(struct kunit *test)
{
	/* As many full-size datagrams as one outer packet takes, over many pages. */
	const unsigned int n = WGX_TXBATCH_MAX_LEN / 1440;

	wgx_txbatch_test_split(test, n, 1440, 1440);
}

static struct kunit_case wgx_txbatch_cases[] = {
	KUNIT_CASE(wgx_txbatch_may_start_only_segments),
	KUNIT_CASE(wgx_txbatch_fits_same_session_and_size),
	KUNIT_CASE(wgx_txbatch_last_segment_closes),
	KUNIT_CASE(wgx_txbatch_limits),
	KUNIT_CASE(wgx_txbatch_split_equal_and_short_last),
	KUNIT_CASE(wgx_txbatch_split_all_equal),
	KUNIT_CASE(wgx_txbatch_split_largest),
	{}
};

static struct kunit_suite wgx_txbatch_suite = {
	.name = "wgx_txbatch",
	.test_cases = wgx_txbatch_cases,
};

kunit_test_suites(&wgx_txbatch_suite);
