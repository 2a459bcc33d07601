// SPDX-License-Identifier: GPL-2.0
// Printers over a model: wg's human, dump and single-field formats,
// showconf, and the JSON document, against hand-written golden files.
#include "../../../tools/wgx/format.hpp"
#include "uapi/linux/wgx.h"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

using test::key;

constexpr std::time_t kNow = 1700000000;

Device sample_device()
{
    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    d.ifindex = 7;
    d.private_key = key(test::kPriv1);
    d.public_key = key(test::kPub1);
    d.listen_port = 51820;
    d.rx_spread = RxSpread::Auto;
    d.fwmark = 0x1234;
    d.mtu = 1420;
    d.mtu_auto = true;
    d.stats = Counters{{1, 10}, {3, 2}, {99, 5}};

    Peer a;
    a.public_key = key(test::kPub2);
    a.preshared_key = key(test::kPsk);
    a.endpoint = test::endpoint("192.0.2.1", 51820);
    a.allowed_ips = {test::prefix("10.0.0.2", 32), test::prefix("fd00::2", 128)};
    a.last_handshake_sec = kNow - 65;
    a.rx_bytes = 1240;
    a.tx_bytes = 3145728;
    a.persistent_keepalive = 25;
    a.protocol_version = 1;
    a.stats = Counters{{1, 100}, {2, 200}, {4, 3}};
    a.mtu = 0;  // auto

    Peer b;
    b.public_key = key(test::kPub3);
    b.persistent_keepalive = 0;
    b.protocol_version = 1;

    Peer c;
    c.public_key = key(test::kPub4);
    c.endpoint = test::endpoint("2001:db8::1", 51821);
    c.allowed_ips = {test::prefix("10.1.0.0", 16)};
    c.last_handshake_sec = kNow - (3 * 86400 + 2 * 3600 + 1);
    c.protocol_version = 1;

    d.peers = {a, b, c};
    return d;
}

