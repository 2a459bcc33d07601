// SPDX-License-Identifier: GPL-2.0
// Netlink message construction and parsing without a kernel: SET_DEVICE
// chunking, GET_DEVICE coalescing, extack errors, rtnetlink links and
// ethtool feature bitsets.
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "../../../tools/wgx/ethtool.hpp"
#include "../../../tools/wgx/options.hpp"
#include "../../../tools/wgx/rtnl.hpp"
#include "../../../tools/wgx/wgnl.hpp"
#include "tool_test_util.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {
namespace {

using test::key;

constexpr std::uint16_t kFamily = 0x1d;

Key numbered_key(unsigned n)
{
    Key k{};
    k[0] = static_cast<std::uint8_t>(n);
    k[1] = static_cast<std::uint8_t>(n >> 8);
    k[2] = 0x5a;
    return k;
}

AllowedIp numbered_prefix(unsigned peer, unsigned n, bool v6)
{
    AllowedIp a;
    if (v6) {
        a.family = AF_INET6;
        a.addr[0] = 0xfd;
        a.addr[2] = static_cast<std::uint8_t>(peer >> 8);
        a.addr[3] = static_cast<std::uint8_t>(peer);
        a.addr[14] = static_cast<std::uint8_t>(n >> 8);
        a.addr[15] = static_cast<std::uint8_t>(n);
        a.cidr = 128;
    } else {
        a.family = AF_INET;
        a.addr[0] = 10;
        a.addr[1] = static_cast<std::uint8_t>(peer);
        a.addr[2] = static_cast<std::uint8_t>(n >> 8);
        a.addr[3] = static_cast<std::uint8_t>(n);
        a.cidr = 32;
    }
    return a;
}

Device big_device(unsigned peers, unsigned ips_per_peer)
{
    Device d;
    d.name = "wgx0";
    d.private_key = key(test::kPriv1);
    d.listen_port = 51820;
    d.fwmark = 7;
    d.replace_peers = true;
    for (unsigned i = 0; i < peers; ++i) {
        Peer p;
        p.public_key = numbered_key(i);
        p.replace_allowed_ips = true;
        if (i % 3 == 0)
            p.preshared_key = key(test::kPsk);
        if (i % 2 == 0)
            p.endpoint = test::endpoint(i % 4 ? "2001:db8::9" : "192.0.2.9", 1000 + i);
        if (i % 5 == 0)
            p.persistent_keepalive = 25;
        if (i % 7 == 3)
            p.remove = true;
        if (i % 11 == 4)
            p.update_only = true;
        for (unsigned n = 0; n < ips_per_peer; ++n)
            p.allowed_ips.push_back(numbered_prefix(i, n, n % 2));
        if (!p.allowed_ips.empty() && i % 13 == 1)
            p.allowed_ips.back().remove = true;
        d.peers.push_back(p);
    }
    // One peer with far more allowed IPs than fit in a message.
    Peer huge;
    huge.public_key = key(test::kPub2);
    huge.replace_allowed_ips = true;
    huge.preshared_key = key(test::kPsk);
    huge.endpoint = test::endpoint("192.0.2.1", 51820);
    for (unsigned n = 0; n < 3000; ++n)
        huge.allowed_ips.push_back(numbered_prefix(250, n, n % 3 == 0));
    d.peers.insert(d.peers.begin() + peers / 2, huge);
    return d;
}

const genlmsghdr *genl(const nlmsghdr *nlh)
{
    return static_cast<const genlmsghdr *>(mnl_nlmsg_get_payload(nlh));
}

void expect_same_peers(const Device &got, const Device &want)
{
    ASSERT_EQ(got.peers.size(), want.peers.size());
    for (std::size_t i = 0; i < want.peers.size(); ++i) {
        const Peer &g = got.peers[i], &w = want.peers[i];
        ASSERT_EQ(g.public_key, w.public_key) << i;
        EXPECT_EQ(g.preshared_key, w.preshared_key) << i;
        EXPECT_EQ(g.endpoint, w.endpoint) << i;
        EXPECT_EQ(g.persistent_keepalive, w.persistent_keepalive) << i;
        EXPECT_EQ(g.remove, w.remove) << i;
        EXPECT_EQ(g.update_only, w.update_only) << i;
        EXPECT_EQ(g.replace_allowed_ips, w.replace_allowed_ips) << i;
        ASSERT_EQ(g.allowed_ips.size(), w.allowed_ips.size()) << i;
        for (std::size_t j = 0; j < w.allowed_ips.size(); ++j)
            ASSERT_EQ(g.allowed_ips[j], w.allowed_ips[j]) << i << "/" << j;
    }
}

class ToolSetChunking : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ToolSetChunking, SplitsAndReassemblesExactly)
{
    const std::size_t max_len = GetParam();
    const Device d = big_device(120, 9);
    std::vector<NlMessage> msgs;
    ASSERT_TRUE(build_set_device_messages(d, kFamily, max_len, msgs).is_ok());
    ASSERT_GT(msgs.size(), 1u);

