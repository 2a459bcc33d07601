// SPDX-License-Identifier: GPL-2.0
//
// set_args.hpp - parsing of the arguments of `wgx set` (wg(8) "set", plus the
// wgx extensions mtu and offload).  The single values are parsed by
// values.hpp; key files are read as `wg set` reads them.
#pragma once

#include <string>
#include <vector>

#include "values.hpp"

namespace wgx {

/**
 * parse_set_args - parse the arguments of `wgx set IF ...` after the
 * interface name: the interface settings of set_keywords(), then any
 * number of `peer KEY` each followed by its peer settings.  On error,
 * errors holds one message naming the argument and what was expected.
 */
ParseResult parse_set_args(const std::vector<std::string> &args, const ParseOptions &opts = {});

/** One keyword of `wgx set`. */
struct SetKeyword {
    const char *name;   // "listen-port"
    const char *value;  // its value in usage, "<port>"; "" for a keyword without one (remove)
    bool peer;          // a peer setting (after `peer <key>`), else an interface setting
    bool repeats;       // may be given more than once (offload)
};

/**
 * set_keywords - every keyword parse_set_args() accepts, in usage order:
 * the interface settings, then `peer`, then the peer settings; those of
 * options.hpp come from its table.  The usage of `set`, its error messages
 * and the tests are made from this list.
 */
const std::vector<SetKeyword> &set_keywords();

/** The offload names accepted by `set ... offload` (gso, gro, tx-checksum, rx-checksum). */
const std::vector<std::string> &offload_names();

}  // namespace wgx