std::string strip_ansi(const std::string &s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            i += 2;
            while (i < s.size() && !isalpha(static_cast<unsigned char>(s[i])))
                ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

TEST(ToolFormat, ShowHumanGolden)
{
    ShowOptions o;
    o.now = kNow;
    EXPECT_EQ(format_show(sample_device(), o), test::read_golden("show.txt"));
}

TEST(ToolFormat, ShowColourIsWgsAnsiAroundTheSameText)
{
    ShowOptions o;
    o.now = kNow;
    o.color = true;
    std::string coloured = format_show(sample_device(), o);
    EXPECT_EQ(coloured.rfind("\x1b[0m\x1b[32m\x1b[1minterface\x1b[0m: \x1b[32mwgx0\x1b[0m\n", 0), 0u);
    EXPECT_NE(coloured.find("  \x1b[1mpublic key\x1b[0m: "), std::string::npos);
    EXPECT_NE(coloured.find("\x1b[33m\x1b[1mpeer\x1b[0m: \x1b[33m"), std::string::npos);
    EXPECT_NE(coloured.find("10.0.0.2\x1b[36m/\x1b[0m32"), std::string::npos);
    EXPECT_NE(coloured.find("1 \x1b[36mminute\x1b[0m, 5 \x1b[36mseconds\x1b[0m ago"), std::string::npos);
    EXPECT_NE(coloured.find("1.21 \x1b[36mKiB\x1b[0m received"), std::string::npos);
    EXPECT_EQ(strip_ansi(coloured), test::read_golden("show.txt"));
}

TEST(ToolFormat, ShowKeysWhenNotHidden)
{
    ShowOptions o;
    o.now = kNow;
    o.hide_keys = false;
    std::string s = format_show(sample_device(), o);
    EXPECT_NE(s.find(std::string("  private key: ") + test::kPriv1 + "\n"), std::string::npos);
    EXPECT_NE(s.find(std::string("  preshared key: ") + test::kPsk + "\n"), std::string::npos);
}

TEST(ToolFormat, ShowMinimalDeviceAndClockEdgeCases)
{
    Device d;
    d.name = "wg0";
    ShowOptions o;
    o.now = kNow;
    EXPECT_EQ(format_show(d, o), "interface: wg0\n");

    Peer p;
    p.public_key = key(test::kPub5);
    p.last_handshake_sec = kNow;
    p.rx_bytes = 1;
    d.peers = {p};
    EXPECT_EQ(format_show(d, o), std::string("interface: wg0\n\npeer: ") + test::kPub5 +
                                     "\n  allowed ips: (none)\n  latest handshake: Now\n"
                                     "  transfer: 1 B received, 0 B sent\n");
    d.peers[0].last_handshake_sec = kNow + 10;
    EXPECT_NE(format_show(d, o).find("  latest handshake: (System clock wound backward; "
                                     "connection problems may ensue.)\n"),
              std::string::npos);
}

// DSCP settings appear only when they differ from the defaults.
TEST(ToolFormat, ShowDscpOnlyWhenNotDefault)
{
    Device d;
    d.name = "wgx0";
    d.dscp_copy = false;
    d.priority_dscp = WGX_PRIORITY_DSCP_DEFAULT;
    ShowOptions o;
    o.now = kNow;
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n");
    d.dscp_copy = true;
    d.priority_dscp = (1ULL << 46) | (1ULL << 7);
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n  dscp: copy\n  priority dscp: 7,EF\n");
    d.priority_dscp = 0;
    EXPECT_NE(format_show(d, o).find("  priority dscp: none\n"), std::string::npos);
    std::string j = format_json({d}, true);
    EXPECT_NE(j.find("\"dscp\": \"copy\""), std::string::npos);
    EXPECT_NE(j.find("\"priority_dscp\": []"), std::string::npos);
}

// rx-spread appears in show only when forced (not auto); JSON keeps the
// boolean rx_spread (true only when on) and names the mode in rx_spread_mode.
TEST(ToolFormat, ShowRxSpreadOnlyWhenNotAuto)
{
    Device d;
    d.name = "wgx0";
    ShowOptions o;
    o.now = kNow;
    auto json_has = [&](const std::string &text) { return format_json({d}, true).find(text) != std::string::npos; };

    // Not reported (a WireGuard device): nothing shown; JSON says off.
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n");
    EXPECT_TRUE(json_has("\"rx_spread\": false,\n      \"rx_spread_mode\": \"off\",\n"));

    d.rx_spread = RxSpread::Auto;
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n");
    EXPECT_TRUE(json_has("\"rx_spread\": false,\n      \"rx_spread_mode\": \"auto\",\n"));

    d.rx_spread = RxSpread::On;
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n  rx spread: on\n");
    EXPECT_TRUE(json_has("\"rx_spread\": true,\n      \"rx_spread_mode\": \"on\",\n"));

    d.rx_spread = RxSpread::Off;
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n  rx spread: off\n");
    EXPECT_TRUE(json_has("\"rx_spread\": false,\n      \"rx_spread_mode\": \"off\",\n"));

    // A mode from a newer kernel that the tool cannot name.
    d.rx_spread = static_cast<RxSpread>(7);
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n  rx spread: unknown mode 7\n");
    EXPECT_TRUE(json_has("\"rx_spread\": false,\n      \"rx_spread_mode\": \"unknown\",\n"));
}

// The handshake budget appears when set (not automatic); JSON always has it.
TEST(ToolFormat, ShowHandshakeBudget)
{
    Device d;
    d.name = "wgx0";
    d.handshake_budget = 0;
    ShowOptions o;
    o.now = kNow;
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n");
    EXPECT_NE(format_json({d}, true).find("\"handshake_budget\": 0"), std::string::npos);
    d.handshake_budget = 20;
    EXPECT_EQ(format_show(d, o), "interface: wgx0\n  handshake budget: 20/s\n");
    EXPECT_NE(format_json({d}, true).find("\"handshake_budget\": 20"), std::string::npos);
}

// Every wgx setting at a value other than its default, in show and in JSON:
// the lines and members, their order and their spelling.
// Automatic listen ports: show says so with the number bound, --json
// gives the number and the flag, showconf leaves the key out.
TEST(ToolFormat, AutomaticListenPorts)
{
    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    d.listen_port = 51820;
    d.listen_ports = 8;
    d.listen_ports_auto = true;
    EXPECT_NE(format_show(d, ShowOptions{}).find("  listening ports: auto (8)\n"), std::string::npos)
        << format_show(d, ShowOptions{});
    const std::string j = format_json({d}, true);
    EXPECT_NE(j.find("      \"listen_ports\": 8,\n"
                     "      \"listen_ports_auto\": true,\n"),
              std::string::npos)
        << j;
    EXPECT_EQ(format_showconf(d).find("ListenPorts"), std::string::npos) << format_showconf(d);
    // Fewer bound than asked for (some could not be had): still automatic.
    d.listen_ports = 1;
    EXPECT_NE(format_show(d, ShowOptions{}).find("  listening ports: auto (1)\n"), std::string::npos);
    EXPECT_EQ(format_showconf(d).find("ListenPorts"), std::string::npos);
    // A fixed one port is no longer the default: shown and printed.
    d.listen_ports_auto = false;
    EXPECT_NE(format_show(d, ShowOptions{}).find("  listening ports: 1\n"), std::string::npos);
    EXPECT_NE(format_showconf(d).find("ListenPorts = 1\n"), std::string::npos);
}

TEST(ToolFormat, EveryWgxSettingShownInItsPlace)
{
    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    d.listen_port = 51820;
    d.listen_ports = 4;
    d.listen_ports_auto = false;
    d.rx_spread = RxSpread::On;
    d.dscp_copy = true;
    d.priority_dscp = (1ULL << 46) | (1ULL << 48);
    d.handshake_budget = 200;
    d.key_grace = 30;
    d.fwmark = 0x10;
    d.mtu = 1420;
    d.mtu_auto = false;
    d.peers.emplace_back();
    d.peers[0].public_key = key(test::kPub2);
    d.peers[0].mtu = 1300;
    ShowOptions o;
    o.now = kNow;
    EXPECT_EQ(format_show(d, o), std::string("interface: wgx0\n"
                                             "  listening port: 51820\n"
                                             "  listening ports: 4 (51820-51823)\n"
                                             "  rx spread: on\n"
                                             "  dscp: copy\n"
                                             "  priority dscp: EF,CS6\n"
                                             "  handshake budget: 200/s\n"
                                             "  key grace: 30 s\n"
                                             "  fwmark: 0x10\n"
                                             "\n"
                                             "peer: ") +
                                     test::kPub2 +
                                     "\n"
                                     "  allowed ips: (none)\n"
                                     "  mtu: 1300 (fixed)\n");
    const std::string j = format_json({d}, true);
    EXPECT_NE(j.find("      \"listen_port\": 51820,\n"
                     "      \"listen_ports\": 4,\n"
                     "      \"listen_ports_auto\": false,\n"
                     "      \"rx_spread\": true,\n"
                     "      \"rx_spread_mode\": \"on\",\n"
                     "      \"dscp\": \"copy\",\n"
                     "      \"priority_dscp\": [\n"
                     "        46,\n"
                     "        48\n"
                     "      ],\n"
                     "      \"handshake_budget\": 200,\n"
                     "      \"key_grace\": 30,\n"
                     "      \"previous_public_key\": null,\n"
                     "      \"fwmark\": 16,\n"
                     "      \"mtu\": 1420,\n"
                     "      \"mtu_auto\": false,\n"),
              std::string::npos)
        << j;
    EXPECT_NE(j.find("          \"mtu\": 1300\n"
                     "        }"),
              std::string::npos)
        << j;
}

TEST(ToolFormat, PeersSortedByLatestHandshakeLikeWg)
{
    Device d;
    auto mk = [](const char *k, std::int64_t s, std::int64_t ns) {
        Peer p;
        p.public_key = key(k);
        p.last_handshake_sec = s;
        p.last_handshake_nsec = ns;
        return p;
    };
    d.peers = {mk(test::kPub2, 0, 0), mk(test::kPub3, 100, 5), mk(test::kPub4, 100, 9), mk(test::kPub5, 200, 0),
               mk(test::kPub1, 0, 1)};
    std::vector<const Peer *> v = peers_by_handshake(d);
    ASSERT_EQ(v.size(), 5u);
    EXPECT_EQ(v[0]->public_key, key(test::kPub5));
    EXPECT_EQ(v[1]->public_key, key(test::kPub4));  // same second, later nanoseconds
    EXPECT_EQ(v[2]->public_key, key(test::kPub3));
    EXPECT_EQ(v[3]->public_key, key(test::kPub1));  // 0 s + 1 ns still counts as a handshake
    EXPECT_EQ(v[4]->public_key, key(test::kPub2));  // never
}

TEST(ToolFormat, DurationsAndByteCounts)
{
    EXPECT_EQ(format_duration(0), "");
    EXPECT_EQ(format_duration(1), "1 second");
    EXPECT_EQ(format_duration(2), "2 seconds");
    EXPECT_EQ(format_duration(60), "1 minute");
    EXPECT_EQ(format_duration(3661), "1 hour, 1 minute, 1 second");
    EXPECT_EQ(format_duration(365ULL * 86400 + 2 * 86400), "1 year, 2 days");
    EXPECT_EQ(format_duration(2 * 365ULL * 86400 + 7200 + 120), "2 years, 2 hours, 2 minutes");

    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(1023), "1023 B");
    EXPECT_EQ(format_bytes(1024), "1.00 KiB");
    EXPECT_EQ(format_bytes(1536), "1.50 KiB");
    EXPECT_EQ(format_bytes(1048575), "1024.00 KiB");  // printf rounding, as wg
    EXPECT_EQ(format_bytes(1048576), "1.00 MiB");
    EXPECT_EQ(format_bytes(5ULL << 30), "5.00 GiB");
    EXPECT_EQ(format_bytes(3ULL << 40), "3.00 TiB");
    EXPECT_EQ(format_bytes(~0ULL), "16777216.00 TiB");
}

