// SPDX-License-Identifier: GPL-2.0
// `show --json` against its schema, docs/show-json.schema.json, checked by
// python3-jsonschema (tests/lib/json_schema_check.py): documents the printer
// makes validate, every statistic the tool knows is documented there, and a
// document that breaks the schema is refused.  The integration suites
// validate what the tool prints for real interfaces the same way.
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "../../../tools/wgx/format.hpp"
#include "tool_test_util.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {
namespace {

using test::key;

struct Check {
    int rc;
    std::string out;  // one line per violation
};

// json_schema_check.py's verdict on @json.
Check validate(const std::string &json)
{
    test::TempFile file(json);
    std::string cmd = std::string("python3 ") + WGX_SOURCE_DIR + "/tests/lib/json_schema_check.py " + WGX_SOURCE_DIR +
                      "/docs/show-json.schema.json " + file.path() + " 2>&1";
    Check c{-1, ""};
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return c;
    char buf[512];
    while (fgets(buf, sizeof(buf), p))
        c.out += buf;
    int status = pclose(p);
    c.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return c;
}

bool have_jsonschema()
{
    return system("python3 -c 'import jsonschema' >/dev/null 2>&1") == 0;
}

// A wgx interface with every field filled: every known statistic and an
// unknown one, a rotation under way, keys shown.
Device full_wgx_device()
{
    Device d;
    d.name = "wgx0";
    d.kind = Kind::Wgx;
    d.ifindex = 7;
    d.private_key = key(test::kPriv1);
    d.public_key = key(test::kPub1);
    d.previous_public_key = key(test::kPub5);
    d.listen_port = 51820;
    d.listen_ports = 4;
    d.rx_spread = RxSpread::On;
    d.dscp_copy = true;
    d.handshake_budget = 500;
    d.key_grace = 120;
    d.fwmark = 0x1234;
    d.mtu = 1420;
    d.mtu_auto = false;
    d.stats = Counters{};
    for (const StatInfo &s : device_stats())
        d.stats->push_back({s.attr, s.attr * 10ULL});
    d.stats->push_back({999, 1});

    Peer a;
    a.public_key = key(test::kPub2);
    a.preshared_key = key(test::kPsk);
    a.endpoint = test::endpoint("2001:db8::1", 51820);
    a.allowed_ips = {test::prefix("10.0.0.2", 32), test::prefix("fd00::", 64), test::prefix("0.0.0.0", 0)};
    a.last_handshake_sec = 1700000000;
    a.rx_bytes = ~0ULL;
    a.tx_bytes = 3145728;
    a.persistent_keepalive = 65535;
    a.protocol_version = 1;
    a.session_keys = WGX_SESSION_F_LOCAL_PREVIOUS;
    a.mtu = 1300;
    a.path_mtu = 1380;
    a.path_mtu_source = WGX_PATH_MTU_SOURCE_FIXED;
    a.stats = Counters{};
    for (const StatInfo &s : peer_stats())
        a.stats->push_back({s.attr, s.attr * 1000ULL});
    a.stats->push_back({999, 1});

    Peer b;
    b.public_key = key(test::kPub3);
    b.endpoint = test::endpoint("192.0.2.1", 1);
    b.session_keys = WGX_SESSION_F_PEER_PREVIOUS;
    b.mtu = 0;  // auto
    b.stats = Counters{};

    d.peers = {a, b};
    return d;
}

// An in-tree WireGuard interface: no statistics, no MTU, no peers' extras.
Device wireguard_device()
{
    Device d;
    d.name = "wg0";
    d.kind = Kind::WireGuard;
    d.ifindex = 3;
    Peer p;
    p.public_key = key(test::kPub4);
    d.peers = {p};
    return d;
}

TEST(ToolJsonSchema, PrintedDocumentsValidate)
{
    if (!have_jsonschema())
        GTEST_SKIP() << "python3-jsonschema is not installed";
    for (bool hide : {true, false}) {
        Check c = validate(format_json({full_wgx_device(), wireguard_device()}, hide));
        EXPECT_EQ(c.rc, 0) << c.out;
    }
    Check c = validate(format_json({}, true));
    EXPECT_EQ(c.rc, 0) << c.out;
    c = validate(test::read_golden("show.json"));
    EXPECT_EQ(c.rc, 0) << c.out;
}

// The schema's statistics are closed lists: one the tool prints by name but
// the schema does not document fails, naming it.
TEST(ToolJsonSchema, EveryStatisticIsDocumented)
{
    if (!have_jsonschema())
        GTEST_SKIP() << "python3-jsonschema is not installed";
    std::string doc = format_json({full_wgx_device()}, true);
    for (const StatInfo &s : peer_stats())
        EXPECT_NE(doc.find(std::string("\"") + s.name + "\""), std::string::npos) << s.name;
    Check c = validate(doc);
    EXPECT_EQ(c.rc, 0) << c.out;
}

TEST(ToolJsonSchema, InvalidDocumentsFail)
{
    if (!have_jsonschema())
        GTEST_SKIP() << "python3-jsonschema is not installed";
    const std::string good = format_json({full_wgx_device()}, false);
    ASSERT_EQ(validate(good).rc, 0);
    struct Case {
        const char *from, *to, *path;  // replace the first @from by @to; the violation names @path
    };
    const Case cases[] = {
        {"\"version\": 1", "\"version\": 2", "version"},
        {"\"listen_port\": 51820", "\"listen_port\": \"51820\"", "interfaces/0/listen_port"},
        {"\"listen_port\": 51820", "\"listen_port\": 99999", "interfaces/0/listen_port"},
        {"\"kind\": \"wgx\"", "\"kind\": \"wxg\"", "interfaces/0/kind"},
        {"\"name\": \"wgx0\",", "", "interfaces/0"},  // a required field missing
        {"\"mtu\": 1420", "\"mtu\": 1420, \"undocumented\": 1", "interfaces/0"},
        {"\"rx_packets\": ", "\"rx_packts\": ", "interfaces/0/peers/0/stats"},
        {"\"persistent_keepalive\": 65535", "\"persistent_keepalive\": -1",
         "interfaces/0/peers/0/persistent_keepalive"},
        {"\"has_preshared_key\": true", "\"has_preshared_key\": 1", "interfaces/0/peers/0/has_preshared_key"},
        {"\"local\": \"previous\"", "\"local\": \"old\"", "interfaces/0/peers/0/session_keys"},
        {"\"mtu\": \"auto\"", "\"mtu\": \"automatic\"", "interfaces/0/peers/1/mtu"},
        {"\"mtu_auto\": false", "\"mtu_auto\": 0", "interfaces/0/mtu_auto"},
        {"\"mtu\": 1300", "\"mtu\": -1300", "interfaces/0/peers/0/mtu"},
    };
    for (const Case &k : cases) {
        std::string bad = good;
        std::size_t at = bad.find(k.from);
        ASSERT_NE(at, std::string::npos) << k.from;
        bad.replace(at, strlen(k.from), k.to);
        Check c = validate(bad);
        EXPECT_EQ(c.rc, 1) << k.to << ": " << c.out;
        EXPECT_NE(c.out.find(std::string(": ") + k.path + ": "), std::string::npos) << k.to << ": " << c.out;
    }
    // A key that is not 32 bytes of base64.
    std::string bad = good;
    std::string pub = test::kPub2;
    bad.replace(bad.find(pub), pub.size(), pub.substr(0, 42) + "B=");
    EXPECT_EQ(validate(bad).rc, 1);
    // Not JSON at all: an error of its own (2), not a pass.
    EXPECT_EQ(validate("{\"version\": 1,").rc, 2);
}

}  // namespace
}  // namespace wgx
