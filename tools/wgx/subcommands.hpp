// SPDX-License-Identifier: GPL-2.0
//
// subcommands.hpp - entry points of the wgx subcommands, wg(8)-style: each
// takes the arguments starting at the subcommand name (argv[0] == "show",
// ...), prints to stdout/stderr and returns the process exit status (0 ok,
// 1 error or usage).
#pragma once

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

/** True if stdout should get ANSI colours: WG_COLOR_MODE=always|never, else isatty(stdout). */
bool color_mode();
/** False if WG_HIDE_KEYS=never (keys are then printed by show). */
bool hide_keys_mode();

}  // namespace wgx
