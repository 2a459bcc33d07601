// SPDX-License-Identifier: GPL-2.0
/*
 * send_kunit.c - KUnit suite "wgx_send": the transmit path's skb helpers
 * (kmod/send.c).  This file compiles send.c itself (tests/kunit/Kbuild drops
 * kmod/send.o from the KUnit build) so the static helpers are reachable:
 *
 *   wgx_send_encrypt_skb()  padding (whitepaper 5.4.6), transport header
 *                           push, in-place scatter-gather encryption of
 *                           linear, paged and cloned skbs, and the pending
 *                           inner checksum finished before encryption;
 *   wgx_send_xmit()         GSO packets are segmented before they are queued
 *                           for encryption, each segment within the MTU and
 *                           holding one peer reference; drops keep the
 *                           reference count balanced;
 *   wgx_send_stage()        a packet staged while the peer has a keypair that
 *                           may send (a handshake completed after the tx
 *                           worker looked) goes to the tx queue at once; one
 *                           staged without a keypair waits, and the caller is
 *                           told to ask for a handshake; a dead peer's packet
 *                           is dropped, not staged.
 *
 * Every encrypted skb is checked by decrypting a linear copy with the core's
 * wgx_transport_decrypt(), i.e. against the wire format, not against itself.
 */
#include "../../kmod/send.c"

#include <kunit/test.h>
#include <asm/unaligned.h>
#include <linux/etherdevice.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <wgx/core_test.h>

#include "kunit_util.h"

#define WGX_KUNIT_MTU 1420
#define WGX_KUNIT_SRC 0x0a000001	/* 10.0.0.1 */
#define WGX_KUNIT_DST 0x0a000002	/* 10.0.0.2 */

static struct wgx_keypair *wgx_send_test_keypair(struct kunit *test)
{
	struct wgx_keypair *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, kp);
	kp->keys.remote_index = 0x0a0b0c0d;
	get_random_bytes(kp->keys.sending_key, sizeof(kp->keys.sending_key));
	return kp;
}

/* An skb of @len pattern bytes (no IP header), linear, with room for nothing extra. */
static struct sk_buff *wgx_send_test_raw(struct kunit *test, unsigned int len, unsigned int headroom)
{
	struct sk_buff *skb = alloc_skb(headroom + len, GFP_KERNEL);
	unsigned int i;
	u8 *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	skb_reserve(skb, headroom);
	/* Any device: the flow dissector (skb_get_hash) wants a namespace. */
	skb->dev = init_net.loopback_dev;
	p = skb_put(skb, len);
	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 7 + 3);
	skb_reset_network_header(skb);
	return skb;
}

/*
 * An IPv4/UDP packet 10.0.0.1:1234 -> 10.0.0.2:5678 with @payload bytes.
 * @partial: leave the UDP checksum to be finished (CHECKSUM_PARTIAL, as a
 * local socket on a device with checksum offload would); else complete.
 */
static struct sk_buff *wgx_send_test_udp4(struct kunit *test, unsigned int payload, bool partial)
{
	unsigned int udp_len = sizeof(struct udphdr) + payload;
	unsigned int len = sizeof(struct iphdr) + udp_len, i;
	struct sk_buff *skb = alloc_skb(WGX_SEND_HEADROOM + len, GFP_KERNEL);
	struct udphdr *uh;
	struct iphdr *iph;
	u8 *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	skb_reserve(skb, WGX_SEND_HEADROOM);
	skb->dev = init_net.loopback_dev;
	skb_reset_network_header(skb);
	skb_reset_mac_header(skb);
	iph = skb_put(skb, sizeof(*iph));
	wgx_kunit_ipv4_header(iph, IPPROTO_UDP, 0, len, WGX_KUNIT_SRC, WGX_KUNIT_DST);
	skb_set_transport_header(skb, sizeof(*iph));
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(1234);
	uh->dest = htons(5678);
	uh->len = htons(udp_len);
	p = skb_put(skb, payload);
	for (i = 0; i < payload; i++)
		p[i] = (u8)(i * 13 + 1);
	skb->protocol = htons(ETH_P_IP);
	if (partial) {
		uh->check = ~csum_tcpudp_magic(iph->saddr, iph->daddr, udp_len, IPPROTO_UDP, 0);
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
	} else {
		uh->check = csum_tcpudp_magic(iph->saddr, iph->daddr, udp_len, IPPROTO_UDP,
					      csum_partial(uh, udp_len, 0));
		if (!uh->check)
			uh->check = CSUM_MANGLED_0;
		skb->ip_summed = CHECKSUM_NONE;
	}
	return skb;
}