    Device merged;
    Key last_key{};
    bool have_last = false;
    for (std::size_t m = 0; m < msgs.size(); ++m) {
        const nlmsghdr *nlh = msgs[m].hdr();
        ASSERT_LE(nlh->nlmsg_len, max_len);
        EXPECT_EQ(nlh->nlmsg_type, kFamily);
        EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
        EXPECT_EQ(genl(nlh)->cmd, WGX_CMD_SET_DEVICE);
        EXPECT_EQ(genl(nlh)->version, WGX_GENL_VERSION);
        Device one;
        ASSERT_TRUE(parse_set_device_message(nlh, one).is_ok()) << m;
        EXPECT_EQ(one.name, "wgx0");
        if (m == 0) {
            EXPECT_EQ(one.private_key, d.private_key);
            EXPECT_EQ(one.listen_port, d.listen_port);
            EXPECT_EQ(one.fwmark, d.fwmark);
            EXPECT_TRUE(one.replace_peers);
        } else {
            // Follow-up messages only add: no device attributes, no replace flags.
            EXPECT_FALSE(one.private_key);
            EXPECT_FALSE(one.listen_port);
            EXPECT_FALSE(one.fwmark);
            EXPECT_FALSE(one.replace_peers);
            ASSERT_FALSE(one.peers.empty());
            const Peer &first = one.peers.front();
            if (have_last && first.public_key == last_key) {
                EXPECT_FALSE(first.replace_allowed_ips);  // a continued peer
                EXPECT_FALSE(first.preshared_key);
                EXPECT_FALSE(first.endpoint);
                EXPECT_FALSE(first.persistent_keepalive);
                EXPECT_FALSE(first.allowed_ips.empty());
            }
        }
        if (!one.peers.empty()) {
            last_key = one.peers.back().public_key;
            have_last = true;
        }
        for (Peer &p : one.peers)
            merged.peers.push_back(std::move(p));
    }
    coalesce_peers(merged);
    expect_same_peers(merged, d);
}

INSTANTIATE_TEST_SUITE_P(Tool, ToolSetChunking, ::testing::Values(512, 1000, 4096, 8192));

TEST(ToolNetlink, SmallConfigIsOneMessageWithoutEmptyNests)
{
    Device d;
    d.name = "wg0";
    std::vector<NlMessage> msgs;
    ASSERT_TRUE(build_set_device_messages(d, kFamily, 8192, msgs).is_ok());
    ASSERT_EQ(msgs.size(), 1u);
    // genl header + IFNAME "wg0\0" (4 + 4) only.
    EXPECT_EQ(msgs[0].hdr()->nlmsg_len, MNL_NLMSG_HDRLEN + sizeof(genlmsghdr) + 8);

    d.peers.resize(1);
    d.peers[0].public_key = key(test::kPub2);
    d.peers[0].remove = true;
    ASSERT_TRUE(build_set_device_messages(d, kFamily, 8192, msgs).is_ok());
    ASSERT_EQ(msgs.size(), 1u);
    Device back;
    ASSERT_TRUE(parse_set_device_message(msgs[0].hdr(), back).is_ok());
    ASSERT_EQ(back.peers.size(), 1u);
    EXPECT_TRUE(back.peers[0].remove);
    EXPECT_FALSE(back.peers[0].replace_allowed_ips);
}

TEST(ToolNetlink, ZeroKeysAreSentToRemove)
{
    Device d;
    d.name = "wg0";
    d.private_key = Key{};
    Peer p;
    p.public_key = key(test::kPub2);
    p.preshared_key = Key{};
    p.persistent_keepalive = 0;
    d.peers = {p};
    std::vector<NlMessage> msgs;
    ASSERT_TRUE(build_set_device_messages(d, kFamily, 8192, msgs).is_ok());
    Device back;
    ASSERT_TRUE(parse_set_device_message(msgs[0].hdr(), back).is_ok());
    ASSERT_TRUE(back.private_key);
    EXPECT_TRUE(key_is_zero(*back.private_key));
    ASSERT_TRUE(back.peers[0].preshared_key);
    EXPECT_TRUE(key_is_zero(*back.peers[0].preshared_key));
    EXPECT_EQ(back.peers[0].persistent_keepalive, 0);
}

TEST(ToolNetlink, RekeyIsItsOwnEntryAfterThePeersSettings)
{
    Device d;
    d.name = "wg0";
    Peer only;  // `peer OLD public-key NEW`: one entry, nothing else
    only.public_key = key(test::kPub2);
    only.new_public_key = key(test::kPub3);
    Peer with;  // plus settings: they go first, UPDATE_ONLY, under the old key
    with.public_key = key(test::kPub1);
    with.new_public_key = numbered_key(7);
    with.endpoint = test::endpoint("192.0.2.1", 51820);
    for (unsigned n = 0; n < 600; ++n)
        with.allowed_ips.push_back(numbered_prefix(3, n, false));
    d.peers = {only, with};
    std::vector<NlMessage> msgs;
    ASSERT_TRUE(build_set_device_messages(d, kFamily, 4096, msgs).is_ok());
    ASSERT_GT(msgs.size(), 1u);
    std::vector<Peer> entries;
    for (const NlMessage &m : msgs) {
        Device back;
        ASSERT_TRUE(parse_set_device_message(m.hdr(), back).is_ok());
        entries.insert(entries.end(), back.peers.begin(), back.peers.end());
    }
    ASSERT_GE(entries.size(), 3u);
    EXPECT_EQ(entries[0].public_key, key(test::kPub2));
    EXPECT_EQ(entries[0].new_public_key, key(test::kPub3));
    EXPECT_FALSE(entries[0].update_only);
    std::size_t ips = 0;
    for (std::size_t i = 1; i + 1 < entries.size(); ++i) {
        EXPECT_EQ(entries[i].public_key, key(test::kPub1));
        EXPECT_TRUE(entries[i].update_only);
        EXPECT_FALSE(entries[i].new_public_key);
        ips += entries[i].allowed_ips.size();
    }
    EXPECT_EQ(ips, 600u);
    const Peer &last = entries.back();
    EXPECT_EQ(last.public_key, key(test::kPub1));
    EXPECT_EQ(last.new_public_key, numbered_key(7));
    EXPECT_TRUE(last.allowed_ips.empty());
    EXPECT_FALSE(last.endpoint);
}

