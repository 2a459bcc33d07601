// SPDX-License-Identifier: GPL-2.0
//
// `wgx set IF ...`: change parts of the configuration from the command line.
#include <cstdio>
#include <cstring>

#include "set_args.hpp"
#include "ipc.hpp"
#include "subcommands.hpp"

namespace wgx {
namespace {

void set_usage(FILE *f, const char *cmd)
{
    fprintf(f,
            "Usage: %s %s <interface> [listen-port <port>] [fwmark <mark>] [private-key <file "
            "path>] [mtu <bytes>] [offload {gso|gro|tx-checksum|rx-checksum} {on|off}]... "
            "[peer <base64 public key> [remove] [preshared-key <file path>] [endpoint "
            "<ip>:<port>] [persistent-keepalive <interval seconds>] [allowed-ips "
            "[+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...] ]...\n",
            prog_name, cmd);
}

}  // namespace

int set_main(int argc, const char *argv[])
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        set_usage(stdout, argv[0]);
        return 0;
    }
    if (argc < 3) {
        set_usage(stderr, argv[0]);
        return 1;
    }
    if (strlen(argv[1]) > kIfNameMax) {
        fprintf(stderr, "Invalid interface name `%s': at most %zu characters\n", argv[1],
                kIfNameMax);
        return 1;
    }
    std::vector<std::string> args(argv + 2, argv + argc);
    ParseResult r = parse_set_args(args);
    for (const std::string &w : r.warnings)
        fprintf(stderr, "%s\n", w.c_str());
    if (!r.ok()) {
        for (const std::string &e : r.errors)
            fprintf(stderr, "%s\n", e.c_str());
        return 1;
    }
    r.device.name = argv[1];
    Status st = set_device(r.device);
    if (!st.is_ok()) {
        fprintf(stderr, "Unable to modify interface %s: %s\n", argv[1], st.text().c_str());
        return 1;
    }
    return 0;
}

}  // namespace wgx