/* True when the IPv4 packet @pkt carries a valid IP header and UDP or TCP checksum. */
static bool wgx_send_test_csum_ok(const u8 *pkt, unsigned int len)
{
	const struct iphdr *iph = (const struct iphdr *)pkt;
	unsigned int l4_len;

	if (len < sizeof(*iph) || ip_fast_csum(iph, iph->ihl))
		return false;
	l4_len = ntohs(iph->tot_len) - iph->ihl * 4;
	return !csum_tcpudp_magic(iph->saddr, iph->daddr, l4_len, iph->protocol,
				  csum_partial(pkt + iph->ihl * 4, l4_len, 0));
}

/*
 * Decrypt a linear copy of transport message @skb with @kp's key; return the
 * plaintext (padded) in a kunit buffer and its length in *@plain_len, or
 * NULL after failing the test.
 */
static u8 *wgx_send_test_open(struct kunit *test, struct sk_buff *skb, struct wgx_keypair *kp,
			      u64 expect_counter, size_t *plain_len)
{
	u8 *buf = kunit_kzalloc(test, skb->len + 1, GFP_KERNEL);
	wgx_u64 counter = ~0ULL;
	u32 index = 0;
	int ret;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 0, buf, skb->len), 0);
	KUNIT_EXPECT_EQ(test, wgx_msg_classify(buf, skb->len), WGX_MSG_TRANSPORT);
	KUNIT_EXPECT_TRUE(test, wgx_msg_receiver_index(buf, skb->len, &index));
	KUNIT_EXPECT_EQ(test, index, kp->keys.remote_index);
	/* The message is decrypted with the receiving key of the other side, i.e. our sending key. */
	ret = wgx_transport_decrypt(buf, skb->len, kp->keys.sending_key, &counter, plain_len);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, counter, expect_counter);
	return ret ? NULL : buf + WGX_MSG_TRANSPORT_HEADER_LEN;
}

/*
 * Encrypt packets of many lengths and open them again: the padding (to 16
 * bytes, never beyond the MTU: whitepaper 5.4.6; with @express, the express
 * mark's 16 more zero bytes where the MTU allows), the header in front.
 */
static void wgx_send_test_padding(struct kunit *test, bool express, u64 nonce)
{
	static const unsigned int lens[] = { 0, 1, 15, 16, 17, 84, 100, 256, 1403, 1404, 1405, 1419, 1420 };
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++, nonce++) {
		unsigned int len = lens[i];
		unsigned int padded = min_t(unsigned int, ALIGN(len, 16), WGX_KUNIT_MTU);
		struct sk_buff *skb = wgx_send_test_raw(test, len, WGX_SEND_HEADROOM);
		u8 *orig = kunit_kmalloc(test, len + 1, GFP_KERNEL);
		size_t plain_len = 0;
		u8 *plain;

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, orig);
		memcpy(orig, skb->data, len);
		KUNIT_EXPECT_EQ(test, wgx_transport_padded_len(len, WGX_KUNIT_MTU), (size_t)padded);
		if (express && padded + WGX_TRANSPORT_EXPRESS_PAD <= WGX_KUNIT_MTU)
			padded += WGX_TRANSPORT_EXPRESS_PAD;
		KUNIT_ASSERT_TRUE_MSG(test, wgx_send_encrypt_skb(skb, kp, nonce, WGX_KUNIT_MTU, express),
				      "len %u", len);
		KUNIT_EXPECT_EQ_MSG(test, skb->len, WGX_MSG_TRANSPORT_HEADER_LEN + padded + WGX_AEAD_TAG_LEN,
				    "len %u", len);
		/* The header is in front, as written by the core. */
		KUNIT_EXPECT_EQ(test, skb->data[0], (u8)WGX_MSG_TRANSPORT);
		KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(skb->data + 1, 3));
		KUNIT_EXPECT_EQ(test, get_unaligned_le64(skb->data + 8), nonce);
		plain = wgx_send_test_open(test, skb, kp, nonce, &plain_len);
		if (plain) {
			KUNIT_EXPECT_EQ_MSG(test, plain_len, (size_t)padded, "len %u", len);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(plain, orig, len), 0, "len %u", len);
			KUNIT_EXPECT_TRUE_MSG(test, wgx_kunit_all_zero(plain + len, padded - len),
					      "padding of len %u is not zero", len);
		}
		kfree_skb(skb);
	}
}

