// SPDX-License-Identifier: GPL-2.0
//
// The subcommand dispatcher behind tools/wgx/main.cpp.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "helper.hpp"
#include "options.hpp"
#include "subcommands.hpp"

namespace wgx {

const char *prog_name = "wgx";

namespace {

struct Subcommand {
    const char *name;
    int (*fn)(int, const char **);  // nullptr: a program of its own, wgx-NAME (helper.hpp)
    const char *description;
};

constexpr Subcommand kSubcommands[] = {
    {"show", show_main, "Shows the current configuration and device information"},
    {"showconf", showconf_main,
     "Shows the current configuration of a given wgx or WireGuard interface, for use with "
     "`setconf'"},
    {"set", set_main, "Change the current configuration, add peers, remove peers, or change peers"},
    {"setconf", setconf_main, "Applies a configuration file to a wgx or WireGuard interface"},
    {"addconf", setconf_main, "Appends a configuration file to a wgx or WireGuard interface"},
    {"syncconf", setconf_main, "Synchronizes a configuration file to a wgx or WireGuard interface"},
    {"genkey", genkey_main, "Generates a new private key and writes it to stdout"},
    {"genpsk", genkey_main, "Generates a new preshared key and writes it to stdout"},
    {"pubkey", pubkey_main, "Reads a private key from stdin and writes a public key to stdout"},
    {"top", nullptr, "Live per-peer rates, RTT, loss, retransmits and drops (wgx extension)"},
    {"exporter", nullptr, "Serves per-peer metrics to Prometheus over HTTP (wgx extension)"},
    {"reresolve", reresolve_main,
     "Resolves again the host-name endpoints of a configuration file for peers without a recent handshake (wgx "
     "extension)"},
};

// The wgx extensions to wg(8) that are not settings of options.hpp: one entry per feature, its syntax and what
// it is for.
struct Extension {
    std::string syntax;
    std::string purpose;  // "" when the syntax says it all
};

std::vector<Extension> extensions()
{
    std::vector<Extension> e;
    std::string interface_keys, peer_keys;
    for (const DeviceOption &o : device_options()) {
        if (!o.purpose)
            continue;
        e.push_back({std::string("set <interface> ") + o.keyword + " " + o.usage, o.purpose});
        interface_keys += (interface_keys.empty() ? "" : ", ") + std::string(o.config_key);
    }
    e.push_back({"set <interface> offload {gso|gro|tx-checksum|rx-checksum} {on|off}", ""});
    e.push_back({"set <interface> peer <key> public-key <new key>", "re-key a peer in place"});
    for (const PeerOption &o : peer_options()) {
        if (!o.purpose)
            continue;
        e.push_back({std::string("set <interface> peer <key> ") + o.keyword + " " + o.usage, o.purpose});
        peer_keys += (peer_keys.empty() ? "" : ", ") + std::string(o.config_key);
    }
    e.push_back({"[Interface] " + interface_keys, ""});
    e.push_back({"[Peer] " + peer_keys, ""});
    e.push_back({"show <interface> dump-telemetry", "dump with one column per peer statistic"});
    e.push_back({"show --json, show --prometheus, top, exporter, reresolve", ""});
    return e;
}

void usage(FILE *f)
{
    fprintf(f, "Usage: %s <cmd> [<args>]\n\n", prog_name);
    auto split = [](const char *text, std::vector<std::string> &words) {
        for (const char *p = text; *p;) {
            const char *sp = strchr(p, ' ');
            std::size_t n = sp ? static_cast<std::size_t>(sp - p) : strlen(p);
            words.emplace_back(p, n);
            p += n + (sp ? 1 : 0);
        }
    };
    fprintf(f, "Available subcommands:\n");
    for (const Subcommand &s : kSubcommands) {
        std::vector<std::string> words;
        split(s.description, words);
        fputs(wrap_items(std::string("  ") + s.name + ":", words, "      ").c_str(), f);
    }
    fprintf(f, "You may pass `--help' to any of these subcommands to view usage.\n\n");
    fprintf(f, "wgx extensions to wg(8):\n");
    for (const Extension &e : extensions()) {
        std::vector<std::string> words;
        split(e.syntax.c_str(), words);
        if (!e.purpose.empty()) {
            words.back() += ":";
            split(e.purpose.c_str(), words);
        }
        fputs(wrap_items("  " + words[0], std::vector<std::string>(words.begin() + 1, words.end()), "      ").c_str(),
              f);
    }
}

}  // namespace

std::vector<std::string> subcommand_names()
{
    std::vector<std::string> names;
    for (const Subcommand &s : kSubcommands)
        names.push_back(s.name);
    return names;
}

void set_prog_name(const char *argv0)
{
    if (argv0 && *argv0) {
        const char *slash = strrchr(argv0, '/');
        prog_name = slash ? slash + 1 : argv0;
    }
}

int run_cli(int argc, const char *argv[])
{
    if (argc > 0)
        set_prog_name(argv[0]);
    if (argc == 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
        printf("wgx v%s - wg(8)-compatible configuration tool for wgx and WireGuard\n", WGX_VERSION);
        return 0;
    }
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))) {
        usage(stdout);
        return 0;
    }
    if (argc <= 1) {
        const char *show_argv[] = {"show", nullptr};
        return show_main(1, show_argv);
    }
    for (const Subcommand &s : kSubcommands)
        if (!strcmp(argv[1], s.name))
            return s.fn ? s.fn(argc - 1, argv + 1) : exec_helper(argc, argv);
    fprintf(stderr, "Invalid subcommand: `%s'\n", argv[1]);
    usage(stderr);
    return 1;
}

}  // namespace wgx
