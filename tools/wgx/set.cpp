// SPDX-License-Identifier: GPL-2.0
//
// `wgx set IF ...`: change parts of the configuration from the command line.
#include <string>
#include <vector>

#include "set_args.hpp"
#include "subcommands.hpp"

namespace wgx {

namespace {

// wg's synopsis of `set`, one bracketed item per keyword of set_keywords(),
// wrapped to the terminal's customary 80 columns.
std::string set_usage(const char *cmd)
{
    std::vector<std::string> items;
    bool in_peer = false;
    for (const SetKeyword &k : set_keywords()) {
        std::string item = std::string("[") + k.name + (*k.value ? " " : "") + k.value;
        if (std::string(k.name) == "peer") {
            in_peer = true;
            items.push_back(item);  // closed after the peer settings
            continue;
        }
        items.push_back(item + "]" + (k.repeats ? "..." : ""));
    }
    if (in_peer)
        items.back() += " ]...";
    return wrap_items(std::string("Usage: ") + prog_name + " " + cmd + " <interface>", items, "         ");
}

}  // namespace

int set_main(int argc, const char *argv[])
{
    if (int rc = check_usage_text(argc, argv, argc >= 3, set_usage(argv[0])); rc >= 0)
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