static void wgx_send_encrypt_pads_and_pushes_header(struct kunit *test)
{
	wgx_send_test_padding(test, false, 1000);
}

/* The express mark: the padding is then at least 16, which the rule never makes. */
static void wgx_send_encrypt_express_pads_more(struct kunit *test)
{
	wgx_send_test_padding(test, true, 2000);
}

/* No headroom at all: the header push must make room, not scribble before head. */
static void wgx_send_encrypt_without_headroom(struct kunit *test)
{
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *skb = wgx_send_test_raw(test, 64, 0);
	size_t plain_len;
	u8 *plain;

	KUNIT_EXPECT_EQ(test, skb_headroom(skb), 0U);
	KUNIT_ASSERT_TRUE(test, wgx_send_encrypt_skb(skb, kp, 5, WGX_KUNIT_MTU, false));
	plain = wgx_send_test_open(test, skb, kp, 5, &plain_len);
	KUNIT_EXPECT_EQ(test, plain_len, (size_t)64);
	if (plain)
		KUNIT_EXPECT_EQ(test, plain[63], (u8)(63 * 7 + 3));
	kfree_skb(skb);
}

/* Payload in page fragments, and a clone sharing the data: both must come out right. */
static void wgx_send_encrypt_paged_and_cloned(struct kunit *test)
{
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *skb = wgx_send_test_raw(test, 40, WGX_SEND_HEADROOM);
	const unsigned int frag_len[2] = { 700, 333 };
	unsigned int total = 40 + frag_len[0] + frag_len[1], i, f;
	struct sk_buff *clone;
	u8 *orig = kunit_kmalloc(test, total, GFP_KERNEL);
	u8 *clone_copy = kunit_kmalloc(test, total, GFP_KERNEL);
	size_t plain_len;
	u8 *plain;

	KUNIT_ASSERT_TRUE(test, orig && clone_copy);
	for (f = 0; f < 2; f++) {
		struct page *page = alloc_page(GFP_KERNEL);
		u8 *va;

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
		va = page_address(page);
		for (i = 0; i < frag_len[f]; i++)
			va[100 + i] = (u8)(i ^ (0x5a + f));
		skb_add_rx_frag(skb, f, page, 100, frag_len[f], PAGE_SIZE);
	}
	KUNIT_ASSERT_EQ(test, skb->len, total);
	KUNIT_EXPECT_TRUE(test, skb_is_nonlinear(skb));
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 0, orig, total), 0);

	clone = skb_clone(skb, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, clone);
	KUNIT_ASSERT_TRUE(test, wgx_send_encrypt_skb(skb, kp, 77, WGX_KUNIT_MTU, false));

	/* The clone (think: a packet socket's copy) still sees the plaintext. */
	KUNIT_EXPECT_EQ(test, clone->len, total);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(clone, 0, clone_copy, total), 0);
	KUNIT_EXPECT_EQ(test, memcmp(clone_copy, orig, total), 0);

	plain = wgx_send_test_open(test, skb, kp, 77, &plain_len);
	KUNIT_EXPECT_EQ(test, plain_len, (size_t)ALIGN(total, 16));
	if (plain) {
		KUNIT_EXPECT_EQ(test, memcmp(plain, orig, total), 0);
		KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(plain + total, ALIGN(total, 16) - total));
	}
	kfree_skb(clone);
	kfree_skb(skb);
}