TEST(ToolNetlink, TooSmallMessageIsAnError)
{
    Device d = big_device(2, 2);
    std::vector<NlMessage> msgs;
    Status st = build_set_device_messages(d, kFamily, 100, msgs);
    EXPECT_EQ(st.err, EMSGSIZE);
}

// ---- GET_DEVICE replies built the way the kernel builds them.

void put_u64(NlMessage &m, std::uint16_t type, std::uint64_t v)
{
    // nla_put_u64_64bit pads with a type-0 attribute when needed; readers skip it.
    if ((m.hdr()->nlmsg_len + 4) % 8)
        m.put(0, nullptr, 0);
    m.put(type, &v, sizeof(v));
}

NlMessage reply_start(bool with_device)
{
    NlMessage m(kFamily, NLM_F_MULTI, 8192);
    m.put_genl_header(WGX_CMD_GET_DEVICE, WGX_GENL_VERSION);
    m.put_u32(WGX_DEVICE_A_IFINDEX, 7);
    m.put_strz(WGX_DEVICE_A_IFNAME, "wgx0");
    if (with_device) {
        Key priv = key(test::kPriv1), pub = key(test::kPub1);
        m.put(WGX_DEVICE_A_PRIVATE_KEY, priv.data(), 32);
        m.put(WGX_DEVICE_A_PUBLIC_KEY, pub.data(), 32);
        m.put_u16(WGX_DEVICE_A_LISTEN_PORT, 51820);
        m.put_u32(WGX_DEVICE_A_FWMARK, 0);
        nlattr *s = m.nest_start(WGX_DEVICE_A_STATS);
        put_u64(m, WGX_DEVICE_STATS_A_RX_DROP_MAC1, 4);
        put_u64(m, 60, 9);  // a counter from a newer kernel
        m.nest_end(s);
        m.put_u32(200, 1);  // an unknown device attribute from a newer kernel
    }
    return m;
}

void put_ips(NlMessage &m, unsigned peer, unsigned from, unsigned to)
{
    nlattr *ips = m.nest_start(WGX_PEER_A_ALLOWEDIPS);
    for (unsigned n = from; n < to; ++n) {
        AllowedIp a = numbered_prefix(peer, n, n % 2);
        nlattr *e = m.nest_start(0);
        m.put_u16(WGX_ALLOWEDIP_A_FAMILY, static_cast<std::uint16_t>(a.family));
        m.put(WGX_ALLOWEDIP_A_IPADDR, a.addr.data(), a.family == AF_INET ? 4 : 16);
        m.put_u8(WGX_ALLOWEDIP_A_CIDR_MASK, a.cidr);
        m.nest_end(e);
    }
    m.nest_end(ips);
}

// Opens peer @peer's entry in a WGX_DEVICE_A_PEERS nest with its public key
// (numbered_key(@peer)); the caller adds attributes and closes the nest.
nlattr *peer_start(NlMessage &m, unsigned peer)
{
    nlattr *p = m.nest_start(0);
    Key k = numbered_key(peer);
    m.put(WGX_PEER_A_PUBLIC_KEY, k.data(), 32);
    return p;
}

// A peer entry with only the public key of @peer and its allowed IPs @from to
// @to - 1: how the kernel continues a peer split across dump messages.
void put_peer_ips(NlMessage &m, unsigned peer, unsigned from, unsigned to)
{
    nlattr *p = peer_start(m, peer);
    put_ips(m, peer, from, to);
    m.nest_end(p);
}

