// SPDX-License-Identifier: GPL-2.0
// Single values (tools/wgx/values.hpp): number forms and "off", allowed-IP
// and endpoint forms (through the file grammar, which names FILE:LINE), key
// files and the world-accessible warning.
#include "tool_test_util.hpp"

namespace wgx {
namespace {

using test::key;
using test::TempFile;
using test::test_options;

TEST(ToolValues, OffValuesAndNumberForms)
{
    auto iface = [](const std::string &body) {
        return parse_config("[Interface]\n" + body + "\n", "f", test_options(true));
    };
    EXPECT_EQ(iface("FwMark = off").device.fwmark, 0u);
    EXPECT_EQ(iface("FwMark = OFF").device.fwmark, 0u);
    EXPECT_EQ(iface("FwMark = 0").device.fwmark, 0u);
    EXPECT_EQ(iface("FwMark = 4294967295").device.fwmark, 0xffffffffu);
    EXPECT_EQ(iface("FwMark = 0xffffffff").device.fwmark, 0xffffffffu);
    EXPECT_EQ(iface("FwMark = 0XaB").device.fwmark, 0xabu);
    EXPECT_EQ(iface("FwMark = 010").device.fwmark, 10u);  // decimal, not octal, like wg
    EXPECT_EQ(iface("FwMark = 1 2").device.fwmark, 12u);  // whitespace is removed, like wg
    for (const char *bad : {"0x", "x10", "+1", "-1", "4294967296", "0x1g", "1.5", "on"})
        EXPECT_FALSE(iface(std::string("FwMark = ") + bad).ok()) << bad;

    EXPECT_EQ(iface("ListenPort = off").device.listen_port, 0);
    EXPECT_EQ(iface("ListenPort = 0").device.listen_port, 0);
    EXPECT_EQ(iface("ListenPort = 65535").device.listen_port, 65535);
    for (const char *bad : {"65536", "-1", "1x", "99999999999999999999"})
        EXPECT_FALSE(iface(std::string("ListenPort = ") + bad).ok()) << bad;

    EXPECT_EQ(iface("RxSpread = auto").device.rx_spread, RxSpread::Auto);
    EXPECT_EQ(iface("rxspread = AUTO").device.rx_spread, RxSpread::Auto);
    EXPECT_EQ(iface("RxSpread = on").device.rx_spread, RxSpread::On);
    EXPECT_EQ(iface("RxSpread = OFF").device.rx_spread, RxSpread::Off);
    for (const char *bad : {"1", "2", "yes", "", "onn", "automatic", "true"})
        EXPECT_FALSE(iface(std::string("RxSpread = ") + bad).ok()) << bad;
    EXPECT_EQ(iface("ListenPorts = 1").device.listen_ports, 1);

    EXPECT_EQ(iface("HandshakeBudget = 20").device.handshake_budget, 20u);
    EXPECT_EQ(iface("handshakebudget = AUTO").device.handshake_budget, 0u);
    EXPECT_EQ(iface("HandshakeBudget = 0").device.handshake_budget, 0u);
    EXPECT_EQ(iface("HandshakeBudget = 1000000").device.handshake_budget, 1000000u);
    for (const char *bad : {"", "1000001", "-1", "0x10", "20/s", "automatic", "4294967296"})
        EXPECT_FALSE(iface(std::string("HandshakeBudget = ") + bad).ok()) << bad;

    EXPECT_EQ(iface("KeyGrace = 30").device.key_grace, 30u);
    EXPECT_EQ(iface("keygrace = 0").device.key_grace, 0u);
    EXPECT_EQ(iface("KeyGrace = 86400").device.key_grace, 86400u);
    for (const char *bad : {"", "86401", "-1", "0x10", "30s", "auto", "4294967296"})
        EXPECT_FALSE(iface(std::string("KeyGrace = ") + bad).ok()) << bad;

    EXPECT_EQ(iface("DSCP = copy").device.dscp_copy, true);
    EXPECT_EQ(iface("dscp = CLEAR").device.dscp_copy, false);
    for (const char *bad : {"", "on", "1", "copyy", "AF41"})
        EXPECT_FALSE(iface(std::string("DSCP = ") + bad).ok()) << bad;
    // Names (RFC 2474/2597/3246) and decimals; spaces go, as in every config line.
    EXPECT_EQ(iface("PriorityDSCP = EF").device.priority_dscp, 1ULL << 46);
    EXPECT_EQ(iface("PriorityDSCP = cs0, CS7, af11, AF43, 0, 63, 46, ef").device.priority_dscp,
              (1ULL << 0) | (1ULL << 56) | (1ULL << 10) | (1ULL << 38) | (1ULL << 63) | (1ULL << 46));
    EXPECT_EQ(iface("PriorityDSCP = none").device.priority_dscp, 0u);
    EXPECT_EQ(iface("PriorityDSCP = AF41,AF42,AF43,CS5,EF,CS6,CS7").device.priority_dscp,
              static_cast<std::uint64_t>(WGX_PRIORITY_DSCP_DEFAULT));
    for (const char *bad :
         {"", "64", "-1", "CS8", "AF44", "AF51", "AF10", "EF,", ",EF", "EF,,CS1", "0x2e", "none,EF", "BE", "4 6x"})
        EXPECT_FALSE(iface(std::string("PriorityDSCP = ") + bad).ok()) << bad;
    // The inverse: names where they exist, ascending; parse(format(x)) == x.
    std::string expected;
    EXPECT_EQ(format_dscp_set(0), "none");
    EXPECT_EQ(format_dscp_set(WGX_PRIORITY_DSCP_DEFAULT), "AF41,AF42,AF43,CS5,EF,CS6,CS7");
    EXPECT_EQ(format_dscp_set((1ULL << 1) | (1ULL << 10) | (1ULL << 44) | (1ULL << 63)), "1,AF11,44,63");
    for (std::uint64_t set : {0ULL, ~0ULL, 0x5555555555555555ULL, 1ULL << 63, 1ULL}) {
        std::uint64_t back = 42;
        EXPECT_TRUE(parse_dscp_set(format_dscp_set(set), back, expected)) << set;
        EXPECT_EQ(back, set);
    }
    EXPECT_EQ(iface("ListenPorts = 16").device.listen_ports, 16);
    EXPECT_EQ(iface("listenports = 8").device.listen_ports, 8);
    EXPECT_EQ(iface("ListenPorts = auto").device.listen_ports, 0);
    for (const char *bad : {"0", "17", "off", "-1", "0x4", "2 ports"})
        EXPECT_FALSE(iface(std::string("ListenPorts = ") + bad).ok()) << bad;

    EXPECT_EQ(iface("MTU = 68").device.mtu, 68u);
    EXPECT_EQ(iface("mtu = 9000").device.mtu, 9000u);
    for (const char *bad : {"0", "67", "65536", "off", "1500b"})
        EXPECT_FALSE(iface(std::string("MTU = ") + bad).ok()) << bad;

    auto peer = [](const std::string &body) {
        return parse_config("[Peer]\nPublicKey = " + std::string(test::kPub2) + "\n" + body + "\n", "f",
                            test_options(true));
    };
    EXPECT_EQ(peer("PersistentKeepalive = off").device.peers[0].persistent_keepalive, 0);
    EXPECT_EQ(peer("PersistentKeepalive = 0").device.peers[0].persistent_keepalive, 0);
    EXPECT_EQ(peer("PersistentKeepalive = 65535").device.peers[0].persistent_keepalive, 65535);
    EXPECT_FALSE(peer("PersistentKeepalive = 65536").ok());
    EXPECT_FALSE(peer("PersistentKeepalive = 0x10").ok());
}

TEST(ToolValues, AllowedIpsForms)
{
    auto peer = [](const std::string &body) {
        return parse_config("[Peer]\nPublicKey = " + std::string(test::kPub2) + "\n" + body + "\n", "f",
                            test_options(true));
    };
    ParseResult r = peer("AllowedIPs = 10.0.0.1, fd00::1, 0.0.0.0/0, ::/0, ::ffff:10.0.0.1/128");
    ASSERT_TRUE(r.ok());
    const auto &ips = r.device.peers[0].allowed_ips;
    ASSERT_EQ(ips.size(), 5u);
    EXPECT_EQ(ips[0], test::prefix("10.0.0.1", 32));  // no prefix: host route
    EXPECT_EQ(ips[1], test::prefix("fd00::1", 128));
    EXPECT_EQ(ips[2], test::prefix("0.0.0.0", 0));
    EXPECT_EQ(ips[3], test::prefix("::", 0));
    EXPECT_EQ(ips[4], test::prefix("::ffff:10.0.0.1", 128));
    EXPECT_TRUE(r.warnings.empty());

    // Empty value: the peer's allowed IPs are replaced by nothing.
    r = peer("AllowedIPs =");
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.device.peers[0].allowed_ips.empty());
    EXPECT_TRUE(r.device.peers[0].replace_allowed_ips);

