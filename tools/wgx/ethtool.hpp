// SPDX-License-Identifier: GPL-2.0
//
// ethtool.hpp - offload toggles through ethtool netlink (family "ethtool",
// ETHTOOL_MSG_FEATURES_GET/SET with verbose, name-based bitsets; see
// <linux/ethtool_netlink.h> and the kernel's Documentation/networking/
// ethtool-netlink.rst).  `wgx set IF offload NAME on|off` names map to
// netdev feature strings:
//   gso         -> tx-generic-segmentation
//   gro         -> rx-gro
//   rx-checksum -> rx-checksum
//   tx-checksum -> tx-checksum-ip-generic, or tx-checksum-ipv4 and
//                  tx-checksum-ipv6 on devices that only have those
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model.hpp"
#include "netlink.hpp"

namespace wgx {

/** State of one netdev feature as ethtool reports it. */
struct FeatureState {
    bool hw = false;        // user-changeable
    bool wanted = false;    // requested by the user
    bool active = false;    // currently on
    bool nochange = false;  // fixed by the driver
};
using FeatureMap = std::map<std::string, FeatureState>;
using FeatureRequest = std::vector<std::pair<std::string, bool>>;  // feature name, on

NlMessage build_features_get_request(std::uint16_t family, const std::string &ifname);
/** FEATURES_SET changing exactly the features in @req (the bitset's mask is the listed bits). */
NlMessage build_features_set_request(std::uint16_t family, const std::string &ifname, const FeatureRequest &req);
/** Decode a FEATURES_GET reply (verbose bitsets, list or value/mask form) into @out. */
Status parse_features_reply(const nlmsghdr *nlh, FeatureMap &out);

/**
 * map_offloads - translate `offload` settings into feature changes for a
 * device whose features are @features.  Fails (with a message naming the
 * offload, the feature and the device @ifname) when a feature is missing or
 * not changeable and not already in the requested state.
 */
Status map_offloads(const std::vector<OffloadSetting> &offloads, const FeatureMap &features, const std::string &ifname,
                    FeatureRequest &out);

/** Reads @ifname's features over ethtool netlink. */
Status ethtool_get_features(const std::string &ifname, FeatureMap &out);
/**
 * Applies @offloads to @ifname: checks them against the current features
 * first (nothing changes if any is impossible), sets them, then reads back and
 * fails if the kernel left one in another state (e.g. a dependency).
 */
Status ethtool_apply_offloads(const std::string &ifname, const std::vector<OffloadSetting> &offloads);
/** The checking half of ethtool_apply_offloads(), for validating before other changes. */
Status ethtool_check_offloads(const std::string &ifname, const std::vector<OffloadSetting> &offloads);

}  // namespace wgx
