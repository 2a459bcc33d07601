// SPDX-License-Identifier: GPL-2.0
// `wgx set` argument parsing (tools/wgx/set_args.hpp): wg's grammar plus
// mtu/offload, key files.
#include <map>
#include <set>

#include "tool_test_util.hpp"

namespace wgx {
namespace {

using test::key;
using test::TempFile;

ParseResult parse(std::vector<std::string> args)
{
    return parse_set_args(args, test::test_options());
}

TEST(ToolSetArgs, FullCommandLine)
{
    TempFile priv(std::string(test::kPriv1) + "\n");
    TempFile psk(test::kPsk);
    ParseResult r = parse({"listen-port",
                           "51820",
                           "fwmark",
                           "0x10",
                           "private-key",
                           priv.path(),
                           "mtu",
                           "1380",
                           "offload",
                           "gso",
                           "off",
                           "offload",
                           "rx-checksum",
                           "on",
                           "peer",
                           test::kPub2,
                           "preshared-key",
                           psk.path(),
                           "endpoint",
                           "[2001:db8::1]:51820",
                           "persistent-keepalive",
                           "25",
                           "allowed-ips",
                           "10.0.0.2/32, fd00::2/128",
                           "peer",
                           test::kPub3,
                           "remove"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_TRUE(r.warnings.empty());
    const Device &d = r.device;
    EXPECT_EQ(d.listen_port, 51820);
    EXPECT_EQ(d.fwmark, 0x10u);
    EXPECT_EQ(d.private_key, key(test::kPriv1));
    EXPECT_EQ(d.mtu, 1380u);
    ASSERT_EQ(d.offloads.size(), 2u);
    EXPECT_EQ(d.offloads[0], (OffloadSetting{"gso", false}));
    EXPECT_EQ(d.offloads[1], (OffloadSetting{"rx-checksum", true}));
    EXPECT_FALSE(d.replace_peers);
    ASSERT_EQ(d.peers.size(), 2u);
    const Peer &p = d.peers[0];
    EXPECT_EQ(p.public_key, key(test::kPub2));
    EXPECT_EQ(p.preshared_key, key(test::kPsk));
    EXPECT_EQ(p.endpoint, test::endpoint("2001:db8::1", 51820));
    EXPECT_EQ(p.persistent_keepalive, 25);
    EXPECT_TRUE(p.replace_allowed_ips);
    ASSERT_EQ(p.allowed_ips.size(), 2u);
    EXPECT_FALSE(p.remove);
    EXPECT_TRUE(d.peers[1].remove);
    EXPECT_FALSE(d.peers[1].replace_allowed_ips);
}

TEST(ToolSetArgs, OnlyWhatIsGivenIsSet)
{
    ParseResult r = parse({"peer", test::kPub2, "persistent-keepalive", "off"});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.device.private_key);
    EXPECT_FALSE(r.device.listen_port);
    EXPECT_FALSE(r.device.fwmark);
    EXPECT_FALSE(r.device.mtu);
    const Peer &p = r.device.peers[0];
    EXPECT_EQ(p.persistent_keepalive, 0);
    EXPECT_FALSE(p.endpoint);
    EXPECT_FALSE(p.preshared_key);
    EXPECT_FALSE(p.replace_allowed_ips);  // allowed-ips not given: keep them
    EXPECT_TRUE(parse({}).ok());          // `wgx set wg0` alone is a valid no-op
}

TEST(ToolSetArgs, HandshakeBudget)
{
    ParseResult r = parse({"handshake-budget", "20"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.handshake_budget, 20u);
    r = parse({"handshake-budget", "auto"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.handshake_budget, 0u);
    r = parse({"handshake-budget", "1000000"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.handshake_budget, 1000000u);
    EXPECT_FALSE(parse({"listen-port", "1"}).device.handshake_budget);
}

TEST(ToolSetArgs, AllowedIpsEmptyAndIncremental)
{
    ParseResult r = parse({"peer", test::kPub2, "allowed-ips", ""});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.device.peers[0].replace_allowed_ips);
    EXPECT_TRUE(r.device.peers[0].allowed_ips.empty());

    r = parse({"peer", test::kPub2, "allowed-ips", "+10.0.0.3/32,-10.0.0.4/32"});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.device.peers[0].replace_allowed_ips);
    ASSERT_EQ(r.device.peers[0].allowed_ips.size(), 2u);
    EXPECT_FALSE(r.device.peers[0].allowed_ips[0].remove);
    EXPECT_TRUE(r.device.peers[0].allowed_ips[1].remove);
}

TEST(ToolSetArgs, RxSpread)
{
    ParseResult r = parse({"rx-spread", "auto"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.rx_spread, RxSpread::Auto);
    r = parse({"rx-spread", "on"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.rx_spread, RxSpread::On);
    r = parse({"rx-spread", "off"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.rx_spread, RxSpread::Off);
    r = parse({"rx-spread", "AUTO"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.rx_spread, RxSpread::Auto);
    EXPECT_FALSE(parse({"listen-port", "1"}).device.rx_spread);
}

TEST(ToolSetArgs, ErrorsNameArgumentAndExpectation)
{
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const std::string pk = test::kPub2;
    const std::vector<Case> cases = {
        {{"listen-port", "x"},
         "invalid listen-port `x': expected a port number 0-65535, a UDP service name or \"off\""},
        {{"listen-port"}, "`listen-port' needs a value"},
        {{"fwmark", "0xgg"},
         "invalid fwmark `0xgg': expected \"off\" or a number 0-0xffffffff (decimal or "
         "0x-prefixed hexadecimal)"},
        {{"mtu", "20"}, "invalid mtu `20': expected an MTU in bytes 68-65535 or auto"},
        {{"offload", "tso", "on"}, "invalid offload `tso': expected gso, gro, tx-checksum or rx-checksum"},
        {{"offload", "gso", "yes"}, "invalid offload gso setting `yes': expected on or off"},
        {{"offload", "gso"}, "`offload gso' needs a value: expected on or off"},
        {{"peer", "nope"}, "invalid peer public key `nope': expected a base64 key of 44 characters ending in '='"},
        {{"peer"}, "`peer' needs a value"},
        {{"remove"}, "`remove' is a peer setting: expected `peer <base64 public key>' before it"},
        {{"endpoint", "1.2.3.4:5"}, "`endpoint' is a peer setting: expected `peer <base64 public key>' before it"},
        {{"peer", pk, "listen-port", "1"},
         "`listen-port' is an interface setting and must come before the first `peer'"},
        {{"peer", pk, "fwmark", "1"}, "`fwmark' is an interface setting and must come before the first `peer'"},
        {{"peer", pk, "endpoint", "1.2.3.4"},
         "invalid endpoint `1.2.3.4': expected HOST:PORT, IPV4:PORT or [IPV6]:PORT"},
        {{"peer", pk, "endpoint", "1.2.3.4:99999"},
         "invalid endpoint `1.2.3.4:99999': expected HOST:PORT with a port number 1-65535"},
        {{"peer", pk, "endpoint", "bad.example.org:1"},
         "unable to resolve endpoint `bad.example.org:1': Name or service not known"},
        {{"peer", pk, "persistent-keepalive", "70000"},
         "invalid persistent-keepalive `70000': expected \"off\" or an interval in seconds 0-65535"},
        {{"peer", pk, "allowed-ips", "10.0.0.1/32,10.0.0.0/40"},
         "invalid allowed-ips entry `10.0.0.0/40': expected ADDRESS[/PREFIX] with an IPv4 "
         "address and prefix 0-32 or an IPv6 address and prefix 0-128"},
        {{"bogus"},
         "invalid argument `bogus': expected listen-port, listen-ports, rx-spread, dscp, "
         "priority-dscp, handshake-budget, key-grace, fwmark, private-key, mtu, offload or peer"},
        {{"handshake-budget", "1000001"},
         "invalid handshake-budget `1000001': expected \"auto\" or initiations per second "
         "0-1000000 (0 = auto)"},
        {{"handshake-budget", "-5"},
         "invalid handshake-budget `-5': expected \"auto\" or initiations per second "
         "0-1000000 (0 = auto)"},
        {{"handshake-budget"}, "`handshake-budget' needs a value"},
        {{"peer", pk, "handshake-budget", "20"},
         "`handshake-budget' is an interface setting and must come before the first `peer'"},
        {{"dscp", "af41"}, "invalid dscp `af41': expected copy or clear"},
        {{"dscp"}, "`dscp' needs a value"},
        {{"priority-dscp", "EF,64"},
         "invalid priority-dscp `EF,64': expected \"none\" or a comma-separated list of DSCP "
         "values: EF, CS0-CS7, AF11-AF43 or 0-63"},
        {{"peer", pk, "dscp", "copy"}, "`dscp' is an interface setting and must come before the first `peer'"},
        {{"rx-spread", "yes"}, "invalid rx-spread `yes': expected auto, on or off"},
        {{"rx-spread", "2"}, "invalid rx-spread `2': expected auto, on or off"},
        {{"peer", pk, "rx-spread", "on"}, "`rx-spread' is an interface setting and must come before the first `peer'"},
        {{"rx-spread"}, "`rx-spread' needs a value"},
        {{"listen-ports", "0"}, "invalid listen-ports `0': expected auto or a number of ports 1-16"},
        {{"listen-ports", "17"}, "invalid listen-ports `17': expected auto or a number of ports 1-16"},
        {{"listen-ports"}, "`listen-ports' needs a value"},
        {{"peer", pk, "listen-ports", "2"},
         "`listen-ports' is an interface setting and must come before the first `peer'"},
        {{"peer", pk, "bogus"},
         "invalid argument `bogus': expected a peer setting (remove, public-key, preshared-key, endpoint, "
         "persistent-keepalive, mtu, allowed-ips) or `peer'"},
        {{"private-key", "/nonexistent/key"},
         "private-key: unable to open key file `/nonexistent/key': No such file or directory"},
    };
    for (const Case &c : cases) {
        ParseResult r = parse(c.args);
        ASSERT_EQ(r.errors.size(), 1u) << c.message;
        EXPECT_EQ(r.errors[0], c.message);
        EXPECT_TRUE(r.device.peers.empty());
    }
}

TEST(ToolSetArgs, PublicKeyReKeysThePeerInPlace)
{
    ParseResult r = parse({"peer", test::kPub2, "endpoint", "192.0.2.1:1", "public-key", test::kPub3});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    ASSERT_EQ(r.device.peers.size(), 1u);
    EXPECT_EQ(r.device.peers[0].public_key, key(test::kPub2));
    EXPECT_EQ(r.device.peers[0].new_public_key, key(test::kPub3));
    EXPECT_TRUE(r.device.peers[0].endpoint);

    r = parse({"peer", test::kPub2, "endpoint", "192.0.2.1:1"});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.device.peers[0].new_public_key);

    r = parse({"peer", test::kPub2, "public-key", "nope"});
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0], "invalid public-key `nope': expected a base64 key of 44 characters ending in '='");
    r = parse({"peer", test::kPub2, "public-key", test::kPub2});
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].find("other than the peer's current one"), std::string::npos);
    r = parse({"public-key", test::kPub3});
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].find("is a peer setting"), std::string::npos);
    r = parse({"peer", test::kPub2, "public-key"});
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0], "`public-key' needs a value");
}

