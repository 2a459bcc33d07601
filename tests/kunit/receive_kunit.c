// SPDX-License-Identifier: GPL-2.0
/*
 * receive_kunit.c - KUnit suite "wgx_receive": the receive path's skb
 * helpers (kmod/receive.c).  This file compiles receive.c itself
 * (tests/kunit/Kbuild drops kmod/receive.o from the KUnit build) so the
 * static helpers are reachable:
 *
 *   wgx_receive_prepare()    outer IP/UDP header pull and length checks of a
 *                            datagram as the UDP encap hook sees it;
 *   wgx_receive_decrypt()    in-place decryption of linear and paged skbs,
 *                            tag trimmed, outer headers still readable;
 *   wgx_receive_inner_len()  the inner packet's own length (padding);
 *   wgx_receive_deliver()    padding trimmed, cryptokey routing check, ECN
 *                            decapsulation and the checksum state the stack
 *                            sees after decryption (CHECKSUM_UNNECESSARY),
 *                            observed by a packet tap on a stand-alone device.
 *
 * Transport messages are built with the core's wgx_transport_encrypt(), so
 * the glue is checked against the wire format.
 */
#include "../../kmod/receive.c"

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <wgx/core_test.h>

#include "kunit_util.h"

#define WGX_KUNIT_INNER_SRC 0x0a000002	/* 10.0.0.2, the peer's tunnel address */
#define WGX_KUNIT_INNER_DST 0x0a000001

static struct wgx_keypair *wgx_receive_test_keypair(struct kunit *test)
{
	struct wgx_keypair *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, kp);
	kp->keys.local_index = 0x11121314;
	get_random_bytes(kp->keys.receiving_key, sizeof(kp->keys.receiving_key));
	return kp;
}

