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
 * interface name: listen-port N, fwmark N, private-key FILE, mtu N,
 * offload gso|gro|tx-checksum|rx-checksum on|off, then any number of
 * `peer KEY [remove] [preshared-key FILE] [endpoint H:P]
 * [persistent-keepalive N|off] [allowed-ips LIST]`.  On error, errors holds
 * one message naming the argument and what was expected.
 */
ParseResult parse_set_args(const std::vector<std::string> &args, const ParseOptions &opts = {});

/** The offload names accepted by `set ... offload` (gso, gro, tx-checksum, rx-checksum). */
const std::vector<std::string> &offload_names();

}  // namespace wgx