/* A pending (CHECKSUM_PARTIAL) inner checksum is finished before encryption. */
static void wgx_send_encrypt_finishes_inner_checksum(struct kunit *test)
{
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *skb = wgx_send_test_udp4(test, 301, true);
	unsigned int len = skb->len;
	size_t plain_len;
	u8 *plain;

	KUNIT_ASSERT_EQ(test, (u8)skb->ip_summed, (u8)CHECKSUM_PARTIAL);
	KUNIT_ASSERT_TRUE(test, wgx_send_encrypt_skb(skb, kp, 9, WGX_KUNIT_MTU, false));
	KUNIT_EXPECT_NE(test, (u8)skb->ip_summed, (u8)CHECKSUM_PARTIAL);
	plain = wgx_send_test_open(test, skb, kp, 9, &plain_len);
	if (plain)
		KUNIT_EXPECT_TRUE_MSG(test, wgx_send_test_csum_ok(plain, len),
				      "the receiver would see a bad UDP checksum");
	kfree_skb(skb);

	/* An already complete checksum stays valid. */
	skb = wgx_send_test_udp4(test, 64, false);
	len = skb->len;
	KUNIT_ASSERT_TRUE(test, wgx_send_encrypt_skb(skb, kp, 10, WGX_KUNIT_MTU, false));
	plain = wgx_send_test_open(test, skb, kp, 10, &plain_len);
	if (plain)
		KUNIT_EXPECT_TRUE(test, wgx_send_test_csum_ok(plain, len));
	kfree_skb(skb);
}

static void wgx_send_encrypt_refuses_exhausted_counter(struct kunit *test)
{
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *skb = wgx_send_test_raw(test, 32, WGX_SEND_HEADROOM);

	KUNIT_EXPECT_FALSE(test, wgx_send_encrypt_skb(skb, kp, WGX_TRANSPORT_REJECT_AFTER_MESSAGES,
						      WGX_KUNIT_MTU, false));
	kfree_skb(skb);
	skb = wgx_send_test_raw(test, 32, WGX_SEND_HEADROOM);
	KUNIT_EXPECT_TRUE(test, wgx_send_encrypt_skb(skb, kp, WGX_TRANSPORT_REJECT_AFTER_MESSAGES - 1,
						     WGX_KUNIT_MTU, false));
	kfree_skb(skb);
}

/* ---- wgx_send_xmit on a stand-alone device: one tx queue, no worker ---- */

struct wgx_send_xmit_fixture {
	struct net_device *dev;
	struct wgx_device *wgx;
	struct wgx_peer *peer;
	struct wgx_txq *txq;
};

static void wgx_send_test_txq_work(struct work_struct *work)
{
	/* The test drains the ring itself. */
}

static void wgx_send_test_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->mtu = WGX_KUNIT_MTU;
}

static int wgx_send_xmit_init(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	const u8 net10[4] = { 10, 0, 0, 0 };

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	test->priv = f;
	f->dev = alloc_netdev_mqs(sizeof(struct wgx_device), "wgxkunit%d", NET_NAME_UNKNOWN,
				  wgx_send_test_setup, 1, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->dev);
	f->wgx = netdev_priv(f->dev);
	f->wgx->dev = f->dev;
	f->wgx->stats = alloc_percpu(struct wgx_device_stats);
	f->wgx->allowedips = wgx_allowedips_create();
	f->wgx->tx_wq = alloc_workqueue("wgx-kunit-tx", 0, 0);
	f->txq = kunit_kzalloc(test, sizeof(*f->txq), GFP_KERNEL);
	f->peer = kunit_kzalloc(test, sizeof(*f->peer), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, f->wgx->stats && f->wgx->allowedips && f->wgx->tx_wq && f->txq &&
			  f->peer);
	KUNIT_ASSERT_EQ(test, ptr_ring_init(&f->txq->ring, WGX_TXQ_RING_SIZE, GFP_KERNEL), 0);
	f->txq->wgx = f->wgx;
	f->txq->cpu = raw_smp_processor_id();
	INIT_WORK(&f->txq->work, wgx_send_test_txq_work);
	f->wgx->txqs = f->txq;

	f->peer->wgx = f->wgx;
	f->peer->internal_id = 1;
	kref_init(&f->peer->refcount);	/* the test's reference */
	skb_queue_head_init(&f->peer->staged);
	f->peer->stats = alloc_percpu(struct wgx_peer_stats);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->peer->stats);
	f->peer->endpoint.addr4.sin_family = AF_INET;
	KUNIT_ASSERT_EQ(test, wgx_allowedips_insert(f->wgx->allowedips, WGX_AF_INET, net10, 24,
						    f->peer, true), 0);
	return 0;
}