/* An inner IPv4/UDP packet (complete checksums) of @payload bytes into @buf; returns its length. */
static unsigned int wgx_receive_test_inner(u8 *buf, unsigned int payload, u32 saddr, u8 tos)
{
	unsigned int udp_len = sizeof(struct udphdr) + payload, len = sizeof(struct iphdr) + udp_len, i;
	struct iphdr *iph = (struct iphdr *)buf;
	struct udphdr *uh = (struct udphdr *)(buf + sizeof(*iph));

	wgx_kunit_ipv4_header(iph, IPPROTO_UDP, tos, len, saddr, WGX_KUNIT_INNER_DST);
	memset(uh, 0, sizeof(*uh));
	uh->source = htons(5678);
	uh->dest = htons(1234);
	uh->len = htons(udp_len);
	for (i = 0; i < payload; i++)
		buf[len - payload + i] = (u8)(i * 11 + 5);
	uh->check = csum_tcpudp_magic(iph->saddr, iph->daddr, udp_len, IPPROTO_UDP,
				      csum_partial(uh, udp_len, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
	return len;
}

/*
 * The datagram as the UDP encap hook receives it: outer IPv4 (192.0.2.2 ->
 * 192.0.2.1, DSCP/ECN @outer_tos) and UDP headers, skb->data at the UDP
 * header, then @msg.  With @paged, @msg sits in a page fragment.
 */
static struct sk_buff *wgx_receive_test_datagram(struct kunit *test, const u8 *msg, unsigned int len,
						 u8 outer_tos, bool paged)
{
	struct sk_buff *skb = alloc_skb(LL_MAX_HEADER + 28 + (paged ? 0 : len), GFP_KERNEL);
	struct udphdr *uh;
	struct iphdr *iph;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	skb_reserve(skb, LL_MAX_HEADER);
	skb_reset_network_header(skb);
	iph = skb_put(skb, sizeof(*iph));
	wgx_kunit_ipv4_header(iph, IPPROTO_UDP, outer_tos, 28 + len, 0xc0000202, 0xc0000201);
	skb_set_transport_header(skb, sizeof(*iph));
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(51821);
	uh->dest = htons(51820);
	uh->len = htons(8 + len);
	if (paged) {
		struct page *page = alloc_page(GFP_KERNEL);

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
		memcpy(page_address(page) + 64, msg, len);
		skb_add_rx_frag(skb, 0, page, 64, len, PAGE_SIZE);
	} else {
		skb_put_data(skb, msg, len);
	}
	skb->protocol = htons(ETH_P_IP);
	/* The IP layer has pulled its header: data at UDP. */
	skb_pull(skb, sizeof(*iph));
	return skb;
}

/* A transport message carrying @plain (@plain_len bytes) for @kp, in a kunit buffer. */
static u8 *wgx_receive_test_message(struct kunit *test, struct wgx_keypair *kp, const u8 *plain,
				    unsigned int plain_len, u64 counter, unsigned int *len)
{
	size_t cap = ALIGN(plain_len, 16) + 32, out_len = 0;
	u8 *msg = kunit_kzalloc(test, cap, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, msg);
	KUNIT_ASSERT_EQ(test, wgx_transport_encrypt(msg, cap, &out_len, plain, plain_len, 0,
						    kp->keys.receiving_key, kp->keys.local_index,
						    counter), 0);
	*len = out_len;
	return msg;
}

static void wgx_receive_prepare_checks_lengths(struct kunit *test)
{
	u8 init[WGX_MSG_INITIATION_LEN] = { WGX_MSG_INITIATION };
	u8 transport[64] = { WGX_MSG_TRANSPORT };
	struct sk_buff *skb;

	/* Well-formed: data left at the message, exactly its length. */
	skb = wgx_receive_test_datagram(test, transport, sizeof(transport), 0, false);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), WGX_MSG_TRANSPORT);
	KUNIT_EXPECT_EQ(test, skb->len, (unsigned int)sizeof(transport));
	KUNIT_EXPECT_EQ(test, skb->data[0], (u8)WGX_MSG_TRANSPORT);
	KUNIT_EXPECT_EQ(test, ip_hdr(skb)->saddr, htonl(0xc0000202));
	kfree_skb(skb);

	/* A handshake message in a page fragment is made linear. */
	skb = wgx_receive_test_datagram(test, init, sizeof(init), 0, true);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), WGX_MSG_INITIATION);
	KUNIT_EXPECT_EQ(test, skb_headlen(skb), (unsigned int)sizeof(init));
	kfree_skb(skb);

	/* Trailing bytes beyond the UDP length (link padding) are trimmed off. */
	skb = wgx_receive_test_datagram(test, transport, sizeof(transport), 0, false);
	udp_hdr(skb)->len = htons(8 + 48);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), WGX_MSG_TRANSPORT);
	KUNIT_EXPECT_EQ(test, skb->len, 48U);
	kfree_skb(skb);

	/* UDP length beyond the datagram, below the UDP header, or a short message: dropped. */
	skb = wgx_receive_test_datagram(test, transport, sizeof(transport), 0, false);
	udp_hdr(skb)->len = htons(8 + sizeof(transport) + 1);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), 0);
	kfree_skb(skb);
	skb = wgx_receive_test_datagram(test, transport, sizeof(transport), 0, false);
	udp_hdr(skb)->len = htons(7);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), 0);
	kfree_skb(skb);
	skb = wgx_receive_test_datagram(test, transport, 31, 0, false);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), 0);
	kfree_skb(skb);
	/*
	 * A datagram of 4000 bytes typed as an initiation (its bytes in a
	 * page, as a NIC delivers them) is refused by its length alone: none
	 * of it is pulled into the linear area, however large it is.
	 */
	{
		u8 *big = kunit_kzalloc(test, 4000, GFP_KERNEL);

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, big);
		big[0] = WGX_MSG_INITIATION;
		skb = wgx_receive_test_datagram(test, big, 4000, 0, true);
		KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), 0);
		KUNIT_EXPECT_LT(test, skb_headlen(skb), (unsigned int)WGX_MSG_INITIATION_LEN);
		kfree_skb(skb);
	}
	/* An initiation one byte short, and an unknown type. */
	skb = wgx_receive_test_datagram(test, init, sizeof(init) - 1, 0, false);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), 0);
	kfree_skb(skb);
	transport[0] = 5;
	skb = wgx_receive_test_datagram(test, transport, sizeof(transport), 0, false);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), 0);
	kfree_skb(skb);
	/* Not IP at all. */
	transport[0] = WGX_MSG_TRANSPORT;
	skb = wgx_receive_test_datagram(test, transport, sizeof(transport), 0, false);
	skb->protocol = htons(ETH_P_ARP);
	KUNIT_EXPECT_EQ(test, wgx_receive_prepare(skb), 0);
	kfree_skb(skb);
}