TEST(ToolFormat, DumpGolden)
{
    // wg's format exactly, for a wgx device too: eight fields per peer line.
    EXPECT_EQ(format_dump(sample_device(), false), test::read_golden("dump.txt"));
    EXPECT_EQ(format_dump(sample_device(), false, true), test::read_golden("dump-telemetry.txt"));
    // `show all dump` prefixes every line with the interface name.
    std::string all = format_dump(sample_device(), true);
    std::string expect;
    std::string plain = test::read_golden("dump.txt");
    for (std::size_t pos = 0; pos < plain.size();) {
        std::size_t nl = plain.find('\n', pos);
        expect += "wgx0\t" + plain.substr(pos, nl - pos + 1);
        pos = nl + 1;
    }
    EXPECT_EQ(all, expect);
}

TEST(ToolFormat, DumpOfEmptyDevice)
{
    Device d;
    d.name = "wg0";
    d.listen_port = 0;
    EXPECT_EQ(format_dump(d, false), "(none)\t(none)\t0\toff\n");
}

TEST(ToolFormat, SingleFields)
{
    Device d = sample_device();
    const std::string p2 = test::kPub2, p3 = test::kPub3, p4 = test::kPub4;
    EXPECT_EQ(*format_show_field(d, "public-key", false), std::string(test::kPub1) + "\n");
    EXPECT_EQ(*format_show_field(d, "private-key", false), std::string(test::kPriv1) + "\n");
    EXPECT_EQ(*format_show_field(d, "listen-port", false), "51820\n");
    EXPECT_EQ(*format_show_field(d, "fwmark", false), "0x1234\n");
    EXPECT_EQ(*format_show_field(d, "peers", false), p2 + "\n" + p3 + "\n" + p4 + "\n");
    EXPECT_EQ(*format_show_field(d, "preshared-keys", false),
              p2 + "\t" + test::kPsk + "\n" + p3 + "\t(none)\n" + p4 + "\t(none)\n");
    EXPECT_EQ(*format_show_field(d, "endpoints", false),
              p2 + "\t192.0.2.1:51820\n" + p3 + "\t(none)\n" + p4 + "\t[2001:db8::1]:51821\n");
    EXPECT_EQ(*format_show_field(d, "allowed-ips", false),
              p2 + "\t10.0.0.2/32 fd00::2/128\n" + p3 + "\t(none)\n" + p4 + "\t10.1.0.0/16\n");
    EXPECT_EQ(*format_show_field(d, "latest-handshakes", false),
              p2 + "\t1699999935\n" + p3 + "\t0\n" + p4 + "\t1699733599\n");
    EXPECT_EQ(*format_show_field(d, "transfer", false), p2 + "\t1240\t3145728\n" + p3 + "\t0\t0\n" + p4 + "\t0\t0\n");
    EXPECT_EQ(*format_show_field(d, "persistent-keepalive", false), p2 + "\t25\n" + p3 + "\toff\n" + p4 + "\toff\n");
    EXPECT_EQ(*format_show_field(d, "dump", false), test::read_golden("dump.txt"));
    EXPECT_EQ(*format_show_field(d, "dump-telemetry", false), test::read_golden("dump-telemetry.txt"));
    // Only the telemetry columns need the counters.
    for (const std::string &f : show_fields())
        EXPECT_EQ(show_field_needs_stats(f), f == "dump-telemetry") << f;
    EXPECT_EQ(*format_show_field(d, "listen-port", true), "wgx0\t51820\n");
    EXPECT_EQ(*format_show_field(d, "peers", true), "wgx0\t" + p2 + "\nwgx0\t" + p3 + "\nwgx0\t" + p4 + "\n");
    EXPECT_FALSE(format_show_field(d, "bogus", false));
    EXPECT_FALSE(format_show_field(d, "", false));
    for (const std::string &f : show_fields())
        EXPECT_TRUE(format_show_field(d, f, false)) << f;

    Device none;
    EXPECT_EQ(*format_show_field(none, "fwmark", false), "off\n");
    EXPECT_EQ(*format_show_field(none, "private-key", false), "(none)\n");
}