    // Host bits: accepted with a warning naming file:line (the kernel masks them).
    r = peer("AllowedIPs = 10.0.0.1/24");
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "f:3: warning: AllowedIPs entry `10.0.0.1/24' has host bits set beyond its prefix");

    // +/- prefixes: incremental change, no replace; '-' removes.
    r = peer("AllowedIPs = +10.0.0.0/24, -10.9.0.0/16");
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.device.peers[0].replace_allowed_ips);
    ASSERT_EQ(r.device.peers[0].allowed_ips.size(), 2u);
    EXPECT_FALSE(r.device.peers[0].allowed_ips[0].remove);
    EXPECT_TRUE(r.device.peers[0].allowed_ips[1].remove);

    for (const char *bad : {"10.0.0.1/33", "10.0.0.1/x", "10.0.0/24", "fd00::/129", "fd00:::1", "10.0.0.1//24", "/24",
                            "+", "10.0.0.1/ 24x", "1.2.3.4.5"})
        EXPECT_FALSE(peer(std::string("AllowedIPs = ") + bad).ok()) << bad;
}

TEST(ToolValues, EndpointForms)
{
    auto ep = [](const std::string &v) {
        return parse_config("[Peer]\nPublicKey = " + std::string(test::kPub2) + "\nEndpoint = " + v + "\n", "f",
                            test_options(true));
    };
    EXPECT_EQ(ep("192.0.2.1:51820").device.peers[0].endpoint, test::endpoint("192.0.2.1", 51820));
    EXPECT_EQ(ep("[2001:db8::1]:1").device.peers[0].endpoint, test::endpoint("2001:db8::1", 1));
    // Unbracketed IPv6: split at the last colon, as wg does.
    EXPECT_EQ(ep("2001:db8::1:51820").device.peers[0].endpoint, test::endpoint("2001:db8::1", 51820));
    EXPECT_EQ(ep("vpn.example.com:51820").device.peers[0].endpoint, test::endpoint("192.0.2.7", 51820));
    EXPECT_EQ(ep("[v6.example.com]:51820").device.peers[0].endpoint, test::endpoint("2001:db8::7", 51820));
    for (const char *bad : {"192.0.2.1", "192.0.2.1:", ":51820", "[2001:db8::1]", "[2001:db8::1]51820",
                            "[2001:db8::1]:", "[]:51820", "[2001:db8::1"}) {
        ParseResult r = ep(bad);
        ASSERT_EQ(r.errors.size(), 1u) << bad;
        EXPECT_EQ(r.errors[0],
                  std::string("f:3: invalid Endpoint `") + bad + "': expected HOST:PORT, IPV4:PORT or [IPV6]:PORT");
    }
    // A numeric port out of 1-65535 is refused, not taken modulo 65536 by getaddrinfo.
    for (const char *bad : {"192.0.2.1:99999", "192.0.2.1:65536", "192.0.2.1:0", "[2001:db8::1]:70000",
                            "vpn.example.com:99999", "192.0.2.1:-1", "192.0.2.1:+1", "192.0.2.1:1x"}) {
        ParseResult r = ep(bad);
        ASSERT_EQ(r.errors.size(), 1u) << bad;
        EXPECT_EQ(r.errors[0],
                  std::string("f:3: invalid Endpoint `") + bad + "': expected HOST:PORT with a port number 1-65535");
    }
    EXPECT_EQ(ep("192.0.2.1:65535").device.peers[0].endpoint, test::endpoint("192.0.2.1", 65535));
    ParseResult r = ep("unknown.example.net:51820");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0], "f:3: unable to resolve Endpoint `unknown.example.net:51820': Name or service not known");
}