static void wgx_receive_decrypt_in_place(struct kunit *test)
{
	struct wgx_keypair *kp = wgx_receive_test_keypair(test);
	u8 *inner = kunit_kzalloc(test, 2048, GFP_KERNEL);
	unsigned int len, msg_len, paged;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, inner);
	len = wgx_receive_test_inner(inner, 1000, WGX_KUNIT_INNER_SRC, 0);
	for (paged = 0; paged < 2; paged++) {
		u8 *msg = wgx_receive_test_message(test, kp, inner, len, 4242 + paged, &msg_len);
		struct sk_buff *skb = wgx_receive_test_datagram(test, msg, msg_len, 0, paged);
		u8 *out = kunit_kzalloc(test, msg_len, GFP_KERNEL);
		u64 nonce = 0;

		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
		KUNIT_ASSERT_EQ(test, wgx_receive_prepare(skb), WGX_MSG_TRANSPORT);
		KUNIT_ASSERT_TRUE_MSG(test, wgx_receive_decrypt(skb, kp, &nonce), "paged %u", paged);
		KUNIT_EXPECT_EQ(test, nonce, 4242ULL + paged);
		/* Plaintext, still padded, tag gone; outer header still readable. */
		KUNIT_EXPECT_EQ(test, skb->len, ALIGN(len, 16));
		KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 0, out, skb->len), 0);
		KUNIT_EXPECT_EQ(test, memcmp(out, inner, len), 0);
		KUNIT_EXPECT_TRUE(test, wgx_kunit_all_zero(out + len, skb->len - len));
		KUNIT_EXPECT_EQ(test, ip_hdr(skb)->saddr, htonl(0xc0000202));
		KUNIT_EXPECT_EQ(test, ntohs(udp_hdr(skb)->source), 51821);
		kfree_skb(skb);
	}
}

static void wgx_receive_decrypt_rejects(struct kunit *test)
{
	struct wgx_keypair *kp = wgx_receive_test_keypair(test);
	u8 inner[64] = { 0x45 };
	unsigned int msg_len;
	u8 *msg = wgx_receive_test_message(test, kp, inner, sizeof(inner), 7, &msg_len);
	struct sk_buff *skb;
	u64 nonce;

	/* A flipped ciphertext bit. */
	msg[20] ^= 4;
	skb = wgx_receive_test_datagram(test, msg, msg_len, 0, false);
	KUNIT_ASSERT_EQ(test, wgx_receive_prepare(skb), WGX_MSG_TRANSPORT);
	KUNIT_EXPECT_FALSE(test, wgx_receive_decrypt(skb, kp, &nonce));
	kfree_skb(skb);
	msg[20] ^= 4;
	/* Another counter than the one it was encrypted with. */
	msg[8] ^= 1;
	skb = wgx_receive_test_datagram(test, msg, msg_len, 0, true);
	KUNIT_ASSERT_EQ(test, wgx_receive_prepare(skb), WGX_MSG_TRANSPORT);
	KUNIT_EXPECT_FALSE(test, wgx_receive_decrypt(skb, kp, &nonce));
	kfree_skb(skb);
	/* A counter at the limit is refused before any work (whitepaper 6.1). */
	put_unaligned_le64(WGX_TRANSPORT_REJECT_AFTER_MESSAGES, msg + 8);
	skb = wgx_receive_test_datagram(test, msg, msg_len, 0, false);
	KUNIT_ASSERT_EQ(test, wgx_receive_prepare(skb), WGX_MSG_TRANSPORT);
	KUNIT_EXPECT_FALSE(test, wgx_receive_decrypt(skb, kp, &nonce));
	kfree_skb(skb);
}

