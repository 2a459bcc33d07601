// SPDX-License-Identifier: GPL-2.0
// syncconf's change computation, and the command line's usage/exit codes
// for everything decided before the kernel is asked.
#include <cstring>

#include "../../../tools/wgx/format.hpp"
#include "../../../tools/wgx/subcommands.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

using test::key;

Peer peer(const char *k)
{
    Peer p;
    p.public_key = key(k);
    return p;
}

TEST(ToolSync, RemovesPeersMissingFromFileAndClearsDroppedSettings)
{
    Device runtime;
    Peer r2 = peer(test::kPub2);
    r2.preshared_key = key(test::kPsk);
    r2.persistent_keepalive = 25;
    Peer r3 = peer(test::kPub3);
    Peer r4 = peer(test::kPub4);
    r4.persistent_keepalive = 0;
    runtime.peers = {r2, r3, r4};

    ParseResult file = parse_config(std::string("[Interface]\nListenPort = 1\n[Peer]\nPublicKey = ") + test::kPub2 +
                                        "\n[Peer]\nPublicKey = " + test::kPub4 +
                                        "\nPersistentKeepalive = 5\n[Peer]\nPublicKey = " + test::kPub5 + "\n",
                                    "f", test::test_options());
    ASSERT_TRUE(file.ok());
    Device d = file.device;
    sync_config(d, runtime);
    EXPECT_FALSE(d.replace_peers);
    ASSERT_EQ(d.peers.size(), 4u);
    // The removal comes first, then the file's peers in file order.
    EXPECT_EQ(d.peers[0].public_key, key(test::kPub3));
    EXPECT_TRUE(d.peers[0].remove);
    const Peer &p2 = d.peers[1];
    EXPECT_EQ(p2.public_key, key(test::kPub2));
    EXPECT_FALSE(p2.remove);
    ASSERT_TRUE(p2.preshared_key);  // file has no PSK any more: cleared explicitly
    EXPECT_TRUE(key_is_zero(*p2.preshared_key));
    EXPECT_EQ(p2.persistent_keepalive, 0);  // keepalive no longer in the file: turned off
    EXPECT_TRUE(p2.replace_allowed_ips);
    EXPECT_EQ(d.peers[2].persistent_keepalive, 5);
    EXPECT_FALSE(d.peers[3].persistent_keepalive);  // new peer: nothing to clear
    EXPECT_FALSE(d.peers[3].preshared_key);
    EXPECT_EQ(d.listen_port, 1);
}

TEST(ToolSync, FileWithoutPeersOrEmptyRuntimeReplacesEverything)
{
    Device runtime;
    runtime.peers = {peer(test::kPub2)};
    ParseResult file = parse_config("[Interface]\n", "f", test::test_options());
    Device d = file.device;
    sync_config(d, runtime);
    EXPECT_TRUE(d.replace_peers);
    EXPECT_TRUE(d.peers.empty());

    Device d2 =
        parse_config(std::string("[Peer]\nPublicKey = ") + test::kPub3 + "\n", "f", test::test_options()).device;
    sync_config(d2, Device{});
    EXPECT_TRUE(d2.replace_peers);
    ASSERT_EQ(d2.peers.size(), 1u);
}

struct CliRun {
    int rc;
    std::string out, err;
};

CliRun run(std::vector<const char *> args)
{
    args.insert(args.begin(), "wgx");
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    int rc = run_cli(static_cast<int>(args.size()), args.data());
    CliRun r{rc, testing::internal::GetCapturedStdout(), testing::internal::GetCapturedStderr()};
    return r;
}