TEST(ToolNetlink, DumpSplitAcrossMessagesIsCoalesced)
{
    Key psk = key(test::kPsk);
    // Message 1: device, peer 1 complete, peer 2 with its first 3 allowed IPs.
    NlMessage m1 = reply_start(true);
    nlattr *peers = m1.nest_start(WGX_DEVICE_A_PEERS);
    {
        nlattr *p = peer_start(m1, 1);
        Key zero{};
        m1.put(WGX_PEER_A_PRESHARED_KEY, zero.data(), 32);  // all zero: no PSK
        Endpoint ep = test::endpoint("192.0.2.1", 51820);
        m1.put(WGX_PEER_A_ENDPOINT, &ep.addr4, sizeof(sockaddr_in));
        m1.put_u16(WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL, 0);
        std::int64_t ts[2] = {1700000000, 123};
        m1.put(WGX_PEER_A_LAST_HANDSHAKE_TIME, ts, sizeof(ts));
        put_u64(m1, WGX_PEER_A_RX_BYTES, 1000);
        put_u64(m1, WGX_PEER_A_TX_BYTES, 2000);
        put_ips(m1, 1, 0, 2);
        m1.put_u32(WGX_PEER_A_PROTOCOL_VERSION, 1);
        nlattr *s = m1.nest_start(WGX_PEER_A_STATS);
        put_u64(m1, WGX_PEER_STATS_A_RX_PACKETS, 11);
        put_u64(m1, WGX_PEER_STATS_A_RX_DROP_REPLAY, 2);
        m1.nest_end(s);
        m1.put_u32(WGX_PEER_A_PATH_MTU, 1400);
        m1.put_u32(WGX_PEER_A_PATH_MTU_SOURCE, WGX_PATH_MTU_SOURCE_ICMP);
        m1.nest_end(p);
    }
    {
        nlattr *p = peer_start(m1, 2);
        m1.put(WGX_PEER_A_PRESHARED_KEY, psk.data(), 32);
        Endpoint ep = test::endpoint("2001:db8::1", 51821);
        m1.put(WGX_PEER_A_ENDPOINT, &ep.addr6, sizeof(sockaddr_in6));
        m1.put_u16(WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL, 25);
        put_ips(m1, 2, 0, 3);
        m1.nest_end(p);
    }
    m1.nest_end(peers);

    // Message 2: the rest of peer 2 (key + allowed IPs only), then peer 3 partially.
    NlMessage m2 = reply_start(false);
    peers = m2.nest_start(WGX_DEVICE_A_PEERS);
    put_peer_ips(m2, 2, 3, 7);
    put_peer_ips(m2, 3, 0, 1);
    m2.nest_end(peers);
    // Message 3: peer 3 continued.
    NlMessage m3 = reply_start(false);
    peers = m3.nest_start(WGX_DEVICE_A_PEERS);
    put_peer_ips(m3, 3, 1, 2);
    m3.nest_end(peers);

    Device d;
    for (NlMessage *m : {&m1, &m2, &m3})
        ASSERT_TRUE(parse_get_device_message(m->hdr(), d).is_ok());
    EXPECT_EQ(d.peers.size(), 5u);  // before coalescing
    coalesce_peers(d);
    EXPECT_EQ(d.name, "wgx0");
    EXPECT_EQ(d.ifindex, 7u);
    EXPECT_EQ(d.private_key, key(test::kPriv1));
    EXPECT_EQ(d.public_key, key(test::kPub1));
    EXPECT_EQ(d.listen_port, 51820);
    EXPECT_EQ(d.fwmark, 0u);
    ASSERT_TRUE(d.stats);
    EXPECT_EQ(*d.stats, (Counters{{WGX_DEVICE_STATS_A_RX_DROP_MAC1, 4}, {60, 9}}));
    ASSERT_EQ(d.peers.size(), 3u);

    const Peer &p1 = d.peers[0];
    EXPECT_EQ(p1.public_key, numbered_key(1));
    EXPECT_FALSE(p1.preshared_key);
    EXPECT_EQ(p1.endpoint, test::endpoint("192.0.2.1", 51820));
    EXPECT_EQ(p1.last_handshake_sec, 1700000000);
    EXPECT_EQ(p1.last_handshake_nsec, 123);
    EXPECT_EQ(p1.rx_bytes, 1000u);
    EXPECT_EQ(p1.tx_bytes, 2000u);
    EXPECT_EQ(p1.protocol_version, 1u);
    ASSERT_TRUE(p1.stats);
    EXPECT_EQ(*p1.stats, (Counters{{WGX_PEER_STATS_A_RX_PACKETS, 11}, {WGX_PEER_STATS_A_RX_DROP_REPLAY, 2}}));
    EXPECT_EQ(p1.allowed_ips.size(), 2u);
    EXPECT_EQ(p1.path_mtu, 1400u);
    EXPECT_EQ(p1.path_mtu_source, static_cast<std::uint32_t>(WGX_PATH_MTU_SOURCE_ICMP));

    const Peer &p2 = d.peers[1];
    EXPECT_FALSE(p2.path_mtu);
    EXPECT_EQ(p2.preshared_key, psk);
    EXPECT_EQ(p2.endpoint, test::endpoint("2001:db8::1", 51821));
    EXPECT_EQ(p2.persistent_keepalive, 25);
    ASSERT_EQ(p2.allowed_ips.size(), 7u);
    for (unsigned n = 0; n < 7; ++n)
        EXPECT_EQ(p2.allowed_ips[n], numbered_prefix(2, n, n % 2));
    ASSERT_EQ(d.peers[2].allowed_ips.size(), 2u);
    EXPECT_EQ(d.peers[2].allowed_ips[1], numbered_prefix(3, 1, true));
}

TEST(ToolNetlink, MalformedDumpContentIsRejected)
{
    NlMessage m = reply_start(false);
    nlattr *peers = m.nest_start(WGX_DEVICE_A_PEERS);
    nlattr *p = m.nest_start(0);
    m.put_u16(WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL, 5);  // no public key
    m.nest_end(p);
    m.nest_end(peers);
    Device d;
    Status st = parse_get_device_message(m.hdr(), d);
    EXPECT_EQ(st.err, EBADMSG);
    EXPECT_EQ(st.msg, "peer without a public key");

    NlMessage m2 = reply_start(false);
    peers = m2.nest_start(WGX_DEVICE_A_PEERS);
    p = peer_start(m2, 1);
    nlattr *ips = m2.nest_start(WGX_PEER_A_ALLOWEDIPS);
    nlattr *e = m2.nest_start(0);
    m2.put_u16(WGX_ALLOWEDIP_A_FAMILY, AF_INET);
    std::uint8_t addr[16] = {};
    m2.put(WGX_ALLOWEDIP_A_IPADDR, addr, 16);  // IPv6 length with AF_INET
    m2.put_u8(WGX_ALLOWEDIP_A_CIDR_MASK, 8);
    m2.nest_end(e);
    m2.nest_end(ips);
    m2.nest_end(p);
    m2.nest_end(peers);
    Device d2;
    st = parse_get_device_message(m2.hdr(), d2);
    EXPECT_EQ(st.err, EBADMSG);
}

