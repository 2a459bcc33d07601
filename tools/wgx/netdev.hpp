// SPDX-License-Identifier: GPL-2.0
//
// netdev.hpp - the peers of a systemd-networkd .netdev file (systemd.netdev(5):
// [NetDev] Name=, Kind=wireguard; [WireGuardPeer] PublicKey=, Endpoint=), for
// `wgx reresolve` on devices that networkd creates (drop-in mode).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "values.hpp"

namespace wgx {

/** systemd-networkd's configuration directories, highest priority first (systemd.network(5)). */
constexpr const char *kNetworkdDirs[] = {"/etc/systemd/network", "/run/systemd/network",
                                         "/usr/local/lib/systemd/network", "/usr/lib/systemd/network"};

/**
 * parse_netdev - read the text @text of the .netdev file @filename as
 * networkd does for its WireGuard part: the result's device carries the
 * interface name ([NetDev] Name=) and, for each [WireGuardPeer] section
 * with a PublicKey=, a peer with that key and its Endpoint= (parsed with
 * @opts.resolve; the text as written in Peer::endpoint_text).  Section
 * and key names are case-sensitive, as in systemd; other sections and keys
 * are ignored (networkd reads them, reresolve does not need them).
 * Errors name FILE:LINE: a Kind= other than wireguard, a PublicKey= or
 * Endpoint= that does not parse, a peer without PublicKey=, no Name=.
 */
ParseResult parse_netdev(std::string_view text, std::string_view filename, const ParseOptions &opts);

/**
 * find_netdev_file - the .netdev file among @dirs (highest priority first)
 * whose [NetDev] Name= is @ifname, as networkd picks it: a file name in an
 * earlier directory hides the same name in later ones, and of the files
 * left the first in lexical order of their names wins.  Returns the path,
 * or "" when there is none (unreadable files are skipped).
 */
std::string find_netdev_file(std::string_view ifname, const std::vector<std::string> &dirs);

/** True when @path names a .netdev file (by its suffix). */
bool is_netdev_path(std::string_view path);

}  // namespace wgx