TEST(ToolCli, HelpAndUnknownSubcommand)
{
    CliRun r = run({"--help"});
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.out.rfind("Usage: wgx <cmd> [<args>]\n\nAvailable subcommands:\n", 0), 0u);
    for (const char *c : {"show", "showconf", "set", "setconf", "addconf", "syncconf", "genkey", "genpsk", "pubkey"})
        EXPECT_NE(r.out.find(std::string("  ") + c + ": "), std::string::npos) << c;
    EXPECT_TRUE(r.err.empty());

    r = run({"frobnicate"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(r.err.rfind("Invalid subcommand: `frobnicate'\nUsage: wgx <cmd> [<args>]", 0), 0u);
}

TEST(ToolCli, SubcommandUsage)
{
    struct Case {
        std::vector<const char *> args;
        const char *usage_prefix;
    };
    const std::vector<Case> cases = {
        {{"set"}, "Usage: wgx set <interface> [listen-port <port>]"},
        {{"set", "wg0"}, "Usage: wgx set <interface>"},
        {{"setconf", "wg0"}, "Usage: wgx setconf <interface> <configuration filename>\n"},
        {{"addconf"}, "Usage: wgx addconf <interface> <configuration filename>\n"},
        {{"syncconf", "a", "b", "c"}, "Usage: wgx syncconf <interface> <configuration filename>\n"},
        {{"showconf"}, "Usage: wgx showconf <interface>\n"},
        {{"genkey", "x"}, "Usage: wgx genkey\n"},
        {{"genpsk", "x"}, "Usage: wgx genpsk\n"},
        {{"pubkey", "x"}, "Usage: wgx pubkey\n"},
        {{"show", "a", "b", "c"}, "Usage: wgx show { <interface> | all | interfaces }"},
        {{"show", "interfaces", "x"}, "Usage: wgx show { <interface> | all | interfaces }"},
        {{"show", "--json", "a", "b"}, "Usage: wgx show { <interface> | all | interfaces }"},
    };
    for (const Case &c : cases) {
        CliRun r = run(c.args);
        EXPECT_EQ(r.rc, 1) << c.usage_prefix;
        EXPECT_EQ(r.err.rfind(c.usage_prefix, 0), 0u) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    // --help on a subcommand goes to stdout and succeeds.
    for (const char *sub : {"set", "setconf", "showconf", "genkey", "pubkey", "show"}) {
        CliRun r = run({sub, "--help"});
        EXPECT_EQ(r.rc, 0) << sub;
        EXPECT_NE((r.out + r.err).find(std::string("Usage: wgx ") + sub), std::string::npos) << sub;
    }
}

// Help texts fit a terminal: no line over 80 columns.
void expect_lines_fit(const std::string &text, const std::string &what)
{
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        EXPECT_LE(line.size(), 80u) << what << ": " << line;
        start = nl == std::string::npos ? text.size() : nl + 1;
    }
}

TEST(ToolCli, HelpListsEveryOptionAndWraps)
{
    CliRun r = run({"--help"});
    ASSERT_EQ(r.rc, 0);
    expect_lines_fit(r.out, "wgx --help");
    for (const std::string &c : subcommand_names())
        EXPECT_NE(r.out.find("  " + c + ": "), std::string::npos) << c;
    // Every interface setting that is not wg's is listed as an extension.
    for (const SetKeyword &k : set_keywords()) {
        const std::string name = k.name;
        if (k.peer || name == "fwmark" || name == "private-key" || name == "listen-port" || name == "peer")
            continue;
        EXPECT_NE(r.out.find("set <interface> " + name + " "), std::string::npos) << name;
    }
    EXPECT_NE(r.out.find("dump-telemetry"), std::string::npos);

    r = run({"set", "--help"});
    ASSERT_EQ(r.rc, 0);
    expect_lines_fit(r.out, "wgx set --help");
    for (const SetKeyword &k : set_keywords())
        EXPECT_NE(r.out.find(std::string("[") + k.name + (*k.value ? " " : "]")), std::string::npos) << k.name;

    r = run({"show", "--help"});
    ASSERT_EQ(r.rc, 0);
    expect_lines_fit(r.out, "wgx show --help");
    for (const std::string &f : show_fields())
        EXPECT_NE(r.out.find(f + (f == show_fields().back() ? "]" : " |")), std::string::npos) << f;
}

TEST(ToolCli, BadInputIsRefusedBeforeTouchingTheKernel)
{
    CliRun r = run({"set", "wg0", "listen-port", "99999"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.err, "invalid listen-port `99999': expected a port number 0-65535, a UDP service "
                     "name or \"off\"\n");

    r = run({"set", "wg0", "peer", test::kPub2, "endpoint", "192.0.2.1:99999"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.err, "invalid endpoint `192.0.2.1:99999': expected HOST:PORT with a port number 1-65535\n");

    r = run({"show", "wg0", "bogus"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.err.rfind("Invalid parameter: `bogus'\nUsage: wgx show", 0), 0u);

    r = run({"set", "an-interface-name-too-long", "listen-port", "1"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.err, "Invalid interface name `an-interface-name-too-long': at most 15 characters\n");

    const std::string bad = test::golden_path("malformed.conf");
    r = run({"setconf", "wg0", bad.c_str()});
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find(bad + ":8: `Address' is a wg-quick(8) key"), std::string::npos);
    EXPECT_NE(r.err.find("Configuration parsing error: nothing was changed\n"), std::string::npos);

    r = run({"setconf", "wg0", "/nonexistent/wg0.conf"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.err, "Unable to open configuration file `/nonexistent/wg0.conf': No such file or "
                     "directory\n");
}

}  // namespace
}  // namespace wgx