static void wgx_receive_inner_length(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct sk_buff *skb;
	unsigned int len;
	__be16 proto = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	len = wgx_receive_test_inner(buf, 21, WGX_KUNIT_INNER_SRC, 0);
	skb = alloc_skb(256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	skb_put_data(skb, buf, ALIGN(len, 16));
	skb_reset_network_header(skb);
	KUNIT_EXPECT_EQ(test, wgx_receive_inner_len(skb, &proto), len);
	KUNIT_EXPECT_EQ(test, proto, htons(ETH_P_IP));
	/* Header length below 20 bytes. */
	ip_hdr(skb)->ihl = 4;
	KUNIT_EXPECT_EQ(test, wgx_receive_inner_len(skb, &proto), 0U);
	/* IPv6: payload length + 40. */
	memset(skb->data, 0, skb->len);
	ipv6_hdr(skb)->version = 6;
	ipv6_hdr(skb)->payload_len = htons(8);
	KUNIT_EXPECT_EQ(test, wgx_receive_inner_len(skb, &proto), 48U);
	KUNIT_EXPECT_EQ(test, proto, htons(ETH_P_IPV6));
	/* Neither. */
	skb->data[0] = 0x20;
	KUNIT_EXPECT_EQ(test, wgx_receive_inner_len(skb, &proto), 0U);
	kfree_skb(skb);
}

/* The express mark: at least 16 bytes of padding after the inner packet. */
static void wgx_receive_express_mark(struct kunit *test)
{
	static const unsigned int pads[] = { 0, 7, 15, 16, 31 };
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	struct sk_buff *skb;
	unsigned int len, i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(pads); i++) {
		len = wgx_receive_test_inner(buf, 56, WGX_KUNIT_INNER_SRC, 0);
		skb = alloc_skb(512, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
		skb_put_data(skb, buf, len + pads[i]);
		KUNIT_EXPECT_EQ_MSG(test, wgx_receive_express_marked(skb), pads[i] >= 16,
				    "IPv4, %u bytes of padding", pads[i]);
		/* IPv6: the payload length plus its 40-byte header. */
		memset(skb->data, 0, skb->len);
		skb->data[0] = 0x60;
		skb->data[5] = len - 40;
		KUNIT_EXPECT_EQ_MSG(test, wgx_receive_express_marked(skb), pads[i] >= 16,
				    "IPv6, %u bytes of padding", pads[i]);
		/* Neither version: never marked. */
		skb->data[0] = 0x20;
		KUNIT_EXPECT_FALSE(test, wgx_receive_express_marked(skb));
		kfree_skb(skb);
	}
	/* Shorter than an IPv4 header: never marked. */
	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, skb);
	skb_put_zero(skb, 19);
	skb->data[0] = 0x45;
	KUNIT_EXPECT_FALSE(test, wgx_receive_express_marked(skb));
	kfree_skb(skb);
}

/* ---- wgx_receive_deliver on a stand-alone device with a packet tap ---- */

struct wgx_receive_fixture {
	struct net_device *dev;
	struct wgx_device *wgx;
	struct wgx_peer *peer;
	struct packet_type tap;
	struct completion seen;
	/* What the tap saw of the last packet. */
	unsigned int len, count;
	u8 ip_summed, pkt_type, data[128];
	__be16 protocol;
};

static struct wgx_receive_fixture *wgx_receive_tap_fixture;