TEST(ToolFormat, ShowconfFromModel)
{
    Device d = sample_device();
    d.mtu_auto = false;  // set by the user: printed
    const std::string expect =
        std::string("[Interface]\nListenPort = 51820\nFwMark = 0x1234\n") + "PrivateKey = " + test::kPriv1 +
        "\nMTU = 1420\n\n" + "[Peer]\nPublicKey = " + test::kPub2 + "\nPresharedKey = " + test::kPsk +
        "\nAllowedIPs = 10.0.0.2/32, fd00::2/128\n" + "Endpoint = 192.0.2.1:51820\nPersistentKeepalive = 25\n\n" +
        "[Peer]\nPublicKey = " + test::kPub3 + "\n\n" + "[Peer]\nPublicKey = " + test::kPub4 +
        "\nAllowedIPs = 10.1.0.0/16\nEndpoint = [2001:db8::1]:51821\n";
    EXPECT_EQ(format_showconf(d), expect);
    d.kind = Kind::WireGuard;  // MTU is a wgx key: not printed for wireguard
    std::string wg = expect;
    wg.erase(wg.find("MTU = 1420\n"), 11);
    EXPECT_EQ(format_showconf(d), wg);
    d.kind = Kind::Wgx;
    d.mtu_auto = true;  // follows the underlay: no setting to print
    EXPECT_EQ(format_showconf(d), wg);

    Device empty;
    EXPECT_EQ(format_showconf(empty), "[Interface]\n\n");
    empty.private_key = Key{};  // all-zero means none
    EXPECT_EQ(format_showconf(empty), "[Interface]\n\n");
}