// Automatic ports: WGX_DEVICE_A_LISTEN_PORTS says 1 (for parsers that know only
// consecutive runs), WGX_DEVICE_A_LISTEN_PORTS_AUTO carries the number bound.
TEST(ToolNetlink, ListenPortsAuto)
{
    NlMessage m = reply_start(false);
    m.put_u16(WGX_DEVICE_A_LISTEN_PORTS, 1);
    m.put_u16(WGX_DEVICE_A_LISTEN_PORTS_AUTO, 8);
    Device d;
    ASSERT_TRUE(parse_get_device_message(m.hdr(), d).is_ok());
    EXPECT_EQ(d.listen_ports, 8);
    EXPECT_EQ(d.listen_ports_auto, true);

    NlMessage f = reply_start(false);
    f.put_u16(WGX_DEVICE_A_LISTEN_PORTS, 4);
    Device fixed;
    ASSERT_TRUE(parse_get_device_message(f.hdr(), fixed).is_ok());
    EXPECT_EQ(fixed.listen_ports, 4);
    EXPECT_EQ(fixed.listen_ports_auto, false);

    // SET: auto travels as 0.
    Device req;
    req.name = "wgx0";
    std::string expected;
    const DeviceOption *o = find_device_option("listen-ports");
    ASSERT_NE(o, nullptr);
    ASSERT_TRUE(o->parse("auto", req, expected));
    EXPECT_EQ(req.listen_ports, 0);
    NlMessage s(kFamily, NLM_F_REQUEST, 8192);
    s.put_genl_header(WGX_CMD_SET_DEVICE, WGX_GENL_VERSION);
    ASSERT_TRUE(o->wire.put(s, req));
    const auto *a = static_cast<const nlattr *>(mnl_nlmsg_get_payload_offset(s.hdr(), GENL_HDRLEN));
    EXPECT_EQ(mnl_attr_get_type(a), WGX_DEVICE_A_LISTEN_PORTS);
    EXPECT_EQ(mnl_attr_get_payload_len(a), 2u);
    EXPECT_EQ(mnl_attr_get_u16(a), 0);
}

TEST(ToolNetlink, GetRequestNamesTheInterface)
{
    NlMessage m = build_get_device_request(kFamily, "wg0");
    EXPECT_EQ(m.hdr()->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
    EXPECT_EQ(genl(m.hdr())->cmd, WGX_CMD_GET_DEVICE);
    Device d;
    ASSERT_TRUE(parse_get_device_message(m.hdr(), d).is_ok());
    EXPECT_EQ(d.name, "wg0");
}

// The top-level attribute @type of a generic netlink request, as u32 (nullopt: absent).
std::optional<std::uint32_t> request_u32(const NlMessage &m, std::uint16_t type)
{
    std::optional<std::uint32_t> v;
    const auto *tail = static_cast<const char *>(mnl_nlmsg_get_payload_tail(m.hdr()));
    for (const auto *a = static_cast<const nlattr *>(mnl_nlmsg_get_payload_offset(m.hdr(), GENL_HDRLEN));
         mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char *>(a))); a = mnl_attr_next(a))
        if (mnl_attr_get_type(a) == type)
            v = mnl_attr_get_u32(a);
    return v;
}

TEST(ToolNetlink, FamilyReplyGivesIdAndMaxattr)
{
    NlMessage m(GENL_ID_CTRL, NLM_F_REQUEST, 256);
    m.put_genl_header(CTRL_CMD_NEWFAMILY, 2);
    m.put_strz(CTRL_ATTR_FAMILY_NAME, WGX_GENL_NAME);
    m.put_u16(CTRL_ATTR_FAMILY_ID, 0x1d);
    m.put_u32(CTRL_ATTR_VERSION, WGX_GENL_VERSION);
    m.put_u32(CTRL_ATTR_MAXATTR, WGX_DEVICE_A_GET_FLAGS);
    std::uint16_t id = 0;
    std::uint32_t maxattr = 0;
    ASSERT_TRUE(parse_genl_family_reply(m.hdr(), id, maxattr));
    EXPECT_EQ(id, 0x1d);
    EXPECT_EQ(maxattr, static_cast<std::uint32_t>(WGX_DEVICE_A_GET_FLAGS));
    // No id: not a family.
    NlMessage bare(GENL_ID_CTRL, NLM_F_REQUEST, 64);
    bare.put_genl_header(CTRL_CMD_NEWFAMILY, 2);
    bare.put_u32(CTRL_ATTR_MAXATTR, 3);
    EXPECT_FALSE(parse_genl_family_reply(bare.hdr(), id, maxattr));
}