TEST(ToolValues, KeyFiles)
{
    std::vector<std::string> warnings;
    std::string err;
    Key k;

    TempFile good(std::string(test::kPriv1) + " \n\t\n");
    ASSERT_TRUE(read_key_file(good.path(), k, err, warnings)) << err;
    EXPECT_EQ(k, key(test::kPriv1));
    EXPECT_TRUE(warnings.empty());

    // An empty file (or /dev/null) is the all-zero key: "remove".
    TempFile empty("");
    ASSERT_TRUE(read_key_file(empty.path(), k, err, warnings));
    EXPECT_TRUE(key_is_zero(k));
    ASSERT_TRUE(read_key_file("/dev/null", k, err, warnings));
    EXPECT_TRUE(key_is_zero(k));
    EXPECT_TRUE(warnings.empty());  // /dev/null is not a regular file

    TempFile trailing(std::string(test::kPriv1) + "x");
    EXPECT_FALSE(read_key_file(trailing.path(), k, err, warnings));
    EXPECT_EQ(err, "key file `" + trailing.path() +
                       "' has a trailing character `x' after the key: expected only whitespace");
    EXPECT_TRUE(key_is_zero(k));

    TempFile shortkey("abc\n");
    EXPECT_FALSE(read_key_file(shortkey.path(), k, err, warnings));
    EXPECT_EQ(err, "key file `" + shortkey.path() + "' is too short: expected a 44-character base64 key");

    TempFile badchars(std::string(43, '-') + "=");
    EXPECT_FALSE(read_key_file(badchars.path(), k, err, warnings));
    EXPECT_EQ(err, "key file `" + badchars.path() +
                       "' does not hold a valid key: expected 44 base64 characters ending in '='");

    TempFile world(std::string(test::kPriv1) + "\n", 0644);
    ASSERT_TRUE(read_key_file(world.path(), k, err, warnings));
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "Warning: `" + world.path() + "' is world accessible");
}

TEST(ToolValues, WorldAccessibleWarningRule)
{
    EXPECT_EQ(world_accessible_warning("k", 0100600, true), "");
    EXPECT_EQ(world_accessible_warning("k", 0100640, true), "");
    EXPECT_EQ(world_accessible_warning("k", 0100604, true), "Warning: `k' is world accessible");
    EXPECT_EQ(world_accessible_warning("k", 0100601, true), "Warning: `k' is world accessible");
    EXPECT_EQ(world_accessible_warning("k", 0020666, false), "");
}

}  // namespace
}  // namespace wgx