static int wgx_receive_tap_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt,
			       struct net_device *orig_dev)
{
	struct wgx_receive_fixture *f = container_of(pt, struct wgx_receive_fixture, tap);

	f->len = skb->len;
	f->ip_summed = skb->ip_summed;
	f->pkt_type = skb->pkt_type;
	f->protocol = skb->protocol;
	skb_copy_bits(skb, 0, f->data, min_t(unsigned int, skb->len, sizeof(f->data)));
	f->count++;
	complete(&f->seen);
	kfree_skb(skb);
	return 0;
}

static void wgx_receive_test_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->mtu = 1420;
}

static int wgx_receive_deliver_init(struct kunit *test)
{
	struct wgx_receive_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	const u8 net10[4] = { 10, 0, 0, 0 };

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	test->priv = f;
	init_completion(&f->seen);
	f->dev = alloc_netdev(sizeof(struct wgx_device), "wgxkunit%d", NET_NAME_UNKNOWN,
			      wgx_receive_test_setup);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->dev);
	f->dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->dev->tstats);
	f->wgx = netdev_priv(f->dev);
	f->wgx->dev = f->dev;
	f->wgx->stats = alloc_percpu(struct wgx_device_stats);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->wgx->stats);
	f->wgx->allowedips = wgx_allowedips_create();
	f->peer = kunit_kzalloc(test, sizeof(*f->peer), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, f->wgx->allowedips && f->peer);
	f->peer->wgx = f->wgx;
	f->peer->internal_id = 2;
	kref_init(&f->peer->refcount);
	f->peer->stats = alloc_percpu(struct wgx_peer_stats);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->peer->stats);
	KUNIT_ASSERT_EQ(test, wgx_allowedips_insert(f->wgx->allowedips, WGX_AF_INET, net10, 24,
						    f->peer, true), 0);
	/* Up and running without registering: no GRO cells, so packets go to netif_rx. */
	f->dev->flags |= IFF_UP;
	set_bit(__LINK_STATE_START, &f->dev->state);
	f->tap.type = htons(ETH_P_ALL);
	f->tap.dev = f->dev;
	f->tap.func = wgx_receive_tap_rcv;
	dev_add_pack(&f->tap);
	wgx_receive_tap_fixture = f;
	return 0;
}

static void wgx_receive_deliver_exit(struct kunit *test)
{
	struct wgx_receive_fixture *f = test->priv;

	if (!f || !f->dev)
		return;
	if (wgx_receive_tap_fixture == f) {
		dev_remove_pack(&f->tap);	/* waits for the tap to finish */
		wgx_receive_tap_fixture = NULL;
	}
	/* Let the backlog drain what the stack still holds for this device. */
	synchronize_net();
	clear_bit(__LINK_STATE_START, &f->dev->state);
	f->dev->flags &= ~IFF_UP;
	wgx_allowedips_destroy(f->wgx->allowedips);
	rcu_barrier();
	free_percpu(f->peer->stats);
	kfree(f->peer->stats_rare);
	wgx_telemetry_destroy(&f->peer->telemetry);
	free_percpu(f->wgx->stats);
	free_percpu(f->dev->tstats);
	free_netdev(f->dev);
}

/*
 * Run the softirq-side steps on @msg as the UDP encap hook would: prepare,
 * decrypt, deliver (@delay_marked: as a receive queue's delay control left
 * it).  Returns false when decryption refused it.
 */
static bool wgx_receive_test_rx_marked(struct kunit *test, struct wgx_receive_fixture *f,
				       struct wgx_keypair *kp, const u8 *msg, unsigned int msg_len,
				       u8 outer_tos, bool delay_marked)
{
	struct sk_buff *skb = wgx_receive_test_datagram(test, msg, msg_len, outer_tos, false);
	bool ok = false;
	u64 nonce;

	skb->dev = f->dev;
	local_bh_disable();
	if (wgx_receive_prepare(skb) == WGX_MSG_TRANSPORT && wgx_receive_decrypt(skb, kp, &nonce)) {
		wgx_receive_deliver(f->wgx, f->peer, skb, outer_tos, delay_marked, NULL);
		ok = true;
	} else {
		kfree_skb(skb);
	}
	local_bh_enable();
	return ok;
}

