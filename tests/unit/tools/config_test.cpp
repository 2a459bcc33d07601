// SPDX-License-Identifier: GPL-2.0
// Config-file parser (tools/wgx/config.hpp): golden round trips, odd
// real-world input, every malformed-input class with its exact file:line
// message, setconf/addconf semantics.  The value forms are in values_test.cpp.
#include "../../../tools/wgx/format.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

using test::fake_resolve;
using test::key;
using test::read_golden;
using test::test_options;

std::vector<std::string> split_lines(const std::string &s)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < s.size()) {
        std::size_t nl = s.find('\n', pos);
        out.push_back(s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
        if (nl == std::string::npos)
            break;
        pos = nl + 1;
    }
    return out;
}

TEST(ToolConfig, CanonicalFileRoundTripsByteForByte)
{
    const std::string text = read_golden("basic.conf");
    ParseResult r = parse_config(text, "basic.conf", test_options());
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_EQ(format_showconf(r.device), text);

    // And the printed text parses back to the same model.
    ParseResult again = parse_config(format_showconf(r.device), "again", test_options());
    ASSERT_TRUE(again.ok());
    ASSERT_EQ(again.device.peers.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        const Peer &a = r.device.peers[i], &b = again.device.peers[i];
        EXPECT_EQ(a.public_key, b.public_key);
        EXPECT_EQ(a.preshared_key, b.preshared_key);
        EXPECT_EQ(a.endpoint, b.endpoint);
        EXPECT_EQ(a.persistent_keepalive, b.persistent_keepalive);
        EXPECT_EQ(a.allowed_ips, b.allowed_ips);
    }
}

// wgx's ListenPorts survives showconf -> setconf; the default (auto) is not printed,
// so a WireGuard-only file stays WireGuard-only.
TEST(ToolConfig, ListenPortsRoundTrips)
{
    const std::string text = "[Interface]\nListenPort = 51820\nListenPorts = 8\nRxSpread = on\n\n";
    ParseResult r = parse_config(text, "lp.conf", test_options());
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.listen_ports, 8);
    EXPECT_EQ(r.device.rx_spread, RxSpread::On);
    EXPECT_EQ(format_showconf(r.device), text);

    // RxSpread: auto, the default, is not printed; on and off are, and read back.
    const std::string spread_off = "[Interface]\nRxSpread = off\n\n";
    ParseResult o = parse_config(spread_off, "off.conf", test_options());
    ASSERT_TRUE(o.ok()) << o.errors[0];
    EXPECT_EQ(o.device.rx_spread, RxSpread::Off);
    EXPECT_EQ(format_showconf(o.device), spread_off);
    ParseResult a = parse_config("[Interface]\nRxSpread = Auto\n", "auto.conf", test_options());
    ASSERT_TRUE(a.ok()) << a.errors[0];
    EXPECT_EQ(a.device.rx_spread, RxSpread::Auto);
    EXPECT_EQ(format_showconf(a.device), "[Interface]\n\n");
    Device unnamed;
    unnamed.rx_spread = static_cast<RxSpread>(9);  // a newer kernel's mode
    EXPECT_EQ(format_showconf(unnamed), "[Interface]\n\n");

    // DSCP and PriorityDSCP: printed when not the default, and read back.
    const std::string lane = "[Interface]\nDSCP = copy\nPriorityDSCP = EF,10\n\n";
    ParseResult l = parse_config(lane, "lane.conf", test_options());
    ASSERT_TRUE(l.ok()) << l.errors[0];
    EXPECT_EQ(l.device.dscp_copy, true);
    EXPECT_EQ(l.device.priority_dscp, (1ULL << 46) | (1ULL << 10));
    EXPECT_EQ(format_showconf(l.device), "[Interface]\nDSCP = copy\nPriorityDSCP = AF11,EF\n\n");

    // HandshakeBudget: printed when not automatic (0), and read back.
    const std::string budget = "[Interface]\nHandshakeBudget = 20\n\n";
    ParseResult b = parse_config(budget, "budget.conf", test_options());
    ASSERT_TRUE(b.ok()) << b.errors[0];
    EXPECT_EQ(b.device.handshake_budget, 20u);
    EXPECT_EQ(format_showconf(b.device), budget);

    // KeyGrace: printed when not 0, and read back.
    const std::string grace = "[Interface]\nKeyGrace = 30\n\n";
    ParseResult g = parse_config(grace, "grace.conf", test_options());
    ASSERT_TRUE(g.ok()) << g.errors[0];
    EXPECT_EQ(g.device.key_grace, 30u);
    EXPECT_EQ(format_showconf(g.device), grace);

    // One port is no longer the default: it is printed, and comes back.
    ParseResult one = parse_config("[Interface]\nListenPorts = 1\n", "one.conf", test_options());
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one.device.listen_ports, 1);
    EXPECT_NE(format_showconf(one.device).find("ListenPorts = 1\n"), std::string::npos);
    ParseResult autop = parse_config("[Interface]\nListenPorts = auto\n", "auto.conf", test_options());
    ASSERT_TRUE(autop.ok());
    EXPECT_EQ(autop.device.listen_ports, 0);
    EXPECT_EQ(format_showconf(autop.device).find("ListenPorts"), std::string::npos);
    // A device with automatic ports reports the number bound: still not printed.
    Device dumped;
    dumped.kind = Kind::Wgx;
    dumped.listen_ports = 8;
    dumped.listen_ports_auto = true;
    EXPECT_EQ(format_showconf(dumped).find("ListenPorts"), std::string::npos);
    dumped.listen_ports_auto = false;
    EXPECT_NE(format_showconf(dumped).find("ListenPorts = 8\n"), std::string::npos);
    EXPECT_EQ(one.device.rx_spread, RxSpread::Auto);
    EXPECT_EQ(format_showconf(one.device).find("RxSpread"), std::string::npos);
    // setconf resets them to the defaults, which showconf does not print.
    EXPECT_EQ(one.device.dscp_copy, false);
    EXPECT_EQ(one.device.priority_dscp, static_cast<std::uint64_t>(WGX_PRIORITY_DSCP_DEFAULT));
    EXPECT_EQ(format_showconf(one.device).find("DSCP"), std::string::npos);
    EXPECT_EQ(one.device.handshake_budget, 0u);
    EXPECT_EQ(format_showconf(one.device).find("HandshakeBudget"), std::string::npos);
    EXPECT_EQ(one.device.key_grace, 0u);
    EXPECT_EQ(format_showconf(one.device).find("KeyGrace"), std::string::npos);

    ParseResult misplaced = parse_config("[Peer]\nPublicKey = " + std::string(test::kPub2) + "\nListenPorts = 2\n",
                                         "p.conf", test_options());
    ASSERT_EQ(misplaced.errors.size(), 1u);
    EXPECT_NE(misplaced.errors[0].find("p.conf:3: unknown key `ListenPorts' in [Peer]: it belongs in "
                                       "the [Interface] section"),
              std::string::npos)
        << misplaced.errors[0];
}

