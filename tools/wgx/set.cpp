// SPDX-License-Identifier: GPL-2.0
//
// `wgx set IF ...`: change parts of the configuration from the command line.
#include <string>
#include <vector>

#include "set_args.hpp"
#include "subcommands.hpp"

namespace wgx {

int set_main(int argc, const char *argv[])
{
    static const char synopsis[] =
        "<interface> [listen-port <port>] [listen-ports <count>] [rx-spread auto|on|off] [fwmark <mark>] [private-key "
        "<file path>] [mtu <bytes>] [offload {gso|gro|tx-checksum|rx-checksum} {on|off}]... [peer <base64 public "
        "key> [remove] [preshared-key <file path>] [endpoint <ip>:<port>] [persistent-keepalive "
        "<interval seconds>] [allowed-ips [+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...] ]...";
    if (int rc = check_usage(argc, argv, argc >= 3, synopsis); rc >= 0)
        return rc;
    if (!check_ifname(argv[1]))
        return 1;
    std::vector<std::string> args(argv + 2, argv + argc);
    ParseResult r = parse_set_args(args);
    print_messages(r.warnings);
    if (!r.ok()) {
        print_messages(r.errors);
        return 1;
    }
    return apply_device(r.device, argv[1]);
}

}  // namespace wgx