// One message of a dump of all families: only the one named is taken, and a
// name that merely starts like it is another family.
TEST(ToolNetlink, FamilyDumpMessageMatchesItsName)
{
    auto family = [](const char *name, std::uint16_t id) {
        NlMessage m(GENL_ID_CTRL, NLM_F_MULTI, 256);
        m.put_genl_header(CTRL_CMD_NEWFAMILY, 2);
        m.put_u16(CTRL_ATTR_FAMILY_ID, id);
        m.put_strz(CTRL_ATTR_FAMILY_NAME, name);
        m.put_u32(CTRL_ATTR_MAXATTR, 7);
        return m;
    };
    std::uint16_t id = 0;
    std::uint32_t maxattr = 0;
    EXPECT_FALSE(parse_genl_family_named(family("wireguard", 0x20).hdr(), WGX_GENL_NAME, id, maxattr));
    EXPECT_FALSE(parse_genl_family_named(family("wgx2", 0x21).hdr(), WGX_GENL_NAME, id, maxattr));
    EXPECT_EQ(id, 0);
    EXPECT_EQ(maxattr, 0u);
    ASSERT_TRUE(parse_genl_family_named(family(WGX_GENL_NAME, 0x22).hdr(), WGX_GENL_NAME, id, maxattr));
    EXPECT_EQ(id, 0x22);
    EXPECT_EQ(maxattr, 7u);
    // Named but without an id: not a family.
    NlMessage bare(GENL_ID_CTRL, NLM_F_MULTI, 64);
    bare.put_genl_header(CTRL_CMD_NEWFAMILY, 2);
    bare.put_strz(CTRL_ATTR_FAMILY_NAME, WGX_GENL_NAME);
    EXPECT_FALSE(parse_genl_family_named(bare.hdr(), WGX_GENL_NAME, id, maxattr));
}

TEST(ToolNetlink, GetRequestCarriesGetFlagsOnlyWhenAsked)
{
    EXPECT_EQ(request_u32(build_get_device_request(kFamily, "wg0"), WGX_DEVICE_A_GET_FLAGS), std::nullopt);
    EXPECT_EQ(request_u32(build_get_device_request(kFamily, "wg0", 0), WGX_DEVICE_A_GET_FLAGS), std::nullopt);
    EXPECT_EQ(request_u32(build_get_device_request(kFamily, "wgx0", WGX_GET_F_NO_STATS), WGX_DEVICE_A_GET_FLAGS),
              std::optional<std::uint32_t>(WGX_GET_F_NO_STATS));
}

// The top-level u8 attribute @type of a generic netlink message (nullopt: absent).
std::optional<std::uint8_t> request_u8(const NlMessage &m, std::uint16_t type)
{
    std::optional<std::uint8_t> v;
    const auto *tail = static_cast<const char *>(mnl_nlmsg_get_payload_tail(m.hdr()));
    for (const auto *a = static_cast<const nlattr *>(mnl_nlmsg_get_payload_offset(m.hdr(), GENL_HDRLEN));
         mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char *>(a))); a = mnl_attr_next(a))
        if (mnl_attr_get_type(a) == type)
            v = mnl_attr_get_u8(a);
    return v;
}

// WGX_DEVICE_A_RX_SPREAD carries enum wgx_rx_spread_mode both ways: off 0,
// on 1, auto 2; a mode from a newer kernel is kept, not mistaken for one.
TEST(ToolNetlink, RxSpreadModesRoundTrip)
{
    const std::pair<RxSpread, std::uint8_t> modes[] = {
        {RxSpread::Off, WGX_RX_SPREAD_OFF}, {RxSpread::On, WGX_RX_SPREAD_ON}, {RxSpread::Auto, WGX_RX_SPREAD_AUTO}};
    for (const auto &[mode, wire] : modes) {
        Device d;
        d.name = "wgx0";
        d.rx_spread = mode;
        std::vector<NlMessage> msgs;
        ASSERT_TRUE(build_set_device_messages(d, kFamily, 8192, msgs).is_ok());
        ASSERT_EQ(msgs.size(), 1u);
        EXPECT_EQ(request_u8(msgs[0], WGX_DEVICE_A_RX_SPREAD), std::optional<std::uint8_t>(wire));
        Device back;
        ASSERT_TRUE(parse_set_device_message(msgs[0].hdr(), back).is_ok());
        EXPECT_EQ(back.rx_spread, mode);

        NlMessage reply = reply_start(false);
        reply.put_u8(WGX_DEVICE_A_RX_SPREAD, wire);
        Device got;
        ASSERT_TRUE(parse_get_device_message(reply.hdr(), got).is_ok());
        EXPECT_EQ(got.rx_spread, mode);
    }

    // Not set: not sent.
    Device none;
    none.name = "wgx0";
    none.listen_port = 1;
    std::vector<NlMessage> msgs;
    ASSERT_TRUE(build_set_device_messages(none, kFamily, 8192, msgs).is_ok());
    EXPECT_EQ(request_u8(msgs[0], WGX_DEVICE_A_RX_SPREAD), std::nullopt);

    NlMessage reply = reply_start(false);
    reply.put_u8(WGX_DEVICE_A_RX_SPREAD, 7);
    Device got;
    ASSERT_TRUE(parse_get_device_message(reply.hdr(), got).is_ok());
    ASSERT_TRUE(got.rx_spread);
    EXPECT_EQ(static_cast<unsigned>(*got.rx_spread), 7u);
    EXPECT_EQ(rx_spread_name(*got.rx_spread), nullptr);
}