TEST(ToolConfig, ParsedValuesOfCanonicalFile)
{
    ParseResult r = parse_config(read_golden("basic.conf"), "basic.conf", test_options());
    ASSERT_TRUE(r.ok());
    const Device &d = r.device;
    EXPECT_EQ(d.private_key, key(test::kPriv1));
    EXPECT_EQ(d.listen_port, 51820);
    EXPECT_EQ(d.fwmark, 0x1234u);
    EXPECT_FALSE(d.mtu);
    EXPECT_TRUE(d.replace_peers);
    ASSERT_EQ(d.peers.size(), 3u);
    const Peer &p = d.peers[0];
    EXPECT_EQ(p.public_key, key(test::kPub2));
    EXPECT_EQ(p.preshared_key, key(test::kPsk));
    EXPECT_EQ(p.endpoint, test::endpoint("192.0.2.1", 51820));
    EXPECT_EQ(p.persistent_keepalive, 25);
    EXPECT_TRUE(p.replace_allowed_ips);
    ASSERT_EQ(p.allowed_ips.size(), 2u);
    EXPECT_EQ(p.allowed_ips[0], test::prefix("10.0.0.2", 32));
    EXPECT_EQ(p.allowed_ips[1], test::prefix("fd00::2", 128));
    EXPECT_EQ(d.peers[1].endpoint, test::endpoint("2001:db8::1", 51821));
    EXPECT_FALSE(d.peers[2].endpoint);
    EXPECT_TRUE(d.peers[2].allowed_ips.empty());
    EXPECT_TRUE(d.peers[2].replace_allowed_ips);
}

TEST(ToolConfig, OddRealWorldFile)
{
    // BOM, CRLF, tabs, mixed case sections and keys, trailing comments,
    // blank and whitespace-only lines, IPv6 endpoint in brackets, AllowedIPs
    // repeated over three lines, "Allowed IPs" with a space, hostname endpoint.
    ParseResult r = parse_config(read_golden("odd.conf"), "odd.conf", test_options());
    ASSERT_TRUE(r.ok()) << r.errors[0];
    r.device.kind = Kind::Wgx;
    EXPECT_EQ(format_showconf(r.device), read_golden("odd.showconf"));
    EXPECT_EQ(r.device.mtu, 1380u);
    EXPECT_EQ(r.device.peers[0].persistent_keepalive, 0);  // "off"
    EXPECT_EQ(r.device.peers[0].mtu, 0u);                  // "auto"
    EXPECT_EQ(r.device.peers[1].mtu, 1300u);

    // For an in-tree WireGuard interface MTU is not printed (wg would refuse it).
    r.device.kind = Kind::WireGuard;
    std::string wg = format_showconf(r.device);
    EXPECT_EQ(wg.find("MTU"), std::string::npos);
    std::string expect = read_golden("odd.showconf");
    expect.erase(expect.find("MTU = 1380\n"), strlen("MTU = 1380\n"));
    expect.erase(expect.find("MTU = 1300\n"), strlen("MTU = 1300\n"));
    EXPECT_EQ(wg, expect);
}

