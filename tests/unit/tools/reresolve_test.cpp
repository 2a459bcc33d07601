// SPDX-License-Identifier: GPL-2.0
// `wgx reresolve` (tools/wgx/reresolve.hpp): which peers' host-name
// endpoints are resolved again and moved, from a configuration file and the
// interface's state, with a resolver whose answers the test changes.
#include <map>

#include "../../../tools/wgx/config.hpp"
#include "../../../tools/wgx/reresolve.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

using test::key;

constexpr std::time_t kNow = 1700000000;

// Names and what they resolve to now; a name not in the map fails.
struct Names {
    std::map<std::string, std::string> addr;
    int lookups = 0;
    EndpointResolver resolver()
    {
        return [this](const std::string &host, const std::string &port, Endpoint &out, std::string &error) {
            ++lookups;
            auto it = addr.find(host);
            if (it == addr.end()) {
                error = "Name or service not known";
                return false;
            }
            out = test::endpoint(it->second.c_str(), static_cast<std::uint16_t>(std::stoi(port)));
            return true;
        };
    }
};

Device file_of(const std::string &peers)
{
    ParseResult r = parse_config("[Interface]\n" + peers, "wgx0.conf", reresolve_parse_options());
    EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0]);
    return r.device;
}

Peer runtime_peer(const char *pub, const char *addr, std::uint16_t port, std::int64_t handshake)
{
    Peer p;
    p.public_key = key(pub);
    if (addr)
        p.endpoint = test::endpoint(addr, port);
    p.last_handshake_sec = handshake;
    return p;
}

TEST(ToolReresolve, FileKeepsNamesUnresolved)
{
    Device f = file_of(std::string("[Peer]\nPublicKey = ") + test::kPub2 + "\nEndpoint = vpn.example.com:51820\n" +
                       "[Peer]\nPublicKey = " + test::kPub3 + "\nEndpoint = 192.0.2.3:51820\n");
    ASSERT_EQ(f.peers.size(), 2u);
    ASSERT_TRUE(f.peers[0].endpoint);
    EXPECT_EQ(f.peers[0].endpoint->size(), 0u);  // a name: not resolved while reading
    EXPECT_EQ(f.peers[0].endpoint_text, "vpn.example.com:51820");
    EXPECT_EQ(f.peers[1].endpoint, test::endpoint("192.0.2.3", 51820));
    // The file's grammar still holds, ports included.
    ParseResult bad =
        parse_config(std::string("[Peer]\nPublicKey = ") + test::kPub2 + "\nEndpoint = vpn.example.com:99999\n",
                     "wgx0.conf", reresolve_parse_options());
    ASSERT_EQ(bad.errors.size(), 1u);
    EXPECT_EQ(bad.errors[0].rfind("wgx0.conf:3: invalid Endpoint", 0), 0u) << bad.errors[0];
}

TEST(ToolReresolve, StalePeersFollowTheirName)
{
    Device f = file_of(std::string("[Peer]\nPublicKey = ") + test::kPub2 + "\nEndpoint = vpn.example.com:51820\n" +
                       "[Peer]\nPublicKey = " + test::kPub3 + "\nEndpoint = fresh.example.com:51821\n" +
                       "[Peer]\nPublicKey = " + test::kPub4 + "\nEndpoint = 192.0.2.4:51822\n" +
                       "[Peer]\nPublicKey = " + test::kPub5 + "\nEndpoint = never.example.com:51823\n");
    Device rt;
    rt.peers = {runtime_peer(test::kPub2, "192.0.2.7", 51820, kNow - kReresolveStaleSeconds - 1),
                runtime_peer(test::kPub3, "192.0.2.8", 51821, kNow - kReresolveStaleSeconds),
                runtime_peer(test::kPub4, "198.51.100.4", 51822, 0), runtime_peer(test::kPub5, nullptr, 0, 0)};
    Names names;
    names.addr = {
        {"vpn.example.com", "192.0.2.7"}, {"fresh.example.com", "198.51.100.8"}, {"never.example.com", "2001:db8::5"}};
    std::vector<std::string> errors;

    // The name still gives the peer's address: nothing to change.  The
    // peer with a recent handshake is not even looked up; the one that
    // never had a handshake and has no endpoint gets one.
    std::vector<EndpointChange> c = plan_reresolve(f, rt, kNow, names.resolver(), errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(names.lookups, 2);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].public_key, key(test::kPub5));
    EXPECT_EQ(c[0].name, "never.example.com:51823");
    EXPECT_EQ(c[0].from.size(), 0u);
    EXPECT_EQ(c[0].to, test::endpoint("2001:db8::5", 51823));

    // The name moves: the stale peer follows, with the file's port; the
    // fresh one stays where its handshakes come from; a numeric endpoint
    // is never touched (the kernel follows the peer's roaming).
    names.addr["vpn.example.com"] = "203.0.113.9";
    c = plan_reresolve(f, rt, kNow, names.resolver(), errors);
    EXPECT_TRUE(errors.empty());
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].public_key, key(test::kPub2));
    EXPECT_EQ(c[0].from, test::endpoint("192.0.2.7", 51820));
    EXPECT_EQ(c[0].to, test::endpoint("203.0.113.9", 51820));
    EXPECT_EQ(c[1].public_key, key(test::kPub5));

    // A name that does not resolve is reported and skipped; the others go on.
    names.addr.erase("vpn.example.com");
    c = plan_reresolve(f, rt, kNow, names.resolver(), errors);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], std::string(test::kPub2) +
                             ": unable to resolve endpoint `vpn.example.com:51820': Name or service not known");
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].public_key, key(test::kPub5));

    // A peer of the file the interface does not have is left alone.
    rt.peers.erase(rt.peers.begin() + 3);
    errors.clear();
    names.lookups = 0;
    c = plan_reresolve(f, rt, kNow, names.resolver(), errors);
    EXPECT_TRUE(c.empty());
    EXPECT_EQ(names.lookups, 1);  // only the stale vpn.example.com, which fails
}

}  // namespace
}  // namespace wgx