static void wgx_send_xmit_exit(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct sk_buff *skb;

	if (!f || !f->dev)
		return;
	if (f->txq && f->txq->ring.queue) {
		while ((skb = ptr_ring_consume_bh(&f->txq->ring)) != NULL) {
			wgx_skb_cb_release(skb);
			kfree_skb(skb);
		}
		ptr_ring_cleanup(&f->txq->ring, NULL);
	}
	if (f->peer)
		skb_queue_purge(&f->peer->staged);
	if (f->wgx->tx_wq)
		destroy_workqueue(f->wgx->tx_wq);
	wgx_allowedips_destroy(f->wgx->allowedips);
	rcu_barrier();
	if (f->peer) {
		free_percpu(f->peer->stats);
		kfree(f->peer->stats_rare);
		wgx_telemetry_destroy(&f->peer->telemetry);
	}
	free_percpu(f->wgx->stats);
	free_netdev(f->dev);
}

/* ndo_start_xmit runs with BHs off (dev_queue_xmit's RCU-bh section). */
static netdev_tx_t wgx_send_test_xmit(struct sk_buff *skb, struct net_device *dev)
{
	netdev_tx_t ret;

	rcu_read_lock_bh();
	ret = wgx_send_xmit(skb, dev);
	rcu_read_unlock_bh();
	return ret;
}

/* A TCP segment train: IPv4/TCP with @segs * @mss payload bytes as one GSO skb. */
static struct sk_buff *wgx_send_test_tcp_gso(struct kunit *test, unsigned int mss, unsigned int segs)
{
	unsigned int payload = mss * segs, tcp_len = sizeof(struct tcphdr) + payload;
	unsigned int len = sizeof(struct iphdr) + tcp_len, i;
	struct sk_buff *skb = alloc_skb(LL_MAX_HEADER + len, GFP_KERNEL);
	struct tcphdr *th;
	struct iphdr *iph;
	u8 *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	skb_reserve(skb, LL_MAX_HEADER);
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	iph = skb_put(skb, sizeof(*iph));
	wgx_kunit_ipv4_header(iph, IPPROTO_TCP, 0, len, WGX_KUNIT_SRC, WGX_KUNIT_DST);
	skb_set_transport_header(skb, sizeof(*iph));
	th = skb_put_zero(skb, sizeof(*th));
	th->source = htons(40000);
	th->dest = htons(5201);
	th->seq = htonl(1);
	th->doff = sizeof(*th) / 4;
	th->ack = 1;
	th->window = htons(512);
	p = skb_put(skb, payload);
	for (i = 0; i < payload; i++)
		p[i] = (u8)(i * 31 + 7);
	skb->protocol = htons(ETH_P_IP);
	th->check = ~csum_tcpudp_magic(iph->saddr, iph->daddr, tcp_len, IPPROTO_TCP, 0);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct tcphdr, check);
	skb_shinfo(skb)->gso_size = mss;
	skb_shinfo(skb)->gso_segs = segs;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	return skb;
}