// A device MTU that follows the underlay is not printed (setconf of the
// output keeps it following); `MTU = auto` asks for it.
TEST(ToolConfig, MtuAutoIsNoSetting)
{
    ParseResult r = parse_config(read_golden("odd.conf"), "odd.conf", test_options());
    ASSERT_TRUE(r.ok()) << r.errors[0];
    r.device.kind = Kind::Wgx;
    r.device.mtu_auto = true;
    std::string expect = read_golden("odd.showconf");
    expect.erase(expect.find("MTU = 1380\n"), strlen("MTU = 1380\n"));
    EXPECT_EQ(format_showconf(r.device), expect);  // the peer's MTU = 1300 stays

    r = parse_config("[Interface]\nMTU = auto\n", "auto.conf", test_options());
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.mtu_auto, true);
    EXPECT_FALSE(r.device.mtu.has_value());
}

TEST(ToolConfig, EveryMalformedClassReportedWithFileLine)
{
    ParseResult r = parse_config(read_golden("malformed.conf"), "malformed.conf", test_options());
    EXPECT_FALSE(r.ok());
    std::vector<std::string> expected = split_lines(read_golden("malformed.errors"));
    ASSERT_EQ(r.errors.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(r.errors[i], expected[i]);
    // A file with errors yields nothing to apply.
    EXPECT_TRUE(r.device.peers.empty());
    EXPECT_FALSE(r.device.private_key);
    EXPECT_FALSE(r.device.replace_peers);
}

TEST(ToolConfig, OneBadLineAmongGoodOnesAppliesNothing)
{
    std::string text = read_golden("basic.conf") + "PersistentKeepalive = often\n";
    ParseResult r = parse_config(text, "x.conf", test_options());
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0], "x.conf:20: invalid PersistentKeepalive `often': expected \"off\" or "
                           "an interval in seconds 0-65535");
    EXPECT_TRUE(r.device.peers.empty());
    EXPECT_FALSE(r.device.private_key);
}

TEST(ToolConfig, SetconfResetsUnspecifiedAddconfDoesNot)
{
    const std::string text = "[Peer]\nPublicKey = " + std::string(test::kPub2) + "\n";
    ParseResult set = parse_config(text, "f", test_options(false));
    ASSERT_TRUE(set.ok());
    EXPECT_TRUE(set.device.replace_peers);
    ASSERT_TRUE(set.device.private_key);
    EXPECT_TRUE(key_is_zero(*set.device.private_key));  // removes the key
    EXPECT_EQ(set.device.listen_port, 0);
    EXPECT_EQ(set.device.listen_ports, 0);  // automatic ports, unless the file says otherwise
    // auto, the kernel's default for a new device
    EXPECT_EQ(set.device.rx_spread, RxSpread::Auto);
    EXPECT_EQ(set.device.fwmark, 0u);

    ParseResult add = parse_config(text, "f", test_options(true));
    ASSERT_TRUE(add.ok());
    EXPECT_FALSE(add.device.replace_peers);
    EXPECT_FALSE(add.device.private_key);
    EXPECT_FALSE(add.device.listen_port);
    EXPECT_FALSE(add.device.listen_ports);
    EXPECT_FALSE(add.device.rx_spread);
    EXPECT_FALSE(add.device.fwmark);
    ASSERT_EQ(add.device.peers.size(), 1u);
    EXPECT_TRUE(add.device.peers[0].replace_allowed_ips);
}

TEST(ToolConfig, CommentsEverywhereAndNoTrailingNewline)
{
    std::string text = "#only a comment\n[Interface]#c\nListenPort=1#c\n#\n[Peer]\n"
                       "PublicKey = " +
                       std::string(test::kPub3) + "#no newline at end";
    ParseResult r = parse_config(text, "f", test_options());
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.listen_port, 1);
    ASSERT_EQ(r.device.peers.size(), 1u);
    EXPECT_EQ(r.device.peers[0].public_key, key(test::kPub3));

    // An empty file is valid: setconf with it removes every peer and the key.
    r = parse_config("", "empty", test_options());
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.device.replace_peers);
    EXPECT_TRUE(r.device.peers.empty());
}

TEST(ToolConfig, KeyErrorsNameTheValue)
{
    std::string k = test::kPub2;
    std::string lowbits = k.substr(0, 42) + "J=";
    ParseResult r = parse_config("[Peer]\nPublicKey = " + lowbits + "\n", "k.conf", test_options());
    ASSERT_EQ(r.errors.size(), 2u);  // the bad key, then the peer without a key
    EXPECT_EQ(r.errors[0], "k.conf:1: [Peer] section without a PublicKey: expected PublicKey = "
                           "<base64 key>");
    EXPECT_EQ(r.errors[1], "k.conf:2: invalid PublicKey `" + lowbits +
                               "': expected a base64 key of 44 characters ending in '=' (as "
                               "printed by `wgx genkey')");
}

}  // namespace
}  // namespace wgx
