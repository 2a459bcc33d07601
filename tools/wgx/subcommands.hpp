// SPDX-License-Identifier: GPL-2.0
//
// subcommands.hpp - entry points of the wgx subcommands, wg(8)-style: each
// takes the arguments starting at the subcommand name (argv[0] == "show",
// ...), prints to stdout/stderr and returns the process exit status (0 ok,
// 1 error or usage).
#pragma once

#include <string>
#include <vector>

#include "model.hpp"

namespace wgx {

/** Program name used in usage lines (basename of argv[0], default "wgx"). */
extern const char *prog_name;

int show_main(int argc, const char *argv[]);
int showconf_main(int argc, const char *argv[]);
int set_main(int argc, const char *argv[]);
/** setconf, addconf and syncconf, told apart by argv[0]. */
int setconf_main(int argc, const char *argv[]);
/** genkey and genpsk, told apart by argv[0]. */
int genkey_main(int argc, const char *argv[]);
int pubkey_main(int argc, const char *argv[]);
int top_main(int argc, const char *argv[]);
int exporter_main(int argc, const char *argv[]);

/**
 * run_cli - the whole command line (argv[0] is the program): dispatches to
 * a subcommand; no arguments means `show`; --help/-h/help print the overview
 * to stdout (exit 0); --version prints the version; an unknown subcommand
 * prints an error and the overview to stderr and returns 1.
 */
int run_cli(int argc, const char *argv[]);

// ---- shared by the subcommands (subcommands.cpp)

/**
 * check_usage - the usage rule of a subcommand (argv[0] is its name): for
 * exactly one argument -h or --help, prints "Usage: PROG CMD SYNOPSIS" to
 * stdout and returns 0; otherwise, when @args_ok is false, prints it to
 * stderr and returns 1; else returns -1 (go on).  An empty @synopsis prints
 * "Usage: PROG CMD".
 */
int check_usage(int argc, const char *argv[], bool args_ok, const char *synopsis);

/** check_ifname - false, with a message on stderr, when @name is longer than an interface name can be. */
bool check_ifname(const char *name);

/** print_messages - each of @messages (errors, warnings) on its own line to stderr. */
void print_messages(const std::vector<std::string> &messages);

/**
 * apply_device - send @dev to interface @ifname (set_device(), ipc.hpp).
 * Returns 0, or 1 after printing "Unable to modify interface IF: REASON".
 */
int apply_device(Device &dev, const char *ifname);

/** True if stdout should get ANSI colours: WG_COLOR_MODE=always|never, else isatty(stdout). */
bool color_mode();
/** False if WG_HIDE_KEYS=never (keys are then printed by show). */
bool hide_keys_mode();

}  // namespace wgx
