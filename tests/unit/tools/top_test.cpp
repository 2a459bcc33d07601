// SPDX-License-Identifier: GPL-2.0
// `wgx top` without a terminal: rates from counter deltas, sorting, the
// table text of `--once`, and the command line's refusals.
#include "../../../tools/wgx/subcommands.hpp"
#include "../../../tools/wgx/telemetry.hpp"
#include "tool_test_util.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {
namespace {

using test::key;

constexpr std::time_t kNow = 1700000000;

Peer peer(const char *k, std::uint64_t rx, std::uint64_t tx, std::optional<Counters> stats)
{
    Peer p;
    p.public_key = key(k);
    p.rx_bytes = rx;
    p.tx_bytes = tx;
    p.stats = std::move(stats);
    return p;
}

Device dev(const char *name, std::vector<Peer> peers)
{
    Device d;
    d.name = name;
    d.kind = Kind::Wgx;
    d.peers = std::move(peers);
    return d;
}

const TopRow &row(const std::vector<TopRow> &rows, const char *iface, const char *k)
{
    for (const TopRow &r : rows)
        if (r.iface == iface && r.public_key == k)
            return r;
    ADD_FAILURE() << "no row " << iface << " " << k;
    return rows.front();
}

TEST(ToolTop, RatesComeFromCounterDeltas)
{
    using S = Counters;
    Device before = dev("wgx0", {peer(test::kPub2, 1000000, 2000,
                                      S{{WGX_PEER_STATS_A_RX_PACKETS, 1000},
                                        {WGX_PEER_STATS_A_TX_PACKETS, 10},
                                        {WGX_PEER_STATS_A_RX_LOST, 5},
                                        {WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, 7}})});
    Peer after_p = peer(test::kPub2, 3500000, 2000,
                        S{{WGX_PEER_STATS_A_RX_PACKETS, 2960},
                          {WGX_PEER_STATS_A_TX_PACKETS, 10},
                          {WGX_PEER_STATS_A_RX_LOST, 45},
                          {WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, 13},
                          {WGX_PEER_STATS_A_RX_DROP_REPLAY, 4},
                          {WGX_PEER_STATS_A_TX_DROP_ERROR, 1},
                          {WGX_PEER_STATS_A_TCP_SRTT_US, 20512},
                          {WGX_PEER_STATS_A_HANDSHAKE_SRTT_US, 900}});
    after_p.last_handshake_sec = kNow - 65;
    Device after = dev("wgx0", {after_p});
    std::vector<TopRow> rows = top_rows({before}, {after}, 2.0, kNow);
    ASSERT_EQ(rows.size(), 1u);
    const TopRow &r = rows[0];
    EXPECT_DOUBLE_EQ(*r.rx_mbps, 10.0);  // 2.5e6 bytes * 8 / 2 s
    EXPECT_DOUBLE_EQ(*r.tx_mbps, 0.0);
    EXPECT_DOUBLE_EQ(*r.rx_pps, 980.0);
    EXPECT_DOUBLE_EQ(*r.tx_pps, 0.0);
    EXPECT_DOUBLE_EQ(*r.loss_percent, 2.0);  // 40 lost / (40 + 1960)
    EXPECT_DOUBLE_EQ(*r.retrans_per_s, 3.0);
    EXPECT_EQ(r.drops, 5u);  // cumulative, every drop counter
    EXPECT_EQ(r.tcp_srtt_us, 20512u);
    EXPECT_EQ(r.handshake_srtt_us, 900u);
    EXPECT_EQ(r.handshake_age, 65u);
    EXPECT_EQ(r.allowed_ips, "(none)");
}

TEST(ToolTop, UnknownStaysUnknown)
{
    // First sample of a peer; a peer re-created with lower counters; a
    // wireguard peer without statistics; a peer with no traffic.
    Device before = dev("wgx0", {peer(test::kPub3, 500, 500, Counters{{1, 50}, {2, 50}}),
                                 peer(test::kPub5, 0, 0, Counters{{1, 0}, {30, 0}})});
    Device wg_before = dev("wg0", {peer(test::kPub4, 10, 10, std::nullopt)});
    Peer fresh = peer(test::kPub2, 100, 100, Counters{{1, 1}});
    fresh.allowed_ips = {test::prefix("10.0.0.2", 32), test::prefix("fd00::2", 128), test::prefix("10.9.0.0", 16)};
    Device after = dev("wgx0", {fresh, peer(test::kPub3, 100, 900, Counters{{1, 10}, {2, 60}}),
                                peer(test::kPub5, 0, 0, Counters{{1, 0}, {30, 0}})});
    Device wg_after = dev("wg0", {peer(test::kPub4, 1010, 10, std::nullopt)});
    wg_after.kind = Kind::WireGuard;
    std::vector<TopRow> rows = top_rows({before, wg_before}, {after, wg_after}, 1.0, kNow);
    ASSERT_EQ(rows.size(), 4u);

    const TopRow &n = row(rows, "wgx0", test::kPub2);
    EXPECT_FALSE(n.rx_mbps || n.tx_mbps || n.rx_pps || n.loss_percent || n.retrans_per_s);
    EXPECT_EQ(n.allowed_ips, "10.0.0.2/32+2");
    EXPECT_FALSE(n.handshake_age);     // never
    EXPECT_EQ(n.drops, std::nullopt);  // no drop counter reported

    const TopRow &back = row(rows, "wgx0", test::kPub3);
    EXPECT_FALSE(back.rx_mbps);  // 100 < 500: not a negative rate
    EXPECT_FALSE(back.rx_pps);
    EXPECT_DOUBLE_EQ(*back.tx_mbps, 0.0032);
    EXPECT_DOUBLE_EQ(*back.tx_pps, 10.0);

    const TopRow &idle = row(rows, "wgx0", test::kPub5);
    EXPECT_DOUBLE_EQ(*idle.rx_pps, 0.0);
    EXPECT_FALSE(idle.loss_percent);  // nothing received, nothing lost: no ratio

    const TopRow &w = row(rows, "wg0", test::kPub4);
    EXPECT_DOUBLE_EQ(*w.rx_mbps, 0.008);
    EXPECT_FALSE(w.rx_pps || w.loss_percent || w.retrans_per_s || w.tcp_srtt_us || w.drops);

    // The same key on two interfaces is two peers.
    Device other = dev("wgx1", {peer(test::kPub2, 0, 0, Counters{})});
    rows = top_rows({other}, {after}, 1.0, kNow);
    EXPECT_FALSE(row(rows, "wgx0", test::kPub2).rx_mbps);
}

std::vector<std::string> order(const std::vector<TopRow> &rows)
{
    std::vector<std::string> o;
    for (const TopRow &r : rows)
        o.push_back(r.iface + "/" + r.public_key.substr(0, 2));
    return o;
}

std::vector<TopRow> sample_rows()
{
    std::vector<TopRow> rows(4);
    const char *keys[] = {test::kPub2, test::kPub3, test::kPub4, test::kPub5};  // h9 lJ Eo EB
    for (std::size_t i = 0; i < 4; ++i) {
        rows[i].iface = "wgx0";
        rows[i].public_key = keys[i];
    }
    rows[0].rx_mbps = 5;
    rows[1].rx_mbps = 50;
    rows[2].rx_mbps = 5;  // tie with rows[0]: name order
    rows[0].tx_mbps = 1;
    rows[0].tcp_srtt_us = 100;
    rows[1].handshake_srtt_us = 5000;  // no TCP RTT: handshake RTT counts
    rows[2].tcp_srtt_us = 3000;
    rows[1].loss_percent = 0.5;
    rows[3].loss_percent = 2;
    rows[2].retrans_per_s = 1;
    rows[0].drops = 0;
    rows[3].drops = 9;
    rows[0].handshake_age = 10;
    rows[1].handshake_age = 100;
    rows[2].handshake_age = 5;  // rows[3]: never
    rows[3].iface = "wgx1";
    return rows;
}

TEST(ToolTop, SortingPutsTheInterestingPeersFirstAndUnknownLast)
{
    struct Case {
        TopSort key;
        std::vector<std::string> want;
    };
    for (const Case &c : {
             Case{TopSort::Rx, {"wgx0/lJ", "wgx0/Eo", "wgx0/h9", "wgx1/EB"}},
             Case{TopSort::Tx, {"wgx0/h9", "wgx0/Eo", "wgx0/lJ", "wgx1/EB"}},
             Case{TopSort::Rtt, {"wgx0/lJ", "wgx0/Eo", "wgx0/h9", "wgx1/EB"}},
             Case{TopSort::Loss, {"wgx1/EB", "wgx0/lJ", "wgx0/Eo", "wgx0/h9"}},
             Case{TopSort::Retrans, {"wgx0/Eo", "wgx0/h9", "wgx0/lJ", "wgx1/EB"}},
             Case{TopSort::Drops, {"wgx1/EB", "wgx0/h9", "wgx0/Eo", "wgx0/lJ"}},
             Case{TopSort::Handshake, {"wgx1/EB", "wgx0/lJ", "wgx0/h9", "wgx0/Eo"}},
             Case{TopSort::Name, {"wgx0/Eo", "wgx0/h9", "wgx0/lJ", "wgx1/EB"}},
         }) {
        std::vector<TopRow> rows = sample_rows();
        top_sort(rows, c.key);
        EXPECT_EQ(order(rows), c.want) << top_sort_name(c.key);
    }
    // Inverted: smallest first, unknown still last.
    std::vector<TopRow> rows = sample_rows();
    top_sort(rows, TopSort::Rx, true);
    EXPECT_EQ(order(rows), (std::vector<std::string>{"wgx0/Eo", "wgx0/h9", "wgx0/lJ", "wgx1/EB"}));
    top_sort(rows, TopSort::Name, true);
    EXPECT_EQ(order(rows), (std::vector<std::string>{"wgx1/EB", "wgx0/lJ", "wgx0/h9", "wgx0/Eo"}));
}

TEST(ToolTop, SortNames)
{
    for (TopSort s : {TopSort::Rx, TopSort::Tx, TopSort::Rtt, TopSort::Loss, TopSort::Retrans, TopSort::Drops,
                      TopSort::Handshake, TopSort::Name})
        EXPECT_EQ(parse_top_sort(top_sort_name(s)), s);
    EXPECT_FALSE(parse_top_sort("RX"));
    EXPECT_FALSE(parse_top_sort(""));
}

TEST(ToolTop, OnceTextIsAnAlignedPlainTable)
{
    std::vector<TopRow> rows = sample_rows();
    rows[0].allowed_ips = "10.0.0.2/32";
    rows[1].allowed_ips = "fd00:1234:5678:9abc::1/128+3";  // longer than its column: cut
    rows[2].tx_pps = 12345.4;
    top_sort(rows, TopSort::Rx);
    std::string text = top_once_text(rows);
    std::vector<std::string> lines;
    for (std::size_t s = 0, e; s < text.size(); s = e + 1) {
        e = text.find('\n', s);
        lines.push_back(text.substr(s, e - s));
    }
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0], top_header());
    EXPECT_EQ(lines[0].rfind("INTERFACE PEER     ALLOWED IPS", 0), 0u) << lines[0];
    for (char c : text)
        EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << "control byte " << int(c);
    // Right-aligned numeric columns end where their titles end.
    std::size_t rx_end = lines[0].find("RX Mbit/s") + 9, hs_end = lines[0].size();
    EXPECT_EQ(lines[1].substr(rx_end - 5, 5), "50.00");  // lJ first
    EXPECT_EQ(lines[1].find("fd00:1234:5678:9abc::1"), lines[0].find("ALLOWED IPS"));
    EXPECT_EQ(lines[1].size(), hs_end);
    EXPECT_EQ(lines[1].substr(hs_end - 5), "1m40s");
    EXPECT_EQ(lines[4].substr(hs_end - 5), "never");
    EXPECT_NE(lines[4].find(" 9 "), std::string::npos);      // drops
    EXPECT_NE(lines[2].find(" 12345 "), std::string::npos);  // pkt/s, no decimals
    EXPECT_NE(lines[2].find(" 3.00 "), std::string::npos);   // RTT in ms
    EXPECT_NE(lines[2].find(" 1.0 "), std::string::npos);    // retransmits/s
    EXPECT_EQ(lines[3].find(" 3.00 "), std::string::npos);
    EXPECT_EQ(top_once_text({}), top_header() + "\n");
}