TEST(ToolSetArgs, KeyFileWarningsPassThrough)
{
    TempFile world(std::string(test::kPriv1) + "\n", 0644);
    ParseResult r = parse({"private-key", world.path()});
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "Warning: `" + world.path() + "' is world accessible");
}

// set_keywords() is the list the usage, the errors and the completion test
// are made from: each keyword in it must be one the parser takes.
TEST(ToolSetArgs, EveryKeywordOfTheListIsParsed)
{
    TempFile file(std::string(test::kPriv1) + "\n");
    const std::map<std::string, std::vector<std::string>> values = {
        {"listen-port", {"1"}},
        {"listen-ports", {"2"}},
        {"rx-spread", {"on"}},
        {"dscp", {"copy"}},
        {"priority-dscp", {"EF"}},
        {"handshake-budget", {"auto"}},
        {"key-grace", {"10"}},
        {"fwmark", {"off"}},
        {"private-key", {file.path()}},
        {"mtu", {"1400"}},
        {"offload", {"gso", "on"}},
        {"peer", {test::kPub2}},
        {"remove", {}},
        {"public-key", {test::kPub3}},
        {"preshared-key", {file.path()}},
        {"endpoint", {"192.0.2.1:1"}},
        {"persistent-keepalive", {"off"}},
        {"allowed-ips", {"10.0.0.0/8"}},
    };
    std::set<std::pair<std::string, bool>> seen;  // a name may be both (mtu)
    std::set<std::string> names;
    for (const SetKeyword &k : set_keywords()) {
        EXPECT_TRUE(seen.insert({k.name, k.peer}).second) << "listed twice: " << k.name;
        names.insert(k.name);
        auto v = values.find(k.name);
        ASSERT_NE(v, values.end()) << "no sample value for keyword " << k.name;
        std::vector<std::string> args;
        if (k.peer)
            args = {"peer", test::kPub2};
        args.push_back(k.name);
        args.insert(args.end(), v->second.begin(), v->second.end());
        ParseResult r = parse(args);
        EXPECT_TRUE(r.ok()) << k.name << ": " << (r.errors.empty() ? "" : r.errors[0]);
        EXPECT_EQ(std::string(k.value).empty(), v->second.empty()) << k.name;
    }
    EXPECT_EQ(names.size(), values.size());
}