static bool wgx_receive_test_rx(struct kunit *test, struct wgx_receive_fixture *f,
				struct wgx_keypair *kp, const u8 *msg, unsigned int msg_len, u8 outer_tos)
{
	return wgx_receive_test_rx_marked(test, f, kp, msg, msg_len, outer_tos, false);
}

static void wgx_receive_deliver_hands_the_stack_a_checked_packet(struct kunit *test)
{
	struct wgx_receive_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_receive_test_keypair(test);
	u8 inner[128];
	unsigned int len = wgx_receive_test_inner(inner, 37, WGX_KUNIT_INNER_SRC, 0), msg_len;
	u8 *msg = wgx_receive_test_message(test, kp, inner, len, 1, &msg_len);

	KUNIT_ASSERT_TRUE(test, wgx_receive_test_rx(test, f, kp, msg, msg_len, 0));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&f->seen, 5 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, f->count, 1U);
	/* Padding gone: exactly the inner packet. */
	KUNIT_EXPECT_EQ(test, f->len, len);
	KUNIT_EXPECT_EQ(test, memcmp(f->data, inner, len), 0);
	/* Authenticated by Poly1305: the stack need not verify checksums again. */
	KUNIT_EXPECT_EQ(test, f->ip_summed, (u8)CHECKSUM_UNNECESSARY);
	KUNIT_EXPECT_EQ(test, f->pkt_type, (u8)PACKET_HOST);
	KUNIT_EXPECT_EQ(test, f->protocol, htons(ETH_P_IP));
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(f->peer, WGX_PEER_STAT_RX_PACKETS), 1ULL);
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

/* Outer CE on an ECN-capable inner packet marks the inner one CE (RFC 6040). */
static void wgx_receive_deliver_decapsulates_ecn(struct kunit *test)
{
	struct wgx_receive_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_receive_test_keypair(test);
	u8 inner[128];
	unsigned int len = wgx_receive_test_inner(inner, 10, WGX_KUNIT_INNER_SRC, INET_ECN_ECT_0), msg_len;
	u8 *msg = wgx_receive_test_message(test, kp, inner, len, 2, &msg_len);
	const struct iphdr *iph = (const struct iphdr *)f->data;

	KUNIT_ASSERT_TRUE(test, wgx_receive_test_rx(test, f, kp, msg, msg_len, INET_ECN_CE));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&f->seen, 5 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, iph->tos & INET_ECN_MASK, INET_ECN_CE);
	/* And the IP header checksum was updated with it. */
	KUNIT_EXPECT_EQ(test, ip_fast_csum(iph, iph->ihl), (__sum16)0);
}

/*
 * CE outside, Not-ECT inside: delivered when the path marked it (as
 * WireGuard does), dropped and counted when our own delay control did (the
 * outer ECT it marked was not the inner packet's): the drop the mark stood for.
 */
static void wgx_receive_deliver_delay_mark_on_not_ect(struct kunit *test)
{
	struct wgx_receive_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_receive_test_keypair(test);
	u8 inner[128];
	unsigned int len = wgx_receive_test_inner(inner, 10, WGX_KUNIT_INNER_SRC, 0), msg_len;
	u8 *msg = wgx_receive_test_message(test, kp, inner, len, 6, &msg_len);

	KUNIT_ASSERT_TRUE(test, wgx_receive_test_rx_marked(test, f, kp, msg, msg_len, INET_ECN_CE, true));
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY), 1ULL);
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&f->seen, HZ / 5), 0UL);
	KUNIT_EXPECT_EQ(test, f->count, 0U);
	msg = wgx_receive_test_message(test, kp, inner, len, 7, &msg_len);
	KUNIT_ASSERT_TRUE(test, wgx_receive_test_rx(test, f, kp, msg, msg_len, INET_ECN_CE));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&f->seen, 5 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, f->count, 1U);
	KUNIT_EXPECT_EQ(test, wgx_device_stats_read(f->wgx, WGX_DEVICE_STAT_RX_DROP_DELAY), 1ULL);
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

