// SPDX-License-Identifier: GPL-2.0
//
// What the subcommands share (subcommands.hpp): the -h/--help and usage
// rule and help wrapping, the interface-name check, reading a configuration
// file and applying a parsed configuration.
#include "subcommands.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ipc.hpp"
#include "values.hpp"

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

int check_usage_text(int argc, const char *argv[], bool args_ok, const std::string &usage)
{
    const bool help = argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
    if (!help && args_ok)
        return -1;
    fputs(usage.c_str(), help ? stdout : stderr);
    return help ? 0 : 1;
}

std::string wrap_items(std::string first, const std::vector<std::string> &items, const std::string &indent,
                       std::size_t width)
{
    std::string out;
    std::string line = std::move(first);
    for (const std::string &item : items) {
        if (line.size() + 1 + item.size() > width && line.size() > indent.size()) {
            out += line + "\n";
            line = indent + item;
        } else {
            line += (line.empty() || line == indent ? "" : " ") + item;
        }
    }
    return out + line + "\n";
}

bool read_config_file(const char *path, std::string &out, std::string &warning)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "Unable to open configuration file `%s': %s\n", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0)
        warning = world_accessible_warning(path, st.st_mode, S_ISREG(st.st_mode));
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        out.append(buf, n);
    bool err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "Unable to read configuration file `%s'\n", path);
        return false;
    }
    return true;
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