// ---- NLMSG_ERROR / NLMSG_DONE with extended ACK.

TEST(ToolNetlink, ExtackMessageIsReported)
{
    NlMessage m(NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, 512);
    auto *err = static_cast<nlmsgerr *>(m.put_extra_header(sizeof(nlmsgerr)));
    err->error = -EINVAL;
    err->msg.nlmsg_len = 64;  // capped: original payload not included
    m.put_strz(NLMSGERR_ATTR_MSG, "peer has an invalid allowed IP");
    Status st = parse_nlmsg_error(m.hdr());
    EXPECT_EQ(st.err, EINVAL);
    EXPECT_EQ(st.msg, "peer has an invalid allowed IP");
    EXPECT_EQ(st.text(), "peer has an invalid allowed IP (Invalid argument)");

    NlMessage ack(NLMSG_ERROR, NLM_F_CAPPED, 64);
    static_cast<nlmsgerr *>(ack.put_extra_header(sizeof(nlmsgerr)))->error = 0;
    EXPECT_TRUE(parse_nlmsg_error(ack.hdr()).is_ok());

    NlMessage done(NLMSG_DONE, NLM_F_MULTI, 64);
    int e = -ENODEV;
    std::memcpy(done.put_extra_header(sizeof(int)), &e, sizeof(int));
    Status ds = parse_nlmsg_error(done.hdr());
    EXPECT_EQ(ds.err, ENODEV);
    EXPECT_EQ(ds.text(), "No such device");
}

// ---- rtnetlink

TEST(ToolNetlink, LinkMessages)
{
    NlMessage m(RTM_NEWLINK, NLM_F_MULTI, 1024);
    auto *ifm = static_cast<ifinfomsg *>(m.put_extra_header(sizeof(ifinfomsg)));
    ifm->ifi_index = 12;
    m.put_strz(IFLA_IFNAME, "wgx0");
    m.put_u32(IFLA_MTU, 1420);
    nlattr *li = m.nest_start(IFLA_LINKINFO);
    m.put_strz(IFLA_INFO_KIND, "wgx");
    m.nest_end(li);
    LinkInfo l;
    ASSERT_TRUE(parse_link_message(m.hdr(), l));
    EXPECT_EQ(l.name, "wgx0");
    EXPECT_EQ(l.ifindex, 12u);
    EXPECT_EQ(l.mtu, 1420u);
    EXPECT_EQ(l.kind, "wgx");
    EXPECT_EQ(kind_from_string(l.kind), Kind::Wgx);
    EXPECT_EQ(kind_from_string("wireguard"), Kind::WireGuard);
    EXPECT_EQ(kind_from_string("veth"), Kind::Unknown);
    EXPECT_EQ(kind_from_string(""), Kind::Unknown);

    NlMessage set = build_set_mtu_request(12, 1380);
    EXPECT_EQ(set.hdr()->nlmsg_type, RTM_NEWLINK);
    EXPECT_EQ(set.hdr()->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);  // no CREATE: existing link only
    const auto *sifm = static_cast<const ifinfomsg *>(mnl_nlmsg_get_payload(set.hdr()));
    EXPECT_EQ(sifm->ifi_index, 12);
    std::uint32_t mtu = 0;
    for_each_attr(set.hdr(), sizeof(ifinfomsg), [&](const nlattr *a) {
        if (mnl_attr_get_type(a) == IFLA_MTU)
            mtu = mnl_attr_get_u32(a);
    });
    EXPECT_EQ(mtu, 1380u);

    NlMessage del(RTM_DELLINK, 0, 64);
    EXPECT_FALSE(parse_link_message(del.hdr(), l));
}

// ---- ethtool

void put_bitset(NlMessage &m, std::uint16_t type, const std::vector<std::pair<std::string, bool>> &bits, bool list)
{
    nlattr *set = m.nest_start(type);
    if (list)
        m.put_flag(ETHTOOL_A_BITSET_NOMASK);
    m.put_u32(ETHTOOL_A_BITSET_SIZE, 64);
    nlattr *bs = m.nest_start(ETHTOOL_A_BITSET_BITS);
    std::uint32_t index = 0;
    for (const auto &[name, on] : bits) {
        if (list && !on)
            continue;
        nlattr *b = m.nest_start(ETHTOOL_A_BITSET_BITS_BIT);
        m.put_u32(ETHTOOL_A_BITSET_BIT_INDEX, index++);
        m.put_strz(ETHTOOL_A_BITSET_BIT_NAME, name);
        if (!list && on)
            m.put_flag(ETHTOOL_A_BITSET_BIT_VALUE);
        m.nest_end(b);
    }
    m.nest_end(bs);
    m.nest_end(set);
}

FeatureMap wireguard_like_features()
{
    NlMessage m(kFamily, 0, 4096);
    m.put_genl_header(ETHTOOL_MSG_FEATURES_GET_REPLY, 1);
    // hw (changeable): list form, as the kernel sends it.
    put_bitset(
        m, ETHTOOL_A_FEATURES_HW,
        {{"tx-generic-segmentation", true}, {"rx-gro", true}, {"tx-checksum-ip-generic", true}, {"rx-checksum", true}},
        true);
    put_bitset(
        m, ETHTOOL_A_FEATURES_ACTIVE,
        {{"tx-generic-segmentation", true}, {"rx-gro", true}, {"tx-checksum-ip-generic", true}, {"highdma", true}},
        true);
    // value/mask form is understood too.
    put_bitset(m, ETHTOOL_A_FEATURES_NOCHANGE, {{"highdma", true}, {"rx-gro", false}}, false);
    FeatureMap f;
    EXPECT_TRUE(parse_features_reply(m.hdr(), f).is_ok());
    return f;
}

