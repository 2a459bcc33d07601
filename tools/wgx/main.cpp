// SPDX-License-Identifier: GPL-2.0
//
// wgx - configure wgx and in-tree WireGuard interfaces, wg(8)-compatible.
#include "subcommands.hpp"

int main(int argc, const char *argv[])
{
    return wgx::run_cli(argc, argv);
}
