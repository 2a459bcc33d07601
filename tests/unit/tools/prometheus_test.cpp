// SPDX-License-Identifier: GPL-2.0
// The Prometheus text exposition of `wgx exporter` / `show --prometheus`:
// prometheus_wireguard_exporter's names and labels, one family per
// statistic with HELP and TYPE, label escaping, units, and unknown values
// left out.  (promtool checks the real output in tests/integration/telemetry.sh.)
#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "../../../tools/wgx/format.hpp"
#include "../../../tools/wgx/telemetry.hpp"
#include "tool_test_util.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {
namespace {

using test::key;

Device device_with_every_statistic()
{
    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    d.stats = Counters{};
    for (std::uint16_t a = 1; a <= WGX_DEVICE_STATS_A_MAX; ++a)
        d.stats->emplace_back(a, a);
    Peer p;
    p.public_key = key(test::kPub2);
    p.allowed_ips = {test::prefix("10.0.0.2", 32), test::prefix("fd00::2", 128)};
    p.rx_bytes = 1240;
    p.tx_bytes = 3145728;
    p.last_handshake_sec = 1700000000;
    p.stats = Counters{};
    for (std::uint16_t a = 1; a <= WGX_PEER_STATS_A_MAX; ++a)
        p.stats->emplace_back(a, 100 + a);
    Peer q;  // no handshake, no allowed IPs, only two statistics known
    q.public_key = key(test::kPub3);
    q.stats = Counters{{WGX_PEER_STATS_A_RX_PACKETS, 0}, {WGX_PEER_STATS_A_TCP_SRTT_US, 20512}};
    d.peers = {p, q};
    return d;
}

struct Exposition {
    std::map<std::string, std::string> help, type;
    std::vector<std::pair<std::string, std::string>> samples;  // "name{labels}", value
};

// Parses the text format strictly enough to catch layout mistakes: HELP then
// TYPE then the family's samples, each family once, names valid.
Exposition parse(const std::string &text)
{
    Exposition e;
    static const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*))");
    static const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|untyped))");
    static const std::regex sample(
        R"(([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\} ([0-9.e+-]+))");
    std::string current;
    std::set<std::string> done;
    std::size_t start = 0;
    EXPECT_EQ(text.back(), '\n');
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        std::string line = text.substr(start, nl - start);
        start = nl + 1;
        std::smatch m;
        if (std::regex_match(line, m, help)) {
            EXPECT_TRUE(done.insert(m[1]).second) << "family twice: " << m[1];
            current = m[1];
            e.help[m[1]] = m[2];
        } else if (std::regex_match(line, m, type)) {
            EXPECT_EQ(m[1], current) << "TYPE without its HELP: " << line;
            e.type[m[1]] = m[2];
        } else if (std::regex_match(line, m, sample)) {
            EXPECT_EQ(m[1], current) << "sample outside its family: " << line;
            EXPECT_TRUE(e.type.count(current)) << line;
            e.samples.emplace_back(line.substr(0, line.rfind(' ')), m[3]);
        } else {
            ADD_FAILURE() << "not exposition format: " << line;
        }
    }
    return e;
}

std::string value_of(const Exposition &e, const std::string &series)
{
    for (const auto &[s, v] : e.samples)
        if (s == series)
            return v;
    return "(absent)";
}

TEST(ToolPrometheus, WireguardExporterFamiliesKeepTheirNamesAndLabels)
{
    Device d = device_with_every_statistic();
    std::string text = format_prometheus({d});
    // The exact lines a prometheus_wireguard_exporter dashboard queries.
    const std::string pk2 = test::kPub2, pk3 = test::kPub3;
    const std::string l2 = "{interface=\"wgx0\",public_key=\"" + pk2 + "\",allowed_ips=\"10.0.0.2/32,fd00::2/128\"}";
    const std::string l3 = "{interface=\"wgx0\",public_key=\"" + pk3 + "\",allowed_ips=\"(none)\"}";
    EXPECT_EQ(text.rfind("# HELP wireguard_sent_bytes_total ", 0), 0u);
    EXPECT_NE(text.find("# TYPE wireguard_sent_bytes_total counter\n"
                        "wireguard_sent_bytes_total" +
                        l2 +
                        " 3145728\n"
                        "wireguard_sent_bytes_total" +
                        l3 + " 0\n"),
              std::string::npos);
    EXPECT_NE(text.find("# TYPE wireguard_received_bytes_total counter\n"
                        "wireguard_received_bytes_total" +
                        l2 + " 1240\n"),
              std::string::npos);
    EXPECT_NE(text.find("# TYPE wireguard_latest_handshake_seconds gauge\n"
                        "wireguard_latest_handshake_seconds" +
                        l2 +
                        " 1700000000\n"
                        "wireguard_latest_handshake_seconds" +
                        l3 + " 0\n"),
              std::string::npos);
    EXPECT_NE(text.find("# TYPE wgx_device_peers gauge\n"
                        "wgx_device_peers{interface=\"wgx0\"} 2\n"),
              std::string::npos);
    // promtool refuses a gauge named "..._total" (that exporter's wireguard_peers_total).
    EXPECT_EQ(text.find("wireguard_peers_total"), std::string::npos);
    parse(text);  // well formed

    // No device at all: the families dashboards expect are still declared.
    Exposition e = parse(format_prometheus({}));
    EXPECT_TRUE(e.samples.empty());
    EXPECT_EQ(e.type.size(), 4u);
    EXPECT_EQ(e.type["wireguard_latest_handshake_seconds"], "gauge");
}

