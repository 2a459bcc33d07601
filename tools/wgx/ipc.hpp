// SPDX-License-Identifier: GPL-2.0
//
// ipc.hpp - the tool's view of the kernel: read and change a wgx or
// wireguard interface, whichever its link kind is.  Combines rtnetlink
// (kind, ifindex, MTU), the interface's generic netlink family and ethtool
// netlink (offloads).  Needs CAP_NET_ADMIN like wg.
//
// The family is the one of the module that serves the interface: "wgx" for
// kind wgx; for kind wireguard "wgx" when the wgx module is loaded and its
// family accepts the interface (drop-in mode, docs/dropin.md), so wgx's
// counters and options work there too, and else "wireguard" (wireguard.ko,
// with wg(8)'s semantics).  Looking for "wgx" never has the kernel load it.
#pragma once

#include <string>
#include <vector>

#include "model.hpp"
#include "netlink.hpp"
#include "rtnl.hpp"

namespace wgx {

/** Links of kind "wgx" or "wireguard", in kernel (ifindex) order. */
Status list_devices(std::vector<LinkInfo> &out);

/**
 * get_device - the complete state of interface @name: kind, ifindex, MTU and
 * the GET_DEVICE dump of its family with split peers coalesced.  The dump is
 * restarted if the kernel flags it as interrupted by a concurrent change.
 * With @stats false a wgx device is asked without its counters
 * (WGX_GET_F_NO_STATS; Device::stats and Peer::stats stay empty), a smaller
 * dump for callers that need the configuration or handshake times only; a
 * module too old to know that flag is asked for everything.
 * Device::kind is the link kind, whichever family answered.
 * Errors: ENODEV (no such link), EOPNOTSUPP (not wgx/wireguard), ENOENT
 * (family not registered), EPERM, or what the kernel returns.
 */
Status get_device(const std::string &name, Device &out, bool stats = true);

/**
 * set_device - apply @dev to the interface dev.name: first everything that
 * can be checked without changing anything (the link exists and its kind,
 * offload names against the device's features), then the MTU (rtnetlink),
 * the generic netlink configuration (in as many SET_DEVICE messages as
 * needed), then the offloads.  Stops at the first error.  wgx's own
 * settings are refused (EOPNOTSUPP, naming the setting) on an interface
 * that wireguard.ko serves, unless they ask for WireGuard's behaviour.
 */
Status set_device(const Device &dev);

}  // namespace wgx