TEST(ToolTop, Ages)
{
    EXPECT_EQ(top_format_age(std::nullopt), "never");
    EXPECT_EQ(top_format_age(0), "0s");
    EXPECT_EQ(top_format_age(59), "59s");
    EXPECT_EQ(top_format_age(60), "1m00s");
    EXPECT_EQ(top_format_age(3599), "59m59s");
    EXPECT_EQ(top_format_age(3600 * 5 + 60 * 7 + 9), "5h07m");
    EXPECT_EQ(top_format_age(86400 * 3 + 3600 * 4), "3d04h");
}

// ---- the command line, up to where the kernel would be asked

struct CliResult {
    int rc;
    std::string out, err;
};

CliResult run(std::vector<const char *> args)
{
    args.insert(args.begin(), "wgx");
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    int rc = run_cli(static_cast<int>(args.size()), args.data());
    return {rc, testing::internal::GetCapturedStdout(), testing::internal::GetCapturedStderr()};
}

// top and exporter are the programs wgx-top and wgx-exporter, which wgx runs
// in its place (helper.hpp): their command line is checked through the wgx
// binary of this build.
TEST(ToolTop, CommandLineRefusesBadInputClearly)
{
    struct Case {
        std::vector<const char *> args;
        const char *err;
    };
    for (const Case &c : {
             Case{{"top", "--sort", "speed"},
                  "wgx top: invalid --sort `speed': expected rx, tx, rtt, loss, retrans, drops, "
                  "handshake or name\n"},
             Case{{"top", "--sort"}, "wgx top: --sort needs a value"},
             Case{{"top", "--interval", "0"}, "wgx top: invalid --interval `0': expected seconds"},
             Case{{"top", "--interval=1s"}, "wgx top: invalid --interval `1s'"},
             Case{{"top", "--interval", "nan"}, "wgx top: invalid --interval `nan'"},
             Case{{"top", "--frobnicate"}, "wgx top: unknown option `--frobnicate'\n"},
             Case{{"top", "an-interface-name-too-long"}, "Invalid interface name"},
             Case{{"exporter", "--listen", "[localhost]:9586"},
                  "wgx exporter: invalid --listen `[localhost]:9586': `localhost' is not a numeric "
                  "IPv6 address\n"},
             Case{{"exporter", "--listen=127.0.0.1:99999"},
                  "wgx exporter: invalid --listen `127.0.0.1:99999': port `99999' is not a number "
                  "from 1 to 65535\n"},
             Case{{"exporter", "--listen"}, "wgx exporter: --listen needs <address>:<port>\n"},
             Case{{"exporter", "-x"}, "wgx exporter: unknown option `-x'\n"},
             Case{{"show", "--prometheus", "--json"}, "Usage: wgx show"},
             Case{{"show", "--prometheus", "a", "b"}, "Usage: wgx show"},
         }) {
        std::vector<std::string> argv = {"wgx"};
        argv.insert(argv.end(), c.args.begin(), c.args.end());
        test::ProgramRun r = test::run_program(test::built_wgx(), argv);
        EXPECT_EQ(r.rc, 1) << c.args[0] << " " << c.args[1];
        EXPECT_EQ(r.err.rfind(c.err, 0), 0u) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    for (const char *sub : {"top", "exporter"}) {
        test::ProgramRun r = test::run_program(test::built_wgx(), {"wgx", sub, "--help"});
        EXPECT_EQ(r.rc, 0);
        EXPECT_EQ(r.out.rfind(std::string("Usage: wgx ") + sub, 0), 0u) << r.out;
        EXPECT_TRUE(r.err.empty()) << r.err;
    }
    CliResult r = run({"--help"});
    EXPECT_NE(r.out.find("  top: "), std::string::npos);
    EXPECT_NE(r.out.find("  exporter: "), std::string::npos);
}

}  // namespace
}  // namespace wgx