TEST(ToolNetlink, FeatureBitsetsParse)
{
    FeatureMap f = wireguard_like_features();
    EXPECT_TRUE(f["tx-generic-segmentation"].hw);
    EXPECT_TRUE(f["tx-generic-segmentation"].active);
    EXPECT_TRUE(f["rx-checksum"].hw);
    EXPECT_FALSE(f["rx-checksum"].active);
    EXPECT_FALSE(f["highdma"].hw);
    EXPECT_TRUE(f["highdma"].active);
    EXPECT_TRUE(f["highdma"].nochange);
    EXPECT_FALSE(f["rx-gro"].nochange);
}

TEST(ToolNetlink, OffloadNamesMapToFeatures)
{
    FeatureMap f = wireguard_like_features();
    FeatureRequest req;
    ASSERT_TRUE(
        map_offloads({{"gso", false}, {"gro", true}, {"tx-checksum", false}, {"rx-checksum", true}}, f, "wg0", req)
            .is_ok());
    EXPECT_EQ(req, (FeatureRequest{{"tx-generic-segmentation", false},
                                   {"rx-gro", true},
                                   {"tx-checksum-ip-generic", false},
                                   {"rx-checksum", true}}));

    // A device with only IPv4/IPv6 checksum features gets both toggled.
    FeatureMap v46;
    v46["tx-checksum-ipv4"] = {true, true, true, false};
    v46["tx-checksum-ipv6"] = {true, true, true, false};
    ASSERT_TRUE(map_offloads({{"tx-checksum", false}}, v46, "eth0", req).is_ok());
    EXPECT_EQ(req, (FeatureRequest{{"tx-checksum-ipv4", false}, {"tx-checksum-ipv6", false}}));

    // A fixed feature: fine if already in the requested state, an error otherwise.
    FeatureMap fixed;
    fixed["rx-gro"] = {false, true, true, true};
    ASSERT_TRUE(map_offloads({{"gro", true}}, fixed, "wg0", req).is_ok());
    EXPECT_TRUE(req.empty());
    Status st = map_offloads({{"gro", false}}, fixed, "wg0", req);
    EXPECT_EQ(st.err, EOPNOTSUPP);
    EXPECT_EQ(st.msg, "offload gro cannot be turned off on wg0: feature rx-gro is fixed by the driver");

    st = map_offloads({{"gso", true}}, FeatureMap{}, "wg0", req);
    EXPECT_EQ(st.err, EOPNOTSUPP);
    EXPECT_EQ(st.msg, "offload gso is not supported by wg0 (no feature tx-generic-segmentation)");
}

TEST(ToolNetlink, FeatureSetRequestListsOnlyRequestedBits)
{
    NlMessage m = build_features_set_request(kFamily, "wg0", {{"rx-gro", true}, {"tx-generic-segmentation", false}});
    EXPECT_EQ(genl(m.hdr())->cmd, ETHTOOL_MSG_FEATURES_SET);
    std::string dev;
    std::uint32_t hflags = 0;
    std::vector<std::pair<std::string, bool>> bits;
    bool nomask = false;
    for_each_attr(m.hdr(), sizeof(genlmsghdr), [&](const nlattr *a) {
        if (mnl_attr_get_type(a) == ETHTOOL_A_FEATURES_HEADER) {
            for_each_nested(a, [&](const nlattr *h) {
                if (mnl_attr_get_type(h) == ETHTOOL_A_HEADER_DEV_NAME)
                    dev = mnl_attr_get_str(h);
                if (mnl_attr_get_type(h) == ETHTOOL_A_HEADER_FLAGS)
                    hflags = mnl_attr_get_u32(h);
            });
        }
        if (mnl_attr_get_type(a) == ETHTOOL_A_FEATURES_WANTED) {
            for_each_nested(a, [&](const nlattr *s) {
                if (mnl_attr_get_type(s) == ETHTOOL_A_BITSET_NOMASK)
                    nomask = true;
                if (mnl_attr_get_type(s) != ETHTOOL_A_BITSET_BITS)
                    return;
                for_each_nested(s, [&](const nlattr *b) {
                    std::string name;
                    bool on = false;
                    for_each_nested(b, [&](const nlattr *x) {
                        if (mnl_attr_get_type(x) == ETHTOOL_A_BITSET_BIT_NAME)
                            name = mnl_attr_get_str(x);
                        if (mnl_attr_get_type(x) == ETHTOOL_A_BITSET_BIT_VALUE)
                            on = true;
                    });
                    bits.emplace_back(name, on);
                });
            });
        }
    });
    EXPECT_EQ(dev, "wg0");
    EXPECT_EQ(hflags, (std::uint32_t)ETHTOOL_FLAG_OMIT_REPLY);
    EXPECT_FALSE(nomask);  // with a mask: bits not listed stay untouched
    EXPECT_EQ(bits, (std::vector<std::pair<std::string, bool>>{{"rx-gro", true}, {"tx-generic-segmentation", false}}));
}

}  // namespace
}  // namespace wgx