TEST(ToolPrometheus, EveryStatisticHasAFamilyWithHelpTypeAndASample)
{
    Exposition e = parse(format_prometheus({device_with_every_statistic()}));
    const std::string peer = std::string("{interface=\"wgx0\",public_key=\"") + test::kPub2 + "\"}";
    for (const StatInfo &s : peer_stats()) {
        std::string name = prometheus_peer_metric(s);
        EXPECT_EQ(name.rfind("wgx_peer_", 0), 0u);
        EXPECT_EQ(e.type[name], s.kind == StatKind::Counter ? "counter" : "gauge") << name;
        EXPECT_FALSE(e.help[name].empty()) << name;
        std::string v = value_of(e, name + peer);
        if (s.kind == StatKind::Counter) {
            EXPECT_EQ(name.substr(name.size() - 6), "_total");
            EXPECT_EQ(v, std::to_string(100 + s.attr)) << name;
        } else {
            EXPECT_EQ(name.substr(name.size() - 8), "_seconds");
            // 100 + attr microseconds, exactly, in seconds.
            EXPECT_EQ(v, "0.000" + std::to_string(100 + s.attr)) << name;
        }
    }
    for (const StatInfo &s : device_stats()) {
        std::string name = prometheus_device_metric(s);
        EXPECT_EQ(e.type[name], "counter") << name;
        EXPECT_EQ(value_of(e, name + "{interface=\"wgx0\"}"), std::to_string(s.attr)) << name;
    }
    EXPECT_EQ(e.type.size(), 4u + peer_stats().size() + device_stats().size());
    // Names the docs promise.
    for (const char *n :
         {"wgx_peer_tcp_srtt_seconds", "wgx_peer_handshake_srtt_seconds", "wgx_peer_rx_lost_total",
          "wgx_peer_tx_tcp_retransmits_total", "wgx_peer_rx_drop_replay_total", "wgx_device_handshakes_paced_total"})
        EXPECT_TRUE(e.type.count(n)) << n;
}

TEST(ToolPrometheus, UnknownValuesAreLeftOutNeverZero)
{
    Exposition e = parse(format_prometheus({device_with_every_statistic()}));
    const std::string q = std::string("{interface=\"wgx0\",public_key=\"") + test::kPub3 + "\"}";
    EXPECT_EQ(value_of(e, "wgx_peer_tcp_srtt_seconds" + q), "0.020512");
    EXPECT_EQ(value_of(e, "wgx_peer_rx_packets_total" + q), "0");  // known zero stays
    EXPECT_EQ(value_of(e, "wgx_peer_rx_lost_total" + q), "(absent)");
    EXPECT_EQ(value_of(e, "wgx_peer_handshake_srtt_seconds" + q), "(absent)");

    // An in-tree WireGuard device: only the wireguard_* families have samples.
    Device wg;
    wg.name = "wg0";
    wg.kind = Kind::WireGuard;
    Peer p;
    p.public_key = key(test::kPub4);
    wg.peers = {p};
    e = parse(format_prometheus({wg}));
    EXPECT_EQ(e.type.size(), 4u);
    EXPECT_EQ(e.samples.size(), 4u);

    // Seconds are exact decimals.
    Device d;
    d.name = "x";
    Peer r;
    r.public_key = key(test::kPub5);
    r.stats = Counters{{WGX_PEER_STATS_A_TCP_RTT_LAST_US, 3000000},
                       {WGX_PEER_STATS_A_TCP_RTT_MIN_US, 1},
                       {WGX_PEER_STATS_A_TCP_SRTT_US, 12345678901}};
    d.peers = {r};
    e = parse(format_prometheus({d}));
    const std::string l = std::string("{interface=\"x\",public_key=\"") + test::kPub5 + "\"}";
    EXPECT_EQ(value_of(e, "wgx_peer_tcp_rtt_last_seconds" + l), "3");
    EXPECT_EQ(value_of(e, "wgx_peer_tcp_rtt_min_seconds" + l), "0.000001");
    EXPECT_EQ(value_of(e, "wgx_peer_tcp_srtt_seconds" + l), "12345.678901");
}

