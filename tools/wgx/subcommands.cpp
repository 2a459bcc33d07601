// SPDX-License-Identifier: GPL-2.0
//
// What the subcommands share (subcommands.hpp): the -h/--help and usage
// rule, the interface-name check and applying a parsed configuration.
#include "subcommands.hpp"

#include <cstdio>
#include <cstring>

#include "ipc.hpp"

namespace wgx {

int check_usage(int argc, const char *argv[], bool args_ok, const char *synopsis)
{
    const bool help = argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
    if (!help && args_ok)
        return -1;
    FILE *f = help ? stdout : stderr;
    fprintf(f, "Usage: %s %s%s%s\n", prog_name, argv[0], *synopsis ? " " : "", synopsis);
    return help ? 0 : 1;
}

bool check_ifname(const char *name)
{
    if (strlen(name) <= kIfNameMax)
        return true;
    fprintf(stderr, "Invalid interface name `%s': at most %zu characters\n", name, kIfNameMax);
    return false;
}

void print_messages(const std::vector<std::string> &messages)
{
    for (const std::string &m : messages)
        fprintf(stderr, "%s\n", m.c_str());
}

int apply_device(Device &dev, const char *ifname)
{
    dev.name = ifname;
    Status st = set_device(dev);
    if (!st.is_ok()) {
        fprintf(stderr, "Unable to modify interface %s: %s\n", ifname, st.text().c_str());
        return 1;
    }
    return 0;
}

}  // namespace wgx