static void wgx_send_xmit_segments_gso_before_encryption(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	const unsigned int mss = 1000, segs = 5;
	struct sk_buff *skb = wgx_send_test_tcp_gso(test, mss, segs);
	unsigned int n = 0, payload = 0;
	netdev_tx_t ret;

	skb->dev = f->dev;
	ret = wgx_send_test_xmit(skb, f->dev);
	KUNIT_EXPECT_EQ(test, ret, NETDEV_TX_OK);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->txq->len), (int)segs);
	/* Each queued skb is one segment: a whole IP packet within the MTU, ready to encrypt. */
	while ((skb = ptr_ring_consume_bh(&f->txq->ring)) != NULL) {
		struct wgx_skb_cb *cb = WGX_SKB_CB(skb);
		const struct iphdr *iph;
		unsigned int len = skb->len;
		size_t plain_len;
		u8 *plain;

		n++;
		KUNIT_EXPECT_FALSE(test, skb_is_gso(skb));
		KUNIT_EXPECT_LE(test, skb->len, (unsigned int)WGX_KUNIT_MTU);
		KUNIT_EXPECT_PTR_EQ(test, cb->peer, f->peer);
		KUNIT_EXPECT_NULL(test, cb->keypair);
		KUNIT_EXPECT_EQ(test, cb->mtu, (u32)WGX_KUNIT_MTU);
		KUNIT_EXPECT_NULL(test, skb_dst(skb));
		iph = ip_hdr(skb);
		KUNIT_EXPECT_EQ(test, ntohs(iph->tot_len), len);
		payload += len - sizeof(struct iphdr) - sizeof(struct tcphdr);

		/* The tx worker's step: encrypt; the receiver gets a valid TCP segment. */
		KUNIT_EXPECT_TRUE(test, wgx_send_encrypt_skb(skb, kp, n, cb->mtu, false));
		plain = wgx_send_test_open(test, skb, kp, n, &plain_len);
		if (plain)
			KUNIT_EXPECT_TRUE_MSG(test, wgx_send_test_csum_ok(plain, len),
					      "segment %u: bad checksum after decryption", n);
		wgx_skb_cb_release(skb);
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ(test, n, segs);
	KUNIT_EXPECT_EQ(test, payload, mss * segs);
	/* Every reference xmit took went with its skb. */
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

static void wgx_send_xmit_drops_keep_references_balanced(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct sk_buff *skb;

	/* No peer owns the destination. */
	skb = wgx_send_test_udp4(test, 10, false);
	ip_hdr(skb)->daddr = htonl(0xc0000201);	/* 192.0.2.1 */
	skb->dev = f->dev;
	KUNIT_EXPECT_EQ(test, wgx_send_test_xmit(skb, f->dev), NETDEV_TX_OK);
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_TX_DROP_NO_PEER), 1ULL);

	/* Not even an IP packet. */
	skb = wgx_send_test_raw(test, 10, WGX_SEND_HEADROOM);
	skb->protocol = htons(ETH_P_ARP);
	skb->dev = f->dev;
	KUNIT_EXPECT_EQ(test, wgx_send_test_xmit(skb, f->dev), NETDEV_TX_OK);
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_TX_DROP_NO_PEER), 2ULL);

	/* The peer has no endpoint yet. */
	f->peer->endpoint.addr.sa_family = 0;
	skb = wgx_send_test_udp4(test, 10, false);
	skb->dev = f->dev;
	KUNIT_EXPECT_EQ(test, wgx_send_test_xmit(skb, f->dev), NETDEV_TX_OK);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(f->peer, WGX_PEER_STAT_TX_DROP_NO_ENDPOINT), 1ULL);

	KUNIT_EXPECT_EQ(test, atomic_read(&f->txq->len), 0);
	KUNIT_EXPECT_TRUE(test, __ptr_ring_empty(&f->txq->ring));
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

/*
 * The tx worker found no keypair, and a handshake completed (its flush of the
 * staged queue ran) before the worker staged the packet: staging must see
 * the keypair and send, or the packet waits for the next handshake or
 * keepalive (up to KEEPALIVE_TIMEOUT, 10 s).  WireGuard orders it as
 * stage-then-check for this reason.
 */
static void wgx_send_stage_flushes_when_keypair_appeared(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *skb = wgx_send_test_udp4(test, 10, false), *queued;

	kp->sending_valid = true;
	rcu_assign_pointer(f->peer->keypair_current, kp);
	skb->dev = f->dev;
	wgx_peer_get(f->peer);	/* the cb's reference, as the tx worker holds it */
	WGX_SKB_CB(skb)->peer = f->peer;

	KUNIT_EXPECT_TRUE(test, wgx_send_stage(f->peer, skb));
	wgx_peer_put(f->peer);	/* the caller's put of the cb's reference */
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->peer->staged), 0U);
	queued = ptr_ring_consume_bh(&f->txq->ring);
	KUNIT_EXPECT_PTR_EQ(test, queued, skb);
	if (queued) {
		KUNIT_EXPECT_PTR_EQ(test, WGX_SKB_CB(queued)->peer, f->peer);
		KUNIT_EXPECT_NULL(test, WGX_SKB_CB(queued)->keypair);
		wgx_skb_cb_release(queued);
		kfree_skb(queued);
	}
	RCU_INIT_POINTER(f->peer->keypair_current, NULL);
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

/*
 * A keypair arrived while a packet of a flow waited staged, and the next
 * packet of the same flow reaches the tx worker before the handshake's
 * flush ran: it must not leave ahead of the staged one.  It joins the staged
 * queue, which goes to the tx ring in order: the staged packet, then it.
 */
