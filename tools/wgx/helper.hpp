// SPDX-License-Identifier: GPL-2.0
//
// helper.hpp - the subcommands that are programs of their own: `wgx top`
// (ncurses) and `wgx exporter` (libmicrohttpd) run as wgx-top and
// wgx-exporter, so that wgx itself links neither library nor the ones they
// pull in (gnutls, p11-kit, ...), which every start of wgx would otherwise
// load and initialize.  wgx replaces itself with the helper, passing its own
// command line unchanged; the helper runs the subcommand exactly as wgx did,
// so the output and the exit status are the same.
#pragma once

#include <string>
#include <vector>

namespace wgx {

/**
 * helper_paths - where wgx, running as the binary @self (an absolute path),
 * looks for the program of @subcommand, "wgx-" @subcommand, in order: next
 * to @self (the build tree: build/tools/), then in ../libexec/wgx/ from
 * @self's directory (installed: $(PREFIX)/bin/wgx and
 * $(PREFIX)/libexec/wgx/, any PREFIX).
 */
std::vector<std::string> helper_paths(const std::string &self, const char *subcommand);

/**
 * exec_helper - runs the program of subcommand argv[1] (helper_paths() of
 * /proc/self/exe, the first that exists) in place of this process, with
 * @argv unchanged.  Returns only on failure: 1, after a message on stderr
 * naming the missing path (or the one that could not be run and why).
 */
int exec_helper(int argc, const char *argv[]);

/**
 * run_helper - main() of the program of @subcommand: @argv is wgx's
 * command line (argv[0] the program wgx was run as, which names it in
 * messages; argv[1] @subcommand), run with @fn as run_cli() runs a
 * subcommand.  Another argv[1] (the program run by hand) is refused with
 * a message and 1.
 */
int run_helper(int argc, const char *argv[], const char *subcommand, int (*fn)(int, const char **));

}  // namespace wgx