static void wgx_receive_deliver_drops_bad_inner_packets(struct kunit *test)
{
	struct wgx_receive_fixture *f = test->priv;
	struct wgx_keypair *kp = wgx_receive_test_keypair(test);
	u8 inner[128];
	unsigned int len, msg_len;
	u8 *msg;

	/* A source outside the peer's allowed IPs (cryptokey routing). */
	len = wgx_receive_test_inner(inner, 10, 0xc0000263, 0);
	msg = wgx_receive_test_message(test, kp, inner, len, 3, &msg_len);
	KUNIT_EXPECT_TRUE(test, wgx_receive_test_rx(test, f, kp, msg, msg_len, 0));
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(f->peer, WGX_PEER_STAT_RX_DROP_ALLOWEDIPS), 1ULL);

	/* An IP header claiming more bytes than were sent. */
	len = wgx_receive_test_inner(inner, 10, WGX_KUNIT_INNER_SRC, 0);
	((struct iphdr *)inner)->tot_len = htons(len + 40);
	msg = wgx_receive_test_message(test, kp, inner, len, 4, &msg_len);
	KUNIT_EXPECT_TRUE(test, wgx_receive_test_rx(test, f, kp, msg, msg_len, 0));
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(f->peer, WGX_PEER_STAT_RX_DROP_MALFORMED), 1ULL);

	/* Not an IP packet. */
	memset(inner, 0x11, 64);
	msg = wgx_receive_test_message(test, kp, inner, 64, 5, &msg_len);
	KUNIT_EXPECT_TRUE(test, wgx_receive_test_rx(test, f, kp, msg, msg_len, 0));
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(f->peer, WGX_PEER_STAT_RX_DROP_MALFORMED), 2ULL);

	/* None of them reached the stack. */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&f->seen, HZ / 5), 0UL);
	KUNIT_EXPECT_EQ(test, f->count, 0U);
	KUNIT_EXPECT_EQ(test, wgx_peer_stats_read(f->peer, WGX_PEER_STAT_RX_PACKETS), 0ULL);
	KUNIT_EXPECT_EQ(test, kref_read(&f->peer->refcount), 1U);
}

static struct kunit_case wgx_receive_cases[] = {
	KUNIT_CASE(wgx_receive_prepare_checks_lengths),
	KUNIT_CASE(wgx_receive_decrypt_in_place),
	KUNIT_CASE(wgx_receive_decrypt_rejects),
	KUNIT_CASE(wgx_receive_inner_length),
	KUNIT_CASE(wgx_receive_express_mark),
	{}
};

static struct kunit_suite wgx_receive_suite = {
	.name = "wgx_receive",
	.test_cases = wgx_receive_cases,
};

static struct kunit_case wgx_receive_deliver_cases[] = {
	KUNIT_CASE(wgx_receive_deliver_hands_the_stack_a_checked_packet),
	KUNIT_CASE(wgx_receive_deliver_decapsulates_ecn),
	KUNIT_CASE(wgx_receive_deliver_delay_mark_on_not_ect),
	KUNIT_CASE(wgx_receive_deliver_drops_bad_inner_packets),
	{}
};

static struct kunit_suite wgx_receive_deliver_suite = {
	.name = "wgx_receive_deliver",
	.suite_init = wgx_kunit_platform_init,
	.suite_exit = wgx_kunit_platform_exit,
	.init = wgx_receive_deliver_init,
	.exit = wgx_receive_deliver_exit,
	.test_cases = wgx_receive_deliver_cases,
};

kunit_test_suites(&wgx_receive_suite, &wgx_receive_deliver_suite);