static void wgx_send_after_staged_keeps_order(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *first = wgx_send_test_udp4(test, 10, false);
	struct sk_buff *second = wgx_send_test_udp4(test, 10, false), *queued;

	wgx_timer_params_init(&f->peer->timer_state.params, 1);
	first->dev = f->dev;
	second->dev = f->dev;
	KUNIT_EXPECT_FALSE(test, wgx_send_stage(f->peer, first));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->peer->staged), 1U);

	kp->keys.birth_ns = wgx_clock_ns();
	kp->sending_valid = true;
	kref_init(&kp->refcount);
	rcu_assign_pointer(f->peer->keypair_current, kp);
	wgx_peer_get(f->peer);	/* the cb's reference, as the tx worker holds it */
	memset(WGX_SKB_CB(second), 0, sizeof(struct wgx_skb_cb));
	WGX_SKB_CB(second)->peer = f->peer;
	WGX_SKB_CB(second)->mtu = WGX_KUNIT_MTU;
	KUNIT_EXPECT_EQ(test, wgx_send_encrypt_and_send(second, false), WGX_SEND_GONE);

	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->peer->staged), 0U);
	queued = ptr_ring_consume_bh(&f->txq->ring);
	KUNIT_EXPECT_PTR_EQ(test, queued, first);
	if (queued) {
		wgx_skb_cb_release(queued);
		kfree_skb(queued);
	}
	queued = ptr_ring_consume_bh(&f->txq->ring);
	KUNIT_EXPECT_PTR_EQ(test, queued, second);
	if (queued) {
		wgx_skb_cb_release(queued);
		kfree_skb(queued);
	}
	RCU_INIT_POINTER(f->peer->keypair_current, NULL);
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

