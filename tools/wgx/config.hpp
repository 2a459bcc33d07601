// SPDX-License-Identifier: GPL-2.0
//
// config.hpp - parsing of wg(8) configuration files, and the `wg syncconf`
// rule that turns a parsed file into the change of a running device.  The
// single values are parsed by values.hpp, `wgx set` arguments by
// set_args.hpp.
//
// File grammar (wg(8) "CONFIGURATION FILE FORMAT"): lines; `#` starts a
// comment anywhere; all whitespace (space, tab, CR, ...) is removed before a
// line is interpreted, so CRLF files and "Allowed IPs"-style spacing work;
// `[Interface]` / `[Peer]` sections and `Key = Value` pairs, both matched
// case-insensitively.  [Interface]: PrivateKey, ListenPort, FwMark and, as a
// wgx extension, MTU.  [Peer]: PublicKey, PresharedKey, AllowedIPs
// (repeatable, comma separated, each entry optionally prefixed by `+` (add
// without replacing) or `-` (remove)), Endpoint, PersistentKeepalive.  The
// wg-quick keys Address, DNS, Table, PreUp, PostUp, PreDown, PostDown and
// SaveConfig are refused with a message saying so.
#pragma once

#include <string_view>

#include "model.hpp"
#include "values.hpp"

namespace wgx {

/**
 * parse_config - parse configuration text @text read from @filename (used
 * only in messages).  Every problem is reported, each naming
 * `filename:line`, the offending value and what was expected; the result is
 * usable only when ok().  Without options.append the device is marked to
 * replace all peers and to reset private key, listen port and fwmark to
 * "none/0" when the file does not set them (setconf semantics).
 */
ParseResult parse_config(std::string_view text, std::string_view filename, const ParseOptions &opts = {});

/**
 * sync_config - turn the parsed file @file (setconf semantics) into the
 * minimal change that makes the interface match it without disturbing peers
 * it keeps, as `wg syncconf` does: when both the file and the running device
 * @runtime have peers, replace-peers is dropped, each running peer missing
 * from the file gets a remove entry (placed first), and a kept peer whose
 * preshared key or persistent keepalive the file no longer sets gets them
 * cleared explicitly.  A file without peers keeps replace-peers (removing
 * all).
 */
void sync_config(Device &file, const Device &runtime);

}  // namespace wgx