TEST(ToolPrometheus, StatisticsOfANewerKernelAreUntypedByNumber)
{
    Device d;
    d.name = "wgx0";
    d.stats = Counters{{99, 4}};
    Peer p;
    p.public_key = key(test::kPub2);
    p.stats = Counters{{60, 9}, {61, 1}};
    Peer q = p;
    q.public_key = key(test::kPub3);
    q.stats = Counters{{60, 2}};
    d.peers = {p, q};
    Exposition e = parse(format_prometheus({d}));
    EXPECT_EQ(e.type["wgx_peer_stat_60"], "untyped");
    EXPECT_EQ(e.type["wgx_peer_stat_61"], "untyped");
    EXPECT_EQ(e.type["wgx_device_stat_99"], "untyped");
    EXPECT_EQ(value_of(e, std::string("wgx_peer_stat_60{interface=\"wgx0\",public_key=\"") + test::kPub3 + "\"}"), "2");
}

TEST(ToolPrometheus, LabelValuesAndHelpAreEscaped)
{
    EXPECT_EQ(prometheus_label_value("plain"), "plain");
    EXPECT_EQ(prometheus_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    EXPECT_EQ(prometheus_label_value("tab\tstays"), "tab\tstays");
    EXPECT_EQ(prometheus_help_text("a\\b\"c\nd"), "a\\\\b\"c\\nd");  // quotes stay in HELP
    // Interface names cannot hold these, but the escaping must hold anyway.
    Device d;
    d.name = "we\"ird\\";
    Exposition e = parse(format_prometheus({d}));
    EXPECT_EQ(value_of(e, "wgx_device_peers{interface=\"we\\\"ird\\\\\"}"), "0");
}

TEST(ToolPrometheus, SeveralInterfacesShareOneFamily)
{
    Device a = device_with_every_statistic();
    Device b = a;
    b.name = "wgx1";
    Exposition e = parse(format_prometheus({a, b}));  // parse() rejects a family split in two
    EXPECT_EQ(value_of(e, "wgx_device_peers{interface=\"wgx1\"}"), "2");
    std::size_t sent = 0;
    for (const auto &[s, v] : e.samples)
        sent += s.rfind("wireguard_sent_bytes_total{", 0) == 0;
    EXPECT_EQ(sent, 4u);
}

TEST(ToolPrometheus, ListenAddresses)
{
    std::vector<Endpoint> eps;
    std::string err;
    ASSERT_TRUE(resolve_listen_address("127.0.0.1:9586", eps, err)) << err;
    EXPECT_EQ(eps, std::vector<Endpoint>{test::endpoint("127.0.0.1", 9586)});
    ASSERT_TRUE(resolve_listen_address("[::1]:9100", eps, err)) << err;
    EXPECT_EQ(eps, std::vector<Endpoint>{test::endpoint("::1", 9100)});
    ASSERT_TRUE(resolve_listen_address("[::]:9586", eps, err)) << err;
    EXPECT_EQ(eps, std::vector<Endpoint>{test::endpoint("::", 9586)});
    ASSERT_TRUE(resolve_listen_address("0.0.0.0:1", eps, err));
    EXPECT_EQ(eps, std::vector<Endpoint>{test::endpoint("0.0.0.0", 1)});
    // A name: each of its addresses (/etc/hosts gives localhost 127.0.0.1,
    // and ::1 where the host has IPv6), once.
    ASSERT_TRUE(resolve_listen_address("localhost:9586", eps, err)) << err;
    ASSERT_FALSE(eps.empty());
    for (const Endpoint &ep : eps)
        EXPECT_TRUE(ep == test::endpoint("127.0.0.1", 9586) || ep == test::endpoint("::1", 9586))
            << format_endpoint(ep);
    EXPECT_NE(std::find(eps.begin(), eps.end(), test::endpoint("127.0.0.1", 9586)), eps.end());
    struct Bad {
        const char *text, *why;
    };
    for (const Bad &b :
         {Bad{"127.0.0.1", "expected address:port"}, Bad{":9586", "expected address:port"},
          Bad{"no-such-host.invalid:9586", "cannot resolve `no-such-host.invalid'"},
          Bad{"::1:9586", "IPv6 address must be in brackets"}, Bad{"[::1]9586", "expected [IPv6 address]:port"},
          Bad{"[1.2.3.4]:80", "`1.2.3.4' is not a numeric IPv6 address"},
          Bad{"[localhost]:80", "`localhost' is not a numeric IPv6 address"},
          Bad{"127.0.0.1:0", "port `0' is not a number from 1 to 65535"}, Bad{"127.0.0.1:65536", "port `65536'"},
          Bad{"[::1]:99999", "port `99999'"}, Bad{"localhost:99999", "port `99999'"},
          Bad{"127.0.0.1:+80", "port `+80'"}, Bad{"127.0.0.1:80x", "port `80x'"}, Bad{"127.0.0.1:", "port `'"}}) {
        err.clear();
        EXPECT_FALSE(resolve_listen_address(b.text, eps, err)) << b.text;
        EXPECT_NE(err.find(b.why), std::string::npos) << b.text << ": " << err;
    }
}

}  // namespace
}  // namespace wgx