/* No keypair, or one that may no longer send: the packet waits, a handshake is due. */
static void wgx_send_stage_waits_without_keypair(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *skb;
	int i;

	for (i = 0; i < 2; i++) {
		/* First no keypair at all, then one past its use (sending_valid false). */
		if (i == 1)
			rcu_assign_pointer(f->peer->keypair_current, kp);
		skb = wgx_send_test_udp4(test, 10, false);
		skb->dev = f->dev;
		KUNIT_EXPECT_FALSE(test, wgx_send_stage(f->peer, skb));
		KUNIT_EXPECT_EQ(test, skb_queue_len(&f->peer->staged), (u32)i + 1);
	}
	KUNIT_EXPECT_TRUE(test, __ptr_ring_empty(&f->txq->ring));
	RCU_INIT_POINTER(f->peer->keypair_current, NULL);
	/* Staged packets hold no peer reference. */
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

/* A dead peer's queue is purged for good: nothing is staged, the packet is dropped and counted. */
static void wgx_send_stage_drops_for_dead_peer(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_send_test_keypair(test);
	struct sk_buff *skb = wgx_send_test_udp4(test, 10, false);

	/* Even with a keypair that may send: a dead peer sends nothing more. */
	kp->sending_valid = true;
	rcu_assign_pointer(f->peer->keypair_current, kp);
	WRITE_ONCE(f->peer->is_dead, true);
	skb->dev = f->dev;
	KUNIT_EXPECT_FALSE(test, wgx_send_stage(f->peer, skb));
	KUNIT_EXPECT_EQ(test, skb_queue_len(&f->peer->staged), 0U);
	KUNIT_EXPECT_TRUE(test, __ptr_ring_empty(&f->txq->ring));
	KUNIT_EXPECT_EQ(test, DEV_STATS_READ(f->dev, tx_dropped), 1L);
	RCU_INIT_POINTER(f->peer->keypair_current, NULL);
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

static struct kunit_case wgx_send_cases[] = {
	KUNIT_CASE(wgx_send_encrypt_pads_and_pushes_header),
	KUNIT_CASE(wgx_send_encrypt_express_pads_more),
	KUNIT_CASE(wgx_send_encrypt_without_headroom),
	KUNIT_CASE(wgx_send_encrypt_paged_and_cloned),
	KUNIT_CASE(wgx_send_encrypt_finishes_inner_checksum),
	KUNIT_CASE(wgx_send_encrypt_refuses_exhausted_counter),
	{}
};

static struct kunit_suite wgx_send_suite = {
	.name = "wgx_send",
	.test_cases = wgx_send_cases,
};

/*
 * Which packets get the express mark: a small lane packet of a bucket that
 * sent nothing unmarked for WGX_SEND_EXPRESS_GAP, while the peer carries
 * bulk; any other packet of the bucket (bulk, large, or a lane packet within
 * the gap) restarts the gap, and a large one makes the peer busy; an idle
 * peer's small packets neither are marked nor restart the gap.
 */
static void wgx_send_express_needs_a_quiet_bucket(struct kunit *test)
{
	struct wgx_send_xmit_fixture *f = test->priv;
	struct sk_buff *skb = wgx_send_test_raw(test, 84, WGX_SEND_HEADROOM);
	struct sk_buff *big = wgx_send_test_raw(test, WGX_SEND_SMALL_LEN + 1, WGX_SEND_HEADROOM);
	struct wgx_skb_cb *cb = WGX_SKB_CB(skb);
	unsigned long now = jiffies;

	cb->bucket = 7;
	cb->lane = 1;
	f->wgx->tx_ordered_last[7] = now - WGX_SEND_EXPRESS_GAP;
	/* An idle peer: nothing is marked, and the bucket's gap goes on. */
	f->peer->tx_bulk_jiffies = now - WGX_SEND_EXPRESS_GAP;
	KUNIT_EXPECT_FALSE(test, wgx_send_express(f->peer, skb));
	KUNIT_EXPECT_EQ(test, f->wgx->tx_ordered_last[7], now - WGX_SEND_EXPRESS_GAP);
	/* A large packet (another bucket) makes the peer busy, unmarked itself. */
	WGX_SKB_CB(big)->bucket = 9;
	WGX_SKB_CB(big)->lane = 1;
	KUNIT_EXPECT_FALSE(test, wgx_send_express(f->peer, big));
	KUNIT_EXPECT_GE(test, (long)(f->peer->tx_bulk_jiffies - now), 0L);
	KUNIT_EXPECT_GE(test, (long)(f->wgx->tx_ordered_last[9] - now), 0L);
	/* Busy peer, quiet bucket: marked and counted; marks keep it quiet. */
	KUNIT_EXPECT_TRUE(test, wgx_send_express(f->peer, skb));
	KUNIT_EXPECT_TRUE(test, wgx_send_express(f->peer, skb));
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_TX_EXPRESS), 2ULL);
	/* A bulk-ring packet of the bucket restarts the gap; then even a lane packet waits. */
	cb->lane = 0;
	KUNIT_EXPECT_FALSE(test, wgx_send_express(f->peer, skb));
	cb->lane = 1;
	KUNIT_EXPECT_FALSE(test, wgx_send_express(f->peer, skb));
	/* Other buckets are not concerned. */
	cb->bucket = 8;
	f->wgx->tx_ordered_last[8] = now - WGX_SEND_EXPRESS_GAP;
	KUNIT_EXPECT_TRUE(test, wgx_send_express(f->peer, skb));
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_TX_EXPRESS), 3ULL);
	kfree_skb(skb);
	kfree_skb(big);
}

static struct kunit_case wgx_send_xmit_cases[] = {
	KUNIT_CASE(wgx_send_express_needs_a_quiet_bucket),
	KUNIT_CASE(wgx_send_xmit_segments_gso_before_encryption),
	KUNIT_CASE(wgx_send_xmit_drops_keep_references_balanced),
	KUNIT_CASE(wgx_send_stage_flushes_when_keypair_appeared),
	KUNIT_CASE(wgx_send_after_staged_keeps_order),
	KUNIT_CASE(wgx_send_stage_waits_without_keypair),
	KUNIT_CASE(wgx_send_stage_drops_for_dead_peer),
	{}
};

static struct kunit_suite wgx_send_xmit_suite = {
	.name = "wgx_send_xmit",
	.suite_init = wgx_kunit_platform_init,
	.suite_exit = wgx_kunit_platform_exit,
	.init = wgx_send_xmit_init,
	.exit = wgx_send_xmit_exit,
	.test_cases = wgx_send_xmit_cases,
};

kunit_test_suites(&wgx_send_suite, &wgx_send_xmit_suite);
