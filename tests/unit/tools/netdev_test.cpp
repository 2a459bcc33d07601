// SPDX-License-Identifier: GPL-2.0
// systemd-networkd .netdev files for `wgx reresolve` (tools/wgx/netdev.hpp):
// the peers and the interface name read from a file, errors with FILE:LINE,
// and which file of networkd's directories names an interface.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "../../../tools/wgx/netdev.hpp"
#include "../../../tools/wgx/reresolve.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

ParseResult parse(const std::string &text)
{
    return parse_netdev(text, "50-wg0.netdev", reresolve_parse_options());
}

TEST(ToolNetdev, PeersAndName)
{
    ParseResult r = parse(std::string("# a comment\n[Match]\nName=ignored\n[NetDev]\nName = wg0\nKind=wireguard\n") +
                          "[WireGuard]\nPrivateKeyFile=/etc/systemd/network/wg0.key\nListenPort=51820\n" +
                          "[WireGuardPeer]\nPublicKey=" + test::kPub2 + "\nEndpoint=vpn.example.com:51820\n" +
                          "AllowedIPs=10.0.0.2/32\n; another comment\n" + "[WireGuardPeer]\nPublicKey=" + test::kPub3 +
                          "\nEndpoint=192.0.2.3:51821\n" + "[WireGuardPeer]\nPublicKey=" + test::kPub4 + "\n");
    ASSERT_TRUE(r.ok()) << r.errors[0];
    EXPECT_EQ(r.device.name, "wg0");
    ASSERT_EQ(r.device.peers.size(), 3u);
    EXPECT_EQ(r.device.peers[0].public_key, test::key(test::kPub2));
    EXPECT_EQ(r.device.peers[0].endpoint_text, "vpn.example.com:51820");
    ASSERT_TRUE(r.device.peers[0].endpoint);
    EXPECT_EQ(r.device.peers[0].endpoint->size(), 0u);  // a name: resolved later
    ASSERT_TRUE(r.device.peers[1].endpoint);
    EXPECT_EQ(*r.device.peers[1].endpoint, test::endpoint("192.0.2.3", 51821));
    EXPECT_FALSE(r.device.peers[2].endpoint);
}

TEST(ToolNetdev, ErrorsNameFileAndLine)
{
    ParseResult r = parse(std::string("[NetDev]\nName=wg0\nKind=wireguard\n[WireGuardPeer]\nPublicKey=nope\n") +
                          "Endpoint=192.0.2.1:99999\n[WireGuardPeer]\nEndpoint=192.0.2.1:1\n");
    ASSERT_EQ(r.errors.size(), 3u);
    EXPECT_EQ(r.errors[0], "50-wg0.netdev:5: invalid PublicKey= `nope': expected a base64 key of 44 characters");
    EXPECT_EQ(r.errors[1].rfind("50-wg0.netdev:6: invalid Endpoint= `192.0.2.1:99999': ", 0), 0u) << r.errors[1];
    EXPECT_EQ(r.errors[2],
              "50-wg0.netdev:7: [WireGuardPeer] section without a PublicKey=: expected PublicKey=<base64 key>");
}

TEST(ToolNetdev, NotWireGuardOrNoName)
{
    ParseResult r = parse("[NetDev]\nName=br0\nKind=bridge\n");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0], "50-wg0.netdev:3: Kind=bridge: not a WireGuard device (expected Kind=wireguard)");
    r = parse("[NetDev]\nKind=wireguard\n");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0], "50-wg0.netdev:2: no Name= in a [NetDev] section: expected the interface name");
}

TEST(ToolNetdev, SectionsAndKeysAreCaseSensitive)
{
    // networkd ignores [wireguardpeer] and publickey=: so does reresolve.
    ParseResult r = parse(std::string("[NetDev]\nName=wg0\n[wireguardpeer]\nPublicKey=") + test::kPub2 +
                          "\n[WireGuardPeer]\npublickey=" + test::kPub3 + "\nPublicKey=" + test::kPub4 + "\n");
    ASSERT_TRUE(r.ok()) << r.errors[0];
    ASSERT_EQ(r.device.peers.size(), 1u);
    EXPECT_EQ(r.device.peers[0].public_key, test::key(test::kPub4));
}

TEST(ToolNetdev, IsNetdevPath)
{
    EXPECT_TRUE(is_netdev_path("/etc/systemd/network/50-wg0.netdev"));
    EXPECT_FALSE(is_netdev_path("/etc/wgx/wg0.conf"));
    EXPECT_FALSE(is_netdev_path(".netdev"));
    EXPECT_FALSE(is_netdev_path("/dev/fd/63"));
}

class ToolNetdevFind : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/wgx-netdev-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        root_ = tmpl;
        for (const char *d : {"/etc", "/run", "/lib"})
            ASSERT_EQ(mkdir((root_ + d).c_str(), 0700), 0);
    }
    void TearDown() override
    {
        std::string cmd = "rm -rf '" + root_ + "'";
        EXPECT_EQ(system(cmd.c_str()), 0);
    }
    void write(const std::string &path, const std::string &name)
    {
        std::ofstream(root_ + path) << "[NetDev]\nName=" << name << "\nKind=wireguard\n";
    }
    std::vector<std::string> dirs() const { return {root_ + "/etc", root_ + "/run", root_ + "/lib"}; }
    std::string root_;
};

TEST_F(ToolNetdevFind, FirstInLexicalOrderAmongDirectories)
{
    write("/lib/10-wg0.netdev", "wg0");
    write("/etc/20-wg0.netdev", "wg0");
    write("/run/05-wg1.netdev", "wg1");
    write("/etc/wg0.network", "wg0");  // not a .netdev
    EXPECT_EQ(find_netdev_file("wg0", dirs()), root_ + "/lib/10-wg0.netdev");
    EXPECT_EQ(find_netdev_file("wg1", dirs()), root_ + "/run/05-wg1.netdev");
    EXPECT_EQ(find_netdev_file("wg2", dirs()), "");
}

TEST_F(ToolNetdevFind, NameReadAsTheParserReadsIt)
{
    std::ofstream(root_ + "/etc/30-wg3.netdev") << "[NetDev]\nName = wg3\nKind=wireguard\n";
    EXPECT_EQ(find_netdev_file("wg3", dirs()), root_ + "/etc/30-wg3.netdev");
    ParseOptions opts;
    EXPECT_EQ(parse_netdev("[NetDev]\nName = wg3\n", "x.netdev", opts).device.name, "wg3");
}

TEST_F(ToolNetdevFind, EarlierDirectoryHidesTheSameName)
{
    write("/lib/50-wg.netdev", "wg0");
    write("/etc/50-wg.netdev", "wg9");  // /etc's copy replaces /usr/lib's
    EXPECT_EQ(find_netdev_file("wg0", dirs()), "");
    EXPECT_EQ(find_netdev_file("wg9", dirs()), root_ + "/etc/50-wg.netdev");
    ASSERT_EQ(symlink("/dev/null", (root_ + "/run/60-wg.netdev").c_str()), 0);  // masked
    write("/lib/60-wg.netdev", "wg5");
    EXPECT_EQ(find_netdev_file("wg5", dirs()), "");
}

}  // namespace
}  // namespace wgx
