// SPDX-License-Identifier: GPL-2.0
//
// wgx-exporter - `wgx exporter` (exporter.cpp) as a program of its own, the
// only one that loads libmicrohttpd (and gnutls); wgx runs it with its
// command line (helper.hpp).
#include "helper.hpp"
#include "subcommands.hpp"

int main(int argc, const char *argv[])
{
    return wgx::run_helper(argc, argv, "exporter", wgx::exporter_main);
}
