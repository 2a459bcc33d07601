// SPDX-License-Identifier: GPL-2.0
//
// The subcommands run as programs of their own (helper.hpp): finding and
// running them from wgx, and their side of the command line.
#include "helper.hpp"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "subcommands.hpp"

namespace wgx {

std::vector<std::string> helper_paths(const std::string &self, const char *subcommand)
{
    const std::string name = std::string("wgx-") + subcommand;
    const std::string dir = self.substr(0, self.rfind('/'));  // "" for a binary in /
    const std::string parent = dir.substr(0, dir.rfind('/'));
    return {dir + "/" + name, parent + "/libexec/wgx/" + name};
}

int exec_helper(int argc, const char *argv[])
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n < 0) {
        fprintf(stderr, "%s %s: unable to find the running program (/proc/self/exe): %s\n", prog_name, argv[1],
                strerror(errno));
        return 1;
    }
    self[n] = '\0';
    std::vector<char *> args;
    for (int i = 0; i < argc; ++i)
        args.push_back(const_cast<char *>(argv[i]));
    args.push_back(nullptr);
    const std::vector<std::string> paths = helper_paths(self, argv[1]);
    for (const std::string &path : paths) {
        execv(path.c_str(), args.data());
        if (errno != ENOENT) {
            fprintf(stderr, "%s %s: unable to run %s: %s\n", prog_name, argv[1], path.c_str(), strerror(errno));
            return 1;
        }
    }
    fprintf(stderr, "%s %s: its program %s is missing (also looked for %s); reinstall wgx\n", prog_name, argv[1],
            paths.back().c_str(), paths.front().c_str());
    return 1;
}

int run_helper(int argc, const char *argv[], const char *subcommand, int (*fn)(int, const char **))
{
    if (argc < 2 || strcmp(argv[1], subcommand)) {
        fprintf(stderr, "wgx-%s is run by wgx: use `wgx %s' instead\n", subcommand, subcommand);
        return 1;
    }
    set_prog_name(argv[0]);
    return fn(argc - 1, argv + 1);
}

}  // namespace wgx