TEST(ToolFormat, JsonGolden)
{
    EXPECT_EQ(format_json({sample_device()}, true), test::read_golden("show.json"));
    std::string shown = format_json({sample_device()}, false);
    EXPECT_NE(shown.find(std::string("\"private_key\": \"") + test::kPriv1 + "\""), std::string::npos);
    EXPECT_NE(shown.find(std::string("\"preshared_key\": \"") + test::kPsk + "\""), std::string::npos);
    EXPECT_EQ(format_json({}, true), "{\n  \"version\": 1,\n  \"interfaces\": []\n}\n");
}

TEST(ToolFormat, PathMtuInShowAndJson)
{
    Device d = sample_device();
    d.peers[0].path_mtu = 1400;
    d.peers[0].path_mtu_source = WGX_PATH_MTU_SOURCE_ICMP;
    d.peers[1].path_mtu = 1280;
    d.peers[1].path_mtu_source = WGX_PATH_MTU_SOURCE_PROBE;
    ShowOptions o;
    const std::string shown = format_show(d, o);
    EXPECT_NE(shown.find("  path mtu: 1400 (icmp)\n"), std::string::npos) << shown;
    EXPECT_NE(shown.find("  path mtu: 1280 (probe)\n"), std::string::npos) << shown;
    // The third peer has none: two lines in all.
    EXPECT_EQ(shown.find("path mtu", shown.find("1280 (probe)") + 1), std::string::npos);
    const std::string json = format_json({d}, true);
    EXPECT_NE(json.find("\"path_mtu\": 1400,\n          \"path_mtu_source\": \"icmp\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"path_mtu\": 1280,\n          \"path_mtu_source\": \"probe\""), std::string::npos);
    EXPECT_NE(json.find("\"path_mtu\": null,\n          \"path_mtu_source\": null"), std::string::npos);
    EXPECT_STREQ(path_mtu_source_name(WGX_PATH_MTU_SOURCE_ROUTE), "route");
    EXPECT_STREQ(path_mtu_source_name(WGX_PATH_MTU_SOURCE_FRAGMENTING), "fragmenting");
    EXPECT_STREQ(path_mtu_source_name(99), "unknown");
}

