// SPDX-License-Identifier: GPL-2.0
//
// wgx-top - `wgx top` (top_ui.cpp) as a program of its own, the only one
// that loads ncurses; wgx runs it with its command line (helper.hpp).
#include "helper.hpp"
#include "subcommands.hpp"

int main(int argc, const char *argv[])
{
    return wgx::run_helper(argc, argv, "top", wgx::top_main);
}
