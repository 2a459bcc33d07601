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
/** set_prog_name - prog_name from @argv0 (its basename; unchanged when null or empty). */
void set_prog_name(const char *argv0);

int show_main(int argc, const char *argv[]);
/** The options of `show`: "--json" and "--prometheus" (the fields are show_fields(), format.hpp). */
const std::vector<std::string> &show_options();
int showconf_main(int argc, const char *argv[]);
int set_main(int argc, const char *argv[]);
/** setconf, addconf and syncconf, told apart by argv[0]. */
int setconf_main(int argc, const char *argv[]);
/** genkey and genpsk, told apart by argv[0]. */
int genkey_main(int argc, const char *argv[]);
int pubkey_main(int argc, const char *argv[]);
/** top and exporter: in the programs wgx-top and wgx-exporter only (helper.hpp), which run_cli() runs. */
int top_main(int argc, const char *argv[]);
int exporter_main(int argc, const char *argv[]);
int reresolve_main(int argc, const char *argv[]);

/**
 * run_cli - the whole command line (argv[0] is the program): dispatches to
 * a subcommand (top and exporter: replaces the process with their program,
 * exec_helper()); no arguments means `show`; --help/-h/help print the overview
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

/**
 * check_usage_text - check_usage() with a whole usage text @usage (one or
 * more lines, each ending in a newline) instead of a one-line synopsis.
 */
int check_usage_text(int argc, const char *argv[], bool args_ok, const std::string &usage);

/**
 * wrap_items - @first followed by @items separated by spaces, broken into
 * lines of at most @width columns between items (an item longer than a line
 * stands alone); continuation lines start with @indent.  Ends in a newline.
 */
std::string wrap_items(std::string first, const std::vector<std::string> &items, const std::string &indent,
                       std::size_t width = 80);

/** subcommand_names - every subcommand run_cli() accepts, in its usage order. */
std::vector<std::string> subcommand_names();

/** check_ifname - false, with a message on stderr, when @name is longer than an interface name can be. */
bool check_ifname(const char *name);

/**
 * read_config_file - the whole of configuration file @path into @out.  On
 * failure prints "Unable to open/read configuration file" to stderr and
 * returns false.  @warning gets world_accessible_warning()'s text for the
 * file ("" when its mode is fine), for the caller to print when it holds
 * secrets.
 */
bool read_config_file(const char *path, std::string &out, std::string &warning);

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