// A fixed per-peer MTU: its own line and the path MTU's source in show, a
// number in JSON; auto prints no line and "auto".
TEST(ToolFormat, FixedPeerMtuInShowAndJson)
{
    Device d = sample_device();
    d.peers[1].mtu = 1300;
    d.peers[1].path_mtu = 1360;
    d.peers[1].path_mtu_source = WGX_PATH_MTU_SOURCE_FIXED;
    const std::string shown = format_show(d, ShowOptions{});
    EXPECT_NE(shown.find("  mtu: 1300 (fixed)\n  path mtu: 1360 (fixed)\n"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("mtu: ", shown.find("1360 (fixed)")), std::string::npos) << shown;
    EXPECT_EQ(shown.find("  mtu: "), shown.find("  mtu: 1300")) << shown;  // auto (peer 0): no line
    const std::string json = format_json({d}, true);
    EXPECT_NE(json.find("\"path_mtu_source\": \"fixed\",\n          \"mtu\": 1300\n"), std::string::npos) << json;
    EXPECT_NE(json.find("\"path_mtu_source\": null,\n          \"mtu\": \"auto\"\n"), std::string::npos) << json;
}

TEST(ToolFormat, JsonEscapesAndBigNumbers)
{
    EXPECT_EQ(json_quote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
    Device d;
    d.name = "we\"ird";
    d.kind = Kind::WireGuard;
    Peer p;
    p.public_key = key(test::kPub2);
    p.rx_bytes = ~0ULL;
    p.stats = Counters{};
    d.peers = {p};
    std::string j = format_json({d}, true);
    EXPECT_NE(j.find("\"name\": \"we\\\"ird\""), std::string::npos);
    EXPECT_NE(j.find("\"kind\": \"wireguard\""), std::string::npos);
    EXPECT_NE(j.find("\"rx_bytes\": 18446744073709551615"), std::string::npos);
    EXPECT_NE(j.find("\"stats\": {}"), std::string::npos);
    EXPECT_NE(j.find("\"mtu\": null"), std::string::npos);
}

TEST(ToolFormat, EveryCounterHasAName)
{
    for (std::uint16_t a = 1; a <= WGX_PEER_STATS_A_MAX; ++a)
        EXPECT_STRNE(peer_counter_name(a), "") << a;
    for (std::uint16_t a = 1; a <= WGX_DEVICE_STATS_A_MAX; ++a)
        EXPECT_STRNE(device_counter_name(a), "") << a;
    EXPECT_STREQ(peer_counter_name(WGX_PEER_STATS_A_MAX + 1), "");
    EXPECT_STREQ(device_counter_name(0), "");
}

}  // namespace
}  // namespace wgx