// `mtu` is the interface's before the first `peer', the peer's after it.
TEST(ToolSetArgs, PeerMtuFixedOrAuto)
{
    ParseResult r = parse({"mtu", "1420", "peer", test::kPub2, "mtu", "1300", "peer", test::kPub3, "mtu", "auto"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.mtu, 1420u);
    ASSERT_EQ(r.device.peers.size(), 2u);
    EXPECT_EQ(r.device.peers[0].mtu, 1300u);
    EXPECT_EQ(r.device.peers[1].mtu, 0u);  // auto

    r = parse({"peer", test::kPub2, "endpoint", "192.0.2.1:1"});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.device.peers[0].mtu.has_value());  // unchanged

    for (const char *bad : {"575", "65456", "0", "1300b", "", "Auto"}) {
        r = parse({"peer", test::kPub2, "mtu", bad});
        ASSERT_EQ(r.errors.size(), 1u) << bad;
        EXPECT_EQ(r.errors[0], std::string("invalid peer mtu `") + bad +
                                   "': expected auto or an MTU in bytes 576-65455");
    }
    // The interface's: auto follows the underlay again (WGX_DEVICE_A_MTU_AUTO).
    r = parse({"mtu", "auto"});
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.mtu_auto, true);
    EXPECT_FALSE(r.device.mtu.has_value());
    r = parse({"mtu", "67"});
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0], "invalid mtu `67': expected an MTU in bytes 68-65535 or auto");
}

}  // namespace
}  // namespace wgx
