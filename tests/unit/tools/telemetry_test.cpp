// SPDX-License-Identifier: GPL-2.0
// Per-peer telemetry in the tool without a kernel: the statistic tables,
// parsing the new attributes from a GET_DEVICE reply, their lines in
// `show`, columns in `show dump`, keys in `--json`, and "absent means
// unknown" everywhere.
#include <linux/genetlink.h>

#include <set>

#include "../../../tools/wgx/format.hpp"
#include "../../../tools/wgx/wgnl.hpp"
#include "tool_test_util.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {
namespace {

using test::key;

// Every per-peer statistic 1..MAX with a distinct value (attr * 1000 + 7).
Counters all_peer_stats()
{
    Counters c;
    for (std::uint16_t a = 1; a <= WGX_PEER_STATS_A_MAX; ++a)
        c.emplace_back(a, a * 1000ULL + 7);
    return c;
}

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        std::size_t i = s.find(sep, start);
        out.push_back(s.substr(start, i - start));
        if (i == std::string::npos)
            return out;
        start = i + 1;
    }
}

TEST(ToolTelemetry, StatTablesAreDenseNamedAndMatchTheUapi)
{
    ASSERT_EQ(peer_stats().size(), static_cast<std::size_t>(WGX_PEER_STATS_A_MAX));
    ASSERT_EQ(device_stats().size(), static_cast<std::size_t>(WGX_DEVICE_STATS_A_MAX));
    for (const auto *table : {&peer_stats(), &device_stats()}) {
        std::set<std::string> names;
        for (std::size_t i = 0; i < table->size(); ++i) {
            const StatInfo &s = (*table)[i];
            EXPECT_EQ(s.attr, i + 1);
            EXPECT_TRUE(names.insert(s.name).second) << "duplicate " << s.name;
            for (const char *c = s.name; *c; ++c)
                EXPECT_TRUE((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_') << s.name;
            std::string n = s.name;
            bool us = n.size() > 3 && n.compare(n.size() - 3, 3, "_us") == 0;
            EXPECT_EQ(us, s.kind == StatKind::GaugeUsec) << n;
            EXPECT_GT(std::string(s.help).size(), 10u) << n;
        }
    }
    // The RTT figures are the gauges; everything else counts events.
    for (std::uint16_t a :
         {WGX_PEER_STATS_A_HANDSHAKE_RTT_LAST_US, WGX_PEER_STATS_A_HANDSHAKE_RTT_MIN_US,
          WGX_PEER_STATS_A_HANDSHAKE_SRTT_US, WGX_PEER_STATS_A_TCP_RTT_LAST_US, WGX_PEER_STATS_A_TCP_RTT_MIN_US,
          WGX_PEER_STATS_A_TCP_SRTT_US, WGX_PEER_STATS_A_TCP_RTTVAR_US})
        EXPECT_EQ(peer_stats()[a - 1].kind, StatKind::GaugeUsec) << a;
    EXPECT_STREQ(peer_counter_name(WGX_PEER_STATS_A_RX_LOST), "rx_lost");
    EXPECT_STREQ(peer_counter_name(WGX_PEER_STATS_A_TX_TCP_RETRANSMITS), "tx_tcp_retransmits");
    EXPECT_STREQ(peer_counter_name(WGX_PEER_STATS_A_HANDSHAKES_PACED), "handshakes_paced");
    EXPECT_STREQ(device_counter_name(WGX_DEVICE_STATS_A_HANDSHAKES_PACED), "handshakes_paced");
}

// ---- parsing

void put_u64(NlMessage &m, std::uint16_t type, std::uint64_t v)
{
    if ((m.hdr()->nlmsg_len + 4) % 8)
        m.put(0, nullptr, 0);  // nla_put_u64_64bit's padding
    m.put(type, &v, sizeof(v));
}

TEST(ToolTelemetry, NewAttributesAreParsedAndAbsentOnesStayUnknown)
{
    NlMessage m(0x1d, NLM_F_MULTI, 8192);
    m.put_genl_header(WGX_CMD_GET_DEVICE, WGX_GENL_VERSION);
    m.put_strz(WGX_DEVICE_A_IFNAME, "wgx0");
    nlattr *ds = m.nest_start(WGX_DEVICE_A_STATS);
    put_u64(m, WGX_DEVICE_STATS_A_HANDSHAKES_PACED, 17);
    m.nest_end(ds);
    nlattr *peers = m.nest_start(WGX_DEVICE_A_PEERS);
    nlattr *p = m.nest_start(0);
    Key k1 = key(test::kPub2), k2 = key(test::kPub3);
    m.put(WGX_PEER_A_PUBLIC_KEY, k1.data(), 32);
    nlattr *s = m.nest_start(WGX_PEER_A_STATS);
    for (const auto &[a, v] : all_peer_stats())
        put_u64(m, a, v);
    put_u64(m, 60, 5);  // from a newer kernel
    m.nest_end(s);
    m.nest_end(p);
    // A kernel that has the counters but no RTT sample yet, nor telemetry.
    p = m.nest_start(0);
    m.put(WGX_PEER_A_PUBLIC_KEY, k2.data(), 32);
    s = m.nest_start(WGX_PEER_A_STATS);
    put_u64(m, WGX_PEER_STATS_A_RX_PACKETS, 3);
    put_u64(m, WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES, 0);
    m.nest_end(s);
    m.nest_end(p);
    m.nest_end(peers);

    Device d;
    ASSERT_TRUE(parse_get_device_message(m.hdr(), d).is_ok());
    ASSERT_EQ(d.peers.size(), 2u);
    EXPECT_EQ(stat_value(d.stats, WGX_DEVICE_STATS_A_HANDSHAKES_PACED), 17u);
    for (std::uint16_t a = 1; a <= WGX_PEER_STATS_A_MAX; ++a)
        EXPECT_EQ(stat_value(d.peers[0].stats, a), a * 1000ULL + 7) << a;
    EXPECT_EQ(stat_value(d.peers[0].stats, 60), 5u);
    const Peer &q = d.peers[1];
    EXPECT_EQ(stat_value(q.stats, WGX_PEER_STATS_A_RX_PACKETS), 3u);
    EXPECT_EQ(stat_value(q.stats, WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES), 0u);
    for (std::uint16_t a : {WGX_PEER_STATS_A_HANDSHAKE_SRTT_US, WGX_PEER_STATS_A_TCP_SRTT_US, WGX_PEER_STATS_A_RX_LOST,
                            WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, WGX_PEER_STATS_A_HANDSHAKES_PACED})
        EXPECT_FALSE(stat_value(q.stats, a)) << a;
    EXPECT_FALSE(stat_value(std::nullopt, WGX_PEER_STATS_A_RX_PACKETS));

    // A telemetry value that is not a u64 is a malformed reply, named.
    NlMessage bad(0x1d, NLM_F_MULTI, 512);
    bad.put_genl_header(WGX_CMD_GET_DEVICE, WGX_GENL_VERSION);
    peers = bad.nest_start(WGX_DEVICE_A_PEERS);
    p = bad.nest_start(0);
    bad.put(WGX_PEER_A_PUBLIC_KEY, k1.data(), 32);
    s = bad.nest_start(WGX_PEER_A_STATS);
    bad.put_u32(WGX_PEER_STATS_A_TCP_SRTT_US, 5);
    bad.nest_end(s);
    bad.nest_end(p);
    bad.nest_end(peers);
    Device e;
    Status st = parse_get_device_message(bad.hdr(), e);
    EXPECT_EQ(st.err, EBADMSG);
    EXPECT_NE(st.msg.find("counter 27 is not a u64"), std::string::npos) << st.msg;
}

// ---- show

Peer telemetry_peer()
{
    Peer p;
    p.public_key = key(test::kPub2);
    p.stats = Counters{
        {WGX_PEER_STATS_A_RX_PACKETS, 9988},
        {WGX_PEER_STATS_A_RX_DROP_AUTH, 1},
        {WGX_PEER_STATS_A_RX_DROP_REPLAY, 0},
        {WGX_PEER_STATS_A_TX_DROP_NO_ENDPOINT, 2},
        {WGX_PEER_STATS_A_HANDSHAKE_RTT_LAST_US, 1520},
        {WGX_PEER_STATS_A_HANDSHAKE_RTT_MIN_US, 1200},
        {WGX_PEER_STATS_A_HANDSHAKE_SRTT_US, 1480},
        {WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES, 4},
        {WGX_PEER_STATS_A_TCP_RTT_LAST_US, 20512},
        {WGX_PEER_STATS_A_TCP_RTT_MIN_US, 20100},
        {WGX_PEER_STATS_A_TCP_SRTT_US, 20400},
        {WGX_PEER_STATS_A_TCP_RTTVAR_US, 300},
        {WGX_PEER_STATS_A_TCP_RTT_SAMPLES, 1},
        {WGX_PEER_STATS_A_RX_LOST, 12},
        {WGX_PEER_STATS_A_RX_REORDERED, 3},
        {WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, 45},
        {WGX_PEER_STATS_A_TX_TCP_SEGMENTS, 10000},
        {WGX_PEER_STATS_A_HANDSHAKES_PACED, 6},
    };
    return p;
}

TEST(ToolTelemetry, ShowPrintsWgxLinesAfterWgs)
{
    EXPECT_EQ(format_peer_telemetry(telemetry_peer(), false),
              "  handshake rtt: 1.520 ms, min 1.200 ms, smoothed 1.480 ms (4 samples)\n"
              "  tcp rtt: 20.512 ms, min 20.100 ms, smoothed 20.400 ms, variation 0.300 ms "
              "(1 sample)\n"
              "  packet loss: 12 lost (0.12%), 3 reordered\n"
              "  tcp retransmits: 45 of 10000 segments (0.45%, approximate)\n"
              "  drops: received 1 authentication; sent 2 no endpoint\n"
              "  handshakes paced: 6\n");

    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    d.peers = {telemetry_peer()};
    ShowOptions o;
    std::string s = format_show(d, o);
    // After wg's lines for the peer, before nothing else.
    EXPECT_NE(s.find("  allowed ips: (none)\n  handshake rtt: 1.520 ms"), std::string::npos) << s;
    EXPECT_EQ(s.substr(s.size() - 22), "  handshakes paced: 6\n");

    o.color = true;
    std::string c = format_show(d, o);
    EXPECT_NE(c.find("  \x1b[1mtcp rtt\x1b[0m: 20.512 \x1b[36mms\x1b[0m"), std::string::npos);
}

TEST(ToolTelemetry, ShowOmitsWhatIsUnknownOrZero)
{
    Peer p;
    p.public_key = key(test::kPub2);
    EXPECT_EQ(format_peer_telemetry(p, false), "");  // no statistics at all (wireguard)
    p.stats = Counters{};
    EXPECT_EQ(format_peer_telemetry(p, false), "");
    // Counters present but zero, RTT with no sample: nothing to say.
    p.stats = Counters{{WGX_PEER_STATS_A_RX_LOST, 0},
                       {WGX_PEER_STATS_A_RX_REORDERED, 0},
                       {WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, 0},
                       {WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES, 0},
                       {WGX_PEER_STATS_A_TCP_RTT_SAMPLES, 0},
                       {WGX_PEER_STATS_A_HANDSHAKES_PACED, 0}};
    EXPECT_EQ(format_peer_telemetry(p, false), "");
    // Only some figures known: only those printed, no invented percentages.
    p.stats = Counters{{WGX_PEER_STATS_A_TCP_SRTT_US, 999},
                       {WGX_PEER_STATS_A_RX_REORDERED, 5},
                       {WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, 2}};
    EXPECT_EQ(format_peer_telemetry(p, false), "  tcp rtt: smoothed 0.999 ms\n"
                                               "  packet loss: 5 reordered\n"
                                               "  tcp retransmits: 2 (approximate)\n");
    p.stats = Counters{{WGX_PEER_STATS_A_RX_LOST, 1}};
    EXPECT_EQ(format_peer_telemetry(p, false), "  packet loss: 1 lost\n");
    EXPECT_EQ(format_usec(0), "0.000 ms");
    EXPECT_EQ(format_usec(123456789), "123456.789 ms");
    EXPECT_EQ(format_percent(1, 3), "33.33%");
    EXPECT_EQ(format_percent(1, 0), "-");
}

TEST(ToolTelemetry, DumpTelemetryAppendsOneColumnPerStatistic)
{
    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    Peer p = telemetry_peer();
    p.stats = all_peer_stats();
    Peer none;
    none.public_key = key(test::kPub3);
    d.peers = {p, none};
    // Plain dump: wg's eight fields, whatever the statistics (scripts read a
    // peer line with `read -r pub psk ep ips hs rx tx ka`).
    std::vector<std::string> lines = split(format_dump(d, false), '\n');
    ASSERT_EQ(lines.size(), 4u);  // device, two peers, final ""
    EXPECT_EQ(split(lines[0], '\t').size(), 4u);
    EXPECT_EQ(split(lines[1], '\t').size(), 8u);
    EXPECT_EQ(split(lines[2], '\t').size(), 8u);
    EXPECT_EQ(split(*format_show_field(d, "dump", true), '\n')[1], "wgx0\t" + lines[1]);

    lines = split(format_dump(d, false, true), '\n');
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(split(lines[0], '\t').size(), 4u);  // wg's device line unchanged
    std::vector<std::string> f = split(lines[1], '\t');
    ASSERT_EQ(f.size(), 8u + WGX_PEER_STATS_A_MAX);
    for (std::uint16_t a = 1; a <= WGX_PEER_STATS_A_MAX; ++a)
        EXPECT_EQ(f[7 + a], std::to_string(a * 1000ULL + 7)) << "column " << 8 + a;
    std::vector<std::string> g = split(lines[2], '\t');
    ASSERT_EQ(g.size(), 8u + WGX_PEER_STATS_A_MAX);
    for (std::size_t i = 8; i < g.size(); ++i)
        EXPECT_EQ(g[i], "-");  // unknown, not 0
    // With the interface name first, every column moves by one.
    f = split(split(format_dump(d, true, true), '\n')[1], '\t');
    EXPECT_EQ(f[8 + WGX_PEER_STATS_A_TCP_SRTT_US], std::to_string(WGX_PEER_STATS_A_TCP_SRTT_US * 1000 + 7));

    // An in-tree WireGuard device has no statistics: the same columns, all "-",
    // so that `show all dump-telemetry` lines have one layout.
    d.kind = Kind::WireGuard;
    d.peers[0].stats.reset();
    lines = split(format_dump(d, false, true), '\n');
    g = split(lines[1], '\t');
    ASSERT_EQ(g.size(), 8u + WGX_PEER_STATS_A_MAX);
    for (std::size_t i = 8; i < g.size(); ++i)
        EXPECT_EQ(g[i], "-");
}

TEST(ToolTelemetry, JsonCarriesTelemetryByNameAndOmitsUnknown)
{
    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    d.peers = {telemetry_peer()};
    std::string j = format_json({d}, true);
    for (const char *kv :
         {"\"handshake_srtt_us\": 1480", "\"tcp_srtt_us\": 20400", "\"tcp_rttvar_us\": 300", "\"rx_lost\": 12",
          "\"rx_reordered\": 3", "\"tx_tcp_retransmits\": 45", "\"tx_tcp_segments\": 10000", "\"handshakes_paced\": 6"})
        EXPECT_NE(j.find(kv), std::string::npos) << kv;
    EXPECT_EQ(j.find("keepalives_rx"), std::string::npos);  // not reported: absent
}

}  // namespace
}  // namespace wgx
